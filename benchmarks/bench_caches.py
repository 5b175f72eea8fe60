"""Several mock envs in one process: drawing caches shared by the process (the default) against
caches of each env's own (``backend_kwargs={"shared_caches": False}``), side by side.

    python benchmarks/bench_caches.py [--envs 1 4 8] [--steps 4000] [--rounds 2]

Each cell runs in a fresh process (cold caches, nothing inherited): ``k`` envs of one id stepped
in turn by the oracle's policy (a new seed per episode), as a vector env's worker, a
``SyncVectorEnv`` or a trainer's env pool steps them. Prints env-steps/s and the process's peak
resident memory for both, and the ratio shared / own; rounds alternate the order of the two.
Timings on a shared machine are noisy: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import time

from _args import at_least  # benchmarks/, the script's folder (on sys.path)

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

CASES = [("GuiGym-Login-v0", "easy"), ("GuiGym-Settings-v0", "medium"), ("GuiGym-Mail-v0", "hard")]


def cell(env_id: str, level: str, k: int, shared: bool, steps: int, out: mp.Queue) -> None:
    """In a fresh process: ``steps`` env-steps of ``k`` envs in turn; (steps/s, peak RSS MiB) into ``out``."""
    import gymnasium as gym

    import guigym  # noqa: F401

    envs = [gym.make(env_id, level=level, backend_kwargs={"shared_caches": shared}) for _ in range(k)]
    seeds = [1000 * j for j in range(k)]
    infos = [e.reset(seed=s)[1] for e, s in zip(envs, seeds)]
    n, t = 0, time.perf_counter()
    while n < steps:
        for j, e in enumerate(envs):
            _, _, term, trunc, infos[j] = e.step(infos[j]["reference"][0].action)
            n += 1
            if term or trunc:
                seeds[j] += 1
                infos[j] = e.reset(seed=seeds[j])[1]
    rate = n / (time.perf_counter() - t)
    out.put((rate, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def measure(env_id: str, level: str, k: int, shared: bool, steps: int) -> tuple[float, float]:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    p = ctx.Process(target=cell, args=(env_id, level, k, shared, steps, out))
    p.start()
    result = out.get(timeout=600)
    p.join()
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--envs", type=int, nargs="+", default=[1, 4, 8], help="envs per process")
    ap.add_argument("--steps", type=int, default=4000, help="env-steps per cell")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of every cell, the order of the two flipped each round")
    args = ap.parse_args(argv)
    at_least(ap, 1, envs=args.envs, steps=args.steps, rounds=args.rounds)  # as every benchmark script
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; oracle policy, {args.steps} env-steps per cell")
    print(f"{'round':>5} {'env':20} {'level':7} {'envs':>4} {'own st/s':>9} {'shared st/s':>11} {'ratio':>6} "
          f"{'own MiB':>8} {'shared MiB':>10}")
    for r in range(args.rounds):
        for env_id, level in CASES:
            for k in args.envs:
                order = (False, True) if r % 2 == 0 else (True, False)
                res = {shared: measure(env_id, level, k, shared, args.steps) for shared in order}
                (own, own_mb), (sh, sh_mb) = res[False], res[True]
                print(f"{r + 1:>5} {env_id:20} {level:7} {k:>4} {own:9.0f} {sh:11.0f} {sh / own:6.2f} {own_mb:8.0f} {sh_mb:10.0f}",
                      flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
