"""The Phone family by hand: Notes+ (edit through the pre-filled editor, delete through the
dialog, a question), Contacts+ (edit a number, a question), Clock+ (the add-alarm screen: time
steppers, the Repeats dropdown, Save; switches), Messages (send), the side-effect check (an
extra change in any app fails), the hard cross-app templates (the oracle reads the fact
first) and generation. (The registry-driven tests cover the id x level contract, the
oracle on seeds 0-199 at every level included.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from guigym.actions import Answer, Back, Click, OpenApp, Type
from guigym.apps.phone import (
    ADD,
    REPEAT_KEY,
    alarm_switch,
    note_dialog,
    note_editor,
    note_view,
)
from guigym.apps.schema import sub_id
from guigym.apps.tools import time_label
from guigym.apps.widgets import menu_screen
from guigym.events import Event
from guigym.oracle import center
from tests.conftest import assert_extra_change_fails, make, tap

ENV_ID = "GuiGym-Phone-v0"
Jobs = list[dict[str, Any]]


def env_where(pred: Callable[[Jobs], bool], level: str = "easy", seeds: int = 300):
    """An env reset on the first seed whose jobs satisfy ``pred``."""
    env = make(ENV_ID, level=level)
    for seed in range(seeds):
        env.reset(seed=seed)
        if pred(env.unwrapped.scenario["task"]["jobs"]):
            return env
    raise AssertionError("no such seed")


def kind(k: str) -> Callable[[Jobs], bool]:
    return lambda jobs: [j["type"] for j in jobs] == [k]


def job(env) -> dict[str, Any]:
    return env.unwrapped.scenario["task"]["jobs"][0]


def data(env, app: str) -> dict[str, Any]:
    return env.unwrapped.get_state()["state"]["apps"][app]["data"]


def state(env) -> dict[str, Any]:
    return env.unwrapped.get_state()["state"]


def typed(env, wid: str, text: str):
    tap(env, wid)
    return env.step(Type(text))


def outcome(res) -> tuple[float, bool, bool]:
    _, r, term, _, info = res
    return r, term, info["success"]


def fails(env) -> bool:
    return env.unwrapped.family.failed(env.unwrapped.scenario, state(env))


# --- Notes+ ----------------------------------------------------------------------------------
def test_edit_a_note_through_the_prefilled_editor() -> None:
    env = env_where(kind("note_edit"))
    j = job(env)
    nid = j["ref"]
    env.step(OpenApp("Notes"))
    tap(env, note_view(nid))
    old = env.unwrapped.current_view.find(sub_id(note_view(nid), "body")).label
    tap(env, sub_id(note_view(nid), "edit"))
    v = env.unwrapped.current_view
    ed = note_editor(nid)
    assert v.screen == ed and v.find(sub_id(ed, "title")).value == j["title"]
    body = v.find(sub_id(ed, "body"))
    assert body.kind == "textarea" and body.value == old and body.span >= 2
    typed(env, sub_id(ed, "body"), "  " + j["text"].upper() + " ")  # case and surrounding spaces are not compared
    assert outcome(tap(env, sub_id(ed, "save"))) == (1.0, True, True)
    assert env.unwrapped.current_view.screen == note_view(nid)


def test_a_saved_edit_with_the_wrong_text_fails_and_cancel_changes_nothing() -> None:
    env = env_where(kind("note_edit"))
    nid = job(env)["ref"]
    ed = note_editor(nid)
    env.step(OpenApp("Notes"))
    tap(env, note_view(nid))
    before = data(env, "Notes")
    tap(env, sub_id(note_view(nid), "edit"))
    typed(env, sub_id(ed, "body"), "something else")
    tap(env, sub_id(ed, "cancel"))
    assert data(env, "Notes") == before and not fails(env)
    tap(env, sub_id(note_view(nid), "edit"))
    body = next(n["body"] for n in before["notes"] if n["id"] == nid)
    assert env.unwrapped.current_view.find(sub_id(ed, "body")).value == body  # a fresh editor: the note as it is
    typed(env, sub_id(ed, "body"), "something else")
    assert outcome(tap(env, sub_id(ed, "save"))) == (0.0, True, False)


def test_an_empty_title_is_refused() -> None:
    env = env_where(kind("note_edit"))
    nid = job(env)["ref"]
    ed = note_editor(nid)
    env.step(OpenApp("Notes"))
    tap(env, note_view(nid))
    tap(env, sub_id(note_view(nid), "edit"))
    typed(env, sub_id(ed, "title"), "   ")
    r, term, _ = outcome(tap(env, sub_id(ed, "save")))
    assert (r, term) == (0.0, False) and env.unwrapped.current_view.find(sub_id(ed, "error")).label == "A note needs a title"


def test_delete_a_note_through_the_dialog() -> None:
    env = env_where(kind("note_delete"))
    nid = job(env)["ref"]
    env.step(OpenApp("Notes"))
    tap(env, note_view(nid))
    before = state(env)
    tap(env, sub_id(note_view(nid), "delete"))
    v = env.unwrapped.current_view
    d = note_dialog(nid)
    assert v.screen == d and v.backdrop is not None and v.backdrop.screen == note_view(nid)
    assert [w.kind for w in v.rows] == ["dialog", "button", "button"] and v.title == "Delete this note?"
    assert [e["id"] for e in env.unwrapped.elements()] == [f"{d}.cancel", f"{d}.confirm"]
    tap(env, f"{d}.cancel")
    assert state(env) == before
    tap(env, sub_id(note_view(nid), "delete"))
    env.step(Back())
    assert state(env) == before
    tap(env, sub_id(note_view(nid), "delete"))
    assert outcome(tap(env, f"{d}.confirm")) == (1.0, True, True)
    assert nid not in [n["id"] for n in data(env, "Notes")["notes"]] and env.unwrapped.current_view.screen == "main"


def test_deleting_the_wrong_note_fails() -> None:
    env = env_where(kind("note_delete"))
    other = next(n["id"] for n in data(env, "Notes")["notes"] if n["id"] != job(env)["ref"])
    env.step(OpenApp("Notes"))
    tap(env, note_view(other))
    tap(env, sub_id(note_view(other), "delete"))
    _, r, term, _, info = tap(env, f"{note_dialog(other)}.confirm")
    assert (r, term, info["success"], info["reference"]) == (0.0, True, False, [])


def test_new_note_keeps_its_draft_after_back_and_an_unasked_note_fails() -> None:
    env = env_where(kind("note_delete"))
    env.step(OpenApp("Notes"))
    tap(env, "new")
    typed(env, "new.title", "Stray")
    env.step(Back())
    tap(env, "new")
    assert env.unwrapped.current_view.find("new.title").value == "Stray"
    assert outcome(tap(env, "new.save")) == (0.0, True, False)


def test_note_question_answered_right_and_wrong() -> None:
    env = env_where(kind("note_ask"))
    j = job(env)
    ref = env.unwrapped.reference()
    assert [s.event for s in ref] == [Event("open_app", value="Notes"), Event("click", note_view(j["ref"])),
                                      Event("answer", None, j["fact"])]
    for s in ref[:2]:
        env.step(s.action)
    assert env.unwrapped.current_view.find(sub_id(note_view(j["ref"]), "body")).label == j["fact"]
    assert outcome(env.step(Answer(f"  {j['fact'].upper()}. "))) == (1.0, True, True)
    env = env_where(kind("note_ask"))
    assert outcome(env.step(Answer("nothing at all"))) == (0.0, True, False)


def test_answer_is_a_no_op_in_a_task_that_asks_nothing() -> None:
    env = env_where(kind("note_delete"))
    before = state(env)
    _, r, term, _, info = env.step(Answer("hello"))
    assert "asks no question" in info["action_error"] and (r, term) == (0.0, False) and state(env) == before


# --- Contacts+ -------------------------------------------------------------------------------
def test_edit_a_phone_number_and_a_wrong_person_fails() -> None:
    env = env_where(kind("contact_edit"))
    j = job(env)
    env.step(OpenApp("Contacts"))
    tap(env, f"p:{j['ref']}")
    assert env.unwrapped.current_view.title == j["name"]
    tap(env, f"p:{j['ref']}.edit")
    typed(env, f"e:{j['ref']}.phone", j["text"])
    assert outcome(tap(env, f"e:{j['ref']}.save")) == (1.0, True, True)
    env = env_where(kind("contact_edit"))
    j = job(env)
    other = next(c["id"] for c in data(env, "Contacts")["people"] if c["id"] != j["ref"])
    env.step(OpenApp("Contacts"))
    tap(env, f"p:{other}")
    tap(env, f"p:{other}.edit")
    typed(env, f"e:{other}.phone", j["text"])
    assert outcome(tap(env, f"e:{other}.save")) == (0.0, True, False)


def test_contact_question_and_a_stray_favourite_fails() -> None:
    env = env_where(kind("contact_ask"))
    j = job(env)
    env.step(OpenApp("Contacts"))
    tap(env, f"p:{j['ref']}")
    assert env.unwrapped.current_view.find(f"p:{j['ref']}.phone").label == f"Phone: {j['fact']}"
    assert outcome(env.step(Answer(j["fact"]))) == (1.0, True, True)
    env = env_where(kind("contact_ask"))
    j = job(env)
    env.step(OpenApp("Contacts"))
    tap(env, f"p:{j['ref']}")
    assert outcome(tap(env, f"fav:{j['ref']}")) == (0.0, True, False)  # a change nobody asked for


# --- Clock+ ----------------------------------------------------------------------------------
def test_add_alarm_screen_adds_the_alarm_to_the_list() -> None:
    env = env_where(lambda jobs: kind("alarm_add")(jobs) and jobs[0]["repeat"] != "Once" and jobs[0]["time"] // 60 != 7)
    j = job(env)
    h, m = divmod(j["time"], 60)
    env.step(OpenApp("Clock"))
    n0 = len(data(env, "Clock")["alarms"])
    tap(env, "add")
    v = env.unwrapped.current_view
    assert v.screen == ADD and v.find("add.time.h").value == "07" and v.find(REPEAT_KEY).kind == "select"
    while env.unwrapped.current_view.find("add.time.h").option != h:
        tap(env, "add.time.h.inc" if (h - env.unwrapped.current_view.find("add.time.h").option) % 24 <= 12 else "add.time.h.dec")
    while env.unwrapped.current_view.find("add.time.m").option != m:
        tap(env, "add.time.m.inc")
    tap(env, REPEAT_KEY)
    v = env.unwrapped.current_view
    assert v.screen == menu_screen(REPEAT_KEY) and v.backdrop is not None and v.backdrop.screen == ADD
    opt = next(w.id for w in v.rows if w.kind == "radio" and w.option == j["repeat"])
    tap(env, opt)
    assert env.unwrapped.current_view.screen == ADD and env.unwrapped.current_view.find(REPEAT_KEY).value == j["repeat"]
    assert outcome(tap(env, "add.save")) == (1.0, True, True)
    alarms = data(env, "Clock")["alarms"]
    assert len(alarms) == n0 + 1 and alarms[-1] == {"id": n0, "time": j["time"], "repeat": j["repeat"], "on": True}
    row = env.unwrapped.current_view.find(alarm_switch(n0))
    assert (row.label, row.detail, row.value) == (time_label(j["time"]), j["repeat"], True)


def test_an_alarm_with_the_wrong_repeat_fails_and_cancel_adds_nothing() -> None:
    env = env_where(lambda jobs: kind("alarm_add")(jobs) and jobs[0]["repeat"] != "Once")
    j = job(env)
    env.step(OpenApp("Clock"))
    before = data(env, "Clock")
    tap(env, "add")
    tap(env, "add.time.h.inc")
    tap(env, "add.cancel")
    assert data(env, "Clock") == before and env.unwrapped.current_view.screen == "main"
    for s in env.unwrapped.reference():  # the reference, but Save before the Repeats is picked
        if s.target == REPEAT_KEY:
            break
        env.step(s.action)
    assert outcome(tap(env, "add.save")) == (0.0, True, False)
    assert j["repeat"] != "Once"


def test_switch_the_right_alarm_and_a_wrong_one_fails() -> None:
    env = env_where(kind("alarm_switch"))
    j = job(env)
    env.step(OpenApp("Clock"))
    assert env.unwrapped.current_view.find(alarm_switch(j["ref"])).label == j["title"]
    assert outcome(tap(env, alarm_switch(j["ref"]))) == (1.0, True, True)
    env = env_where(kind("alarm_switch"))
    other = next(a["id"] for a in data(env, "Clock")["alarms"] if a["id"] != job(env)["ref"])
    env.step(OpenApp("Clock"))
    assert outcome(tap(env, alarm_switch(other))) == (0.0, True, False)


# --- Messages --------------------------------------------------------------------------------
def test_send_a_message_and_to_the_wrong_person_fails() -> None:
    env = env_where(kind("msg_send"))
    ref = env.unwrapped.reference()
    for s in ref[:-1]:
        env.step(s.action)
    assert outcome(env.step(ref[-1].action)) == (1.0, True, True)
    threads = {t["name"]: t["msgs"] for t in data(env, "Messages")["threads"]}
    assert threads[job(env)["name"]][-1] == ">" + job(env)["text"]
    env = env_where(kind("msg_send"))
    j = job(env)
    other = next(t for t in data(env, "Messages")["threads"] if t["name"] != j["name"])
    env.step(OpenApp("Messages"))
    tap(env, f"t:{other['id']}")
    typed(env, f"t:{other['id']}.compose", j["text"])
    assert outcome(tap(env, f"t:{other['id']}.send")) == (0.0, True, False)


# --- side effects across apps ----------------------------------------------------------------
@pytest.mark.parametrize("app", ["Notes", "Contacts", "Clock", "Messages"])
def test_an_extra_change_in_any_app_fails(app: str) -> None:
    """The state right before success, plus one change in ``app`` the task does not ask for."""
    env = env_where(lambda jobs: [j["type"] for j in jobs] == ["alarm_add"] if app != "Clock" else kind("note_edit")(jobs))

    def spoil(apps: dict[str, Any]) -> None:
        d = apps[app]["data"]
        if app == "Notes":
            d["notes"][0]["body"] += " and more"
        elif app == "Contacts":
            d["people"][0]["email"] = "x@y.z"
        elif app == "Clock":
            d["alarms"][0]["on"] = not d["alarms"][0]["on"]
        else:
            d["threads"][0]["msgs"].append(">hello")

    assert_extra_change_fails(env, spoil)


# --- hard: facts carried across apps ---------------------------------------------------------
def test_copy_template_reads_the_conversation_then_writes_the_note() -> None:
    env = env_where(lambda jobs: jobs[0]["type"] == "note_new", level="hard")
    j = job(env)
    ref = env.unwrapped.reference()
    events = [s.event for s in ref]
    assert events[:2] == [Event("open_app", value="Messages"), Event("click", f"t:{j['src']}")] or \
        (events[0] == Event("open_app", value="Messages") and events[1].kind == "scroll")
    opened = next(i for i, e in enumerate(events) if e == Event("click", f"t:{j['src']}"))
    for s in ref[:opened + 1]:
        env.step(s.action)
    labels = [w.label for w in env.unwrapped.current_view.rows]
    assert any(j["text"] in x for x in labels)  # the address is on screen when it is read
    assert Event("input", "new.body", j["text"]) in events[opened:]
    for s in ref[opened + 1:]:
        _, _, term, _, info = env.step(s.action)
    assert term and info["success"]
    assert any(n["title"] == j["title"] and n["body"] == j["text"] for n in data(env, "Notes")["notes"])


def test_share_template_opens_the_card_before_texting_the_number() -> None:
    env = env_where(lambda jobs: jobs[0]["src_app"] == "Contacts", level="hard")
    j = job(env)
    events = [s.event for s in env.unwrapped.reference()]
    opened = events.index(Event("click", f"p:{j['src']}"))
    typed_at = next(i for i, e in enumerate(events) if e.kind == "input" and e.value == j["text"])
    assert events[0] == Event("open_app", value="Contacts") and opened < typed_at


def test_hard_generation_varies_and_the_long_template_is_at_least_15_steps() -> None:
    env = make(ENV_ID, level="hard")
    instructions, long = set(), []
    for seed in range(120):
        _, info = env.reset(seed=seed)
        jobs = env.unwrapped.scenario["task"]["jobs"]
        apps = [j["app"] for j in jobs] + [j["src_app"] for j in jobs if j["src_app"]]
        assert len(set(apps)) == len(apps) >= 2 and 2 <= len(jobs) <= 3  # distinct apps, two or three tasks
        assert all(j["type"] not in ("note_ask", "contact_ask") for j in jobs[:-1])  # a question only last
        if jobs[0]["type"] == "note_new":
            long.append(len(info["reference"]))
        instructions.add(env.unwrapped.instruction)
    assert len(instructions) == 120 and len(long) >= 10 and min(long) >= 15


def test_easy_fits_one_home_page_and_every_list_fits() -> None:
    env = make(ENV_ID, level="easy")
    kinds = set()
    for seed in range(40):
        env.reset(seed=seed)
        sc = env.unwrapped.scenario
        kinds.add(job(env)["type"])
        assert len(sc["home"]["icons"]) <= 20 and env.unwrapped._lay.max_scroll == 0
        for app in ("Notes", "Clock", "Contacts", "Messages"):
            env.step(OpenApp(app))
            assert env.unwrapped._lay.max_scroll == 0, (seed, app)
    assert len(kinds) == 8


@pytest.mark.browser
def test_add_alarm_and_note_editor_draw_and_hit_test_alike_on_both_renderers() -> None:
    from guigym.backends.browser import BrowserBackend
    from guigym.backends.mock import MockBackend
    from tests.test_render_parity import MIN_AGREEMENT, agreement

    env = env_where(kind("alarm_add"))
    env.step(OpenApp("Clock"))
    tap(env, "add")
    m, b = MockBackend(360, 640), BrowserBackend(360, 640)
    try:
        for step in range(3):  # the add-alarm screen, its Repeats dropdown, a note's editor
            if step == 1:
                tap(env, REPEAT_KEY)
            if step == 2:
                env.step(OpenApp("Notes"))
                nid = data(env, "Notes")["notes"][0]["id"]
                tap(env, note_view(nid))
                tap(env, sub_id(note_view(nid), "edit"))
            v, lay = env.unwrapped.current_view, env.unwrapped._lay
            m.show(v, lay)
            b.show(v, lay)
            assert agreement(m.screenshot(), b.screenshot()) >= MIN_AGREEMENT
            assert b.boxes() == m.boxes() == {w.id: box for w, box in lay.visible}
        inc = Click(*center(lay.box(sub_id(note_editor(nid), "save"))))
        assert b.perform(inc) == m.perform(inc) == (Event("click", sub_id(note_editor(nid), "save")), None)
    finally:
        b.close()
        m.close()


def test_fold_is_memoised_and_bounded() -> None:
    """``_fold`` (how notes are compared) keeps folded strs: the same answer as folding anew, for
    strs and anything else, and a bounded memo."""
    from guigym.apps import phone

    for s in ["  Buy  MILK ", "Straße\tplan", "", 42, None, "buy milk"]:
        assert phone._fold(s) == phone._fold(s) == " ".join(str(s).split()).casefold()
    for i in range(9000):
        phone._fold(f"note {i}")
    assert len(phone._FOLDED) <= 8192
