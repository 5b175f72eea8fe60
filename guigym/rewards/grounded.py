"""TraceR1 stage 2: grounded reward — execute the first predicted step and check its event.

``r^G = 1[event(execute(pred, s)) ≡ ref(s)[0].event]``

From the state ``s`` the prediction is executed on the env (an ungrounded plan step is first
turned into an action by an :class:`Executor`, e.g. a frozen grounding model); the semantic
event the backend reports is compared with the event the dense reference's first step must
produce (:func:`~guigym.rewards.events_match`: same kind and widget; same typed text, same
toggle value, same scroll direction, same app). This is TraceR1's "coordinate hits the
target" judged in app terms, so it means the same on every backend. The env is restored to
``s`` afterwards through ``get_state``/``set_state``.

>>> from guigym.actions import Click, RefStep
>>> from guigym.events import Event
>>> class Env:                      # the smallest env with the API the reward needs
...     unwrapped = property(lambda self: self)
...     state = {"clicked": None}
...     def get_state(self): return dict(self.state)
...     def set_state(self, s): self.state = dict(s)
...     def reference(self):
...         return [RefStep(Click(30, 20), "ok", (10, 10, 50, 30), "Click OK", Event("click", "ok"))]
...     def step(self, a):
...         hit = 10 <= a.x <= 50 and 10 <= a.y <= 30
...         self.state = {"clicked": "ok" if hit else None}
...         return None, 0.0, False, False, {"event": Event("click", "ok") if hit else None}
>>> env = Env()
>>> grounded_rewards(env, [Click(12, 12), Click(90, 90)]), env.get_state()
([1.0, 0.0], {'clicked': None})
"""

from __future__ import annotations

from typing import Any, Optional, Protocol, Sequence, Union, cast, runtime_checkable

from guigym.actions import ACTION_CLASSES, Action, PlanStep, RefStep
from guigym.apps.base import copy_state
from guigym.rewards._common import as_event, check_fmt, events_match, parse_answer, well_formed
from guigym.rewards.uir1 import arguments_match

__all__ = ["Executor", "grounded_reward", "grounded_rewards"]



@runtime_checkable
class Executor(Protocol):
    """Grounds a plan step: ``executor(env, step) -> Action`` (e.g. instruction → click point).

    Called only for an ungrounded :class:`~guigym.actions.PlanStep`; returning ``None`` (or
    anything that is not an action) means it could not ground the step, which scores 0.
    """

    def __call__(self, env: Any, step: PlanStep) -> Optional[Action]: ...


def _resolve(env: Any, pred: Any, executor: Optional[Executor], fmt: Optional[str]) -> Optional[Action]:
    if not well_formed(pred):  # a hand-built step of wrong field types: no prediction (scores 0)
        return None
    if isinstance(pred, RefStep):
        return pred.action
    if isinstance(pred, ACTION_CLASSES):
        return pred
    if isinstance(pred, PlanStep):
        if pred.action is not None:
            return pred.action
        if executor is None:
            return None
        out = executor(env, pred)
        if isinstance(out, PlanStep):
            out = out.action
        return out if isinstance(out, ACTION_CLASSES) else None
    return None


def _first_step(text: str, fmt: Optional[str]) -> Optional[PlanStep]:
    """The first step of model ``text``, read as ``env.step(text)`` reads it
    (:func:`guigym.actions.parse_action`: the whole text, failing that its
    :func:`~guigym.action_text.answer_region`), but as a plan step (ungrounded, or ``done``).
    Only that step is read: the step that is executed is the one judged (TraceR1 stage 2), so
    a later step the parser would reject (``{"action": "fly"}``) does not zero it, as it does
    not stop ``env.step`` from executing the first. ``None`` if no first step parses."""
    steps = parse_answer(text, fmt, plan=True, max_len=1)
    return cast("Optional[PlanStep]", steps[0]) if steps else None


def _exact(a: str, b: str) -> float:
    return 1.0 if a == b else 0.0


def _arguments_hit(action: Action, ref: RefStep) -> bool:
    """Whether ``action`` does ``ref``'s step by its arguments (a reference step without an
    event): what :func:`~guigym.rewards.events_match` would say of the events, typed text exact."""
    if action.type != ref.action.type:
        return False
    return action.type == "back" or arguments_match(action, ref, _exact) == 1.0


def _private(snapshot: Any) -> Any:
    """A copy of a ``get_state`` snapshot whose mutable parts (app state, history) are the
    reward's own; the scenario, static and never changed by an env, is shared (copying it for
    every candidate was most of a stage-2 update's time on large apps)."""
    if not isinstance(snapshot, dict):
        return copy_state(snapshot)
    return {k: v if k == "scenario" else copy_state(v) for k, v in snapshot.items()}


def _gui(env: Any, who: str) -> Any:
    """``env.unwrapped``, if it can be set to a state, stepped and asked for the reference (a
    guigym env, or a test double of one); else a ``TypeError`` naming ``who``, not an
    ``AttributeError`` from deep inside."""
    u = getattr(env, "unwrapped", None)
    if not all(callable(getattr(u, m, None)) for m in ("get_state", "set_state", "reference", "step")):
        got = type(u if u is not None else env).__name__
        raise TypeError(f'{who} needs a guigym env (gym.make("GuiGym-...")), got {got}')
    return u


def grounded_reward(
    env: Any,
    pred: Union[Action, PlanStep, str, None],
    state: Optional[dict] = None,
    executor: Optional[Executor] = None,
    fmt: Optional[str] = "json",
) -> float:
    """``r^G = 1[event(execute(pred) from s) ≡ ref(s)[0].event] ∈ {0, 1}``.

    ``s`` is ``state`` (default: the env's current state, ``env.unwrapped.get_state()``).
    The env is set to ``s``; ``pred`` — an action, a grounded plan step, an ungrounded plan
    step (grounded through ``executor``), or raw model text — is executed with
    ``env.unwrapped.step`` (so wrapper counters such as ``TimeLimit`` are untouched), and the
    reported ``info["event"]`` is compared with the
    event of the first step of ``env.unwrapped.reference()`` from ``s`` using
    :func:`~guigym.rewards.events_match`. If that reference step has no event, the
    argument rule is used instead: the same action type and, by type, the point in the step's
    box, the same scroll direction, app name, the exact typed text (as the ``input`` event
    compares it: token F1 gave "ALICE" for "alice" the point), the stated answer.

    Model text: its first step, read in ``fmt`` (``None``: auto-detected) as ``env.step(text)``
    reads it — the whole text, failing that its ``<answer>`` — but as a
    :func:`guigym.actions.parse_plan` step (it may be ungrounded, or ``done``). Only that step
    is read: stage 2 judges the executed step, so a later step that does not parse (which
    ``env.step`` does not execute either) does not zero it.

    A ``done`` step (the plan terminator) is not executed: it scores 1 exactly when the
    reference from ``s`` is empty (the task is already done; any other step scores 0 there) —
    the rule of :func:`~guigym.rewards.trajectory_reward` and the UI-R1 rewards. Scores 0 when
    an ungrounded step has no executor (or the executor returns no action), or when no first
    step of the text parses. The env is left in ``s`` afterwards (restored in a ``finally``;
    the reward hands the env private copies of the app state and history, so the caller's
    ``state`` is never changed by the episode; the static scenario, which no env changes, is shared).
    """
    check_fmt(fmt)
    u = _gui(env, "grounded_reward")
    target = _private(u.get_state() if state is None else state)
    if isinstance(pred, str):  # raw model text: the first step of its answer (a plan step), read as env.step reads it
        pred = _first_step(pred, fmt)
    try:
        if state is not None:
            u.set_state(_private(target))
        ref = list(u.reference())
        if isinstance(pred, PlanStep) and pred.done:
            return 0.0 if ref else 1.0
        if not ref:
            return 0.0
        action = _resolve(env, pred, executor, fmt)
        if action is None:
            return 0.0
        out = u.step(action)
        info = out[-1] if isinstance(out, tuple) and out and isinstance(out[-1], dict) else {}
        expected = ref[0].event
        if expected is None:
            return 1.0 if _arguments_hit(action, ref[0]) else 0.0
        return 1.0 if events_match(as_event(info.get("event")), expected) else 0.0
    finally:
        u.set_state(_private(target))


def grounded_rewards(
    env: Any,
    preds: Sequence[Union[Action, PlanStep, str, None]],
    state: Optional[dict] = None,
    executor: Optional[Executor] = None,
    fmt: Optional[str] = "json",
) -> list[float]:
    """:func:`grounded_reward` for each of a group of G candidates, all from one state ``s``
    (default: the current state), the GRPO group of TraceR1 stage 2. The env is left in ``s``.
    """
    u = _gui(env, "grounded_rewards")
    s = u.get_state() if state is None else state
    return [grounded_reward(env, p, state=s, executor=executor, fmt=fmt) for p in preds]
