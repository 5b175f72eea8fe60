"""Review of the session 2f329b7..: the VLM plan's first step against env.step's reading of the
text, and GuiVectorEnv's seeds checked as RayVectorEnv's are."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from agents.vlm import parse_plan_output
from guigym.actions import Back, Click, parse_action, parse_plan
from guigym.rewards.grounded import _first_step

SIZE = (1000, 1000)


def _call(name: str, **args: Any) -> str:
    import json

    return "<tool_call>\n" + json.dumps({"name": "mobile_use", "arguments": {"action": name, **args}}) + "\n</tool_call>"


#: tool calls whose second one is malformed, then an <answer> that holds another, well-formed plan
TWO_PLANS = (_call("click", coordinate=[5, 6]) + "\n" + _call("fly") + "\n<answer>" + _call("type", text="hi")
             + _call("system_button", button="Back") + "</answer>")


@pytest.mark.parametrize("fmt", ["mobile_use", None])
def test_a_plan_starts_with_the_step_env_step_executes_when_the_answer_holds_another_plan(fmt: Any) -> None:
    """The whole text's second tool call does not parse, so ``parse_plan(text, max_len=T)`` fell
    back to the ``<answer>`` and returned its plan (Type, Back) with no error: the VLM planner
    executed Type while ``env.step(text)`` executes the Click and stage 2's ``grounded_reward``
    judged the Click. The plan is now cut to the whole text's steps before the malformed one."""
    executed = parse_action(TWO_PLANS, fmt)
    assert executed == Click(5, 6)
    assert parse_plan(TWO_PLANS, fmt, max_len=3)[0].action != executed  # the parser's own fallback (unchanged)
    plan = parse_plan_output(TWO_PLANS, fmt, 3, SIZE, SIZE)
    assert [s.action for s in plan] == [executed]
    judged = _first_step(TWO_PLANS, fmt)
    assert judged is not None and judged.action == executed
    assert plan.error is not None and "plan cut to its first 1 step" in plan.error


def test_a_plan_read_whole_from_its_answer_is_kept_whole() -> None:
    """Text that only the ``<answer>`` holds (prose around it): the env reads that answer too, so
    the plan is the answer's, whole and without error."""
    text = "Let me see. <answer>" + _call("click", coordinate=[5, 6]) + _call("system_button", button="Back") + "</answer> Done."
    plan = parse_plan_output(text, "mobile_use", 3, SIZE, SIZE)
    assert [s.action for s in plan] == [Click(5, 6), Back()] and plan.error is None
    assert parse_action(text, "mobile_use") == Click(5, 6)


@pytest.fixture(scope="module")
def venv() -> Any:
    env = gym.make_vec("GuiGym-Login-v0", num_envs=2)
    yield env
    env.close()


@pytest.mark.parametrize("seed,error", [
    ([5, -1], ValueError), ([5, 1.5], TypeError), ([5, "7"], TypeError), ([5, True], TypeError),
    (np.array([5.0, 6.0]), TypeError), (-1, ValueError),
])
def test_gui_vector_env_refuses_a_bad_seed_before_any_env_resets(venv: Any, seed: Any, error: type) -> None:
    """A negative, float, str or bool seed was sent to the workers: Gymnasium's
    ``gymnasium.error.Error`` (no ``ValueError``) came back after the other envs had reset (with
    their seeds), and a bool became seed 1. Now the caller's ``TypeError``/``ValueError`` before
    anything is sent, as ``RayVectorEnv`` (README: "Both vector envs take the same arguments")."""
    from guigym.vector import GuiVectorEnv

    assert isinstance(venv, GuiVectorEnv)
    venv.reset(seed=[0, 1])
    before = venv.call("get_state")
    with pytest.raises(error):
        venv.reset(seed=seed)
    assert venv.call("get_state") == before  # env 0 was not reset with seed 5
    a = venv.reset(seed=np.array([3, 4]))[0]
    b = venv.reset(seed=3)[0]
    assert all(np.array_equal(a[k], b[k]) for k in a)
