"""UI-R1 rewards on raw model text, and the TRL adapters."""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guigym.actions import Back, Click, OpenApp, PlanStep, RefStep, Scroll, Type, format_action, format_plan, format_trajectory
from guigym.events import Event
from guigym.rewards import (
    ActionTypeReward,
    ArgumentReward,
    FormatReward,
    TrajectoryReward,
    UIR1Reward,
    completion_text,
    format_reward,
    load_reference,
    trajectory_reward,
    uir1_reward,
)

USER = RefStep(Click(30, 20), "user", (10, 10, 50, 30), "Click the user field", Event("click", "user"))
TYPE_ALICE = RefStep(Type("alice"), "user", None, "Type 'alice'", Event("input", "user", "alice"))
SIGNIN = RefStep(Click(125, 115), "signin", (100, 100, 150, 130), "Click 'Sign in'", Event("click", "signin"))
WORKED_REF = [USER, TYPE_ALICE, SIGNIN]
NO_HORIZON_BOTTOM = -sum(0.9**t for t in range(1, 128))  # -8.99999: the most a plan of MAX_STEPS steps can lose
DOWN = RefStep(Scroll("down"), "list", (0, 50, 359, 599), "Scroll down the list", Event("scroll", "list", 3))
MAIL = RefStep(OpenApp("Mail"), None, None, "Open Mail", Event("open_app", None, "Mail"))
BACK = RefStep(Back(), None, None, "Go back", Event("back"))


def ans(body: str, think: str = "reasoning") -> str:
    return f"<think>{think}</think><answer>{body}</answer>"


CLICK_IN = '[{"action": "click", "coordinate": [20, 20]}]'
CLICK_OUT = '[{"action": "click", "coordinate": [200, 20]}]'


# --- format_reward --------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, kwargs, expected",
    [
        (ans(CLICK_IN), {}, 1.0),
        ("  \n" + ans(CLICK_IN) + "\n ", {}, 1.0),  # surrounding whitespace
        (f"<think>a</think>\n\n<answer>{CLICK_IN}</answer>", {}, 1.0),  # whitespace between
        (f"<think></think><answer>{CLICK_IN}</answer>", {}, 1.0),  # empty think is still a think block
        (f"<answer>{CLICK_IN}</answer>", {}, 0.0),  # think required
        (f"<answer>{CLICK_IN}</answer>", {"require_think": False}, 1.0),
        (ans(CLICK_IN), {"require_think": False}, 1.0),  # think allowed when optional
        ("Sure! " + ans(CLICK_IN), {}, 0.0),  # text before
        (ans(CLICK_IN) + " done", {}, 0.0),  # text after
        (f"<think>a</think>b<answer>{CLICK_IN}</answer>", {}, 0.0),  # text between
        (f"<answer>{CLICK_IN}</answer><think>a</think>", {}, 0.0),  # wrong order
        (f"<think>a</think><answer>{CLICK_IN}</answer><answer>{CLICK_IN}</answer>", {}, 0.0),  # two answers
        (f"<think>a<think>b</think></think><answer>{CLICK_IN}</answer>", {}, 0.0),  # nested
        (f"<think>a <answer>x</answer></think><answer>{CLICK_IN}</answer>", {}, 0.0),  # answer in think
        (f"<think>a</think><answer>{CLICK_IN}", {}, 0.0),  # unclosed
        (f"<THINK>a</THINK><ANSWER>{CLICK_IN}</ANSWER>", {}, 0.0),  # tags are lower-case
        # malformed answers
        (ans(""), {}, 0.0),
        (ans("[]"), {}, 0.0),  # parses to no action
        (ans("click at 20, 20"), {}, 0.0),
        (ans('[{"action": "click", "coordinate": [20]}]'), {}, 0.0),
        (ans('[{"action": "click"}]'), {}, 0.0),  # ungrounded: not an action
        (ans('[{"action": "click", "instruction": "Click OK"}]'), {"plan": True}, 1.0),  # ...but a plan step
        (ans('[{"action": "fly", "coordinate": [1, 2]}]'), {}, 0.0),
        (ans('[{"action": "scroll", "direction": "sideways"}]'), {}, 0.0),
        (ans('[{"action": "click", "coordinate": [20, 20]}'), {}, 0.0),  # truncated JSON
        (ans(CLICK_IN + ', {"action": "fly"}]'), {}, 0.0),
        (ans("[{'action': 'click', 'coordinate': [20, 20]}]"), {}, 1.0),  # UI-R1 prompt quoting
        (ans('[{"action": "back"}, {"action": "type", "text": "hi"}]'), {}, 1.0),  # several actions
        # other formats
        (ans("click(x=20, y=20)"), {"fmt": "function"}, 1.0),
        (ans("click(x=20, y=20)"), {"fmt": "json"}, 0.0),
        (ans(CLICK_IN), {"fmt": "function"}, 0.0),
        (ans("click(x=20, y=20)"), {"fmt": None}, 1.0),  # auto-detect
        ("<think>t</think>\n" + format_action(Click(20, 20), "mobile_use"), {"fmt": "mobile_use"}, 1.0),
        ("<think>t</think>" + ans(format_action(Click(20, 20), "mobile_use"), "t")[len("<think>t</think>"):], {"fmt": "mobile_use"}, 1.0),
        ("<think>t</think>\n" + format_action(Click(20, 20), "mobile_use") + " bye", {"fmt": "mobile_use"}, 0.0),
        ("<think>t</think>\n" + format_action(Click(20, 20), "mobile_use"), {"fmt": "json"}, 0.0),
        # no completion (anything else that is not text is a TypeError, below)
        (None, {}, 0.0),
        ("", {}, 0.0),
    ],
)
def test_format_reward(text, kwargs, expected):
    assert format_reward(text, **kwargs) == expected


def test_format_reward_unknown_fmt_is_a_programming_error():
    with pytest.raises(ValueError):
        format_reward(ans(CLICK_IN), fmt="xml")
    with pytest.raises(ValueError):
        uir1_reward(ans(CLICK_IN), USER, fmt="xml")
    with pytest.raises(ValueError):
        UIR1Reward(fmt="xml")


NOT_TEXT = [
    pytest.param(Click(50, 30), "parsed step", id="Click"),  # scored 0.0 silently, though inside USER's box
    pytest.param(Back(), "parsed step", id="Back"),
    pytest.param(PlanStep(action_type="click", instruction="Click the user field"), "parsed step", id="PlanStep"),
    pytest.param(USER, "parsed step", id="RefStep"),
    pytest.param([{"role": "assistant", "content": ans(CLICK_IN)}], "completion_text", id="conversation"),
    pytest.param(["<think>"], "completion_text", id="list"),
    pytest.param(ans(CLICK_IN).encode(), "decode it", id="bytes"),
    pytest.param(123, "got int", id="int"),
]


@pytest.mark.parametrize("pred, hint", NOT_TEXT)
def test_text_rewards_reject_what_is_not_text(pred, hint):
    """``uir1_reward(Click(50, 30), ref)`` and ``uir1_reward(Back(), ref)`` returned 0.0 with no
    error: UI-R1's reward scores what a model wrote (a third of it is the format), so a parsed
    step, a conversation, bytes or a number is the caller's mistake, a TypeError that names
    what to use; ``None`` (no completion) still scores 0, and text never raises."""
    for name, call in (("uir1_reward", lambda: uir1_reward(pred, USER)), ("uir1_reward", lambda: uir1_reward(pred, None)),
                       ("format_reward", lambda: format_reward(pred))):
        with pytest.raises(TypeError, match=f"{name} scores a model's text") as e:
            call()
        assert hint in str(e.value)
    assert uir1_reward(None, USER) == format_reward(None) == 0.0


def test_the_named_way_to_score_a_parsed_step():
    from guigym.rewards import action_type_reward, argument_reward

    assert action_type_reward(Click(50, 30), USER) + argument_reward(Click(50, 30), USER) == 2.0
    assert uir1_reward(ans('[{"action": "click", "coordinate": [50, 30]}]'), USER) == 3.0


def test_step_rewards_reject_text():
    """The mirror mistake: text passed where a parsed step or plan is expected scored 0 (a plan
    given as a str was read one character at a time)."""
    from guigym.rewards import (
        action_similarity,
        action_type_reward,
        argument_reward,
        iou_argument_reward,
        repetition,
        step_target,
        trajectory_step_rewards,
    )

    text = ans(CLICK_IN)
    for call in (lambda: action_type_reward(text, USER), lambda: argument_reward(text, USER),
                 lambda: iou_argument_reward(text, USER), lambda: action_similarity(text, USER),
                 lambda: step_target(text), lambda: trajectory_reward([Click(20, 20), text], [USER])):
        with pytest.raises(TypeError, match="a predicted step must be an action.*got str.*parse_action"):
            call()
    for call in (lambda: trajectory_reward(text, [USER]), lambda: trajectory_step_rewards(text, [USER]),
                 lambda: repetition(text, [USER], 0)):
        with pytest.raises(TypeError, match="a predicted plan must be a sequence of steps, got str.*parse_plan"):
            call()
    assert action_type_reward(None, USER) == trajectory_reward([None], [USER]) == 0.0  # no prediction: still 0


# --- uir1_reward ----------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, ref, kwargs, expected",
    [
        (ans(CLICK_IN), USER, {}, 3.0),
        (ans(CLICK_OUT), USER, {}, 2.0),  # type + format
        (ans('[{"action": "click", "coordinate": [50, 30]}]'), USER, {}, 3.0),  # box corner
        (ans('[{"action": "back"}]'), USER, {}, 1.0),  # format only
        (f"<answer>{CLICK_IN}</answer>", USER, {}, 2.0),  # no think: type + argument
        (f"<answer>{CLICK_IN}</answer>", USER, {"require_think": False}, 3.0),
        (f"Here: <answer>{CLICK_IN}</answer>", USER, {}, 2.0),
        # first action of the answer counts
        (ans(CLICK_IN[:-1] + ', {"action": "back"}]'), USER, {}, 3.0),
        (ans('[{"action": "back"}, ' + CLICK_IN[1:]), USER, {}, 1.0),
        # the answer after the think block is the one read
        (f"<think>maybe <answer>{CLICK_OUT}</answer></think><answer>{CLICK_IN}</answer>", USER, {}, 2.0),
        # arguments of other types
        (ans('[{"action": "scroll", "direction": "down"}]'), DOWN, {}, 3.0),
        (ans('[{"action": "scroll", "direction": "up"}]'), DOWN, {}, 2.0),
        (ans('[{"action": "scroll", "direction": "up"}]'), DOWN, {"strict_args": False}, 3.0),
        (ans('[{"action": "open_app", "app_name": " mail"}]'), MAIL, {}, 3.0),
        (ans('[{"action": "open_app", "app_name": "Maps"}]'), MAIL, {}, 2.0),
        (ans('[{"action": "open_app", "app_name": "Maps"}]'), MAIL, {"strict_args": False}, 3.0),
        (ans('[{"action": "type", "text": "Alice"}]'), TYPE_ALICE, {}, 3.0),
        (ans('[{"action": "input_text", "text": "alice smith"}]'), TYPE_ALICE, {}, 2 + 2 / 3),
        (ans('[{"action": "navigate_back"}]'), BACK, {}, 3.0),
        (ans(CLICK_OUT), USER, {"strict_args": False}, 2.0),  # clicks are always checked
        # other formats
        (ans("click(x=20, y=20)"), USER, {"fmt": "function"}, 3.0),
        (ans('scroll(direction="down")'), DOWN, {"fmt": "function"}, 3.0),
        ("<think>t</think>" + format_action(Click(20, 20), "mobile_use"), USER, {"fmt": "mobile_use"}, 3.0),
        ("<think>t</think>" + format_action(Back(), "mobile_use"), BACK, {"fmt": "mobile_use"}, 3.0),
        # parse failures: 0 for everything
        (ans("click at 20, 20"), USER, {}, 0.0),
        (ans(""), USER, {}, 0.0),
        (ans("[]"), USER, {}, 0.0),
        (ans(CLICK_IN + ', {"action": "fly"}]'), USER, {}, 0.0),
        (ans('[{"action": "click"}]'), USER, {}, 0.0),
        ("<think>I click (20, 20)</think>", USER, {}, 0.0),
        (CLICK_IN, USER, {}, 0.0),  # no answer tags
        ("", USER, {}, 0.0),
        (None, USER, {}, 0.0),
        (ans("click(x=20, y=20)"), USER, {"fmt": "json"}, 0.0),
    ],
)
def test_uir1_reward(text, ref, kwargs, expected):
    assert uir1_reward(text, ref, **kwargs) == pytest.approx(expected)


@settings(max_examples=300)
@given(st.text(), st.sampled_from(["json", "function", "mobile_use", None]), st.booleans(), st.booleans())
def test_rewards_never_raise_on_arbitrary_text(text, fmt, require_think, strict):
    f = format_reward(text, fmt=fmt, require_think=require_think)
    assert f in (0.0, 1.0)
    r = uir1_reward(text, USER, strict_args=strict, fmt=fmt, require_think=require_think)
    assert 0.0 <= r <= 3.0
    for reward in (UIR1Reward(fmt=fmt), FormatReward(fmt=fmt), TrajectoryReward(fmt=fmt), ActionTypeReward(fmt=fmt)):
        out = reward([text, [{"role": "assistant", "content": text}]], reference=[[USER.to_dict()]] * 2)
        assert len(out) == 2 and out[0] == out[1]


_TAGGY = st.lists(
    st.sampled_from([
        "<think>", "</think>", "<answer>", "</answer>", "<tool_call>", "</tool_call>", " ", "x", CLICK_IN, "[", '{"action": "click"', "}",
        "]", "click(x=1, y=2)",
    ]),
    max_size=12,
).map("".join)


@settings(max_examples=300)
@given(_TAGGY, st.sampled_from(["json", "function", "mobile_use", None]))
def test_tag_soup_never_raises_and_parse_failure_scores_zero(text, fmt):
    f = format_reward(text, fmt=fmt)
    r = uir1_reward(text, USER, fmt=fmt)
    assert f in (0.0, 1.0) and 0.0 <= r <= 3.0
    if f == 1.0:
        assert r >= 1.0  # a well-formed answer always yields a prediction
    if r == 0.0:
        assert f == 0.0


_actions = st.one_of(
    st.builds(Click, st.integers(0, 200), st.integers(0, 200)),
    st.builds(Scroll, st.sampled_from(["up", "down", "left", "right"])),
    st.just(Back()),
    st.builds(OpenApp, st.sampled_from(["Mail", "Maps"])),
    st.builds(Type, st.text(min_size=1, max_size=10)),
)


@given(_actions, st.sampled_from(["json", "function"]))
def test_formatted_actions_score_full_format(a, fmt):
    text = "<think>t</think>" + (format_action(a, fmt) if fmt == "json" else f"<answer>{format_action(a, fmt)}</answer>")
    assert format_reward(text, fmt=fmt) == 1.0
    ref = RefStep(a, None, (a.x, a.y, a.x, a.y) if isinstance(a, Click) else None, "")
    assert uir1_reward(text, ref, fmt=fmt) == 3.0


# --- adapters -------------------------------------------------------------------------

def conv(text: str):
    return [{"role": "assistant", "content": text}]


@pytest.mark.parametrize(
    "completion, expected",
    [
        ("plain", "plain"),
        (conv("hello"), "hello"),
        ([{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]}], "ab"),
        ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a1"}, {"role": "assistant", "content": "a2"}], "a2"),
        ([{"content": "no role"}], "no role"),
        ({"role": "assistant", "content": "dict"}, "dict"),
        ([], ""),
        (None, ""),
        (42, ""),
    ],
)
def test_completion_text(completion, expected):
    assert completion_text(completion) == expected


def test_load_reference_forms():
    steps = [s.to_dict() for s in WORKED_REF]
    assert load_reference(json.dumps(steps)) == WORKED_REF
    assert load_reference(steps) == WORKED_REF
    assert load_reference(WORKED_REF) == WORKED_REF
    assert load_reference(USER.to_dict()) == [USER]
    assert load_reference("[]") == []
    for bad in ("not json", "[1, 2]", '[{"action": {"type": "fly"}}]', 5):
        with pytest.raises(ValueError):
            load_reference(bad)


GOOD = ans(CLICK_IN)
REF_COL = json.dumps([s.to_dict() for s in WORKED_REF])


@pytest.mark.parametrize(
    "reward, completions, expected",
    [
        (UIR1Reward(), [GOOD, conv(GOOD), ans(CLICK_OUT), "garbage"], [3.0, 3.0, 2.0, 0.0]),
        (UIR1Reward(require_think=False), [f"<answer>{CLICK_IN}</answer>"], [3.0]),
        (UIR1Reward(fmt="function"), [ans("click(x=20, y=20)")], [3.0]),
        (ActionTypeReward(), [GOOD, ans('[{"action": "back"}]'), "garbage"], [1.0, 0.0, 0.0]),
        (ArgumentReward(), [GOOD, ans(CLICK_OUT), "garbage"], [1.0, 0.0, 0.0]),
        (FormatReward(), [GOOD, f"<answer>{CLICK_IN}</answer>", conv(GOOD)], [1.0, 0.0, 1.0]),
        (FormatReward(require_think=False), [f"<answer>{CLICK_IN}</answer>"], [1.0]),
        # the worked example as model text: 1 + 0.9 − 0.81
        (
            TrajectoryReward(), [ans(format_trajectory([Click(20, 20), Type("alice"), Click(20, 20)])[len("<answer>"):-len("</answer>")])],
            [1.09],
        ),
        # json expected: unparsable → the bottom, −λ_rep·Σ_{t=2..128} γ^(t-1) without a horizon (128 = MAX_STEPS)
        (TrajectoryReward(), [format_trajectory([Click(20, 20), Type("alice"), Click(20, 20)], "function")], [NO_HORIZON_BOTTOM]),
        (TrajectoryReward(fmt="function"), [format_trajectory([Click(20, 20), Type("alice"), Click(20, 20)], "function")], [1.09]),
        (TrajectoryReward(lambda_rep=0), [format_trajectory([Click(20, 20), Type("alice"), Click(20, 20)])], [1.9]),
        (TrajectoryReward(horizon=1), [format_trajectory([Click(20, 20), Type("alice"), Click(20, 20)])], [1.0]),
        # horizon: steps past it are not even read
        (TrajectoryReward(horizon=1), [ans(CLICK_IN[:-1] + ', {"action": "fly"}]')], [1.0]),
        (TrajectoryReward(), [ans(CLICK_IN[:-1] + ', {"action": "fly"}]')], [NO_HORIZON_BOTTOM]),
        (TrajectoryReward(horizon=5), ["garbage"], [-(0.9 + 0.81 + 0.729 + 0.6561)]),  # bottom of the T=5 range
        (TrajectoryReward(invalid_reward=-1.0), ["garbage"], [-1.0]),
        # plans with ungrounded steps
        (  # abstract: "Type alice" names the text
            TrajectoryReward(),
            [format_plan([PlanStep(Click(20, 20)), PlanStep(action_type="type", instruction="Type alice"), PlanStep(Click(125, 115))])],
            [1 + 0.9 + 0.81],
        ),
        (TrajectoryReward(), [format_trajectory([Back(), Back()])], [-0.9]),
    ],
)
def test_adapters(reward, completions, expected):
    assert reward(completions, reference=[REF_COL] * len(completions), prompts=["p"] * len(completions)) == pytest.approx(expected)


def test_adapters_read_every_reference_form_and_column():
    ref_forms = [REF_COL, [s.to_dict() for s in WORKED_REF], json.loads(REF_COL)]
    assert UIR1Reward()([GOOD] * 3, reference=ref_forms) == [3.0] * 3
    assert UIR1Reward(column="solution")([GOOD], solution=[REF_COL]) == [3.0]
    with pytest.raises(KeyError):
        UIR1Reward(column="solution")([GOOD], reference=[REF_COL])
    with pytest.raises(ValueError):
        UIR1Reward()([GOOD, GOOD], reference=[REF_COL])
    # an empty reference is a terminal state: `done` is the expected step, for every adapter
    done = ans('[{"action": "done"}]')
    assert UIR1Reward()([GOOD, done], reference=["[]", "[]"]) == [1.0, 3.0]  # a click there: format only
    assert TrajectoryReward()([GOOD, done], reference=["[]", "[]"]) == [0.0, 1.0]
    assert ActionTypeReward()([GOOD, done], reference=["[]", "[]"]) == [0.0, 1.0]
    assert ArgumentReward()([GOOD, done], reference=["[]", "[]"]) == [0.0, 1.0]
    assert FormatReward()([GOOD]) == [1.0]  # needs no reference
    # ... but reads one when the dataset has it: `done` is well formed where the reference ends
    assert FormatReward()([GOOD, done, done], reference=[REF_COL, "[]", REF_COL]) == [1.0, 1.0, 0.0]


_STEP = {"action": {"type": "click", "x": 20, "y": 20}, "target": "user", "box": [10, 10, 50, 30], "instruction": "Click"}


@pytest.mark.parametrize(
    "bad",
    [
        {**_STEP, "box": [10, 10, 50]},  # crashed in point_in_box ("not enough values to unpack")
        {**_STEP, "instruction": None},  # crashed in refers_to (None.lower())
        {**_STEP, "box": [10, 10, 1e400, 30]},  # OverflowError, not the documented ValueError
        {**_STEP, "action": {"type": "click", "x": 1e400, "y": 20}},
    ],
)
def test_load_reference_rejects_malformed_steps_up_front(bad):
    cell = json.dumps([bad])
    with pytest.raises(ValueError, match="malformed reference"):
        load_reference(cell)
    for reward in (UIR1Reward(), TrajectoryReward(), FormatReward()):  # a dataset bug, named as such
        with pytest.raises(ValueError, match="malformed reference"):
            reward([ans(CLICK_IN)], reference=[cell])


@pytest.mark.parametrize("reward", [UIR1Reward(), ActionTypeReward(), ArgumentReward(), FormatReward(), TrajectoryReward()])
def test_adapters_reject_a_column_that_is_not_one_cell_per_completion(reward):
    """One JSON cell passed where the column's list belongs was split into characters: "[]"
    for two completions read as the references "[" and "]" (a misleading "malformed
    reference '['"), and as an elements column it was silently read as two empty cells."""
    completions = [ans(CLICK_IN)] * 2
    for column in ("[]", b"[]", {"a": 1, "b": 2}, 5):
        with pytest.raises(ValueError, match="one cell per completion"):
            reward(completions, reference=column)
    if isinstance(reward, TrajectoryReward):
        with pytest.raises(ValueError, match="one cell per completion"):
            reward(completions, reference=[REF_COL] * 2, elements="[]")
    if not isinstance(reward, FormatReward):  # FormatReward reads no column when there is none
        with pytest.raises(ValueError, match="one cell per completion"):
            reward(completions, reference=None)


def test_trajectory_adapter_checks_its_settings_and_columns():
    for horizon in (-1, 129):  # at construction, not at the first batch with a valid plan
        with pytest.raises(ValueError, match="horizon"):
            TrajectoryReward(horizon=horizon)
    with pytest.raises(ValueError, match="2 completions but 1 'elements' cells"):  # zip would drop a reward
        TrajectoryReward()([GOOD, GOOD], reference=[REF_COL] * 2, elements=[None])
    plain = TrajectoryReward()([GOOD], reference=[REF_COL])
    for box in ("abcd", {"a": 1, "b": 2, "c": 3, "d": 4}, [1, 2, "x", 4], [1, 2, 3], None, [0, 0, float("nan"), 9]):
        cell = json.dumps([{"id": "user", "box": box}])  # a malformed box holds no point: no crash
        assert TrajectoryReward()([GOOD], reference=[REF_COL], elements=[cell]) == plain


@pytest.mark.parametrize(
    "reward, name",
    [
        (UIR1Reward(fmt="function", strict_args=False), "uir1_reward"),
        (ActionTypeReward(), "action_type_reward"),
        (ArgumentReward(strict_args=False), "argument_reward"),
        (FormatReward(require_think=False), "format_reward"),
        (TrajectoryReward(gamma=0.5, lambda_rep=2.0, horizon=4), "trajectory_reward"),
    ],
)
def test_adapters_pickle_and_name(reward, name):
    assert reward.__name__ == name
    clone = pickle.loads(pickle.dumps(reward))
    assert clone.__name__ == name and type(clone) is type(reward) and vars(clone) == vars(reward)
    completions = [GOOD, ans(CLICK_OUT), "junk", ans("click(x=20, y=20)")]
    refs = [REF_COL] * len(completions)
    assert clone(completions, reference=refs) == reward(completions, reference=refs)
    assert repr(reward).startswith(type(reward).__name__ + "(")


def test_trajectory_adapter_matches_function():
    pred = [Click(30, 20), Click(31, 21), Type("alice"), Back()]
    text = format_trajectory(pred)
    for kw in ({}, {"gamma": 0.5}, {"lambda_rep": 0.0}, {"lambda_align": 2.0, "horizon": 3}):
        assert TrajectoryReward(**kw)([text], reference=[REF_COL]) == [pytest.approx(trajectory_reward(pred, WORKED_REF, **kw))]


def test_unparsable_never_outranks_a_valid_plan():
    """GRPO normalises within a group: garbage must score at most the worst valid plan."""
    for kw in ({"horizon": 5}, {"horizon": 10, "gamma": 1.0}, {"horizon": 3, "lambda_rep": 2.0}, {}):
        f = TrajectoryReward(**kw)
        worst = f([format_trajectory([Back()] * kw.get("horizon", 12))], reference=[REF_COL])[0]  # repeats at every step
        for junk in ("garbage", "", "<answer>[{\"action\": \"fly\"}]</answer>", "<think>", "[" * 50):
            assert f([junk], reference=[REF_COL])[0] <= worst
    # no horizon, gamma = 1: at most MAX_STEPS steps are scored, so the bottom is finite (it raised)
    assert TrajectoryReward(gamma=1.0)(["garbage"], reference=[REF_COL]) == [-127.0]
    with pytest.raises(ValueError):
        TrajectoryReward(invalid_reward="lowest")
