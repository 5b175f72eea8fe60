"""The widget gallery: one app that shows every composite widget of :mod:`guigym.apps.widgets`,
one screen each, built from its values like any family's app. It makes the README's widget
pictures (``scripts/widget_gallery.py``) and drives the widget tests on both renderers; it is
not a task family (no env id).

>>> from guigym.apps.base import apply, start_state, view
>>> from guigym.events import Event
>>> sc = gallery_scenario()
>>> st = apply(sc, start_state(sc), Event("click", "open.stepper"))
>>> [c.id for c in view(sc, st).rows[0].cells]
['qty.label', 'qty.dec', 'qty', 'qty.inc']
"""

from __future__ import annotations

from typing import Any

from guigym.apps.base import App, Widget, register_app, row
from guigym.apps.family import THEMES
from guigym.apps.schema import AppSpec, AppState, Scenario
from guigym.apps.widgets import (
    date_picker_rows, search_row, select_row, shown_month, stepper_row, tabs_row, textarea_row, time_picker_rows,
)

APP = "Widgets"
COLOURS = ("Red", "Orange", "Yellow", "Green", "Teal", "Blue", "Indigo", "Violet", "Pink", "Brown", "Black", "White", "Grey")
FRUIT = ("apple", "apricot", "banana", "cherry", "grape", "lemon", "lime", "mango", "melon", "orange", "peach", "pear", "plum")
#: The gallery's screens: id -> title (the root lists them as links).
SCREENS = {"select": "Select", "textarea": "Multi-line text", "stepper": "Stepper", "tabs": "Tabs", "date": "Date picker",
           "time": "Time picker", "search": "Search"}
TODAY = "2026-03-14"


@register_app
class GalleryApp(App):
    """Each gallery screen's rows, made from the app's values (as a family's app does)."""

    kind = "gallery"

    def rows(self, spec: AppSpec, state: AppState, sid: str) -> list[Widget]:
        val = state["values"]
        if sid == "select":
            return [select_row("colour", "Colour", list(COLOURS), val.get("colour")),
                    select_row("size", "Size", ["S", "M", "L"], val.get("size", "M"), {"S": "Small", "M": "Medium", "L": "Large"})]
        if sid == "textarea":
            return [Widget("to", "input", "To", value=val.get("to", "")), textarea_row("body", "Message", val.get("body", ""), "Write")]
        if sid == "stepper":
            return [stepper_row("qty", "Quantity", int(val.get("qty", 1)), 1, 9)]
        if sid == "tabs":
            tab = val.get("tab", "all")
            shown = [Widget(f"item{i}", "label", f"{tab.title()} item {i + 1}") for i in range(3)]
            return [tabs_row("tab", ["all", "unread", "starred"], tab, {"all": "All", "unread": "Unread", "starred": "Starred"}), *shown]
        if sid == "date":
            day = val.get("day")
            return date_picker_rows("day", day, val.get("day.shown") or shown_month(day, _date(TODAY)))
        if sid == "time":
            return time_picker_rows("alarm", int(val.get("alarm.h", 7)), int(val.get("alarm.m", 30)))
        if sid == "search":
            q = str(val.get("q", ""))
            hits = [f for f in FRUIT if q.strip().lower() in f] if q.strip() else list(FRUIT)
            return [search_row("q", q, "Search fruit"), *(Widget(f"hit.{f}", "link", f.title(), to=None) for f in hits)]
        return super().rows(spec, state, sid)


def _date(iso: str) -> Any:
    import datetime as dt

    return dt.date.fromisoformat(iso)


def gallery_scenario(theme: int = 0) -> Scenario:
    """The gallery's device: one app, its root a list of links to the widget screens."""
    screens: dict[str, Any] = {"root": {"title": "Widgets", "rows": [row(f"open.{k}", "link", t, to=k) for k, t in SCREENS.items()]}}
    screens.update({k: {"title": t, "rows": [], "parent": "root"} for k, t in SCREENS.items()})
    spec: AppSpec = {"kind": "gallery", "name": APP, "root": "root", "screens": screens}
    th = {k: list(v) if isinstance(v, tuple) else v for k, v in THEMES[theme].items()}
    return {"family": "Gallery", "level": "easy", "apps": {APP: spec}, "home": {"enabled": False, "icons": [APP]}, "theme": th,
            "start": {"fg": APP, "values": {}}, "task": {"instruction": "Try every widget."}}
