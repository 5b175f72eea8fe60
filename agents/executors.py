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

import re
from difflib import SequenceMatcher
from typing import Any, Optional, Sequence

from guigym.actions import DIRECTIONS, Action, Back, Click, OpenApp, PlanStep, Scroll, Type

__all__ = ["ElementExecutor", "quoted", "match_element", "instruction_action"]

_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"|‘([^’]*)’|“([^”]*)”")
# role words in an instruction -> widget kinds they point at
_ROLE_WORDS: dict[str, tuple[str, ...]] = {
    "field": ("input",),
    "box": ("input", "checkbox"),
    "input": ("input",),
    "button": ("button",),
    "checkbox": ("checkbox",),
    "tick": ("checkbox",),
    "untick": ("checkbox",),
    "switch": ("toggle",),
    "toggle": ("toggle",),
    "turn": ("toggle",),
    "icon": ("icon",),
    "app": ("icon",),
    "link": ("link",),
    "open": ("link", "button", "icon"),
    "select": ("radio",),
    "option": ("radio",),
    "choose": ("radio",),
}
_FILLER = re.compile(
    r"\b(click|tap|press|on|the|a|an|open|select|choose|tick|untick|turn|on|off|switch|toggle|checkbox|button|field|"
    r"link|icon|option|item|into|in|to|go|please)\b",
    re.IGNORECASE,
)


def quoted(text: str) -> list[str]:
    """The quoted parts of ``text`` ('…', "…", ‘…’, “…”), in order."""
    return [next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(text)]


def _norm(s: str) -> str:
    return " ".join(re.sub(r"[^\w&@.+-]+", " ", s.lower()).split())


def _target_phrase(instruction: str) -> str:
    q = quoted(instruction)
    if q:
        return q[-1] if re.match(r"\s*type\b", instruction, re.IGNORECASE) else q[0]
    return _FILLER.sub(" ", instruction)


def match_element(instruction: str, elements: Sequence[dict[str, Any]], min_score: float = 0.6) -> Optional[dict[str, Any]]:
    """The visible element an instruction refers to: the best fuzzy match (difflib ratio)
    between the instruction's quoted label (or, without quotes, its words minus verbs and
    role nouns) and each element's label, plus 0.1 when the instruction names the element's
    role ("button", "field", "switch", …). ``None`` if no element scores ``min_score``."""
    if not elements:
        return None
    phrase = _norm(_target_phrase(instruction))
    words = set(_norm(instruction).split())
    kinds = {k for w in words for k in _ROLE_WORDS.get(w, ())}
    best, best_score = None, -1.0
    for e in elements:
        label = _norm(str(e.get("label") or ""))
        if not label:
            continue
        score = SequenceMatcher(None, phrase, label).ratio()
        if phrase and (phrase == label):
            score = 1.0
        elif phrase and label and (label in phrase or phrase in label):
            score = max(score, 0.8)
        if str(e.get("role")) in kinds:
            score += 0.1
        if score > best_score:
            best, best_score = e, score
    return best if best_score >= min_score else None


def instruction_action(kind: Optional[str], instruction: str) -> Optional[Action]:
    """The action of a step that needs no pointing, read from its instruction: Back; Type
    (the first quoted text: "Type 'alice' into …"); OpenApp ("Open the Notes app", or the
    quoted name); Scroll (the direction word). ``None`` for a click or when unreadable."""
    if kind == "back":
        return Back()
    if kind == "type":
        q = quoted(instruction)
        if q:
            return Type(q[0])
        m = re.match(r"\s*type\s+(.+?)(?:\s+into\b.*)?$", instruction, re.IGNORECASE)
        return Type(m.group(1)) if m else None
    if kind == "open_app":
        q = quoted(instruction)
        if q:
            return OpenApp(q[0])
        m = re.search(r"\bopen\s+(?:the\s+)?(.+?)(?:\s+app)?\s*$", instruction.strip().rstrip("."), re.IGNORECASE)
        return OpenApp(m.group(1)) if m else None
    if kind == "scroll":
        for w in _norm(instruction).split():
            if w in DIRECTIONS:
                return Scroll(w)
        return None
    return None


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

        self._rng = np.random.default_rng(seed)
        self.last_error: Optional[str] = None

    def __call__(self, env: Any, step: PlanStep) -> Optional[Action]:
        self.last_error = None
        if step.action is not None:
            return step.action
        kind = step.kind
        if kind in ("back", "type", "open_app", "scroll"):
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
