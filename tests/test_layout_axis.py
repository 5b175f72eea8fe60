"""The ``layout`` axis of ``guigym.variation``: a collection (the Shop's catalogue, a Files
folder, the saved notes) shown as a list of rows or as a grid of tiles (``guigym.apps.base.LAYOUTS``).

``list`` is the unvaried look; ``grid`` (train) and ``compact_grid`` (test) put the items side
by side in tiles that keep their ids, labels and targets. The splits are disjoint, the same seed
gives the same screens, the oracle clicks the tiles (scrolling a grid that overflows) and solves
every affected id at every level on every value, families without such a collection ignore the
axis, and (browser) both renderers draw a grid alike."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from guigym.actions import Click, Scroll
from guigym.apps.base import LAYOUTS, TILES_PREFIX, View
from guigym.backends.mock import MockBackend
from guigym.registration import env_ids
from guigym.variation import AXES, NEUTRAL, PRESETS, SIDE_DRAWN, SPLITS, apply_variation, grid, sample_variation
from tests.conftest import follow_reference

#: The ids whose apps have a collection the axis lays out (the Shop, Files, Notes; CrossApp: its Shop and Notes).
AFFECTED = ("GuiGym-Shop-v0", "GuiGym-Files-v0", "GuiGym-CrossApp-v0", "GuiGym-Launcher-v0", "GuiGym-Phone-v0")
UNAFFECTED = [i for i in env_ids() if i not in AFFECTED]
LEVELS = ("easy", "medium", "hard")
#: The fewest clicks on a tile among the oracle's 300 episodes per id and grid value: every
#: Shop and Files task opens an item; Phone and CrossApp ones at times (a note, a product);
#: Launcher's notes tasks add a note, never open one (its grid is shown, not clicked).
TILE_CLICKS = {"GuiGym-Shop-v0": 100, "GuiGym-Files-v0": 100, "GuiGym-Phone-v0": 1, "GuiGym-CrossApp-v0": 1, "GuiGym-Launcher-v0": 0}
VALUES = [(v, s) for s in SPLITS for v in AXES["layout"][s]]
ORACLE_SEEDS = 100


def fixed(value: str) -> dict[str, Any]:
    """Every axis neutral but the layout."""
    return {**NEUTRAL, "layout": value}


def split_of(value: str) -> str:
    return "test" if value in AXES["layout"]["test"] else "train"


def make(env_id: str, value: str, **kw: Any) -> gym.Env:
    return gym.make(env_id, variation=fixed(value), split=split_of(value), disable_env_checker=True, **kw)


class Blind(MockBackend):
    """The mock without its pixels (views, boxes, hit-testing and events the mock's): the
    oracle's success does not depend on pixels, so 100 seeds per id, level and value stay cheap."""

    def _draw(self, v: Any, lay: Any) -> None:
        pass


def tiles(v: View) -> list[str]:
    """Ids of the tiles of ``v`` (cells of its rows of tiles)."""
    return [c.id for w in v.rows if w.id.startswith(TILES_PREFIX) for c in w.cells or ()]


# ------------------------------------------------------------------------- the axis


def test_the_axis_is_declared_with_disjoint_splits() -> None:
    tr, te = AXES["layout"]["train"], AXES["layout"]["test"]
    assert tr and te and not set(tr) & set(te)
    assert NEUTRAL["layout"] == "list" and "list" in tr and "list" not in te
    assert set(tr + te) == {"list", *LAYOUTS}
    assert "layout" in PRESETS["appearance"] and "layout" in PRESETS["all"] and "layout" in SIDE_DRAWN
    assert list(AXES)[-1] == "labels"  # the labels axis stays the last one drawn
    assert ("layout=grid", fixed("grid")) in grid("train") and ("layout=compact_grid", fixed("compact_grid")) in grid("test")
    assert not any(n == "layout=list" for n, _ in grid("train"))  # the neutral value is the baseline
    rng = np.random.default_rng(0)
    for split in SPLITS:
        seen = {sample_variation("appearance", split, rng)["layout"] for _ in range(40)}
        assert seen == set(AXES["layout"][split]), (split, seen)


def test_it_moves_no_other_axis() -> None:
    """Drawn aside: with the layout fixed or sampled, every other axis gets the same value and
    the shared stream stands where it did; the applied scenario differs only in the theme's
    ``layout``."""
    from guigym.apps import FAMILIES

    for split in SPLITS:
        for seed in range(30):
            a, b = np.random.default_rng(seed), np.random.default_rng(seed)
            va = sample_variation("all", split, a)
            vb = sample_variation({**{k: "sample" for k in PRESETS["all"]}, "layout": AXES["layout"][split][0]}, split, b)
            assert {k: v for k, v in va.items() if k != "layout"} == {k: v for k, v in vb.items() if k != "layout"}
            assert a.bit_generator.state == b.bit_generator.state
    sc = FAMILIES["Shop"].generate(np.random.default_rng(3), "medium")
    plain = apply_variation(sc, fixed("list"), np.random.default_rng(1))
    tiled = apply_variation(sc, fixed("grid"), np.random.default_rng(1))
    assert "layout" not in plain["theme"] and tiled["theme"] == {**plain["theme"], "layout": "grid"}
    assert {k: v for k, v in plain.items() if k not in ("theme", "variation")} == \
        {k: v for k, v in tiled.items() if k not in ("theme", "variation")}


@pytest.mark.parametrize("env_id", AFFECTED)
def test_list_is_the_unvaried_look(env_id: str) -> None:
    plain = gym.make(env_id, disable_env_checker=True)
    listed = make(env_id, "list")
    for seed in range(3):
        a, ia = plain.reset(seed=seed)
        b, ib = listed.reset(seed=seed)
        assert np.array_equal(a["screenshot"], b["screenshot"]) and ia["elements"] == ib["elements"]
        assert "layout" not in listed.unwrapped.scenario["theme"] and not tiles(listed.unwrapped.current_view)
    plain.close()
    listed.close()


@pytest.mark.parametrize("value,split", VALUES, ids=[v for v, _ in VALUES])
def test_same_seed_same_screens(value: str, split: str) -> None:
    for env_id in ("GuiGym-Shop-v0", "GuiGym-Files-v0"):
        a, b = make(env_id, value, level="medium"), make(env_id, value, level="medium")
        for seed in range(3):
            oa, ia = a.reset(seed=seed)
            ob, ib = b.reset(seed=seed)
            assert json.dumps(a.unwrapped.scenario, sort_keys=True) == json.dumps(b.unwrapped.scenario, sort_keys=True)
            assert np.array_equal(oa["screenshot"], ob["screenshot"]) and ia["elements"] == ib["elements"]
            assert ia["variation"]["layout"] == value and a.unwrapped.split == split
            for step in ia["reference"][:4]:  # the same screens along the reference too
                oa, *_, ia = a.step(step.action)
                ob, *_, ib = b.step(step.action)
                assert np.array_equal(oa["screenshot"], ob["screenshot"]) and ia["elements"] == ib["elements"]
        a.close()
        b.close()


def _first_tiled(env: gym.Env, seeds: range) -> tuple[int, dict[str, Any]]:
    """The first seed whose reset screen shows tiles, and its info."""
    for seed in seeds:
        _, info = env.reset(seed=seed)
        if tiles(env.unwrapped.current_view):
            return seed, info
    raise AssertionError("no seed shows its collection at reset")


@pytest.mark.parametrize("value", sorted(LAYOUTS))
@pytest.mark.parametrize("env_id", ["GuiGym-Shop-v0", "GuiGym-Files-v0"])
def test_tiles_share_rows_and_carry_their_boxes(env_id: str, value: str) -> None:
    """The grid changes the picture and the element boxes: at least two items side by side on a
    row, each tile's element box its layout box, as wide as a column; the items are those the
    list shows (ids, labels, targets), the tiles drawn as cards, not rows."""
    cols, span = LAYOUTS[value]
    env, plain = make(env_id, value, level="medium"), make(env_id, "list", level="medium")
    seed, info = _first_tiled(env, range(20))
    po, pinfo = plain.reset(seed=seed)
    obs = env.unwrapped.observe()
    u, p = env.unwrapped, plain.unwrapped
    assert not np.array_equal(obs["screenshot"], po["screenshot"])
    ids = tiles(u.current_view)
    boxes = {e["id"]: tuple(e["box"]) for e in info["elements"]}
    pboxes = {e["id"]: tuple(e["box"]) for e in pinfo["elements"]}
    shown = [i for i in ids if i in boxes]
    assert len(shown) >= 2
    for i in shown:
        assert boxes[i] == u._lay.box(i) and boxes[i] != pboxes.get(i)
        w, lw = u.current_view.find(i), p.current_view.find(i)
        assert (w.label, w.to, w.kind, w.detail) == (lw.label, lw.to, lw.kind, lw.detail) and w.style == "tile"
    rows: dict[int, list[tuple[int, ...]]] = {}
    for i in shown:
        rows.setdefault(boxes[i][1], []).append(boxes[i])
    assert max(len(r) for r in rows.values()) >= 2  # items share a row
    full = max(rows.values(), key=len)
    assert len({b[2] - b[0] for b in full}) <= 2 and all(b[2] - b[0] < 360 // cols for b in full)
    assert all(b[3] - b[1] + 1 == span * u._lay.row_h - 12 for b in full)  # a tile is `span` rows tall
    # every item of the list is a tile of the grid, in the same order
    listed = [w.id for w in p.current_view.widgets() if w.kind == "link" and w.to == w.id and w.id in ids]
    assert listed == [i for i in ids if i in listed] and set(listed) == set(ids)
    env.close()
    plain.close()


@pytest.mark.parametrize("env_id", UNAFFECTED)
def test_families_without_a_collection_ignore_it(env_id: str) -> None:
    """A documented no-op: the same pictures and elements along the reference."""
    a, b = make(env_id, "list"), make(env_id, "compact_grid")
    for seed in range(2):
        oa, ia = a.reset(seed=seed)
        ob, ib = b.reset(seed=seed)
        assert ib["variation"]["layout"] == "compact_grid"
        for step in ia["reference"][:6]:
            assert np.array_equal(oa["screenshot"], ob["screenshot"]) and ia["elements"] == ib["elements"]
            assert not tiles(b.unwrapped.current_view)
            oa, *_, ia = a.step(step.action)
            ob, *_, ib = b.step(step.action)
    a.close()
    b.close()


def test_snapshots_keep_the_layout_and_refuse_unknown_ones() -> None:
    env = make("GuiGym-Files-v0", "compact_grid", level="medium")
    obs, _ = env.reset(seed=5)
    snap = json.loads(json.dumps(env.unwrapped.get_state()))
    other = gym.make("GuiGym-Files-v0", disable_env_checker=True)
    other.reset(seed=0)
    other.unwrapped.set_state(snap)
    assert np.array_equal(other.unwrapped.observe()["screenshot"], obs["screenshot"])
    snap["scenario"]["theme"]["layout"] = "carousel"
    with pytest.raises(ValueError, match="unknown layout"):
        other.unwrapped.set_state(snap)
    env.close()
    other.close()


# ------------------------------------------------------------------------ the oracle


class Recorder(gym.Wrapper):
    """Counts the steps taken on a screen that shows tiles, and among them the clicks on a tile
    and the Scrolls."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.clicked = self.scrolled = self.shown = 0

    def step(self, action: Any) -> Any:
        u = self.env.unwrapped
        shown = tiles(u.current_view)
        self.shown += bool(shown)
        if shown and isinstance(action, Scroll):
            self.scrolled += 1
        elif isinstance(action, Click):
            w = u._lay.hit(action.x, action.y)
            self.clicked += w is not None and w.id in shown
        return self.env.step(action)


@pytest.mark.parametrize("value,split", VALUES, ids=[v for v, _ in VALUES])
@pytest.mark.parametrize("env_id", AFFECTED)
def test_the_oracle_solves_every_level_on_every_layout(env_id: str, value: str, split: str) -> None:
    """100 seeds per level (mock layout and hit-testing, drawing left out), with the conftest's
    :func:`follow_reference`: every step takes and is the reference's event, every episode
    succeeds; on a grid the references click tiles, and scroll rows of tiles where a folder or
    catalogue overflows (Files, Shop)."""
    clicked = scrolled = shown = 0
    for level in LEVELS:
        env = make(env_id, value, level=level)
        u = env.unwrapped
        if u._backend is not None:
            u._backend.close()
        u._backend = Blind(u.width, u.height)
        rec = Recorder(env)
        failed = []
        for seed in range(ORACLE_SEEDS):
            _, info = env.reset(seed=seed)
            run = follow_reference(rec, info, env.spec.max_episode_steps or 200, seed=seed)
            if not run.success:
                failed.append(seed)
        clicked, scrolled, shown = clicked + rec.clicked, scrolled + rec.scrolled, shown + rec.shown
        env.close()
        assert not failed, (env_id, value, level, failed[:5])
    if value == "list":
        assert shown == clicked == scrolled == 0
    else:  # the Shop's oracle searches a product's name first, so only a folder scrolls its tiles
        assert shown >= clicked >= TILE_CLICKS[env_id], (env_id, value, shown, clicked)
        assert shown > 0 and (scrolled > 0 or env_id != "GuiGym-Files-v0"), (env_id, value)


@pytest.mark.parametrize("value", sorted(LAYOUTS))
def test_the_oracle_scrolls_to_a_tile_below_the_fold(value: str) -> None:
    """The whole hard catalogue on a grid overflows the screen: the oracle's way to the last
    product scrolls rows of tiles, then clicks that tile's box, and opens it."""
    from guigym.apps.base import apply, view
    from guigym.apps.family import Goal
    from guigym.apps.shop import ALL, ANY, APP, CAT, COLOUR, MAIN, PRICE, SEARCH, add_id, product_screen
    from guigym.layout import layout
    from guigym.oracle import ground

    env = make("GuiGym-Shop-v0", value, level="hard")
    env.reset(seed=0)
    u = env.unwrapped
    sc, state = u.scenario, u.get_state()["state"]
    state["apps"][APP]["values"].update({SEARCH: "", CAT: ALL, COLOUR: ANY, PRICE: ANY})  # the whole catalogue listed
    pid = sc["apps"][APP]["shop"]["products"][-1]["id"]
    goal = Goal(APP, product_screen(pid), add_id(pid), "press")
    scrolls, clicked = 0, None
    for _ in range(30):
        v = view(sc, state)
        lay = layout(v, u.width, u.height)
        assert v.screen == MAIN and tiles(v)
        step = ground(sc, state, v, lay, goal)
        if isinstance(step.action, Scroll):
            scrolls += 1
        else:
            assert isinstance(step.action, Click) and step.target == product_screen(pid) and step.box == lay.box(step.target)
            clicked = step
        state = apply(sc, state, step.event, v)
        if clicked is not None:
            break
    assert scrolls >= 1 and clicked is not None
    assert state["apps"][APP]["stack"][-1] == product_screen(pid)
    env.close()


# ------------------------------------------------------------------------- the browser


@pytest.mark.browser
@pytest.mark.parametrize("value", sorted(LAYOUTS))
def test_both_renderers_draw_a_grid_alike(value: str) -> None:
    """Shop and Files on a grid: the screens along the reference pass the render-parity
    thresholds, the browser's DOM boxes are the layout's (the tiles' too), and replaying the
    reference on the browser gives the mock's events and states."""
    from guigym.backends.browser import BrowserBackend
    from tests.test_render_parity import H, W, compare, fails

    shared, painter = BrowserBackend(W, H), MockBackend(W, H)
    try:
        for env_id, level in (("GuiGym-Shop-v0", "medium"), ("GuiGym-Files-v0", "hard")):
            benv = make(env_id, value, level=level, backend="browser")
            menv = make(env_id, value, level=level)
            benv.unwrapped._backend = shared
            seed, mi = _first_tiled(menv, range(20))
            _, bi = benv.reset(seed=seed)
            drawn = 0
            for k in range(60):
                v, lay = menv.unwrapped.current_view, menv.unwrapped._lay
                if tiles(v) and drawn < 3:
                    r = compare(painter, shared, v, lay)
                    assert not fails(r), (env_id, value, k, fails(r))
                    drawn += 1
                assert shared.boxes() == {x.id: b for x, b in lay.visible}, (env_id, value, k)
                if not mi["reference"]:
                    break
                a = mi["reference"][0].action
                _, br, bt, btr, bi = benv.step(a)
                _, mr, mt, mtr, mi = menv.step(a)
                assert bi["event"] == mi["event"] and (br, bt, btr) == (mr, mt, mtr), (env_id, value, k)
                assert benv.unwrapped.get_state()["state"] == menv.unwrapped.get_state()["state"], (env_id, value, k)
                if mt or mtr:
                    break
            assert drawn >= 1 and bi["success"] and mi["success"], (env_id, value)
            benv.unwrapped._backend = None  # the shared browser is closed below, once
            benv.close()
            menv.close()
    finally:
        shared.close()
        painter.close()
