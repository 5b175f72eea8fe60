"""Page recycling (issue 15, item 13): every ``recycle_every`` resets the browser backend opens
a fresh page (new context and renderer process) and closes the old one. It must happen when
said, never inside an episode, and be invisible: observations, rewards and events equal those
of a backend that never recycles. ``python benchmarks/bench_soak.py`` measures the memory.
"""

from __future__ import annotations

import time
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from guigym.backends.browser import RECYCLE_EVERY, BrowserBackend
from guigym.backends.procfs import alive as _running

pytestmark = pytest.mark.browser


def _episode(env: gym.Env, seed: int) -> list[Any]:
    """Everything an agent sees in the oracle's episode from ``seed`` (with one detour)."""
    obs, info = env.reset(seed=seed, options={"level": "medium"})
    seen: list[Any] = [obs["screenshot"].tobytes(), [e["box"].tolist() for e in obs["elements"]]]
    actions = [env.action_space.sample()]  # a detour first (seeded below)
    done = False
    while not done:
        act = actions.pop() if actions else info["reference"][0].action if info["reference"] else None
        if act is None:
            break
        obs, reward, term, trunc, info = env.step(act)
        seen += [obs["screenshot"].tobytes(), reward, term, info["event"], info["action_error"]]
        done = term or trunc
    return seen


def test_recycling_is_invisible_and_happens_every_n_resets() -> None:
    kw = {"backend": "browser", "disable_env_checker": True, "extra_obs": ("elements",)}
    recycled = gym.make("GuiGym-Settings-v0", backend_kwargs={"recycle_every": 3}, **kw)
    plain = gym.make("GuiGym-Settings-v0", backend_kwargs={"recycle_every": 0}, **kw)
    try:
        b = recycled.unwrapped.backend
        renderers, procs = [], None
        for seed in range(10):  # pages serve resets 1-3, 4-6, 7-9, 10: three recycles
            for env in (recycled, plain):
                env.action_space.seed(seed)
            assert _episode(recycled, seed) == _episode(plain, seed), seed
            if seed == 0:
                procs = len(b.chromium_pids())
            renderers.append(b.renderer_pid)
            assert b.recycles == seed // 3
        assert plain.unwrapped.backend.recycles == 0 and b.restarts == 0
        assert len(set(renderers)) == 4 and None not in renderers  # one renderer process per page
        end = time.monotonic() + 5  # old pages close in the background
        while [r for r in set(renderers) if _running(r)] != [b.renderer_pid] and time.monotonic() < end:
            time.sleep(0.05)
        assert [r for r in set(renderers) if _running(r)] == [b.renderer_pid]  # old pages' renderers are gone
        assert len(b.chromium_pids()) == procs  # no process accumulates
    finally:
        recycled.close()
        plain.close()


def test_recycling_never_happens_inside_an_episode() -> None:
    env = gym.make("GuiGym-Settings-v0", backend="browser", disable_env_checker=True, backend_kwargs={"recycle_every": 1})
    try:
        _, info = env.reset(seed=0, options={"level": "hard"})
        b = env.unwrapped.backend
        renderer = b.renderer_pid
        for ref in info["reference"][:5]:
            env.step(ref.action)
            assert (b.renderer_pid, b.recycles) == (renderer, 0)
        t = time.monotonic()
        env.reset(seed=1)
        assert b.recycles == 1 and b.renderer_pid != renderer
        assert time.monotonic() - t < 10
    finally:
        env.close()


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, None])
def test_bad_counts_are_a_clear_error(bad: Any) -> None:
    for name in ("recycle_every", "gc_every"):
        with pytest.raises(ValueError, match=name):
            BrowserBackend(360, 640, **{name: bad})


def test_default_and_numpy_counts() -> None:
    b = BrowserBackend(360, 640, recycle_every=np.int64(7))  # never started: nothing to close
    assert b.recycle_every == 7 and isinstance(b.recycle_every, int)
    assert BrowserBackend(360, 640).recycle_every == RECYCLE_EVERY > 0
