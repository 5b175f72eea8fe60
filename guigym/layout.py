"""The shared layout: where every widget of a :class:`~guigym.apps.base.View` sits.

Both backends place widgets at these boxes (the mock draws there; the browser runtime
positions real DOM elements there), so boxes, visibility and scroll rows agree across
backends by construction, and the oracle can ground future steps without rendering them.
Scroll positions are semantic: the first visible row of the body.
"""

from __future__ import annotations

from dataclasses import dataclass

from guigym.apps.base import ICONS_PER_PAGE, View, Widget

Box = tuple[int, int, int, int]  # (x0, y0, x1, y1), inclusive

STATUS_H = 24
TITLE_H = 56
ROW_H = 56
PAD_X = 16
PAD_Y = 6
GRID_COLS = 4
GRID_ROWS = ICONS_PER_PAGE // GRID_COLS
CELL_H = 100
MIN_VIEWPORT = (240, STATUS_H + TITLE_H + 4 * ROW_H)


@dataclass
class Layout:
    """Boxes of the visible widgets of one view on a ``width`` x ``height`` screen."""

    width: int
    height: int
    visible: list[tuple[Widget, Box]]
    body: Box
    n_visible: int  # rows that fit in the body
    max_scroll: int
    step: int  # rows one Scroll action moves

    def box(self, wid: str) -> Box | None:
        for w, b in self.visible:
            if w.id == wid:
                return b
        return None

    def hit(self, x: int, y: int) -> Widget | None:
        """The interactive widget under ``(x, y)``, if any."""
        for w, (x0, y0, x1, y1) in self.visible:
            if x0 <= x <= x1 and y0 <= y <= y1 and w.interactive:
                return w
        return None


def check_viewport(viewport: tuple[int, int]) -> tuple[int, int]:
    w, h = int(viewport[0]), int(viewport[1])
    if w < MIN_VIEWPORT[0] or h < MIN_VIEWPORT[1]:
        raise ValueError(f"viewport must be at least {MIN_VIEWPORT[0]}x{MIN_VIEWPORT[1]} (width, height), got {w}x{h}")
    return w, h


def body_rows(height: int) -> int:
    return (height - STATUS_H - TITLE_H) // ROW_H


def scroll_step(height: int) -> int:
    """Rows one Scroll moves: half a page, as a swipe does on a phone."""
    return max(1, body_rows(height) // 2)


def row_box(width: int, i: int) -> Box:
    """Box of the ``i``-th visible body row."""
    y0 = STATUS_H + TITLE_H + i * ROW_H
    return (PAD_X, y0 + PAD_Y, width - PAD_X - 1, y0 + ROW_H - PAD_Y - 1)


def icon_box(width: int, slot: int) -> Box:
    cw = width // GRID_COLS
    c, r = slot % GRID_COLS, slot // GRID_COLS
    y0 = STATUS_H + 16 + r * CELL_H
    return (c * cw + 4, y0, c * cw + cw - 5, y0 + CELL_H - 9)


def layout(v: View, width: int, height: int) -> Layout:
    """Place ``v`` on a ``width`` x ``height`` screen."""
    if v.grid:
        first = v.page * ICONS_PER_PAGE
        vis = [(w, icon_box(width, i)) for i, w in enumerate(v.rows[first:first + ICONS_PER_PAGE])]
        return Layout(width, height, vis, (0, STATUS_H, width - 1, height - 1), GRID_ROWS, v.pages - 1, 1)
    n = body_rows(height)
    max_scroll = max(0, len(v.rows) - n)
    first = min(v.scroll, max_scroll)
    vis = [(w, row_box(width, i)) for i, w in enumerate(v.rows[first:first + n])]
    body = (0, STATUS_H + TITLE_H, width - 1, height - 1)
    return Layout(width, height, vis, body, n, max_scroll, scroll_step(height))


def scroll_delta(v: View, lay: Layout, direction: str) -> int:
    """Rows the body moves for a Scroll in ``direction`` (0: nothing to scroll)."""
    if v.grid:
        if direction == "right":
            return 1 if v.page < v.pages - 1 else 0
        if direction == "left":
            return -1 if v.page > 0 else 0
        return 0
    first = min(v.scroll, lay.max_scroll)
    if direction == "down":
        target = min(first + lay.step, lay.max_scroll)
    elif direction == "up":
        target = max(first - lay.step, 0)
    else:
        return 0
    # relative to the stored row, so that stored + delta is the clamped target
    return 0 if target == first else target - v.scroll
