"""The shared layout: where every widget of a :class:`~guigym.apps.base.View` sits.

Both backends place widgets at these boxes (the mock draws there; the browser runtime
positions real DOM elements there), so boxes, visibility and scroll rows agree across
backends by construction, and the oracle can ground future steps without rendering them.
Scroll positions are semantic: the first visible row of the body.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

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
#: The largest: a 4K screen's longer side both ways (a frame of 48 MiB; beyond it an env would
#: fail allocating its observation space's bounds, or Chromium its window).
MAX_VIEWPORT = (4096, 4096)
#: The ``density`` variation (guigym.variation): a list row's height and the rows' side
#: padding, per density (``comfortable``: the default, :data:`ROW_H` and :data:`PAD_X`). The
#: gap between rows (``2 * PAD_Y``) stays, so a widget's box grows or shrinks with its row.
DENSITIES: dict[str, tuple[int, int]] = {
    "dense": (50, 8), "compact": (52, 12), "comfortable": (ROW_H, PAD_X), "spacious": (64, 22), "roomy": (72, 28),
}
#: Named viewports for ``gym.make(id, viewport=...)``: ``(width, height)``.
VIEWPORTS: dict[str, tuple[int, int]] = {
    "portrait": (360, 640), "landscape": (640, 360), "small": (320, 480), "tablet": (600, 960),
}


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
    backdrop: Layout | None = None  # a dialog's: where the (inert) screen under it sits
    end: int = 0  # index (in ``View.rows``) of the first row after the visible ones
    row_h: int = ROW_H  # a body row's height and the side padding (the view's density)
    pad_x: int = PAD_X

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


def check_viewport(viewport: tuple[int, int] | str) -> tuple[int, int]:
    """``(width, height)`` of a ``viewport``: a pair, or a name in :data:`VIEWPORTS`."""
    if isinstance(viewport, str):
        if viewport not in VIEWPORTS:
            raise ValueError(f"unknown viewport {viewport!r}; expected (width, height) or one of {sorted(VIEWPORTS)}")
        viewport = VIEWPORTS[viewport]
    w, h = int(viewport[0]), int(viewport[1])
    if w < MIN_VIEWPORT[0] or h < MIN_VIEWPORT[1]:
        raise ValueError(f"viewport must be at least {MIN_VIEWPORT[0]}x{MIN_VIEWPORT[1]} (width, height), got {w}x{h}")
    if w > MAX_VIEWPORT[0] or h > MAX_VIEWPORT[1]:
        raise ValueError(f"viewport must be at most {MAX_VIEWPORT[0]}x{MAX_VIEWPORT[1]} (width, height), got {w}x{h}")
    return w, h


def density(v: View) -> tuple[int, int]:
    """``(row height, side padding)`` of ``v``: its theme's ``density`` (:data:`DENSITIES`)."""
    d = v.theme.get("density") if v.theme else None
    if not d:
        return ROW_H, PAD_X
    if d not in DENSITIES:
        raise ValueError(f"unknown density {d!r}; expected one of {sorted(DENSITIES)}")
    return DENSITIES[d]


def body_rows(height: int, row_h: int = ROW_H) -> int:
    return (height - STATUS_H - TITLE_H) // row_h


def scroll_step(height: int, row_h: int = ROW_H) -> int:
    """Rows one Scroll moves: half a page, as a swipe does on a phone."""
    return max(1, body_rows(height, row_h) // 2)


def row_box(width: int, i: int, row_h: int = ROW_H, pad_x: int = PAD_X) -> Box:
    """Box of the ``i``-th visible body row."""
    y0 = STATUS_H + TITLE_H + i * row_h
    return (pad_x, y0 + PAD_Y, width - pad_x - 1, y0 + row_h - PAD_Y - 1)


def span_box(width: int, unit: int, span: int, row_h: int = ROW_H, pad_x: int = PAD_X) -> Box:
    """Box of a body row ``span`` rows tall whose top is ``unit`` rows down the body."""
    y0 = STATUS_H + TITLE_H + unit * row_h
    return (pad_x, y0 + PAD_Y, width - pad_x - 1, y0 + span * row_h - PAD_Y - 1)


#: Horizontal gap between the cells of a row.
CELL_GAP = 8


def cell_boxes(box: Box, weights: list[int]) -> list[Box]:
    """``box`` split side by side into cells of relative widths ``weights``, :data:`CELL_GAP` apart.

    >>> cell_boxes((16, 86, 343, 129), [2, 1, 1])
    [(16, 86, 171, 129), (180, 86, 257, 129), (266, 86, 343, 129)]
    """
    x0, y0, x1, y1 = box
    k = len(weights)
    total = x1 - x0 + 1 - CELL_GAP * (k - 1)
    whole = sum(weights)
    out, cum = [], 0
    for i, wt in enumerate(weights):
        a = x0 + total * cum // whole + CELL_GAP * i
        cum += wt
        out.append((a, y0, x0 + total * cum // whole + CELL_GAP * i - 1, y1))
    return out


def _span(w: Widget, n: int, inner: int, v: View) -> int:
    """Rows of height of ``w`` (at most the ``n`` of the body): its ``span``; a label's of span 0:
    its lines at the view's font scale and font in ``inner`` px."""
    if w.span:
        return max(1, min(n, w.span))
    from guigym.display import label_lines  # display imports this module

    return max(1, min(n, len(label_lines(w, inner, v))))


def _place(w: Widget, box: Box) -> list[tuple[Widget, Box]]:
    """A row at ``box``: itself, or its cells side by side."""
    if not w.cells:
        return [(w, box)]
    return list(zip(w.cells, cell_boxes(box, w.weights or [1] * len(w.cells))))


#: A select's dropdown menu: its panel's gap below the title bar and its heading's height.
MENU_TOP = 16
MENU_HEAD = 48


def _menu_layout(v: View, width: int, height: int) -> Layout:
    """A select's dropdown (``v.rows``: the ``menu`` panel, then the options): a panel over the
    screen with the options as rows in it; a long list scrolls inside the panel."""
    opts = v.rows[1:]
    body_h = height - STATUS_H - TITLE_H
    row_h, pad_x = density(v)
    fit = max(1, (body_h - 2 * MENU_TOP - MENU_HEAD) // row_h)
    k = max(1, min(len(opts), fit))
    x0, x1 = DIALOG_MARGIN, width - DIALOG_MARGIN - 1
    y0 = STATUS_H + TITLE_H + MENU_TOP
    panel = (x0, y0, x1, y0 + MENU_HEAD + k * row_h + 8 - 1)
    max_scroll = max(0, len(opts) - k)
    first = min(v.scroll, max_scroll)
    vis: list[tuple[Widget, Box]] = [(v.rows[0], panel)] if v.rows else []
    for i, w in enumerate(opts[first:first + k]):
        y = y0 + MENU_HEAD + i * row_h
        vis.append((w, (x0 + 8, y + PAD_Y, x1 - 8, y + row_h - PAD_Y - 1)))
    back = layout(v.backdrop, width, height) if v.backdrop is not None else None
    return Layout(width, height, vis, panel, k, max_scroll, max(1, k // 2), back, 1 + first + k, row_h, pad_x)


#: Height kept free below the home grid (its page dots).
GRID_FOOT = 40


def grid_shape(width: int, height: int) -> tuple[int, int]:
    """``(columns, rows)`` of the home grid on a ``width`` x ``height`` screen: :data:`GRID_ROWS`
    rows of :data:`GRID_COLS` when they fit (the default portrait screen), else as many rows
    as fit and the page's icons spread over more columns (a landscape screen).

    >>> grid_shape(360, 640), grid_shape(640, 360), grid_shape(320, 480)
    ((4, 5), (10, 2), (5, 4))
    """
    rows = max(1, min(GRID_ROWS, (height - STATUS_H - 16 - GRID_FOOT) // CELL_H))
    return -(-ICONS_PER_PAGE // rows), rows


def icon_box(width: int, slot: int, cols: int = GRID_COLS) -> Box:
    cw = width // cols
    c, r = slot % cols, slot // cols
    y0 = STATUS_H + 16 + r * CELL_H
    return (c * cw + 4, y0, c * cw + cw - 5, y0 + CELL_H - 9)


#: A dialog: its panel's margin to the screen's sides, its height, and its buttons' height and padding.
DIALOG_MARGIN = 24
DIALOG_H = 176
DIALOG_BUTTON_H = 44
DIALOG_PAD = 16


def dialog_boxes(width: int, height: int, n_buttons: int) -> tuple[Box, list[Box]]:
    """The panel of a dialog, centred in the rows' area, and its ``n_buttons`` buttons, side by
    side along the panel's bottom edge.

    >>> dialog_boxes(360, 640, 2)
    ((24, 272, 335, 447), [(40, 388, 173, 431), (186, 388, 319, 431)])
    """
    top = STATUS_H + TITLE_H
    y0 = top + (body_rows(height) * ROW_H - DIALOG_H) // 2
    x0, x1, y1 = DIALOG_MARGIN, width - DIALOG_MARGIN - 1, y0 + DIALOG_H - 1
    by1 = y1 - DIALOG_PAD
    by0 = by1 - DIALOG_BUTTON_H + 1
    inner = x1 - x0 + 1 - 2 * DIALOG_PAD
    gap = 12
    bw = (inner - gap * (n_buttons - 1)) // max(1, n_buttons)
    buttons = [(x0 + DIALOG_PAD + i * (bw + gap), by0, x0 + DIALOG_PAD + i * (bw + gap) + bw - 1, by1) for i in range(n_buttons)]
    return (x0, y0, x1, y1), buttons


def layout(v: View, width: int, height: int) -> Layout:
    """Place ``v`` on a ``width`` x ``height`` screen."""
    if v.backdrop is not None and v.rows and v.rows[0].kind == "menu":
        return _menu_layout(v, width, height)
    if v.backdrop is not None:  # a dialog: its panel (the first row), then its buttons; nothing scrolls
        panel, buttons = dialog_boxes(width, height, len(v.rows) - 1)
        vis = list(zip(v.rows, [panel, *buttons]))
        body = (0, STATUS_H + TITLE_H, width - 1, height - 1)
        return Layout(width, height, vis, body, body_rows(height), 0, scroll_step(height), layout(v.backdrop, width, height), len(v.rows))
    if v.grid:
        first = v.page * ICONS_PER_PAGE
        cols, grid_rows = grid_shape(width, height)
        vis = [(w, icon_box(width, i, cols)) for i, w in enumerate(v.rows[first:first + ICONS_PER_PAGE])]
        return Layout(width, height, vis, (0, STATUS_H, width - 1, height - 1), grid_rows, v.pages - 1, 1,
                      end=first + len(vis))
    row_h, pad_x = density(v)
    n = body_rows(height, row_h)
    body = (0, STATUS_H + TITLE_H, width - 1, height - 1)
    rows = v.rows
    # a label of span 0 is as many rows tall as its text needs, wrapped to the row's width at the
    # view's font scale and font (guigym.display.label_lines): one row where it fits
    spans = [_span(w, n, width - 2 * pad_x, v) for w in rows] if any(w.span != 1 for w in rows) else None
    if (spans is None or all(s == 1 for s in spans)) and not any(w.cells for w in rows):  # the common case: one widget per row-high row
        max_scroll = max(0, len(rows) - n)
        first = min(v.scroll, max_scroll)
        vis = [(w, row_box(width, i, row_h, pad_x)) for i, w in enumerate(rows[first:first + n])]
        return Layout(width, height, vis, body, n, max_scroll, scroll_step(height, row_h), end=first + len(vis), row_h=row_h, pad_x=pad_x)
    # rows several rows tall (multi-line text) or split into cells: the last scroll position
    # is the first row from which the rest fits
    spans = spans or [1] * len(rows)
    max_scroll, rest = len(rows), 0
    for i in range(len(rows) - 1, -1, -1):
        if rest + spans[i] > n:
            break
        rest += spans[i]
        max_scroll = i
    max_scroll = min(max_scroll, max(0, len(rows) - 1))
    first = min(v.scroll, max_scroll)
    vis, unit, end = [], 0, first
    for i in range(first, len(rows)):
        if unit + spans[i] > n:
            break
        w = rows[i] if rows[i].span or spans[i] == 1 else replace(rows[i], span=spans[i])  # a wrapped label: its rows, to draw
        vis += _place(w, span_box(width, unit, spans[i], row_h, pad_x))
        unit += spans[i]
        end = i + 1
    # a Scroll moves at most the rows on screen: half a page of rows (the step of one-row rows)
    # jumped over tall rows (wrapped messages at a narrow viewport) that no position then showed
    step = max(1, min(scroll_step(height, row_h), end - first))
    return Layout(width, height, vis, body, n, max_scroll, step, end=end, row_h=row_h, pad_x=pad_x)


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
