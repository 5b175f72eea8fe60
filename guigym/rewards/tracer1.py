"""TraceR1 stage 1: trajectory-level reward of a predicted plan against a reference.

``R(τ̂, τ*) = Σ_{t=1..T} γ^(t-1) · (λ_align · sim(â_t, a*_t) − λ_rep · rep(â_{1:t}))``

with ``T = min(len(τ̂), horizon)``. The worked example (also a test):

>>> from guigym.actions import Click, RefStep, Type
>>> ref = [RefStep(Click(30, 20), "user", (10, 10, 50, 30), "Click the user field"),
...        RefStep(Type("alice"), "user", None, "Type 'alice'"),
...        RefStep(Click(125, 115), "signin", (100, 100, 150, 130), "Click 'Sign in'")]
>>> pred = [Click(20, 20), Type("alice"), Click(20, 20)]
>>> round(trajectory_reward(pred, ref, gamma=0.9), 10)   # 1 + 0.9·1 + 0.81·(0 − 1)
1.09

Choices, each documented where it is made (``README.md`` lists them against the paper):

* ``sim`` (:func:`action_similarity`) is **abstract** by default, as TraceR1's stage 1 is: the
  right action type on the right *element* — named by an ungrounded step's grounding
  instruction, or hit by a grounded step's point. Whether a click *lands* is stage 2's job
  (:mod:`guigym.rewards.grounded`). ``similarity="grounded"`` is the stricter rule of earlier
  guigym versions (a step without coordinates scores 0).
* Typed text scores 1 only when the app would accept it (exact: guigym's apps compare typed
  values exactly); ``text="f1"`` gives token-F1 partial credit instead.
* ``rep_t = 1`` when step ``t`` acts on the same element as an earlier step of the plan
  (:func:`same_action`) — except where the plan repeats the very step the reference itself
  repeats at those positions (scrolling twice); any other repeat there is penalised.
* A plan may stop: a ``done`` step (``PlanStep(action_type=DONE)``) ends it; it scores
  ``sim = 1`` exactly where the reference ends (the reference is read as ending with an implicit
  ``done``), 0 elsewhere, and nothing after it is scored. So at a terminal state (empty
  reference) the right plan is ``[done]``.
* Text that does not parse has no plan: adapters score it :func:`trajectory_reward_range`'s
  lower bound (``TrajectoryReward``), so garbage never outranks a valid plan.
"""

from __future__ import annotations

import itertools
import math
import numbers
from typing import Any, Iterable, Literal, Optional, Sequence

from guigym.actions import DONE, MAX_STEPS, Answer, Click, OpenApp, PlanStep, RefStep, Scroll, Type  # noqa: F401 (Click: the doctests)
from guigym.answers import canonical_answer
from guigym.grounding import best_scored, element_scores, instruction_action, match_element, names_label, normalize_label
from guigym.rewards._common import (
    Pred,
    check_real,
    check_ref,
    events_match,
    finite_point,
    norm_name,
    norm_text,
    pred_action,
    pred_kind,
    token_f1,
)
from guigym.rewards.uir1 import arguments_match

__all__ = [
    "SIMILARITIES",
    "TEXT_RULES",
    "action_similarity",
    "refers_to",
    "step_target",
    "same_action",
    "same_target",
    "same_ref_step",
    "repetition",
    "trajectory_step_rewards",
    "trajectory_reward",
    "trajectory_reward_range",
]

Similarity = Literal["abstract", "grounded"]
TextRule = Literal["exact", "f1"]
SIMILARITIES: tuple[str, ...] = ("abstract", "grounded")
TEXT_RULES: tuple[str, ...] = ("exact", "f1")
#: An element as rewards read it: a dict with ``id`` and ``box`` (and ``label``/``role`` for
#: instruction matching), as ``info["elements"]`` gives them.
Element = dict

def _check(similarity: str, text: str) -> None:
    if similarity not in SIMILARITIES:
        raise ValueError(f"similarity must be one of {SIMILARITIES}, got {similarity!r}")
    if text not in TEXT_RULES:
        raise ValueError(f"text must be one of {TEXT_RULES}, got {text!r}")


def check_horizon(horizon: Any) -> None:
    """``None`` or an int in ``[0, MAX_STEPS]`` (a float such as 2.5 is a caller's mistake)."""
    if horizon is None:
        return
    if isinstance(horizon, bool) or not isinstance(horizon, numbers.Integral) or not (
        0 <= horizon <= MAX_STEPS  # type: ignore[operator]  # the ABC declares no __ge__; int and numpy ints have it
    ):
        raise ValueError(f"horizon must be None or an int in [0, {MAX_STEPS}] (MAX_STEPS), got {horizon!r}")


def check_weights(gamma: Any, lambda_align: Any, lambda_rep: Any) -> None:
    """``γ ∈ [0, 1]`` and finite ``λ`` s: a NaN weight would make every reward NaN."""
    check_real("gamma", gamma)
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma}")
    check_real("lambda_align", lambda_align)
    check_real("lambda_rep", lambda_rep)


def _exact(pred: str, ref: str) -> float:
    return 1.0 if pred == ref else 0.0


def visible_elements(elements: Any) -> Optional[list[Element]]:
    """``elements`` as the rewards read them: the dicts that have an ``id`` (the rewards name
    elements by id), ``None`` when there are none — what :func:`~guigym.rewards.load_elements`
    makes of a dataset cell. An entry that is not such a dict was a ``KeyError``/``AttributeError``
    deep inside the reward; it is dropped, as ``load_elements`` drops it. A string (a dataset
    cell's JSON), a single dict or a non-iterable is the caller's mistake: a ``TypeError``.

    >>> visible_elements([{"id": "ok", "box": (0, 0, 9, 9)}, {"label": "no id"}, "junk"])
    [{'id': 'ok', 'box': (0, 0, 9, 9)}]
    """
    if elements is None:
        return None
    if isinstance(elements, (str, bytes, bytearray, dict)) or not isinstance(elements, Iterable):
        raise TypeError(f"elements must be a list of element dicts (info['elements']) or None, got {type(elements).__name__}"
                        + ("; read a dataset cell with guigym.rewards.load_elements" if isinstance(elements, (str, bytes)) else ""))
    return [e for e in elements if isinstance(e, dict) and "id" in e] or None


def refers_to(instruction: str, ref: RefStep, elements: Optional[Sequence[Element]] = None) -> bool:
    """Whether a grounding ``instruction`` names the target element of ``ref``.

    With the visible ``elements``, when ``ref.target`` is one of them: the element the
    instruction matches best (:func:`guigym.grounding.match_element`, the executor's rule) is
    ``ref.target``, and no element with another label matches as well (a tie the executor
    breaks by order is no naming). Otherwise (no elements, or the target is on another screen
    than the one they describe): the instruction equals ``ref.instruction`` (lower-cased,
    whitespace-collapsed), or names ``ref.label`` closely (:func:`guigym.grounding.names_label`:
    a phrase that only contains the label or is contained in it does not). Either way
    "Click 's'", which "contains" every label with an s, names nothing: a plan repeating it
    was paid for every click of the reference.

    >>> from guigym.actions import Click, RefStep
    >>> ref = RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click the 'Sign in' button", label="Sign in")
    >>> refers_to("Tap 'Sign in'", ref), refers_to("Click the 'Forgot password?' link", ref)
    (True, False)
    >>> refers_to("Click 's'", ref), refers_to("Click 'Username Password Sign in'", ref)
    (False, False)
    """
    if not instruction or ref.target is None:
        return False
    elements = visible_elements(elements)
    if elements and any(isinstance(e, dict) and e.get("id") == ref.target for e in elements):
        els = list(elements)
        scores = element_scores(instruction, els)
        e = best_scored(scores, els)  # the executor's pick (match_element), scored once
        if e is None or e.get("id") != ref.target:
            return False
        # the matcher's pick, but not by a tie with a differently labelled element ("Click 's'")
        label, best = normalize_label(str(e.get("label") or "")), max(scores)
        return not any(sc == best and normalize_label(str(x.get("label") or "")) != label for sc, x in zip(scores, els))
    if norm_text(instruction) == norm_text(ref.instruction):
        return True
    return bool(ref.label) and names_label(instruction, ref.label)  # type: ignore[arg-type]


def action_similarity(
    pred: Pred,
    ref: RefStep,
    similarity: Similarity = "abstract",
    text: TextRule = "exact",
    elements: Optional[Sequence[Element]] = None,
) -> float:
    """``sim(â, a*) ∈ [0, 1]``: 0 if the action types differ; Back always 1; otherwise

    ==========  =============================================  ==============================
    ref type    grounded step (has arguments)                  ungrounded step (``abstract``)
    ==========  =============================================  ==============================
    Click       1[point in ``ref.box``]                        1[instruction names the target]
    Scroll      1[same direction]                              1[instruction's direction]
    OpenApp     1[same name, case-insensitive]                 1[instruction's app name]
    Type        1[text = ref text] (``text="f1"``: token F1)    the same, on the quoted text
    Answer      1[states the expected answer], else the        the same, on the stated answer
                text rule (``answers_match``)
    ==========  =============================================  ==============================

    A reference click without a box needs the exact point.

    "Names the target" is :func:`refers_to` (with ``elements`` when given). With
    ``similarity="grounded"`` an ungrounded step scores 0 (except Back). A ``done`` step never
    matches a reference step (see :func:`trajectory_reward` for where it scores).

    >>> from guigym.actions import Click, PlanStep, RefStep, Scroll, Type
    >>> ref = RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click the 'Sign in' button", label="Sign in")
    >>> step = PlanStep(action_type="click", instruction="Click the 'Sign in' button")
    >>> action_similarity(step, ref), action_similarity(step, ref, similarity="grounded")
    (1.0, 0.0)
    >>> typed = RefStep(Type("alice smith"), "user", None, "Type 'alice smith'")
    >>> action_similarity(Type("Alice"), typed), round(action_similarity(Type("Alice"), typed, text="f1"), 3)
    (0.0, 0.667)
    """
    _check(similarity, text)
    check_ref(ref)
    elements = visible_elements(elements)
    kind = pred_kind(pred)
    r = ref.action
    if kind is None or kind != r.type:
        return 0.0
    if kind == "back":
        return 1.0
    a = pred_action(pred)
    if a is None:  # ungrounded: judged by its instruction (abstract), or not at all (grounded)
        if similarity == "grounded":
            return 0.0
        instruction = getattr(pred, "instruction", "") or ""
        if kind == "click":
            return 1.0 if refers_to(instruction, ref, elements) else 0.0
        a = instruction_action(kind, instruction)
        if a is None:
            return 0.0
    return arguments_match(a, ref, token_f1 if text == "f1" else _exact)


# ---------------------------------------------------------------------------- repetition


def _box(box: Any) -> Optional[tuple[float, float, float, float]]:
    """``box`` as four floats, or ``None`` when it is malformed (a dataset's elements column):
    such a box holds no point."""
    if not isinstance(box, (tuple, list)) or len(box) != 4:
        return None
    try:
        x0, y0, x1, y1 = (float(v) for v in box)
    except (TypeError, ValueError, OverflowError):
        return None
    return x0, y0, x1, y1


def _inside(p: tuple[float, float], box: Any) -> bool:
    b = _box(box)
    return b is not None and b[0] <= p[0] <= b[2] and b[1] <= p[1] <= b[3]


def _element_at(p: tuple[float, float], elements: Optional[Sequence[Element]], ref: Sequence[RefStep]) -> Optional[str]:
    """The smallest visible element containing ``p``; failing that, the smallest box of a
    (non-scroll) reference step containing it; ``None`` if neither does."""
    for boxes in (
        [(e.get("id"), e.get("box")) for e in (elements or ()) if isinstance(e, dict)],
        [(r.target, r.box) for r in ref if r.box is not None and r.target is not None and not isinstance(r.action, Scroll)],
    ):
        best, area = None, math.inf
        for wid, box in boxes:
            b = _box(box)
            if wid is None or b is None or not _inside(p, b):
                continue
            if (b[2] - b[0]) * (b[3] - b[1]) < area:
                best, area = str(wid), (b[2] - b[0]) * (b[3] - b[1])
        if best is not None:
            return best
    return None


def step_target(
    pred: Pred, elements: Optional[Sequence[Element]] = None, ref: Sequence[RefStep] = (), t: Optional[int] = None
) -> Any:
    """What a predicted step acts on, for telling repeats apart (hashable, or ``None``).

    Back: ``("back",)``. Click: ``("click", element id)`` — the element under a grounded point
    (:func:`_element_at`: visible ``elements`` first, then the reference's boxes), or the
    element an ungrounded step's instruction names (matched against ``elements``, else against
    the reference's labels); an unresolved click is ``("click@", x, y)`` (a grounded point) or
    ``("click?", instruction)``. Scroll: ``("scroll", direction)`` (wherever its point is: a
    screen has one scroll container). OpenApp:
    ``("open_app", name)``. Type: ``("type", field, text)``, the field ``None`` (any) unless
    ``t`` says it (below). Answer: ``("answer", canonical text)``
    (:func:`guigym.answers.canonical_answer`). ``None`` for nothing or ``done``.

    ``t``: the step's position in a plan made on the screen ``elements`` describe, whose
    reference is ``ref``. Step ``t`` then acts on the screen of ``ref[t]``, not on that one:
    a click that ``ref[t]`` would count as its own (a point in its box, an instruction that
    :func:`refers_to` it) is on ``ref[t].target``, text typed where ``ref[t]`` types goes
    into its field, and ``elements`` are read for step 0 only (two clicks at one spot of two
    different screens, or one text typed into two fields, are not the same step).

    >>> els = [{"id": "user", "box": (0, 100, 359, 143), "label": "Username", "role": "input"}]
    >>> step_target(Click(20, 120), els) == step_target(Click(300, 130), els) == ("click", "user")
    True
    >>> from guigym.actions import RefStep
    >>> ref = [RefStep(Click(30, 120), "user", (0, 100, 359, 143), "Click 'Username'"),
    ...        RefStep(Click(30, 120), "ok", (0, 100, 359, 143), "Click 'OK'")]  # the next screen
    >>> step_target(Click(30, 120), els, ref, t=0), step_target(Click(30, 120), els, ref, t=1)
    (('click', 'user'), ('click', 'ok'))
    """
    kind = pred_kind(pred)
    if kind is None or kind == DONE:
        return None
    a = pred_action(pred)
    instruction = getattr(pred, "instruction", "") or ""
    if kind == "back":
        return ("back",)
    own = ref[t] if t is not None and 0 <= t < len(ref) and ref[t].target is not None else None
    # they show step 0's screen; read (visible_elements) only where used: a plan's later steps skip it
    elements = None if t is not None and t > 0 else visible_elements(elements)
    if kind == "click":
        if own is not None and own.action.type != "click":
            own = None
        if a is not None:
            p = finite_point(a)
            if p is None:
                return ("click@", None, None)
            if own is not None and own.box is not None and _inside(p, own.box):
                return ("click", str(own.target))
            e = _element_at(p, elements, ref)
            return ("click", e) if e is not None else ("click@", p[0], p[1])
        if own is not None and refers_to(instruction, own, elements):
            return ("click", str(own.target))
        cands = list(elements) if elements else [{"id": r.target, "label": r.label} for r in ref if r.target and r.label]
        m = match_element(instruction, cands) if cands else None
        return ("click", str(m["id"])) if m is not None else ("click?", norm_text(instruction))
    if a is None:
        a = instruction_action(kind, instruction)
        if a is None:
            return (kind + "?", norm_text(instruction))
    if isinstance(a, Scroll):  # a screen has one scroll container (the apps' scroll events are on "body"):
        # the element under a scroll's point is an item that moves, and reading it made the first
        # step's scroll differ from every later one (elements are read for step 0 only)
        return ("scroll", a.direction)
    if isinstance(a, OpenApp):
        return ("open_app", norm_name(a.name))
    if isinstance(a, Type):  # into the focused field: ref[t]'s when the plan types where it does
        return ("type", str(own.target) if own is not None and own.action.type == "type" else None, a.text)
    if isinstance(a, Answer):  # two answers that state the same fact are the same step
        return ("answer", canonical_answer(a.text))
    return None


def same_action(
    a: Pred, b: Pred, radius: float = 8, elements: Optional[Sequence[Element]] = None, ref: Sequence[RefStep] = ()
) -> bool:
    """Whether two predicted steps act on the same thing (used by :func:`repetition` and the
    plan/exec repetition metrics): equal :func:`step_target` s, where two clicks that hit no
    known element are the same when their points are within ``radius`` px. ``None`` and
    ``done`` are never the same as anything.

    >>> els = [{"id": "user", "box": (0, 100, 359, 143)}]
    >>> same_action(Click(10, 120), Click(340, 140), elements=els)   # one 360-px field
    True
    >>> same_action(Click(20, 20), Click(25, 26)), same_action(Click(20, 20), Click(29, 20))   # no element: radius
    (True, False)
    """
    return same_target(step_target(a, elements, ref), step_target(b, elements, ref), radius)


def same_target(ta: Any, tb: Any, radius: float = 8) -> bool:
    """Whether two :func:`step_target` s are the same: equal, or two points on no known
    element within ``radius`` px; ``None`` is never the same as anything."""
    if ta is None or tb is None:
        return False
    if ta[0] == tb[0] == "type" and None in (ta[1], tb[1]):  # a field not known: the same text is a repeat
        return ta[2] == tb[2]
    if ta[0] == tb[0] == "click@":
        if None in ta[1:] or None in tb[1:]:
            return False
        return math.hypot(ta[1] - tb[1], ta[2] - tb[2]) <= radius
    return bool(ta == tb)


def _pointless_args(r: RefStep) -> tuple[Any, ...]:
    a = r.action
    if isinstance(a, Scroll):
        return (a.direction,)
    if isinstance(a, OpenApp):
        return (norm_name(a.name),)
    if isinstance(a, Type):
        return (a.text,)
    return ()


def same_ref_step(a: RefStep, b: RefStep) -> bool:
    """Whether two reference steps are the same step (a repeat the reference itself makes).

    Same action type, same ``target`` and equivalent events (same kind and widget; input the
    same value, toggle the same value, scroll the same direction — see
    :func:`~guigym.rewards.events_match`). When either event is missing: same ``box`` and
    the same non-positional arguments (scroll direction, app name, typed text) instead.
    So two "scroll down the list" steps are the same step even if they move a different
    number of rows, while typing "a" then "b" into one field are different steps.

    >>> from guigym.actions import RefStep, Scroll
    >>> from guigym.events import Event
    >>> s1 = RefStep(Scroll("down"), "list", (0, 0, 99, 99), "Scroll down", Event("scroll", "list", 5))
    >>> s2 = RefStep(Scroll("down"), "list", (0, 0, 99, 99), "Scroll down", Event("scroll", "list", 2))
    >>> same_ref_step(s1, s2)
    True
    """
    if a.action.type != b.action.type or a.target != b.target:
        return False
    if a.event is not None and b.event is not None:
        return events_match(a.event, b.event)
    if a.event is not None or b.event is not None:
        return False
    return a.box == b.box and _pointless_args(a) == _pointless_args(b)


def repetition(
    pred: Sequence[Pred], ref: Sequence[RefStep], t: int, radius: float = 8, elements: Optional[Sequence[Element]] = None
) -> float:
    """``rep_t ∈ {0, 1}`` for the step ``pred[t]`` (``t`` is a 0-based index).

    ``rep_t = 1`` iff there is ``j < t`` with ``same_action(pred[t], pred[j])`` — the same
    element (:func:`same_action`; ``elements`` are the visible widgets where the plan was
    made) — and the repeat is unjustified: ``t`` is beyond the end of ``ref``, ``ref[t]``
    and ``ref[j]`` are not the same step (:func:`same_ref_step`), or ``pred[t]`` is not that
    step (its :func:`step_target` is not the one of ``ref[t]``'s own action). So repeating the
    step the reference itself repeats at those positions (scrolling twice) is free, and
    repeating anything else there (pressing Back twice where the reference scrolls twice) is
    not.

    >>> from guigym.actions import Back, RefStep, Scroll
    >>> down = RefStep(Scroll("down"), "list", (0, 0, 99, 99), "Scroll down")
    >>> pred = [Scroll("down"), Scroll("down"), Scroll("down")]
    >>> [repetition(pred, [down, down], t) for t in range(3)]
    [0.0, 0.0, 1.0]
    >>> [repetition([Back(), Back()], [down, down], t) for t in range(2)]
    [0.0, 1.0]
    """
    _check_plan(pred)
    elements = visible_elements(elements)
    if not 0 <= t < len(pred):
        raise IndexError(f"t={t} outside the predicted trajectory of length {len(pred)}")
    return _repetition([step_target(p, elements, ref, i) for i, p in enumerate(pred[: t + 1])], ref, t, radius)


def _repetition(targets: Sequence[Any], ref: Sequence[RefStep], t: int, radius: float) -> float:
    """:func:`repetition` from the plan's precomputed :func:`step_target` s."""
    for j in range(t):
        if same_target(targets[t], targets[j], radius):
            if t >= len(ref) or not same_ref_step(ref[t], ref[j]):
                return 1.0
            if not same_target(targets[t], step_target(ref[t].action, None, ref, t), radius):
                return 1.0  # the reference repeats a step there, but not this one
    return 0.0


def _check_plan(pred: Any) -> None:
    """A model's whole text where a plan (a sequence of steps) is expected was scored one
    character at a time, 0 each: the caller's mistake, a ``TypeError``."""
    if isinstance(pred, (str, bytes, bytearray)):
        raise TypeError(f"a predicted plan must be a sequence of steps, got {type(pred).__name__}: parse a model's text "
                        "with guigym.actions.parse_plan, or score it with TrajectoryReward (the TRL adapter), which reads text")


def _is_done(step: Any) -> bool:
    return isinstance(step, PlanStep) and step.done


def trajectory_step_rewards(
    pred: Sequence[Pred],
    ref: Sequence[RefStep],
    gamma: float = 0.9,
    lambda_align: float = 1.0,
    lambda_rep: float = 1.0,
    horizon: Optional[int] = None,
    radius: float = 8,
    similarity: Similarity = "abstract",
    text: TextRule = "exact",
    elements: Optional[Sequence[Element]] = None,
) -> list[float]:
    """The per-step terms ``r̃_t = γ^(t-1) · (λ_align · sim_t − λ_rep · rep_t)`` of
    :func:`trajectory_reward` (they sum to it), one per scored step: ``min(len(pred),
    horizon)`` of them, fewer when a ``done`` step ends the plan (it is the last one scored).

    >>> from guigym.actions import Back, PlanStep, RefStep
    >>> back = RefStep(Back(), None, None, "Go back")
    >>> trajectory_step_rewards([Back(), PlanStep(action_type="done"), Back()], [back], gamma=0.5)
    [1.0, 0.5]
    """
    check_weights(gamma, lambda_align, lambda_rep)
    check_horizon(horizon)
    check_real("radius", radius)
    _check(similarity, text)
    _check_plan(pred)
    elements = visible_elements(elements)
    ref = list(ref)
    for r in ref:
        check_ref(r)
    # at most MAX_STEPS steps are scored (the parsers keep no more): bounded time on any input
    steps = list(itertools.islice(pred, MAX_STEPS if horizon is None else horizon))
    end = next((i + 1 for i, s in enumerate(steps) if _is_done(s)), len(steps))
    steps = steps[:end]
    targets = [step_target(s, elements, ref, i) for i, s in enumerate(steps)] if lambda_rep != 0 else []
    out: list[float] = []
    discount = 1.0
    for t, step in enumerate(steps):
        if _is_done(step):
            out.append(discount * lambda_align * (1.0 if t == len(ref) else 0.0))
            break
        # the elements show the screen the plan was made on: step 0's
        sim = action_similarity(step, ref[t], similarity, text, elements if t == 0 else None) if t < len(ref) else 0.0
        rep = _repetition(targets, ref, t, radius) if lambda_rep != 0 else 0.0
        out.append(discount * (lambda_align * sim - lambda_rep * rep))
        discount *= gamma
    return out


def trajectory_reward(
    pred: Sequence[Pred],
    ref: Sequence[RefStep],
    gamma: float = 0.9,
    lambda_align: float = 1.0,
    lambda_rep: float = 1.0,
    horizon: Optional[int] = None,
    radius: float = 8,
    similarity: Similarity = "abstract",
    text: TextRule = "exact",
    elements: Optional[Sequence[Element]] = None,
) -> float:
    """``R = Σ_{t=1..T} γ^(t-1) · (λ_align · sim(pred_t, ref_t) − λ_rep · rep_t)``.

    ``T = len(pred)``, capped at ``horizon`` when given (at most ``MAX_STEPS`` = 128, the
    most any parser keeps; longer predictions are cut there), and ending at the first ``done``
    step; ``sim`` is :func:`action_similarity` (``similarity``, ``text``; ``elements`` for
    the first step) and 0 for ``t`` beyond the end of ``ref``, except that a ``done`` step
    scores 1 exactly at ``t = len(ref)``; ``rep_t`` is :func:`repetition` (same element; clicks
    on no known element within ``radius`` px). An empty prediction scores 0. The range is
    :func:`trajectory_reward_range`; the reference's own plan (its actions, or ungrounded
    steps with its instructions, then ``done``) scores its top.

    ``elements`` are the visible widgets of the screen the plan is made on (``info["elements"]``
    of the state whose reference ``ref`` is): they show where step 1 acts; later steps act on
    the screens the reference reaches, judged by the reference (see :func:`step_target`).

    >>> from guigym.actions import Back, PlanStep, RefStep
    >>> back = RefStep(Back(), None, None, "Go back")
    >>> trajectory_reward([Back(), Back()], [back], gamma=0.5)   # 1 + 0.5·(0 − 1)
    0.5
    >>> trajectory_reward([Back(), Back()], [back], gamma=0.5, lambda_rep=0)
    1.0
    >>> trajectory_reward([Back(), PlanStep(action_type="done")], [back], gamma=0.5)   # stops where the reference ends
    1.5
    >>> trajectory_reward([PlanStep(action_type="done")], [])   # terminal state: the right plan is to stop
    1.0
    """
    return float(sum(trajectory_step_rewards(pred, ref, gamma, lambda_align, lambda_rep, horizon, radius, similarity, text, elements)))


def trajectory_reward_range(
    horizon: Optional[int], gamma: float = 0.9, lambda_align: float = 1.0, lambda_rep: float = 1.0
) -> tuple[float, float]:
    """``(low, high)`` of :func:`trajectory_reward` over plans of at most ``horizon`` steps
    (``λ ≥ 0``): ``low = −λ_rep · Σ_{t=2..T} γ^(t-1)`` (every step after the first repeats),
    ``high = λ_align · Σ_{t=1..T} γ^(t-1)``. The sums are taken in the reward's own order, so
    the worst plan scores ``low`` bit for bit. Without a horizon, ``T`` is ``MAX_STEPS``: the
    reward scores no more steps (so it is bounded for ``γ = 1`` too).

    >>> [round(v, 6) for v in trajectory_reward_range(5, gamma=0.9)]
    [-3.0951, 4.0951]
    >>> trajectory_reward_range(None, gamma=1.0) == (-(MAX_STEPS - 1.0), float(MAX_STEPS))
    True
    """
    check_weights(gamma, lambda_align, lambda_rep)
    check_horizon(horizon)  # as trajectory_reward checks it: a negative horizon was the range (0, 0)
    if lambda_align < 0 or lambda_rep < 0:
        raise ValueError("the range is derived for lambda_align, lambda_rep >= 0")
    if horizon is None:
        horizon = MAX_STEPS  # trajectory_reward scores at most that many steps
    discounts, d = [], 1.0
    for _ in range(horizon):
        discounts.append(d)
        d *= gamma
    low = float(sum([d * (0.0 - lambda_rep) for d in discounts[1:]], 0.0 * (0.0 - lambda_rep) if discounts else 0.0))
    high = float(sum([d * (lambda_align - 0.0) for d in discounts]))
    return low, high
