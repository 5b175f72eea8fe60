"""Why TraceR1 executes only the first planned step: a noisy oracle (each planned step
corrupted with probability ε) in the plan-act loop vs the same planner executed open-loop.

    python benchmarks/bench_replanning.py [--noise 0.3] [--horizon 8] [--episodes 200] [--seed 0]

For every env id × level, seeds ``seed .. seed+episodes-1`` are run twice with the same
noise stream per seed: re-planning after every step (TraceR1's plan-act loop) and executing
whole plans before re-planning (``open_loop=True``). Prints a Markdown table of success
rate, mean steps and plan consistency, then the per-id totals and the re-plan − open-loop
margin, all measured in this run.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from typing import TYPE_CHECKING

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402

import guigym  # noqa: E402,F401
from agents import OraclePlanner, PlanActAgent, run_episode, summarize  # noqa: E402
from guigym.backends import BACKENDS  # noqa: E402
from guigym.env import gui_env
from guigym.registration import env_ids  # noqa: E402

if TYPE_CHECKING:
    from agents import EpisodeRecord


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--noise", type=float, default=0.3, help="ε: each planned step's chance of corruption (default: %(default)s)")
    p.add_argument("--horizon", type=int, default=8, help="T: steps per plan (default: %(default)s)")
    p.add_argument("--episodes", type=int, default=200, help="seeds per id x level and mode (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="the first seed (default: %(default)s)")
    # choices: a typo raised in gym.make
    p.add_argument("--backend", default="mock", choices=BACKENDS, help="the envs' backend (default: %(default)s)")
    a = p.parse_args(argv)
    # each printed a table of nan (--episodes 0) or raised mid-run
    problems = [f"--{k} must be >= {low}, got {v}" for k, v, low in
                (("episodes", a.episodes, 1), ("horizon", a.horizon, 1), ("seed", a.seed, 0)) if v < low]
    if not 0 <= a.noise <= 1:
        problems.append(f"--noise must be in [0, 1], got {a.noise}")
    if problems:
        p.error("; ".join(problems))
    seeds = range(a.seed, a.seed + a.episodes)
    print(f"noisy oracle ε={a.noise}, T={a.horizon}, seeds {seeds.start}..{seeds.stop - 1}, {a.backend} backend, "
          f"python {platform.python_version()} on {platform.machine()}\n")
    print("| env id | level | re-plan success | open-loop success | re-plan steps | open-loop steps | re-plan consistency |")
    print("|---|---|---|---|---|---|---|")
    t0 = time.perf_counter()
    totals = {}
    for env_id in env_ids():
        env = gym.make(env_id, backend=a.backend)
        recs: dict[str, list[EpisodeRecord]] = {"replan": [], "open": []}
        for level in gui_env(env).family.levels:
            row = {}
            for mode, open_loop in (("replan", False), ("open", True)):
                agent = PlanActAgent(OraclePlanner(a.horizon, noise=a.noise), open_loop=open_loop)
                rs = [run_episode(env, agent, seed=s, level=level) for s in seeds]
                recs[mode] += rs
                row[mode] = summarize(rs)
            r, o = row["replan"], row["open"]
            print(f"| {env_id} | {level} | {r['success_rate']:.1%} | {o['success_rate']:.1%} | {r['mean_steps']:.1f} | "
                  f"{o['mean_steps']:.1f} | {r['plan_consistency']:.2f} |", flush=True)
        totals[env_id] = (summarize(recs["replan"]), summarize(recs["open"]))
        env.close()
    print("\n| env id (all levels) | re-plan success | open-loop success | margin | re-plan steps | open-loop steps |")
    print("|---|---|---|---|---|---|")
    for env_id, (r, o) in totals.items():
        print(f"| {env_id} | {r['success_rate']:.1%} | {o['success_rate']:.1%} | {100 * (r['success_rate'] - o['success_rate']):+.1f} pt | "
              f"{r['mean_steps']:.1f} | {o['mean_steps']:.1f} |")
    print(f"\n{time.perf_counter() - t0:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
