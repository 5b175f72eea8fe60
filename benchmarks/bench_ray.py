"""RayVectorEnv (1 and 2 actors) against the single in-process env, measured in one run, and the
bytes one env's step moves (raw numpy, zlib, PNG) to size a network for a multi-node cluster.

    python benchmarks/bench_ray.py [--env GuiGym-Login-v0] [--level easy] [--backend mock]
                                   [--steps 2000] [--envs-per-actor 1 4] [--address auto]

* **random**: Gymnasium's VectorEnv API, ``step()`` with one ``action_space`` sample per env
  (NEXT_STEP autoreset).
* **oracle**: the trainer's lockstep loop on the subset API: ``step_envs`` on the envs still in
  an episode, each acting ``info["reference"][0]``; a finished env is ``reset_envs`` with the
  next seed.

steps/s count env steps (all envs together). Ratios are to the single env measured in the same
run; the load average is printed because the numbers move with it.
"""

from __future__ import annotations

import argparse
import os
import pickle
import platform
import time
import zlib
from typing import Any

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym
import numpy as np
import ray
from _args import at_least, env_and_level  # benchmarks/, the script's folder (on sys.path)

import guigym
from guigym.bench import oracle_policy, random_policy
from guigym.distributed import CODECS, RayVectorEnv, pack_frame
from guigym.env import gui_env
from guigym.registration import env_ids


def vector_random(v: RayVectorEnv, steps: int) -> float:
    v.reset(seed=0)
    v.single_action_space.seed(0)
    rounds = max(1, steps // v.num_envs)
    t = time.perf_counter()
    for _ in range(rounds):
        v.step([v.single_action_space.sample() for _ in range(v.num_envs)])
    return rounds * v.num_envs / (time.perf_counter() - t)


def vector_oracle(v: RayVectorEnv, steps: int) -> float:
    """Lockstep: step the active envs together; a finished env starts its next seed."""
    n, next_seed = 0, v.num_envs
    infos = {i: info for i, (_, info) in enumerate(v.reset_envs(range(v.num_envs), list(range(v.num_envs))))}
    t = time.perf_counter()
    while n < steps:
        active = sorted(infos)
        out = v.step_envs(active, [infos[i]["reference"][0].action if infos[i]["reference"] else "back()" for i in active])
        n += len(active)
        done = []
        for i, (_, _, term, trunc, info) in zip(active, out):
            infos[i] = info
            if term or trunc:
                done.append(i)
        if done:
            for i, (_, info) in zip(done, v.reset_envs(done, list(range(next_seed, next_seed + len(done))))):
                infos[i] = info
            next_seed += len(done)
    return n / (time.perf_counter() - t)


def step_bytes(env_id: str, backend: str, level: str, steps: int) -> dict[str | None, tuple[float, float, float, float]]:
    """Per codec: mean bytes of one env's step record as the actor returns it (pickle protocol 5
    ≈ what Ray moves; with a codec the info is zlib-packed too), the same with
    ``record_state=True``, the screenshot alone, and ms to encode a frame."""
    env = gym.make(env_id, backend=backend, level=level)
    env.action_space.seed(0)
    rng = np.random.default_rng(0)
    records = []
    _, info = env.reset(seed=0)
    for _ in range(steps):
        act = info["reference"][0].action if info["reference"] and rng.random() < 0.5 else env.action_space.sample()
        obs, r, term, trunc, info = env.step(act)
        records.append((obs, r, term, trunc, info, gui_env(env).get_state()))
        if term or trunc:
            _, info = env.reset()
    env.close()

    def size(codec: str | None, obs: dict[str, Any], packed: Any, rest: tuple[Any, ...], info: dict[str, Any]) -> int:
        info = {**info, "actor_failed": False, "actor_error": ""}
        body = zlib.compress(pickle.dumps(info, protocol=5), 1) if codec else info
        return len(pickle.dumps((True, {**obs, "screenshot": packed}, *rest, body), protocol=5))

    out = {}
    for codec in CODECS:
        t = time.perf_counter()
        packed = [pack_frame(rec[0]["screenshot"], codec) for rec in records]
        enc_ms = (time.perf_counter() - t) / len(records) * 1e3 if codec else 0.0
        plain = [size(codec, obs, p, (r, te, tr), info) for (obs, r, te, tr, info, _), p in zip(records, packed)]
        state = [size(codec, obs, p, (r, te, tr), {**info, "state": st}) for (obs, r, te, tr, info, st), p in zip(records, packed)]
        shot = [len(pickle.dumps(p, protocol=5)) for p in packed]
        out[codec] = (float(np.mean(plain)), float(np.mean(state)), float(np.mean(shot)), enc_ms)
    return out


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="GuiGym-Login-v0", help="the env id of the rates (default: %(default)s)")
    p.add_argument("--level", default="easy", help="the level of every measurement (default: %(default)s)")
    p.add_argument("--backend", default="mock", choices=("mock", "browser"),
                   help="the envs' backend (its bytes table: every id with mock, --env alone with browser) (default: %(default)s)")
    p.add_argument("--steps", type=int, default=2000, help="env steps per measurement")
    p.add_argument("--envs-per-actor", type=int, nargs="+", default=[1, 4], help="envs in each actor, one row per value (default: 1 4)")
    p.add_argument("--actors", type=int, nargs="+", default=[1, 2], help="actors, one row per value (default: 1 2)")
    p.add_argument("--compress", default=None, choices=[c for c in CODECS if c], help="also measure the largest setting with this codec")
    p.add_argument("--address", default=None, help="join a running cluster (e.g. auto); default: a local Ray")
    p.add_argument("--bytes-steps", type=int, default=200, help="env steps per id of the bytes table (default: %(default)s)")
    args = p.parse_args(argv)
    args.env = env_and_level(p, args.env, args.level)  # before Ray starts, as in the other scripts
    at_least(p, 1, steps=args.steps, envs_per_actor=args.envs_per_actor, actors=args.actors, bytes_steps=args.bytes_steps)

    if args.address is None:
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, object_store_memory=200 * 2**20,
                 logging_level="ERROR", log_to_driver=False)  # type: ignore[arg-type]  # ray annotates int, but takes level names
    else:
        ray.init(address=args.address, logging_level="ERROR", log_to_driver=False)  # type: ignore[arg-type]  # as above
    print(f"guigym {guigym.__version__}, ray {ray.__version__}, {args.backend} backend, {args.env} {args.level}; "
          f"Python {platform.python_version()}, {os.cpu_count()} CPUs; load average {load()}")
    kw: dict[str, Any] = {"backend": args.backend, "level": args.level}

    env = gym.make(args.env, **kw)
    base_r, base_o = random_policy(env, args.steps, args.level), oracle_policy(env, args.steps, args.level)
    env.close()
    rows = [("single env (in-process)", base_r, base_o)]
    configs = [(a, e, None) for e in args.envs_per_actor for a in args.actors]
    if args.compress:
        configs.append((max(args.actors), max(args.envs_per_actor), args.compress))
    for actors, per_actor, codec in configs:
        v = RayVectorEnv(args.env, num_actors=actors, envs_per_actor=per_actor, compress=codec, **kw)
        try:
            vector_random(v, min(200, args.steps))  # warm-up: actors started, browsers launched
            r, o = vector_random(v, args.steps), vector_oracle(v, args.steps)
        finally:
            v.close()
        rows.append((f"Ray {actors} actor{'s' if actors > 1 else ''} x {per_actor} env{'s' if per_actor > 1 else ''}"
                     + (f", {codec}" if codec else ""), r, o))
    print(f"\n{'':34} {'random st/s':>11} {'ratio':>6} {'oracle st/s':>11} {'ratio':>6}")
    for name, r, o in rows:
        print(f"{name:34} {r:11.0f} {r / base_r:6.2f} {o:11.0f} {o / base_o:6.2f}")

    print(f"\nbytes per step per env ({args.bytes_steps} steps, half oracle, half random; +state: record_state=True):")
    print(f"{'':28} {'':5} {'obs+info':>10} {'+state':>10} {'screenshot':>11} {'encode ms':>10}")
    for env_id in env_ids() if args.backend == "mock" else [args.env]:  # mock: every id, it is quick
        for codec, (total, with_state, shot, ms) in step_bytes(env_id, args.backend, args.level, args.bytes_steps).items():
            print(f"{env_id + ' ' + args.level:28} {codec or 'raw':5} {total:10.0f} {with_state:10.0f} {shot:11.0f} {ms:10.2f}")
    print(f"load average after: {load()}")
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
