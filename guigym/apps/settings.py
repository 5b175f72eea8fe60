"""Settings: change toggles and choices in an Android-like settings app.

Description:
    A main list of categories (Network & internet, Display, Sound & vibration, ...; each a
    link with a subtitle). A category screen holds switches (Wi-Fi, Dark theme, ...), choice
    settings (a row that shows the current choice and opens a list of options that closes on
    selection, like an Android dialog), links to screens without settings, and in some
    categories a link one level deeper (Display > Advanced > Night Light). Which categories
    and settings exist, their order (partly shuffled), the current values, padding rows and
    themes vary with the seed.
Instruction:
    "Turn on Bluetooth, then set the screen timeout to 5 minutes.", with synonyms
    (turn on/enable/switch on, set/change ... to ...) and, at medium/hard, sometimes where
    the setting lives ("In Display > Advanced, turn on 'Night Light'").
Actions:
    Click, Scroll, Back, OpenApp and Type (``type`` is ``Discrete(5)``: no task asks a
    question).
Levels:
    * easy: one change; at most 10 categories and 10 rows per screen (no Scroll), no deeper
      screens.
    * medium: two changes in two categories (Back between them); the main list is longer
      than 10 rows (Scroll); deeper screens exist as distractors.
    * hard: three changes in three categories, at least one on a deeper screen; category
      and deeper lists are longer than 10 rows.
Rewards:
    1 on success, else 0 (``reward_mode="shaped"`` adds the env's potential-based shaping).
Termination:
    Success when every instructed setting has its instructed value. Unlike the data families,
    other settings are not compared (a stray toggle is not a failure: every setting can
    always be changed back), unless ``gym.make(..., strict=True)``: then every other setting
    must be at its start value too (the reference sets a stray one back first). Never fails.
Registered ids:
    ``GuiGym-Settings-v0`` (``level="easy" | "medium" | "hard"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, cast

import numpy as np

from guigym.apps.base import row
from guigym.apps.family import Family, Goal, missing, pick, sample, theme
from guigym.apps.schema import (
    AppSpec,
    DeviceState,
    RowSpec,
    Scenario,
    ScreenSpec,
    Task,
    choice_screen,
    info_screen,
    link_id,
    option_id,
    pad_id,
    sub_id,
)
from guigym.apps.settings_catalog import CATEGORIES, PAD_TOGGLES, Category, Choice, DeepLink, Info, Item, Page, Setting, Toggle, settings_of

APP = "Settings"


#: The categories with at least one setting (a target's category is one of them).
SETTABLE: list[Category] = [c for c in CATEGORIES if settings_of(c.items)]


class _TargetKeys(TypedDict):
    setting: str  # the setting's row id
    label: str
    screen: str  # the screen the setting is on
    path: list[str]  # screens from the root to ``screen``
    kind: str  # "toggle" or "choice"
    value: Any  # the instructed value (bool, or the option)


class SettingTarget(_TargetKeys, total=False):
    choice_screen: str  # choices: the options screen
    row: str  # choices: the option's radio row


class SettingsTask(Task):
    app: str
    targets: list[SettingTarget]  # in instruction order


#: How instructions name choice settings whose label reads badly after "Set the ...".
NOUNS: dict[str, str] = {
    "saver_schedule": "the Battery Saver schedule", "night_schedule": "the Night Light schedule", "saver_at": "'Turn on at'",
    "bt_visibility": "the Bluetooth visibility", "colors": "the screen colors", "lock_notifs": "'Notifications on lock screen'",
    "remove_media": "'Remove backed-up photos'", "action_time": "'Time to take action'", "lock_after": "'Lock after screen timeout'",
}
ON_VERBS = ("Turn on", "Enable", "Switch on")
OFF_VERBS = ("Turn off", "Disable", "Switch off")
CHOICE_VERBS = ("Set", "Change")
CONNECTORS = (", then go back and ", ", then ", ". Then ", "; after that, ", ", and ")

#: (categories on the main list, rows per category screen) per level.
LEVEL_SIZES: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "easy": ((6, 10), (3, 8)),
    "medium": ((11, 15), (5, 10)),
    "hard": ((15, len(CATEGORIES)), (11, 14)),
}


def _partly_shuffle(rng: np.random.Generator, seq: Sequence[Any], swaps: int) -> list[Any]:
    """``seq`` with ``swaps`` random adjacent swaps: mostly the familiar order, never quite."""
    out = list(seq)
    for _ in range(swaps if len(out) > 1 else 0):
        i = int(rng.integers(len(out) - 1))
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def _noun(label: str) -> str:
    """'Screen timeout' -> 'the screen timeout'; acronyms keep their case ('the USB ...')."""
    first = label.split()[0]
    return "the " + (label if first.isupper() and len(first) > 1 else label[0].lower() + label[1:])


def _quoted(label: str) -> str:
    return f"'{label}'" if " " in label else label


@dataclass(frozen=True)
class _Placement:
    """Where a setting of one scenario lives (and, for a choice, its options there)."""

    screen: str
    item: Setting
    path: list[str]
    options: list[str] | None


class _Builder:
    """Builds the screens of one scenario; remembers where each setting lives."""

    def __init__(self, rng: np.random.Generator, level: str) -> None:
        self.rng, self.level = rng, level
        self.screens: dict[str, ScreenSpec] = {}
        self.defaults: dict[str, str] = {}
        self.where: dict[str, _Placement] = {}  # by setting id

    def screen(self, sid: str, title: str, parent: str, path: list[str], items: Sequence[Item], min_rows: int = 0) -> None:
        rng = self.rng
        rows: list[RowSpec] = []
        for it in items:
            opts: list[str] | None = None
            if isinstance(it, Toggle):
                # literal rows where generation spends its time: what row() makes, without the call
                rows.append({"id": it.id, "kind": "toggle", "label": it.label, "value": bool(rng.integers(2))})
            elif isinstance(it, Choice):
                opts = list(it.options)[: 8 if self.level == "easy" else None]  # easy: no Scroll in choice lists
                self.defaults[it.id] = pick(rng, opts)
                csid = choice_screen(it.id)
                rows.append(row(it.id, "link", it.label, group=it.id, to=csid))
                self.screens[csid] = {"title": it.label, "parent": sid, "pop_on_select": True,
                                      "rows": [{"id": option_id(it.id, k), "kind": "radio", "label": o, "group": it.id, "option": o}
                                               for k, o in enumerate(opts)]}
            elif isinstance(it, Page):
                page = info_screen(sid, len(rows))
                rows.append(row(link_id(page), "link", it.label, to=page))
                self.screens[page] = {"title": it.label, "parent": sid, "rows": [
                    row(sub_id(page, "info"), "label", f"{it.label} is managed by the system."),
                    row(sub_id(page, "hint"), "label", "Nothing to change here.", style="muted"),
                ]}
            elif isinstance(it, Info):
                rows.append(row(sub_id(sid, f"i{len(rows)}"), "label", it.text, style="muted"))
            elif isinstance(it, DeepLink):  # the deeper screen itself is built separately
                rows.append(row(link_id(it.id), "link", it.title, to=it.id))
            if isinstance(it, (Toggle, Choice)):
                self.where[it.id] = _Placement(sid, it, path, opts)
        if len(rows) < min_rows:  # pad long lists with distractor switches
            labels = {r["label"] for r in rows}
            pads = sample(rng, [p for p in PAD_TOGGLES if p not in labels], min_rows - len(rows))
            for k, label in enumerate(pads):
                rows.insert(int(rng.integers(len(rows) + 1)), {"id": pad_id(sid, k), "kind": "toggle", "label": label,
                                                                "value": bool(rng.integers(2))})
        self.screens[sid] = {"title": title, "parent": parent, "rows": rows}


class SettingsFamily(Family):
    name = "Settings"
    description = "Change switches and choices across categories, sub-screens and long lists (Scroll, Back)."
    apps = (APP,)
    task_type = SettingsTask
    lenient = True  # only the instructed changes are compared, unless strict=True
    #: The kinds of the targets, sorted ("choice+toggle": one choice and one switch, in either order).
    templates = {"easy": ("toggle", "choice"), "medium": ("toggle+toggle", "choice+toggle", "choice+choice"),
                 "hard": ("toggle+toggle+toggle", "choice+toggle+toggle", "choice+choice+toggle", "choice+choice+choice")}

    def template(self, scenario: Scenario) -> str:
        return "+".join(sorted(t["kind"] for t in scenario["task"]["targets"]))  # type: ignore[typeddict-item]

    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        (lo_c, hi_c), (lo_r, hi_r) = LEVEL_SIZES[level]
        n_targets = {"easy": 1, "medium": 2, "hard": 3}[level]
        # target categories first, so they are on the list; a deep target needs a deeper screen
        settable = SETTABLE
        if level == "hard":
            first = pick(rng, [c for c in CATEGORIES if c.deep is not None])
            chosen = [first] + sample(rng, [c for c in settable if c is not first], n_targets - 1)
        else:
            chosen = sample(rng, settable, n_targets)
        rest = [c for c in CATEGORIES if all(c is not t for t in chosen)]
        n_cats = int(rng.integers(lo_c, hi_c + 1))
        listed = chosen + sample(rng, rest, n_cats - len(chosen))
        order = {c.id: i for i, c in enumerate(CATEGORIES)}
        listed = _partly_shuffle(rng, sorted(listed, key=lambda c: order[c.id]), int(rng.integers(1, 4)))

        b = _Builder(rng, level)
        for cat in listed:
            items: list[Item] = list(cat.items)
            if level == "hard":
                keep = len(items) - int(rng.integers(0, 2))
            else:  # easy/medium: a subset (at least two settings), within the row budget
                keep = int(rng.integers(lo_r, hi_r + 1)) - (cat.deep is not None and level == "medium")
            keep = max(1, min(keep, len(items)))
            sets: list[Item] = list(settings_of(items))
            others = [it for it in items if not isinstance(it, (Toggle, Choice))]
            n_sets = min(len(sets), max(2, keep - len(others)), keep)
            picked = sample(rng, sets, n_sets) + sample(rng, others, min(len(others), keep - n_sets)) if sets else sample(rng, others, keep)
            picked.sort(key=items.index)
            if cat.deep is not None and level != "easy":
                deep = cat.deep
                picked.insert(int(rng.integers(len(picked) + 1)), DeepLink(deep.id, deep.title))
                b.screen(deep.id, deep.title, cat.id, ["main", cat.id, deep.id],
                         _partly_shuffle(rng, deep.items, 2), min_rows=int(rng.integers(lo_r, hi_r + 1)) if level == "hard" else 0)
            min_rows = int(rng.integers(lo_r, hi_r + 1)) if level == "hard" and sets else 0
            b.screen(cat.id, cat.title, "main", ["main", cat.id], _partly_shuffle(rng, picked, int(rng.integers(0, 3))), min_rows)

        main_rows = [row(link_id(c.id), "link", c.title, detail=c.detail, to=c.id) for c in listed]
        if level != "easy" and rng.integers(2):
            main_rows.insert(0, row("search", "input", "Search settings", placeholder="Search settings", value=""))
        b.screens["main"] = {"title": "Settings", "parent": None, "rows": main_rows}

        targets = self._targets(rng, level, b, chosen)
        text = self._instruction(rng, level, targets, b)
        spec: AppSpec = {
            "kind": "generic", "name": APP, "root": "main", "screens": b.screens, "defaults": b.defaults, "color": [95, 99, 104],
        }
        task: SettingsTask = {"instruction": text, "app": APP, "targets": targets}
        return {
            "family": self.name, "level": level, "apps": {APP: spec}, "home": {"enabled": False, "icons": [APP]},
            "theme": theme(rng), "start": {"fg": APP, "values": {}}, "task": task,
        }

    def _targets(self, rng: np.random.Generator, level: str, b: _Builder, chosen: list[Category]) -> list[SettingTarget]:
        """One setting per chosen category (for hard, the first is on its deeper screen),
        with a value different from the current one; returned in instruction order."""
        out: list[SettingTarget] = []
        for k, cat in enumerate(chosen):
            deep = level == "hard" and k == 0
            sid = cat.deep.id if deep and cat.deep is not None else cat.id
            cands = [setting for setting, place in b.where.items() if place.screen == sid]
            # choices are a bit rarer than switches, as in real requests
            choices = [c for c in cands if isinstance(b.where[c].item, Choice)]
            setting = pick(rng, choices) if choices and rng.random() < 0.4 else pick(rng, [c for c in cands if c not in choices] or cands)
            place = b.where[setting]
            t: SettingTarget = {"setting": setting, "label": place.item.label, "screen": sid, "path": place.path}  # type: ignore[typeddict-item]
            if isinstance(place.item, Toggle):
                # a setting's row sits on its own screen only (catalogue ids are unique; pads have their own)
                current = next(r["value"] for r in b.screens[place.screen]["rows"] if r["id"] == setting and r["kind"] == "toggle")
                t.update({"kind": "toggle", "value": not current})
            else:
                all_opts = cast(list[str], place.options)
                opt = pick(rng, [o for o in all_opts if o != b.defaults[setting]])
                t.update({"kind": "choice", "value": opt, "choice_screen": choice_screen(setting),
                          "row": option_id(setting, all_opts.index(opt))})
            out.append(t)
        return sample(rng, out, len(out))

    def _instruction(self, rng: np.random.Generator, level: str, targets: list[SettingTarget], b: _Builder) -> str:
        clauses, located = [], []
        for t in targets:
            if t["kind"] == "toggle":
                c = f"{pick(rng, ON_VERBS if t['value'] else OFF_VERBS)} {_quoted(t['label'])}"
            else:
                c = f"{pick(rng, CHOICE_VERBS)} {NOUNS.get(t['setting']) or _noun(t['label'])} to {t['value']}"
            deep = len(t["path"]) > 2
            if level != "easy" and rng.random() < (0.6 if deep else 0.2):
                where = " > ".join(b.screens[s]["title"] for s in t["path"][1:])
                c = f"in {where}, {c[0].lower()}{c[1:]}"
            clauses.append(c)
            located.append(c.startswith("in "))
        text = clauses[0]
        for i, c in enumerate(clauses[1:], 1):
            joint = pick(rng, CONNECTORS)  # drawn whatever is used: the same draws as before
            # after "In A > B, do x", ", then do y" read as y being in A > B too (it rarely is): a new sentence
            text += (". Then " if located[i - 1] and not located[i] else joint) + c[0].lower() + c[1:]
        return text[0].upper() + text[1:] + "."

    def _unmet(self, scenario: Scenario, state: DeviceState) -> list[SettingTarget]:
        values = state["apps"][APP]["values"]
        return [t for t in cast(SettingsTask, scenario["task"])["targets"] if values.get(t["setting"]) != t["value"]]

    def _strays(self, scenario: Scenario, state: DeviceState) -> list[tuple[str, Any]]:
        """With ``strict``: the settings the task does not name whose value is no longer their
        start value, as ``(setting, start value)`` in the app's row order."""
        if not self.strict(scenario):
            return []
        start = _start_values(scenario)
        named = {t["setting"] for t in cast(SettingsTask, scenario["task"])["targets"]}
        values = state["apps"][APP]["values"]
        return [(k, start[k]) for k, v in values.items() if k in start and k not in named and v != start[k]]

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        return not self._unmet(scenario, state) and not self._strays(scenario, state)

    def task_problems(self, scenario: Scenario) -> list[str]:
        """Each target a switch on its screen, or an option of a choice on its options screen
        (a missing one was never set: a task no reference completes)."""
        task = cast(SettingsTask, scenario["task"])
        out = missing("$.task.app", task["app"], (APP,) if APP in scenario["apps"] else (), "Settings app of the scenario")
        screens = scenario["apps"][APP]["screens"] if not out else {}
        for i, t in enumerate(task["targets"] if not out else []):
            w = f"$.task.targets[{i}]"
            if t["kind"] == "toggle":
                rows = screens[t["screen"]]["rows"] if t["screen"] in screens else []
                out += missing(f"{w}.setting", t["setting"], [r["id"] for r in rows if r["kind"] == "toggle"],
                               f"switch on screen {t['screen']!r:.40}")
                if type(t["value"]) is not bool:
                    out.append(f"{w}.value: {t['value']!r:.40} is not a bool (a switch's value)")
            elif t["kind"] == "choice":
                cs = str(t.get("choice_screen"))
                rows = screens[cs]["rows"] if cs in screens else []
                out += missing(f"{w}.row", t.get("row"), [r["id"] for r in rows if r.get("option") == t["value"]],
                               f"option {t['value']!r:.40} of the choice's options screen {t.get('choice_screen')!r:.40}")
            else:
                out.append(f"{w}.kind: {t['kind']!r:.40} is not 'toggle' or 'choice'")
        return out

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        strays = self._strays(scenario, state)
        if strays:  # set back first: a stray change is usually on the screen the agent is on
            return _set_back(scenario, *strays[0])
        unmet = self._unmet(scenario, state)
        if not unmet:
            return None
        t = unmet[0]
        if t["kind"] == "toggle":
            return Goal(APP, t["screen"], t["setting"], "set", t["value"])
        return Goal(APP, t["choice_screen"], t["row"], "press")


def _start_values(scenario: Scenario) -> dict[str, Any]:
    """Every setting's value at the start (switches, pads included, and choices), by row id."""
    spec = scenario["apps"][APP]
    out: dict[str, Any] = {r["id"]: r["value"] for sc in spec["screens"].values() for r in sc["rows"] if r["kind"] == "toggle"}
    out.update(spec["defaults"])
    out.update((k, v) for k, v in scenario["start"]["values"].get(APP, {}).items() if k in out)  # settings only, not the search text
    return out


def _set_back(scenario: Scenario, setting: str, value: Any) -> Goal:
    """The goal that gives ``setting`` its start ``value`` again: set the switch, or press the
    option on the choice's options screen."""
    screens = scenario["apps"][APP]["screens"]
    options = screens.get(choice_screen(setting))
    if options is not None:
        row_id = next(r["id"] for r in options["rows"] if r.get("option") == value)
        return Goal(APP, choice_screen(setting), row_id, "press")
    sid = next(sid for sid, sc in screens.items() if any(r["id"] == setting for r in sc["rows"]))
    return Goal(APP, sid, setting, "set", value)
