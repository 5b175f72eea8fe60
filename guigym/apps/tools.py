"""Small phone apps with behaviour, used by the Launcher family: Notes, Clock, Contacts.

Each has an :class:`~guigym.apps.base.App` subclass (registered by kind) and a spec builder
that draws its content from the scenario's ``rng``. Specs are plain JSON.

* Notes (``"notes"``): a "New note" button and one link per saved note (newest first);
  the editor (reached by the button, so it has no parent link) has Title and Body fields,
  an error line and Save (an empty title shows an error; otherwise the note is appended
  to ``data["notes"]`` and the editor closes) and Discard. Note screens
  (:func:`~guigym.apps.schema.note_screen`) are made on the fly from app data.
* Clock (``"clock"``): alarms as switches ("6:30 AM", detail "Weekdays"), an "Add alarm"
  button that opens a do-nothing time picker, links to Timer/Stopwatch/World clock.
* Contacts (``"contacts"``): an alphabetical list of people; a person's screen shows the
  phone number, a "Favourite" switch, a Call button that places a call (recorded in
  ``data["calls"]``: :func:`place_call`) and a Message button that only shows a message.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from guigym.apps.base import App, Widget, register_app, row
from guigym.apps.catalog import FIRST_NAMES, ICON_COLORS, LAST_NAMES
from guigym.apps.family import pick, sample
from guigym.apps.schema import (
    AppSpec,
    AppState,
    Note,
    RowSpec,
    ScreenSpec,
    alarm_id,
    clock_tab,
    contact_link,
    contact_screen,
    favourite_id,
    note_index,
    note_screen,
    sub_id,
)
from guigym.i18n.content import tables

#: Notes' titles and texts (content: generation reads them through ``tables(__name__)``).
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


def _muted(wid: str, text: str) -> RowSpec:
    return row(wid, "label", text, style="muted")


# --- Notes -------------------------------------------------------------------------------
@register_app
class NotesApp(App):
    kind = "notes"

    def initial_state(self, spec: AppSpec) -> AppState:
        state = super().initial_state(spec)
        state["data"]["notes"] = [dict(n) for n in spec["notes"]]
        return state

    def title(self, spec: AppSpec, state: AppState, sid: str) -> str:
        i = note_index(sid)
        return state["data"]["notes"][i]["title"] if i is not None else super().title(spec, state, sid)

    def rows(self, spec: AppSpec, state: AppState, sid: str) -> list[Widget]:
        i = note_index(sid)
        if i is not None:
            note = state["data"]["notes"][i]
            return [Widget(sub_id(sid, "body"), "label", note["body"] or "(empty note)"),
                    Widget(sub_id(sid, "hint"), "label", "Saved on this phone", style="muted")]
        out = super().rows(spec, state, sid)
        if sid == "main":  # saved notes, newest first
            notes = state["data"]["notes"]
            out += [Widget(note_screen(k), "link", notes[k]["title"], detail=notes[k]["body"][:28], to=note_screen(k))
                    for k in reversed(range(len(notes)))]
        return out

    def tile(self, sid: str, w: Widget) -> bool:
        """The saved notes (the ``layout`` variation shows them as tiles, as a notes app's grid)."""
        return sid == "main" and w.kind == "link" and w.to == w.id and note_index(w.id) is not None

    def parent(self, spec: AppSpec, sid: str) -> str | None:
        return "main" if note_index(sid) is not None else super().parent(spec, sid)

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        vals = state["values"]
        if w.action == "new":  # a fresh editor
            vals.update(title="", body="", edit_error="")
            self.push(state, "edit")
        elif w.action == "save":
            title = str(vals.get("title", "")).strip()
            if not title:
                vals["edit_error"] = "A note needs a title"
                return
            state["data"]["notes"].append({"title": title, "body": str(vals.get("body", "")).strip()})
            vals.update(title="", body="", edit_error="")
            self.pop(state)
        elif w.action == "discard":
            vals.update(title="", body="", edit_error="")
            self.pop(state)


def note_tables() -> Any:
    """This module's tables in the generating language (:func:`guigym.i18n.content.tables`):
    ``NOTE_TITLES`` and ``NOTE_BODIES``, which the saved notes and the note tasks of Launcher,
    Phone and CrossApp draw from."""
    return tables(__name__)


def notes_app(rng: np.random.Generator, n_notes: int, avoid: list[str]) -> AppSpec:
    """The Notes spec with ``n_notes`` saved notes whose titles are not in ``avoid``."""
    T = note_tables()
    titles = sample(rng, [t for t in T.NOTE_TITLES if t not in avoid], n_notes)
    notes: list[Note] = [{"title": t, "body": pick(rng, T.NOTE_BODIES)} for t in titles]
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
            "main": {"title": "Notes", "parent": None, "rows": [
                row("new", "button", pick(rng, NOTE_BUTTONS), action="new", style="primary"),
            ]},
            "edit": {"title": "New note", "parent": None, "rows": editor},
        },
    }


# --- Clock -------------------------------------------------------------------------------
@register_app
class ClockApp(App):
    kind = "clock"

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        if w.action == "cancel":
            self.pop(state)
        else:
            super().on_button(spec, state, w)


def time_label(minutes: int) -> str:
    """Minutes after midnight as '6:30 AM'."""
    h, m = divmod(minutes, 60)
    return f"{(h - 1) % 12 + 1}:{m:02d} {'AM' if h < 12 else 'PM'}"


def clock_app(rng: np.random.Generator, n_alarms: int) -> AppSpec:
    """The Clock spec with ``n_alarms`` alarms (distinct times, sorted; ids :func:`~guigym.apps.schema.alarm_id`)."""
    slots = [h * 60 + m for h in range(5, 23) for m in (0, 15, 30, 45)]
    times = sorted(sample(rng, slots, n_alarms))
    alarms = [row(alarm_id(t), "toggle", time_label(t), detail=pick(rng, REPEATS), value=bool(rng.integers(2))) for t in times]
    tabs = [row(clock_tab(k), "link", name, to=clock_tab(k)) for k, name in enumerate(CLOCK_TABS)]
    screens: dict[str, ScreenSpec] = {
        "main": {"title": "Alarms", "parent": None, "rows": [*alarms, row("add", "button", "Add alarm", to="add"), *tabs]},
        "add": {"title": "Add alarm", "parent": "main", "rows": [
            row("add_hint", "label", "Pick a time"), _muted("add_time", "7:00 AM"), row("cancel", "button", "Cancel", action="cancel"),
        ]},
    }
    for k, name in enumerate(CLOCK_TABS):
        tab = clock_tab(k)
        screens[tab] = {"title": name, "parent": "main", "rows": [_muted(sub_id(tab, "info"), f"No {name.lower()} running")]}
    return {"kind": "clock", "name": "Clock", "root": "main", "color": list(pick(rng, ICON_COLORS)), "screens": screens}


# --- Contacts ----------------------------------------------------------------------------
def place_call(state: AppState, sid: str) -> None:
    """Record a call placed from the person's screen ``sid`` in ``data["calls"]``: the screens
    called from, sorted, each once (made on the first call, so a state without calls is what
    it was before calls were recorded; a set, so two states are equal exactly when their
    "Calling ..." lines are). No task asks for a call and none can be taken back, so a family
    with a Contacts app fails the task once there is one (:func:`calls_placed`): a side
    effect, as OpenApps counts them."""
    calls = state["data"].get("calls", [])
    if sid not in calls:
        state["data"]["calls"] = sorted([*calls, sid])


def calls_placed(state: AppState) -> bool:
    """Whether a Contacts app's state (kind ``contacts``, ``addressbook`` or ``phonebook``)
    records a call (:func:`place_call`)."""
    return bool(state["data"].get("calls"))


def call_problems(state: AppState) -> list[str]:
    """``data["calls"]``, where present, must be a list of screen ids (strs): set_state's check."""
    calls = state["data"].get("calls", [])
    ok = isinstance(calls, list) and all(type(c) is str for c in calls)
    return [] if ok else [f"data.calls: {calls!r:.40} is not a list of screen ids (strs)"]


@register_app
class ContactsApp(App):
    """Call places a call (:func:`place_call`: a side effect that fails the task); Message only
    says what it would do (a distractor)."""

    kind = "contacts"

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        return [*super().state_problems(spec, state), *call_problems(state)]

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        sid = state["stack"][-1]
        if w.action in ("call", "message"):
            verb = "Calling" if w.action == "call" else "Opening messages for"
            state["values"][sub_id(sid, "msg")] = f"{verb} {spec['screens'][sid]['title']}..."
            if w.action == "call":
                place_call(state, sid)
        else:
            super().on_button(spec, state, w)


#: Every "First Last" name Contacts can show (made once: generation samples from it per scenario).
PEOPLE: tuple[str, ...] = tuple(f"{f.title()} {l.title()}" for f in FIRST_NAMES for l in LAST_NAMES)


def contacts_app(rng: np.random.Generator, n_people: int) -> AppSpec:
    """The Contacts spec: ``n_people`` distinct people sorted by name, one screen each
    (:func:`~guigym.apps.schema.contact_screen`) with a favourite switch (:func:`~guigym.apps.schema.favourite_id`)."""
    people = sorted(sample(rng, PEOPLE, n_people))
    screens: dict[str, ScreenSpec] = {
        "main": {"title": "Contacts", "parent": None, "rows": [row("create", "button", "Create contact", to="create")]},
    }
    for i, name in enumerate(people):
        sid = contact_screen(i)
        screens["main"]["rows"].append(row(contact_link(i), "link", name, to=sid))
        screens[sid] = {"title": name, "parent": "main", "rows": [
            _muted(sub_id(sid, "phone"), f"Mobile +1 555-{int(rng.integers(100, 10000)):04d}"),
            row(favourite_id(i), "toggle", "Favourite", value=bool(rng.random() < 0.25)),
            row(sub_id(sid, "call"), "button", "Call", action="call"),
            row(sub_id(sid, "message"), "button", "Message", action="message"),
            row(sub_id(sid, "msg"), "label", "", value=""),
        ]}
    screens["create"] = {"title": "Create contact", "parent": "main", "rows": [
        row("new_name", "input", "Name", value=""), row("new_phone", "input", "Phone", value=""),
        _muted("create_hint", "Saving new contacts is turned off on this phone."),
    ]}
    return {
        "kind": "contacts", "name": "Contacts", "root": "main", "color": list(pick(rng, ICON_COLORS)), "people": people, "screens": screens,
    }
