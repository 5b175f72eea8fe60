"""Semantic events: what a backend reports that the user did, in app terms.

A backend turns a low-level action (a click at x, y; a wheel; typed keys) into at most one
of these; the app model (``guigym.apps``) consumes them. Comparing events, not pixels, is
how the grounded reward (TraceR1 stage 2) decides whether an action "did the right thing".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

EventKind = Literal["click", "input", "toggle", "scroll", "back", "open_app", "page", "answer"]
EVENT_KINDS: tuple[str, ...] = get_args(EventKind)


@dataclass(frozen=True)
class Event:
    """One semantic event.

    * ``click``: ``widget`` was activated (button, link, input focus, radio option, icon).
    * ``input``: ``value`` (str) was written into the text field ``widget``.
    * ``toggle``: the checkbox/switch ``widget`` was set to ``value`` (bool).
    * ``scroll``: the scroll container ``widget`` moved by ``value`` rows (int, + = down).
    * ``page``: the home screen moved by ``value`` pages (int, + = right).
    * ``back``: system Back.
    * ``open_app``: the app ``value`` (its name) was brought to the foreground.
    * ``answer``: the user was told ``value`` (the text of an ``Answer``; in a reference step, the
      expected answer: a string, a number or a list, see :func:`guigym.answers.answers_match`).
    """

    kind: EventKind
    widget: str | None = None
    value: Any = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Event":
        """Inverse of :meth:`to_dict`. A ``kind`` that is not one of :data:`EVENT_KINDS`, or a
        ``widget`` that is not a str or ``None``, is a ``ValueError`` (``{"kind": 3}`` was an
        event that matched nothing, or another such event); a missing ``kind`` a ``KeyError``."""
        kind, widget = d["kind"], d.get("widget")
        if not isinstance(kind, str) or kind not in EVENT_KINDS:
            raise ValueError(f"event kind must be one of {EVENT_KINDS}, got {kind!r:.60}")
        if widget is not None and not isinstance(widget, str):
            raise ValueError(f"event widget must be a str or None, got {type(widget).__name__}")
        return cls(kind, widget, d.get("value"))  # type: ignore[arg-type]
