"""Mock envs stepped from several threads at once (each thread its own env) give what each gives
alone, and the drawing caches they share stay consistent: under forced thread switches, under
caches small enough to evict all the time, and in a child forked while another thread draws.

One env used from two threads at once is not supported (as with any Gymnasium env)."""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from guigym import display
from guigym.apps.base import View, Widget
from guigym.backends import mock
from guigym.layout import layout

CASES: list[tuple[str, dict[str, Any]]] = [
    ("GuiGym-Login-v0", {}), ("GuiGym-Settings-v0", {"variation": "all"}), ("GuiGym-Mail-v0", {"level": "hard"}),
    ("GuiGym-Shop-v0", {"variation": "all"}), ("GuiGym-Files-v0", {"variation": "all"}),
    ("GuiGym-Messages-v0", {"viewport": (300, 500)}), ("GuiGym-Contacts-v0", {"backend_kwargs": {"shared_caches": False}}),
]


def _episodes(env_id: str, kw: dict[str, Any], seed: int, steps: int) -> list[str]:
    """One digest per observation (screenshot, instruction, reward, terminated, truncated,
    reference) of ``steps`` steps: the oracle's action 70% of the time, else a random one
    (both seeded), resetting with a new seed when an episode ends."""
    env = gym.make(env_id, disable_env_checker=True, **kw)
    env.action_space.seed(seed)
    rng = np.random.default_rng(seed)
    out: list[str] = []

    def digest(obs: dict[str, Any], r: float, term: bool, trunc: bool, info: dict[str, Any]) -> None:
        h = hashlib.sha1(obs["screenshot"].tobytes())
        h.update(repr((obs["instruction"], r, term, trunc, info["reference"], info["event"])).encode())
        out.append(h.hexdigest())

    try:
        obs, info = env.reset(seed=seed)
        digest(obs, 0.0, False, False, info)
        for _ in range(steps):
            ref = info["reference"]
            act = ref[0].action if ref and rng.random() < 0.7 else env.action_space.sample()
            obs, r, term, trunc, info = env.step(act)
            digest(obs, float(r), term, trunc, info)
            if term or trunc:
                seed += 1000
                obs, info = env.reset(seed=seed)
                digest(obs, 0.0, False, False, info)
    finally:
        env.close()
    return out


@contextmanager
def _switching(interval: float) -> Iterator[None]:
    old = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _in_threads(steps: int) -> list[list[str] | BaseException | None]:
    """Every case stepped in a thread of its own, all at once (seed 11 + its index)."""
    got: list[list[str] | BaseException | None] = [None] * len(CASES)
    start = threading.Barrier(len(CASES))

    def run(k: int) -> None:
        try:
            start.wait()
            got[k] = _episodes(*CASES[k], 11 + k, steps)
        except BaseException as e:  # noqa: BLE001 - reported by the assertion below
            got[k] = e

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(CASES))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return got


def _assert_bookkeeping(c: mock._Caches) -> None:
    """The byte counters are the sums of what is cached, the entry counts within their bounds."""
    assert c.tile_bytes == sum(mock._nbytes(t) for _, t in c.tiles.values())
    assert c.text.nbytes == sum(mock._nbytes(s) for s in c.text.cache.values())
    assert c.background_bytes == sum(band.nbytes for _, _, band in c.backgrounds.values())
    assert len(c.tiles) <= mock.TILE_CACHE_ENTRIES and len(c.text.cache) <= c.text.max_entries
    assert len(c.text.fonts) <= c.text.max_fonts and len(c.backgrounds) <= mock.BACKGROUND_ENTRIES
    assert len(c.plains) <= mock.PLAIN_ENTRIES
    for color, arr in c.plains.items():  # every plain frame is filled with its colour
        assert (arr.reshape(-1, 3) == color).all()


def test_envs_in_threads_give_what_they_give_alone() -> None:
    """Seven envs (four ids with variation="all" or a hard level, another viewport size, caches
    of its own) stepped at once from seven threads, switching threads every microsecond: every
    observation, reward, termination and reference is what the same env gives alone; twice."""
    want = [_episodes(env_id, kw, 11 + k, 250) for k, (env_id, kw) in enumerate(CASES)]
    with _switching(1e-6):
        for _ in range(2):
            got = _in_threads(250)
            assert got == want
    for c in list(mock._CACHES.values()):
        _assert_bookkeeping(c)


def test_small_caches_evicting_under_threads_stay_consistent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Caches a few entries big (every frame evicts tiles, texts, fonts, backgrounds, plain
    frames, corners and display memos) shared by threads stepping at once: same observations
    as alone, and the counters still equal what is cached."""
    monkeypatch.setattr(mock, "_CACHES", {})
    monkeypatch.setattr(mock, "_RECENT", type(mock._RECENT)())
    for name, value in [("TILE_CACHE_ENTRIES", 8), ("TILE_CACHE_BYTES", 300_000), ("BACKGROUND_ENTRIES", 2),
                        ("PLAIN_ENTRIES", 2), ("CORNER_ENTRIES", 2)]:
        monkeypatch.setattr(mock, name, value)
    monkeypatch.setattr(display, "CACHE_SIZE", 4)
    monkeypatch.setattr(mock._Text.__init__, "__defaults__", (1 << 20, 16, 3))
    want = [_episodes(env_id, kw, 11 + k, 120) for k, (env_id, kw) in enumerate(CASES)]
    with _switching(1e-6):
        got = _in_threads(120)
    assert got == want
    assert mock._CACHES
    for c in mock._CACHES.values():
        _assert_bookkeeping(c)


# ------------------------------------------------------------ nothing published half made


def _at_every_line(filename: str, check: Callable[[], None], fn: Callable[[], Any]) -> None:
    """Run ``fn`` calling ``check`` before every line of ``filename`` it runs: where another
    thread (or a fork, or a KeyboardInterrupt) may come in and see the shared memos."""

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            check()
        return local

    def calls(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == filename else None

    sys.settrace(calls)
    try:
        fn()
    finally:
        sys.settrace(None)


def test_a_widget_record_is_whole_when_memoised() -> None:
    """An inert widget (the screen under a dialog) is memoised with its ``inert`` mark: another
    thread drawing the same dialog meanwhile (a browser env, a mock env of its own caches)
    takes the record from the memo, and must not find it without the mark."""
    display._WIDGETS.clear()
    under = View("app", "main", "Under", [Widget("ok", "button", "OK", style="primary")])
    dialog = View("app", "confirm", "Under", [Widget("d", "dialog", "Delete?", detail="Sure?"),
                                              Widget("yes", "button", "Delete", style="danger")], backdrop=under)
    lay = layout(dialog, 360, 640)
    assert lay.backdrop is not None

    def check() -> None:
        for key, rec in list(display._WIDGETS.items()):
            assert rec.get("inert", False) is key[13], key  # key[13]: inert

    _at_every_line(display.__file__, check, lambda: display.display_list(dialog, lay))
    assert [r.get("inert") for r in display.display_list(dialog, lay) if r["type"] == "widget"] == [True, None, None]


def test_a_plain_frame_is_filled_when_cached() -> None:
    """A plain frame is cached once filled with its colour: a thread switch, a fork or an
    interrupt in between would leave a black frame cached for that colour for good."""
    env = gym.make("GuiGym-Login-v0", disable_env_checker=True, backend_kwargs={"shared_caches": False})
    caches = env.unwrapped.backend._caches

    def check() -> None:
        for color, arr in list(caches.plains.items()):
            assert (arr[0, 0] == color).all(), color

    try:
        _at_every_line(mock.__file__, check, lambda: env.reset(seed=0))
        assert caches.plains
    finally:
        env.close()


# -------------------------------------------------------------------------- fork


def _whole(c: mock._Caches) -> bool:
    try:
        _assert_bookkeeping(c)
    except AssertionError:
        return False
    return True


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_while_a_thread_draws_inherits_whole_caches() -> None:
    """A process forks (a vector env's workers) while one of its threads is in the middle of a
    drawing (here held where its text cache holds a surface its byte counter does not count
    yet): the child's caches must be whole (the fork waits for the drawing to end), or its
    budget is off for good (or, caught elsewhere, a plain frame cached black)."""
    env = gym.make("GuiGym-Login-v0", disable_env_checker=True, backend_kwargs={"shared_caches": False})
    caches = env.unwrapped.backend._caches
    inside, go = threading.Event(), threading.Event()

    def pause(frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and not inside.is_set() and not _whole(caches):
            inside.set()  # mid-drawing, the caches' lock held
            go.wait(60)
        return pause

    def calls(frame: Any, event: str, arg: Any) -> Any:
        return pause if frame.f_code.co_filename == mock.__file__ else None

    def draw() -> None:
        sys.settrace(calls)
        try:
            env.reset(seed=0)
        finally:
            sys.settrace(None)

    t = threading.Thread(target=draw)
    t.start()
    try:
        assert inside.wait(60)
        # the drawing goes on a moment later: a fork that waits for it gets whole caches; one
        # that does not copies them half made (nothing is asserted about the timing)
        threading.Timer(0.5, go.set).start()
        pid = os.fork()
        if pid == 0:  # the child: report through the exit status only
            os._exit(0 if _whole(caches) else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, "the child inherited caches half updated"
    finally:
        go.set()
        t.join()
        env.close()
