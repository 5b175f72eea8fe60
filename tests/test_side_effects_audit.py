"""Success is "the start plus exactly the instructed change" (OpenApps' rule, README "Success as a
state delta"): an audit over every registered id x level.

* After the reference's last step, careless clicks, scrolls, typing and app switches that change a
  record (delete, archive, edit, toggle, an extra cart item, message, mail, note or event) undo the
  success, and ones that change none keep it: success is exactly "the records equal those at
  success", in either order (the careless change before the last step too).
* Harmless detours before the last step (scrolling, opening a record or another app and coming
  back, typing into a search field and clearing it) never end the episode, and the reference still
  succeeds after them.
* A right answer given while a change is still missing, or a stray one not yet set back, fails with
  a reason that says so (not the "wrong answer" one).
* The documented scope: which reversible stray changes end the episode at once.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from guigym.actions import Answer, Back, Click, OpenApp, Scroll, Type
from guigym.apps.base import apply, view
from guigym.apps.contacts import person_of
from guigym.apps.shop import cart_of
from guigym.apps.family import EARLY_ANSWER, WRONG_ANSWER
from tests.conftest import ID_LEVELS, follow_reference, make

#: Families that compare only the instructed change by default: audited with strict=True, where the
#: README promises the whole state is compared.
LENIENT = {"GuiGym-Login-v0", "GuiGym-Settings-v0", "GuiGym-Launcher-v0"}
#: Record fields no task compares (README: read marks, which screens were opened, id counters).
UNCOMPARED = {"unread", "seen", "next", "next_id"}


def _strip(x: Any) -> Any:
    """``x`` without the :data:`UNCOMPARED` keys, at any depth."""
    if isinstance(x, dict):
        return {k: _strip(v) for k, v in x.items() if k not in UNCOMPARED}
    return [_strip(v) for v in x] if isinstance(x, list) else x


def _records(env_id: str, state: dict[str, Any], task: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the success rule compares, per app: the data (read marks, seen screens and id counters
    left out; a record's id only says which record it is), plus the settings themselves where they
    are values (Settings: every value but the search text; Launcher: the switches; a cart item's
    quantity: its stepper's). Login compares
    the session and a reset link sent (a wrong sign-in attempt is no side effect; the remember-me
    choice only where the task makes one: easy does not)."""
    out: dict[str, Any] = {}
    for name, app in state["apps"].items():
        data = _strip(app["data"])
        if "cart" in data:  # a cart item's quantity is its stepper's value
            data["cart"] = cart_of(app)
        if env_id == "GuiGym-Login-v0":
            data = {k: v for k, v in data.items() if k in ("session", "reset_sent")}
            if data.get("session") and (task or {}).get("remember") is None:
                data["session"] = {"user": data["session"]["user"]}
        if env_id == "GuiGym-Settings-v0":
            data = {**data, **{k: v for k, v in app["values"].items() if k != "search"}}
        if env_id == "GuiGym-Launcher-v0":
            data = {**data, **{k: v for k, v in app["values"].items() if isinstance(v, bool)}}
        out[name] = data
    return out


def _careless(rng: random.Random, env, env_id: str) -> Any:
    """A careless agent's next action: a click on any element, a scroll, Back, another app, typing."""
    els = env.unwrapped.elements()
    r = rng.random()
    if r < 0.6 and els:
        x0, y0, x1, y1 = rng.choice(els)["box"]
        return Click((x0 + x1) // 2, (y0 + y1) // 2)
    if r < 0.7:
        return Scroll(rng.choice(("up", "down")))
    if r < 0.8:
        return Back()
    if r < 0.88:
        return OpenApp(rng.choice(env.unwrapped.family.apps))
    return Type(rng.choice(("x", "Bob", "1")))


def _kw(env_id: str) -> dict[str, Any]:
    return {"strict": True} if env_id in LENIENT else {}


def _to_last_step(env, seed: int, level: str):
    """Reset on ``seed`` and follow the reference (re-planned after each step) to the step before
    its last; returns that last step."""
    _, info = env.reset(seed=seed, options={"level": level})
    while len(info["reference"]) > 1:
        *_, info = env.step(info["reference"][0].action)
        assert not info["failure"], info["failure"]
    return info["reference"][0]


def _screen_bound(env) -> bool:
    """Whether success also asks for a screen (Mail's and Files' "open" tasks)."""
    task = env.unwrapped.scenario["task"]
    return any(t.get("type") == "open" for t in task.get("tasks") or task.get("changes") or [] if isinstance(t, dict))


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_success_is_exactly_the_records_of_the_instructed_change(env_id: str, level: str) -> None:
    """From success, careless actions: success stays exactly while the compared records stay as they
    were at success (both ways), and a change that cannot come back ends the episode with a reason.
    Then the other order: careless actions before the last step, the last step after them."""
    env = make(env_id, **_kw(env_id))
    fam = env.unwrapped.family
    changed = 0
    for seed in range(3):
        last = _to_last_step(env, seed, level)
        pre = env.unwrapped.get_state()
        *_, info = env.step(last.action)
        assert info["success"]
        ok = env.unwrapped.get_state()
        task = env.unwrapped.scenario["task"]
        want = _records(env_id, ok["state"], task)
        screen = _screen_bound(env)
        rng = random.Random(seed)
        for start, then_last in ((ok, False), (pre, True)):
            for _ in range(10):
                env.unwrapped.set_state(copy.deepcopy(start))
                for _ in range(5):
                    *_, term, _, info = env.step(_careless(rng, env, env_id))
                    term = term and not info["success"]  # a success goes on (the env says terminated there too)
                    if term:  # ended without success: it says why
                        assert isinstance(info["failure"], str) and info["failure"], info["failure"]
                        break
                sc, st = env.unwrapped.scenario, env.unwrapped.get_state()["state"]
                if then_last and not term:  # the careless change first, then the reference's last step
                    v = view(sc, st)
                    if last.event is None or (last.event.widget is not None and v.find(last.event.widget) is None):
                        continue  # the last step's widget is not on this screen
                    st = apply(sc, st, last.event, v)
                same = _records(env_id, st, task) == want
                changed += not same
                success = fam.success(sc, st)
                assert not (success and not same), (env_id, level, seed, "a change the task does not ask for kept success")
                if not screen:
                    assert success == same, (env_id, level, seed, "success lost without a change to the records")
                why = fam.failed(sc, st)
                assert not why or isinstance(why, str), why
    env.close()
    if env_id not in ("GuiGym-Settings-v0", "GuiGym-Files-v0"):  # few of Files' clicks change a record
        assert changed > 0, "no careless walk changed a record: the audit checked nothing"


def _harmless(rng: random.Random, env) -> None:
    """One harmless detour: scroll, open a list row or app and come back, or type a search and clear it."""
    els = env.unwrapped.elements()
    links = [e for e in els if e["role"] in ("link", "icon")]
    search = [e for e in els if e["role"] == "input" and "search" in e["label"].lower()]
    kind = rng.choice(("scroll", "row", "app", "search"))
    if kind == "row" and links:
        x0, y0, x1, y1 = rng.choice(links)["box"]
        env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
        env.step(Back())
    elif kind == "app":
        here = env.unwrapped.get_state()["state"]["fg"]
        env.step(OpenApp(rng.choice(env.unwrapped.family.apps)))
        if here in env.unwrapped.family.apps:
            env.step(OpenApp(here))
    elif kind == "search" and search:
        x0, y0, x1, y1 = search[0]["box"]
        env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
        env.step(Type("zz"))
        env.step(Type(""))
    else:
        env.step(Scroll(rng.choice(("up", "down"))))


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_harmless_detours_before_the_last_step_keep_success_reachable(env_id: str, level: str) -> None:
    env = make(env_id, **_kw(env_id))
    for seed in range(2):
        _to_last_step(env, seed, level)
        pre = env.unwrapped.get_state()
        rng = random.Random(100 + seed)
        for _ in range(3):
            env.unwrapped.set_state(copy.deepcopy(pre))
            for _ in range(3):
                _harmless(rng, env)
            *_, term, _, info = env.step(Scroll("up"))  # one more harmless step, for its info
            assert not term and info["failure"] is None, (env_id, level, seed, info["failure"])
            run = follow_reference(env, info, 150)
            assert run.success, (env_id, level, seed, "a harmless detour made success unreachable")
            task = env.unwrapped.scenario["task"]
            assert _records(env_id, env.unwrapped.get_state()["state"], task) == _records(env_id, _after_reference(env, pre), task), \
                (env_id, level, seed)
    env.close()


def _after_reference(env, snap) -> dict[str, Any]:
    """The state the reference reaches from ``snap`` (restores the env's state afterwards)."""
    here = env.unwrapped.get_state()
    env.unwrapped.set_state(copy.deepcopy(snap))
    info = {"reference": env.unwrapped.reference()}
    follow_reference(env, info, 150)
    out = env.unwrapped.get_state()["state"]
    env.unwrapped.set_state(here)
    return out


QUESTION_IDS = ["GuiGym-Contacts-v0", "GuiGym-Messages-v0", "GuiGym-Mail-v0", "GuiGym-Calendar-v0", "GuiGym-Phone-v0",
                "GuiGym-Shop-v0"]


@pytest.mark.parametrize("env_id", QUESTION_IDS)
def test_a_right_answer_given_too_soon_says_so(env_id: str) -> None:
    """Hard chains a change and a question: the right answer at reset (the change not made) fails,
    with EARLY_ANSWER; a wrong one with WRONG_ANSWER; the right one after the change succeeds."""
    env = make(env_id)
    found = 0
    for seed in range(40):
        _, info = env.reset(seed=seed, options={"level": "hard"})
        ref = info["reference"]
        task = env.unwrapped.scenario["task"]
        if not (ref and isinstance(ref[-1].action, Answer) and len(task.get("tasks") or task.get("jobs") or []) > 1):
            continue
        snap = env.unwrapped.get_state()
        *_, term, _, info = env.step(ref[-1].action)
        assert term and not info["success"] and info["failure"] == EARLY_ANSWER, (seed, info["failure"])
        env.unwrapped.set_state(snap)
        *_, term, _, info = env.step(Answer("certainly not the answer"))
        assert term and info["failure"] == WRONG_ANSWER
        found += 1
        if found == 2:
            break
    env.close()
    assert found, f"no hard seed of {env_id} chains a change and a question"


def test_a_right_answer_with_a_stray_change_left_says_so() -> None:
    """Contacts: a stray favourite switched (it can be set back), then the right answer: not
    success, and the reason is the early answer's, not a wrong answer's."""
    env = make("GuiGym-Contacts-v0")
    checked = 0
    for seed in range(60):
        last = _to_last_step(env, seed, "easy")
        if not isinstance(last.action, Answer):
            continue
        st = env.unwrapped.get_state()
        people = st["state"]["apps"]["Contacts"]["data"]["people"]
        people[0]["fav"] = not people[0]["fav"]  # as the Favourite switch on their screen does
        env.unwrapped.set_state(st)
        *_, term, _, info = env.step(last.action)
        assert term and not info["success"] and info["failure"] == EARLY_ANSWER
        checked += 1
        if checked == 3:
            break
    env.close()
    assert checked


def test_documented_scope_a_stray_alarm_switch_ends_phone_but_a_stray_favourite_is_set_back_in_contacts() -> None:
    """README: Phone ends the episode at a stray alarm switched (although it could be switched
    back); Contacts lets a stray favourite be set back, and the reference does so first."""
    env = make("GuiGym-Phone-v0")
    for seed in range(30):
        _, info = env.reset(seed=seed, options={"level": "easy"})
        if not any(j["type"].startswith("alarm") for j in env.unwrapped.scenario["task"]["jobs"]):
            break
    *_, info = env.step(OpenApp("Clock"))
    tog = next(e for e in env.unwrapped.elements() if e["role"] == "toggle")
    x0, y0, x1, y1 = tog["box"]
    *_, term, _, info = env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
    assert term and not info["success"] and info["failure"] == "an alarm was changed in a way the task does not ask for"
    env.close()
    env = make("GuiGym-Contacts-v0")
    for seed in range(30):
        _, info = env.reset(seed=seed, options={"level": "easy"})
        if not any(t["type"] == "fav" for t in env.unwrapped.scenario["task"]["tasks"]):
            break
    named = {t["person"] for t in env.unwrapped.scenario["task"]["tasks"]}
    person = next(e for e in env.unwrapped.elements() if e["role"] == "link" and person_of(e["id"]) not in named)
    x0, y0, x1, y1 = person["box"]
    *_, info = env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
    fav = next(e for e in env.unwrapped.elements() if e["role"] == "toggle")
    x0, y0, x1, y1 = fav["box"]
    *_, term, _, info = env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
    assert not term and info["failure"] is None and info["reference"][0].target == fav["id"]  # set back first
    assert follow_reference(env, info, 100).success
    env.close()


def test_strict_launcher_a_title_only_note_saved_with_text_nobody_asked_for_fails() -> None:
    """strict=True compares the whole state: a note asked for by its title alone, saved with text
    typed into its Note field, is a note the task did not ask for (Notes cannot delete it); the
    reference clears such text before Save. By default only the title is compared."""
    checked = 0
    for seed in range(60):
        env = make("GuiGym-Launcher-v0", strict=True)
        _, info = env.reset(seed=seed, options={"level": "easy"})
        t = env.unwrapped.scenario["task"]["tasks"][0]
        if t["type"] != "note" or t["body"] is not None:
            env.close()
            continue
        ref = info["reference"]
        for s in ref[:-1]:
            *_, info = env.step(s.action)
        body = next(e for e in env.unwrapped.elements() if e["id"] == "body")
        x0, y0, x1, y1 = body["box"]
        env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
        *_, info = env.step(Type("Bob"))
        snap = env.unwrapped.get_state()
        assert info["reference"][0].event.widget == "body" and info["reference"][0].event.value == ""  # cleared first
        *_, term, _, info = env.step(ref[-1].action)  # Save with the text
        assert term and not info["success"] and "note the task does not ask for" in info["failure"]
        env.unwrapped.set_state(snap)
        run = follow_reference(env, {"reference": env.unwrapped.reference()}, 10)
        assert run.success and env.unwrapped.get_state()["state"]["apps"]["Notes"]["data"]["notes"][-1]["body"] == ""
        env.close()
        lenient = make("GuiGym-Launcher-v0")  # by default the text is not compared
        _, info = lenient.reset(seed=seed, options={"level": "easy"})
        for s in info["reference"][:-1]:
            lenient.step(s.action)
        lenient.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
        lenient.step(Type("Bob"))
        *_, term, _, info = lenient.step(ref[-1].action)
        assert term and info["success"]
        lenient.close()
        checked += 1
        if checked == 2:
            break
    assert checked == 2
