"""Mail gated by the contacts permission (``guigym.variation``'s ``permission`` axis,
``guigym.apps.permission``), alone (the Mail family) and in CrossApp: the prompt "Allow Mail to
access your contacts?" when Mail opens (``on_open``, train) or when a To dropdown is first
clicked (``on_feature``, test); the oracle allows it when the task sends through a To dropdown
(compose, forward) and dismisses it otherwise; Don't allow leaves the dropdowns empty until the
Contacts switch in Mail's own settings is on, which the oracle's reference turns on after a
denial; a denial never recovered earns nothing."""

from __future__ import annotations

import json

import gymnasium as gym
import pytest

from guigym.actions import Click
from guigym.apps.mail import APP, NEW
from guigym.apps.permission import APP_SETTINGS, PERM, PERM_ALLOW, PERM_DENY, PERM_KEY, SETTINGS_LINK
from guigym.apps.widgets import menu_screen
from guigym.variation import NEUTRAL
from tests.conftest import follow_reference, make

NEUTRAL_AXES = {a: v for a, v in NEUTRAL.items() if a not in ("templates", "permission")}  # every other axis at rest
SPLIT = {"on_open": "train", "on_feature": "test"}
LEVELS = ("easy", "medium", "hard")


def gated(env_id: str, permission: str, level: str = "easy") -> gym.Env:
    return make(env_id, level=level, split=SPLIT[permission],
                variation={**NEUTRAL_AXES, "templates": "all", "permission": permission})


def first(env: gym.Env, template: str, seeds: range = range(200)) -> tuple[int, dict]:
    """Reset ``env`` to the first seed of ``template``."""
    for seed in seeds:
        _, info = env.reset(seed=seed)
        if info["template"] == template:
            return seed, info
    raise AssertionError(template)


def press(env: gym.Env, info: dict, wid: str) -> dict:
    e = next(e for e in info["elements"] if e["id"] == wid)
    x0, y0, x1, y1 = e["box"]
    return env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))[-1]


def until(env: gym.Env, info: dict, screen: str, limit: int = 60) -> dict:
    """Follow the reference until ``screen`` is in front."""
    for _ in range(limit):
        if env.unwrapped.current_view.screen == screen:
            return info
        info = env.step(info["reference"][0].action)[-1]
    raise AssertionError(screen)


def follow(env: gym.Env, info: dict, limit: int = 80) -> dict:
    for _ in range(limit):
        if info["success"] or not info["reference"]:
            break
        info = env.step(info["reference"][0].action)[-1]
    return info


def mail_state(env: gym.Env) -> dict:
    return env.unwrapped.get_state()["state"]["apps"][APP]


# --- the oracle on the gated families ----------------------------------------------------------
@pytest.mark.parametrize("permission", ["on_open", "on_feature"])
@pytest.mark.parametrize("level", LEVELS)
def test_the_oracle_succeeds_on_gated_mail(level: str, permission: str) -> None:
    """The reset's plan as it is (the prompt answered inside it) succeeds on seeds 0-99; the
    prompt shows in every on_open episode and in the on_feature ones that compose or forward."""
    env = gated("GuiGym-Mail-v0", permission, level)
    asked = needed = 0
    for seed in range(100):
        _, info = env.reset(seed=seed)
        assert info["variation"]["permission"] == permission
        run = follow_reference(env, info, env.spec.max_episode_steps, replan=False, seed=seed)
        assert run.success and run.rewards[-1] == 1.0 and not any(run.truncated), (seed, info["template"])
        targets = [s.target for s in run.plan]
        needs = any(t in info["template"] for t in ("compose", "forward"))
        needed += needs
        if PERM_ALLOW in targets or PERM_DENY in targets:
            asked += 1
            assert (PERM_ALLOW in targets) == needs, seed  # allowed when the task sends through a To dropdown
        else:
            assert permission == "on_feature" and not needs, seed
        assert SETTINGS_LINK not in targets, seed  # never denied what it needs: no detour
    assert needed and asked == (100 if permission == "on_open" else needed)
    env.close()


@pytest.mark.parametrize("permission", ["on_open", "on_feature"])
@pytest.mark.parametrize("level", LEVELS)
def test_the_oracle_succeeds_on_gated_crossapp(level: str, permission: str) -> None:
    """The reset's plan succeeds on seeds 0-99; where it answers Mail's prompt it allows it
    exactly when a new mail goes through the To dropdown (a reply's recipient is fixed)."""
    env = gated("GuiGym-CrossApp-v0", permission, level)
    asked = 0
    for seed in range(100):
        _, info = env.reset(seed=seed)
        run = follow_reference(env, info, env.spec.max_episode_steps, replan=False, seed=seed)
        assert run.success and not any(run.truncated), (seed, info["template"])
        assert APP_SETTINGS in env.unwrapped.scenario["apps"][APP]["screens"]
        targets = [s.target for s in run.plan]
        needs = any(j["type"] == "mail" for j in env.unwrapped.scenario["task"]["jobs"])
        if PERM_ALLOW in targets or PERM_DENY in targets:
            asked += 1
            assert (PERM_ALLOW in targets) == needs, seed
        assert SETTINGS_LINK not in targets, seed
    assert asked
    env.close()


# --- the prompt and the settings ---------------------------------------------------------------
def test_on_open_asks_at_reset_and_on_feature_when_a_to_dropdown_is_clicked() -> None:
    env = gated("GuiGym-Mail-v0", "on_open")
    _, info = first(env, "archive")
    v = env.unwrapped.current_view
    assert v.screen == PERM and info["variation"]["permission"] == "on_open"
    assert v.title == "Allow Mail to access your contacts?"
    assert info["reference"][0].target == PERM_DENY  # nothing to send: dismissed
    assert follow(env, info)["success"] and mail_state(env)["data"]["perm"] == "deny"

    env = gated("GuiGym-Mail-v0", "on_feature")
    _, info = first(env, "compose")
    assert env.unwrapped.current_view.screen == "main" and mail_state(env)["data"]["perm"] == "ask"
    info = until(env, info, NEW)
    assert not env.unwrapped.current_view.find("new.to").options  # nobody to pick before it is allowed
    info = until(env, info, PERM)  # clicking To asks first, in the dropdown's place
    assert mail_state(env)["stack"][-2] == NEW and info["reference"][0].target == PERM_ALLOW
    info = press(env, info, PERM_ALLOW)
    assert mail_state(env)["data"]["perm"] == "allow" and mail_state(env)["values"][PERM_KEY] is True
    assert env.unwrapped.current_view.find("new.to").options  # the contacts, now
    info = follow(env, info)
    assert info["success"]


@pytest.mark.parametrize("permission,template", [("on_feature", "compose"), ("on_open", "forward")])
def test_a_denial_the_task_needs_recovers_through_mails_settings(permission: str, template: str) -> None:
    env = gated("GuiGym-Mail-v0", permission)
    u = env.unwrapped
    _, info = first(env, template)
    info = until(env, info, PERM)
    assert info["reference"][0].target == PERM_ALLOW
    info = press(env, info, PERM_DENY)  # the wrong button: denied, and the prompt does not come back
    st = mail_state(env)
    assert st["data"]["perm"] == "deny" and st["values"][PERM_KEY] is False and u.current_view.screen != PERM
    assert not info["success"]
    targets = [s.target for s in info["reference"]]
    assert SETTINGS_LINK in targets and PERM_KEY in targets  # recoverable only through Mail's settings
    pick = next(i for i, s in enumerate(info["reference"]) if s.target and ".opt" in s.target)
    assert targets.index(PERM_KEY) < pick
    assert PERM_ALLOW not in targets and PERM_DENY not in targets
    to = next(s.target for s in info["reference"] if s.target and s.target.endswith(".to"))
    v = u.current_view
    if permission == "on_feature":  # denied on the compose screen: its To dropdown is empty, and says why
        assert not v.find(to).options and v.find(f"{to}.blocked").label == "Mail can't access your contacts"
        info = press(env, info, to)
        assert u.current_view.screen == menu_screen(to) and not any(w.kind == "radio" for w in u.current_view.rows)
    else:  # denied at once: the reference goes to the settings before it opens the mail to forward
        assert info["reference"][0].target == SETTINGS_LINK
    info = follow(env, info)  # (from the empty dropdown: back out,) the settings, then the task
    assert info["success"] and mail_state(env)["data"]["perm"] == "allow"


def test_the_switch_in_mails_settings_turns_the_permission_on_and_off() -> None:
    env = gated("GuiGym-Mail-v0", "on_open")
    _, info = first(env, "archive")
    info = press(env, info, PERM_DENY)
    info = press(env, info, SETTINGS_LINK)
    v = env.unwrapped.current_view
    assert v.screen == APP_SETTINGS and v.title == "Mail settings" and v.find(PERM_KEY).value is False
    info = press(env, info, PERM_KEY)
    assert mail_state(env)["data"]["perm"] == "allow"
    info = press(env, info, PERM_KEY)
    assert mail_state(env)["data"]["perm"] == "deny"


def test_a_denial_never_recovered_earns_nothing() -> None:
    """The allowed episode's actions after the prompt, replayed after Don't allow: the To
    dropdown offers nobody, Send says to choose a contact; no reward, no success."""
    for permission, template in (("on_feature", "compose"), ("on_open", "forward")):
        env = gated("GuiGym-Mail-v0", permission)
        seed, info = first(env, template)
        plan = info["reference"]
        k = next(i for i, s in enumerate(plan) if s.target == PERM_ALLOW)
        for s in plan[:k]:
            info = env.step(s.action)[-1]
        info = press(env, info, PERM_DENY)
        total, term = 0.0, False
        for s in plan[k + 1:]:
            _, r, term, trunc, info = env.step(s.action)
            total += r
            assert not info["success"]
            if term or trunc:
                break
        assert total == 0.0 and not term and not info["success"], (template, seed)
        assert mail_state(env)["data"]["perm"] == "deny"
        assert not any(m["id"] >= len(env.unwrapped.scenario["apps"][APP]["mails"]) for m in mail_state(env)["data"]["mails"])


def test_crossapp_mail_denied_recovers_through_its_settings() -> None:
    env = gated("GuiGym-CrossApp-v0", "on_feature", "easy")
    u = env.unwrapped
    done = 0
    for seed in range(60):
        _, info = env.reset(seed=seed)
        if not any(j["type"] == "mail" for j in u.scenario["task"]["jobs"]):
            continue
        for _ in range(80):
            if (u.get_state()["state"]["fg"] == APP and u.current_view.screen == PERM) or not info["reference"]:
                break
            info = env.step(info["reference"][0].action)[-1]
        assert u.current_view.screen == PERM and info["reference"][0].target == PERM_ALLOW, seed
        info = press(env, info, PERM_DENY)
        assert PERM_KEY in [s.target for s in info["reference"]], seed
        assert follow(env, info, 150)["success"], seed
        done += 1
        if done == 3:
            break
    assert done == 3


def test_unneeded_prompt_in_crossapp_is_dismissed() -> None:
    env = gated("GuiGym-CrossApp-v0", "on_open", "easy")
    u = env.unwrapped
    for seed in range(60):
        _, info = env.reset(seed=seed)
        if any(j["type"] == "mail" for j in u.scenario["task"]["jobs"]):
            continue
        targets = [s.target for s in info["reference"]]
        if PERM_DENY in targets:  # Mail read (a meeting, a sender) or replied from: dismissed
            assert PERM_ALLOW not in targets and follow(env, info, 150)["success"]
            return
    raise AssertionError("no CrossApp task that opens Mail without a new mail")


def test_gated_mail_is_deterministic() -> None:
    def run(permission: str, seed: int) -> tuple[list, list]:
        env = gated("GuiGym-Mail-v0", permission, "medium")
        obs, info = env.reset(seed=seed)
        shots, states = [obs["screenshot"].tobytes()], []
        for _ in range(60):
            if not info["reference"]:
                break
            obs, _, term, trunc, info = env.step(info["reference"][0].action)
            shots.append(obs["screenshot"].tobytes())
            states.append(json.dumps(env.unwrapped.get_state(), sort_keys=True))
            if term or trunc:
                break
        env.close()
        return shots, states

    for permission in ("on_open", "on_feature"):
        for seed in (0, 7):
            a, b = run(permission, seed), run(permission, seed)
            assert a == b and len(a[0]) > 1


def test_unvaried_and_none_mail_have_no_gate() -> None:
    a = make("GuiGym-Mail-v0").unwrapped
    b = gated("GuiGym-Mail-v0", "on_open").unwrapped
    c = make("GuiGym-Mail-v0", variation={**NEUTRAL_AXES, "templates": "all", "permission": "none"}).unwrapped
    for e in (a, b, c):
        e.reset(seed=3)
    assert "permission" not in a.scenario["apps"][APP] and "permission" not in c.scenario["apps"][APP]
    assert b.scenario["apps"][APP]["permission"] == "on_open"
    assert a.current_view.find(SETTINGS_LINK) is None and "perm" not in a.get_state()["state"]["apps"][APP]["data"]
