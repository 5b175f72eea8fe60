"""Faults found in an audit of the variation axes and splits, each with the test that found it."""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest

import guigym  # noqa: F401  (registers the ids)
from guigym.apps import FAMILIES
from guigym import variation
from guigym.registration import env_ids
from guigym.variation import BANNERS, HINT_APPS, MISLEADING_APP, NEUTRAL


def _first(env_id: str, variation: object, split: str, seed: int, level: str = "easy") -> tuple:
    """The first screen, instruction and reference of an instance."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gym.make(env_id, level=level, variation=variation, split=split)
    obs, info = env.reset(seed=seed)
    env.close()
    return obs["screenshot"].tobytes(), obs["instruction"], [(s.action, s.target) for s in info["reference"]]


#: (id, variation, the axis the warning names, a variation of an axis that shows on the family):
#: a variation whose only telling axes the family never shows, so its "held-out" test split is
#: its training split.
_ALIKE = [
    # grid()'s variant: Mail has no collection of tiles (Shop has)
    ("GuiGym-Mail-v0", {**NEUTRAL, "layout": "compact_grid"}, "layout", "descriptions"),
    ("GuiGym-Settings-v0", "descriptions", "descriptions", "labels"),  # Settings shows no content
    ("GuiGym-Contacts-v0", {**NEUTRAL, "icons": "sample"}, "icons", "descriptions"),  # no home screen
    ("GuiGym-Shop-v0", {**NEUTRAL, "popup_at": "sample"}, "popup_at", {**NEUTRAL, "popup": "update", "popup_at": "sample"}),
]


@pytest.mark.parametrize(("env_id", "var", "axis", "shows"), _ALIKE)
def test_an_axis_the_family_never_shows_is_said(env_id: str, var: object, axis: str, shows: object) -> None:
    """``gym.make`` warned only for ``permission`` without a gated app: ``layout`` on Mail (the
    evaluation grid's ``layout=compact_grid`` variant), ``descriptions`` on Settings, ``icons``
    without a home screen and ``popup_at`` without a pop-up gave the train split's instances as
    the test split, without a word. The warning names the axis, and its claim holds: the same
    first screen, instruction and reference in both splits. A variation that shows on the family
    (and Shop's layout, Launcher's icons) stays quiet."""
    fam = env_id.split("-")[1]
    with pytest.warns(UserWarning, match=f"{axis} leaves every {fam} instance as it is"):
        gym.make(env_id, variation=var, split="test").close()
    train = {**var, axis: "sample"} if isinstance(var, dict) else var
    for seed in (0, 1):
        assert _first(env_id, train, "train", seed) == _first(env_id, var, "test", seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for env, v in ((env_id, shows), ("GuiGym-Shop-v0", {**NEUTRAL, "layout": "compact_grid"}),
                       ("GuiGym-Launcher-v0", {**NEUTRAL, "icons": "shuffled"}), (env_id, "all")):
            gym.make(env, variation=v, split="test").close()


def test_the_inert_axes_leave_the_instances_as_they_are() -> None:
    """Every axis :func:`unshown_axes` names for a family gives its train and test values the same
    instances at every level (the first screen, instruction and reference)."""
    checked = 0
    for name, fam in FAMILIES.items():
        for axis in sorted(variation.unshown_axes(fam)):
            for level in ("easy", "medium", "hard"):
                train = {**NEUTRAL, axis: "sample"}
                assert _first(f"GuiGym-{name}-v0", train, "train", 2, level) == _first(f"GuiGym-{name}-v0", train, "test", 2, level)
                checked += 1
    assert checked >= 20


@pytest.mark.parametrize("env_id", env_ids())
def test_the_misleading_tip_never_names_the_app_the_task_is_done_in(env_id: str) -> None:
    """``adversarial="misleading"`` says "Tip: this is done in the Settings app": on the Settings
    family, whose task is done in the Settings app, the tip told the truth. It names an app the
    device lacks there; elsewhere it is as it was."""
    env = gym.make(env_id, variation={"adversarial": "misleading"})
    for seed in range(3):
        env.reset(seed=seed)
        sc = env.unwrapped.scenario
        text = sc["banner"]["text"]
        named = [a for a in (MISLEADING_APP, *HINT_APPS) if f" {a} " in text]
        assert len(named) == 1 and named[0] not in sc["apps"], (env_id, seed, text)
        assert (text == BANNERS["misleading"]["text"]) == (MISLEADING_APP not in sc["apps"])
        assert [e["label"] for e in env.unwrapped.elements() if e["id"] == "banner"] in ([], [text])
