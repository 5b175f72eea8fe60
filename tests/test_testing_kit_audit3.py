"""guigym.testing, third audit (a teacher writing a lab, a researcher unit-testing a reward):
the kit catches a reward that ignores the answer format (the right answer in a broken format)
and, when the reward declares it, one that pays any click; a user's own TRL reward function
``(completions, **kwargs) -> list[float]`` is tested as TRL calls it, and a wrong-length or
batch-dependent answer is reported; a first-step reward is not blamed for reading the first
step of a plan whose later step is broken (as ``env.step`` does)."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from guigym.actions import Click, RefStep, parse_plan
from guigym.rewards import UIR1Reward, trajectory_reward
from guigym.testing import (
    RewardUnderTest,
    check_garbage_never_beats_valid,
    check_never_raises,
    check_reference_is_best,
    grounded_reward_adapter,
    library_rewards,
    parses,
    reference_cases,
    run_all_checks,
    to_text,
    trajectory_bounds,
    trl_reward_adapter,
)

N = 25
LOW, HIGH = trajectory_bounds(8)


@pytest.fixture(scope="module")
def login():
    return list(reference_cases("GuiGym-Login-v0", seeds=range(2), detours=1))


@pytest.fixture(scope="module")
def settings_cases():
    return list(reference_cases("GuiGym-Settings-v0", level="medium", seeds=range(2), detours=1))


# ----------------------------------------------------------------------------- a format-blind reward


def regex_reward(text, reference):
    """Broken: reads the first two numbers anywhere in the text, answer format or not."""
    m = re.search(r"(-?\d+)\D+?(-?\d+)", text)
    box = reference[0].box
    if m is None or box is None:
        return 0.0
    x, y = int(m.group(1)), int(m.group(2))
    return 1.0 if box[0] <= x <= box[2] and box[1] <= y <= box[3] else 0.0


def test_garbage_check_catches_a_reward_that_ignores_the_format(login) -> None:
    r = RewardUnderTest("regex", 0.0, 1.0, score_text=regex_reward, plans=False, first_step_only=True)
    with pytest.raises(AssertionError) as e:
        check_garbage_never_beats_valid(r, login, max_examples=60)
    assert re.search(r"check_garbage_never_beats_valid: regex gave unparsable text .* 1\.0, more than 0\.0 for the valid text",
                     str(e.value), re.DOTALL)


def test_a_first_step_reward_may_read_past_a_broken_later_step(settings_cases) -> None:
    """grounded_reward reads the first step as env.step does; a broken second step is not garbage."""
    case = settings_cases[0]
    text = to_text([case.reference[0].action], "function")
    text = text.replace("</answer>", "\nwait(x=1, y=2)</answer>")
    assert not parses(text, "function") and parses(text, "function", max_len=1)
    r = grounded_reward_adapter(fmt="function")
    assert r.score_text(text, case.ref()) == 1.0
    check_garbage_never_beats_valid(r, settings_cases, max_examples=30, shrink=False)


# ----------------------------------------------------------------------------- a reward that pays any click


def any_click(steps, reference):
    return 1.0 if steps and isinstance(steps[0].action, Click) else 0.0


def test_reference_check_catches_any_click_when_misclicks_must_cost(login, settings_cases) -> None:
    lax = RewardUnderTest("any_click", 0.0, 1.0, score_plan=any_click, first_step_only=True)
    run_all_checks(lax, login + settings_cases, max_examples=10)  # "at most the reference": nothing to see
    strict = dataclasses.replace(lax, penalizes_misclicks=True)
    with pytest.raises(AssertionError, match=r"click_outside@0 on widget .* 1\.0, not less than 1\.0 .*penalizes_misclicks=True"):
        check_reference_is_best(strict, login + settings_cases, max_examples=N)


def test_library_rewards_declare_whether_misclicks_cost(login, settings_cases) -> None:
    cases = login + settings_cases
    declared = {r.name: r.penalizes_misclicks for r in library_rewards(include_grounded=True)}
    assert not declared["format_reward"] and not declared["action_type_reward"] and not declared["ActionTypeReward"]
    assert declared["uir1_reward"] and declared["trajectory_reward"] and declared["argument_reward"] and declared["grounded_reward"]
    for r in library_rewards(include_grounded=True):
        check_reference_is_best(r, cases, max_examples=15, shrink=False)


# ----------------------------------------------------------------------------- the user's own TRL reward


def _refs(column):
    return [RefStep.from_dict(d) for d in json.loads(column)]


def trl_good(completions, reference, **kwargs):
    out = []
    for c, ref in zip(completions, reference):
        try:
            steps = parse_plan(c, "json")
        except Exception:  # noqa: BLE001
            out.append(LOW)
            continue
        out.append(trajectory_reward(steps, _refs(ref), horizon=8) if steps else LOW)
    return out


def trl_drops(completions, reference, **kwargs):
    """Broken: leaves out the completions it cannot parse (TRL then pairs scores with the wrong ones)."""
    out = []
    for c, ref in zip(completions, reference):
        try:
            steps = parse_plan(c, "json")
        except Exception:  # noqa: BLE001
            continue
        out.append(trajectory_reward(steps, _refs(ref), horizon=8) if steps else LOW)
    return out


def trl_centred(completions, reference, **kwargs):
    """Broken: centres the scores over the batch (GRPO does that itself, over the group)."""
    s = trl_good(completions, reference)
    return [x - sum(s) / len(s) for x in s]


def test_a_correct_trl_reward_passes_in_every_calling_style(login) -> None:
    def plain(completions, reference):  # no **kwargs: only the columns it names
        return trl_good(completions, reference)

    def chat(completions, reference, **kwargs):
        return trl_good([c[0]["content"] for c in completions], reference)

    def named_column(completions, target, prompts, **kwargs):
        assert len(prompts) == len(completions)
        return trl_good(completions, target)

    for r in (trl_reward_adapter(trl_good, LOW, HIGH), trl_reward_adapter(plain, LOW, HIGH),
              trl_reward_adapter(chat, LOW, HIGH, conversational=True), trl_reward_adapter(named_column, LOW, HIGH, column="target"),
              trl_reward_adapter(UIR1Reward(), 0, 3)):
        run_all_checks(r, login, max_examples=10, shrink=False)
    assert trl_reward_adapter(trl_good).name == "trl_good"


@pytest.mark.parametrize("fn, message", [
    (trl_drops, r"trl_drops returned 1 scores for a batch of 2 completions"),
    (trl_centred, r"trl_centred scored the same completion .* alone but .* in a batch"),
    (lambda completions, **kw: 0.5, r"returned float 0\.5 for a batch of 1 completions"),
    (lambda completions, **kw: "0.5", r"returned str '0\.5' for a batch of 1"),
])
def test_a_broken_trl_reward_is_named_with_its_cause(login, fn, message) -> None:
    with pytest.raises(AssertionError, match=message):
        check_never_raises(trl_reward_adapter(fn, LOW - HIGH, HIGH - LOW), login, max_examples=N)


def test_trl_reward_adapter_passes_extra_columns() -> None:
    seen = {}

    def fn(completions, reference, level, **kwargs):
        seen.update(level=level, n=len(completions))
        return [0.0] * len(completions)

    r = trl_reward_adapter(fn, 0, 1, level="hard")
    assert r.score_text("x", [RefStep(Click(1, 2), "field", (0, 0, 9, 9), "Click the field")]) == 0.0
    assert seen == {"level": ["hard", "hard"], "n": 2}
