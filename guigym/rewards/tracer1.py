"""TraceR1 stage 1: trajectory-level reward of a predicted plan against a reference.

``R(τ̂, τ*) = Σ_{t=1..T} γ^(t-1) · (λ_align · sim(â_t, a*_t) − λ_rep · rep_t)``

with ``T = min(len(τ̂), horizon)``, ``sim`` = :func:`action_similarity` (0 past the end of
the reference) and ``rep_t`` = :func:`repetition`. The worked example (also a test):

>>> from guigym.actions import Click, RefStep, Type
>>> ref = [RefStep(Click(30, 20), "user", (10, 10, 50, 30), "Click the user field"),
...        RefStep(Type("alice"), "user", None, "Type 'alice'"),
...        RefStep(Click(125, 115), "signin", (100, 100, 150, 130), "Click 'Sign in'")]
>>> pred = [Click(20, 20), Type("alice"), Click(20, 20)]
>>> round(trajectory_reward(pred, ref, gamma=0.9), 10)   # 1 + 0.9·1 + 0.81·(0 − 1)
1.09
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from guigym.actions import Click, OpenApp, RefStep, Scroll, Type
from guigym.rewards._common import Pred, events_match, norm_name, norm_text, pred_action, pred_kind
from guigym.rewards.uir1 import argument_reward

__all__ = ["action_similarity", "same_action", "same_ref_step", "repetition", "trajectory_reward"]


def action_similarity(pred: Pred, ref: RefStep) -> float:
    """``sim(â, a*) ∈ [0, 1]``: 0 if the action types differ, else :func:`argument_reward`.

    (Click in the box, same scroll direction, same app name, token F1 of typed text, Back
    always; an ungrounded plan step has no arguments and scores 0 unless it is a Back.)

    >>> from guigym.actions import Click, RefStep, Scroll
    >>> ref = RefStep(Scroll("down"), "list", (0, 0, 99, 99), "Scroll down")
    >>> action_similarity(Scroll("down"), ref), action_similarity(Click(5, 5), ref)
    (1.0, 0.0)
    """
    return argument_reward(pred, ref, strict=True)


def _points_close(a: tuple[Any, Any], b: tuple[Any, Any], radius: float) -> bool:
    if None in a or None in b:
        return True  # a scroll without a point targets "the main container": can't tell apart
    return math.hypot(a[0] - b[0], a[1] - b[1]) <= radius


def same_action(a: Pred, b: Pred, radius: float = 8) -> bool:
    """Whether two predicted steps are the same step (used by :func:`repetition`).

    Same action type, and: Click — points within ``radius`` px (Euclidean); Scroll — same
    direction (and points within ``radius`` when both give one); OpenApp — same name after
    lower-casing and stripping; Type — same text after lower-casing and collapsing
    whitespace; Back — always. Two ungrounded plan steps are the same when their
    instructions are (lower-cased, whitespace-collapsed); a grounded and an ungrounded step
    are not (except Back). ``None`` is never the same as anything.

    >>> from guigym.actions import Click
    >>> same_action(Click(20, 20), Click(25, 26)), same_action(Click(20, 20), Click(29, 20))
    (True, False)
    """
    ka, kb = pred_kind(a), pred_kind(b)
    if ka is None or ka != kb:
        return False
    if ka == "back":
        return True
    xa, xb = pred_action(a), pred_action(b)
    if xa is None and xb is None:
        return norm_text(getattr(a, "instruction", "")) == norm_text(getattr(b, "instruction", ""))
    if xa is None or xb is None:
        return False
    if isinstance(xa, Click) and isinstance(xb, Click):
        return _points_close((xa.x, xa.y), (xb.x, xb.y), radius)
    if isinstance(xa, Scroll) and isinstance(xb, Scroll):
        return xa.direction == xb.direction and _points_close((xa.x, xa.y), (xb.x, xb.y), radius)
    if isinstance(xa, OpenApp) and isinstance(xb, OpenApp):
        return norm_name(xa.name) == norm_name(xb.name)
    if isinstance(xa, Type) and isinstance(xb, Type):
        return norm_text(xa.text) == norm_text(xb.text)
    return False


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


def repetition(pred: Sequence[Pred], ref: Sequence[RefStep], t: int, radius: float = 8) -> float:
    """``rep_t ∈ {0, 1}`` for the step ``pred[t]`` (``t`` is a 0-based index).

    ``rep_t = 1`` iff there is ``j < t`` with ``same_action(pred[t], pred[j])`` (clicks
    within ``radius`` px, see :func:`same_action`) and the repeat is unjustified: ``t`` is
    beyond the end of ``ref``, or ``ref[t]`` and ``ref[j]`` are not the same step
    (:func:`same_ref_step`). A repeat the reference also makes (scrolling twice) is free.

    >>> from guigym.actions import RefStep, Scroll
    >>> down = RefStep(Scroll("down"), "list", (0, 0, 99, 99), "Scroll down")
    >>> pred = [Scroll("down"), Scroll("down"), Scroll("down")]
    >>> [repetition(pred, [down, down], t) for t in range(3)]
    [0.0, 0.0, 1.0]
    """
    if not 0 <= t < len(pred):
        raise IndexError(f"t={t} outside the predicted trajectory of length {len(pred)}")
    cur = pred[t]
    for j in range(t):
        if same_action(cur, pred[j], radius):
            if t >= len(ref) or not same_ref_step(ref[t], ref[j]):
                return 1.0
    return 0.0


def trajectory_reward(
    pred: Sequence[Pred],
    ref: Sequence[RefStep],
    gamma: float = 0.9,
    lambda_align: float = 1.0,
    lambda_rep: float = 1.0,
    horizon: Optional[int] = None,
    radius: float = 8,
) -> float:
    """``R = Σ_{t=1..T} γ^(t-1) · (λ_align · sim(pred_t, ref_t) − λ_rep · rep_t)``.

    ``T = len(pred)``, capped at ``horizon`` when given; ``sim`` is
    :func:`action_similarity` and 0 for ``t`` beyond the end of ``ref``; ``rep_t`` is
    :func:`repetition` (clicks within ``radius`` px are the same). An empty prediction
    scores 0. With ``λ ≥ 0``:
    ``−λ_rep · Σ_{t=2..T} γ^(t-1) ≤ R ≤ λ_align · Σ_{t=1..T} γ^(t-1)``.

    >>> from guigym.actions import Back, RefStep
    >>> back = RefStep(Back(), None, None, "Go back")
    >>> trajectory_reward([Back(), Back()], [back], gamma=0.5)   # 1 + 0.5·(0 − 1)
    0.5
    >>> trajectory_reward([Back(), Back()], [back], gamma=0.5, lambda_rep=0)
    1.0
    """
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma}")
    if horizon is not None and horizon < 0:
        raise ValueError(f"horizon must be >= 0, got {horizon}")
    steps = list(pred)
    T = len(steps) if horizon is None else min(len(steps), horizon)
    total = 0.0
    discount = 1.0
    for t in range(T):
        sim = action_similarity(steps[t], ref[t]) if t < len(ref) else 0.0
        rep = repetition(steps, ref, t, radius) if lambda_rep != 0 else 0.0
        total += discount * (lambda_align * sim - lambda_rep * rep)
        discount *= gamma
    return total
