"""Property checks any reward can be run through.

Each check is a plain function ``check_…(reward, cases, …)`` that draws examples with
Hypothesis (seeded, so a run is reproducible; no example database is written) and raises
``AssertionError`` whose message names the counterexample: the reward, the case, the text or
plan, and the scores. ``reward`` is a :class:`~guigym.testing.RewardUnderTest`; ``cases``
come from :func:`~guigym.testing.reference_cases`. Do not call a check from inside a test
that is itself decorated with ``@given``.

* :func:`check_never_raises` — any text (valid, near-valid, garbage, in every format) and
  any plan is scored without an exception, and the same again when scored a second time;
* :func:`check_bounded` — every score is a finite number in ``[low, high]``;
* :func:`check_garbage_never_beats_valid` — text no parser reads (garbage, or a valid text —
  the reference's included — broken by one corruption) scores at most what any valid
  completion scores (so a policy can never gain by breaking its output);
* :func:`check_reference_is_best` — the reference plan scores at least as much as every
  corrupted version of it (wrong type, click outside the target box — on each other visible
  widget, an injected banner included, or just off the box —, wrong argument (scroll
  direction, typed text, app, answer), steps dropped, duplicated or shuffled);
* :func:`check_rescale_invariant` — rescaling the coordinates of both the prediction and the
  reference (:func:`~guigym.actions.rescale_action`, :func:`~guigym.actions.rescale_refstep`)
  leaves the score unchanged (points are kept well inside or well outside boxes, and
  clicks either identical or well apart, so rounding cannot decide);
* :func:`run_all_checks` — every check that applies to the reward.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Sequence

from hypothesis import HealthCheck, Phase, assume, given, seed as hseed, settings
try:
    from hypothesis.errors import FlakyFailure
except ImportError:  # Hypothesis before FlakyFailure: its Flaky was the reward's only
    from hypothesis.errors import Flaky as FlakyFailure  # type: ignore[assignment]
from hypothesis import strategies as st

from guigym.actions import (
    ACTION_TYPES, DIRECTIONS, Action, Answer, Back, Click, OpenApp, PlanStep, RefStep, Scroll, Type, rescale_action, rescale_refstep,
)
from guigym.rewards.uir1 import point_in_box
from guigym.testing.adapters import RewardUnderTest
from guigym.testing.fixtures import Case, Reference
from guigym.testing.strategies import CORRUPTIONS, KINDS, actions, corrupt_text, done_step, model_texts, parses, plan_steps, plans

__all__ = [
    "CHECKS",
    "check_never_raises",
    "check_bounded",
    "check_garbage_never_beats_valid",
    "check_reference_is_best",
    "check_rescale_invariant",
    "run_all_checks",
    "reference_plan",
    "corrupt_plan",
    "PLAN_CORRUPTIONS",
    "applicable_checks",
    "MODEL_SIZES",
]

#: Image sizes (w, h) models resize 360×640 screenshots to (Qwen2.5-VL's multiples of 28,
#: halves, doubles, squares), used by :func:`check_rescale_invariant` besides random ones.
MODEL_SIZES: tuple[tuple[int, int], ...] = ((364, 644), (180, 320), (720, 1280), (1080, 1920), (448, 448), (252, 980), (1000, 500))


# ----------------------------------------------------------------------------- plumbing


def _run(body: Callable[[Any], None], max_examples: int, seed: Optional[int], shrink: bool = True,
         check: str = "check", reward: Optional[RewardUnderTest] = None) -> None:
    """Run ``body(data)`` on ``max_examples`` Hypothesis examples (``st.data()``);
    ``shrink=False`` reports the first failure found instead of a minimal one (faster).

    A failure Hypothesis cannot reproduce when it replays the example (a reward that is not
    deterministic) comes out as an ``AssertionError`` that says so, with the first failure's
    message, instead of Hypothesis's ``FlakyFailure`` (which is no ``AssertionError``, so it
    escaped :func:`run_all_checks` and named neither the reward nor the input)."""

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
        phases=[Phase.explicit, Phase.generate] + ([Phase.shrink] if shrink else []),
    )
    @given(st.data())
    def run(data: Any) -> None:
        body(data)

    if seed is not None:
        run = hseed(seed)(run)
    try:
        run()
    except FlakyFailure as e:  # the reward's fault; FlakyStrategyDefinition is a strategy's, left as it is
        first = next((x for x in getattr(e, "exceptions", ()) if isinstance(x, AssertionError)), None)
        name = reward.name if reward is not None else "the reward"
        detail = f"\n  the first failure: {first}" if first is not None else f"\n  Hypothesis: {e}"
        raise AssertionError(f"{check}: {name} is not deterministic: an example that failed passed when it was scored "
                             f"again{detail}") from e


def _live(cases: Iterable[Case]) -> list[Case]:
    out = [c for c in cases if c.reference]
    if not out:
        raise ValueError("no case with a non-empty reference (use guigym.testing.reference_cases)")
    return out


def _short(v: Any, limit: int = 300) -> str:
    r = repr(v)
    return r if len(r) <= limit else r[:limit] + f"… ({len(r)} chars)"


def _where(case: Case) -> str:
    refs = "; ".join(f"{r.action} in {r.box}" if r.box else str(r.action) for r in case.reference[:8])
    return f"case {case.id} ({case.instruction!r}); reference: {refs}"


def _require(reward: Any, who: str) -> None:
    """A ``TypeError`` that says how to wrap a bare reward function, instead of an
    ``AttributeError`` (or a check failure) from deep inside a check."""
    if not isinstance(reward, RewardUnderTest):
        raise TypeError(f"{who} needs a RewardUnderTest, got {type(reward).__name__}: wrap a reward function, e.g. "
                        "RewardUnderTest('mine', low=0, high=1, score_text=fn) for fn(text, reference) -> float, "
                        "or score_plan=fn for fn(steps, reference) -> float")


def _fail(check: str, reward: RewardUnderTest, case: Optional[Case], detail: str) -> AssertionError:
    where = f"\n  {_where(case)}" if case is not None else ""
    return AssertionError(f"{check}: {reward.name} {detail}{where}")


def _number(check: str, reward: RewardUnderTest, case: Case, what: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or isinstance(value, complex):
        try:  # numpy / torch scalars
            if isinstance(value, (str, bytes, bytearray)):  # float("0.5") reads it, a trainer's tensor does not
                raise TypeError(type(value).__name__)
            value = float(value)
        except Exception:  # noqa: BLE001
            raise _fail(check, reward, case, f"returned {_short(value)} (not a number) for {what}") from None
    value = float(value)
    if math.isnan(value):
        raise _fail(check, reward, case, f"returned NaN for {what}")
    return value


def _text_score(check: str, reward: RewardUnderTest, case: Case, text: str, ref: Sequence[RefStep]) -> float:
    if reward.score_text is None:
        raise TypeError(f"{check}: {reward.name} has no score_text")
    try:
        v = reward.score_text(text, ref)
    except Exception as e:  # noqa: BLE001 - a reward raising is the failure being reported
        raise _fail(check, reward, case, f"raised {type(e).__name__}: {e}\n  on text {_short(text)}") from e
    return _number(check, reward, case, f"text {_short(text)}", v)


def _plan_scores(check: str, reward: RewardUnderTest, case: Case, steps: Sequence[PlanStep], ref: Sequence[RefStep]) -> dict[str, float]:
    out: dict[str, float] = {}
    if reward.score_plan is not None:
        try:
            v = reward.score_plan(list(steps), ref)
        except Exception as e:  # noqa: BLE001
            raise _fail(check, reward, case, f"raised {type(e).__name__}: {e}\n  on plan {_short(list(steps))}") from e
        out["plan"] = _number(check, reward, case, f"plan {_short(list(steps))}", v)
    if reward.score_text is not None:
        out["text"] = _text_score(check, reward, case, reward.text_of(steps), ref)
    return out


def _grounded(reward: RewardUnderTest) -> Optional[bool]:
    return None if reward.plans else True


def reference_plan(reference: Sequence[RefStep], done: bool = False) -> list[PlanStep]:
    """The reference as a plan of grounded steps (what a perfect planner writes), ending
    with a ``done`` step when ``done=True`` (and this guigym has one)."""
    steps = [PlanStep(action=r.action) for r in reference]
    stop = done_step()
    return steps + [stop] if done and stop is not None else steps


# ----------------------------------------------------------------------------- corruptions

PLAN_CORRUPTIONS = ("wrong_type", "click_outside", "wrong_argument", "drop", "duplicate", "shuffle")


def _other_type(a: Any, rng_pick: int, size: tuple[int, int]) -> Any:
    w, h = size
    options: list[Action] = [Click(w // 2, h // 2), Scroll("down"), Back(), OpenApp("Calculator"), Type("hello")]
    options = [o for o in options if o.type != getattr(a, "type", None)]
    return options[rng_pick % len(options)]


def _outside(box: tuple[int, int, int, int], size: tuple[int, int], pick: int,
             elements: Sequence[dict] = ()) -> Optional[tuple[int, int]]:
    w, h = size
    x0, y0, x1, y1 = box
    # the points just off the box (what catches a reward too lenient about distance) and the
    # corners, then the centres of up to 8 other visible widgets: the wrong click a policy learns
    # is one on another widget — an injected "Task complete" banner, a misleading link — and the
    # points never land on one (the draws' picks 0-15 reach all 16; check_reference_is_best also
    # sweeps every widget)
    near = [((x0 + x1) // 2, y0 - 10), ((x0 + x1) // 2, y1 + 10), (x0 - 10, (y0 + y1) // 2), (x1 + 10, (y0 + y1) // 2),
            (2, 2), (w - 3, h - 3), (w - 3, 2), (2, h - 3)]
    widgets = [((b[0] + b[2]) // 2, (b[1] + b[3]) // 2) for b in (e.get("box") for e in elements) if b is not None]
    ok = [(x, y) for x, y in near + [p for p in widgets if not point_in_box(*p, box)][:8]
          if 0 <= x < w and 0 <= y < h and not point_in_box(x, y, box)]
    return ok[pick % len(ok)] if ok else None


def _wrong_argument(a: Any) -> Any:
    if isinstance(a, Scroll):
        return Scroll({"up": "down", "down": "up", "left": "right", "right": "left"}[a.direction], a.x, a.y)
    if isinstance(a, Type):
        return Type("zq" + "".join(reversed(a.text)) + "x")
    if isinstance(a, OpenApp):
        return OpenApp("Calculator" if a.name.strip().lower() != "calculator" else "Clock")
    if isinstance(a, Answer):  # a question task's result: without it a wrong answer was never tried
        return Answer("zq" + "".join(reversed(a.text)) + "x")
    return None


def corrupt_plan(steps: Sequence[PlanStep], reference: Sequence[RefStep], op: str, i: int, pick: int, size: tuple[int, int],
                 order: Optional[Sequence[int]] = None, elements: Sequence[dict] = ()) -> Optional[list[PlanStep]]:
    """``steps`` with one corruption ``op`` (one of :data:`PLAN_CORRUPTIONS`) at step ``i``
    (taken modulo the length); ``None`` when ``op`` does not apply there (e.g.
    ``click_outside`` on a non-click step). ``click_outside`` moves the click to the point
    number ``pick`` of: points just off the box and near the screen's corners, then the
    centres of up to 8 of ``elements`` (``info["elements"]``, e.g. ``Case.elements``) that lie
    outside the target box."""
    out = list(steps)
    if not out:
        return None
    i %= len(out)
    a = out[i].action
    if op == "wrong_type":
        out[i] = PlanStep(action=_other_type(a, pick, size))
    elif op == "click_outside":
        box = reference[i].box if i < len(reference) else None
        if not isinstance(a, Click) or box is None:
            return None
        p = _outside(box, size, pick, elements)
        if p is None:
            return None
        out[i] = PlanStep(action=Click(*p))
    elif op == "wrong_argument":
        b = _wrong_argument(a)
        if b is None:
            return None
        out[i] = PlanStep(action=b)
    elif op == "drop":
        if len(out) < 2:
            return None
        del out[i]
    elif op == "duplicate":
        out.insert(i, out[i])
    elif op == "shuffle":
        if order is None or sorted(order) != list(range(len(out))):
            return None
        out = [out[j] for j in order]
    else:
        raise ValueError(f"unknown corruption {op!r}; expected one of {PLAN_CORRUPTIONS}")
    return out


# ----------------------------------------------------------------------------- checks


def check_never_raises(
    reward: RewardUnderTest, cases: Iterable[Case], max_examples: int = 50, seed: Optional[int] = 0, shrink: bool = True
) -> None:
    """No text (valid, near-valid or garbage, in any format) and no plan makes the reward
    raise; an exception is reported as an ``AssertionError`` naming the input. Each input is
    scored twice, and two scores more than ``reward.tol`` apart fail too: a reward that is
    not deterministic (random, or keeping state between calls) fails the other checks only
    by chance, with a message about ranking, rounding or bounds that hides the cause."""
    _require(reward, "check_never_raises")
    live = _live(cases)
    check = "check_never_raises"

    def same(case: Case, what: str, a: float, b: float) -> None:
        if abs(a - b) > reward.tol:
            raise _fail(check, reward, case, f"is not deterministic: scored {a}, then {b}, for the same {what}")

    def body(data: Any) -> None:
        case = data.draw(st.sampled_from(live), label="case")
        ref = case.ref()
        if reward.score_text is not None:
            kind = data.draw(st.sampled_from(KINDS), label="kind")
            fmt = data.draw(st.sampled_from([reward.fmt, None]), label="fmt")
            text = data.draw(model_texts(fmt=fmt, kind=kind, viewport=case.screenshot_size, done=True), label="text")
            first_text = _text_score(check, reward, case, text, ref)
            same(case, f"text {_short(text)}", first_text, _text_score(check, reward, case, text, case.ref()))
        if reward.score_plan is not None:
            steps = data.draw(plans(8, viewport=data.draw(st.sampled_from([case.screenshot_size, None])), done=reward.done), label="plan")
            first, again = _plan_scores(check, reward, case, steps, ref), _plan_scores(check, reward, case, steps, case.ref())
            for channel, v in first.items():
                same(case, f"plan {_short(steps)} ({channel})", v, again[channel])

    _run(body, max_examples, seed, shrink, "check_never_raises", reward)


def check_bounded(reward: RewardUnderTest, cases: Iterable[Case], low: Optional[float] = None, high: Optional[float] = None,
                  max_examples: int = 50, seed: Optional[int] = 0, shrink: bool = True) -> None:
    """Every score — of any text, random plan, the reference, its corruptions, the reference
    cycled to 8 steps and one step repeated 8 times — is a finite number in ``[low, high]``
    (default: the reward's declared range)."""
    _require(reward, "check_bounded")
    live = _live(cases)
    lo = reward.low if low is None else low
    hi = reward.high if high is None else high

    def within(case: Case, what: str, v: float) -> None:
        if not (lo - reward.tol <= v <= hi + reward.tol) or math.isinf(v):
            raise _fail("check_bounded", reward, case, f"scored {v} outside [{lo}, {hi}] for {what}")

    def body(data: Any) -> None:
        case = data.draw(st.sampled_from(live), label="case")
        ref = case.ref()
        if reward.score_text is not None:
            kind = data.draw(st.sampled_from(KINDS), label="kind")
            texts = model_texts(fmt=reward.fmt, kind=kind, viewport=case.screenshot_size, think=reward.think, done=reward.done)
            text = data.draw(texts, label="text")
            within(case, f"text {_short(text)}", _text_score("check_bounded", reward, case, text, ref))
        src = data.draw(st.sampled_from(["random", "reference", "corrupted", "cycled", "repeated"]), label="plan source")
        steps: list[PlanStep] = reference_plan(case.reference, reward.done)
        if src == "random":
            steps = data.draw(plans(8, viewport=case.screenshot_size, grounded=_grounded(reward), done=reward.done), label="plan")
        elif src == "corrupted":
            steps = _draw_corruption(data, case, steps)[0]
        elif src == "cycled":  # the reference's steps over and over, to the longest plan (extremes of sums)
            plain = reference_plan(case.reference)
            steps = [plain[i % len(plain)] for i in range(max(8, len(plain)))]
        elif src == "repeated":  # one step repeated (extremes of repetition penalties)
            steps = [data.draw(plan_steps(case.screenshot_size, grounded=_grounded(reward)), label="step")] * 8
        for channel, v in _plan_scores("check_bounded", reward, case, steps, ref).items():
            within(case, f"plan {_short(steps)} ({channel})", v)

    _run(body, max_examples, seed, shrink, "check_bounded", reward)


def check_garbage_never_beats_valid(
    reward: RewardUnderTest, cases: Iterable[Case], max_examples: int = 50, seed: Optional[int] = 0, shrink: bool = True,
    at_bottom: bool = False,
) -> None:
    """Text that no guigym parser reads (garbage, and near-valid texts whose corruption
    made them unparsable — of random plans and of the reference's own text, the right answer
    in a broken format) scores no more than any valid completion: random plans, the
    reference, and plans that repeat one step (which a repetition penalty can push below
    zero). ``at_bottom=True`` also asks that such text scores exactly ``reward.low``."""
    _require(reward, "check_garbage_never_beats_valid")
    if reward.score_text is None:
        raise TypeError(f"check_garbage_never_beats_valid: {reward.name} has no score_text")
    if at_bottom and not math.isfinite(reward.low):  # else every reward "failed": no score is ever -inf's equal
        raise ValueError(f"check_garbage_never_beats_valid: at_bottom=True needs the reward's bottom, but {reward.name} "
                         f"declares low={reward.low}; give RewardUnderTest(..., low=...)")
    live = _live(cases)
    check = "check_garbage_never_beats_valid"

    def body(data: Any) -> None:
        case = data.draw(st.sampled_from(live), label="case")
        ref = case.ref()
        size = case.screenshot_size
        kind = data.draw(st.sampled_from(["garbage", "near_valid", "broken_reference"]), label="kind")
        if kind == "broken_reference":  # the right answer in a broken format: what a format-blind reward pays in full
            bad = corrupt_text(reward.text_of(reference_plan(case.reference, reward.done)), data.draw(st.sampled_from(CORRUPTIONS)),
                               at=data.draw(st.floats(0.05, 0.95)), pick=data.draw(st.integers(0, 100)))
        else:
            bad_texts = model_texts(fmt=reward.fmt, kind=kind, viewport=size, think=reward.think, grounded=_grounded(reward))
            bad = data.draw(bad_texts, label="bad text")
        # a first-step reward may read the first step of a plan whose later step is broken (env.step does)
        assume(not parses(bad, reward.fmt, plan=True, max_len=1 if reward.first_step_only else None))
        g = _text_score(check, reward, case, bad, ref)
        if at_bottom and abs(g - reward.low) > reward.tol:
            raise _fail(check, reward, case, f"scored {g}, not its bottom {reward.low}, for unparsable text {_short(bad)}")
        valid: list[list[PlanStep]] = [reference_plan(case.reference, reward.done)]
        valid_plans = plans(8, viewport=size, grounded=_grounded(reward), done=reward.done)
        valid += data.draw(st.lists(valid_plans, min_size=1, max_size=3), label="valid plans")
        step = data.draw(plan_steps(size, grounded=_grounded(reward)), label="repeated step")
        valid.append([step] * data.draw(st.integers(2, 8), label="repeats"))
        for steps in valid:
            text = reward.text_of(steps)
            v = _text_score(check, reward, case, text, ref)
            if g > v + reward.tol:
                raise _fail(check, reward, case, f"gave unparsable text {_short(bad)} {g}, more than {v} for the valid text {_short(text)}")

    _run(body, max_examples, seed, shrink, "check_garbage_never_beats_valid", reward)


def _draw_corruption(data: Any, case: Case, steps: list[PlanStep]) -> tuple[list[PlanStep], list[str]]:
    """1–2 corruptions of ``steps``; returns the corrupted plan and what was done."""
    done: list[str] = []
    out = list(steps)
    for _ in range(data.draw(st.integers(1, 2), label="how many corruptions")):
        op = data.draw(st.sampled_from(PLAN_CORRUPTIONS), label="corruption")
        i = data.draw(st.integers(0, 31), label="at step")
        pick = data.draw(st.integers(0, 15), label="pick")  # (click_outside: 8 points, then up to 8 widgets' centres)
        order = data.draw(st.permutations(range(len(out))), label="order") if op == "shuffle" else None
        new = corrupt_plan(out, case.reference, op, i, pick, case.screenshot_size, order, case.elements)
        if new is not None and new:
            out = new
            done.append(f"{op}@{i % max(1, len(steps))}" if op != "shuffle" else f"shuffle{list(order or [])}")
    return out, done


def check_reference_is_best(
    reward: RewardUnderTest, cases: Iterable[Case], max_examples: int = 50, seed: Optional[int] = 0, shrink: bool = True
) -> None:
    """The reference plan (the oracle's) scores at least as high as every corrupted version
    of it — a step of the wrong type, a click moved outside its target box (onto another
    widget, or just off the box), a wrong argument (scroll direction, typed text, app,
    answer), steps dropped, duplicated or shuffled — through every channel of the reward.

    Before the random corruptions, up to ``max_examples`` plans move the reference's first
    step, where it is a click, onto the centre of each other visible widget of each case (the
    widgets of its first screen), in turn: a tap on an
    injected "Task complete" banner or a misleading link is the wrong click a policy learns
    first, and one corruption among many drawn at random lands on it too rarely. A reward with
    ``penalizes_misclicks=True`` must score each of these strictly below the reference (else
    a reward that pays any click would pass)."""
    _require(reward, "check_reference_is_best")
    live = _live(cases)
    check = "check_reference_is_best"

    def compare(case: Case, best: list[PlanStep], bad: list[PlanStep], done: Sequence[str], strict: bool = False) -> None:
        ref = case.ref()
        s_best = _plan_scores(check, reward, case, best, ref)
        s_bad = _plan_scores(check, reward, case, bad, ref)
        for channel in s_best:
            if s_bad[channel] > s_best[channel] + reward.tol:
                raise _fail(check, reward, case, f"gave the corrupted plan ({', '.join(done)}) {s_bad[channel]} > {s_best[channel]} "
                            f"for the reference ({channel})\n  corrupted: {_short([s.action for s in bad], 600)}")
            if strict and s_bad[channel] >= s_best[channel] - reward.tol:
                raise _fail(check, reward, case, f"gave the corrupted plan ({', '.join(done)}) {s_bad[channel]}, not less than "
                            f"{s_best[channel]} for the reference ({channel}), though it declares penalizes_misclicks=True\n"
                            f"  corrupted: {_short([s.action for s in bad], 600)}")

    sweep: list[tuple[Case, int, dict, tuple[int, int]]] = []  # widget by widget, case by case
    for j in range(max(len(c.elements) for c in live)):
        for case in live:
            # the case's widgets are those of its first screen: only a first step that is a click is moved
            first = case.reference[0] if case.reference else None
            widget = case.elements[j] if j < len(case.elements) else {}
            if first is None or not isinstance(first.action, Click) or first.box is None or widget.get("box") is None:
                continue
            x0, y0, x1, y1 = widget["box"]
            p = ((x0 + x1) // 2, (y0 + y1) // 2)
            if not point_in_box(*p, first.box):  # not the target, nor a widget around it
                sweep.append((case, 0, widget, p))
    for case, t, widget, p in sweep[:max_examples]:
        best = reference_plan(case.reference, reward.done)
        bad = best[:t] + [PlanStep(action=Click(*p))] + best[t + 1:]
        compare(case, best, bad, [f"click_outside@{t} on widget {widget.get('id')!r}"], strict=reward.penalizes_misclicks)

    def body(data: Any) -> None:
        case = data.draw(st.sampled_from(live), label="case")
        best = reference_plan(case.reference, reward.done)
        bad, done = _draw_corruption(data, case, best)
        assume(done and bad != best)
        compare(case, best, bad, done)

    _run(body, max_examples, seed, shrink, "check_reference_is_best", reward)


@dataclass
class _Geometry:
    margin: int
    min_separation: int


def _far_from_box(x: int, y: int, box: tuple[int, int, int, int], margin: int) -> bool:
    """Inside with ``margin`` to spare, or outside by at least ``margin``."""
    x0, y0, x1, y1 = box
    inside = x0 + margin <= x <= x1 - margin and y0 + margin <= y <= y1 - margin
    outside = x < x0 - margin or x > x1 + margin or y < y0 - margin or y > y1 + margin
    return inside or outside


def _rescale_pred(data: Any, case: Case, geo: _Geometry) -> list[PlanStep]:
    """A prediction whose score cannot depend on rounding (see check_rescale_invariant)."""
    w, h = case.screenshot_size
    ref = case.reference
    n = data.draw(st.integers(1, min(len(ref) + 2, 8)), label="length")
    xs, ys = st.integers(0, w - 1), st.integers(0, h - 1)
    out: list[PlanStep] = []
    for t in range(n):
        r = ref[t] if t < len(ref) else None
        kind = data.draw(st.sampled_from(["match", "miss", "other", "repeat", "ungrounded"]), label=f"step {t}")
        if kind == "repeat" and out:
            out.append(out[data.draw(st.integers(0, len(out) - 1))])
            continue
        if kind == "ungrounded":
            out.append(data.draw(plan_steps(case.screenshot_size, grounded=False)))
            continue
        a: Any = None
        if kind in ("match", "miss") and r is not None:
            ra = r.action
            if isinstance(ra, Click) and r.box is not None:
                x0, y0, x1, y1 = r.box
                if kind == "match" and x1 - x0 > 2 * geo.margin and y1 - y0 > 2 * geo.margin:
                    x = data.draw(st.integers(x0 + geo.margin, x1 - geo.margin))
                    a = Click(x, data.draw(st.integers(y0 + geo.margin, y1 - geo.margin)))
                elif kind == "match":
                    a = ra
                else:
                    a = Click(data.draw(xs), data.draw(ys))
            elif isinstance(ra, Click):
                a = ra if kind == "match" else Click(data.draw(xs), data.draw(ys))
            elif isinstance(ra, Scroll):
                d = ra.direction if kind == "match" else data.draw(st.sampled_from(DIRECTIONS))
                a = Scroll(d, data.draw(xs), data.draw(ys))
            else:
                a = ra if kind == "match" else data.draw(actions(case.screenshot_size, types=(ra.type,)))
        if a is None:  # screen actions only: an Answer has no coordinates to rescale
            a = data.draw(actions(case.screenshot_size, types=SCREEN_TYPES))
        if isinstance(a, Scroll) and a.x is None:
            a = Scroll(a.direction, data.draw(xs), data.draw(ys))  # explicit points: mobile_use writes none as the centre
        out.append(PlanStep(action=a))
    # keep every point well inside/outside the box it is judged against, and points either
    # identical or well apart (repetition compares pixel distances)
    points = [(s.action.x, s.action.y) for s in out  # (a drawn Scroll has both coordinates or neither)
              if isinstance(s.action, (Click, Scroll)) and s.action.x is not None and s.action.y is not None]
    for i, p in enumerate(points):
        for q in points[:i]:
            assume(p == q or math.hypot(p[0] - q[0], p[1] - q[1]) >= geo.min_separation)
    for t, s in enumerate(out):
        a = s.action
        if isinstance(a, Click) and t < len(ref):
            r = ref[t]
            if r.box is not None:  # a Type step has its field's box too, and no point to coincide with
                same = isinstance(r.action, Click) and (a.x, a.y) == (r.action.x, r.action.y)
                assume(_far_from_box(a.x, a.y, r.box, geo.margin) or same)
            elif isinstance(r.action, Click):
                assume((a.x, a.y) == (r.action.x, r.action.y) or math.hypot(a.x - r.action.x, a.y - r.action.y) >= geo.margin)
    return out


def check_rescale_invariant(
    reward: RewardUnderTest, cases: Iterable[Case], sizes: Optional[Sequence[tuple[int, int]]] = None,
    max_examples: int = 50, seed: Optional[int] = 0, shrink: bool = True, margin: int = 6, min_separation: int = 24,
) -> None:
    """Mapping the coordinates of both the prediction and the reference to another image
    size (``rescale_action`` / ``rescale_refstep``, what a VLM pipeline does) leaves the
    score unchanged, up to ``reward.tol``.

    Rounding could legitimately flip a point on a box border, so predictions keep every
    click at least ``margin`` px inside or outside the box it is judged against, and any two
    points either identical or ``min_separation`` px apart (rewards such as the repetition
    penalty compare pixel distances). Target sizes are :data:`MODEL_SIZES` (or ``sizes``)
    and random ones between half and three times the screenshot (per axis).
    """
    _require(reward, "check_rescale_invariant")
    live = _live(cases)
    check = "check_rescale_invariant"
    geo = _Geometry(margin, min_separation)

    def body(data: Any) -> None:
        case = data.draw(st.sampled_from(live), label="case")
        w, h = case.screenshot_size
        random_size = st.tuples(st.integers(max(1, w // 2), 3 * w), st.integers(max(1, h // 2), 3 * h))
        to = data.draw(st.sampled_from(list(sizes or MODEL_SIZES)) | random_size, label="to size")
        pred = _rescale_pred(data, case, geo)
        ref = case.ref()
        scaled_pred = [
            PlanStep(action=rescale_action(s.action, (w, h), to), instruction=s.instruction) if s.action is not None else s for s in pred
        ]
        scaled_ref = Reference([rescale_refstep(r, (w, h), to) for r in case.reference])
        a = _plan_scores(check, reward, case, pred, ref)
        b = _plan_scores(check, reward, case, scaled_pred, scaled_ref)
        for channel in a:
            if abs(a[channel] - b[channel]) > reward.tol:
                raise _fail(check, reward, case, f"scored {a[channel]} at {(w, h)} but {b[channel]} at {to} ({channel})\n"
                            f"  prediction: {_short([s.action or s for s in pred], 600)}\n"
                            f"  rescaled:   {_short([s.action or s for s in scaled_pred], 600)}")

    _run(body, max_examples, seed, shrink, "check_rescale_invariant", reward)


#: The action types that act on the screen (every type but Answer).
SCREEN_TYPES: tuple[str, ...] = tuple(t for t in ACTION_TYPES if t != "answer")


#: Every check, by name, in the order :func:`run_all_checks` runs them.
CHECKS: dict[str, Callable[..., None]] = {
    "never_raises": check_never_raises,
    "bounded": check_bounded,
    "garbage_never_beats_valid": check_garbage_never_beats_valid,
    "reference_is_best": check_reference_is_best,
    "rescale_invariant": check_rescale_invariant,
}


def applicable_checks(reward: RewardUnderTest) -> list[str]:
    """The names of the checks that apply to ``reward`` (garbage needs ``score_text``;
    rescaling is skipped when ``rescale_invariant=False``)."""
    _require(reward, "applicable_checks")
    names = list(CHECKS)
    if reward.score_text is None:
        names.remove("garbage_never_beats_valid")
    if not reward.rescale_invariant:
        names.remove("rescale_invariant")
    return names


def run_all_checks(reward: RewardUnderTest, cases: Iterable[Case], max_examples: int = 40, seed: Optional[int] = 0, shrink: bool = True,
                   checks: Optional[Sequence[str]] = None) -> list[str]:
    """Run every applicable check (or those named in ``checks``, keys of :data:`CHECKS`)
    on ``cases``; returns the names run. All checks run; if any fails, one
    ``AssertionError`` lists every failure."""
    _require(reward, "run_all_checks")
    cases = list(cases)
    names = list(checks) if checks is not None else applicable_checks(reward)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ValueError(f"unknown checks {unknown}; expected names from {list(CHECKS)}")
    failures = []
    for name in names:
        try:
            CHECKS[name](reward, cases, max_examples=max_examples, seed=seed, shrink=shrink)
        except AssertionError as e:
            failures.append(f"[{name}] {e}")
    if failures:
        raise AssertionError(f"{reward.name}: {len(failures)} of {len(names)} checks failed\n" + "\n".join(failures))
    return names
