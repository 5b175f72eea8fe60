"""Vector-env throughput: env-steps/s of every way to run N guigym envs, side by side in one run.

    python benchmarks/bench_vector.py [--envs 2] [--steps 3000] [--browser-steps 300] [--browser/--no-browser]

Rows: the single env; SyncVectorEnv; Gymnasium's AsyncVectorEnv with its defaults (shared
memory); guigym's vector env (``gym.make_vec(id, n)``, one env per worker); N x 4 envs in N
guigym workers (``envs_per_worker=4``: one message per worker carries four envs' steps; the
rate counts every env's steps), the same returning views of shared memory (``copy=False``: no
batch copied out per step), then with each env in a thread (``worker_threads=True``); SB3's
SubprocVecEnv over ``make_sb3_env`` (random policy only: its Discrete actions cannot carry the
oracle's Type text); two Ray rows (N actors of one env,
N actors of four) when ``guigym.distributed`` and Ray are installed; and, last, N single envs in N
separate processes that never talk to each other: no vector env of N envs can beat that row, so it
is the machine's own ceiling for N envs (on the README's 2-vCPU VM, 1.3-1.9x for 2). Columns: random and oracle
(``info["reference"][0]``) policies, per backend; each ratio is to the single env measured in the
same run (the mean of a measurement before and after the vector rows). The browser backend runs
by default when a Chromium is found. Timings on a shared machine are noisy: compare ratios, and
rerun on an idle one.
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing as mp
import os
import queue
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym
import numpy as np
from _args import at_least  # benchmarks/, the script's folder (on sys.path)
from gymnasium.vector.utils import concatenate, create_empty_array

import guigym  # noqa: F401  (registers the ids)
from guigym.actions import ACTION_TYPES, DIRECTIONS, Action, Back, Click, OpenApp, Scroll, Type
from guigym.backends.procfs import cpu_seconds

if TYPE_CHECKING:
    from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

    from guigym.distributed import RayVectorEnv

ENV_ID = "GuiGym-Login-v0"
PER_WORKER = 4  # envs per worker in the envs_per_worker row


def as_space_action(a: Action, apps: tuple[str, ...]) -> dict[str, Any]:
    """``a`` as a sample of the env's Dict action space (what a vector env batches)."""
    d: dict[str, Any] = {"type": 0, "x": 0, "y": 0, "direction": 0, "app": 0, "text": ""}
    if isinstance(a, Click):
        d.update(type=ACTION_TYPES.index("click"), x=a.x, y=a.y)
    elif isinstance(a, Scroll):
        d.update(type=ACTION_TYPES.index("scroll"), direction=DIRECTIONS.index(a.direction), x=a.x or 0, y=a.y or 0)
    elif isinstance(a, Back):
        d.update(type=ACTION_TYPES.index("back"))
    elif isinstance(a, OpenApp):
        d.update(type=ACTION_TYPES.index("open_app"), app=apps.index(a.name))
    elif isinstance(a, Type):
        d.update(type=ACTION_TYPES.index("type"), text=a.text)
    return d


def _steps(env: gym.Env, info: dict[str, Any], steps: int, oracle: bool) -> None:
    """``steps`` steps of ``env`` (whose last reset gave ``info``) by the oracle's or a random
    policy, resetting when an episode ends."""
    for _ in range(steps):
        ref = info["reference"]
        _, _, term, trunc, info = env.step(ref[0].action if oracle and ref else env.action_space.sample())
        if term or trunc:
            _, info = env.reset()


def single(kw: dict[str, Any], steps: int, oracle: bool) -> float:
    env = gym.make(ENV_ID, **kw)
    _, info = env.reset(seed=0)
    env.action_space.seed(0)
    main0 = time.process_time()
    t = time.perf_counter()
    _steps(env, info, steps, oracle)
    rate = steps / (time.perf_counter() - t)
    CPU["single env"] = ((time.process_time() - main0) / steps, 0.0)
    env.close()
    return rate


#: CPU seconds per env-step of the last measured cell, ``(main process, worker processes)``, by row name.
CPU: dict[str, tuple[float, float]] = {}


def _proc_cpu(pids: list[int]) -> float:
    """User + system CPU seconds of processes ``pids`` so far (Linux ``/proc``; 0 elsewhere)."""
    return sum(c for pid in pids if (c := cpu_seconds(pid)) is not None)


def vector(venv: gym.vector.VectorEnv, steps: int, oracle: bool, name: str = "") -> float:
    """Steps/s of ``venv`` (NEXT_STEP autoreset: an env's action after its episode ends is ignored);
    the CPU per env-step of the main and worker processes goes to ``CPU[name]`` (worker processes
    of a Gymnasium-style vector env; a browser's own processes are not counted)."""
    apps = tuple(cast("SyncVectorEnv | AsyncVectorEnv | RayVectorEnv", venv).get_attr("apps")[0])  # each vector env made here
    n, space = venv.num_envs, venv.single_action_space
    _, info = venv.reset(seed=0)
    venv.action_space.seed(0)
    pids = sorted({p.pid for p in getattr(venv, "processes", []) if p is not None})  # envs may share a worker
    cpu0, main0 = _proc_cpu(pids), time.process_time()
    t = time.perf_counter()
    for _ in range(max(1, steps // n)):
        if oracle:
            refs = info.get("reference", [None] * n)
            acts = [as_space_action(r[0].action, apps) if r else space.sample() for r in refs]
            batch = concatenate(space, acts, cast("dict[str, Any]", create_empty_array(space, n=n)))  # a Dict space: a dict
        else:
            batch = venv.action_space.sample()
        _, _, _, _, info = venv.step(batch)
    rate = max(1, steps // n) * n / (time.perf_counter() - t)
    done = max(1, steps // n) * n
    CPU[name] = ((time.process_time() - main0) / done, (_proc_cpu(pids) - cpu0) / done)
    venv.close()
    return rate


def sb3_subproc(kw: dict[str, Any], n: int, steps: int) -> float | None:
    if importlib.util.find_spec("stable_baselines3") is None:
        return None
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from guigym.wrappers import make_sb3_env

    venv = SubprocVecEnv([lambda: make_sb3_env(ENV_ID, **kw) for _ in range(n)])
    venv.reset()
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    for _ in range(max(1, steps // n)):
        venv.step(rng.integers(cast("gym.spaces.Discrete", venv.action_space).n, size=n))
    rate = max(1, steps // n) * n / (time.perf_counter() - t)
    venv.close()
    return rate


def _alone(kw: dict[str, Any], steps: int, oracle: bool, seed: int, start: Any, out: Any) -> None:
    """One env in a process of its own, started with the others by ``start`` (a barrier):
    ``steps`` steps, then its start and end times into ``out``."""
    env = gym.make(ENV_ID, **kw)
    _, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    start.wait()
    t = time.perf_counter()
    _steps(env, info, steps, oracle)
    out.put((t, time.perf_counter()))
    env.close()


def separate(kw: dict[str, Any], n: int, steps: int, oracle: bool) -> float:
    """Env-steps/s of ``n`` single envs run at once in ``n`` processes with no communication
    (from the first start to the last end): the ceiling of any n-env vector env here."""
    ctx = mp.get_context("spawn")  # like a fresh interpreter per env: nothing inherited
    start, out = ctx.Barrier(n), ctx.Queue()
    each = max(1, steps // n)  # as the vector rows (--steps under --envs: 0 steps each, a rate of 0)
    procs = [ctx.Process(target=_alone, args=(kw, each, oracle, i, start, out)) for i in range(n)]
    for p in procs:
        p.start()
    spans: list[tuple[float, float]] = []
    while len(spans) < n:  # a process that dies before reporting is an error, not a hang
        try:
            spans.append(out.get(timeout=5))
        except queue.Empty:
            if any(p.exitcode not in (None, 0) for p in procs):
                for p in procs:
                    p.kill()
                raise RuntimeError(f"a process of the ceiling row failed: exit codes {[p.exitcode for p in procs]}") from None
    for p in procs:
        p.join()
    return each * n / (max(e for _, e in spans) - min(s for s, _ in spans))


def ray_vector(kw: dict[str, Any], n: int, per_actor: int = 1) -> gym.vector.VectorEnv | None:
    """``guigym.distributed.RayVectorEnv`` with ``n`` actors of ``per_actor`` envs on a local Ray;
    None (row skipped) where Ray is not installed (extra ``guigym[ray]``)."""
    if importlib.util.find_spec("ray") is None:
        return None
    from guigym.distributed import RayVectorEnv

    return RayVectorEnv(ENV_ID, num_actors=n, envs_per_actor=per_actor, **kw)


def table(backend: str, kw: dict[str, Any], n: int, steps: int) -> None:
    print(f"\n{backend} backend, {ENV_ID} easy, {n} envs, {steps} env-steps per cell, load average {os.getloadavg()[0]:.1f}")
    base = {p: single(kw, steps, p == "oracle") for p in ("random", "oracle")}
    rows: list[tuple[str, Callable[[bool], float | None]]] = [
        (f"sync x{n}", lambda o: vector(gym.make_vec(ENV_ID, n, vectorization_mode="sync", **kw), steps, o, f"sync x{n}")),
        (f"gymnasium async x{n} (defaults)",
         lambda o: vector(gym.make_vec(ENV_ID, n, vectorization_mode="async", **kw), steps, o, f"gymnasium async x{n} (defaults)")),
        (f"guigym async x{n} (make_vec)",
         lambda o: vector(gym.make_vec(ENV_ID, n, envs_per_worker=1, **kw), steps, o, f"guigym async x{n} (make_vec)")),
        (f"guigym x{n * PER_WORKER}, {n} workers", lambda o: vector(
            gym.make_vec(ENV_ID, n * PER_WORKER, envs_per_worker=PER_WORKER, **kw), steps, o, f"guigym x{n * PER_WORKER}, {n} workers")),
        (f"guigym x{n * PER_WORKER}, {n} workers, copy=False", lambda o: vector(
            gym.make_vec(ENV_ID, n * PER_WORKER, envs_per_worker=PER_WORKER, copy=False, **kw), steps, o,
            f"guigym x{n * PER_WORKER}, {n} workers, copy=False")),
        (f"guigym x{n * PER_WORKER}, {n} workers, threads", lambda o: vector(
            gym.make_vec(ENV_ID, n * PER_WORKER, envs_per_worker=PER_WORKER, worker_threads=True, **kw), steps, o,
            f"guigym x{n * PER_WORKER}, {n} workers, threads")),
        (f"SB3 SubprocVecEnv x{n}", lambda o: None if o else sb3_subproc(kw, n, steps)),
        (f"Ray x{n}", lambda o: (lambda v: None if v is None else vector(v, steps, o))(ray_vector(kw, n))),
        (f"Ray x{n * PER_WORKER}, {n} actors", lambda o: (lambda v: None if v is None else vector(v, steps, o))(
            ray_vector(kw, n, PER_WORKER))),
        (f"{n} separate processes (ceiling)", lambda o: separate(kw, n, steps, o)),
    ]
    results, cpu = [], {}
    for name, fn in rows:
        results.append((name, {p: fn(p == "oracle") for p in ("random", "oracle")}))
        cpu[name] = CPU.pop(name, None)  # the oracle cell's (measured last)
    cpu["single env"] = CPU.get("single env")
    after = {p: single(kw, steps, p == "oracle") for p in ("random", "oracle")}
    base = {p: (base[p] + after[p]) / 2 for p in base}
    print(f"{'setup':34} {'random st/s':>12} {'ratio':>6} {'oracle st/s':>12} {'ratio':>6}")
    print(f"{'single env':34} {base['random']:12.0f} {1:6.2f} {base['oracle']:12.0f} {1:6.2f}")
    for name, r in results:
        cells = "".join(f" {'-':>12} {'-':>6}" if (x := r[p]) is None else f" {x:12.0f} {x / base[p]:6.2f}" for p in ("random", "oracle"))
        print(f"{name:34}{cells}")
    print("\nCPU per env-step, oracle policy, µs (workers: their own processes, not a browser's)")
    print(f"{'setup':34} {'main':>8} {'workers':>8} {'total':>8}")
    for name in ["single env"] + [r[0] for r in rows]:
        c = cpu.get(name)
        if c is not None:
            m, w = c
            print(f"{name:34} {m * 1e6:8.0f} {w * 1e6:8.0f} {(m + w) * 1e6:8.0f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--envs", type=int, default=2, help="N: envs of the vector rows (workers, actors, processes) (default: %(default)s)")
    p.add_argument("--steps", type=int, default=3000, help="env-steps per cell, mock backend")
    p.add_argument("--browser-steps", type=int, default=300, help="env-steps per cell, browser backend")
    p.add_argument("--browser", action=argparse.BooleanOptionalAction, default=None,
                   help="measure the browser backend (default: if a Chromium is found)")
    args = p.parse_args(argv)
    at_least(p, 1, envs=args.envs, steps=args.steps, browser_steps=args.browser_steps)  # as every benchmark script
    print(f"{os.cpu_count()} CPUs")
    table("mock", {}, args.envs, args.steps)
    browser = args.browser
    if browser is None:  # a Chromium is "found" when a browser env can start
        env = gym.make(ENV_ID, backend="browser")
        try:
            env.reset(seed=0)
            browser = True
        except Exception as e:  # noqa: BLE001 - ChromiumNotFound, missing Playwright, ...: skip the table
            print(f"\nbrowser backend skipped: {type(e).__name__}: {str(e).splitlines()[0]}")
            browser = False
        finally:
            env.close()
    if browser:
        table("browser", {"backend": "browser"}, args.envs, args.browser_steps)
    if importlib.util.find_spec("ray") is not None:
        import ray

        ray.shutdown()  # the Ray rows started a local Ray
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
