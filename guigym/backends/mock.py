"""The mock backend: draws the display list (:mod:`guigym.display`) with pygame into a numpy
buffer, hit-tests with the shared layout. Headless (no display needed), deterministic pixels,
thousands of frames/s.

pygame is pinned (not pygame-ce) because the two draw different pixels.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import Any

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np
import pygame

from guigym.actions import Action
from guigym.apps.base import View
from guigym.backends.base import Backend, event_for
from guigym.display import BLACK, PX_PER_SIZE, Color, Record, display_list
from guigym.events import Event
from guigym.fonts import font_path
from guigym.layout import Box, Layout


#: Most bytes of rendered text the mock keeps cached per backend (least recently used dropped
#: first): long typed values render wide surfaces, so an entry count alone would not bound it.
TEXT_CACHE_BYTES = 64 << 20
TEXT_CACHE_ENTRIES = 8192  # the byte budget binds first under variation (fonts x scales x colours)
#: The same for the widget tiles (drawn once, then blitted), least recently used dropped first.
TILE_CACHE_BYTES = 64 << 20
TILE_CACHE_ENTRIES = 2048  # the byte budget binds first (tiles are ~40-60 KiB)
#: The same for text composited onto a plain colour (what a text blended onto a tile's
#: background or a button's fill gives, kept opaque so that drawing it again is a copy).
BLEND_CACHE_BYTES = 32 << 20
BLEND_CACHE_ENTRIES = 8192
#: Backgrounds kept (the screen's records before its first widget: colour, status bar, title
#: bar), least recently used dropped first: each as its colour and the band of rows its bars
#: drew (the rest of the frame is the plain colour), so many fit in the memory of a few frames.
#: A frame starts as a copy of its plain colour with the band copied in: two memcpys instead
#: of a 24-bit fill and the bars.
BACKGROUND_ENTRIES = 256
#: At most this many frames' worth of bytes in the bands (a band may be a whole frame).
BACKGROUND_FRAMES = 16
#: Plain frames kept, one per background colour (a theme has one; a dialog's backdrop, a dimmed one).
PLAIN_ENTRIES = 16


class _Text:
    """Font and rendered-text caches (text rendering dominates drawing time), bounded by
    :data:`TEXT_CACHE_BYTES` and :data:`TEXT_CACHE_ENTRIES` (LRU; a cached surface is the one
    a fresh render would give, so eviction never changes a pixel)."""

    def __init__(self, max_bytes: int = TEXT_CACHE_BYTES, max_entries: int = TEXT_CACHE_ENTRIES) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self.fonts: dict[tuple[int, bool, str | None], pygame.font.Font] = {}
        self.cache: OrderedDict[tuple[str, int, bool, Color, str | None], pygame.Surface] = OrderedDict()
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self.nbytes = 0  # pixel bytes of the cached surfaces

    def render(self, text: str, size: int, color: Color, bold: bool = False, face: str | None = None) -> pygame.Surface:
        """``text`` drawn at nominal ``size``: in pygame's default font, or in the bundled font
        ``face`` (:mod:`guigym.fonts`) at the record's pixel size (``size`` x
        :data:`~guigym.display.PX_PER_SIZE`, the scaling pygame applies to its default font)."""
        key = (text, size, bold, color, face)
        surf = self.cache.get(key)
        if surf is not None:
            self.cache.move_to_end(key)
            return surf
        font = self.fonts.get((size, bold, face))
        if font is None:
            font = pygame.font.Font(None, size) if face is None else pygame.font.Font(font_path(face), int(size * PX_PER_SIZE))
            font.set_bold(bold)
            self.fonts[(size, bold, face)] = font
        try:
            surf = font.render(text, True, color)
        except pygame.error:  # a text that draws nothing ("Text has zero width": a lone soft hyphen)
            surf = pygame.Surface((1, font.get_height()), pygame.SRCALPHA)
        n = _nbytes(surf)
        if n <= self.max_bytes:
            while self.cache and (self.nbytes + n > self.max_bytes or len(self.cache) >= self.max_entries):
                self.nbytes -= _nbytes(self.cache.popitem(last=False)[1])
            self.cache[key] = surf
            self.nbytes += n
        return surf


def _nbytes(surf: pygame.Surface) -> int:
    return surf.get_pitch() * surf.get_height()


class MockBackend(Backend):
    """pygame renderer. ``show`` draws immediately into a reused buffer; ``screenshot``
    returns a copy."""

    name = "mock"

    def __init__(self, width: int, height: int, **kwargs: Any) -> None:
        super().__init__(width, height)
        if kwargs:
            raise TypeError(f"the mock backend takes no options, got {sorted(kwargs)}")
        # Every frame is drawn into a new array, so the first screenshot of a frame can hand
        # it over without a copy (the backend never draws into it again).
        self._arr = np.zeros((height, width, 3), dtype=np.uint8)
        self._handed_out = False
        self._text = _Text()
        self._blends: OrderedDict[tuple[Any, ...], pygame.Surface] = OrderedDict()
        self._blend_bytes = 0
        self._tiles: OrderedDict[int, tuple[list[Record], pygame.Surface]] = OrderedDict()
        self._tile_bytes = 0
        self._plains: dict[tuple[int, ...], np.ndarray] = {}
        self._backgrounds: OrderedDict[tuple[int, ...], tuple[list[Record], Color, np.ndarray]] = OrderedDict()
        self._background_bytes = 0
        self._view: View | None = None
        self._lay: Layout | None = None

    # --- Backend API -------------------------------------------------------------------
    def show(self, v: View, lay: Layout) -> None:
        self._view, self._lay = v, lay
        self._draw(v, lay)

    def reshow(self, v: View, lay: Layout, frame: np.ndarray) -> None:
        """``show(v, lay)`` for a frame drawn before, ``frame`` (what ``screenshot`` gave then):
        nothing is drawn, and ``screenshot`` hands out copies of it (its holder keeps it as is)."""
        self._view, self._lay = v, lay
        self._arr, self._handed_out = frame, True

    def screenshot(self) -> np.ndarray:
        if self._handed_out:
            return self._arr.copy()
        self._handed_out = True
        return self._arr

    def perform(self, action: Action) -> tuple[Event | None, str | None]:
        assert self._view is not None and self._lay is not None, "show() a view first"
        return event_for(action, self._view, self._lay)

    def boxes(self) -> dict[str, Box]:
        return {w.id: b for w, b in self._lay.visible} if self._lay else {}

    def close(self) -> None:
        self._view = self._lay = None

    # --- drawing -----------------------------------------------------------------------
    def _background(self, head: list[Record]) -> np.ndarray:
        """A new frame holding ``head`` (records before the first widget) drawn on black,
        from the background cache (keyed by the records: memoised, so the same objects on
        every frame of a screen, and held by the cache so their ids stay theirs)."""
        key = tuple(map(id, head))
        hit = self._backgrounds.get(key)
        if hit is not None:
            self._backgrounds.move_to_end(key)
            arr = self._plain(hit[1]).copy()
            arr[: len(hit[2])] = hit[2]
            return arr
        if head and head[0]["type"] == "rect" and self._covers(head[0]):  # the usual start: one colour
            color, head_rest = tuple(head[0]["color"]), head[1:]
        else:
            color, head_rest = BLACK, head  # black: what a zeroed frame is
        arr = self._plain(color).copy()
        s = pygame.image.frombuffer(arr, (self.width, self.height), "RGB")
        bottom = 0  # the rows below it are the plain colour's
        for r in head_rest:
            bottom = max(bottom, self._paint(s, r, 0, 0))
        band = arr[: min(max(bottom, 0), self.height)].copy()
        budget = BACKGROUND_FRAMES * self.width * self.height * 3
        while self._backgrounds and (len(self._backgrounds) >= BACKGROUND_ENTRIES or self._background_bytes + band.nbytes > budget):
            self._background_bytes -= self._backgrounds.popitem(last=False)[1][2].nbytes
        self._backgrounds[key] = (head, color, band)
        self._background_bytes += band.nbytes
        return arr

    def _covers(self, r: Record) -> bool:
        """Whether the rect record ``r`` is one plain fill of the whole screen."""
        return list(r["box"]) == [0, 0, self.width, self.height] and not r["radius"] and not r["border"]

    def _plain(self, color: Color) -> np.ndarray:
        """A screen filled with ``color`` by pygame (kept per colour: a theme has one background)."""
        key = tuple(color)
        arr = self._plains.get(key)
        if arr is None:
            if len(self._plains) >= PLAIN_ENTRIES:
                self._plains.clear()
            arr = self._plains[key] = np.zeros((self.height, self.width, 3), dtype=np.uint8)
            pygame.image.frombuffer(arr, (self.width, self.height), "RGB").fill(color)
        return arr

    def _draw(self, v: View, lay: Layout) -> None:
        items = display_list(v, lay)
        n = next((i for i, r in enumerate(items) if r["type"] == "widget"), len(items))
        self._arr, self._handed_out = self._background(items[:n]), False
        s, tiles = pygame.image.frombuffer(self._arr, (self.width, self.height), "RGB"), self._tiles
        for r in items[n:]:
            if r["type"] != "widget":
                self._paint(s, r, 0, 0)
                continue
            ps = r["parts"]
            if r["clip"] is None:  # drawn in place, free to overflow its box
                for p in ps:
                    self._paint(s, p, r["box"][0], r["box"][1])
                continue
            # Drawn once into a cached tile, then blitted: most frames reuse every tile. Parts
            # are memoised by look (guigym.display.parts), so the list itself is the key (held
            # in the cache, so its id cannot be reused while cached).
            hit = tiles.get(id(ps))
            if hit is None or hit[0] is not ps:
                spare = None  # an evicted tile of the same size is filled anew instead of allocating one
                if hit is not None:  # a stale entry (another list got the id): replaced below
                    spare = tiles.pop(id(ps))[1]
                    self._tile_bytes -= _nbytes(spare)
                while len(tiles) >= TILE_CACHE_ENTRIES:
                    spare = tiles.popitem(last=False)[1][1]  # least recently used first
                    self._tile_bytes -= _nbytes(spare)
                w, h = r["clip"]
                # same pixel format as the frame: fast blits
                tile = spare if spare is not None and spare.get_size() == (w, h) else pygame.Surface((w, h), 0, s)
                n = _nbytes(tile)
                while tiles and self._tile_bytes + n > TILE_CACHE_BYTES:
                    self._tile_bytes -= _nbytes(tiles.popitem(last=False)[1][1])
                tile.fill(r["bg"])
                self._paint_tile(tile, ps, r["bg"])
                hit = tiles[id(ps)] = (ps, tile)
                self._tile_bytes += n
            else:
                tiles.move_to_end(id(ps))
            s.blit(hit[1], (r["box"][0], r["box"][1]))

    def _paint_tile(self, s: pygame.Surface, parts: list[Record], bg: Color) -> None:
        """Paint ``parts`` on a new tile ``s`` filled with ``bg``. A text that lands on one plain
        colour (the tile's, or a fill's that holds it whole, nothing else painted under it) is
        drawn as a copy of that text already blended onto that colour (:meth:`_blend`): the same
        pixels, since alpha blending is per pixel, at a fraction of the cost (blending onto a
        24-bit surface is pygame's slow path, ~25 us a label, and most labels recur)."""
        done: list[tuple[Any, ...]] = []  # what is painted so far, as _under reads it
        for p in parts:
            if p["type"] != "text" or not p["text"] or (p["clip"] is not None and p["clip"] <= 0):
                self._paint(s, p, 0, 0)
                done.append(_region(p, s))
                continue
            img, x, y = self._place(p, 0, 0)
            w, h = img.get_width() if p["clip"] is None else min(p["clip"], img.get_width()), img.get_height()
            color = _under(done, (x, y, w, h), bg)
            if color is None:
                s.blit(img, (x, y), area=pygame.Rect(0, 0, w, h))
            else:
                s.blit(self._blend(p, img, w, color, s), (x, y))
            done.append(("box", (x, y, w, h)))

    def _blend(self, r: Record, img: pygame.Surface, w: int, color: Color, s: pygame.Surface) -> pygame.Surface:
        """The first ``w`` columns of the text ``img`` (of record ``r``) blended onto ``color``,
        opaque, in ``s``'s pixel format: pygame's own blit onto a surface of that colour (LRU,
        :data:`BLEND_CACHE_BYTES`)."""
        key = (r["text"], r["size"], r["bold"], r["color"], r.get("font"), tuple(color), w)
        out = self._blends.get(key)
        if out is not None:
            self._blends.move_to_end(key)
            return out
        out = pygame.Surface((w, img.get_height()), 0, s)
        out.fill(color)
        out.blit(img, (0, 0), area=pygame.Rect(0, 0, w, img.get_height()))
        n = _nbytes(out)
        while self._blends and (self._blend_bytes + n > BLEND_CACHE_BYTES or len(self._blends) >= BLEND_CACHE_ENTRIES):
            self._blend_bytes -= _nbytes(self._blends.popitem(last=False)[1])
        self._blends[key] = out
        self._blend_bytes += n
        return out

    def _place(self, r: Record, ox: int, oy: int) -> tuple[pygame.Surface, int, int]:
        """The text record ``r`` rendered, and where its top-left corner goes, offset by ``(ox, oy)``."""
        img = self._text.render(r["text"], r["size"], r["color"], r["bold"], r.get("font"))
        x, y = r["x"] + ox, r["y"] + oy
        if r["align"] == "center":
            x = x + (r["w"] - img.get_width()) // 2 if r["w"] is not None else x - img.get_width() // 2
        elif r["align"] == "right":
            x -= img.get_width()
        if r["valign"] == "middle":
            y -= img.get_height() // 2
        return img, x, y

    def _paint(self, s: pygame.Surface, r: Record, ox: int, oy: int) -> int:
        """Draw one primitive record offset by ``(ox, oy)``; returns the row below the lowest
        it may have drawn on (the surface's height when that is not sure)."""
        t = r["type"]
        if t == "text":
            if not r["text"]:
                return 0
            img, x, y = self._place(r, ox, oy)
            if r["clip"] is None:
                s.blit(img, (x, y))
            else:
                s.blit(img, (x, y), area=pygame.Rect(0, 0, r["clip"], img.get_height()))
            return y + img.get_height()
        if t == "rect":
            x, y, w, h = r["box"]
            rad, border = r["radius"], r["border"]
            x, y = x + ox, y + oy
            if rad and 2 * max(rad, border) <= min(w, h) and _inside(s, x, y, w, h):  # pygame's, from fills and corners
                _round_rect(s, r["color"], x, y, w, h, border, rad)
                return y + h
            if rad or border:  # a thick outline of a thin box spills off it
                pygame.draw.rect(s, r["color"], (x, y, w, h), width=border, border_radius=rad)
                return s.get_height()
            s.fill(r["color"], (x, y, w, h))
            return y + max(h, 0)
        if t == "circle":
            pygame.draw.circle(s, r["color"], (r["center"][0] + ox, r["center"][1] + oy), r["r"], width=r["border"])
        elif t == "lines":
            pygame.draw.lines(s, r["color"], False, [(x + ox, y + oy) for x, y in r["points"]], r["width"])
        return s.get_height()


def _exact_round(s: pygame.Surface, r: Record) -> bool:
    """Whether :meth:`MockBackend._paint` draws the rounded rect record ``r`` with
    :func:`_round_rect` (its corners exactly ``radius`` square, nothing outside its box)."""
    x, y, w, h = r["box"]
    return 2 * max(r["radius"], r["border"]) <= min(w, h) and _inside(s, x, y, w, h)


def _region(r: Record, s: pygame.Surface) -> tuple[Any, ...]:
    """What painting record ``r`` on ``s`` may have changed, for :func:`_under`: ``("fill",
    box, colour, corner)`` (every pixel of ``box`` is ``colour`` but in its corner squares),
    ``("frame", box, border, corner)`` (nothing inside the border but in the corner squares),
    or ``("box", box)`` (anything inside ``box``); ``("all",)`` when that is not sure."""
    t = r["type"]
    if t == "rect":
        x, y, w, h = r["box"]
        if w <= 0 or h <= 0:
            return ("all",)
        rad, border = r["radius"], r["border"]
        if not rad and not border:
            return ("fill", (x, y, w, h), tuple(r["color"]), 0)
        if not _exact_round(s, r):
            return ("box", (x, y, w, h))
        return ("frame", (x, y, w, h), border, rad) if border else ("fill", (x, y, w, h), tuple(r["color"]), rad)
    if t == "circle":
        (cx, cy), rr = r["center"], r["r"]
        return ("box", (cx - rr - 1, cy - rr - 1, 2 * rr + 3, 2 * rr + 3))
    if t == "lines" and r["points"]:
        xs, ys, pad = [p[0] for p in r["points"]], [p[1] for p in r["points"]], r["width"] + 2
        return ("box", (min(xs) - pad, min(ys) - pad, max(xs) - min(xs) + 2 * pad + 1, max(ys) - min(ys) + 2 * pad + 1))
    if t == "text" and not r["text"]:
        return ("box", (0, 0, 0, 0))
    return ("all",)


def _meets(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _holds(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    """Whether box ``a`` contains box ``b``."""
    return a[0] <= b[0] and a[1] <= b[1] and b[0] + b[2] <= a[0] + a[2] and b[1] + b[3] <= a[1] + a[3]


def _corners_meet(box: tuple[int, int, int, int], rad: int, t: tuple[int, int, int, int]) -> bool:
    x, y, w, h = box
    return rad > 0 and any(_meets((cx, cy, rad, rad), t) for cx in (x, x + w - rad) for cy in (y, y + h - rad))


def _under(done: list[tuple[Any, ...]], t: tuple[int, int, int, int], base: Color) -> Color | None:
    """The one colour every pixel of box ``t`` has after painting ``done`` (the regions of
    :func:`_region`, in order) on a surface of colour ``base``; None when that is not sure."""
    for reg in reversed(done):
        kind = reg[0]
        if kind == "all":
            return None
        if kind == "fill":
            _, box, color, rad = reg
            if _holds(box, t) and not _corners_meet(box, rad, t):
                return color
            if _meets(box, t):
                return None
        elif kind == "frame":
            _, (x, y, w, h), b, rad = reg
            inner = (x + b, y + b, w - 2 * b, h - 2 * b)
            if _meets((x, y, w, h), t) and (not _holds(inner, t) or _corners_meet((x, y, w, h), rad, t)):
                return None
        elif _meets(reg[1], t):
            return None
    return base


#: Most corner sets :func:`_round_rect` keeps (four ``radius`` x ``radius`` stamps each; a theme
#: has a few colours and the painters a few radii); cleared when full.
CORNER_ENTRIES = 512
_CORNERS: dict[tuple[Any, ...], list[pygame.Surface]] = {}


def _corners(s: pygame.Surface, color: Color, border: int, rad: int) -> list[pygame.Surface]:
    """The four corners (top-left, top-right, bottom-left, bottom-right; ``rad`` x ``rad``) of a
    rounded rect in ``color`` drawn by pygame (filled, or an outline ``border`` thick), in the
    pixel format of ``s``, the pixels it leaves transparent (a colour key): cut from one
    rect drawn just large enough."""
    c = (int(color[0]), int(color[1]), int(color[2]))
    key = (c, border, rad, s.get_bitsize(), s.get_masks())
    hit = _CORNERS.get(key)
    if hit is None:
        clear = (c[0] ^ 1, c[1], c[2])  # any colour but the rect's
        n = 2 * (rad + border) + 4
        ref = pygame.Surface((n, n), 0, s)
        ref.fill(clear)
        pygame.draw.rect(ref, c, (0, 0, n, n), width=border, border_radius=rad)
        hit = []
        for cx, cy in ((0, 0), (n - rad, 0), (0, n - rad), (n - rad, n - rad)):
            corner = pygame.Surface((rad, rad), 0, s)
            corner.blit(ref, (0, 0), (cx, cy, rad, rad))
            corner.set_colorkey(clear)
            hit.append(corner)
        if len(_CORNERS) >= CORNER_ENTRIES:
            _CORNERS.clear()
        _CORNERS[key] = hit
    return hit


def _inside(s: pygame.Surface, x: int, y: int, w: int, h: int) -> bool:
    """Whether the box lies on ``s`` whole (pygame rounds the corners of a rect it clips elsewhere)."""
    sw, sh = s.get_size()
    return x >= 0 and y >= 0 and x + w <= sw and y + h <= sh


def _round_rect(s: pygame.Surface, color: Color, x: int, y: int, w: int, h: int, border: int, rad: int) -> None:
    """``pygame.draw.rect(s, color, (x, y, w, h), width=border, border_radius=rad)``, pixel for
    pixel, for ``2 * max(rad, border) <= min(w, h)`` (pygame shrinks no radius then) and a box
    on ``s`` whole (:func:`_inside`; pygame draws a clipped one otherwise): the
    straight parts filled, the corners blitted from :func:`_corners` (a rounded rect's pixels
    are all ``color``, and its corners the same at any size). A fraction of the time of
    pygame's, which draws the corner circles anew (a dialog's panel: ~6x); tests/test_mock_cache.py
    compares the two over sizes, radii and borders."""
    tl, tr, bl, br = _corners(s, color, border, rad)
    if border:
        s.fill(color, (x + rad, y, w - 2 * rad, border))
        s.fill(color, (x + rad, y + h - border, w - 2 * rad, border))
        s.fill(color, (x, y + rad, border, h - 2 * rad))
        s.fill(color, (x + w - border, y + rad, border, h - 2 * rad))
    else:
        s.fill(color, (x + rad, y, w - 2 * rad, h))
        s.fill(color, (x, y + rad, rad, h - 2 * rad))
        s.fill(color, (x + w - rad, y + rad, rad, h - 2 * rad))
    s.blit(tl, (x, y))
    s.blit(tr, (x + w - rad, y))
    s.blit(bl, (x, y + h - rad))
    s.blit(br, (x + w - rad, y + h - rad))
