"""Where a mock reset's time goes, per env id x level: scenario generation, planning the dense
reference, and the rest (first frame, observation, ``info``), on one pinned core.

    python benchmarks/bench_reset.py [--seeds 100] [--ids Login,CrossApp] [--levels hard]

For seeds ``0 .. seeds-1`` each phase is timed on its own, the way ``env.reset`` runs it:
``family.instance`` on the env's draws (generation), a fresh :class:`guigym.oracle.Oracle`'s
``reference`` from the start state (planning: every planned step lays out its screen, grounds
the goal and applies the event), then a whole ``env.reset(seed=...)``; "rest" is the reset
minus the other two. ``plan/step`` is planning divided by the reference's length. A reset that
returns the dense reference in ``info`` (as guigym's does) takes at least its planning, however
fast generation and drawing become: the script lists where that alone is over 1 ms. Median
milliseconds per reset.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym
from _args import at_least, ids_and_levels  # benchmarks/, the script's folder (on sys.path)
from gymnasium.utils.seeding import np_random

import guigym  # noqa: F401
from guigym.apps.base import start_state
from guigym.apps.draws import Draws
from guigym.env import gui_env
from guigym.oracle import Oracle, state_key


def phases(env_id: str, level: str, seeds: range) -> dict[str, float]:
    """Median ms of generation, planning and the whole reset, the mean reference length and the
    mean planning ms per reference step; checks that the reference planned here is the reset's."""
    env = gym.make(env_id, level=level, disable_env_checker=True)
    core = gui_env(env)
    env.reset(seed=seeds.start)  # the backend started, fonts and caches warm, as in a run
    gen, plan, reset, length = [], [], [], []
    for seed in seeds:
        draws, _ = np_random(seed)  # the generator env.reset(seed=seed) seeds (Gymnasium's seeding)
        t = time.perf_counter()
        with Draws(draws) as rng:
            scenario = core.family.instance(rng, level)
        gen.append(time.perf_counter() - t)
        state = start_state(scenario)
        t = time.perf_counter()
        ref = Oracle(core.family, scenario, core.width, core.height).reference(state, state_key(state))
        plan.append(time.perf_counter() - t)
        length.append(len(ref or ()))
        t = time.perf_counter()
        _, info = env.reset(seed=seed)
        reset.append(time.perf_counter() - t)
        if info["reference"] != list(ref or ()):  # the phases timed must be the reset's own work
            raise RuntimeError(f"{env_id} {level} seed {seed}: the planned reference differs from the reset's")
    env.close()
    med = statistics.median
    return {"gen": med(gen) * 1e3, "plan": med(plan) * 1e3, "reset": med(reset) * 1e3, "len": sum(length) / len(length),
            "per_step": sum(plan) / max(1, sum(length)) * 1e3}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=100, help="seeds 0..N-1 per id x level")
    p.add_argument("--ids", default="", help="comma-separated families (Login,CrossApp) or ids; default: all")
    p.add_argument("--levels", default="easy,medium,hard", help="comma-separated levels (default: %(default)s)")
    p.add_argument("--pin", action=argparse.BooleanOptionalAction, default=True, help="run on one core (Linux)")
    a = p.parse_args(argv)
    # --seeds 0 ended in a StatisticsError, an unknown --ids name measured nothing (exit 0), an
    # unknown level was a traceback mid-run: bench_step.py's checks, shared
    at_least(p, 1, seeds=a.seeds)
    ids, levels = ids_and_levels(p, a.ids, a.levels)
    if a.pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    print(f"guigym mock backend, median ms per reset over seeds 0..{a.seeds - 1}, one core; "
          f"python {platform.python_version()} on {platform.machine()}")
    print(f"{'env':22} {'level':7} {'reset':>7} {'gen':>7} {'plan':>7} {'rest':>7} {'ref len':>8} {'plan/step':>10}")
    rows = []
    for env_id in ids:
        for level in levels:
            r = phases(env_id, level, range(a.seeds))
            rows.append((env_id, level, r))
            print(f"{env_id:22} {level:7} {r['reset']:7.2f} {r['gen']:7.2f} {r['plan']:7.2f} "
                  f"{max(0.0, r['reset'] - r['gen'] - r['plan']):7.2f} {r['len']:8.1f} {r['per_step']:10.3f}", flush=True)
    slow = [(i, lv, r) for i, lv, r in rows if r["reset"] > 1.0]
    print(f"\nresets over 1 ms: {len(slow)} of {len(rows)} id x level", end="")
    if slow:
        share = {k: statistics.median(r[k] / r["reset"] for _, _, r in slow) for k in ("gen", "plan")}
        print(f"; of their time, generation {share['gen']:.0%} and planning {share['plan']:.0%} (medians)")
    else:
        print()
    plan = [f"{i.split('-')[1]} {lv} ({r['plan']:.2f} ms, {r['len']:.0f} steps)" for i, lv, r in rows if r["plan"] > 1.0]
    print(f"planning alone over 1 ms (a reset that returns the dense reference takes at least that): {len(plan)} of {len(rows)}"
          + (": " + ", ".join(plan) if plan else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
