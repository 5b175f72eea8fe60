"""TraceR1 stage 2: the grounded reward, on a small fake env with the guigym env API
(`FakeLoginEnv`, for hand-checked cases) and on the real environments
(`test_grounded_reward_real_env`)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guigym.actions import Back, Click, OpenApp, PlanStep, RefStep, Scroll, Type, format_plan
from guigym.events import Event
from guigym.rewards import Executor, grounded_reward, grounded_rewards

BOXES = {
    "user": (10, 10, 50, 30),
    "pw": (10, 40, 50, 60),
    "signin": (100, 100, 150, 130),
    "wifi": (200, 10, 220, 30),
    "list": (0, 200, 359, 599),
}


def _centre(box):
    return ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)


class FakeLoginEnv:
    """Task: type "alice" into the user field, then click Sign in. Exposes the API the
    grounded reward uses: ``unwrapped``, ``get_state``, ``set_state``, ``reference``, ``step``
    with ``info["event"]``. ``ref_override`` replaces the oracle (to test other events)."""

    def __init__(self, ref_override=None, dict_events=False):
        self.state = {"focus": None, "fields": {"user": "", "pw": ""}, "wifi": False, "scroll": 0, "app": "login", "done": False}
        self.ref_override = ref_override
        self.dict_events = dict_events
        self.steps_taken = 0
        self.fail_next_step = False

    @property
    def unwrapped(self):
        return self

    def get_state(self):
        return copy.deepcopy(self.state)

    def set_state(self, state):
        self.state = state  # deliberately no copy: the reward must not hand out its own dict

    def reference(self):
        if self.ref_override is not None:
            return list(self.ref_override)
        s = self.state
        if s["done"]:
            return []
        steps = []
        if s["fields"]["user"] != "alice":
            if s["focus"] != "user":
                steps.append(RefStep(Click(*_centre(BOXES["user"])), "user", BOXES["user"], "Click the user field", Event("click", "user")))
            steps.append(RefStep(Type("alice"), "user", None, "Type 'alice'", Event("input", "user", "alice")))
        steps.append(RefStep(Click(*_centre(BOXES["signin"])), "signin", BOXES["signin"], "Click 'Sign in'", Event("click", "signin")))
        return steps

    def _hit(self, x, y):
        for name, (x0, y0, x1, y1) in BOXES.items():
            if x0 <= x <= x1 and y0 <= y <= y1:
                return name
        return None

    def step(self, action):
        if self.fail_next_step:
            self.state["fields"]["user"] = "CORRUPTED"
            raise RuntimeError("backend crashed")
        self.steps_taken += 1
        s = self.state
        event = None
        if isinstance(action, Click):
            w = self._hit(action.x, action.y)
            if w == "wifi":
                s["wifi"] = not s["wifi"]
                event = Event("toggle", "wifi", s["wifi"])
            elif w in ("user", "pw"):
                s["focus"] = w
                event = Event("click", w)
            elif w == "signin":
                s["done"] = s["fields"]["user"] == "alice"
                event = Event("click", "signin")
        elif isinstance(action, Type):
            if s["focus"] is not None:
                s["fields"][s["focus"]] = action.text
                event = Event("input", s["focus"], action.text)
        elif isinstance(action, Scroll):
            d = {"down": 3, "up": -3}.get(action.direction)
            if d is not None:
                s["scroll"] += d
                event = Event("scroll", "list", d)
        elif isinstance(action, Back):
            event = Event("back")
        elif isinstance(action, OpenApp):
            s["app"] = action.name.lower()
            event = Event("open_app", None, action.name)
        if self.dict_events and event is not None:
            event = event.to_dict()
        return {"screenshot": None}, 0.0, s["done"], False, {"event": event}


class CountingWrapper:
    """A wrapper like TimeLimit: its own step counter must not move."""

    def __init__(self, env):
        self.env = env
        self.elapsed = 0

    @property
    def unwrapped(self):
        return self.env.unwrapped

    def step(self, action):
        self.elapsed += 1
        return self.env.step(action)


def focused_state(env):
    env.step(Click(*_centre(BOXES["user"])))
    return env.get_state()


class InstructionExecutor:
    """Grounds "Click the <widget> ..." to the widget's centre, "Type '<text>'" to Type."""

    def __init__(self):
        self.calls = []

    def __call__(self, env, step):
        self.calls.append(step)
        if step.action_type == "click":
            for name, box in BOXES.items():
                if name in step.instruction.lower().replace("sign in", "signin"):
                    return Click(*_centre(box))
            return None
        if step.action_type == "type" and "'" in step.instruction:
            return Type(step.instruction.split("'")[1])
        return None


def test_executor_satisfies_protocol():
    assert isinstance(InstructionExecutor(), Executor)


@pytest.mark.parametrize(
    "pred, expected",
    [
        (Click(30, 20), 1.0),  # the user field
        (Click(10, 10), 1.0),  # its corner
        (Click(9, 10), 0.0),  # just outside
        (Click(125, 115), 0.0),  # another widget: wrong event
        (Click(300, 100), 0.0),  # nothing: no event
        (Type("alice"), 0.0),  # nothing focused yet: no event
        (Back(), 0.0),
        (PlanStep(action=Click(20, 20), instruction="Click the user field"), 1.0),
        (PlanStep(action_type="click", instruction="Click the user field"), 0.0),  # ungrounded, no executor
        (None, 0.0),
        ('<think>t</think><answer>[{"action": "click", "coordinate": [20, 20]}]</answer>', 1.0),
        ('[{"action": "click", "coordinate": [20, 20]}]', 1.0),  # no answer tags: the whole text
        ('<answer>[{"action": "click", "coordinate": [90, 20]}]</answer>', 0.0),
        ("<answer>garbage</answer>", 0.0),
        ("", 0.0),
    ],
)
def test_grounded_reward_from_start(pred, expected):
    env = FakeLoginEnv()
    before = env.get_state()
    assert grounded_reward(env, pred) == expected
    assert env.get_state() == before


@pytest.mark.parametrize(
    "pred, expected",
    [
        (Type("alice"), 1.0),
        (Type("Alice"), 0.0),  # input compares the value exactly
        (Type("alice "), 0.0),
        (Click(30, 20), 0.0),  # the reference's first step is now the Type
        (PlanStep(action_type="type", instruction="Type 'alice'"), 0.0),  # no executor
    ],
)
def test_grounded_reward_after_focus(pred, expected):
    env = FakeLoginEnv()
    s = focused_state(env)
    assert grounded_reward(env, pred) == expected
    assert env.get_state() == s


def test_grounded_reward_with_executor():
    env = FakeLoginEnv()
    ex = InstructionExecutor()
    step = PlanStep(action_type="click", instruction="Click the user field")
    assert grounded_reward(env, step, executor=ex) == 1.0
    assert ex.calls == [step]
    assert grounded_reward(env, PlanStep(action_type="click", instruction="Click 'Sign in'"), executor=ex) == 0.0
    assert grounded_reward(env, PlanStep(action_type="click", instruction="Click the moon"), executor=ex) == 0.0  # None
    # a grounded step never goes through the executor
    assert grounded_reward(env, PlanStep(action=Click(300, 300), instruction="Click the user field"), executor=ex) == 0.0
    assert len(ex.calls) == 3
    # an executor may hand back a grounded plan step
    assert grounded_reward(env, step, executor=lambda e, s: PlanStep(action=Click(20, 20))) == 1.0
    # ungrounded plan text goes through the executor too
    text = "<think>t</think>" + format_plan([PlanStep(action_type="click", instruction="Click the user field")])
    assert grounded_reward(env, text) == 0.0
    assert grounded_reward(env, text, executor=ex) == 1.0
    s = focused_state(env)
    assert grounded_reward(env, PlanStep(action_type="type", instruction="Type 'alice'"), executor=ex) == 1.0
    assert env.get_state() == s


def test_empty_reference_scores_zero():
    env = FakeLoginEnv()
    env.step(Click(30, 20))
    env.step(Type("alice"))
    env.step(Click(125, 115))
    assert env.reference() == []
    s = env.get_state()
    assert grounded_reward(env, Click(125, 115)) == 0.0
    assert env.get_state() == s


def test_state_argument_restores_and_is_not_aliased():
    env = FakeLoginEnv()
    start = env.get_state()
    focused = focused_state(env)
    saved = copy.deepcopy(start)
    # from the start state, while the env is elsewhere: the env is left in `state`
    assert grounded_reward(env, Click(30, 20), state=start) == 1.0
    assert env.get_state() == start
    assert start == saved  # the caller's dict was not mutated by the step
    assert grounded_reward(env, Type("alice"), state=focused) == 1.0
    assert env.get_state() == focused
    # the env's live state is not the caller's dict either
    env.state["fields"]["pw"] = "x"
    assert focused["fields"]["pw"] == ""


def test_restores_state_when_the_step_raises():
    env = FakeLoginEnv()
    s = env.get_state()
    env.fail_next_step = True
    with pytest.raises(RuntimeError):
        grounded_reward(env, Click(30, 20))
    assert env.get_state() == s


def test_steps_the_unwrapped_env_leaving_wrappers_alone():
    inner = FakeLoginEnv()
    env = CountingWrapper(inner)
    assert grounded_reward(env, Click(30, 20)) == 1.0
    assert env.elapsed == 0 and inner.steps_taken == 1


def test_grounded_rewards_group():
    env = FakeLoginEnv()
    ex = InstructionExecutor()
    s = env.get_state()
    preds = [Click(30, 20), Click(125, 115), PlanStep(action_type="click", instruction="Click the user field"), Click(31, 21), "junk"]
    assert grounded_rewards(env, preds, executor=ex) == [1.0, 0.0, 1.0, 1.0, 0.0]
    assert env.get_state() == s
    assert grounded_rewards(env, []) == []
    focused = focused_state(env)
    assert grounded_rewards(env, [Type("alice"), Click(30, 20)], state=s) == [0.0, 1.0]
    assert env.get_state() == s
    assert grounded_rewards(env, [Type("alice"), Type("bob")], state=focused) == [1.0, 0.0]
    assert env.get_state() == focused


def _ref(action, event, target=None, box=None):
    return RefStep(action, target, box, "", event)


@pytest.mark.parametrize(
    "ref, pred, expected",
    [
        # toggle: the same value
        (_ref(Click(210, 20), Event("toggle", "wifi", True), "wifi", BOXES["wifi"]), Click(205, 15), 1.0),
        (_ref(Click(210, 20), Event("toggle", "wifi", False), "wifi", BOXES["wifi"]), Click(205, 15), 0.0),
        # scroll: the same direction, any distance
        (_ref(Scroll("down"), Event("scroll", "list", 1), "list"), Scroll("down"), 1.0),
        (_ref(Scroll("down"), Event("scroll", "list", 1), "list"), Scroll("up"), 0.0),
        (_ref(Scroll("down"), Event("scroll", "list", 1), "list"), Scroll("left"), 0.0),  # no event
        # open_app: the same name, case-insensitively
        (_ref(OpenApp("Mail"), Event("open_app", None, "Mail")), OpenApp("mail"), 1.0),
        (_ref(OpenApp("Mail"), Event("open_app", None, "Mail")), OpenApp("Maps"), 0.0),
        # back
        (_ref(Back(), Event("back")), Back(), 1.0),
        (_ref(Back(), Event("back")), OpenApp("Mail"), 0.0),
        # a reference step without an event: the coordinate rule
        (_ref(Click(30, 20), None, "user", BOXES["user"]), Click(11, 11), 1.0),
        (_ref(Click(30, 20), None, "user", BOXES["user"]), Click(300, 300), 0.0),
        (_ref(Back(), None), Back(), 1.0),
    ],
)
def test_event_kinds(ref, pred, expected):
    for dict_events in (False, True):
        env = FakeLoginEnv(ref_override=[ref], dict_events=dict_events)
        s = env.get_state()
        assert grounded_reward(env, pred) == expected
        assert env.get_state() == s


@given(st.integers(0, 359), st.integers(0, 639))
def test_click_reward_is_hit_test_and_state_is_restored(x, y):
    env = FakeLoginEnv()
    s = env.get_state()
    x0, y0, x1, y1 = BOXES["user"]
    assert grounded_reward(env, Click(x, y)) == float(x0 <= x <= x1 and y0 <= y <= y1)
    assert env.get_state() == s


def test_unknown_fmt_raises():
    with pytest.raises(ValueError):
        grounded_reward(FakeLoginEnv(), Click(1, 1), fmt="yaml")


@pytest.mark.parametrize("env_id", ["GuiGym-Login-v0", "GuiGym-Settings-v0", "GuiGym-Launcher-v0"])
def test_grounded_reward_real_env(env_id):
    """On the real env: the reference's first action scores 1, a miss scores 0, an
    ungrounded step scores through an executor, and the env is left where it was."""
    import gymnasium as gym

    import guigym  # noqa: F401
    from guigym.actions import Back, Click, PlanStep

    env = gym.make(env_id, level="medium")
    for seed in range(10):
        obs, info = env.reset(seed=seed)
        before = env.unwrapped.get_state()
        ref = info["reference"]
        assert grounded_reward(env, ref[0].action) == 1.0
        assert grounded_reward(env, Click(1, 1)) == 0.0  # the status bar: nothing there
        wrong = Back() if not isinstance(ref[0].action, Back) else Click(1, 1)
        assert grounded_rewards(env, [ref[0].action, wrong]) == [1.0, 0.0]
        assert env.unwrapped.get_state() == before
        assert env.unwrapped.observe()["screenshot"].tobytes() == obs["screenshot"].tobytes()

        def by_box(e, step):  # a perfect executor: the reference's own grounding
            return e.unwrapped.reference()[0].action

        ungrounded = PlanStep(action=None, action_type=ref[0].action.type, instruction=ref[0].instruction)
        assert grounded_reward(env, ungrounded, executor=by_box) == 1.0
        assert grounded_reward(env, ungrounded) == 0.0  # no executor: cannot ground
        # from another saved state: after the first reference step
        env.step(ref[0].action)
        later = env.unwrapped.get_state()
        env.unwrapped.set_state(before)
        assert grounded_reward(env, ref[1].action, state=later) == 1.0
        assert env.unwrapped.get_state() == later  # left in `state`


@pytest.mark.parametrize("env", [None, object(), "GuiGym-Login-v0"])
def test_something_that_is_no_env_is_a_type_error(env):
    with pytest.raises(TypeError, match=r'grounded_reward needs a guigym env \(gym.make\("GuiGym-..."\)\), got'):
        grounded_reward(env, Back())
    with pytest.raises(TypeError, match="grounded_rewards needs a guigym env"):
        grounded_rewards(env, [Back()])
