"""Regression tests for faults left by earlier audits: action text (indented calls around strings
spanning lines, a leading BOM), the reward adapters' argument checks, ``Event.from_dict`` and
case-folded grounding."""

from __future__ import annotations

import json
from typing import Any

import pytest

from guigym.action_text import ActionParseError, format_action, format_trajectory, parse_action, parse_trajectory
from guigym.actions import Answer, Back, Click, RefStep, Scroll, Type
from guigym.events import Event
from guigym.grounding import instruction_action, match_element, normalize_label, quoted
from guigym.rewards import (
    ActionTypeReward,
    ArgumentReward,
    FormatReward,
    TrajectoryReward,
    UIR1Reward,
    events_match,
    trajectory_reward,
    trajectory_reward_range,
)
from guigym.rewards.easyr1 import compute_score

# ----------------------------------------------------------------- indented calls with strings spanning lines


@pytest.mark.parametrize("text, expected", [
    # the indentation of the second call made the parser strip every line, strings' lines too
    ('click(x=1, y=2)\n  type(text="""  a\n  b  """)', [Click(1, 2), Type("  a\n  b  ")]),
    ('click(x=1, y=2)\r\n  type(text="""  a\r\n  b""")\r\n    back()', [Click(1, 2), Type("  a\n  b"), Back()]),
    ('  back()\n    answer("""x\n   """)', [Back(), Answer("x\n   ")]),
    # a backslash continuation inside a string: the next line's whitespace is text as well
    ('  click(1, 2)\n    type(text="a \\\n   b")', [Click(1, 2), Type("a    b")]),
])
def test_indented_calls_keep_the_whitespace_inside_strings(text: str, expected: list) -> None:
    assert parse_trajectory(text, "function") == expected
    assert parse_trajectory(text) == expected


def test_indented_calls_without_strings_spanning_lines_still_parse() -> None:
    assert parse_trajectory("  click(x=1, y=2)\n    back()\n scroll('down')") == [Click(1, 2), Back(), Scroll("down")]


# ----------------------------------------------------------------- a leading BOM / zero-width character


_GOOD = [Click(12, 30), Type("  hi \ufeff"), Scroll("down", 5, 6), Back()]


@pytest.mark.parametrize("fmt", ["json", "function", "mobile_use"])
@pytest.mark.parametrize("lead", ["\ufeff", "\ufeff \n", " \u200b", "\u2060\xa0"])
def test_a_leading_bom_or_zero_width_character_is_blank(fmt: str, lead: str) -> None:
    for a in _GOOD:
        text = format_action(a, fmt)
        assert parse_action(lead + text) == a
        assert parse_action(lead + text, fmt) == a
        assert parse_action(f"{lead}<think>t</think>{lead}{text}{lead}") == a
    many = format_trajectory(_GOOD, fmt)
    assert parse_trajectory(lead + many) == _GOOD


@pytest.mark.parametrize("text", ["\ufeff", " \ufeff \u200b\n", "<think>t</think>\ufeff"])
def test_only_zero_width_characters_are_an_empty_answer(text: str) -> None:
    with pytest.raises(ActionParseError, match="empty answer"):
        parse_action(text)


# ----------------------------------------------------------------- reward adapters' arguments


def _ref() -> str:
    return json.dumps([RefStep(Click(30, 20), "ok", (10, 10, 50, 30), "Click OK").to_dict()])


@pytest.mark.parametrize("make", [UIR1Reward, ActionTypeReward, ArgumentReward, FormatReward, lambda: TrajectoryReward(horizon=3)])
@pytest.mark.parametrize("completions", [None, "<answer>[]</answer>"])
def test_trl_adapters_name_bad_completions(make: Any, completions: Any) -> None:
    f = make()
    with pytest.raises(TypeError, match=f"{f.__name__}: completions must be a list"):
        f(completions, reference=[_ref()])


def test_easyr1_names_a_bad_reward_input() -> None:
    good = {"response": "<think>t</think><answer>[{\"action\": \"click\", \"coordinate\": [20, 20]}]</answer>",
            "ground_truth": _ref()}
    assert compute_score([good])[0]["overall"] == 3.0
    with pytest.raises(TypeError, match=r"reward_inputs\[1\] must be a dict"):
        compute_score([good, "no dict"])
    with pytest.raises(TypeError, match="reward_inputs must be a list of dicts"):
        compute_score(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("horizon", [-3, -1, 2.5, True, 10_000])
def test_trajectory_reward_range_checks_the_horizon_as_the_reward_does(horizon: Any) -> None:
    with pytest.raises(ValueError, match="horizon must be None or an int"):
        trajectory_reward([Back()], [], horizon=horizon)
    with pytest.raises(ValueError, match="horizon must be None or an int"):
        trajectory_reward_range(horizon)


# ----------------------------------------------------------------- Event.from_dict


@pytest.mark.parametrize("d, says", [
    ({"kind": 3}, "event kind must be one of"),
    ({"kind": "tap"}, "event kind must be one of"),
    ({"kind": "click", "widget": 7}, "event widget must be a str or None"),
])
def test_event_from_dict_checks_kind_and_widget(d: dict, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        Event.from_dict(d)
    assert not events_match(d, d)  # two malformed events matched each other


def test_event_from_dict_reads_what_to_dict_writes() -> None:
    for e in (Event("click", "ok"), Event("answer", None, "3 pm"), Event("back"), Event("page", None, -1)):
        assert Event.from_dict(e.to_dict()) == e
        assert events_match(e.to_dict(), e)


# ----------------------------------------------------------------- case-folded grounding


def test_labels_are_case_folded() -> None:
    assert normalize_label("STRASSE") == normalize_label("Straße") == "strasse"
    els = [{"id": "street", "label": "Straße", "role": "input"}, {"id": "name", "label": "Strasser", "role": "input"}]
    assert match_element("Tippe auf 'STRASSE'", els)["id"] == "street"  # type: ignore[index]
    assert match_element("Click the 'Strasser' field", els)["id"] == "name"  # type: ignore[index]


def test_german_quotes_are_quotes() -> None:
    els = [{"id": "pass", "label": "Passwort", "role": "input"}, {"id": "reset", "label": "Passwort zurücksetzen", "role": "link"}]
    assert quoted("Gib „alice“ in das Feld 'Kontoname' ein") == ["alice", "Kontoname"]
    assert instruction_action("type", "Gib „alice“ in das Feld 'Kontoname' ein") == Type("alice")  # was Type("Kontoname")
    assert match_element("Tippe auf „Passwort“, nicht auf 'Passwort zurücksetzen'", els)["id"] == "pass"  # type: ignore[index]


def test_german_reference_instructions_ground_to_their_targets() -> None:
    """The env's German reference steps (English sentences quoting German labels) ground as before."""
    import gymnasium as gym

    import guigym  # noqa: F401  (registers the ids)

    env = gym.make("GuiGym-Login-v0", variation={"language": "de"}, split="test")
    clicks = 0
    for seed in range(2):
        _, info = env.reset(seed=seed)
        for _ in range(12):
            if not info["reference"]:
                break
            r = info["reference"][0]
            if r.action.type == "click" and r.target:
                clicks += 1
                assert match_element(r.instruction, env.unwrapped.elements())["id"] == r.target  # type: ignore[index]
            elif r.action.type in ("type", "open_app", "answer", "back"):
                assert instruction_action(r.action.type, r.instruction) == r.action
            *_, term, trunc, info = env.step(r.action)
            if term or trunc:
                break
    env.close()
    assert clicks >= 4
