"""Model text that used to become a different action than written, or to end a rollout; and
the plan-act loop on planners and executors that return odd things."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401  (registers the envs)
from agents import ElementExecutor, OraclePlanner, Plan, PlanActAgent, run_episode
from guigym.action_text import FORMATS, ActionParseError, format_action, format_plan, parse_action, parse_plan
from guigym.actions import Back, Click, OpenApp, PlanStep, Scroll, Type
from guigym.answers import answers_match
from guigym.spaces import action_from_space
from tests.conftest import Returns

# A tool call written with Python quotes: json.dumps leaves the quotes alone, so in the function
# format and in a bare JSON answer it stays readable as a (literal) tool call inside the string.
QUOTED_CALL = "<tool_call>{'name': 'mobile_use', 'arguments': {'action': 'system_button', 'button': 'Back'}}</tool_call>"


@pytest.mark.parametrize("fmt", FORMATS)
def test_typing_a_tool_call_stays_a_type_action(fmt: str) -> None:
    """Auto-detection read any text with a "<tool_call>" in it as mobile-use: the function call
    type(text="<tool_call>{'name': …Back…}</tool_call>") became Back(), so did the JSON list."""
    for a in (Type(QUOTED_CALL), OpenApp(QUOTED_CALL)):
        assert parse_action(format_action(a, fmt)) == a
    steps = [PlanStep(Type(QUOTED_CALL), "Type it"), PlanStep(action_type="click", instruction=QUOTED_CALL)]
    assert parse_plan(format_plan(steps, fmt)) == steps


def test_bare_json_typing_a_tool_call_and_prose_before_a_tool_call() -> None:
    bare = json.dumps([{"action": "type", "text": QUOTED_CALL}])
    assert parse_action(bare) == Type(QUOTED_CALL)
    # still mobile-use: prose (not JSON, not calls) before the block, and a block first
    block = '<tool_call>{"name": "mobile_use", "arguments": {"action": "system_button", "button": "Back"}}</tool_call>'
    assert parse_action("I will go back.\n" + block) == Back()
    assert parse_action(block + "\nclick(x=1, y=2)") == Back()


@pytest.mark.parametrize("text,fmt", [
    ('[{"action": "click", "coordinate": [1, 2], "action": "back"}]', "json"),
    ("[{'action': 'click', 'coordinate': [1, 2], 'action': 'back'}]", "json"),  # Python-literal quoting
    ('[{"action": "type", "text": "a", "text": "b"}]', "json"),
    ('<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [1, 2], "action": "swipe"}}</tool_call>',
     "mobile_use"),
    ("<tool_call>{'name': 'mobile_use', 'arguments': {'action': 'open', 'text': 'Clock', 'text': 'Mail'}}</tool_call>", "mobile_use"),
])
def test_a_key_given_twice_is_a_parse_error(text: str, fmt: str) -> None:
    """json and literal_eval keep the last value of a repeated key: {"action": "click", …,
    "action": "back"} was Back(), silently."""
    for f in (fmt, None):
        with pytest.raises(ActionParseError, match="duplicate key"):
            parse_action(text, f)


@pytest.mark.parametrize("text", [
    'click(x=1, y=2, coordinate=[3, 4])',
    '[{"action": "click", "coordinate": [3, 4], "x": 1, "y": 2}]',
    '[{"action": "scroll", "direction": "down", "coordinate": [3, 4], "x": 1, "y": 2}]',
    '[{"action": "open_app", "app_name": "Clock", "name": "Mail"}]',
    'open_app(name="Clock", app="Mail")',
    '<tool_call>{"name": "mobile_use", "arguments": {"action": "open", "text": "Clock", "app_name": "Mail"}}</tool_call>',
    '[{"action": "click", "type": "back", "coordinate": [3, 4]}]',
    '[{"action": "back", "action_type": "done"}]',
])
def test_aliases_that_disagree_are_a_parse_error(text: str) -> None:
    """Two spellings of one field with different values: one of them was taken silently
    (click(x=1, y=2, coordinate=[3, 4]) clicked (3, 4))."""
    with pytest.raises(ActionParseError, match="disagree"):
        parse_action(text)
    with pytest.raises(ActionParseError, match="disagree"):
        parse_plan(text)


@pytest.mark.parametrize("text,action", [
    ('click(x=3, y=4, coordinate=[3, 4])', Click(3, 4)),
    ('[{"action": "click", "coordinate": [3.2, 4], "x": 3, "y": 4}]', Click(3, 4)),  # the same pixel
    ('[{"action": "open_app", "app_name": "Clock", "name": "Clock"}]', OpenApp("Clock")),
    ('[{"action": "input_text", "type": "type", "text": "hi"}]', Type("hi")),
    ('[{"action": "scroll", "direction": "down"}]', Scroll("down")),
])
def test_aliases_that_agree_are_read(text: str, action: object) -> None:
    assert parse_action(text) == action


@pytest.mark.parametrize("env_id", ["GuiGym-Login-v0", "GuiGym-Settings-v0", "GuiGym-CrossApp-v0"])
def test_every_sampled_action_round_trips_through_text(env_id: str) -> None:
    env = gym.make(env_id)
    u = env.unwrapped
    try:
        for seed in range(40):
            env.action_space.seed(seed)
            a = action_from_space(env.action_space.sample(), u.apps, answer=u.family.asks_questions)
            for fmt in FORMATS:
                text = format_action(a, fmt)
                assert parse_action(text, fmt) == a and parse_action(text) == a, (seed, fmt)
    finally:
        env.close()


# ---------------------------------------------------------------------- the plan-act loop


@pytest.fixture(scope="module")
def login():
    env = gym.make("GuiGym-Login-v0")
    yield env
    env.close()


@pytest.mark.parametrize("value,says", [
    (None, "empty plan"),
    (7, "returned a int"),
    ("click(x=1, y=2)", "returned a str"),
    ({"action": "back"}, "returned a dict"),
])
def test_a_planner_returning_no_list_gives_no_op_steps(login, value: object, says: str) -> None:
    """None or an int raised TypeError out of run_episode; a str became one no-op per character."""
    rec = run_episode(login, PlanActAgent(Returns(value)), seed=0, max_steps=3)
    assert rec.steps == 3 and rec.actions == [None] * 3 and not rec.success
    assert all(len(p) == 1 for p in rec.plans)
    assert all(says in (e or "") for e in rec.errors), rec.errors


def test_a_planner_returning_one_step_not_in_a_list(login) -> None:
    _, info = login.reset(seed=0)
    first = info["reference"][0].action
    rec = run_episode(login, PlanActAgent(Returns(PlanStep(first))), seed=0, max_steps=1)
    assert rec.actions == [first] and rec.errors == [None]


def test_jittering_executor_episodes_are_a_function_of_the_seed(login) -> None:
    """PlanActAgent.reset reset the planner only: a jittering executor's clicks depended on
    the episodes run before, so the same seed gave different episodes."""
    agent = PlanActAgent(OraclePlanner(horizon=2, grounded=False), ElementExecutor(jitter=True, seed=0))
    first = run_episode(login, agent, seed=3)
    run_episode(login, agent, seed=4)
    again = run_episode(login, agent, seed=3)
    assert any(isinstance(a, Click) for a in first.actions)
    assert again.actions == first.actions and again.success == first.success
    fresh = PlanActAgent(OraclePlanner(horizon=2, grounded=False), ElementExecutor(jitter=True, seed=0))
    assert run_episode(login, fresh, seed=3).actions == first.actions


def test_numpy_coordinates_are_recorded_as_ints(login) -> None:
    """The env takes numpy integers (a policy's argmax); the record kept them, and the JSON
    line evaluate writes for it raised TypeError after the run."""
    _, info = login.reset(seed=0)
    a = info["reference"][0].action
    assert isinstance(a, Click)
    step = PlanStep(Click(np.int64(a.x), np.int64(a.y)))
    rec = run_episode(login, PlanActAgent(Returns(Plan([step]))), seed=0, max_steps=1)
    assert rec.actions == [a] and rec.errors == [None]
    assert type(rec.actions[0].x) is int
    assert json.loads(json.dumps(rec.to_dict()))["actions"] == [{"type": "click", "x": a.x, "y": a.y}]


@pytest.mark.parametrize("given,expected", [("0", -0.0), ("-0", 0), ("-0.0", "0"), ("0", "-0"), ("$-0.00", 0.0)])
def test_negative_zero_is_the_number_zero(given: str, expected: object) -> None:
    """Numbers are compared as numbers, but -0.0 printed as "n:-0.0": "0" did not match -0.0."""
    assert answers_match(given, expected) and answers_match(str(expected), given)
