"""Hypothesis strategies for GUI actions, plans and model completions.

* :func:`actions` — ``Click``/``Scroll``/``Back``/``OpenApp``/``Type`` (points inside a
  viewport by default);
* :func:`plan_steps` / :func:`plans` — TraceR1 plan steps, grounded or ungrounded;
* :func:`model_texts` — completions a model could write, in every text format guigym parses
  (``json``, ``function``, ``mobile_use``), of three kinds: ``"valid"`` (parses back to the
  plan it was written from), ``"near_valid"`` (a valid text with one corruption) and
  ``"garbage"`` (arbitrary and hostile strings, at most :data:`MAX_TEXT` characters).

``to_text(steps, fmt)`` writes a plan as a complete completion (``<think>…</think>`` then the
answer) with :func:`guigym.actions.format_plan`, and :func:`parses` says whether any
guigym parser reads a text.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Sequence

from hypothesis import strategies as st

from guigym.action_text import FORMATS, format_plan, parse_plan, parse_trajectory
from guigym.actions import ACTION_TYPES, DIRECTIONS, Answer, Back, Click, OpenApp, PlanStep, Scroll, Type

__all__ = [
    "MAX_TEXT",
    "KINDS",
    "CORRUPTIONS",
    "DEFAULT_VIEWPORT",
    "actions",
    "plan_steps",
    "plans",
    "done_step",
    "model_texts",
    "to_text",
    "corrupt_text",
    "parses",
]

#: Longest text :func:`model_texts` produces (keeps property tests fast).
MAX_TEXT = 2000
#: The kinds of :func:`model_texts`.
KINDS = ("valid", "near_valid", "garbage")
#: The corruptions of ``kind="near_valid"`` (see :func:`corrupt_text`).
CORRUPTIONS = ("missing_close_tag", "wrong_key", "truncated", "unknown_action", "extra_prose")
#: (width, height) of guigym's screenshots by default.
DEFAULT_VIEWPORT = (360, 640)

# Printable text without the tag characters "<" and ">" (so a typed text or an instruction
# cannot close an <answer> block early: such texts are tested by the garbage kind instead).
_SAFE_CHARS = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="<>")
_INSTRUCTIONS = (
    "Click the 'Sign in' button",
    "Click the 'Username' field",
    "Turn on the 'Wi-Fi' switch",
    "Scroll down the list",
    "Open the Notes app",
    "Type the password",
    "Go back",
)
_APPS = ("Notes", "Clock", "Contacts", "Settings", "Calculator", "Books", "News")


def _app_names() -> Sequence[str]:
    try:  # the real catalogue when the apps package is importable
        from guigym.apps.catalog import APP_NAMES

        return tuple(APP_NAMES)
    except Exception:  # noqa: BLE001 - fall back to a fixed list
        return _APPS


def _coords(viewport: Optional[tuple[int, int]]) -> tuple[st.SearchStrategy[int], st.SearchStrategy[int]]:
    if viewport is None:
        big = st.integers(-10_000, 10_000)
        return big, big
    w, h = viewport
    return st.integers(0, w - 1), st.integers(0, h - 1)


def actions(
    viewport: Optional[tuple[int, int]] = DEFAULT_VIEWPORT,
    types: Sequence[str] = ACTION_TYPES,
    max_text: int = 30,
) -> st.SearchStrategy[Any]:
    """Any guigym action of the given ``types``.

    Click and Scroll points lie inside ``viewport`` (``(width, height)``; ``None``: any
    integer in ±10 000); a Scroll has a point or not; OpenApp names come from the app
    catalogue or are short random text; Type texts are printable (no ``<``/``>``).

    >>> from hypothesis import given
    >>> @given(actions(types=("click",)))
    ... def inside(a): assert 0 <= a.x < 360 and 0 <= a.y < 640
    >>> inside()
    """
    unknown = set(types) - set(ACTION_TYPES)
    if unknown or not types:
        raise ValueError(f"types must be a non-empty subset of {ACTION_TYPES}, got {tuple(types)}")
    xs, ys = _coords(viewport)
    text = st.text(_SAFE_CHARS, max_size=max_text)
    by_type = {
        "click": st.builds(Click, xs, ys),
        "scroll": st.builds(Scroll, st.sampled_from(DIRECTIONS), xs, ys) | st.builds(Scroll, st.sampled_from(DIRECTIONS)),
        "back": st.just(Back()),
        "open_app": st.builds(OpenApp, st.sampled_from(_app_names()) | st.text(_SAFE_CHARS, min_size=1, max_size=20)),
        "type": st.builds(Type, text),
        "answer": st.builds(Answer, text),
    }
    return st.one_of([by_type[t] for t in types])


def plan_steps(
    viewport: Optional[tuple[int, int]] = DEFAULT_VIEWPORT,
    grounded: Optional[bool] = None,
    types: Sequence[str] = ACTION_TYPES,
) -> st.SearchStrategy[PlanStep]:
    """A :class:`~guigym.actions.PlanStep`: grounded (an action from :func:`actions`, with
    or without an instruction) or ungrounded (an action type and a non-empty instruction).
    ``grounded=True``/``False`` restricts to one kind. An ungrounded ``back`` is never drawn
    (it has no fields to omit, so it reads back grounded)."""
    instruction = st.sampled_from(_INSTRUCTIONS) | st.text(_SAFE_CHARS, min_size=1, max_size=40).filter(lambda s: s.strip())
    g = st.builds(PlanStep, action=actions(viewport, types), instruction=st.just("") | instruction)
    ungrounded_types = [t for t in types if t != "back"]
    u = (
        st.builds(PlanStep, action=st.none(), instruction=instruction, action_type=st.sampled_from(ungrounded_types))
        if ungrounded_types
        else st.nothing()
    )
    if grounded is True:
        return g
    if grounded is False:
        return u
    return g | u


def done_step() -> Optional[PlanStep]:
    """The plan terminator ``PlanStep(action_type="done")``, or ``None`` when this guigym's
    plans have none."""
    import guigym.actions

    kind = getattr(guigym.actions, "DONE", None)
    return None if kind is None else PlanStep(action=None, action_type=kind)


def plans(
    max_len: int = 8,
    viewport: Optional[tuple[int, int]] = DEFAULT_VIEWPORT,
    grounded: Optional[bool] = None,
    min_len: int = 1,
    done: bool = False,
) -> st.SearchStrategy[list[PlanStep]]:
    """Lists of ``min_len``..``max_len`` plan steps (see :func:`plan_steps`); with
    ``done=True`` a plan may also stop early with a final :func:`done_step`."""
    base = st.lists(plan_steps(viewport, grounded), min_size=min_len, max_size=max_len)
    stop = done_step()
    if not done or stop is None:
        return base
    ending = st.lists(plan_steps(viewport, grounded), min_size=0, max_size=max(0, max_len - 1)).map(lambda s: [*s, stop])
    return base | ending


def to_text(steps: Sequence[Any], fmt: str = "json", think: bool = True, thought: str = "I look at the screen.") -> str:
    """A whole completion for ``steps`` (plan steps or actions) in ``fmt``.

    ``json``: ``<think>…</think><answer>[…]</answer>`` (UI-R1); ``function``:
    ``<think>…</think><answer>click(x=…, y=…)…</answer>``; ``mobile_use``:
    ``<think>…</think>`` then Qwen2.5-VL's bare ``<tool_call>`` blocks. ``think=False``
    leaves the think block out.

    >>> to_text([Click(3, 4)], "function")
    '<think>I look at the screen.</think><answer>click(x=3, y=4)</answer>'
    """
    items = [s if isinstance(s, PlanStep) else PlanStep(action=s) for s in steps]
    body = format_plan(items, fmt)
    if fmt == "function":
        body = f"<answer>{body}</answer>"
    head = f"<think>{thought}</think>" if think else ""
    return head + ("\n" if fmt == "mobile_use" and think else "") + body


_ANSWER_RE = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)


def parses(text: Any, fmt: Optional[str] = None, plan: bool = True, max_len: Optional[int] = None) -> bool:
    """Whether a guigym parser reads ``text`` as at least one step: the whole text, the
    text after ``</think>``, or any ``<answer>…</answer>`` block, in ``fmt`` and (to stay
    conservative) in every other format. ``plan=False``: grounded actions only
    (:func:`~guigym.actions.parse_trajectory`), else :func:`~guigym.actions.parse_plan`.
    ``max_len=1``: whether its first step is read, as ``env.step(text)`` (and a reward that
    judges the first step only, such as ``grounded_reward``) reads it, a later step that
    does not parse notwithstanding."""
    if not isinstance(text, str):
        return False
    candidates = [text]
    end = text.find("</think>")
    if end >= 0:
        candidates.append(text[end + len("</think>") :])
    candidates += _ANSWER_RE.findall(text)
    parse = parse_plan if plan else parse_trajectory
    for c in candidates:
        for f in [fmt, *FORMATS] if fmt is not None else [None, *FORMATS]:
            try:
                if parse(c, f, max_len=max_len):
                    return True
            except Exception:  # noqa: BLE001 - any failure is "does not parse"
                pass
    return False


# ----------------------------------------------------------------------------- corruptions

_WRONG_KEYS = (
    ('"coordinate"', '"coord"'),
    ('"action"', '"act"'),
    ('"direction"', '"dir"'),
    ('"text"', '"txt"'),
    ('"app_name"', '"application"'),
    ('"arguments"', '"args"'),
    ("x=", "xx="),
    ("text=", "txt="),
    ("direction=", "way="),
    ("name=", "app_label="),
)
_UNKNOWN = ("tap", "fly", "long_press", "double_click", "press_key", "drag", "wait")
_PROSE = ("Sure! Here is what I would do:", "I think the answer is", "Let me explain my reasoning first.", "Done.")
_ACTION_NAME_RE = re.compile(
    r'("action":\s*")(click|scroll|type|open_app|back|swipe|open|system_button)(")'
    r"|^(click|scroll|type|open_app|back)(\()",
    re.MULTILINE,
)


def corrupt_text(text: str, corruption: str, at: float = 0.5, pick: int = 0) -> str:
    """``text`` with one corruption (one of :data:`CORRUPTIONS`): ``missing_close_tag`` (the
    last closing tag dropped), ``wrong_key`` (a field or keyword misspelt), ``truncated``
    (cut at fraction ``at``), ``unknown_action`` (an action renamed to an unknown one),
    ``extra_prose`` (prose before or after the answer). ``pick`` chooses among the places
    or words. When a corruption has nothing to act on, the text is truncated instead, so
    the result always differs from ``text``.
    """
    if corruption not in CORRUPTIONS:
        raise ValueError(f"unknown corruption {corruption!r}; expected one of {CORRUPTIONS}")
    out = text
    if corruption == "missing_close_tag":
        for tag in ("</answer>", "</tool_call>", "</think>"):
            i = text.rfind(tag)
            if i >= 0:
                out = text[:i] + text[i + len(tag) :]
                break
    elif corruption == "wrong_key":
        present = [(a, b) for a, b in _WRONG_KEYS if a in text]
        if present:
            a, b = present[pick % len(present)]
            out = text.replace(a, b, 1)
    elif corruption == "unknown_action":
        m = _ACTION_NAME_RE.search(text)
        if m is not None:
            new = _UNKNOWN[pick % len(_UNKNOWN)]
            if m.group(1) is not None:
                out = text[: m.start(2)] + new + text[m.end(2) :]
            else:
                out = text[: m.start(4)] + new + text[m.end(4) :]
    elif corruption == "extra_prose":
        prose = _PROSE[pick % len(_PROSE)]
        out = f"{prose} {text}" if pick % 2 == 0 else f"{text}\n{prose}"
    if out == text:  # truncated, or nothing else applied
        cut = min(len(text) - 1, max(1, int(len(text) * min(max(at, 0.0), 1.0))))
        out = text[:cut] if len(text) > 1 else ""
    return out


# ----------------------------------------------------------------------------- texts

_HOSTILE = (
    "",
    " ",
    "\x00",
    "\x00" * 50,
    "<answer>",
    "</answer>",
    "<think>",
    "<think></think>",
    "<think><think><think>",
    "<answer></answer>",
    "<answer>[]</answer>",
    "<answer>[{}]</answer>",
    "<answer>null</answer>",
    "<tool_call></tool_call>",
    "<tool_call>" * 100,
    "<answer>" * 200 + "</answer>" * 10,
    "(" * 500,
    "[" * 1000,
    "{" * 1000,
    '{"action":' * 150,
    "((((((((((a*)*)*)*)*)*)*)*)*)*)" * 10,
    "(?:a+)+$" * 50,
    "\\" * 300,
    "a" * MAX_TEXT,
    "9" * 1000,
    "1e309",
    "-inf",
    "NaN",
    "<answer>[{\"action\": \"click\", \"coordinate\": [NaN, Infinity]}]</answer>",
    "<answer>[{\"action\": \"click\", \"coordinate\": [1e309, -1e309]}]</answer>",
    "<answer>[{\"action\": \"click\", \"coordinate\": [" + "9" * 400 + ", 5]}]</answer>",
    "click(x=" + "9" * 400 + ", y=1e999)",
    "click(x=__import__('os').system('true'), y=0)",
    "<answer>__import__('os')</answer>",
    "<answer>" + "[" * 300 + "]" * 300 + "</answer>",
    "<answer>\x00[{\"action\": \"back\"\x00}]</answer>",
    "\u202e\ufeff\u200b<answer>\U0001F600</answer>",
    "<think>" + "é" * 500 + "</think><answer>",
    "```json\n[{\"action\": \"fly\"}]\n```",
)


@st.composite
def _garbage(draw: Any) -> str:
    choice = draw(st.integers(0, 4))
    if choice == 0:  # arbitrary unicode
        return draw(st.text(max_size=300))
    if choice == 1:  # regex-hostile, huge numbers, empty, NUL
        return draw(st.sampled_from(_HOSTILE))
    if choice == 2:  # unicode with NULs and tags sprinkled in
        pieces = st.sampled_from(["\x00", "<answer>", "</answer>", "<think>", "</think>", "<tool_call>", "{", "[", '"', "\\"])
        parts = draw(st.lists(pieces | st.text(max_size=20), max_size=30))
        return "".join(parts)[:MAX_TEXT]
    if choice == 3:  # huge numbers in action-like shapes
        n = draw(st.sampled_from(["1e309", "-1e309", "9" * 500, "NaN", "Infinity", "-0", "0x7fffffff", "1_000"]))
        return draw(st.sampled_from([
            f'<answer>[{{"action": "click", "coordinate": [{n}, {n}]}}]</answer>',
            f"click(x={n}, y={n})",
            f'<tool_call>{{"name": "mobile_use", "arguments": {{"action": "click", "coordinate": [{n}, {n}]}}}}</tool_call>',
            n,
        ]))
    # repeated fragments up to the length bound
    frag = draw(st.text(min_size=1, max_size=10))
    return (frag * draw(st.integers(1, MAX_TEXT)))[:MAX_TEXT]


def model_texts(
    fmt: Optional[str] = None,
    kind: str = "valid",
    viewport: Optional[tuple[int, int]] = DEFAULT_VIEWPORT,
    max_len: int = 8,
    think: bool = True,
    grounded: Optional[bool] = None,
    done: bool = False,
) -> st.SearchStrategy[str]:
    """Model completions of one ``kind`` (see the module docstring); ``fmt=None`` draws the
    format too. ``valid`` texts are :func:`to_text` of a plan of up to ``max_len`` steps from
    :func:`plans` (``grounded=True``: actions only, what UI-R1 rewards read; ``done=True``:
    plans may stop with a ``done`` step).
    ``near_valid`` applies one of :data:`CORRUPTIONS` to a valid text; ``garbage`` ignores
    ``fmt``. Every text has at most :data:`MAX_TEXT` characters. Garbage is only *almost
    always* unparsable (a huge integer coordinate still parses): use :func:`parses` to tell.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {KINDS}")
    if fmt is not None and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS} or None")
    if kind == "garbage":
        return _garbage().map(lambda s: s[:MAX_TEXT])
    fmts = st.sampled_from(FORMATS) if fmt is None else st.just(fmt)

    @st.composite
    def valid(draw: Any) -> str:
        f = draw(fmts)
        return to_text(draw(plans(max_len, viewport, grounded, done=done)), f, think=think)

    if kind == "valid":
        return valid()

    @st.composite
    def near(draw: Any) -> str:
        text = draw(valid())
        c = draw(st.sampled_from(CORRUPTIONS))
        return corrupt_text(text, c, at=draw(st.floats(0.05, 0.95)), pick=draw(st.integers(0, 100)))

    return near()
