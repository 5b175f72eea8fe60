"""Phone: a home screen with Notes+, Contacts+, Clock+ and Messages; edit, delete, add, send and answer.

Description:
    A paged home screen (20 icons per page, Scroll left/right between pages) with four apps that
    have behaviour among stub distractor apps. Notes+ (kind ``notes_plus``): the saved notes
    (newest first), a "New note" editor (Title field, multi-line Text field), one screen per note
    (its text, Edit, Delete), an editor pre-filled with the note, and a confirmation dialog for
    Delete ("Delete this note?" with Cancel / Delete). Contacts+ (kind ``phonebook``, the
    Contacts family's address book: phone, email, favourite, Edit with pre-filled fields, Delete
    through a dialog). Clock+ (kind ``clock_plus``): the alarms as switches (time, repeat days
    under it) and a real "Add alarm" screen (hour and minute steppers from
    :func:`~guigym.apps.widgets.time_picker_rows`, a "Repeats" dropdown from
    :func:`~guigym.apps.widgets.select_row`, Save / Cancel: the new alarm appears in the list,
    switched on). Messages (the Messages family's app: conversations, a contact picker, Send).
    Which stubs are on the phone, the icon order and colours, the notes, people (phone numbers,
    emails), alarms, conversations and the task vary with the seed.
Instruction:
    "Change the text of the note 'Groceries' to 'buy stamps'", "Delete the note 'Budget'",
    "What is on the 'Packing list' note?", "Change Bob Lee's phone number to 415-555-0137",
    "What is Grace Hill's number?", "Add an alarm for 6:30 AM, repeating on weekdays", "Turn off
    the 7:15 AM alarm", 'Send "Sounds good" to Zoe King'; at hard two or three joined across
    apps, some that carry a fact from one app to another ("Read Alice Smith's address in
    Messages, then add it to a new note called 'Party'", "Text Bob Lee the phone number of Zoe
    King"), a question always last.
Actions:
    Click, Scroll, Back, OpenApp, Type and Answer (``type`` is ``Discrete(6)``, as in Contacts
    and Messages). Answer ends an information task; in a task that asks nothing it is a no-op
    with an ``action_error``.
Levels:
    * easy: 6-12 icons (one home page); one task in one app; 2-4 notes, 5-7 people, 2-4 alarms,
      2-4 conversations (every list fits on the screen).
    * medium: 13-26 icons (a second home page on 21 or more); one task; 8-12 notes, 14-22 people,
      8-12 alarms, 8-12 conversations (Scroll).
    * hard: 21-32 icons (two home pages); two or three tasks in different apps: "copy an address
      from Messages into a new note, then add an alarm" (the oracle opens the conversation
      first; its reference is at least 15 steps from reset), "look up a phone number in
      Contacts and text it to someone" (then a Notes or Clock task), or two or
      three independent tasks (at times a Notes or Contacts question, always last).
Rewards:
    1 on success, else 0 (``reward_mode="shaped"`` adds the env's potential-based shaping).
Termination:
    Success when every app's data equals the start plus exactly the instructed changes: the
    notes (title and text, case and runs of spaces ignored; a deleted one gone, a new one there
    once), the address book (phone, email, favourite of each person), the alarms (time, repeat,
    on/off of each, a new one once) and the conversations (as in the Messages family: per
    contact, (sent by you, text, delivered) messages; read marks not compared), and for a
    question, the answer matches the fact after :func:`guigym.answers.answers_match`'s
    normalisation. Failure (terminated) on any change the task does not ask for: another note,
    person or alarm changed or deleted, a note or an alarm too many, an extra or wrong message,
    a saved edit with the wrong text, a conversation deleted, a call placed (Contacts+' Call
    button), or an answer that does not make the task a success.
Content:
    The notes' titles and texts are entries of ``guigym.apps.tools``' ``NOTE_TITLES`` and
    ``NOTE_BODIES`` and the conversations come from the Messages family's generators, all read
    through :func:`guigym.i18n.content.tables`: German with ``language="de"``, entry for entry,
    so the draws and the task are the English ones.
Registered ids:
    ``GuiGym-Phone-v0`` (``level="easy" | "medium" | "hard"``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, TypedDict, cast

import numpy as np

from guigym.apps.base import HOME, App, SeenScreens, Widget, id_problems, register_app
from guigym.apps.catalog import BRANDS, ICON_COLORS, STUB_APPS, stub_app
from guigym.apps.contacts import AddressBook, editor_screen, email_address, person_of, person_screen, phone_number
from guigym.apps.family import (
    CALL_PLACED, CONVERSATION_DELETED, NEW_CONVERSATION, WRONG_MESSAGES, Family, Goal, answer_failure, missing, pick, sample, theme,
)
from guigym.apps.launcher import ALARM_OFF, ALARM_ON, JOINS
from guigym.apps.messages import SEND, THEIRS, MessagesFamily, _reachable, chat, fact_message, thread_screen, when
from guigym.apps.permission import permission_goal
from guigym.apps.schema import AppSpec, AppState, Card, DeviceState, Scenario, Task, Thread, record_id, sub_id
from guigym.apps.tools import PEOPLE, REPEATS, ClockApp, NotesApp, calls_placed, clock_app, note_tables, notes_app, time_label
from guigym.apps.widgets import menu_screen, select_row, textarea_row, time_picker_rows

NOTES, CLOCK, CONTACTS, MESSAGES = "Notes", "Clock", "Contacts", "Messages"
TOOLS: tuple[str, ...] = (NOTES, CLOCK, CONTACTS, MESSAGES)
STUBS: tuple[str, ...] = tuple(a for a in STUB_APPS if a not in TOOLS)

#: (icons, notes, people, alarms, conversations) per level.
LEVEL_SIZES: dict[str, tuple[tuple[int, int], ...]] = {
    "easy": ((6, 12), (2, 4), (5, 7), (2, 4), (2, 4)),
    "medium": ((13, 26), (8, 12), (14, 22), (8, 12), (8, 12)),
    "hard": ((21, 32), (6, 12), (16, 26), (6, 12), (8, 14)),
}
#: One-task kinds (easy, medium), and the kinds of each app (hard's independent tasks).
SINGLE = ("note_edit", "note_delete", "note_ask", "contact_edit", "contact_ask", "alarm_add", "alarm_switch", "msg_send")
KINDS_OF = {NOTES: ("note_edit", "note_delete"), CONTACTS: ("contact_edit",), CLOCK: ("alarm_add", "alarm_switch"),
            MESSAGES: ("msg_send",)}
ASK_OF = {NOTES: "note_ask", CONTACTS: "contact_ask"}
#: The add-alarm screen opens on this time and repeat.
ADD_H, ADD_M, ADD_REPEAT = 7, 0, "Once"
ADD = "add"
ADD_KEY = "add.time"  # the time picker: values["add.time.h"], values["add.time.m"]
REPEAT_KEY = "add.repeat"
REPEAT_OPTIONS: tuple[str, ...] = (ADD_REPEAT, *(r for r in REPEATS if r != ADD_REPEAT))  # the Clock's repeats, "Once" first
REPEAT_PHRASES = {"Once": "only once", "Every day": "every day", "Weekdays": "on weekdays", "Weekends": "on weekends",
                  "Mon, Wed, Fri": "on Mon, Wed, Fri", "Sat": "on Saturdays"}
NOTE_EDIT = ("Change the text of the note '{t}' to '{x}'", "In Notes, edit '{t}' so that it says '{x}'",
             "Replace the text of the '{t}' note with '{x}'")
NOTE_DELETE = ("Delete the note '{t}'", "In Notes, remove the '{t}' note", "Get rid of the note titled '{t}'")
NOTE_ASK = ("What is on the '{t}' note?", "What does the note '{t}' say?", "In Notes, what is written in '{t}'?")
NOTE_COPY = ("Find the address {n} sent you in Messages and save it in a new note titled '{t}'",
             "Read {n}'s address in Messages, then add it to a new note called '{t}'",
             "In Messages, look up the address from {n} and put it in a new note titled '{t}'")
CONTACT_EDIT = ("Change {n}'s phone number to {x}", "In Contacts, update {n}'s number to {x}", "Set the phone number of {n} to {x}")
CONTACT_ASK = ("What is {n}'s number?", "What is {n}'s phone number?", "Look up {n}'s phone number in Contacts and tell me.")
ALARM_ADD = ("Add an alarm for {time}, repeating {rep}", "In Clock, set a new {time} alarm that repeats {rep}",
             "Create an alarm at {time} (Repeats: {opt})")
SHARE = ("Send {a}'s phone number to {n} in Messages", "Text {n} the phone number of {a}",
         "Look up {a}'s number in Contacts and message it to {n}")
TELL = {"note_ask": "tell me what the '{t}' note says", "contact_ask": "tell me {n}'s phone number"}


class PhoneJob(TypedDict):
    type: str  # one of SINGLE, or "note_new" (a new note, its text copied from a conversation)
    app: str
    ref: int | None  # the note's, person's or alarm's id (note_edit/delete/ask, contact_edit/ask, alarm_switch)
    name: str | None  # the person (contact_*), the recipient (msg_send), the sender of the copied address (note_new)
    title: str | None  # the note's title
    text: str | None  # the new text: a note's, a phone number, a message
    time: int | None  # alarm_add: minutes after midnight
    repeat: str | None  # alarm_add: the Repeats option
    on: bool | None  # alarm_switch: the new value
    fact: str | None  # *_ask: the answer
    src_app: str | None  # a fact carried from another app: the app to read it in first
    src: int | None  # ... and the conversation (Messages) or person (Contacts) holding it


class PhoneTask(Task):
    jobs: list[PhoneJob]  # in the instruction's order; a question is always last


# --- Notes+ ----------------------------------------------------------------------------------
def note_view(nid: int) -> str:
    """A note's screen (and its link on the list), by its id; its editor and delete dialog.

    >>> note_view(2), note_editor(2), note_dialog(2), note_of("ne:2"), note_of("new")
    ('n:2', 'ne:2', 'nd:2', 2, None)
    """
    return f"n:{nid}"


def note_editor(nid: int) -> str:
    return f"ne:{nid}"


def note_dialog(nid: int) -> str:
    return f"nd:{nid}"


def note_of(sid: str) -> int | None:
    return record_id(sid, "n", "ne", "nd")


def _note(state: AppState, nid: int) -> dict[str, Any] | None:
    return next((n for n in state["data"]["notes"] if n["id"] == nid), None)


@register_app
class NotesPlus(NotesApp):
    """Notes with ids (``data["notes"]``: ``{"id", "title", "body"}``, oldest first; the start's
    ids are their index in ``spec["notes"]``), a new-note editor that keeps its draft, and per
    note: a screen, an editor and a delete dialog, made on the fly."""

    kind = "notes_plus"
    dialog_prefix = "nd:"

    def initial_state(self, spec: AppSpec) -> AppState:
        state = App.initial_state(self, spec)
        state["data"]["notes"] = [{"id": i, "title": n["title"], "body": n["body"]} for i, n in enumerate(spec["notes"])]
        state["data"]["next"] = len(spec["notes"])
        state["values"].update({"new.title": "", "new.body": "", "new.error": ""})
        return state

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        """Notes with unique ids >= 0 (their screens are named by them, "n:3"), below ``next``."""
        return id_problems(state["data"]["notes"], "data.notes", next_id=state["data"]["next"])

    def tile(self, sid: str, w: Widget) -> bool:
        return sid == "main" and w.kind == "link" and w.to == w.id and w.id.startswith("n:")

    def parent(self, spec: AppSpec, sid: str) -> str | None:
        nid = note_of(sid)
        if nid is None:
            return App.parent(self, spec, sid)
        return "main" if sid.startswith("n:") else note_view(nid)

    def title(self, spec: AppSpec, state: AppState, sid: str) -> str:
        nid = note_of(sid)
        if nid is None:
            return App.title(self, spec, state, sid)
        note = _note(state, nid)
        return {"n": note["title"] if note else "Note", "ne": "Edit note", "nd": "Delete this note?"}[sid.split(":")[0]]

    def rows(self, spec: AppSpec, state: AppState, sid: str) -> list[Widget]:
        vals = state["values"]
        if sid == "new":
            return self._editor("new", vals)
        nid = note_of(sid)
        if nid is None:
            out = App.rows(self, spec, state, sid)
            if sid == "main":  # newest first
                out += [Widget(note_view(n["id"]), "link", n["title"], detail=n["body"][:28], to=note_view(n["id"]))
                        for n in reversed(state["data"]["notes"])]
            return out
        note = _note(state, nid)
        if note is None:
            return []
        if sid.startswith("n:"):
            return [Widget(sub_id(sid, "body"), "label", note["body"] or "(empty note)"),
                    Widget(sub_id(sid, "edit"), "button", "Edit", to=note_editor(nid), action="edit"),
                    Widget(sub_id(sid, "delete"), "button", "Delete", to=note_dialog(nid), action="delete")]
        if sid.startswith("ne:"):
            return self._editor(sid, vals)
        return [Widget(sub_id(sid, "dialog"), "dialog", "Delete this note?", detail=f"'{note['title']}' will be removed."),
                Widget(sub_id(sid, "cancel"), "button", "Cancel", action="cancel"),
                Widget(sub_id(sid, "confirm"), "button", "Delete", action="confirm", style="danger")]

    @staticmethod
    def _editor(sid: str, vals: dict[str, Any]) -> list[Widget]:
        err = vals.get(sub_id(sid, "error"), "")
        return [
            Widget(sub_id(sid, "title"), "input", "Title", value=vals.get(sub_id(sid, "title"), ""), placeholder="Title"),
            textarea_row(sub_id(sid, "body"), "Text", vals.get(sub_id(sid, "body"), ""), placeholder="Write something"),
            *([Widget(sub_id(sid, "error"), "label", err, style="error")] if err else []),
            Widget(sub_id(sid, "save"), "button", "Save", action="save", style="primary"),
            Widget(sub_id(sid, "cancel"), "button", "Cancel", action="cancel"),
        ]

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        sid = state["stack"][-1]
        vals, data = state["values"], state["data"]
        nid = note_of(sid)
        if w.action == "save" and (sid == "new" or sid.startswith("ne:")):
            title = str(vals.get(sub_id(sid, "title"), "")).strip()
            body = str(vals.get(sub_id(sid, "body"), "")).strip()
            if not title:
                vals[sub_id(sid, "error")] = "A note needs a title"
                return
            if sid == "new":
                data["notes"].append({"id": data["next"], "title": title, "body": body})
                data["next"] += 1
                vals.update({"new.title": "", "new.body": "", "new.error": ""})
            else:
                note = _note(state, nid)  # type: ignore[arg-type]
                if note is not None:
                    note.update(title=title, body=body)
                vals[sub_id(sid, "error")] = ""
            self.pop(state)
        elif w.action == "cancel":
            if sid == "new":  # Cancel discards the draft (Back keeps it)
                vals.update({"new.title": "", "new.body": "", "new.error": ""})
            self.pop(state)
        elif w.action == "edit" and nid is not None:  # a fresh editor holds the note as it is
            note = _note(state, nid)
            if note is not None:
                ed = note_editor(nid)
                vals.update({sub_id(ed, "title"): note["title"], sub_id(ed, "body"): note["body"], sub_id(ed, "error"): ""})
                self.push(state, ed)
        elif w.action == "delete" and nid is not None:
            self.push(state, note_dialog(nid))
        elif w.action == "confirm" and nid is not None:  # gone for good: back to the list
            data["notes"] = [n for n in data["notes"] if n["id"] != nid]
            del state["stack"][1:]
            state["focus"] = None
        else:
            App.on_button(self, spec, state, w)


def notes_plus_app(rng: np.random.Generator, n_notes: int, avoid: list[str]) -> AppSpec:
    """Notes+: the Launcher's Notes spec (its saved notes and colour) with the new editor; the
    notes and ``avoid`` (titles none of them may have) in the generating language."""
    spec = notes_app(rng, n_notes, avoid)
    new = spec["screens"]["main"]["rows"][0]
    spec["kind"] = "notes_plus"
    spec["screens"] = {
        "main": {"title": "Notes", "parent": None, "rows": [{**new, "to": "new"}]},
        "new": {"title": "New note", "parent": "main", "rows": []},
    }
    spec["screens"]["main"]["rows"][0].pop("action", None)
    return spec


# --- Clock+ ----------------------------------------------------------------------------------
def alarm_switch(aid: int) -> str:
    """An alarm's switch on the list, by its id.

    >>> alarm_switch(3)
    'al:3'
    """
    return f"al:{aid}"


def _minutes(wid: str) -> int:
    """The time of a Launcher alarm row (``alarm:HHMM``)."""
    return int(wid[6:8]) * 60 + int(wid[8:10])


def start_alarms(spec: AppSpec) -> list[dict[str, Any]]:
    """The alarms of a Clock spec: ``{"id", "time", "repeat", "on"}`` (ids in list order)."""
    rows = [r for r in spec["screens"]["main"]["rows"] if r["kind"] == "toggle"]
    return [{"id": k, "time": _minutes(r["id"]), "repeat": r.get("detail", ""), "on": bool(r.get("value"))} for k, r in enumerate(rows)]


@register_app
class ClockPlus(ClockApp):
    """A Clock whose alarms live in ``data["alarms"]`` (shown sorted by time) and whose "Add
    alarm" screen adds one: a time picker, a Repeats select, Save."""

    kind = "clock_plus"

    def initial_state(self, spec: AppSpec) -> AppState:
        state = App.initial_state(self, spec)
        alarms = start_alarms(spec)
        state["values"] = {k: v for k, v in state["values"].items() if not k.startswith("alarm:")}
        state["data"]["alarms"] = alarms
        state["data"]["next"] = len(alarms)
        return state

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        """Alarms with unique ids >= 0 below ``next``, each at a minute of the day (0..1439)."""
        out = id_problems(state["data"]["alarms"], "data.alarms", next_id=state["data"]["next"])
        return out + [f"data.alarms[{i}].time: {a['time']!r:.20} is not a minute of the day (0..1439)"
                      for i, a in enumerate(state["data"]["alarms"]) if not 0 <= a["time"] < 24 * 60]

    def rows(self, spec: AppSpec, state: AppState, sid: str) -> list[Widget]:
        vals = state["values"]
        if sid == ADD:
            err = vals.get("add.error", "")
            return [*time_picker_rows(ADD_KEY, int(vals.get(ADD_KEY + ".h", ADD_H)), int(vals.get(ADD_KEY + ".m", ADD_M))),
                    select_row(REPEAT_KEY, "Repeats", list(REPEAT_OPTIONS), vals.get(REPEAT_KEY, ADD_REPEAT)),
                    *([Widget("add.error", "label", err, style="error")] if err else []),
                    Widget("add.save", "button", "Save", action="save", style="primary"),
                    Widget("add.cancel", "button", "Cancel", action="cancel")]
        out = [w for w in App.rows(self, spec, state, sid) if not w.id.startswith("alarm:")]
        if sid == "main":
            alarms = sorted(state["data"]["alarms"], key=lambda a: (a["time"], a["id"]))
            out = [Widget(alarm_switch(a["id"]), "toggle", time_label(a["time"]), value=a["on"], detail=a["repeat"]) for a in alarms] + out
        return out

    def on_toggle(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        if w.id.startswith("al:"):
            on = bool(state["values"].pop(w.id))  # the alarm holds it, not a row value
            for a in state["data"]["alarms"]:
                if a["id"] == int(w.id[3:]):
                    a["on"] = on

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        vals, data = state["values"], state["data"]
        if w.action == "add":  # a fresh add-alarm screen
            vals.update({ADD_KEY + ".h": ADD_H, ADD_KEY + ".m": ADD_M, REPEAT_KEY: ADD_REPEAT, "add.error": ""})
            self.push(state, ADD)
        elif w.action == "save":
            t = int(vals.get(ADD_KEY + ".h", ADD_H)) * 60 + int(vals.get(ADD_KEY + ".m", ADD_M))
            data["alarms"].append({"id": data["next"], "time": t, "repeat": str(vals.get(REPEAT_KEY, ADD_REPEAT)), "on": True})
            data["next"] += 1
            self.pop(state)
        else:
            super().on_button(spec, state, w)


def clock_plus_app(rng: np.random.Generator, n_alarms: int) -> AppSpec:
    """Clock+: the Launcher's Clock spec (alarms, tabs, colour) with a working Add alarm."""
    spec = clock_app(rng, n_alarms)
    spec["kind"] = "clock_plus"
    for r in spec["screens"]["main"]["rows"]:
        if r["id"] == "add":
            r["action"] = "add"
    spec["screens"][ADD] = {"title": "Add alarm", "parent": "main", "rows": []}
    return spec


# --- Contacts+ -------------------------------------------------------------------------------
@register_app
class PhoneBook(SeenScreens, AddressBook):
    """The Contacts family's address book that remembers whose card was opened
    (``data["seen"]``: the oracle reads a number there before it texts it; never compared)."""

    kind = "phonebook"

    def seen_id(self, sid: str) -> int | None:
        # a person's card only (not their editor or Delete dialog)
        return person_of(sid) if sid.startswith("p:") else None


def conversation_deleted(spec: AppSpec, app: AppState) -> bool:
    """Whether a conversation of the Messages app ``spec``'s start is gone from its state
    ``app``: compared by id, so one deleted and then started again with the same person (a new
    id) counts as deleted too."""
    have = {t["id"] for t in app["data"]["threads"]}
    return any(t["id"] not in have for t in spec["threads"])


# --- the family ------------------------------------------------------------------------------
_FOLDED: dict[str, str] = {}


def _fold(s: Any) -> str:
    """Text as compared: runs of spaces as one, case ignored (memoised for strs: success and
    failure checks fold every note of a state, on every step)."""
    if type(s) is not str:
        return " ".join(str(s).split()).casefold()
    out = _FOLDED.get(s)
    if out is None:
        if len(_FOLDED) >= 8192:
            _FOLDED.clear()
        out = _FOLDED[s] = " ".join(s.split()).casefold()
    return out


def _job(kind: str, app: str, **kw: Any) -> PhoneJob:
    job: dict[str, Any] = {"type": kind, "app": app, "ref": None, "name": None, "title": None, "text": None, "time": None,
                           "repeat": None, "on": None, "fact": None, "src_app": None, "src": None}
    job.update(kw)
    return cast(PhoneJob, job)


class Expected(TypedDict):
    notes: dict[int, tuple[str, str]]
    new_notes: list[tuple[str, str]]
    cards: dict[int, Card]
    alarms: dict[int, tuple[int, str, bool]]
    new_alarms: list[tuple[int, str, bool]]
    book: dict[str, list[str]]


class PhoneFamily(Family):
    name = "Phone"
    description = "A phone: Notes (edit, delete, ask), Contacts (edit, ask), Clock (add, switch alarms), Messages (send); hard chains apps."
    apps = TOOLS + STUBS + BRANDS
    task_type = PhoneTask
    asks_questions = True
    permission_apps = (MESSAGES,)
    #: One job's type at easy and medium; at hard: "copy" (an address from Messages into a new
    #: note, then an alarm), "share" (a number from Contacts sent in Messages, then a Notes or
    #: Clock job) or "mixed" (jobs in two or three apps).
    templates = {"easy": SINGLE, "medium": SINGLE, "hard": ("copy", "share", "mixed")}

    def template(self, scenario: Scenario) -> str:
        jobs = self._jobs(scenario)
        if scenario["level"] != "hard":
            return jobs[0]["type"]
        if any(j["type"] == "note_new" for j in jobs):
            return "copy"
        return "share" if any(j["src_app"] == CONTACTS for j in jobs) else "mixed"
    _memo: tuple[Scenario, Expected] | None = None
    _start_memo: tuple[Scenario, dict[str, Any]] | None = None

    # --- generation ------------------------------------------------------------------------
    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        (ilo, ihi), (nlo, nhi), (plo, phi), (alo, ahi), (tlo, thi) = LEVEL_SIZES[level]
        if level != "hard":
            kinds, template = [pick(rng, SINGLE)], "single"
        else:
            template = pick(rng, ("copy", "share", "mixed", "mixed"))
            if template == "copy":
                kinds = ["note_new", "alarm_add"]
            elif template == "share":
                kinds = ["msg_share", pick(rng, KINDS_OF[pick(rng, (NOTES, CLOCK))])]
            else:
                chosen = sample(rng, list(TOOLS), int(rng.integers(2, 4)))
                kinds = [pick(rng, KINDS_OF[a]) for a in chosen]
                if chosen[-1] in ASK_OF and rng.random() < 0.4:
                    kinds[-1] = ASK_OF[chosen[-1]]
        new_title = pick(rng, note_tables().NOTE_TITLES) if "note_new" in kinds else None
        notes = notes_plus_app(rng, int(rng.integers(nlo, nhi + 1)), [new_title] if new_title else [])
        clock = clock_plus_app(rng, int(rng.integers(alo, ahi + 1)))
        names = sorted(sample(rng, PEOPLE, int(rng.integers(plo, phi + 1))))
        cards: list[Card] = [{"id": i, "name": n, "phone": phone_number(rng), "email": email_address(rng, n),
                              "fav": bool(rng.random() < 0.3)} for i, n in enumerate(names)]
        contacts: AppSpec = {"kind": "phonebook", "name": CONTACTS, "root": "main", "color": list(pick(rng, ICON_COLORS)), "cards": cards,
                             "screens": {"main": {"title": pick(rng, ("Contacts", "People")), "parent": None, "rows": []}}}
        messages = self._messenger(rng, names, int(rng.integers(tlo, thi + 1)))
        apps: dict[str, AppSpec] = {NOTES: notes, CLOCK: clock, CONTACTS: contacts, MESSAGES: messages}
        jobs = [self._make_job(rng, k, apps, template, new_title) for k in kinds]
        self._distract(rng, messages["threads"], jobs)
        for name in sample(rng, list(STUBS + BRANDS), int(rng.integers(ilo, ihi + 1)) - len(TOOLS)):
            apps[name] = stub_app(rng, name)
        icons = sample(rng, list(apps), len(apps))
        text = "".join((pick(rng, JOINS) if i else "") + self._clause(rng, j, apps, first=i == 0) for i, j in enumerate(jobs))
        if not text.endswith(("?", ".")):
            text += "."
        task: PhoneTask = {"instruction": text, "jobs": jobs}
        return {
            "family": self.name, "level": level, "apps": apps, "home": {"enabled": True, "icons": icons}, "theme": theme(rng),
            "start": {"fg": HOME, "values": {}}, "task": task,
        }

    @staticmethod
    def _messenger(rng: np.random.Generator, contacts: list[str], n_threads: int) -> AppSpec:
        """The Messages app: conversations with ``n_threads`` of the address book's people."""
        partners = sample(rng, contacts, min(n_threads, len(contacts) - 1))
        now = int(rng.integers(13 * 60, 21 * 60))
        ages = sorted(sample(rng, range(1, 5 * 1440), len(partners)))
        threads: list[Thread] = []
        for i, n in enumerate(partners):
            msgs = [(">" if rng.random() < 0.5 else THEIRS) + chat(rng) for _ in range(int(rng.integers(1, 4)))]
            msgs[0] = THEIRS + msgs[0][1:]
            threads.append({"id": i, "name": n, "time": when(now, ages[i]), "unread": bool(rng.random() < 0.3), "msgs": msgs})
        return {
            "kind": "messenger", "name": MESSAGES, "root": "main", "color": list(pick(rng, ICON_COLORS)),
            "threads": threads, "contacts": list(contacts), "now": time_label(now),
            "screens": {
                "main": {"title": pick(rng, ("Messages", "Chats")), "parent": None, "rows": [
                    {"id": "new", "kind": "button", "label": pick(rng, ("New message", "Compose")), "to": "new", "action": "new",
                     "style": "primary"},
                ]},
                "new": {"title": "New message", "parent": "main", "rows": []},
                "pick": {"title": "Choose a contact", "parent": "new", "rows": [], "pop_on_select": True},
            },
        }

    @staticmethod
    def _make_job(rng: np.random.Generator, kind: str, apps: dict[str, AppSpec], template: str, new_title: str | None) -> PhoneJob:
        notes, cards, threads = apps[NOTES]["notes"], apps[CONTACTS]["cards"], apps[MESSAGES]["threads"]
        if kind in ("note_edit", "note_delete", "note_ask"):
            i = int(rng.integers(len(notes)))
            n = notes[i]
            if kind == "note_edit":
                bodies = note_tables().NOTE_BODIES
                return _job(kind, NOTES, ref=i, title=n["title"], text=pick(rng, [b for b in bodies if b != n["body"]]))
            return _job(kind, NOTES, ref=i, title=n["title"], fact=n["body"] if kind == "note_ask" else None)
        if kind == "note_new":  # the address someone sent, copied into a new note
            th = pick(rng, threads)
            msg, fact = fact_message(rng, "address")
            th["msgs"].insert(int(rng.integers(1, len(th["msgs"]) + 1)), THEIRS + msg)
            th["unread"] = True
            return _job(kind, NOTES, name=th["name"], title=new_title, text=fact, src_app=MESSAGES, src=th["id"])
        if kind in ("contact_edit", "contact_ask"):
            c = pick(rng, cards)
            if kind == "contact_ask":
                return _job(kind, CONTACTS, ref=c["id"], name=c["name"], fact=c["phone"])
            p = phone_number(rng)
            while p == c["phone"]:
                p = phone_number(rng)
            return _job(kind, CONTACTS, ref=c["id"], name=c["name"], text=p)
        if kind == "alarm_add":
            alarms = start_alarms(apps[CLOCK])
            taken = {a["time"] for a in alarms}
            slots = [h * 60 + m for h in range(5, 23) for m in (0, 15, 30, 45) if h * 60 + m not in taken]
            if template == "copy":  # the long template: the hour always needs the steppers
                slots = [t for t in slots if t // 60 != ADD_H]
            return _job(kind, CLOCK, time=pick(rng, slots), repeat=pick(rng, REPEAT_OPTIONS))
        if kind == "alarm_switch":
            a = pick(rng, start_alarms(apps[CLOCK]))
            return _job(kind, CLOCK, ref=a["id"], on=not a["on"], title=time_label(a["time"]))
        if kind == "msg_send":
            return _job(kind, MESSAGES, name=pick(rng, apps[MESSAGES]["contacts"]), text=chat(rng))
        assert kind == "msg_share"
        a, b = sample(rng, cards, 2)
        return _job("msg_send", MESSAGES, name=b["name"], text=a["phone"], src_app=CONTACTS, src=a["id"])

    @staticmethod
    def _distract(rng: np.random.Generator, threads: list[Thread], jobs: list[PhoneJob]) -> None:
        """Addresses and times in conversations the task does not copy from."""
        sources = {j["src"] for j in jobs if j["src_app"] == MESSAGES}
        for t in threads:
            if t["id"] not in sources and rng.random() < 0.25:
                t["msgs"].append(THEIRS + fact_message(rng, pick(rng, ("address", "time")))[0])

    @staticmethod
    def _clause(rng: np.random.Generator, j: PhoneJob, apps: dict[str, AppSpec], first: bool) -> str:
        k, t, n, x = j["type"], j["title"], j["name"], j["text"]
        if k in TELL and not first:
            return TELL[k].format(t=t, n=n)
        if k == "note_edit":
            text = pick(rng, NOTE_EDIT).format(t=t, x=x)
        elif k == "note_delete":
            text = pick(rng, NOTE_DELETE).format(t=t)
        elif k == "note_ask":
            text = pick(rng, NOTE_ASK).format(t=t)
        elif k == "note_new":
            text = pick(rng, NOTE_COPY).format(n=n, t=t)
        elif k == "contact_edit":
            text = pick(rng, CONTACT_EDIT).format(n=n, x=x)
        elif k == "contact_ask":
            text = pick(rng, CONTACT_ASK).format(n=n)
        elif k == "alarm_add":
            rep = str(j["repeat"])
            text = pick(rng, ALARM_ADD).format(time=time_label(int(j["time"])), rep=REPEAT_PHRASES[rep], opt=rep)  # type: ignore[arg-type]
        elif k == "alarm_switch":
            text = pick(rng, ALARM_ON if j["on"] else ALARM_OFF).format(t=t)
            text = text[0].upper() + text[1:]
        elif j["src_app"] == CONTACTS:
            a = next(c["name"] for c in apps[CONTACTS]["cards"] if c["id"] == j["src"])
            text = pick(rng, SHARE).format(a=a, n=n)
        else:
            text = pick(rng, SEND).format(n=n, x=x)
        text = text.rstrip(".")
        return text if first else text[0].lower() + text[1:]

    # --- progress --------------------------------------------------------------------------
    @staticmethod
    def _jobs(scenario: Scenario) -> list[PhoneJob]:
        return cast(PhoneTask, scenario["task"])["jobs"]

    def _expected(self, scenario: Scenario) -> Expected:
        """Every app's data as the task asks for it (memoised for the last scenario, by
        identity: success is checked on every step; never mutate it)."""
        memo = self._memo
        if memo is not None and memo[0] is scenario:
            return memo[1]
        apps = scenario["apps"]
        out: Expected = {
            "notes": {i: (n["title"], n["body"]) for i, n in enumerate(apps[NOTES]["notes"])}, "new_notes": [],
            "cards": {c["id"]: dict(c) for c in apps[CONTACTS]["cards"]},  # type: ignore[misc]
            "alarms": {a["id"]: (a["time"], a["repeat"], a["on"]) for a in start_alarms(apps[CLOCK])}, "new_alarms": [],
            "book": {t["name"]: list(t["msgs"]) for t in apps[MESSAGES]["threads"]},
        }
        for j in self._jobs(scenario):
            k, ref = j["type"], j["ref"]
            if k == "note_edit":
                out["notes"][ref] = (out["notes"][ref][0], str(j["text"]))  # type: ignore[index]
            elif k == "note_delete":
                out["notes"].pop(ref)  # type: ignore[arg-type]
            elif k == "note_new":
                out["new_notes"].append((str(j["title"]), str(j["text"])))
            elif k == "contact_edit":
                out["cards"][ref]["phone"] = str(j["text"])  # type: ignore[index]
            elif k == "alarm_add":
                out["new_alarms"].append((int(j["time"]), str(j["repeat"]), True))  # type: ignore[arg-type]
            elif k == "alarm_switch":
                t, r, _ = out["alarms"][ref]  # type: ignore[index]
                out["alarms"][ref] = (t, r, bool(j["on"]))  # type: ignore[index]
            elif k == "msg_send":
                out["book"][str(j["name"])] = [*out["book"].get(str(j["name"]), []), ">" + str(j["text"])]
        self._memo = (scenario, out)
        return out

    def _start(self, scenario: Scenario) -> dict[str, Any]:
        """What :meth:`failed` and :meth:`success` compare a state with that depends on the
        scenario only: the start's data (folded as compared) and the folded expected notes
        (memoised for the last scenario, by identity, like :meth:`_expected`; never mutate it)."""
        memo = self._start_memo
        if memo is not None and memo[0] is scenario:
            return memo[1]
        want, apps = self._expected(scenario), scenario["apps"]
        alarms = start_alarms(apps[CLOCK])
        out = {
            "a0": len(alarms),
            "notes": self._fold_notes({i: (n["title"], n["body"]) for i, n in enumerate(apps[NOTES]["notes"])}),
            "want_notes": self._fold_notes(want["notes"]),
            "want_new_notes": self._fold_new(want["new_notes"]),
            "cards": {c["id"]: c for c in apps[CONTACTS]["cards"]},
            "alarms": {a["id"]: (a["time"], a["repeat"], a["on"]) for a in alarms},
            "want_new_alarms": Counter(want["new_alarms"]),
            "book": {t["name"]: t["msgs"] for t in apps[MESSAGES]["threads"]},
        }
        self._start_memo = (scenario, out)
        return out

    def _have(self, scenario: Scenario, state: DeviceState) -> Expected:
        """The apps' data in ``state``, in the form of :meth:`_expected`."""
        apps = state["apps"]
        n0 = len(scenario["apps"][NOTES]["notes"])
        notes = apps[NOTES]["data"]["notes"]
        alarms = apps[CLOCK]["data"]["alarms"]
        a0 = self._start(scenario)["a0"]
        return {
            "notes": {n["id"]: (n["title"], n["body"]) for n in notes if n["id"] < n0},
            "new_notes": [(n["title"], n["body"]) for n in notes if n["id"] >= n0],
            "cards": {c["id"]: c for c in apps[CONTACTS]["data"]["people"]},
            "alarms": {a["id"]: (a["time"], a["repeat"], a["on"]) for a in alarms if a["id"] < a0},
            "new_alarms": [(a["time"], a["repeat"], a["on"]) for a in alarms if a["id"] >= a0],
            "book": {t["name"]: t["msgs"] for t in apps[MESSAGES]["data"]["threads"]},
        }

    @staticmethod
    def _fold_notes(notes: dict[int, tuple[str, str]]) -> dict[int, tuple[str, str]]:
        return {i: (_fold(t), _fold(b)) for i, (t, b) in notes.items()}

    @staticmethod
    def _fold_new(notes: list[tuple[str, str]]) -> Counter[tuple[str, str]]:
        return Counter((_fold(t), _fold(b)) for t, b in notes)

    def _ask(self, scenario: Scenario) -> PhoneJob | None:
        return next((j for j in self._jobs(scenario) if j["type"] in ASK_OF.values()), None)

    def question(self, scenario: Scenario) -> bool:
        return self._ask(scenario) is not None

    def task_problems(self, scenario: Scenario) -> list[str]:
        """Each job of a known type in its app, about a note, person or alarm of the scenario (a
        delete of a missing note loaded as done), a message to a conversation or a contact of the
        picker, a fact carried from a conversation or a person of the scenario."""
        apps = scenario["apps"]
        have = {NOTES: range(len(apps[NOTES]["notes"])), CONTACTS: {c["id"] for c in apps[CONTACTS]["cards"]},
                CLOCK: range(len(start_alarms(apps[CLOCK]))), MESSAGES: {t["id"] for t in apps[MESSAGES]["threads"]}}
        what = {NOTES: "note", CONTACTS: "person", CLOCK: "alarm", MESSAGES: "conversation"}
        names = [*(t["name"] for t in apps[MESSAGES]["threads"]), *apps[MESSAGES]["contacts"]]
        out: list[str] = []
        for i, j in enumerate(self._jobs(scenario)):
            w, k = f"$.task.jobs[{i}]", j["type"]
            app = {"note": NOTES, "contact": CONTACTS, "alarm": CLOCK, "msg": MESSAGES}.get(k.partition("_")[0])
            if app is None or k not in (*SINGLE, "note_new"):
                out.append(f"{w}.type: {k!r:.40} is no Phone job type")
                continue
            out += missing(f"{w}.app", j["app"], (app,), f"app of a {k} job")
            if k in ("note_edit", "note_delete", "note_ask", "contact_edit", "contact_ask", "alarm_switch"):
                out += missing(f"{w}.ref", j["ref"], have[app], f"{what[app]} of the scenario's {app}")
            if k == "msg_send":
                out += missing(f"{w}.name", j["name"], names, "conversation or contact of the scenario's Messages")
            if j["src_app"] is not None:
                out += missing(f"{w}.src_app", j["src_app"], (MESSAGES, CONTACTS), "app a fact is carried from")
                if j["src_app"] in (MESSAGES, CONTACTS):
                    out += missing(f"{w}.src", j["src"], have[j["src_app"]], f"{what[j['src_app']]} of the scenario's {j['src_app']}")
        return out

    def _data_ok(self, scenario: Scenario, state: DeviceState) -> bool:
        want, have, start = self._expected(scenario), self._have(scenario, state), self._start(scenario)
        return (self._fold_notes(have["notes"]) == start["want_notes"]
                and self._fold_new(have["new_notes"]) == start["want_new_notes"]
                and have["cards"] == want["cards"] and have["alarms"] == want["alarms"]
                and Counter(have["new_alarms"]) == start["want_new_alarms"] and have["book"] == want["book"])

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        if not self._data_ok(scenario, state) or calls_placed(state["apps"][CONTACTS]):
            return False
        ask = self._ask(scenario)
        if ask is None:
            return True
        from guigym.answers import answers_match

        return "answer" in state and answers_match(state["answer"], str(ask["fact"]))

    def failed(self, scenario: Scenario, state: DeviceState) -> bool | str:
        if calls_placed(state["apps"][CONTACTS]):  # no undo
            return CALL_PLACED
        want, have, start = self._expected(scenario), self._have(scenario, state), self._start(scenario)
        start_notes = start["notes"]
        w_notes, h_notes = start["want_notes"], self._fold_notes(have["notes"])
        for i, s in start_notes.items():
            if i not in h_notes:
                if i in w_notes:  # no undo
                    return "a note that should stay was deleted"
            elif h_notes[i] not in (s, w_notes.get(i)):
                return "a note was changed in a way the task does not ask for"
        if self._fold_new(have["new_notes"]) - start["want_new_notes"]:
            return "a note the task does not ask for was saved (or one with the wrong title or text)"
        start_cards = start["cards"]
        for i, c in start_cards.items():
            if i not in have["cards"] or have["cards"][i] not in (c, want["cards"][i]):
                return "a contact was deleted or changed in a way the task does not ask for"
        start_alarms_ = start["alarms"]
        for i, a in start_alarms_.items():
            if have["alarms"][i] not in (a, want["alarms"][i]):
                return "an alarm was changed in a way the task does not ask for"
        if Counter(have["new_alarms"]) - start["want_new_alarms"]:
            return "an alarm the task does not ask for was added (or one with the wrong time or repeats, or switched off)"
        if conversation_deleted(scenario["apps"][MESSAGES], state["apps"][MESSAGES]):
            return CONVERSATION_DELETED
        start_book = start["book"]
        if any(n not in want["book"] and n not in start_book for n in have["book"]):
            return NEW_CONVERSATION
        if not all(_reachable(have["book"].get(n, []), w) for n, w in want["book"].items() if have["book"].get(n) != w):
            return WRONG_MESSAGES
        if "answer" not in state or self.success(scenario, state):
            return False
        ask = self._ask(scenario)
        return answer_failure(state, str(ask["fact"]) if ask is not None else None)

    def _done(self, scenario: Scenario, state: DeviceState, j: PhoneJob) -> bool:
        want, have = self._expected(scenario), self._have(scenario, state)
        k, ref = j["type"], j["ref"]
        if k == "note_edit":
            got = have["notes"].get(ref)  # type: ignore[arg-type]
            return got is not None and self._fold_notes({0: got}) == self._fold_notes({0: want["notes"][ref]})  # type: ignore[index]
        if k == "note_delete":
            return ref not in have["notes"]
        if k == "note_new":
            return self._fold_new([(str(j["title"]), str(j["text"]))]) <= self._fold_new(have["new_notes"])
        if k == "contact_edit":
            return have["cards"][ref]["phone"] == j["text"]  # type: ignore[index]
        if k == "alarm_add":
            return (j["time"], j["repeat"], True) in have["new_alarms"]
        if k == "alarm_switch":
            return have["alarms"][ref][2] == j["on"]  # type: ignore[index]
        if k == "msg_send":
            return have["book"].get(str(j["name"])) == want["book"][str(j["name"])]
        return "answer" in state

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        have = {t["name"] for t in scenario["apps"][MESSAGES]["threads"]}
        needs = any(j["type"] == "msg_send" and j["name"] not in have for j in self._jobs(scenario))  # through the picker
        return permission_goal(scenario, state, MESSAGES, self._next(scenario, state), needs)

    def _next(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        for j in self._jobs(scenario):
            if j["type"] in ASK_OF.values() or self._done(scenario, state, j):
                continue
            return self._read(state, j) or self._goal(scenario, state, j)
        ask = self._ask(scenario)
        if ask is not None and "answer" not in state:
            if ask["type"] == "note_ask":
                sid = note_view(int(ask["ref"]))  # type: ignore[arg-type]
                return Goal(NOTES, sid, sub_id(sid, "body"), "answer", ask["fact"])
            sid = person_screen(int(ask["ref"]))  # type: ignore[arg-type]
            return Goal(CONTACTS, sid, sub_id(sid, "phone"), "answer", ask["fact"])
        return None

    @staticmethod
    def _read(state: DeviceState, j: PhoneJob) -> Goal | None:
        """Open where a carried fact is shown, once, before using it."""
        if j["src_app"] == MESSAGES:
            th = next((t for t in state["apps"][MESSAGES]["data"]["threads"] if t["id"] == j["src"]), None)
            if th is not None and th["unread"]:
                return Goal(MESSAGES, "main", thread_screen(th["id"]), "press")
        elif j["src_app"] == CONTACTS and j["src"] not in state["apps"][CONTACTS]["data"]["seen"]:
            return Goal(CONTACTS, "main", person_screen(int(j["src"])), "press")  # type: ignore[arg-type]
        return None

    def _goal(self, scenario: Scenario, state: DeviceState, j: PhoneJob) -> Goal:
        k, ref = j["type"], j["ref"]
        app_state = state["apps"][j["app"]]
        top, vals = app_state["stack"][-1], app_state["values"]
        if k == "note_edit":
            ed = note_editor(int(ref))  # type: ignore[arg-type]
            if top != ed:
                return Goal(NOTES, note_view(int(ref)), sub_id(note_view(int(ref)), "edit"), "press")  # type: ignore[arg-type]
            title = self._expected(scenario)["notes"][ref][0]  # type: ignore[index]
            if vals.get(sub_id(ed, "title")) != title:
                return Goal(NOTES, ed, sub_id(ed, "title"), "set", title)
            if vals.get(sub_id(ed, "body")) != j["text"]:
                return Goal(NOTES, ed, sub_id(ed, "body"), "set", j["text"])
            return Goal(NOTES, ed, sub_id(ed, "save"), "press")
        if k == "note_delete":
            d = note_dialog(int(ref))  # type: ignore[arg-type]
            if top == d:
                return Goal(NOTES, d, sub_id(d, "confirm"), "press")
            return Goal(NOTES, note_view(int(ref)), sub_id(note_view(int(ref)), "delete"), "press")  # type: ignore[arg-type]
        if k == "note_new":
            for f, v in (("title", j["title"]), ("body", j["text"])):
                if vals.get(f"new.{f}") != v:
                    return Goal(NOTES, "new", f"new.{f}", "set", v)
            return Goal(NOTES, "new", "new.save", "press")
        if k == "contact_edit":
            ed = editor_screen(int(ref))  # type: ignore[arg-type]
            if top != ed:
                return Goal(CONTACTS, person_screen(int(ref)), sub_id(person_screen(int(ref)), "edit"), "press")  # type: ignore[arg-type]
            card = self._expected(scenario)["cards"][ref]  # type: ignore[index]
            for f in ("phone", "email"):
                if vals.get(sub_id(ed, f)) != card[f]:  # type: ignore[literal-required]
                    return Goal(CONTACTS, ed, sub_id(ed, f), "set", card[f])  # type: ignore[literal-required]
            return Goal(CONTACTS, ed, sub_id(ed, "save"), "press")
        if k == "alarm_add":
            h, m = divmod(int(j["time"]), 60)  # type: ignore[arg-type]
            if top not in (ADD, menu_screen(REPEAT_KEY)):  # a fresh add-alarm screen first
                return Goal(CLOCK, ADD, ADD_KEY + ".h", "set", h)
            if vals.get(ADD_KEY + ".h", ADD_H) != h:
                return Goal(CLOCK, ADD, ADD_KEY + ".h", "set", h)
            if vals.get(ADD_KEY + ".m", ADD_M) != m:
                return Goal(CLOCK, ADD, ADD_KEY + ".m", "set", m)
            if vals.get(REPEAT_KEY, ADD_REPEAT) != j["repeat"]:
                return Goal(CLOCK, ADD, REPEAT_KEY, "set", j["repeat"])
            return Goal(CLOCK, ADD, "add.save", "press")
        if k == "alarm_switch":
            return Goal(CLOCK, "main", alarm_switch(int(ref)), "set", j["on"])  # type: ignore[arg-type]
        return MessagesFamily._send(app_state, scenario["apps"][MESSAGES]["contacts"], str(j["name"]), str(j["text"]))
