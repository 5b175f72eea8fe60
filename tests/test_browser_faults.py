"""Browser faults and isolation against a real headless Chromium (issue 15, items 8 and 12).

* After Chromium dies mid-episode, every ``step()`` raises ``BrowserCrashed`` whatever the
  action (including the ones that never reach the page: Back, OpenApp, off-screen clicks,
  unparsable text), until ``reset()`` starts a new browser.
* WebSocket handshakes to a host that is not loopback never leave the browser (Playwright's
  route guard does not see them; a dead proxy with loopback bypass does).
"""

from __future__ import annotations

import http.server
import os
import signal
import socket
import threading
import time
from typing import Any

import gymnasium as gym
import pytest

import guigym  # noqa: F401
from guigym.actions import Back, Click, OpenApp, Scroll, Type
from guigym.backends.browser import BrowserCrashed

pytestmark = pytest.mark.browser


def _gone(pid: int, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except OSError:
            return True
        time.sleep(0.01)
    return False


def _actions(env: gym.Env) -> dict[str, Any]:
    apps = sorted(env.unwrapped.scenario["apps"])
    return {
        "click": Click(180, 320), "off-screen click": Click(5000, 5000), "scroll": Scroll("down"), "type": Type("alice"),
        "back": Back(), "open app": OpenApp(apps[0]), "unknown app": OpenApp("NoSuchApp"), "unparsable text": "not an action",
        "action text": '{"action": "back"}', "action dict": env.action_space.sample(),
    }


def test_every_action_raises_after_a_crash_until_reset() -> None:
    env = gym.make("GuiGym-Login-v0", backend="browser", disable_env_checker=True)
    try:
        obs0, _ = env.reset(seed=3)
        b = env.unwrapped.backend
        kinds = _actions(env)
        for i, (name, first) in enumerate(kinds.items()):
            pid = b.browser_pid
            os.kill(pid, signal.SIGKILL)
            assert _gone(pid)
            t = time.monotonic()
            with pytest.raises(BrowserCrashed, match="reset"):
                env.step(first)
            assert time.monotonic() - t < 5, name
            for other, act in kinds.items():  # and every step stays an error until reset
                with pytest.raises(BrowserCrashed):
                    env.step(act)
                assert b.browser_pid == pid, f"{other} after {name} restarted Chromium"
            obs, info = env.reset(seed=3)
            assert b.restarts == i + 1 and b.browser_pid != pid
            assert obs["screenshot"].tobytes() == obs0["screenshot"].tobytes()
            _, _, _, _, info = env.step(info["reference"][0].action)
            assert info["event"] is not None and info["action_error"] is None
    finally:
        env.close()
