"""The EasyR1 reward module on canned inputs."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import guigym.rewards.easyr1 as easyr1
from guigym.actions import Click, RefStep, Type
from guigym.rewards import trajectory_reward

REF = [
    RefStep(Click(30, 20), "user", (10, 10, 50, 30), "Click the 'Username' field"),
    RefStep(Type("alice"), "user", (10, 10, 50, 30), "Type 'alice'"),
]
GT = json.dumps([r.to_dict() for r in REF])


def ans(body: str, think: bool = True) -> str:
    return ("<think>go</think>" if think else "") + f"<answer>{body}</answer>"


@pytest.mark.parametrize("response,overall,parts", [
    (ans('[{"action": "click", "coordinate": [20, 20]}]'), 3.0, {"type": 1.0, "argument": 1.0, "format": 1.0}),
    (ans('[{"action": "click", "coordinate": [90, 90]}]'), 2.0, {"type": 1.0, "argument": 0.0, "format": 1.0}),
    (ans('[{"action": "type", "text": "alice"}]'), 1.0, {"type": 0.0, "argument": 0.0, "format": 1.0}),
    (ans('[{"action": "click", "coordinate": [20, 20]}]', think=False), 2.0, {"format": 0.0}),
    ("<answer>[{'action': 'fly'}]</answer>", 0.0, {"format": 0.0}),
    ("", 0.0, {}),
])
def test_uir1_mode(response, overall, parts):
    (out,) = easyr1.compute_score([{"response": response, "ground_truth": GT}])
    assert out["overall"] == overall
    for k, v in parts.items():
        assert out[k] == v


def test_trajectory_mode_matches_trajectory_reward():
    plan = ans('[{"action": "click", "coordinate": [20, 20]}, {"action": "type", "text": "alice"}, {"action": "back"}]')
    (out,) = easyr1.compute_score([{"response": plan, "ground_truth": GT}], mode="trajectory", gamma=0.5)
    expected = trajectory_reward([Click(20, 20), Type("alice"), __import__("guigym").actions.Back()], REF, gamma=0.5)
    assert out["trajectory"] == pytest.approx(expected) == pytest.approx(1 + 0.5 - 0.0)
    assert out["format"] == 1.0
    assert out["overall"] == pytest.approx(1.5 + 1.0)  # trajectory + format
    # unparsable text: the bottom of the trajectory range (T=3: −(0.5 + 0.25)) and no format point
    (bad,) = easyr1.compute_score([{"response": "no plan", "ground_truth": GT}], mode="trajectory", gamma=0.5, horizon=3)
    assert bad == {"overall": pytest.approx(-0.75), "trajectory": pytest.approx(-0.75), "format": 0.0}
    # a terminal state expects `done` in both modes
    done = ans('[{"action": "done"}]')
    (t,) = easyr1.compute_score([{"response": done, "ground_truth": "[]"}], mode="trajectory")
    (u,) = easyr1.compute_score([{"response": done, "ground_truth": "[]"}])
    assert t["overall"] == 2.0 and u["overall"] == 3.0


def test_module_contract_and_bad_mode():
    assert easyr1.REWARD_TYPE == "batch" and easyr1.REWARD_NAME
    with pytest.raises(ValueError, match="unknown mode"):
        easyr1.compute_score([], mode="sequential")
    # EasyR1 loads the file by path, not by package import
    spec = importlib.util.spec_from_file_location("reward_fn", Path(easyr1.__file__))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.compute_score([{"response": "x", "ground_truth": GT}])[0]["overall"] == 0.0


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "1", None, True])
def test_a_format_weight_that_is_no_finite_number_is_a_value_error(bad) -> None:
    """NaN or inf made every ``overall`` NaN (a whole GRPO group's advantages NaN); "1" or None
    a bare TypeError from the sum."""
    with pytest.raises(ValueError, match="format_weight must be a finite number"):
        easyr1.compute_score([{"response": "garbage", "ground_truth": GT}], mode="trajectory", format_weight=bad)
