"""Gymnasium API compliance, as a user with standard Gymnasium tooling meets it: the passive
checker, specs, seeding, render, close, Gymnasium's own wrappers and vector wrappers, for every
registered id where cheap (Minigrid-style). ``tests/test_envs.py`` runs ``check_env`` per id x level."""

from __future__ import annotations

import contextlib
import io
import pickle
import warnings

import gymnasium as gym
import numpy as np
import pygame
import pytest
from gymnasium import wrappers
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils.env_checker import check_env

from guigym.registration import ENVS, family_of
from tests.conftest import IDS, follow_reference, make

LOGIN = "GuiGym-Login-v0"


def _same_obs(a: dict, b: dict) -> bool:
    return a["instruction"] == b["instruction"] and np.array_equal(a["screenshot"], b["screenshot"])


@pytest.mark.parametrize("env_id", IDS)
def test_gym_make_env_warns_nothing(env_id: str) -> None:
    """gym.make adds the passive checker: reset, steps (a reset at the end of an episode) and render warn nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gym.make(env_id, render_mode="rgb_array")
        env.action_space.seed(0)
        obs, _ = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        for _ in range(4):
            obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
            assert env.observation_space.contains(obs) and obs["screenshot"].dtype == np.uint8
            if terminated or truncated:
                env.reset()
        frame = env.render()
        assert frame.dtype == np.uint8 and frame.shape == env.observation_space["screenshot"].shape
        env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_and_every_observation_in_the_space_with_variation_and_extra_obs(env_id: str) -> None:
    """Varied looks (themes, fonts, densities, layouts, pop-ups) keep the screenshot's shape: every
    observation of an oracle and a random episode is in observation_space, dtypes exact."""
    env = make(env_id, level="hard", variation="all", split="test", extra_obs=("elements", "history"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    space = env.observation_space
    obs, info = env.reset(seed=2)
    seen = [obs]
    while info["reference"]:
        obs, _, terminated, _, info = env.step(info["reference"][0].action)
        seen.append(obs)
        if terminated:
            break
    env.action_space.seed(2)
    seen.append(env.reset(seed=3)[0])
    seen += [env.step(env.action_space.sample())[0] for _ in range(10)]
    for o in seen:
        assert space.contains(o) and o["screenshot"].dtype == np.uint8
        assert all(e["box"].dtype == np.int32 for e in o["elements"])


@pytest.mark.parametrize("env_id", IDS)
def test_a_spec_makes_the_same_env(env_id: str) -> None:
    """gym.make(spec), the spec through JSON and through pickle: the kwargs (level, a variation dict,
    split, viewport, max_episode_steps) travel with it, so the same seed gives the same first screen."""
    level = family_of(next(e for e in ENVS if e.id == env_id)).levels[-1]
    kw = {"level": level, "variation": {"theme": "orange", "popup": "sample"}, "split": "test", "viewport": (400, 700)}
    env = gym.make(env_id, max_episode_steps=7, **kw)
    first, _ = env.reset(seed=4)
    assert {k: env.spec.kwargs[k] for k in kw} == kw and env.spec.max_episode_steps == 7
    for spec in (env.spec, EnvSpec.from_json(env.spec.to_json()), pickle.loads(pickle.dumps(env.spec))):
        again = gym.make(spec)
        assert again.spec.max_episode_steps == 7 and again.unwrapped.level == level
        assert _same_obs(again.reset(seed=4)[0], first)
    preset = gym.make(env_id, variation="all", split="test")
    assert _same_obs(gym.make(preset.spec).reset(seed=1)[0], preset.reset(seed=1)[0])


def test_registry_and_spec_fields() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        gym.pprint_registry()
    assert all(i in out.getvalue() for i in IDS)
    for e in ENVS:
        spec = gym.spec(e.id)
        assert spec.max_episode_steps == e.max_episode_steps and spec.nondeterministic is False
        assert spec.kwargs == {"family": e.family} and spec.vector_entry_point == "guigym.vector:make_vector"
    env = gym.make("guigym:" + LOGIN, level="medium")
    assert env.spec.id == LOGIN and env.spec.kwargs["level"] == "medium"
    assert gym.make(LOGIN).metadata["render_fps"] > 0


@pytest.mark.parametrize("env_id", IDS)
def test_unseeded_resets_follow_the_seed(env_id: str) -> None:
    """reset(seed=s) then resets without a seed: the same sequence in another env (variation too)."""
    a, b = make(env_id, variation="all"), make(env_id, variation="all")
    a.reset(seed=11)
    b.reset(seed=11)
    seq_a = [a.reset()[0] for _ in range(3)]
    seq_b = [b.reset()[0] for _ in range(3)]
    assert all(_same_obs(x, y) for x, y in zip(seq_a, seq_b))
    assert len({o["instruction"] for o in seq_a}) > 1


def test_np_random_is_what_generates_episodes() -> None:
    """Gymnasium lets users set env.np_random: the next reset draws from it, as reset(seed=) would."""
    env = make(LOGIN, variation="all").unwrapped
    env.np_random = np.random.default_rng(5)
    assert _same_obs(env.reset()[0], env.reset(seed=5)[0])


def test_space_seeds_make_samples_repeat() -> None:
    def samples(space: gym.spaces.Space, seed: int) -> list:
        space.seed(seed)
        return [space.sample() for _ in range(3)]

    a, b = make(LOGIN, extra_obs=("elements", "history")), make(LOGIN, extra_obs=("elements", "history"))
    assert repr(samples(a.action_space, 3)) == repr(samples(b.action_space, 3))
    oa, ob = samples(a.observation_space, 3), samples(b.observation_space, 3)
    assert all(_same_obs(x, y) and repr(x["elements"]) == repr(y["elements"]) for x, y in zip(oa, ob))
    assert all(a.observation_space.contains(o) for o in oa)


@pytest.mark.parametrize("env_id", IDS)
def test_render_before_reset_is_reset_needed(env_id: str) -> None:
    """The raw env used to return None before the first reset, even with render_mode="rgb_array"."""
    for mode in (None, "rgb_array", "human"):
        env = make(env_id, render_mode=mode)
        for e in (env, env.unwrapped):
            with pytest.raises(gym.error.ResetNeeded):
                e.render()
        env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_close_twice_and_step_before_reset_or_after_close(env_id: str) -> None:
    env = gym.make(env_id)
    env.close()  # before reset
    for e in (env, env.unwrapped):
        with pytest.raises(gym.error.ResetNeeded):
            e.step(env.action_space.sample())
    obs, _ = env.reset(seed=0)
    env.close()
    env.close()
    # a closed env starts a new renderer on its next call, on the same screen (README: Copies)
    assert np.array_equal(env.render(), obs["screenshot"])
    env.step(env.action_space.sample())
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_a_step_after_terminated_goes_on_from_the_final_state(env_id: str) -> None:
    """Documented (GuiEnv's docstring): no exception; the app goes on and reports its own state."""
    env = make(env_id)
    env.action_space.seed(0)
    _, info = env.reset(seed=0)
    run = follow_reference(env, info, 200)
    assert run.success and run.terminated[-1:] == [True]
    for _ in range(5):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs) and type(terminated) is bool
        assert terminated == (info["success"] or info["reference"] == [])


def _window_pixels() -> np.ndarray:
    return pygame.surfarray.array3d(pygame.display.get_surface()).transpose(1, 0, 2)


def test_closing_one_human_env_leaves_anothers_window_working() -> None:
    """pygame has one window per process: closing one human-mode env quit the display, and the
    other's next step raised 'display Surface quit' (check_env of a human env made and closed one)."""
    a, b = make(LOGIN, render_mode="human"), make("GuiGym-Settings-v0", render_mode="human")
    a.reset(seed=0)
    b.reset(seed=0)
    b.close()
    obs, *_ = a.step(a.action_space.sample())
    assert np.array_equal(_window_pixels(), obs["screenshot"])
    check_env(a.unwrapped)  # makes and closes envs of every render mode
    obs, *_ = a.step(a.action_space.sample())
    assert np.array_equal(_window_pixels(), obs["screenshot"])
    a.close()
    assert not pygame.display.get_init()  # the last window closed: the display too


def test_human_envs_of_other_sizes_take_turns_in_the_window() -> None:
    """It used to raise 'array must match surface dimensions' once another env resized the window."""
    a, b = make(LOGIN, render_mode="human"), make(LOGIN, render_mode="human", viewport="landscape")
    for env in (a, b, a):
        obs, _ = env.reset(seed=0)
        assert np.array_equal(_window_pixels(), obs["screenshot"])
    pygame.display.quit()  # someone else quits the display: the next render opens it again
    obs, *_ = b.step(b.action_space.sample())
    assert np.array_equal(_window_pixels(), obs["screenshot"])
    a.close()
    b.close()


def _episode(env: gym.Env, steps: int = 6) -> list:
    env.action_space.seed(0)
    obs, _ = env.reset(seed=0)
    out = [obs]
    for _ in range(steps):
        obs, _, terminated, truncated, info = env.step(env.action_space.sample())
        out.append(obs)
        if terminated or truncated:
            break
    return out


def test_gymnasium_wrappers_on_the_image_env() -> None:
    stats = wrappers.RecordEpisodeStatistics(gym.make(LOGIN, max_episode_steps=4))
    _episode(stats)
    assert stats.episode_count == 1 and list(stats.length_queue) == [4]
    limited = wrappers.TimeLimit(gym.make(LOGIN, max_episode_steps=None), 3)
    assert len(_episode(limited)) == 4
    only = wrappers.FilterObservation(gym.make(LOGIN), ["screenshot"])
    assert all(list(o) == ["screenshot"] and only.observation_space.contains(o) for o in _episode(only))
    half = gym.spaces.Box(0, 255, (320, 180, 3), np.uint8)
    small = wrappers.TransformObservation(gym.make(LOGIN), lambda o: o["screenshot"][::2, ::2], half)
    assert all(half.contains(o) for o in _episode(small))
    for extra in ((), ("elements", "history")):  # the text as code points (UnicodeText), elements a Sequence
        flat = wrappers.FlattenObservation(gym.make(LOGIN, extra_obs=extra))
        assert all(flat.observation_space.contains(o) for o in _episode(flat))
    pixels = wrappers.AddRenderObservation(gym.make(LOGIN, render_mode="rgb_array"), render_only=False)
    assert all(pixels.observation_space.contains(o) and np.array_equal(o["pixels"], o["screenshot"]) for o in _episode(pixels))
    stacked = wrappers.FrameStackObservation(gym.make(LOGIN), 2)
    assert all(stacked.observation_space.contains(o) for o in _episode(stacked))


def test_vector_wrappers_on_a_sync_vector_env() -> None:
    venv = gym.wrappers.vector.RecordEpisodeStatistics(gym.make_vec(LOGIN, 2, vectorization_mode="sync", max_episode_steps=3))
    obs, _ = venv.reset(seed=0)
    assert venv.observation_space.contains(obs)
    for _ in range(3):
        obs, _, _, truncated, info = venv.step(venv.action_space.sample())
        assert venv.observation_space.contains(obs)
    assert truncated.all() and list(info["episode"]["l"]) == [3, 3]
    venv.close()
    flat = gym.wrappers.vector.FlattenObservation(gym.make_vec(LOGIN, 2, vectorization_mode="sync"))
    obs, _ = flat.reset(seed=0)
    assert flat.observation_space.contains(obs)
    flat.close()
