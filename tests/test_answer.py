"""The Answer action: its text formats, answer matching, how every reward scores it, and what
the envs (whose tasks ask no question yet) do with it."""

from __future__ import annotations

import gymnasium as gym
import pytest

from agents.executors import ElementExecutor
from guigym.action_text import FORMATS, format_action, format_plan, parse_action, parse_plan, parse_trajectory
from guigym.actions import Answer, Back, Click, PlanStep, RefStep, Type, action_from_dict, action_to_dict, checked_action
from guigym.answers import MAX_ANSWER_CHARS, answer_f1, answers_match, canonical_answer
from guigym.events import Event
from guigym.grounding import instruction_action
from guigym.rewards import action_similarity, argument_reward, events_match, trajectory_reward, uir1_reward
from guigym.spaces import action_from_space, action_space
from guigym.apps import FAMILIES
from tests.conftest import IDS, make

#: families whose tasks ask questions (tests/test_contacts.py covers their Answer)
QUESTION_FAMILIES = {name for name, f in FAMILIES.items() if f.asks_questions}

ANSWERS = [Answer("3 pm"), Answer(""), Answer('He said "hi", then left\nok'), Answer("Zürich 中文")]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("a", ANSWERS, ids=repr)
def test_every_format_round_trips(fmt, a):
    assert parse_action(format_action(a, fmt), fmt) == a
    assert parse_trajectory(format_action(a, fmt)) == [a]  # auto-detected
    plan = [PlanStep(action=Click(3, 4)), PlanStep(action=a, instruction="Tell the user")]
    assert parse_plan(format_plan(plan, fmt), fmt) == plan


def test_the_spellings_models_write():
    assert parse_action('answer("42")') == Answer("42")  # positional
    assert parse_action('<answer>[{"action": "answer", "text": "Room B"}]</answer>') == Answer("Room B")
    qwen = '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "answer", "text": "7"}}\n</tool_call>'
    assert parse_action(qwen) == Answer("7")
    ended = qwen + '\n<tool_call>\n{"name": "mobile_use", "arguments": {"action": "terminate", "status": "success"}}\n</tool_call>'
    assert parse_plan(ended) == [PlanStep(action=Answer("7")), PlanStep(action_type="done")]  # terminate still ends a plan
    ungrounded = parse_plan('[{"action": "answer", "instruction": "Answer with the meeting time"}]')
    assert ungrounded == [PlanStep(action_type="answer", instruction="Answer with the meeting time")]


def test_canonical_dict_and_checks():
    assert action_to_dict(Answer("x")) == {"type": "answer", "text": "x"}
    assert action_from_dict({"type": "answer", "text": 5}) == Answer("5")
    with pytest.raises(ValueError, match="Answer text must be a str"):
        checked_action(Answer(None))  # type: ignore[arg-type]


@pytest.mark.parametrize("given,expected", [
    ("Room B", "room b"), ("  room   b. ", "Room B"), ("“Room B”", "Room B"),
    ("1,250", "1250"), ("1 250", 1250), ("1,250,000.5", 1250000.5), ("$ 1,250", 1250), ("40 %", 40),
    ("$12.50", 12.5), ("12.0", 12), ("40%", "40"), ("-3", -3.0),
    ("3 pm", "15:00"), ("3:00 PM", "3 p.m."), ("7:05am", "07:05"), ("12 am", "0:00"),
    ("December 1, 2026", "2026-12-01"), ("Tue, Dec 1st 2026", "1 December 2026"), ("12/01/2026", "2026-12-01"), ("Dec 1", "1 Dec"),
    ("Feb 29", "February 29"), ("Tuesday, February 29th", "2/29"),  # a day without a year: any day the month has
    ("Bob, Alice", ["alice", "bob"]), ("Alice and Bob", ["Bob", "Alice"]), ("a; b; c", ["c", "b", "a"]), ("3, 3 pm", ["15:00", "3"]),
    # a count with its noun or in words; a phone number with other separators (the same digits)
    ("2 events", "2"), ("You have 2 events.", "2"), ("two", "2"), ("Two events", 2), ("zero", "0"), ("twenty", "20"),
    ("zwei Termine", "2"), ("1,250 dollars", 1250),
    ("(402) 555-7199", "402-555-7199"), ("402 555 7199", "402-555-7199"), ("402.555.7199", "402-555-7199"),
    ("4025557199", "402-555-7199"),
])
def test_answers_that_match(given, expected):
    assert answers_match(given, expected)
    assert answer_f1(given, expected) == 1.0


@pytest.mark.parametrize("given,expected", [("15.00", "15:00"), ("15.00", "3 pm"), ("9.30", "9:30 AM"), ("21.45", "9:45 PM")])
def test_a_time_written_with_a_dot_matches_the_time(given, expected):
    """The module docstring: "15.00" is 15:00 like "3 pm" (it read as the number 15 and never
    matched a time); as a number it still matches a price."""
    assert answers_match(given, expected)
    assert answers_match(given, float(given))
    assert not answers_match("15.00", "3:00 AM")


@pytest.mark.parametrize("given,expected", [
    ("Room C", "Room B"), ("1251", "1,250"), ("3 am", "15:00"), ("Dec 2, 2026", "2026-12-01"), ("Dec 1", "2026-12-01"),
    ("Alice", ["Alice", "Bob"]), ("Alice, Bob, Carol", ["Alice", "Bob"]), ("Alice, Alice", ["Alice", "Bob"]), ("", "0"),
    ("Room B" + " " * MAX_ANSWER_CHARS, "Room B"), (None, "None"),
    # a comma or space is a thousands separator only between groups of three digits
    ("1, 2", 12), ("1,2", "12"), ("12,5", 125), ("1,2345", 12345), ("1,250 000", 1250000), ("4 2", 42),
    # a count: another number, two numbers, a word that qualifies it, digits in a word
    ("3 events", "2"), ("three", "2"), ("2 or 3 events", "2"), ("2 events on Dec 1", "2"), ("not 2", "2"),
    ("more than 2", "2"), ("2 thousand", "2"), ("2 pm", "2"), ("2nd", "2"), ("events", "2"), ("twenty-two", "2"),
    # a phone number: other digits, a digit more or less, a number that is not one
    ("(402) 555-7190", "402-555-7199"), ("402 555 719", "402-555-7199"), ("+1 402 555 7199", "402-555-7199"),
    ("Room 402-555-7199", "402-555-7199"),
])
def test_answers_that_do_not_match(given, expected):
    assert not answers_match(given, expected)
    assert 0.0 <= answer_f1(given, expected) < 1.0


def test_canonical_forms_never_raise_on_odd_text():
    for s in ("\x00", "\ud800", "1e999", "9" * 5000, "13:99 pm", "31/31/2026", "0x1f", "∞", "Feb 30, 2026"):
        assert isinstance(canonical_answer(s), str)
        assert isinstance(answers_match(s, s), bool)


class _BrokenStr:
    def __str__(self) -> str:
        raise RuntimeError("no text")


def test_answers_whose_str_fails_never_match_and_never_raise():
    # str() of an int past Python's digit limit raises ValueError: no match, no credit
    for given in (10**5000, _BrokenStr()):
        assert not answers_match(given, "1") and not answers_match(given, ["1"])
        assert answer_f1(given, "1") == 0.0
    assert not answers_match("1", 10**5000) and answer_f1("1", 10**5000) == 0.0
    assert answer_f1("a b", ["a", 10**5000]) == pytest.approx(2 / 3)  # the item that has text still counts


REF = RefStep(Answer("3 pm"), None, None, "Answer '3 pm'", Event("answer", value="15:00"))
LIST_REF = RefStep(Answer("Alice, Bob"), None, None, "Answer 'Alice, Bob'", Event("answer", value=["Alice", "Bob"]))


def test_rewards_score_answers_by_the_match():
    # UI-R1's argument reward: the match, else token F1 of the texts
    assert argument_reward(Answer("15:00"), REF) == 1.0
    assert argument_reward(Answer("Bob and Alice"), LIST_REF) == 1.0
    assert argument_reward(Answer("at 3 pm today"), REF) == pytest.approx(2 * (2 / 4) * 1 / (2 / 4 + 1))
    assert argument_reward(Click(1, 1), REF) == 0.0
    assert uir1_reward('<think>t</think><answer>[{"action": "answer", "text": "3:00 PM"}]</answer>', REF) == 3.0
    # TraceR1's similarity: exact (after the answer normalisation) or token F1 with text="f1"
    assert action_similarity(Answer("3:00 p.m."), REF) == 1.0
    assert action_similarity(Answer("at 3 pm today"), REF) == 0.0
    assert 0.0 < action_similarity(Answer("at 3 pm today"), REF, text="f1") < 1.0
    assert action_similarity(PlanStep(action_type="answer", instruction="Answer '15:00'"), REF) == 1.0
    assert action_similarity(PlanStep(action_type="answer", instruction="Answer '15:00'"), REF, similarity="grounded") == 0.0
    assert trajectory_reward([Back(), Answer("3 pm")], [RefStep(Back(), None, None, "Go back"), REF], gamma=0.5) == 1.5
    # the grounded reward compares events: an answer event states the expected value
    assert events_match(Event("answer", value="3 PM"), REF.event)
    assert not events_match(Event("answer", value="4 PM"), REF.event)
    assert not events_match(Event("answer", value=None), REF.event)
    assert not events_match(Event("input", "x", "3 pm"), REF.event)


def test_ungrounded_answer_steps_are_grounded_from_their_instruction():
    assert instruction_action("answer", "Answer '3 pm'") == Answer("3 pm")
    assert instruction_action("answer", "Reply with: Room B") == Answer("Room B")
    assert instruction_action("answer", "Click the button") is None
    env = make("GuiGym-Login-v0")
    env.reset(seed=0)
    assert ElementExecutor()(env, PlanStep(action_type="answer", instruction='Answer "42"')) == Answer("42")


@pytest.mark.parametrize("env_id", [i for i in IDS if gym.spec(i).kwargs["family"] not in QUESTION_FAMILIES])
def test_envs_without_questions_treat_answer_as_a_no_op(env_id):
    env = make(env_id)
    obs, _ = env.reset(seed=3)
    state = env.unwrapped.get_state()["state"]
    for a in (Answer("done"), 'answer(text="done")'):
        obs2, r, term, trunc, info = env.step(a)
        assert "ask no question" in info["action_error"] and info["event"] is None
        assert (r, term, trunc) == (0.0, False, False)
        assert env.unwrapped.get_state()["state"] == state
        assert (obs2["screenshot"] == obs["screenshot"]).all()
    # their Dict action space has no answer type: index 5 is out of range, and stays a no-op
    assert env.action_space["type"].n == 5
    _, _, _, _, info = env.step({"type": 5, "x": 0, "y": 0, "direction": 0, "app": 0, "text": "x"})
    assert "outside Discrete(5)" in info["action_error"]


def test_action_space_with_answer():
    space = action_space(360, 640, ("Notes",), answer=True)
    assert space["type"].n == 6
    sample = {"type": 5, "x": 0, "y": 0, "direction": 0, "app": 0, "text": "Room B"}
    assert action_from_space(sample, ("Notes",), answer=True) == Answer("Room B")
    with pytest.raises(ValueError, match="outside"):
        action_from_space(sample, ("Notes",))
    assert action_from_space({**sample, "type": 4}, ("Notes",), answer=True) == Type("Room B")
