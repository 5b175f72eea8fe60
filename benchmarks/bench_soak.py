"""Browser memory over many episodes, with and without page recycling, in one run.

Two browser envs run the same episodes side by side (oracle policy, so each episode changes
the app's state several times; Settings medium: ~6 steps an episode): one recycles its page
every ``--recycle-every`` resets, the other never does. The PSS of all Chromium processes of
each env is sampled every ``--every`` resets, with its private memory (USS: pages no other
process maps, so it does not move when other programs load the same libraries); the slope of
a least-squares line through the samples after the warm-up is the drift per 1,000 resets.

    python benchmarks/bench_soak.py [--resets 2000] [--recycle-every 500] [--every 50]
                                    [--env GuiGym-Settings-v0] [--level medium] [--steps 6]
                                    [--envs recycled plain]

The 100,000-reset soak quoted in the README runs the default backend alone, resets only:
``--resets 100000 --steps 0 --envs recycled --every 2000 --warmup 2000``.

Numbers depend on the machine and its load (printed); the slopes of the two envs are
comparable because they run interleaved.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING, cast

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout first

import gymnasium as gym
import numpy as np
from _args import at_least, env_and_level  # benchmarks/, the script's folder (on sys.path)

import guigym  # noqa: F401  (registers the ids)
from guigym.backends.browser import RECYCLE_EVERY, private_kib, pss_kib
from guigym.env import gui_env

if TYPE_CHECKING:
    from guigym.backends.browser import BrowserBackend


def episode(env: gym.Env, seed: int, level: str, steps: int) -> int:
    """Reset, then at most ``steps`` oracle steps; the number of steps taken."""
    _, info = env.reset(seed=seed, options={"level": level})
    n = 0
    while n < steps and info["reference"]:
        _, _, term, trunc, info = env.step(info["reference"][0].action)
        n += 1
        if term or trunc:
            break
    return n


def slope_per_1000(x: list[int], y: list[float]) -> float:
    """MiB per 1,000 resets: the least-squares slope of ``y`` (MiB) over ``x`` (resets)."""
    if len(x) < 2:
        return float("nan")
    return float(np.polyfit(np.asarray(x, float), np.asarray(y, float), 1)[0] * 1000)


def sample_points(resets: int, every: int, warmup: int) -> list[int]:
    """The resets after which memory is sampled (every ``every`` resets, and the last) that the
    slope is fitted to: those after the first ``warmup``."""
    return [i for i in range(1, resets + 1) if (i % every == 0 or i == resets) and i > warmup]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--resets", type=int, default=2000, help="episodes per env")
    ap.add_argument("--recycle-every", type=int, default=RECYCLE_EVERY, help="the recycling env's recycle_every")
    ap.add_argument("--every", type=int, default=50, help="sample PSS every this many resets")
    ap.add_argument("--warmup", type=int, default=100, help="resets left out of the fit")
    ap.add_argument("--env", default="GuiGym-Settings-v0", help="the env id both envs run (default: %(default)s)")
    ap.add_argument("--level", default="medium", help="its level (default: %(default)s)")
    ap.add_argument("--steps", type=int, default=6, help="oracle steps per episode at most (0: resets only)")
    ap.add_argument("--envs", nargs="+", choices=("recycled", "plain"), default=["recycled", "plain"],
                    help="which envs run (a long soak of the default backend: --envs recycled)")
    args = ap.parse_args(argv)
    # the checks of the other scripts (an unknown --level used to fail in the first reset)
    args.env = env_and_level(ap, args.env, args.level)
    at_least(ap, 1, resets=args.resets, every=args.every, recycle_every=args.recycle_every)
    at_least(ap, 0, warmup=args.warmup, steps=args.steps)
    # the slope is fitted to the samples after the warm-up: with fewer than two it was nan (--every
    # over --resets), or the warm-up's own samples were fitted instead (--warmup >= --resets)
    fitted = len(sample_points(args.resets, args.every, args.warmup))
    if fitted < 2:
        ap.error(f"--resets {args.resets} --every {args.every} --warmup {args.warmup}: {fitted} memory sample(s) after the "
                 "warm-up, the slope needs at least 2 (more --resets, or a smaller --every or --warmup)")

    print(f"# {args.env} level={args.level} steps<={args.steps}/episode resets={args.resets} recycle_every={args.recycle_every} "
          f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.2f}", flush=True)
    names = tuple(n for n in ("recycled", "plain") if n in args.envs)
    envs = {name: gym.make(args.env, backend="browser", disable_env_checker=True,
                           backend_kwargs={"recycle_every": args.recycle_every if name == "recycled" else 0}) for name in names}
    samples: dict[str, tuple[list[int], list[float], list[float]]] = {name: ([], [], []) for name in names}
    busy = dict.fromkeys(names, 0.0)
    steps = dict.fromkeys(names, 0)
    t0 = time.perf_counter()
    try:
        for i in range(1, args.resets + 1):
            for name in names:  # interleaved: both see the same load
                t = time.perf_counter()
                steps[name] += episode(envs[name], i, args.level, args.steps)
                busy[name] += time.perf_counter() - t
            if i % args.every == 0 or i == args.resets:
                line = [f"{i:7d} resets {time.perf_counter() - t0:7.0f} s"]
                for name in names:
                    pids = cast("BrowserBackend", gui_env(envs[name]).backend).chromium_pids()
                    pss, uss = pss_kib(pids) / 1024, private_kib(pids) / 1024
                    samples[name][0].append(i)
                    samples[name][1].append(pss)
                    samples[name][2].append(uss)
                    line.append(f"{name} PSS {pss:6.1f} USS {uss:6.1f} MiB")
                print("  ".join(line), flush=True)
        print(f"{'':10s}{'':5s}{'first':>8s}{'last':>8s}{'max':>8s}{'slope MiB/1k resets':>22s}{'recycles':>10s}{'ms/episode':>12s}")
        for name in names:
            x = samples[name][0]
            b = cast("BrowserBackend", gui_env(envs[name]).backend)
            for label, y in (("PSS", samples[name][1]), ("USS", samples[name][2])):
                fit = [(a, v) for a, v in zip(x, y) if a > args.warmup]  # at least 2: checked up front
                slope = slope_per_1000([a for a, _ in fit], [v for _, v in fit])
                print(f"{name:10s}{label:5s}{y[0]:8.1f}{y[-1]:8.1f}{max(y):8.1f}{slope:+22.2f}{b.recycles:10d}"
                      f"{busy[name] / args.resets * 1e3:12.1f}")
        print(f"load at the end: {os.getloadavg()[0]:.2f}; steps: {steps}")
    finally:
        for env in envs.values():
            env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
