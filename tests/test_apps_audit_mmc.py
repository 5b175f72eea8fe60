"""Audit of the Mail, Messages and Contacts families: the failure reason of a conversation
deleted by mistake, and a Contacts edit that never asks for the number the person already has."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from guigym.actions import Click, Type
from guigym.apps import contacts
from guigym.apps.family import WRONG_MESSAGES
from guigym.apps import messages
from guigym.apps.messages import dialog_screen, thread_screen
from guigym.oracle import center
from tests.conftest import make


def _tap(env: Any, wid: str) -> tuple[Any, ...]:
    box = env.unwrapped._lay.box(wid)
    assert box is not None, (wid, [w.id for w, _ in env.unwrapped._lay.visible])
    return env.step(Click(*center(box)))


def _delete_thread(env: Any, tid: int) -> dict[str, Any]:
    _tap(env, thread_screen(tid))
    _tap(env, f"{thread_screen(tid)}.delete")
    return _tap(env, f"{dialog_screen(tid)}.confirm")[-1]


@pytest.mark.parametrize("seed", range(4))
def test_a_conversation_deleted_by_mistake_is_reported_as_a_deletion(seed: int) -> None:
    """``info["failure"]`` names what went wrong: deleting a conversation the task keeps is no
    "message the task does not ask for was sent" (the reason before the fix)."""
    env = make("GuiGym-Messages-v0", level="easy")
    env.reset(seed=seed)
    names = {t["name"] for t in env.unwrapped.scenario["task"]["tasks"]}
    threads = env.unwrapped.get_state()["state"]["apps"]["Messages"]["data"]["threads"]
    other = next(t["id"] for t in threads if t["name"] not in names)
    info = _delete_thread(env, other)
    assert not info["success"] and "conversation" in info["failure"] and "deleted" in info["failure"], info["failure"]
    assert info["failure"] == getattr(messages, "CONVERSATION_DELETED", None)


def test_a_wrong_message_is_still_reported_as_one() -> None:
    """A stray message (not a deletion) keeps its own reason."""
    env = make("GuiGym-Messages-v0", level="easy")
    env.reset(seed=0)
    names = {t["name"] for t in env.unwrapped.scenario["task"]["tasks"]}
    threads = env.unwrapped.get_state()["state"]["apps"]["Messages"]["data"]["threads"]
    other = next(t["id"] for t in threads if t["name"] not in names)
    _tap(env, thread_screen(other))
    _tap(env, f"{thread_screen(other)}.compose")
    env.step(Type("hello there"))
    info = _tap(env, f"{thread_screen(other)}.send")[-1]
    assert info["failure"] == WRONG_MESSAGES


def test_an_edit_never_asks_for_the_phone_number_the_person_has(monkeypatch: pytest.MonkeyPatch) -> None:
    """The new number of an edit differs from the card's (drawn again on a clash, as the email
    is), so no edit task is done at reset; a clash is rare (1 in 8e6), so it is forced here."""
    card = {"id": 0, "name": "Bob Lee", "phone": "415-555-0137", "email": "bob.lee@mail.com", "fav": False}
    draws = iter(["415-555-0137", "415-555-0138"])
    monkeypatch.setattr(contacts, "phone_number", lambda rng: next(draws))
    fam = contacts.ContactsFamily()
    # medium: one field, drawn by the rng; find a seed whose edit is of the phone number
    for seed in range(50):
        rng = np.random.default_rng(seed)
        state = rng.bit_generator.state
        if contacts.pick(rng, ("phone", "email")) == "phone":
            rng.bit_generator.state = state
            break
    t = fam._task(rng, "medium", "edit", card)  # type: ignore[arg-type]
    assert t["phone"] == "415-555-0138" and t["email"] is None
