"""The two renderers draw the same display list alike: mock (pygame) and browser (headless
Chromium) screenshots compared for every registered id x level on a few seeds, so renderer
drift fails CI.

Both draw text from the same font file (the default look: pygame's FreeSansBold, which the
browser loads as a ``FontFace``; the ``font`` variation: the bundled file), but rasterise it
differently (hinting, synthetic bold), so pictures cannot be equal; what must agree is where
things are and their colours:

* boxes: the DOM box of every visible widget is its layout box, exactly;
* ink: in every visible widget's box, the bounding box of what is drawn (pixels far from the
  background colour) overlaps between the renderers: IoU >= ``MIN_INK_IOU`` (measured worst
  case 0.69: a day cell's digits), and its top and bottom edges are at most ``MAX_EDGE_DY`` px
  apart (measured worst case 2: glyph heights agree);
* pixels: the share of pixels whose colours agree (largest channel difference <=
  ``PIXEL_TOL``) is >= ``MIN_AGREEMENT`` (measured worst case 0.94: glyph edges differ; a
  widget drawn 6 px off, a wrong theme colour or a missing bar falls far below);
* text: a line ends where the mock's ends (within 2% of its width), and a centred run wider
  than its box shows the same part (checked below on long labels).

A drifted renderer (parts moved, a colour changed) fails these thresholds: checked below on
deliberately drifted display lists.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from guigym.apps.base import View
from guigym.backends import browser as browser_mod
from guigym.backends.browser import BrowserBackend
from guigym.backends.mock import MockBackend
from guigym.display import theme_of
from guigym.layout import Box, Layout, layout
from tests.conftest import ID_LEVELS

pytestmark = pytest.mark.browser

W, H = 360, 640
SEEDS = (0, 1, 2)
STEPS = 3  # screens per episode: the first one and after each of the first STEPS reference steps
PIXEL_TOL = 48
MIN_AGREEMENT = 0.90
MIN_INK_IOU = 0.5
MAX_EDGE_DY = 3
INK_TOL = 40  # a pixel is ink when some channel is this far from the background


@pytest.fixture(scope="module")
def renderers() -> Iterator[tuple[MockBackend, BrowserBackend]]:
    m, b = MockBackend(W, H), BrowserBackend(W, H)
    yield m, b
    b.close()
    m.close()


def agreement(a: np.ndarray, b: np.ndarray) -> float:
    """Share of pixels whose colours agree within ``PIXEL_TOL`` on every channel."""
    return float((np.abs(a.astype(np.int16) - b.astype(np.int16)).max(-1) <= PIXEL_TOL).mean())


def ink_box(img: np.ndarray, box: Box, bg: tuple[int, int, int]) -> Box | None:
    """Bounding box of the pixels in ``box`` that differ from the background ``bg``."""
    x0, y0, x1, y1 = box
    ink = np.abs(img[y0:y1 + 1, x0:x1 + 1].astype(np.int16) - np.array(bg, np.int16)).max(-1) > INK_TOL
    ys, xs = np.nonzero(ink)
    if len(xs) == 0:
        return None
    return (x0 + int(xs.min()), y0 + int(ys.min()), x0 + int(xs.max()), y0 + int(ys.max()))


def iou(a: Box | None, b: Box | None) -> float:
    if a is None or b is None:
        return 1.0 if a is b else 0.0
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]) + 1)
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]) + 1)
    area = (a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - ix * iy
    return ix * iy / area


def compare(m: MockBackend, b: BrowserBackend, v: View, lay: Layout) -> dict[str, Any]:
    """Draw ``v`` with both renderers; the scores above."""
    m.show(v, lay)
    b.show(v, lay)
    a, c = m.screenshot(), b.screenshot()
    bg = theme_of(v).bg
    ious, dys = {}, {}
    for w, box in lay.visible:
        ia, ic = ink_box(a, box, bg), ink_box(c, box, bg)
        ious[w.id] = iou(ia, ic)
        dys[w.id] = max(abs(ia[1] - ic[1]), abs(ia[3] - ic[3])) if ia is not None and ic is not None else 0
    dom = b.boxes()
    wrong_boxes = {w.id: (dom.get(w.id), box) for w, box in lay.visible if w.interactive and dom.get(w.id) != box}
    return {"agreement": agreement(a, c), "ink": ious, "dy": dys, "wrong_boxes": wrong_boxes}


def fails(r: dict[str, Any]) -> list[str]:
    """The thresholds that the scores ``r`` of one screen miss."""
    out = [f"DOM boxes differ from the layout's: {r['wrong_boxes']}"] if r["wrong_boxes"] else []
    if r["agreement"] < MIN_AGREEMENT:
        out.append(f"pixel agreement {r['agreement']:.3f} < {MIN_AGREEMENT}")
    out += [f"{wid}: ink IoU {x:.2f} < {MIN_INK_IOU}" for wid, x in r["ink"].items() if x < MIN_INK_IOU]
    out += [f"{wid}: ink edges {x} px apart > {MAX_EDGE_DY}" for wid, x in r["dy"].items() if x > MAX_EDGE_DY]
    return out


def screens(env_id: str, level: str, seed: int) -> Iterator[View]:
    """The views of the first screens of an oracle episode (mock env)."""
    env = gym.make(env_id, disable_env_checker=True)
    try:
        _, info = env.reset(seed=seed, options={"level": level})
        for i in range(STEPS + 1):
            yield env.unwrapped.current_view
            if i == STEPS or not info["reference"]:
                return
            _, _, term, trunc, info = env.step(info["reference"][0].action)
            if term or trunc:
                yield env.unwrapped.current_view
                return
    finally:
        env.close()


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_mock_and_browser_draw_alike(renderers: tuple[MockBackend, BrowserBackend], env_id: str, level: str) -> None:
    m, b = renderers
    n = 0
    for seed in SEEDS:
        for v in screens(env_id, level, seed):
            r = compare(m, b, v, layout(v, W, H))
            assert not fails(r), (f"{env_id} {level} seed {seed} screen {v.screen!r}", fails(r))
            n += 1
    assert n >= len(SEEDS) * 2  # each episode showed several screens


def _drifted(kind: str):  # type: ignore[no-untyped-def]
    """A ``display_list`` for the browser that drifts from the mock's."""
    from guigym.display import display_list

    def shifted(v: View, lay: Layout) -> list[dict[str, Any]]:
        out = []
        for r in display_list(v, lay):
            if r["type"] == "widget" and kind == "offset":  # every widget's drawing 6 px lower
                r = {**r, "parts": [{**p, **_moved(p, 6)} for p in r["parts"]]}
            elif r["type"] == "rect" and kind == "colour" and r.get("name") in ("status", "titlebar"):
                r = {**r, "color": (r["color"][2], r["color"][0], r["color"][1])}  # channels rotated
            out.append(r)
        return out

    return shifted


def _moved(p: dict[str, Any], dy: int) -> dict[str, Any]:
    if p["type"] == "rect":
        return {"box": [p["box"][0], p["box"][1] + dy, p["box"][2], p["box"][3]]}
    if p["type"] == "circle":
        return {"center": [p["center"][0], p["center"][1] + dy]}
    if p["type"] == "lines":
        return {"points": [[x, y + dy] for x, y in p["points"]]}
    return {"y": p["y"] + dy}


@pytest.mark.parametrize("kind", ["offset", "colour"])
def test_drift_is_caught(renderers: tuple[MockBackend, BrowserBackend], monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """The thresholds fail a renderer that draws widgets a few pixels off, or bars in the wrong
    colour (the drift the test above guards against)."""
    m, b = renderers
    monkeypatch.setattr(browser_mod, "display_list", _drifted(kind))
    v = next(screens("GuiGym-Settings-v0", "easy", 0))
    lay = layout(v, W, H)
    assert fails(compare(m, b, v, lay))
    monkeypatch.undo()
    assert not fails(compare(m, b, v, lay))  # the same screen without the drift passes


def test_a_new_widget_kind_needs_no_renderer_code(renderers: tuple[MockBackend, BrowserBackend], monkeypatch: pytest.MonkeyPatch) -> None:
    """A kind registered with a painter only is drawn alike by both renderers."""
    from guigym.apps.base import Widget
    from guigym.display import PAINTERS, rect, text

    def badge(w: Widget, bw: int, bh: int, th: Any, focused: bool) -> list[dict[str, Any]]:
        label = text(w.label, bw - 60, (bh - 1) // 2, 20, th.on_primary, True, "center", "middle", w=60)
        return [rect(bw - 60, 8, 60, bh - 16, th.error, 10), label]

    monkeypatch.setitem(PAINTERS, "badge", badge)
    v = View("app", "main", "Badges", [Widget("h", "label", "Inbox", style="heading"), Widget("b", "badge", "NEW")])
    lay = layout(v, W, H)
    r = compare(*renderers, v, lay)
    assert not fails(r) and r["ink"]["b"] > 0.9, r


@pytest.mark.parametrize("viewport", ["landscape", "small", "tablet"])
def test_other_viewports_draw_alike(viewport: str) -> None:
    """The envs of both backends on the other named viewports (guigym.layout.VIEWPORTS): the same
    references along the oracle's episode and screens that agree as on the default one (measured
    worst case 0.92, on ``small``)."""
    for env_id in ("GuiGym-Settings-v0", "GuiGym-Calendar-v0", "GuiGym-Phone-v0"):
        m = gym.make(env_id, viewport=viewport, level="hard")
        b = gym.make(env_id, viewport=viewport, level="hard", backend="browser")
        try:
            om, im = m.reset(seed=1)
            ob, ib = b.reset(seed=1)
            for _ in range(STEPS + 1):
                assert om["screenshot"].shape == ob["screenshot"].shape
                assert agreement(om["screenshot"], ob["screenshot"]) >= MIN_AGREEMENT, (env_id, viewport)
                assert repr(im["reference"]) == repr(ib["reference"]), (env_id, viewport)
                action = im["reference"][0].action
                om, _, done, _, im = m.step(action)
                ob, _, _, _, ib = b.step(action)
                if done:
                    break
        finally:
            m.close()
            b.close()


def _show_both(renderers: tuple[MockBackend, BrowserBackend], v: View) -> tuple[Any, np.ndarray, np.ndarray, Any]:
    """``v`` laid out and shown on both renderers: ``(layout, mock shot, browser shot, background)``."""
    lay = layout(v, W, H)
    m, b = renderers
    m.show(v, lay)
    b.show(v, lay)
    return lay, m.screenshot(), b.screenshot(), theme_of(v).bg


def test_text_runs_as_wide_in_both_renderers(renderers: tuple[MockBackend, BrowserBackend]) -> None:
    """Text is drawn from the mock's own font file in the browser too (pygame's FreeSansBold),
    so a line ends where the mock's ends: with another face (the system's DejaVu Sans Bold,
    ~14% wider) a list row's text ran under its chevron or was clipped in the browser where the
    mock showed it whole (Mail's inbox rows at font scale 1.15: "Lunch on Satu", "from K")."""
    from guigym.apps.base import Widget

    texts = ["Quentin Anderson · Lunch on Saturday", "Yvonne Anderson · Order 4312 shipped", "Sybil Hill · Budget report", "Wi-Fi"]
    rows = [Widget(f"l{i}", "label", s, style=style) for i, s in enumerate(texts) for style in (None, "heading", "muted")]
    lay, a, c, bg = _show_both(renderers, View("app", "main", "Inbox", rows))
    for w, box in lay.visible:
        ia, ic = ink_box(a, box, bg), ink_box(c, box, bg)
        assert ia is not None and ic is not None, w.id
        # where the line ends: measured within 2% of its width (hinted advances); ~14% off before
        assert abs(ia[2] - ic[2]) <= 2 + 0.03 * (ia[2] - ia[0]) and abs(ia[0] - ic[0]) <= 2, (w.label, w.style, ia, ic)


def columns_alike(a: np.ndarray, c: np.ndarray, box: Box, bg: tuple[int, int, int]) -> float:
    """Correlation of the two pictures' ink per column in ``box`` (its outline left out),
    smoothed over 9 px: the same words at the same place score high (measured >= 0.66),
    other words there (another part of the same text) near 0 (measured <= 0.24)."""
    x0, y0, x1, y1 = box
    k = np.ones(9) / 9
    pa, pc = (np.convolve((np.abs(img[y0 + 3:y1 - 2, x0 + 3:x1 - 2].astype(np.int16) - np.array(bg, np.int16)).max(-1)
                           > INK_TOL).sum(0).astype(float), k, "same") for img in (a, c))
    return float(np.corrcoef(pa, pc)[0, 1])


def test_centred_text_wider_than_its_box_shows_the_same_part(renderers: tuple[MockBackend, BrowserBackend]) -> None:
    """A centred run wider than its box (a long button label: the adversarial "Skip this: it is
    done automatically" on a phone, German dialog buttons and Mail's tabs at font scale 1.3)
    overflows on both sides in both renderers, so the same middle part shows; the browser drew
    it from the box's left edge (the text's start, where the mock shows its middle), a clipped
    one (a tab) too."""
    from guigym.apps.base import Widget

    rows = [
        Widget("b2", "button", "Skip this: it is done automatically, no need to do anything"),
        Widget("b3", "button", "Nicht erlauben, niemals, auf gar keinen Fall, nie"),
        Widget("c", "label", "", value="A centred caption that is far too long for its box", style="center"),
        Widget("tabs", "label", "", cells=[Widget("t1", "button", "Posteingang und Archiv", style="tab-on"),
                                           Widget("t2", "button", "Papierkorb und Entwürfe", style="tab")]),
    ]
    lay, a, c, bg = _show_both(renderers, View("app", "main", "Overflow", rows))
    alike = {w.id: round(columns_alike(a, c, box, bg), 2) for w, box in lay.visible}
    assert alike.keys() >= {"b2", "b3", "c", "t1", "t2"}, alike
    assert min(alike.values()) >= 0.5, alike


@pytest.mark.parametrize("viewport", ["portrait", "landscape", "small", "tablet"])
def test_a_dialog_over_the_home_screen_draws_alike(viewport: str) -> None:
    """A pop-up over a home screen (no title bar): both renderers draw the dimmed icons up to the
    status bar. The browser clipped them below a title bar's place, and both drew a title bar the
    home screen has not (agreement 0.46-0.77 in the band under the status bar)."""
    from guigym.layout import STATUS_H, TITLE_H

    kw = dict(variation={"popup": "rate", "popup_at": 0}, viewport=viewport, disable_env_checker=True)
    m, b = gym.make("GuiGym-Launcher-v0", **kw), gym.make("GuiGym-Launcher-v0", backend="browser", **kw)
    try:
        om, _ = m.reset(seed=0)
        ob, _ = b.reset(seed=0)
        assert m.unwrapped.current_view.backdrop is not None and m.unwrapped.current_view.backdrop.grid
        band = slice(STATUS_H, STATUS_H + TITLE_H)
        assert agreement(om["screenshot"][band], ob["screenshot"][band]) >= 0.95, viewport
        assert agreement(om["screenshot"], ob["screenshot"]) >= 0.95, viewport
    finally:
        m.close()
        b.close()
