"""Faults found in an audit of the env's contract, each with the test that found it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import guigym  # noqa: F401  (registers the ids)
from guigym.env import GuiEnv


def test_a_reset_whose_renderer_fails_leaves_the_episode_as_it_was() -> None:
    """A reset whose drawing raised (a renderer that died: the browser's relaunch failing) left
    the new scenario, its oracle and an empty history over the old state: ``get_state`` mixed two
    episodes, the instruction was the new task's, and the reference (planned for the new task
    from the old state) was gone. Now the env keeps the episode it had."""
    env = gym.make("GuiGym-Contacts-v0", max_episode_steps=-1)
    _, info = env.reset(seed=0)
    env.step(info["reference"][0].action)
    u = env.unwrapped
    before, ref, instruction = u.get_state(), u.reference(), u.instruction
    backend = u.backend

    def dead(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the renderer died")

    backend.show = dead  # type: ignore[method-assign]
    try:
        with pytest.raises(RuntimeError, match="renderer died"):
            env.reset(seed=1)
    finally:
        del backend.show  # the class's method again
    assert u.get_state() == before
    assert u.instruction == instruction and u.reference() == ref
    _, _, terminated, _, info = env.step(ref[0].action)  # and the episode steps on along its reference
    assert info["action_error"] is None and info["reference"] == ref[1:]
    assert terminated == (len(ref) == 1)


def test_reference_and_observe_before_reset_say_reset_needed() -> None:
    """``reference()`` and ``observe()`` before the first reset raised an ``AttributeError`` from
    inside (``'NoneType' object has no attribute ...``); ``get_state`` and ``render`` say ResetNeeded."""
    env = GuiEnv("Login")
    for call in (env.reference, env.observe, env.get_state, env.render):
        with pytest.raises(gym.error.ResetNeeded):
            call()
    env.reset(seed=0)
    assert env.reference() and env.observe()["instruction"] == env.instruction


@pytest.mark.parametrize("exe", ["", "  ", Path("")])
def test_an_empty_executable_is_refused_at_make(exe: str | Path) -> None:
    """``backend_kwargs={"executable": ""}`` was taken as "not given": the discovered browser ran
    instead of the one the caller meant to name."""
    with pytest.raises(ValueError, match="executable is empty"):
        gym.make("GuiGym-Login-v0", backend="browser", backend_kwargs={"executable": exe})
