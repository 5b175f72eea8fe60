"""Second audit of the reward logic against the two papers (TraceR1 stage 2: the grounded reward
judges the executed first step), each test with the fault it found."""

from __future__ import annotations

import copy

import pytest

from guigym.actions import Back, Click, RefStep, Type
from guigym.events import Event
from guigym.rewards import argument_reward, grounded_reward, grounded_rewards, iou_argument_reward
from guigym.rewards._common import events_match
from tests.conftest import make

#: Later steps no parser accepts, after a first step that is the reference's (``{x}``, ``{y}``).
TAILS = {
    "json": [
        '<think>t</think><answer>[{{"action": "click", "coordinate": [{x}, {y}]}}, {{"action": "fly"}}]</answer>',
        '<think>t</think><answer>[{{"action": "click", "coordinate": [{x}, {y}]}}, {{"action": "click"}}]</answer>',
        '<answer>[{{"action": "click", "coordinate": [{x}, {y}]}}, {{"action": "scroll", "direction": "sideways"}}]</answer>',
        '[{{"action": "click", "coordinate": [{x}, {y}]}}, {{"action": "type"}}]',
    ],
    "function": [
        "<think>t</think><answer>click(x={x}, y={y})\nfly(speed=3)</answer>",
        "click(x={x}, y={y})\nscroll(direction='sideways')",
    ],
    "mobile_use": [
        '<tool_call>{{"name": "mobile_use", "arguments": {{"action": "click", "coordinate": [{x}, {y}]}}}}</tool_call>\n'
        '<tool_call>{{"name": "mobile_use", "arguments": {{"action": "fly"}}}}</tool_call>',
        '<tool_call>{{"name": "mobile_use", "arguments": {{"action": "click", "coordinate": [{x}, {y}]}}}}</tool_call>\n'
        '<tool_call>{{"name": "mobile_use", "argu',  # cut off in the second call
    ],
}


def _env_hit(env, text, ref0) -> float:
    """1 if ``env.step(text)`` (what the env executes of a model's text) produces ``ref0``'s event;
    the env is put back."""
    u = env.unwrapped
    s = u.get_state()
    try:
        info = u.step(text)[-1]
    finally:
        u.set_state(s)
    return 1.0 if events_match(info.get("event"), ref0.event) else 0.0


@pytest.fixture(scope="module")
def login():
    env = make("GuiGym-Login-v0", level="easy")
    yield env
    env.close()


@pytest.mark.parametrize("fmt", sorted(TAILS))
def test_grounded_reward_of_text_judges_the_first_step_not_the_later_ones(login, fmt):
    """TraceR1 stage 2 executes the plan's FIRST step and rewards ``1[it hits]``; the rest of
    the plan is not executed and the stage-2 reward has no format term. ``grounded_reward(env,
    text)`` parsed the whole plan, so a right first step followed by a step the parser rejects
    (an unknown action, a click without its point, a tool call cut off) scored 0 — while
    ``env.step(text)`` executes that first step and produces exactly the reference's event. It
    now reads the first step only, as ``env.step`` reads it."""
    for seed in range(3):
        _, info = login.reset(seed=seed)
        ref0 = info["reference"][0]
        assert isinstance(ref0.action, Click)
        before = login.unwrapped.get_state()
        x0, y0, x1, y1 = ref0.box
        for tmpl in TAILS[fmt]:
            right = tmpl.format(x=ref0.action.x, y=ref0.action.y)
            wrong = tmpl.format(x=x1 + 1 if x1 < 350 else x0 - 1, y=y0)  # just outside the target
            assert _env_hit(login, right, ref0) == 1.0  # what the env does with the text
            assert grounded_reward(login, right, fmt=fmt) == 1.0, right
            assert grounded_reward(login, right, fmt=None) == 1.0  # auto-detected, as env.step reads it
            assert grounded_reward(login, wrong, fmt=fmt) == _env_hit(login, wrong, ref0) == 0.0
            assert grounded_rewards(login, [right, wrong, "no plan"], fmt=fmt) == [1.0, 0.0, 0.0]
        assert login.unwrapped.get_state() == before  # restored


def test_grounded_reward_of_text_judges_the_step_env_step_executes(login):
    """The grounded reward read the ``<answer>`` block first, wherever it was: a Type whose text
    holds an answer block (the whole text a valid JSON plan) was scored as the click inside its
    string, which ``env.step(text)`` never executes (it types the text). Both now read the
    whole text first, the answer block only where the whole does not parse."""
    _, info = login.reset(seed=0)
    ref0 = info["reference"][0]
    inner = "<answer>[{'action': 'click', 'coordinate': [%d, %d]}]</answer>" % (ref0.action.x, ref0.action.y)
    text = '[{"action": "type", "text": "%s"}]' % inner
    assert _env_hit(login, text, ref0) == 0.0  # the env types; no click
    assert grounded_reward(login, text, fmt="json") == 0.0
    assert grounded_reward(login, inner, fmt="json") == 1.0  # the click alone is the step


class _NoEventEnv:
    """An env (the API the grounded reward needs) whose reference steps carry no event: the
    reward falls back to comparing arguments."""

    def __init__(self, ref):
        self.ref, self.state, self.unwrapped = ref, {"n": 0}, self

    def get_state(self):
        return copy.deepcopy(self.state)

    def set_state(self, s):
        self.state = copy.deepcopy(s)

    def reference(self):
        return list(self.ref)

    def step(self, action):
        self.state["n"] += 1
        return None, 0.0, False, False, {}


@pytest.mark.parametrize("typed, expected", [("alice", 1.0), ("ALICE", 0.0), ("alice ", 0.0), ("alice  smith", 0.0)])
def test_grounded_fallback_without_an_event_compares_typed_text_exactly(typed, expected):
    """Where the reference step has no event, the reward compared arguments with UI-R1's
    ``argument_reward == 1``, whose typed-text rule is token F1 of the lower-cased texts: "ALICE"
    for "alice" (which the ``input`` event rule, and guigym's apps, reject) scored 1."""
    ref = RefStep(Type("alice" if "smith" not in typed else "alice smith"), "user", None, "Type 'alice'")
    assert argument_reward(Type(typed), ref) == 1.0  # UI-R1's token F1 is lenient (on purpose; its own reward)
    env = _NoEventEnv([ref])
    assert grounded_reward(env, Type(typed)) == expected
    assert env.state == {"n": 0}


def test_grounded_fallback_without_an_event_keeps_the_other_rules():
    click = RefStep(Click(30, 20), "ok", (10, 10, 50, 30), "Click OK")
    env = _NoEventEnv([click])
    assert [grounded_reward(env, a) for a in (Click(10, 30), Click(51, 20), Back(), Type("ok"))] == [1.0, 0.0, 0.0, 0.0]
    assert grounded_reward(_NoEventEnv([RefStep(Back(), None, None, "Go back")]), Back()) == 1.0
    # with an event, the event decides (the fake env reports none: a miss)
    with_event = RefStep(Click(30, 20), "ok", (10, 10, 50, 30), "Click OK", Event("click", "ok"))
    assert grounded_reward(_NoEventEnv([with_event]), Click(30, 20)) == 0.0


@pytest.mark.parametrize("half", [0, -5, -20.0])
def test_iou_reward_needs_a_square_with_an_area(half):
    """``iou_argument_reward(half=0)`` (or a negative half) made a square of no area: every
    click, even one in the middle of its target, scored IoU 0, silently."""
    ref = RefStep(Click(30, 20), "ok", (10, 0, 50, 40), "Click OK")
    with pytest.raises(ValueError, match="half must be > 0"):
        iou_argument_reward(Click(30, 20), ref, half=half)
    assert iou_argument_reward(Click(30, 20), ref, half=0.5) > 0.0
    assert iou_argument_reward(Click(30, 20), ref, half=20) == 1.0
