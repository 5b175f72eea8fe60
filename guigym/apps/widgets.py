"""Composite widgets for an app's rows: select, multi-line text, stepper, tabs, date and time
pickers, search field.

Each constructor returns :class:`~guigym.apps.base.Widget` rows made of the base kinds, so the
shared layout places them, the display list draws them (``guigym/display.py``: one painter per
kind or button style) and both renderers show them with no code of their own. Their values live
in the app state's ``values`` and the base :class:`~guigym.apps.base.App` handles their clicks
(:data:`~guigym.apps.base.WIDGET_ACTIONS`, a select's dropdown) before a family's
``on_button`` hook — a family only builds the rows from its values. The oracle grounds a
``Goal(op="set", widget=key, value=v)`` on any of them (:func:`control_for`).

>>> from guigym.apps.base import View, widget_action
>>> row = stepper_row("qty", "Quantity", 1, 1, 5)
>>> [c.id for c in row.cells]
['qty.label', 'qty.dec', 'qty', 'qty.inc']
>>> values = {}
>>> widget_action(values, row.cells[3]); values  # + from the value shown
{'qty': 2}
>>> v = View("Shop", "item", "Item", [row])
>>> control_for(v, "qty", 4), control_for(v, "qty", 0)
('qty.inc', 'qty.dec')
"""

from __future__ import annotations

import calendar
import datetime as dt
from typing import Any

from guigym.apps.base import MENU_PREFIX, WIDGET_ACTIONS, View, Widget
from guigym.apps.dates import month_name

__all__ = [
    "select_row", "textarea_row", "stepper_row", "tabs_row", "date_picker_rows", "time_picker_rows", "search_row",
    "menu_screen", "control_for", "shown_month", "WEEKDAYS",
]

WEEKDAYS = ("Mo", "Tu", "We", "Th", "Fr", "Sa", "Su")


def menu_screen(wid: str) -> str:
    """The screen id of the dropdown of select ``wid`` (a modal screen made on the fly)."""
    return MENU_PREFIX + wid


def select_row(wid: str, label: str, options: list[Any], value: Any, labels: dict[Any, str] | None = None,
               placeholder: str = "Choose") -> Widget:
    """A select: a field showing the chosen option (``labels[option]``, else the option); a click
    opens its dropdown (:func:`menu_screen`: the options as radio rows, a long list scrolls),
    picking one stores ``values[wid] = option`` and closes it."""
    if not options:
        raise ValueError(f"select {wid!r} needs at least one option")
    labels = labels or {}
    return Widget(wid, "select", label, value=value, placeholder=placeholder, options=[[o, str(labels.get(o, o))] for o in options])


def textarea_row(wid: str, label: str, value: str, placeholder: str = "", lines: int = 3) -> Widget:
    """A multi-line text field, ``lines`` rows tall; the text wraps. Focus and Type as an input
    (``values[wid]``, the same length rule)."""
    if lines < 2:
        raise ValueError(f"a textarea spans at least 2 rows, got lines={lines}")
    return Widget(wid, "textarea", label, value=value, placeholder=placeholder, span=lines)


def stepper_row(key: str, label: str, value: int, lo: int, hi: int, step: int = 1, wrap: bool = False, fmt: str = "{}") -> Widget:
    """One row: ``label``, a − button, the value (``fmt``), a + button. A click moves
    ``values[key]`` by ``step`` within ``[lo, hi]`` (clamped, or wrapping round with ``wrap``)."""
    if not lo <= value <= hi or step < 1:
        raise ValueError(f"stepper {key!r}: need lo <= value <= hi and step >= 1, got {lo}, {value}, {hi}, {step}")
    bounds = [lo, hi, wrap]
    cells = [
        Widget(f"{key}.label", "label", label),
        Widget(f"{key}.dec", "button", f"Decrease {label}", value, style="glyph", action="step", group=key, option=-step, options=bounds),
        Widget(key, "label", label, value=fmt.format(value), style="center", option=value),
        Widget(f"{key}.inc", "button", f"Increase {label}", value, style="glyph", action="step", group=key, option=step, options=bounds),
    ]
    return Widget(f"{key}.row", "cells", label, cells=cells, weights=[4, 1, 2, 1])


def tabs_row(key: str, tabs: list[str], selected: str, labels: dict[str, str] | None = None) -> Widget:
    """A tab bar: one tab per entry of ``tabs``; a click stores ``values[key] = tab``."""
    labels = labels or {}
    cells = [Widget(f"{key}.tab{i}", "button", str(labels.get(t, t)), style="tab-on" if t == selected else "tab", action="set",
                    group=key, option=t) for i, t in enumerate(tabs)]
    return Widget(f"{key}.tabs", "cells", key, cells=cells)


def shown_month(value: str | None, default: dt.date) -> str:
    """The ``"YYYY-MM"`` a date picker opens on: the chosen date's month, else ``default``'s."""
    return value[:7] if value else f"{default.year:04d}-{default.month:02d}"


def date_picker_rows(key: str, value: str | None, shown: str) -> list[Widget]:
    """A month grid: a header (previous month, "March 2026", next month), the weekday names,
    then one row of 7 days per week (the neighbouring months' days muted, the chosen one
    filled). ``value``: the chosen ``"YYYY-MM-DD"`` (``values[key]``); ``shown``: the month on
    display, ``"YYYY-MM"`` (``values[key + ".shown"]``, moved by the header's buttons).

    Memoised (a form shows the same grid on every step; ~50 widgets): the list is the
    caller's, its widgets shared, and widgets are never changed in place once built (the
    relabelling axes and translations use ``dataclasses.replace``)."""
    memo = (key, value, shown)
    rows = _PICKERS.get(memo)
    if rows is None:
        if len(_PICKERS) > 1024:
            _PICKERS.clear()
        rows = _PICKERS[memo] = _date_picker(key, value, shown)
    return list(rows)


_PICKERS: dict[tuple[str, str | None, str], list[Widget]] = {}


def _date_picker(key: str, value: str | None, shown: str) -> list[Widget]:
    y, m = (int(p) for p in shown.split("-")[:2])
    nav = key + ".shown"
    header = Widget(f"{key}.head", "cells", key, weights=[1, 4, 1], cells=[
        Widget(f"{key}.prev", "button", "Previous month", style="glyph", action="month", group=nav, option=-1, detail=shown),
        Widget(f"{key}.month", "label", f"{month_name(m)} {y}", style="center"),
        Widget(f"{key}.next", "button", "Next month", style="glyph", action="month", group=nav, option=1, detail=shown),
    ])
    names = Widget(f"{key}.wd", "cells", key, cells=[Widget(f"{key}.wd{i}", "label", d, style="caption") for i, d in enumerate(WEEKDAYS)])
    rows = [header, names]
    for k, week in enumerate(_month_grid(y, m)):
        cells = []
        for iso, inside, label in week:
            style = "day-on" if iso == value else "day" if inside else "day-out"
            # labelled with its month ("March 26": the neighbouring months' days would repeat a bare
            # number), drawn as the day number (display._day)
            cells.append(Widget(f"{key}.d{iso}", "button", label, style=style, action="set", group=key, option=iso))
        rows.append(Widget(f"{key}.w{k}", "cells", key, cells=cells))
    return rows


_GRIDS: dict[tuple[int, int], list[list[tuple[str, bool, str]]]] = {}


def _month_grid(y: int, m: int) -> list[list[tuple[str, bool, str]]]:
    """The weeks of month ``m`` of ``y``: per day its ISO date, whether it is in the month, and
    its label (``"March 26"``), memoised."""
    key = (y, m)
    grid = _GRIDS.get(key)
    if grid is None:
        if len(_GRIDS) > 1024:
            _GRIDS.clear()
        grid = _GRIDS[key] = [[(d.isoformat(), d.month == m, f"{month_name(d.month)} {d.day}") for d in week]
                              for week in calendar.Calendar(0).monthdatescalendar(y, m)]
    return grid


def time_picker_rows(key: str, hour: int, minute: int, minute_step: int = 5) -> list[Widget]:
    """Two wrapping steppers: ``values[key + ".h"]`` (0-23) and ``values[key + ".m"]`` (0-59 by
    ``minute_step``)."""
    return [stepper_row(f"{key}.h", "Hour", hour, 0, 23, 1, True, "{:02d}"),
            stepper_row(f"{key}.m", "Minute", minute, 0, 59, minute_step, True, "{:02d}")]


def search_row(wid: str, value: str, placeholder: str = "Search") -> Widget:
    """A search field (an input with a magnifier); the app filters its rows by ``values[wid]``."""
    return Widget(wid, "input", "Search", value=value, placeholder=placeholder, style="search")


def control_for(v: View, key: str, value: Any) -> str | None:
    """The widget to click next on ``v`` to set the composite value ``key`` to ``value`` (a
    tab, a day, a stepper's + or −, a month button), or None when no such control is on
    screen (or the value is already there)."""
    btns = [w for w in v.widgets() if w.kind == "button" and w.action in WIDGET_ACTIONS]
    for w in btns:
        if w.group == key and w.action == "set" and w.option == value:
            return w.id
    steps = [w for w in btns if w.group == key and w.action == "step"]
    if steps:
        shown = v.find(key)
        cur = shown.option if shown is not None else None
        if cur is None or cur == value:
            return None
        up = next(w for w in steps if int(w.option) > 0)
        down = next(w for w in steps if int(w.option) < 0)
        lo, hi, wrap = up.options  # type: ignore[misc]
        if wrap:
            size = hi - lo + 1
            return up.id if (int(value) - cur) % size <= (cur - int(value)) % size else down.id
        return up.id if int(value) > cur else down.id
    months = [w for w in btns if w.group == key + ".shown" and w.action == "month"]
    if months and isinstance(value, str) and len(value) >= 7 and value[:7] != months[0].detail:
        fwd = value[:7] > str(months[0].detail)
        return next(w.id for w in months if (int(w.option) > 0) == fwd)
    return None
