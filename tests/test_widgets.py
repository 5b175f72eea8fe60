"""The composite widgets (``guigym.apps.widgets``) through the gallery app: what a click does,
how the oracle grounds a value on them, the same events from both renderers, and the same
drawing (the parity thresholds of ``tests/test_render_parity.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from guigym.actions import Click, Scroll, Type
from guigym.apps.base import DeviceState, apply, start_state, view
from guigym.apps.family import Goal
from guigym.apps.gallery import APP, COLOURS, gallery_scenario
from guigym.apps.widgets import date_picker_rows, menu_screen, select_row, stepper_row, textarea_row
from guigym.backends.base import event_for
from guigym.backends.browser import BrowserBackend
from guigym.backends.mock import MockBackend
from guigym.display import wrap_lines
from guigym.layout import layout
from guigym.oracle import ground
from tests.test_render_parity import H, W, compare, fails

SC = gallery_scenario()


def opened(screen: str) -> DeviceState:
    from guigym.events import Event

    return apply(SC, start_state(SC), Event("click", f"open.{screen}"))


def values(st: DeviceState) -> dict[str, Any]:
    return st["apps"][APP]["values"]


def drive(st: DeviceState, goal: Goal, limit: int = 30) -> tuple[DeviceState, list[Any]]:
    """Follow the oracle's grounded steps for ``goal`` (events made by the shared hit test) until
    it has nothing left to do; the final state and the actions taken."""
    actions = []
    for _ in range(limit):
        v = view(SC, st)
        lay = layout(v, W, H)
        step = ground(SC, st, v, lay, goal)
        if step is None or (goal.op == "set" and values(st).get(goal.widget) == goal.value):
            return st, actions
        ev, err = event_for(step.action, v, lay)
        assert err is None and ev == step.event, (step, ev, err)
        actions.append(step.action)
        st = apply(SC, st, ev, v)
    raise AssertionError(f"{goal} not reached in {limit} steps")


def test_stepper_clamps_and_the_oracle_counts_clicks() -> None:
    st, acts = drive(opened("stepper"), Goal(APP, "stepper", "qty", "set", 4))
    assert values(st)["qty"] == 4 and len(acts) == 3 and all(isinstance(a, Click) for a in acts)
    v = view(SC, st)
    assert v.find("qty").value == "4"  # the value label shows it
    for _ in range(12):  # clamped at the top
        st = apply(SC, st, event_for(Click(*_centre(layout(v, W, H).box("qty.inc"))), v, layout(v, W, H))[0], v)
        v = view(SC, st)
    assert values(st)["qty"] == 9


def _centre(box: Any) -> tuple[int, int]:
    return (box[0] + box[2]) // 2, (box[1] + box[3]) // 2


def test_time_picker_wraps_the_short_way() -> None:
    st, acts = drive(opened("time"), Goal(APP, "time", "alarm.h", "set", 5))  # 07 -> 05: two clicks down
    assert values(st)["alarm.h"] == 5 and len(acts) == 2
    st, acts = drive(st, Goal(APP, "time", "alarm.m", "set", 10))  # 30 -> 10 by 5: four down
    assert values(st)["alarm.m"] == 10 and len(acts) == 4
    st, acts = drive(st, Goal(APP, "time", "alarm.m", "set", 55))  # 10 -> 55: three down through 0
    assert values(st)["alarm.m"] == 55 and len(acts) == 3


def test_date_picker_pages_months_then_picks_the_day() -> None:
    st, acts = drive(opened("date"), Goal(APP, "date", "day", "set", "2026-05-20"))
    assert values(st)["day"] == "2026-05-20" and len(acts) == 3  # next, next, the 20th
    assert values(st)["day.shown"] == "2026-05"
    st, acts = drive(st, Goal(APP, "date", "day", "set", "2025-12-31"))  # back across a year: 5 months, then the day
    assert values(st)["day"] == "2025-12-31" and len(acts) <= 6
    v = view(SC, st)
    assert v.find("day.d2025-12-31").style == "day-on"


def test_date_picker_grid_has_whole_weeks() -> None:
    rows = date_picker_rows("d", None, "2026-02")
    weeks = rows[2:]
    assert all(len(w.cells) == 7 for w in weeks)
    first = weeks[0].cells[0].option
    assert first == "2026-01-26"  # the Monday before 1 February 2026 (a Sunday)
    assert [c.style for c in weeks[0].cells].count("day-out") == 6


def test_date_picker_memo_gives_the_grid_anew_to_each_caller() -> None:
    """The memoised grid equals a fresh build for every (value, month) and a caller's list is its own."""
    from guigym.apps import widgets

    first = date_picker_rows("d", "2026-03-14", "2026-03")
    first.append(first[0])  # a caller may extend its list (a form adds its other rows)
    again = date_picker_rows("d", "2026-03-14", "2026-03")
    assert again is not first and len(again) == len(first) - 1
    assert all(a is b for a, b in zip(again, first))  # the widgets themselves are shared
    assert again == widgets._date_picker("d", "2026-03-14", "2026-03")
    chosen = [c.style for r in date_picker_rows("d", "2026-03-15", "2026-03")[2:] for c in r.cells]
    assert chosen.count("day-on") == 1 and chosen != [c.style for r in again[2:] for c in r.cells]


def test_select_opens_a_dropdown_and_long_lists_scroll() -> None:
    st = opened("select")
    st, acts = drive(st, Goal(APP, "select", "colour", "set", "Grey"))  # the last of 13 options: open, scroll, pick
    assert values(st)["colour"] == "Grey" and st["apps"][APP]["stack"][-1] == "select"
    assert isinstance(acts[0], Click) and any(isinstance(a, Scroll) for a in acts)
    v = view(SC, st)
    assert v.find("colour").value == "Grey"
    st2 = apply(SC, st, event_for(Click(*_centre(layout(v, W, H).box("colour"))), v, layout(v, W, H))[0], v)
    mv = view(SC, st2)
    assert mv.screen == menu_screen("colour") and mv.backdrop is not None and mv.backdrop.screen == "select"
    assert [w.label for w in mv.rows[1:]] == list(COLOURS) and mv.find("colour.opt12").value is True
    lay = layout(mv, W, H)
    assert lay.hit(*_centre(layout(v, W, H).box("size"))) is None or lay.hit(*_centre(layout(v, W, H).box("size"))).group == "colour"


def test_select_back_closes_without_a_change() -> None:
    from guigym.events import Event

    st = apply(SC, opened("select"), Event("click", "size"))
    st = apply(SC, st, Event("back"))
    assert st["apps"][APP]["stack"][-1] == "select" and "size" not in values(st)


def test_textarea_takes_typed_text_and_wraps() -> None:
    body = "Hi Bob, the meeting moved to Thursday at nine in the small room on the third floor."
    st, acts = drive(opened("textarea"), Goal(APP, "textarea", "body", "set", body))
    assert values(st)["body"] == body and isinstance(acts[-1], Type) and len(acts) == 2
    v = view(SC, st)
    lay = layout(v, W, H)
    x0, y0, x1, y1 = lay.box("body")
    assert y1 - y0 + 1 > 2 * 44  # three rows tall
    assert len(wrap_lines(body, 40)) > 1


def test_search_filters_rows() -> None:
    st, _ = drive(opened("search"), Goal(APP, "search", "q", "set", "pe"))
    assert [w.label for w in view(SC, st).rows[1:]] == ["Grape", "Peach", "Pear"]


def test_bad_constructor_arguments_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="at least one option"):
        select_row("s", "S", [], None)
    with pytest.raises(ValueError, match="lo <= value <= hi"):
        stepper_row("n", "N", 10, 0, 5)
    with pytest.raises(ValueError, match="at least 2 rows"):
        textarea_row("t", "T", "", lines=1)


def test_tall_rows_scroll_by_whole_rows() -> None:
    """A view whose rows span several row heights: every row is shown whole, and the last
    scroll position shows the last row."""
    from guigym.apps.base import View, Widget

    rows = [Widget(f"r{i}", "button", f"B{i}") for i in range(6)] + [textarea_row("t", "T", "x", lines=4)]
    for scroll in range(0, 8):
        v = View(APP, "s", "S", rows, scroll=scroll)
        lay = layout(v, W, H)
        assert all(b[3] < H for _, b in lay.visible)
    v = View(APP, "s", "S", rows, scroll=99)
    lay = layout(v, W, H)
    assert lay.visible[-1][0].id == "t" and lay.end == len(rows)


# ----------------------------------------------------------------- both renderers


@pytest.fixture(scope="module")
def renderers() -> Iterator[tuple[MockBackend, BrowserBackend]]:
    m, b = MockBackend(W, H), BrowserBackend(W, H)
    yield m, b
    b.close()
    m.close()


def gallery_states() -> Iterator[tuple[str, DeviceState]]:
    from guigym.events import Event

    for screen in ("select", "textarea", "stepper", "tabs", "date", "time", "search"):
        yield screen, opened(screen)
    yield "menu", apply(SC, opened("select"), Event("click", "colour"))
    long = apply(SC, apply(SC, opened("textarea"), Event("click", "body")), Event("input", "body", "word " * 40))
    yield "textarea-long", long
    yield "date-picked", apply(SC, opened("date"), Event("click", "day.d2026-03-18"))
    yield "tabs-starred", apply(SC, opened("tabs"), Event("click", "tab.tab2"))


@pytest.mark.browser
@pytest.mark.parametrize("name,state", list(gallery_states()), ids=[n for n, _ in gallery_states()])
def test_both_renderers_draw_the_widgets_alike(renderers: tuple[MockBackend, BrowserBackend], name: str, state: DeviceState) -> None:
    v = view(SC, state)
    r = compare(*renderers, v, layout(v, W, H))
    assert not fails(r), (name, fails(r))


@pytest.mark.browser
def test_both_renderers_report_the_same_events(renderers: tuple[MockBackend, BrowserBackend]) -> None:
    """The oracle's steps on each widget, performed by both backends: the same events."""
    m, b = renderers
    goals = [("stepper", Goal(APP, "stepper", "qty", "set", 3)), ("time", Goal(APP, "time", "alarm.m", "set", 40)),
             ("date", Goal(APP, "date", "day", "set", "2026-04-02")), ("select", Goal(APP, "select", "colour", "set", "Grey")),
             ("tabs", Goal(APP, "tabs", "tab", "set", "unread")), ("textarea", Goal(APP, "textarea", "body", "set", "two\nlines"))]
    for screen, goal in goals:
        st = opened(screen)
        for _ in range(20):
            v = view(SC, st)
            lay = layout(v, W, H)
            step = ground(SC, st, v, lay, goal)
            if step is None or values(st).get(goal.widget) == goal.value:
                break
            events = []
            for be in (m, b):
                be.show(v, lay)
                events.append(be.perform(step.action)[0])
            assert events[0] == events[1] == step.event, (screen, events)
            st = apply(SC, st, events[1], v)
        assert values(st).get(goal.widget) == goal.value, (screen, values(st))


@pytest.mark.browser
@pytest.mark.parametrize("wid", ["to", "body"])
@pytest.mark.parametrize("typed", ["a\nb", "a\r\nb", "\nab\n", "ab\n\n", "x\r\n", "a\rb"])
def test_both_renderers_store_line_breaks_alike(renderers: tuple[MockBackend, BrowserBackend], wid: str, typed: str) -> None:
    """A one-line field (``to``) and a multi-line one (``body``) keep the same text of typed
    line breaks in both backends (``field_text``: the browser's own rule)."""
    from guigym.apps.base import field_text
    from guigym.events import Event

    st = apply(SC, opened("textarea"), Event("click", wid))
    v = view(SC, st)
    lay = layout(v, W, H)
    stored = []
    for be in renderers:
        be.show(v, lay)
        stored.append(values(apply(SC, st, be.perform(Type(typed))[0], v))[wid])
    assert stored[0] == stored[1] == field_text(typed, multiline=wid == "body")
