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
        assert b._tile_bytes == sum(_nbytes(t) for _, t in b._tiles.values()) <= TILE_CACHE_BYTES
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
