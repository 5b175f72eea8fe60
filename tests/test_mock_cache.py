"""The mock backend's drawing caches are bounded in bytes (issue 15, item 4), and evicting
never changes a pixel."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import guigym  # noqa: F401
from guigym.actions import Type
from guigym.apps.base import MAX_FIELD_LEN
from guigym.backends.mock import TEXT_CACHE_BYTES, TILE_CACHE_BYTES, _nbytes, _Text


def _focused_login(seed: int = 0) -> gym.Env:
    env = gym.make("GuiGym-Login-v0", backend="mock", disable_env_checker=True)
    _, info = env.reset(seed=seed)
    env.step(info["reference"][0].action)  # click the username field
    assert env.unwrapped.current_view.focus is not None
    return env


def test_text_cache_is_bounded_in_bytes() -> None:
    text = _Text(max_bytes=1 << 20)
    rng = np.random.default_rng(0)
    for i in range(400):
        s = "".join(rng.choice(list("abcdefghijklmnopqrstuvwxyzW@#"), 300))
        text.render(s, 20 + i % 3, (0, 0, 0), bold=bool(i % 2))
        assert text.nbytes == sum(_nbytes(x) for x in text.cache.values()) <= 1 << 20
    assert len(text.cache) >= 4  # full: evicted down to the budget, not emptied
    last = next(reversed(text.cache))  # the most recent entry survives; a hit moves an entry to the end
    first = next(iter(text.cache))
    text.render(first[0], first[1], first[3], first[2])  # the key is (text, size, bold, colour)
    assert next(reversed(text.cache)) == first and last in text.cache
    huge = text.render("W" * 50_000, 40, (0, 0, 0))  # over the whole budget: drawn, not cached
    assert huge.get_width() > 0 and text.nbytes <= 1 << 20


def test_long_typed_values_keep_the_env_within_budget() -> None:
    env = _focused_login()
    try:
        b = env.unwrapped.backend
        rng = np.random.default_rng(1)
        for _ in range(300):
            env.step(Type("".join(rng.choice(list("abcdefghijklmnopqrstuvwxyzMW"), MAX_FIELD_LEN))))
        assert b._text.nbytes == sum(_nbytes(x) for x in b._text.cache.values()) <= TEXT_CACHE_BYTES
        assert b._caches.tile_bytes == sum(_nbytes(t) for _, t in b._caches.tiles.values()) <= TILE_CACHE_BYTES
    finally:
        env.close()


def test_eviction_does_not_change_pixels() -> None:
    """The same episode with a cache that holds almost nothing draws the same bytes."""
    shots = []
    for budget in (TEXT_CACHE_BYTES, 4096):
        env = _focused_login(seed=5)
        env.unwrapped.backend._text = _Text(max_bytes=budget)
        frames = []
        for s in ("alice", "x" * MAX_FIELD_LEN, "bob", "alice"):
            obs, *_ = env.step(Type(s))
            frames.append(obs["screenshot"].tobytes())
        shots.append(frames)
        env.close()
    assert shots[0] == shots[1]


def test_round_rects_from_cached_corners_equal_pygames() -> None:
    """``_round_rect`` (straight parts filled, corners blitted from cached stamps) draws what
    ``pygame.draw.rect`` draws, pixel for pixel: every radius the painters use and more,
    filled and outlined, at sizes down to twice the radius, on the frame's pixel format (a box
    partly off the surface is left to pygame, which clips it before rounding); the corner cache
    stays bounded."""
    import itertools

    import pygame

    from guigym.backends import mock

    arr_a, arr_b = np.zeros((90, 120, 3), np.uint8), np.zeros((90, 120, 3), np.uint8)
    a, b = (pygame.image.frombuffer(x, (120, 90), "RGB") for x in (arr_a, arr_b))
    n = 0
    for (w, h), rad, border, (x, y), color in itertools.product(
        [(24, 24), (40, 18), (56, 56), (60, 33), (101, 44), (28, 29)], [1, 2, 3, 4, 8, 9, 12, 14], [0, 1, 2, 3],
        [(5, 7), (0, 0), (-6, 60), (100, -5)], [(255, 255, 255), (1, 2, 3), (0, 114, 178)],
    ):
        if 2 * max(rad, border) > min(w, h):
            continue
        a.fill((0, 2, 3))
        b.fill((0, 2, 3))
        pygame.draw.rect(a, color, (x, y, w, h), width=border, border_radius=rad)
        # as _paint draws it: the fast way only for a box on the surface whole
        if mock._inside(b, x, y, w, h):
            mock._round_rect(b, color, x, y, w, h, border, rad)
        else:
            pygame.draw.rect(b, color, (x, y, w, h), width=border, border_radius=rad)
        assert np.array_equal(arr_a, arr_b), (w, h, rad, border, x, y, color)
        n += int(mock._inside(b, x, y, w, h))
    assert n > 300 and len(mock._CORNERS) <= mock.CORNER_ENTRIES


# ------------------------------------------------------------------ caches shared in a process


def _frames(env: gym.Env, seed: int, steps: int):  # type: ignore[no-untyped-def]
    """Screenshots of ``steps`` oracle steps, one at a time (resetting with the next seed when
    an episode ends)."""
    obs, info = env.reset(seed=seed)
    yield obs["screenshot"].tobytes()
    for _ in range(steps):
        ref = info["reference"]
        obs, _, term, trunc, info = env.step(ref[0].action if ref else Type("x"))
        yield obs["screenshot"].tobytes()
        if term or trunc:
            seed += 1
            obs, info = env.reset(seed=seed)
            yield obs["screenshot"].tobytes()


SHARED_CASES = [("GuiGym-Login-v0", {}), ("GuiGym-Login-v0", {}), ("GuiGym-Settings-v0", {"variation": "all"}),
                ("GuiGym-Login-v0", {"variation": "all"}), ("GuiGym-Mail-v0", {"level": "hard"})]


def _fresh_caches(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from guigym.backends import mock

    monkeypatch.setattr(mock, "_CACHES", {})


def _alone(monkeypatch, seed: int, steps: int) -> list[list[bytes]]:  # type: ignore[no-untyped-def]
    """Each case's frames (seed ``seed + k``) with the caches to itself."""
    out = []
    for k, (env_id, kw) in enumerate(SHARED_CASES):
        _fresh_caches(monkeypatch)
        env = gym.make(env_id, **kw)
        out.append(list(_frames(env, seed + k, steps)))
        env.close()
    _fresh_caches(monkeypatch)
    return out


def test_envs_of_a_process_share_the_caches_and_draw_what_they_draw_alone(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Mock envs of one viewport size share their drawing caches; stepped in turn (each hitting
    the others' tiles and texts, and evicting them), each draws exactly what it draws alone."""
    alone = _alone(monkeypatch, 3, 12)
    envs = [gym.make(env_id, **kw) for env_id, kw in SHARED_CASES]
    small = gym.make("GuiGym-Login-v0", viewport=(300, 500))
    try:
        for e in envs:
            e.reset(seed=0)
        small.reset(seed=0)
        caches = {id(e.unwrapped.backend._caches) for e in envs}
        assert len(caches) == 1 and id(small.unwrapped.backend._caches) not in caches  # per viewport size
        gens = [_frames(e, 3 + k, 12) for k, e in enumerate(envs)]
        together: list[list[bytes]] = [[] for _ in envs]
        for _ in range(max(map(len, alone))):  # in turn, one step each
            for k, g in enumerate(gens):
                frame = next(g, None)
                if frame is not None:
                    together[k].append(frame)
        assert together == alone
    finally:
        for e in envs:
            e.close()
        small.close()


def test_mock_envs_in_threads_draw_what_they_draw_alone(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Envs stepped at once from several threads (sharing the process's caches) draw what each
    draws alone: drawing holds the caches' lock."""
    import threading

    want = _alone(monkeypatch, 7, 25)
    got: list[list[bytes] | None] = [None] * len(SHARED_CASES)
    start = threading.Barrier(len(SHARED_CASES))

    def run(k: int) -> None:
        env_id, kw = SHARED_CASES[k]
        env = gym.make(env_id, **kw)
        start.wait()
        got[k] = list(_frames(env, 7 + k, 25))
        env.close()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(SHARED_CASES))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert got == want
