"""Audit of the Phone and CrossApp families: the failure reasons of changes no task asks for
(a deleted conversation, a new alarm switched off) name what happened."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from guigym.actions import OpenApp
from guigym.apps.family import WRONG_MESSAGES
from tests.conftest import make, tap

#: how the reason of a deleted conversation starts (guigym.apps.family.CONVERSATION_DELETED)
DELETED = "a conversation that should stay was deleted"

Jobs = list[dict[str, Any]]


def env_where(env_id: str, pred: Callable[[Jobs], bool], level: str = "easy", seeds: int = 300):
    """An env reset on the first seed whose jobs satisfy ``pred``."""
    env = make(env_id, level=level)
    for seed in range(seeds):
        env.reset(seed=seed)
        if pred(env.unwrapped.scenario["task"]["jobs"]):
            return env
    raise AssertionError("no such seed")


def no_message_job(jobs: Jobs) -> bool:
    return all(j["app"] != "Messages" for j in jobs)


@pytest.mark.parametrize("env_id", ["GuiGym-Phone-v0", "GuiGym-CrossApp-v0"])
def test_deleting_a_conversation_fails_as_a_deletion_not_as_a_message_sent(env_id: str) -> None:
    """Messages' Delete conversation (through its dialog) ends the episode, and the reason says
    a conversation was deleted: no message was sent (it used to say one was)."""
    env = env_where(env_id, no_message_job)
    tid = env.unwrapped.get_state()["state"]["apps"]["Messages"]["data"]["threads"][0]["id"]
    env.step(OpenApp("Messages"))
    tap(env, f"t:{tid}")
    tap(env, f"t:{tid}.delete")
    _, r, term, _, info = tap(env, f"d:{tid}.confirm")
    assert (r, term, info["success"]) == (0.0, True, False)
    assert str(info["failure"]).startswith(DELETED), info["failure"]


@pytest.mark.parametrize("env_id", ["GuiGym-Phone-v0", "GuiGym-CrossApp-v0"])
def test_a_conversation_deleted_and_started_again_is_still_deleted(env_id: str) -> None:
    """The recipient's conversation deleted, then the asked message sent in a new one with them:
    the start's conversation is gone (by id), not a wrong message."""
    def to_someone_with_a_thread(jobs: Jobs) -> bool:
        return any(j["app"] == "Messages" for j in jobs)

    env = env_where(env_id, to_someone_with_a_thread, level="medium")
    sc, fam = env.unwrapped.scenario, env.unwrapped.family
    j = next(j for j in sc["task"]["jobs"] if j["app"] == "Messages")
    st = env.unwrapped.get_state()["state"]
    d = st["apps"]["Messages"]["data"]
    old = next((t for t in d["threads"] if t["name"] == j["name"]), None)
    if old is None:  # no conversation with the recipient yet: delete someone else's, start theirs again
        old = d["threads"][0]
    d["threads"] = [t for t in d["threads"] if t is not old]
    d["threads"].insert(0, {**old, "id": d["next"], "msgs": [">" + j["text"]], "unread": False})
    d["next"] += 1
    assert str(fam.failed(sc, st)).startswith(DELETED)
    # a wrong message in a conversation that stays is still a message sent
    st = env.unwrapped.get_state()["state"]
    st["apps"]["Messages"]["data"]["threads"][0]["msgs"].append(">not asked for")
    assert fam.failed(sc, st) == WRONG_MESSAGES


def test_a_new_alarm_switched_off_is_named_in_the_reason() -> None:
    """The asked alarm added (success), then switched off on the list: a failure whose reason
    covers it (it has the right time and repeats; the reason used to name only those)."""
    env = env_where("GuiGym-Phone-v0", lambda jobs: [j["type"] for j in jobs] == ["alarm_add"])
    sc, fam = env.unwrapped.scenario, env.unwrapped.family
    ref = env.unwrapped.reference()
    for s in ref[:-1]:
        env.step(s.action)
    from guigym.apps.base import apply

    st = apply(sc, env.unwrapped.get_state()["state"], ref[-1].event)  # Save, on a copy
    assert fam.success(sc, st)
    new = max(st["apps"]["Clock"]["data"]["alarms"], key=lambda a: a["id"])
    new["on"] = False
    reason = fam.failed(sc, st)
    assert isinstance(reason, str) and "switched off" in reason
    assert not fam.success(sc, st)


def test_crossapp_a_contact_deleted_says_deleted() -> None:
    """Contacts' Delete (through its dialog) in CrossApp: the reason names a deletion, as
    Phone's does (it used to say only "changed")."""
    env = env_where("GuiGym-CrossApp-v0", lambda jobs: True)
    pid = env.unwrapped.get_state()["state"]["apps"]["Contacts"]["data"]["people"][0]["id"]
    env.step(OpenApp("Contacts"))
    tap(env, f"p:{pid}")
    ids = [w.id for w in env.unwrapped.current_view.rows]
    tap(env, next(i for i in ids if i.endswith(".delete")))
    ids = [w.id for w in env.unwrapped.current_view.rows]
    _, r, term, _, info = tap(env, next(i for i in ids if i.endswith(".confirm")))
    assert (r, term, info["success"]) == (0.0, True, False)
    assert "deleted" in str(info["failure"]), info["failure"]
