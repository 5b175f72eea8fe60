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


def test_easyr1_passes_only_its_three_keys_and_the_kwargs() -> None:
    """EasyR1 (hiyouga/EasyR1 verl/workers/reward/function.py) calls
    ``partial(compute_score, **reward_function_kwargs)(reward_inputs)``, each input
    ``{"response", "response_length", "ground_truth"}``: that call works as it is."""
    out = easyr1.compute_score([{"response": ans('[{"action": "click", "coordinate": [20, 20]}]'), "response_length": 12,
                                 "ground_truth": GT}], **{"mode": "trajectory", "gamma": 0.9})
    assert out[0]["format"] == 1.0


@pytest.mark.parametrize("options, named", [
    ({"gama": 0.1}, r"unknown option 'gama' \(did you mean 'gamma'\?\)"),
    ({"lamda_rep": 0.0, "fromat_weight": 0.5}, r"unknown options 'fromat_weight' \(did you mean 'format_weight'\?\), 'lamda_rep'"),
    ({"reward_input": []}, r"unknown option 'reward_input'"),
])
def test_an_unknown_option_is_one_error_naming_it_and_the_accepted_ones(options, named) -> None:
    """``compute_score(inp, mode="trajectory", gama=0.1)`` ran with the default γ = 0.9: its
    ``**_`` swallowed the typo."""
    with pytest.raises(TypeError, match=named) as e:
        easyr1.compute_score([{"response": "x", "ground_truth": GT}], mode="trajectory", **options)
    assert "it takes mode, fmt, strict_args, require_think, gamma, lambda_align, lambda_rep, horizon" in str(e.value)
    assert "reward_inputs" not in easyr1.OPTIONS and "gamma" in easyr1.OPTIONS


@pytest.mark.parametrize("mode", ["uir1", "trajectory"])
def test_an_input_without_ground_truth_or_response_is_an_error_naming_it(mode) -> None:
    """An input with no ``ground_truth`` was read as ``"[]"``, a terminal state, and scored −9.0
    (trajectory mode) with no error; EasyR1 always sends the key."""
    good = {"response": ans('[{"action": "done"}]'), "ground_truth": "[]"}
    assert easyr1.compute_score([good], mode=mode)[0]["format"] == 1.0  # the terminal state itself is fine
    with pytest.raises(ValueError, match=r"reward_inputs\[1\] has no 'ground_truth' key"):
        easyr1.compute_score([good, {"response": good["response"]}], mode=mode)
    with pytest.raises(ValueError, match=r"reward_inputs\[0\] has no 'response' key"):
        easyr1.compute_score([{"ground_truth": GT}], mode=mode)
    with pytest.raises(ValueError, match=r"reward_inputs\[1\]\['ground_truth'\]: malformed reference"):
        easyr1.compute_score([good, {"response": "x", "ground_truth": None}], mode=mode)
    with pytest.raises(TypeError, match=r"reward_inputs\[0\]\['response'\] must be the model's text"):
        easyr1.compute_score([{"response": b"x", "ground_truth": GT}], mode=mode)
    assert easyr1.compute_score([{"response": None, "ground_truth": GT}], mode=mode)[0]["format"] == 0.0  # no completion
