"""Checking an env snapshot (``GuiEnv.get_state()``) before ``set_state`` loads it.

A snapshot may come from disk or from another process, so ``set_state`` must not trust it:
:func:`snapshot_problems` lists everything wrong with it (schema, family, a level or variation
no env makes, values a renderer cannot draw or an observation space cannot hold, a task that
names data the scenario lacks or is done or failed at its start) so that one
``ValueError`` reports them all and the env is left untouched. What only running the apps can
reveal (a screen an app cannot show) ``set_state`` finds by a dry run.
"""

from __future__ import annotations

from typing import Any, cast

from guigym.apps.base import APP_KINDS, HOME, MAX_FIELD_LEN, copy_state, home_pages, printable, start_state
from guigym.apps.family import Family
from guigym.apps.schema import Scenario
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


#: The theme's colours (``guigym.apps.family.THEMES``); any other list in a theme must be a colour too.
THEME_COLOURS = frozenset({"primary", "on_primary", "bg", "surface", "text", "muted", "error"})


def _is_colour(v: Any) -> bool:
    """Whether ``v`` is an ``[r, g, b]`` list of ints 0..255 (what both renderers can draw)."""
    return isinstance(v, list) and len(v) == 3 and all(type(c) is int and 0 <= c <= 255 for c in v)


def _scenario_semantic_problems(scenario: dict[str, Any]) -> list[str]:
    """What in a scenario fits the schema but no app could show."""
    out: list[str] = []
    _bad_strings(scenario, "$.scenario", out)
    apps = scenario["apps"]
    if len(scenario["task"]["instruction"]) > MAX_INSTRUCTION:
        out.append(f"$.scenario.task.instruction: longer than {MAX_INSTRUCTION} characters")
    # colours are drawn only on the screens that use them, so the dry run alone misses most
    out += [f"$.scenario.theme[{_short(k)}]: {_short(v)} is not a colour [r, g, b] (0..255)" for k, v in scenario["theme"].items()
            if (k in THEME_COLOURS or isinstance(v, list)) and not _is_colour(v)]
    # a scale draws without error at any size, but only the axis's own values are instances
    # (0 or less draws no text; 1000 takes seconds a frame)
    scale, scales = scenario["theme"].get("font_scale", 1.0), sorted({1.0, *(v for vs in AXES["font_scale"].values() for v in vs)})
    if type(scale) not in (int, float) or scale not in scales:
        out.append(f"$.scenario.theme.font_scale: {_short(scale)} is not one of the font_scale axis's values {scales}")
    for name, spec in apps.items():
        if spec["root"] not in spec["screens"]:
            out.append(f"$.scenario.apps[{_short(name)}].root: no screen {_short(spec['root'])}")
        if "color" in spec and not _is_colour(spec["color"]):
            out.append(f"$.scenario.apps[{_short(name)}].color: {_short(spec['color'])} is not a colour [r, g, b] (0..255)")
        for sid, scr in spec["screens"].items():
            for i, r in enumerate(scr["rows"]):
                if len(r["id"]) > MAX_ID or len(r["label"]) > MAX_LABEL:
                    out.append(f"$.scenario.apps[{_short(name)}].screens[{_short(sid)}].rows[{i}]: id over {MAX_ID} "
                               f"or label over {MAX_LABEL} characters")
                if "to" in r and r["to"] not in spec["screens"]:
                    out.append(f"$.scenario.apps[{_short(name)}].screens[{_short(sid)}].rows[{i}].to: no screen {_short(r['to'])}")
    out += [f"$.scenario.home.icons: no app {_short(n)}" for n in scenario["home"]["icons"] if n not in apps]
    looks = scenario["home"].get("looks")
    if looks:  # the ``icons`` variation: every icon drawn with [colour app, glyph app], both on the device
        out += [f"$.scenario.home.looks[{_short(n)}]: expected [colour app, glyph app] of this device's apps, got "
                f"{_short(looks.get(n))}" for n in scenario["home"]["icons"]
                if not (isinstance(looks.get(n), list) and len(looks[n]) == 2 and all(a in apps for a in looks[n]))]
    return out


def _shape_problems(value: Any, ref: Any, where: str, out: list[str], record: bool | None = False) -> None:
    """Where ``value`` does not have the JSON shape of ``ref`` (what an app's ``initial_state``
    makes): the same types (``None`` in ``ref``: any), a list's items each shaped like ``ref``'s
    first, a record's (``record=True``: a dict in a list) keys exactly ``ref``'s, and with
    ``record=None`` (an app's ``data``, which never loses a key) every key of ``ref`` present;
    otherwise (``values``, which lose keys as rows go) only the keys both have are compared."""
    if ref is None or len(out) >= 20:
        return
    if isinstance(ref, bool):
        ok = isinstance(value, bool)
    elif isinstance(ref, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif isinstance(ref, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif isinstance(ref, (str, list, dict)):
        ok = isinstance(value, type(ref))
    else:
        ok = True
    if not ok:
        out.append(f"{where}: expected a {type(ref).__name__}, got {_short(value)}")
    elif isinstance(ref, list) and ref:
        for i, v in enumerate(value):
            _shape_problems(v, ref[0], f"{where}[{i}]", out, record=True)
    elif isinstance(ref, dict):
        if record and set(value) != set(ref):
            out.append(f"{where}: keys {sorted(map(str, value))} differ from {sorted(ref)}")
            return
        for k, r in ref.items():
            if k in value:
                _shape_problems(value[k], r, f"{where}[{_short(k)}]", out)
            elif record is None:
                out.append(f"{where}: missing key {_short(k)}")


def _stack_problems(app: Any, spec: dict[str, Any], stack: list[str], where: str) -> list[str]:
    """A stack the app cannot have made: the app's first screen at the bottom, and each screen
    with a parent (``App.parent``: a record's screen, a sub-screen) right above that parent
    (Back and the apps' "close up to" steps look for it there). Screens without one (forms,
    dialogs, menus) may sit on any screen."""
    if stack[0] != spec["root"]:
        return [f"{where}[0]: {_short(stack[0])} is not the app's first screen {_short(spec['root'])}"]
    out = []
    for i in range(1, len(stack)):
        try:
            up = app.parent(spec, stack[i])
        except Exception as e:  # noqa: BLE001 - a screen id the app cannot parse
            out.append(f"{where}[{i}]: {_short(stack[i])} is no screen of the app ({type(e).__name__})")
            continue
        if up is not None and up != stack[i - 1]:
            out.append(f"{where}[{i}]: {_short(stack[i])} opens from {_short(up)}, not from {_short(stack[i - 1])}")
    return out


def _app_state_problems(scenario: dict[str, Any], state: dict[str, Any]) -> list[str]:
    """Each app's ``data`` and ``values`` against the shape its app kind starts with (records of
    the right fields and types), then the app's own :meth:`~guigym.apps.base.App.state_problems`:
    data no screen of the current one reads may be read after a few steps, which a dry run
    cannot find."""
    out: list[str] = []
    for name, spec in scenario["apps"].items():
        where = f"$.state.apps[{_short(name)}]"
        app = APP_KINDS.get(spec["kind"])
        if app is None:
            out.append(f"$.scenario.apps[{_short(name)}].kind: no app kind {_short(spec['kind'])}")
            continue
        try:
            ref = app.initial_state(spec)
        except Exception as e:  # noqa: BLE001 - a scenario the schema admits but the app cannot start from
            out.append(f"$.scenario.apps[{_short(name)}]: the app cannot start from it ({type(e).__name__}: {str(e)[:80]})")
            continue
        found: list[str] = []
        _shape_problems(state["apps"][name]["data"], ref["data"], f"{where}.data", found, record=None)
        _shape_problems(state["apps"][name]["values"], ref["values"], f"{where}.values", found)
        if not found:
            found = _stack_problems(app, spec, state["apps"][name]["stack"], f"{where}.stack")
        if not found:
            try:
                found = [f"{where}: {p}" for p in app.state_problems(spec, state["apps"][name])]
            except Exception as e:  # noqa: BLE001 - records of a list that starts empty have no shape to check against
                found = [f"{where}: its records do not have the app's fields ({type(e).__name__}: {str(e)[:80]})"]
        out += found
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


def _task_problems(scenario: dict[str, Any], family: Family) -> list[str]:
    """A task that names data the scenario lacks (:meth:`~guigym.apps.family.Family.task_problems`),
    then, as a backstop, one the family cannot judge at the scenario's start, or judges done or
    failed there (no scenario a family generates starts so: a delete of a record the scenario
    lacks loaded as already done, a question about one raised on the first step)."""
    sc = cast(Scenario, copy_state(scenario))  # the families memoise by the scenario's identity: not the caller's dict
    try:
        found = family.task_problems(sc)
    except Exception as e:  # noqa: BLE001 - a check that trips on what it checks is a problem too
        found = [f"$.task: the family cannot read it ({type(e).__name__}: {str(e)[:80]})"]
    if not found:
        try:
            start = start_state(sc)
            done, failed, goal = family.assess(sc, start)
        except Exception as e:  # noqa: BLE001
            found = [f"$.task: the family cannot judge it at the scenario's start ({type(e).__name__}: {str(e)[:80]})"]
        else:
            if done or failed or goal is None:
                why = family.failed(sc, start) if failed else True
                what = ("already done" if done else "left with nothing to do but not done" if not failed
                        else "already failed" + (f" ({why})" if isinstance(why, str) else ""))
                found = [f"$.task: {what} at the scenario's start (does it name data the scenario lacks?)"]
    return [p.replace("$", "$.scenario", 1) for p in found]


def _semantic_problems(scenario: dict[str, Any], state: dict[str, Any], trusted: bool, family: Family) -> list[str]:
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
    if not out:
        out += _app_state_problems(scenario, state)
    if not out and not trusted:
        out += _task_problems(scenario, family)
    return out


def snapshot_problems(snapshot: Any, family: Family, version: int, history_len: int, trusted: Any = None,
                      state_known: bool = False) -> list[str]:
    """Everything wrong with ``snapshot`` as a ``get_state()`` snapshot of an env of ``family``
    (``[]``: it can be loaded). Only the last ``history_len`` lines of ``history`` are read
    (``set_state`` keeps those, cut to the history's line length, as ``step`` would).
    A snapshot whose scenario equals ``trusted`` (the env's own, already checked) has only its
    state checked against it: the common case, a snapshot of the env's own episode. With
    ``state_known`` as well (the caller has seen this very state valid in that scenario: the
    env's own, or one it checked before), the state is not checked again either.

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
    if known and state_known:
        return out
    if "state" in snapshot:
        out += [p.replace("$", "$.state", 1) for p in state_problems(state)]
    if out:
        return out
    return _semantic_problems(scenario, state, known, family)  # type: ignore[arg-type]
