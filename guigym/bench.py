"""Mock-backend speed: steps/s and resets/s per env id, random and oracle policies, with the
screenshot in the observation and the dense reference in ``info`` on every step.

    python benchmarks/bench_env.py [--steps 4000] [--vector 2]     (or: guigym bench)
    python benchmarks/bench_env.py --variation all [--split test]  (varied vs plain, side by side)

Runs on one core (pinned) unless --vector > 1, which also measures guigym's vector env
(``gym.make_vec(id, n)``, :class:`guigym.vector.GuiVectorEnv`) on all cores and prints its
throughput ratio to the single env measured in the same run (benchmarks/bench_vector.py compares
every vectorization). With ``--variation`` (a preset of :mod:`guigym.variation`) every id x level
is measured twice in the same run, plain and varied, and the ratio varied / plain is printed.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym

import guigym
from guigym.env import gui_env
from guigym.registration import env_ids
from guigym.variation import resolve as resolve_variation


def random_policy(env: gym.Env, steps: int, level: str) -> float:
    env.reset(seed=0, options={"level": level})
    env.action_space.seed(0)
    t = time.perf_counter()
    for _ in range(steps):
        _, _, term, trunc, info = env.step(env.action_space.sample())
        assert "reference" in info
        if term or trunc:
            env.reset(options={"level": level})
    return steps / (time.perf_counter() - t)


def oracle_policy(env: gym.Env, steps: int, level: str) -> float:
    """Oracle steps/s (resets counted in the time): :func:`oracle_run`'s steps over its seconds."""
    secs, n, _ = oracle_run(env, steps, level)
    return n / secs


def oracle_run(env: gym.Env, steps: int, level: str) -> tuple[float, int, int]:
    """The reference's first action every step, episodes on seeds 0, 1, 2, ... until at least
    ``steps`` steps: seconds, steps and episodes run."""
    n, seed = 0, 0
    t = time.perf_counter()
    while n < steps:
        _, info = env.reset(seed=seed, options={"level": level})
        seed += 1
        done = False
        while not done:
            _, _, term, trunc, info = env.step(info["reference"][0].action)
            n += 1
            done = term or trunc
    return time.perf_counter() - t, n, seed


def resets(env: gym.Env, n: int, level: str) -> float:
    t = time.perf_counter()
    for s in range(n):
        env.reset(seed=s, options={"level": level})
    return n / (time.perf_counter() - t)


def vector_random(env_id: str, n_envs: int, steps: int) -> float:
    venv = gym.make_vec(env_id, n_envs)  # guigym's vector env: screenshots through shared memory
    try:  # its worker processes closed on a Ctrl-C too
        venv.reset(seed=0)
        venv.action_space.seed(0)
        rounds = max(1, steps // n_envs)  # --steps under --vector measured no step: "0 steps/s"
        t = time.perf_counter()
        for _ in range(rounds):
            venv.step(venv.action_space.sample())
        return rounds * n_envs / (time.perf_counter() - t)
    finally:
        venv.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="guigym bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=4000, help="steps per id x level and policy (default: %(default)s)")
    p.add_argument("--vector", type=int, default=2,
                   help="also measure guigym's vector env with this many envs, >= 2 (0: skip)")
    p.add_argument("--variation", default=None, help="also measure every id under this variation preset (e.g. all)")
    p.add_argument("--split", default=None, help="the split of --variation (default: train)")
    args = p.parse_args(argv)
    # every bad flag in one message; a flag the run would ignore is one too (--vector 1 skipped the
    # vector env, --split without --variation measured nothing varied, both silently)
    problems = []
    if args.steps < 1:
        problems.append(f"--steps must be >= 1, got {args.steps}")
    if args.vector < 0 or args.vector == 1:
        problems.append(f"--vector must be 0 (skip) or >= 2, got {args.vector}")
    if args.split is not None and args.variation is None:
        problems.append(f"--split {args.split} needs --variation (it is the split of the varied envs)")
    if problems:
        p.error("; ".join(problems))
    if args.split is None:
        args.split = "train"
    if args.variation is not None:
        try:
            resolve_variation(args.variation, args.split)
        except ValueError as e:
            p.error(f"--variation {args.variation}: {e}")
    # pinned to one core while measuring, and given back whatever happens: main() also runs
    # in-process (tests, notebooks), where a leftover pin would slow everything after it
    affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        return _measure(args, affinity)
    finally:
        if affinity is not None:
            os.sched_setaffinity(0, affinity)


def _measure(args: argparse.Namespace, affinity: set[int] | None = None) -> int:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    print(f"guigym {guigym.__version__} mock backend, 360x640, one core; Python {platform.python_version()}, {platform.machine()}")
    varied = args.variation is not None
    head = f"{'env':24} {'level':7} {'random st/s':>12} {'oracle st/s':>12} {'resets/s':>9}"
    print(head + (f"   varied ({args.variation}, {args.split}): {'random':>7} {'oracle':>7} {'resets':>7} (x plain)" if varied else ""))
    single, ratios = {}, []
    for env_id in env_ids():
        env = gui_env(gym.make(env_id))  # unwrapped, no TimeLimit: measure the env itself
        venv = gym.make(env_id, variation=args.variation, split=args.split).unwrapped if varied else None
        for level in env.family.levels:
            r = random_policy(env, args.steps, level)
            o = oracle_policy(env, args.steps, level)
            z = resets(env, max(200, args.steps // 10), level)
            single[(env_id, level)] = r
            line = f"{env_id:24} {level:7} {r:12.0f} {o:12.0f} {z:9.0f}"
            if venv is not None:  # right after the plain ones: the same conditions
                rv = random_policy(venv, args.steps, level) / r
                ov = oracle_policy(venv, args.steps, level) / o
                zv = resets(venv, max(200, args.steps // 10), level) / z
                ratios += [rv, ov, zv]
                line += f"   {'':>{len(args.variation) + len(args.split) + 12}} {rv:7.2f} {ov:7.2f} {zv:7.2f}"
            print(line)
        env.close()
        if venv is not None:
            venv.close()
    rates = list(single.values())
    print(f"min random-policy steps/s over ids x levels: {min(rates):.0f} (target >= 2000 on one core)")
    if ratios:
        print(f"varied / plain over ids x levels x (random, oracle, resets): min {min(ratios):.2f}, "
              f"median {sorted(ratios)[len(ratios) // 2]:.2f}")
    if args.vector > 1:
        if affinity is not None:  # the vector env's workers inherit it
            # the cores the run was given (`taskset -c 2,3 guigym bench`), not every core of the
            # machine: range(cpu_count()) escaped the user's taskset, or failed in a smaller cpuset
            os.sched_setaffinity(0, affinity)
        env_id = "GuiGym-Login-v0"
        v = vector_random(env_id, args.vector, args.steps)
        print(f"GuiVectorEnv x{args.vector} {env_id}: {v:.0f} steps/s = {v / single[(env_id, 'easy')]:.2f}x the single env")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
