"""Launcher: start on the phone's home screen, open the right app and do a small task in it.

Description:
    A home screen grid (20 icons per page, Scroll left/right between pages) with three apps
    that have behaviour (Notes, Clock, Contacts; see ``guigym.apps.tools``) among stub
    distractor apps. Which apps are on the phone, their icon order and colours, the saved
    notes, alarms (times, repeat days, on/off), people and favourites, and themes vary
    with the seed.
Instruction:
    "Open Notes and create a note titled 'Groceries'", "Go to Clock and turn on the 6:30 AM
    alarm", "In Contacts, add Grace Hill to favourites"; at hard two of them joined
    ("..., then open Clock and ...").
Actions:
    Click, Scroll, Back, OpenApp and Type (``type`` is ``Discrete(5)``: no task asks a
    question).
Levels:
    * easy: at most 12 icons; one task: a note with a title, one alarm, or one contact in a
      list that fits on the screen.
    * medium: 13-20 icons; one task: a note with a title and a text, two alarms in a long
      list, or two contacts in a long list (Back between them, Scroll).
    * hard: 21-32 icons (two home pages); two tasks in two different apps (a note with a
      title and maybe a text, two alarms, two contacts).
Rewards:
    1 on success, else 0 (``reward_mode="shaped"`` adds the env's potential-based shaping).
Termination:
    Success when every task is done: a saved note with the instructed title (and text; case
    and surrounding spaces ignored) exists, and every instructed switch has its instructed
    value. Unlike the data families, the rest is not compared (an extra note or a stray
    switch is not a failure), unless ``gym.make(..., strict=True)``: then every other switch
    must be as it started (the reference sets a stray one back first), and a saved note the
    task did not ask for, or a call placed (Contacts' Call button), fails the episode (neither
    can be undone); a note asked for by its title alone must then have no text (text left in
    its Note field is cleared before Save by the reference; saved, it is a note the task did
    not ask for). Otherwise never fails.
Content:
    Note titles and texts (the task's and the saved notes') come from ``guigym.apps.tools``'
    ``NOTE_TITLES`` and ``NOTE_BODIES``, read through :func:`guigym.i18n.content.tables`: German
    ones with ``language="de"`` (``guigym.i18n.de_content.tools``), entry for entry, so the
    draws are the English ones.
Registered ids:
    ``GuiGym-Launcher-v0`` (``level="easy" | "medium" | "hard"``).
"""

from __future__ import annotations

from typing import Any, TypedDict, cast

import numpy as np

from guigym.apps.base import HOME
from guigym.apps.catalog import BRANDS, STUB_APPS, TOOL_APPS, stub_app
from guigym.apps.family import CALL_PLACED, Family, Goal, missing, pick, sample, theme
from guigym.apps.schema import AppSpec, DeviceState, Scenario, Task, favourite_id
from guigym.apps.tools import calls_placed, clock_app, contacts_app, note_tables, notes_app

TOOLS = TOOL_APPS  # Notes, Clock, Contacts: the apps tasks are about
OPENERS = ("Open {app} and ", "Go to {app} and ", "In {app}, ")
JOINS = (", then ", ". Then ", "; after that, ")
NOTE_PHRASES = ("create a note titled '{t}'", "add a new note called '{t}'", "make a note with the title '{t}'")
BODY_PHRASES = (" with the text '{b}'", " that says '{b}'")
ALARM_ON = ("turn on the {t} alarm", "switch on the {t} alarm", "enable the alarm for {t}")
ALARM_OFF = ("turn off the {t} alarm", "switch off the {t} alarm", "disable the alarm for {t}")

#: (icons on the home screen, alarms, people) per level.
LEVEL_SIZES: dict[str, tuple[tuple[int, int], tuple[int, int], tuple[int, int]]] = {
    "easy": ((6, 12), (3, 6), (5, 8)),
    "medium": ((13, 20), (9, 14), (12, 20)),
    "hard": ((21, 32), (9, 14), (14, 24)),
}


class SwitchTarget(TypedDict):
    screen: str
    widget: str
    value: bool
    label: str  # how the instruction names it (an alarm's time, a person's name)


class NoteTask(TypedDict):
    type: str  # "note"
    app: str
    title: str
    body: str | None  # the note's text (None: any)


class SwitchTask(TypedDict):
    type: str  # "switches"
    app: str
    targets: list[SwitchTarget]  # ons before offs, as the instruction names them


AppTask = NoteTask | SwitchTask


class LauncherTask(Task):
    tasks: list[AppTask]


def _fold(s: Any) -> str:
    return str(s).strip().casefold()


def _switch_targets(rng: np.random.Generator, spec: AppSpec, ids: list[str]) -> list[SwitchTarget]:
    """Flip the switches ``ids`` of ``spec`` (found on any of its screens)."""
    out: list[SwitchTarget] = []
    for wid in ids:
        sid, r = next((sid, r) for sid, s in spec["screens"].items() for r in s["rows"] if r["id"] == wid)
        label = spec["screens"][sid]["title"] if r["label"] == "Favourite" else r["label"]  # a person's name, or an alarm's time
        out.append({"screen": sid, "widget": wid, "value": not r["value"], "label": label})
    return out


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


class LauncherFamily(Family):
    name = "Launcher"
    description = "From the home screen, open Notes, Clock or Contacts and do a task; hard chains two apps."
    apps = BRANDS + TOOL_APPS + STUB_APPS
    task_type = LauncherTask
    lenient = True  # only the instructed changes are compared, unless strict=True
    #: The app each task is in (hard: the two apps, sorted: either order is the same template).
    templates = {"easy": ("notes", "clock", "contacts"), "medium": ("notes", "clock", "contacts"),
                 "hard": ("clock+notes", "contacts+notes", "clock+contacts")}

    def template(self, scenario: Scenario) -> str:
        return "+".join(sorted(t["app"].lower() for t in self._tasks(scenario)))

    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        (lo_i, hi_i), (lo_a, hi_a), (lo_p, hi_p) = LEVEL_SIZES[level]
        apps_used = sample(rng, list(TOOLS), 2 if level == "hard" else 1)
        tasks = [self._task(rng, level, app) for app in apps_used]
        title_avoid = [t["title"] for t in tasks if t["type"] == "note"]
        apps: dict[str, AppSpec] = {
            "Notes": notes_app(rng, int(rng.integers(0, 4) if level == "easy" else rng.integers(2, 7)), title_avoid),
            "Clock": clock_app(rng, int(rng.integers(lo_a, hi_a + 1))),
            "Contacts": contacts_app(rng, int(rng.integers(lo_p, hi_p + 1))),
        }
        for t in tasks:  # switch tasks pick their switches from the generated app
            if t["type"] == "switches":
                spec = apps[t["app"]]
                ids = [r["id"] for r in spec["screens"]["main"]["rows"] if r["kind"] == "toggle"] if t["app"] == "Clock" \
                    else [favourite_id(i) for i in range(len(spec["people"]))]
                targets = _switch_targets(rng, spec, sorted(sample(rng, ids, t.pop("n")), key=ids.index))
                # the instruction names the ons before the offs; goals follow the instruction
                t["targets"] = [x for x in targets if x["value"]] + [x for x in targets if not x["value"]]
        n_icons = int(rng.integers(lo_i, hi_i + 1))
        for name in sample(rng, list(STUB_APPS + BRANDS), n_icons - len(TOOLS)):
            apps[name] = stub_app(rng, name)
        icons = sample(rng, list(apps), len(apps))
        text = "".join((pick(rng, JOINS) if k else "") + self._clause(rng, t, first=k == 0) for k, t in enumerate(tasks)) + "."
        task: LauncherTask = {"instruction": text, "tasks": tasks}  # type: ignore[typeddict-item]
        return {
            "family": self.name, "level": level, "apps": apps, "home": {"enabled": True, "icons": icons}, "theme": theme(rng),
            "start": {"fg": HOME, "values": {}}, "task": task,
        }

    def _task(self, rng: np.random.Generator, level: str, app: str) -> dict[str, Any]:
        """A task skeleton; switch tasks get their targets once the app exists."""
        if app == "Notes":
            T = note_tables()  # as tools.notes_app draws the saved notes
            with_body = level == "medium" or (level == "hard" and bool(rng.integers(2)))
            return {"type": "note", "app": app, "title": pick(rng, T.NOTE_TITLES), "body": pick(rng, T.NOTE_BODIES) if with_body else None}
        return {"type": "switches", "app": app, "n": 1 if level == "easy" else 2}

    def _clause(self, rng: np.random.Generator, t: dict[str, Any], first: bool) -> str:
        opener = pick(rng, OPENERS).format(app=t["app"])
        if t["type"] == "note":
            what = pick(rng, NOTE_PHRASES).format(t=t["title"]) + (pick(rng, BODY_PHRASES).format(b=t["body"]) if t["body"] else "")
        else:
            on = [x["label"] for x in t["targets"] if x["value"]]
            off = [x["label"] for x in t["targets"] if not x["value"]]
            if t["app"] == "Clock":
                parts = [pick(rng, ALARM_ON if v else ALARM_OFF).format(t=ts[0]) if len(ts) == 1
                         else f"turn {'on' if v else 'off'} the {_and(ts)} alarms"
                         for v, ts in ((True, on), (False, off)) if ts]
            else:
                parts = ([f"add {_and(on)} to favourites"] if on else []) + ([f"remove {_and(off)} from favourites"] if off else [])
            what = " and ".join(parts)
        text = opener + what
        return text if first else text[0].lower() + text[1:]

    # --- progress --------------------------------------------------------------------------
    @staticmethod
    def _tasks(scenario: Scenario) -> list[AppTask]:
        return cast(LauncherTask, scenario["task"])["tasks"]

    @staticmethod
    def _done(state: DeviceState, t: AppTask) -> bool:
        app_state = state["apps"][t["app"]]
        if t["type"] == "note":
            t = cast(NoteTask, t)
            return any(_fold(n["title"]) == _fold(t["title"]) and (t["body"] is None or _fold(n["body"]) == _fold(t["body"]))
                       for n in app_state["data"]["notes"])
        return all(app_state["values"].get(x["widget"]) == x["value"] for x in cast(SwitchTask, t)["targets"])

    def task_problems(self, scenario: Scenario) -> list[str]:
        """A note task in Notes; each switch target a switch on its screen of its app (a
        missing one was never set: a task no reference completes)."""
        apps, out = scenario["apps"], []
        for i, t in enumerate(self._tasks(scenario)):
            w = f"$.task.tasks[{i}]"
            if t["type"] == "note":
                out += missing(f"{w}.app", t["app"], ("Notes",) if "Notes" in apps else (), "Notes app of the scenario")
            elif t["type"] == "switches":
                out += missing(f"{w}.app", t["app"], apps, "app of the scenario")
                screens = apps[t["app"]]["screens"] if t["app"] in apps else {}
                for j, x in enumerate(cast(SwitchTask, t)["targets"] if t["app"] in apps else []):
                    rows = screens[x["screen"]]["rows"] if x["screen"] in screens else []
                    out += missing(f"{w}.targets[{j}].widget", x["widget"], [r["id"] for r in rows if r["kind"] == "toggle"],
                                   f"switch on screen {x['screen']!r:.40} of {t['app']}")
            else:
                out.append(f"{w}.type: {t['type']!r:.40} is not 'note' or 'switches'")
        return out

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        if not all(self._done(state, t) for t in self._tasks(scenario)):
            return False
        return not self.strict(scenario) or (not self._stray_switches(scenario, state) and not self._extra_notes(scenario, state)
                                             and not calls_placed(state["apps"]["Contacts"]))

    def failed(self, scenario: Scenario, state: DeviceState) -> bool | str:
        """With ``strict``: a saved note the task does not ask for (Notes cannot delete one), or a
        call placed (Contacts' Call button; no task asks for one)."""
        if not self.strict(scenario):
            return False
        if self._extra_notes(scenario, state):
            return "a note the task does not ask for was saved (Notes cannot delete one)"
        return CALL_PLACED if calls_placed(state["apps"]["Contacts"]) else False

    @staticmethod
    def _extra_notes(scenario: Scenario, state: DeviceState) -> bool:
        """Whether the notes saved during the episode are more than the instructed note: one
        that does not match it, a second one, or any without a note task."""
        saved = state["apps"]["Notes"]["data"]["notes"][len(scenario["apps"]["Notes"]["notes"]):]
        want = [t for t in LauncherFamily._tasks(scenario) if t["type"] == "note"]
        if not saved:
            return False
        if not want or len(saved) > 1:
            return True
        t = cast(NoteTask, want[0])
        n = saved[0]
        # strict: a note asked for by its title alone is that title with no text (text typed into
        # its Note field is a change nobody asked for, as in any other field)
        return not (_fold(n["title"]) == _fold(t["title"]) and _fold(n["body"]) == _fold(t["body"] or ""))

    @staticmethod
    def _stray_switches(scenario: Scenario, state: DeviceState) -> list[Goal]:
        """The switches (alarms, favourites) the task does not name that are no longer as they
        started, each as the goal that sets it back (Clock's, then Contacts', in row order)."""
        named = {x["widget"] for t in LauncherFamily._tasks(scenario) if t["type"] == "switches"
                 for x in cast(SwitchTask, t)["targets"]}
        out = []
        for app in ("Clock", "Contacts"):
            start = scenario["start"]["values"].get(app, {})
            where = {r["id"]: (sid, start.get(r["id"], r["value"])) for sid, sc in scenario["apps"][app]["screens"].items()
                     for r in sc["rows"] if r["kind"] == "toggle"}
            values = state["apps"][app]["values"]
            out += [Goal(app, sid, k, "set", v0) for k, (sid, v0) in where.items() if k not in named and values.get(k) != v0]
        return out

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        if self.strict(scenario):
            strays = self._stray_switches(scenario, state)
            if strays:  # set back first: a stray switch is usually on the screen the agent is on
                return strays[0]
        for t in self._tasks(scenario):
            if self._done(state, t):
                continue
            app_state = state["apps"][t["app"]]
            if t["type"] == "switches":
                x = next(x for x in cast(SwitchTask, t)["targets"] if app_state["values"].get(x["widget"]) != x["value"])
                return Goal(t["app"], x["screen"], x["widget"], "set", x["value"])
            t = cast(NoteTask, t)
            if app_state["stack"][-1] != "edit":  # open a fresh editor
                return Goal("Notes", "main", "new", "press")
            vals = app_state["values"]
            if vals.get("title") != t["title"]:
                return Goal("Notes", "edit", "title", "set", t["title"])
            if t["body"] is not None and vals.get("body") != t["body"]:
                return Goal("Notes", "edit", "body", "set", t["body"])
            if t["body"] is None and self.strict(scenario) and _fold(str(vals.get("body", ""))):  # text nobody asked for
                return Goal("Notes", "edit", "body", "set", "")
            return Goal("Notes", "edit", "save", "press")
        return None
