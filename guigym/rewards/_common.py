"""Helpers shared by the reward modules: reading predictions, text tokens, event matching.

>>> token_f1("log in as alice", "Alice")
0.4
>>> events_match(Event("scroll", "list", 3), Event("scroll", "list", 1))
True
"""

from __future__ import annotations

import math
import numbers
import re
from collections import Counter
from typing import Any, Optional, Sequence, Union, cast

import numpy as np

from guigym.action_text import FORMATS, parse_plan, parse_trajectory
from guigym.actions import (
    ACTION_CLASSES,
    ACTION_TYPES,
    DIRECTIONS,
    DONE,
    Action,
    Answer,
    Back,
    Click,
    OpenApp,
    PlanStep,
    RefStep,
    Scroll,
    Type,
)
from guigym.answers import answers_match
from guigym.events import Event

#: What a reward accepts as one predicted step: a grounded action, a plan step (grounded or
#: not), or ``None`` (nothing usable was predicted). A :class:`RefStep` is read as its action.
Pred = Union[Action, PlanStep, RefStep, None]
_STEP_TYPES = frozenset((*ACTION_TYPES, DONE))



def check_ref(ref: Any, terminal_ok: bool = False) -> None:
    """A reference step that is not a :class:`RefStep` (its dict form, a list, ``None`` where a
    step is needed) is the caller's mistake: a ``TypeError`` here, not an ``AttributeError``
    deep inside a reward. ``terminal_ok``: ``None`` stands for a terminal state."""
    if not isinstance(ref, RefStep) and not (terminal_ok and ref is None):
        hint = " (RefStep.from_dict or guigym.rewards.load_reference read the dict form)" if isinstance(ref, dict) else ""
        raise TypeError(f"a reference step must be a RefStep{' or None' if terminal_ok else ''}, got {type(ref).__name__}{hint}")


def check_text(name: str, text: Any) -> None:
    """A completion that is not text is the caller's mistake: the text rewards score what a
    model wrote (a ``str``; ``None``, no completion, scores 0). A parsed action or plan step, a
    conversation (a list of messages), bytes or a number is a ``TypeError`` naming what to use
    instead, not a silent 0 for every sample."""
    if text is None or isinstance(text, str):
        return
    if isinstance(text, (*ACTION_CLASSES, PlanStep, RefStep)):
        hint = ("; a parsed step has no text to judge the format of: score it with action_type_reward(pred, ref) + "
                "argument_reward(pred, ref) (UI-R1's R_type + R_arg), or write it with format_action")
    elif isinstance(text, (list, tuple, dict)):
        hint = "; take a conversation's text with guigym.rewards.completion_text (the TRL adapters do)"
    elif isinstance(text, (bytes, bytearray)):
        hint = "; decode it first"
    else:
        hint = ""
    raise TypeError(f"{name} scores a model's text (a str, or None for no completion), got {type(text).__name__}{hint}")


def check_step(pred: Any) -> None:
    """Text where a parsed step is expected is the caller's mistake (it scored 0 whatever it
    said): a ``TypeError`` naming the functions that read text."""
    if isinstance(pred, (str, bytes, bytearray)):
        raise TypeError(f"a predicted step must be an action, a PlanStep, a RefStep or None, got {type(pred).__name__}: "
                        "parse a model's text with guigym.actions.parse_action / parse_plan, or score it with "
                        "uir1_reward / format_reward / grounded_reward (or the TRL adapters), which read text")


def check_real(name: str, value: Any) -> None:
    """A weight that is not a finite number (NaN would make every reward of a group NaN)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")


def finite_point(a: Any) -> Optional[tuple[float, float]]:
    """``(a.x, a.y)`` as floats, or ``None`` when ``a`` has no point or it is not finite (an int
    beyond a float, ``Click(10**400, 0)``, included): such a point is in no box."""
    x, y = getattr(a, "x", None), getattr(a, "y", None)
    if x is None or y is None:
        return None
    try:
        fx, fy = float(x), float(y)
    except (TypeError, ValueError, OverflowError):
        return None
    return (fx, fy) if math.isfinite(fx) and math.isfinite(fy) else None


def _number(v: Any) -> bool:
    if isinstance(v, np.ndarray) and v.ndim == 0:  # as the env takes it (guigym.actions.as_int)
        v = v[()]
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _action_fields_ok(a: Any) -> bool:
    """Whether action ``a``'s fields have the types its class declares (any real number for a
    coordinate: huge or non-finite ones are far outside every box, :func:`finite_point`)."""
    if isinstance(a, Click):
        return _number(a.x) and _number(a.y)
    if isinstance(a, Scroll):
        x, y = getattr(a, "x", None), getattr(a, "y", None)
        return getattr(a, "direction", None) in DIRECTIONS and all(v is None or _number(v) for v in (x, y))
    if isinstance(a, OpenApp):
        return isinstance(a.name, str)
    if isinstance(a, (Type, Answer)):
        return isinstance(a.text, str)
    return isinstance(a, Back)


def well_formed(pred: Any) -> bool:
    """Whether ``pred`` is a step a reward can judge: an action whose fields have their declared
    types, or a :class:`PlanStep` with such an action (or none), a ``str`` instruction and an
    ``action_type`` of :data:`~guigym.actions.ACTION_TYPES` or ``done`` (or none). The parsers
    only make such steps; one built by hand otherwise (``Click(x="20", y=3)``, ``Answer(None)``,
    ``PlanStep(action_type="click", instruction=5)``) scores as no prediction, 0, like
    unparsable text, instead of failing deep inside a reward.

    >>> well_formed(Click(20, 3)), well_formed(Click("20", 3)), well_formed(PlanStep(action_type="click", instruction=5))
    (True, False, False)
    """
    if isinstance(pred, ACTION_CLASSES):
        return _action_fields_ok(pred)
    if isinstance(pred, PlanStep):
        return (isinstance(pred.instruction, str) and (pred.action is None or _action_fields_ok(pred.action))
                and (pred.action_type is None or pred.action_type in _STEP_TYPES))
    if isinstance(pred, RefStep):
        return _action_fields_ok(pred.action)
    return False


def pred_kind(pred: Any) -> Optional[str]:
    """Action type of a predicted step (``None`` when there is none, or it is not
    :func:`well_formed`). Text is a ``TypeError`` (:func:`check_step`)."""
    check_step(pred)
    if not well_formed(pred):
        return None
    if isinstance(pred, ACTION_CLASSES):
        return pred.type
    if isinstance(pred, PlanStep):
        return pred.kind
    return cast(RefStep, pred).action.type


def pred_action(pred: Any) -> Optional[Action]:
    """The grounded action of a predicted step, or ``None`` for an ungrounded plan step (and
    for one that is not :func:`well_formed`). Text is a ``TypeError`` (:func:`check_step`)."""
    check_step(pred)
    if not well_formed(pred):
        return None
    if isinstance(pred, ACTION_CLASSES):
        return pred
    if isinstance(pred, (PlanStep, RefStep)):
        return pred.action
    return None


def norm_name(s: str) -> str:
    """App names compare after lower-casing and stripping."""
    return s.strip().lower()


def norm_text(s: str) -> str:
    """Lower-cased, whitespace-collapsed text."""
    return " ".join(s.lower().split())


def token_f1(pred: str, ref: str) -> float:
    """Token F1 of the lower-cased, whitespace-split texts (multiset overlap, as in SQuAD).

    ``F1 = 2·P·R / (P + R)`` with ``P = common / |pred tokens|``, ``R = common / |ref tokens|``.
    Two empty texts score 1; one empty text scores 0.
    """
    p, r = pred.lower().split(), ref.lower().split()
    if not p and not r:
        return 1.0
    common = sum((Counter(p) & Counter(r)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(r)
    return 2 * precision * recall / (precision + recall)


def _sign(v: Any) -> Any:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return v
    return (f > 0) - (f < 0)


def as_event(e: Any) -> Optional[Event]:
    """An :class:`Event` from an ``Event`` or its dict form; anything else is ``None``."""
    if isinstance(e, Event):
        return e
    if isinstance(e, dict) and "kind" in e:
        try:
            return Event.from_dict(e)
        except ValueError:  # not an event's dict form ({"kind": 3} matched another {"kind": 3})
            return None
    return None


def events_match(produced: Any, expected: Any) -> bool:
    """Whether ``produced`` is the same semantic event as ``expected``.

    Same ``kind`` and ``widget``, and by kind: ``input`` the same value (exact); ``toggle``
    the same value; ``scroll``/``page`` the same sign of value (direction, not distance);
    ``open_app`` the same name case-insensitively (widget too); ``answer`` the produced text
    states the expected answer (:func:`guigym.answers.answers_match`); ``click``/``back``
    nothing more. ``None`` never matches.
    """
    a, b = as_event(produced), as_event(expected)
    if a is None or b is None or a.kind != b.kind:
        return False
    if a.kind == "open_app":
        def n(v: Any) -> Any:
            return norm_name(v) if isinstance(v, str) else v

        return n(a.widget) == n(b.widget) and n(a.value) == n(b.value)
    if a.kind == "answer":
        return answers_match(a.value, b.value)
    if a.widget != b.widget:
        return False
    if a.kind in ("input", "toggle"):
        return bool(a.value == b.value)
    if a.kind in ("scroll", "page"):
        return bool(_sign(a.value) == _sign(b.value))
    return True


ANSWER_RE = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)


def check_fmt(fmt: Optional[str]) -> None:
    """A misspelt format is a programming error (it would silently zero every reward)."""
    if fmt is not None and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS} or None (auto-detect)")




def parse_answer(answer: str, fmt: Optional[str], plan: bool = False, max_len: Optional[int] = None) -> Optional[list]:
    """Parse answer text into a non-empty list of steps; ``None`` on any parse failure.

    ``plan=False``: :func:`guigym.actions.parse_trajectory` (grounded actions only);
    ``plan=True``: :func:`guigym.actions.parse_plan` (:class:`PlanStep` s, which may be
    ungrounded: an action type plus a grounding instruction). Rewards never raise on model
    text, so every exception of the parser is a parse failure here. The parsers' bounds hold:
    an answer over :data:`~guigym.action_text.MAX_TEXT_CHARS` characters is a failure, and at
    most :data:`~guigym.action_text.MAX_STEPS` steps are read, so every reward is fast on any text.
    """
    check_fmt(fmt)
    if max_len is not None and max_len < 1:
        max_len = None
    try:
        parsed: Sequence[Union[Action, PlanStep]]
        if plan:
            parsed = parse_plan(answer, fmt, max_len=max_len)
        else:
            parsed = parse_trajectory(answer, fmt, max_len=max_len)
        steps = list(parsed)
    except Exception:  # noqa: BLE001 - any failure on arbitrary text is a parse failure
        return None
    return steps or None
