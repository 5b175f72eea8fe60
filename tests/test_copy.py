"""``copy.deepcopy(env)`` and ``pickle`` give an independent env that goes on exactly as the
original would (lookahead search, branching rollouts, handing an env to another process); the
renderer is not copied but started anew by the copy (GuiEnv.__getstate__)."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

from guigym.actions import Back, Click
from tests.conftest import IDS, make


def _trace(env, actions) -> list[object]:
    out: list[object] = []
    for a in actions:
        obs, reward, term, trunc, info = env.step(a)
        out.append((obs["screenshot"].tobytes(), obs["instruction"], reward, term, trunc, repr(info["reference"]),
                    info.get("action_error"), json.dumps(env.unwrapped.get_state())))
        if term or trunc:
            break
    return out


def _plan(env, n: int) -> list[object]:
    """The reference's next ``n`` actions from the env's state, then a click off every widget."""
    return [s.action for s in env.unwrapped.reference()[:n]] + [Click(3, 3)]


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
@pytest.mark.parametrize("env_id", IDS)
def test_a_copy_goes_on_as_the_original_and_apart_from_it(env_id, how):
    env = make(env_id, level="hard", variation="all")
    obs, info = env.reset(seed=5)
    for step in info["reference"][:2]:
        obs, *_ = env.step(step.action)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    assert twin.unwrapped is not env.unwrapped and twin.unwrapped.family is env.unwrapped.family  # the registry's
    assert np.array_equal(twin.unwrapped.render(), obs["screenshot"])
    before = json.dumps(env.unwrapped.get_state())
    # the copy wanders off (a Back first): the original does not move
    _trace(twin, [Back(), Click(3, 3)])
    assert json.dumps(env.unwrapped.get_state()) == before
    # a fresh copy of the original steps exactly as the original does, and its next unseeded reset
    # draws the same instance (the random generator is copied too)
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    plan = _plan(env, 40)
    assert _trace(twin, plan) == _trace(env, plan)
    o1, i1 = env.reset()
    o2, i2 = twin.reset()
    assert o1["instruction"] == o2["instruction"] and np.array_equal(o1["screenshot"], o2["screenshot"])
    assert repr(i1["reference"]) == repr(i2["reference"])
    env.close()
    twin.close()


def test_an_env_is_usable_again_after_close():
    """close() gives the renderer back; the next call starts another and shows the same screen."""
    env = make("GuiGym-Contacts-v0", level="medium")
    env.reset(seed=2)
    twin = make("GuiGym-Contacts-v0", level="medium")
    twin.reset(seed=2)
    env.close()
    plan = _plan(twin, 10)
    assert _trace(env, plan) == _trace(twin, plan)
    env.close()
    twin.close()


def test_a_copy_before_reset_needs_a_reset():
    import gymnasium as gym

    twin = copy.deepcopy(make("GuiGym-Login-v0"))
    with pytest.raises(gym.error.ResetNeeded):
        twin.unwrapped.get_state()
    obs, _ = twin.reset(seed=0)
    assert obs["screenshot"].std() > 0


def test_pickle_leaves_the_renderer_and_old_frames_behind():
    env = make("GuiGym-Files-v0", level="hard")
    _, info = env.reset(seed=1)
    for step in info["reference"][:4]:
        env.step(step.action)
    assert len(env.unwrapped._frames) > 1
    twin = pickle.loads(pickle.dumps(env))
    assert twin.unwrapped._backend is None and len(twin.unwrapped._frames) == 0
    twin.step(Click(3, 3))  # starts its own renderer
    assert twin.unwrapped._backend is not None and twin.unwrapped._backend is not env.unwrapped._backend


@pytest.mark.browser
def test_a_browser_env_copy_starts_its_own_chromium():
    env = make("GuiGym-Login-v0", backend="browser", level="medium")
    try:
        _, info = env.reset(seed=3)
        env.step(info["reference"][0].action)
        pids = set(env.unwrapped.backend.chromium_pids())
        twin = copy.deepcopy(env)
        try:
            plan = _plan(env, 10)
            assert _trace(twin, plan) == _trace(env, plan)
            assert pids.isdisjoint(twin.unwrapped.backend.chromium_pids())
        finally:
            twin.close()
    finally:
        env.close()
