"""The mock backend: draws the display list (:mod:`guigym.display`) with pygame into a numpy
buffer, hit-tests with the shared layout. Headless (no display needed), deterministic pixels,
thousands of frames/s.

pygame is pinned (not pygame-ce) because the two draw different pixels.
"""

from __future__ import annotations

import os
import threading
import weakref
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


#: Most bytes of rendered text the mock keeps cached per process and viewport size (least
#: recently used dropped first; every mock env of that size in the process shares the caches,
#: see :class:`_Caches`): long typed values render wide surfaces, so an entry count alone would
#: not bound it.
TEXT_CACHE_BYTES = 64 << 20
TEXT_CACHE_ENTRIES = 8192  # the byte budget binds first under variation (fonts x scales x colours)
#: Fonts (size, weight, face) a text cache keeps open, least recently used closed first: each
#: holds its file open. The variation axes use ~80 (24,000 resets of ``variation="all"``).
FONT_ENTRIES = 128
#: The same for the widget tiles (drawn once, then blitted), least recently used dropped first.
TILE_CACHE_BYTES = 64 << 20
TILE_CACHE_ENTRIES = 2048  # the byte budget binds first (tiles are ~40-60 KiB)
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
    :data:`TEXT_CACHE_BYTES` and :data:`TEXT_CACHE_ENTRIES`, the fonts by :data:`FONT_ENTRIES`
    (LRU; a cached surface is the one a fresh render would give, and a font opened again the
    same font, so eviction never changes a pixel)."""

    def __init__(self, max_bytes: int = TEXT_CACHE_BYTES, max_entries: int = TEXT_CACHE_ENTRIES,
                 max_fonts: int = FONT_ENTRIES) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self.fonts: dict[tuple[int, bool, str | None], pygame.font.Font] = {}
        self.max_fonts = max_fonts
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
        font = self._font(size, bold, face)
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

    def _font(self, size: int, bold: bool, face: str | None) -> pygame.font.Font:
        """The font (made on first use, kept among the :data:`FONT_ENTRIES` last used)."""
        key = (size, bold, face)
        font = self.fonts.pop(key, None)  # re-inserted last: the dict's order is least recently used first
        if font is None:
            font = pygame.font.Font(None, size) if face is None else pygame.font.Font(font_path(face), int(size * PX_PER_SIZE))
            font.set_bold(bold)
            while len(self.fonts) >= self.max_fonts:
                del self.fonts[next(iter(self.fonts))]  # its file is closed when pygame frees it
        self.fonts[key] = font
        return font


def _nbytes(surf: pygame.Surface) -> int:
    return surf.get_pitch() * surf.get_height()


class _Caches:
    """The drawing caches (rendered text, widget tiles, plain frames, backgrounds) that every
    mock backend of one viewport size in a process shares: envs of the same app family draw
    the same tiles, so several envs in one process (a vector env's worker, ``SyncVectorEnv``,
    a trainer's env pool) hit each other's drawings instead of each warming its own, and the
    byte budgets above hold per process, not per env. Entries are pure functions of their
    keys (a cached drawing is what drawing anew gives), so sharing changes no pixel. ``lock``
    serialises drawing between threads (an evicted tile's surface is reused for the next one)."""

    def __init__(self) -> None:
        self.text = _Text()
        self.tiles: OrderedDict[int, tuple[list[Record], pygame.Surface]] = OrderedDict()
        self.tile_bytes = 0
        self.plains: dict[tuple[int, ...], np.ndarray] = {}
        self.backgrounds: OrderedDict[tuple[int, ...], tuple[list[Record], Color, np.ndarray]] = OrderedDict()
        self.background_bytes = 0
        self.lock = threading.Lock()
        _ALL.add(self)


#: Viewport sizes whose caches the process keeps while no backend uses them (least recently
#: made dropped first). A size's caches live as long as a backend of that size does, and then
#: as one of these: a notebook or test suite that makes and closes envs of many sizes would
#: otherwise keep every size's caches for good (up to the byte budgets above, plus dozens of
#: open font files, per size: the fds ran out after ~15 sizes). Two keep the make-close-make
#: cycle of one size (or of a portrait and a landscape env) warm.
VIEWPORT_CACHES = 2
#: The caches of every size, while anything holds them (a backend, or :data:`_RECENT`).
_CACHES: weakref.WeakValueDictionary[tuple[int, int], _Caches] = weakref.WeakValueDictionary()
_RECENT: OrderedDict[tuple[int, int], _Caches] = OrderedDict()
_CACHES_LOCK = threading.Lock()
#: Every caches object alive (a backend's own too, ``shared_caches=False``), for the fork hooks.
_ALL: weakref.WeakSet[_Caches] = weakref.WeakSet()


def _caches(width: int, height: int) -> _Caches:
    """This process's shared caches for a ``width`` x ``height`` viewport (made on first use)."""
    key = (width, height)
    with _CACHES_LOCK:
        hit = _CACHES.get(key)
        if hit is None:
            hit = _CACHES[key] = _Caches()
        _RECENT[key] = hit
        _RECENT.move_to_end(key)
        while len(_RECENT) > VIEWPORT_CACHES:
            _RECENT.popitem(last=False)  # freed once no backend of that size is left
        return hit


#: The locks :func:`_lock_before_fork` holds across a fork (released after it, in the parent).
_HELD: list[threading.Lock] = []


def _lock_before_fork() -> None:
    """Wait for every drawing in progress to end, and start no other, until the fork is done:
    a child forked in the middle of one would inherit its caches half updated (an entry its byte
    counter does not count yet, for good). A drawing takes milliseconds and waits on nothing."""
    _CACHES_LOCK.acquire()
    _HELD.append(_CACHES_LOCK)
    for c in list(_ALL):
        c.lock.acquire()
        _HELD.append(c.lock)


def _unlock_after_fork() -> None:
    while _HELD:
        _HELD.pop().release()


def _fresh_locks_after_fork() -> None:
    """The child: fresh locks (the threads that could release the held ones are not copied)."""
    global _CACHES_LOCK
    _HELD.clear()
    _CACHES_LOCK = threading.Lock()
    for c in list(_ALL):
        c.lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_lock_before_fork, after_in_parent=_unlock_after_fork, after_in_child=_fresh_locks_after_fork)


class MockBackend(Backend):
    """pygame renderer. ``show`` draws immediately into a reused buffer; ``screenshot``
    returns a copy."""

    name = "mock"

    def __init__(self, width: int, height: int, shared_caches: bool = True, **kwargs: Any) -> None:
        """``shared_caches``: draw with the process's caches for this viewport size (default;
        :class:`_Caches`), or, False, with caches of this backend's own (a cold start, and
        bounds that hold per backend)."""
        super().__init__(width, height)
        if kwargs:
            raise TypeError(f"the mock backend takes only shared_caches, got {sorted(kwargs)}")
        # Every frame is drawn into a new array, so the first screenshot of a frame can hand
        # it over without a copy (the backend never draws into it again).
        self._arr = np.zeros((height, width, 3), dtype=np.uint8)
        self._handed_out = False
        self._caches = _caches(width, height) if shared_caches else _Caches()
        self._text = self._caches.text  # the caches', unless a test gives this backend its own
        self._view: View | None = None
        self._lay: Layout | None = None

    # --- Backend API -------------------------------------------------------------------
    def show(self, v: View, lay: Layout) -> None:
        self._view, self._lay = v, lay
        with self._caches.lock:
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
        c = self._caches
        key = tuple(map(id, head))
        hit = c.backgrounds.get(key)
        if hit is not None:
            c.backgrounds.move_to_end(key)
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
        while c.backgrounds and (len(c.backgrounds) >= BACKGROUND_ENTRIES or c.background_bytes + band.nbytes > budget):
            c.background_bytes -= c.backgrounds.popitem(last=False)[1][2].nbytes
        c.backgrounds[key] = (head, color, band)
        c.background_bytes += band.nbytes
        return arr

    def _covers(self, r: Record) -> bool:
        """Whether the rect record ``r`` is one plain fill of the whole screen."""
        return list(r["box"]) == [0, 0, self.width, self.height] and not r["radius"] and not r["border"]

    def _plain(self, color: Color) -> np.ndarray:
        """A screen filled with ``color`` by pygame (kept per colour: a theme has one background)."""
        key, plains = tuple(color), self._caches.plains
        arr = plains.get(key)
        if arr is None:
            if len(plains) >= PLAIN_ENTRIES:
                plains.clear()
            arr = np.zeros((self.height, self.width, 3), dtype=np.uint8)
            pygame.image.frombuffer(arr, (self.width, self.height), "RGB").fill(color)  # type: ignore[arg-type]  # pygame stub: no ndarray
            plains[key] = arr  # cached once filled: a fork or an interrupt before it would keep a black frame
        return arr

    def _draw(self, v: View, lay: Layout) -> None:
        items = display_list(v, lay)
        n = next((i for i, r in enumerate(items) if r["type"] == "widget"), len(items))
        self._arr, self._handed_out = self._background(items[:n]), False
        c = self._caches
        s, tiles = pygame.image.frombuffer(self._arr, (self.width, self.height), "RGB"), c.tiles  # type: ignore[arg-type]  # see _plain
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
                    c.tile_bytes -= _nbytes(spare)
                while len(tiles) >= TILE_CACHE_ENTRIES:
                    spare = tiles.popitem(last=False)[1][1]  # least recently used first
                    c.tile_bytes -= _nbytes(spare)
                w, h = r["clip"]
                # same pixel format as the frame: fast blits
                tile = spare if spare is not None and spare.get_size() == (w, h) else pygame.Surface((w, h), 0, s)
                n = _nbytes(tile)
                while tiles and c.tile_bytes + n > TILE_CACHE_BYTES:
                    c.tile_bytes -= _nbytes(tiles.popitem(last=False)[1][1])
                tile.fill(r["bg"])
                for p in ps:
                    self._paint(tile, p, 0, 0)
                hit = tiles[id(ps)] = (ps, tile)
                c.tile_bytes += n
            else:
                tiles.move_to_end(id(ps))
            s.blit(hit[1], (r["box"][0], r["box"][1]))

    def _paint(self, s: pygame.Surface, r: Record, ox: int, oy: int) -> int:
        """Draw one primitive record offset by ``(ox, oy)``; returns the row below the lowest
        it may have drawn on (the surface's height when that is not sure)."""
        t = r["type"]
        if t == "text":
            if not r["text"]:
                return 0
            img = self._text.render(r["text"], r["size"], r["color"], r["bold"], r.get("font"))
            x, y = r["x"] + ox, r["y"] + oy
            if r["align"] == "center":
                x = x + (r["w"] - img.get_width()) // 2 if r["w"] is not None else x - img.get_width() // 2
            elif r["align"] == "right":
                x -= img.get_width()
            if r["valign"] == "middle":
                y -= img.get_height() // 2
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
