"""Gymnasium API audit: what ``tests/test_gym_api.py`` does not already cover. The oracle's
actions written in the ``Dict`` form of ``action_space`` (every reference step is a sample
the space contains, and :func:`guigym.spaces.action_from_space` gives the same action back),
and every observation in ``observation_space`` on the smallest and a large viewport and on
the German test split, for every registered id."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

from guigym.actions import DIRECTIONS, Action, Answer, Back, Click, OpenApp, Scroll, Type
from guigym.layout import MIN_VIEWPORT
from guigym.registration import ENVS, family_of
from guigym.spaces import action_from_space
from tests.conftest import IDS, make


def _as_space_sample(a: Action, apps: tuple[str, ...]) -> dict[str, Any]:
    """``a`` as a sample of the env's ``Dict`` action space (fields the type does not use: 0 / "")."""
    d: dict[str, Any] = {"type": 0, "x": 0, "y": 0, "direction": 0, "app": 0, "text": ""}
    if isinstance(a, Click):
        d.update(type=0, x=a.x, y=a.y)
    elif isinstance(a, Scroll):
        assert a.x is not None and a.y is not None, f"{a}: the Dict space's Scroll always has a point"
        d.update(type=1, x=a.x, y=a.y, direction=DIRECTIONS.index(a.direction))
    elif isinstance(a, Back):
        d.update(type=2)
    elif isinstance(a, OpenApp):
        assert a.name in apps, f"{a}: not one of the env's apps {apps}"
        d.update(type=3, app=apps.index(a.name))
    elif isinstance(a, Type):
        d.update(type=4, text=a.text)
    else:
        assert isinstance(a, Answer)
        d.update(type=5, text=a.text)
    return d


def _levels(env_id: str) -> tuple[str, ...]:
    return tuple(family_of(next(e for e in ENVS if e.id == env_id)).levels)


@pytest.mark.parametrize("env_id", IDS)
def test_oracle_actions_round_trip_through_the_dict_action_space(env_id: str) -> None:
    env = make(env_id, variation="all", split="test")
    u = env.unwrapped
    for level in _levels(env_id):
        _, info = env.reset(seed=1, options={"level": level})
        for _ in range(60):
            if not info["reference"]:
                break
            step = info["reference"][0]
            d = _as_space_sample(step.action, u.apps)
            assert env.action_space.contains(d), (level, step.action)
            assert action_from_space(d, u.apps, answer=u.family.asks_questions) == step.action
            _, _, terminated, _, info = env.step(d)
            assert info["action_error"] is None and info["event"] == step.event, (level, step)
            if terminated:
                break
        assert info["success"], level
    env.close()


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("kw", [{"viewport": MIN_VIEWPORT}, {"viewport": "tablet"},
                                {"variation": {"language": "de"}, "split": "test"}], ids=["min", "tablet", "de-test"])
def test_every_observation_in_the_space_on_other_viewports_and_the_german_test_split(env_id: str, kw: dict) -> None:
    env = gym.make(env_id, level=_levels(env_id)[-1], extra_obs=("elements", "history"), **kw)
    space = env.observation_space
    obs, info = env.reset(seed=0)
    assert space.contains(obs)
    for _ in range(40):  # the oracle's episode
        if not info["reference"]:
            break
        obs, _, terminated, truncated, info = env.step(info["reference"][0].action)
        assert space.contains(obs)
        if terminated or truncated:
            break
    env.action_space.seed(0)
    assert space.contains(env.reset(seed=1)[0])
    for _ in range(10):  # and a random one
        obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
        assert space.contains(obs)
        if terminated or truncated:
            assert space.contains(env.reset()[0])
    env.close()


def test_long_element_labels_and_ids_are_cut_to_the_space() -> None:
    """Files' Move picker shows "…/" and a folder name, up to 256 characters typed by the agent
    (258 in all), or a whole path of such names: an ``elements`` observation outside
    ``observation_space`` (Files hard, seed 0, valid actions only). The observation cuts them to
    the space ("…"); ``info["elements"]`` keeps the whole text."""
    import gymnasium as gym

    from guigym.actions import Type

    env = gym.make("GuiGym-Files-v0", level="hard", extra_obs=("elements",))
    obs, info = env.reset(seed=0)
    long_seen = False
    for a in [s.action for s in info["reference"]]:
        obs, _, term, trunc, info = env.step(Type("x" * 256) if isinstance(a, Type) else a)
        assert env.observation_space.contains(obs)
        full = {e["id"]: e["label"] for e in info["elements"]}
        for e in obs["elements"]:
            if len(full.get(e["id"], "")) > 256:
                long_seen = True
                assert len(e["label"]) == 256 and e["label"].endswith("…") and full[e["id"]].startswith(e["label"][:-1])
        if term or trunc:
            break
    assert long_seen  # the case happened
    env.close()


@pytest.mark.parametrize("mode", ["make", None, "sync", "async"])
def test_an_id_refuses_another_familys_family_kwarg(mode: str | None) -> None:
    """``gym.make("GuiGym-Login-v0", family="Mail")`` made Mail envs whose spec said Login (the
    registry's ``family`` kwarg was overridden without a word); now a ValueError names the id to
    make, for ``gym.make`` and every ``make_vec`` mode, and the vector env's workers are gone."""
    import multiprocessing

    with pytest.raises(ValueError, match="GuiGym-Login-v0 is the Login family's id.*make GuiGym-Mail-v0"):
        if mode == "make":
            gym.make("GuiGym-Login-v0", family="Mail")
        else:
            gym.make_vec("GuiGym-Login-v0", 2, vectorization_mode=mode, family="Mail")
    assert not multiprocessing.active_children()
    own = gym.make("GuiGym-Login-v0", family="Login") if mode == "make" else gym.make_vec(
        "GuiGym-Login-v0", 2, vectorization_mode=mode, family="Login")
    assert own.spec is not None and own.spec.id == "GuiGym-Login-v0"
    own.close()
