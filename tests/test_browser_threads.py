"""Both backends inside a running asyncio loop (a Jupyter cell, an ``async def``) and from worker
threads, several envs in several threads at once, against a real headless Chromium: the
observations and rewards equal those of the plain, single-threaded case; ``close()`` leaves no
process and no thread; an env that is never closed does not hang interpreter exit.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
import textwrap
import threading
import time

import gymnasium as gym
import pytest

import guigym  # noqa: F401
from guigym.backends.browser import process_tree
from guigym.backends.procfs import cmdline as _cmdline
from guigym.backends.procfs import alive as _running
from tests.conftest import driver_threads, settled

pytestmark = pytest.mark.browser

SEEDS = (0, 1, 2)
Rollout = list[tuple[str, float, bool]]


def make(backend: str, env_id: str = "GuiGym-Login-v0") -> gym.Env:
    return gym.make(env_id, backend=backend, level="medium", disable_env_checker=True)


def rollout(env: gym.Env, seeds: tuple[int, ...] = SEEDS) -> Rollout:
    """The oracle's episodes: (screenshot digest, reward, terminated) after reset and every step."""
    out: Rollout = []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        out.append((hashlib.sha1(obs["screenshot"].tobytes()).hexdigest(), 0.0, False))
        done = False
        while not done and info["reference"]:
            obs, reward, term, trunc, info = env.step(info["reference"][0].action)
            out.append((hashlib.sha1(obs["screenshot"].tobytes()).hexdigest(), reward, term))
            done = term or trunc
    return out


def _plain(backend: str) -> Rollout:
    env = make(backend)
    try:
        return rollout(env)
    finally:
        env.close()


@pytest.fixture(scope="module")
def plain() -> dict[str, Rollout]:
    return {b: _plain(b) for b in ("mock", "browser")}


def helpers() -> list[int]:
    """Running descendants of this process that belong to the browser backend: Chromium
    processes and Playwright's node driver."""
    out = []
    for pid in process_tree(os.getpid()):
        cmd = _cmdline(pid)
        exe = cmd.split(b"\0")[0].lower()
        if b"chrom" in exe or b"headless_shell" in exe or b"run-driver" in cmd:
            out.append(pid)
    return out


@pytest.mark.parametrize("backend", ["mock", "browser"])
def test_inside_a_running_event_loop(plain: dict[str, Rollout], backend: str) -> None:
    """What a Jupyter cell does: gym.make, reset and step while an asyncio loop runs."""

    async def main() -> Rollout:
        assert asyncio.get_running_loop().is_running()
        env = make(backend)
        try:
            return rollout(env)
        finally:
            env.close()

    assert asyncio.run(main()) == plain[backend]


@pytest.mark.parametrize("backend", ["mock", "browser"])
def test_several_envs_in_several_threads(plain: dict[str, Rollout], backend: str) -> None:
    """Three envs stepped at once from three threads, and one env made in the main thread and
    stepped in another: each sees exactly the plain observations and rewards."""
    results: dict[str, Rollout] = {}
    errors: list[BaseException] = []

    def work(name: str, env: gym.Env | None = None) -> None:
        try:
            own = env is None
            env = env or make(backend)
            try:
                results[name] = rollout(env)
            finally:
                if own:
                    env.close()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    made_here = make(backend)
    made_here.reset(seed=99)  # started in this thread
    threads = [threading.Thread(target=work, args=(f"t{i}",)) for i in range(3)]
    threads.append(threading.Thread(target=work, args=("main-made", made_here)))
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    made_here.close()
    assert not errors, errors
    assert sorted(results) == ["main-made", "t0", "t1", "t2"]
    for name, got in results.items():
        assert got == plain[backend], name


def test_close_leaves_no_process_and_no_thread() -> None:
    before = set(helpers())
    envs = [make("browser") for _ in range(2)]
    for env in envs:
        env.reset(seed=0)
    assert driver_threads() == ["guigym-playwright"]  # one loop thread for the whole process
    started = set(helpers()) - before
    assert any(b"run-driver" in _cmdline(p) for p in started)  # one node driver, shared
    assert sum(b"run-driver" in _cmdline(p) for p in started) == 1
    t = time.monotonic()
    for env in envs:
        env.close()
        env.close()  # idempotent
    assert time.monotonic() - t < 15
    assert not settled(lambda: set(helpers()) & started)
    assert not settled(driver_threads)


_UNCLOSED = textwrap.dedent("""
    import gc, os, sys
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import gymnasium as gym
    import guigym
    env = gym.make("GuiGym-Login-v0", backend="browser", disable_env_checker=True)
    env.reset(seed=0)
    b = env.unwrapped.backend
    print(" ".join(map(str, b.chromium_pids())), flush=True)
    if sys.argv[1] == "collected":
        del env, b
        gc.collect()
    # else: still referenced at exit
""")


@pytest.mark.parametrize("how", ["collected", "referenced"])
def test_unclosed_env_does_not_hang_exit(how: str) -> None:
    """An env dropped without close() (garbage-collected, or alive until exit) lets the
    interpreter exit promptly and leaves no Chromium behind."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", _UNCLOSED, how], capture_output=True, text=True, timeout=120, env=env, cwd=root)
    took = time.monotonic() - t
    assert proc.returncode == 0, proc.stderr[-2000:]
    pids = [int(p) for p in proc.stdout.split()]
    assert pids, proc.stdout
    assert took < 60
    alive = settled(lambda: [p for p in pids if _running(p)])
    assert not alive, f"Chromium processes left after exit: {alive}"
