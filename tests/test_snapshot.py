"""``set_state`` checks a snapshot's level and variation (``guigym.apps.snapshot``): a level the
family lacks, an unknown axis or a value no axis has is refused, the env untouched; every
snapshot the envs make is still accepted."""

from __future__ import annotations

import copy
import json
from typing import Any

import gymnasium as gym
import pytest

from guigym.apps.snapshot import snapshot_problems
from guigym.env import HISTORY_LEN, STATE_VERSION
from guigym.registration import env_ids
from guigym.variation import AXES

IDS = env_ids()


@pytest.fixture
def env() -> Any:
    e = gym.make("GuiGym-Login-v0", variation="all", split="test")
    _, info = e.reset(seed=0)
    e.step(info["reference"][0].action)
    yield e
    e.close()


def _refused(env: Any, snap: dict[str, Any], match: str) -> None:
    """``set_state(snap)`` raises a ValueError matching ``match`` and leaves ``env`` as it was."""
    before = env.unwrapped.get_state()
    shot = env.unwrapped.observe()["screenshot"].tobytes()
    with pytest.raises(ValueError, match=match):
        env.unwrapped.set_state(snap)
    assert env.unwrapped.get_state() == before
    assert env.unwrapped.observe()["screenshot"].tobytes() == shot


@pytest.mark.parametrize("level", ["extreme", "Easy", ""])
def test_a_level_the_family_lacks_is_refused(env: Any, level: str) -> None:
    snap = env.unwrapped.get_state()
    snap["scenario"]["level"] = level
    _refused(env, snap, r"\$\.scenario\.level: .* is not a level of Login")


@pytest.mark.parametrize("variation,match", [
    ({"theme": "bogus"}, r"variation\['theme'\]: 'bogus' is not a value"),
    ({"popup_at": 7}, r"variation\['popup_at'\]: 7 is not a value"),
    ({"popup_at": True}, r"variation\['popup_at'\]: True is not a value"),  # JSON true is not the number 1
    ({"font_scale": "1.0"}, r"variation\['font_scale'\]"),
    ({"theme": ["blue"]}, r"variation\['theme'\]"),
    ({"colour": "blue"}, r"variation: unknown axis 'colour'"),
])
def test_an_unknown_variation_axis_or_value_is_refused(env: Any, variation: dict[str, Any], match: str) -> None:
    snap = env.unwrapped.get_state()
    snap["scenario"]["variation"] = variation
    _refused(env, snap, match)


def test_a_value_of_either_split_or_the_neutral_one_is_accepted(env: Any) -> None:
    """The env's split does not matter: a train env restores a test-split snapshot and back."""
    snap = env.unwrapped.get_state()
    snap["scenario"]["variation"] = {**snap["scenario"]["variation"], "theme": "blue", "popup_at": 3, "font_scale": 1.0}
    env.unwrapped.set_state(snap)
    env.unwrapped.set_state({**snap, "scenario": {**snap["scenario"], "variation": {"theme": None}}})
    _, _, _, _, info = env.step(env.unwrapped.reference()[0].action)
    assert info["variation"] == {"theme": None}


@pytest.mark.parametrize("env_id", IDS)
def test_every_snapshot_the_envs_make_is_accepted(env_id: str) -> None:
    """Every level, no variation and ``"all"`` in both splits, at reset and a step in: the full
    check (not the shortcut for the env's own scenario) finds nothing, and a fresh env loads it."""
    family = gym.make(env_id).unwrapped.family
    for level in family.levels:
        for variation, split in ((None, "train"), ("all", "train"), ("all", "test")):
            env = gym.make(env_id, level=level, variation=variation, split=split)
            other = gym.make(env_id, level=level)
            other.reset(seed=99)
            for seed in range(3):
                _, info = env.reset(seed=seed)
                snaps = [env.unwrapped.get_state()]
                if info["reference"]:
                    env.step(info["reference"][0].action)
                    snaps.append(env.unwrapped.get_state())
                for snap in snaps:
                    snap = json.loads(json.dumps(snap))
                    found = snapshot_problems(snap, family, STATE_VERSION, HISTORY_LEN)
                    assert found == [], (level, variation, split, seed, found)
                    other.unwrapped.set_state(copy.deepcopy(snap))
                    assert other.unwrapped.scenario == snap["scenario"]
            env.close()
            other.close()


def test_every_axis_value_is_accepted_in_a_snapshot(env: Any) -> None:
    snap = env.unwrapped.get_state()
    family = env.unwrapped.family
    for axis, values in AXES.items():
        for v in (*values["train"], *values["test"]):
            s = copy.deepcopy(snap)
            s["scenario"]["variation"][axis] = v
            assert snapshot_problems(s, family, STATE_VERSION, HISTORY_LEN) == [], (axis, v)
