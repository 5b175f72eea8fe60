"""Faults found in an audit of the reward logic, each with the test that found it."""

from __future__ import annotations

import json

import pytest

from guigym.actions import Click, PlanStep, RefStep
from guigym.rewards import TrajectoryReward, UIR1Reward, action_similarity, load_reference, refers_to, step_target, trajectory_reward

SIGNIN = RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click 'Sign in'", label="Sign in")
UNGROUNDED = PlanStep(action_type="click", instruction="Click the 'Foo' button")
CLICK_TEXT = '<think>t</think><answer>[{"action": "click", "instruction": "Click the Sign in button"}]</answer>'


@pytest.mark.parametrize("label", [5, ["Sign in"], {"text": "Sign in"}])
def test_reference_with_a_label_that_is_not_text_is_a_malformed_reference(label: object) -> None:
    """A dataset cell whose step ``label`` is not a string raised ``AttributeError: 'int' object
    has no attribute 'casefold'`` from inside ``TrajectoryReward`` (the label is matched against
    the plan's instructions) in the middle of a rollout; ``load_reference`` checks the box and
    the instruction up front and now the label too, a ``ValueError`` naming the step."""
    cell = dict(SIGNIN.to_dict(), label=label)
    with pytest.raises(ValueError, match="step 1 has label"):
        load_reference(json.dumps([cell]))
    with pytest.raises(ValueError, match="malformed reference"):
        TrajectoryReward(horizon=4)([CLICK_TEXT], reference=[json.dumps([cell])])
    # a label that is text (or none) still loads and scores: the instruction names the label, or
    # (no label) nothing it can be matched with
    for ok, expected in (("Sign in", 1.0), (None, 0.0)):
        ref = json.dumps([dict(SIGNIN.to_dict(), label=ok)])
        assert load_reference(ref)[0].label == ok
        assert TrajectoryReward(horizon=4)([CLICK_TEXT], reference=[ref]) == [expected]
        assert UIR1Reward()(['<think>t</think><answer>[{"action": "click", "coordinate": [20, 20]}]</answer>'], reference=[ref]) == [3.0]


@pytest.mark.parametrize(
    "elements",
    [
        [{"label": "Foo", "box": (100, 100, 150, 130)}],  # no id: KeyError 'id'
        [{"id": "signin", "label": "Sign in", "box": (10, 10, 50, 30)}, "junk"],  # a non-dict entry: AttributeError
        [None, {"id": "foo", "label": "Foo", "box": (100, 100, 150, 130)}],
    ],
)
def test_elements_without_an_id_or_not_dicts_never_crash_the_trajectory_reward(elements: list) -> None:
    """``trajectory_reward(..., elements=...)`` (and ``refers_to`` / ``step_target`` /
    ``action_similarity``) raised ``KeyError: 'id'`` for a visible element without an id and
    ``AttributeError`` for an entry that is not a dict — the TRL adapter's ``load_elements`` drops
    such entries, the functions did not. They are now read the same way: dropped."""
    plan = [UNGROUNDED, UNGROUNDED]
    kept = [e for e in elements if isinstance(e, dict) and "id" in e] or None
    assert trajectory_reward(plan, [SIGNIN], elements=elements) == trajectory_reward(plan, [SIGNIN], elements=kept)
    assert step_target(UNGROUNDED, elements, [SIGNIN]) == step_target(UNGROUNDED, kept, [SIGNIN])
    assert refers_to("Click 'Sign in'", SIGNIN, elements) == refers_to("Click 'Sign in'", SIGNIN, kept)
    step = PlanStep(action_type="click", instruction="Click 'Sign in'")
    assert action_similarity(step, SIGNIN, elements=elements) == action_similarity(step, SIGNIN, elements=kept)


def test_elements_given_as_a_json_string_is_a_type_error_naming_load_elements() -> None:
    """The ``elements`` column holds JSON; passing the cell itself to ``trajectory_reward`` was
    read character by character: an ``AttributeError`` ('str' object has no attribute 'get')
    for some plans and a silent score for others. It is a ``TypeError`` pointing at
    ``load_elements`` for every plan."""
    cell = json.dumps([{"id": "signin", "label": "Sign in", "box": [10, 10, 50, 30]}])
    for plan in ([UNGROUNDED, UNGROUNDED], [Click(200, 200), UNGROUNDED], [PlanStep(action_type="click", instruction="Click 'Sign in'")]):
        with pytest.raises(TypeError, match="load_elements"):
            trajectory_reward(plan, [SIGNIN], elements=cell)


@pytest.mark.parametrize("instruction", [
    "Type 'alice' into the 'Username' field",  # the oracle's form: unchanged
    "In the 'Username' field, type 'alice'",
    "In the 'Enter name' field, write 'alice'",  # a verb inside the field's label does not count
    "Enter 'alice' in the 'Username' field",
])
def test_a_type_steps_text_is_the_quote_after_its_verb(instruction: str) -> None:
    """A type step whose field's label comes first ("In the 'Username' field, type 'alice'")
    typed the label: the executor and the trajectory reward read the first quoted text."""
    from agents.executors import ElementExecutor
    from guigym.actions import PlanStep, Type
    from guigym.grounding import instruction_action

    assert instruction_action("type", instruction) == Type("alice")
    assert ElementExecutor()(None, PlanStep(action_type="type", instruction=instruction)) == Type("alice")
