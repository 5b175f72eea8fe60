"""Small phone apps with behaviour, used by the Launcher family: Notes, Clock, Contacts.

Each has an :class:`~guigym.apps.base.App` subclass (registered by kind) and a spec builder
that draws its content from the scenario's ``rng``. Specs are plain JSON.

* Notes (``"notes"``): a "New note" button and one link per saved note (newest first);
  the editor (reached by the button, so it has no parent link) has Title and Body fields,
  an error line and Save (an empty title shows an error; otherwise the note is appended
  to ``data["notes"]`` and the editor closes) and Discard. Note screens (``"note:<i>"``)
  are made on the fly from app data.
* Clock (``"clock"``): alarms as switches ("6:30 AM", detail "Weekdays"), an "Add alarm"
  button that opens a do-nothing time picker, links to Timer/Stopwatch/World clock.
* Contacts (``"contacts"``): an alphabetical list of people; a person's screen shows the
  phone number, a "Favourite" switch and Call/Message buttons that only show a message.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from guigym.apps.base import App, Widget, register_app, row
from guigym.apps.catalog import FIRST_NAMES, ICON_COLORS, LAST_NAMES
from guigym.apps.family import pick, sample

NOTE_TITLES: tuple[str, ...] = (
    "Groceries", "Packing list", "Meeting notes", "Gift ideas", "Books to read", "Recipes", "Workout plan",
    "Travel plans", "To do", "Movies to watch", "Garden", "Birthday party", "Car service", "Budget", "Ideas",
)
NOTE_BODIES: tuple[str, ...] = (
    "milk, eggs, bread", "call the plumber", "passport and charger", "pay rent on Friday", "buy stamps",
    "book a table for four", "water the plants", "renew the library card", "pick up the parcel", "oil change at 5",
)
REPEATS: tuple[str, ...] = ("Weekdays", "Every day", "Weekends", "Once", "Mon, Wed, Fri", "Sat")
NOTE_BUTTONS: tuple[str, ...] = ("New note", "Add note", "Create note")
CLOCK_TABS: tuple[str, ...] = ("Timer", "Stopwatch", "World clock", "Bedtime")


def _muted(wid: str, text: str) -> dict[str, Any]:
    return row(wid, "label", text, style="muted")


# --- Notes -------------------------------------------------------------------------------
@register_app
class NotesApp(App):
    kind = "notes"

    def initial_state(self, spec: dict[str, Any]) -> dict[str, Any]:
        ast = super().initial_state(spec)
        ast["data"]["notes"] = [dict(n) for n in spec["notes"]]
        return ast

    def title(self, spec: dict[str, Any], ast: dict[str, Any], sid: str) -> str:
        if sid.startswith("note:"):
            return ast["data"]["notes"][int(sid[5:])]["title"]
        return super().title(spec, ast, sid)

    def rows(self, spec: dict[str, Any], ast: dict[str, Any], sid: str) -> list[Widget]:
        if sid.startswith("note:"):
            note = ast["data"]["notes"][int(sid[5:])]
            return [Widget(f"{sid}.body", "label", note["body"] or "(empty note)"), Widget(f"{sid}.hint", "label", "Saved on this phone", style="muted")]
        out = super().rows(spec, ast, sid)
        if sid == "main":  # saved notes, newest first
            notes = ast["data"]["notes"]
            out += [Widget(f"note:{i}", "link", notes[i]["title"], detail=notes[i]["body"][:28], to=f"note:{i}") for i in reversed(range(len(notes)))]
        return out

    def parent(self, spec: dict[str, Any], sid: str) -> str | None:
        return "main" if sid.startswith("note:") else super().parent(spec, sid)

    def on_button(self, spec: dict[str, Any], ast: dict[str, Any], w: Widget, dev: dict[str, Any]) -> None:
        vals = ast["values"]
        if w.action == "new":  # a fresh editor
            vals.update(title="", body="", edit_error="")
            self.push(ast, "edit")
        elif w.action == "save":
            title = str(vals.get("title", "")).strip()
            if not title:
                vals["edit_error"] = "A note needs a title"
                return
            ast["data"]["notes"].append({"title": title, "body": str(vals.get("body", "")).strip()})
            vals.update(title="", body="", edit_error="")
            self.pop(ast)
        elif w.action == "discard":
            vals.update(title="", body="", edit_error="")
            self.pop(ast)


def notes_app(rng: np.random.Generator, n_notes: int, avoid: list[str]) -> dict[str, Any]:
    """The Notes spec with ``n_notes`` saved notes whose titles are not in ``avoid``."""
    titles = sample(rng, [t for t in NOTE_TITLES if t not in avoid], n_notes)
    notes = [{"title": t, "body": pick(rng, NOTE_BODIES)} for t in titles]
    editor = [
        row("title", "input", "Title", placeholder="Title", value=""),
        row("body", "input", "Note", placeholder="Write something", value=""),
        row("edit_error", "label", "", value="", style="error"),
        row("save", "button", pick(rng, ("Save", "Done")), action="save", style="primary"),
        row("discard", "button", "Discard", action="discard"),
    ]
    return {
        "kind": "notes", "name": "Notes", "root": "main", "color": list(pick(rng, ICON_COLORS)), "notes": notes,
        "screens": {
            "main": {"title": "Notes", "parent": None, "rows": [row("new", "button", pick(rng, NOTE_BUTTONS), action="new", style="primary")]},
            "edit": {"title": "New note", "parent": None, "rows": editor},
        },
    }


# --- Clock -------------------------------------------------------------------------------
@register_app
class ClockApp(App):
    kind = "clock"

    def on_button(self, spec: dict[str, Any], ast: dict[str, Any], w: Widget, dev: dict[str, Any]) -> None:
        if w.action == "cancel":
            self.pop(ast)
        else:
            super().on_button(spec, ast, w, dev)


def time_label(minutes: int) -> str:
    """Minutes after midnight as '6:30 AM'."""
    h, m = divmod(minutes, 60)
    return f"{(h - 1) % 12 + 1}:{m:02d} {'AM' if h < 12 else 'PM'}"


def clock_app(rng: np.random.Generator, n_alarms: int) -> dict[str, Any]:
    """The Clock spec with ``n_alarms`` alarms (distinct times, sorted), ids ``alarm:HHMM``."""
    slots = [h * 60 + m for h in range(5, 23) for m in (0, 15, 30, 45)]
    times = sorted(sample(rng, slots, n_alarms))
    alarms = [row(f"alarm:{t // 60:02d}{t % 60:02d}", "toggle", time_label(t), detail=pick(rng, REPEATS), value=bool(rng.integers(2))) for t in times]
    tabs = [row(f"tab:{k}", "link", name, to=f"tab:{k}") for k, name in enumerate(CLOCK_TABS)]
    screens: dict[str, Any] = {
        "main": {"title": "Alarms", "parent": None, "rows": [*alarms, row("add", "button", "Add alarm", to="add"), *tabs]},
        "add": {"title": "Add alarm", "parent": "main", "rows": [
            row("add_hint", "label", "Pick a time"), _muted("add_time", "7:00 AM"), row("cancel", "button", "Cancel", action="cancel"),
        ]},
    }
    for k, name in enumerate(CLOCK_TABS):
        screens[f"tab:{k}"] = {"title": name, "parent": "main", "rows": [_muted(f"tab:{k}.info", f"No {name.lower()} running")]}
    return {"kind": "clock", "name": "Clock", "root": "main", "color": list(pick(rng, ICON_COLORS)), "screens": screens}


# --- Contacts ----------------------------------------------------------------------------
@register_app
class ContactsApp(App):
    kind = "contacts"

    def on_button(self, spec: dict[str, Any], ast: dict[str, Any], w: Widget, dev: dict[str, Any]) -> None:
        sid = ast["stack"][-1]
        if w.action in ("call", "message"):  # distractors: they only say what they would do
            verb = "Calling" if w.action == "call" else "Opening messages for"
            ast["values"][f"{sid}.msg"] = f"{verb} {spec['screens'][sid]['title']}..."
        else:
            super().on_button(spec, ast, w, dev)


def contacts_app(rng: np.random.Generator, n_people: int) -> dict[str, Any]:
    """The Contacts spec: ``n_people`` distinct people sorted by name, screens ``c:<i>``
    with a favourite switch ``fav:<i>``."""
    names = [f"{f.title()} {l.title()}" for f in FIRST_NAMES for l in LAST_NAMES]
    people = sorted(sample(rng, names, n_people))
    screens: dict[str, Any] = {"main": {"title": "Contacts", "parent": None, "rows": [row("create", "button", "Create contact", to="create")]}}
    for i, name in enumerate(people):
        sid = f"c:{i}"
        screens["main"]["rows"].append(row(f"open:{i}", "link", name, to=sid))
        screens[sid] = {"title": name, "parent": "main", "rows": [
            _muted(f"{sid}.phone", f"Mobile +1 555-{int(rng.integers(100, 10000)):04d}"),
            row(f"fav:{i}", "toggle", "Favourite", value=bool(rng.random() < 0.25)),
            row(f"{sid}.call", "button", "Call", action="call"),
            row(f"{sid}.message", "button", "Message", action="message"),
            row(f"{sid}.msg", "label", "", value=""),
        ]}
    screens["create"] = {"title": "Create contact", "parent": "main", "rows": [
        row("new_name", "input", "Name", value=""), row("new_phone", "input", "Phone", value=""),
        _muted("create_hint", "Saving new contacts is turned off on this phone."),
    ]}
    return {"kind": "contacts", "name": "Contacts", "root": "main", "color": list(pick(rng, ICON_COLORS)), "people": people, "screens": screens}
