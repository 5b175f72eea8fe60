"""Quick checks of the Settings and Launcher families: the reference from reset and after a
random detour succeeds, seeds are deterministic, scenarios are JSON, the env passes
Gymnasium's checker. (The full registry-wide tests live in ``tests/test_envs.py``.)"""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import guigym  # noqa: F401  (registers the ids)
from guigym.apps import FAMILIES

FAMILY_NAMES = ("Settings", "Launcher")
LEVELS = ("easy", "medium", "hard")
SEEDS = range(25)
#: Reference lengths from reset (min, max) per level: short at easy, long at hard.
REF_BOUNDS = {"easy": (2, 6), "medium": (3, 12), "hard": (8, 25)}


def _follow(env: gym.Env, info: dict) -> dict:
    done = False
    while not done:
        assert info["reference"], "no reference before success"
        _, _, term, trunc, info = env.step(info["reference"][0].action)
        done = term or trunc
    return info


@pytest.mark.parametrize("family", FAMILY_NAMES)
@pytest.mark.parametrize("level", LEVELS)
def test_reference_succeeds_from_reset_and_after_detour(family: str, level: str) -> None:
    env = gym.make(f"GuiGym-{family}-v0", level=level)
    lo, hi = REF_BOUNDS[level]
    for seed in SEEDS:
        _, info = env.reset(seed=seed)
        assert lo <= len(info["reference"]) <= hi, (seed, [r.instruction for r in info["reference"]])
        assert _follow(env, info)["success"], seed
        _, info = env.reset(seed=seed)
        env.action_space.seed(seed)
        for _ in range(5 + seed % 11):
            _, _, term, trunc, info = env.step(env.action_space.sample())
            if term or trunc:
                break
        else:
            assert _follow(env, info)["success"], seed
    env.close()


@pytest.mark.parametrize("family", FAMILY_NAMES)
@pytest.mark.parametrize("level", LEVELS)
def test_deterministic_json_scenarios(family: str, level: str) -> None:
    env = gym.make(f"GuiGym-{family}-v0", level=level)
    for seed in range(5):
        a, _ = env.reset(seed=seed)
        scn = json.loads(json.dumps(env.unwrapped.scenario))
        b, _ = env.reset(seed=seed)
        assert a["instruction"] == b["instruction"] and a["instruction"].endswith(".")
        assert a["screenshot"].tobytes() == b["screenshot"].tobytes()
        assert scn == env.unwrapped.scenario  # plain JSON, unchanged by a round trip
    gen = FAMILIES[family].generate
    texts = {gen(np.random.default_rng(s), level)["task"]["instruction"] for s in range(20)}
    assert len(texts) > 15  # seeds give different tasks
    env.close()


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_check_env(family: str) -> None:
    for level in LEVELS:
        env = gym.make(f"GuiGym-{family}-v0", level=level)
        check_env(env.unwrapped)
        env.close()


def test_settings_levels_shape() -> None:
    fam = FAMILIES["Settings"]
    for s in range(30):
        easy = fam.generate(np.random.default_rng(s), "easy")["apps"]["Settings"]["screens"]
        assert all(len(scr["rows"]) <= 10 for scr in easy.values())
        hard = fam.generate(np.random.default_rng(s), "hard")
        screens = hard["apps"]["Settings"]["screens"]
        assert len(screens["main"]["rows"]) > 10
        targets = hard["task"]["targets"]
        assert len({t["path"][1] for t in targets}) == 3 and any(len(t["path"]) > 2 for t in targets)
        assert all(len(screens[t["screen"]]["rows"]) > 10 for t in targets)


def test_launcher_pages_and_notes_editor() -> None:
    fam = FAMILIES["Launcher"]
    for s in range(30):
        assert len(fam.generate(np.random.default_rng(s), "easy")["home"]["icons"]) <= 12
        hard = fam.generate(np.random.default_rng(s), "hard")
        assert len(hard["home"]["icons"]) > 20
        assert len({t["app"] for t in hard["task"]["tasks"]}) == 2
    # an empty title shows an error and keeps the editor open
    env = gym.make("GuiGym-Launcher-v0", level="easy").unwrapped
    seed = next(s for s in range(100) if fam.generate(np.random.default_rng(s), "easy")["task"]["tasks"][0]["app"] == "Notes")
    env.reset(seed=seed)
    env.step("open_app(name=\"Notes\")")
    new = next(e for e in env.elements() if e["id"] == "new")
    env.step(guigym.Click((new["box"][0] + new["box"][2]) // 2, (new["box"][1] + new["box"][3]) // 2))
    save = next(e for e in env.elements() if e["id"] == "save")
    env.step(guigym.Click((save["box"][0] + save["box"][2]) // 2, (save["box"][1] + save["box"][3]) // 2))
    assert env.current_view.screen == "edit" and env.current_view.find("edit_error") is not None
    assert env.get_state()["state"]["apps"]["Notes"]["data"]["notes"] == env.scenario["apps"]["Notes"]["notes"]
