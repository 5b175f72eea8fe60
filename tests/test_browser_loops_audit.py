"""The browser backend as users run it: inside a running asyncio loop (a Jupyter cell, an async
test), from worker threads, several envs in one process, a process forked while another thread
starts the browser driver, Chromium killed mid-episode, a Chromium path that is wrong or hangs.
Every scenario checks that no process of ours is left (this process's descendants, read in
``/proc``: other jobs' Chromiums on the machine do not count) and no driver thread.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import logging
import os
import signal
import threading
import time
from typing import Any

import gymnasium as gym
import pytest

import guigym  # noqa: F401
import guigym.backends.browser_loop as browser_loop
from guigym.backends.browser import BrowserCrashed
from guigym.backends.chromium import ENV_VAR, ChromiumNotFound
from guigym.backends.procfs import cmdline, process_tree
from tests.conftest import driver_threads, settled

pytestmark = pytest.mark.browser

Rollout = list[tuple[str, float, bool]]


def make(**kw: Any) -> gym.Env:
    return gym.make("GuiGym-Login-v0", backend="browser", level="medium", disable_env_checker=True, **kw)


def digest(obs: dict[str, Any]) -> str:
    return hashlib.sha1(obs["screenshot"].tobytes()).hexdigest()


def rollout(env: gym.Env, seeds: tuple[int, ...] = (0, 1)) -> Rollout:
    out: Rollout = []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        out.append((digest(obs), 0.0, False))
        while info["reference"]:
            obs, reward, term, trunc, info = env.step(info["reference"][0].action)
            out.append((digest(obs), reward, term))
            if term or trunc:
                break
    return out


#: Helpers multiprocessing starts once and keeps until the process exits (an earlier test's
#: ``AsyncVectorEnv`` with shared memory starts the resource tracker): not a browser's, not a leak.
_MP_HELPERS = (b"multiprocessing.resource_tracker", b"multiprocessing.forkserver")


#: Descendants an earlier test (of another file) left running when this file's first test began:
#: that test's to answer for, not this file's; they are left out of the checks below.
_BEFORE: set[int] = set()


def ours() -> list[int]:
    """This process's running descendants (Chromium, Playwright's node driver, whatever a
    Chromium path given by a test started), less multiprocessing's own helpers and what was
    running before this file's tests."""
    return [p for p in process_tree(os.getpid())
            if p != os.getpid() and p not in _BEFORE and not any(h in cmdline(p) for h in _MP_HELPERS)]


@pytest.fixture(scope="module")
def plain() -> Rollout:
    env = make()
    try:
        return rollout(env)
    finally:
        env.close()


@pytest.fixture(scope="module", autouse=True)
def before_this_file() -> None:
    _BEFORE.update(settled(ours))


@pytest.fixture(autouse=True)
def nothing_left(before_this_file: None) -> Any:
    assert not settled(ours), "a process was left by an earlier test of this file"
    yield
    assert not settled(ours), f"processes left: {[cmdline(p)[:80] for p in ours()]}"
    assert not settled(driver_threads)


def test_made_in_a_loop_stepped_in_a_thread_closed_in_another(plain: Rollout) -> None:
    """An env made inside ``asyncio.run`` (a Jupyter cell) outlives the loop, is stepped from a
    worker thread and closed (twice) from a third; used again after close it starts a new browser
    and draws what it drew."""

    async def cell() -> gym.Env:
        assert asyncio.get_running_loop().is_running()
        env = make()
        env.reset(seed=5)
        return env

    env = asyncio.run(cell())
    got: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: got.update(r=rollout(env)))
    worker.start()
    worker.join(120)
    assert got["r"] == plain
    closer = threading.Thread(target=lambda: (env.close(), env.close()))
    closer.start()
    closer.join(60)
    assert not settled(ours) and not settled(driver_threads)

    async def again() -> Rollout:
        return rollout(env)

    assert asyncio.run(again()) == plain  # a closed env can still be used
    env.close()


def test_two_envs_in_one_loop_one_killed_mid_episode(plain: Rollout) -> None:
    """Two envs alive in one running loop; the Chromium of one is SIGKILLed mid-episode: its
    steps raise BrowserCrashed (saying to reset) until reset, which brings back the same
    episode; the other env, stepped from a thread meanwhile, is unaffected."""

    async def main() -> None:
        a, b = make(), make()
        try:
            obs, info = a.reset(seed=0)
            assert (digest(obs), 0.0, False) == plain[0]
            os.kill(a.unwrapped.backend.browser_pid, signal.SIGKILL)
            other: dict[str, Any] = {}
            t = threading.Thread(target=lambda: other.update(r=rollout(b)))
            t.start()
            for _ in range(2):
                with pytest.raises(BrowserCrashed, match=r"env\.reset\(\)"):
                    a.step(info["reference"][0].action)
            t.join(120)
            assert other["r"] == plain
            assert rollout(a) == plain  # reset starts a new browser
            assert a.unwrapped.backend.restarts == 1
        finally:
            a.close()
            b.close()

    asyncio.run(main())


def test_state_moves_between_threads_and_envs_inside_a_loop() -> None:
    """get_state in one thread, set_state on another env (of an odd viewport) in another, inside a
    running loop: the same screen, and the same step afterwards."""

    async def main() -> None:
        a, b = make(viewport=(241, 305)), make(viewport=(241, 305))
        try:
            obs, info = a.reset(seed=3)
            action = info["reference"][0].action
            box: dict[str, Any] = {}
            t = threading.Thread(target=lambda: box.update(s=a.unwrapped.get_state()))
            t.start()
            t.join(60)
            want = a.step(action)
            b.reset(seed=9)

            def restore() -> None:
                b.unwrapped.set_state(box["s"])
                box["obs"] = b.unwrapped._obs()
                box["step"] = b.step(action)

            t = threading.Thread(target=restore)
            t.start()
            t.join(60)
            assert box["obs"]["screenshot"].shape == (305, 241, 3)
            assert digest(box["obs"]) == digest(obs)
            assert (digest(box["step"][0]), *box["step"][1:3]) == (digest(want[0]), *want[1:3])
        finally:
            a.close()
            b.close()

    asyncio.run(main())


def test_missing_chromium_path_is_named_inside_a_loop(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "no-chrome"))

    async def main() -> None:
        env = make()
        try:
            with pytest.raises(ChromiumNotFound, match=rf"^{ENV_VAR}=.*no-chrome does not exist: fix {ENV_VAR} or unset it"):
                env.reset(seed=0)
        finally:
            env.close()

    asyncio.run(main())


def test_a_chromium_path_that_hangs_leaves_no_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """A ``$GUIGYM_CHROMIUM`` that never starts: each reset fails within the launch deadline
    with an error naming it, and kills what it started (Playwright gives up on the launch
    without: one hung process more per reset, until the env closed)."""
    exe = tmp_path / "hung-chrome"
    exe.write_text("#!/bin/sh\nsleep 600\n")
    exe.chmod(0o755)
    monkeypatch.setenv(ENV_VAR, str(exe))
    env = make(backend_kwargs={"timeout_s": 0.5})
    try:
        for _ in range(2):
            t = time.monotonic()
            with pytest.raises(ChromiumNotFound, match=rf"^{ENV_VAR}=.*hung-chrome failed to launch: fix {ENV_VAR}"):
                env.reset(seed=0)
            assert time.monotonic() - t < 15
            left = settled(lambda: [p for p in ours() if b"run-driver" not in cmdline(p)])
            assert not left, [cmdline(p) for p in left]
    finally:
        env.close()


def test_dead_node_driver_leaves_no_never_retrieved_error(caplog: pytest.LogCaptureFixture) -> None:
    """Playwright's node driver killed mid-episode: BrowserCrashed, then reset works on a new
    driver; asyncio no longer logs "Future exception was never retrieved" (Playwright's own
    future, which nothing awaits) once the dead driver is dropped."""
    env = make()
    try:
        obs, info = env.reset(seed=0)
        os.kill(env.unwrapped.backend._driver.node_pid, signal.SIGKILL)
        with pytest.raises(BrowserCrashed):
            env.step(info["reference"][0].action)
        with caplog.at_level(logging.ERROR, logger="asyncio"):
            assert digest(env.reset(seed=0)[0]) == digest(obs)
            env.close()
            gc.collect()
        assert not [r for r in caplog.records if "never retrieved" in r.getMessage()], caplog.text
    finally:
        env.close()


def test_fork_while_another_thread_starts_the_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process forks (an ``AsyncVectorEnv`` starting its workers) while another thread is
    starting the browser driver, which holds the driver lock for up to a second: the child's
    own browser env works (it hung in its first reset, on the lock copied held)."""
    import playwright.async_api  # noqa: F401 - imported before the fork (an import lock held across it hangs anything)

    inside = threading.Event()
    start = browser_loop.Driver.__init__

    def slow_start(self: Any, *a: Any, **k: Any) -> None:
        inside.set()
        time.sleep(0.5)  # the fork lands here, the lock held
        start(self, *a, **k)

    monkeypatch.setattr(browser_loop.Driver, "__init__", slow_start)
    env = make()
    t = threading.Thread(target=env.reset, kwargs={"seed": 0})
    t.start()
    assert inside.wait(60)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.close(r)
            child = make()
            try:
                child.reset(seed=0)
                code = 0
            finally:
                child.close()
            os.write(w, b"ok")
        finally:
            os._exit(code)
    os.close(w)
    try:
        status, end = None, time.monotonic() + 60
        while status is None and time.monotonic() < end:
            done, st = os.waitpid(pid, os.WNOHANG)
            status = st if done else None
            time.sleep(0.05)
        if status is None:
            for p in process_tree(pid)[::-1]:
                os.kill(p, signal.SIGKILL)
            os.waitpid(pid, 0)
        assert status is not None, "the forked child hung in reset()"
        assert os.waitstatus_to_exitcode(status) == 0
        assert os.read(r, 2) == b"ok"
    finally:
        os.close(r)
        t.join(60)
        env.close()


def test_a_bad_executable_beside_a_working_env_keeps_the_one_driver(tmp_path: Any) -> None:
    """An env whose ``executable`` does not exist, made beside a working one inside a running
    loop: a clear error, and the process keeps one Playwright driver for every env (the failure
    was taken for a dead driver: the shared one was flagged dead and a second node process
    started, which the next envs used)."""

    def nodes() -> list[int]:
        return [p for p in ours() if b"run-driver" in cmdline(p)]

    async def main() -> None:
        a = make()
        b = make(backend_kwargs={"executable": str(tmp_path / "no-chrome")})
        c = make()
        try:
            a.reset(seed=0)
            driver = a.unwrapped.backend._driver
            assert len(nodes()) == 1
            with pytest.raises(ChromiumNotFound, match=r"^executable '.*no-chrome' does not exist: fix it or leave it out"):
                b.reset(seed=0)
            assert not driver.dead
            c.reset(seed=0)
            assert c.unwrapped.backend._driver is driver
            assert len(nodes()) == 1
        finally:
            for env in (a, b, c):
                env.close()

    asyncio.run(main())
