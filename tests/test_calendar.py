"""The Calendar family by hand: adding through the form (date picker, time steppers, Repeats
dropdown), the success check with side effects (a wrong time, an extra event, a stray edit or
deletion), deleting through the dialog and cancelling it, the "every … this week" rule, moving
an event, questions answered right and wrong, relative dates against the seeded today, paging
months. (The registry-driven tests cover the id x level contract and the oracle on seeds 0-199.)"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from guigym.actions import Answer, Back, Click, Type
from guigym.apps.calendar_app import (
    ADD,
    F_DATE,
    F_REPEAT,
    F_TIME,
    F_TITLE,
    FORM,
    NEXT,
    PREV,
    SHOWN,
    WEEKDAY_NAMES,
    CalendarFamily,
    add_months,
    dialog_screen,
    event_screen,
    month_of,
    say_date,
)
from guigym.apps.widgets import menu_screen
from guigym.oracle import center
from tests.conftest import make

ENV_ID = "GuiGym-Calendar-v0"
APP = "Calendar"
Tasks = list[dict[str, Any]]


def env_where(pred: Callable[[dict[str, Any], Tasks], bool], level: str = "easy"):
    """An env reset on the first seed whose scenario satisfies ``pred(spec, tasks)``."""
    env = make(ENV_ID, level=level)
    for seed in range(300):
        env.reset(seed=seed)
        sc = env.unwrapped.scenario
        if pred(sc["apps"][APP], sc["task"]["tasks"]):
            return env
    raise AssertionError("no such seed")


def kind(k: str, rule: bool | None = None) -> Callable[[dict[str, Any], Tasks], bool]:
    """One task of type ``k`` (a delete: by a week rule when ``rule``, of one event when not)."""
    return lambda spec, tasks: [t["type"] for t in tasks] == [k] and (rule is None or (tasks[0]["date"] is not None) == rule)


def events(env) -> list[dict[str, Any]]:
    return env.unwrapped.get_state()["state"]["apps"][APP]["data"]["events"]


def values(env) -> dict[str, Any]:
    return env.unwrapped.get_state()["state"]["apps"][APP]["values"]


def task(env) -> dict[str, Any]:
    return env.unwrapped.scenario["task"]["tasks"][0]


def keys(evs: list[dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    return sorted((e["title"], e["date"], e["time"], e["repeat"]) for e in evs)


def tap(env, wid: str):
    """Click the centre of visible widget ``wid`` (scrolling down to it first); returns step()'s tuple."""
    for _ in range(10):
        box = env.unwrapped._lay.box(wid)
        if box is not None:
            return env.step(Click(*center(box)))
        env.step({"type": 1, "x": 180, "y": 400, "direction": 1, "app": 0, "text": ""})  # Scroll down
    raise AssertionError((wid, [w.id for w, _ in env.unwrapped._lay.visible]))


def tap_up(env, wid: str):
    """Like :func:`tap`, scrolling up."""
    for _ in range(10):
        box = env.unwrapped._lay.box(wid)
        if box is not None:
            return env.step(Click(*center(box)))
        env.step({"type": 1, "x": 180, "y": 400, "direction": 0, "app": 0, "text": ""})  # Scroll up
    raise AssertionError(wid)


def show_month(env, month: str) -> None:
    """Page the main screen to ``month``."""
    for _ in range(12):
        shown = values(env)[SHOWN]
        if shown == month:
            return
        tap_up(env, NEXT if month > shown else PREV)
    raise AssertionError(month)


def fill_form(env, title: str, date: str, time: str, repeat: str):
    """Fill the open form by hand and press Save; returns step()'s tuple of the Save."""
    tap(env, F_TITLE)
    env.step(Type(title))
    for _ in range(6):  # page the date picker to the month
        shown = values(env)[F_DATE + ".shown"]
        if shown == date[:7]:
            break
        tap_up(env, F_DATE + (".next" if date[:7] > shown else ".prev"))
    tap_up(env, f"{F_DATE}.d{date}")
    h, m = int(time[:2]), int(time[3:])
    for key, want in ((F_TIME + ".h", h), (F_TIME + ".m", m)):
        for _ in range(24):
            if values(env).get(key) == want:
                break
            tap(env, key + ".inc")
    if values(env)[F_REPEAT] != repeat:
        tap(env, F_REPEAT)
        assert env.unwrapped.current_view.screen == menu_screen(F_REPEAT)
        opt = next(w for w in env.unwrapped.current_view.rows if w.kind == "radio" and w.option == repeat)
        tap(env, opt.id)
    return tap(env, "form.save")


# --- adding ---------------------------------------------------------------------------------------
def test_add_through_the_form_succeeds_and_shows_the_event() -> None:
    env = env_where(kind("add"))
    t = task(env)
    before = events(env)
    tap(env, ADD)
    v = env.unwrapped.current_view
    assert v.screen == FORM and v.title == "New event"
    today = env.unwrapped.scenario["apps"][APP]["today"]
    assert values(env)[F_DATE] == today and values(env)[F_TIME + ".h"] == 9 and values(env)[F_REPEAT] == "never"
    _, r, term, _, info = fill_form(env, t["title"], t["date"], t["time"], t["repeat"])
    assert (r, term, info["success"]) == (1.0, True, True)
    assert keys(events(env)) == keys([*before, {"title": t["title"], "date": t["date"], "time": t["time"], "repeat": t["repeat"]}])
    v = env.unwrapped.current_view
    assert v.screen == "main" and t["title"] in [w.label for w in v.rows]  # the new event is in the month's agenda


def test_a_wrong_time_or_repeat_fails_and_ends_the_episode() -> None:
    env = env_where(lambda spec, tasks: kind("add")(spec, tasks) and tasks[0]["repeat"] == "never")
    t = task(env)
    tap(env, ADD)
    _, r, term, _, info = fill_form(env, t["title"], t["date"], t["time"], "weekly")
    assert (r, term, info["success"], info["reference"]) == (0.0, True, False, [])
    env = env_where(kind("add"))
    t = task(env)
    tap(env, ADD)
    wrong = f"{(int(t['time'][:2]) + 1) % 24:02d}{t['time'][2:]}"
    _, r, term, _, info = fill_form(env, t["title"], t["date"], wrong, t["repeat"])
    assert (r, term, info["success"]) == (0.0, True, False)


def test_an_extra_event_fails_even_with_the_right_one_there() -> None:
    env = env_where(kind("add"))
    t = task(env)
    fam, sc = CalendarFamily(), env.unwrapped.scenario
    state = env.unwrapped.get_state()["state"]
    evs = state["apps"][APP]["data"]["events"]
    new = {"title": t["title"], "date": t["date"], "time": t["time"], "repeat": t["repeat"]}
    evs.append({"id": 100, **new})
    assert fam.success(sc, state) and not fam.failed(sc, state)
    evs.append({"id": 101, **new})  # the right one twice
    assert fam.failed(sc, state) and not fam.success(sc, state)
    evs.pop()
    evs.append({"id": 101, **new, "title": "Something else"})
    assert fam.failed(sc, state) and not fam.success(sc, state)


def test_save_without_a_title_shows_an_error_and_cancel_leaves_everything() -> None:
    env = env_where(kind("add"))
    before = events(env)
    tap(env, ADD)
    _, r, term, _, _ = tap(env, "form.save")
    assert env.unwrapped.current_view.find("form.error").label == "Add a title" and (r, term) == (0.0, False)
    assert events(env) == before
    tap_up(env, F_TITLE)
    env.step(Type("Something"))
    tap(env, "form.cancel")
    assert env.unwrapped.current_view.screen == "main" and events(env) == before
    tap(env, ADD)  # a fresh form every time
    assert values(env)[F_TITLE] == "" and env.unwrapped.current_view.find("form.error") is None


def test_the_repeats_dropdown_is_a_dialog_and_back_closes_it() -> None:
    env = env_where(kind("add"))
    tap(env, ADD)
    tap(env, F_REPEAT)
    v = env.unwrapped.current_view
    assert v.screen == menu_screen(F_REPEAT) and v.backdrop is not None and v.backdrop.screen == FORM
    assert [w.label for w in v.rows if w.kind == "radio"] == ["Never", "Daily", "Weekly", "Monthly"]
    env.step(Back())
    assert env.unwrapped.current_view.screen == FORM and values(env)[F_REPEAT] == "never"


# --- deleting -------------------------------------------------------------------------------------
def test_dialog_cancel_and_back_leave_the_state_and_delete_removes() -> None:
    env = env_where(kind("delete", rule=False))
    eid = task(env)["ids"][0]
    tap(env, event_screen(eid))
    before = env.unwrapped.get_state()["state"]
    d = dialog_screen(eid)
    tap(env, f"{event_screen(eid)}.delete")
    v = env.unwrapped.current_view
    assert v.screen == d and v.backdrop is not None and v.backdrop.screen == event_screen(eid)
    assert [w.kind for w in v.rows] == ["dialog", "button", "button"] and v.title == "Delete this event?"
    assert [e["id"] for e in env.unwrapped.elements()] == [f"{d}.cancel", f"{d}.confirm"]  # the screen under it is inert
    _, r, term, _, _ = tap(env, f"{d}.cancel")
    assert env.unwrapped.get_state()["state"] == before and (r, term) == (0.0, False)
    tap(env, f"{event_screen(eid)}.delete")
    env.step(Back())
    assert env.unwrapped.get_state()["state"] == before
    tap(env, f"{event_screen(eid)}.delete")
    _, r, term, _, info = tap(env, f"{d}.confirm")
    assert eid not in [e["id"] for e in events(env)] and env.unwrapped.current_view.screen == "main"
    assert (r, term, info["success"]) == (1.0, True, True)


def test_deleting_the_wrong_event_fails() -> None:
    env = env_where(kind("delete", rule=False))
    other = next(e["id"] for e in events(env) if e["id"] != task(env)["ids"][0])
    tap(env, event_screen(other))
    tap(env, f"{event_screen(other)}.delete")
    _, r, term, _, info = tap(env, f"{dialog_screen(other)}.confirm")
    assert (r, term, info["success"], info["reference"]) == (0.0, True, False, [])


def test_every_event_of_a_series_this_week_and_no_other() -> None:
    env = env_where(kind("delete", rule=True))
    t = task(env)
    sc = env.unwrapped.scenario
    today = dt.date.fromisoformat(sc["apps"][APP]["today"])
    monday = today - dt.timedelta(days=today.weekday())
    assert "this week" in sc["task"]["instruction"] and t["date"] == monday.isoformat()
    series = [e for e in events(env) if e["title"] == t["title"]]
    inside = sorted(e["id"] for e in series if monday <= dt.date.fromisoformat(e["date"]) <= monday + dt.timedelta(days=6))
    assert sorted(t["ids"]) == inside and 2 <= len(inside) < len(series)  # some outside the week stay
    for k, eid in enumerate(inside):
        tap(env, event_screen(eid))
        tap(env, f"{event_screen(eid)}.delete")
        _, r, term, _, info = tap(env, f"{dialog_screen(eid)}.confirm")
        assert (term, info["success"]) == ((True, True) if k == len(inside) - 1 else (False, False))
    env = env_where(kind("delete", rule=True))
    out = next(e["id"] for e in events(env) if e["title"] == task(env)["title"] and e["id"] not in task(env)["ids"])
    tap(env, event_screen(out))
    tap(env, f"{event_screen(out)}.delete")
    _, r, term, _, info = tap(env, f"{dialog_screen(out)}.confirm")
    assert (r, term, info["success"]) == (0.0, True, False)


# --- moving ---------------------------------------------------------------------------------------
def test_move_edits_the_time_and_a_stray_edit_fails() -> None:
    env = env_where(kind("move"))
    t = task(env)
    eid = t["ids"][0]
    e = next(x for x in events(env) if x["id"] == eid)
    tap(env, event_screen(eid))
    tap(env, f"{event_screen(eid)}.edit")
    v = env.unwrapped.current_view
    assert v.title == "Edit event" and values(env)[F_TITLE] == e["title"] and values(env)[F_DATE] == e["date"]
    h, m = int(t["time"][:2]), int(t["time"][3:])
    for key, want in ((F_TIME + ".h", h), (F_TIME + ".m", m)):
        while values(env)[key] != want:
            tap(env, key + ".inc")
    _, r, term, _, info = tap(env, "form.save")
    assert (r, term, info["success"]) == (1.0, True, True)
    assert next(x for x in events(env) if x["id"] == eid)["time"] == t["time"]
    assert env.unwrapped.current_view.screen == event_screen(eid)  # Save goes back to the event

    env = env_where(kind("move"))
    t = task(env)
    other = next(x for x in events(env) if x["id"] != t["ids"][0])
    show_month(env, month_of(other["date"]))
    tap(env, event_screen(other["id"]))
    tap(env, f"{event_screen(other['id'])}.edit")
    tap(env, F_TIME + ".h.inc")
    _, r, term, _, info = tap(env, "form.save")
    assert (r, term, info["success"]) == (0.0, True, False)


def test_saving_an_edit_unchanged_is_no_change() -> None:
    env = env_where(kind("move"))
    other = next(x for x in events(env) if x["id"] != task(env)["ids"][0] and month_of(x["date"]) == values(env)[SHOWN])
    before = events(env)
    tap(env, event_screen(other["id"]))
    tap(env, f"{event_screen(other['id'])}.edit")
    _, r, term, _, info = tap(env, "form.save")
    assert events(env) == before and (r, term) == (0.0, False) and info["reference"]


# --- questions ------------------------------------------------------------------------------------
def test_when_reference_shows_the_event_then_answers_and_answers_are_normalised() -> None:
    env = env_where(kind("when"), level="medium")
    t = task(env)
    ref = env.unwrapped.reference()
    assert [s.event.kind for s in ref][-1] == "answer" and ref[-1].event.value == t["fact"]
    for s in ref[:-1]:
        env.step(s.action)
    row = env.unwrapped.current_view.find(event_screen(t["ids"][0]))
    assert row is not None and env.unwrapped._lay.box(row.id) is not None and t["fact"] in row.detail  # on screen
    h, rest = t["fact"].split(":")
    mm, half = rest.split()
    other = f"{int(h) % 12 + (12 if half == 'PM' else 0):02d}:{mm}"  # "3:30 PM" is also "15:30"
    _, r, term, _, info = env.step(Answer(other))
    assert (r, term, info["success"]) == (1.0, True, True), (t["fact"], other)
    env = env_where(kind("when"), level="medium")
    _, r, term, _, info = env.step(Answer("3:17 AM"))
    assert (r, term, info["success"]) == (0.0, True, False)


def test_count_counts_the_days_events_and_a_wrong_count_fails() -> None:
    env = env_where(kind("count"))
    t = task(env)
    n = sum(e["date"] == t["date"] for e in events(env))
    assert t["fact"] == str(n) and n >= 1
    shown = [w for w in env.unwrapped.current_view.rows if w.kind == "link" and w.id.startswith("e:")]
    assert sum(t["date"] == next(e["date"] for e in events(env) if event_screen(e["id"]) == w.id) for w in shown) == n
    _, r, term, _, info = env.step(Answer(str(n + 1)))
    assert (r, term, info["success"]) == (0.0, True, False)
    env = env_where(kind("count"))
    _, r, term, _, info = env.step(Answer(f" {n} "))
    assert (r, term, info["success"]) == (1.0, True, True)


def test_answer_is_a_no_op_in_a_task_that_asks_nothing() -> None:
    env = env_where(kind("add"))
    state = env.unwrapped.get_state()["state"]
    _, r, term, _, info = env.step(Answer("hello"))
    assert "asks no question" in info["action_error"] and (r, term) == (0.0, False)
    assert env.unwrapped.get_state()["state"] == state


# --- dates ----------------------------------------------------------------------------------------
_WORDS = {"two": 2, "three": 3, "four": 4}


def _resolve(phrase: str, today: dt.date) -> dt.date:
    """An independent reading of :func:`say_date`'s phrases (the test's, not the family's)."""
    if phrase == "tomorrow":
        return today + dt.timedelta(days=1)
    if phrase == "a week from today":
        return today + dt.timedelta(days=7)
    if m := re.fullmatch(r"in (\d+) days", phrase):
        return today + dt.timedelta(days=int(m[1]))
    if m := re.fullmatch(r"in (\w+) weeks", phrase):
        return today + dt.timedelta(days=7 * _WORDS[m[1]])
    if m := re.fullmatch(r"this coming (\w+)", phrase):
        k = WEEKDAY_NAMES.index(m[1])
        return today + dt.timedelta(days=(k - today.weekday()) % 7 or 7)
    if m := re.fullmatch(r"(\w+) next week", phrase):
        return today - dt.timedelta(days=today.weekday()) + dt.timedelta(days=7 + WEEKDAY_NAMES.index(m[1]))
    if m := re.fullmatch(r"on the (\d+)\w\w of next month", phrase):
        nxt = add_months(today.isoformat()[:7], 1)
        return dt.date(int(nxt[:4]), int(nxt[5:]), int(m[1]))
    if m := re.fullmatch(r"on the (\d+)\w\w", phrase):
        return today.replace(day=int(m[1]))
    m = re.fullmatch(r"on (?:\w+, )?(\w+) (\d+)(?:, (\d+))?", phrase)
    assert m, phrase
    return dt.datetime.strptime(f"{m[1]} {m[2]} {m[3] or today.year}", "%B %d %Y").date()


def test_relative_dates_resolve_to_the_task_date() -> None:
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(3000):
        today = dt.date(2026, 1, 1) + dt.timedelta(days=int(rng.integers(0, 730)))
        d = today + dt.timedelta(days=int(rng.integers(1, 70)))
        phrase = say_date(rng, today, d)
        assert _resolve(phrase, today) == d, (today, d, phrase)
        seen.add(re.sub(r"\d+|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|two|three|four", "#", phrase).split(" #")[0])
    assert {"tomorrow", "in", "this coming", "on the", "on"} <= seen


def test_today_comes_from_the_seed_and_the_main_screen_shows_it() -> None:
    env = make(ENV_ID, level="easy")
    todays = set()
    for seed in range(20):
        env.reset(seed=seed)
        spec = env.unwrapped.scenario["apps"][APP]
        todays.add(spec["today"])
        today = dt.date.fromisoformat(spec["today"])
        label = env.unwrapped.current_view.find("today").label
        assert label == f"Today: {WEEKDAY_NAMES[today.weekday()][:3]}, {today.strftime('%b')} {today.day}, {today.year}"
        assert values(env)[SHOWN] == spec["today"][:7]
    assert len(todays) >= 18
    env.reset(seed=3)
    first = env.unwrapped.scenario["apps"][APP]["today"]
    env.reset(seed=3)
    assert env.unwrapped.scenario["apps"][APP]["today"] == first  # the seed, never the clock


def test_the_month_bar_pages_the_agenda() -> None:
    env = env_where(lambda spec, tasks: True, level="medium")
    shown = values(env)[SHOWN]
    evs = events(env)
    tap(env, NEXT)
    assert values(env)[SHOWN] == add_months(shown, 1)
    v = env.unwrapped.current_view
    y, mo = (int(p) for p in add_months(shown, 1).split("-"))
    assert v.find("nav.month").label == dt.date(y, mo, 1).strftime("%B %Y")
    want = sorted((e["date"], e["time"], e["id"]) for e in evs if month_of(e["date"]) == add_months(shown, 1))
    assert [w.id for w in v.rows if w.id.startswith("e:")] == [event_screen(i) for *_, i in want]
    tap(env, PREV)
    tap(env, PREV)
    assert values(env)[SHOWN] == add_months(shown, -1)


# --- generation -----------------------------------------------------------------------------------
def test_generation_varies_and_the_long_hard_template_is_at_least_15_steps() -> None:
    env = make(ENV_ID, level="hard")
    lengths: dict[tuple[str, ...], list[int]] = {}
    instructions = set()
    for seed in range(150):
        _, info = env.reset(seed=seed)
        sc = env.unwrapped.scenario
        tasks = sc["task"]["tasks"]
        k = tuple(t["type"] for t in tasks)
        assert len(k) == 2 and k[0] in ("add", "move", "delete") and k[1] in ("delete", "count", "when", "move")
        lengths.setdefault(k, []).append(len(info["reference"]))
        instructions.add(sc["task"]["instruction"])
    assert len(instructions) == 150 and len(lengths) >= 8
    assert min(lengths[("add", "delete")]) >= 15


def test_easy_fits_and_medium_tasks_are_in_another_month() -> None:
    env = make(ENV_ID, level="easy")
    for seed in range(60):
        env.reset(seed=seed)
        spec = env.unwrapped.scenario["apps"][APP]
        assert env.unwrapped._lay.max_scroll == 0
        assert all(month_of(e["date"]) == spec["today"][:7] for e in spec["events"])
        t = task(env)
        if t["type"] in ("add", "count"):
            assert month_of(t["date"]) == spec["today"][:7] and t["date"] > spec["today"]
    env = make(ENV_ID, level="medium")
    for seed in range(60):
        env.reset(seed=seed)
        spec = env.unwrapped.scenario["apps"][APP]
        t = task(env)
        if t["type"] in ("add", "count"):
            assert month_of(t["date"]) != spec["today"][:7]
        elif t["type"] in ("move", "when") or (t["type"] == "delete" and t["date"] is None):
            e = next(x for x in spec["events"] if x["id"] == t["ids"][0])
            assert month_of(e["date"]) != spec["today"][:7]


@pytest.mark.browser
def test_form_and_dialog_draw_and_hit_test_alike_on_both_renderers() -> None:
    from guigym.backends.browser import BrowserBackend
    from guigym.backends.mock import MockBackend
    from tests.test_render_parity import MIN_AGREEMENT, agreement

    env = env_where(kind("delete", rule=False))
    eid = task(env)["ids"][0]
    m, b = MockBackend(360, 640), BrowserBackend(360, 640)
    try:
        for step in range(4):  # the month, the form (date picker, steppers), the dropdown, the dialog
            if step == 1:
                tap(env, ADD)
            elif step == 2:
                tap(env, F_REPEAT)
            elif step == 3:
                env.step(Back())
                tap(env, "form.cancel")
                tap(env, event_screen(eid))
                tap(env, f"{event_screen(eid)}.delete")
            v, lay = env.unwrapped.current_view, env.unwrapped._lay
            m.show(v, lay)
            b.show(v, lay)
            assert agreement(m.screenshot(), b.screenshot()) >= MIN_AGREEMENT, step
            assert b.boxes() == m.boxes() == {w.id: box for w, box in lay.visible}
    finally:
        b.close()
        m.close()


def test_a_day_left_without_events_is_answered_from_the_month_bar() -> None:
    from guigym.apps.base import start_state
    from guigym.oracle import Oracle

    fam = CalendarFamily()
    for seed in range(100):
        sc = fam.generate(np.random.default_rng(seed), "medium")
        t = sc["task"]["tasks"][0]
        if t["type"] == "count":
            break
    spec = sc["apps"][APP]
    spec["events"] = [e for e in spec["events"] if e["date"] != t["date"]]
    for i, e in enumerate(spec["events"]):
        e["id"] = i
    t["fact"] = "0"
    ref = Oracle(fam, sc, 360, 640).reference(start_state(sc))
    assert ref and ref[-1].event.kind == "answer" and ref[-1].event.value == "0"
    assert all(s.target == NEXT for s in ref[:-1])  # page to the month, then answer
