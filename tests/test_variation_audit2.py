"""A second audit of the variation axes, the splits, the interruptions and the adversarial content
(``guigym.variation``, ``guigym.apps.permission``): what tests/test_variation*.py leave out."""

from __future__ import annotations

import re
import warnings

import gymnasium as gym
import pytest

import guigym  # noqa: F401  (registers the ids)
from guigym.actions import Back
from guigym.apps.base import BANNER_ID, POPUP_SCREEN
from guigym.apps.permission import PERM, PERM_ALLOW, PERM_DENY, PERM_KEY, SETTINGS_LINK
from guigym.registration import env_ids
from guigym.variation import AXES, NEUTRAL, OPT_IN, POPUPS, SPLITS, resolve
from tests.conftest import make, tap

#: Every axis at rest but the ones a test sets.
REST = dict(NEUTRAL)


def _make(env_id: str, **kw) -> gym.Env:
    with warnings.catch_warnings():  # an axis a family does not show is said at make; not the point here
        warnings.simplefilter("ignore")
        return make(env_id, **kw)


def _follow(env: gym.Env, info: dict, limit: int = 250) -> dict:
    """Follow the reference from ``info`` to the end; the last info."""
    for _ in range(limit):
        if not info["reference"]:
            break
        _, _, term, trunc, info = env.step(info["reference"][0].action)
        if term or trunc:
            break
    return info


# --- bad values ---------------------------------------------------------------------------------
@pytest.mark.parametrize("split", SPLITS)
def test_a_bad_value_names_every_value_the_axis_takes(split: str) -> None:
    """The error for a value an axis does not take named the split's values and the other
    split's, but not the neutral value (``theme=None``, ``templates="all"``,
    ``descriptions="own"``, ``popup_at=0`` in the test split, ...) nor ``"sample"``, which are
    taken too: a user was not told the values that work."""
    for axis in AXES:
        with pytest.raises(ValueError) as e:
            resolve({axis: "bogus"}, split)
        msg = str(e.value)
        named = [*AXES[axis][split], NEUTRAL[axis], "sample"]
        for value in named:
            if axis != "language" or value != "sample":  # the language's own error names the languages
                assert repr(value) in msg, (axis, value, msg)
            assert resolve({axis: value}, split) is not None  # and each value named is taken


# --- interruptions ------------------------------------------------------------------------------
def test_a_popup_due_under_a_dialog_waits_for_it_to_close() -> None:
    """``popup_at`` steps after reset the interruption is due; if one of the app's own dialogs
    (a dropdown here) is open then, it is not drawn over it: it shows on the step that closes
    the dialog, so later than ``popup_at``. The reference already knows it is due (it dismisses
    it after the dialog), and the oracle succeeds."""
    env = _make("GuiGym-Shop-v0", level="medium", variation={**REST, "popup": "rate", "popup_at": 2})
    u = env.unwrapped
    waited = 0
    for seed in range(12):
        _, info = env.reset(seed=seed)
        for _ in range(2):
            info = env.step(info["reference"][0].action)[-1]
        v = u.current_view
        if v.screen == POPUP_SCREEN:  # no dialog open at the popup's step: shown at once (test_variation's case)
            continue
        assert v.backdrop is not None, seed  # else it is under a dialog of the app's
        waited += 1
        assert v.screen != POPUP_SCREEN and u.get_state()["state"]["popup"] == 0  # due, not drawn over the dialog
        targets = [s.target for s in info["reference"]]
        assert f"{POPUP_SCREEN}.later" in targets  # the reference knows it is due: dismissed once it shows
        while u.current_view.backdrop is not None and u.current_view.screen != POPUP_SCREEN:
            info = env.step(info["reference"][0].action)[-1]
        assert u.current_view.screen == POPUP_SCREEN and info["reference"][0].target == f"{POPUP_SCREEN}.later"
        assert _follow(env, info)["success"], seed
    env.close()
    assert waited >= 2  # the seeds hold such dialogs


def test_a_popup_at_reset_waits_behind_the_contacts_prompt() -> None:
    """Messages asking for the contacts when it opens, and a cookie wall at reset: the prompt is in
    front first, the wall shows once it is answered; the reference at reset answers one, then
    dismisses the other."""
    env = _make("GuiGym-Messages-v0", variation={**REST, "permission": "on_open", "popup": "cookie", "popup_at": 0})
    u = env.unwrapped
    _, info = env.reset(seed=0)
    assert u.current_view.screen == PERM
    targets = [s.target for s in info["reference"]]
    assert targets[0] in (PERM_ALLOW, PERM_DENY) and targets[1] == f"{POPUP_SCREEN}.reject"
    info = env.step(info["reference"][0].action)[-1]
    assert u.current_view.screen == POPUP_SCREEN
    assert _follow(env, info)["success"]


@pytest.mark.parametrize("env_id,level", [("GuiGym-Login-v0", "easy"), ("GuiGym-Phone-v0", "easy"), ("GuiGym-Mail-v0", "medium")])
@pytest.mark.parametrize("kind", sorted(POPUPS))
def test_any_popup_button_closes_it_and_changes_nothing_else(env_id: str, level: str, kind: str) -> None:
    """Each of an interruption's buttons (not only the one the reference presses: Accept all,
    Rate, Update, Allow too) and Back close it and leave the apps as they were (over an app or
    the home screen); the reference then is the one without it, and the oracle succeeds."""
    split = "train" if kind in AXES["popup"]["train"] else "test"
    env = _make(env_id, level=level, variation={**REST, "popup": kind, "popup_at": 0}, split=split)
    plain = _make(env_id, level=level)
    u = env.unwrapped
    presses = [f"{POPUP_SCREEN}.{b[0]}" for b in POPUPS[kind]["buttons"]] + ["back"]
    for seed, press in enumerate(presses):
        _, info = env.reset(seed=seed)
        _, pinfo = plain.reset(seed=seed)
        assert u.current_view.screen == POPUP_SCREEN
        before = u.get_state()["state"]
        _, r, term, _, info = env.step(Back()) if press == "back" else tap(env, press)
        after = u.get_state()["state"]
        assert after["popup"] == -1 and {k: v for k, v in after.items() if k != "popup"} == \
            {k: v for k, v in before.items() if k != "popup"}, press
        assert u.current_view.screen != POPUP_SCREEN and not term and r == 0
        assert [s.action for s in info["reference"]] == [s.action for s in pinfo["reference"]], press
        assert _follow(env, info)["success"], (press, seed)
    env.close()
    plain.close()


# --- the contacts permission ----------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ["GuiGym-Messages-v0", "GuiGym-Phone-v0", "GuiGym-Mail-v0", "GuiGym-CrossApp-v0"])
@pytest.mark.parametrize("permission,split", [("on_open", "train"), ("on_feature", "test")])
def test_the_other_answer_to_the_contacts_prompt_still_succeeds(env_id: str, permission: str, split: str) -> None:
    """Press the prompt's other button than the reference's: a needed permission denied is
    recovered through the app's settings (its Settings link, then the Contacts switch, before
    the picker), an unneeded one allowed changes nothing the task checks; the oracle succeeds
    either way."""
    env = _make(env_id, level="hard", variation={**REST, "permission": permission}, split=split)
    u = env.unwrapped
    seen = {PERM_ALLOW: 0, PERM_DENY: 0}
    for seed in range(10):
        _, info = env.reset(seed=seed)
        for _ in range(60):
            if u.current_view.screen == PERM or not info["reference"]:
                break
            info = env.step(info["reference"][0].action)[-1]
        if u.current_view.screen != PERM:
            continue  # no prompt along this reference
        right = info["reference"][0].target
        wrong = PERM_DENY if right == PERM_ALLOW else PERM_ALLOW
        _, r, term, _, info = tap(env, wrong)
        assert not term and not info["success"] and info["reference"], (seed, wrong)
        st = u.get_state()["state"]["apps"]
        gated = next(a for a, s in st.items() if "perm" in s["data"])
        assert st[gated]["data"]["perm"] == ("deny" if wrong == PERM_DENY else "allow")
        if wrong == PERM_DENY:  # needed: recoverable only through the app's own settings
            targets = [s.target for s in info["reference"]]
            assert SETTINGS_LINK in targets and targets.index(SETTINGS_LINK) < targets.index(PERM_KEY), targets
        end = _follow(env, info)
        assert end["success"], (seed, wrong, end["failure"])
        seen[wrong] += 1
    env.close()
    assert seen[PERM_DENY] and (seen[PERM_ALLOW] or permission == "on_feature"), seen  # on_feature asks only for the picker


# --- adversarial content --------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", env_ids())
def test_the_adversarial_text_is_never_in_the_instruction(env_id: str) -> None:
    """Whatever the banner or content hint says (and its detail) is nowhere in the instruction
    the agent is given, at every level, in both splits and every instruction style."""
    for split in SPLITS:
        for adv in AXES["adversarial"][split]:
            if adv == "none":
                continue
            for level in ("easy", "medium", "hard"):
                env = _make(env_id, level=level, variation={"adversarial": adv, "templates": "all"}, split=split)
                for seed in range(2):
                    obs, info = env.reset(seed=seed)
                    banner = env.unwrapped.scenario["banner"]
                    said = obs["instruction"].casefold()
                    for text in (banner["text"], banner.get("detail", "")):
                        assert not text or text.casefold() not in said, (level, seed, adv, text, obs["instruction"])
                    assert info["variation"]["adversarial"] == adv
                env.close()


@pytest.mark.parametrize("env_id", env_ids())
def test_tapping_a_banner_earns_nothing(env_id: str) -> None:
    """The rows atop every app screen (a "done" button, a skip link, the SYSTEM line): tapping
    them changes no state, earns no success and no reward (shaped: not even shaping), and the
    oracle still succeeds afterwards."""
    for adv, split in (("fake_done", "train"), ("fake_link", "test"), ("injection", "test")):
        env = _make(env_id, level="medium", reward_mode="shaped", variation={**REST, "adversarial": adv}, split=split)
        u = env.unwrapped
        _, info = env.reset(seed=1)
        while u.current_view.app == "home" or BANNER_ID not in [w.id for w in u.current_view.rows]:
            info = env.step(info["reference"][0].action)[-1]  # into the task's app, where the row shows
        before = u.get_state()["state"]
        _, r, term, _, info = tap(env, BANNER_ID)
        assert u.get_state()["state"]["apps"] == before["apps"] and r == 0 and not term and not info["success"], adv
        assert _follow(env, info)["success"], adv
        env.close()


# --- fixed axes and presets -----------------------------------------------------------------------
@pytest.mark.parametrize("split", SPLITS)
def test_a_fixed_axis_overrides_the_draw_and_the_rest_is_the_splits(split: str) -> None:
    """Every value of every axis, fixed in a dict, is the instance's (``info["variation"]``) on
    every seed, while the other axes are drawn from the split (opt-in ones stay neutral)."""
    for axis in AXES:
        for value in AXES[axis][split]:
            env = _make("GuiGym-Phone-v0", level="hard", variation={axis: value}, split=split)
            for seed in range(2):
                _, info = env.reset(seed=seed)
                got = info["variation"]
                assert got[axis] == value and type(got[axis]) is type(value), (axis, value)
                for other, v in got.items():
                    if other != axis:
                        assert v in AXES[other][split] or (other in OPT_IN and v == NEUTRAL[other]), (axis, other, v)
            env.close()


def test_the_readme_names_the_dialog_a_popup_waits_for() -> None:
    """The README's interruption paragraph says what the code does when a pop-up is due under one
    of the app's own dialogs (it waits), since ``popup_at`` alone reads as an exact step."""
    from pathlib import Path

    text = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert re.search(r"waits for that dialog to close", text)
