"""A call placed from a Contacts app is a side effect (OpenApps' rule: success is the start plus
exactly the instructed change): no task asks for one and none can be taken back, so it fails the
task in every family with a Contacts app (Launcher only with ``strict=True``, like its other
side effects). Message only says what it would do."""

from __future__ import annotations

import copy

import gymnasium as gym
import pytest

import guigym  # noqa: F401  (registers the ids)
from guigym.actions import Click, OpenApp
from tests.conftest import follow_reference

CONTACT_KINDS = ("contacts", "addressbook", "phonebook")
#: (id, gym.make kwargs) of every family where a call fails the task
FAILING = [("GuiGym-Contacts-v0", {}), ("GuiGym-Phone-v0", {}), ("GuiGym-CrossApp-v0", {}),
           ("GuiGym-Launcher-v0", {"strict": True})]


def _on_person_screen(env, seed: int, level: str):
    """Reset on ``seed``, then load the same state with the Contacts app in front, open on its
    first person's screen (a snapshot, as set_state takes it). Returns the app's name and the
    elements on screen."""
    env.reset(seed=seed, options={"level": level})
    snap = env.unwrapped.get_state()
    apps = snap["scenario"]["apps"]
    name = next(n for n, a in apps.items() if a["kind"] in CONTACT_KINDS)
    state = copy.deepcopy(snap["state"])
    if apps[name]["kind"] == "contacts":
        sid = next(s for s in apps[name]["screens"] if s.startswith("c:"))
    else:
        sid = f"p:{state['apps'][name]['data']['people'][0]['id']}"
    state["fg"], state["apps"][name]["stack"] = name, ["main", sid]
    env.unwrapped.set_state({**snap, "state": state})
    return name, env.unwrapped.elements()


def _press(env, elements, suffix: str):
    """Click the element whose id ends with ``suffix``."""
    e = next(e for e in elements if e["id"].endswith(suffix))
    x0, y0, x1, y1 = e["box"]
    return env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))


@pytest.mark.parametrize("env_id,kwargs", FAILING)
@pytest.mark.parametrize("level", ["easy", "hard"])
def test_a_call_fails_the_task_and_message_does_not(env_id, kwargs, level):
    for seed in range(3):
        env = gym.make(env_id, extra_obs=("elements",), **kwargs)
        name, elements = _on_person_screen(env, seed, level)
        assert "calls" not in env.unwrapped.get_state()["state"]["apps"][name]["data"]  # none placed yet
        _, reward, terminated, truncated, info = _press(env, elements, ".message")
        assert not terminated and not truncated and info["reference"], "Message is no side effect"
        *_, info = env.step(info["reference"][0].action)  # still on course
        name, elements = _on_person_screen(env, seed, level)
        _, reward, terminated, _, info = _press(env, elements, ".call")
        assert info["event"].widget.endswith(".call")
        assert terminated and reward == 0 and not info["success"]
        assert env.unwrapped.get_state()["state"]["apps"][name]["data"]["calls"] == [info["event"].widget[:-len(".call")]]
        env.close()


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_a_call_is_no_failure_in_lenient_launcher(level):
    """By default Launcher compares only the instructed changes: a call changes nothing it checks."""
    env = gym.make("GuiGym-Launcher-v0", extra_obs=("elements",))
    for seed in range(3):
        _, elements = _on_person_screen(env, seed, level)
        _, _, terminated, _, info = _press(env, elements, ".call")
        assert not terminated
        run = follow_reference(env, info, 200)
        assert run.success
    env.close()


def test_a_snapshot_with_a_call_round_trips_and_a_bad_record_is_refused():
    env = gym.make("GuiGym-Contacts-v0", extra_obs=("elements",))
    name, elements = _on_person_screen(env, 0, "easy")
    _press(env, elements, ".call")
    snap = env.unwrapped.get_state()
    other = gym.make("GuiGym-Contacts-v0", extra_obs=("elements",))
    other.reset(seed=5)
    other.unwrapped.set_state(snap)
    assert other.unwrapped.get_state()["state"] == snap["state"]
    assert other.unwrapped.family.failed(snap["scenario"], snap["state"])
    bad = copy.deepcopy(snap)
    bad["state"]["apps"][name]["data"]["calls"] = [3]
    with pytest.raises(ValueError, match=r"data\.calls"):
        other.unwrapped.set_state(bad)
    env.close()
    other.close()


def test_a_bad_reset_link_record_is_refused():
    env = gym.make("GuiGym-Login-v0")
    env.reset(seed=0)
    snap = env.unwrapped.get_state()
    app = snap["scenario"]["task"]["app"]
    for value, ok in ((True, True), ("yes", False)):
        bad = copy.deepcopy(snap)
        bad["state"]["apps"][app]["data"]["reset_sent"] = value
        if ok:
            env.unwrapped.set_state(bad)
        else:
            with pytest.raises(ValueError, match=r"data\.reset_sent"):
                env.unwrapped.set_state(bad)
    env.close()


@pytest.mark.browser
@pytest.mark.parametrize("env_id,kwargs", [("GuiGym-Contacts-v0", {}), ("GuiGym-Launcher-v0", {"strict": True})])
def test_a_call_pressed_in_chromium_fails_the_task_too(env_id, kwargs):
    """The browser backend clicks the real button; the event, the record and the failure are the mock's."""
    env = gym.make(env_id, backend="browser", extra_obs=("elements",), **kwargs)
    try:
        name, elements = _on_person_screen(env, 0, "easy")
        _, reward, terminated, _, info = _press(env, elements, ".call")
        assert info["event"].widget.endswith(".call")
        assert terminated and reward == 0 and not info["success"]
        assert env.unwrapped.get_state()["state"]["apps"][name]["data"]["calls"] == [info["event"].widget[:-len(".call")]]
    finally:
        env.close()


@pytest.mark.browser
def test_a_reset_link_sent_in_chromium_fails_strict_login():
    env = gym.make("GuiGym-Login-v0", backend="browser", strict=True, extra_obs=("elements",))
    try:
        obs, _ = env.reset(seed=0)
        obs, _, terminated, _, _ = _press(env, obs["elements"], "forgot")
        assert not terminated
        _, reward, terminated, _, info = _press(env, obs["elements"], "reset_send")
        assert info["event"].widget == "reset_send"
        assert terminated and reward == 0 and not info["success"]
    finally:
        env.close()


def _without(snapshot, app: str, key: str):
    out = copy.deepcopy(snapshot)
    out["state"]["apps"][app]["data"].pop(key, None)
    return out


@pytest.mark.parametrize("env_id,suffix,key", [("GuiGym-Login-v0", "reset_send", "reset_sent"), ("GuiGym-Launcher-v0", ".call", "calls")])
def test_the_record_changes_nothing_under_the_default_rule(env_id, suffix, key):
    """Login's reset link and Launcher's calls fail only with strict=True: by default a state with
    the record shows, rewards and plans exactly as the same state without it (the published
    tables' episodes are unchanged)."""
    env = gym.make(env_id, extra_obs=("elements",), reward_mode="shaped")
    twin = gym.make(env_id, extra_obs=("elements",), reward_mode="shaped")
    checked = 0
    for seed in range(4):
        if env_id == "GuiGym-Login-v0":
            obs, info = env.reset(seed=seed)
            app = env.unwrapped.scenario["task"]["app"]
            if env.unwrapped.get_state()["state"]["fg"] != app:  # hard starts on the home screen
                obs, *_, info = env.step(OpenApp(app))
            obs, *_ = _press(env, obs["elements"], "forgot")
        else:
            app, elements = _on_person_screen(env, seed, "easy")
            obs = {"elements": elements}
        obs, reward, terminated, _, info = _press(env, obs["elements"], suffix)
        assert key in env.unwrapped.get_state()["state"]["apps"][app]["data"] and not terminated
        twin.reset(seed=seed)
        for _ in range(60):
            snap = env.unwrapped.get_state()
            twin.unwrapped.set_state(_without(snap, app, key))
            tobs = twin.unwrapped.observe()
            assert (tobs["screenshot"] == obs["screenshot"]).all() and tobs["instruction"] == obs["instruction"]
            assert [s.action for s in twin.unwrapped.reference()] == [s.action for s in info["reference"]]
            step = info["reference"][0].action
            obs, reward, terminated, truncated, info = env.step(step)
            _, t_reward, t_terminated, _, t_info = twin.step(step)
            assert (reward, terminated, info["success"]) == (t_reward, t_terminated, t_info["success"])
            checked += 1
            if terminated or truncated:
                break
        assert info["success"]
    assert checked >= 8
    env.close()
    twin.close()
