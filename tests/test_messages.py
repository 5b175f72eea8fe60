"""The Messages family by hand: sending in a conversation and from New message (the contact
picker), the success check with side effects (wrong person, an extra message, a stale draft
sent), Retry, deleting through the dialog and cancelling it, and questions answered right and
wrong. (The registry-driven tests cover the id x level contract.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from guigym.actions import Answer, Back, Click, Type
from guigym.apps.messages import (
    NEW,
    PICK,
    MessagesFamily,
    bubble_id,
    dialog_screen,
    pick_id,
    retry_id,
    thread_screen,
)
from guigym.display import shown_texts
from guigym.events import Event
from guigym.oracle import center
from tests.conftest import make

ENV_ID = "GuiGym-Messages-v0"
Tasks = list[dict[str, Any]]


def env_where(pred: Callable[[dict[str, Any], Tasks], bool], level: str = "easy"):
    """An env reset on the first seed whose scenario satisfies ``pred(spec, tasks)``."""
    env = make(ENV_ID, level=level)
    for seed in range(300):
        env.reset(seed=seed)
        sc = env.unwrapped.scenario
        if pred(sc["apps"]["Messages"], sc["task"]["tasks"]):
            return env
    raise AssertionError("no such seed")


def has_thread(spec: dict[str, Any], name: str) -> bool:
    return any(t["name"] == name for t in spec["threads"])


def kind(k: str, new: bool | None = None) -> Callable[[dict[str, Any], Tasks], bool]:
    """One task of type ``k`` (for "send": to someone with a conversation, or not when ``new``)."""
    return lambda spec, tasks: [t["type"] for t in tasks] == [k] and (new is None or has_thread(spec, tasks[0]["name"]) != new)


def threads(env) -> list[dict[str, Any]]:
    return env.unwrapped.get_state()["state"]["apps"]["Messages"]["data"]["threads"]


def tid_of(env, name: str) -> int:
    return next(t["id"] for t in threads(env) if t["name"] == name)


def task(env) -> dict[str, Any]:
    return env.unwrapped.scenario["task"]["tasks"][0]


def tap(env, wid: str):
    """Click the centre of visible widget ``wid`` (scrolling down to it first); returns step()'s tuple."""
    for _ in range(10):
        box = env.unwrapped._lay.box(wid)
        if box is not None:
            return env.step(Click(*center(box)))
        env.step({"type": 1, "x": 180, "y": 400, "direction": 1, "app": 0, "text": ""})  # Scroll down
    raise AssertionError((wid, [w.id for w, _ in env.unwrapped._lay.visible]))


def send_in(env, tid: int, text: str):
    sid = thread_screen(tid)
    if env.unwrapped.current_view.screen != sid:
        tap(env, sid)
    tap(env, f"{sid}.compose")
    env.step(Type(text))
    return tap(env, f"{sid}.send")


# --- sending ---------------------------------------------------------------------------------
def test_send_in_the_conversation_succeeds_and_moves_it_to_the_top() -> None:
    env = env_where(kind("send", new=False))
    t = task(env)
    tid = tid_of(env, t["name"])
    before = {x["name"]: x["msgs"] for x in threads(env)}
    _, r, term, _, info = send_in(env, tid, t["text"])
    assert (r, term, info["success"]) == (1.0, True, True)
    after = threads(env)
    assert after[0]["id"] == tid and after[0]["msgs"] == [*before[t["name"]], ">" + t["text"]]
    assert after[0]["time"] == env.unwrapped.scenario["apps"]["Messages"]["now"]
    assert f"You: {t['text']}" in [w.label for w in env.unwrapped.current_view.rows]


def test_send_to_someone_new_through_the_picker() -> None:
    env = env_where(kind("send", new=True))
    t = task(env)
    contacts = env.unwrapped.scenario["apps"]["Messages"]["contacts"]
    tap(env, "new")
    assert env.unwrapped.current_view.find("new.pick").detail == "Choose a contact"
    _, _, _, _, info = tap(env, "new.send")  # nothing chosen: an error, nothing sent
    assert env.unwrapped.current_view.find("new.error").label == "Choose a contact" and not info["success"]
    tap(env, "new.pick")
    assert env.unwrapped.current_view.screen == PICK
    tap(env, pick_id(contacts.index(t["name"])))
    v = env.unwrapped.current_view
    assert v.screen == NEW and v.find("new.pick").detail == t["name"]  # the picker closed on the choice
    tap(env, "new.text")
    env.step(Type(f"  {t['text']} "))  # surrounding spaces are not sent
    _, r, term, _, info = tap(env, "new.send")
    assert (r, term, info["success"]) == (1.0, True, True)
    assert env.unwrapped.current_view.screen == thread_screen(threads(env)[0]["id"]) and threads(env)[0]["name"] == t["name"]


def test_new_message_keeps_its_draft_after_back() -> None:
    env = env_where(kind("send", new=True))
    tap(env, "new")
    tap(env, "new.text")
    env.step(Type("half written"))
    env.step(Back())
    tap(env, "new")
    assert env.unwrapped.current_view.find("new.text").value == "half written"


def test_sending_to_the_wrong_person_fails_and_ends_the_episode() -> None:
    env = env_where(kind("send", new=False))
    t = task(env)
    other = next(x["id"] for x in threads(env) if x["name"] != t["name"])
    _, r, term, _, info = send_in(env, other, t["text"])
    assert (r, term, info["success"], info["reference"]) == (0.0, True, False, [])


def test_an_extra_message_fails() -> None:
    env = env_where(kind("send", new=False))
    t = task(env)
    tid = tid_of(env, t["name"])
    _, r, term, _, info = send_in(env, tid, t["text"] + "!")  # a typo sent: it cannot be unsent
    assert (r, term, info["success"]) == (0.0, True, False)


def test_the_right_message_twice_fails() -> None:
    env = env_where(kind("reply"))
    t = task(env)
    assert t["name"] == threads(env)[0]["name"]  # "the most recent conversation": the top of the list
    fam = MessagesFamily()
    sc = env.unwrapped.scenario
    state = env.unwrapped.get_state()["state"]
    msgs = next(x for x in state["apps"]["Messages"]["data"]["threads"] if x["name"] == t["name"])["msgs"]
    msgs += [">" + t["text"]] * 2
    assert fam.failed(sc, state) and not fam.success(sc, state)
    msgs.pop()
    assert fam.success(sc, state) and not fam.failed(sc, state)


def test_a_stale_draft_sent_unchanged_fails() -> None:
    env = make(ENV_ID, level="medium")
    for seed in range(300):
        env.reset(seed=seed)
        t = task(env)
        if t["type"] != "send" or not has_thread(env.unwrapped.scenario["apps"]["Messages"], t["name"]):
            continue
        sid = thread_screen(tid_of(env, t["name"]))
        draft = env.unwrapped.get_state()["state"]["apps"]["Messages"]["values"].get(f"{sid}.compose")
        if draft:
            break
    else:
        raise AssertionError("no stale draft")
    tap(env, sid)
    assert env.unwrapped.current_view.find(f"{sid}.compose").value == draft
    _, r, term, _, info = tap(env, f"{sid}.send")
    assert (r, term, info["success"]) == (0.0, True, False)


def test_send_with_an_empty_field_shows_an_error() -> None:
    env = env_where(kind("delete"))
    tid = threads(env)[0]["id"]
    before = threads(env)
    tap(env, thread_screen(tid))
    _, r, term, _, _ = tap(env, f"{thread_screen(tid)}.send")
    assert env.unwrapped.current_view.find(f"{thread_screen(tid)}.error").label == "Type a message"
    assert (r, term) == (0.0, False) and [x["msgs"] for x in threads(env)] == [x["msgs"] for x in before]


def test_opening_marks_read_and_read_marks_are_not_compared() -> None:
    env = env_where(lambda spec, tasks: kind("ask")(spec, tasks) and any(t["unread"] for t in spec["threads"]))
    t = next(x for x in threads(env) if x["unread"])
    assert env.unwrapped.current_view.find(thread_screen(t["id"])).label == f"\u2022 {t['name']}"
    tap(env, thread_screen(t["id"]))
    assert not next(x for x in threads(env) if x["id"] == t["id"])["unread"]
    env.step(Back())
    assert env.unwrapped.current_view.find(thread_screen(t["id"])).label == t["name"]
    assert not env.unwrapped.family.failed(env.unwrapped.scenario, env.unwrapped.get_state()["state"])


# --- resend ----------------------------------------------------------------------------------
def test_retry_delivers_the_failed_message() -> None:
    env = env_where(kind("resend"))
    t = task(env)
    tid = tid_of(env, t["name"])
    tap(env, thread_screen(tid))
    bubble = env.unwrapped.current_view.find(bubble_id(tid, t["index"]))
    assert bubble.style == "error" and bubble.label.endswith("(Not delivered)")
    _, r, term, _, info = tap(env, retry_id(tid, t["index"]))
    assert (r, term, info["success"]) == (1.0, True, True)
    text = bubble.label[len("You: "):-len(" (Not delivered)")]
    assert next(x for x in threads(env) if x["id"] == tid)["msgs"][t["index"]] == ">" + text


def test_retrying_another_failed_message_fails() -> None:
    def other_failed(spec: dict[str, Any], tasks: Tasks) -> bool:
        return tasks[0]["type"] != "resend" and any(m[0] == "!" for x in spec["threads"] for m in x["msgs"])
    env = env_where(other_failed, level="medium")
    th = next(x for x in threads(env) if any(m[0] == "!" for m in x["msgs"]))
    k = next(i for i, m in enumerate(th["msgs"]) if m[0] == "!")
    tap(env, thread_screen(th["id"]))
    _, r, term, _, info = tap(env, retry_id(th["id"], k))
    assert (r, term, info["success"]) == (0.0, True, False)


# --- delete through the dialog -----------------------------------------------------------------
def test_dialog_cancel_and_back_leave_the_state_and_delete_removes() -> None:
    env = env_where(kind("delete"))
    tid = tid_of(env, task(env)["name"])
    tap(env, thread_screen(tid))
    before = env.unwrapped.get_state()["state"]
    d = dialog_screen(tid)
    tap(env, f"{thread_screen(tid)}.delete")
    v = env.unwrapped.current_view
    assert v.screen == d and v.backdrop is not None and v.backdrop.screen == thread_screen(tid)
    assert [w.kind for w in v.rows] == ["dialog", "button", "button"] and v.title == "Delete this conversation?"
    assert [e["id"] for e in env.unwrapped.elements()] == [f"{d}.cancel", f"{d}.confirm"]  # the screen under it is inert
    _, r, term, _, info = tap(env, f"{d}.cancel")
    assert env.unwrapped.get_state()["state"] == before and (r, term) == (0.0, False)
    tap(env, f"{thread_screen(tid)}.delete")
    env.step(Back())
    assert env.unwrapped.get_state()["state"] == before
    tap(env, f"{thread_screen(tid)}.delete")
    _, r, term, _, info = tap(env, f"{d}.confirm")
    assert tid not in [x["id"] for x in threads(env)] and env.unwrapped.current_view.screen == "main"
    assert (r, term, info["success"]) == (1.0, True, True)


def test_deleting_the_wrong_conversation_fails() -> None:
    env = env_where(kind("delete"))
    other = next(x["id"] for x in threads(env) if x["name"] != task(env)["name"])
    tap(env, thread_screen(other))
    tap(env, f"{thread_screen(other)}.delete")
    _, r, term, _, info = tap(env, f"{dialog_screen(other)}.confirm")
    assert (r, term, info["success"], info["reference"]) == (0.0, True, False, [])


# --- questions ---------------------------------------------------------------------------------
def _ask(field: str):
    return env_where(lambda spec, tasks: kind("ask")(spec, tasks) and tasks[0]["field"] == field)


def _last(threads: list[dict[str, Any]], t: dict[str, Any]) -> bool:
    """Whether the asked message is its conversation's last one: the list's preview shows it."""
    return t["index"] == len(next(x for x in threads if x["name"] == t["name"])["msgs"]) - 1


def test_question_reference_opens_the_conversation_then_answers() -> None:
    # a message before the last one: the preview shows a later message
    env = env_where(lambda spec, tasks: kind("ask")(spec, tasks) and tasks[0]["field"] == "address"
                    and not _last(spec["threads"], tasks[0]))
    t = task(env)
    tid = tid_of(env, t["name"])
    ref = env.unwrapped.reference()
    assert [s.event for s in ref] == [Event("click", thread_screen(tid)), Event("answer", None, t["fact"])]
    env.step(ref[0].action)
    label = env.unwrapped.current_view.find(bubble_id(tid, t["index"])).label
    assert t["fact"] in label and not label.startswith("You:")  # the fact is on screen, sent by them
    _, r, term, _, info = env.step(ref[1].action)
    assert (r, term, info["success"]) == (1.0, True, True)


def test_question_reference_reads_the_fact_off_the_preview_in_view() -> None:
    env = _ask("address")
    t = task(env)
    u, row = env.unwrapped, thread_screen(tid_of(env, t["name"]))
    assert _last(threads(env), t) and u._lay.box(row) is not None
    assert any(t["fact"] in x for x in shown_texts(u.current_view, u._lay, row))
    ref = u.reference()
    assert [s.event for s in ref] == [Event("answer", None, t["fact"])]  # not opened to read it
    _, r, term, _, info = env.step(ref[0].action)
    assert (r, term, info["success"]) == (1.0, True, True)


@pytest.mark.parametrize("field", ["address", "time"])
def test_answers_are_scored_after_normalisation(field: str) -> None:
    env = _ask(field)
    fact = task(env)["fact"]
    if field == "time":  # "7:30 PM" is also "19:30"
        h, rest = fact.split(":")
        m, half = rest.split()
        other = f"{int(h) % 12 + (12 if half == 'PM' else 0):02d}:{m}"
    else:
        other = f"  {fact.upper()}. "
    _, r, term, _, info = env.step(Answer(other))
    assert (r, term, info["success"]) == (1.0, True, True), (fact, other)
    env = _ask(field)
    _, r, term, _, info = env.step(Answer("12 Nowhere Road" if field == "address" else "3:17 AM"))
    assert (r, term, info["success"]) == (0.0, True, False)


def test_answer_is_a_no_op_in_a_task_that_asks_nothing() -> None:
    env = env_where(kind("delete"))
    state = env.unwrapped.get_state()["state"]
    _, r, term, _, info = env.step(Answer("hello"))
    assert "asks no question" in info["action_error"] and (r, term) == (0.0, False)
    assert env.unwrapped.get_state()["state"] == state


# --- generation ------------------------------------------------------------------------------
def test_generation_varies_and_the_long_hard_template_is_at_least_15_steps() -> None:
    env = make(ENV_ID, level="hard")
    lengths: dict[tuple[str, ...], list[int]] = {}
    instructions = set()
    for seed in range(120):
        _, info = env.reset(seed=seed)
        sc = env.unwrapped.scenario
        spec, tasks = sc["apps"]["Messages"], sc["task"]["tasks"]
        kinds = tuple(t["type"] + ("_new" if t["type"] == "send" and not has_thread(spec, t["name"]) else "") for t in tasks)
        assert len(kinds) == 2 and kinds[1] in ("delete", "ask") and tasks[0]["name"] != tasks[1]["name"]
        lengths.setdefault(kinds, []).append(len(info["reference"]))
        instructions.add(sc["task"]["instruction"])
        assert 16 <= len(spec["threads"]) <= 22 and 24 <= len(spec["contacts"]) <= 33
    assert len(instructions) == 120
    assert min(lengths[("send_new", "delete")]) >= 15


def test_easy_fits_on_one_screen() -> None:
    env = make(ENV_ID, level="easy")
    for seed in range(50):
        env.reset(seed=seed)
        assert env.unwrapped._lay.max_scroll == 0
        for t in env.unwrapped.scenario["apps"]["Messages"]["threads"]:
            assert len(t["msgs"]) + 4 <= env.unwrapped._lay.n_visible  # messages, a Retry, the field, Send, Delete


@pytest.mark.browser
def test_thread_screen_and_dialog_draw_and_hit_test_alike_on_both_renderers() -> None:
    from guigym.backends.browser import BrowserBackend
    from guigym.backends.mock import MockBackend
    from tests.test_render_parity import MIN_AGREEMENT, agreement

    env = env_where(kind("resend"))
    tid = tid_of(env, task(env)["name"])
    tap(env, thread_screen(tid))
    m, b = MockBackend(360, 640), BrowserBackend(360, 640)
    try:
        for step in range(2):  # the thread (a failed bubble, Retry), then its dialog
            v, lay = env.unwrapped.current_view, env.unwrapped._lay
            m.show(v, lay)
            b.show(v, lay)
            assert agreement(m.screenshot(), b.screenshot()) >= MIN_AGREEMENT
            assert b.boxes() == m.boxes() == {w.id: box for w, box in lay.visible}
            if step == 0:
                retry = Click(*center(lay.box(retry_id(tid, task(env)["index"]))))
                assert b.perform(retry) == m.perform(retry) == (Event("click", retry_id(tid, task(env)["index"])), None)
                tap(env, f"{thread_screen(tid)}.delete")
    finally:
        b.close()
        m.close()
