"""The mock backend: draws views with pygame into a numpy buffer, hit-tests with the
shared layout. Headless (no display needed), deterministic pixels, thousands of frames/s.

pygame is pinned (not pygame-ce) because the two draw different pixels.
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
import pygame

from guigym.actions import Action
from guigym.apps.base import View, Widget
from guigym.apps.family import DEFAULT_THEME as _DEFAULT_THEME
from guigym.backends.base import Backend, event_for
from guigym.events import Event
from guigym.layout import STATUS_H, TITLE_H, Box, Layout

Color = tuple[int, int, int]


class _Text:
    """Font and rendered-text caches (text rendering dominates drawing time)."""

    def __init__(self) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self.fonts: dict[tuple[int, bool], pygame.font.Font] = {}
        self.cache: dict[tuple[str, int, bool, Color], pygame.Surface] = {}

    def render(self, text: str, size: int, color: Color, bold: bool = False) -> pygame.Surface:
        key = (text, size, bold, color)
        surf = self.cache.get(key)
        if surf is None:
            font = self.fonts.get((size, bold))
            if font is None:
                font = pygame.font.Font(None, size)
                font.set_bold(bold)
                self.fonts[(size, bold)] = font
            if len(self.cache) > 4096:
                self.cache.clear()
            surf = font.render(text, True, color)
            self.cache[key] = surf
        return surf


def _c(v: Any) -> Color:
    return (int(v[0]), int(v[1]), int(v[2]))


def _mix(a: Color, b: Color, t: float) -> Color:
    return (int(a[0] + (b[0] - a[0]) * t), int(a[1] + (b[1] - a[1]) * t), int(a[2] + (b[2] - a[2]) * t))


class MockBackend(Backend):
    """pygame renderer. ``show`` draws immediately into a reused buffer; ``screenshot``
    returns a copy."""

    name = "mock"

    def __init__(self, width: int, height: int, **kwargs: Any) -> None:
        super().__init__(width, height)
        if kwargs:
            raise TypeError(f"the mock backend takes no options, got {sorted(kwargs)}")
        self._arr = np.zeros((height, width, 3), dtype=np.uint8)
        self._surf = pygame.image.frombuffer(self._arr, (width, height), "RGB")
        self._text = _Text()
        self._tiles: dict[tuple[Any, ...], pygame.Surface] = {}
        self._view: View | None = None
        self._lay: Layout | None = None

    # --- Backend API -------------------------------------------------------------------
    def show(self, v: View, lay: Layout) -> None:
        self._view, self._lay = v, lay
        self._draw(v, lay)

    def screenshot(self) -> np.ndarray:
        return self._arr.copy()

    def perform(self, action: Action) -> tuple[Event | None, str | None]:
        assert self._view is not None and self._lay is not None, "show() a view first"
        return event_for(action, self._view, self._lay)

    def boxes(self) -> dict[str, Box]:
        return {w.id: b for w, b in self._lay.visible} if self._lay else {}

    def close(self) -> None:
        self._view = self._lay = None

    # --- drawing -----------------------------------------------------------------------
    def _draw(self, v: View, lay: Layout) -> None:
        th = {**_DEFAULT_THEME, **v.theme}
        bg, primary, on_primary = _c(th["bg"]), _c(th["primary"]), _c(th["on_primary"])
        s, W = self._surf, self.width
        s.fill(bg)
        s.fill(_mix(primary, (0, 0, 0), 0.25), (0, 0, W, STATUS_H))
        s.blit(self._text.render("12:00", 18, on_primary), (W - 48, 5))
        if v.grid:
            self._draw_home(v, lay, th)
            return
        s.fill(primary, (0, STATUS_H, W, TITLE_H))
        s.blit(self._text.render(v.title, 30, on_primary, bold=True), (16, STATUS_H + 17))
        for w, box in lay.visible:
            self._blit_widget(w, box, th, bg, focused=w.id == v.focus)
        if lay.max_scroll > 0:  # scrollbar
            body_h = self.height - STATUS_H - TITLE_H
            n = lay.max_scroll + lay.n_visible
            h = max(12, body_h * lay.n_visible // n)
            y = STATUS_H + TITLE_H + (body_h - h) * min(v.scroll, lay.max_scroll) // max(1, lay.max_scroll)
            pygame.draw.rect(s, _c(th["muted"]), (W - 5, y, 3, h))

    def _draw_home(self, v: View, lay: Layout, th: dict[str, Any]) -> None:
        s = self._surf
        text = _c(th["text"])
        for w, (x0, y0, x1, y1) in lay.visible:
            cx = (x0 + x1) // 2
            col = _c(w.value) if w.value else _c(th["primary"])
            pygame.draw.rect(s, col, (cx - 28, y0 + 4, 56, 56), border_radius=14)
            letter = self._text.render(w.label[:1].upper(), 34, (255, 255, 255), bold=True)
            s.blit(letter, (cx - letter.get_width() // 2, y0 + 32 - letter.get_height() // 2))
            lab = self._text.render(w.label, 18, text)
            s.blit(lab, (cx - lab.get_width() // 2, y0 + 66))
        if v.pages > 1:
            y = self.height - 28
            x = self.width // 2 - (v.pages - 1) * 9
            for p in range(v.pages):
                pygame.draw.circle(s, _c(th["primary"]) if p == v.page else _c(th["muted"]), (x + p * 18, y), 5 if p == v.page else 3)

    def _blit_widget(self, w: Widget, box: Box, th: dict[str, Any], bg: Color, focused: bool) -> None:
        """Draw a widget once into a cached tile (keyed by everything that changes its look),
        then blit the tile: most frames reuse every tile."""
        x0, y0, x1, y1 = box
        bw, bh = x1 - x0 + 1, y1 - y0 + 1
        key = (w.kind, w.label, str(w.value), w.placeholder, w.secret, w.style, w.detail, focused, bw, bh, tuple(th["primary"]), bg)
        tile = self._tiles.get(key)
        if tile is None:
            if len(self._tiles) > 512:
                self._tiles.clear()
            tile = pygame.Surface((bw, bh + 7), 0, self._surf)  # same pixel format: fast blits
            tile.fill(bg)
            self._draw_widget(tile, w, (0, 0, bw - 1, bh - 1), th, focused)
            self._tiles[key] = tile
        self._surf.blit(tile, (x0, y0))

    def _draw_widget(self, s: pygame.Surface, w: Widget, box: Box, th: dict[str, Any], focused: bool) -> None:
        T = self._text
        x0, y0, x1, y1 = box
        bw, bh = x1 - x0 + 1, y1 - y0 + 1
        text, muted, primary = _c(th["text"]), _c(th["muted"]), _c(th["primary"])
        surface = _c(th["surface"])
        cy = (y0 + y1) // 2
        k = w.kind
        if k == "label":
            color = _c(th["error"]) if w.style == "error" else muted if w.style == "muted" else text
            size = 30 if w.style == "heading" else 22
            t = T.render(str(w.value) if w.value else w.label, size, color, bold=w.style == "heading")
            s.blit(t, (x0, cy - t.get_height() // 2))
        elif k == "button":
            if w.style == "primary":
                pygame.draw.rect(s, primary, (x0, y0, bw, bh), border_radius=8)
                t = T.render(w.label, 24, _c(th["on_primary"]), bold=True)
            else:
                pygame.draw.rect(s, surface, (x0, y0, bw, bh), border_radius=8)
                pygame.draw.rect(s, muted, (x0, y0, bw, bh), width=1, border_radius=8)
                t = T.render(w.label, 24, primary)
            s.blit(t, (x0 + (bw - t.get_width()) // 2, cy - t.get_height() // 2))
        elif k == "input":
            pygame.draw.rect(s, surface, (x0, y0, bw, bh), border_radius=4)
            pygame.draw.rect(s, primary if focused else muted, (x0, y0, bw, bh), width=2 if focused else 1, border_radius=4)
            s.blit(T.render(w.label, 16, primary if focused else muted), (x0 + 8, y0 + 4))
            val = str(w.value or "")
            if val:
                t = T.render("\u2022" * len(val) if w.secret else val, 22, text)
            else:
                t = T.render(w.placeholder, 22, _mix(muted, surface, 0.4))
            s.blit(t, (x0 + 8, y0 + 20), area=pygame.Rect(0, 0, bw - 16, bh))
        elif k in ("checkbox", "radio"):
            on = bool(w.value)
            if k == "checkbox":
                pygame.draw.rect(s, primary if on else muted, (x0 + 2, cy - 10, 20, 20), width=0 if on else 2, border_radius=3)
                if on:
                    pygame.draw.lines(s, (255, 255, 255), False, [(x0 + 6, cy), (x0 + 10, cy + 5), (x0 + 18, cy - 5)], 3)
            else:
                pygame.draw.circle(s, primary if on else muted, (x0 + 12, cy), 10, width=2)
                if on:
                    pygame.draw.circle(s, primary, (x0 + 12, cy), 5)
            t = T.render(w.label, 22, text)
            s.blit(t, (x0 + 34, cy - t.get_height() // 2))
        elif k == "toggle":
            on = bool(w.value)
            t = T.render(w.label, 22, text)
            if w.detail:  # a second line, e.g. an alarm's repeat days
                s.blit(t, (x0, y0 + 4))
                s.blit(T.render(w.detail, 17, muted), (x0, y0 + 24))
            else:
                s.blit(t, (x0, cy - t.get_height() // 2))
            tx = x1 - 44
            pygame.draw.rect(s, _mix(primary, (255, 255, 255), 0.45) if on else _mix(muted, (255, 255, 255), 0.5), (tx, cy - 9, 40, 18), border_radius=9)
            pygame.draw.circle(s, primary if on else (250, 250, 250), (tx + 30 if on else tx + 10, cy), 11)
            pygame.draw.circle(s, muted, (tx + 30 if on else tx + 10, cy), 11, width=1)
        elif k == "link":
            t = T.render(w.label, 22, primary if not w.detail else text)
            if w.detail:
                s.blit(t, (x0, y0 + 4))
                s.blit(T.render(w.detail, 17, muted), (x0, y0 + 24))
            else:
                s.blit(t, (x0, cy - t.get_height() // 2))
            ch = T.render(">", 24, muted)
            s.blit(ch, (x1 - ch.get_width(), cy - ch.get_height() // 2))
        if k in ("toggle", "link"):  # list divider
            pygame.draw.line(s, _mix(surface, muted, 0.15), (x0, y1 + 6), (x1, y1 + 6))
