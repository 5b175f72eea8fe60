"""A Ctrl-C (``KeyboardInterrupt``) while the browser backend waits for Chromium, against a real
headless Chromium: whatever the call (a launch, opening the runtime page, a step's input), the
env never reports an event the page did not get from this step, never leaves a browser
running that nothing holds, and the next ``reset()`` recovers.

The interrupt is a real SIGINT sent to the main thread while it waits for the driver's answer
(sent from the driver's own loop, inside the call, so it always lands mid-call).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest

import guigym  # noqa: F401
from guigym.actions import Click
from guigym.backends import browser as browser_mod
from guigym.backends.browser import BrowserBackend, BrowserCrashed
from guigym.backends.procfs import cmdline, process_tree

pytestmark = pytest.mark.browser


@pytest.fixture(autouse=True)
def _sigint_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in the main thread (Python's default) for the test."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


async def _interrupt_main() -> None:
    """Ctrl-C the main thread once it waits for the driver's answer (``Condition.wait`` in
    ``Future.result``); run on the driver's loop, from inside the call being waited for."""
    main = threading.main_thread().ident
    assert main is not None
    end = time.monotonic() + 10
    while time.monotonic() < end:
        frame = sys._current_frames().get(main)
        if frame is not None and frame.f_code.co_name == "wait" and frame.f_code.co_filename.endswith("threading.py"):
            break
        await asyncio.sleep(0.001)
    signal.pthread_kill(main, signal.SIGINT)


def _browsers() -> list[int]:
    """This process's running guigym Chromium browser processes (not their helpers)."""
    return [p for p in process_tree(os.getpid())
            if b"--guigym-instance=" in (c := cmdline(p)) and b"--type=" not in c]


def _none_left(timeout: float) -> bool:
    end = time.monotonic() + timeout
    while _browsers():
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def _make(env_id: str = "GuiGym-Login-v0", backend: str = "browser") -> gym.Env:
    return gym.make(env_id, backend=backend, disable_env_checker=True)


def test_interrupt_while_the_page_opens_leaves_a_backend_that_starts_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a Ctrl-C cut the first reset short while the runtime page was being opened, every
    later reset failed ("Chromium is gone (not started)"): the browser was up without its page
    and passed for a healthy one. Now the half-started browser is killed and the next reset
    starts a new one."""
    opened = BrowserBackend._open_page
    calls = []

    async def interrupted(self: BrowserBackend, tab: Any) -> None:
        calls.append(tab)
        if len(calls) == 1:
            await _interrupt_main()
            await asyncio.sleep(30)  # cancelled by the interrupted caller
        await opened(self, tab)

    monkeypatch.setattr(BrowserBackend, "_open_page", interrupted)
    env = _make()
    try:
        with pytest.raises(KeyboardInterrupt):
            env.reset(seed=0)
        assert _none_left(5.0), "the half-started browser was left running"
        obs, info = env.reset(seed=0)
        _, _, _, _, info = env.step(info["reference"][0].action)
        assert info["event"] is not None and info["action_error"] is None
    finally:
        env.close()
    assert _none_left(5.0)


def test_interrupted_step_never_reports_a_stale_event() -> None:
    """A Ctrl-C after a step's click reached the page but before its DOM events were collected
    left them queued: the next step took them as its own (a click on the status bar opened the
    row clicked before; the states of the two backends parted). Now the next step raises
    BrowserCrashed, and reset recovers with the mock's events."""
    env, mock = _make("GuiGym-Settings-v0"), _make("GuiGym-Settings-v0", "mock")
    try:
        _, info = env.reset(seed=0)
        _, minfo = mock.reset(seed=0)
        tab = env.unwrapped.backend._tab
        send = tab.send

        async def interrupted(method: str, params: dict[str, Any]) -> Any:
            if "drain" in str(params.get("functionDeclaration")):  # the input itself is sent already
                await _interrupt_main()
                await asyncio.sleep(30)  # cancelled by the interrupted caller
            return await send(method, params)

        tab.send = interrupted
        with pytest.raises(KeyboardInterrupt):
            env.step(info["reference"][0].action)
        tab.send = send
        status_bar = Click(5, 5)
        assert mock.step(status_bar)[4]["event"] is None
        with pytest.raises(BrowserCrashed, match="interrupted"):
            env.step(status_bar)
        _, info = env.reset(seed=0)
        for a in (status_bar, minfo["reference"][0].action):
            _, r, t, _, info = env.step(a)
            _, mr, mt, _, minfo = mock.step(a)
            assert (info["event"], r, t) == (minfo["event"], mr, mt)
            assert env.unwrapped.get_state()["state"] == mock.unwrapped.get_state()["state"]
    finally:
        env.close()
        mock.close()


def test_interrupt_while_chromium_launches_leaves_no_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cancelling a launch does not stop Playwright's driver from bringing the browser up, and
    nothing held it: each Ctrl-C during a reset's launch left a Chromium (~350 MiB) running
    until the driver stopped. Now the browser is closed once its launch ends."""
    launch = browser_mod.launch_async
    finished = threading.Event()

    async def interrupted(*args: Any, **kwargs: Any) -> Any:
        inner = asyncio.ensure_future(launch(*args, **kwargs))
        inner.add_done_callback(lambda _t: finished.set())
        if not finished.is_set() and not hasattr(interrupted, "done"):
            interrupted.done = True  # type: ignore[attr-defined]
            await _interrupt_main()
        return await asyncio.shield(inner)  # the launch goes on even if this is cancelled

    monkeypatch.setattr(browser_mod, "launch_async", interrupted)
    env = _make()
    try:
        with pytest.raises(KeyboardInterrupt):
            env.reset(seed=0)
        assert finished.wait(60), "the launch never ended"
        assert _none_left(10.0), "a browser launched for an interrupted reset is still running"
        _, info = env.reset(seed=0)
        assert len(_browsers()) == 1
        _, _, _, _, info = env.step(info["reference"][0].action)
        assert info["event"] is not None
    finally:
        env.close()
    assert _none_left(5.0)
