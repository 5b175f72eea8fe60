"""Checking an env snapshot (``GuiEnv.get_state()``) before ``set_state`` loads it.

A snapshot may come from disk or from another process, so ``set_state`` must not trust it:
:func:`snapshot_problems` lists everything wrong with it (schema, family, a level or variation
no env makes, values a renderer cannot draw or an observation space cannot hold) so that one
``ValueError`` reports them all and the env is left untouched. What only running the apps can
reveal (a screen an app cannot show) ``set_state`` finds by a dry run.
"""

from __future__ import annotations

from typing import Any

from guigym.apps.base import HOME, MAX_FIELD_LEN, home_pages, printable
from guigym.apps.family import Family
from guigym.apps.validate import scenario_problems, state_problems
from guigym.variation import AXES, NO_VALUE, axis_value

#: Longest instruction, widget id and label: the observation space's ``UnicodeText`` sizes.
MAX_INSTRUCTION, MAX_ID, MAX_LABEL = 1024, 128, 256
_KEYS = frozenset({"version", "scenario", "state", "history", "initial_len"})


def _short(v: Any) -> str:
    r = repr(v) if not isinstance(v, int) or abs(v) < 10**40 else f"<{v.bit_length()}-bit int>"
    return r if len(r) <= 60 else r[:60] + "…"


def _bad_strings(value: Any, where: str, out: list[str]) -> None:
    """Report strings (keys too) that are not :func:`printable`: NUL, lone surrogates."""
    if isinstance(value, str):
        if printable(value) != value:
            out.append(f"{where}: text with a NUL or a lone surrogate: {_short(value)}")
    elif isinstance(value, dict):
        for k, v in value.items():
            _bad_strings(k, f"{where} (key)", out)
            _bad_strings(v, f"{where}[{_short(k)}]", out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _bad_strings(v, f"{where}[{i}]", out)


def _scenario_semantic_problems(scenario: dict[str, Any]) -> list[str]:
    """What in a scenario fits the schema but no app could show."""
    out: list[str] = []
    _bad_strings(scenario, "$.scenario", out)
    apps = scenario["apps"]
    if len(scenario["task"]["instruction"]) > MAX_INSTRUCTION:
        out.append(f"$.scenario.task.instruction: longer than {MAX_INSTRUCTION} characters")
    for name, spec in apps.items():
        if spec["root"] not in spec["screens"]:
            out.append(f"$.scenario.apps[{_short(name)}].root: no screen {_short(spec['root'])}")
        for sid, scr in spec["screens"].items():
            for i, r in enumerate(scr["rows"]):
                if len(r["id"]) > MAX_ID or len(r["label"]) > MAX_LABEL:
                    out.append(f"$.scenario.apps[{_short(name)}].screens[{_short(sid)}].rows[{i}]: id over {MAX_ID} "
                               f"or label over {MAX_LABEL} characters")
    out += [f"$.scenario.home.icons: no app {_short(n)}" for n in scenario["home"]["icons"] if n not in apps]
    return out


def _level_variation_problems(scenario: dict[str, Any], family: Family) -> list[str]:
    """A level the family lacks, or a variation axis or value :mod:`guigym.variation` does not
    know (either split's, or the neutral one): ``info`` would report what no env can make."""
    out: list[str] = []
    level = scenario.get("level")
    if isinstance(level, str) and level not in family.levels:  # not a str: the schema check says so
        out.append(f"$.scenario.level: {_short(level)} is not a level of {family.name} {family.levels}")
    var = scenario.get("variation")
    if isinstance(var, dict):
        for axis, v in var.items():
            if axis not in AXES:
                out.append(f"$.scenario.variation: unknown axis {_short(axis)}")
            elif axis_value(axis, v) is NO_VALUE:
                out.append(f"$.scenario.variation[{axis!r}]: {_short(v)} is not a value of the axis "
                           f"(train {AXES[axis]['train']}, test {AXES[axis]['test']})")
    return out


def _semantic_problems(scenario: dict[str, Any], state: dict[str, Any], trusted: bool) -> list[str]:
    """What fits the schema but no app could show (both already fit their schemas; a
    ``trusted`` scenario is not checked again)."""
    out = [] if trusted else _scenario_semantic_problems(scenario)
    _bad_strings(state, "$.state", out)
    apps = scenario["apps"]
    if state["fg"] != HOME and state["fg"] not in apps:
        out.append(f"$.state.fg: no app {_short(state['fg'])}")
    if set(state["apps"]) != set(apps):
        out.append(f"$.state.apps: apps {sorted(state['apps'])} differ from the scenario's {sorted(apps)}")
    if not out and not 0 <= state["page"] < home_pages(scenario):  # type: ignore[arg-type]
        out.append(f"$.state.page: {_short(state['page'])} is not a home page (0..{home_pages(scenario) - 1})")  # type: ignore[arg-type]
    for name, app in state["apps"].items():
        where = f"$.state.apps[{_short(name)}]"
        if not app["stack"]:
            out.append(f"{where}.stack: empty")
        out += [f"{where}.scroll[{_short(k)}]: {_short(v)} is negative or too large" for k, v in app["scroll"].items()
                if not 0 <= v < 2**31]
        out += [f"{where}.values[{_short(k)}]: text over {MAX_FIELD_LEN} characters" for k, v in app["values"].items()
                if isinstance(v, str) and len(v) > MAX_FIELD_LEN]
    return out


def snapshot_problems(snapshot: Any, family: Family, version: int, history_len: int, trusted: Any = None) -> list[str]:
    """Everything wrong with ``snapshot`` as a ``get_state()`` snapshot of an env of ``family``
    (``[]``: it can be loaded). Only the last ``history_len`` lines of ``history`` are read
    (``set_state`` keeps those, cut to the history's line length, as ``step`` would).
    A snapshot whose scenario equals ``trusted`` (the env's own, already checked) has only its
    state checked against it: the common case, a snapshot of the env's own episode.

    >>> from guigym.apps import FAMILIES
    >>> snapshot_problems({"version": 1, "scenario": {}, "state": {}, "initial_len": 0}, FAMILIES["Login"], 1, 8)[:2]
    ["$.scenario.family: None is not this env's family 'Login'", '$.initial_len: expected an int >= 1, got 0']
    """
    if not isinstance(snapshot, dict):
        return [f"$: expected a dict from get_state(), got {type(snapshot).__name__}"]
    out: list[str] = []
    if snapshot.get("version") != version:
        out.append(f"$.version: expected {version}, got {_short(snapshot.get('version'))}")
    out += [f"$: missing key {k!r}" for k in ("scenario", "state") if k not in snapshot]
    out += [f"$: unknown key {_short(k)}" for k in snapshot if k not in _KEYS]
    scenario, state = snapshot.get("scenario"), snapshot.get("state")
    if isinstance(scenario, dict) and scenario.get("family") != family.name:
        out.append(f"$.scenario.family: {_short(scenario.get('family'))} is not this env's family {family.name!r}")
    n = snapshot.get("initial_len", 1)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n < 2**31:
        out.append(f"$.initial_len: expected an int >= 1, got {_short(n)}")
    history = snapshot.get("history", [])
    if not isinstance(history, list) or not all(isinstance(h, str) for h in history[-history_len:]):
        out.append("$.history: expected a list of str")
    known = trusted is not None and isinstance(scenario, dict) and scenario == trusted
    if not isinstance(scenario, dict):
        out.append(f"$.scenario: expected a dict, got {type(scenario).__name__}")
    elif not known:
        out += [p.replace("$", "$.scenario", 1) for p in scenario_problems(scenario, family.task_type)]
        out += _level_variation_problems(scenario, family)
    if "state" in snapshot:
        out += [p.replace("$", "$.state", 1) for p in state_problems(state)]
    if out:
        return out
    return _semantic_problems(scenario, state, known)  # type: ignore[arg-type]
