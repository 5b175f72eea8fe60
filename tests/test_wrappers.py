"""SB3 wrappers: SB3's own check_env, the action layout, and a short PPO run."""

from __future__ import annotations

import doctest
import re

import numpy as np
import pytest

from guigym.actions import Answer, Type
import guigym.wrappers as wrappers
from guigym.wrappers import DiscreteActions, NumericObservation, instruction_spans, make_sb3_env
from tests.conftest import IDS, make


def test_doctests():
    assert doctest.testmod(wrappers).failed == 0


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("image_only", [False, True])
def test_sb3_check_env(env_id, image_only):
    from stable_baselines3.common.env_checker import check_env

    check_env(make_sb3_env(env_id, image_only=image_only), warn=True)


#: ids whose references type a fact read on screen (never in the instruction): DiscreteActions
#: types only instruction spans, so such a step is not expressible (as Answer is not)
TYPES_SCREEN_FACTS = {"GuiGym-CrossApp-v0"}


@pytest.mark.parametrize("env_id", IDS)
def test_reference_expressed_in_discrete_actions(env_id):
    """Every reference step maps to an index whose action does the same thing."""
    env = DiscreteActions(make(env_id))
    for seed in range(15):
        _, info = env.reset(seed=seed)
        carried = False
        while info["reference"]:
            step = info["reference"][0]
            if isinstance(step.action, Answer):  # a fact from the screen: no discrete action says it
                with pytest.raises(ValueError, match="no Answer block"):
                    env.index_of(step.action)
                break
            if (isinstance(step.action, Type) and env_id in TYPES_SCREEN_FACTS
                    and step.action.text not in instruction_spans(env.unwrapped.instruction, env.type_slots)):
                with pytest.raises(ValueError, match="not one of the instruction's"):  # it gave the last slot
                    env.index_of(step.action)
                carried = True  # the carried fact: checked up to here
                break
            _, _, term, trunc, info = env.step(env.index_of(step.action))
            assert info["event"] == step.event, (seed, step)
            if term or trunc:
                break
        assert info["success"] or isinstance(step.action, Answer) or carried, seed


def test_a_spare_type_slot_changes_nothing():
    """Login's spans fill fewer than 16 slots: the spare ones are a no-op, not an emptying Type("")."""
    env = DiscreteActions(make("GuiGym-Login-v0"))
    _, info = env.reset(seed=0)
    for _ in range(2):  # click the username field, type the username
        _, _, _, _, info = env.step(env.index_of(info["reference"][0].action))
    spans = instruction_spans(env.unwrapped.instruction, env.type_slots)
    assert len(spans) < env.type_slots
    before = env.unwrapped.get_state()
    _, _, _, _, info = env.step(env.action_space.n - 1)
    assert env.unwrapped.get_state()["state"] == before["state"] and info["action_error"] and info["event"] is None


def test_possessives_do_not_open_quotes_and_no_type_block_is_said():
    text = "Read Mallory Wright's address in Messages, then add it to a new note called 'Packing list'; then ..."
    assert instruction_spans(text, 2) == ["Packing list", "Read"]
    env = DiscreteActions(make("GuiGym-Login-v0"), type_slots=0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="type_slots=0"):  # it used to return another block's index
        env.index_of(Type("alice"))


def test_spans_and_bad_index():
    assert instruction_spans('Create "Trip plan" now', 2) == ["Trip plan", "Create"]
    env = DiscreteActions(make("GuiGym-Login-v0"))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="outside"):
        env.action(env.action_space.n)
    obs = NumericObservation(env).observation(env.unwrapped.observe())
    assert obs["image"].shape == (128, 72, 3) and obs["image"].dtype == np.uint8
    assert 0 < obs["instruction"].sum()


def test_short_ppo_run():
    from stable_baselines3 import PPO

    env = make_sb3_env("GuiGym-Login-v0", max_episode_steps=10)
    from stable_baselines3.common.logger import Logger

    model = PPO("MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, verbose=0, device="cpu")
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's default makes a /tmp/SB3-<time> folder
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=128)
    assert any(not np.allclose(a.numpy(), b.detach().numpy()) for a, b in zip(before, model.policy.parameters()))


@pytest.mark.parametrize("bad", [-0.5, 2.7, True, "3", None, float("nan"), np.array([3])])
def test_a_non_integer_action_index_is_a_value_error(bad):
    """int() took -0.5 for index 0, True for 1 and "3" for 3, and raised TypeError on None or a 1-element array."""
    env = DiscreteActions(make("GuiGym-Login-v0"))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action index"):
        env.action(bad)
    assert env.action(np.array(3)) == env.action(np.int64(3)) == env.action(3)  # a 0-d array (SB3's predict) still works


def test_previous_action_and_noop_penalty_read_the_raw_screenshot():
    """Over DiscreteActions alone (no NumericObservation) they used to fail with KeyError: 'image'."""
    from guigym.wrappers import NoEffectPenalty, PreviousAction

    env = PreviousAction(NoEffectPenalty(DiscreteActions(make("GuiGym-Login-v0")), penalty=0.5))
    obs, _ = env.reset(seed=0)
    assert "screenshot" in obs and not obs["prev_action"].any()
    obs, r, *_ = env.step(env.action_space.n - 1)  # a spare type slot: a no-op, the screen unchanged
    assert r == -0.5 and obs["prev_action"][-1] == 0.0 and obs["prev_action"][env.action_space.n - 1] == 1.0


@pytest.mark.parametrize("kw,says", [
    ({"grid": (0, 16)}, "grid[0] must be an integer >= 1"),  # index_of(Click) returned -1
    ({"grid": (9, -1)}, "grid[1] must be an integer >= 1"),
    ({"grid": (9,)}, "grid must be two integers"),
    ({"grid": (9.5, 16)}, "grid[0] must be an integer"),
    ({"type_slots": -1}, "type_slots must be an integer >= 0"),
    ({"prev_action": -1}, "prev_action must be an integer >= 0"),  # a numpy error
    ({"prev_action": 2, "image_only": True}, "not with image_only"),
    ({"noop_penalty": -0.1}, "noop_penalty must be a finite number >= 0"),  # rewarded no-ops, silently
    ({"noop_penalty": float("nan")}, "noop_penalty must be a finite number >= 0"),
    ({"image_size": (0, 64)}, "image_size[0] must be an integer >= 1"),
    ({"instruction_dim": 0}, "instruction_dim must be an integer >= 1"),
])
def test_bad_wrapper_settings_are_a_value_error_at_construction(kw, says, monkeypatch):
    import gymnasium as gym

    made = []
    real_make = gym.make
    monkeypatch.setattr(gym, "make", lambda *a, **k: made.append(a) or real_make(*a, **k))
    with pytest.raises(ValueError, match=re.escape(says)):
        make_sb3_env("GuiGym-Login-v0", **kw)
    assert not made  # checked before any env is made


def test_bad_settings_of_each_wrapper_are_a_value_error():
    from guigym.wrappers import NoEffectPenalty, PreviousAction

    with pytest.raises(ValueError, match=re.escape("grid[0] must be an integer >= 1")):
        DiscreteActions(make("GuiGym-Login-v0"), grid=(0, 4))
    with pytest.raises(ValueError, match="type_slots must be an integer >= 0"):
        DiscreteActions(make("GuiGym-Login-v0"), type_slots=-2)
    with pytest.raises(ValueError, match="penalty must be a finite number >= 0"):
        NoEffectPenalty(make("GuiGym-Login-v0"), penalty=-1.0)
    with pytest.raises(ValueError, match="k must be an integer >= 1"):
        PreviousAction(DiscreteActions(make("GuiGym-Login-v0")), k=0)
    with pytest.raises(ValueError, match="size must be two integers"):
        NumericObservation(make("GuiGym-Login-v0"), size=72)
    env = DiscreteActions(make("GuiGym-Login-v0"), grid=(1, 1), type_slots=np.int64(0))  # the smallest valid ones
    env.reset(seed=0)
    assert env.index_of(env.action(0)) == 0 and env.action_space.n == 1 + 4 + 1 + len(env.apps)


@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")  # check_env on a wrapped env, on purpose
@pytest.mark.parametrize("kw", [{"prev_action": 2, "noop_penalty": 0.25, "grid": (3, 8), "type_slots": 4},
                                {"image_only": True, "open_app": False, "image_size": (36, 64)}])
def test_gymnasium_check_env_and_the_spec_rebuild_the_wrapped_env(kw: dict) -> None:
    """The wrappers did not record their arguments: ``gym.make(env.spec)`` (and so Gymnasium's
    ``check_env``, whose close check makes the env anew from its spec) raised ValueError."""
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    env = make_sb3_env("GuiGym-Login-v0", level="medium", variation="all", **kw)
    check_env(env, skip_render_check=True)
    again = gym.make(env.spec)
    assert repr(again) == repr(env) and again.action_space == env.action_space
    assert again.observation_space == env.observation_space
    first, again_first = env.reset(seed=3)[0], again.reset(seed=3)[0]
    pairs = [(first, again_first)] if kw.get("image_only") else zip(first.values(), again_first.values())
    assert all(np.array_equal(a, b) for a, b in pairs)
    env.action_space.seed(0)
    for _ in range(30):  # what the wrapped env returns stays in its own space
        obs, _, term, trunc, _ = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
        if term or trunc:
            assert env.observation_space.contains(env.reset()[0])


@pytest.mark.parametrize("kw", [{"open_app": "no"}, {"image_only": "no"}, {"open_app": 0}, {"image_only": None}])
def test_flags_must_be_bools(kw: dict) -> None:
    """``open_app="no"`` was taken as True (any truthy value kept the OpenApp block, or made the
    observation image-only): a ``ValueError`` naming the flag, in make_sb3_env and in the wrappers."""
    name = next(iter(kw))
    with pytest.raises(ValueError, match=f"{name} must be True or False"):
        make_sb3_env("GuiGym-Login-v0", **kw)
    wrapper = DiscreteActions if name == "open_app" else NumericObservation
    with pytest.raises(ValueError, match=f"{name} must be True or False"):
        wrapper(make("GuiGym-Login-v0"), **kw)
    env = make_sb3_env("GuiGym-Login-v0", **{name: np.bool_(False)})  # a numpy bool is a bool
    assert env.get_wrapper_attr("apps" if name == "open_app" else "image_only") in ((), False)


def test_a_text_that_is_no_span_of_the_instruction_is_not_expressible():
    """Contacts hard types a whole name into search ("Mallory Wright"), which the instruction's
    spans hold only word by word: ``index_of`` returned the last Type slot (typing another text)."""
    env = DiscreteActions(make("GuiGym-Contacts-v0", level="hard"))
    found = False
    for seed in range(20):
        _, info = env.reset(seed=seed)
        spans = instruction_spans(env.unwrapped.instruction, env.type_slots)
        texts = [s.action.text for s in info["reference"] if isinstance(s.action, Type)]
        missing = [t for t in texts if t not in spans]
        for t in missing:
            found = True
            with pytest.raises(ValueError, match="not one of the instruction's"):
                env.index_of(Type(t))
        for t in texts:
            if t in spans:
                assert env.action(env.index_of(Type(t))) == Type(t)
    assert found


def test_a_non_guigym_env_is_a_type_error_at_construction() -> None:
    """DiscreteActions reads the GuiEnv's screen size, apps and instruction: on another env it
    was an AttributeError (``'CartPoleEnv' object has no attribute 'width'``) from inside."""
    import gymnasium as gym

    import guigym

    with pytest.raises(TypeError, match=r'DiscreteActions needs a guigym env \(gym.make\("GuiGym-\.\.\."\)\), got CartPoleEnv'):
        DiscreteActions(gym.make("CartPole-v1"))
    env = NumericObservation(DiscreteActions(make("GuiGym-Login-v0")))
    assert guigym.gui_env(env) is env.unwrapped  # the checked accessor, through any wrappers
    with pytest.raises(TypeError, match="record_state=True needs a guigym env"):
        guigym.gui_env(gym.make("CartPole-v1"), "record_state=True")
