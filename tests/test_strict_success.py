"""``gym.make(..., strict=True)``: Login, Settings and Launcher compare the whole state
(OpenApps' rule, DESIGN's "success as a state delta"), as every other family always does. By
default they compare only the session, or the instructed settings, switches and note
(documented; the published tables and sweeps ran that way)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import guigym  # noqa: F401  (registers the ids)
from guigym.actions import Click, OpenApp, Type
from guigym.registration import env_ids
from tests.conftest import follow_reference

LENIENT = ("GuiGym-Login-v0", "GuiGym-Settings-v0", "GuiGym-Launcher-v0")
#: the lenient families with stray switches to set back
SWITCHES = ("GuiGym-Settings-v0", "GuiGym-Launcher-v0")


def _center(box):
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def _named(env) -> set[str]:
    task = env.unwrapped.scenario["task"]
    if "targets" in task:  # Settings
        return {t["setting"] for t in task["targets"]}
    return {x["widget"] for t in task["tasks"] if t["type"] == "switches" for x in t["targets"]}


def _stray_toggle(env, info):
    """Follow the reference until a switch the task does not name is on screen; click it.
    Returns its id and the info after the click (None if no such switch was met)."""
    named = _named(env)
    while info["reference"]:
        stray = next((e for e in info["elements"] if e["role"] == "toggle" and e["id"] not in named), None)
        if stray is not None:
            *_, info = env.step(Click(*_center(stray["box"])))
            assert info["event"] is not None and info["event"].widget == stray["id"]
            return stray["id"], info
        *_, info = env.step(info["reference"][0].action)
    return None, info


def _succeeds(env, info) -> bool:
    """Whether following the oracle from ``info`` ends the episode in success (conftest's runner:
    every step must also take and be the reference's event)."""
    run = follow_reference(env, info, 200)
    return run.success and run.terminated[-1:] == [True]


@pytest.mark.parametrize("env_id", SWITCHES)
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_stray_switch_is_set_back_first_and_only_then_success(env_id, level):
    tried = 0
    for seed in range(12):
        strict = gym.make(env_id, level=level, strict=True, extra_obs=("elements",))
        lenient = gym.make(env_id, level=level, extra_obs=("elements",))
        _, info = strict.reset(seed=seed)
        _, info_l = lenient.reset(seed=seed)
        stray, info = _stray_toggle(strict, info)
        stray_l, info_l = _stray_toggle(lenient, info_l)
        assert stray == stray_l
        if stray is None:
            continue
        tried += 1
        assert info["reference"][0].target == stray  # undo first: it is on this screen
        assert all(s.target != stray for s in info_l["reference"])  # the default leaves it
        assert _succeeds(strict, info)
        values = strict.unwrapped.get_state()["state"]["apps"]
        assert _succeeds(lenient, info_l)
        app = next(a for a in values if stray in values[a]["values"])
        assert values[app]["values"][stray] != lenient.unwrapped.get_state()["state"]["apps"][app]["values"][stray]
    assert tried >= 3, f"only {tried} seeds met a stray switch"


def test_launcher_strict_fails_on_a_note_it_was_not_asked_for():
    env = gym.make("GuiGym-Launcher-v0", level="easy", strict=True, extra_obs=("elements",))
    lenient = gym.make("GuiGym-Launcher-v0", level="easy", extra_obs=("elements",))
    for e in (env, lenient):
        _, info = e.reset(seed=0)
        assert "note" not in {t["type"] for t in e.unwrapped.scenario["task"]["tasks"]}
        _, _, term, _, info = e.step(OpenApp("Notes"))
        new = next(x for x in info["elements"] if x["id"] == "new")  # its label varies, its id does not
        _, _, term, _, info = e.step(Click(*_center(new["box"])))
        title = next(x for x in info["elements"] if x["id"] == "title")
        e.step(Click(*_center(title["box"])))
        e.step(Type("Stray"))
        _, _, term, _, info = e.step(Click(*_center(next(x for x in info["elements"] if x["id"] == "save")["box"])))
        if e is env:
            assert term and not info["success"] and info["reference"] == []  # Notes cannot delete it: a failure
            assert info["failure"] == "a note the task does not ask for was saved (Notes cannot delete one)"
        else:
            assert not term and info["reference"]  # the default ignores the extra note
            assert _succeeds(e, info)


def test_strict_note_task_accepts_exactly_the_instructed_note():
    for seed in range(40):
        env = gym.make("GuiGym-Launcher-v0", level="medium", strict=True)
        _, info = env.reset(seed=seed)
        if any(t["type"] == "note" for t in env.unwrapped.scenario["task"]["tasks"]):
            assert _succeeds(env, info)
            return
    pytest.fail("no note task in 40 seeds")


@pytest.mark.parametrize("env_id", env_ids())
def test_strict_is_the_rule_of_every_other_family(env_id):
    env = gym.make(env_id, strict=True)
    assert env.unwrapped.strict
    _, info = env.reset(seed=1)
    assert ("strict" in env.unwrapped.scenario["task"]) == (env_id in LENIENT)
    assert _succeeds(env, info)
    if env_id in LENIENT:
        assert not gym.make(env_id).unwrapped.strict
    else:
        with pytest.raises(ValueError, match="always compares the whole state"):
            gym.make(env_id, strict=False)
    with pytest.raises(TypeError, match="strict must be True, False or None"):
        gym.make(env_id, strict="yes")


def test_a_snapshot_keeps_its_rule_and_the_default_episodes_are_unchanged():
    strict, plain = gym.make("GuiGym-Settings-v0", strict=True), gym.make("GuiGym-Settings-v0")
    obs_s, info_s = strict.reset(seed=5)
    obs_p, info_p = plain.reset(seed=5)
    assert obs_s["instruction"] == obs_p["instruction"] and (obs_s["screenshot"] == obs_p["screenshot"]).all()
    assert [s.action for s in info_s["reference"]] == [s.action for s in info_p["reference"]]
    plain.unwrapped.set_state(strict.unwrapped.get_state())
    assert plain.unwrapped.scenario["task"]["strict"] is True


@pytest.mark.parametrize("env_id", LENIENT)
@pytest.mark.parametrize("variation", [None, "all"])
def test_oracle_succeeds_under_strict_after_random_detours(env_id, variation):
    """From wherever six random actions lead (stray switches, a pop-up, another screen), the
    strict reference still reaches success on every level, plain and with every variation axis."""
    for level in ("easy", "medium", "hard"):
        env = gym.make(env_id, level=level, strict=True, variation=variation, split="test" if variation else "train")
        for seed in range(15):
            _, info = env.reset(seed=seed)
            env.action_space.seed(seed)
            terminated = truncated = False
            for _ in range(6):
                _, _, terminated, truncated, info = env.step(env.action_space.sample())
                if terminated or truncated:
                    break
            if terminated and not info["success"]:  # Launcher: a random Save made a note nobody asked for;
                assert env_id in ("GuiGym-Launcher-v0", "GuiGym-Login-v0")  # Login: a reset link sent, or locked out
                continue
            assert _succeeds(env, info), (level, seed)


def _press(env, elements, wid):
    e = next(e for e in elements if e["id"] == wid)
    return env.step(Click(*_center(e["box"])))


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_reset_link_sent_fails_login_only_under_strict(level):
    """"Send reset link" mails the user: recorded either way, a failure only with strict=True
    (by default Login compares the session, as the published tables were trained)."""
    for strict in (True, None):
        env = gym.make("GuiGym-Login-v0", level=level, strict=strict, extra_obs=("elements",))
        for seed in range(4):
            obs, info = env.reset(seed=seed)
            if level == "hard":  # starts on the home screen
                app = env.unwrapped.scenario["task"]["app"]
                obs, *_, info = env.step(OpenApp(app))
            obs, _, terminated, _, info = _press(env, obs["elements"], "forgot")
            assert not terminated
            obs, _, terminated, _, info = _press(env, obs["elements"], "reset_send")
            app = env.unwrapped.scenario["task"]["app"]
            assert env.unwrapped.get_state()["state"]["apps"][app]["data"]["reset_sent"] is True
            if strict:
                assert terminated and not info["success"] and not info["reference"]
                assert info["failure"] == "a password-reset mail the task does not ask for was sent"
            else:
                assert not terminated
                assert _succeeds(env, info), (level, seed)
        env.close()
