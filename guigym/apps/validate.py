"""Check plain JSON against the schema's ``TypedDict`` s (``guigym.apps.schema``).

TypedDicts are not checked at run time; :func:`problems` does it for tests and for family
authors: a misspelt key, a missing one or a value of the wrong type is reported with its
path, so a scenario cannot drift from the documented schema unnoticed.
"""

from __future__ import annotations

import functools
import types
from typing import Any, Union, get_args, get_origin, get_type_hints, is_typeddict

from guigym.apps.schema import DeviceState, Scenario


@functools.cache
def _hints(tp: Any) -> dict[str, Any]:
    """``get_type_hints`` of a TypedDict, once per class (it re-evaluates every annotation on
    each call: most of the time of a ``set_state`` before it was cached)."""
    return get_type_hints(tp)


def problems(value: Any, tp: Any, where: str = "$") -> list[str]:
    """What in ``value`` does not fit the type ``tp`` (``[]``: it fits).

    >>> from guigym.apps.schema import RowSpec
    >>> problems({"id": "ok", "kind": "button", "label": "OK", "actoin": "save"}, RowSpec)
    ["$: unknown key 'actoin' (RowSpec)"]
    >>> problems({"id": "ok", "kind": "button"}, RowSpec)
    ["$: missing key 'label' (RowSpec)"]
    """
    if tp is Any:
        return []
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, types.UnionType):
        tries = [problems(value, t, where) for t in args]
        return [] if any(not t for t in tries) else min(tries, key=len)  # the closest alternative's
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: expected a dict ({tp.__name__}), got {type(value).__name__}"]
        hints = _hints(tp)
        out = [f"{where}: missing key {k!r} ({tp.__name__})" for k in sorted(tp.__required_keys__ - value.keys())]
        out += [f"{where}: unknown key {k!r} ({tp.__name__})" for k in value if k not in hints]
        for k, v in value.items():
            if k in hints:
                out += problems(v, hints[k], f"{where}.{k}")
        return out
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: expected a list, got {type(value).__name__}"]
        return [p for i, v in enumerate(value) for p in problems(v, args[0], f"{where}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: expected a dict, got {type(value).__name__}"]
        bad = [f"{where}: key {k!r} is not a str" for k in value if not isinstance(k, str)]
        return bad + [p for k, v in value.items() for p in problems(v, args[1], f"{where}[{k!r}]")]
    if tp is None or tp is type(None):
        return [] if value is None else [f"{where}: expected None, got {value!r}"]
    if tp is int:  # a bool is an int to isinstance, never to the schema
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, tp)
    return [] if ok else [f"{where}: expected {tp.__name__}, got {type(value).__name__} {value!r:.40}"]


def scenario_problems(scenario: Any, task_type: Any) -> list[str]:
    """:func:`problems` of a scenario whose ``task`` is of the family's ``task_type``."""
    out = problems({**scenario, "task": {}}, Scenario)
    out = [p for p in out if not p.startswith("$.task")]  # checked against the family's own type below
    return out + problems(scenario.get("task") if isinstance(scenario, dict) else None, task_type, "$.task")


def state_problems(state: Any) -> list[str]:
    """:func:`problems` of a device state."""
    return problems(state, DeviceState)
