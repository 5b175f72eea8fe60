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

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from guigym.action_text import format_action
from guigym.actions import ACTION_CLASSES, DONE, Action, PlanStep, action_to_dict, checked_action
from guigym.rewards import same_action

__all__ = [
    "Plan",
    "Planner",
    "Executor",
    "PlanActAgent",
    "EpisodeRecord",
    "EpisodeLoop",
    "ElementsView",
    "run_episode",
    "run_episodes",
    "same_plan_step",
    "summarize",
    "failure_counts",
    "NOOP",
]


#: The no-op plan step (no action, no action type): executing it is a no-op env step.
NOOP = PlanStep()


def check_horizon(horizon: Any) -> int:
    """A planner's ``horizon`` as an int >= 1, else a ``ValueError`` when the planner is built
    (a float such as 2.5 was a ``TypeError`` from slicing at the first plan, mid-rollout, and
    ``True`` a horizon of 1).

    >>> check_horizon(np.int64(3))
    3
    """
    if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < 1:
        raise ValueError(f"horizon must be an int >= 1, got {horizon!r}")
    return int(horizon)


class Plan(list):
    """A planner's output: a ``list[PlanStep]`` that also carries the raw model ``text`` (if
    any) and the ``error`` that made it less than the planner's whole plan (e.g. an
    ``ActionParseError`` message): a no-op plan (``[NOOP]``) when nothing usable was planned,
    or, for model text whose later step is malformed, the steps before it (its first step is
    executed, as ``env.step(text)`` executes it; :func:`agents.vlm.parse_plan_output`).
    ``EpisodeRecord.plan_errors`` counts both.
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
        """Start an episode: the planner, and an executor with a ``reset`` (a jittering or
        sampling one), seeded with ``seed``, so that an episode is a function of its seed."""
        self.planner.reset(seed)
        reset = getattr(self.executor, "reset", None)
        if callable(reset):
            reset(seed)

    def plan(self, obs: dict[str, Any], info: dict[str, Any], history: Sequence[Action]) -> Plan:
        """The planner's plan, as a :class:`Plan` of at most ``horizon`` steps; never empty
        (an empty plan, ``None`` or anything not a list of steps becomes one no-op step with an
        error; a lone step or action is a plan of one; a ``done`` step is its last step)."""
        return self._as_plan(self.planner.plan(obs, info, list(history)))

    def plan_batch(self, obs: Sequence[dict[str, Any]], infos: Sequence[dict[str, Any]],
                   histories: Sequence[Sequence[Action]]) -> list[Plan]:
        """:meth:`plan` for several episodes at once: one ``planner.plan_batch(obs, infos,
        histories)`` call where the planner has one (a policy decoding a batch), else
        ``planner.plan`` per episode."""
        batch = getattr(self.planner, "plan_batch", None)
        hs = [list(h) for h in histories]
        raws = batch(list(obs), list(infos), hs) if batch is not None else [self.planner.plan(o, i, h) for o, i, h in zip(obs, infos, hs)]
        if len(raws) != len(hs):
            raise ValueError(f"plan_batch returned {len(raws)} plans for {len(hs)} episodes")
        return [self._as_plan(raw) for raw in raws]

    def _as_plan(self, raw: Any) -> Plan:
        # a Plan's raw model text and error; a lone Type or Answer's ``text`` is what it types, no model text
        text, error = (None, None) if isinstance(raw, ACTION_CLASSES) else (getattr(raw, "text", None), getattr(raw, "error", None))
        if raw is None:  # "nothing to plan": as an empty plan
            raw = []
        elif isinstance(raw, (PlanStep, *ACTION_CLASSES)):  # one step, not in a list
            raw = [raw]
        elif isinstance(raw, (str, bytes, Mapping)) or not isinstance(raw, Iterable):
            # a str would become one no-op per character, an int a TypeError ending the rollout
            raw, error = [], error or f"planner returned a {type(raw).__name__}, not a list of plan steps"
        steps = [s if isinstance(s, PlanStep) else _as_step(s) for s in list(raw)[: max(1, self.horizon)]]
        ends = next((i for i, s in enumerate(steps) if s.done), None)
        if ends is not None:  # a done step ends the plan: the open loop must not execute what follows it
            steps = steps[: ends + 1]
        if not steps:
            steps, error = [NOOP], error or "planner returned an empty plan"
        return Plan(steps, text=text, error=error)

    def ground(self, env: Any, step: PlanStep) -> tuple[Optional[Action], Optional[str]]:
        """The action to execute for ``step`` and, if there is none, why.

        A ``done`` step (:attr:`~guigym.actions.PlanStep.done`: the plan ends, the planner
        says the task is complete) is not an env action and never goes to the executor: it is
        a no-op with the error ``"plan ended (done)"`` (the env alone decides success, and time
        passes, so a planner that always says done cannot loop forever)."""
        if step.action is not None:
            return step.action, None
        if step.kind is None:
            return None, "no-op step (nothing usable was planned)"
        if step.kind == DONE:
            return None, "plan ended (done)"
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
    ``executed[t]`` the plan step it came from; ``rewards[t]`` the env reward. ``failure``: why
    an episode the env ended without success failed (its last ``info["failure"]``), else None.
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
    failure: Optional[str] = None
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
            "failure": self.failure, "total_reward": self.total_reward, "consistency": self.consistency,
            "consistency_hits": self.consistency_hits, "consistency_total": self.consistency_total,
            "plans": [
                {"at": t, "steps": [_step_dict(s) for s in p], "text": p.text, "error": p.error}
                for p, t in zip(self.plans, self.plan_steps)
            ],
            "actions": [action_to_dict(a) if a is not None else None for a in self.actions],
            "rewards": list(self.rewards),
            "errors": list(self.errors),
        }


def _plain(a: Action) -> Action:
    """``a`` with plain ints and strs where it is valid (:func:`~guigym.actions.checked_action`),
    so that a record holding a policy's numpy integers still goes to JSON; else ``a``."""
    try:
        return checked_action(a)
    except (TypeError, ValueError):
        return a


def _step_dict(s: PlanStep) -> dict[str, Any]:
    return {"action": action_to_dict(_plain(s.action)) if s.action is not None else None, "action_type": s.kind,
            "instruction": s.instruction}


def _env_id(env: Any) -> Optional[str]:
    spec = getattr(env, "spec", None)
    return getattr(spec, "id", None)


def _note(step: PlanStep, err: Optional[str]) -> str:
    if err:
        return f"[no-op] {err}"[:60]
    return step.instruction


class ElementsView:
    """What an executor reads of an env, taken from a step's ``info`` (``elements()``) and
    ``obs`` (``observe()``, ``render()``: the screenshot a pixel executor such as
    :class:`agents.vlm.VLMExecutor` grounds on): for envs that live in other processes
    (:func:`run_episodes`). Without ``obs``, ``observe()`` and ``render()`` raise a
    ``RuntimeError`` that says so."""

    def __init__(self, info: dict[str, Any], obs: Optional[dict[str, Any]] = None) -> None:
        self._elements = list(info.get("elements") or ())
        self._obs = obs
        self.unwrapped = self

    def elements(self) -> list[dict[str, Any]]:
        return self._elements

    def observe(self) -> dict[str, Any]:
        if self._obs is None or "screenshot" not in self._obs:
            raise RuntimeError("ElementsView has no screenshot: build it with the step's obs, ElementsView(info, obs)")
        return self._obs

    def render(self) -> np.ndarray:
        return np.asarray(self.observe()["screenshot"])


class EpisodeLoop:
    """One episode of the plan-act loop, advanced from outside one env step at a time: the
    loop of :func:`run_episode`, split so that many episodes can advance in lockstep
    (:func:`run_episodes`: one batched planner call for all of them, the envs elsewhere).

    Start it on the first observation; then, until ``done``: if ``needs_plan``,
    ``add_plan(plan)``; ``act(env)`` gives the action to execute (``env``: what the executor
    grounds on); ``observe(*env.step(action))``. ``rec`` is the :class:`EpisodeRecord`.
    """

    def __init__(self, agent: PlanActAgent, obs: dict[str, Any], info: dict[str, Any], *, seed: Optional[int] = None,
                 env_id: Optional[str] = None, level: Optional[str] = None, limit: int = 200,
                 record_frames: bool = False) -> None:
        self.agent, self.obs, self.info, self.limit, self.record_frames = agent, obs, info, limit, record_frames
        self.rec = EpisodeRecord(
            env_id=env_id, level=info.get("level", level), seed=seed, instruction=str(obs.get("instruction", "")),
            open_loop=agent.open_loop, horizon=agent.horizon,
        )
        #: The actions sent to the env so far, oldest first: a planner's ``history``. Steps with
        #: no action (nothing planned, not grounded, ``done``) are left out; an action the env
        #: rejected (``info["action_error"]``) is kept, as the env's own ``obs["history"]``
        #: keeps it: the planner sees what it tried, though the step was a no-op.
        self.history: list[Action] = []
        self._queue: list[PlanStep] = []
        self._prev: Optional[Plan] = None
        self._done_in_prev = 0
        self._pending: Optional[tuple[PlanStep, Optional[Action], Optional[str], Any]] = None
        self.done = False
        if self.rec.steps >= limit:  # limit 0: cut before it began
            self.rec.truncated = True
            self._finish()

    @property
    def needs_plan(self) -> bool:
        return not self.done and not self._queue

    def add_plan(self, plan: Plan) -> None:
        """Take the agent's plan (:meth:`PlanActAgent.plan`) for the current state."""
        if self._prev is not None and self._done_in_prev < len(self._prev):
            self.rec.consistency_total += 1
            self.rec.consistency_hits += same_plan_step(self._prev[self._done_in_prev], plan[0])
        self.rec.plans.append(plan)
        self.rec.plan_steps.append(self.rec.steps)
        self._prev, self._done_in_prev = plan, 0
        self._queue = list(plan) if self.agent.open_loop else [plan[0]]

    def act(self, env: Any) -> Optional[Action]:
        """The action to execute next (``None``: a no-op step; why goes to the record)."""
        if self.done or not self._queue:
            raise RuntimeError("EpisodeLoop.act: the episode is over" if self.done else "EpisodeLoop.act: add_plan first")
        step = self._queue.pop(0)
        self._done_in_prev += 1
        action, err = self.agent.ground(env, step)
        if action is not None:  # as the env reads it: numpy ints made to_dict()'s JSON raise
            action = _plain(action)
        if action is None and step.kind is None and self._prev.error:  # type: ignore[union-attr]
            err = self._prev.error  # type: ignore[union-attr]
        self._pending = (step, action, err, self.obs["screenshot"] if self.record_frames else None)
        return action

    def observe(self, obs: dict[str, Any], reward: float, terminated: bool, truncated: bool, info: dict[str, Any]) -> None:
        """What ``env.step`` returned for the action of :meth:`act`."""
        if self._pending is None:
            raise RuntimeError("EpisodeLoop.observe: no action was taken (act first)")
        step, action, err, frame = self._pending
        self._pending = None
        self.obs, self.info = obs, info
        rec = self.rec
        err = err or info.get("action_error")
        rec.executed.append(step)
        rec.actions.append(action)
        rec.rewards.append(float(reward))
        rec.errors.append(err)
        if action is not None:
            self.history.append(action)
        if self.record_frames:
            from guigym.viz import annotate

            rec.frames.append(annotate(frame, action, _note(step, err)))
        if terminated or truncated:
            rec.terminated, rec.truncated = bool(terminated), bool(truncated)
            self._finish()
        elif rec.steps >= self.limit:  # cut short by the loop's step limit: truncated, as by a TimeLimit
            rec.truncated = True
            self._finish()

    def _finish(self) -> None:
        self.done = True
        self.rec.success = bool(self.info.get("success", False))
        if self.rec.terminated and not self.rec.success:
            self.rec.failure = self.info.get("failure")
        if self.record_frames:
            from guigym.viz import annotate

            self.rec.frames.append(annotate(self.obs["screenshot"], None, "success" if self.rec.success else "failed"))


def _check_agent(agent: Any, who: str) -> None:
    """A ``TypeError`` for anything but a :class:`PlanActAgent` (a planner passed as it is, the
    usual slip, gets the fix), before any env is reset."""
    if not isinstance(agent, PlanActAgent):
        hint = ("; it looks like a planner: wrap it, PlanActAgent(planner) or PlanActAgent(planner, executor)"
                if callable(getattr(agent, "plan", None)) else "")
        raise TypeError(f"{who} needs a PlanActAgent, got {type(agent).__name__}{hint}")


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
    ``max_episode_steps``, else 200; 0 cuts it before its first step, as :func:`run_episodes`'
    ``limit`` 0; an episode cut there is ``truncated`` too). A step whose
    action cannot be obtained (a parse error, an ungrounded step the executor cannot ground, a
    plan's ``done`` step) is still an env step — a no-op
    (``env.step(None)`` is rejected by the env as an invalid action) — so time passes and a
    broken planner cannot loop forever. ``record_frames`` keeps annotated frames
    (:func:`guigym.viz.annotate`) for a GIF.
    """
    _check_agent(agent, "run_episode")
    if max_steps is not None and max_steps < 0:
        raise ValueError(f"max_steps must be >= 0 (or None: the env's time limit), got {max_steps}")
    opts = dict(options or {})
    if level is not None:
        opts["level"] = level
    obs, info = env.reset(seed=seed, options=opts or None)
    agent.reset(seed)
    spec = getattr(env, "spec", None)
    # 0 is a limit (cut before it began, as run_episodes' limit 0), not "the default"
    limit = max_steps if max_steps is not None else getattr(spec, "max_episode_steps", None) or 200
    loop = EpisodeLoop(agent, obs, info, seed=seed, env_id=_env_id(env), level=level, limit=limit, record_frames=record_frames)
    while not loop.done:
        if loop.needs_plan:
            loop.add_plan(agent.plan(loop.obs, loop.info, loop.history))
        loop.observe(*env.step(loop.act(env)))
    return loop.rec


def run_episodes(
    pool: Any,
    agent: PlanActAgent,
    seeds: Sequence[int],
    limit: int,
    env_id: Optional[str] = None,
    on_decision: Optional[Callable[[int, dict[str, Any], dict[str, Any], list[Action]], None]] = None,
) -> list[EpisodeRecord]:
    """Episodes of the plan-act loop on the envs of an env pool (:mod:`agents.env_pool`:
    ``reset(indices, seeds)``, ``step(indices, actions)``), in lockstep; one record per seed,
    in the order of ``seeds``.

    Slot ``k`` of the pool runs seed ``k``, then the next seed not yet run whenever its
    episode ends. At every step one :meth:`PlanActAgent.plan_batch` call plans for every
    running episode that needs a plan (in slot order), then one ``pool.step`` executes an
    action of each; executors ground on the step's ``info["elements"]`` and ``obs["screenshot"]``
    (:class:`ElementsView`, so an element executor and a VLM executor both work). An episode
    ends as in :func:`run_episode` (terminated, truncated, or ``limit`` steps: truncated), but
    the agent is not reset per episode: use planners whose plans do not depend on a seed
    (greedy decoding, the oracle). The records depend on the pool's envs, the seeds and the
    agent, not on how the pool spreads its envs over processes.
    ``on_decision(i, obs, info, history)`` is called where :func:`run_episode`'s env would be
    at a decision point of seed ``seeds[i]``: after the reset and after every step that did
    not end the episode (``history``: the actions executed so far).
    """
    _check_agent(agent, "run_episodes")
    if limit < 0:  # every episode was silently "truncated" at 0 steps
        raise ValueError(f"limit must be >= 0, got {limit}")
    records: list[Optional[EpisodeRecord]] = [None] * len(seeds)
    running: dict[int, tuple[int, EpisodeLoop]] = {}
    todo = iter(range(len(seeds)))

    def start(slots: list[int]) -> None:
        while slots:
            pairs = [(slot, i) for slot, i in zip(slots, todo)]
            if not pairs:
                return
            slots = []
            for (slot, i), (obs, info) in zip(pairs, pool.reset([s for s, _ in pairs], [seeds[i] for _, i in pairs])):
                loop = EpisodeLoop(agent, obs, info, seed=seeds[i], env_id=env_id, limit=limit)
                if on_decision is not None:
                    on_decision(i, obs, info, list(loop.history))
                if loop.done:  # limit 0: over before it began
                    records[i] = loop.rec
                    slots.append(slot)
                else:
                    running[slot] = (i, loop)

    start(list(range(min(pool.num_envs, len(seeds)))))
    while running:
        order = sorted(running)
        need = [running[s][1] for s in order if running[s][1].needs_plan]
        if need:
            for loop, plan in zip(need, agent.plan_batch([lp.obs for lp in need], [lp.info for lp in need], [lp.history for lp in need])):
                loop.add_plan(plan)
        actions = [running[s][1].act(ElementsView(running[s][1].info, running[s][1].obs)) for s in order]
        freed = []
        for slot, result in zip(order, pool.step(order, actions)):
            i, loop = running[slot]
            loop.observe(*result)
            obs, _, terminated, truncated, info = result
            if on_decision is not None and not (terminated or truncated):
                on_decision(i, obs, info, list(loop.history))
            if loop.done:
                records[i] = loop.rec
                del running[slot]
                freed.append(slot)
        start(freed)
    return records  # type: ignore[return-value]


def summarize(records: Sequence[EpisodeRecord]) -> dict[str, Any]:
    """Aggregate (NaN where there is nothing to average: no episodes, no success, no re-plan
    to compare, no steps): ``episodes``, ``success_rate``, ``mean_steps`` (all episodes),
    ``mean_steps_success``, ``plan_consistency`` (pooled over episodes), ``noop_rate``
    (no-op steps / steps: a step with no action, or with an action the env rejected,
    ``info["action_error"]`` in ``errors[t]`` — :class:`~guigym.env.GuiEnv`'s invalid actions
    are no-ops)."""
    n = len(records)
    wins = [r for r in records if r.success]
    hits = sum(r.consistency_hits for r in records)
    total = sum(r.consistency_total for r in records)
    steps = sum(r.steps for r in records)
    noops = sum(a is None or (t < len(r.errors) and r.errors[t] is not None) for r in records for t, a in enumerate(r.actions))
    return {
        "episodes": n,
        "success_rate": len(wins) / n if n else float("nan"),
        "mean_steps": steps / n if n else float("nan"),
        "mean_steps_success": sum(r.steps for r in wins) / len(wins) if wins else float("nan"),
        "plan_consistency": hits / total if total else float("nan"),
        "noop_rate": noops / steps if steps else float("nan"),
    }


def failure_counts(records: Sequence[EpisodeRecord]) -> dict[str, int]:
    """How often each reason ended an episode as a failure (``EpisodeRecord.failure``), most
    frequent first; episodes that succeeded, or that a step limit cut before the env ended them
    (``truncated`` without ``terminated``), are not counted; one the env failed on the step its
    time limit also ran out is.

    >>> recs = [EpisodeRecord("GuiGym-Login-v0", "easy", s, "", False, 1) for s in range(3)]
    >>> recs[0].failure = recs[1].failure = "the account is locked (too many wrong sign-ins)"
    >>> failure_counts(recs)
    {'the account is locked (too many wrong sign-ins)': 2}
    """
    counts = Counter(r.failure for r in records if r.failure is not None)
    return dict(counts.most_common())


def describe(step: PlanStep) -> str:
    """One line for a plan step (function format, or ``kind: instruction``)."""
    if step.action is not None:
        return format_action(step.action, "function") + (f"  # {step.instruction}" if step.instruction else "")
    if step.kind is None:
        return "<no-op>"
    return f"{step.kind}: {step.instruction}"
