"""Executors: the frozen "tool agent" of TraceR1 stage 2, which turns an ungrounded plan step
(an action type plus an instruction such as "Click the 'Sign in' button") into an action on
the current screen. Protocol: ``executor(env, step) -> Action | None`` (the same as
:class:`guigym.rewards.Executor`, so an executor also serves ``grounded_reward``).

* :class:`ElementExecutor` grounds through the env's list of visible widgets (fuzzy label
  match) and clicks inside the chosen widget's box — a perfect-perception grounder.
* :class:`agents.vlm.VLMExecutor` asks a vision-language model for the point.

>>> import gymnasium as gym, guigym
>>> from guigym.actions import PlanStep
>>> env = gym.make("GuiGym-Login-v0"); _ = env.reset(seed=0)
>>> signin = next(e for e in env.unwrapped.elements() if e["id"] == "signin")
>>> ex = ElementExecutor()
>>> a = ex(env, PlanStep(action_type="click", instruction=f"Click the '{signin['label']}' button"))
>>> x0, y0, x1, y1 = signin["box"]
>>> a == Click((x0 + x1) // 2, (y0 + y1) // 2)
True
>>> ex(env, PlanStep(action_type="type", instruction="Type 'alice' into the 'Username' field"))
Type(text='alice')
"""

from __future__ import annotations

from typing import Any, Optional

from guigym.actions import Action, Click, PlanStep
from guigym.grounding import instruction_action, match_element, quoted

__all__ = ["ElementExecutor", "quoted", "match_element", "instruction_action"]  # the last three live in guigym.grounding


class ElementExecutor:
    """Grounds a plan step through the env's element list.

    Click steps: the element whose label best matches the instruction
    (:func:`match_element`), clicked at its box centre (or, with ``jitter``, at a point
    drawn uniformly from the middle of the box). Scroll: the instruction's direction, at
    the screen centre (the main container). Type/OpenApp/Back: read from the instruction
    (:func:`instruction_action`). Returns ``None`` (and sets ``last_error``) when it cannot.
    """

    def __init__(self, min_score: float = 0.6, jitter: bool = False, seed: Optional[int] = None) -> None:
        self.min_score = min_score
        self.jitter = jitter
        import numpy as np

        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self.last_error: Optional[str] = None

    def reset(self, seed: Optional[int] = None) -> None:
        """Re-seed the jitter (``None``: the constructor's seed); :class:`agents.PlanActAgent`
        calls it at the start of every episode, so the same seed gives the same clicks."""
        import numpy as np

        self._rng = np.random.default_rng(self.seed if seed is None else seed)
        self.last_error = None

    def __call__(self, env: Any, step: PlanStep) -> Optional[Action]:
        self.last_error = None
        if step.action is not None:
            return step.action
        kind = step.kind
        if kind in ("back", "type", "open_app", "scroll", "answer"):
            a = instruction_action(kind, step.instruction)
            if a is None:
                self.last_error = f"cannot read a {kind} action from {step.instruction!r}"
            return a
        if kind != "click":
            self.last_error = f"unknown action type {kind!r}"
            return None
        u = getattr(env, "unwrapped", env)
        elements = u.elements() if hasattr(u, "elements") else []
        e = match_element(step.instruction, elements, self.min_score)
        if e is None:
            self.last_error = f"no visible element matches {step.instruction!r}"
            return None
        x0, y0, x1, y1 = (int(v) for v in e["box"])
        if self.jitter:
            qx, qy = (x1 - x0) // 4, (y1 - y0) // 4
            return Click(int(self._rng.integers(x0 + qx, x1 - qx + 1)), int(self._rng.integers(y0 + qy, y1 - qy + 1)))
        return Click((x0 + x1) // 2, (y0 + y1) // 2)
