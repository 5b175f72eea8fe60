"""Reward functions: hand-computed tables, hypothesis properties, doctests."""

from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from guigym.actions import MAX_STEPS, Back, Click, OpenApp, PlanStep, RefStep, Scroll, Type
from guigym.events import Event
from guigym.grounding import _FILLER, normalize_label
from guigym.rewards import (
    action_similarity,
    action_type_reward,
    argument_reward,
    events_match,
    iou_argument_reward,
    refers_to,
    repetition,
    same_action,
    same_ref_step,
    step_target,
    token_f1,
    trajectory_reward,
    trajectory_reward_range,
    uir1_reward,
)
from guigym.rewards.trl import TrajectoryReward
from tests.conftest import ID_LEVELS, make

# --- fixtures -------------------------------------------------------------------------

USER = RefStep(Click(30, 20), "user", (10, 10, 50, 30), "Click the user field", Event("click", "user"))
TYPE_ALICE = RefStep(Type("alice"), "user", None, "Type 'alice'", Event("input", "user", "alice"))
SIGNIN = RefStep(Click(125, 115), "signin", (100, 100, 150, 130), "Click 'Sign in'", Event("click", "signin"))
WORKED_REF = [USER, TYPE_ALICE, SIGNIN]
WORKED_PRED = [Click(20, 20), Type("alice"), Click(20, 20)]

DOWN = RefStep(Scroll("down"), "list", (0, 50, 359, 599), "Scroll down the list", Event("scroll", "list", 3))
DOWN2 = RefStep(Scroll("down"), "list", (0, 50, 359, 599), "Scroll down the list", Event("scroll", "list", 1))
BACK = RefStep(Back(), None, None, "Go back", Event("back"))
MAIL = RefStep(OpenApp("Mail"), None, None, "Open Mail", Event("open_app", None, "Mail"))
TYPE_AS = RefStep(Type("Alice Smith"), "name", None, "Type 'Alice Smith'", Event("input", "name", "Alice Smith"))
NOBOX_CLICK = RefStep(Click(5, 6), None, None, "Click at (5, 6)")


# --- UI-R1: type and argument ---------------------------------------------------------

@pytest.mark.parametrize(
    "pred, ref, expected",
    [
        (Click(0, 0), USER, 1.0),
        (Click(999, 999), USER, 1.0),  # type only: arguments don't matter
        (Type("x"), USER, 0.0),
        (Scroll("up"), DOWN, 1.0),
        (Back(), BACK, 1.0),
        (OpenApp("x"), MAIL, 1.0),
        (Back(), MAIL, 0.0),
        (PlanStep(action_type="click", instruction="Click the user field"), USER, 1.0),
        (PlanStep(action=Type("a")), TYPE_ALICE, 1.0),
        (PlanStep(action_type="scroll"), USER, 0.0),
        (PlanStep(), USER, 0.0),
        (None, USER, 0.0),
        (USER, USER, 1.0),  # a RefStep as prediction is read as its action
    ],
)
def test_action_type_reward(pred, ref, expected):
    assert action_type_reward(pred, ref) == expected


@pytest.mark.parametrize(
    "pred, ref, strict, expected",
    [
        # Click: point in box, bounds inclusive
        (Click(30, 20), USER, True, 1.0),
        (Click(10, 10), USER, True, 1.0),
        (Click(50, 30), USER, True, 1.0),
        (Click(51, 30), USER, True, 0.0),
        (Click(50, 31), USER, True, 0.0),
        (Click(9, 20), USER, True, 0.0),
        (Click(30, 20), USER, False, 1.0),
        (Click(300, 20), USER, False, 0.0),  # released rule still checks clicks
        (Click(5, 6), NOBOX_CLICK, True, 1.0),  # no box: exact point
        (Click(5, 7), NOBOX_CLICK, True, 0.0),
        # type mismatch: 0 whatever the arguments
        (Type("alice"), USER, True, 0.0),
        (Type("alice"), USER, False, 0.0),
        (Scroll("down"), USER, False, 0.0),
        # Scroll: direction
        (Scroll("down"), DOWN, True, 1.0),
        (Scroll("down", 3, 4), DOWN, True, 1.0),
        (Scroll("up"), DOWN, True, 0.0),
        (Scroll("up"), DOWN, False, 1.0),
        # OpenApp: lower-cased, stripped names
        (OpenApp("Mail"), MAIL, True, 1.0),
        (OpenApp("  mail "), MAIL, True, 1.0),
        (OpenApp("MAIL"), MAIL, True, 1.0),
        (OpenApp("Mails"), MAIL, True, 0.0),
        (OpenApp("Maps"), MAIL, False, 1.0),
        # Type: token F1
        (Type("Alice Smith"), TYPE_AS, True, 1.0),
        (Type("alice   smith"), TYPE_AS, True, 1.0),
        (Type("alice"), TYPE_AS, True, 2 / 3),  # P=1, R=1/2
        (Type("alice smith jr"), TYPE_AS, True, 0.8),  # P=2/3, R=1
        (Type("bob"), TYPE_AS, True, 0.0),
        (Type(""), TYPE_AS, True, 0.0),
        (Type("bob"), TYPE_AS, False, 1.0),
        # Back: always 1
        (Back(), BACK, True, 1.0),
        (Back(), BACK, False, 1.0),
        # plan steps: grounded = its action; ungrounded carries no arguments
        (PlanStep(action=Click(20, 20), instruction="x"), USER, True, 1.0),
        (PlanStep(action_type="click", instruction="Click the user field"), USER, True, 0.0),
        (PlanStep(action_type="back"), BACK, True, 1.0),
        (PlanStep(action_type="type", instruction="Type 'alice'"), TYPE_ALICE, True, 0.0),
        (PlanStep(action_type="type", instruction="Type 'alice'"), TYPE_ALICE, False, 1.0),
        (None, BACK, True, 0.0),
    ],
)
def test_argument_reward(pred, ref, strict, expected):
    assert argument_reward(pred, ref, strict=strict) == pytest.approx(expected)


@pytest.mark.parametrize(
    "a, b, expected",
    [("a b", "a b", 1.0), ("", "", 1.0), ("a", "", 0.0), ("", "a", 0.0), ("A a", "a", 2 / 3), ("a a b", "a b b", 2 / 3)],
)
def test_token_f1(a, b, expected):
    assert token_f1(a, b) == pytest.approx(expected)


# --- events ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "produced, expected, match",
    [
        (Event("click", "ok"), Event("click", "ok"), True),
        (Event("click", "ok"), Event("click", "cancel"), False),
        (Event("click", "ok", 1), Event("click", "ok", 2), True),
        (Event("input", "user", "alice"), Event("input", "user", "alice"), True),
        (Event("input", "user", "Alice"), Event("input", "user", "alice"), False),  # exact
        (Event("input", "pw", "alice"), Event("input", "user", "alice"), False),
        (Event("toggle", "wifi", True), Event("toggle", "wifi", True), True),
        (Event("toggle", "wifi", False), Event("toggle", "wifi", True), False),
        (Event("scroll", "list", 5), Event("scroll", "list", 1), True),
        (Event("scroll", "list", -1), Event("scroll", "list", 1), False),
        (Event("scroll", "list", 0), Event("scroll", "list", 1), False),
        (Event("page", None, 1), Event("page", None, 2), True),
        (Event("open_app", None, "mail"), Event("open_app", None, "Mail"), True),
        (Event("open_app", None, "maps"), Event("open_app", None, "Mail"), False),
        (Event("back"), Event("back"), True),
        (Event("back"), Event("click", None), False),
        (None, Event("back"), False),
        ({"kind": "click", "widget": "ok", "value": None}, Event("click", "ok"), True),
    ],
)
def test_events_match(produced, expected, match):
    assert events_match(produced, expected) is match


# --- TraceR1 stage 1 -------------------------------------------------------------------

@pytest.mark.parametrize(
    "pred, ref, expected",
    [
        (Click(20, 20), USER, 1.0),
        (Click(20, 200), USER, 0.0),
        (Type("alice"), USER, 0.0),
        (Type("alice smith"), TYPE_ALICE, 0.0),  # typed text: 1 only where the app accepts it (exact)
        (Type("alice"), TYPE_ALICE, 1.0),
        (Type("Alice"), TYPE_ALICE, 0.0),
        (Scroll("down"), DOWN, 1.0),
        (Scroll("left"), DOWN, 0.0),
        (OpenApp("mail"), MAIL, 1.0),
        (Back(), BACK, 1.0),
        # abstract (default): an ungrounded step with the right type and target scores
        (PlanStep(action_type="click", instruction="Click the user field"), USER, 1.0),  # = the reference's instruction
        (PlanStep(action_type="click", instruction="Click the password field"), USER, 0.0),
        (PlanStep(action_type="type", instruction="Type 'alice' into the user field"), TYPE_ALICE, 1.0),
        (PlanStep(action_type="type", instruction="Type 'bob'"), TYPE_ALICE, 0.0),
        (PlanStep(action_type="scroll", instruction="Scroll down the list"), DOWN, 1.0),
        (PlanStep(action_type="scroll", instruction="Scroll up"), DOWN, 0.0),
        (PlanStep(action_type="open_app", instruction="Open the Mail app"), MAIL, 1.0),
        (PlanStep(action_type="done"), USER, 0.0),
        (None, USER, 0.0),
    ],
)
def test_action_similarity(pred, ref, expected):
    assert action_similarity(pred, ref) == pytest.approx(expected)


LABELLED = RefStep(Click(125, 115), "signin", (100, 100, 150, 130), "Click the 'Sign in' button", Event("click", "signin"), "Sign in")
ELEMENTS = [
    {"id": "user", "label": "Username", "role": "input", "box": (10, 10, 50, 30)},
    {"id": "forgot", "label": "Forgot password?", "role": "link", "box": (100, 60, 150, 80)},
    {"id": "signin", "label": "Sign in", "role": "button", "box": (100, 100, 150, 130)},
]


@pytest.mark.parametrize(
    "instruction, elements, expected",
    [
        ("Click the 'Sign in' button", None, 1.0),
        ("tap sign in", None, 1.0),  # the label, not the reference's wording
        ("Click the 'Forgot password?' link", None, 0.0),
        ("Click the 'Sign in' button", ELEMENTS, 1.0),
        ("press the Sign in button", ELEMENTS, 1.0),
        ("Click 'Forgot password?'", ELEMENTS, 0.0),  # another visible element wins
        ("Click the 'Username' field", ELEMENTS, 0.0),
    ],
)
def test_abstract_similarity_ungrounded_clicks(instruction, elements, expected):
    """Hand-computed: an ungrounded step with the right type and target scores 1 under the
    abstract similarity (TraceR1 stage 1), 0 under the grounded one."""
    step = PlanStep(action_type="click", instruction=instruction)
    assert action_similarity(step, LABELLED, elements=elements) == expected
    assert action_similarity(step, LABELLED, similarity="grounded", elements=elements) == 0.0
    # a grounded step is judged by its point in both modes
    assert action_similarity(Click(120, 110), LABELLED, similarity="abstract") == 1.0
    assert action_similarity(Click(120, 70), LABELLED, similarity="grounded") == 0.0


def test_typed_text_rules():
    """``text="exact"`` (default): 1 only for the exact value; ``"f1"``: token-F1 partial credit."""
    assert action_similarity(Type("Alice Smith"), TYPE_AS) == 1.0
    assert action_similarity(Type("alice smith"), TYPE_AS) == 0.0
    assert action_similarity(Type("Alice"), TYPE_AS, text="f1") == pytest.approx(2 / 3)
    assert action_similarity(Type("alice smith"), TYPE_AS, text="f1") == 1.0
    with pytest.raises(ValueError):
        action_similarity(Type("a"), TYPE_AS, text="fuzzy")
    with pytest.raises(ValueError):
        action_similarity(Type("a"), TYPE_AS, similarity="loose")


@pytest.mark.parametrize(
    "a, b, radius, expected",
    [
        (Click(20, 20), Click(20, 20), 8, True),
        (Click(20, 20), Click(28, 20), 8, True),  # exactly radius
        (Click(20, 20), Click(26, 26), 8, False),  # 8.49 px
        (Click(20, 20), Click(26, 26), 9, True),
        (Click(20, 20), Click(21, 20), 0, False),
        (Click(20, 20), Type("x"), 8, False),
        (Scroll("down"), Scroll("down"), 8, True),
        (Scroll("down"), Scroll("down", 5, 5), 8, True),
        (Scroll("down", 0, 0), Scroll("down", 100, 100), 8, True),  # no element list: one container
        (Scroll("down"), Scroll("up"), 8, False),
        (OpenApp("Mail"), OpenApp(" mail"), 8, True),
        (OpenApp("Mail"), OpenApp("Maps"), 8, False),
        (Type("Alice"), Type("alice"), 8, False),  # different values
        (Type("alice"), Type("bob"), 8, False),
        (Back(), Back(), 8, True),
        (Back(), PlanStep(action_type="back"), 8, True),
        (PlanStep(action_type="click", instruction="Click OK"), PlanStep(action_type="click", instruction="click  ok"), 8, True),
        (PlanStep(action_type="click", instruction="Click OK"), PlanStep(action_type="click", instruction="Click Cancel"), 8, False),
        (PlanStep(action_type="click", instruction="Click OK"), Click(1, 1), 8, False),
        (None, None, 8, False),
    ],
)
def test_same_action(a, b, radius, expected):
    assert same_action(a, b, radius) is expected
    assert same_action(b, a, radius) is expected


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (DOWN, DOWN2, True),  # both "scroll down the list", different row counts
        (DOWN, RefStep(Scroll("up"), "list", DOWN.box, "Scroll up", Event("scroll", "list", -2)), False),
        (BACK, BACK, True),
        (USER, SIGNIN, False),
        (USER, TYPE_ALICE, False),  # same target, different type
        (TYPE_ALICE, RefStep(Type("bob"), "user", None, "Type 'bob'", Event("input", "user", "bob")), False),
        # without events: box + non-positional arguments
        (RefStep(Click(1, 1), "a", (0, 0, 9, 9), ""), RefStep(Click(5, 5), "a", (0, 0, 9, 9), ""), True),
        (RefStep(Click(1, 1), "a", (0, 0, 9, 9), ""), RefStep(Click(1, 1), "a", (0, 0, 9, 10), ""), False),
        (RefStep(Scroll("down"), "l", None, ""), RefStep(Scroll("down"), "l", None, ""), True),
        (RefStep(Scroll("down"), "l", None, ""), RefStep(Scroll("up"), "l", None, ""), False),
        (RefStep(Click(1, 1), "a", (0, 0, 9, 9), ""), RefStep(Click(1, 1), "a", (0, 0, 9, 9), "", Event("click", "a")), False),
    ],
)
def test_same_ref_step(a, b, expected):
    assert same_ref_step(a, b) is expected
    assert same_ref_step(b, a) is expected


@pytest.mark.parametrize(
    "pred, ref, t, expected",
    [
        (WORKED_PRED, WORKED_REF, 0, 0.0),
        (WORKED_PRED, WORKED_REF, 1, 0.0),
        (WORKED_PRED, WORKED_REF, 2, 1.0),  # click (20,20) again while the reference moves on
        # the reference scrolls twice: a justified repeat
        ([Scroll("down"), Scroll("down")], [DOWN, DOWN2], 1, 0.0),
        ([Scroll("down"), Scroll("down")], [DOWN, SIGNIN], 1, 1.0),
        # a step beyond the end of the reference is never justified
        ([Scroll("down"), Scroll("down"), Scroll("down")], [DOWN, DOWN2], 2, 1.0),
        ([Back(), Back()], [BACK], 1, 1.0),
        ([Back(), Back()], [], 1, 1.0),
        ([Back(), Back()], [BACK, BACK], 1, 0.0),
        # not a repeat at all
        ([Click(20, 20), Click(40, 20)], [USER, USER], 1, 0.0),
        ([Click(20, 20), Click(27, 20)], [USER, SIGNIN], 1, 1.0),  # within 8 px
        # repeats an earlier step, not only the previous one
        ([Click(20, 20), Type("alice"), Click(22, 22)], WORKED_REF, 2, 1.0),
        # justified w.r.t. one earlier step, unjustified w.r.t. another: penalised
        ([Scroll("down"), Scroll("down"), Scroll("down")], [DOWN, SIGNIN, DOWN2], 2, 1.0),
        ([Scroll("down"), Click(125, 115), Scroll("down")], [DOWN, SIGNIN, DOWN2], 2, 0.0),
        # ungrounded plan steps repeat by instruction
        ([PlanStep(action_type="click", instruction="Click OK")] * 2, [USER, SIGNIN], 1, 1.0),
        # where the reference repeats a step, only that step is free: any other repeat is not
        ([Back(), Back()], [DOWN, DOWN2], 1, 1.0),
        ([Scroll("up"), Scroll("up")], [DOWN, DOWN2], 1, 1.0),
        ([Back(), Back(), Back()], [DOWN, DOWN2, DOWN], 2, 1.0),
    ],
)
def test_repetition(pred, ref, t, expected):
    assert repetition(pred, ref, t) == expected


def test_repetition_radius_and_bounds():
    pred = [Click(200, 300), Click(210, 300)]  # on no known element: the radius decides
    assert repetition(pred, [USER, SIGNIN], 1) == 0.0
    assert repetition(pred, [USER, SIGNIN], 1, radius=10) == 1.0
    with pytest.raises(IndexError):
        repetition(pred, [USER], 2)


def test_same_element_clicks_at_different_points_are_repetition():
    """The paper's hacking mode: clicking one wide field at two grid cells. Hand-computed:
    (12, 12) and (48, 28) are 41 px apart but both in the user field's box (10, 10, 50, 30)."""
    pred = [Click(12, 12), Click(48, 28)]
    assert same_action(pred[0], pred[1]) is False  # no element known: 41 px > 8 px
    assert same_action(pred[0], pred[1], ref=[USER]) is True  # the reference's box is the user field
    assert repetition(pred, [USER, SIGNIN], 1) == 1.0
    assert same_action(pred[0], pred[1], elements=ELEMENTS) is True
    assert same_action(Click(12, 12), Click(120, 110), elements=ELEMENTS) is False
    # R = 1 (in box) + 0.9·(0 − 1) = 0.1 for the same-element repeat, 1 + 0.9 for the right plan
    assert trajectory_reward(pred, [USER, SIGNIN]) == pytest.approx(0.1)
    assert trajectory_reward([Click(12, 12), Click(120, 110)], [USER, SIGNIN]) == pytest.approx(1.9)
    # ungrounded steps naming the same element repeat too
    a, b = PlanStep(action_type="click", instruction="Click 'Sign in'"), PlanStep(action_type="click", instruction="press sign in")
    assert same_action(a, b, elements=ELEMENTS) is True


G = 0.9


@pytest.mark.parametrize(
    "pred, ref, kwargs, expected",
    [
        # the worked example: 1 + 0.9 − 0.81
        (WORKED_PRED, WORKED_REF, {}, 1.09),
        (WORKED_PRED, WORKED_REF, {"lambda_rep": 0.0}, 1.9),
        (WORKED_PRED, WORKED_REF, {"lambda_align": 2.0, "lambda_rep": 0.5}, 2 + 1.8 - 0.405),
        (WORKED_PRED, WORKED_REF, {"gamma": 1.0}, 1.0),
        (WORKED_PRED, WORKED_REF, {"gamma": 0.0}, 1.0),
        (WORKED_PRED, WORKED_REF, {"horizon": 2}, 1.9),
        (WORKED_PRED, WORKED_REF, {"horizon": 0}, 0.0),
        (WORKED_PRED, WORKED_REF, {"radius": 0.5}, 1.09),  # same point: still a repeat
        # perfect prediction
        ([Click(30, 20), Type("alice"), Click(125, 115)], WORKED_REF, {}, 1 + G + G**2),
        # empty prediction / empty reference
        ([], WORKED_REF, {}, 0.0),
        ([], [], {}, 0.0),
        ([Back()], [], {}, 0.0),
        ([Back(), Back()], [], {}, -G),
        # shorter than the reference: only predicted steps count
        ([Click(30, 20)], WORKED_REF, {}, 1.0),
        ([Click(30, 20), Type("alice smith")], WORKED_REF, {}, 1.0),  # exact text rule
        ([Click(30, 20), Type("alice smith")], WORKED_REF, {"text": "f1"}, 1 + G * 2 / 3),
        # longer than the reference: sim 0 beyond the end, repeats penalised there
        ([Click(30, 20), Type("alice"), Click(125, 115), Click(125, 115)], WORKED_REF, {}, 1 + G + G**2 - G**3),
        ([Click(30, 20), Type("alice"), Click(125, 115), Back()], WORKED_REF, {}, 1 + G + G**2),
        # farming reward by repeating: penalised at every repeat
        ([Click(30, 20)] * 3, [USER, TYPE_ALICE, SIGNIN], {}, 1 - G - G**2),
        # the reference scrolls twice: so may the prediction
        ([Scroll("down"), Scroll("down"), Click(125, 115)], [DOWN, DOWN2, SIGNIN], {}, 1 + G + G**2),
        # type mismatch everywhere
        ([Back(), OpenApp("Mail")], WORKED_REF, {}, 0.0),
        # plan steps: grounded ones use their action; ungrounded ones their instruction (abstract)
        ([PlanStep(action=Click(30, 20)), PlanStep(action_type="type", instruction="Type alice")], WORKED_REF, {}, 1 + G),
        (
            [PlanStep(action=Click(30, 20)), PlanStep(action_type="type", instruction="Type alice")],
            WORKED_REF, {"similarity": "grounded"}, 1.0,
        ),
        # plans may stop: `done` scores 1 exactly where the reference ends, nothing after it counts
        ([Click(30, 20), Type("alice"), Click(125, 115), PlanStep(action_type="done")], WORKED_REF, {}, 1 + G + G**2 + G**3),
        ([Click(30, 20), PlanStep(action_type="done"), Back(), Back()], WORKED_REF, {}, 1.0),
        ([PlanStep(action_type="done")], [], {}, 1.0),  # terminal state: stopping is right
        ([Back(), PlanStep(action_type="done")], [], {}, 0.0),
        ([PlanStep(action_type="done"), Back()], [BACK], {}, 0.0),
    ],
)
def test_trajectory_reward(pred, ref, kwargs, expected):
    assert trajectory_reward(pred, ref, **kwargs) == pytest.approx(expected)


def test_trajectory_reward_rejects_bad_hyperparameters():
    with pytest.raises(ValueError):
        trajectory_reward([Back()], [BACK], gamma=1.5)
    with pytest.raises(ValueError):
        trajectory_reward([Back()], [BACK], gamma=-0.1)
    with pytest.raises(ValueError):
        trajectory_reward([Back()], [BACK], horizon=-1)


@pytest.mark.parametrize(
    "kwargs",
    [{"lambda_align": math.nan}, {"lambda_rep": math.inf}, {"radius": math.nan}, {"gamma": math.nan}, {"gamma": "0.9"},
     {"horizon": 2.5}, {"horizon": True}, {"horizon": "3"}],
)
def test_trajectory_reward_rejects_non_finite_weights_and_non_integer_horizons(kwargs):
    """A NaN weight made every reward NaN (and a GRPO group's advantages with it); a float
    horizon failed inside ``itertools.islice``/``range`` with a message about neither."""
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        trajectory_reward([Back()], [BACK], **kwargs)
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        TrajectoryReward(**kwargs)
    # numpy scalars (a config read into an array, a policy's argmax) are numbers like any other
    assert trajectory_reward([Back(), Back()], [BACK], gamma=np.float64(0.5), horizon=np.int64(1)) == 1.0


def test_trajectory_adapter_rejects_a_nan_invalid_reward():
    with pytest.raises(ValueError, match="invalid_reward"):
        TrajectoryReward(invalid_reward=math.nan)


@pytest.mark.parametrize(
    "call",
    [
        lambda: action_similarity(Back(), BACK.to_dict()),
        lambda: action_type_reward(Back(), BACK.to_dict()),
        lambda: argument_reward(Click(20, 20), [USER]),
        lambda: iou_argument_reward(Click(20, 20), USER.to_dict()),
        lambda: uir1_reward("<think>t</think><answer>not an action</answer>", USER.to_dict()),
        lambda: trajectory_reward([Back(), Back()], [BACK, None]),
        lambda: trajectory_reward([Back()], [BACK.to_dict()]),
    ],
)
def test_a_reference_step_that_is_not_a_refstep_is_a_type_error(call):
    """The dict form or a ``None`` step used to fail as an ``AttributeError`` deep inside (or,
    for text that does not parse, to score 0 silently)."""
    with pytest.raises(TypeError, match="RefStep"):
        call()


def test_a_repeated_scroll_is_a_repeat_whatever_its_point_and_the_elements():
    """The first step's scroll took the element under its point (from ``elements``, read for
    step 0 only) as its container, so it never equalled a later scroll: with an elements column
    a plan could scroll twice where the reference scrolls once and go unpenalised (TraceR1's
    λ_rep: no repeating an action to farm reward)."""
    down = RefStep(Scroll("down", 180, 300), "body", (0, 100, 359, 600), "Scroll down", Event("scroll", "body", 3))
    item9 = RefStep(Click(50, 450), "item9", (0, 430, 359, 470), "Click 'Item 9'", Event("click", "item9"), label="Item 9")
    els = [{"id": "item3", "box": (0, 280, 359, 320), "label": "Item 3", "role": "button"}]
    pred = [Scroll("down", 180, 300), Scroll("down", 180, 300)]
    for elements in (None, els):
        assert repetition(pred, [down, item9], 1, elements=elements) == 1.0
        assert trajectory_reward(pred, [down, item9], gamma=0.9, elements=elements) == pytest.approx(1 - 0.9)
        # where the reference scrolls twice too, the repeat is free
        assert trajectory_reward(pred, [down, down, item9], gamma=0.9, elements=elements) == pytest.approx(1.9)
    assert step_target(Scroll("down", 180, 300), els) == step_target(Scroll("down")) != step_target(Scroll("up", 180, 300), els)


# --- properties -----------------------------------------------------------------------

coord = st.integers(0, 80)
actions = st.one_of(
    st.builds(Click, coord, coord),
    st.builds(Scroll, st.sampled_from(["up", "down", "left", "right"])),
    st.just(Back()),
    st.builds(OpenApp, st.sampled_from(["Mail", "mail", "Maps"])),
    st.builds(Type, st.sampled_from(["alice", "alice smith", "bob", ""])),
)
plan_steps = st.one_of(
    actions,
    st.builds(PlanStep, action=actions),
    st.builds(PlanStep, action_type=st.sampled_from(["click", "type", "back"]), instruction=st.sampled_from(["a", "b"])),
    st.just(PlanStep(action_type="done")),
)


def _ref_of(a):
    if isinstance(a, Click):
        box = (max(a.x - 5, 0), max(a.y - 5, 0), a.x + 5, a.y + 5)
        return RefStep(a, f"w{a.x // 10}_{a.y // 10}", box, "click", Event("click", f"w{a.x // 10}_{a.y // 10}"))
    if isinstance(a, Scroll):
        return RefStep(a, "list", None, "scroll", Event("scroll", "list", 1 if a.direction == "down" else -1))
    if isinstance(a, Type):
        return RefStep(a, "field", None, "type", Event("input", "field", a.text))
    if isinstance(a, OpenApp):
        return RefStep(a, None, None, "open", Event("open_app", None, a.name))
    return RefStep(a, None, None, "back", Event("back"))


refs = st.lists(actions.map(_ref_of), max_size=6)
preds = st.lists(plan_steps, max_size=8)
gammas = st.floats(0.0, 1.0)
lambdas = st.floats(0.0, 3.0)


@given(preds, refs, gammas, lambdas, lambdas, st.one_of(st.none(), st.integers(0, 8)))
def test_trajectory_reward_bounds(pred, ref, gamma, la, lr, horizon):
    r = trajectory_reward(pred, ref, gamma=gamma, lambda_align=la, lambda_rep=lr, horizon=horizon)
    T = len(pred) if horizon is None else min(len(pred), horizon)
    disc = [gamma**t for t in range(T)]
    assert -lr * sum(disc[1:]) - 1e-9 <= r <= la * sum(disc) + 1e-9
    low, high = trajectory_reward_range(T, gamma, la, lr)
    assert low - 1e-6 <= r <= high + 1e-6


def test_trajectory_reward_range_hand_computed():
    assert trajectory_reward_range(5, 0.9) == pytest.approx((-3.0951, 4.0951))
    assert trajectory_reward_range(3, 1.0, 2.0, 0.5) == pytest.approx((-1.0, 6.0))
    assert trajectory_reward_range(None, 0.5) == pytest.approx((-1.0, 2.0))
    # without a horizon the reward scores at most MAX_STEPS steps: bounded, and its range too
    # (gamma = 1 raised "unbounded", and the infinite sum's bottom was below the worst score)
    low, high = trajectory_reward_range(None, 1.0)
    assert (low, high) == (-(MAX_STEPS - 1), MAX_STEPS)
    assert trajectory_reward([Back()] * 1000, [], gamma=1.0) == low
    assert trajectory_reward([Back()] * 1000, [], gamma=0.9) == trajectory_reward_range(None, 0.9)[0]


@given(preds, refs, gammas, gammas)
def test_trajectory_reward_gamma_monotone_without_penalty(pred, ref, g1, g2):
    lo, hi = sorted((g1, g2))
    assert trajectory_reward(pred, ref, gamma=lo, lambda_rep=0) <= trajectory_reward(pred, ref, gamma=hi, lambda_rep=0) + 1e-9


@given(refs.filter(bool), gammas, st.integers(0, 5))
def test_later_mistakes_cost_less(ref, gamma, k):
    """Replacing step t of a perfect prediction by a wrong step costs γ^t — less the later."""
    perfect = [r.action for r in ref]
    wrong = Back() if not isinstance(perfect[0], Back) else Click(999, 999)
    costs = []
    for t in range(len(ref)):
        if isinstance(perfect[t], Back) or same_action(perfect[t], wrong):
            continue
        p = perfect[:t] + [wrong] + perfect[t + 1 :]
        costs.append((t, trajectory_reward(perfect, ref, gamma=gamma, lambda_rep=0) - trajectory_reward(p, ref, gamma=gamma, lambda_rep=0)))
    for (t1, c1), (t2, c2) in zip(costs, costs[1:]):
        assert c2 <= c1 + 1e-9


@given(preds, refs, gammas, lambdas)
def test_lambda_rep_zero_ignores_repeats(pred, ref, gamma, la):
    pred = [p for p in pred if not (isinstance(p, PlanStep) and p.done)]  # `done` has its own rule (tested above)
    expected = sum(gamma**t * la * (action_similarity(p, ref[t]) if t < len(ref) else 0.0) for t, p in enumerate(pred))
    assert trajectory_reward(pred, ref, gamma=gamma, lambda_align=la, lambda_rep=0) == pytest.approx(expected)
    # doubling every step adds repeats but no penalty
    doubled = [p for p in pred for _ in (0, 1)]
    ref2 = [r for r in ref for _ in (0, 1)]
    expected2 = sum(gamma**t * la * (action_similarity(p, ref2[t]) if t < len(ref2) else 0.0) for t, p in enumerate(doubled))
    assert trajectory_reward(doubled, ref2, gamma=gamma, lambda_align=la, lambda_rep=0) == pytest.approx(expected2)


@given(preds, refs)
def test_repetition_is_binary_and_first_step_free(pred, ref):
    reps = [repetition(pred, ref, t) for t in range(len(pred))]
    assert set(reps) <= {0.0, 1.0}
    if reps:
        assert reps[0] == 0.0


@given(plan_steps, actions.map(_ref_of))
def test_similarity_in_unit_interval(p, r):
    s = action_similarity(p, r)
    assert 0.0 <= s <= 1.0
    assert s <= action_type_reward(p, r)
    assert argument_reward(p, r, strict=True) <= argument_reward(p, r, strict=False)


@given(actions)
def test_perfect_action_scores_one(a):
    assert action_similarity(a, _ref_of(a)) == 1.0


# --- doctests -------------------------------------------------------------------------

@pytest.mark.parametrize(
    "module",
    [
        "guigym.rewards", "guigym.rewards._common", "guigym.rewards.uir1", "guigym.rewards.tracer1", "guigym.rewards.grounded",
        "guigym.rewards.trl", "guigym.rewards.easyr1",
    ],
)
def test_doctests(module):
    mod = importlib.import_module(module)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {module}"
    if module != "guigym.rewards":
        assert result.attempted > 0, f"no doctest in {module}"


# --- the reference's own plan scores the top, on every env ----------------------------


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_the_references_own_plan_scores_the_top(env_id, level):
    """Grounded (its actions) or ungrounded (its instructions), with or without the visible
    elements of the first screen, then ``done``: every step aligned, none a repeat. (Clicks at
    one spot of two screens, or one text typed into two fields, used to count as repeats, and
    the first screen's elements used to judge later screens' instructions.)"""
    env = make(env_id, level=level)
    for seed in range(3):
        _, info = env.reset(seed=seed)
        ref = info["reference"]
        top = trajectory_reward_range(len(ref) + 1)[1]
        plans = {
            "grounded": [r.action for r in ref],
            "ungrounded": [PlanStep(action_type=r.action.type, instruction=r.instruction) for r in ref],
        }
        for name, plan in plans.items():
            for elements in (None, info["elements"]):
                got = trajectory_reward([*plan, PlanStep(action_type="done")], ref, elements=elements)
                assert got == pytest.approx(top), (seed, name, elements is not None)
    env.close()


def test_repeating_a_wrong_step_where_the_reference_repeats_is_penalised_on_a_real_reference():
    """Mail medium, seed 5: the reference scrolls twice, then answers. A plan pressing Back
    three times repeats at steps 2 and 3 (it was free at step 2, where the reference
    repeats its scroll: the exemption looked at the reference only)."""
    env = make("GuiGym-Mail-v0")
    _, info = env.reset(seed=5, options={"level": "medium"})
    ref = info["reference"]
    env.close()
    assert [r.action.type for r in ref[:2]] == ["scroll", "scroll"] and same_ref_step(ref[0], ref[1])
    backs = [Back()] * 3
    assert [repetition(backs, ref, t) for t in range(3)] == [0.0, 1.0, 1.0]
    assert trajectory_reward(backs, ref) == pytest.approx(-(G + G**2))
    assert [repetition([r.action for r in ref], ref, t) for t in range(len(ref))] == [0.0] * len(ref)  # its own repeats: free


@pytest.mark.parametrize("phrase", ["Click 's'", "Click 'in'", "Click 'a'", "Click 'Email Passcode Sign in'", "Click 'Email Sign in'"])
def test_a_phrase_that_only_overlaps_a_label_names_no_target(phrase):
    """A letter (or a phrase listing every label) "contained" every label, scored 0.8 by the
    matcher's substring credit: the plan repeating it earned the reference's full reward, each
    copy on another target, so the repetition penalty never fired."""
    env = make("GuiGym-Login-v0")
    _, info = env.reset(seed=3, options={"level": "easy"})
    ref, els = info["reference"], info["elements"]
    env.close()
    clicks = [t for t, r in enumerate(ref) if r.action.type == "click"]
    for t in clicks:
        assert not refers_to(phrase, ref[t]) and not refers_to(phrase, ref[t], els)
    plan = [PlanStep(action_type="click", instruction=phrase) if r.action.type == "click" else r.action for r in ref]
    top = trajectory_reward([r.action for r in ref], ref, elements=els)
    assert trajectory_reward(plan, ref, elements=els) <= top - len(clicks) * G ** (len(ref) - 1)


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_honest_ungrounded_clicks_still_name_their_targets(env_id, level):
    """The reference's own instruction, the quoted label and the unquoted "the <label> button"
    name the target, on the first screen (with its elements) and beyond it (labels only)."""
    env = make(env_id)
    for seed in range(2):
        _, info = env.reset(seed=seed, options={"level": level})
        ref, els = info["reference"], info["elements"]
        for t, r in enumerate(ref):
            if r.action.type != "click" or r.target is None or not r.label:
                continue
            shown = els if t == 0 else None
            assert refers_to(r.instruction, r, shown), (seed, t, r.instruction)
            assert refers_to(f"Click '{r.label}'", r, shown), (seed, t, r.label)
            if _FILLER.sub(" ", normalize_label(r.label)).split():  # a label of filler words only ("Off", "To"): quote it
                assert refers_to(f"Tap the {r.label} button", r, shown), (seed, t, r.label)
    env.close()

