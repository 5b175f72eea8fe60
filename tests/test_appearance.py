"""The appearance axes of ``guigym.variation`` beyond colours and font size: ``font`` (bundled
fonts, the same file in both renderers), ``density`` (row height and padding), ``icons``
(home-screen icons of another app, labels right) and named viewports (a make-time option).

Every new value: train and test apart, neutral values exactly the unvaried env, the same seed
the same instance, the oracle solving it on 100 seeds of every id, and (browser) both
backends replaying the reference alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pygame
import pytest

from guigym.actions import Click
from guigym.apps.base import HOME
from guigym.apps.schema import icon_app
from guigym.backends.mock import MockBackend
from guigym.display import display_list
from guigym.fonts import FONT_DIR, FONT_FILES, font_path
from guigym.layout import DENSITIES, PAD_X, ROW_H, STATUS_H, VIEWPORTS, grid_shape, layout
from guigym.registration import env_ids
from guigym.variation import AXES, NEUTRAL, PRESETS, SPLITS, grid, sample_variation

IDS = env_ids()
NEW_AXES = ("font", "density", "icons")
#: (axis, value, split) of every new value that is not the neutral one.
VARIANTS = [(a, v, s) for a in NEW_AXES for s in SPLITS for v in AXES[a][s] if v != NEUTRAL[a]]
OTHER_VIEWPORTS = [n for n in VIEWPORTS if n != "portrait"]
ORACLE_SEEDS = 100
LEVELS = ("easy", "medium", "hard")


def fixed(axis: str, value: Any) -> dict[str, Any]:
    """Every axis neutral but ``axis``."""
    return {**NEUTRAL, axis: value}


class Blind(MockBackend):
    """The mock without its pixels: views, boxes, hit-testing and events exactly the mock's
    (all from the shared layout), nothing drawn (a black screenshot). The oracle's success
    does not depend on pixels; this makes 100 seeds per id and variant cheap."""

    def _draw(self, v: Any, lay: Any) -> None:
        pass


def oracle_episode(env: gym.Env, seed: int, level: str, limit: int = 200) -> bool:
    _, info = env.reset(seed=seed, options={"level": level})
    for _ in range(limit):
        if not info["reference"]:
            return bool(info["success"])
        _, _, term, trunc, info = env.step(info["reference"][0].action)
        if term or trunc:
            return bool(info["success"])
    return False


# ------------------------------------------------------------------------- the axes


def test_new_axes_have_disjoint_splits_and_join_the_appearance_preset() -> None:
    for a in NEW_AXES:
        assert AXES[a]["train"] and AXES[a]["test"]
        assert not set(AXES[a]["train"]) & set(AXES[a]["test"]), a
        assert NEUTRAL[a] not in AXES[a]["test"], a
        assert a in PRESETS["appearance"] and a in PRESETS["all"]
    assert set(AXES["font"]["train"] + AXES["font"]["test"]) - {"default"} == set(FONT_FILES)
    assert set(AXES["density"]["train"] + AXES["density"]["test"]) == set(DENSITIES)
    for split in SPLITS:
        names = [n for n, _ in grid(split)]
        for a, v, s in VARIANTS:
            if s == split:
                assert f"{a}={v}" in names
    rng = np.random.default_rng(0)
    for _ in range(20):
        v = sample_variation("appearance", "test", rng)
        assert all(v[a] in AXES[a]["test"] for a in NEW_AXES)
        assert v["instruction_style"] == NEUTRAL["instruction_style"] and v["popup"] == "none"


def test_bundled_fonts_are_small_licensed_and_load() -> None:
    files = [Path(font_path(n)) for n in FONT_FILES]
    assert sum(f.stat().st_size for f in files) < 3 << 20
    assert "Bitstream" in (FONT_DIR / "LICENSE-DejaVu.txt").read_text()
    pygame.font.init()
    for f in files:
        assert pygame.font.Font(str(f), 15).render("Hello", True, (0, 0, 0)).get_width() > 10
    with pytest.raises(ValueError, match="unknown font"):
        font_path("comic")


@pytest.mark.parametrize("env_id", IDS)
def test_neutral_values_are_the_unvaried_env(env_id: str) -> None:
    """Every axis at its neutral value, and the default viewport by name: the same pixels as
    the plain env, no font on any text, the default row height."""
    plain = gym.make(env_id)
    neutral = gym.make(env_id, variation=dict(NEUTRAL))
    named = gym.make(env_id, viewport="portrait")
    for seed in range(3):
        a, _ = plain.reset(seed=seed)
        b, _ = neutral.reset(seed=seed)
        c, _ = named.reset(seed=seed)
        assert np.array_equal(a["screenshot"], b["screenshot"]) and np.array_equal(a["screenshot"], c["screenshot"])
        u = neutral.unwrapped
        assert u._lay.row_h == ROW_H and u._lay.pad_x == PAD_X
        items = display_list(u.current_view, u._lay)
        texts = [r for r in items if r["type"] == "text"]
        texts += [p for r in items if r["type"] == "widget" for p in r["parts"] if p["type"] == "text"]
        assert texts and not any("font" in t for t in texts)
    for e in (plain, neutral, named):
        e.close()


@pytest.mark.parametrize("axis,value,split", VARIANTS, ids=[f"{a}={v}" for a, v, _ in VARIANTS])
def test_same_seed_same_instance_and_the_look_changes(axis: str, value: Any, split: str) -> None:
    env_id = "GuiGym-Launcher-v0" if axis == "icons" else "GuiGym-Settings-v0"  # the Launcher starts on its home screen
    a, b = (gym.make(env_id, variation=fixed(axis, value), split=split) for _ in range(2))
    plain = gym.make(env_id)
    for seed in range(3):
        oa, ia = a.reset(seed=seed)
        ob, _ = b.reset(seed=seed)
        op, ip = plain.reset(seed=seed)
        assert a.unwrapped.scenario == b.unwrapped.scenario and np.array_equal(oa["screenshot"], ob["screenshot"])
        assert ia["variation"][axis] == value
        assert not np.array_equal(oa["screenshot"], op["screenshot"])
        # the same task: same elements (ids, labels) on screen, the same instruction
        assert oa["instruction"] == op["instruction"]
        assert [e["id"] for e in ia["elements"]][:3] == [e["id"] for e in ip["elements"]][:3]
    for e in (a, b, plain):
        e.close()


def test_density_sets_row_height_and_padding() -> None:
    for name, (row_h, pad_x) in DENSITIES.items():
        env = gym.make("GuiGym-Settings-v0", variation=fixed("density", name), split="test" if name in AXES["density"]["test"] else "train")
        env.reset(seed=0)
        lay = env.unwrapped._lay
        boxes = [b for _, b in lay.visible]
        assert lay.row_h == row_h and lay.pad_x == pad_x and lay.n_visible == (640 - STATUS_H - 56) // row_h
        assert all(b[0] == pad_x and b[2] == 360 - pad_x - 1 for b in boxes)
        assert all(y1 - y0 + 1 == row_h - 12 for _, y0, _, y1 in boxes)
        env.close()


@pytest.mark.parametrize("how", ["recoloured", "shuffled"])
def test_icons_of_another_app_labels_right(how: str) -> None:
    split = "train" if how in AXES["icons"]["train"] else "test"
    env = gym.make("GuiGym-Launcher-v0", variation=fixed("icons", how), split=split)
    plain = gym.make("GuiGym-Launcher-v0")
    for seed in range(5):
        _, info = env.reset(seed=seed)
        _, pinfo = plain.reset(seed=seed)
        u = env.unwrapped
        assert u.current_view.screen == HOME
        assert [(e["id"], e["label"], e["box"]) for e in info["elements"]] == [(e["id"], e["label"], e["box"]) for e in pinfo["elements"]]
        apps = u.scenario["apps"]
        for w in u.current_view.rows:
            name = icon_app(w.id)
            assert w.label == name
            colour_of, glyph_of = u.scenario["home"]["looks"][name]
            assert colour_of != name and w.value == apps[colour_of].get("color")
            assert w.detail == (glyph_of[:1].upper())
            assert glyph_of == (colour_of if how == "shuffled" else name)
        # clicking an icon opens the app its label names
        icon = info["elements"][0]
        x0, y0, x1, y1 = icon["box"]
        env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
        assert u.get_state()["state"]["fg"] == icon_app(icon["id"])
    env.close()
    plain.close()


@pytest.mark.parametrize("name", OTHER_VIEWPORTS)
def test_named_viewports_fix_the_observation_and_fit_the_home_grid(name: str) -> None:
    w, h = VIEWPORTS[name]
    env = gym.make("GuiGym-Phone-v0", viewport=name, level="hard")
    assert env.observation_space["screenshot"].shape == (h, w, 3)
    obs, info = env.reset(seed=0)
    assert obs["screenshot"].shape == (h, w, 3)
    cols, rows = grid_shape(w, h)
    assert cols * rows >= 20
    for e in info["elements"]:  # every icon of the page whole on the screen, none overlapping
        x0, y0, x1, y1 = e["box"]
        assert 0 <= x0 < x1 < w and 0 <= y0 < y1 < h, (name, e)
    boxes = [tuple(e["box"]) for e in info["elements"]]
    assert len(set(boxes)) == len(boxes)
    env.close()
    with pytest.raises(ValueError, match="unknown viewport"):
        gym.make("GuiGym-Login-v0", viewport="square")


def test_the_default_home_grid_is_unchanged() -> None:
    assert grid_shape(360, 640) == (4, 5)
    from guigym.apps.base import View, Widget

    v = View(HOME, HOME, "", [Widget(f"icon:{i}", "icon", f"A{i}") for i in range(20)], grid=True)
    boxes = [b for _, b in layout(v, 360, 640).visible]
    assert boxes[0] == (4, 40, 85, 131) and boxes[5] == (94, 140, 175, 231)


# ------------------------------------------------------------------------ the oracle


@pytest.mark.parametrize("env_id", IDS)
def test_the_oracle_solves_every_new_variant(env_id: str) -> None:
    """Per id, for every new value and every named viewport: 100 seeds at easy plus 12 at
    medium and hard, on the mock's layout and hit-testing (drawing left out: :class:`Blind`,
    the pixels play no part in it); 3 seeds drawn, one per level."""
    cases: list[tuple[str, dict[str, Any]]] = [(f"{a}={v}", {"variation": fixed(a, v), "split": s}) for a, v, s in VARIANTS]
    cases += [(f"viewport={n}", {"viewport": n}) for n in OTHER_VIEWPORTS]
    plan = [(seed, "easy") for seed in range(ORACLE_SEEDS)]
    plan += [(seed, LEVELS[1 + seed % 2]) for seed in range(ORACLE_SEEDS, ORACLE_SEEDS + 12)]
    for name, kw in cases:
        env = gym.make(env_id, disable_env_checker=True, **kw)
        u = env.unwrapped
        drawn = [oracle_episode(env, seed, LEVELS[seed % 3]) for seed in range(3)]
        u._backend.close()
        u._backend = Blind(u.width, u.height)
        failed = [(seed, level) for seed, level in plan if not oracle_episode(env, seed, level)]
        env.close()
        assert all(drawn), (env_id, name, drawn)
        assert not failed, (env_id, name, failed)


# ------------------------------------------------------------------------- the browser


def _cases() -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = [(f"{a}={v}", {"variation": fixed(a, v), "split": s}) for a, v, s in VARIANTS]
    return out + [(f"viewport={n}", {"viewport": n}) for n in OTHER_VIEWPORTS]


@pytest.mark.browser
@pytest.mark.parametrize("name,kw", _cases(), ids=[n for n, _ in _cases()])
def test_both_backends_replay_the_reference_alike(name: str, kw: dict[str, Any]) -> None:
    """Every new value on every id (one seed, levels in turn): the reference replayed on the
    browser and on the mock gives the same events, states, rewards and DOM boxes; the first
    screens pass the render-parity thresholds."""
    from guigym.backends.browser import BrowserBackend
    from tests.test_render_parity import compare, fails

    w, h = VIEWPORTS[kw["viewport"]] if "viewport" in kw else (360, 640)
    shared, painter = BrowserBackend(w, h), MockBackend(w, h)
    try:
        for k, env_id in enumerate(IDS):
            level = LEVELS[k % 3]
            benv = gym.make(env_id, backend="browser", disable_env_checker=True, **kw)
            menv = gym.make(env_id, disable_env_checker=True, **kw)
            benv.unwrapped._backend = shared  # one browser for every id
            _, bi = benv.reset(seed=k, options={"level": level})
            _, mi = menv.reset(seed=k, options={"level": level})
            v = menv.unwrapped.current_view
            r = compare(painter, shared, v, menv.unwrapped._lay)
            assert not fails(r), (name, env_id, fails(r))
            steps = 0
            while mi["reference"]:
                a = mi["reference"][0].action
                _, br, bt, btr, bi = benv.step(a)
                _, mr, mt, mtr, mi = menv.step(a)
                where = f"{name} {env_id} {level} step={steps} action={a}"
                assert bi["event"] == mi["event"] and bi["action_error"] == mi["action_error"], where
                assert benv.unwrapped.get_state()["state"] == menv.unwrapped.get_state()["state"], where
                assert (br, bt, btr) == (mr, mt, mtr), where
                assert shared.boxes() == {x.id: b for x, b in menv.unwrapped._lay.visible}, where
                steps += 1
                if mt or mtr:
                    break
            assert bi["success"] and mi["success"], (name, env_id)
            benv.unwrapped._backend = None  # the shared browser is closed below, once
            benv.close()
            menv.close()
    finally:
        shared.close()
        painter.close()


def test_snapshots_keep_the_look_and_refuse_unknown_values() -> None:
    var = {**NEUTRAL, "icons": "shuffled", "font": "light", "density": "roomy"}
    env = gym.make("GuiGym-Launcher-v0", variation=var, split="test")
    obs, _ = env.reset(seed=3)
    snap = json.loads(json.dumps(env.unwrapped.get_state()))
    other = gym.make("GuiGym-Launcher-v0")
    other.reset(seed=0)
    other.unwrapped.set_state(snap)
    assert np.array_equal(other.unwrapped.observe()["screenshot"], obs["screenshot"])
    for key, bad, match in (("density", "huge", "unknown density"), ("font", "../x", "unknown font")):
        broken = json.loads(json.dumps(snap))
        broken["scenario"]["theme"][key] = bad
        with pytest.raises(ValueError, match=match):
            other.unwrapped.set_state(broken)
    env.close()
    other.close()
