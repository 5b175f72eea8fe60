"""UI-R1 rule-based rewards (per step).

``R = R_type + R_arg + R_format ∈ [0, 3]`` for one model completion against one reference
step (:class:`~guigym.actions.RefStep`). The released UI-R1 code gives the argument point to
any correctly typed non-click action without looking at its arguments; ``strict_args=False``
reproduces that, ``strict_args=True`` (the default) checks the arguments.

**Terminal states.** Where the reference is empty (the task is already done) the expected step
is ``done`` (``{"action": "done"}``, ``done()``, mobile-use ``terminate``): pass ``ref=None``.
Then a predicted ``done`` earns the type and argument points and anything else earns neither —
the same rule as :func:`~guigym.rewards.trajectory_reward` and
:func:`~guigym.rewards.grounded_reward`.

>>> from guigym.actions import Click, RefStep
>>> ref = RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click 'Sign in'")
>>> uir1_reward('<think>the button</think><answer>[{"action": "click", "coordinate": [12, 29]}]</answer>', ref)
3.0
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional, cast

from guigym.action_text import answer_region
from guigym.actions import DONE, Answer, Click, OpenApp, RefStep, Scroll, Type
from guigym.answers import answers_match
from guigym.rewards._common import (
    Pred,
    check_fmt,
    check_real,
    check_ref,
    check_text,
    finite_point,
    norm_name,
    parse_answer,
    pred_action,
    pred_kind,
    token_f1,
)

__all__ = ["action_type_reward", "argument_reward", "box_iou", "format_reward", "iou_argument_reward", "uir1_reward", "point_in_box"]

# The tags of the format; text between them is free, but a tag may not appear where the
# format has none (no nesting, no repeats). Found with one linear scan (a regex of tempered
# tokens backtracked quadratically on long runs of whitespace).
_TAG_RE = re.compile(r"</?(?:think|answer|tool_call)>")


def _blank(s: str) -> bool:
    return not s or s.isspace()


def point_in_box(x: float, y: float, box: tuple[int, int, int, int]) -> bool:
    """``x0 ≤ x ≤ x1 and y0 ≤ y ≤ y1`` (bounds inclusive).

    >>> point_in_box(50, 30, (10, 10, 50, 30)), point_in_box(51, 30, (10, 10, 50, 30))
    (True, False)
    """
    x0, y0, x1, y1 = box
    return x0 <= x <= x1 and y0 <= y <= y1


def action_type_reward(pred: Pred, ref: Optional[RefStep]) -> float:
    """``R_type = 1[type(pred) = type(ref.action)]`` (``ref=None``: a terminal state, where
    the expected type is ``done``).

    ``pred`` is an action, a :class:`~guigym.actions.PlanStep` (an ungrounded one is typed by
    its ``action_type``) or ``None`` (scores 0).

    >>> from guigym.actions import Back, Click, PlanStep, RefStep
    >>> ref = RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click 'Sign in'")
    >>> action_type_reward(Click(0, 0), ref), action_type_reward(Back(), ref)
    (1.0, 0.0)
    >>> action_type_reward(PlanStep(action_type="click", instruction="Click 'Sign in'"), ref)
    1.0
    """
    check_ref(ref, terminal_ok=True)
    k = pred_kind(pred)
    want = DONE if ref is None else ref.action.type
    return 1.0 if k is not None and k == want else 0.0


def argument_reward(pred: Pred, ref: Optional[RefStep], strict: bool = True) -> float:
    """``R_arg``: 0 unless the types match; then, by type of ``ref.action``:

    * Click: ``1[x0 ≤ x ≤ x1 ∧ y0 ≤ y ≤ y1]`` with ``ref.box = (x0, y0, x1, y1)``
      (a reference click without a box needs the exact point);
    * Scroll: ``1[direction = ref direction]``;
    * OpenApp: ``1[strip(lower(name)) = strip(lower(ref name))]``;
    * Type: token F1 of the lower-cased, whitespace-split texts (∈ [0, 1]);
    * Answer: 1 if it states the expected answer (:func:`guigym.answers.answers_match`), else
      the token F1 of the texts;
    * Back: 1; ``done`` at a terminal state (``ref=None``): 1.

    An ungrounded :class:`~guigym.actions.PlanStep` carries no arguments: it scores 1 for
    Back (nothing to check) and 0 otherwise. ``strict=False`` is the released UI-R1 rule: 1
    for every correctly typed non-click step, arguments unchecked.

    >>> from guigym.actions import Click, RefStep, Type
    >>> ref = RefStep(Type("alice smith"), "user", None, "Type 'alice smith'")
    >>> argument_reward(Type("Alice"), ref)
    0.6666666666666666
    >>> argument_reward(Type("bob"), ref), argument_reward(Type("bob"), ref, strict=False)
    (0.0, 1.0)
    >>> argument_reward(Click(12, 29), RefStep(Click(30, 20), "b", (10, 10, 50, 30), ""))
    1.0
    """
    if action_type_reward(pred, ref) == 0.0:
        return 0.0
    if ref is None:
        return 1.0
    r = ref.action
    kind = r.type
    if kind == "back":
        return 1.0
    if not strict and kind != "click":
        return 1.0
    a = pred_action(pred)
    if a is None:  # ungrounded: no arguments to judge
        return 0.0
    return arguments_match(a, ref, token_f1)


def arguments_match(a: Any, ref: RefStep, text_score: Callable[[str, str], float]) -> float:
    """The argument check of a grounded action ``a`` against ``ref`` (types already equal):
    Click in ``ref.box`` (the exact point without a box), same scroll direction, same app
    name (case/space-insensitive), ``text_score(typed, ref text)`` for Type; for Answer 1 if
    it states the expected answer (the reference's ``answer`` event value, else its text;
    :func:`guigym.answers.answers_match`), else ``text_score``; 0 otherwise.
    Shared by :func:`argument_reward` (token F1) and TraceR1's ``action_similarity``."""
    r = ref.action
    if isinstance(r, Click) and isinstance(a, Click):
        if ref.box is None:
            return 1.0 if (a.x, a.y) == (r.x, r.y) else 0.0
        return 1.0 if point_in_box(a.x, a.y, ref.box) else 0.0
    if isinstance(r, Scroll) and isinstance(a, Scroll):
        return 1.0 if a.direction == r.direction else 0.0
    if isinstance(r, OpenApp) and isinstance(a, OpenApp):
        return 1.0 if norm_name(a.name) == norm_name(r.name) else 0.0
    if isinstance(r, Type) and isinstance(a, Type):
        return float(text_score(a.text, r.text))
    if isinstance(r, Answer) and isinstance(a, Answer):
        ev = ref.event
        expected = ev.value if ev is not None and ev.kind == "answer" and ev.value is not None else r.text
        return 1.0 if answers_match(a.text, expected) else float(text_score(a.text, r.text))
    return 0.0


def _well_formed_answer(text: str, fmt: Optional[str], require_think: bool) -> Optional[str]:
    """The answer of ``text`` if it is exactly ``\\s* [<think>…</think> \\s*] <answer>A</answer> \\s*``
    (think required when ``require_think``), else in ``mobile_use``/auto-detect also bare
    ``<tool_call>…</tool_call>`` blocks (whitespace between), whose text from the first tag to
    the end is returned. Text inside a think block or tool call holds no tag; an answer holds no
    think/answer tag. Linear in ``len(text)``.

    >>> _well_formed_answer(" <think>a</think>\\n<answer>x</answer> ", "json", True)
    'x'
    >>> _well_formed_answer("<think>a</think><answer>x</answer><answer>y</answer>", "json", True) is None
    True
    """
    tags = _TAG_RE.finditer(text)  # read lazily: the scan stops at the first misplaced tag
    m, pos = next(tags, None), 0  # the next tag, the end of what has been read
    if m is not None and m.group() == "<think>":
        close = next(tags, None)
        if not _blank(text[: m.start()]) or close is None or close.group() != "</think>":
            return None
        m, pos = next(tags, None), close.end()
    elif require_think:
        return None
    if m is None or not _blank(text[pos : m.start()]):
        return None
    if m.group() == "<answer>":
        for close in tags:
            if close.group() == "</answer>":
                return text[m.end() : close.start()] if next(tags, None) is None and _blank(text[close.end() :]) else None
            if close.group() not in ("<tool_call>", "</tool_call>"):  # tool calls may sit inside an answer
                return None
        return None
    if m.group() != "<tool_call>" or fmt not in ("mobile_use", None):
        return None
    start = m.start()
    while m is not None:  # <tool_call>…</tool_call> blocks, whitespace between
        close = next(tags, None)
        if m.group() != "<tool_call>" or not _blank(text[pos : m.start()]) or close is None or close.group() != "</tool_call>":
            return None
        m, pos = next(tags, None), close.end()
    return text[start:] if _blank(text[pos:]) else None


def format_reward(text: Optional[str], fmt: Optional[str] = "json", require_think: bool = True, plan: bool = False) -> float:
    """``R_format = 1[text = <think>…</think><answer>A</answer> ∧ A parses]``.

    The whole text must be one ``<think>…</think>`` block followed by one
    ``<answer>…</answer>`` block: whitespace is allowed around and between them, nothing
    else, and the tags may not nest or repeat. With ``require_think=False`` the think block
    is optional, so the answer alone is enough (UI-R1-E "NOTHINK"). In the ``mobile_use``
    format the answer may also be Qwen2.5-VL's bare ``<tool_call>…</tool_call>`` blocks.
    ``A`` must parse in ``fmt`` (``"json"``, ``"function"``, ``"mobile_use"``; ``None``
    auto-detects) into at least one action (``plan=True``: plan steps, which may be
    ungrounded, see :func:`guigym.actions.parse_plan`). Never raises on any text: a
    ``str`` of any content scores 0 or 1, and ``None`` (no completion) scores 0. Anything else
    is the caller's mistake, a ``TypeError``: a parsed action or plan step (it has no format
    to judge), a conversation (take its text with :func:`~guigym.rewards.completion_text`),
    bytes, a number. An unknown ``fmt`` is a ``ValueError``.

    >>> ok = '<think>t</think> <answer>[{"action": "back"}]</answer>'
    >>> format_reward(ok), format_reward(ok + " extra"), format_reward('<answer>[{"action": "back"}]</answer>')
    (1.0, 0.0, 0.0)
    >>> format_reward('<answer>[{"action": "back"}]</answer>', require_think=False)
    1.0
    >>> format_reward('<think>t</think><answer>[{"action": "fly"}]</answer>')
    0.0
    >>> format_reward('<think>t</think><answer>click(x=3, y=4)</answer>', fmt="function")
    1.0
    """
    check_fmt(fmt)
    check_text("format_reward", text)
    if text is None:
        return 0.0
    answer = _well_formed_answer(text, fmt, require_think)
    if answer is None:
        return 0.0
    return 1.0 if parse_answer(answer, fmt, plan=plan) else 0.0


def _first_predicted(text: Any, fmt: Optional[str], plan: bool = False) -> Pred:
    """First step of the answer of ``text`` (``None`` if there is no answer or it does not
    parse as a whole: the UI-R1 rewards judge the whole answer)."""
    if not isinstance(text, str):
        return None
    answer = answer_region(text, fmt)
    if answer is None:
        return None
    steps = parse_answer(answer, fmt, plan=plan)
    return steps[0] if steps else None


def uir1_reward(
    text: Optional[str],
    ref: Optional[RefStep],
    strict_args: bool = True,
    fmt: Optional[str] = "json",
    require_think: bool = True,
) -> float:
    """``R = R_type + R_arg + R_format ∈ [0, 3]`` for a raw model completion ``text``.

    The prediction is the first action of the answer (the first ``<answer>…</answer>``
    after the think block; in ``mobile_use`` also bare ``<tool_call>`` blocks), parsed in
    ``fmt`` with :func:`guigym.actions.parse_trajectory` (``ref=None``, a terminal state:
    with :func:`~guigym.actions.parse_plan`, which reads ``done``). ``R_type`` and ``R_arg`` are
    :func:`action_type_reward` and :func:`argument_reward` (``strict=strict_args``) of that
    action; ``R_format`` is :func:`format_reward`. No answer, or one that does not parse, scores 0 for everything;
    the function never raises on arbitrary text.

    ``text`` is what the model wrote: a ``str``, or ``None`` for no completion (0). UI-R1's
    reward judges text (a third of it is the format), so anything else is the caller's
    mistake and a ``TypeError`` rather than a silent 0: for a parsed action or plan step,
    ``action_type_reward(pred, ref) + argument_reward(pred, ref)`` is R_type + R_arg; for a
    conversation, :func:`~guigym.rewards.completion_text` gives its text (the TRL adapter
    :class:`~guigym.rewards.UIR1Reward` takes conversations as they are).

    >>> from guigym.actions import RefStep, Scroll
    >>> ref = RefStep(Scroll("down"), "list", (0, 0, 99, 99), "Scroll down")
    >>> up = '<think>t</think><answer>[{"action": "scroll", "direction": "up"}]</answer>'
    >>> uir1_reward(up, ref), uir1_reward(up, ref, strict_args=False)
    (2.0, 3.0)
    >>> uir1_reward("<answer>not json</answer>", ref)
    0.0
    >>> uir1_reward('<think>t</think><answer>[{"action": "done"}]</answer>', None)
    3.0
    >>> uir1_reward(Scroll("down"), ref)
    Traceback (most recent call last):
    ...
    TypeError: uir1_reward scores a model's text (a str, or None for no completion), got Scroll; ...
    """
    check_fmt(fmt)
    check_ref(ref, terminal_ok=True)  # before any parsing: a wrong ref is wrong whatever the text
    check_text("uir1_reward", text)
    pred = _first_predicted(text, fmt, plan=ref is None)  # a terminal state expects `done`, a plan step
    if pred is None:
        return 0.0
    return (
        action_type_reward(pred, ref)
        + argument_reward(pred, ref, strict=strict_args)
        + format_reward(text, fmt=fmt, require_think=require_think, plan=ref is None)
    )


def box_iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Intersection over union of two ``(x0, y0, x1, y1)`` boxes (0 for empty boxes).

    >>> box_iou((0, 0, 10, 10), (5, 0, 15, 10))
    0.3333333333333333
    >>> box_iou((0, 0, 10, 10), (20, 20, 30, 30)), box_iou((0, 0, 0, 0), (0, 0, 0, 0))
    (0.0, 0.0)
    """
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def iou_argument_reward(pred: Pred, ref: Optional[RefStep], half: float = 20.0, strict: bool = True) -> float:
    """``R_IoU``: the IoU-style coordinate reward that UI-R1's ablation (§4.4) compares with
    the click-in-box ``R_C`` of :func:`argument_reward`. For a click the predicted box is the
    square of side ``2·half`` centred on the click point (the tiny policy's 40-px click cell
    with the default ``half=20``; ``half`` must be > 0) and the reward is its IoU with ``ref.box``
    — graded, and small for a point on a wide widget; every other case is :func:`argument_reward`.

    >>> from guigym.actions import Click, RefStep
    >>> ref = RefStep(Click(30, 20), "signin", (10, 0, 50, 40), "Click 'Sign in'")
    >>> iou_argument_reward(Click(30, 20), ref), argument_reward(Click(30, 20), ref)
    (1.0, 1.0)
    >>> iou_argument_reward(Click(50, 20), ref), argument_reward(Click(50, 20), ref)
    (0.3333333333333333, 1.0)
    """
    check_ref(ref, terminal_ok=True)
    check_real("half", half)
    if half <= 0:  # a square of no area overlaps nothing: every click scored IoU 0, silently
        raise ValueError(f"half must be > 0 (half the side of the click's square, in px), got {half!r}")
    if ref is None or ref.action.type != "click" or ref.box is None:
        return argument_reward(pred, ref, strict=strict)
    if action_type_reward(pred, ref) == 0.0:
        return 0.0
    a = pred_action(pred)
    if not isinstance(a, Click):
        return 0.0
    p = finite_point(a)
    if p is None:  # an int beyond a float (Click(10**400, 0)) is a point far outside: IoU 0
        return 0.0
    x, y = p
    return box_iou((x - half, y - half, x + half, y + half),
                   cast("tuple[float, float, float, float]", tuple(float(v) for v in ref.box)))
