"""The display list: everything a screen shows, as plain records with every colour and offset resolved.

:func:`display_list` turns a :class:`~guigym.apps.base.View` placed by the shared
:class:`~guigym.layout.Layout` into a list of JSON-serialisable dicts, drawn in order. Both
renderers draw exactly this list and hold no layout arithmetic of their own: the mock backend
paints it with pygame, the browser runtime (``sites/runtime.js``) builds DOM from it.

Records (``type``):

* ``rect``: ``box`` ``[x, y, w, h]``, ``color``, ``radius`` (rounded corners), ``border``
  (outline width; 0: filled).
* ``circle``: ``center`` ``[x, y]``, ``r``, ``color``, ``border`` (0: filled).
* ``lines``: an open polyline: ``points`` ``[[x, y], ...]``, ``color``, ``width``.
* ``text``: one line of ``text`` at ``x``, ``y`` in ``color``; ``size`` is the mock font's
  nominal size and ``px`` the same glyph height in CSS pixels; ``bold``. ``align``: ``left``
  (left edge at ``x``), ``right`` (right edge at ``x``), ``center`` (centred in
  ``[x, x + w)`` when ``w`` is given, else on ``x``); ``valign``: ``top`` (top at ``y``) or
  ``middle`` (centred on ``y``); ``clip``: the widest the text may be drawn (None: no limit);
  ``font`` (only under the ``font`` variation): a bundled font's name (:mod:`guigym.fonts`),
  drawn at ``px`` pixels from the same file by both renderers, regular weight unless ``bold``;
  ``full`` (only on a shortened text): the whole text, of which ``text`` is the longest prefix
  that fits its space, ending in "…" (see *Text that does not fit* below); ``wrap`` (a line of
  a text wrapped over several, a grid tile's name): ``[whole text, line, lines, characters a
  line]``, from which :func:`fit_texts` makes the line (:func:`wrap_fit`).
* ``widget``: one widget of the view: ``id``, ``kind``, ``box`` (inclusive, as in the
  layout: the hit box), ``interactive``, ``focused``, ``value`` (an input's text, a
  checkbox/toggle/radio's state), ``secret``, ``group``, ``bg`` (the colour under it),
  ``clip`` (``[w, h]`` from the box's corner: its drawing is clipped to the box and the gap
  below it, where a list row draws its divider; None: it may overflow) and
  ``parts``: ``rect``/``circle``/``lines``/``text`` records relative to the box's corner;
  ``inert``: present (True) on the widgets of the screen under a dialog, drawn dimmed, never
  interactive nor measured.

Text that does not fit: every text is measured once, here, with the mock's own font metrics
(:func:`text_width`: pygame, the same file, size and synthetic bold), and one wider than its
space (:func:`text_space`: its ``clip``, a centred one's ``w``, a left-aligned one's widget box
and anything right-aligned after it, a row's chevron) is shortened to the longest prefix that
fits with a trailing "…" (:func:`fit_text`), as a phone's list rows end a long subject. Both
renderers draw the shortened string and measure nothing; the widgets' labels (``elements()``,
the oracle, rewards) are untouched. German screens need it most (their words are longer);
English ones too (they used to be drawn as they were, a text too wide running past its
widget's edge: Login hard's "… will never ask for your password by email.", Mail's long
select-mode rows).

Any record may carry ``name`` (``status``, ``titlebar``, ``title``, ``scrollbar``, ``dot``,
``divider``, ``value``: a field's typed text, clipped, never shortened): what it is, for the
DOM's class names and tests. Colours are ``(r, g, b)``
tuples. Records are memoised and shared between lists: never mutate one.

Adding a widget kind: write its painter here (a function of the widget, its box size, the
theme and focus, returning parts; texts too long for their space are shortened after it, at
the size they are drawn at) and register it in :data:`PAINTERS`. The mock needs
nothing more; the browser runtime needs a case in ``widget()`` (``sites/runtime.js``) only if
the kind takes input through a native control.

>>> from guigym.apps.base import TEXT_KINDS, View, Widget
>>> from guigym.layout import layout
>>> v = View("app", "main", "Hello", [Widget("ok", "button", "OK", style="primary")])
>>> items = display_list(v, layout(v, 360, 640))
>>> [r.get("name") or r["type"] for r in items]
['rect', 'status', 'text', 'titlebar', 'title', 'widget']
>>> ok = items[-1]
>>> ok["box"], [p["type"] for p in ok["parts"]]
([16, 86, 343, 129], ['rect', 'text'])
"""

from __future__ import annotations

import os
import threading
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from guigym.apps.base import TEXT_KINDS, View, Widget
from guigym.apps.family import DEFAULT_THEME
from guigym.layout import MENU_HEAD, PAD_Y, STATUS_H, TITLE_H, Box, Layout, row_box

Color = tuple[int, int, int]
#: A :class:`Theme`'s colours, in its fields' order.
Colours = tuple[Color, Color, Color, Color, Color, Color, Color, Color, Color, Color, Color, Color]
Record = dict[str, Any]
WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)
KNOB_OFF: Color = (250, 250, 250)
#: The mock's default font is drawn at 0.6875 of its nominal size (pygame's scaling for
#: ``Font(None, size)``): the browser's CSS pixels for the same glyph height.
PX_PER_SIZE = 0.6875
DOTS_FROM_BOTTOM = 28  # page dots of the home screen: centre line above the bottom edge
DOT_GAP = 18
#: What ends a text shortened to fit its space.
ELLIPSIS = "\u2026"
#: A home-screen icon's name may spill this far past its box (half the gap between two icons'
#: boxes, on each side) before it would touch its neighbour's.
ICON_SPILL = 4
#: Room kept between a shortened text and a row's right-aligned text (its chevron).
CHEVRON_GAP = 6


def mix(a: Color, b: Color, t: float) -> Color:
    """``a`` moved ``t`` of the way to ``b`` (channels truncated).

    >>> mix((0, 0, 0), (255, 255, 255), 0.5)
    (127, 127, 127)
    """
    return (int(a[0] + (b[0] - a[0]) * t), int(a[1] + (b[1] - a[1]) * t), int(a[2] + (b[2] - a[2]) * t))


def _c(v: Any) -> Color:
    return (int(v[0]), int(v[1]), int(v[2]))


@dataclass(frozen=True, eq=False, slots=True)
class Theme:
    """A scenario's colours, resolved (defaults filled in, derived shades computed). Compared
    and hashed by identity: it is part of every cache key, hashed for every widget of every
    frame (:func:`theme_of` gives one object per scenario theme)."""

    bg: Color
    surface: Color
    text: Color
    muted: Color
    primary: Color
    on_primary: Color
    error: Color
    status: Color  # the status bar
    placeholder: Color
    track_on: Color  # a switch's track
    track_off: Color
    divider: Color  # between list rows


def _colours(theme: dict[str, Any]) -> Colours:
    th = {**DEFAULT_THEME, **theme}
    p, m, s = _c(th["primary"]), _c(th["muted"]), _c(th["surface"])
    return (
        _c(th["bg"]), s, _c(th["text"]), m, p, _c(th["on_primary"]), _c(th["error"]), mix(p, BLACK, 0.25), mix(m, s, 0.4),
        mix(p, WHITE, 0.45), mix(m, WHITE, 0.5), mix(s, m, 0.15),
    )


def resolve_theme(theme: dict[str, Any]) -> Theme:
    """The :class:`Theme` of a scenario's ``theme`` dict (missing keys: the default theme)."""
    return Theme(*_colours(theme))


_THEMES: dict[int, tuple[dict[str, Any], Theme]] = {}
_INTERNED: dict[Colours, Theme] = {}


def theme_of(v: View) -> Theme:
    """``resolve_theme(v.theme)``, memoised on the dict (a scenario's theme is never mutated;
    the cache holds the dict, so its id cannot be reused while cached) and interned: equal
    colours give the same object, so scenarios with the same theme share cached drawings."""
    hit = _THEMES.get(id(v.theme))
    if hit is not None and hit[0] is v.theme:
        return hit[1]
    if len(_THEMES) > 256:
        _THEMES.clear()
    if len(_INTERNED) > 256:
        _INTERNED.clear()
    key = _colours(v.theme)
    th = _INTERNED.get(key)
    if th is None:
        th = _INTERNED[key] = Theme(*key)
    _THEMES[id(v.theme)] = (v.theme, th)
    return th


# ------------------------------------------------------------------------- primitives


def rect(x: int, y: int, w: int, h: int, color: Color, radius: int = 0, border: int = 0, name: str | None = None) -> Record:
    r: Record = {"type": "rect", "box": [x, y, w, h], "color": color, "radius": radius, "border": border}
    if name:
        r["name"] = name
    return r


def circle(x: int, y: int, r: int, color: Color, border: int = 0, name: str | None = None) -> Record:
    out: Record = {"type": "circle", "center": [x, y], "r": r, "color": color, "border": border}
    if name:
        out["name"] = name
    return out


def lines(points: list[list[int]], color: Color, width: int) -> Record:
    return {"type": "lines", "points": points, "color": color, "width": width}


def text(
    s: str, x: int, y: int, size: int, color: Color, bold: bool = False, align: str = "left", valign: str = "top",
    w: int | None = None, clip: int | None = None, name: str | None = None,
) -> Record:
    r: Record = {
        "type": "text", "text": s, "x": x, "y": y, "size": size, "px": int(size * PX_PER_SIZE), "color": color, "bold": bold,
        "align": align, "valign": valign, "w": w, "clip": clip,
    }
    if name:
        r["name"] = name
    return r


# ------------------------------------------------------------------ fitting text
# Widths come from pygame's fonts built as the mock builds them (guigym/backends/mock.py,
# _Text._font), so a text shortened here fits where the mock draws it; the browser draws the
# same file and gets the shortened string, never measuring it.

#: Fonts kept open for measuring (size, weight, face), and widths kept; cleared when full.
MEASURE_FONTS = 128
MEASURE_WIDTHS = 1 << 16
_MEASURE_FONTS: dict[tuple[int, bool, str | None], Any] = {}
_WIDTHS: dict[tuple[str, int, bool, str | None], int] = {}
_MEASURE_LOCK = threading.Lock()  # pygame's fonts are not safe to use from two threads at once


def _renew_lock_after_fork() -> None:
    global _MEASURE_LOCK
    _MEASURE_LOCK = threading.Lock()  # a thread that held it is not in the child


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_lock_after_fork)


def _measure_font(size: int, bold: bool, face: str | None) -> Any:
    """The font the mock draws ``size``/``bold``/``face`` with (made on first use; hold the lock)."""
    key = (size, bold, face)
    f = _MEASURE_FONTS.get(key)
    if f is None:
        import pygame  # only when a text is measured: the module stays light to import

        from guigym.fonts import font_path

        if not pygame.font.get_init():
            pygame.font.init()
        f = pygame.font.Font(None, size) if face is None else pygame.font.Font(font_path(face), int(size * PX_PER_SIZE))
        f.set_bold(bold)
        if len(_MEASURE_FONTS) >= MEASURE_FONTS:
            _MEASURE_FONTS.clear()
        _MEASURE_FONTS[key] = f
    return f


def _width_locked(f: Any, s: str) -> int:
    try:
        return int(f.size(s)[0]) if s else 0
    except RuntimeError:  # pygame.error: a text that draws nothing (the mock draws a 1 px surface)
        return 0


def text_width(s: str, size: int, bold: bool = False, font: str | None = None) -> int:
    """Width in pixels of ``s`` drawn at nominal ``size`` (in the bundled ``font``, else the
    default one) as the mock draws it: the width of its rendered surface (memoised).

    >>> text_width("", 22), text_width("Wi-Fi", 22) < text_width("Wi-Fi", 22, bold=True)
    (0, True)
    """
    key = (s, size, bold, font)
    w = _WIDTHS.get(key)
    if w is None:
        with _MEASURE_LOCK:
            w = _width_locked(_measure_font(size, bold, font), s)
        if len(_WIDTHS) >= MEASURE_WIDTHS:
            _WIDTHS.clear()
        _WIDTHS[key] = w
    return w


def fit_text(s: str, limit: int, size: int, bold: bool = False, font: str | None = None) -> str:
    """``s`` if it is at most ``limit`` px wide (:func:`text_width`), else its longest prefix
    (cut between characters, trailing spaces dropped) that fits with :data:`ELLIPSIS` after it
    (the ellipsis alone, or nothing, when no prefix does).

    >>> fit_text("Settings", 400, 22), fit_text("Benachrichtigungen erlauben?", 120, 22)
    ('Settings', 'Benachrichtig…')
    """
    if text_width(s, size, bold, font) <= limit:
        return s
    n = _prefix(s[:-1], limit, size, bold, font, ELLIPSIS)
    if n == 0 and text_width(ELLIPSIS, size, bold, font) > limit:
        return ""
    return s[:n].rstrip() + ELLIPSIS


def _prefix(s: str, limit: int, size: int, bold: bool, font: str | None, suffix: str = "") -> int:
    """The length of the longest prefix of ``s`` that fits ``limit`` px with ``suffix`` after it
    (its trailing spaces dropped), not ending between a letter and its accents."""
    with _MEASURE_LOCK:  # probes are not memoised: only the result is drawn again
        f = _measure_font(size, bold, font)
        lo, hi = 0, len(s)
        while lo < hi:  # widths grow with the prefix: bisect
            mid = (lo + hi + 1) // 2
            if _width_locked(f, s[:mid].rstrip() + suffix) <= limit:
                lo = mid
            else:
                hi = mid - 1
    while 0 < lo < len(s) and unicodedata.combining(s[lo]):
        lo -= 1
    return lo


def text_space(r: Record, box_w: int | None = None, stop: int | None = None) -> int | None:
    """How wide the text record ``r`` may be drawn (None: no limit): its ``clip``; a centred
    one's ``w``; a left-aligned one's room to the right edge of its widget's box (``box_w``
    wide) and to ``stop``, :data:`CHEVRON_GAP` left of the widget's right-aligned text (a row's chevron)."""
    lim = r["clip"]
    if r["align"] == "center" and r["w"] is not None:
        lim = r["w"] if lim is None else min(lim, r["w"])
    elif r["align"] == "left":
        for edge in (box_w, stop):
            if edge is not None:
                lim = edge - r["x"] if lim is None else min(lim, edge - r["x"])
    return lim


def _fitted(r: Record, lim: int | None) -> Record:
    """``r`` with its whole text (``full`` when it was shortened before) shortened to ``lim``."""
    whole = r.get("full", r["text"])
    shown = whole if lim is None or not whole else fit_text(whole, lim, r["size"], r["bold"], r.get("font"))
    if shown == r["text"] and ("full" in r) == (shown != whole):
        return r
    out = {k: v for k, v in r.items() if k != "full"}
    out["text"] = shown
    if shown != whole:
        out["full"] = whole
    return out


_WRAPS: dict[tuple[Any, ...], list[str]] = {}


def wrap_fit(s: str, n: int, per_line: int, limit: int | None, size: int, bold: bool = False, font: str | None = None) -> list[str]:
    """The ``n`` lines :func:`clamp_lines` gives (``per_line`` characters a line; 0: the whole
    text on one) when each fits ``limit`` px (:func:`text_width`), else ``s`` wrapped anew by
    width (:func:`wrap_width`), the last line the rest, shortened (:func:`fit_text`); lines left
    over are empty (memoised).

    >>> wrap_fit("Wireless noise cancelling headphones", 2, 15, 120, 26), wrap_fit("Umhängetasche Atlas", 2, 9, 80, 26)
    (['Wireless noise', 'cancelling h…'], ['Umhänge', 'tasche…'])
    >>> wrap_fit("Meet me at 12 Oak Street", 3, 0, 120, 22)
    ['Meet me at 12', 'Oak Street', '']
    """
    key = (s, n, per_line, limit, size, bold, font)
    hit = _WRAPS.get(key)
    if hit is not None:
        return hit
    lines = clamp_lines(s, per_line, n) if per_line else [s]
    if limit is not None and any(text_width(ln, size, bold, font) > limit for ln in lines):
        *lines, rest = wrap_width(s, limit, size, bold, font, n)
        lines.append(fit_text(rest, limit, size, bold, font))
    lines = [*lines, *[""] * (n - len(lines))]
    if len(_WRAPS) >= CACHE_SIZE:
        _WRAPS.clear()
    _WRAPS[key] = lines
    return lines


def wrap_width(s: str, limit: int, size: int, bold: bool = False, font: str | None = None, most: int = 0) -> list[str]:
    """``s`` broken into lines that each fit ``limit`` px, each the most that fits, at a space
    where one does (else inside the word); with ``most``, at most that many lines, the last
    the rest (which may not fit).

    >>> wrap_width("Meet me at 12 Oak Street", 120, 22), wrap_width("Email: yvonne.anderson@fastmail.example", 240, 22)
    (['Meet me at 12', 'Oak Street'], ['Email:', 'yvonne.anderson@fastmail.exam', 'ple'])
    """
    lines: list[str] = []
    rest = s
    while (not most or len(lines) < most - 1) and text_width(rest, size, bold, font) > limit:
        cut = _prefix(rest, limit, size, bold, font)
        space = rest.rfind(" ", 0, cut + 1)
        cut = space if space > 0 else max(1, cut)  # at a space where one fits, else inside the word
        lines.append(rest[:cut].rstrip(" "))
        rest = rest[cut:].lstrip(" ")
    return [*lines, rest]


def fit_texts(items: list[Record], box_w: int | None = None) -> list[Record]:
    """``items`` (a widget's parts, its box ``box_w`` px wide; or records of the screen, None)
    with every text that is wider than its space (:func:`text_space`) shortened to fit
    (:func:`fit_text`), the whole text kept as ``full``, and each line of a wrapped text
    (``wrap``) the line :func:`wrap_fit` makes; ``items`` itself when all fit. A field's typed
    value (``name`` ``"value"``) is left as it is: clipped at the field's edge, as typing shows."""
    stop = None
    for r in items:
        if r["type"] == "text" and r["align"] == "right" and box_w is not None:
            stop = r["x"] - _drawn_width(r) - CHEVRON_GAP
            break
    out = items
    for i, r in enumerate(items):
        if r["type"] != "text" or r["align"] == "right" or r.get("name") == "value":
            continue
        lim = text_space(r, box_w, stop)
        if "wrap" in r:  # a line of a wrapped text: the line it is of that text wrapped to fit
            whole, line, n, per_line = r["wrap"]
            shown = wrap_fit(whole, n, per_line, lim, r["size"], r["bold"], r.get("font"))[line]
            new = r if shown == r["text"] else {**r, "text": shown}
        else:
            new = _fitted(r, lim)
        if new is not r:
            if out is items:
                out = list(items)
            out[i] = new
    return out


def _drawn_width(r: Record) -> int:
    return text_width(r["text"], r["size"], r["bold"], r.get("font"))


def _drawn_span(r: Record, tw: int) -> tuple[int, int]:
    """Where the mock draws text record ``r``, ``tw`` px wide: ``[left, right)`` from its box's corner."""
    if r["align"] == "right":
        return r["x"] - tw, r["x"]
    if r["align"] == "center":
        left = r["x"] + (r["w"] - tw) // 2 if r["w"] is not None else r["x"] - tw // 2
        return left, left + tw
    return r["x"], r["x"] + tw


def overflowing_texts(items: list[Record]) -> list[tuple[str, str, int, int]]:
    """``(widget kind or "screen", text, width, room)`` of each text of the display list ``items``
    drawn wider than its space, by :func:`text_width`: its clip, a centred one's ``w``, its
    widget's box, a row's chevron and a switch's track (where the mock draws it, geometry alone:
    an audit of the drawing, ``scripts/text_fit_audit.py``, ``tests/test_text_fits.py``)."""
    out: list[tuple[str, str, int, int]] = []
    for r in items:
        if r["type"] == "text" and r["text"] and r["clip"] is not None and _drawn_width(r) > r["clip"]:
            out.append(("screen", r["text"], _drawn_width(r), r["clip"]))
        if r["type"] != "widget":
            continue
        ps, bw = r["parts"], r["box"][2] - r["box"][0] + 1
        ends = [_drawn_span(p, _drawn_width(p))[0] for p in ps if p["type"] == "text" and p["align"] == "right"]  # a chevron
        if r["kind"] == "toggle":  # its track: 40 x 18
            ends += [p["box"][0] for p in ps if p["type"] == "rect" and p["box"][2:] == [40, 18]]
        for p in ps:
            if p["type"] != "text" or not p["text"] or p["align"] == "right" or p.get("name") == "value":
                continue  # a field's typed value is clipped at its edge by design
            tw = _drawn_width(p)
            left = _drawn_span(p, tw)[0]
            room = [p["clip"]] if p["clip"] is not None else []
            if p["align"] == "center" and p["w"] is not None:
                room.append(p["w"])
            if p["align"] == "left":
                room += [e - left for e in ends]
                if r["clip"] is not None:  # the widget's tile: drawn up to its box's right edge
                    room.append(bw - left)
            if any(tw > x for x in room) or (r["clip"] is not None and left < 0):
                out.append((r["kind"], p["text"], tw, min(room, default=bw)))
    return out


def shortened_texts(items: list[Record]) -> list[tuple[Record | None, Record]]:
    """``(widget record or None, text record)`` of each text drawn shortened."""
    out = []
    for r in items:
        for p in r["parts"] if r["type"] == "widget" else [r]:
            if p["type"] == "text" and ("full" in p or "wrap" in p and p["text"].endswith(ELLIPSIS)):
                out.append((r if r["type"] == "widget" else None, p))
    return out



# ----------------------------------------------------------------- widget painters
# Each returns the parts of one widget whose box is ``bw`` x ``bh`` (origin: its corner).

Painter = Callable[[Widget, int, int, Theme, bool], list[Record]]


def _label(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    s, cy = str(w.value) if w.value not in (None, "") else w.label, (bh - 1) // 2
    if w.span > 1 and w.style in ("", "muted", "error"):  # a long text over several rows (guigym.layout)
        return _wrapped_label(w, bw, bh, th)
    if w.style == "center":  # a stepper's value, a date picker's month
        return [text(s, 0, cy, 24, th.text, True, "center", "middle", w=bw)]
    if w.style == "caption":  # a date picker's weekday names
        return [text(s, 0, cy, 17, th.muted, align="center", valign="middle", w=bw)]
    color = th.error if w.style == "error" else th.muted if w.style == "muted" else th.text
    heading = w.style == "heading"
    return [text(s, 0, cy, 30 if heading else 22, color, heading, valign="middle")]


#: A label's glyph size (before the font scale).
LABEL_SIZE = 22


def label_lines(w: Widget, bw: int, v: View) -> list[str]:
    """The lines a label of span 0 (a text that wraps: a message, a contact's detail) needs in
    a box ``bw`` px wide at the font scale and font of ``v`` (:func:`wrap_width`); the layout
    gives it a row each."""
    scale, font = _scale_and_font(v)
    s = str(w.value) if w.value not in (None, "") else w.label
    key = (s, bw, max(6, round(LABEL_SIZE * scale)), font)
    hit = _LABEL_LINES.get(key)  # every layout of a screen with such labels asks (memoised, as _WRAPS)
    if hit is None:
        if len(_LABEL_LINES) >= CACHE_SIZE:
            _LABEL_LINES.clear()
        hit = _LABEL_LINES[key] = wrap_width(s, bw, key[2], False, font)
    return hit


_LABEL_LINES: dict[tuple[Any, ...], list[str]] = {}


def _wrapped_label(w: Widget, bw: int, bh: int, th: Theme) -> list[Record]:
    """A label the layout gave ``w.span`` rows (a span-0 label whose text needs them): a line
    in the middle of each row, each the line it is of the text wrapped by width (``wrap``:
    :func:`fit_texts` wraps it anew at the size it is drawn at)."""
    s = str(w.value) if w.value not in (None, "") else w.label
    n = w.span
    color = th.error if w.style == "error" else th.muted if w.style == "muted" else th.text
    pitch = (bh + 2 * PAD_Y) // n  # a row's height
    cy = (pitch - 2 * PAD_Y - 1) // 2
    lines = wrap_fit(s, n, 0, bw, LABEL_SIZE)
    return [{**text(ln, 0, cy + i * pitch, LABEL_SIZE, color, valign="middle"), "wrap": [s, i, n, 0]} for i, ln in enumerate(lines)]


def _button(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    cy = (bh - 1) // 2
    painter = _BUTTON_STYLES.get(w.style)
    if painter is not None:
        return painter(w, bw, bh, th, focused)
    if w.style in ("primary", "danger"):  # danger: a destructive action (a dialog's "Delete")
        fill, ink = (th.primary, th.on_primary) if w.style == "primary" else (th.error, WHITE)
        return [rect(0, 0, bw, bh, fill, 8), text(w.label, 0, cy, 24, ink, True, "center", "middle", w=bw)]
    return [
        rect(0, 0, bw, bh, th.surface, 8), rect(0, 0, bw, bh, th.muted, 8, 1),
        text(w.label, 0, cy, 24, th.primary, align="center", valign="middle", w=bw),
    ]


def _input(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    edge = th.primary if focused else th.muted
    val = str(w.value or "")
    shown, color = ("\u2022" * len(val) if w.secret else val, th.text) if val else (w.placeholder, th.placeholder)
    out = [
        rect(0, 0, bw, bh, th.surface, 4), rect(0, 0, bw, bh, edge, 4, 2 if focused else 1),
        # a typed value runs on under the field's edge, as in a real text field: clipped there
        # (name "value"), never shortened with "…" (:func:`fit_texts`); a placeholder is shortened
        text(w.label, 8, 4, 16, edge), text(shown, 8, 20, 22, color, clip=bw - (44 if w.style == "search" else 16),
                                             name="value" if val else None),
    ]
    if w.style == "search":  # a magnifier at the right end
        cy = (bh - 1) // 2
        out += [circle(bw - 24, cy - 2, 7, th.muted, 2), lines([[bw - 19, cy + 3], [bw - 13, cy + 9]], th.muted, 3)]
    return out


def _check(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    cy, on = (bh - 1) // 2, bool(w.value)
    if w.kind == "checkbox":
        mark = [rect(2, cy - 10, 20, 20, th.primary if on else th.muted, 3, 0 if on else 2)]
        if on:
            mark.append(lines([[6, cy], [10, cy + 5], [18, cy - 5]], WHITE, 3))
    else:  # radio
        mark = [circle(12, cy, 10, th.primary if on else th.muted, 2)]
        if on:
            mark.append(circle(12, cy, 5, th.primary))
    return [*mark, text(w.label, 34, cy, 22, th.text, valign="middle")]


def _title_lines(w: Widget, bh: int, color: Color, th: Theme, clip: int | None = None) -> list[Record]:
    """A list row's label, with its detail (a second, smaller line) when it has one; ``clip``:
    how wide they may be (None: to the box's edge, or a chevron: :func:`text_space`)."""
    if w.detail:
        return [text(w.label, 0, 4, 22, color, clip=clip), text(w.detail, 0, 24, 17, th.muted, clip=clip)]
    return [text(w.label, 0, (bh - 1) // 2, 22, color, valign="middle", clip=clip)]


def _divider(bw: int, bh: int, th: Theme) -> Record:
    """A list row's divider, in the middle of the gap below its box."""
    return rect(0, bh - 1 + PAD_Y, bw, 1, th.divider, name="divider")


def _toggle(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    cy, on = (bh - 1) // 2, bool(w.value)
    tx = bw - 45  # the track's left edge: 44 px left of the box's right edge
    knob = tx + 30 if on else tx + 10
    return [  # the texts end where the track starts
        *_title_lines(w, bh, th.text, th, tx), rect(tx, cy - 9, 40, 18, th.track_on if on else th.track_off, 9),
        circle(knob, cy, 11, th.primary if on else KNOB_OFF), circle(knob, cy, 11, th.muted, 1), _divider(bw, bh, th),
    ]


#: A grid tile's name (the ``layout`` variation): glyph size, line pitch, width budget per
#: character (to wrap it here, so both renderers break it alike) and the most lines shown.
TILE_SIZE, TILE_PITCH, TILE_CHAR_W, TILE_LINES = 20, 17, 8, 2


def _tile(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    """A collection item as a grid tile (a link of style ``tile``, ``guigym.variation``'s
    ``layout``): a card with a thumbnail (the item's initial on the primary colour) over its
    name, wrapped over up to two lines (:func:`clamp_lines`; by width where those do not fit,
    :func:`fit_texts`), and its detail."""
    inner = bw - 16
    chars = inner // TILE_CHAR_W
    # the last line holds the rest of the name, shortened to fit
    names = clamp_lines(w.label, chars, TILE_LINES)
    detail_y = bh - 20
    name_y = detail_y - 4 - len(names) * TILE_PITCH
    thumb_h = max(12, bh - 16 - 2 * TILE_PITCH - 24)
    out = [
        rect(0, 0, bw, bh, th.surface, 8), rect(0, 0, bw, bh, th.divider, 8, 1), rect(8, 6, inner, thumb_h, th.primary, 6),
        text(w.label[:1].upper(), 8, 6 + thumb_h // 2, min(24, thumb_h + 4), th.on_primary, True, "center", "middle", w=inner),
    ]
    # each line says which of the wrapped name it is (fit_texts wraps the name anew by width where
    # these lines do not fit at the size they are drawn at)
    lines = [text(ln, 8, name_y + i * TILE_PITCH, TILE_SIZE, th.text, clip=inner) for i, ln in enumerate(names)]
    out += [{**r, "wrap": [w.label, i, len(names), chars]} for i, r in enumerate(lines)]
    if w.detail:
        out.append(text(w.detail, 8, detail_y, 16, th.muted, clip=inner))
    return out


def _link(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    if w.style == "tile":
        return _tile(w, bw, bh, th, focused)
    chevron = text(">", bw - 1, (bh - 1) // 2, 24, th.muted, align="right", valign="middle")
    return [*_title_lines(w, bh, th.text if w.detail else th.primary, th), chevron, _divider(bw, bh, th)]


#: A home-screen icon's square (px) and its glyph's size, where its cell has room for them.
ICON_SIZE, ICON_GLYPH = 56, 34


def _icon(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    """An app icon: a rounded square in the app's colour with its glyph, its name below. The
    square is :data:`ICON_SIZE` wide where the cell has room (every named viewport), else as wide
    as it may spill (:data:`ICON_SPILL`, less a pixel each side): a narrow screen's many columns
    (240 x 400: 7, boxes 26 px wide) drew 56 px squares over their neighbours and off the
    screen's left edge."""
    cx = (bw - 1) // 2
    color = _c(w.value) if w.value else th.primary
    s = min(ICON_SIZE, bw + 2 * (ICON_SPILL - 1))
    left = cx - s // 2 if s == ICON_SIZE else (bw - s) // 2  # a smaller one: centred on the box, ICON_SPILL - 1 past each side
    top = 4 + (ICON_SIZE - s) // 2
    glyph = max(8, ICON_GLYPH * s // ICON_SIZE)
    return [
        rect(left, top, s, s, color, min(14, s // 4)),
        text(w.detail or w.label[:1].upper(), cx, 32, glyph, WHITE, True, "center", "middle"),
        text(w.label, cx, 66, 18, th.text, align="center", clip=bw + 2 * ICON_SPILL),
    ]


def _dialog(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    """A dialog's panel: its question (``label``) and what it means (``detail``); its buttons
    are widgets of their own, drawn over it."""
    return [
        rect(0, 0, bw, bh, th.bg, 12), text(w.label, 20, 22, 26, th.text, True, clip=bw - 40),
        text(w.detail, 20, 58, 20, th.muted, clip=bw - 40),
    ]


def _tab(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    """A tab of a tab bar; the selected one (style ``tab-on``) in the primary colour, underlined."""
    on = w.style == "tab-on"
    out = [text(w.label, 0, (bh - 1) // 2, 22, th.primary if on else th.muted, on, "center", "middle", w=bw, clip=bw)]
    out.append(rect(0, bh - 3, bw, 3, th.primary) if on else rect(0, bh - 1, bw, 1, th.divider))
    return out


def _day(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    """A day of a date picker's month grid: ``day`` (this month), ``day-out`` (the neighbouring
    months', muted), ``day-on`` (the chosen day: a filled disc)."""
    cx, cy = (bw - 1) // 2, (bh - 1) // 2
    day = str(int(str(w.option)[8:10])) if len(str(w.option)) == 10 else w.label  # the number of an ISO date's day
    if w.style == "day-on":
        return [circle(cx, cy, min(bw, bh) // 2 - 2, th.primary), text(day, 0, cy, 21, th.on_primary, True, "center", "middle", w=bw)]
    return [text(day, 0, cy, 21, th.muted if w.style == "day-out" else th.text, align="center", valign="middle", w=bw)]


def _glyph(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    """A small square button drawn as a glyph, labelled in words for the agent ("Increase
    Hour"): a stepper's − / + (``action="step"``), a date picker's ‹ / › (``action="month"``)."""
    cx, cy = (bw - 1) // 2, (bh - 1) // 2
    up = int(w.option or 0) > 0
    if w.action == "month":
        d = 5 if up else -5
        mark = lines([[cx - d, cy - 9], [cx + d, cy], [cx - d, cy + 9]], th.primary, 3)
        return [rect(0, 0, bw, bh, th.surface, 8), mark]
    out = [rect(0, 0, bw, bh, th.surface, 8), rect(0, 0, bw, bh, th.muted, 8, 1), rect(cx - 8, cy - 1, 17, 3, th.primary)]
    if up:
        out.append(rect(cx - 1, cy - 8, 3, 17, th.primary))
    return out


_BUTTON_STYLES: dict[str, Painter] = {"tab": _tab, "tab-on": _tab, "day": _day, "day-out": _day, "day-on": _day, "glyph": _glyph}


def _chevron_down(x: int, cy: int, color: Color) -> Record:
    return lines([[x - 6, cy - 3], [x, cy + 3], [x + 6, cy - 3]], color, 2)


def _select(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    """A select: a field with its label, the chosen option's label (or the placeholder) and a ▾."""
    shown = next((str(lab) for val, lab in (w.options or []) if val == w.value), "")
    return [
        rect(0, 0, bw, bh, th.surface, 4), rect(0, 0, bw, bh, th.muted, 4, 1), text(w.label, 8, 4, 16, th.muted),
        text(shown or w.placeholder, 8, 20, 22, th.text if shown else th.placeholder, clip=bw - 40),
        _chevron_down(bw - 20, (bh - 1) // 2, th.muted),
    ]


#: A multi-line field's text: glyph height and line pitch (mock font sizes), and the width
#: budget per character used to wrap (wrapping is decided here, so both renderers break lines alike).
TEXTAREA_SIZE, TEXTAREA_PITCH, TEXTAREA_CHAR_W = 20, 22, 8


def wrap_lines(s: str, per_line: int) -> list[str]:
    """``s`` broken into lines of at most ``per_line`` characters, at spaces where possible
    (typed newlines kept).

    >>> wrap_lines("see you at the station at nine", 12)
    ['see you at', 'the station', 'at nine']
    """
    per_line = max(1, per_line)
    out: list[str] = []
    for para in s.split("\n"):
        line = ""
        for word in para.split(" "):
            while len(word) > per_line:  # a word longer than a line: cut it
                if line:
                    out.append(line)
                    line = ""
                out.append(word[:per_line])
                word = word[per_line:]
            cand = f"{line} {word}" if line else word
            if len(cand) <= per_line:
                line = cand
            else:
                out.append(line)
                line = word
        out.append(line)
    return out


def clamp_lines(s: str, per_line: int, n: int) -> list[str]:
    """``s`` wrapped as :func:`wrap_lines` wraps it, over at most ``n`` lines: the last one holds
    all the rest (:func:`fit_texts` shortens it to fit, so a longer text ends in "…").

    >>> clamp_lines("Wireless noise cancelling headphones", 10, 2)
    ['Wireless', 'noise cancelling headphones']
    """
    lines = wrap_lines(s, per_line)
    if len(lines) <= n:
        return lines
    start = 0
    for ln in lines[:n - 1]:
        at = s.find(ln, start)
        start = (at if at >= 0 else start) + len(ln)
    return [*lines[:n - 1], s[start:].lstrip(" ")]


def _textarea(w: Widget, bw: int, bh: int, th: Theme, focused: bool, scale: float = 1.0) -> list[Record]:
    """A multi-line text field: its label, then the text wrapped over the lines that fit (the
    last ones when it is longer: where typing goes on). ``scale``: the texts' font scale (the
    ``font_scale`` variation), which the wrap width follows."""
    edge = th.primary if focused else th.muted
    val = str(w.value or "")
    out = [rect(0, 0, bw, bh, th.surface, 4), rect(0, 0, bw, bh, edge, 4, 2 if focused else 1), text(w.label, 8, 4, 16, edge)]
    if not val:
        return [*out, text(w.placeholder, 8, 22, TEXTAREA_SIZE, th.placeholder, clip=bw - 16)]
    fit = max(1, (bh - 26) // TEXTAREA_PITCH)
    # Wrapped for the size the text is drawn at: at 8 px a character, text scaled up (1.15, 1.3)
    # ran past the field and the end of every line was clipped off. Scales below 1 keep the
    # 1.0 budget (their text fits it).
    shown = wrap_lines(val, int((bw - 16) // (TEXTAREA_CHAR_W * max(1.0, scale))))[-fit:]
    return [*out, *(text(ln, 8, 22 + i * TEXTAREA_PITCH, TEXTAREA_SIZE, th.text, clip=bw - 16) for i, ln in enumerate(shown))]


def _menu(w: Widget, bw: int, bh: int, th: Theme, focused: bool) -> list[Record]:
    """A select's dropdown panel: the select's label over its options (rows of their own)."""
    return [rect(0, 0, bw, bh, th.bg, 12), text(w.label, 20, 14, 24, th.text, True, clip=bw - 40), rect(12, 44, bw - 24, 1, th.divider)]


#: How each widget kind looks: one painter per kind.
PAINTERS: dict[str, Painter] = {
    "label": _label, "button": _button, "input": _input, "checkbox": _check, "radio": _check, "toggle": _toggle,
    "link": _link, "icon": _icon, "dialog": _dialog, "select": _select, "textarea": _textarea, "menu": _menu,
}
#: Kinds whose drawing may overflow their box (the home screen's icon names), and a dialog's
#: or menu's panel: drawn in place, so its rounded corners show the dimmed screen under it.
UNCLIPPED = frozenset({"icon", "dialog", "menu"})
#: How much a dialog dims the screen under it (a black scrim of this opacity).
SCRIM = 0.5

_PARTS: dict[tuple[Any, ...], list[Record]] = {}
_WIDGETS: dict[tuple[Any, ...], Record] = {}
_HEADS: dict[tuple[Any, ...], list[Record]] = {}
#: Entries a memo holds before it is cleared; the parts and widget memos hold four times as
#: many: under the variation axes every look comes in several font scales and fonts, and a
#: cleared parts memo gives every widget a new parts list, so the mock redraws every tile.
CACHE_SIZE = 4096


def _value_key(v: Any) -> Any:
    """A widget's ``value`` in a memo key: a string as it is, anything else (None, a bool, a
    number, a colour) by its ``repr`` in a tuple. ``str(value)`` made None and the typed text
    "None" (a field's placeholder and the text), or False and "False", one key: the memo then
    drew one's look for the other.

    >>> len({_value_key(x) for x in (None, "None", False, "False", 1, True, "1")})
    7
    """
    return v if type(v) is str else (repr(v),)


def parts(w: Widget, bw: int, bh: int, th: Theme, focused: bool, scale: float = 1.0, font: str | None = None) -> list[Record]:
    """The parts of ``w`` (memoised by look, painter, font scale and font included: the same
    look gives the same list object, which the mock backend uses to reuse its drawing), their
    texts shortened where they do not fit at that scale and font (:func:`fit_texts`)."""
    painter = PAINTERS.get(w.kind)
    key = (painter, w.kind, w.label, _value_key(w.value), w.placeholder, w.secret, w.style, w.detail, focused, bw, bh, th,
           str(w.options) if w.options else None, scale, font, w.span)
    out = _PARTS.get(key)
    if out is None:
        if len(_PARTS) > 4 * CACHE_SIZE:
            _PARTS.clear()
        if painter is _textarea:  # wraps its text: for the size it is drawn at
            out = _textarea(w, bw, bh, th, focused, scale)
        else:
            out = painter(w, bw, bh, th, focused) if painter else []
        out = _fonted(out, scale, font)
        _PARTS[key] = out = fit_texts(out, bw)
    return out


def widget(
    w: Widget, box: Box, th: Theme, focused: bool, inert: bool = False, scale: float = 1.0, font: str | None = None,
) -> Record:
    """The ``widget`` record of ``w`` placed at ``box`` (memoised: most frames show the same
    widgets as the one before; records are never mutated). ``inert``: shown but not
    interactive (the screen under a dialog). ``scale``, ``font``: its texts' (:func:`parts`)."""
    v = w.value  # as _value_key(v), inline: this key is made for every widget of every frame
    key = (PAINTERS.get(w.kind), w.id, w.kind, w.label, v if type(v) is str else (repr(v),), w.placeholder, w.secret, w.style,
           w.detail, w.group, focused, box, th, inert, str(w.options) if w.options else None, scale, font)
    rec = _WIDGETS.get(key)
    if rec is not None:
        return rec
    if len(_WIDGETS) > 4 * CACHE_SIZE:
        _WIDGETS.clear()
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0 + 1, y1 - y0 + 1
    k = w.kind
    value = str(w.value or "") if k in TEXT_KINDS else bool(w.value) if k in ("checkbox", "toggle", "radio") else None
    rec = {
        "type": "widget", "id": w.id, "kind": k, "box": [x0, y0, x1, y1], "interactive": w.interactive and not inert, "focused": focused,
        "value": value, "secret": bool(w.secret), "group": w.group, "bg": (dimmed(th) if inert else th).bg,
        "clip": None if k in UNCLIPPED else [bw, bh + PAD_Y + 1], "parts": parts(w, bw, bh, th, focused, scale, font),
    }
    if inert:  # under the dialog's scrim: every colour dimmed, a painter's own ones too (an icon's, a check mark's)
        rec["parts"] = scrimmed(rec["parts"])
    if inert:  # the runtime neither hit-tests nor measures it
        rec["inert"] = True
    _WIDGETS[key] = rec  # only once whole: another thread may take it from the memo at once
    return rec


def _head(th: Theme, width: int, height: int, title: str | None, scale: float = 1.0, font: str | None = None) -> list[Record]:
    """Background, status bar and, unless ``title`` is None (the home screen), the title bar
    (memoised: the same on every frame of an episode), its texts ``scale`` times their size, in
    ``font``."""
    key = (th, width, height, title, scale, font)
    out = _HEADS.get(key)
    if out is None:
        if len(_HEADS) > CACHE_SIZE:
            _HEADS.clear()
        out = [rect(0, 0, width, height, th.bg), rect(0, 0, width, STATUS_H, th.status, name="status"),
               text("12:00", width - 48, 5, 18, th.on_primary)]
        if title is not None:
            out.append(rect(0, STATUS_H, width, TITLE_H, th.primary, name="titlebar"))
            out.append(text(title, 16, STATUS_H + 17, 30, th.on_primary, True, clip=width - 32, name="title"))
        out = _fonted(out, scale, font)
        _HEADS[key] = out = fit_texts(out)
    return out



# ------------------------------------------------------------------------ the screen


_DIMMED: dict[int, tuple[Theme, Theme]] = {}


def dimmed(th: Theme) -> Theme:
    """``th`` under the dialog scrim: every colour :data:`SCRIM` of the way to black (memoised
    per theme object, so dimmed drawings are cached like any other)."""
    hit = _DIMMED.get(id(th))
    if hit is None or hit[0] is not th:
        if len(_DIMMED) > 256:
            _DIMMED.clear()
        cols = cast(Colours, tuple(mix(getattr(th, f), BLACK, SCRIM) for f in th.__dataclass_fields__))
        hit = _DIMMED[id(th)] = (th, _INTERNED.setdefault(cols, Theme(*cols)))
    return hit[1]


_SCRIMMED: dict[int, tuple[list[Record], list[Record]]] = {}


def scrimmed(items: list[Record]) -> list[Record]:
    """``items`` (a widget's parts) as the dialog scrim leaves them: every colour :data:`SCRIM`
    of the way to black, as :func:`dimmed` does the theme's, and also those a painter sets
    itself (an icon's own colour and white letter, a check mark, a switch's knob). Memoised
    per list: the same parts give the same list, whose drawing the mock reuses.

    >>> scrimmed([rect(0, 0, 4, 4, (200, 100, 0)), text("ok", 0, 0, 12, WHITE)])[1]["color"]
    (127, 127, 127)
    """
    hit = _SCRIMMED.get(id(items))
    if hit is None or hit[0] is not items:
        if len(_SCRIMMED) > 4 * CACHE_SIZE:
            _SCRIMMED.clear()
        out = [{**r, "color": mix(r["color"], BLACK, SCRIM)} if "color" in r else r for r in items]
        hit = _SCRIMMED[id(items)] = (items, out)
    return hit[1]


def display_list(v: View, lay: Layout) -> list[Record]:
    """Everything on the screen of ``v`` placed by ``lay``, in drawing order (a new list;
    its records may be shared with other lists and must not be mutated). A dialog is drawn
    as a scrim would leave the screen under it (every colour dimmed, no widget interactive),
    then its panel and buttons: all of it widgets and records both renderers already draw.
    Texts are drawn the theme's ``font_scale`` times their size and in its ``font`` (the
    variation axes): the same records as :func:`scale_fonts` makes of the list without them."""
    th = theme_of(v)
    scale, font = _scale_and_font(v)
    W, H = lay.width, lay.height
    if v.backdrop is not None and lay.backdrop is not None:
        back, dim = v.backdrop, dimmed(th)
        out = list(_head(dim, W, H, None if back.grid else back.title, scale, font))  # a home screen has no title bar
        out += [widget(w, box, th, False, True, scale, font) for w, box in lay.backdrop.visible]
        out += [widget(w, box, th, w.id == v.focus, False, scale, font) for w, box in lay.visible]
        if lay.max_scroll > 0:  # a dropdown's long list: a scrollbar inside its panel, beside the options
            x0, y0, x1, y1 = lay.body
            top, span = y0 + MENU_HEAD, y1 - y0 + 1 - MENU_HEAD - 8
            h = max(12, span * lay.n_visible // (lay.max_scroll + lay.n_visible))
            first = min(v.scroll, lay.max_scroll)
            out.append(rect(x1 - 6, top + (span - h) * first // lay.max_scroll, 3, h, th.muted, name="scrollbar"))
        return out
    out = list(_head(th, W, H, None if v.grid else v.title, scale, font))
    if v.grid:
        out += [widget(w, box, th, False, False, scale, font) for w, box in lay.visible]
        if v.pages > 1:
            x = W // 2 - (v.pages - 1) * DOT_GAP // 2
            for p in range(v.pages):
                on = p == v.page
                out.append(circle(x + p * DOT_GAP, H - DOTS_FROM_BOTTOM, 5 if on else 3, th.primary if on else th.muted, name="dot"))
        return out
    focus = v.focus
    out += [widget(w, box, th, w.id == focus, False, scale, font) for w, box in lay.visible]
    if lay.max_scroll > 0:
        body_h = H - STATUS_H - TITLE_H
        h = max(12, body_h * lay.n_visible // (lay.max_scroll + lay.n_visible))
        y = STATUS_H + TITLE_H + (body_h - h) * min(v.scroll, lay.max_scroll) // max(1, lay.max_scroll)
        out.append(rect(W - 5, y, 3, h, th.muted, name="scrollbar"))
    return out


def shown_texts(v: View, lay: Layout, wid: str) -> list[str]:
    """The texts drawn for widget ``wid`` of ``v`` as :func:`display_list` draws it (shortened
    where they do not fit, at the theme's font scale and font); ``[]`` unless it is on screen
    whole. What the oracle checks before answering a question from a list row."""
    # the widget as laid out: a wrapped label has the rows the layout gave it (v.find's has span 0)
    w, box = next((x for x, _ in lay.visible if x.id == wid), None), lay.box(wid)
    if w is None or box is None:
        return []
    x0, y0, x1, y1 = box
    ps = parts(w, x1 - x0 + 1, y1 - y0 + 1, theme_of(v), w.id == v.focus, *_scale_and_font(v))
    return [str(p["text"]) for p in ps if p["type"] == "text"]


def _scale_and_font(v: View) -> tuple[float, str | None]:
    """The font scale and font the theme of ``v`` draws its texts in (the variation axes)."""
    s, f = (v.theme.get("font_scale"), v.theme.get("font")) if v.theme else (None, None)
    return float(s or 1.0), f or None


def _scaled_text(r: Record, s: float, font: str | None) -> Record:
    out = {**r} if s == 1 else {**r, "size": (size := max(6, round(r["size"] * s))), "px": int(size * PX_PER_SIZE)}
    if font:
        out["font"] = font
    return out


def _fonted(items: list[Record], s: float, font: str | None) -> list[Record]:
    """``items`` with every text record ``s`` times its size and in ``font`` (new text records;
    ``items`` itself when there is nothing to change)."""
    if s == 1 and not font:
        return items
    return [_scaled_text(r, s, font) if r["type"] == "text" else r for r in items]


def scale_fonts(items: list[Record], s: float, font: str | None = None) -> list[Record]:
    """``items`` with every text drawn ``s`` times its size (the ``font_scale`` variation) and,
    with ``font``, in that bundled font (the ``font`` variation: :mod:`guigym.fonts`; the
    record's ``font`` key): the same anchors, so a label grows from its row's middle and a
    field's text from its top; each fitted anew from its whole text (:func:`fit_texts`).
    Widgets' texts are in their ``parts`` (new lists here, not memoised: :func:`display_list`
    builds scaled widgets in the first place)."""
    out = []
    for r in items:
        if r["type"] == "widget":
            ps = _fonted(r["parts"], s, font)
            r = {**r, "parts": fit_texts(ps, r["box"][2] - r["box"][0] + 1)}
        elif r["type"] == "text":
            r = _scaled_text(r, s, font)
            r = _fitted(r, text_space(r))
        out.append(r)
    return out


def rows_clip(v: View, lay: Layout) -> list[int]:
    """``[x, y, w, h]`` of the area that holds the widgets (rows or icons): a widget outside
    it is not shown (the browser keeps a focused field scrolled out of view there)."""
    if v.grid:
        return [0, STATUS_H, lay.width, lay.height - STATUS_H]
    if v.backdrop is not None:  # a dialog or a dropdown: anywhere below the title bar (the status bar, over a home screen)
        top = STATUS_H if v.backdrop.grid else STATUS_H + TITLE_H
        return [0, top, lay.width, lay.height - top]
    return [0, STATUS_H + TITLE_H, lay.width, lay.n_visible * lay.row_h]


def hidden_focus(v: View, lay: Layout) -> Record | None:
    """The focused field when it is scrolled out of view, at its off-screen row position
    (outside :func:`rows_clip`): the browser keeps it so that typing still reaches it."""
    if v.grid or v.focus is None or lay.box(v.focus) is not None:
        return None
    w = v.find(v.focus)
    if w is None:
        return None
    i, first = v.index(v.focus), min(v.scroll, lay.max_scroll)
    # above the rows' area, or below it: counted in rows from ``end``, not from ``first``, since
    # rows several rows tall (wrapped messages, text areas) put fewer rows than ``n`` on screen
    # and the field then landed inside the clip, drawn over them in the browser
    off = i - first if i < first else lay.n_visible + (i - lay.end)
    return widget(w, row_box(lay.width, off, lay.row_h, lay.pad_x), theme_of(v), True)
