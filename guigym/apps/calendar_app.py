"""Calendar: add, move and delete events, and answer questions about them.

Description:
    A Calendar app. The main screen shows the in-app today ("Today: Wed, Mar 11, 2026", drawn
    from the seed, never the real clock), a month bar ("‹  March 2026  ›") that pages the
    months, an "Add event" button and the shown month's events as an agenda, by date and time
    (each row: the title, and "Sat, Mar 14 · 3:30 PM", with " · Weekly" for a repeating one).
    An event's screen shows its date, time and repetition with Edit and Delete (a
    confirmation dialog, "Delete this event?" with Cancel / Delete). The event form ("New
    event" from Add event, "Edit event" from Edit) has a Title field, a month grid date picker
    (``date_picker_rows``: ‹ / › page the months, a day button per date), a start time
    (``time_picker_rows``: hour and minute steppers, minutes by 15), a "Repeats" select (Never /
    Daily / Weekly / Monthly, a dropdown menu), Save and Cancel. Titles come from 40 names
    plus "Lunch with …" / "Call …" / "Coffee with …" for the 24 first names (112 in all),
    times from 56 quarter hours (7:00 AM - 8:45 PM), the in-app today from the 730 days of
    2026-2027 (easy: the 535 whose Monday-Sunday week lies in their month, 5 days before its
    end). Distinct instances: an easy "add" alone has 535 x C(112, 3) > 1.2e8 pairs of today
    and set of titles before dates, times, repetitions and the task are drawn. With
    ``language="de"`` the titles are German ones (``guigym.i18n.de_content.calendar_app``,
    entry for entry: the same draws), which the task quotes and the agent types.
Instruction:
    "Add 'Piano lesson' this coming Tuesday at 3:30 PM, repeating weekly", "Add 'Haircut' in
    two weeks at 11:15 AM", "Add 'Book club' on the 14th at 7:00 PM", "Add 'Gym' on Thursday,
    April 2 at 7:45 AM", "Delete every 'Standup' event this week", "Delete the event 'Dentist
    appointment'", "Move 'Team lunch' to 1:30 PM", "How many events are on the 14th?", "What
    time is 'Yoga class'?"; at hard two of them joined, a question always second. Relative
    dates count from the in-app today: "tomorrow", "in 5 days", "in two weeks" (14 days),
    "this coming Tuesday" (the first Tuesday after today), "Tuesday next week" (in the Monday-
    Sunday week after today's), "on the 14th" (of today's month, later than today), "on the
    3rd of next month". The task dict holds the resolved date.
Actions:
    Click, Scroll, Back, OpenApp, Type and Answer (``type`` is ``Discrete(6)``). Answer ends an
    information task; in a task that asks nothing it is a no-op with an ``action_error``.
Levels:
    * easy: 3-7 events in all, every one in today's month (the shown one: the main screen fits),
      one task whose date or event is in that month.
    * medium: 9-14 events besides the task's, over today's month and the next two (Scroll), the
      task's date or event one or two months ahead (the month bar and the date picker page; a
      "delete every …" rule's week is this week or the next), one task.
    * hard: 12-18 events besides the tasks', over three months, two tasks chained, the second a
      delete, a move or a question. The template "add a repeating event in another month at a
      time far from the form's 9:00, then delete an event in another month" has a reference of
      at least 15 steps from reset (18-27 on the 51 such seeds among 0-199); the others 8-37.
Rewards:
    1 on success, else 0 (``reward_mode="shaped"`` adds the env's potential-based shaping).
Termination:
    Success when the events, compared as (title, date, time, repeat) per event (a new one as a
    multiset), equal the ones at the start plus exactly the instructed change and, for a
    question, the answer matches the fact after :func:`guigym.answers.answers_match`'s
    normalisation ("3" = "3.0"; "3:30 PM" = "15:30"). Failure (terminated) when that can no
    longer happen: an event saved that the task did not ask for (an extra one, a wrong title,
    date, time or repetition), an event deleted that should stay, or an answer that does not
    make the task a success; and at once, although Edit could set it back, an event edited that
    should not change or edited to a wrong value.
Registered ids:
    ``GuiGym-Calendar-v0`` (``level="easy" | "medium" | "hard"``).
"""

from __future__ import annotations

import calendar as _cal
import datetime as dt
from collections import Counter
from typing import Any, TypedDict, cast

import numpy as np

from guigym.apps.base import App, Widget, id_problems, register_app, row
from guigym.apps.catalog import FIRST_NAMES, ICON_COLORS
from guigym.apps.dates import WEEKDAY_NAMES, month_abbr, month_name
from guigym.apps.family import Family, Goal, answer_failure, missing, pick, sample, theme
from guigym.apps.schema import AppSpec, AppState, CalEvent, DeviceState, Scenario, Task, record_id, sub_id
from guigym.apps.tools import time_label
from guigym.apps.widgets import date_picker_rows, select_row, time_picker_rows
from guigym.i18n.content import tables

APP = "Calendar"
FORM = "form"  # the event form (New event / Edit event), reached by a button
MONTHS = "main"  # the main screen's month bar, a date picker's header: the month shown is values[MONTHS + ".shown"]
SHOWN = MONTHS + ".shown"  # the month the main screen shows, "2026-03"
F_TITLE, F_DATE, F_TIME, F_REPEAT = "form.title", "form.date", "form.time", "form.repeat"
F_EDIT, F_ERROR = "form.edit", "form.error"  # the edited event's id (-1: a new event); the error line
PREV, NEXT, ADD = "nav.prev", "nav.next", "add"
REPEATS = ("never", "daily", "weekly", "monthly")
REPEAT_LABELS = {"never": "Never", "daily": "Daily", "weekly": "Weekly", "monthly": "Monthly"}
MINUTE_STEP = 15
DEFAULT_TIME = (9, 0)  # a new event's start
# Content tables (event titles): generation reads them through ``tables(__name__)``, so a German
# instance draws the same entries of guigym.i18n.de_content.calendar_app's tables of the same shape.
TITLES = (
    "Dentist appointment", "Team lunch", "Yoga class", "Book club", "Piano lesson", "Haircut", "Project review", "Gym",
    "Doctor appointment", "Car service", "Budget meeting", "Parent-teacher meeting", "Swimming", "Guitar lesson",
    "Movie night", "Dinner party", "Flight to Berlin", "Job interview", "Vet appointment", "Tennis", "Board game night",
    "Quarterly planning", "Language class", "Farmers market", "Pottery class", "Volunteer shift", "Code review",
    "Birthday party", "Physiotherapy", "Eye exam", "Concert", "Running club", "Cooking class", "Photo walk",
    "Sprint planning", "Wine tasting", "Museum visit", "Bike repair", "Team retro", "Choir practice",
)
#: Titles about a person, one per first name (``{n}``).
PERSONAL = ("Lunch with {n}", "Call {n}", "Coffee with {n}")
#: Titles of the series a "delete every ..." rule is about (never a repeating event, never a task's new title).
SERIES = ("Standup", "Daily sync", "Morning run", "Team check-in")
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
JOINS = (", then ", ". Then ", "; after that, ")
#: (events, months of events after today's) per level.
LEVEL_SIZES: dict[str, tuple[tuple[int, int], int]] = {"easy": ((3, 6), 0), "medium": ((9, 14), 2), "hard": ((12, 18), 2)}
EASY_MAX = 7  # events at easy: the month's agenda fits on the main screen
TIMES = tuple(h * 60 + m for h in range(7, 21) for m in (0, 15, 30, 45))  # 7:00 AM - 8:45 PM


class CalTask(TypedDict):
    type: str  # "add", "delete", "move", "count" or "when"
    title: str | None  # add: the new title; delete (one) / move / when: the event's title; delete (rule): the series
    date: str | None  # add: the resolved date; count: the day asked about
    time: str | None  # add / move: the new start "HH:MM"
    repeat: str | None  # add: "never" / "daily" / "weekly" / "monthly"
    ids: list[int]  # delete / move / when: the events it is about
    fact: str | None  # count / when: the answer


class CalendarTask(Task):
    tasks: list[CalTask]  # in the instruction's order


Key = tuple[str, str, str, str]  # (title, date, time, repeat)


# --- dates and ids ------------------------------------------------------------------------------
def iso(d: dt.date) -> str:
    return d.isoformat()


def day_of(s: str) -> dt.date:
    return dt.date.fromisoformat(s)


def month_of(s: str) -> str:
    """The month ("2026-03") of a date ("2026-03-14")."""
    return s[:7]


def add_months(month: str, k: int) -> str:
    """``month`` ("2026-03") moved by ``k`` months.

    >>> add_months("2026-11", 3), add_months("2026-01", -1)
    ('2027-02', '2025-12')
    """
    y, m = int(month[:4]), int(month[5:7])
    n = y * 12 + m - 1 + k
    return f"{n // 12:04d}-{n % 12 + 1:02d}"


def months_between(a: str, b: str) -> int:
    """How many months ``b`` is after ``a``."""
    return (int(b[:4]) * 12 + int(b[5:7])) - (int(a[:4]) * 12 + int(a[5:7]))


def month_label(month: str) -> str:
    return f"{month_name(int(month[5:7]))} {month[:4]}"


def short_date(d: dt.date) -> str:
    """ "Sat, Mar 14"."""
    return f"{WEEKDAY_NAMES[d.weekday()][:3]}, {month_abbr(d.month)} {d.day}"


def long_date(d: dt.date) -> str:
    """ "Saturday, March 14, 2026"."""
    return f"{WEEKDAY_NAMES[d.weekday()]}, {month_name(d.month)} {d.day}, {d.year}"


def hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def minutes_of(t: str) -> int:
    return int(t[:2]) * 60 + int(t[3:5])


def _is_date(s: Any) -> bool:
    """Whether ``s`` is a ``"YYYY-MM-DD"`` date whose months before and after exist (the pickers page)."""
    if not isinstance(s, str) or len(s) != 10 or s[4] != "-" or s[7] != "-" or not _digits(s[:4] + s[5:7] + s[8:]):
        return False
    try:
        return dt.date(int(s[:4]), int(s[5:7]), int(s[8:])).year in range(2, 9999)
    except ValueError:
        return False


def _is_time(t: Any) -> bool:
    """Whether ``t`` is a 24-hour ``"HH:MM"`` time."""
    return isinstance(t, str) and len(t) == 5 and t[2] == ":" and _digits(t[:2] + t[3:]) and int(t[:2]) < 24 and int(t[3:]) < 60


def _digits(s: str) -> bool:
    return s.isascii() and s.isdigit()


def ordinal(n: int) -> str:
    """>>> ordinal(1), ordinal(12), ordinal(22), ordinal(13)
    ('1st', '12th', '22nd', '13th')
    """
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def event_screen(eid: int) -> str:
    """An event's screen (and its link on the main screen), by ``CalEvent["id"]``.

    >>> event_screen(3), dialog_screen(3), event_of("e:3"), event_of("d:3"), event_of("form")
    ('e:3', 'd:3', 3, 3, None)
    """
    return f"e:{eid}"


def dialog_screen(eid: int) -> str:
    """The "Delete this event?" dialog of an event."""
    return f"d:{eid}"


def event_of(sid: str) -> int | None:
    return record_id(sid, "e", "d")


def occurs(e: CalEvent, d: dt.date) -> bool:
    """Whether event ``e`` happens on ``d`` (its own date or a repetition of it)."""
    start = day_of(e["date"])
    if d < start:
        return False
    if d == start or e["repeat"] == "daily":
        return True
    if e["repeat"] == "weekly":
        return (d - start).days % 7 == 0
    return e["repeat"] == "monthly" and d.day == start.day


def _agenda(events: list[CalEvent], month: str) -> list[CalEvent]:
    """The events dated in ``month``, by date, time and id (the main screen's order)."""
    return sorted((e for e in events if month_of(e["date"]) == month), key=lambda e: (e["date"], e["time"], e["id"]))


def _by_id(events: list[CalEvent], eid: int) -> CalEvent | None:
    return next((e for e in events if e["id"] == eid), None)


def key_of(e: CalEvent) -> Key:
    return (e["title"], e["date"], e["time"], e["repeat"])


# --- the app ------------------------------------------------------------------------------------
@register_app
class CalendarApp(App):
    """``data["events"]``: the events; ``data["next"]``: the next new event's id. Event and
    dialog screens are made on the fly from them; the form's fields are values."""

    kind = "calendar"
    dialog_prefix = "d:"  # the delete confirmation

    def initial_state(self, spec: AppSpec) -> AppState:
        state = super().initial_state(spec)
        state["data"]["events"] = [dict(e) for e in spec["events"]]
        state["data"]["next"] = 1 + max((e["id"] for e in spec["events"]), default=-1)
        state["values"][SHOWN] = month_of(spec["today"])
        state["values"].update(self._form_values(spec, None))
        return state

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        """Events, the in-app today and the form's values that the screens parse: ISO dates
        ("2026-03-14"), months ("2026-03"), 24-hour times ("15:30"), repeats of ``REPEATS``,
        hours 0..23 and minutes 0..59 (a snapshot's, so none of them raises mid-episode); the
        ``next`` id above every event's, the scenario's too."""
        out = [] if _is_date(spec["today"]) else [f"today: {spec['today']!r:.40} is not a date (YYYY-MM-DD)"]
        for where, events, nxt in (("spec.events", spec["events"], None), ("data.events", state["data"]["events"], state["data"]["next"])):
            out += id_problems(events, where, next_id=nxt)  # an event's screens are named by its id ("e:3")
            for i, e in enumerate(events):
                if not _is_date(e["date"]) or not _is_time(e["time"]) or e["repeat"] not in REPEATS:
                    out.append(f"{where}[{i}]: date {e['date']!r:.40}, time {e['time']!r:.20} or repeat {e['repeat']!r:.20} "
                               f"is not a YYYY-MM-DD date, an HH:MM time and one of {REPEATS}")
        # a start event deleted, its id must not come back: a new event with it would pass for that one edited
        top = max((e["id"] for e in spec["events"]), default=-1)
        if not out and state["data"]["next"] <= top:
            out.append(f"data.next: {state['data']['next']!r:.40} is not above every id in spec.events ({top})")
        vals = state["values"]
        for key in (SHOWN, F_DATE + ".shown"):
            if key in vals and not (isinstance(vals[key], str) and _is_date(vals[key] + "-01")):
                out.append(f"values[{key!r}]: {vals[key]!r:.40} is not a month (YYYY-MM)")
        if F_DATE in vals and vals[F_DATE] is not None and not (isinstance(vals[F_DATE], str) and _is_date(vals[F_DATE])):
            out.append(f"values[{F_DATE!r}]: {vals[F_DATE]!r:.40} is not a date (YYYY-MM-DD)")
        for key, hi in ((F_TIME + ".h", 23), (F_TIME + ".m", 59)):
            v = vals.get(key, 0)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= hi:
                out.append(f"values[{key!r}]: {v!r:.40} is not an int in 0..{hi}")
        if vals.get(F_REPEAT, "never") not in REPEATS:
            out.append(f"values[{F_REPEAT!r}]: {vals[F_REPEAT]!r:.40} is not one of {REPEATS}")
        return out

    @staticmethod
    def _form_values(spec: AppSpec, e: CalEvent | None) -> dict[str, Any]:
        """The form's values for a new event (``e`` None) or for editing ``e``."""
        d = e["date"] if e is not None else spec["today"]
        h, m = divmod(minutes_of(e["time"]), 60) if e is not None else DEFAULT_TIME
        return {F_TITLE: e["title"] if e is not None else "", F_DATE: d, F_DATE + ".shown": month_of(d), F_TIME + ".h": h,
                F_TIME + ".m": m, F_REPEAT: e["repeat"] if e is not None else "never", F_EDIT: e["id"] if e is not None else -1,
                F_ERROR: ""}

    def parent(self, spec: AppSpec, sid: str) -> str | None:
        eid = event_of(sid)
        if eid is None:
            return super().parent(spec, sid)
        return "main" if sid.startswith("e:") else event_screen(eid)

    def title(self, spec: AppSpec, state: AppState, sid: str) -> str:
        if sid == FORM:
            return "Edit event" if state["values"].get(F_EDIT, -1) >= 0 else "New event"
        eid = event_of(sid)
        if eid is None:
            return super().title(spec, state, sid)
        e = _by_id(state["data"]["events"], eid)
        return "Delete this event?" if sid.startswith("d:") else e["title"] if e else "Event"

    def rows(self, spec: AppSpec, state: AppState, sid: str) -> list[Widget]:
        vals = state["values"]
        events: list[CalEvent] = state["data"]["events"]
        if sid == "main":
            shown = str(vals.get(SHOWN, month_of(spec["today"])))
            out = [
                Widget("today", "label", f"Today: {short_date(day_of(spec['today']))}, {spec['today'][:4]}", style="muted"),
                Widget("nav", "cells", SHOWN, weights=[1, 4, 1], cells=[  # the base pages the months ("month" buttons)
                    Widget(PREV, "button", "Previous month", style="glyph", action="month", group=SHOWN, option=-1, detail=shown),
                    Widget("nav.month", "label", month_label(shown), style="center"),
                    Widget(NEXT, "button", "Next month", style="glyph", action="month", group=SHOWN, option=1, detail=shown),
                ]),
                *super().rows(spec, state, sid),
            ]
            agenda = _agenda(events, shown)
            # a title that repeats in the month (a series) is labelled with its date too: every row is named apart
            titles = [e["title"] for e in agenda]
            out += [Widget(event_screen(e["id"]), "link", e["title"] if titles.count(e["title"]) == 1
                           else f"{e['title']}, {short_date(day_of(e['date']))}", detail=_detail(e), to=event_screen(e["id"]))
                    for e in agenda]
            if not agenda:
                out.append(Widget("empty", "label", "No events this month", style="muted"))
            return out
        if sid == FORM:
            h, m = int(vals.get(F_TIME + ".h", DEFAULT_TIME[0])), int(vals.get(F_TIME + ".m", DEFAULT_TIME[1]))
            err = str(vals.get(F_ERROR, ""))
            return [
                Widget(F_TITLE, "input", "Title", value=vals.get(F_TITLE, ""), placeholder="Event title"),
                *date_picker_rows(F_DATE, vals.get(F_DATE), str(vals.get(F_DATE + ".shown", month_of(spec["today"])))),
                *time_picker_rows(F_TIME, h, m, minute_step=MINUTE_STEP),
                select_row(F_REPEAT, "Repeats", list(REPEATS), str(vals.get(F_REPEAT, "never")), labels=REPEAT_LABELS),
                *([Widget(F_ERROR, "label", err, style="error")] if err else []),
                Widget("form.save", "button", "Save", action="save", style="primary"),
                Widget("form.cancel", "button", "Cancel", action="cancel"),
            ]
        eid = event_of(sid)
        if eid is None:
            return super().rows(spec, state, sid)
        e = _by_id(events, eid)
        if e is None:
            return []
        if sid.startswith("d:"):
            return [
                Widget(sub_id(sid, "dialog"), "dialog", "Delete this event?", detail=f"'{e['title']}' will be removed."),
                Widget(sub_id(sid, "cancel"), "button", "Cancel", action="cancel"),
                Widget(sub_id(sid, "confirm"), "button", "Delete", action="confirm", style="danger"),
            ]
        rep = e["repeat"]
        return [
            Widget(sub_id(sid, "date"), "label", long_date(day_of(e["date"]))),
            Widget(sub_id(sid, "time"), "label", time_label(minutes_of(e["time"]))),
            Widget(sub_id(sid, "repeat"), "label", "Does not repeat" if rep == "never" else f"Repeats {rep}", style="muted"),
            Widget(sub_id(sid, "edit"), "button", "Edit", action="edit", to=FORM),
            Widget(sub_id(sid, "delete"), "button", "Delete", action="delete", to=dialog_screen(eid), style="danger"),
        ]

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        sid = state["stack"][-1]
        vals = state["values"]
        data = state["data"]
        if w.action == "add":  # a fresh form
            vals.update(self._form_values(spec, None))
            self.push(state, FORM)
            return
        if sid == FORM:
            if w.action == "cancel":
                self.pop(state)
            elif w.action == "save":
                self._save(state)
            return
        eid = event_of(sid)
        e = _by_id(data["events"], eid) if eid is not None else None
        if e is None:
            return
        if w.action == "edit":
            vals.update(self._form_values(spec, e))
            self.push(state, FORM)
        elif w.action == "delete":
            self.push(state, dialog_screen(e["id"]))
        elif w.action == "cancel":
            self.pop(state)
        elif w.action == "confirm":  # gone for good: back to the month
            data["events"] = [x for x in data["events"] if x["id"] != e["id"]]
            del state["stack"][1:]
            state["focus"] = None

    def _save(self, state: AppState) -> None:
        vals = state["values"]
        data = state["data"]
        title = str(vals.get(F_TITLE, "")).strip()
        if not title:
            vals[F_ERROR] = "Add a title"
            return
        if not vals.get(F_DATE):
            vals[F_ERROR] = "Choose a date"
            return
        fields = {"title": title, "date": str(vals[F_DATE]), "time": hhmm(int(vals[F_TIME + ".h"]) * 60 + int(vals[F_TIME + ".m"])),
                  "repeat": str(vals.get(F_REPEAT, "never"))}
        eid = int(vals.get(F_EDIT, -1))
        e = _by_id(data["events"], eid) if eid >= 0 else None
        if e is not None:
            e.update(fields)  # type: ignore[typeddict-item]
        else:
            data["events"].append({"id": data["next"], **fields})
            data["next"] += 1
        vals.update({F_TITLE: "", F_ERROR: "", F_EDIT: -1})
        self.pop(state)


def _detail(e: CalEvent) -> str:
    rep = "" if e["repeat"] == "never" else f" \u00b7 {REPEAT_LABELS[e['repeat']]}"
    return f"{short_date(day_of(e['date']))} \u00b7 {time_label(minutes_of(e['time']))}{rep}"


# --- how a date is said --------------------------------------------------------------------------
def say_date(rng: np.random.Generator, today: dt.date, d: dt.date) -> str:
    """A phrase for ``d`` seen from ``today``: relative ("tomorrow", "in two weeks", "this coming
    Tuesday", "Tuesday next week", "on the 14th", "on the 3rd of next month") where one fits,
    else absolute ("on Tuesday, April 14"); one of those that fit, drawn with ``rng``."""
    delta = (d - today).days
    rel: list[str] = []
    if delta == 1:
        rel.append("tomorrow")
    if 2 <= delta <= 9:
        rel.append(f"in {delta} days")
    if delta % 7 == 0 and 1 <= delta // 7 <= 4:
        rel.append("a week from today" if delta == 7 else f"in {NUMBER_WORDS[delta // 7]} weeks")
    if 2 <= delta <= 7:
        rel.append(f"this coming {WEEKDAY_NAMES[d.weekday()]}")
    monday = today - dt.timedelta(days=today.weekday())
    if 7 <= (d - monday).days < 14:
        rel.append(f"{WEEKDAY_NAMES[d.weekday()]} next week")
    if (d.year, d.month) == (today.year, today.month) and delta > 0:
        rel.append(f"on the {ordinal(d.day)}")
    if months_between(iso(today)[:7], iso(d)[:7]) == 1:
        rel.append(f"on the {ordinal(d.day)} of next month")
    year = "" if d.year == today.year else f", {d.year}"
    absolute = [f"on {WEEKDAY_NAMES[d.weekday()]}, {month_name(d.month)} {d.day}{year}",
                f"on {month_name(d.month)} {d.day}{year}"]
    if rel and rng.random() < 0.75:
        return str(pick(rng, rel))
    return str(pick(rng, absolute))


def say_day(today: dt.date, d: dt.date) -> str:
    """How a question names a day: "the 14th" in today's month, else "April 14"."""
    if (d.year, d.month) == (today.year, today.month):
        return f"the {ordinal(d.day)}"
    return f"{month_name(d.month)} {d.day}" + ("" if d.year == today.year else f", {d.year}")


def say_repeat(rng: np.random.Generator, repeat: str) -> str:
    if repeat == "never":
        return ""
    word = {"daily": "day", "weekly": "week", "monthly": "month"}[repeat]
    return str(pick(rng, (f", repeating {repeat}", f", every {word}", f", repeated {repeat}")))


# --- generation ---------------------------------------------------------------------------------
def _month_days(month: str) -> list[dt.date]:
    y, m = int(month[:4]), int(month[5:7])
    return [dt.date(y, m, k) for k in range(1, _cal.monthrange(y, m)[1] + 1)]


class CalendarFamily(Family):
    name = "Calendar"
    description = "A calendar: add events (dates said relatively), move, delete (dialog), answer what is when."
    apps = (APP,)
    task_type = CalendarTask
    asks_questions = True
    _memo: tuple[Scenario, tuple[dict[int, Key], Counter[Key]]] | None = None
    #: The tasks' types in the instruction's order ("delete_rule": every event of a series in a
    #: week; "add" is also the long template's far-from-the-defaults add).
    templates = {"easy": ("add", "delete", "delete_rule", "move", "count", "when"),
                 "medium": ("add", "delete", "delete_rule", "move", "count", "when"),
                 "hard": tuple(f"{a}+{b}" for a in ("add", "move", "delete_rule") for b in ("count", "when", "move", "delete"))}

    def template(self, scenario: Scenario) -> str:
        return "+".join("delete_rule" if t["type"] == "delete" and t["date"] is not None else t["type"] for t in self._tasks(scenario))

    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        (lo, hi), ahead = LEVEL_SIZES[level]
        if level == "hard":
            first = pick(rng, ("add_far", "add_far", "add", "move", "delete_rule"))
            # an add then a delete is always the long template (a plain add is followed by something else)
            then = ("count", "when", "move") if first == "add" else ("count", "when", "move", "delete")
            second = "delete" if first == "add_far" and rng.random() < 0.6 else pick(rng, then)
            kinds = [first, second]
        else:
            kinds = [pick(rng, ("add", "add", "delete", "delete_rule", "move", "count", "when"))]
        # today: easy keeps this week and a few later days inside the month
        while True:
            today = dt.date(2026, 1, 1) + dt.timedelta(days=int(rng.integers(0, 730)))
            monday = today - dt.timedelta(days=today.weekday())
            sunday = monday + dt.timedelta(days=6)
            last = _month_days(iso(today)[:7])[-1]
            if level != "easy" or (monday.month == today.month and sunday.month == today.month and (last - today).days >= 5):
                break
        this_month = iso(today)[:7]
        months = [add_months(this_month, k) for k in range(ahead + 1)]
        later = [d for m in months for d in _month_days(m) if d > today]
        far = [d for m in months[1:] for d in _month_days(m)]  # medium / hard tasks: another month

        n = int(rng.integers(lo, hi + 1))  # events besides the tasks' (easy: up to 7 in all, so the month fits)
        T = tables(__name__)  # the titles in the content language
        personal = [p.format(n=f.title()) for p in T.PERSONAL for f in FIRST_NAMES]
        titles = sample(rng, [*T.TITLES, *personal], hi + 8)
        spare = titles[hi:]  # titles for the tasks' events and new events
        events: list[CalEvent] = []
        days = [d for m in months for d in _month_days(m)]

        def new_event(title: str, d: dt.date, repeat: str = "never", t: int | None = None) -> CalEvent:
            e: CalEvent = {"id": len(events), "title": title, "date": iso(d), "time": hhmm(t if t is not None else int(pick(rng, TIMES))),
                           "repeat": repeat}
            events.append(e)
            return e

        tasks: list[CalTask] = []
        for k in kinds:  # the task's date or event: in today's month at easy, in another one above
            tasks.append(self._task(rng, k, level, today, new_event, spare, later if level == "easy" else far))
        if level == "easy":
            n = max(0, min(n, EASY_MAX - len(events)))
        for title in titles[:n]:
            rep = "never" if rng.random() < 0.75 else pick(rng, ("weekly", "monthly"))
            new_event(title, pick(rng, days), rep)
        # a count must be unambiguous: no repetition (of an event there at the start or of a new
        # one) lands on the day asked about; the answer counts the events after the first task
        for t in tasks:
            if t["type"] == "count":
                d = day_of(str(t["date"]))
                both: list[CalEvent | CalTask] = [*events, *tasks]
                for x in both:
                    if x is not t and x.get("repeat") not in (None, "never") and x["date"] != t["date"] and occurs(x, d):  # type: ignore[arg-type]
                        x["repeat"] = "never"
                gone = {i for x in tasks if x["type"] == "delete" for i in x["ids"]}
                adds = sum(x["type"] == "add" and x["date"] == t["date"] for x in tasks)
                t["fact"] = str(adds + sum(e["date"] == t["date"] and e["id"] not in gone for e in events))
        text = "".join((pick(rng, JOINS) if i else "") + self._clause(rng, t, today, first=i == 0) for i, t in enumerate(tasks))
        if not text.endswith(("?", ".")):
            text += "."
        spec: AppSpec = {
            "kind": "calendar", "name": APP, "root": "main", "color": list(pick(rng, ICON_COLORS)), "events": events, "today": iso(today),
            "screens": {
                "main": {"title": pick(rng, ("Calendar", "Agenda", "My calendar")), "parent": None, "rows": [
                    row(ADD, "button", pick(rng, ("Add event", "New event", "Create event")), action="add", to=FORM, style="primary"),
                ]},
                FORM: {"title": "New event", "parent": None, "rows": []},
            },
        }
        task: CalendarTask = {"instruction": text, "tasks": tasks}
        return {
            "family": self.name, "level": level, "apps": {APP: spec}, "home": {"enabled": False, "icons": [APP]},
            "theme": theme(rng), "start": {"fg": APP, "values": {}}, "task": task,
        }

    @staticmethod
    def _task(rng: np.random.Generator, kind: str, level: str, today: dt.date, new_event: Any, spare: list[str],
              pool: list[dt.date]) -> CalTask:
        t: CalTask = {"type": kind, "title": None, "date": None, "time": None, "repeat": None, "ids": [], "fact": None}
        if kind in ("add", "add_far"):
            t["type"] = "add"
            d = pick(rng, pool)
            hour = int(rng.integers(7, 21))
            minute = int(pick(rng, (0, 15, 30, 45)))
            rep = pick(rng, ("never", "never", "daily", "weekly", "monthly"))
            if kind == "add_far":  # the long template: far from the form's defaults
                hour = int(pick(rng, (7, 8, 13, 14, 15, 16, 17, 18, 19)))
                hour = hour if abs(hour - DEFAULT_TIME[0]) >= 4 else hour + 12 if hour + 12 <= 20 else hour
                minute = int(pick(rng, (15, 30, 45)))
                rep = pick(rng, ("weekly", "monthly"))
            t.update({"title": spare.pop(), "date": iso(d), "time": hhmm(hour * 60 + minute), "repeat": rep})
            return t
        if kind == "delete_rule":  # a series: some in the rule's week, some outside it
            t["type"] = "delete"
            series = pick(rng, tables(__name__).SERIES)  # in the content language
            monday = today - dt.timedelta(days=today.weekday())
            which = 0 if level == "easy" else int(pick(rng, (0, 1)))
            start = monday + dt.timedelta(days=7 * which)
            week = [start + dt.timedelta(days=k) for k in range(7)]
            clock = int(pick(rng, TIMES))
            inside = sample(rng, week[:5], int(rng.integers(2, 5)))
            others = [start + dt.timedelta(days=k) for k in (*range(-7, -2), *range(7, 12))]  # weekdays of the weeks around
            if level == "easy":
                others = [d for d in others if d.month == today.month and d.year == today.year]
            outside = sample(rng, others, min(len(others), int(rng.integers(1, 3))))
            for d in sorted(inside):
                t["ids"].append(new_event(series, d, "never", clock)["id"])
            for d in outside:
                new_event(series, d, "never", clock)
            t["title"] = series
            t["date"] = iso(start)  # the rule's week, by its Monday
            return t
        # about one existing event (a fresh one, so its title is unique and the task's)
        title = spare.pop()
        d = pick(rng, pool)
        if kind == "count":
            k = int(rng.integers(1, 4))
            for j in range(k):
                new_event(title if j == 0 else spare.pop(), d)
            t.update({"date": iso(d)})
            return t
        e = new_event(title, d, "never")
        t.update({"title": title, "ids": [e["id"]]})
        if kind == "move":
            old = minutes_of(e["time"])
            t["time"] = hhmm(int(pick(rng, [x for x in TIMES if x != old])))
        elif kind == "when":
            t["fact"] = time_label(minutes_of(e["time"]))
        return t

    @staticmethod
    def _clause(rng: np.random.Generator, t: CalTask, today: dt.date, first: bool) -> str:
        title = f"'{t['title']}'"
        if t["type"] == "add":
            d = day_of(str(t["date"]))
            at = time_label(minutes_of(str(t["time"])))
            text = pick(rng, ("Add {x} {d} at {t}{r}", "Create an event {x} {d} at {t}{r}", "Schedule {x} {d} at {t}{r}")).format(
                x=title, d=say_date(rng, today, d), t=at, r=say_repeat(rng, str(t["repeat"])))
        elif t["type"] == "delete" and t["date"] is not None:  # a rule: the series in a week
            monday = today - dt.timedelta(days=today.weekday())
            week = "this week" if day_of(str(t["date"])) == monday else "next week"
            text = pick(rng, ("Delete every {x} event {w}", "Remove all {x} events {w}", "Delete each {x} event {w}"))
            text = text.format(x=title, w=week)
        elif t["type"] == "delete":
            text = pick(rng, ("Delete the event {x}", "Remove {x} from the calendar", "Cancel {x}")).format(x=title)
        elif t["type"] == "move":
            text = pick(rng, ("Move {x} to {t}", "Change the time of {x} to {t}", "Reschedule {x} to start at {t}")).format(
                x=title, t=time_label(minutes_of(str(t["time"]))))
        elif t["type"] == "count":
            day = say_day(today, day_of(str(t["date"])))
            if first:
                text = pick(rng, ("How many events are on {d}?", "How many events do I have on {d}?")).format(d=day)
            else:
                text = f"tell me how many events are on {day}"
        else:
            text = f"tell me what time {title} starts"
            if first:
                text = pick(rng, ("What time is {x}?", "When does {x} start?")).format(x=title)
        if not first and t["type"] not in ("count", "when"):
            text = text[0].lower() + text[1:]
        return str(text)

    # --- progress ------------------------------------------------------------------------------
    @staticmethod
    def _tasks(scenario: Scenario) -> list[CalTask]:
        return cast(CalendarTask, scenario["task"])["tasks"]

    def _expected(self, scenario: Scenario) -> tuple[dict[int, Key], Counter[Key]]:
        """The events the task asks for: the start's (by id, with the edits, less the deleted)
        and the new ones (a multiset). Memoised for the last scenario, by identity."""
        memo = self._memo
        if memo is not None and memo[0] is scenario:
            return memo[1]
        kept = {e["id"]: key_of(e) for e in scenario["apps"][APP]["events"]}
        new: Counter[Key] = Counter()
        for t in self._tasks(scenario):
            if t["type"] == "add":
                new[(str(t["title"]), str(t["date"]), str(t["time"]), str(t["repeat"]))] += 1
            elif t["type"] == "delete":
                for i in t["ids"]:
                    kept.pop(i, None)
            elif t["type"] == "move":
                i = t["ids"][0]
                kept[i] = (*kept[i][:2], str(t["time"]), kept[i][3])
        out = (kept, new)
        self._memo = (scenario, out)
        return out

    @staticmethod
    def _split(scenario: Scenario, events: list[CalEvent]) -> tuple[dict[int, Key], Counter[Key]]:
        """``events`` as (the start's, by id; the new ones, a multiset). A start event is one whose id
        the scenario's events hold (not an id below their count: a snapshot's may be any unique ints,
        and a new event's id is above all of them)."""
        start = {e["id"] for e in scenario["apps"][APP]["events"]}
        return {e["id"]: key_of(e) for e in events if e["id"] in start}, Counter(key_of(e) for e in events if e["id"] not in start)

    def _ask(self, scenario: Scenario) -> CalTask | None:
        return next((t for t in self._tasks(scenario) if t["type"] in ("count", "when")), None)

    def question(self, scenario: Scenario) -> bool:
        return self._ask(scenario) is not None

    def task_problems(self, scenario: Scenario) -> list[str]:
        """Each task of a known type; a delete, move or question about events of the scenario
        (a delete of a missing one loaded as done); the dates, times and repeats a task sets or
        asks about, ones the form and the agenda can hold."""
        ids = {e["id"] for e in scenario["apps"][APP]["events"]}
        out: list[str] = []
        for i, t in enumerate(self._tasks(scenario)):
            w, k = f"$.task.tasks[{i}]", t["type"]
            out += missing(f"{w}.type", k, ("add", "delete", "move", "count", "when"), "Calendar task type")
            if k in ("delete", "move", "when") and not t["ids"]:
                out.append(f"{w}.ids: empty (a {k} is about an event)")
            if k in ("delete", "move", "when"):
                out += [p for j, x in enumerate(t["ids"]) for p in missing(f"{w}.ids[{j}]", x, ids, "event of the scenario's Calendar")]
            if k in ("add", "count") and not _is_date(t["date"]):
                out.append(f"{w}.date: {t['date']!r:.40} is not a date (YYYY-MM-DD)")
            if k in ("add", "move") and not _is_time(t["time"]):
                out.append(f"{w}.time: {t['time']!r:.40} is not a time (HH:MM)")
            if k == "add":
                out += missing(f"{w}.repeat", t["repeat"], REPEATS, "repeat option")
        return out

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        if self._split(scenario, state["apps"][APP]["data"]["events"]) != self._expected(scenario):
            return False
        ask = self._ask(scenario)
        if ask is None:
            return True
        from guigym.answers import answers_match

        return "answer" in state and answers_match(state["answer"], str(ask["fact"]))

    def failed(self, scenario: Scenario, state: DeviceState) -> bool | str:
        old, new = self._split(scenario, state["apps"][APP]["data"]["events"])
        want_old, want_new = self._expected(scenario)
        start = {e["id"]: key_of(e) for e in scenario["apps"][APP]["events"]}
        if new - want_new:
            return "an event the task does not ask for was added (or a wrong one)"
        if any(i not in old for i in want_old):
            return "an event that should stay was deleted"
        if any(k != start[i] and k != want_old.get(i) for i, k in old.items()):
            return "an event was changed in a way the task does not ask for"
        if "answer" not in state or self.success(scenario, state):
            return False
        ask = self._ask(scenario)
        return answer_failure(state, str(ask["fact"]) if ask is not None else None)

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        app_state = state["apps"][APP]
        vals = app_state["values"]
        events: list[CalEvent] = app_state["data"]["events"]
        old, new = self._split(scenario, events)
        want_old, want_new = self._expected(scenario)
        in_form = FORM in app_state["stack"]
        for t in self._tasks(scenario):
            if t["type"] == "add":
                k = (str(t["title"]), str(t["date"]), str(t["time"]), str(t["repeat"]))
                if new[k] >= want_new[k]:
                    continue
                if not in_form or vals.get(F_EDIT, -1) != -1:
                    return self._via_main(app_state, None, Goal(APP, "main", ADD, "press"))
                return self._fill(vals, t["title"], t["date"], str(t["time"]), str(t["repeat"]))
            if t["type"] == "delete":
                for i in t["ids"]:
                    if i in old:
                        e = _by_id(events, i)
                        assert e is not None
                        return self._via_main(app_state, month_of(e["date"]),
                                              Goal(APP, dialog_screen(i), sub_id(dialog_screen(i), "confirm"), "press"))
            if t["type"] == "move":
                i = t["ids"][0]
                if old.get(i) == want_old[i]:
                    continue
                e = _by_id(events, i)
                assert e is not None
                if not in_form or vals.get(F_EDIT, -1) != i:
                    edit = Goal(APP, event_screen(i), sub_id(event_screen(i), "edit"), "press")
                    return self._via_main(app_state, month_of(e["date"]), edit)
                return self._fill(vals, e["title"], e["date"], str(t["time"]), e["repeat"])
        ask = self._ask(scenario)
        if ask is not None and "answer" not in state:
            if ask["type"] == "count":
                shown = [e for e in _agenda(events, month_of(str(ask["date"]))) if e["date"] == ask["date"]]
                e = shown[-1] if shown else None
                wid = event_screen(e["id"]) if e is not None else "nav.month"  # none left that day: the month is the fact
                return self._via_main(app_state, month_of(str(ask["date"])), Goal(APP, "main", wid, "answer", ask["fact"]))
            e = _by_id(events, ask["ids"][0])
            assert e is not None
            return self._via_main(app_state, month_of(e["date"]), Goal(APP, "main", event_screen(e["id"]), "answer", ask["fact"]))
        return None

    @staticmethod
    def _fill(vals: dict[str, Any], title: Any, date: Any, time: str, repeat: str) -> Goal:
        """The next field of the open form to set, then Save."""
        h, m = divmod(minutes_of(time), 60)
        if vals.get(F_TITLE) != title:
            return Goal(APP, FORM, F_TITLE, "set", title)
        if vals.get(F_DATE) != date:
            return Goal(APP, FORM, F_DATE, "set", date)
        if vals.get(F_TIME + ".h") != h:
            return Goal(APP, FORM, F_TIME + ".h", "set", h)
        if vals.get(F_TIME + ".m") != m:
            return Goal(APP, FORM, F_TIME + ".m", "set", m)
        if vals.get(F_REPEAT) != repeat:
            return Goal(APP, FORM, F_REPEAT, "set", repeat)
        return Goal(APP, FORM, "form.save", "press")

    @staticmethod
    def _via_main(app_state: AppState, month: str | None, goal: Goal) -> Goal:
        """``goal``, once the way there is open: a form open for something else is cancelled
        first, and the main screen must show ``month`` (the month of the event the goal is
        about) unless the goal's screen is already open; else a press of the month bar's ‹ or ›."""
        stack = app_state["stack"]
        if goal.screen != FORM and FORM in stack:
            return Goal(APP, FORM, "form.cancel", "press")
        shown = str(app_state["values"].get(SHOWN))
        if month is None or shown == month or (goal.screen != "main" and goal.screen in stack):
            return goal
        if goal.screen != "main" and any(event_of(s) == event_of(goal.screen) for s in stack[1:]):
            return goal  # the event's screen is open: the month no longer matters
        return Goal(APP, "main", MONTHS, "set", month)  # the oracle presses ‹ or › (as on a date picker's header)
