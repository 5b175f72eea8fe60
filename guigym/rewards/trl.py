"""Adapters with the reward-function signature of TRL's ``GRPOTrainer``.

Each adapter is a small picklable object ``f(completions, **kwargs) -> list[float]`` with a
``__name__`` (TRL logs rewards under ``reward_func.__name__``). The reference comes from a
dataset column (default ``"reference"``), which TRL passes as a keyword argument: per sample
a JSON string or a list of :meth:`RefStep.to_dict() <guigym.actions.RefStep.to_dict>` dicts
(the dense reference from the sample's state; UI-R1 rewards use its first step).
Completions may be plain strings or conversational (``[{"role": "assistant", "content":
...}]``, the content a string or a list of ``{"type": "text", "text": ...}`` parts; a response
TRL parsed into ``reasoning_content`` and ``tool_calls`` is read as the text it came from, and
a completion of TRL's tool loop by the turn that made the call, see :func:`completion_text`).
TRL is not needed to use them.

An empty reference (the sample's state is terminal: the task is done) expects a ``done`` step
(see :mod:`guigym.rewards.uir1`); the TraceR1 adapter scores it like any other reference.
An optional ``elements`` column (the visible widgets of the sample's state, as
``info["elements"]``) lets the trajectory reward judge elements exactly; without it the
reference's own boxes and labels are used.

>>> import json
>>> from guigym.actions import Click, RefStep
>>> ref = [RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click 'Sign in'").to_dict()]
>>> f = UIR1Reward()
>>> f.__name__
'uir1_reward'
>>> good = '<think>t</think><answer>[{"action": "click", "coordinate": [20, 20]}]</answer>'
>>> f([good, [{"role": "assistant", "content": "oops"}]], reference=[json.dumps(ref)] * 2)
[3.0, 0.0]
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Optional, Sequence, Union, cast

from guigym.action_text import _short, answer_region
from guigym.actions import RefStep
from guigym.rewards._common import check_fmt, check_real, parse_answer
from guigym.rewards.tracer1 import Similarity, TextRule, _check, check_horizon, check_weights, trajectory_reward, trajectory_reward_range
from guigym.rewards.uir1 import (
    _first_predicted,
    action_type_reward,
    argument_reward,
    format_reward,
    uir1_reward,
)

__all__ = [
    "completion_text",
    "load_reference",
    "UIR1Reward",
    "ActionTypeReward",
    "ArgumentReward",
    "FormatReward",
    "TrajectoryReward",
]


def completion_text(completion: Any) -> str:
    r"""The text of one TRL completion: a string, or the last assistant message of a
    conversation (``content`` a string or a list of text parts). Anything else → ``""``.

    A conversation with ``tool`` messages is what ``GRPOTrainer(tools=...)``'s tool loop
    makes of a tool call: ``[assistant turn with tool_calls, tool results, the model's reply
    to them, …]``. Its text is the last assistant turn before the first tool result, the one
    the model wrote at the sample's state (the reply answers TRL's tool output, not a screen
    of the dataset; reading it scored a correct action 0).

    A message that TRL's response parsing split (a tokenizer with a response schema, as
    ``GRPOTrainer(tools=...)`` sets up: the ``<think>`` block moved to ``reasoning_content``
    (or ``thinking``), each ``<tool_call>`` to ``tool_calls``) is put back together as the
    model wrote it, so a ``mobile_use`` answer and the think block still count.

    >>> completion_text([{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
    'ab'
    >>> call = {"role": "assistant", "content": "", "reasoning_content": "t",
    ...         "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"x": 1}}}]}
    >>> completion_text([call])
    '<think>t</think>\n<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>'
    >>> completion_text([call, {"role": "tool", "name": "f", "content": "ok"}, {"role": "assistant", "content": "Done."}])
    '<think>t</think>\n<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>'
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return _message_text(completion)
    if isinstance(completion, (list, tuple)):
        msgs = [m for m in completion if isinstance(m, dict)]
        tool = next((i for i, m in enumerate(msgs) if m.get("role") == "tool"), len(msgs))
        if any(m.get("role", "assistant") == "assistant" for m in msgs[:tool]):
            msgs = msgs[:tool]  # TRL's tool loop: the turn that made the call, not the reply to its result
        assistant = [m for m in msgs if m.get("role", "assistant") == "assistant"]
        chosen = assistant or msgs
        return _message_text(chosen[-1]) if chosen else ""
    return ""


def _message_text(message: dict) -> str:
    """One message's text; a parsed response's ``reasoning_content`` / ``thinking`` and
    ``tool_calls`` written back as ``<think>…</think>`` and ``<tool_call>…</tool_call>``
    (TRL's parsed form otherwise lost the whole answer of a tool-call format)."""
    content = _content_text(message.get("content"))
    reasoning = message.get("reasoning_content", message.get("thinking"))
    parts = []
    if isinstance(reasoning, str) and reasoning.strip() and "<think>" not in content:
        parts.append(f"<think>{reasoning}</think>")
    if content:
        parts.append(content)
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, (list, tuple)) else ():
        fn = call.get("function", call) if isinstance(call, dict) else None
        if not isinstance(fn, dict):
            continue
        args = fn.get("arguments")
        if isinstance(args, str):  # OpenAI-style calls carry the arguments as JSON text
            try:
                args = json.loads(args)
            except (ValueError, RecursionError):  # model text: "[[[…" nested past the stack is no call either
                pass
        try:
            parts.append("<tool_call>\n" + json.dumps({"name": fn.get("name"), "arguments": args}, ensure_ascii=False)
                         + "\n</tool_call>")
        except (TypeError, ValueError, RecursionError):  # not JSON (a hand-built message): no call to read
            continue
    return "\n".join(parts)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        parts = []
        for p in content:
            if isinstance(p, str):
                parts.append(p)
            elif isinstance(p, dict) and p.get("type", "text") == "text" and isinstance(p.get("text"), str):
                parts.append(p["text"])
        return "".join(parts)
    return ""


def load_reference(value: Any) -> list[RefStep]:
    """A reference trajectory from a dataset cell: a JSON string, one step dict, a list of
    step dicts (``RefStep.to_dict()``) or of :class:`RefStep`. Malformed data raises
    ``ValueError`` (it is a dataset bug, not a model error), here rather than deep inside a
    reward: a step must have a ``box`` of four numbers (or none), a string ``instruction`` and a
    string ``label`` (or none).

    >>> load_reference('[{"action": {"type": "click", "x": 30, "y": 20}, "box": [10, 10, 50, 30], "instruction": "OK"}]')[0].box
    (10, 10, 50, 30)
    >>> load_reference("[]")  # a terminal state
    []
    """
    try:
        if isinstance(value, (str, bytes)):
            value = json.loads(value)
        if isinstance(value, (dict, RefStep)):
            value = [value]
        steps = [v if isinstance(v, RefStep) else RefStep.from_dict(v) for v in value]
    except (TypeError, KeyError, ValueError, AttributeError, OverflowError) as e:  # OverflowError: int(1e400)
        raise ValueError(f"malformed reference {_short(value, 200)}: {e}") from e
    for i, r in enumerate(steps):
        if r.box is not None and len(r.box) != 4:
            raise ValueError(f"malformed reference: step {i + 1} has a box of {len(r.box)} values, expected (x0, y0, x1, y1)")
        if not isinstance(r.instruction, str):
            raise ValueError(f"malformed reference: step {i + 1} has instruction {_short(r.instruction, 200)}, expected a str")
        if r.label is not None and not isinstance(r.label, str):  # the trajectory reward matched it as text: AttributeError
            raise ValueError(f"malformed reference: step {i + 1} has label {_short(r.label, 200)}, expected a str or null")
    return steps


def _column(name: str, column: str, value: Any, n: int) -> list:
    """The cells of a dataset column: one per completion. A string, a dict or ``None`` is one
    cell (or none) passed where TRL passes the column's list; ``list()`` of it would split a
    JSON string into characters (and report a misleading count, or a malformed reference)."""
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise ValueError(f"{name}: the {column!r} column must be a list with one cell per completion, "
                         f"got {type(value).__name__}")
    cells = list(value)
    if len(cells) != n:
        raise ValueError(f"{name}: {n} completions but {len(cells)} {column!r} cells")
    return cells


def _completions(name: str, completions: Any) -> Sequence[Any]:
    """The ``completions`` argument: a list (or any sized iterable) of one completion per sample.
    ``None`` ended in ``object of type 'NoneType' has no len()``; a lone string was scored
    character by character."""
    if isinstance(completions, (str, bytes, dict)) or not (hasattr(completions, "__len__") and hasattr(completions, "__iter__")):
        raise TypeError(f"{name}: completions must be a list with one completion per sample, got {type(completions).__name__}")
    return completions


def load_elements(value: Any) -> Optional[list[dict]]:
    """Visible elements from a dataset cell (a JSON string or a list of dicts with ``id`` and
    ``box``), or ``None`` when the cell is empty or malformed (the reward then falls back to
    the reference's boxes and labels).

    >>> load_elements('[{"id": "ok", "box": [0, 0, 9, 9]}, {"box": [1, 2, 3, 4]}]'), load_elements("oops")
    ([{'id': 'ok', 'box': [0, 0, 9, 9]}], None)
    """
    if value is None:
        return None
    try:
        if isinstance(value, (str, bytes)):
            value = json.loads(value)
        # an element without an id is dropped (the reward names elements by id: it raised a
        # KeyError); a malformed box is read as holding no point
        return [dict(e) for e in value if isinstance(e, dict) and "id" in e] or None
    except (TypeError, ValueError):
        return None


class _ColumnReward:
    """Shared plumbing: text of each completion + the reference column."""

    name = "reward"

    def __init__(self, column: str = "reference") -> None:
        self.column = column
        self.__name__ = self.name

    def _refs(self, completions: Sequence[Any], kwargs: dict[str, Any]) -> list[list[RefStep]]:
        if self.column not in kwargs:
            raise KeyError(f"{self.__name__}: the dataset needs a {self.column!r} column (got {sorted(kwargs)})")
        return [load_reference(r) for r in _column(self.__name__, self.column, kwargs[self.column], len(completions))]

    def _first(self, ref: list[RefStep]) -> Optional[RefStep]:
        return ref[0] if ref else None  # None: a terminal state, where `done` is expected

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k != "__name__")
        return f"{type(self).__name__}({args})"


class UIR1Reward(_ColumnReward):
    """:func:`~guigym.rewards.uir1_reward` against the first reference step ``ref[0]``, per
    completion ``o``: ``R = R_type(o, ref[0]) + R_arg(o, ref[0]) + R_format(o) ∈ [0, 3]``
    (an empty reference, a terminal state, expects ``done``).

    >>> import json
    >>> from guigym.actions import Click, RefStep
    >>> ref = json.dumps([RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click 'Sign in'").to_dict()])
    >>> click = '<think>t</think><answer>[{{"action": "click", "coordinate": [{}, 20]}}]</answer>'.format
    >>> UIR1Reward()([click(20), click(90), "no answer"], reference=[ref] * 3)
    [3.0, 2.0, 0.0]
    """

    name = "uir1_reward"

    def __init__(
        self, fmt: Optional[str] = "json", strict_args: bool = True, require_think: bool = True, column: str = "reference"
    ) -> None:
        super().__init__(column)
        check_fmt(fmt)
        self.fmt, self.strict_args, self.require_think = fmt, strict_args, require_think

    def __call__(self, completions: Sequence[Any], **kwargs: Any) -> list[float]:
        completions = _completions(self.__name__, completions)
        return [
            uir1_reward(completion_text(c), self._first(r), strict_args=self.strict_args, fmt=self.fmt, require_think=self.require_think)
            for c, r in zip(completions, self._refs(completions, kwargs))
        ]


class ActionTypeReward(_ColumnReward):
    """UI-R1's type reward alone (the released code logs it as a separate reward):
    ``R_type = 1[type(first answer step of o) = type(ref[0].action)]``, the expected type
    ``done`` where the reference is empty (a terminal state).

    >>> import json
    >>> from guigym.actions import Click, RefStep
    >>> ref = json.dumps([RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click 'Sign in'").to_dict()])
    >>> act = '<think>t</think><answer>[{{"action": "{}"}}]</answer>'.format
    >>> ActionTypeReward()([act("back"), act("done")], reference=[ref, "[]"])
    [0.0, 1.0]
    """

    name = "action_type_reward"

    def __init__(self, fmt: Optional[str] = "json", column: str = "reference") -> None:
        super().__init__(column)
        check_fmt(fmt)
        self.fmt = fmt

    def __call__(self, completions: Sequence[Any], **kwargs: Any) -> list[float]:
        completions = _completions(self.__name__, completions)
        # a terminal state (empty reference) expects `done`, which only a plan step spells
        return [
            action_type_reward(_first_predicted(completion_text(c), self.fmt, plan=not r), self._first(r))
            for c, r in zip(completions, self._refs(completions, kwargs))
        ]


class ArgumentReward(_ColumnReward):
    """UI-R1's argument reward alone, :func:`~guigym.rewards.argument_reward` of the first
    answer step against ``ref[0]``: 0 unless the types match, then e.g. for a click
    ``R_arg = 1[x0 ≤ x ≤ x1 ∧ y0 ≤ y ≤ y1]`` with ``ref[0].box = (x0, y0, x1, y1)``, for
    typed text the token F1 (``strict_args=False``: the released rule, 1 for every correctly
    typed non-click step).

    >>> import json
    >>> from guigym.actions import Click, RefStep
    >>> ref = json.dumps([RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click 'Sign in'").to_dict()])
    >>> click = '<think>t</think><answer>[{{"action": "click", "coordinate": [{}, 20]}}]</answer>'.format
    >>> ArgumentReward()([click(20), click(90)], reference=[ref] * 2)
    [1.0, 0.0]
    """

    name = "argument_reward"

    def __init__(self, fmt: Optional[str] = "json", strict_args: bool = True, column: str = "reference") -> None:
        super().__init__(column)
        check_fmt(fmt)
        self.fmt, self.strict_args = fmt, strict_args

    def __call__(self, completions: Sequence[Any], **kwargs: Any) -> list[float]:
        completions = _completions(self.__name__, completions)
        return [
            argument_reward(_first_predicted(completion_text(c), self.fmt, plan=not r), self._first(r), strict=self.strict_args)
            for c, r in zip(completions, self._refs(completions, kwargs))
        ]


class FormatReward:
    """:func:`~guigym.rewards.format_reward`; needs no reference column (``plan=True`` for
    TraceR1 plans, whose steps may be ungrounded). With ``plan=False``, a row whose reference
    (the ``column`` cell, when the dataset has one) is empty is a terminal state: its answer
    is read as a plan, so a ``done`` step is well formed there, as in :class:`UIR1Reward`.
    ``R_format = 1[o = <think>…</think><answer>A</answer> ∧ A parses in fmt]`` (the think
    block optional with ``require_think=False``).

    >>> ok = '<think>t</think><answer>[{"action": "back"}]</answer>'
    >>> FormatReward()([ok, ok + " extra", '<answer>[{"action": "back"}]</answer>'])
    [1.0, 0.0, 0.0]
    >>> FormatReward(require_think=False)([[{"role": "assistant", "content": '<answer>[{"action": "back"}]</answer>'}]])
    [1.0]
    """

    def __init__(self, fmt: Optional[str] = "json", require_think: bool = True, plan: bool = False,
                 column: str = "reference") -> None:
        check_fmt(fmt)
        self.fmt, self.require_think, self.plan, self.column = fmt, require_think, plan, column
        self.__name__ = "format_reward"

    def __call__(self, completions: Sequence[Any], **kwargs: Any) -> list[float]:
        completions = _completions(self.__name__, completions)
        plans = [self.plan] * len(completions)
        if not self.plan and kwargs.get(self.column) is not None:
            plans = [not load_reference(r) for r in _column(self.__name__, self.column, kwargs[self.column], len(completions))]
        return [
            format_reward(completion_text(c), fmt=self.fmt, require_think=self.require_think, plan=p)
            for c, p in zip(completions, plans)
        ]

    def __repr__(self) -> str:
        return (f"FormatReward(fmt={self.fmt!r}, require_think={self.require_think!r}, plan={self.plan!r}, "
                f"column={self.column!r})")


class TrajectoryReward(_ColumnReward):
    """:func:`~guigym.rewards.trajectory_reward` of the predicted plan against the whole
    reference of the row, ``R = Σ_{t=1..T} γ^(t-1) · (λ_align · sim(pred_t, ref_t) − λ_rep · rep_t)``.
    The plan is the content of the first ``<answer>…</answer>`` (or the
    whole text when there is none), parsed in ``fmt`` with
    :func:`guigym.actions.parse_plan` (steps may be ungrounded; only the first ``horizon``
    are read; a ``done`` step ends the plan).

    Text that does not parse scores ``invalid_reward``: by default ``"bottom"``, the lower
    end of :func:`~guigym.rewards.trajectory_reward_range` (``−λ_rep·Σ_{t=2..T} γ^(t-1)``),
    so that no garbage outranks a valid plan in a GRPO group (a group-relative advantage
    would otherwise reward garbage over a bad but valid plan). Without a ``horizon`` the
    sum runs to ``T = MAX_STEPS`` (128), the most steps the reward scores, so it is finite for
    ``γ = 1`` too (−127 with ``λ_rep = 1``). A number overrides it.

    >>> f = TrajectoryReward(horizon=5)
    >>> [round(r, 6) for r in f(["no plan here"], reference=[[]])]
    [-3.0951]
    >>> back = '{"action": {"type": "back"}, "instruction": "Go back"}'
    >>> TrajectoryReward(gamma=0.5)(['<answer>[{"action": "back"}, {"action": "back"}]</answer>'], reference=[f"[{back}]"])
    [0.5]
    """

    name = "trajectory_reward"

    def __init__(
        self,
        gamma: float = 0.9,
        lambda_align: float = 1.0,
        lambda_rep: float = 1.0,
        horizon: Optional[int] = None,
        fmt: Optional[str] = "json",
        radius: float = 8,
        invalid_reward: Union[float, str] = "bottom",
        column: str = "reference",
        similarity: str = "abstract",
        text: str = "exact",
        elements_column: str = "elements",
    ) -> None:
        super().__init__(column)
        check_fmt(fmt)
        _check(similarity, text)
        check_weights(gamma, lambda_align, lambda_rep)  # here, not at the first valid plan
        check_horizon(horizon)
        check_real("radius", radius)
        if invalid_reward == "bottom":
            invalid_reward = trajectory_reward_range(horizon, gamma, lambda_align, lambda_rep)[0]
        elif isinstance(invalid_reward, str):
            raise ValueError(f"invalid_reward must be a number or 'bottom', got {invalid_reward!r}")
        check_real("invalid_reward", invalid_reward)  # a NaN would make a GRPO group's advantages NaN
        self.gamma, self.lambda_align, self.lambda_rep = gamma, lambda_align, lambda_rep
        self.horizon, self.fmt, self.radius, self.invalid_reward = horizon, fmt, radius, float(invalid_reward)
        # (similarity and text checked by _check above)
        self.similarity, self.text = cast("Similarity", similarity), cast("TextRule", text)
        self.elements_column = elements_column

    def plan(self, text: str) -> Optional[list]:
        """The parsed plan of one completion text (``None`` if it does not parse)."""
        answer = answer_region(text, self.fmt)
        return parse_answer(text if answer is None else answer, self.fmt, plan=True, max_len=self.horizon)

    def __call__(self, completions: Sequence[Any], **kwargs: Any) -> list[float]:
        completions = _completions(self.__name__, completions)
        out = []
        elements = kwargs.get(self.elements_column)
        # checked like the reference column: zip would drop completions' rewards silently
        n = len(completions)
        elements = [None] * n if elements is None else _column(self.__name__, self.elements_column, elements, n)
        for c, ref, els in zip(completions, self._refs(completions, kwargs), elements):
            steps = self.plan(completion_text(c))
            if steps is None:
                out.append(self.invalid_reward)
                continue
            out.append(
                trajectory_reward(
                    steps, ref, gamma=self.gamma, lambda_align=self.lambda_align, lambda_rep=self.lambda_rep,
                    horizon=self.horizon, radius=self.radius, similarity=self.similarity, text=self.text,
                    elements=load_elements(els),
                )
            )
        return out
