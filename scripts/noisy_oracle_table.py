"""The README's noisy-oracle table: success of the oracle that errs at random (each planned step
corrupted with chance 0.2, T = 8, the plan-act loop) on every variant of the variation grid, per
env id x level and split, and the spread across the variants (max - min; the lowest variant
named, the first of ties in the grid's order).

    PYTHONPATH=. python scripts/noisy_oracle_table.py [--episodes 100] [--ids all] [--jobs 2]
                                                      [--out docs/results/noisy_oracle.md]

The same episodes as ``python -m agents.evaluate --env ID --planner oracle --noise 0.2 --horizon 8
--episodes N --variations grid --split S`` (the planner's noise is seeded per episode, so the
order the cells run in does not matter). Writes the table to ``--out`` and every variant's
success rate beside it as JSON (``.json``); jobs run one env id and split each.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from argparse import Namespace
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
BENCHMARKS = str(Path(__file__).resolve().parents[1] / "benchmarks")
if BENCHMARKS not in sys.path:  # benchmarks/_args.py: --ids read as the benchmarks read it
    sys.path.append(BENCHMARKS)

import guigym  # noqa: E402,F401
from _args import at_least, ids_and_levels  # noqa: E402
from guigym.env import gui_env  # noqa: E402
from guigym.registration import env_ids, id_levels  # noqa: E402
from guigym.variation import grid  # noqa: E402
from guigym.viz import writable_problem  # noqa: E402

NOISE, HORIZON = 0.2, 8
SPLITS = ("train", "test")


def cell_rates(env_id: str, split: str, episodes: int) -> dict[str, list[tuple[str, float]]]:
    """Success rate per variant of ``grid(split)``, per level of ``env_id`` (seeds 0..episodes-1)."""
    from agents.evaluate import build_agent, evaluate, make_env

    agent = build_agent(Namespace(planner="oracle", horizon=HORIZON, noise=NOISE, ungrounded=False, executor="element",
                                  open_loop=False))
    probe = make_env(env_id)
    levels = list(gui_env(probe).family.levels)
    probe.close()
    out: dict[str, list[tuple[str, float]]] = {}
    for level in levels:
        rates = []
        for name, var in grid(split):
            env = make_env(env_id, variation=var, split=split)
            summary, _ = evaluate(env, agent, range(episodes), level)
            env.close()
            rates.append((name, float(summary["success_rate"])))
        out[level] = rates
    return out


def _spread(rates: list[tuple[str, float]]) -> str:
    lo = min(r for _, r in rates)
    hi = max(r for _, r in rates)
    name = next(n for n, r in rates if r == lo)
    return f"{100 * (hi - lo):.0f} pts ({100 * lo:.0f} % at {name})"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--episodes", type=int, default=100, help="seeds 0..N-1 per variant, env id and level")
    p.add_argument("--ids", default="all", help="comma-separated family names (Login) or env ids (GuiGym-Login-v0, "
                   "guigym:GuiGym-Login-v0), or 'all'")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (one env id and split each)")
    p.add_argument("--out", default="docs/results/noisy_oracle.md")
    a = p.parse_args(argv)
    if a.ids.strip() == "all":
        ids = env_ids()
    elif not a.ids.replace(",", "").strip():
        p.error(f"--ids {a.ids!r}: give at least one env id or family name (or 'all')")
    else:  # every level of each id runs: a level all ids have only serves the check of the names
        shared = set.intersection(*({lv for i, lv in id_levels() if i == e} for e in env_ids()))
        ids, _ = ids_and_levels(p, a.ids, min(shared, default=""))
    at_least(p, 1, episodes=a.episodes, jobs=a.jobs)
    out = Path(a.out)
    if out.suffix == ".json":
        p.error(f"--out {a.out}: the table and the rates beside it ({out.name}) would be one file; give the table another "
                "suffix (.md)")
    for path in (out, out.with_suffix(".json")):  # checked before the cells run (about 15 minutes)
        if (problem := "is a folder" if path.is_dir() else writable_problem(path)) is not None:
            p.error(f"--out {a.out}: {problem}" if path == out else f"--out {a.out}: {path} {problem}")
    t0 = time.perf_counter()
    jobs = [(i, s) for i in ids for s in SPLITS]
    results = {}
    # one job: in this process (what a test's in-process run can do: no pickled functions)
    with ProcessPoolExecutor(a.jobs) if a.jobs > 1 else contextlib.nullcontext() as pool:
        futures = {job: pool.submit(cell_rates, job[0], job[1], a.episodes) for job in jobs} if pool else {}
        for job in jobs:
            results[job] = futures[job].result() if pool else cell_rates(job[0], job[1], a.episodes)
            print(f"{job[0]} {job[1]}: done at {time.perf_counter() - t0:.0f} s", flush=True)
    n = {s: len(grid(s)) for s in SPLITS}
    lines = [
        f"Noisy oracle (ε = {NOISE} per planned step, T = {HORIZON}, plan-act loop) over the variation grid: success on "
        f"seeds 0–{a.episodes - 1} per variant; the spread is max − min over the split's variants ({n['train']} train, "
        f"{n['test']} test); the variant named is the lowest (the first of ties).",
        "",
        "| env | level | train split: max − min (lowest variant) | test split: max − min (lowest variant) |",
        "|---|---|---|---|",
    ]
    for env_id in ids:
        for level, rates in results[(env_id, "train")].items():
            short = env_id.removeprefix("GuiGym-").removesuffix("-v0")
            lines.append(f"| {short} | {level} | {_spread(rates)} | {_spread(results[(env_id, 'test')][level])} |")
    cmd = "PYTHONPATH=. python scripts/noisy_oracle_table.py" + (f" --episodes {a.episodes}" if a.episodes != 100 else "") + (
        f" --ids {a.ids}" if a.ids != "all" else "")
    lines += ["", f"<sub>`{cmd}` (every variant's rate: `{Path(a.out).with_suffix('.json').name}`)</sub>"]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    every = {f"{i} {s}": results[(i, s)] for i, s in jobs}
    out.with_suffix(".json").write_text(json.dumps(every, indent=1) + "\n", encoding="utf-8")
    print("\n".join(lines))
    print(f"wrote {out} and {out.with_suffix('.json')} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
