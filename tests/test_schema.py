"""The typed schema: generated scenarios and states fit it, ids round-trip, the Settings
catalogue's records, and loud failures for an unknown family."""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
import pytest

from guigym.actions import Back, Click, Scroll, Type
from guigym.apps import FAMILIES
from guigym.apps.base import HOME, apply, start_state, view
from guigym.apps.schema import AppSpec, icon_app, icon_id, note_index, note_screen
from guigym.apps.settings_catalog import CATEGORIES, Choice, Info, Page, Toggle, settings_of
from guigym.apps.validate import problems, scenario_problems, state_problems
from guigym.events import Event
from guigym.registration import ENVS, EnvEntry, env_ids, family_of, id_levels, register_envs
from tests.conftest import ID_LEVELS, make

FAMILY_LEVELS = [(name, level) for name, fam in FAMILIES.items() for level in fam.levels]


@pytest.mark.parametrize("family,level", FAMILY_LEVELS)
def test_generated_scenarios_fit_the_schema(family, level):
    fam = FAMILIES[family]
    for seed in range(15):
        scenario = fam.generate(np.random.default_rng(seed), level)
        assert scenario_problems(scenario, fam.task_type) == []
        assert state_problems(start_state(scenario)) == []
        assert set(scenario["apps"]) <= set(fam.apps)  # every app is reachable through action_space's OpenApp
        assert set(scenario["home"]["icons"]) <= set(scenario["apps"])


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_states_along_the_reference_fit_the_schema(env_id, level):
    """Every state an episode reaches (after a few stray actions, then the reference) fits."""
    env = make(env_id, level=level)
    for seed in range(3):
        _, info = env.reset(seed=seed)
        for a in (Back(), Click(180, 300), Scroll("down"), Type("x")):
            _, _, term, _, info = env.step(a)
            assert state_problems(env.unwrapped.get_state()["state"]) == []
        while info["reference"] and not term:
            _, _, term, _, info = env.step(info["reference"][0].action)
            assert state_problems(env.unwrapped.get_state()["state"]) == []
    env.close()


def test_validator_reports_what_is_wrong():
    fam = FAMILIES["Login"]
    scenario = fam.generate(np.random.default_rng(0), "easy")
    brand = scenario["task"]["app"]
    scenario["apps"][brand]["screens"]["main"]["rows"][0]["lable"] = "typo"
    scenario["apps"][brand]["root"] = 3
    del scenario["task"]["user"]
    found = scenario_problems(scenario, fam.task_type)
    assert f"$.apps['{brand}'].screens['main'].rows[0]: unknown key 'lable' (RowSpec)" in found
    assert f"$.apps['{brand}'].root: expected str, got int 3" in found
    assert "$.task: missing key 'user' (LoginTask)" in found
    assert len(found) == 3
    state = start_state(fam.generate(np.random.default_rng(0), "easy"))
    state["page"] = True  # a bool is not a page number
    assert state_problems(state) == ["$.page: expected int, got bool True"]
    assert problems({"kind": "generic", "name": "X", "root": "main"}, AppSpec) == ["$: missing key 'screens' (AppSpec)"]


def test_ids_round_trip():
    for name in ("Notes", "Calculator", "A:B"):
        assert icon_app(icon_id(name)) == name
    for i in (0, 7, 12):
        assert note_index(note_screen(i)) == i
    assert icon_app("note:1") is None and note_index("icon:x") is None


def test_home_icon_click_opens_its_app():
    fam = FAMILIES["Launcher"]
    scenario = fam.generate(np.random.default_rng(1), "easy")
    state = start_state(scenario)
    assert state["fg"] == HOME
    icon = view(scenario, state).rows[0]
    assert icon.id == icon_id(icon.label)
    assert apply(scenario, state, Event("click", icon.id))["fg"] == icon.label
    assert apply(scenario, state, Event("click", "note:0"))["fg"] == HOME  # not an icon id


def test_settings_catalogue_records():
    ids = [it.id for c in CATEGORIES for sc in (c.items, c.deep.items if c.deep else ()) for it in settings_of(sc)]
    assert len(ids) == len(set(ids))  # a setting id is its row id: unique across the catalogue
    assert all(isinstance(it, (Toggle, Choice, Page, Info)) for c in CATEGORIES for it in c.items)
    assert all(len(it.options) >= 2 for c in CATEGORIES for it in c.items if isinstance(it, Choice))
    assert Page("Help") != Info("Help")  # records compare by type too (generation sorts by list index)


# --- loud failures ----------------------------------------------------------------------
def test_unknown_family_fails_at_registration():
    bad = EnvEntry("GuiGym-Typo-v0", "Loign", 40, "a typo")
    assert {"Login", "Settings", "Launcher", "Contacts", "Messages", "Files"} <= set(FAMILIES)
    known = "known families: " + re.escape(str(sorted(FAMILIES)))
    with pytest.raises(ValueError, match=r"unknown family 'Loign'.*" + known):
        register_envs([ENVS[0], bad])
    assert "GuiGym-Typo-v0" not in gym.registry
    with pytest.raises(ValueError, match="GuiGym-Typo-v0"):
        family_of(bad)


def test_unknown_family_fails_in_ids_and_the_cli(monkeypatch):
    from guigym import registration
    from guigym.cli import main as cli

    monkeypatch.setattr(registration, "ENVS", (*ENVS, EnvEntry("GuiGym-Typo-v0", "Loign", 40, "a typo")))
    for call in (registration.env_ids, registration.id_levels, lambda: cli(["list"])):
        with pytest.raises(ValueError, match="unknown family 'Loign'"):
            call()


def test_matrix_covers_every_entry():
    assert env_ids() == [e.id for e in ENVS]
    assert {i for i, _ in id_levels()} == set(env_ids())
    assert len(id_levels()) == sum(len(FAMILIES[e.family].levels) for e in ENVS)


def test_unknown_family_in_the_env():
    with pytest.raises(ValueError, match="unknown family 'Loign'"):
        gym.make("GuiGym-Login-v0", family="Loign")


def test_a_family_without_apps_fails_loudly(monkeypatch):
    monkeypatch.setattr(FAMILIES["Settings"], "apps", ())
    with pytest.raises(ValueError, match="family 'Settings' declares no apps"):
        make("GuiGym-Settings-v0")


def test_a_family_generating_an_undeclared_app_fails_loudly(monkeypatch):
    env = make("GuiGym-Login-v0", level="hard")
    monkeypatch.setattr(env.unwrapped, "apps", tuple(a for a in env.unwrapped.apps if a != "Camera"))
    seed = next(s for s in range(50) if "Camera" in FAMILIES["Login"].generate(np.random.default_rng(s), "hard")["apps"])
    with pytest.raises(RuntimeError, match=r"Login generated apps \['Camera'\] missing from its Family.apps"):
        env.reset(seed=seed)
    env.close()
