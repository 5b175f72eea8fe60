"""``set_state`` checks a snapshot's task against its scenario (``Family.task_problems``, then the
start-state backstop in ``guigym.apps.snapshot``): a task that names a record, person, setting or
switch the scenario lacks, or one done or failed at the scenario's start, is refused with the path
of the bad key, the env untouched; every generated task passes both checks."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from guigym.apps import FAMILIES
from guigym.apps.base import start_state
from tests.conftest import assert_set_state_refused

MISSING = 10**6  # an id no scenario has


def _snapshot_where(env_id: str, level: str, want: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """A snapshot at reset of the first seed whose task ``want`` accepts."""
    env = gym.make(env_id, level=level)
    for seed in range(60):
        env.reset(seed=seed)
        snap = env.unwrapped.get_state()
        if want(snap["scenario"]["task"]):
            env.close()
            return snap
    raise AssertionError(f"no seed of {env_id} {level} with such a task")


def _has(key: str, kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda task: any(t["type"] == kind for t in task[key])


def _first(snap: dict[str, Any], key: str, kind: str) -> dict[str, Any]:
    return next(t for t in snap["scenario"]["task"][key] if t["type"] == kind)  # type: ignore[no-any-return]


def _set(key: str, kind: str, field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """Set ``field`` of the first task of ``kind`` (a list field: its first item)."""
    def corrupt(snap: dict[str, Any]) -> None:
        t = _first(snap, key, kind)
        if isinstance(t[field], list):
            t[field][0] = value
        else:
            t[field] = value
    return corrupt


def _fav_as_it_is(snap: dict[str, Any]) -> None:
    """A favourite task that sets the person's star to what it already is: done at the start."""
    t = _first(snap, "tasks", "fav")
    t["fav"] = next(c["fav"] for c in snap["scenario"]["apps"]["Contacts"]["cards"] if c["id"] == t["person"])


def _shift_mail_ids(snap: dict[str, Any]) -> None:
    """Every mail id (scenario, state, task, counter) moved up by 100, consistently: the ids stay
    unique, but the family takes mails past the scenario's count for sent ones."""
    for m in snap["scenario"]["apps"]["Mail"]["mails"]:
        m["id"] += 100
    data = snap["state"]["apps"]["Mail"]["data"]
    for m in data["mails"]:
        m["id"] += 100
    data["next"] += 100
    for t in snap["scenario"]["task"]["tasks"]:
        t["ids"] = [i + 100 for i in t["ids"]]


#: (env id, level, which task, corruption, what the error says). Each loaded before: the deletes
#: as already done (a reference of [] and success at reset), the others as tasks no step could
#: complete, or crashed on set_state's dry run with a bare KeyError / AssertionError.
MISSING_DATA = [
    ("GuiGym-Calendar-v0", "easy", _has("tasks", "delete"), _set("tasks", "delete", "ids", MISSING),
     r"\$\.scenario\.task\.tasks\[0\]\.ids\[0\]: 1000000 is no event of the scenario's Calendar"),
    ("GuiGym-Calendar-v0", "easy", _has("tasks", "move"), _set("tasks", "move", "ids", MISSING), r"ids\[0\]: 1000000 is no event"),
    ("GuiGym-Calendar-v0", "easy", _has("tasks", "when"), _set("tasks", "when", "ids", MISSING), r"ids\[0\]: 1000000 is no event"),
    ("GuiGym-Calendar-v0", "easy", _has("tasks", "delete"), _set("tasks", "delete", "type", "remove"),
     r"tasks\[0\]\.type: 'remove' is no Calendar task type"),
    ("GuiGym-Contacts-v0", "easy", _has("tasks", "delete"), _set("tasks", "delete", "person", MISSING),
     r"tasks\[0\]\.person: 1000000 is no person of the scenario's Contacts"),
    ("GuiGym-Messages-v0", "easy", _has("tasks", "delete"), _set("tasks", "delete", "name", "Nobody Atall"),
     r"tasks\[0\]\.name: 'Nobody Atall' is no conversation"),
    ("GuiGym-Messages-v0", "easy", _has("tasks", "ask"), _set("tasks", "ask", "index", 999), r"tasks\[0\]\.index: 999 is no message"),
    ("GuiGym-Files-v0", "easy", _has("changes", "delete"), _set("changes", "delete", "nodes", MISSING),
     r"changes\[0\]\.nodes\[0\]: 1000000 is no item of the scenario's Files"),
    ("GuiGym-Mail-v0", "easy", _has("tasks", "archive"), _set("tasks", "archive", "ids", MISSING),
     r"tasks\[0\]\.ids\[0\]: 1000000 is no mail of the scenario's Mail"),
    ("GuiGym-Mail-v0", "easy", _has("tasks", "delete"), _set("tasks", "delete", "ids", MISSING), r"ids\[0\]: 1000000 is no mail"),
    ("GuiGym-Shop-v0", "easy", _has("tasks", "remove"), _set("tasks", "remove", "pid", MISSING), r"tasks\[0\]\.pid: 1000000 is no product"),
    ("GuiGym-Shop-v0", "easy", _has("tasks", "remove"), _set("tasks", "remove", "size", "XXXL"), r"tasks\[0\]\.size: 'XXXL' is no size"),
    ("GuiGym-Phone-v0", "easy", _has("jobs", "note_delete"), _set("jobs", "note_delete", "ref", 999),
     r"jobs\[0\]\.ref: 999 is no note of the scenario's Notes"),
    ("GuiGym-CrossApp-v0", "easy", lambda t: bool(t["reads"]), lambda s: s["scenario"]["task"]["reads"][0].__setitem__("ref", MISSING),
     r"reads\[0\]\.ref: 1000000 is no"),
    ("GuiGym-Settings-v0", "easy", lambda t: t["targets"][0]["kind"] == "toggle",
     lambda s: s["scenario"]["task"]["targets"][0].__setitem__("setting", "nope"), r"targets\[0\]\.setting: 'nope' is no switch"),
    ("GuiGym-Launcher-v0", "easy", _has("tasks", "switches"),
     lambda s: _first(s, "tasks", "switches")["targets"][0].__setitem__("widget", "nope"),
     r"tasks\[0\]\.targets\[0\]\.widget: 'nope' is no switch"),
    ("GuiGym-Login-v0", "easy", lambda t: True, lambda s: s["scenario"]["task"].__setitem__("user", "someone.else"),
     r"\$\.scenario\.task\.user: 'someone\.else' is not the account's user"),
    # the backstop: data that exists, but a task done or failed before any step
    ("GuiGym-Contacts-v0", "easy", _has("tasks", "fav"), _fav_as_it_is, r"\$\.scenario\.task: already done at the scenario's start"),
    ("GuiGym-Mail-v0", "easy", lambda t: True, _shift_mail_ids, r"\$\.scenario\.task: already failed \(a mail the task does not ask for"),
]


@pytest.mark.parametrize("env_id,level,want,corrupt,match", MISSING_DATA)
def test_a_task_naming_missing_data_is_refused(env_id: str, level: str, want: Any, corrupt: Any, match: str) -> None:
    """Into a fresh env (so the scenario is checked in full, not trusted as the env's own)."""
    snap = _snapshot_where(env_id, level, want)
    bad = copy.deepcopy(snap)
    corrupt(bad)
    env = gym.make(env_id, level=level)
    env.reset(seed=12345)
    assert_set_state_refused(env, bad, match)
    env.unwrapped.set_state(snap)  # the snapshot as the env made it loads
    assert env.unwrapped.get_state() == snap and env.unwrapped.reference()
    env.close()


def test_a_snapshot_mended_in_place_loads_as_the_original() -> None:
    """The start-state check runs the family on a copy of the scenario: the families memoise by
    the scenario's identity, so judging the caller's dict, then the same dict mended, must not
    reuse what the corrupt one gave (the episode is exactly the original's)."""
    snap = _snapshot_where("GuiGym-Calendar-v0", "easy", _has("tasks", "delete"))
    src = gym.make("GuiGym-Calendar-v0", level="easy")
    src.reset(seed=12345)
    src.unwrapped.set_state(copy.deepcopy(snap))
    want = src.unwrapped.reference()
    env = gym.make("GuiGym-Calendar-v0", level="easy")
    env.reset(seed=54321)
    t = _first(snap, "tasks", "delete")
    good = t["ids"][0]
    t["ids"][0] = MISSING
    with pytest.raises(ValueError, match="1000000 is no event"):
        env.unwrapped.set_state(snap)
    t["ids"][0] = good
    env.unwrapped.set_state(snap)
    assert env.unwrapped.reference() == want
    for step in want:
        *_, term, _, info = env.step(step.action)
    assert term and info["success"]
    env.close()
    src.close()


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_generated_task_names_data_its_scenario_has(name: str) -> None:
    """What both checks rest on: no scenario a family generates names missing data, nor starts done
    or failed (so neither check refuses a snapshot of a real episode)."""
    family = FAMILIES[name]
    for level in family.levels:
        for seed in range(25):
            scenario = family.generate(np.random.default_rng(seed), level)
            assert family.task_problems(scenario) == [], (level, seed)
            done, failed, goal = family.assess(scenario, start_state(scenario))
            assert not done and not failed and goal is not None, (level, seed)
