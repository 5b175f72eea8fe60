"""The display list (guigym.display): complete, plain data, placed by the shared layout."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from guigym import display
from guigym.apps.base import HOME, KINDS, View, Widget
from guigym.backends.mock import MockBackend
from guigym.display import PAINTERS, display_list, hidden_focus, rows_clip, scale_fonts, text, theme_of, widget
from guigym.layout import layout
from tests.conftest import ID_LEVELS

W, H = 360, 640


def views(env_id: str, level: str, seed: int, **kwargs: Any) -> Iterator[View]:
    """Every screen of an oracle episode (``kwargs``: ``gym.make``'s, e.g. a variation)."""
    env = gym.make(env_id, disable_env_checker=True, **kwargs)
    _, info = env.reset(seed=seed, options={"level": level})
    yield env.unwrapped.current_view
    done = False
    while not done and info["reference"]:
        _, _, term, trunc, info = env.step(info["reference"][0].action)
        done = term or trunc
        yield env.unwrapped.current_view
    env.close()


def _on_screen(r: dict[str, Any]) -> bool:
    if r["type"] == "rect":
        x, y, w, h = r["box"]
        return 0 <= x and 0 <= y and x + w <= W and y + h <= H and w > 0 and h > 0
    if r["type"] == "widget":
        x0, y0, x1, y1 = r["box"]
        return 0 <= x0 <= x1 < W and 0 <= y0 <= y1 < H
    if r["type"] == "circle":
        return 0 <= r["center"][0] < W and 0 <= r["center"][1] < H
    return r["type"] != "text" or (0 <= r["x"] < W and 0 <= r["y"] < H)


@pytest.mark.parametrize("env_id", sorted({e for e, _ in ID_LEVELS}))
def test_font_variations_give_the_scaled_records_of_the_plain_screen(env_id: str) -> None:
    """``display_list`` builds texts at the theme's font scale and in its font directly (memoised
    with the widget): the records :func:`scale_fonts` makes of the same screen without them, and
    the same parts objects every time (the mock's tiles are keyed by them)."""
    scaled = 0
    for level in ("easy", "hard"):
        for seed in range(4):
            for v in views(env_id, level, seed, variation="all", split="train" if seed % 2 else "test"):
                lay = layout(v, W, H)
                s, f = v.theme.get("font_scale") or 1.0, v.theme.get("font") or None
                plain = replace(v, theme={k: x for k, x in v.theme.items() if k not in ("font_scale", "font")})
                # the memos are bounded (cleared when full): emptied here, so that what earlier
                # tests left in them cannot clear them between the two calls compared below
                display._PARTS.clear()
                display._WIDGETS.clear()
                items = display_list(v, lay)
                assert items == scale_fonts(display_list(plain, lay), float(s), f)
                assert all(a.get("parts") is b.get("parts") for a, b in zip(display_list(v, lay), items))
                scaled += s != 1 or f is not None
    assert scaled  # some screens of the grid had a font scale or a font


def test_every_widget_kind_has_a_painter() -> None:
    assert set(KINDS) <= set(PAINTERS)


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_display_lists_are_plain_data_placed_by_the_layout(env_id: str, level: str) -> None:
    for seed in range(3):
        for v in views(env_id, level, seed):
            lay = layout(v, W, H)
            items = display_list(v, lay)
            json.dumps(items, allow_nan=False)  # raises on anything but JSON types
            widgets = [r for r in items if r["type"] == "widget"]
            under = lay.backdrop.visible if lay.backdrop is not None else []  # a dialog's screen, inert, then the dialog
            assert [(r["id"], tuple(r["box"]), r["interactive"]) for r in widgets] == \
                [(w.id, b, False) for w, b in under] + [(w.id, b, w.interactive) for w, b in lay.visible]
            assert all(_on_screen(r) for r in items), [r for r in items if not _on_screen(r)]
            names = [r.get("name") for r in items]
            assert names.count("scrollbar") == (lay.max_scroll > 0 and not v.grid)  # a grid pages instead
            assert names.count("dot") == (v.pages if v.grid and v.pages > 1 else 0)
            for r in widgets:  # list rows (switches, links) draw a divider in the gap below their box
                dividers = [p for p in r["parts"] if p.get("name") == "divider"]
                assert len(dividers) == (r["kind"] in ("toggle", "link"))
                assert all(r["box"][3] - r["box"][1] < p["box"][1] < r["clip"][1] for p in dividers)
            assert ("title" in names) == (not v.grid)
            assert sum(r["focused"] for r in widgets) == (lay.box(v.focus) is not None if v.focus else 0)


def test_a_focused_field_out_of_view_is_kept_off_screen() -> None:
    rows = [Widget("name", "input", "Name", value="ada")] + [Widget(f"l{i}", "link", f"Item {i}", to="x") for i in range(20)]
    v = View("app", "main", "Long", rows, scroll=8, focus="name")
    lay = layout(v, W, H)
    r = hidden_focus(v, lay)
    assert r is not None and r["id"] == "name" and r["focused"] and r["value"] == "ada"
    assert r["box"][3] < rows_clip(v, lay)[1]  # above the rows' area: clipped away, but typing reaches it
    v.scroll = 0
    assert hidden_focus(v, layout(v, W, H)) is None


def test_records_resolve_the_theme() -> None:
    v = View(HOME, HOME, "", [Widget("icon:A", "icon", "A")], grid=True, theme={"primary": [1, 2, 3]})
    th = theme_of(v)
    assert th.primary == (1, 2, 3) and th.status == (0, 1, 2)  # darkened by a quarter, truncated
    tile = display_list(v, layout(v, W, H))[-1]["parts"][0]
    assert tile["color"] == (1, 2, 3)  # an icon without a colour of its own takes the primary colour


def test_a_new_widget_kind_is_one_painter(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kind the renderers have never seen is drawn from its painter's records alone."""

    def badge(w: Widget, bw: int, bh: int, th: Any, focused: bool) -> list[dict[str, Any]]:
        return [text(w.label, bw - 1, (bh - 1) // 2, 22, (200, 0, 0), align="right", valign="middle")]

    monkeypatch.setitem(PAINTERS, "badge", badge)
    v = View("app", "main", "Badges", [Widget("b", "badge", "NEW")])
    lay = layout(v, W, H)
    m = MockBackend(W, H)
    m.show(v, lay)
    x0, y0, x1, y1 = lay.visible[0][1]
    red = m.screenshot()[y0:y1 + 1, x0:x1 + 1]
    _, xs = np.nonzero((red[..., 0] > 150) & (red[..., 1] < 80))
    assert len(xs) > 20 and xs.max() >= x1 - x0 - 3 and xs.min() > (x1 - x0) // 2  # right-aligned in its box


def test_under_a_dialog_every_colour_is_dimmed_and_a_home_screen_keeps_no_title_bar() -> None:
    """The screen under a dialog is drawn as a scrim leaves it: every colour of its widgets half
    way to black, those a painter sets itself too (an icon's own colour and white letter, a
    switch's knob, a check mark); a home screen under it has no title bar, and the area that
    holds the widgets starts at the status bar, where its icons are."""
    from guigym.display import SCRIM, mix
    from guigym.layout import STATUS_H

    env = gym.make("GuiGym-Launcher-v0", variation={"popup": "rate", "popup_at": 0}, disable_env_checker=True)
    env.reset(seed=0)
    v, lay = env.unwrapped.current_view, env.unwrapped._lay
    env.close()
    assert v.backdrop is not None and v.backdrop.grid
    items = display_list(v, lay)
    assert not any(r.get("name") == "titlebar" for r in items)
    assert rows_clip(v, lay)[1] == STATUS_H
    inert = {r["id"]: r for r in items if r.get("inert")}
    icons = [(w, box) for w, box in lay.backdrop.visible if w.kind == "icon"]
    assert icons
    for w, box in icons:
        lit = widget(w, box, theme_of(v), False)  # the same icon on the home screen itself
        assert [p.get("color") for p in inert[w.id]["parts"]] == [
            None if "color" not in p else mix(p["color"], (0, 0, 0), SCRIM) for p in lit["parts"]]
        assert inert[w.id]["parts"][0]["color"] != lit["parts"][0]["color"]
