"""Faults found in a second audit of the browser backend, each with the test that found it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from guigym.actions import Type
from guigym.apps.base import View, Widget
from guigym.backends.base import event_for
from guigym.backends.browser import BrowserBackend
from guigym.backends.mock import MockBackend
from guigym.display import theme_of
from guigym.events import Event
from guigym.layout import layout
from tests.test_browser_audit import _browsers, _interrupt_main, _sigint_raises  # noqa: F401 (an autouse fixture: SIGINT raises)

pytestmark = pytest.mark.browser

W, H = 360, 640


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserBackend]:
    b = BrowserBackend(W, H)
    yield b
    b.close()


# ------------------------------------------------------------------- typed text


@pytest.mark.parametrize("kind,typed", [
    ("input", "a\nb" + "x" * 300),  # one line: the DOM holds "a b..." (303 characters)
    ("input", "a\x00\nb"),  # the DOM keeps the NUL the shared rule drops
    ("textarea", "a\r\nb" + "x" * 300),  # the DOM holds "a\nb..."
])
def test_typed_text_longer_than_a_field_gives_the_mock_event(browser: BrowserBackend, kind: str, typed: str) -> None:
    """Text whose line breaks the field changes gave the field's DOM value as the event once it
    was longer than a field holds (``MAX_FIELD_LEN``), or held a NUL: the DOM value was
    compared with the shared rule's result, which is cut and drops NULs, so they never matched
    ("a b" + 300 x where the mock's event has "a\\nb" + 300 x; the grounded reward compares
    events). Now the rule is applied to both sides."""
    v = View("s", "s", "Form", [Widget("f", kind, "Field", value="")], focus="f")
    lay = layout(v, W, H)
    browser.show(v, lay)
    assert browser.perform(Type(typed)) == event_for(Type(typed), v, lay) == (Event("input", "f", typed), None)


@pytest.mark.parametrize("start,typed", [("abc", "\n"), ("", "\n"), ("", "\r\n\r\n"), ("", "\r")])
def test_typing_only_a_line_break_in_a_one_line_field(browser: BrowserBackend, start: str, typed: str) -> None:
    """Typing only line breaks ("press Enter") into a one-line field: the shared rule leaves
    the field empty (trailing breaks dropped). Chromium inserts nothing for a lone "\\n" there,
    so no ``input`` event came: the backend waited ``INPUT_WAIT_MS`` (1 s) for it on every such
    step, and a field holding text kept it (the event's value was "abc": the states of the two
    backends parted). Now such text clears the field as empty text does, at once."""
    from guigym.backends.browser import INPUT_WAIT_MS

    v = View("s", "s", "Form", [Widget("f", "input", "Field", value=start)], focus="f")
    lay = layout(v, W, H)
    browser.show(v, lay)
    t = time.monotonic()
    got = browser.perform(Type(typed))
    took = time.monotonic() - t
    assert got == event_for(Type(typed), v, lay) == (Event("input", "f", typed), None)
    assert took < 0.9 * INPUT_WAIT_MS / 1000, f"{took:.2f} s: waited for an input event that never came"


def test_enter_in_a_one_line_field_leaves_the_mocks_state() -> None:
    """The same through the env: Login's username typed, then "\\n" typed into it; both
    backends report the same event and reward and hold the same state (the browser kept the
    username, the mock cleared it)."""
    got = {}
    for backend in ("mock", "browser"):
        env = gym.make("GuiGym-Login-v0", backend=backend, disable_env_checker=True)
        try:
            _, info = env.reset(seed=0)
            while not isinstance(info["reference"][0].action, Type):
                _, _, _, _, info = env.step(info["reference"][0].action)
            env.step(info["reference"][0].action)
            _, reward, _, _, info = env.step(Type("\n"))
            got[backend] = (reward, info["event"], env.unwrapped.get_state()["state"])
        finally:
            env.close()
    assert got["browser"] == got["mock"]


# ------------------------------------------------------------------- drawing


def _ink(img: np.ndarray, box: tuple[int, int, int, int], bg: tuple[int, int, int]) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    ink = np.abs(img[y0:y1 + 1, x0:x1 + 1].astype(np.int16) - np.array(bg, np.int16)).max(-1) > 40
    ys, xs = np.nonzero(ink)
    assert len(xs), "nothing drawn"
    return x0 + int(xs.min()), y0 + int(ys.min()), x0 + int(xs.max()), y0 + int(ys.max())


def test_line_breaks_and_tabs_in_a_text_run_draw_on_one_line(browser: BrowserBackend) -> None:
    """A text run is one line (pygame draws a line break or a tab as any other character). The
    runtime's ``white-space: pre`` broke the run at each line break, so a label holding one (a
    Phone note's body typed with Enter) drew three lines, 40 px tall, over the rows above and
    below it (the mock: one line, 11 px), and a tab jumped to a tab stop (a line 38 px wider
    than the mock's). Checked with the parity test's bounds: ink edges <= 3 px apart, the line
    ending where the mock's does (2 px + 3 %)."""
    texts = {"breaks": "line1\nline2\r\nline3", "tabs": "a\tb\tc", "separators": "one\u2028two\u2029three\x0bfour"}
    v = View("app", "main", "Note", [Widget(k, "label", s) for k, s in texts.items()])
    lay = layout(v, W, H)
    m = MockBackend(W, H)
    try:
        m.show(v, lay)
        browser.show(v, lay)
        a, c = m.screenshot(), browser.screenshot()
    finally:
        m.close()
    bg = theme_of(v).bg
    for w, box in lay.visible:
        ia, ic = _ink(a, box, bg), _ink(c, box, bg)
        assert abs(ia[1] - ic[1]) <= 3 and abs(ia[3] - ic[3]) <= 3, (w.id, ia, ic)
        assert abs(ia[2] - ic[2]) <= 2 + 0.03 * (ia[2] - ia[0]) and abs(ia[0] - ic[0]) <= 2, (w.id, ia, ic)


# ------------------------------------------------------------------- Ctrl-C in close()


def test_interrupted_close_leaves_no_browser() -> None:
    """A Ctrl-C while ``close()`` waited for the browser's graceful close left that Chromium
    running (and the Playwright driver and its thread), until the interpreter exited: the kill
    came after the wait. Now the browser is killed and the driver let go either way."""
    assert threading.current_thread() is threading.main_thread()
    env = gym.make("GuiGym-Login-v0", backend="browser", disable_env_checker=True)
    before = set(_browsers())
    env.reset(seed=0)
    backend = env.unwrapped.backend
    mine = set(_browsers()) - before
    assert len(mine) == 1

    async def interrupted_close(*args: Any, **kwargs: Any) -> None:
        await _interrupt_main()
        await asyncio.sleep(30)  # cancelled by the interrupted caller

    backend._browser.close = interrupted_close
    try:
        with pytest.raises(KeyboardInterrupt):
            env.close()
        end = time.monotonic() + 5
        while mine & set(_browsers()) and time.monotonic() < end:
            time.sleep(0.02)
        assert not mine & set(_browsers()), "the browser of an interrupted close() is still running"
        assert backend._driver is None, "the interrupted close() kept its Playwright driver"
    finally:
        env.close()

