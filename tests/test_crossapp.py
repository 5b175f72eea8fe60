"""The CrossApp family by hand: the oracle on seeds 0-199 at every level (hard references at
least 20 steps), how many apps a task spans per level, the fact read on screen before it is used
(and never in the instruction), side effects in any of the six apps fail, a wrong fact typed in
the target fails, determinism, and the medium distractor mails."""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from guigym.actions import OpenApp, Type
from guigym.apps.crossapp import SOURCES, SPAN, CrossAppFamily
from guigym.apps.mail import ARCHIVE
from guigym.events import Event
from tests.conftest import assert_extra_change_fails, make, oracle_episodes, tap

ENV_ID = "GuiGym-CrossApp-v0"
Task = dict[str, Any]
#: the screen a read opens, per source app
READ_SCREEN = {"Messages": "t:{}", "Mail": "m:{}", "Contacts": "p:{}", "Shop": "p:{}"}


def env_where(pred: Callable[[Task], bool], level: str = "easy", seeds: int = 300):
    """An env reset on the first seed whose task satisfies ``pred``."""
    env = make(ENV_ID, level=level)
    for seed in range(seeds):
        env.reset(seed=seed)
        if pred(env.unwrapped.scenario["task"]):
            return env
    raise AssertionError("no such seed")


def state(env) -> dict[str, Any]:
    return env.unwrapped.get_state()["state"]


def apps_of(task: Task) -> set[str]:
    return {r["app"] for r in task["reads"]} | {j["app"] for j in task["jobs"]}


def shown_text(env) -> str:
    return " ".join(f"{w.label} {w.detail or ''} {w.value or ''}" for w in env.unwrapped.current_view.rows)


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_the_oracle_solves_every_seed_and_hard_is_at_least_20_steps(level: str) -> None:
    lengths = []
    for run in oracle_episodes(ENV_ID, level, range(200)):
        lengths.append(len(run.plan))
        assert run.success, f"{level} seed {run.seed}: reference failed after {run.steps} steps"
    print(level, "mean", statistics.mean(lengths), "max", max(lengths))  # shown with -s
    if level == "hard":
        assert min(lengths) >= 20, min(lengths)
    assert max(lengths) < run.limit  # the env's max_episode_steps


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_task_spans_two_three_or_four_apps_and_never_says_the_fact(level: str) -> None:
    env = make(ENV_ID, level=level)
    sources, targets = set(), set()
    for seed in range(120):
        env.reset(seed=seed)
        task = env.unwrapped.scenario["task"]
        assert len(apps_of(task)) == SPAN[level], (seed, task)
        assert task["fact"] not in task["instruction"], seed
        for j in task["jobs"]:
            assert j["text"] == task["fact"]
            if task["source"] != "chain":  # the fact goes to other apps than the one it is read in
                assert j["app"] not in {r["app"] for r in task["reads"]}
        sources.add(task["source"])
        targets |= {j["type"] for j in task["jobs"]}
        assert len(env.unwrapped.scenario["home"]["icons"]) <= (20 if level == "easy" else 32)
    want = {s for s, (src, dst) in SOURCES.items() if len(src) < SPAN[level] and len(src) + len(dst) >= SPAN[level]}
    assert sources == want
    assert targets == ({"note", "msg", "mail", "reply", "cal"})


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_the_fact_is_read_on_screen_before_it_is_typed(source: str) -> None:
    env = env_where(lambda t: t["source"] == source, level="medium")
    task = env.unwrapped.scenario["task"]
    ref = env.unwrapped.reference()
    events = [s.event for s in ref]
    typed_at = next(i for i, e in enumerate(events) if e.kind == "input" and e.value == task["fact"])
    at = -1
    for r in task["reads"]:  # each read, in order, before the fact is typed
        at = events.index(Event("click", READ_SCREEN[r["app"]].format(r["ref"])), at + 1)
        assert at < typed_at
    for s in ref[:at + 1]:
        env.step(s.action)
    assert task["fact"] in shown_text(env)  # the last read shows the fact


def test_a_meeting_goes_to_the_calendar_with_the_mail_s_date_and_time() -> None:
    env = env_where(lambda t: t["jobs"][0]["type"] == "cal", level="medium")
    j = env.unwrapped.scenario["task"]["jobs"][0]
    for s in env.unwrapped.reference():
        _, _, term, _, info = env.step(s.action)
    assert term and info["success"]
    n0 = len(env.unwrapped.scenario["apps"]["Calendar"]["events"])
    new = [e for e in state(env)["apps"]["Calendar"]["data"]["events"] if e["id"] >= n0]
    assert [(e["title"], e["date"], e["time"], e["repeat"]) for e in new] == [(j["title"], j["date"], j["time"], "never")]


def test_the_meeting_is_its_sender_s_latest_mail_among_distractors() -> None:
    env = make(ENV_ID, level="medium")
    seen = 0
    for seed in range(150):
        env.reset(seed=seed)
        task = env.unwrapped.scenario["task"]
        if task["source"] != "meeting":
            continue
        seen += 1
        mails = env.unwrapped.scenario["apps"]["Mail"]["mails"]
        ref = next(m for m in mails if m["id"] == task["reads"][0]["ref"])
        inbox = [m for m in mails if m["box"] == "inbox"]  # most recent first
        assert next(m for m in inbox if m["peer"] == ref["peer"]) is ref
        meetings = [m for m in inbox if "meeting" in m["subject"]]
        assert len(meetings) == 3 and task["fact"] in ref["body"]
        assert sum(m["peer"] == ref["peer"] for m in meetings) == 2  # an older one from the same sender
    assert seen >= 5


# --- side effects ----------------------------------------------------------------------------
def _spoil(app: str, d: dict[str, Any]) -> None:
    if app == "Notes":
        d["notes"][0]["body"] += " and more"
    elif app == "Contacts":
        d["people"][0]["email"] = "x@y.z"
    elif app == "Messages":
        d["threads"][0]["msgs"].append(">hello")
    elif app == "Mail":
        next(m for m in d["mails"] if m["box"] == "inbox")["box"] = ARCHIVE
    elif app == "Calendar":
        d["events"][0]["time"] = "06:15"
    else:  # an item added to the cart
        d["cart"].append({"lid": d["next"], "pid": next(p for p in range(99) if p not in {x["pid"] for x in d["cart"]}),
                          "size": "M"})


@pytest.mark.parametrize("app", ["Notes", "Contacts", "Messages", "Mail", "Calendar", "Shop"])
def test_an_extra_change_in_any_app_fails(app: str) -> None:
    """The state right before success, plus one change in ``app`` the task does not ask for."""
    assert_extra_change_fails(env_where(lambda t: True), lambda apps: _spoil(app, apps[app]["data"]))


def test_an_order_placed_fails() -> None:
    env = env_where(lambda t: True)
    fam: CrossAppFamily = env.unwrapped.family
    st = state(env)
    st["apps"]["Shop"]["data"]["orders"].append({"number": 1, "items": [], "name": "x", "address": "y", "card": "", "total": 0})
    assert fam.failed(env.unwrapped.scenario, st)


def test_a_stray_quantity_click_in_the_cart_is_set_back() -> None:
    """A stepper click on an item of the start's cart is no failure (the docstring: an item added or
    removed is): the episode goes on, and the reference sets the quantity back before the task."""
    env = make(ENV_ID, level="easy")
    for seed in range(50):
        env.reset(seed=seed)
        cart = state(env)["apps"]["Shop"]["data"]["cart"]
        if cart and int(state(env)["apps"]["Shop"]["values"][f"i:{cart[0]['lid']}.qty"]) < 9:
            break
    lid = cart[0]["lid"]
    qty = state(env)["apps"]["Shop"]["values"][f"i:{lid}.qty"]
    env.step(OpenApp("Shop"))
    tap(env, "cart")
    tap(env, f"l:{lid}")
    _, r, term, _, info = tap(env, f"i:{lid}.qty.inc")
    assert state(env)["apps"]["Shop"]["values"][f"i:{lid}.qty"] == qty + 1
    assert not term and not info["success"] and info["reference"]
    for _ in range(60):
        _, r, term, _, info = env.step(info["reference"][0].action)
        if term:
            break
    assert term and r == 1.0 and info["success"]
    assert state(env)["apps"]["Shop"]["values"][f"i:{lid}.qty"] == qty


@pytest.mark.parametrize("target", ["note", "msg", "mail"])
def test_a_wrong_fact_typed_in_the_target_fails(target: str) -> None:
    """The reference, but the fact typed wrong (the last field before the save or send): pressing
    it ends the episode as a failure."""
    env = env_where(lambda t: [j["type"] for j in t["jobs"]] == [target])
    fact = env.unwrapped.scenario["task"]["fact"]
    for s in env.unwrapped.reference():
        if s.event.kind == "input" and s.event.value == fact:
            field = str(s.event.widget)
            _, _, term, _, _ = env.step(Type("42 Nowhere Lane"))
            break
        _, _, term, _, _ = env.step(s.action)
        assert not term
    assert not term
    send = {"new.body": "new.save", "new.text": "new.send"}.get(field, field.replace("compose", "send"))
    if target == "mail":
        send = "new.send"
    _, r, term, _, info = tap(env, send)
    assert (r, term, info["success"]) == (0.0, True, False)


# --- determinism -----------------------------------------------------------------------------
@pytest.mark.parametrize("level", ["easy", "hard"])
def test_same_seed_same_scenario(level: str) -> None:
    fam = CrossAppFamily()
    a = [json.dumps(fam.generate(np.random.default_rng(s), level), sort_keys=True) for s in range(10)]
    b = [json.dumps(fam.generate(np.random.default_rng(s), level), sort_keys=True) for s in range(10)]
    assert a == b and len(set(a)) == 10
    env1, env2 = make(ENV_ID, level=level), make(ENV_ID, level=level)
    for seed in (3, 17):
        o1, _ = env1.reset(seed=seed)
        o2, _ = env2.reset(seed=seed)
        assert o1["instruction"] == o2["instruction"] and (o1["screenshot"] == o2["screenshot"]).all()
        assert env1.unwrapped.scenario == env2.unwrapped.scenario


def test_easy_fits_one_home_page_and_every_list_fits() -> None:
    env = make(ENV_ID, level="easy")
    for seed in range(30):
        env.reset(seed=seed)
        assert len(env.unwrapped.scenario["home"]["icons"]) <= 20 and env.unwrapped._lay.max_scroll == 0
        for app in ("Notes", "Contacts", "Messages", "Mail", "Calendar", "Shop"):
            env.step(OpenApp(app))
            assert env.unwrapped._lay.max_scroll == 0, (seed, app)
