"""Long runs in one process: every cache of the mock backend and of the app model stays within
its bound over many resets with varied looks, and closed envs leave nothing behind in them
(memory, open font files) beyond what the bounds allow."""

from __future__ import annotations

import gc
import hashlib
import os
import weakref
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from guigym import display
from guigym.apps import widgets
from guigym.backends import mock
from guigym.oracle import MAX_STEPS

LOOKS = [("GuiGym-CrossApp-v0", {"level": "hard", "variation": "all"}), ("GuiGym-Phone-v0", {"variation": "all"}),
         ("GuiGym-Shop-v0", {"variation": "all", "split": "test"}), ("GuiGym-Calendar-v0", {"variation": "all"})]


def _open_fonts() -> int:
    """Font files this process holds open."""
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            n += os.readlink(f"/proc/self/fd/{fd}").endswith(".ttf")
        except OSError:  # the listing's own fd, closed by now
            pass
    return n


def _episodes(env: gym.Env, seeds: range, steps: int = 5) -> Iterator[np.ndarray]:
    """The screenshots of up to ``steps`` steps per seed's episode: the oracle's action 70 % of
    the time, else a random one (both seeded)."""
    rng = np.random.default_rng(seeds.start)
    env.action_space.seed(seeds.start)
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        yield obs["screenshot"]
        for _ in range(steps):
            act = info["reference"][0].action if info["reference"] and rng.random() < 0.7 else env.action_space.sample()
            obs, _, term, trunc, info = env.step(act)
            yield obs["screenshot"]
            if term or trunc:
                break


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_caches_of_closed_viewport_sizes_are_freed() -> None:
    """Envs of many viewport sizes made and closed in turn (a notebook, a test suite): each
    size's drawing caches (up to the byte budgets, and dozens of open font files) are freed
    once no env of that size is left and :data:`~guigym.backends.mock.VIEWPORT_CACHES` newer
    sizes have been used. They used to stay for the life of the process: ~70 MiB and ~70 open
    files per size, so a sweep ran out of file descriptors after ~15 sizes."""
    gc.collect()
    before = _open_fonts()
    refs = []
    for i in range(mock.VIEWPORT_CACHES + 4):
        env = gym.make("GuiGym-Phone-v0", viewport=(252 + 2 * i, 700), variation="all", disable_env_checker=True)
        for _ in _episodes(env, range(i, i + 6), steps=2):
            pass
        refs.append(weakref.ref(env.unwrapped.backend._caches))
        env.close()
        del env
    gc.collect()
    kept = [r() for r in refs[-mock.VIEWPORT_CACHES:]]
    assert all(c is not None for c in kept)  # the latest sizes stay warm for the next env of that size
    assert [r() for r in refs[:-mock.VIEWPORT_CACHES]] == [None] * 4
    assert _open_fonts() <= before + sum(len(c.text.fonts) for c in kept if c is not None)


def test_a_closed_viewport_size_comes_back_warm() -> None:
    """Closing the only env of a size and making another of it reuses the same caches."""
    env = gym.make("GuiGym-Login-v0", viewport=(330, 600), disable_env_checker=True)
    env.reset(seed=0)
    first = weakref.ref(env.unwrapped.backend._caches)
    env.close()
    del env
    gc.collect()
    env = gym.make("GuiGym-Login-v0", viewport=(330, 600), disable_env_checker=True)
    env.reset(seed=1)
    assert env.unwrapped.backend._caches is first()
    env.close()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_fonts_are_bounded_and_their_files_closed_without_changing_pixels() -> None:
    gc.collect()
    before = _open_fonts()
    small, full = mock._Text(max_fonts=3), mock._Text()
    for k in range(40):  # sizes and faces in turn: every render opens the font anew in the small cache
        size, face = 14 + k % 17, (None, "serif", "mono", "light")[k % 4]
        a, b = (t.render(f"Hello {k}", size, (10, 20, 30), bool(k % 2), face) for t in (small, full))
        assert pygame_bytes(a) == pygame_bytes(b)
        assert len(small.fonts) <= 3
    del full
    gc.collect()
    assert _open_fonts() <= before + 3


def pygame_bytes(surf: Any) -> bytes:
    import pygame

    return pygame.image.tobytes(surf, "RGBA")


def _hash_run(envs: list[gym.Env], resets: int) -> str:
    h = hashlib.sha256()
    for k, env in enumerate(envs):
        for shot in _episodes(env, range(100 * k, 100 * k + resets)):
            h.update(shot.tobytes())
    return h.hexdigest()


def _bounded_sizes() -> dict[str, tuple[int, int]]:
    """Each process-wide memo's size and its bound."""
    c = display.CACHE_SIZE
    return {
        "parts": (len(display._PARTS), 4 * c + 1), "widgets": (len(display._WIDGETS), 4 * c + 1),
        "heads": (len(display._HEADS), c + 1), "themes": (len(display._THEMES), 257), "dimmed": (len(display._DIMMED), 257),
        "scrimmed": (len(display._SCRIMMED), 4 * c + 1),
        "interned": (len(display._INTERNED), 258), "corners": (len(mock._CORNERS), mock.CORNER_ENTRIES),
        "pickers": (len(widgets._PICKERS), 1025), "grids": (len(widgets._GRIDS), 1025),
    }


def test_caches_stay_within_their_bounds_under_varied_looks_and_draw_the_same(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Many resets with a new look each (themes, fonts, font scales, densities) under small
    bounds: every cache stays within its bound, and the frames are those drawn with the
    default bounds (an evicted entry is drawn anew the same)."""
    def make() -> list[gym.Env]:
        return [gym.make(i, disable_env_checker=True, backend_kwargs={"shared_caches": False}, **kw) for i, kw in LOOKS]

    envs = make()
    want = _hash_run(envs, 40)
    for e in envs:
        e.close()
    for name, value in (("TILE_CACHE_ENTRIES", 24), ("BACKGROUND_ENTRIES", 4), ("PLAIN_ENTRIES", 2), ("CORNER_ENTRIES", 8)):
        monkeypatch.setattr(mock, name, value)
    monkeypatch.setattr(display, "CACHE_SIZE", 64)
    for memo in (display._PARTS, display._WIDGETS, display._HEADS, mock._CORNERS):
        memo.clear()  # else the same frames again would all be hits, and no memo would meet its new bound
    envs = make()
    for e in envs:
        e.unwrapped.backend._text = mock._Text(max_bytes=1 << 20, max_entries=64, max_fonts=4)
    try:
        assert _hash_run(envs, 40) == want
        for e in envs:
            b = e.unwrapped.backend
            c, t = b._caches, b._text
            assert len(c.tiles) <= 24 and c.tile_bytes == sum(mock._nbytes(s) for _, s in c.tiles.values())
            assert len(c.backgrounds) <= 4 and len(c.plains) <= 2
            assert len(t.cache) <= 64 and t.nbytes <= 1 << 20 and len(t.fonts) <= 4
            o = e.unwrapped._oracle
            assert len(o._cache) <= o.cache_size + MAX_STEPS and len(o._done) <= o.cache_size
            assert len(o._screens) <= o.memo_size and len(o._next) <= o.memo_size
            assert len(e.unwrapped._frames) <= 4
        assert {k: n for k, (n, bound) in _bounded_sizes().items() if n > bound} == {}
    finally:
        for e in envs:
            e.close()


def test_many_closed_envs_are_collected_and_the_shared_caches_stay_bounded() -> None:
    """Envs made, stepped and closed in turn (and many alive at once, then closed) are freed:
    no process-wide cache holds an env or its backend."""
    refs = []
    for i in range(40):
        env_id, kw = LOOKS[i % len(LOOKS)]
        env = gym.make(env_id, disable_env_checker=True, **kw)
        for _ in _episodes(env, range(i, i + 1), steps=3):
            pass
        refs += [weakref.ref(env.unwrapped), weakref.ref(env.unwrapped.backend)]
        env.close()
        del env
    alive = [gym.make(i, disable_env_checker=True, **kw) for i, kw in LOOKS * 5]
    for k, env in enumerate(alive):
        env.reset(seed=k)
        refs += [weakref.ref(env.unwrapped), weakref.ref(env.unwrapped.backend)]
    caches = {id(e.unwrapped.backend._caches) for e in alive}
    for env in alive:
        env.close()
    del alive, env
    gc.collect()
    assert [r for r in refs if r() is not None] == []
    assert len(caches) == 1  # one viewport size: one set of shared caches, however many envs
    assert {k: n for k, (n, bound) in _bounded_sizes().items() if n > bound} == {}


def test_close_drops_the_frames_it_kept() -> None:
    """A closed env that is still referenced kept its last frames (4 x 675 KB), and a list of
    closed envs held them all; the current screen stays (a closed env can still be used)."""
    env = gym.make("GuiGym-Login-v0")
    _, info = env.reset(seed=0)
    for _ in range(3):
        _, *_, info = env.step(info["reference"][0].action)
    assert len(env.unwrapped._frames) > 1
    env.close()
    assert len(env.unwrapped._frames) == 0 and env.render().shape == (640, 360, 3)
    obs, *_ = env.step(info["reference"][0].action)  # and goes on
    assert obs["screenshot"].shape == (640, 360, 3)
