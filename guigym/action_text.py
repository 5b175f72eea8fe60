"""Text formats of actions: what a model writes and what the rewards read.

The formats, each shown for ``Click(12, 30)``:

* ``"json"`` (UI-R1): ``<answer>[{"action": "click", "coordinate": [12, 30]}]</answer>``
* ``"function"``: ``click(x=12, y=30)``
* ``"mobile_use"`` (Qwen2.5-VL tool call):
  ``<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [12, 30]}}\n</tool_call>``

See the docstrings of :func:`format_action` and :func:`parse_action` for every action. Every
format is a vocabulary over the canonical action dict (:func:`guigym.actions.action_to_dict`):
parsing maps a step onto that dict, formatting starts from it.

Hostile text is bounded: parsers read answers of at most :data:`MAX_TEXT_CHARS` characters, yield at most
:data:`MAX_STEPS` steps, scan linearly and raise only :class:`ActionParseError`. Text that does not
parse as a whole is read as the rewards read it: the first ``<answer>…</answer>`` after the first
``</think>`` (so ``env.step(text)`` takes the action the rewards score).

>>> parse_action(format_action(Scroll("down", 5, 6), "function"))
Scroll(direction='down', x=5, y=6)
"""

from __future__ import annotations

import ast
import json
import math
import numbers
import operator
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from guigym.actions import (
    ACTION_CLASSES,
    ACTION_TYPES,
    DIRECTIONS,
    DONE,
    MAX_COORD,
    Action,
    Back,
    PlanStep,
    Scroll,
    action_from_dict,
    action_to_dict,
    checked_action,
)

__all__ = [
    "FORMATS",
    "MAX_COORD",
    "MAX_STEPS",
    "MAX_TEXT_CHARS",
    "SWIPE_CENTRE",
    "SWIPE_LENGTH",
    "ActionParseError",
    "format_action",
    "format_plan",
    "format_trajectory",
    "parse_action",
    "parse_plan",
    "parse_trajectory",
]


FORMATS: tuple[str, ...] = ("json", "function", "mobile_use")

#: Where a mobile-use swipe starts when a ``Scroll`` has no point (the screen's centre).
SWIPE_CENTRE: tuple[int, int] = (180, 320)
#: Length in pixels of the swipe a ``Scroll`` is written as in the mobile-use format.
SWIPE_LENGTH: int = 300

#: Longest answer the parsers read, after a leading ``<think>…</think>`` block (which is only
#: skipped, by a linear scan, so any length is fine): a longer one is an :class:`ActionParseError`
#: (unless the ``<answer>…</answer>`` the rewards read in it, which must fit, parses).
#: The bound keeps every parse within milliseconds on hostile text; 128 JSON clicks fit in 6k.
MAX_TEXT_CHARS: int = 8_192
#: Most steps a trajectory or plan yields; later steps are dropped, as with ``max_len``.
MAX_STEPS: int = 128

_EXPECTED: dict[str, str] = {
    "json": 'expected a JSON list of actions like [{"action": "click", "coordinate": [x, y]}] '
    "inside <answer>…</answer>",
    "function": 'expected function calls like click(x=12, y=30), scroll(direction="down"), '
    'type(text="…"), open_app(name="…"), back() or answer(text="…"), one per line',
    "mobile_use": 'expected <tool_call>{"name": "mobile_use", "arguments": '
    '{"action": "click", "coordinate": [x, y]}}</tool_call> blocks',
}


class ActionParseError(ValueError):
    """Text that is not a valid action in the expected format; the message says what was
    expected and quotes (the start of) what was got."""


class _Invalid(Exception):
    """Internal: what is wrong with one step (wrapped into an ActionParseError)."""


class _Missing(_Invalid):
    """Internal: a required field is absent (a plan step may then be ungrounded)."""


# Action names of each vocabulary → canonical action type.
_JSON_NAMES: dict[str, str] = {
    "click": "click",
    "scroll": "scroll",
    "type": "type",
    "input_text": "type",
    "open_app": "open_app",
    "back": "back",
    "navigate_back": "back",
    "answer": "answer",
}
_MOBILE_NAMES: dict[str, str] = {
    "click": "click",
    "swipe": "scroll",
    "type": "type",
    "open": "open_app",
    "system_button": "back",
    "answer": "answer",
}
_MOBILE_OUT: dict[str, str] = {v: k for k, v in _MOBILE_NAMES.items()}
# Canonical argument → key of the json / mobile-use vocabulary, where they differ.
_JSON_KEYS: dict[str, str] = {"name": "app_name"}
_MOBILE_KEYS: dict[str, str] = {"name": "text"}
# Names of the plan terminator (plans only): "terminate" is Qwen2.5-VL's mobile-use name.
_DONE_NAMES: frozenset[str] = frozenset({"done", "end", "stop", "finish", "finished", "complete", "terminate"})
_UNSUPPORTED: frozenset[str] = frozenset(
    {"long_press", "wait", "terminate", "key", "navigate_home", "home", "swipe", "status"}
)
# Function format: parameters in positional order, and every accepted keyword.
_POSITIONAL: dict[str, tuple[str, ...]] = {
    "click": ("x", "y"),
    "scroll": ("direction", "x", "y"),
    "type": ("text",),
    "open_app": ("name",),
    "back": (),
    "answer": ("text",),
}
_KEYWORDS: dict[str, frozenset[str]] = {
    "click": frozenset({"x", "y", "coordinate", "instruction"}),
    "scroll": frozenset({"direction", "x", "y", "coordinate", "instruction"}),
    "type": frozenset({"text", "instruction"}),
    "open_app": frozenset({"name", "app_name", "app", "instruction"}),
    "back": frozenset({"instruction"}),
    "answer": frozenset({"text", "instruction"}),
}

#: Invisible characters that ``str.strip`` keeps: a byte-order mark (U+FEFF, zero-width no-break
#: space), a zero-width space, a word joiner. At the edges of an answer they are blank, as whitespace is.
_ZERO_WIDTH = "\ufeff\u200b\u2060"
_BLANK_RE = re.compile(f"[\\s{_ZERO_WIDTH}]*")
_THINK_RE = re.compile(f"[\\s{_ZERO_WIDTH}]*<think>.*?</think>", re.DOTALL)
_FENCE_LANG = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+-")
_WS_RE = re.compile(r"\s*")
#: Python's line breaks: how ``ast`` numbers lines.
_LINE_BREAK_RE = re.compile(r"\r\n?|\n")
_MOBILE_RE = re.compile(r"""[\[\s]*\{\s*["'](?:name|arguments)["']""")
_PARSE_ERRORS = (SyntaxError, ValueError, TypeError, RecursionError, MemoryError, OverflowError)


# ----------------------------------------------------------------------------- helpers


def _snippet(text: str, limit: int = 120) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _strip(text: str) -> str:
    """``text.strip()``, the :data:`_ZERO_WIDTH` characters stripped too (a leading BOM made every
    format's parse fail). Linear: one match from each end."""
    s = text.strip()
    if not s or (s[0] not in _ZERO_WIDTH and s[-1] not in _ZERO_WIDTH):
        return s
    i = _BLANK_RE.match(s).end()  # type: ignore[union-attr]
    if i == len(s):
        return ""
    return s[i : len(s) - _BLANK_RE.match(s[::-1]).end()]  # type: ignore[union-attr]


def _strip_think(text: str) -> str:
    """Drop surrounding whitespace and a leading ``<think>…</think>`` block."""
    m = _THINK_RE.match(text)
    return _strip(text[m.end() :] if m else text)


def _strip_fence(text: str) -> str:
    """The content of a markdown fence (```lang … ```) spanning all of ``text``, else ``text``.
    A linear scan: the former regex backtracked cubically on "```" followed by spaces."""
    if not text.startswith("```"):
        return text
    i, n = 3, len(text)
    while i < n and text[i] in _FENCE_LANG:  # the language tag
        i += 1
    while i < n and text[i] in " \t":
        i += 1
    if i < n and text[i] == "\n":
        i += 1
    body = _strip(text)  # (text starts with ```: only its end is stripped)
    if not body.endswith("```") or len(body) - 3 < i:
        return text
    return _strip(text[i : len(body) - 3])


def _unwrap(text: str) -> str:
    """The answer body: without a leading think block, ``<answer>`` tags or markdown fences."""
    s = _strip_fence(_strip_think(text))
    if s.startswith("<answer>"):
        s = s[len("<answer>") :]
        end = s.rfind("</answer>")
        s = _strip(s[:end] if end >= 0 else s)
    return _strip_fence(s)


def _unique_pairs(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """A JSON object's dict; a key given twice is an error: which value was meant is unknowable
    (``json`` keeps the last one silently, so ``{"action": "click", …, "action": "back"}`` was Back)."""
    out: dict[Any, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Invalid(f"duplicate key {_short(k)}")
        out[k] = v
    return out


def _load_literal(text: str) -> Any:
    """JSON, else a Python literal (single quotes, True/None) via ``ast.literal_eval``; in either,
    a dict key given twice is an :class:`_Invalid` (see :func:`_unique_pairs`)."""
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs)
    except (ValueError, RecursionError, MemoryError) as e:
        json_error = e
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text.lstrip(" \t"), mode="eval")
            for node in ast.walk(tree):
                if isinstance(node, ast.Dict):
                    keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                    if len(set(keys)) != len(keys):
                        raise _Invalid(f"duplicate key in {_source(node)}")
            return ast.literal_eval(tree)
    except _PARSE_ERRORS:
        pass
    raise _Invalid(f"not valid JSON ({json_error})")


def _short(v: Any, limit: int = 60) -> str:
    try:
        r = repr(v)
    except ValueError:  # an int over Python's 4,300-digit str limit
        r = f"<{type(v).__name__} too large to show>"
    return r if len(r) <= limit else r[:limit] + "…"


def _number(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _Invalid(f"{what} must be a number, got {_short(v)}")
    if isinstance(v, float):
        if not math.isfinite(v):
            raise _Invalid(f"{what} must be finite, got {_short(v)}")
        v = round(v)
    if not -MAX_COORD <= v <= MAX_COORD:
        raise _Invalid(f"{what} must be within ±{MAX_COORD}, got {_short(v)}")
    return int(v)


def _point(v: Any, key: str) -> tuple[int, int]:
    if not isinstance(v, (list, tuple)) or len(v) != 2:
        raise _Invalid(f"{key!r} must be [x, y], got {_short(v)}")
    return _number(v[0], f"{key} x"), _number(v[1], f"{key} y")


def _given(d: Mapping[str, Any], keys: Sequence[str], what: str) -> list[str]:
    """The keys of ``keys`` present in ``d``; aliases present with different values are an error
    (``{"app_name": "Clock", "name": "Mail"}``: taking either would act on a guess)."""
    present = [k for k in keys if k in d]
    for k in present[1:]:
        a, b = d[present[0]], d[k]
        if type(a) is not type(b) or a != b:
            raise _Invalid(f"{what}: {present[0]!r} and {k!r} disagree ({_short(a)} vs {_short(b)})")
    return present


def _string(d: Mapping[str, Any], keys: Sequence[str], action: str) -> str:
    for k in _given(d, keys, action)[:1]:
        v = d[k]
        if not isinstance(v, str):
            raise _Invalid(f"{action} {k!r} must be a string, got {_short(v)}")
        return v
    raise _Missing(f"{action} needs {keys[0]!r}")


def _optional_point(d: Mapping[str, Any], action: str) -> tuple[int, int] | None:
    """``"coordinate": [x, y]`` or ``"x"``/``"y"`` keys (both: they must agree); ``None`` if neither is there."""
    p = _point(d["coordinate"], "coordinate") if "coordinate" in d else None
    if "x" in d or "y" in d:
        if "x" not in d or "y" not in d:
            raise _Invalid(f"{action} needs both 'x' and 'y'")
        q = _number(d["x"], "x"), _number(d["y"], "y")
        if p is not None and p != q:
            raise _Invalid(f"{action}: 'coordinate' {list(p)} and 'x', 'y' {list(q)} disagree")
        p = q
    return p


def _direction(v: Any, action: str) -> str:
    if not isinstance(v, str) or v.strip().lower() not in DIRECTIONS:
        raise _Invalid(f"{action} 'direction' must be one of {list(DIRECTIONS)}, got {_short(v)}")
    return v.strip().lower()


def _swipe_direction(x0: int, y0: int, x1: int, y1: int) -> str:
    """Scroll direction of a finger swipe: swiping up reveals what is below ("down")."""
    dx, dy = x1 - x0, y1 - y0
    if dx == 0 and dy == 0:
        raise _Invalid("swipe has zero length: coordinate2 equals coordinate")
    if abs(dy) >= abs(dx):
        return "down" if dy < 0 else "up"
    return "right" if dx < 0 else "left"


# ------------------------------------------------------------------- dict → action


def _raw_names(d: Mapping[str, Any], names: Mapping[str, str]) -> list[Any]:
    """The action names under ``"action"``, ``"action_type"`` and ``"type"``; names of different
    actions are an error (``{"action": "click", "type": "back"}``)."""
    raw = [d[k] for k in ("action", "action_type", "type") if k in d]

    def canon(v: Any) -> Any:
        if not isinstance(v, str):
            return v
        n = v.strip().lower()
        return DONE if n in _DONE_NAMES else names.get(n, n)

    if any(type(v) is not type(raw[0]) or canon(v) != canon(raw[0]) for v in raw[1:]):
        raise _Invalid(f"the action names {', '.join(_short(v) for v in raw)} disagree")
    return raw


def _action_name(d: Mapping[str, Any], names: Mapping[str, str]) -> str:
    present = _raw_names(d, names)
    if not present:
        raise _Invalid(f"missing 'action' (one of {sorted(names)})")
    raw = present[0]
    if not isinstance(raw, str):
        raise _Invalid(f"'action' must be a string, got {_short(raw)}")
    name = raw.strip().lower()
    if name in names:
        return names[name]
    if name in _UNSUPPORTED:
        raise _Invalid(f"action {_short(raw)} is not supported; use one of {sorted(names)}")
    raise _Invalid(f"unknown action {_short(raw)}; expected one of {sorted(names)}")


def _action_from(d: Mapping[str, Any], kind: str, mobile: bool) -> Action:
    """Build the action of canonical type ``kind`` from the fields of ``d`` (validated here,
    then mapped onto the canonical dict that :func:`~guigym.actions.action_from_dict` reads)."""
    return action_from_dict(_canonical_fields(d, kind, mobile))


def _canonical_fields(d: Mapping[str, Any], kind: str, mobile: bool) -> dict[str, Any]:
    """The canonical dict (``action_to_dict`` form) of the step ``d`` of type ``kind``."""
    out: dict[str, Any] = {"type": kind}
    if kind == "click":
        p = _optional_point(d, "click")
        if p is None:
            raise _Missing("click needs 'coordinate': [x, y]")
        out["x"], out["y"] = p
    elif kind == "scroll":
        if mobile:
            if "coordinate" not in d or "coordinate2" not in d:
                raise _Missing("swipe needs 'coordinate' and 'coordinate2'")
            (x0, y0), (x1, y1) = _point(d["coordinate"], "coordinate"), _point(d["coordinate2"], "coordinate2")
            # a zero-length swipe may name its direction: how a Scroll on the edge of ±MAX_COORD is written
            in_place = (x0, y0) == (x1, y1) and "direction" in d
            direction = _direction(d["direction"], "swipe") if in_place else _swipe_direction(x0, y0, x1, y1)
            out.update(direction=direction, x=x0, y=y0)
            return out
        if "direction" not in d:
            raise _Missing("scroll needs 'direction'")
        out["direction"] = _direction(d["direction"], "scroll")
        p = _optional_point(d, "scroll")
        if p is not None:
            out["x"], out["y"] = p
    elif kind in ("type", "answer"):
        _no_point(d, kind)
        out["text"] = _string(d, ("text",), kind)
    elif kind == "open_app":
        _no_point(d, "open" if mobile else "open_app")
        keys = ("text", "app_name", "app", "name") if mobile else ("app_name", "app", "name")
        out["name"] = _string(d, keys, "open" if mobile else "open_app")
    elif mobile:  # back
        _no_point(d, "system_button")
        button = _string(d, ("button",), "system_button")
        if button.strip().lower() != "back":
            raise _Invalid(f"system_button {_short(button)} is not supported; only 'Back' is")
    elif kind == "back":
        _no_point(d, "back")
    return out


#: Keys that place a step on the screen. Other keys an action does not read ("thought") are
#: ignored, but a point on an action that takes none would be dropped unread: a model writing
#: ``{"action": "type", "coordinate": [x, y], "text": ...}`` means "type there", which ``type``
#: (the focused field) cannot do, and the function format rejects ``type(text=..., x=...)`` too.
_POINT_KEYS = ("coordinate", "coordinate2", "x", "y")


def _no_point(d: Mapping[str, Any], action: str) -> None:
    given = [k for k in _POINT_KEYS if k in d]
    if given:
        hint = " (it types into the focused field: click the field first)" if action == "type" else ""
        raise _Invalid(f"{action} takes no {', '.join(map(repr, given))}{hint}")


def _step_from(d: Any, names: Mapping[str, str], mobile: bool, plan: bool) -> PlanStep:
    if not isinstance(d, Mapping):
        raise _Invalid(f"expected an action object, got {type(d).__name__} {_short(d)}")
    raw_name = next(iter(_raw_names(d, names)), None)
    if isinstance(raw_name, str) and raw_name.strip().lower() in _DONE_NAMES:
        if not plan:
            raise _Invalid(f"{_short(raw_name)} ends a plan (parse_plan reads it); it is not an action")
        instruction = d.get("instruction", "")
        return PlanStep(action=None, instruction=instruction if isinstance(instruction, str) else "", action_type=DONE)
    kind = _action_name(d, names)
    instruction = d.get("instruction", "")
    if plan and not isinstance(instruction, str):
        raise _Invalid(f"'instruction' must be a string, got {_short(instruction)}")
    try:
        return PlanStep(action=_action_from(d, kind, mobile), instruction=instruction if plan else "")
    except _Missing as e:
        if not plan:
            raise
        if not instruction:
            raise _Invalid(f"{e}, or an 'instruction' for an ungrounded step") from None
        return PlanStep(action=None, instruction=instruction, action_type=kind)


# ------------------------------------------------------------ text → raw steps


def _raw_json(text: str) -> list[Any]:
    body = _unwrap(text)
    if not body:
        raise _Invalid("empty answer")
    value = _load_literal(body)
    if isinstance(value, Mapping):
        return [value]
    if not isinstance(value, list):
        raise _Invalid(f"expected a list of action objects, got {type(value).__name__}")
    return value


def _source(node: ast.expr) -> str:
    """The start of a node's source, for error messages (``ast.unparse`` itself raises on an
    int literal over Python's 4,300-digit str limit, and is quadratic on deep nesting)."""
    try:
        return repr(ast.unparse(node)[:60])
    except (ValueError, RecursionError, MemoryError):
        return f"a {type(node).__name__} expression"


def _call_to_dict(node: ast.expr) -> dict[str, Any]:
    """A literal-only call ``name(args…)`` → ``{"action": name, param: value…}``."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise _Invalid(f"expected a call like click(x=12, y=30), got {_source(node)}")
    name = node.func.id
    kind = _JSON_NAMES.get(name.lower())
    if kind is None and name.lower() in _DONE_NAMES:  # done() / finish(status="success") ends a plan
        out_done: dict[str, Any] = {"action": name}
        for kw in node.keywords:
            if kw.arg in ("status", "instruction"):
                try:
                    out_done[kw.arg] = ast.literal_eval(kw.value)
                except _PARSE_ERRORS:
                    raise _Invalid(f"{name}() argument {kw.arg} must be a literal") from None
        return out_done
    if kind is None:
        if name.lower() in _UNSUPPORTED:
            raise _Invalid(f"action {name!r} is not supported; use one of {sorted(_JSON_NAMES)}")
        raise _Invalid(f"unknown action {name!r}; expected one of {sorted(_JSON_NAMES)}")
    params = _POSITIONAL[kind]
    if len(node.args) > len(params):
        raise _Invalid(f"{name}() takes at most {len(params)} positional arguments, got {len(node.args)}")
    out: dict[str, Any] = {"action": name}

    def value(n: ast.expr, what: str) -> Any:
        if isinstance(n, ast.Starred):
            raise _Invalid(f"{name}(): *args are not allowed")
        try:
            return ast.literal_eval(n)
        except _PARSE_ERRORS:
            raise _Invalid(f"{name}() argument {what} must be a literal, got {_source(n)}") from None

    for p, n in zip(params, node.args):
        out[p] = value(n, p)
    for kw in node.keywords:
        if kw.arg is None:
            raise _Invalid(f"{name}(): **kwargs are not allowed")
        if kw.arg not in _KEYWORDS[kind]:
            raise _Invalid(f"{name}() got an unexpected keyword {kw.arg!r}; accepted: {sorted(_KEYWORDS[kind])}")
        if kw.arg in out:
            raise _Invalid(f"{name}() got multiple values for {kw.arg!r}")
        out[kw.arg] = value(kw.value, kw.arg)
    return out


def _string_lines(module: ast.Module) -> tuple[set[int], set[int]]:
    """The lines whose start, and those whose end, lie inside a string literal spanning lines."""
    heads: set[int] = set()
    tails: set[int] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))):
            end = node.end_lineno or node.lineno
            heads.update(range(node.lineno + 1, end + 1))
            tails.update(range(node.lineno, end))
    return heads, tails


def _parse_module(body: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(body, mode="exec")
        except IndentationError:
            pass
        # Indented calls ("  click(…)\n    back()"): strip each line, but never inside a string
        # spanning lines, whose whitespace is text (stripping every line turned
        # type(text="""  a\n  b""") on an indented line into Type("  a\nb")). Lines as ast
        # numbers them (\r\n, \r, \n), so the numbers of the stripped parse index `lines`.
        lines = _LINE_BREAK_RE.split(body)
        module = ast.parse("\n".join(line.strip() for line in lines), mode="exec")
        heads, tails = _string_lines(module)
        if not heads:
            return module
        kept = []
        for i, line in enumerate(lines, 1):
            kept.append(line if i in heads else line.lstrip())
            kept[-1] = kept[-1] if i in tails else kept[-1].rstrip()
        module = ast.parse("\n".join(kept), mode="exec")
        new_heads, new_tails = _string_lines(module)
        if not (new_heads <= heads and new_tails <= tails):  # a string that now spans a stripped edge
            raise SyntaxError("inconsistent indentation around a string spanning lines")
        return module


def _raw_function(text: str) -> list[ast.expr]:
    body = _unwrap(text)
    if not body:
        raise _Invalid("empty answer")
    try:
        module = _parse_module(body)
    except _PARSE_ERRORS as e:
        raise _Invalid(f"not a valid call ({type(e).__name__}: {getattr(e, 'msg', e)})") from None
    calls: list[ast.expr] = []
    for stmt in module.body:
        if not isinstance(stmt, ast.Expr):
            raise _Invalid(f"expected only calls, got a {type(stmt).__name__} statement")
        if isinstance(stmt.value, (ast.List, ast.Tuple)):
            calls.extend(stmt.value.elts)
        else:
            calls.append(stmt.value)
    return calls


def _tool_call_args(obj: Any) -> Any:
    if not isinstance(obj, Mapping):
        raise _Invalid(f"expected a tool call object, got {type(obj).__name__} {_short(obj)}")
    if "arguments" not in obj:
        if "action" in obj:  # bare arguments
            return obj
        raise _Invalid("tool call needs 'arguments'")
    if obj.get("name", "mobile_use") != "mobile_use":
        raise _Invalid(f"unknown tool {_short(obj.get('name'))}; expected 'mobile_use'")
    args = obj["arguments"]
    if isinstance(args, str):  # arguments given as a JSON string
        args = _load_literal(args)
    return args


def _raw_mobile(text: str) -> list[Any]:
    s = _strip_think(text)
    open_tag, close_tag = "<tool_call>", "</tool_call>"
    decoder = json.JSONDecoder(object_pairs_hook=_unique_pairs)
    blocks: list[Any] = []
    pos = 0
    while (i := s.find(open_tag, pos)) >= 0:
        j = i + len(open_tag)
        while j < len(s) and (s[j].isspace() or s[j] in _ZERO_WIDTH):
            j += 1
        try:
            obj, end = decoder.raw_decode(s, j)
        except (ValueError, RecursionError, MemoryError):
            k = s.find(close_tag, j)
            end = len(s) if k < 0 else k
            try:
                obj = _load_literal(_strip(s[j:end]))
            except (_Invalid, *_PARSE_ERRORS) as e:
                obj = _Unreadable(e)
        pos = _WS_RE.match(s, end).end()  # type: ignore[union-attr]  # (no slicing: linear in the number of blocks)
        if s.startswith(close_tag, pos):
            pos += len(close_tag)
        blocks.append(obj)
    if not blocks:
        body = _unwrap(s)
        if not body:
            raise _Invalid("empty answer")
        value = _load_literal(body)
        blocks = value if isinstance(value, list) else [value]
    return blocks


class _Unreadable:
    """A ``<tool_call>`` block that did not parse: an error only if its step is read (a block
    after ``max_len``, or after the first in :func:`parse_action`, is dropped unread, as a
    later item of a JSON list is)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def _mobile_step(block: Any, plan: bool) -> PlanStep:
    if isinstance(block, _Unreadable):
        raise block.error
    return _step_from(_tool_call_args(block), _MOBILE_NAMES, True, plan)


def _raw(text: str, fmt: str) -> tuple[list[Any], Callable[[Any, bool], PlanStep]]:
    """Split ``text`` into raw steps and return them with the step converter of ``fmt``."""
    if fmt == "json":
        return _raw_json(text), lambda d, plan: _step_from(d, _JSON_NAMES, False, plan)
    if fmt == "function":
        return _raw_function(text), lambda n, plan: _step_from(_call_to_dict(n), _JSON_NAMES, False, plan)
    return _raw_mobile(text), _mobile_step


def _whole(body: str) -> bool:
    """Whether ``body`` is, as a whole, a JSON list or object or a sequence of function calls."""
    try:
        if isinstance(json.loads(body), (list, dict)):
            return True
    except (ValueError, RecursionError, MemoryError):
        pass
    try:
        _raw_function(body)
    except (_Invalid, *_PARSE_ERRORS):
        return False
    return True


def _detect(text: str) -> str:
    """The format ``text`` most likely is in (parsing falls back to the others)."""
    s = _strip_think(text)
    body = _unwrap(s)
    # a "<tool_call>" inside a string of a JSON answer or of function calls (type(text="<tool_call>…"))
    # is text: read as a tool call, a quoted tool call in it was the action
    if "<tool_call>" in s and not s.startswith("<answer>") and (s.startswith("<tool_call>") or not _whole(body)):
        return "mobile_use"
    if _MOBILE_RE.match(body):
        return "mobile_use"
    if body.startswith("{") or re.match(r"\[\s*[\{\]]", body):
        return "json"
    return "function"


def _parse_steps(text: Any, fmt: str | None, max_len: int | None, plan: bool, first: bool) -> list[PlanStep]:
    if not isinstance(text, str):
        raise ActionParseError(f"expected a str to parse, got {type(text).__name__}")
    if fmt is not None and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS} or None")
    if max_len is not None:
        try:  # a float slice bound raised a TypeError inside the parse, reported as malformed *text*
            max_len = operator.index(max_len)
        except TypeError:
            raise ValueError(f"max_len must be an int >= 1 or None, got {_short(max_len)}") from None
        if max_len < 1:
            raise ValueError(f"max_len must be >= 1, got {max_len}")
    try:
        return _parse_text(text, fmt, max_len, plan, first)
    except ActionParseError as e:
        error = e
    region = text
    for _ in range(_REGION_DEPTH):  # what the rewards read (see answer_region)
        inner = answer_region(region, fmt)
        if inner is None or inner == region:
            break
        region = inner
        try:
            return _parse_text(region, fmt, max_len, plan, first)
        except ActionParseError:
            pass
    raise error


#: How often the parsers narrow a text that does not parse to its :func:`answer_region`. The rewards
#: narrow once and then call a parser, so the env reads what they read unless the answer they read
#: nests regions this deep (a ``</think>`` in it with tool calls after, thrice); bounded, as each
#: level is one more parse.
_REGION_DEPTH = 2


def answer_region(text: str, fmt: str | None) -> str | None:
    """The part of a completion that holds the predicted action(s), as the rewards read it:
    the content of the first ``<answer>…</answer>`` after the first ``</think>`` (or in the
    whole text, without one); failing that, in the ``mobile_use`` format or auto-detection,
    all that follows the ``</think>`` if a ``<tool_call>`` is in it (Qwen2.5-VL writes them
    without ``<answer>`` tags). ``None`` if there is none.

    The parsers fall back to it where ``text`` as a whole does not parse, so that the env reads
    what the rewards score: prose before the answer, a second answer block, a think block whose
    ``<think>`` the chat template wrote, or one longer than the answer bound with prose after
    it made step() a no-op while the rewards scored the action. Linear: ``str.find`` only (the
    lazy regex rescanned to the end from every ``<answer>``, quadratic on "<answer>" × 12,500).

    >>> answer_region('Sure. <answer>[{"action": "back"}]</answer>', "json")
    '[{"action": "back"}]'

    ``text`` that is not a ``str`` is a ``TypeError`` (an ``AttributeError`` from inside, before).
    """
    if not isinstance(text, str):
        raise TypeError(f"answer_region reads a model's text (a str), got {type(text).__name__}")
    end = text.find("</think>")
    rest = text if end < 0 else text[end + len("</think>") :]
    i = rest.find("<answer>")
    j = rest.find("</answer>", i + len("<answer>")) if i >= 0 else -1
    if j >= 0:
        return rest[i + len("<answer>") : j]
    return rest if fmt in ("mobile_use", None) and "<tool_call>" in rest else None


def _parse_text(text: str, fmt: str | None, max_len: int | None, plan: bool, first: bool) -> list[PlanStep]:
    """:func:`_parse_steps` of ``text`` as a whole."""
    n = len(_strip_think(text))  # a leading think block is skipped by a linear scan, not parsed: it does not count
    if n > MAX_TEXT_CHARS:
        raise ActionParseError(f"expected an answer of at most MAX_TEXT_CHARS={MAX_TEXT_CHARS} characters, got {n}: {_snippet(text)}")
    order = [fmt] if fmt is not None else [_detect(text)]
    if fmt is None:
        order += [f for f in FORMATS if f != order[0]]
    errors: list[ActionParseError] = []
    for f in order:
        try:
            raw, convert = _raw(text, f)
            if not raw:
                raise _Invalid("expected at least one action, got an empty list")
            raw = raw[:1] if first else raw[: min(max_len or MAX_STEPS, MAX_STEPS)]
            steps = []
            for i, item in enumerate(raw):
                try:
                    steps.append(convert(item, plan))
                except _Invalid as e:
                    raise _Invalid(f"step {i + 1}: {e}" if len(raw) > 1 else str(e)) from None
                if steps[-1].done:  # the plan ends here; what follows is not read
                    break
            return steps
        except (_Invalid, *_PARSE_ERRORS) as e:  # the contract: only ActionParseError leaves a parser
            detail = str(e) if isinstance(e, _Invalid) else f"malformed input ({type(e).__name__}: {str(e)[:80]})"
            errors.append(ActionParseError(f"{detail}: {_EXPECTED[f]}; got {_snippet(text)}"))
    raise errors[0]


# ------------------------------------------------------------------ public parsing


def parse_action(text: str, fmt: str | None = None) -> Action:
    """Parse one action from model output in format ``fmt`` (``None``: auto-detect).

    Lenient about wrapping: surrounding whitespace, a leading ``<think>…</think>``,
    ``<answer>`` tags, markdown fences; in the JSON formats Python-literal quoting
    (``'click'``, ``True``/``None``) too. A list or several calls: the first is taken.
    Text that does not parse as a whole is read as the rewards read it
    (:func:`answer_region`): the content of the first ``<answer>…</answer>``
    after the first ``</think>`` (prose before the answer, a second answer block, a think block
    whose ``<think>`` the chat template wrote), in mobile-use also the tool calls after that ``</think>``.
    Accepted aliases: ``input_text`` (type), ``navigate_back`` (back), ``"app"``/``"name"``
    for ``"app_name"``, ``"x"``/``"y"`` for ``"coordinate"``; float coordinates are rounded.
    Aliases given together must agree, and no key may be given twice (either would make one
    of the values written a silent guess).
    Raises :class:`ActionParseError` (never anything else) for any bad ``text``, including an
    answer (``text`` after a leading think block, and the answer region the rewards read
    within it, if any) over :data:`MAX_TEXT_CHARS` characters and
    coordinates beyond ``±``:data:`MAX_COORD`.
    Every parser is linear in the length of ``text``.
    """
    step = _parse_steps(text, fmt, None, plan=False, first=True)[0]
    assert step.action is not None
    return step.action


def parse_trajectory(text: str, fmt: str | None = None, max_len: int | None = None) -> list[Action]:
    """Parse a trajectory of one or more actions (a JSON list, calls one per line or in a
    list literal, or several ``<tool_call>`` blocks).

    With ``max_len``, only the first ``max_len`` actions are kept (and validated); the rest
    is dropped, not an error; at most :data:`MAX_STEPS` are ever kept. An empty trajectory
    is an :class:`ActionParseError`.
    """
    return [s.action for s in _parse_steps(text, fmt, max_len, plan=False, first=False)]  # type: ignore[misc]


def parse_plan(text: str, fmt: str | None = None, max_len: int | None = None) -> list[PlanStep]:
    """Parse a plan: like :func:`parse_trajectory`, but each step may carry an
    ``"instruction"`` (grounding sentence) and may omit the action's required fields, e.g.
    ``{"action": "click", "instruction": "Click 'Sign in'"}`` →
    ``PlanStep(action=None, action_type="click", instruction=...)``; such an ungrounded step
    must have a non-empty instruction. Grounded steps get ``action_type=None``.

    A plan may stop before ``max_len``: a ``done`` step (``{"action": "done"}``, ``done()``,
    mobile-use ``terminate``; also ``end``/``stop``/``finish``) becomes
    ``PlanStep(action_type=DONE)`` and ends the plan (later steps are dropped).

    >>> [s.kind for s in parse_plan('[{"action": "back"}, {"action": "done"}, {"action": "back"}]')]
    ['back', 'done']
    """
    return _parse_steps(text, fmt, max_len, plan=True, first=False)


# ---------------------------------------------------------------- public formatting


def _check_fmt(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")


def _plain(a: Action | None) -> Action | None:
    """``a`` with plain ints and strs where it is valid (:func:`~guigym.actions.checked_action`: a
    policy's numpy integers made ``json.dumps`` raise), else ``a`` as given (a caption of the
    invalid action an episode recorded is still written)."""
    if a is None:
        return None
    try:
        return checked_action(a)
    except ValueError:
        return a


def _arguments(a: Action) -> dict[str, Any]:
    """The action's arguments: its canonical dict without ``"type"``."""
    if not isinstance(a, ACTION_CLASSES):
        raise TypeError(f"not an action: {a!r}")
    d = action_to_dict(a)
    del d["type"]
    return d


#: The way a finger moves for each Scroll direction (against it).
_AGAINST: dict[str, tuple[int, int]] = {"down": (0, -1), "up": (0, 1), "right": (-1, 0), "left": (1, 0)}


def _swipe(a: Scroll) -> dict[str, Any]:
    """A Scroll as a mobile-use swipe: a finger moving against the direction. Its end stays within
    ±MAX_COORD, which the parsers check (shorter near the edge); on the edge itself, where the
    finger cannot move that way, the swipe has zero length and names its ``"direction"``."""
    x, y = (a.x, a.y) if a.x is not None and a.y is not None else SWIPE_CENTRE
    # an invalid Scroll is written as given (_plain), its numpy integers as Python ints: np.uint64's
    # x - 300 was an OverflowError; a bool stays a bool (written true/false, which the parsers
    # refuse, as the other formats write it: int(True) made the invalid Scroll a valid swipe)
    x, y = (int(v) if isinstance(v, numbers.Integral) and not isinstance(v, bool) else v for v in (x, y))
    dx, dy = _AGAINST.get(a.direction, (None, None)) if isinstance(a.direction, str) else (None, None)
    if dx is None or dy is None:  # a direction set past Scroll's check (object.__setattr__): a KeyError here
        raise ValueError(f"Scroll direction must be one of {DIRECTIONS}, got {_short(a.direction)}")
    if not all(isinstance(v, numbers.Real) for v in (x, y)):  # no swipe to compute (a str's x + 300: a TypeError)
        raise ValueError(f"a Scroll's point must be numbers to write it as a swipe, got {_short(x)}, {_short(y)}")
    end = [max(-MAX_COORD, min(MAX_COORD, v)) for v in (x + dx * SWIPE_LENGTH, y + dy * SWIPE_LENGTH)]
    d: dict[str, Any] = {"action": "swipe", "coordinate": [x, y], "coordinate2": end}
    if end == [x, y]:
        d["direction"] = a.direction
    return d


def _json_dict(a: Action | None, kind: str, instruction: str, mobile: bool) -> dict[str, Any]:
    """One step in the json (``mobile=False``) or mobile-use vocabulary: the canonical
    arguments with ``x``/``y`` packed into ``"coordinate"`` and the app name renamed."""
    d: dict[str, Any]
    if a is None and kind == DONE:
        d = {"action": "terminate", "status": "success"} if mobile else {"action": DONE}
    elif a is None:
        d = {"action": _MOBILE_OUT[kind] if mobile else kind}
    elif mobile and isinstance(a, Scroll):
        d = _swipe(a)
    else:
        args = _arguments(a)
        d = {"action": _MOBILE_OUT[a.type] if mobile else a.type}
        for key, value in args.items():
            if key == "x":
                d["coordinate"] = [value, args["y"]]
            elif key != "y":
                d[(_MOBILE_KEYS if mobile else _JSON_KEYS).get(key, key)] = value
        if mobile and isinstance(a, Back):
            d["button"] = "Back"
    if instruction:
        d["instruction"] = instruction
    return d


#: A lone surrogate: valid in a str, not in UTF-8
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (valid in a str, not in UTF-8: a model's JSON
    ``"\\ud83d"`` parses to one) written as its ``\\u`` escape, so that it encodes: for text
    that goes to a tokenizer or a file, such as a formatted action inside a prompt (inside a
    JSON string the escape means the same character).

    >>> escape_surrogates('{"text": "a\\ud83d😀"}')
    '{"text": "a\\\\ud83d😀"}'
    """
    return _SURROGATE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


#: The ``<`` of a tag the readers of a completion split it at (``<answer>``, ``</think>``, ...).
_TAG_OPEN_RE = re.compile(r"<(?=/?(?:think|answer|tool_call)>)")


def _dumps(v: Any) -> str:
    """``json.dumps(v)`` with the ``<`` of every think/answer/tool-call tag in a string written
    ``\\u003c`` (the same character in JSON and in a Python literal): typed text such as
    ``"</answer>"`` ended the answer early for the rewards (the first ``</answer>`` ends it), which
    scored the formatted action 0, and one such tag made the format reward 0."""
    return _TAG_OPEN_RE.sub(r"\\u003c", json.dumps(v, ensure_ascii=False))


def _literal(v: Any) -> str:
    """``v`` as a JSON literal (:func:`_dumps`), which is a Python literal too; a lone surrogate,
    which UTF-8 (the only source ``ast.parse`` reads) cannot hold, as a ``\\u`` escape:
    ``ensure_ascii`` would also split astral characters into pairs, which Python reads as two characters."""
    return escape_surrogates(_dumps(v))


def _call(a: Action | None, kind: str, instruction: str) -> str:
    """One step in the function format: the canonical arguments as keywords."""
    args = [] if a is None else list(_arguments(a).items())
    if instruction:
        args.append(("instruction", instruction))
    return f"{kind}(" + ", ".join(f"{k}={_literal(v)}" for k, v in args) + ")"


def _format_steps(steps: Sequence[tuple[Action | None, str, str]], fmt: str) -> str:
    """Format ``(action, kind, instruction)`` triples in ``fmt``."""
    _check_fmt(fmt)
    steps = [(_plain(a), k, i) for a, k, i in steps]
    if fmt == "function":
        return "\n".join(_call(a, k, i) for a, k, i in steps)
    if fmt == "json":
        items = [_json_dict(a, k, i, mobile=False) for a, k, i in steps]
        return f"<answer>{_dumps(items)}</answer>"
    return "\n".join(
        "<tool_call>\n"
        + _dumps({"name": "mobile_use", "arguments": _json_dict(a, k, i, mobile=True)})
        + "\n</tool_call>"
        for a, k, i in steps
    )


def format_action(action: Action, fmt: str = "json") -> str:
    """Write ``action`` in format ``fmt``; :func:`parse_action` reads it back exactly.

    ============  ==========================================================================
    ``json``      ``<answer>[{"action": "click", "coordinate": [12, 30]}]</answer>``;
                  ``{"action": "scroll", "direction": "down"}`` (+ ``"coordinate"``),
                  ``{"action": "type", "text": "…"}``, ``{"action": "open_app", "app_name": "…"}``,
                  ``{"action": "back"}``, ``{"action": "answer", "text": "…"}``
    ``function``  ``click(x=12, y=30)``, ``scroll(direction="down")`` (+ ``x=, y=``),
                  ``type(text="…")``, ``open_app(name="…")``, ``back()``, ``answer(text="…")``
    ``mobile_use``  ``<tool_call>\\n{"name": "mobile_use", "arguments": {…}}\\n</tool_call>`` with
                  ``click`` (coordinate), ``swipe`` (coordinate, coordinate2), ``type`` (text),
                  ``open`` (text), ``system_button`` (button "Back"), ``answer`` (text: Qwen2.5-VL's
                  own name; its ``terminate`` ends a plan)
    ============  ==========================================================================

    In ``mobile_use`` a ``Scroll`` is a swipe of :data:`SWIPE_LENGTH` pixels from its point
    against the direction (``Scroll("down", x, y)``: ``(x, y)`` → ``(x, y - 300)``); a Scroll
    without a point starts at :data:`SWIPE_CENTRE`, so it reads back as ``Scroll(d, 180, 320)``.
    The swipe ends within ``±``:data:`MAX_COORD` (shorter near it; on it, a zero-length swipe that
    names its ``"direction"``).
    """
    if not isinstance(action, ACTION_CLASSES):
        raise TypeError(f"not an action: {action!r}")
    return _format_steps([(action, action.type, "")], fmt)


def format_trajectory(actions: Iterable[Action], fmt: str = "json") -> str:
    """Write one or more actions in ``fmt`` (JSON list; one call per line; one
    ``<tool_call>`` block per action); :func:`parse_trajectory` reads it back."""
    items = list(actions)
    if not items:
        raise ValueError("a trajectory needs at least one action")
    for a in items:
        if not isinstance(a, ACTION_CLASSES):
            raise TypeError(f"not an action: {a!r}")
    return _format_steps([(a, a.type, "") for a in items], fmt)


def format_plan(steps: Iterable[PlanStep], fmt: str = "json") -> str:
    """Write plan steps in ``fmt``, each with its ``instruction`` if non-empty (an
    ``"instruction"`` field / keyword); an ungrounded step is its action name plus the
    instruction. :func:`parse_plan` reads it back (an ungrounded ``back`` step, having no
    fields to omit, reads back grounded as ``Back()`` in the json/function formats)."""
    items = list(steps)
    if not items:
        raise ValueError("a plan needs at least one step")
    triples: list[tuple[Action | None, str, str]] = []
    for s in items:
        if not isinstance(s, PlanStep):  # an AttributeError from inside, before
            raise TypeError(f"a plan step must be a PlanStep, got {type(s).__name__} {_short(s)}")
        if s.action is not None and not isinstance(s.action, ACTION_CLASSES):
            raise TypeError(f"a PlanStep's action must be an action or None, got {type(s.action).__name__} {_short(s.action)}")
        if s.action is not None:
            triples.append((s.action, s.action.type, s.instruction))
        elif s.done:
            triples.append((None, DONE, s.instruction))
        elif s.action_type not in ACTION_TYPES:
            raise ValueError(f"ungrounded step needs action_type in {ACTION_TYPES}, got {s.action_type!r}")
        elif not s.instruction:
            raise ValueError("an ungrounded plan step needs an instruction")
        else:
            triples.append((None, s.action_type, s.instruction))
    return _format_steps(triples, fmt)
