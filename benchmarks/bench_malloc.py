"""glibc malloc: its default thresholds against guigym's (``guigym.allocator``), per id x policy,
on one pinned core.

    python benchmarks/bench_malloc.py [--rounds 2] [--steps 3000]

Every step frees and allocates ~675 KB frames; with glibc's default (dynamic) thresholds the
freed memory is often given back to the system and faulted in again. Every env sets fixed
thresholds in its process (``guigym.allocator.tune``) unless ``GUIGYM_MALLOC_TUNING=0``; this
measures both, a fresh process per cell: CPU steps/s (user + system time) and minor page faults
after a warm-up, the two settings interleaved round by round (order flipped every round),
medians printed with the ratio. Linux with glibc and ``taskset`` only. See docs/mock_speed.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from _args import at_least  # benchmarks/, the script's folder (on sys.path)

CHILD = r"""
import json, os, resource, sys, time
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
import gymnasium as gym
import guigym  # noqa: F401
from guigym.bench import oracle_run, random_policy
fam, level, policy, steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = gym.make(f"GuiGym-{fam}-v0").unwrapped
def run(e, n, lv):  # n steps of the policy; the steps run (the oracle runs whole episodes: up to an
    # episode more than asked; the rate and the faults are per step run, not per --steps)
    if policy == "oracle":
        return oracle_run(e, n, lv)[1]
    random_policy(e, n, lv)
    return n
run(env, steps // 4, level)  # warm the caches
f0, t = resource.getrusage(resource.RUSAGE_SELF).ru_minflt, time.process_time()
n = run(env, steps, level)
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
print(json.dumps({"rate": n / (time.process_time() - t), "faults": faults / n, "steps": n}))
"""

CASES = [("Login", "easy"), ("Settings", "hard"), ("Shop", "medium"), ("Mail", "hard"), ("CrossApp", "hard")]
SETTINGS = {"glibc": {"GUIGYM_MALLOC_TUNING": "0"}, "guigym": {}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=2, help="rounds of every cell, the order flipped each round (default: %(default)s)")
    p.add_argument("--steps", type=int, default=3000, help="env-steps per cell, after a quarter as many of warm-up (default: %(default)s)")
    p.add_argument("--cpu", type=int, default=1, help="the core every cell is pinned to")
    args = p.parse_args(argv)
    at_least(p, 1, rounds=args.rounds, steps=args.steps)  # as every benchmark script
    at_least(p, 0, cpu=args.cpu)
    # taskset failed on a core this process may not run on (CalledProcessError in the first cell)
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))
    if args.cpu not in cores:
        runs = [(c, c) for c in cores[:1]]  # the cores as ranges: 0-127, not 128 numbers
        for c in cores[1:]:
            runs[-1:] = [(runs[-1][0], c)] if c == runs[-1][1] + 1 else [runs[-1], (c, c)]
        said = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
        p.error(f"--cpu {args.cpu}: not a core this process may run on (cores {said})")
    cells: dict[tuple[str, str, str], dict[str, list[tuple[float, float]]]] = {}
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GUIGYM_MALLOC_TUNING"}
    for rnd in range(args.rounds):
        order = list(SETTINGS) if rnd % 2 == 0 else list(reversed(SETTINGS))
        for fam, level in CASES:
            for policy in ("oracle", "random"):
                for name in order:
                    out = subprocess.run(["taskset", "-c", str(args.cpu), sys.executable, "-c", CHILD, fam, level, policy, str(args.steps)],
                                         env={**clean, **SETTINGS[name]}, capture_output=True, text=True, check=True)
                    d = json.loads(out.stdout.strip().splitlines()[-1])
                    cells.setdefault((fam, level, policy), {}).setdefault(name, []).append((d["rate"], d["faults"]))
                    row = f"round {rnd} {fam:9} {level:7} {policy:7} {name:8}"
                    print(f"{row} {d['rate']:7.0f} CPU st/s {d['faults']:6.1f} faults/step", flush=True)
    print(f"\n{'id':9} {'level':7} {'policy':7} {'glibc':>8} {'guigym':>8} {'ratio':>6} {'faults/step':>16}")
    ratios = []
    for (fam, level, policy), by in cells.items():
        a, b = (statistics.median(r for r, _ in by[n]) for n in SETTINGS)
        fa, fb = (statistics.median(f for _, f in by[n]) for n in SETTINGS)
        ratios.append(b / a)
        print(f"{fam:9} {level:7} {policy:7} {a:8.0f} {b:8.0f} {b / a:6.2f} {fa:7.1f} -> {fb:5.1f}")
    print(f"guigym / glibc: {min(ratios):.2f}-{max(ratios):.2f}, median {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
