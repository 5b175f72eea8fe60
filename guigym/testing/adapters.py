"""Describe a reward to the property checks: :class:`RewardUnderTest`, and ready-made
adapters for guigym's own rewards.

A reward is tested through one or two small functions:

* ``score_text(text, reference) -> float`` — a raw model completion against the dense
  reference (a list of :class:`~guigym.actions.RefStep`);
* ``score_plan(steps, reference) -> float`` — a parsed plan (a list of
  :class:`~guigym.actions.PlanStep`) against the reference.

Give whichever your reward has (both when it has both); the checks write plans as text in
``fmt`` for ``score_text``. ``low`` and ``high`` are the range the reward promises.
"""

from __future__ import annotations

import inspect
import json
import math
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from guigym.actions import PlanStep, RefStep

__all__ = [
    "RewardUnderTest",
    "trajectory_bounds",
    "library_rewards",
    "trajectory_reward_adapter",
    "trajectory_reward_trl_adapter",
    "uir1_reward_adapter",
    "uir1_reward_trl_adapter",
    "format_reward_adapter",
    "format_reward_trl_adapter",
    "action_similarity_adapter",
    "action_type_reward_adapter",
    "argument_reward_adapter",
    "action_type_reward_trl_adapter",
    "argument_reward_trl_adapter",
    "easyr1_adapter",
    "grounded_reward_adapter",
    "trl_reward_adapter",
]

ScoreText = Callable[[str, Sequence[RefStep]], float]
ScorePlan = Callable[[Sequence[PlanStep], Sequence[RefStep]], float]


@dataclass
class RewardUnderTest:
    """A reward as the checks see it.

    * ``name``: shown in failure messages.
    * ``low``, ``high``: the declared range (``check_bounded``; the bottom ``low`` is also
      what unparsable text should get).
    * ``score_text(text, reference)`` and/or ``score_plan(steps, reference)``.
    * ``fmt``: the text format ``score_text`` reads (``"json"``, ``"function"``,
      ``"mobile_use"``); ``think``: whether valid completions carry ``<think>…</think>``.
    * ``plans``: ``True`` if the reward reads TraceR1 plans (steps may be ungrounded: an
      action type plus an instruction); ``False`` for rewards of grounded actions (UI-R1).
    * ``first_step_only``: the reward looks at the first predicted step only (UI-R1).
    * ``done``: the reward reads plans that stop with a ``done`` step
      (``PlanStep(action_type="done")``); the checks then write the reference plan with a
      final ``done`` and draw plans that may end with one.
    * ``rescale_invariant``: ``False`` skips :func:`~guigym.testing.check_rescale_invariant`
      (e.g. a reward that executes on the env, in screen pixels).
    * ``tol``: how far apart two scores may be and still count as equal.
    * ``penalizes_misclicks``: the reward promises that a first click off its target scores
      strictly less than the reference (UI-R1's coordinate reward, TraceR1's grounded
      alignment); :func:`~guigym.testing.check_reference_is_best` then asks for strictly less
      when the reference's first click moves onto each other visible widget. Without it a
      reward that pays any click passes (the check asks for "at most the reference", so
      that a format reward, which pays every valid plan alike, passes too).

    >>> from guigym.rewards import trajectory_reward
    >>> r = RewardUnderTest("mine", low=-8, high=8, score_plan=lambda steps, ref: trajectory_reward(steps, ref, horizon=8))
    >>> r.channels()
    ('plan',)
    """

    name: str
    low: float = -math.inf
    high: float = math.inf
    score_text: Optional[ScoreText] = None
    score_plan: Optional[ScorePlan] = None
    fmt: str = "json"
    think: bool = True
    plans: bool = True
    first_step_only: bool = False
    done: bool = False
    rescale_invariant: bool = True
    tol: float = 1e-9
    penalizes_misclicks: bool = False

    def __post_init__(self) -> None:
        if self.score_text is None and self.score_plan is None:
            raise ValueError(f"{self.name}: give score_text, score_plan or both")
        if not self.low <= self.high:
            raise ValueError(f"{self.name}: low={self.low} > high={self.high}")

    def channels(self) -> tuple[str, ...]:
        """``"plan"`` and/or ``"text"``: how the reward can be called."""
        return tuple(c for c, f in (("plan", self.score_plan), ("text", self.score_text)) if f is not None)

    def text_of(self, steps: Sequence[Any]) -> str:
        """``steps`` written as a complete completion in this reward's format."""
        from guigym.testing.strategies import to_text

        return to_text(steps, self.fmt, think=self.think)

    def score_steps(self, steps: Sequence[PlanStep], reference: Sequence[RefStep]) -> dict[str, float]:
        """The score of a plan through every channel: ``{"plan": …, "text": …}``."""
        out: dict[str, float] = {}
        if self.score_plan is not None:
            out["plan"] = self.score_plan(list(steps), reference)
        if self.score_text is not None:
            out["text"] = self.score_text(self.text_of(steps), reference)
        return out

    def __repr__(self) -> str:
        return f"RewardUnderTest({self.name!r}, low={self.low}, high={self.high}, channels={self.channels()}, fmt={self.fmt!r})"


# ----------------------------------------------------------------------------- helpers


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with only the keywords ``fn`` accepts (signatures change)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn(*args, **kwargs)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return fn(*args, **kwargs)
    return fn(*args, **{k: v for k, v in kwargs.items() if k in params})


def _make(cls: type, **kwargs: Any) -> Any:
    """``cls(**kwargs)`` keeping only the keywords its ``__init__`` accepts."""
    return _call(cls, **kwargs)


def _check_options(adapter: str, fn: Callable[..., Any], options: dict[str, Any]) -> None:
    """Raise ``TypeError`` for keywords in ``options`` (the caller's own ``**kwargs``) that ``fn``
    does not name. :func:`_call` drops what a signature lacks so that the adapters' own
    defaults work across versions; applied to the caller's options it made a misspelt one
    (``simlarity="grounded"``) test the default reward under a name that claimed otherwise."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return
    named = {k for k, p in params.items() if p.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)}
    unknown = sorted(set(options) - named)
    if unknown:
        raise TypeError(f"{adapter}: {getattr(fn, '__name__', fn)} takes no option {', '.join(map(repr, unknown))}; "
                        f"its options: {', '.join(sorted(named))}")


def _ref_json(reference: Sequence[RefStep]) -> str:
    return json.dumps([r.to_dict() for r in reference])


def _has_done() -> bool:
    """Whether this guigym's plans can stop with a ``done`` step."""
    import guigym.actions

    return hasattr(guigym.actions, "DONE")


def trajectory_bounds(horizon: int, gamma: float = 0.9, lambda_align: float = 1.0, lambda_rep: float = 1.0) -> tuple[float, float]:
    """The range of the TraceR1 trajectory reward over plans of at most ``horizon`` steps:
    ``[−λ_rep·Σ_{t=2..T} γ^(t−1), λ_align·Σ_{t=1..T} γ^(t−1)]`` with ``T = horizon``.

    >>> trajectory_bounds(3, gamma=0.5)
    (-0.75, 1.75)
    """
    try:  # the library's own bounds, summed in the reward's order (bit-exact bottom)
        from guigym.rewards import trajectory_reward_range
    except ImportError:
        low = -lambda_rep * sum(gamma**t for t in range(1, horizon))
        high = lambda_align * sum(gamma**t for t in range(horizon))
        return low, high
    low, high = trajectory_reward_range(horizon, gamma, lambda_align, lambda_rep)
    return float(low), float(high)


# ----------------------------------------------------------------------------- adapters


def trajectory_reward_adapter(
    gamma: float = 0.9, lambda_align: float = 1.0, lambda_rep: float = 1.0, horizon: int = 8, **kwargs: Any
) -> RewardUnderTest:
    """:func:`guigym.rewards.trajectory_reward` on parsed plans (capped at ``horizon``)."""
    from guigym.rewards import trajectory_reward

    _check_options("trajectory_reward_adapter", trajectory_reward, kwargs)

    def score_plan(steps: Sequence[PlanStep], reference: Sequence[RefStep]) -> float:
        return _call(trajectory_reward, list(steps), list(reference), gamma=gamma, lambda_align=lambda_align,
                     lambda_rep=lambda_rep, horizon=horizon, **kwargs)

    low, high = trajectory_bounds(horizon, gamma, lambda_align, lambda_rep)
    name = "trajectory_reward" + "".join(f"[{k}={v!r}]" for k, v in kwargs.items())
    return RewardUnderTest(name, low, high, score_plan=score_plan, done=_has_done(), penalizes_misclicks=True)


def trajectory_reward_trl_adapter(gamma: float = 0.9, lambda_align: float = 1.0, lambda_rep: float = 1.0, horizon: int = 8,
                                  fmt: str = "json", **kwargs: Any) -> RewardUnderTest:
    """:class:`guigym.rewards.TrajectoryReward` (TRL adapter) on raw completions; the
    reference goes in as the JSON ``reference`` column, as in a dataset."""
    from guigym.rewards import TrajectoryReward

    _check_options("trajectory_reward_trl_adapter", TrajectoryReward, kwargs)
    f = _make(TrajectoryReward, gamma=gamma, lambda_align=lambda_align, lambda_rep=lambda_rep, horizon=horizon, fmt=fmt, **kwargs)

    def score_text(text: str, reference: Sequence[RefStep]) -> float:
        return f([text], reference=[_ref_json(reference)])[0]

    low, high = trajectory_bounds(horizon, gamma, lambda_align, lambda_rep)
    name = "TrajectoryReward" + "".join(f"[{k}={v!r}]" for k, v in kwargs.items())
    return RewardUnderTest(name, low, high, score_text=score_text, fmt=fmt, done=_has_done(), penalizes_misclicks=True)


def uir1_reward_adapter(fmt: str = "json", strict_args: bool = True, require_think: bool = True) -> RewardUnderTest:
    """:func:`guigym.rewards.uir1_reward` against the first reference step, in [0, 3]."""
    from guigym.rewards import uir1_reward

    def score_text(text: str, reference: Sequence[RefStep]) -> float:
        return _call(uir1_reward, text, reference[0], strict_args=strict_args, fmt=fmt, require_think=require_think)

    return RewardUnderTest("uir1_reward", 0.0, 3.0, score_text=score_text, fmt=fmt, think=require_think, plans=False, first_step_only=True,
                           penalizes_misclicks=True)


def uir1_reward_trl_adapter(fmt: str = "json", strict_args: bool = True, require_think: bool = True) -> RewardUnderTest:
    """:class:`guigym.rewards.UIR1Reward` (TRL adapter), in [0, 3]."""
    from guigym.rewards import UIR1Reward

    f = _make(UIR1Reward, fmt=fmt, strict_args=strict_args, require_think=require_think)

    def score_text(text: str, reference: Sequence[RefStep]) -> float:
        return f([text], reference=[_ref_json(reference)])[0]

    return RewardUnderTest("UIR1Reward", 0.0, 3.0, score_text=score_text, fmt=fmt, think=require_think, plans=False, first_step_only=True,
                           penalizes_misclicks=True)


def format_reward_adapter(fmt: str = "json", require_think: bool = True, plan: bool = True) -> RewardUnderTest:
    """:func:`guigym.rewards.format_reward`, in [0, 1] (the reference is unused)."""
    from guigym.rewards import format_reward

    def score_text(text: str, reference: Sequence[RefStep]) -> float:
        return _call(format_reward, text, fmt=fmt, require_think=require_think, plan=plan)

    return RewardUnderTest("format_reward", 0.0, 1.0, score_text=score_text, fmt=fmt, think=require_think, plans=plan)


def format_reward_trl_adapter(fmt: str = "json", require_think: bool = True, plan: bool = True) -> RewardUnderTest:
    """:class:`guigym.rewards.FormatReward` (TRL adapter), in [0, 1]."""
    from guigym.rewards import FormatReward

    f = _make(FormatReward, fmt=fmt, require_think=require_think, plan=plan)

    def score_text(text: str, reference: Sequence[RefStep]) -> float:
        return f([text], reference=[_ref_json(reference)])[0]

    return RewardUnderTest("FormatReward", 0.0, 1.0, score_text=score_text, fmt=fmt, think=require_think, plans=plan)


def _first_step(fn: Callable[..., float], name: str, penalizes_misclicks: bool = False, **kwargs: Any) -> RewardUnderTest:
    def score_plan(steps: Sequence[PlanStep], reference: Sequence[RefStep]) -> float:
        return _call(fn, steps[0] if steps else None, reference[0], **kwargs)

    return RewardUnderTest(name, 0.0, 1.0, score_plan=score_plan, first_step_only=True, penalizes_misclicks=penalizes_misclicks)


def action_similarity_adapter() -> RewardUnderTest:
    """:func:`guigym.rewards.action_similarity` of the first plan step, in [0, 1]."""
    from guigym.rewards import action_similarity

    return _first_step(action_similarity, "action_similarity", penalizes_misclicks=True)


def action_type_reward_adapter() -> RewardUnderTest:
    """:func:`guigym.rewards.action_type_reward` of the first plan step, in [0, 1]."""
    from guigym.rewards import action_type_reward

    return _first_step(action_type_reward, "action_type_reward")


def argument_reward_adapter(strict: bool = True) -> RewardUnderTest:
    """:func:`guigym.rewards.argument_reward` of the first plan step, in [0, 1]."""
    from guigym.rewards import argument_reward

    return _first_step(argument_reward, "argument_reward", penalizes_misclicks=True, strict=strict)


def _trl_first(cls_name: str, name: str, fmt: str, penalizes_misclicks: bool = False, **kwargs: Any) -> RewardUnderTest:
    import guigym.rewards as rewards

    f = _make(getattr(rewards, cls_name), fmt=fmt, **kwargs)

    def score_text(text: str, reference: Sequence[RefStep]) -> float:
        return f([text], reference=[_ref_json(reference)])[0]

    return RewardUnderTest(name, 0.0, 1.0, score_text=score_text, fmt=fmt, plans=False, first_step_only=True,
                           penalizes_misclicks=penalizes_misclicks)


def action_type_reward_trl_adapter(fmt: str = "json") -> RewardUnderTest:
    """:class:`guigym.rewards.ActionTypeReward` (TRL adapter), in [0, 1]."""
    return _trl_first("ActionTypeReward", "ActionTypeReward", fmt)


def argument_reward_trl_adapter(fmt: str = "json", strict_args: bool = True) -> RewardUnderTest:
    """:class:`guigym.rewards.ArgumentReward` (TRL adapter), in [0, 1]."""
    return _trl_first("ArgumentReward", "ArgumentReward", fmt, penalizes_misclicks=True, strict_args=strict_args)


def easyr1_adapter(mode: str = "uir1", fmt: str = "json", horizon: int = 8, gamma: float = 0.9, lambda_align: float = 1.0,
                   lambda_rep: float = 1.0, **kwargs: Any) -> RewardUnderTest:
    """``overall`` of the EasyR1 module's ``compute_score`` (``guigym/rewards/easyr1.py``)
    in ``mode`` ``"uir1"`` ([0, 3]) or ``"trajectory"`` (:func:`trajectory_bounds`)."""
    from guigym.rewards.easyr1 import compute_score

    _check_options("easyr1_adapter", compute_score, kwargs)  # compute_score's **_ would swallow a misspelt one
    options = dict(mode=mode, fmt=fmt, gamma=gamma, lambda_align=lambda_align, lambda_rep=lambda_rep, horizon=horizon, **kwargs)

    def score_text(text: str, reference: Sequence[RefStep]) -> float:
        out = _call(compute_score, [{"response": text, "ground_truth": _ref_json(reference)}], **options)
        return out[0]["overall"]

    if mode == "trajectory":
        low, high = trajectory_bounds(horizon, gamma, lambda_align, lambda_rep)
        if "format_weight" in inspect.signature(compute_score).parameters:  # overall = trajectory + w · format
            w = float(kwargs.get("format_weight", inspect.signature(compute_score).parameters["format_weight"].default))
            # format ∈ [0, 1]: a negative weight lowers the bottom (only the top moved, so a
            # correct reward failed check_bounded with format_weight < 0)
            low, high = low + min(0.0, w), high + max(0.0, w)
        return RewardUnderTest("easyr1.compute_score[trajectory]", low, high, score_text=score_text, fmt=fmt, done=_has_done(),
                               penalizes_misclicks=True)
    return RewardUnderTest(f"easyr1.compute_score[{mode}]", 0.0, 3.0, score_text=score_text, fmt=fmt, plans=False, first_step_only=True,
                           penalizes_misclicks=True)


def grounded_reward_adapter(fmt: str = "json", executor: Any = None, **make_kwargs: Any) -> RewardUnderTest:
    """:func:`guigym.rewards.grounded_reward` (TraceR1 stage 2), in {0, 1}: the first step
    of the text is executed from the case's state, on one mock env per id (made lazily).
    Needs the reference the checks pass (it carries ``.case``); not rescale-invariant (it
    executes in screen pixels)."""
    import gymnasium as gym

    from guigym.rewards import grounded_reward

    envs: dict[str, Any] = {}

    def score_text(text: str, reference: Sequence[RefStep]) -> float:
        case = getattr(reference, "case", None)
        if case is None:
            raise ValueError("grounded_reward_adapter needs a reference that carries its case (Case.ref())")
        if case.env_id not in envs:
            envs[case.env_id] = gym.make(case.env_id, disable_env_checker=True, backend="mock", **make_kwargs)
            envs[case.env_id].reset(seed=0)
        return _call(grounded_reward, envs[case.env_id], text, state=case.state, executor=executor, fmt=fmt)

    return RewardUnderTest("grounded_reward", 0.0, 1.0, score_text=score_text, fmt=fmt, first_step_only=True, rescale_invariant=False,
                           penalizes_misclicks=True)


def _trl_scores(name: str, fn: Callable[..., Any], completions: list[Any], references: list[str], column: str,
                extra: dict[str, Any]) -> list[Any]:
    """``fn``'s scores for a batch, called as TRL calls it; a ``ValueError`` naming the fault when
    the answer is not one score per completion."""
    out = _call(fn, prompts=[""] * len(completions), completions=completions, **{column: references}, **extra)
    if isinstance(out, (str, bytes, dict)) or not hasattr(out, "__len__"):
        raise ValueError(f"{name} returned {type(out).__name__} {out!r:.100} for a batch of {len(completions)} completions; "
                         "a TRL reward returns a list with one float per completion")
    out = list(out)
    if len(out) != len(completions):
        raise ValueError(f"{name} returned {len(out)} scores for a batch of {len(completions)} completions; a TRL reward "
                         "returns one per completion (None where it does not apply), in order")
    return out


def trl_reward_adapter(fn: Callable[..., Any], low: float = -math.inf, high: float = math.inf, name: Optional[str] = None,
                       fmt: str = "json", conversational: bool = False, column: str = "reference", **kwargs: Any) -> RewardUnderTest:
    """Your own TRL reward function — ``fn(completions, **kwargs) -> list[float]``, e.g.
    ``fn(completions, reference, **kwargs)`` — as a :class:`RewardUnderTest` on raw
    completions. The reference goes in as the JSON dataset column ``column``
    (``RefStep.to_dict()`` list, as :meth:`Case.reference_json` writes it), ``prompts`` as
    empty strings, and each of ``kwargs`` (one value per column) as a further column, that
    value repeated over the batch; ``conversational=True`` gives each completion as
    TRL does for chat datasets, ``[{"role": "assistant", "content": text}]``. Other options
    (``think``, ``plans``, ``first_step_only``, ``done``, ``penalizes_misclicks``, ``tol``…) may be
    set on the result.

    Each text is scored alone and again as the first of a batch of two (after an empty
    completion): a reward that returns a list of the wrong length (e.g. drops the completions
    it cannot parse) or whose score depends on the rest of the batch raises ``ValueError``,
    which every check reports with the text.

    >>> r = trl_reward_adapter(lambda completions, reference, **kw: [0.0 for _ in completions], low=0, high=1, name="zero")
    >>> r.score_text("<answer>[]</answer>", [])
    0.0
    """
    label: str = name or str(getattr(fn, "__name__", type(fn).__name__))

    def score_text(text: str, reference: Sequence[RefStep]) -> Any:
        ref = _ref_json(reference)
        item: Any = [{"role": "assistant", "content": text}] if conversational else text
        filler: Any = [{"role": "assistant", "content": ""}] if conversational else ""
        extra = {k: [v] for k, v in kwargs.items()}
        alone = _trl_scores(label, fn, [item], [ref], column, extra)[0]
        pair = _trl_scores(label, fn, [item, filler], [ref, ref], column, {k: [v, v] for k, v in kwargs.items()})[0]
        try:  # NaN both times is the same score (check_bounded names it), not a batch dependence
            differ = alone != pair and not (alone is not None and pair is not None and (
                abs(float(alone) - float(pair)) <= 1e-9 or math.isnan(float(alone)) and math.isnan(float(pair))))
        except (TypeError, ValueError):
            differ = alone != pair
        if differ:
            raise ValueError(f"{label} scored the same completion {alone!r} alone but {pair!r} in a batch: a reward's score "
                             "must not depend on the other completions of the batch (or on their order)")
        return alone

    return RewardUnderTest(label, low, high, score_text=score_text, fmt=fmt)


def library_rewards(fmt: str = "json", horizon: int = 8, include_grounded: bool = True) -> list[RewardUnderTest]:
    """An adapter for every reward guigym ships (functions, TRL adapters, EasyR1 modes and,
    with ``include_grounded``, the grounded reward)."""
    out = [
        trajectory_reward_adapter(horizon=horizon),
        trajectory_reward_adapter(horizon=horizon, similarity="grounded"),
        trajectory_reward_trl_adapter(horizon=horizon, fmt=fmt),
        uir1_reward_adapter(fmt=fmt),
        uir1_reward_adapter(fmt=fmt, strict_args=False),
        uir1_reward_trl_adapter(fmt=fmt),
        format_reward_adapter(fmt=fmt),
        format_reward_trl_adapter(fmt=fmt),
        action_similarity_adapter(),
        action_type_reward_adapter(),
        argument_reward_adapter(),
        action_type_reward_trl_adapter(fmt=fmt),
        argument_reward_trl_adapter(fmt=fmt),
        easyr1_adapter("uir1", fmt=fmt),
        easyr1_adapter("trajectory", fmt=fmt, horizon=horizon),
    ]
    out[4].name = "uir1_reward[strict_args=False]"
    if include_grounded:
        out.append(grounded_reward_adapter(fmt=fmt))
    return out
