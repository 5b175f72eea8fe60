"""The backend interface, and the hit-testing rules shared by backends that need them."""

from __future__ import annotations

from typing import Any

import numpy as np

from guigym.actions import Action, Click, Scroll, Type
from guigym.apps.base import TEXT_KINDS, View
from guigym.events import Event
from guigym.layout import Box, Layout, scroll_delta


class Backend:
    """Draws the current :class:`View` and executes pointer/keyboard actions on it.

    System actions (Back, OpenApp) never reach a backend: the env turns them into events.
    """

    name = "base"
    #: True while :meth:`guigym.env.GuiEnv.step` runs (set by the env): a backend that finds
    #: its renderer dead must then raise rather than quietly start a new one (steps raise
    #: until the next ``reset()``, which may restart it)
    in_step: bool = False

    def __init__(self, width: int, height: int, **kwargs: Any) -> None:
        self.width, self.height = width, height

    def show(self, v: View, lay: Layout) -> None:
        """Make ``v`` (placed by ``lay``) the current screen."""
        raise NotImplementedError

    def screenshot(self) -> np.ndarray:
        """The current screen as a fresh ``(height, width, 3)`` uint8 array."""
        raise NotImplementedError

    def perform(self, action: Action) -> tuple[Event | None, str | None]:
        """Execute a Click, Scroll or Type on the current screen.

        Returns the semantic event it produced (None: no effect) and an error message for an
        invalid action (None: valid). Never raises for bad actions.
        """
        raise NotImplementedError

    def boxes(self) -> dict[str, Box]:
        """On-screen boxes of the visible widgets, by id."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources. Idempotent."""


def off_screen(x: int, y: int, width: int, height: int) -> bool:
    return not (0 <= x < width and 0 <= y < height)


def event_for(action: Action, v: View, lay: Layout) -> tuple[Event | None, str | None]:
    """The semantic event of a Click/Scroll/Type on ``v`` under the shared layout rules."""
    if isinstance(action, Click):
        if off_screen(action.x, action.y, lay.width, lay.height):
            return None, f"click ({action.x}, {action.y}) is outside the {lay.width}x{lay.height} screen"
        w = lay.hit(action.x, action.y)
        if w is None:
            return None, None
        if w.kind in ("checkbox", "toggle"):
            return Event("toggle", w.id, not bool(w.value)), None
        return Event("click", w.id), None
    if isinstance(action, Scroll):
        if action.x is not None and action.y is not None and off_screen(action.x, action.y, lay.width, lay.height):
            return None, f"scroll origin ({action.x}, {action.y}) is outside the {lay.width}x{lay.height} screen"
        delta = scroll_delta(v, lay, action.direction)
        if delta == 0:
            return None, None
        return (Event("page", None, delta) if v.grid else Event("scroll", "body", delta)), None
    if isinstance(action, Type):
        w = v.find(v.focus) if v.focus is not None else None
        if w is None or w.kind not in TEXT_KINDS:  # no field (set_state refuses such a focus)
            return None, "Type needs a focused text field; click one first"
        return Event("input", v.focus, action.text), None
    return None, f"{type(action).__name__} is not a pointer or keyboard action"
