"""The oracle: the shortest grounded action sequence that completes the task, from any state.

The family says *what* is left (``Family.next_goal``: set this field, press that button);
the oracle says *how* on screen: open the app, go Back or follow links to the goal's
screen, scroll the goal's row into view, focus a field before typing, and grounds each
step to a box with the shared layout (``guigym.layout``), which both backends use. It
simulates the app model step by step, so the reference is exactly what the app will do.
Steps are shortest for the task's goal order: every step is forced (a field must be focused
before Type; a hidden row must be scrolled to; screens form a tree navigated by links and
Back).
"""

from __future__ import annotations

import marshal
from dataclasses import replace
from typing import Any, cast

from guigym.actions import Answer, Back, Click, OpenApp, RefStep, Scroll, Type
from guigym.apps.base import POPUP_SCREEN, TEXT_KINDS, View, app_of, apply, popup_showing, view
from guigym.apps.family import Family, Goal
from guigym.apps.schema import DeviceState, Scenario
from guigym.apps.widgets import control_for, menu_screen
from guigym.display import shown_texts
from guigym.events import Event
from guigym.layout import Layout, layout

_MISS = object()
#: The longest plan the oracle makes; a state without a plan within it counts as a dead end. The
#: cap only bounds the work on states that lead nowhere: with a 640x360 viewport and the test
#: split's looks (roomy rows, very long descriptions, font scale 1.3) a hard task scrolls one row
#: at a time, and its plan runs to 90-170 steps (80, the cap before, left half of CrossApp hard's
#: landscape instances without a reference at reset, as if they could not be solved).
MAX_STEPS = 256


def center(box: tuple[int, int, int, int]) -> tuple[int, int]:
    return ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)


def _q(label: str) -> str:
    return f"'{label}'"


def click_step(v: View, lay: Layout, wid: str, value: Any = None) -> RefStep | None:
    """Click the visible widget ``wid`` (for a checkbox/toggle: set it to ``value``)."""
    w = v.find(wid)
    box = lay.box(wid)
    if w is None or box is None:
        return None
    x, y = center(box)
    if w.kind in ("checkbox", "toggle"):
        on = (not bool(w.value)) if value is None else bool(value)
        ev = Event("toggle", wid, on)
        verb = ("Tick" if on else "Untick") if w.kind == "checkbox" else ("Turn on" if on else "Turn off")
        noun = " checkbox" if w.kind == "checkbox" else " switch"
        text = f"{verb} the {_q(w.label)}{noun}"
    else:
        ev = Event("click", wid)
        text = {
            "input": f"Click the {_q(w.label)} field",
            "button": f"Click the {_q(w.label)} button",
            "link": f"Open {_q(w.label)}",
            "radio": f"Select {_q(w.label)}",
            "icon": f"Click the {w.label} icon",
        }.get(w.kind, f"Click {_q(w.label)}")
    return RefStep(Click(x, y), wid, box, text, ev, w.label)


def scroll_step(v: View, lay: Layout, down: bool) -> RefStep:
    x, y = center(lay.body)
    step = lay.step if down else -lay.step
    first = min(v.scroll, lay.max_scroll)
    target = min(max(first + step, 0), lay.max_scroll)
    ev = Event("scroll", "body", target - v.scroll)
    return RefStep(Scroll("down" if down else "up", x, y), "body", lay.body, f"Scroll {'down' if down else 'up'}", ev)


def reveal(v: View, lay: Layout, wid: str) -> RefStep | None:
    """A Scroll that brings row ``wid`` closer to view, or None if it is visible."""
    if lay.box(wid) is not None:
        return None
    i = v.index(wid)
    if i < 0:
        return None
    return scroll_step(v, lay, down=i >= lay.end)


def ground(scenario: Scenario, state: DeviceState, v: View, lay: Layout, goal: Goal) -> RefStep | None:
    """The next grounded step towards ``goal`` in ``state`` (None: it cannot be reached); where
    that step is None, or would scroll more than once before it can click (one Scroll and a
    click are shorter than a search: click the field, type, click), the next step towards
    ``goal.otherwise`` if it has one.
    A :attr:`~guigym.apps.family.Goal.read_off` answer is given only on the spot, where
    ``goal.widget`` is on screen and shows the fact whole (not shortened to fit): any other step
    follows ``otherwise`` (a way to the row could undo its way, e.g. close its dropdown)."""
    if goal.otherwise is not None:
        step = ground(scenario, state, v, lay, replace(goal, otherwise=None))
        if goal.read_off:
            ok = step is not None and isinstance(step.action, Answer) and any(
                str(goal.value) in t for t in shown_texts(v, lay, goal.widget))
        else:
            ok = step is not None and (not isinstance(step.action, Scroll) or _then_no_scroll(scenario, state, v, lay, goal, step))
        return step if ok else ground(scenario, state, v, lay, goal.otherwise)
    if v.screen == POPUP_SCREEN and popup_showing(scenario, state):  # an interruption first: dismiss it
        return click_step(v, lay, f"{POPUP_SCREEN}.{scenario['popup']['dismiss']}")
    if state["fg"] != goal.app:
        return RefStep(OpenApp(goal.app), None, None, f"Open the {goal.app} app", Event("open_app", value=goal.app), goal.app)
    app, spec = app_of(scenario, goal.app)
    stack = state["apps"][goal.app]["stack"]
    if goal.op == "set" and stack[-1] == menu_screen(goal.widget):  # the select's dropdown is open: pick
        opt = next((w for w in v.rows if w.kind == "radio" and w.option == goal.value), None)
        return None if opt is None else reveal(v, lay, opt.id) or click_step(v, lay, opt.id)
    if stack[-1] != goal.screen:
        path = app.path_to(spec, goal.screen)
        if path is None:  # reached by a button, not a link: only Back can lead there
            return RefStep(Back(), None, None, "Go back", Event("back")) if goal.screen in stack[:-1] else None
        k = 0
        while k < min(len(stack), len(path)) and stack[k] == path[k]:
            k += 1
        if len(stack) > k:
            return RefStep(Back(), None, None, "Go back", Event("back"))
        nxt = path[len(stack)]
        link = next((w for w in v.rows if w.to == nxt and w.kind in ("link", "button")), None)
        if link is None:  # a tile (guigym.variation's ``layout``): a cell of a row
            link = next((w for w in v.widgets() if w.to == nxt and w.kind in ("link", "button")), None)
        if link is None:
            return None
        return reveal(v, lay, link.id) or click_step(v, lay, link.id)
    if goal.op == "set":  # a value kept by a composite widget (stepper, tabs, date picker): its next button
        ctl = control_for(v, goal.widget, goal.value)
        if ctl is not None:
            return reveal(v, lay, ctl) or click_step(v, lay, ctl)
    w = v.find(goal.widget)
    if w is None:
        return None
    scroll = reveal(v, lay, w.id)
    if scroll is not None:
        return scroll
    if goal.op == "answer":  # the fact is on screen: reply with it
        text = str(goal.value)
        return RefStep(Answer(text), None, None, f"Answer '{text}'", Event("answer", None, text))
    if goal.op == "set" and w.kind in TEXT_KINDS:
        if v.focus != w.id:
            return click_step(v, lay, w.id)
        box = lay.box(w.id)
        text = f"Type '{goal.value}' into the {_q(w.label)} field"
        return RefStep(Type(str(goal.value)), w.id, box, text, Event("input", w.id, str(goal.value)), w.label)
    if goal.op == "set" and w.kind in ("checkbox", "toggle"):
        return click_step(v, lay, w.id, bool(goal.value))
    return click_step(v, lay, w.id)


def _then_no_scroll(scenario: Scenario, state: DeviceState, v: View, lay: Layout, goal: Goal, scroll: RefStep) -> bool:
    """Whether the step towards ``goal`` (its ``otherwise`` aside) after the Scroll ``scroll`` is
    no Scroll again: the row it scrolls to is one Scroll away."""
    s2 = apply(scenario, state, cast(Event, scroll.event), v)
    v2 = view(scenario, s2)
    nxt = ground(scenario, s2, v2, layout(v2, lay.width, lay.height), replace(goal, otherwise=None))
    return nxt is not None and not isinstance(nxt.action, Scroll)


def state_key(state: DeviceState) -> bytes:
    """A cache key of a state. ``marshal`` is ~5x faster than JSON; two equal states whose
    dicts were filled in a different order get different keys, which only costs a cache miss."""
    return marshal.dumps(cast("dict[str, Any]", state))  # a TypedDict, a plain dict at run time


class Oracle:
    """Dense reference trajectories for one scenario, memoised by state.

    ``reference(state)`` returns the list of :class:`~guigym.actions.RefStep` from ``st`` to
    success, ``[]`` when the task is done, or ``None`` when it cannot succeed any more.
    Computing one reference stores the suffixes for every state along it, so following
    the reference (or acting without effect) costs a dictionary look-up.

    It also memoises what planning computes anyway, for the env to reuse when it steps
    along the plan: the view and layout of a state (:meth:`screen`) and the state an event
    leads to (:meth:`step`). Both are pure functions of the state, so reusing them changes
    nothing but the time taken; states and views are never mutated (``apply`` makes new
    ones), so the env may hold the same objects. These two memos keep at most
    ``memo_size`` entries each (cleared when full: states and views are bigger than
    references).
    """

    def __init__(self, family: Family, scenario: Scenario, width: int, height: int, cache_size: int = 4096, memo_size: int = 512):
        self.family, self.scenario, self.width, self.height = family, scenario, width, height
        self.cache_size, self.memo_size = cache_size, memo_size
        self._cache: dict[bytes, list[RefStep] | None] = {}
        self._screens: dict[bytes, tuple[View, Layout]] = {}
        self._next: dict[tuple[bytes, Event, type], tuple[DeviceState, bytes]] = {}
        self._done: dict[bytes, Any] = {}

    def success(self, state: DeviceState, key: bytes) -> Any:
        """``family.success(scenario, state)`` (``key``: ``state_key(state)``), memoised: a pure
        function of the state, asked by planning and again by the env on every step."""
        hit = self._done.get(key, _MISS)
        if hit is _MISS:
            if len(self._done) >= self.cache_size:
                self._done.clear()
            hit = self._done[key] = self.family.success(self.scenario, state)
        return hit

    def _assess(self, state: DeviceState, key: bytes) -> tuple[Any, bool, Goal | None]:
        """``family.assess`` of a planned state, its success memoised as :meth:`success`'s."""
        hit = self._done.get(key, _MISS)
        if hit is _MISS:
            hit, failed, goal = self.family.assess(self.scenario, state)
            if len(self._done) >= self.cache_size:
                self._done.clear()
            self._done[key] = hit
            return hit, failed, goal
        if hit:
            return hit, False, None
        if self.family.failed(self.scenario, state):
            return hit, True, None
        return hit, False, self.family.next_goal(self.scenario, state)

    def screen(self, state: DeviceState, key: bytes) -> tuple[View, Layout]:
        """``view(scenario, state)`` and its layout (``key``: ``state_key(state)``), memoised."""
        hit = self._screens.get(key)
        if hit is None:
            if len(self._screens) >= self.memo_size:
                self._screens.clear()
            v = view(self.scenario, state)
            hit = self._screens[key] = (v, layout(v, self.width, self.height))
        return hit

    def step(self, state: DeviceState, key: bytes, ev: Event, v: View | None = None) -> tuple[DeviceState, bytes]:
        """``apply(scenario, state, ev, v)`` and its key, memoised by ``(key, ev)`` (and the
        value's type: ``True == 1``, but an input of ``True`` and of ``1`` store different text)."""
        memo = (key, ev, type(ev.value))
        hit = self._next.get(memo)
        if hit is None:
            if len(self._next) >= self.memo_size:
                self._next.clear()
            s = apply(self.scenario, state, ev, v)
            hit = self._next[memo] = (s, state_key(s))
        return hit

    def reference(self, state: DeviceState, key: bytes | None = None) -> list[RefStep] | None:
        key = key if key is not None else state_key(state)
        hit = self._cache.get(key, False)
        if hit is not False:
            return hit  # type: ignore[return-value]
        keys, steps = [key], []
        s, k, scenario = state, key, self.scenario
        result: list[RefStep] | None = None  # the reference from the last state reached
        for _ in range(MAX_STEPS):
            done, failed, goal = self._assess(s, k)
            if done:
                result = []
                break
            if failed or goal is None:
                break
            v, lay = self.screen(s, k)
            step = ground(scenario, s, v, lay, goal)
            if step is None:
                break
            steps.append(step)
            s, k = self.step(s, k, step.event, v)  # type: ignore[arg-type]
            hit = self._cache.get(k, False)
            if hit is not False:
                result = hit  # type: ignore[assignment]
                break
            keys.append(k)
        if len(self._cache) > self.cache_size:
            self._cache.clear()
        if result is None:  # dead end (or no plan within MAX_STEPS): so is every state on the way
            for k in keys:
                self._cache[k] = None
            return None
        full = steps + result
        for i, k in enumerate(keys):
            self._cache[k] = full[i:]
        return full
