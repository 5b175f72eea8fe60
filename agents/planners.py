"""Planners without a model: the (noisy) oracle and a random planner.

Both follow :class:`agents.plan_act.Planner`: ``reset(seed)``, then
``plan(obs, info, history) -> list[PlanStep]`` of at most ``horizon`` steps. Their
randomness comes from a ``numpy`` generator seeded in ``reset``, so an episode is a
function of its seed.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Sequence

import numpy as np

from agents.plan_act import Plan, check_horizon
from guigym.actions import DIRECTIONS, Action, Back, Click, OpenApp, PlanStep, RefStep, Scroll, Type

__all__ = ["OraclePlanner", "RandomPlanner", "corrupt_step", "element_instruction"]

_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
_ROLE_NOUN = {
    "input": "field", "button": "button", "checkbox": "checkbox", "toggle": "switch", "link": "link", "icon": "icon", "radio": "option",
}
_WORDS = ("hello", "alice", "settings", "test", "admin", "password", "123456", "ok")


def _centre(box: Sequence[int]) -> tuple[int, int]:
    return (int(box[0]) + int(box[2])) // 2, (int(box[1]) + int(box[3])) // 2


def element_instruction(el: dict[str, Any]) -> str:
    """A grounding sentence for clicking a visible element (``"Click the 'Sign up' button"``)."""
    label = str(el.get("label") or el.get("id"))
    noun = _ROLE_NOUN.get(str(el.get("role")), "")
    if el.get("role") == "icon":
        return f"Click the {label} icon"
    return f"Click the '{label}' {noun}".rstrip()


def _screen(obs: dict[str, Any]) -> tuple[int, int]:
    shot = obs.get("screenshot")
    if shot is not None and hasattr(shot, "shape"):
        return int(shot.shape[1]), int(shot.shape[0])
    return 360, 640


def _typo(text: str, rng: np.random.Generator) -> str:
    """A plausible wrong text: one character dropped, doubled or replaced (or a stray word)."""
    if not text:
        return str(_WORDS[int(rng.integers(len(_WORDS)))])
    i = int(rng.integers(len(text)))
    op = int(rng.integers(3))
    if op == 0 and len(text) > 1:
        return text[:i] + text[i + 1 :]
    if op == 1:
        return text[: i + 1] + text[i] + text[i + 1 :]
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    c = alphabet[int(rng.integers(len(alphabet)))]
    if c == text[i]:
        c = "x" if c != "x" else "y"
    return text[:i] + c + text[i + 1 :]


def corrupt_step(
    ref: RefStep, elements: Sequence[dict[str, Any]], rng: np.random.Generator, screen: tuple[int, int] = (360, 640)
) -> PlanStep:
    """A plausible wrong step in place of ``ref``: a click on another visible element, the
    opposite scroll direction, a typo in typed text, or Back (grounded, with an instruction).

    ========  ====================================================================
    Click     another visible element (3/5), Back (1/5), a scroll (1/5)
    Scroll    the opposite direction (3/5), another element (1/5), Back (1/5)
    Type      the text with a typo (3/5), another element (1/5), Back (1/5)
    Back      a click on a visible element (4/5), a scroll (1/5)
    OpenApp   Back (1/2), a click on a visible element (1/2)
    ========  ====================================================================

    A click on another element when there is none falls back to Back (to a scroll in
    place of a Back).
    """
    a = ref.action
    others = [e for e in elements if e.get("id") != ref.target]

    def scroll_any() -> PlanStep:
        d = ("down", "up")[int(rng.integers(2))]
        return PlanStep(Scroll(d, screen[0] // 2, screen[1] // 2), f"Scroll {d}")

    def click_other() -> PlanStep:
        if not others:
            return scroll_any() if isinstance(a, Back) else PlanStep(Back(), "Go back")
        e = others[int(rng.integers(len(others)))]
        return PlanStep(Click(*_centre(e["box"])), element_instruction(e))

    u = float(rng.random())
    if isinstance(a, Click):
        return click_other() if u < 0.6 else PlanStep(Back(), "Go back") if u < 0.8 else scroll_any()
    if isinstance(a, Scroll):
        if u < 0.6:
            d = _OPPOSITE[a.direction]
            return PlanStep(Scroll(d, a.x, a.y), f"Scroll {d}")
        return click_other() if u < 0.8 else PlanStep(Back(), "Go back")
    if isinstance(a, Type):
        if u < 0.6:
            wrong = _typo(a.text, rng)
            return PlanStep(Type(wrong), f"Type '{wrong}'")
        return click_other() if u < 0.8 else PlanStep(Back(), "Go back")
    if isinstance(a, Back):
        return click_other() if u < 0.8 else scroll_any()
    return PlanStep(Back(), "Go back") if u < 0.5 else click_other()


def _ungrounded(step: PlanStep) -> PlanStep:
    """The same step as an action type plus grounding instruction (Back stays grounded:
    it has nothing to ground)."""
    a = step.action
    if a is None or isinstance(a, Back):
        return step
    instr = step.instruction
    if isinstance(a, Type) and not re.search(r"'", instr):
        instr = f"Type '{a.text}'"
    if isinstance(a, OpenApp) and a.name.lower() not in instr.lower():
        instr = f"Open the {a.name} app"
    if isinstance(a, Scroll) and a.direction not in instr.lower():
        instr = f"Scroll {a.direction}"
    return PlanStep(action=None, instruction=instr, action_type=a.type)


class OraclePlanner:
    """The dense reference (``info["reference"]``) as a plan, optionally noisy.

    Args:
        horizon: ``T``, the number of planned steps.
        noise: ``ε``; each planned step is independently replaced, with probability ε, by a
            plausible wrong step (:func:`corrupt_step`).
        grounded: plan steps carry coordinates (``True``) or only an action type and a
            grounding instruction, for an executor to ground (``False``).
        seed: default seed of the noise generator (``reset(seed)`` overrides it).
    """

    def __init__(self, horizon: int = 8, noise: float = 0.0, grounded: bool = True, seed: Optional[int] = None) -> None:
        horizon = check_horizon(horizon)
        if isinstance(noise, bool) or not isinstance(noise, (int, float, np.integer, np.floating)) or not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be a number in [0, 1], got {noise!r}")
        self.horizon = horizon
        self.noise = float(noise)
        self.grounded = grounded
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: Optional[int] = None) -> None:
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    def plan(self, obs: dict[str, Any], info: dict[str, Any], history: Sequence[Action] = ()) -> Plan:
        ref: list[RefStep] = list(info.get("reference") or [])[: self.horizon]
        if not ref:
            return Plan([], error="oracle: no reference from this state (task done or failed)")
        elements = list(info.get("elements") or [])
        screen = _screen(obs)
        steps = []
        for r in ref:
            if self.noise > 0 and self.rng.random() < self.noise:
                step = corrupt_step(r, elements, self.rng, screen)
            else:
                step = PlanStep(action=r.action, instruction=r.instruction)
            steps.append(step if self.grounded else _ungrounded(step))
        return Plan(steps)


class RandomPlanner:
    """Uniformly random plans: clicks anywhere on the screen (or, with ``on_elements``, on a
    visible element), scrolls, Back, typing a random word; deterministic given the seed.

    Args:
        horizon: ``T``.
        weights: relative frequencies of ``click, scroll, back, type``.
        on_elements: click the centre of a random visible element instead of a random pixel.
    """

    KINDS = ("click", "scroll", "back", "type")

    def __init__(
        self, horizon: int = 8, weights: Sequence[float] = (0.6, 0.15, 0.1, 0.15), on_elements: bool = False, seed: Optional[int] = None
    ) -> None:
        horizon = check_horizon(horizon)
        w = np.asarray(weights, dtype=float)
        # NaN or inf passed these checks and broke the first plan ("Probabilities contain NaN")
        if w.shape != (4,) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"weights must be 4 finite non-negative numbers (click, scroll, back, type), got {weights}")
        self.horizon = horizon
        self.p = w / w.sum()
        self.on_elements = on_elements
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: Optional[int] = None) -> None:
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    def plan(self, obs: dict[str, Any], info: dict[str, Any], history: Sequence[Action] = ()) -> Plan:
        w, h = _screen(obs)
        elements = list(info.get("elements") or [])
        steps = []
        for _ in range(self.horizon):
            kind = self.KINDS[int(self.rng.choice(4, p=self.p))]
            if kind == "click":
                if self.on_elements and elements:
                    e = elements[int(self.rng.integers(len(elements)))]
                    steps.append(PlanStep(Click(*_centre(e["box"])), element_instruction(e)))
                else:
                    steps.append(PlanStep(Click(int(self.rng.integers(w)), int(self.rng.integers(h)))))
            elif kind == "scroll":
                d = DIRECTIONS[int(self.rng.integers(2))]  # up / down
                steps.append(PlanStep(Scroll(d), f"Scroll {d}"))
            elif kind == "back":
                steps.append(PlanStep(Back(), "Go back"))
            else:
                word = _WORDS[int(self.rng.integers(len(_WORDS)))]
                steps.append(PlanStep(Type(word), f"Type '{word}'"))
        return Plan(steps)
