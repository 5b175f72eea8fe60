"""Audit of the text <-> action layer (guigym.action_text, guigym.actions, guigym.answers,
guigym.grounding): each test failed before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from guigym.action_text import (
    FORMATS,
    ActionParseError,
    format_action,
    format_plan,
    format_trajectory,
    parse_action,
    parse_plan,
    parse_trajectory,
)
from guigym.actions import Answer, Click, OpenApp, PlanStep, RefStep, Scroll, Type
from guigym.answers import answers_match, canonical_answer
from guigym.grounding import instruction_action, typed_text
from guigym.rewards import format_reward, uir1_reward


# ------------------------------------------------------------ formatting numpy coordinates


@pytest.mark.parametrize("fmt", FORMATS)
def test_format_writes_a_policys_numpy_integers(fmt: str) -> None:
    """``Click(np.int64(3), ...)`` (a policy's argmax; step() and checked_action take it) made
    every formatter raise "Object of type int64 is not JSON serializable"."""
    click, scroll = Click(np.int64(3), np.int32(4)), Scroll("down", np.int64(5), np.int64(6))
    assert parse_action(format_action(click, fmt), fmt) == Click(3, 4)
    assert parse_trajectory(format_trajectory([click, scroll], fmt), fmt) == [Click(3, 4), Scroll("down", 5, 6)]
    assert parse_plan(format_plan([PlanStep(click, "Click 'OK'")], fmt), fmt) == [PlanStep(Click(3, 4), "Click 'OK'")]


def test_format_still_writes_an_invalid_action_as_given() -> None:
    """A recorded episode captions the invalid action it took (viz.annotate): no new error."""
    assert format_action(Click(1.5, 2), "function") == "click(x=1.5, y=2)"


# ------------------------------------------------------------------------------ max_len


@pytest.mark.parametrize("bad", [1.5, "2", [1]])
def test_a_max_len_that_is_no_int_is_a_value_error_naming_it(bad: object) -> None:
    """It was an ActionParseError blaming the (valid) text: "malformed input (TypeError: slice
    indices must be integers …)"."""
    with pytest.raises(ValueError, match="max_len") as e:
        parse_trajectory("back()\nback()", max_len=bad)  # type: ignore[arg-type]
    assert not isinstance(e.value, ActionParseError)
    assert parse_trajectory("back()\nback()", max_len=np.int64(1)) == parse_trajectory("back()", max_len=1)


# ----------------------------------------------------- tags inside typed or answered text


@pytest.mark.parametrize("text", ["</answer>", "<answer>", "</think>", "<think>", "<tool_call>", "</tool_call>", "a</answer>b"])
@pytest.mark.parametrize("cls", [Type, Answer])
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_formatted_action_holding_a_tag_scores_full_and_reads_back(text: str, cls: type, fmt: str) -> None:
    """``format_action(Type("</answer>"), "json")`` wrote the tag as is: the env read the action
    back (it takes the last ``</answer>``) but the rewards cut the answer at the first one and
    scored the exact reference 0 (format reward 0 for any tag inside the answer)."""
    a = cls(text)
    body = format_action(a, fmt)
    completion = "<think>t</think>" + (f"<answer>{body}</answer>" if fmt == "function" else body)
    ref = RefStep(a, "field", (0, 0, 9, 9), "x")
    assert parse_action(body) == parse_action(body, fmt) == parse_action(completion) == a
    assert format_reward(completion, fmt=fmt) == 1.0
    assert uir1_reward(completion, ref, fmt=fmt) == 3.0
    plan = [PlanStep(a, f"Type '{text}'"), PlanStep(action_type="click", instruction=f"Click '{text}'")]
    assert parse_plan(format_plan(plan, fmt), fmt) == plan


# ------------------------------------------------------------------ numbers past a float


@pytest.mark.parametrize("given, expected", [
    ("9007199254740993", "9007199254740992"),  # 2**53 + 1 and 2**53: one float
    ("12345678901234567", "12345678901234568"),
    ("9111111111111111", 9111111111111112),  # a 16-digit number given as an int
    ("1e-400", "0"),  # underflows to 0.0
    ("0.30000000000000001", "0.3"),
    ("You have 9007199254740993 points", "9007199254740992"),  # rule 6 compared floats too
    ("100000000000000000001", 10**20),
])
def test_numbers_that_differ_past_a_floats_precision_do_not_match(given: str, expected: object) -> None:
    assert not answers_match(given, expected)  # type: ignore[arg-type]


@pytest.mark.parametrize("given, expected", [
    ("9007199254740993", "9,007,199,254,740,993.00"), ("9007199254740993", 9007199254740993), ("1e20", 10**20),
    ("$1,250.00", 1250), ("12.50", "$12.5"), ("0.1", 0.1), ("1e-7", "0.0000001"), ("-0", 0), ("2 events", 2),
    ("You have 9007199254740993 points", 9007199254740993), ("two", "2.0"), ("1e-400", "1.0E-400"),
])
def test_equal_numbers_still_match(given: str, expected: object) -> None:
    assert answers_match(given, expected)  # type: ignore[arg-type]


def test_canonical_numbers_keep_their_float_form_where_it_is_exact() -> None:
    assert [canonical_answer(v) for v in ("$1,250.00", 2, 2.5, "1e20", "-0.000")] == ["n:1250.0", "n:2.0", "n:2.5", "n:1e+20", "n:0.0"]
    assert canonical_answer("9007199254740993.0") == canonical_answer(9007199254740993) != canonical_answer(9007199254740992)
    assert not answers_match("1e-" + "9" * 990, "0") and answers_match("1e-" + "9" * 990, "1e-" + "9" * 990)  # no decimal error


# --------------------------------------------------------------- typed text of a Type step


@pytest.mark.parametrize("instruction, typed, action", [
    ("Type alice into the 'Username' field", None, Type("alice")),  # was Type("Username")
    ("Type alice in the 'Username' field", None, Type("alice")),
    ("Type your name in 'Name': 'Bob'", "Bob", Type("Bob")),
    ("Type into the 'Name' field the text 'Bob'", "Bob", Type("Bob")),
    # unchanged
    ("Type 'alice' into the 'Username' field", "alice", Type("alice")),
    ("In the 'Username' field, type 'alice'", "alice", Type("alice")),
    ("Enter 'Bob' in the 'Name' field", "Bob", Type("Bob")),
    ("Type in 'alice'", "alice", Type("alice")),
    ("Type the text 'we're here' into 'Msg'", "we're here", Type("we're here")),
    ("Type hello into the search field", None, Type("hello")),
])
def test_a_quote_the_text_is_typed_into_is_not_the_text(instruction: str, typed: str | None, action: Type) -> None:
    assert typed_text(instruction) == typed
    assert instruction_action("type", instruction) == action


def test_open_app_is_unchanged_by_the_type_fix() -> None:
    assert instruction_action("open_app", "Open the Notes app") == OpenApp("Notes")


# --------------------------------------- the env reads the action the rewards score (step(text))

_CLICK = '[{"action": "click", "coordinate": [12, 30]}]'
_BACK = '[{"action": "back"}]'


@pytest.mark.parametrize("text", [
    f"<think>t</think>I will click it.\n<answer>{_CLICK}</answer>",  # prose before the answer
    f"Sure.<answer>{_CLICK}</answer>",
    f"<answer>{_CLICK}</answer>\n<answer>{_BACK}</answer>",  # a second block: the rewards read the first
    f"The button is at the top.</think>\n<answer>{_CLICK}</answer>",  # <think> written by the chat template
    "hmm " * 3_000 + f"</think><answer>{_CLICK}</answer>",  # ... and a think longer than MAX_TEXT_CHARS
    f"<think>t</think>\n<answer>\n```json\n{_CLICK}\n```\n</answer> Done.",
])
def test_text_the_rewards_score_is_the_action_step_takes(text: str) -> None:
    """These were parse errors (step() a no-op with "could not parse action") while every reward
    read the first answer block and scored its click."""
    ref = RefStep(Click(12, 30), "ok", (10, 28, 14, 32), "Click OK")
    assert uir1_reward(text, ref, require_think=False) >= 2.0  # R_type + R_arg: the rewards read the click
    assert parse_action(text) == parse_action(text, "json") == Click(12, 30)
    assert parse_plan(text) == [PlanStep(Click(12, 30))]


def test_mobile_use_tool_calls_after_a_template_think_are_read() -> None:
    call = format_action(Click(12, 30), "mobile_use")
    text = "I see <tool_call> mentioned. </think>\n" + call  # the prose's <tool_call> is no block
    assert parse_action(text) == parse_action(text, "mobile_use") == Click(12, 30)


@pytest.mark.parametrize("text", [
    "I would click the sign in button.", "<answer>[{\"action\": \"fly\"}]</answer>", f"Sure. {_CLICK}</answer>",
    f"x <think>t</think><answer>{_CLICK}",  # prose, and no closing tag: the rewards read no answer either
])
def test_text_the_rewards_do_not_read_stays_an_error(text: str) -> None:
    with pytest.raises(ActionParseError):
        parse_action(text)


def test_env_step_takes_the_scored_action() -> None:
    from tests.conftest import make

    env = make("GuiGym-Login-v0")
    try:
        _, info = env.reset(seed=2)
        ref = info["reference"][0]
        text = f'<think>t</think>Clicking.\n<answer>[{{"action": "click", "coordinate": [{ref.action.x}, {ref.action.y}]}}]</answer>'
        assert uir1_reward(text, ref) == 2.0  # type and argument right, format wrong (prose)
        *_, info2 = env.step(text)
        assert info2["action_error"] is None and info2["event"] == ref.event
    finally:
        env.close()


def test_an_int_past_a_float_s_range_is_read_as_its_digits_are() -> None:
    """``canonical_answer(10**400)`` raised ``OverflowError`` (``float(value)``), and
    ``answers_match(str(10**400), 10**400)`` was False: both are now the digits' form."""
    from guigym.answers import answers_match, canonical_answer

    assert canonical_answer(10**400) == canonical_answer(str(10**400))
    assert answers_match(str(10**400), 10**400) and not answers_match(str(10**400 + 1), 10**400)
