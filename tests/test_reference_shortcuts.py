"""A dense reference takes the shortest sensible way: where the row that opens the task's
contact or product is already on screen, the reference clicks it rather than searching the
list first (a search there cost the reference 2-4 extra steps, and TraceR1's trajectory reward
marked down a plan that clicked the row in view). Where the row is off screen, hidden by a stale
query or listed beside a same-named decoy, the reference still narrows the list first. A price
or a message that a list row shows whole is read off that row (``Goal.read_off``), not opened."""

from __future__ import annotations

from dataclasses import replace

import gymnasium as gym
import pytest

import guigym  # noqa: F401 - registers the envs
from guigym.actions import Scroll
from guigym.apps.contacts import person_screen
from guigym.apps.shop import product_screen
from guigym.display import shown_texts
from guigym.events import Event
from guigym.layout import layout
from guigym.oracle import ground


def _first_target(env_id: str, scenario: dict) -> str | None:
    """The row id that opens the first task's contact or product (None: a task without one)."""
    t = scenario["task"]["tasks"][0]
    if env_id == "GuiGym-Contacts-v0":
        return person_screen(int(t["person"]))
    if t["type"] not in ("add", "ask") or t.get("field") == "cheapest":  # a cart line's task, or asked of a filtered list
        return None
    return product_screen(int(t["pid"]))


@pytest.mark.parametrize("env_id", ["GuiGym-Contacts-v0", "GuiGym-Shop-v0"])
@pytest.mark.parametrize("level", ["medium", "hard"])
def test_a_row_in_view_is_clicked_not_searched(env_id: str, level: str) -> None:
    env = gym.make(env_id)
    in_view = searched = 0
    for seed in range(300):
        _, info = env.reset(seed=seed, options={"level": level})
        u = env.unwrapped
        wid = _first_target(env_id, u.scenario)
        if wid is None or u.current_view.screen != "main":
            continue
        first = info["reference"][0]
        rows = [w for w in u.current_view.rows if w.to == wid]
        names = [w.label for w in u.current_view.rows if w.to is not None and w.to.startswith(wid.split(":")[0] + ":")]
        if rows and u._lay.box(wid) is not None and names.count(rows[0].label) == 1:
            in_view += 1
            if env_id == "GuiGym-Shop-v0" and u.scenario["task"]["tasks"][0]["type"] == "ask":  # a price: read off the row (Goal.read_off)
                assert first.event.kind == "answer", (seed, first.instruction)
            else:
                assert first.target == wid, (seed, first.instruction)
        else:
            searched += 1
            assert first.target != wid, (seed, first.instruction)
    env.close()
    assert in_view >= 3 and searched >= 3, (in_view, searched)  # both cases met


def test_a_fact_is_read_off_a_row_only_where_the_row_shows_it_whole() -> None:
    """Messages easy seed 1 asks for the address in a conversation's last message, which the
    list's preview shows: the reference answers from the row. The same screen with that
    preview made too long for its row (the fact shortened away) opens the conversation."""
    env = gym.make("GuiGym-Messages-v0", level="easy")
    env.reset(seed=1)
    u = env.unwrapped
    v, lay, state = u.current_view, u._lay, u._state
    goal = u.family.next_goal(u.scenario, state)
    assert goal is not None and goal.read_off and goal.otherwise is not None
    fact = str(goal.value)
    step = ground(u.scenario, state, v, lay, goal)
    assert step is not None and step.event == Event("answer", None, fact)
    rows = [replace(w, detail="a long preamble before it " * 6 + fact) if w.id == goal.widget else w for w in v.rows]
    long_v = replace(v, rows=rows)
    long_lay = layout(long_v, lay.width, lay.height)
    assert long_lay.box(goal.widget) is not None  # still in view
    assert not any(fact in t for t in shown_texts(long_v, long_lay, goal.widget))  # but shortened
    step = ground(u.scenario, state, long_v, long_lay, goal)
    assert step is not None and step.event == Event("click", goal.widget)  # opened to read it
    env.close()


def test_a_row_one_scroll_away_is_scrolled_to_not_searched() -> None:
    """A Scroll and a click are shorter than a search (click the field, type, click the row):
    where the person's row is one Scroll below the fold, the Contacts reference scrolls and
    clicks it (medium seed 3: 3 steps, with the search 4); further away it still searches."""
    env = gym.make("GuiGym-Contacts-v0")
    scrolled = searched = 0
    for seed in range(300):
        _, info = env.reset(seed=seed, options={"level": "medium"})
        ref, wid = info["reference"], _first_target("GuiGym-Contacts-v0", env.unwrapped.scenario)
        if ref and isinstance(ref[0].action, Scroll):
            scrolled += 1
            assert ref[1].target == wid, (seed, [s.instruction for s in ref])  # then the row, in view
        elif ref and ref[0].target == "search":
            searched += 1
        if seed == 3:
            assert isinstance(ref[0].action, Scroll) and len(ref) == 3
    env.close()
    assert scrolled >= 3 and searched >= 3, (scrolled, searched)
