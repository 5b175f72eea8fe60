"""The plan-act (MPC) loop of TraceR1: plan T steps, execute the first, observe, re-plan.

At every step the planner returns up to ``T`` planned steps (:class:`~guigym.actions.PlanStep`:
a grounded action such as ``Click(40, 200)``, or an action type plus a grounding instruction
such as "Click the 'Sign in' button"). Only the first is executed — directly when it has
coordinates, through an executor (:class:`~guigym.rewards.Executor`) when it needs
grounding — then the agent observes the new screen and plans again. With
``open_loop=True`` the whole plan is executed before re-planning, for comparison.

>>> import gymnasium as gym, guigym
>>> from agents import OraclePlanner, PlanActAgent, run_episode
>>> env = gym.make("GuiGym-Login-v0")
>>> rec = run_episode(env, PlanActAgent(OraclePlanner(horizon=8)), seed=0)
>>> rec.success, rec.steps == len(rec.actions) == len(rec.plans), rec.consistency
(True, True, 1.0)

Plan consistency (per episode, and pooled by :func:`summarize`): of the re-plans made
while the previous plan still had a step left after those executed, the fraction whose
first step equals that step — in the closed loop, "the new plan's first step equals the
previous plan's second". Steps are compared with :func:`guigym.rewards.same_action`
(clicks within 8 px, same scroll direction, same text/app; ungrounded steps by instruction).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from guigym.action_text import format_action
from guigym.actions import ACTION_CLASSES, Action, PlanStep, action_to_dict
from guigym.rewards import same_action

__all__ = [
    "Plan",
    "Planner",
    "Executor",
    "PlanActAgent",
    "EpisodeRecord",
    "run_episode",
    "same_plan_step",
    "summarize",
    "NOOP",
]


#: The no-op plan step (no action, no action type): executing it is a no-op env step.
NOOP = PlanStep()


class Plan(list):
    """A planner's output: a ``list[PlanStep]`` that also carries the raw model ``text`` (if
    any) and the ``error`` that turned it into a no-op (e.g. an ``ActionParseError`` message).
    """

    def __init__(self, steps: Sequence[PlanStep] = (), text: Optional[str] = None, error: Optional[str] = None):
        super().__init__(steps)
        self.text = text
        self.error = error

    def __repr__(self) -> str:
        extra = (f", text={self.text!r}" if self.text is not None else "") + (f", error={self.error!r}" if self.error else "")
        return f"Plan({list.__repr__(self)}{extra})"


@runtime_checkable
class Planner(Protocol):
    """``plan(obs, info, history) -> list[PlanStep]`` of at most ``horizon`` steps.

    ``obs``/``info`` are what the env returned last (``info["reference"]``,
    ``info["elements"]``, …); ``history`` is the list of actions executed so far in the
    episode, oldest first. ``reset(seed)`` starts an episode (seeds any randomness).
    Returning a :class:`Plan` lets a planner report its raw text and a parse error.
    """

    horizon: int

    def reset(self, seed: Optional[int] = None) -> None: ...

    def plan(self, obs: dict[str, Any], info: dict[str, Any], history: Sequence[Action]) -> list[PlanStep]: ...


@runtime_checkable
class Executor(Protocol):
    """The frozen "tool agent": ``executor(env, step) -> Action | None`` grounds an
    ungrounded plan step on the env's current screen (``None``: it could not). Same protocol
    as :class:`guigym.rewards.Executor`. May expose ``last_error`` (why it returned ``None``).
    """

    def __call__(self, env: Any, step: PlanStep) -> Optional[Action]: ...


def same_plan_step(a: Optional[PlanStep], b: Optional[PlanStep]) -> bool:
    """Whether two plan steps are the same step (:func:`guigym.rewards.same_action`;
    no-op steps are never the same as anything)."""
    if a is None or b is None:
        return False
    return bool(same_action(a, b))


class PlanActAgent:
    """A planner, an optional executor, and the loop mode.

    Args:
        planner: any :class:`Planner`; its plans are cut to ``planner.horizon`` steps.
        executor: grounds ungrounded steps (``None``: such steps are no-ops with an error).
        open_loop: execute every step of a plan before re-planning (default: only the first).
    """

    def __init__(self, planner: Planner, executor: Optional[Executor] = None, open_loop: bool = False) -> None:
        self.planner = planner
        self.executor = executor
        self.open_loop = open_loop

    @property
    def horizon(self) -> int:
        return int(getattr(self.planner, "horizon", 1))

    def reset(self, seed: Optional[int] = None) -> None:
        self.planner.reset(seed)

    def plan(self, obs: dict[str, Any], info: dict[str, Any], history: Sequence[Action]) -> Plan:
        """The planner's plan, as a :class:`Plan` of at most ``horizon`` steps; never empty
        (an empty plan becomes one no-op step with an error)."""
        raw = self.planner.plan(obs, info, list(history))
        text = getattr(raw, "text", None)
        error = getattr(raw, "error", None)
        steps = [s if isinstance(s, PlanStep) else _as_step(s) for s in list(raw)[: max(1, self.horizon)]]
        if not steps:
            steps, error = [NOOP], error or "planner returned an empty plan"
        return Plan(steps, text=text, error=error)

    def ground(self, env: Any, step: PlanStep) -> tuple[Optional[Action], Optional[str]]:
        """The action to execute for ``step`` and, if there is none, why."""
        if step.action is not None:
            return step.action, None
        if step.kind is None:
            return None, "no-op step (nothing usable was planned)"
        if self.executor is None:
            return None, f"ungrounded {step.kind} step {step.instruction!r} and no executor"
        try:
            out = self.executor(env, step)
        except Exception as e:  # a grounding model failing must not end the rollout
            return None, f"executor failed on {step.instruction!r}: {type(e).__name__}: {e}"
        if isinstance(out, PlanStep):
            out = out.action
        if isinstance(out, ACTION_CLASSES):
            return out, None
        why = getattr(self.executor, "last_error", None)
        return None, f"executor could not ground {step.instruction!r}" + (f": {why}" if why else "")


def _as_step(s: Any) -> PlanStep:
    if isinstance(s, ACTION_CLASSES):
        return PlanStep(action=s)
    if hasattr(s, "action") and isinstance(s.action, ACTION_CLASSES):  # a RefStep
        return PlanStep(action=s.action, instruction=getattr(s, "instruction", ""))
    return NOOP


@dataclass
class EpisodeRecord:
    """Everything that happened in one episode of the plan-act loop.

    ``plans[i]`` was made before env step ``plan_steps[i]``; ``actions[t]`` is the action
    executed at step ``t`` (``None`` for a no-op, with the reason in ``errors[t]``),
    ``executed[t]`` the plan step it came from; ``rewards[t]`` the env reward.
    """

    env_id: Optional[str]
    level: Optional[str]
    seed: Optional[int]
    instruction: str
    open_loop: bool
    horizon: int
    success: bool = False
    terminated: bool = False
    truncated: bool = False
    plans: list[Plan] = field(default_factory=list)
    plan_steps: list[int] = field(default_factory=list)
    executed: list[PlanStep] = field(default_factory=list)
    actions: list[Optional[Action]] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    errors: list[Optional[str]] = field(default_factory=list)
    consistency_hits: int = 0
    consistency_total: int = 0
    frames: list[np.ndarray] = field(default_factory=list, repr=False)

    @property
    def steps(self) -> int:
        return len(self.actions)

    @property
    def total_reward(self) -> float:
        return float(sum(self.rewards))

    @property
    def consistency(self) -> Optional[float]:
        """Fraction of comparable re-plans whose first step was the previous plan's next
        step (``None`` when there was nothing to compare)."""
        return self.consistency_hits / self.consistency_total if self.consistency_total else None

    @property
    def plan_errors(self) -> list[Optional[str]]:
        return [p.error for p in self.plans]

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly summary (plans as lists of step dicts, actions as dicts)."""
        return {
            "env_id": self.env_id, "level": self.level, "seed": self.seed, "instruction": self.instruction,
            "open_loop": self.open_loop, "horizon": self.horizon,
            "success": self.success, "steps": self.steps, "terminated": self.terminated, "truncated": self.truncated,
            "total_reward": self.total_reward, "consistency": self.consistency,
            "consistency_hits": self.consistency_hits, "consistency_total": self.consistency_total,
            "plans": [
                {"at": t, "steps": [_step_dict(s) for s in p], "text": p.text, "error": p.error}
                for p, t in zip(self.plans, self.plan_steps)
            ],
            "actions": [action_to_dict(a) if a is not None else None for a in self.actions],
            "rewards": list(self.rewards),
            "errors": list(self.errors),
        }


def _step_dict(s: PlanStep) -> dict[str, Any]:
    return {"action": action_to_dict(s.action) if s.action is not None else None, "action_type": s.kind, "instruction": s.instruction}


def _env_id(env: Any) -> Optional[str]:
    spec = getattr(env, "spec", None)
    return getattr(spec, "id", None)


def _note(step: PlanStep, err: Optional[str]) -> str:
    if err:
        return f"[no-op] {err}"[:60]
    return step.instruction


def run_episode(
    env: Any,
    agent: PlanActAgent,
    seed: Optional[int] = None,
    level: Optional[str] = None,
    options: Optional[dict[str, Any]] = None,
    max_steps: Optional[int] = None,
    record_frames: bool = False,
) -> EpisodeRecord:
    """Run one episode of the plan-act loop and return its :class:`EpisodeRecord`.

    ``env`` is reset with ``seed`` (and ``options``, plus ``{"level": level}`` if given),
    the agent with the same seed. The episode ends when the env terminates or truncates
    (its ``TimeLimit``), or after ``max_steps`` steps (default: the env's
    ``max_episode_steps``, else 200). A step whose action cannot be obtained (a parse error,
    an ungrounded step the executor cannot ground) is still an env step — a no-op
    (``env.step(None)`` is rejected by the env as an invalid action) — so time passes and a
    broken planner cannot loop forever. ``record_frames`` keeps annotated frames
    (:func:`guigym.viz.annotate`) for a GIF.
    """
    opts = dict(options or {})
    if level is not None:
        opts["level"] = level
    obs, info = env.reset(seed=seed, options=opts or None)
    agent.reset(seed)
    spec = getattr(env, "spec", None)
    limit = max_steps or getattr(spec, "max_episode_steps", None) or 200
    rec = EpisodeRecord(
        env_id=_env_id(env), level=info.get("level", level), seed=seed, instruction=str(obs.get("instruction", "")),
        open_loop=agent.open_loop, horizon=agent.horizon,
    )
    history: list[Action] = []
    queue: list[PlanStep] = []
    prev: Optional[Plan] = None
    done_in_prev = 0
    while rec.steps < limit:
        if not queue:
            plan = agent.plan(obs, info, history)
            if prev is not None and done_in_prev < len(prev):
                rec.consistency_total += 1
                rec.consistency_hits += same_plan_step(prev[done_in_prev], plan[0])
            rec.plans.append(plan)
            rec.plan_steps.append(rec.steps)
            prev, done_in_prev = plan, 0
            queue = list(plan) if agent.open_loop else [plan[0]]
        step = queue.pop(0)
        done_in_prev += 1
        action, err = agent.ground(env, step)
        if action is None and step.kind is None and prev.error:  # type: ignore[union-attr]
            err = prev.error  # type: ignore[union-attr]
        frame = obs["screenshot"] if record_frames else None
        obs, reward, terminated, truncated, info = env.step(action)
        err = err or info.get("action_error")
        rec.executed.append(step)
        rec.actions.append(action)
        rec.rewards.append(float(reward))
        rec.errors.append(err)
        if action is not None:
            history.append(action)
        if record_frames:
            from guigym.viz import annotate

            rec.frames.append(annotate(frame, action, _note(step, err)))
        if terminated or truncated:
            rec.terminated, rec.truncated = bool(terminated), bool(truncated)
            break
    rec.success = bool(info.get("success", False))
    if record_frames:
        from guigym.viz import annotate

        rec.frames.append(annotate(obs["screenshot"], None, "success" if rec.success else "failed"))
    return rec


def summarize(records: Sequence[EpisodeRecord]) -> dict[str, Any]:
    """Aggregate: ``episodes``, ``success_rate``, ``mean_steps`` (all episodes),
    ``mean_steps_success``, ``plan_consistency`` (pooled over episodes), ``noop_rate``
    (no-op steps / steps)."""
    n = len(records)
    wins = [r for r in records if r.success]
    hits = sum(r.consistency_hits for r in records)
    total = sum(r.consistency_total for r in records)
    steps = sum(r.steps for r in records)
    noops = sum(a is None for r in records for a in r.actions)
    return {
        "episodes": n,
        "success_rate": len(wins) / n if n else float("nan"),
        "mean_steps": steps / n if n else float("nan"),
        "mean_steps_success": sum(r.steps for r in wins) / len(wins) if wins else float("nan"),
        "plan_consistency": hits / total if total else float("nan"),
        "noop_rate": noops / steps if steps else float("nan"),
    }


def describe(step: PlanStep) -> str:
    """One line for a plan step (function format, or ``kind: instruction``)."""
    if step.action is not None:
        return format_action(step.action, "function") + (f"  # {step.instruction}" if step.instruction else "")
    if step.kind is None:
        return "<no-op>"
    return f"{step.kind}: {step.instruction}"
