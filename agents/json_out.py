"""Result files as strict JSON: a metric with nothing to average is ``null``, not ``NaN``.

Python's ``json`` writes a float NaN as the bare token ``NaN``, which is not JSON: ``jq``,
JavaScript's ``JSON.parse``, pandas' strict readers and most other languages reject the whole
file. The summaries of :mod:`agents.plan_act` use NaN for "undefined" (the mean steps of the
successful episodes when none succeeded; a consistency with no re-plan to compare), so every
result file the training scripts and the benchmarks write goes through :func:`to_json`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any


def finite_or_none(obj: Any) -> Any:
    """``obj`` with every NaN or infinite float, at any depth of dicts, lists and tuples,
    replaced by ``None`` (tuples become lists, as JSON has no tuples).

    >>> finite_or_none({"a": float("nan"), "b": [1.0, float("inf")], "c": (2, "x")})
    {'a': None, 'b': [1.0, None], 'c': [2, 'x']}
    """
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite_or_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_or_none(v) for v in obj]
    return obj


def to_json(obj: Any, indent: int | None = 2, default: Callable[[Any], Any] | None = None) -> str:
    """``json.dumps(obj)`` as strict JSON: non-finite floats written as ``null``
    (:func:`finite_or_none`); anything else JSON cannot hold goes to ``default``, as with
    ``json.dumps`` (none: ``TypeError``).

    >>> to_json({"success_rate": 0.0, "mean_steps_success": float("nan")}, indent=None)
    '{"success_rate": 0.0, "mean_steps_success": null}'
    """
    # what ``default`` makes goes through finite_or_none too: ``default=float`` turned a numpy
    # float32 NaN (no float subclass, so not replaced above) into a float NaN, and allow_nan raised
    conv = None if default is None else (lambda o: finite_or_none(default(o)))
    return json.dumps(finite_or_none(obj), indent=indent, allow_nan=False, default=conv)
