"""Low-level GUI actions, reference and plan steps, and the canonical action dict.

The five actions of UI-R1 / AndroidControl: ``Click``, ``Scroll``, ``Back``, ``OpenApp``,
``Type``, and AndroidWorld's ``Answer`` (the reply to an information task).
Coordinates are pixels of the observed screenshot. Their text formats (parsing
model output, writing prompts) live in :mod:`guigym.action_text`; the names defined there
are also importable from here, as they were before the split.

>>> action_from_dict(action_to_dict(Scroll("down", 3, 4)))
Scroll(direction='down', x=3, y=4)
>>> [c.__name__ for c in ACTION_CLASSES] == [t.title().replace("_", "") for t in ACTION_TYPES]
True
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, Sequence, Union

import numpy as np

from guigym.events import Event

# The text formats moved to guigym.action_text; these names stay importable from here, and
# `from guigym.actions import *` binds them too (a star import looks up each name of __all__,
# which the module __getattr__ at the end answers). Loaded on first access (PEP 562) because
# action_text itself imports this module.
_TEXT_NAMES: tuple[str, ...] = (
    "FORMATS", "MAX_STEPS", "MAX_TEXT_CHARS", "SWIPE_CENTRE", "SWIPE_LENGTH", "ActionParseError",
    "parse_action", "parse_trajectory", "parse_plan", "format_action", "format_trajectory", "format_plan",
)

__all__ = [
    "MAX_COORD", "Direction", "DIRECTIONS", "ACTION_TYPES", "DONE",
    "Click", "Scroll", "Back", "OpenApp", "Type", "Answer", "Action", "ACTION_CLASSES",
    "RefStep", "PlanStep", "action_to_dict", "action_from_dict", "as_int", "checked_action",
    "rescale_action", "rescale_refstep", "rescale_box",
    *_TEXT_NAMES,
]

#: Largest ``|coordinate|`` an action may have (int32): beyond it an action is invalid, so no huge
#: integer reaches a history line (``str(int)`` raises past 4,300 digits) or a reward's arithmetic.
MAX_COORD: int = 2**31 - 1

Direction = Literal["up", "down", "left", "right"]
DIRECTIONS: tuple[str, ...] = ("up", "down", "left", "right")
ACTION_TYPES: tuple[str, ...] = ("click", "scroll", "back", "open_app", "type", "answer")
#: The plan terminator's type: a plan step ``PlanStep(action_type=DONE)`` says "the task is
#: complete after the steps before me; plan no further". It is not an env action.
DONE: str = "done"


@dataclass(frozen=True)
class Click:
    """Tap at pixel ``(x, y)`` of the screenshot."""

    x: int
    y: int
    type: str = field(default="click", init=False, repr=False)


@dataclass(frozen=True)
class Scroll:
    """Swipe so that content in ``direction`` is revealed ("down" shows what is below).

    ``(x, y)`` picks the scroll container under that point; ``None`` means the screen's
    main container.
    """

    direction: str
    x: int | None = None
    y: int | None = None
    type: str = field(default="scroll", init=False, repr=False)

    def __post_init__(self) -> None:
        # a str first: an array's `in` was numpy's "truth value of an array is ambiguous"
        if not isinstance(self.direction, str) or self.direction not in DIRECTIONS:
            raise ValueError(f"Scroll direction must be one of {DIRECTIONS}, got {self.direction!r:.60}")


@dataclass(frozen=True)
class Back:
    """System Back: pop the current screen (from an app's first screen: go home)."""

    type: str = field(default="back", init=False, repr=False)


@dataclass(frozen=True)
class OpenApp:
    """Bring the app called ``name`` to the foreground (from anywhere)."""

    name: str
    type: str = field(default="open_app", init=False, repr=False)


@dataclass(frozen=True)
class Type:
    """Replace the content of the focused text field with ``text`` (Android ``input_text``
    with clearing), so a wrong entry can always be corrected."""

    text: str
    type: str = field(default="type", init=False, repr=False)


@dataclass(frozen=True)
class Answer:
    """Reply ``text`` to the user and end the task (AndroidWorld's ``answer``). An information
    task ("What time does the meeting start?") succeeds when the answer matches the fact
    (:func:`guigym.answers.answers_match`); in a task that asks nothing it is a no-op."""

    text: str
    type: str = field(default="answer", init=False, repr=False)


Action = Union[Click, Scroll, Back, OpenApp, Type, Answer]
#: The action classes, in the order of :data:`ACTION_TYPES`: ``isinstance(x, ACTION_CLASSES)``
#: tells an action from anything else.
ACTION_CLASSES = (Click, Scroll, Back, OpenApp, Type, Answer)
_CLASS_OF: dict[str, type] = dict(zip(ACTION_TYPES, ACTION_CLASSES))


@dataclass(frozen=True)
class RefStep:
    """One step of a dense reference trajectory.

    ``action`` is grounded at a point inside ``box`` (``(x0, y0, x1, y1)``, inclusive pixel
    bounds on the active backend) of the widget ``target``; ``instruction`` is the grounding
    sentence ("Click the 'Sign in' button"); ``event`` is the semantic event the step must
    produce. Back, OpenApp and Answer have ``box=None``; a Type step carries the box of the
    field it types into, and ``target`` that field. ``label`` is the visible
    label of ``target`` (the app name for OpenApp), which rewards use to tell whether an
    ungrounded plan step names the right element.
    """

    action: Action
    target: str | None
    box: tuple[int, int, int, int] | None
    instruction: str
    event: Event | None = None
    label: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (used for datasets and TRL reward columns)."""
        return {
            "action": action_to_dict(self.action),
            "target": self.target,
            "box": list(self.box) if self.box is not None else None,
            "instruction": self.instruction,
            "event": self.event.to_dict() if self.event is not None else None,
            "label": self.label,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RefStep":
        """Inverse of :meth:`to_dict`. The box's and the action's coordinates are read as
        :func:`action_from_dict` reads coordinates (floats rounded to the nearest pixel, as
        :func:`~guigym.action_text.parse_action` rounds them, so a point inside a float box stays
        inside the rounded one); a box that is not four such numbers, an event whose ``kind``
        is not one of :data:`~guigym.events.EventKind`, or no ``action``, is a ``ValueError``;
        ``d`` not a mapping a ``TypeError`` (they were a bare ``KeyError`` and ``AttributeError``).

        >>> RefStep.from_dict({"action": {"type": "click", "x": 10.7, "y": 20}, "target": "ok",
        ...                    "box": [4.2, 10, 16.7, 30], "instruction": "Click OK"}).box
        (4, 10, 17, 30)
        """
        if not isinstance(d, Mapping):
            raise TypeError(f"a RefStep dict must be a mapping (RefStep.to_dict()'s form), got {type(d).__name__}")
        if "action" not in d:
            raise ValueError(f"a RefStep dict needs an 'action'; got the keys {sorted(map(str, d))[:10]}")
        box = d.get("box")
        if box is not None and (not isinstance(box, (list, tuple, np.ndarray)) or len(box) != 4):  # a str was read digit by digit
            raise ValueError(f"RefStep box must be [x0, y0, x1, y1] or None, got {box!r:.60}")
        ev = d.get("event")
        return cls(
            action=action_from_dict(d["action"]),
            target=d.get("target"),
            box=tuple(_coord(v, "box") for v in box) if box is not None else None,  # type: ignore[arg-type]
            instruction=d.get("instruction", ""),
            event=_event_from_dict(ev) if ev else None,
            label=d.get("label"),
        )


def _event_from_dict(ev: Any) -> Event:
    """A reference step's event: :meth:`Event.from_dict` (which checks its kind and widget:
    ``Event(kind=3)`` was accepted and matched nothing), the message naming the RefStep."""
    if not isinstance(ev, Mapping):
        raise ValueError(f"RefStep event must be a dict, got {type(ev).__name__}")
    try:
        return Event.from_dict(ev)
    except (KeyError, ValueError) as e:
        raise ValueError(f"RefStep event: {e}") from None


def _coord(v: Any, what: str) -> int:
    """A coordinate read from JSON-like data as a Python ``int``: an integer (numpy's too), a
    string of one, or a finite float rounded to the nearest pixel (``10.7`` -> 11, as
    :func:`~guigym.action_text.parse_action` rounds float coordinates; ``int()`` truncated it
    to 10), then checked as :func:`as_int` checks one. A bool, NaN, infinity, anything beyond
    ``±MAX_COORD`` or else is a ``ValueError``."""
    if isinstance(v, np.ndarray) and v.ndim == 0:  # a 0-d array, as as_int takes
        v = v[()]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (str, numbers.Real)):
        raise ValueError(f"{what} must be a number, got {type(v).__name__}")
    if isinstance(v, str):
        try:
            v = int(v)
        except ValueError:
            raise ValueError(f"{what} must be an integer, got {v!r:.60}") from None
    elif not isinstance(v, (int, np.integer)):
        if not math.isfinite(v):
            raise ValueError(f"{what} must be finite, got {v!r}")
        v = round(float(v))
    return as_int(v, what)


def action_to_dict(a: Action) -> dict[str, Any]:
    """Canonical dict of an action: ``{"type": "click", "x": 3, "y": 4}`` etc. (the one
    action↔dict converter; the text formats and exports map their vocabularies onto it).
    A Scroll's point appears only when both coordinates are set."""
    if not isinstance(a, ACTION_CLASSES):
        raise TypeError(f"not an action: {a!r}")
    d: dict[str, Any] = {"type": a.type}
    d.update((f.name, getattr(a, f.name)) for f in fields(a) if f.init)
    if isinstance(a, Scroll) and (a.x is None or a.y is None):
        del d["x"], d["y"]
    return d


def _whole_point(x: Any, y: Any) -> None:
    """A Scroll's point is whole or absent, as in the text formats; half a point is a ``ValueError``."""
    if (x is None) != (y is None):
        raise ValueError(f"Scroll needs both x and y, or neither (the main container), got x={x!r}, y={y!r}")


def action_from_dict(d: Mapping[str, Any]) -> Action:
    """Inverse of :func:`action_to_dict` (coordinates read as ``int``, floats rounded to the
    nearest pixel as :func:`~guigym.action_text.parse_action` rounds them, strings cast to
    ``str``; a coordinate that is no number, or a field the type needs that is missing, is a
    ``ValueError``; ``d`` not a mapping a ``TypeError``: both were a bare ``KeyError`` or
    ``AttributeError`` from inside).

    >>> action_from_dict({"type": "click", "x": 3})
    Traceback (most recent call last):
    ...
    ValueError: a click action needs 'y'; got the keys ['type', 'x']
    """
    if not isinstance(d, Mapping):
        raise TypeError(f"an action dict must be a mapping such as {{'type': 'click', 'x': 3, 'y': 4}}, got {type(d).__name__}")
    t = d.get("type")
    if not isinstance(t, str) or t not in _CLASS_OF:
        raise ValueError(f"unknown action type {t!r:.60}; expected one of {ACTION_TYPES}")
    cls = _CLASS_OF[t]
    need = ["direction"] if t == "scroll" else [f.name for f in fields(cls) if f.init]
    missing = [k for k in need if k not in d]
    if missing:
        raise ValueError(f"a {t} action needs {', '.join(map(repr, missing))}; got the keys {sorted(map(str, d))[:10]}")
    if t == "scroll":
        x, y = d.get("x"), d.get("y")
        _whole_point(x, y)
        return Scroll(d["direction"], None if x is None else _coord(x, "x"), None if y is None else _coord(y, "y"))
    cast: dict[str, Any] = {"x": lambda v: _coord(v, "x"), "y": lambda v: _coord(v, "y"), "name": str, "text": str}
    return cls(**{f.name: cast[f.name](d[f.name]) for f in fields(cls) if f.init})


def as_int(v: Any, what: str) -> int:
    """``v`` as a Python ``int``: an ``int``, a numpy integer (a policy's ``argmax``) or a 0-d
    integer array, within ``±MAX_COORD``. A bool, float, string or anything else is a
    ``ValueError`` (whose message never prints a huge value).

    >>> as_int(np.int64(7), "x"), as_int(np.array(3), "y")
    (7, 3)
    """
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise ValueError(f"{what} must be an integer, got {type(v).__name__}")
    if not -MAX_COORD <= v <= MAX_COORD:
        raise ValueError(f"{what} must be within ±{MAX_COORD}")
    return int(v)


def checked_action(a: Action) -> Action:
    """``a`` with every field checked and made plain: coordinates Python ints (numpy integers
    accepted, see :func:`as_int`), a Scroll's direction one of :data:`DIRECTIONS`, names and
    texts ``str``. Raises ``ValueError`` (``TypeError`` for a non-action) on anything else, so
    callers can reject the action before any state changes.

    >>> checked_action(Click(np.int64(100), np.int64(200)))
    Click(x=100, y=200)
    """
    if isinstance(a, Click):
        return Click(as_int(a.x, "x"), as_int(a.y, "y"))
    if isinstance(a, Scroll):
        if not isinstance(a.direction, str) or a.direction not in DIRECTIONS:
            raise ValueError(f"Scroll direction must be one of {DIRECTIONS}")
        _whole_point(a.x, a.y)
        x = None if a.x is None else as_int(a.x, "x")
        return Scroll(str(a.direction), x, None if a.y is None else as_int(a.y, "y"))
    if isinstance(a, OpenApp):
        if not isinstance(a.name, str):
            raise ValueError(f"OpenApp name must be a str, got {type(a.name).__name__}")
        return OpenApp(str(a.name))
    if isinstance(a, (Type, Answer)):
        if not isinstance(a.text, str):
            raise ValueError(f"{type(a).__name__} text must be a str, got {type(a.text).__name__}")
        return type(a)(str(a.text))
    if isinstance(a, Back):
        return a
    raise TypeError(f"not an action: {type(a).__name__}")


@dataclass(frozen=True)
class PlanStep:
    """One step of a plan (TraceR1 planner output).

    Either grounded (``action`` is set, e.g. ``Click(40, 200)``) or ungrounded: only an
    ``action_type`` and a grounding ``instruction`` ("Click the 'Sign in' button"), which an
    executor turns into a concrete action. ``instruction`` may accompany a grounded action too.
    """

    action: Action | None = None
    instruction: str = ""
    action_type: str | None = None

    @property
    def grounded(self) -> bool:
        return self.action is not None

    @property
    def kind(self) -> str | None:
        """The action type, whether grounded or not (:data:`DONE` for the plan terminator)."""
        return self.action.type if self.action is not None else self.action_type

    @property
    def done(self) -> bool:
        """Whether this step ends the plan (``PlanStep(action_type=DONE)``)."""
        return self.action is None and self.action_type == DONE


def rescale_action(action: Action, from_size: tuple[int, int], to_size: tuple[int, int]) -> Action:
    """Map a Click/Scroll point from an image of ``from_size`` (w, h) to one of ``to_size``
    (e.g. from a model's resized input back to the screenshot), rounding to pixels.
    Other actions, and a Scroll without a point, are returned unchanged. A size that is not two
    finite positive numbers, or a point that is no finite number (``Click(inf, 3)``), is a
    ``ValueError`` (they were an ``OverflowError``, or numpy's overflow of an ``int8`` point)."""
    (fw, fh), (tw, th) = _sizes(from_size, to_size)
    if isinstance(action, Click):
        return Click(round(_scaled(action.x, tw, fw, "x")), round(_scaled(action.y, th, fh, "y")))
    if isinstance(action, Scroll) and action.x is not None and action.y is not None:
        return Scroll(action.direction, round(_scaled(action.x, tw, fw, "x")), round(_scaled(action.y, th, fh, "y")))
    return action


def _sizes(from_size: Any, to_size: Any) -> tuple[tuple[float, float], tuple[float, float]]:
    """``from_size`` and ``to_size`` checked: each ``(w, h)``, two finite numbers > 0, else a ``ValueError``."""
    out = []
    for size in (from_size, to_size):
        try:
            w, h = size
            ok = all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and math.isfinite(v) and float(v) > 0
                     for v in (w, h))
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            raise ValueError(f"sizes must be (width, height), two finite numbers > 0, got {from_size!r:.60} and {to_size!r:.60}")
        out.append((w, h))
    return out[0], out[1]


def _scaled(v: Any, to: float, frm: float, what: str) -> float:
    """Coordinate ``v`` scaled by ``to / frm`` (as ``v * to / frm``), a finite float; a ``ValueError``
    for anything but a finite number."""
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v[()]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise ValueError(f"{what} must be a number, got {type(v).__name__}")
    try:  # a Python int or float: a numpy int8 point overflowed, times a 640-pixel size
        out = (int(v) if isinstance(v, (int, np.integer)) else float(v)) * to / frm
    except OverflowError:
        out = math.inf
    if not math.isfinite(out):
        raise ValueError(f"{what} must be finite, got {_short_number(v)}")
    return out


def _short_number(v: Any) -> str:
    """``repr(v)``, cut: a huge int's repr is long (and raises past 4,300 digits)."""
    try:
        text = repr(v)
    except ValueError:
        return f"an int of over {sys.get_int_max_str_digits()} digits"
    return text if len(text) <= 40 else text[:40] + "…"


def rescale_refstep(step: RefStep, from_size: tuple[int, int], to_size: tuple[int, int]) -> RefStep:
    """A :class:`RefStep` with its action point and box mapped from ``from_size`` to
    ``to_size`` (w, h): the reference in the pixels of a model's resized image, so rewards
    compare like with like. The box is scaled outward (floor/ceil) so it never shrinks.

    >>> rescale_refstep(RefStep(Click(100, 50), "ok", (80, 40, 120, 60), "Click OK"), (200, 100), (100, 50)).box
    (40, 20, 60, 30)
    """
    box = None if step.box is None else rescale_box(step.box, from_size, to_size)
    return RefStep(rescale_action(step.action, from_size, to_size), step.target, box, step.instruction, step.event, step.label)


def rescale_box(box: Sequence[float], from_size: tuple[int, int], to_size: tuple[int, int]) -> tuple[int, int, int, int]:
    """``box`` (x0, y0, x1, y1) mapped from an image of ``from_size`` (w, h) to one of
    ``to_size``, scaled outward (floor/ceil) so it never shrinks: a reference step's box, or an
    element's (an exported ``elements`` column) in a model's resized image.

    >>> rescale_box((80, 40, 121, 60), (200, 100), (100, 50))
    (40, 20, 61, 30)

    A size or a box that is not finite numbers is a ``ValueError`` (as in :func:`rescale_action`).
    """
    (fw, fh), (tw, th) = _sizes(from_size, to_size)
    try:
        x0, y0, x1, y1 = box
    except (TypeError, ValueError):
        raise ValueError(f"box must be (x0, y0, x1, y1), got {box!r:.60}") from None
    return (math.floor(_scaled(x0, tw, fw, "box")), math.floor(_scaled(y0, th, fh, "box")),
            math.ceil(_scaled(x1, tw, fw, "box")), math.ceil(_scaled(y1, th, fh, "box")))


def __getattr__(name: str) -> Any:
    if name in _TEXT_NAMES:
        from guigym import action_text

        return getattr(action_text, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_TEXT_NAMES))
