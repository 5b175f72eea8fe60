"""The mock backend's drawing caches are bounded in bytes (issue 15, item 4), and evicting
never changes a pixel."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import guigym  # noqa: F401
from guigym.actions import Type
from guigym.apps.base import MAX_FIELD_LEN
from guigym.backends.mock import BLEND_CACHE_BYTES, TEXT_CACHE_BYTES, TILE_CACHE_BYTES, _nbytes, _Text


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
        assert b._tile_bytes == sum(_nbytes(t) for _, t in b._tiles.values()) <= TILE_CACHE_BYTES
        assert b._blend_bytes == sum(_nbytes(t) for t in b._blends.values()) <= BLEND_CACHE_BYTES
        assert b._blends  # typed values were drawn through it
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


def _frames_of(env_id: str, variation: str | None, seeds: range) -> list[bytes]:
    """Every screenshot of the oracle's episodes on ``seeds`` (plus a few random steps each)."""
    env = gym.make(env_id, variation=variation, disable_env_checker=True)
    env.action_space.seed(0)
    out = []
    try:
        for seed in seeds:
            obs, info = env.reset(seed=seed)
            out.append(obs["screenshot"].tobytes())
            for _ in range(3):
                obs, *_ = env.step(env.action_space.sample())
                out.append(obs["screenshot"].tobytes())
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                obs, _, term, trunc, info = env.step(info["reference"][0].action)
                out.append(obs["screenshot"].tobytes())
                done = term or trunc
    finally:
        env.close()
    return out


def test_text_blended_onto_a_plain_colour_draws_the_same_pixels(monkeypatch) -> None:
    """A tile's text drawn as a copy of the text pre-blended onto the colour under it
    (``_under`` finds one) gives the bytes of blending it in place: every frame of oracle and
    random episodes, plain and under every variation axis, against the same episodes drawn
    with the shortcut off."""
    from guigym.backends import mock

    calls = {"fast": 0}
    under = mock._under

    def counting(done, t, base):  # type: ignore[no-untyped-def]
        c = under(done, t, base)
        calls["fast"] += c is not None
        return c

    for env_id, variation in (("GuiGym-Settings-v0", None), ("GuiGym-Shop-v0", "all"), ("GuiGym-Mail-v0", "all"),
                              ("GuiGym-Login-v0", "all")):
        monkeypatch.setattr(mock, "_under", counting)
        fast = _frames_of(env_id, variation, range(4))
        monkeypatch.setattr(mock, "_under", lambda done, t, base: None)
        slow = _frames_of(env_id, variation, range(4))
        assert fast == slow, env_id
    assert calls["fast"] > 500  # the shortcut was taken, not bypassed


def test_under_finds_the_one_colour_or_none() -> None:
    """``_under``: the colour under a text box after the regions painted before it."""
    import pygame

    from guigym.backends.mock import _region, _under

    s = pygame.Surface((200, 60), 0, 24)
    bg, btn, edge = (250, 250, 250), (30, 90, 200), (120, 120, 120)
    button = _region({"type": "rect", "box": [10, 10, 100, 40], "color": btn, "radius": 8, "border": 0}, s)
    outline = _region({"type": "rect", "box": [120, 10, 70, 40], "color": edge, "radius": 6, "border": 2}, s)
    assert _under([], (0, 0, 50, 20), bg) == bg
    assert _under([button], (20, 20, 60, 20), bg) == btn  # inside the fill, clear of its corners
    assert _under([button], (11, 11, 20, 20), bg) is None  # over a rounded corner
    assert _under([button], (100, 20, 30, 20), bg) is None  # half on, half off
    assert _under([button], (150, 20, 30, 20), bg) == bg  # elsewhere
    assert _under([outline], (130, 20, 40, 20), bg) == bg  # inside an outline: what was under it
    assert _under([outline], (121, 20, 40, 20), bg) is None  # on the outline
    text = ("box", (20, 20, 60, 20))
    assert _under([button, text], (30, 25, 20, 10), bg) is None  # on another text
    assert _under([("all",), button], (20, 20, 60, 20), bg) == btn  # the fill covers what came before
    assert _under([button, ("all",)], (20, 20, 60, 20), bg) is None
