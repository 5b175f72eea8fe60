"""Adversarial inputs (issue 15): model text and actions never stall, crash or poison an env or a
reward. Each reproducer of the issue is a regression test here, plus a fuzz of ``step()``."""

from __future__ import annotations

import json
import math
import resource
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guigym.action_text import MAX_STEPS, MAX_TEXT_CHARS, ActionParseError, parse_action, parse_plan, parse_trajectory
from guigym.actions import MAX_COORD, Answer, Back, Click, OpenApp, PlanStep, RefStep, Scroll, Type
from guigym.events import Event
from guigym.apps.base import MAX_FIELD_LEN, clean_text
from guigym.env import HISTORY_LEN
from guigym.grounding import instruction_action, quoted
from guigym.rewards import (
    action_similarity,
    action_type_reward,
    argument_reward,
    format_reward,
    grounded_reward,
    iou_argument_reward,
    step_target,
    trajectory_reward,
    uir1_reward,
)
from guigym.rewards.easyr1 import compute_score
from guigym.rewards.trl import TrajectoryReward, load_elements
from tests.conftest import IDS, make

FAST_S = 0.5  # the goal is 10 ms (benchmarks/bench_adversarial.py); a quadratic path takes seconds to minutes
REF = [RefStep(Click(30, 20), "ok", (10, 10, 50, 30), "Click OK", label="OK").to_dict()]


def timed(f, *args, **kw):
    """``f``'s result and the CPU seconds this process spent on it: unlike wall time, that does
    not grow when other jobs share the machine's cores (the suite ran beside training runs and
    failed here)."""
    t0 = time.process_time()
    out = f(*args, **kw)
    return out, time.process_time() - t0


@pytest.fixture(scope="module")
def login():
    env = make("GuiGym-Login-v0", extra_obs=("elements", "history"))
    yield env.unwrapped
    env.close()


def focus_field(env) -> dict:
    """Reset ``env`` and click its first text field; returns that element."""
    env.reset(seed=0)
    field = next(e for e in env.elements() if e["role"] == "input")
    x0, y0, x1, y1 = field["box"]
    _, _, _, _, info = env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
    assert info["action_error"] is None
    return field


def value_of(env, wid: str):
    return next(e["value"] for e in env.elements() if e["id"] == wid)


# --- 1. catastrophic backtracking --------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "```" + " " * 4000 + "\nx",  # the reproducer: 78 s before
    "```" + " " * 8000 + "```x",
    "```py" + "\t" * 8000 + "\n",
])
def test_fence_regex_is_linear(login, text):
    login.reset(seed=0)
    (_, _, _, _, info), dt = timed(login.step, text)
    assert dt < FAST_S and info["action_error"].startswith("could not parse")
    for fmt in (None, "json", "function", "mobile_use"):
        with pytest.raises(ActionParseError):
            timed(parse_action, text, fmt)


def test_fences_still_unwrap():
    assert parse_action('```json\n[{"action": "back"}]\n```') == Back()
    assert parse_action("```\nclick(x=1, y=2)   \n```  \n") == Click(1, 2)


def test_text_over_the_bound_is_a_parse_error_and_a_long_think_is_not():
    with pytest.raises(ActionParseError, match="MAX_TEXT_CHARS"):
        parse_action("back()" + "x" * MAX_TEXT_CHARS)
    assert parse_action("<think>" + "hmm " * 50_000 + "</think>back()") == Back()
    assert len(parse_trajectory("\n".join(["back()"] * (MAX_STEPS + 50)))) == MAX_STEPS


# --- 2/4/7. typed text: cleaned and bounded in the app model ----------------------------------

@pytest.mark.parametrize("typed,stored", [
    ("a\x00b", "ab"),
    ("\ud800x", "\ufffdx"),
    ("\ud83d\ude00", "\U0001f600"),  # a surrogate pair is its character, as in a browser
    ("é" * 100_000, "é" * MAX_FIELD_LEN),
])
def test_typed_text_is_cleaned_and_the_env_keeps_working(login, typed, stored):
    field = focus_field(login)
    (obs, _, _, _, info), dt = timed(login.step, Type(typed))
    assert dt < FAST_S and info["action_error"] is None
    assert value_of(login, field["id"]) == stored == clean_text(typed)
    assert login.observation_space.contains(obs)
    for a in (Back(), Click(5, 5), Type("ok"), Scroll("down")):  # nothing is broken afterwards
        obs, *_ = login.step(a)
        assert login.observation_space.contains(obs)
    json.dumps(login.get_state())


def test_hex_literal_in_text_is_rejected_before_the_history(login):
    login.reset(seed=0)
    before = login.get_state()
    _, _, _, _, info = login.step("click(x=0x" + "f" * 5000 + ", y=1)")
    assert "MAX_COORD" in info["action_error"] or "within" in info["action_error"]
    assert login.get_state() == before


# --- 3. non-text actions ------------------------------------------------------------------------

def test_numpy_integers_are_python_ints(login):
    login.reset(seed=0)
    a, b = login.step(Click(np.int64(100), np.int64(200))), None
    login.reset(seed=0)
    b = login.step(Click(100, 200))
    assert np.array_equal(a[0]["screenshot"], b[0]["screenshot"]) and a[4]["action_error"] == b[4]["action_error"]
    json.dumps({"history": a[0]["history"], "state": login.get_state()})
    d = {"type": np.int64(0), "x": np.int64(100), "y": np.int32(200), "direction": np.int64(0), "app": np.int64(0), "text": ""}
    assert login.step(d)[4]["action_error"] is None


BAD_ACTIONS = [
    Click(10**5000, 0),
    Click(MAX_COORD + 1, 0),
    Click("1", "2"),
    Click(1.5, 2),
    Click(True, 2),
    Click(None, 0),
    OpenApp(None),
    OpenApp(b"Settings"),
    Type(None),
    Type(123),
    {"type": 0, "x": float("inf"), "y": 0, "direction": 0, "app": 0, "text": ""},
    {"type": 0, "x": float("nan"), "y": 0, "direction": 0, "app": 0, "text": ""},
    {"type": -1, "x": 0, "y": 0, "direction": 0, "app": 0, "text": "x"},  # wrapped to Type before
    {"type": 1, "x": 0, "y": 0, "direction": -1, "app": 0, "text": ""},
    {"type": 3, "x": 0, "y": 0, "direction": 0, "app": -1, "text": ""},
    {"type": 5, "x": 0, "y": 0, "direction": 0, "app": 0, "text": ""},
    {"type": 4, "x": 0, "y": 0, "direction": 0, "app": 0, "text": None},
    {"type": 0, "x": 10**5000, "y": 0, "direction": 0, "app": 0, "text": ""},
    {"type": "0", "x": 0, "y": 0},
    {"type": 0},
    {},
    None,
    3,
    b"back()",
]


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=[f"{i}-{type(a).__name__}" for i, a in enumerate(BAD_ACTIONS)])
def test_invalid_actions_are_no_ops_with_an_error(login, action):
    login.reset(seed=0)
    before, frame = login.get_state(), login.render()
    obs, r, term, trunc, info = login.step(action)
    assert isinstance(info["action_error"], str) and len(info["action_error"]) < 2000
    assert info["event"] is None and login.get_state() == before and np.array_equal(obs["screenshot"], frame)
    assert login.observation_space.contains(obs)


# --- 5/6. rewards never raise, and are linear -----------------------------------------------------

BIG = "9" * 401
HOSTILE_ANSWERS = [
    f'[{{"action": "click", "coordinate": [{BIG}, 5]}}, {{"action": "click", "coordinate": [-{BIG}, 5]}}]',
    f'[{{"action": "click", "coordinate": [{BIG}.5, 5]}}]',
    "click(x=1e400, y=5)\nclick(x=-1e400, y=5)",
    "click(x=0x" + "f" * 5000 + ", y=5)",
    '[{"action": 0x' + "f" * 5000 + "}]",
    f'[{{"action": "scroll", "direction": "down", "coordinate": [{BIG}, 5]}}]',
]


@pytest.mark.parametrize("answer", HOSTILE_ANSWERS, ids=lambda a: a[:30])
def test_rewards_never_raise_on_huge_numbers(answer):
    text = f"<think>t</think><answer>{answer}</answer>"
    scores = [
        *TrajectoryReward()([text], reference=[REF]),
        *TrajectoryReward(horizon=3)([text], reference=[REF], elements=[[{"id": "ok", "box": [10, 10, 50, 30]}]]),
        uir1_reward(text, RefStep.from_dict(REF[0])),
        format_reward(text),
        *[d["overall"] for m in ("uir1", "trajectory")
          for d in compute_score([{"response": text, "ground_truth": json.dumps(REF)}], mode=m)],
    ]
    assert all(isinstance(s, float) and math.isfinite(s) for s in scores)
    for parse in (parse_action, parse_trajectory, parse_plan):
        with pytest.raises(ActionParseError):
            parse(answer)


def test_trajectory_reward_takes_huge_points_directly():
    ref = [RefStep.from_dict(r) for r in REF]
    for pred in ([Click(10**400, 0), Click(-(10**400), 0)], [Click(10**300, 0), Click(-(10**300), 0)]):
        assert math.isfinite(trajectory_reward(pred, ref))
    for x in (10**400, -(10**400), 10**300):  # iou_argument_reward raised OverflowError (int - float)
        assert iou_argument_reward(Click(x, 0), ref[0]) == 0.0
    assert iou_argument_reward(Click(30, 20), ref[0]) > 0.0


MALFORMED_STEPS = [  # built by hand with fields of the wrong types: each raised deep in a reward
    Click("20", 3), Click(None, None), Click(True, 2), Scroll("down", "1", 2), Type(5), Answer(None), OpenApp(None),
    PlanStep(action_type="click", instruction=5), PlanStep(action_type="zzz", instruction="Click OK"),
    PlanStep(action_type=5), PlanStep(action=5), PlanStep(action=Click("a", "b")),
]


@pytest.mark.parametrize("bad", MALFORMED_STEPS, ids=lambda b: repr(b)[:40])
def test_malformed_hand_built_steps_score_as_no_prediction(bad):
    ref = [RefStep.from_dict(REF[0]), RefStep(Type("alice"), "user", (0, 40, 99, 60), "Type 'alice'", label="User"),
           RefStep(Answer("5"), None, None, "Answer 5"), RefStep(OpenApp("Mail"), None, None, "Open Mail", label="Mail")]
    for r in [*ref, None]:
        assert action_type_reward(bad, r) == argument_reward(bad, r) == iou_argument_reward(bad, r) == 0.0
    for r in ref:
        assert action_similarity(bad, r) == 0.0
    assert step_target(bad) is None
    # scored like no step: sim 0, never a repetition, and the steps after it count as before
    assert trajectory_reward([bad, bad], ref[:2]) == 0.0
    assert trajectory_reward([bad, Type("alice")], ref[:2]) == trajectory_reward([Back(), Type("alice")], ref[:2])
    # numpy numbers (a policy's argmax) and floats are well-formed
    assert action_type_reward(Click(np.int64(30), np.float32(20.5)), ref[0]) == argument_reward(Click(np.array(30), 20), ref[0]) == 1.0


def test_grounded_reward_scores_a_malformed_step_0_without_running_it(login):
    _, info = login.reset(seed=0)
    first = info["reference"][0]

    def executor(env, step):  # would ground any step to the reference's action
        return first.action

    state = login.get_state()
    assert grounded_reward(login, PlanStep(action_type=first.action.type, instruction="x"), executor=executor) == 1.0
    for bad in (PlanStep(action_type=first.action.type, instruction=5), Click("1", "2"), PlanStep(action=Click(None, 0))):
        assert grounded_reward(login, bad, executor=executor) == 0.0
    assert login.get_state() == state


def test_dataset_elements_without_an_id_fall_back_to_the_reference():
    """``load_elements`` drops what it cannot use; an element dict without ``id`` got through and
    the trajectory reward raised ``KeyError: 'id'`` when an ungrounded click matched it."""
    back = [RefStep(Back(), None, None, "Go back", Event("back")).to_dict()]
    text = '<think>t</think><answer>[{"action": "click", "instruction": "Click the OK button"}]</answer>'
    no_id = [{"label": "OK", "box": [0, 0, 10, 10]}]
    ok = {"id": "ok", "box": [0, 0, 1, 1]}
    assert load_elements(no_id) is None and load_elements(no_id + [ok]) == [ok]
    got = TrajectoryReward()([text], reference=[back], elements=[no_id])
    assert got == TrajectoryReward()([text], reference=[back])  # as with no elements column


QUADRATIC = [  # (what, call): each took seconds before
    ("format_reward mobile_use, 100k trailing spaces", lambda: format_reward(
        "<think>t</think><tool_call>{}</tool_call>" + " " * 100_000 + "x", fmt="mobile_use")),
    ("format_reward mobile_use, 100k spaces", lambda: format_reward(
        '<think>t</think><tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [1, 2]}}</tool_call>'
        + " " * 100_000, fmt="mobile_use")),
    ("uir1_reward, <answer> x 12,500", lambda: uir1_reward("<answer>" * 12_500, RefStep.from_dict(REF[0]))),
    ("TrajectoryReward() on 4,000 clicks", lambda: TrajectoryReward()(
        ["<answer>[" + ",".join(f'{{"action":"click","coordinate":[{i % 300},{i % 600}]}}' for i in range(4000)) + "]</answer>"],
        reference=[REF])),
    ("TrajectoryReward() on 120 clicks", lambda: TrajectoryReward()(
        ["<answer>[" + ",".join(f'{{"action":"click","coordinate":[{3 * i},{5 * i}]}}' for i in range(120)) + "]</answer>"],
        reference=[REF])),
    ("trajectory_reward on 100,000 Click objects", lambda: trajectory_reward(
        [Click(i % 300, i % 600) for i in range(100_000)], [RefStep.from_dict(REF[0])])),
    # an instruction of 8,000 unclosed quotes took 4.2 s (grounding.quoted), one with a run of
    # 8,000 spaces inside 0.4 s (the open_app and answer patterns of instruction_action)
    ("TrajectoryReward() on an instruction of 8,000 unclosed quotes", lambda: TrajectoryReward()(
        ['<answer>[{"action": "click", "instruction": "' + "‘" * 8_000 + '"}]</answer>'], reference=[REF])),
    ("quoted() on 100,000 unclosed quotes of each kind", lambda: [quoted(q * 100_000) for q in "‘“„'\""]),
    ("instruction_action on 100,000 spaces inside", lambda: [
        instruction_action(k, f"{k} x" + " " * 100_000 + "y") for k in ("open_app", "answer", "type")]),
]


def test_trajectory_reward_scores_at_most_max_steps():
    """Called directly (no parser in front), ``trajectory_reward`` scores the first MAX_STEPS
    steps of any iterable; a horizon beyond that is a clear error."""
    ref = [RefStep.from_dict(r) for r in REF]
    pred = [Click(1, 1)] * (5 * MAX_STEPS)  # every step after the first is a repeat: each one counts
    assert trajectory_reward(pred, ref, gamma=1.0) == trajectory_reward(pred[:MAX_STEPS], ref, gamma=1.0)
    assert trajectory_reward(iter(pred), ref, gamma=1.0) == trajectory_reward(pred[:MAX_STEPS], ref, gamma=1.0)
    assert trajectory_reward(pred[:MAX_STEPS], ref, gamma=1.0) != trajectory_reward(pred[:MAX_STEPS - 1], ref, gamma=1.0)
    with pytest.raises(ValueError, match="MAX_STEPS"):
        trajectory_reward(pred, ref, horizon=MAX_STEPS + 1)


@pytest.mark.parametrize("what,call", QUADRATIC, ids=[q[0] for q in QUADRATIC])
def test_no_quadratic_paths(what, call):
    call()  # warm caches
    _, dt = timed(call)
    assert dt < FAST_S, f"{what}: {dt:.2f} s"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([
    "<answer>", "</answer>", "<think>", "</think>", "<tool_call>", "</tool_call>", "```", "```json\n", "[", "]", "{", "}",
    '"action"', ": ", '"click"', '"coordinate"', "0x" + "f" * 4400, "9" * 4400, "1e999", "-", "(", ")", "click", "=", ",",
    "\\", "'", '"', "\n", " ", "\x00", "\ud800", "∞", "NaN", "None", "*", "**", "lambda", "\t",
]) | st.text(max_size=8), max_size=30).map("".join))
def test_parsers_raise_only_action_parse_error_and_rewards_never(text):
    for fmt in (None, "json", "function", "mobile_use"):
        for parse in (parse_action, parse_trajectory, parse_plan):
            try:
                parse(text, fmt)
            except ActionParseError:
                pass
        assert format_reward(text, fmt=fmt) in (0.0, 1.0)
        assert 0.0 <= uir1_reward(text, RefStep.from_dict(REF[0]), fmt=fmt) <= 3.0
    assert math.isfinite(TrajectoryReward()([text], reference=[REF])[0])


# --- 9. the history observation stays in its space; set_state bounds it -------------------------

def test_history_fits_its_space(login):
    login.reset(seed=0)
    for a in [OpenApp("x" * 5000), Type("y" * 100_000), "open_app(name='" + "z" * 3000 + "')"] * 3:
        obs, *_ = login.step(a)
        assert login.observation_space["history"].contains(obs["history"]), len(obs["history"])
    snap = login.get_state()
    login.set_state({**snap, "history": ["back()"] * 1_000_000})
    assert login.get_state()["history"] == ["back()"] * HISTORY_LEN


# --- 10. set_state validates up front and leaves the env untouched --------------------------------

def _bad_snapshots(snap: dict) -> list[tuple[str, dict]]:
    def with_state(**kw):
        return {**snap, "state": {**snap["state"], **kw}}

    app = snap["state"]["fg"]
    app_state = snap["state"]["apps"][app]

    def with_app(**kw):
        return with_state(apps={**snap["state"]["apps"], app: {**app_state, **kw}})

    return [
        ("initial_len=0", {**snap, "initial_len": 0}),
        ("initial_len=True", {**snap, "initial_len": True}),
        ("initial_len huge", {**snap, "initial_len": 10**5000}),
        ("version", {**snap, "version": 2}),
        ("unknown key", {**snap, "extra": 1}),
        ("history not a list", {**snap, "history": "back()"}),
        ("history of ints", {**snap, "history": [1, 2]}),
        ("no state", {k: v for k, v in snap.items() if k != "state"}),
        ("state not a dict", {**snap, "state": []}),
        ("snapshot not a dict", [snap]),
        ("family", {**snap, "scenario": {**snap["scenario"], "family": "Settings"}}),
        ("scenario without apps", {**snap, "scenario": {k: v for k, v in snap["scenario"].items() if k != "apps"}}),
        ("fg unknown", with_state(fg="Nope")),
        ("page out of range", with_state(page=99)),
        ("page a str", with_state(page="0")),
        ("apps differ", with_state(apps={})),
        ("empty stack", with_app(stack=[])),
        ("unknown screen", with_app(stack=["no-such-screen"])),
        ("negative scroll", with_app(scroll={"x": -5})),
        ("NUL in a value", with_app(values={**app_state["values"], "user": "a\x00b"})),
        ("value too long", with_app(values={**app_state["values"], "user": "a" * (MAX_FIELD_LEN + 1)})),
        ("surrogate key", with_app(values={"\ud800": ""})),
        ("focus an int", with_app(focus=3)),
        ("instruction too long",
         {**snap, "scenario": {**snap["scenario"], "task": {**snap["scenario"]["task"], "instruction": "x" * 2000}}}),
    ]


@pytest.mark.parametrize("episode", ["another", "the same"])
def test_set_state_rejects_bad_snapshots_and_leaves_the_env_untouched(episode):
    # "the same": the env holds the snapshot's scenario, so set_state checks only what differs
    # from it (guigym.apps.snapshot's trusted path); every bad snapshot must still be caught
    env = make("GuiGym-Login-v0").unwrapped
    env.reset(seed=3)
    snap = env.get_state()
    if episode == "another":
        env.reset(seed=4)
    else:
        env.step(env.reference()[0].action)
    here, frame = env.get_state(), env.render()
    for name, bad in _bad_snapshots(snap):
        with pytest.raises(ValueError) as info:
            env.set_state(bad)
        assert "set_state" in str(info.value), name
        assert env.get_state() == here and np.array_equal(env.render(), frame), name
    oracle = env._oracle
    env.set_state(snap)  # a good snapshot still loads, and the env steps on from it
    assert env.get_state() == snap
    # a snapshot of the env's own episode keeps its scenario and the oracle's memoised plans
    assert (env._oracle is oracle) == (episode == "the same")
    obs, *_ = env.step(env.reference()[0].action)
    assert env.observation_space.contains(obs)
    env.close()


# --- the fuzz: hostile actions on every id --------------------------------------------------------

HOSTILE_TEXT = st.sampled_from([
    "```" + " " * 5000 + "\nx", "<answer>" * 5000, "a" * 100_000, "\x00", "a\x00b", "\ud800", "\udfff\ud800",
    "click(x=0x" + "f" * 5000 + ", y=1)", "[" * 5000, "(" * 5000, "<tool_call>{" * 3000, "click(x=1e999, y=2)",
    "click(x=" + "9" * 5000 + ", y=2)", " " * 100_000, "\n" * 50_000 + "back()",
]) | st.text(max_size=50)
WEIRD_NUMBER = st.sampled_from([
    np.int64(100), np.int32(-3), np.uint8(7), np.float64(3.0), np.float32("nan"), float("inf"), float("-inf"), float("nan"),
    10**5000, -(10**30), 2**31, True, None, "1", np.array(5), np.array([1, 2]),
]) | st.integers(-10**6, 10**6)
FUZZ_ACTIONS = st.one_of(
    HOSTILE_TEXT,
    st.builds(Click, WEIRD_NUMBER, WEIRD_NUMBER),
    st.builds(Scroll, st.sampled_from(["up", "down"]), WEIRD_NUMBER | st.none(), WEIRD_NUMBER | st.none()),
    st.builds(Type, HOSTILE_TEXT | WEIRD_NUMBER),
    st.builds(OpenApp, HOSTILE_TEXT | WEIRD_NUMBER | st.sampled_from(["Settings", "notes"])),
    st.just(Back()),
    st.fixed_dictionaries({k: WEIRD_NUMBER for k in ("type", "x", "y", "direction", "app")} | {"text": HOSTILE_TEXT | WEIRD_NUMBER}),
)
FUZZ_ENVS = {i: make(i, level="medium", extra_obs=("elements", "history")) for i in IDS}


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(env_id=st.sampled_from(IDS), seed=st.integers(0, 1000), acts=st.lists(FUZZ_ACTIONS, max_size=8), data=st.data())
def test_fuzz_step_never_raises_stays_in_space_and_fast(env_id, seed, acts, data):
    env = FUZZ_ENVS[env_id]
    obs, info = env.reset(seed=seed)
    rss = _rss_mib()
    for a in acts:
        if data.draw(st.booleans()):  # half the time into a focused field, where Type stores text
            inputs = [e for e in env.unwrapped.elements() if e["role"] == "input"]
            if inputs:
                x0, y0, x1, y1 = inputs[0]["box"]
                env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
        (obs, r, term, trunc, info), dt = timed(env.step, a)
        assert dt < 1.0, f"{type(a).__name__}: {dt:.2f} s"
        assert env.observation_space.contains(obs)
        assert info["action_error"] is None or info["event"] is None
        json.dumps(env.unwrapped.get_state())
        if term or trunc:
            env.reset(seed=seed + 1)
    assert _rss_mib() - rss < 300


def test_text_that_draws_nothing_is_stored_not_raised() -> None:
    """A lone soft hyphen renders zero pixels wide (pygame raises "Text has zero width"): the
    field keeps it and the step returns (found by the fuzz test below)."""
    import gymnasium as gym

    from guigym.actions import Click, Type

    env = gym.make("GuiGym-Login-v0")
    _, info = env.reset(seed=0)
    field = next(e for e in info["elements"] if e["role"] == "input")
    x0, y0, x1, y1 = field["box"]
    env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
    _, _, _, _, info = env.step(Type("\xad"))
    assert info["action_error"] is None
    assert env.unwrapped.get_state()["state"]["apps"][env.unwrapped.scenario["start"]["fg"]]["values"][field["id"]] == "\xad"
