"""guigym.testing: strategies, fixtures, property checks — guigym's own rewards pass them, and
deliberately broken rewards are caught by them; the tutorial's code runs."""

from __future__ import annotations

import importlib.util
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guigym.actions import FORMATS, Click, PlanStep, parse_plan, rescale_action
from guigym.registration import env_ids
from guigym.rewards import trajectory_reward
from guigym.testing import (
    CHECKS,
    MAX_TEXT,
    RewardUnderTest,
    actions,
    applicable_checks,
    case_params,
    cases_fixture,
    check_bounded,
    check_garbage_never_beats_valid,
    check_never_raises,
    check_reference_is_best,
    check_rescale_invariant,
    corrupt_plan,
    easyr1_adapter,
    library_rewards,
    model_texts,
    parses,
    plans,
    reference_cases,
    reference_plan,
    run_all_checks,
    to_text,
    trajectory_bounds,
    trajectory_reward_adapter,
    trajectory_reward_trl_adapter,
)

ROOT = Path(__file__).resolve().parents[1]
FAMILY_IDS = ["GuiGym-Login-v0", "GuiGym-Settings-v0", "GuiGym-Launcher-v0"]
N = 25  # examples per check: modest, the machine is shared

cases = cases_fixture(FAMILY_IDS, levels=("easy",), seeds=range(2), detours=(0, 2))
small = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------------------- packaging


def test_import_without_hypothesis_says_how_to_install():
    code = "import sys; sys.modules['hypothesis'] = None\ntry:\n import guigym.testing\nexcept ImportError as e:\n print(e)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert "pip install 'guigym[test]'" in out.stdout, out.stdout + out.stderr


def test_core_library_does_not_import_the_kit():
    code = ("import sys, guigym, guigym.rewards, guigym.rewards.easyr1, guigym.env, guigym.actions\n"
            "print('guigym.testing' in sys.modules, 'hypothesis' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.split() == ["False", "False"], out.stdout + out.stderr


# ----------------------------------------------------------------------------- strategies


@small
@given(a=actions(viewport=(100, 50)))
def test_actions_stay_inside_the_viewport(a):
    if getattr(a, "x", None) is not None:
        assert 0 <= a.x < 100 and 0 <= a.y < 50


@small
@given(fmt=st.sampled_from(FORMATS), steps=plans(max_len=6))
def test_valid_texts_parse_back_to_their_plan(fmt, steps):
    text = to_text(steps, fmt)
    assert len(text) <= MAX_TEXT
    back = parse_plan(text, fmt)
    assert [s.kind for s in back] == [s.kind for s in steps]
    for got, want in zip(back, steps):
        if want.action is not None and not (fmt == "mobile_use" and want.action.type == "scroll"):
            assert got.action == want.action  # (a mobile-use swipe without a point reads back at the centre)
        if want.action is None:
            assert got.instruction == want.instruction


@small
@given(data=st.data())
def test_near_valid_and_garbage_texts(data):
    fmt = data.draw(st.sampled_from(FORMATS))
    near = data.draw(model_texts(fmt=fmt, kind="near_valid"))
    garbage = data.draw(model_texts(kind="garbage"))
    assert isinstance(near, str) and isinstance(garbage, str)
    assert len(garbage) <= MAX_TEXT and len(near) <= MAX_TEXT


def test_garbage_covers_the_hostile_inputs():
    seen = []

    @settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(model_texts(kind="garbage"))
    def collect(t):
        seen.append(t)

    collect()
    assert "" in seen
    assert any("\x00" in t for t in seen)
    assert any(len(t) >= 1000 for t in seen)
    assert sum(not parses(t) for t in seen) >= 0.9 * len(seen)  # garbage is (nearly) always unparsable


def test_corruptions_change_valid_texts():
    from guigym.testing import CORRUPTIONS, corrupt_text

    text = to_text([PlanStep(action=Click(10, 20))], "json")
    for c in CORRUPTIONS:
        bad = corrupt_text(text, c, at=0.5, pick=1)
        assert bad != text, c
    assert not parses(corrupt_text(text, "unknown_action"))
    assert not parses(corrupt_text(text, "truncated", at=0.5))


# ----------------------------------------------------------------------------- fixtures


@pytest.mark.parametrize("env_id", env_ids())
def test_reference_cases_for_every_registered_id(env_id):
    got = list(reference_cases(env_id, seeds=range(2), detours=3))
    assert [(c.seed, c.detours) for c in got] == [(0, 0), (0, 3), (1, 0), (1, 3)]
    for c in got:
        assert c.reference and c.instruction and c.elements
        assert c.screenshot_size == (360, 640)
        assert json.loads(json.dumps(c.state)) == c.state  # JSON, as get_state promises
        assert c.ref().case is c and list(c.ref()) == list(c.reference)
    # a detour leaves the reset state (the history of actions at least differs)
    assert got[1].state["history"] != got[0].state["history"]


def test_case_state_restores_its_reference():
    import gymnasium as gym

    (c,) = [c for c in reference_cases("GuiGym-Settings-v0", seeds=[3], detours=2) if c.detours == 2]
    env = gym.make("GuiGym-Settings-v0", disable_env_checker=True)
    env.reset(seed=0)
    env.unwrapped.set_state(c.state)
    assert tuple(env.unwrapped.reference()) == c.reference
    env.close()


def test_case_params_name_the_cases():
    ps = case_params(reference_cases("GuiGym-Login-v0", seeds=[0]))
    assert [p.id for p in ps] == ["Login-easy-s0-d0"]


# ----------------------------------------------------------------------------- library rewards


LIBRARY = library_rewards(horizon=8)


@pytest.mark.parametrize("reward", LIBRARY, ids=[r.name for r in LIBRARY])
def test_library_reward_passes_its_checks(reward, cases):
    ran = run_all_checks(reward, cases, max_examples=N)
    assert set(ran) == set(applicable_checks(reward))
    assert {"never_raises", "bounded", "reference_is_best"} <= set(ran)


def test_library_covers_every_reward():
    names = " ".join(r.name for r in LIBRARY)
    for expected in ("trajectory_reward", "TrajectoryReward", "uir1_reward", "UIR1Reward", "format_reward", "FormatReward",
                     "action_similarity", "action_type_reward", "argument_reward", "ActionTypeReward", "ArgumentReward",
                     "easyr1.compute_score[uir1]", "easyr1.compute_score[trajectory]", "grounded_reward"):
        assert expected in names


def test_unparsable_text_gets_the_bottom_of_the_trajectory_range(cases):
    """TraceR1's TrajectoryReward: garbage scores exactly −λ_rep·Σ_{t=2..T} γ^(t−1)."""
    r = trajectory_reward_trl_adapter(horizon=8)
    assert r.low == pytest.approx(-sum(0.9**t for t in range(1, 8)))
    check_garbage_never_beats_valid(r, cases, max_examples=N, at_bottom=True)


def test_reference_plan_scores_the_top_of_its_prefix(cases):
    r = trajectory_reward_trl_adapter(horizon=8)
    for c in cases:
        s = r.score_steps(reference_plan(c.reference, done=True), c.ref())["text"]
        n = min(len(c.reference) + 1, 8)
        assert s == pytest.approx(sum(0.9**t for t in range(n)))


def test_plan_corruptions():
    (c,) = list(reference_cases("GuiGym-Login-v0", seeds=[0]))
    best = reference_plan(c.reference)
    size = c.screenshot_size
    moved = corrupt_plan(best, c.reference, "click_outside", 0, 0, size)
    x0, y0, x1, y1 = c.reference[0].box
    assert not (x0 <= moved[0].action.x <= x1 and y0 <= moved[0].action.y <= y1)
    assert len(corrupt_plan(best, c.reference, "drop", 1, 0, size)) == len(best) - 1
    assert len(corrupt_plan(best, c.reference, "duplicate", 1, 0, size)) == len(best) + 1
    assert corrupt_plan(best, c.reference, "wrong_type", 1, 0, size)[1].action.type != best[1].action.type
    assert corrupt_plan(best, c.reference, "click_outside", 1, 0, size) is None  # step 1 types, it does not click
    assert corrupt_plan(best, c.reference, "shuffle", 0, 0, size, order=[1, 0, 2, 3, 4])[:2] == [best[1], best[0]]


# ----------------------------------------------------------------------------- broken rewards


def _plan_or_none(text):
    try:
        return parse_plan(text, "json")
    except Exception:  # noqa: BLE001
        return None


LOW, HIGH = trajectory_bounds(8)


def garbage_zero(text, reference):
    """Broken: unparsable text scores 0, while valid but bad plans can go negative."""
    steps = _plan_or_none(text)
    return 0.0 if steps is None else trajectory_reward(steps, reference, horizon=8)


GARBAGE_ZERO = RewardUnderTest("garbage_zero", LOW, HIGH, score_text=garbage_zero, done=True)


def brittle(text, reference):
    """Broken: assumes the text has an <answer> block holding a JSON list of dicts."""
    body = re.search(r"<answer>(.*)</answer>", text, re.DOTALL).group(1)
    first = json.loads(body)[0]
    return 1.0 if first["action"] == reference[0].action.type else 0.0


BRITTLE = RewardUnderTest("brittle", 0.0, 1.0, score_text=brittle, plans=False, first_step_only=True)


def pixel_distance(steps, reference):
    """Broken: partial credit by raw pixel distance, which changes when the image is resized."""
    a, r = steps[0].action, reference[0]
    if isinstance(a, Click) and isinstance(r.action, Click):
        return math.exp(-math.hypot(a.x - r.action.x, a.y - r.action.y) / 50)
    return 1.0 if a is not None and a == r.action else 0.0


PIXEL = RewardUnderTest("pixel_distance", 0.0, 1.0, score_plan=pixel_distance, first_step_only=True)


def bag_of_types(steps, reference):
    """Broken: counts predicted steps whose type occurs anywhere in the reference — more
    (duplicated) steps score more, past the declared maximum of 1."""
    kinds = {r.action.type for r in reference}
    return sum(s.kind in kinds for s in steps) / len(reference)


BAG = RewardUnderTest("bag_of_types", 0.0, 1.0, score_plan=bag_of_types)


def test_garbage_check_catches_a_reward_that_gives_garbage_zero(cases):
    with pytest.raises(AssertionError, match=r"check_garbage_never_beats_valid: garbage_zero gave unparsable text .* 0\.0, more than -"):
        check_garbage_never_beats_valid(GARBAGE_ZERO, cases, max_examples=N, shrink=False)
    # ... and only that check: the reward is otherwise fine
    for name in ("never_raises", "bounded", "reference_is_best", "rescale_invariant"):
        CHECKS[name](GARBAGE_ZERO, cases, max_examples=N, shrink=False)


def test_never_raises_catches_a_brittle_parser(cases):
    raised = r"check_never_raises: brittle raised (AttributeError|JSONDecodeError|KeyError|IndexError|TypeError)"
    with pytest.raises(AssertionError, match=raised):
        check_never_raises(BRITTLE, cases, max_examples=N, shrink=False)
    with pytest.raises(AssertionError, match="brittle raised"):
        check_bounded(BRITTLE, cases, max_examples=N, shrink=False)


def test_rescale_check_catches_pixel_distances(cases):
    with pytest.raises(AssertionError, match=r"check_rescale_invariant: pixel_distance scored .* at \(360, 640\) but .* at \(\d+, \d+\)"):
        check_rescale_invariant(PIXEL, cases, max_examples=N, shrink=False)
    check_never_raises(PIXEL, cases, max_examples=N, shrink=False)
    check_bounded(PIXEL, cases, max_examples=N, shrink=False)


def test_reference_and_bounds_checks_catch_a_bag_of_types(cases):
    with pytest.raises(AssertionError, match=r"check_reference_is_best: bag_of_types gave the corrupted plan \(.*duplicate"):
        check_reference_is_best(BAG, cases, max_examples=N, shrink=False)
    with pytest.raises(AssertionError, match=r"check_bounded: bag_of_types scored .* outside \[0\.0, 1\.0\]"):
        check_bounded(BAG, cases, max_examples=N, shrink=False)


def test_run_all_checks_reports_every_failure(cases):
    with pytest.raises(AssertionError) as e:
        run_all_checks(BAG, cases, max_examples=N, shrink=False)
    msg = str(e.value)
    assert msg.startswith("bag_of_types: 2 of 4 checks failed")
    assert "[bounded]" in msg and "[reference_is_best]" in msg
    assert "case " in msg and "reference:" in msg  # the counterexample's case is named


def test_checks_reject_a_nan_score(cases):
    nan = RewardUnderTest("nan", 0.0, 1.0, score_plan=lambda steps, ref: float("nan"))
    with pytest.raises(AssertionError, match="returned NaN"):
        check_bounded(nan, cases, max_examples=5)


def test_checks_reject_a_score_given_as_text(cases):
    # float("0.5") read it, so a reward returning strings passed every check (and broke TRL)
    text = RewardUnderTest("text", 0.0, 1.0, score_plan=lambda steps, ref: "0.5")
    with pytest.raises(AssertionError, match="not a number"):
        check_bounded(text, cases, max_examples=5)


def test_rescale_check_is_not_fooled_by_rounding(cases):
    """Point-in-box rewards are exactly invariant: the check keeps points off box borders."""
    def hit(steps, ref):
        a, r = steps[0].action, ref[0]
        if isinstance(a, Click) and r.box is not None:
            x0, y0, x1, y1 = r.box
            return float(x0 <= a.x <= x1 and y0 <= a.y <= y1)
        return 0.0

    check_rescale_invariant(RewardUnderTest("hit", 0.0, 1.0, score_plan=hit), cases, max_examples=60)
    # the premise: next to a border, rounding *does* flip the hit (1 px left of the box → inside)
    from guigym.actions import RefStep, rescale_refstep

    ref = RefStep(Click(179, 163), "user", (16, 142, 343, 185), "Click the 'Username' field")
    near = [PlanStep(action=Click(15, 150))]
    small_ref = rescale_refstep(ref, (360, 640), (180, 320))
    small_near = [PlanStep(action=rescale_action(near[0].action, (360, 640), (180, 320)))]
    assert (hit(near, [ref]), hit(small_near, [small_ref])) == (0.0, 1.0)


# ----------------------------------------------------------------------------- tutorial


def _python_blocks(md: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", md, re.DOTALL)


def test_tutorial_code_blocks_run():
    blocks = _python_blocks((ROOT / "docs" / "reward_testing.md").read_text())
    assert len(blocks) >= 4
    ns: dict = {"__name__": "tutorial"}
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/reward_testing.md[block {i}]", "exec"), ns)
        except Exception as e:  # pragma: no cover - the message says which block
            raise AssertionError(f"tutorial block {i} failed: {type(e).__name__}: {e}\n{block}") from e
    assert ns["v2_passed"] == list(CHECKS)


def test_custom_reward_example():
    spec = importlib.util.spec_from_file_location("custom_reward", ROOT / "examples" / "custom_reward.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.main(max_examples=N)
    assert out["cases"] == 12
    assert out["v1_error"] is not None and "check_rescale_invariant: click_distance_v1" in out["v1_error"]
    assert out["v2_passed"] == list(CHECKS)


def test_rescale_check_survives_a_click_near_a_type_steps_box() -> None:
    """A Type step's reference carries its field's box (the oracle's), and no point: a drawn
    click near that box was compared to ``ref.action.x`` and raised AttributeError. A small
    screen puts almost every drawn click near the box, so the first few examples hit it."""
    from guigym.actions import RefStep, Type
    from guigym.testing.fixtures import Case

    ref = (RefStep(Type("abc"), "f", (2, 2, 37, 37), "Type 'abc' into the field"),)
    case = Case("GuiGym-Login-v0", "easy", 0, 0, "type abc", (40, 40), ref, (), {})
    reward = RewardUnderTest("const", 0.0, 1.0, score_plan=lambda steps, r: 0.0)
    check_rescale_invariant(reward, [case], max_examples=100, shrink=False)  # raised AttributeError: 'Type' ... 'x'


# ----------------------------------------------------------------------------- audit: answers, adapter options


def _answer_cases():
    got = list(reference_cases("GuiGym-Contacts-v0", seeds=[0, 5]))
    assert all(any(r.action.type == "answer" for r in c.reference) for c in got)  # question tasks: the plan ends with Answer
    return got


def inverted_answer(steps, reference):
    """Broken: credit for an Answer whose text differs from the reference's (the comparison
    inverted), exact match for every other step."""
    score = 0.0
    for t, (s, r) in enumerate(zip(steps, reference)):
        if r.action.type == "answer" and s.action is not None and s.action.type == "answer":
            score += 0.9**t * float(s.action.text != r.action.text)
        else:
            score += 0.9**t * float(s.action == r.action)
    return score


def test_reference_is_best_tries_a_wrong_answer() -> None:
    # wrong_argument corrupted scroll directions, typed texts and apps but never an Answer's
    # text, so a reward that paid for the wrong answer of a question task passed every check
    cases = _answer_cases()
    broken = RewardUnderTest("inverted_answer", 0.0, HIGH, score_plan=inverted_answer)
    with pytest.raises(AssertionError, match=r"check_reference_is_best: inverted_answer gave the corrupted plan \(.*wrong_argument"):
        check_reference_is_best(broken, cases, max_examples=60, shrink=False)
    for reward in library_rewards(horizon=8, include_grounded=False):  # a right answer still scores best
        check_reference_is_best(reward, cases, max_examples=N, shrink=False)


@pytest.mark.parametrize("make", [
    lambda: trajectory_reward_adapter(horizon=8, simlarity="grounded"),
    lambda: trajectory_reward_trl_adapter(horizon=8, similarty="grounded"),
    lambda: easyr1_adapter("trajectory", horizon=8, format_wieght=0.5),
], ids=["trajectory_reward", "TrajectoryReward", "easyr1"])
def test_adapters_refuse_a_misspelt_option(make) -> None:
    # the option was dropped without a word: the default reward was tested under a name
    # ("trajectory_reward[simlarity='grounded']") that claimed the option
    with pytest.raises(TypeError, match=r"takes no option '(simlarity|similarty|format_wieght)'"):
        make()


def test_adapter_options_reach_the_reward() -> None:
    (c,) = list(reference_cases("GuiGym-Login-v0", seeds=[0]))
    plain = reference_plan(c.reference)
    ungrounded = [PlanStep(action=None, action_type=s.action.type, instruction=r.instruction) for s, r in zip(plain, c.reference)]
    a = trajectory_reward_adapter(horizon=8).score_steps(ungrounded, c.ref())["plan"]
    b = trajectory_reward_adapter(horizon=8, similarity="grounded").score_steps(ungrounded, c.ref())["plan"]
    assert a > b  # grounded similarity gives an ungrounded step nothing


def test_easyr1_bounds_follow_a_negative_format_weight(cases) -> None:
    # only the top moved with format_weight: with a negative one a valid plan of the bottom
    # trajectory score scored low + w and check_bounded failed a correct reward
    low, high = trajectory_bounds(8)
    r = easyr1_adapter("trajectory", horizon=8, format_weight=-1.0)
    assert (r.low, r.high) == pytest.approx((low - 1.0, high))
    check_bounded(r, cases, max_examples=N, shrink=False)


@pytest.mark.parametrize("check", [run_all_checks, applicable_checks, *CHECKS.values()])
def test_a_bare_reward_function_gets_told_how_to_wrap_it(check) -> None:
    """The natural first try, a reward function passed as it is, is a TypeError that names
    RewardUnderTest (it was an AttributeError from inside, or a check failure naming an input)."""
    def mine(text, reference):
        return 1.0

    with pytest.raises(TypeError, match=r"needs a RewardUnderTest, got function: wrap a reward function"):
        check(mine) if check is applicable_checks else check(mine, [])
