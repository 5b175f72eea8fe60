"""The browser backend: every app as real HTML/CSS in a headless Chromium (Playwright).

The app's behaviour stays in Python. ``show`` sends the view's display list
(:mod:`guigym.display`: every box, text run, colour and offset resolved, the same list the
mock backend draws) to a small runtime (``sites/runtime.js``) with one call; the runtime builds
DOM from it, each widget rooted in a real ``<input>``, ``<button>``, link or checkbox placed
absolutely at exactly the layout's box (rebuilding only the widgets that changed). Input is real: ``perform``
dispatches mouse presses, wheel events and text insertion through the DevTools protocol
(what ``page.mouse``/``page.keyboard`` send), the runtime records what the DOM did (a click
on a widget, a checkbox ``change``, the field's new ``value``, a wheel) and the backend turns
that into the same :class:`~guigym.events.Event` the mock backend computes. Python applies
the event and shows the next view, so the DOM never diverges from the state.

Threads: the browser calls run on one asyncio loop per process, on a daemon thread
(:mod:`guigym.backends.browser_loop`, Playwright's async API); the backend's methods stay
synchronous and wait for their answer. So an env works inside a running asyncio loop (a
Jupyter cell), from any thread, and several envs in several threads at once.

Speed: one browser per backend (per env), started lazily (in each vector-env worker) and
reused across resets; per step one round trip for the input and what it did (the input
events and a ``drainIf`` go out together; the rare ``drainIf`` that runs before the input has
reached the page is followed by a ``drainAfter``, which waits for it), one for ``show``, which
also paints the page and returns the screenshot. Screenshots paint the page's single layer on demand
(``LayerTree.makeSnapshot``/``replaySnapshot``; the renderer numbers snapshots in order, so the
replay of the snapshot being made is sent with it; a wrong guess costs one more round trip): a
composited capture (``Page.captureScreenshot``) waits for Chromium's 60 Hz frame clock, about
two frames (33 ms) per step, which caps an env at 30 steps/s. The two agree up to
anti-aliasing of a few edge pixels (checked once per browser on a probe screen; any frame the
layer path cannot vouch for, or ``capture="screen"``, uses composited frames). Every
screenshot carries the number of the view it shows in a pixel row below the screen (cropped),
so a stale one is never returned. Caret hidden, animations off; cached until the next ``show``.

Safety: the page is a self-contained document under a strict Content-Security-Policy; every
request that is not loopback is aborted: by the route guard, and below it (for what routing
never sees, WebSocket handshakes) by the launch flags of :mod:`guigym.backends.chromium` (the
resolver knows no host but loopback; anything else goes to a proxy that does not exist); view text
reaches the DOM only through ``textContent``/``value``; view data travels as a CDP call
argument, never as source code.

Memory: the page's garbage is collected every :data:`GC_EVERY` shows (an idle headless page
otherwise lets its heap grow for thousands of steps), and every :data:`RECYCLE_EVERY` resets
the page is replaced by a fresh one (new context and renderer process; at a reset, never
inside an episode). The layer snapshots that screenshots replay are freed together every
:data:`RELEASE_EVERY` shows. No spare renderer process is kept.

Faults: every DevTools call runs under a deadline (``timeout_s``): a browser that hangs is
killed. Once the browser or the page's renderer has died (a failed call, Chromium's crash
report, or the process gone from ``/proc``), every ``env.step()`` raises
:class:`BrowserCrashed`, whatever the action (``perform``, ``boxes`` and, inside a step,
``show`` and ``screenshot`` all raise), until ``env.reset()`` (or ``set_state``), whose
``show`` starts a new browser. A browser call cut short by ``KeyboardInterrupt`` (Ctrl-C)
counts as such a death: the page may hold half of what the call did (an input dispatched
whose events were never collected, a view half drawn), so the next step raises
:class:`BrowserCrashed` rather than report a stale event, and the next reset starts a new
browser; a Ctrl-C while a browser starts leaves none behind. A Playwright driver that stops
answering (its node process stopped or stuck) is killed when a call runs past its deadline;
the next reset starts a new driver. ``close()`` is idempotent, kills what is left, and stops
the driver thread and process when no other env uses them. Each browser's temp folders
(Playwright's profile and artifacts folders, Chromium's singleton folder) are removed once it
is gone, also when it or the driver was killed (Playwright removes them only when its driver
sees the browser exit); those of a process killed with its whole tree at once (``ray.kill`` of
an actor) are removed by the next browser a backend starts on the machine
(``_remove_orphaned``).
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import functools
import importlib.util
import inspect
import io
import json
import numbers
import os
import shutil
import signal
import tempfile
import time
import uuid
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG
from typing import Any, Mapping, cast
from urllib.parse import urlsplit

import numpy as np

from guigym.action_text import _short
from guigym.actions import Action, Click, Scroll, Type
from guigym.apps.base import TEXT_KINDS, View, field_text
from guigym.backends.base import Backend, event_for, off_screen
from guigym.backends.browser_loop import Driver, SyncView, acquire, release
from guigym.backends.chromium import ChromiumNotFound, launch_async
from guigym.backends.procfs import alive, cmdline, pids, private_kib, process_tree, pss_kib, stat
from guigym.display import display_list, hidden_focus, rows_clip
from guigym.events import Event
from guigym.fonts import family, font_base64
from guigym.layout import Box, Layout, layout, scroll_delta

__all__ = ["BrowserBackend", "BrowserCrashed", "decode_png", "payload", "private_kib", "process_tree", "pss_kib"]

#: Extra flags of this backend: exact colours (the frame id row is read back). Not
#: `--disable-frame-rate-limit`: composited captures return sooner with it, but Chromium's CPU
#: per step doubles, which is slower on a loaded 2-core machine.
FAST_ARGS: tuple[str, ...] = ("--force-color-profile=srgb",)
#: Wheel deltas (CSS px) of one Scroll action, by direction.
WHEEL = {"down": (0, 120), "up": (0, -120), "right": (120, 0), "left": (-120, 0)}
CAPTURE_MODES = ("auto", "layer", "screen")
INPUT_WAIT_MS = 1000  # the longest the runtime waits for an input event to reach the DOM
#: A full garbage collection of the page (JS and DOM heaps) every this many ``show`` calls: an
#: idle headless page rarely collects on its own (400 Settings episodes: JS heap 5 -> 30 MiB,
#: PSS +74 MiB; with it: heap ~2 MiB, PSS +47 MiB); one costs 5-20 ms, ~0.05 ms a step.
GC_EVERY = 256
#: Open a fresh page (new browser context, page and renderer process) every this many resets:
#: a page's renderer keeps growing slowly even with :data:`GC_EVERY` (Settings, 6 steps an
#: episode: +47 MiB PSS over 400 episodes); a new page costs ~30-60 ms, ~0.1 ms a reset.
RECYCLE_EVERY = 500
#: The layer snapshots a page has made (one a ``show``, a few KiB each in the renderer) are freed
#: together every this many shows, by ``LayerTree.disable`` + ``enable`` in that show's round
#: trip: two commands every 256 shows instead of a ``releaseSnapshot`` in every one (each command
#: is relayed by Chromium's browser process, Playwright's driver and its Python loop).
RELEASE_EVERY = 256
#: The face of the text records without a ``font`` (the default look): pygame's own font
#: (FreeSansBold), the file the mock draws them from, registered like a bundled font (regular
#: weight: a bold record is emboldened once more, as pygame does). With the system face the
#: same text ran ~14% wider in the browser, so a row's text was clipped (or ran under its
#: chevron) where the mock showed it whole.
DEFAULT_FACE = "pygame-default"
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
#: The longest a driver suspected of hanging (a call ran past its deadline) may take to answer
#: a request of its own before it is killed (it answers in milliseconds when healthy).
DRIVER_PROBE_S = 5.0
#: The longest ``timeout_s`` (a day): a browser's start may take three times it, given to
#: Playwright in milliseconds, and Playwright's timers (Node's) fire at once past 2**31 - 1 ms
#: (~24.8 days); Python's own waits overflow past ~292 years.
TIMEOUT_MAX_S = 86_400.0
#: Flags Playwright sets itself and refuses in ``launch_args`` (its error surfaced as "no
#: usable Chromium").
PLAYWRIGHTS_FLAGS = ("--user-data-dir", "--remote-debugging-pipe")


class BrowserCrashed(RuntimeError):
    """The browser died or stopped answering; ``env.reset()`` starts a new one."""


# --------------------------------------------------------------------------- processes


def _find_marked(marker: bytes, under: int) -> int | None:
    """The descendant of ``under`` whose command line holds ``marker`` (the browser process)."""
    return next((pid for pid in process_tree(under) if marker in cmdline(pid)), None)


def _marked_trees(marker: bytes, under: int) -> list[int]:
    """Every descendant of ``under`` whose command line holds ``marker`` (each attempt of one
    launch: the candidates tried share the marker), with its own descendants."""
    return sorted({q for p in process_tree(under) if marker in cmdline(p) for q in process_tree(p)})


#: The prefix of the shared-memory files Chromium makes in the temp dir (``--disable-dev-shm-usage``):
#: each is unlinked right after it is made, so one killed between the two is left behind.
_SHM_PREFIX = ".org.chromium.Chromium."

#: Such a file keeps its name for microseconds (made, sized, unlinked): one of this age or older
#: (seconds) was left by a Chromium killed in between (a kill from outside: ``_kill`` removes
#: the ones its own kills leave), and is removed once a browser of this backend is gone.
SHM_STALE_S = 0.2


def _remove_stale_shm(folder: str | None = None) -> None:
    """Remove the Chromium shared-memory files left in ``folder`` (the temp dir Chromium
    inherits, by default): regular files of this user, named with ``_SHM_PREFIX``, at least
    ``SHM_STALE_S`` old. A live Chromium's file is unlinked long before that."""
    folder = folder or tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(folder) if n.startswith(_SHM_PREFIX)]
    except OSError:
        return
    if names:  # one made just before its maker was killed is young now: wait until it is stale
        time.sleep(SHM_STALE_S)
    now = time.time()
    for name in names:
        path = os.path.join(folder, name)
        try:
            st = os.lstat(path)
            if S_ISREG(st.st_mode) and st.st_uid == os.getuid() and now - st.st_mtime >= SHM_STALE_S:
                os.unlink(path)
        except OSError:
            continue


def _kill(pids: list[int]) -> None:
    """SIGKILL ``pids`` (a Chromium's processes). They are stopped first, so that none can make
    a file between the look and the kill: a shared-memory file one of them made and had not yet
    unlinked (caught by the kill in that window, it would stay in the temp dir) is removed."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGSTOP)
        except OSError:
            pass
    end = time.monotonic() + 0.2  # a signal is taken at the process's next return to user space
    for pid in pids:
        while (stat(pid) or ("X",))[0] in ("R", "S", "D") and time.monotonic() < end:
            time.sleep(0.001)
    half_made = {f for pid in pids for f in _linked_shm_files(pid)}
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for f in half_made:
        try:
            os.unlink(f)
        except OSError:
            pass


def _linked_shm_files(pid: int) -> list[str]:
    """Chromium shared-memory files that ``pid`` holds open and that still have a name."""
    out: list[str] = []
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return out
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if os.path.basename(target).startswith(_SHM_PREFIX) and not target.endswith(" (deleted)"):
            out.append(target)
    return out


# ------------------------------------------------------------------------------ images


def decode_png(data: bytes, width: int, height: int) -> np.ndarray:
    """A ``(height, width, 3)`` uint8 array from PNG bytes.

    Chromium's PNGs (8-bit RGB or RGBA, not interlaced) go straight to Pillow's PNG data
    decoder (``Image.frombytes(..., "zip", rawmode)``: inflate, unfilter and drop the alpha
    byte in one C pass, ~2x faster than inflating here and unfiltering with numpy, which this
    replaced); anything else is opened as a file by Pillow.
    """
    from PIL import Image

    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        depth, ctype, interlace = data[24], data[25], data[28]
        if (w, h) == (width, height) and depth == 8 and ctype in (2, 6) and interlace == 0:
            idat, pos = [], 8
            while pos + 8 <= len(data):
                n = int.from_bytes(data[pos:pos + 4], "big")
                kind = data[pos + 4:pos + 8]
                if kind == b"IDAT":
                    idat.append(data[pos + 8:pos + 8 + n])
                elif kind == b"IEND":
                    break
                pos += 12 + n
            try:  # "RGBX": four bytes a pixel, the fourth (alpha) dropped
                im = Image.frombytes("RGB", (w, h), b"".join(idat), "zip", "RGB" if ctype == 2 else "RGBX")
            except (ValueError, OSError):  # truncated or corrupt data: Pillow's file reader says why below
                pass
            else:
                return np.asarray(im)
    with Image.open(io.BytesIO(data)) as im:
        arr = np.asarray(im.convert("RGB"), dtype=np.uint8)
    if arr.shape != (height, width, 3):
        raise RuntimeError(f"screenshot is {arr.shape[1]}x{arr.shape[0]}, expected {width}x{height}")
    return arr


# ---------------------------------------------------------------------------- the view


def payload(v: View, lay: Layout) -> dict[str, Any]:
    """The JSON the runtime draws: the display list (:mod:`guigym.display`) and the area that
    clips the widgets.

    A focused field scrolled out of view is included too (at its off-screen row position,
    clipped) so that typing reaches it.
    """
    items = display_list(v, lay)
    hidden = hidden_focus(v, lay)
    if hidden is not None:
        items.append(hidden)
    return {"width": lay.width, "height": lay.height, "clip": rows_clip(v, lay), "items": items, "focus": v.focus}


# ---------------------------------------------------------------------- the page


@dataclass(eq=False)
class _Tab:
    """The runtime page and what belongs to it (one per page: recycling replaces it whole)."""

    context: Any = None
    page: Any = None
    cdp: Any = None
    send: Any = None  # the CDP session's send coroutine function (Playwright's implementation)
    runtime_id: str | None = None
    layers: list[dict[str, Any]] | None = None  # the page's layer tree, as last reported
    renderer: int | None = None  # the pid of the renderer process that draws it
    next_snapshot: int | None = None  # the id LayerTree.makeSnapshot will return next, once known
    snapshots: int = 0  # snapshots made since the page's last LayerTree.disable (which frees them all)
    fonts: set[str] = field(default_factory=set)  # bundled fonts (guigym.fonts) the page has loaded

    def on_layers(self, event: dict[str, Any]) -> None:
        if event.get("layers") is not None:
            self.layers = event["layers"]


_LIVE: weakref.WeakSet[BrowserBackend] = weakref.WeakSet()


@atexit.register
def _kill_all_at_exit() -> None:
    mine = [b for b in list(_LIVE) if b._owner_pid == os.getpid()]
    pids = [p for b in mine for p in b.chromium_pids()]
    _kill(pids)
    _wait_gone(pids, 2.0)  # a browser still exiting could write into a folder being removed
    for b in mine:
        _remove_tmp(b._tmp)
    if mine:
        _remove_stale_shm()


# ----------------------------------------------------------------------- the backend


class BrowserBackend(Backend):
    """Real DOM in a headless Chromium; see the module docstring.

    Args (``backend_kwargs`` of the env):
        executable: a Chromium/Chrome executable (default: ``$GUIGYM_CHROMIUM``, Playwright's
            own Chromium, then the system ``chromium``; see :mod:`guigym.backends.chromium`).
        timeout_s: the longest any one browser call may take before the browser is killed.
        launch_args: extra Chromium flags.
        capture: how screenshots are taken: ``"layer"`` paints the page's (single) layer on
            demand (``LayerTree.makeSnapshot`` + ``replaySnapshot``: no wait for the 60 Hz
            frame clock), ``"screen"`` captures a composited frame (``Page.captureScreenshot``,
            which waits for the next frames, ~2 per step), ``"auto"`` (default) checks once per
            browser that both agree and then uses ``"layer"``, falling back to ``"screen"``
            for any frame the layer path cannot vouch for.
        gc_every: collect the page's garbage every this many ``show`` calls (0: never); see
            :data:`GC_EVERY`. Invisible in the pixels.
        recycle_every: replace the page (a fresh browser context, page and renderer process)
            every this many resets (0: never); see :data:`RECYCLE_EVERY`. Happens at a reset,
            never inside an episode; invisible in the observations.
    """

    name = "browser"

    def __init__(
        self, width: int, height: int, executable: str | None = None, timeout_s: float = 10.0,
        launch_args: tuple[str, ...] | list[str] = (), capture: str = "auto", gc_every: int = GC_EVERY,
        recycle_every: int = RECYCLE_EVERY,
    ) -> None:
        super().__init__(width, height)
        o = self.check_options(dict(executable=executable, timeout_s=timeout_s, launch_args=launch_args, capture=capture,
                                    gc_every=gc_every, recycle_every=recycle_every))
        executable, capture, gc_every, recycle_every = o["executable"], o["capture"], o["gc_every"], o["recycle_every"]
        self.executable = executable
        self.timeout_s = float(o["timeout_s"])
        self.launch_args = tuple(o["launch_args"])
        self.restarts = 0  # browsers started after the first one (crash recovery)
        self.gc_every = int(gc_every)
        self.collections = 0  # garbage collections requested (gc_every)
        self.recycle_every = int(recycle_every)
        self.recycles = 0  # pages replaced (recycle_every)
        self._shows = 0
        self._resets = 0  # shows outside env.step() since the page was opened
        self.source: str | None = None  # where the running Chromium came from
        self._owner_pid = os.getpid()
        self._driver: Driver | None = None
        self._browser: Any = None
        self._tab: _Tab | None = None
        self._main_pid: int | None = None
        self._tmp: list[str] = []  # the running Chromium's temp folders (see _temp_dirs)
        self._marker = b""
        self._broken: str | None = None
        self._view: View | None = None
        self._lay: Layout | None = None
        self._boxes: dict[str, Box] = {}
        self._shot: np.ndarray | None = None
        self._frame_id = 0
        self.capture = capture
        self._layer_ok: bool | None = None if capture == "auto" else capture == "layer"
        self._snapshot_id: str | None = None  # made by show(), replayed by screenshot()
        self.frames = {"layer": 0, "screen": 0, "fallback": 0}  # how screenshots were taken
        self.drains = {"at_once": 0, "waited": 0}  # how inputs' effects were collected (see _input)
        _LIVE.add(self)

    @staticmethod
    def check_options(options: Mapping[str, Any]) -> dict[str, Any]:
        """``options`` (some of this class's keyword arguments, by name) checked, before any
        browser starts: a ``ValueError`` naming the option and what it takes (``GuiEnv`` calls
        this at ``gym.make``). Returns them as the backend keeps them (``launch_args`` a tuple, so
        a generator is read once); names this class does not take are returned as given.

        Before: a str ``launch_args`` went to Chromium letter by letter and ``timeout_s=0`` timed
        out the browser's first call, both reported at the first reset as a broken browser."""
        out = dict(options)
        if "executable" in out:
            exe = out["executable"]
            if exe is not None and not isinstance(exe, (str, os.PathLike)):
                raise ValueError(f"executable must be a path to a Chromium/Chrome executable (a str) or None, got {_short(exe)}")
            if exe is not None and os.fspath(exe).strip() in ("", "."):  # "" (or Path("")) was "not given": discovery ran
                raise ValueError("executable is empty: give a path to a Chromium/Chrome executable, or None to find one")
        if "timeout_s" in out:
            t = out["timeout_s"]
            if isinstance(t, bool) or not isinstance(t, numbers.Real) or not 0 < float(t) <= TIMEOUT_MAX_S:  # nan: False
                raise ValueError(f"timeout_s must be a number of seconds > 0 and <= {TIMEOUT_MAX_S:g} (the longest one browser "
                                 f"call may take), got {_short(t)}")
        if "launch_args" in out:
            args = out["launch_args"]
            expected = "a list of Chromium flags, e.g. ['--mute-audio']"
            if isinstance(args, (str, bytes)) or not isinstance(args, Iterable):  # a str went to Chromium letter by letter
                raise ValueError(f"launch_args must be {expected}, got {_short(args)}")
            out["launch_args"] = args = tuple(args)
            for a in args:
                if not isinstance(a, str) or not a.startswith("-"):
                    raise ValueError(f"launch_args must be {expected} (each a str starting with '-'), got {_short(a)} in it")
                if a.startswith(PLAYWRIGHTS_FLAGS):
                    raise ValueError(f"launch_args may not hold {a.partition('=')[0]}: Playwright sets it itself")
        if "capture" in out and (not isinstance(out["capture"], str) or out["capture"] not in CAPTURE_MODES):
            raise ValueError(f"capture must be one of {CAPTURE_MODES}, got {_short(out['capture'])}")
        for name in ("gc_every", "recycle_every"):
            value = out.get(name, 0)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"{name} must be an int >= 0 (0: never), got {value!r}")
        return out

    # --- Backend API -------------------------------------------------------------------
    def show(self, v: View, lay: Layout) -> None:
        self._view, self._lay, self._shot = v, lay, None
        try:
            if self._browser is not None:
                self._check_alive()  # a dead browser inside env.step() is an error, not a restart
            self.start()  # no-op while the browser is healthy
            if not self.in_step:  # a reset (or set_state): the boundary where pages are recycled
                if self.recycle_every and self._resets >= self.recycle_every:
                    self._recycle()
                self._resets += 1
            self._redraw()
        except BrowserCrashed:  # died now or earlier: the state lives in Python, so redraw it
            self._recover()
            self._redraw()

    def screenshot(self) -> np.ndarray:
        if self._view is None:
            raise RuntimeError("show() a view first")
        if self._shot is None:  # show() usually captured it in its round trip
            try:
                if self._browser is None:
                    self.start()
                    self._redraw()
                self._check_alive()
                if self._shot is None:
                    self._shot = self._capture()
            except BrowserCrashed:
                self._recover()
                self._redraw()
                if self._shot is None:
                    self._shot = self._capture()
        return self._shot.copy()

    def perform(self, action: Action) -> tuple[Event | None, str | None]:
        v, lay = self._view, self._lay
        if v is None or lay is None:
            raise RuntimeError("show() a view first")
        self._check_alive()  # also for actions that never reach the page (off-screen, ...)
        if isinstance(action, Click):
            if off_screen(action.x, action.y, lay.width, lay.height):
                return event_for(action, v, lay)  # the mock's error, page untouched
            press = {"x": action.x, "y": action.y, "button": "left", "clickCount": 1}
            out = self._input([
                ("Input.dispatchMouseEvent", {"type": kind, "buttons": buttons, **press})
                for kind, buttons in (("mousePressed", 1), ("mouseReleased", 0))
            ], until="mouseup")
            return self._click_event(out["events"]), None
        if isinstance(action, Scroll):
            if action.x is not None and action.y is not None and off_screen(action.x, action.y, lay.width, lay.height):
                return event_for(action, v, lay)
            x = action.x if action.x is not None and action.y is not None else (lay.body[0] + lay.body[2]) // 2
            y = action.y if action.x is not None and action.y is not None else (lay.body[1] + lay.body[3]) // 2
            dx, dy = WHEEL[action.direction]
            wheel = {"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy}
            out = self._input([("Input.dispatchMouseEvent", wheel)], until="wheel")
            return self._wheel_event(out["events"]), None
        if isinstance(action, Type):
            w = v.find(v.focus) if v.focus is not None else None
            if w is None or w.kind not in TEXT_KINDS:
                return event_for(action, v, lay)  # the mock's "needs a focused text field"
            multiline = w.kind == "textarea"
            if field_text(action.text, multiline=multiline):  # the runtime keeps the field's content selected: this replaces it
                out = self._input([("Input.insertText", {"text": action.text})], until="input")
            else:  # nothing the field keeps (no text; a one-line field: only line breaks): clear it. Chromium
                # inserts nothing for a lone "\n" there (no input event: a 1 s wait, and the old content stayed)
                key = {"key": "Delete", "code": "Delete", "windowsVirtualKeyCode": 46, "nativeVirtualKeyCode": 46}
                out = self._input([("Input.dispatchKeyEvent", {"type": kind, **key}) for kind in ("rawKeyDown", "keyUp")], until="keyup")
            value = out.get("focus_value")
            if value is None or field_text(value, multiline=multiline) == field_text(action.text, multiline=multiline):
                # the field holds what the shared rule makes of the text: report the typed text, as
                # the mock does (the DOM's value drops line breaks, so events, and the grounded
                # reward that compares them, would differ between backends). The rule is applied
                # to both: the DOM keeps more than MAX_FIELD_LEN characters, and NULs
                value = action.text
            return Event("input", v.focus, value), None
        return event_for(action, v, lay)

    def boxes(self) -> dict[str, Box]:
        """Boxes measured in the DOM (``getBoundingClientRect``) at the last ``show``.

        Raises :class:`BrowserCrashed` once the browser has died (``env.step`` calls this on
        every step, so a step that never touches the page, e.g. unparsable text, raises too)."""
        if self._browser is not None or self._broken is not None:
            self._check_alive()
        return dict(self._boxes)

    def close(self) -> None:
        """Close the browser, kill whatever is left of it, and stop the Playwright driver if
        no other backend of this process uses it. Idempotent. A close cut short by a
        ``KeyboardInterrupt`` (Ctrl-C) still kills the browser and lets the driver go."""
        interrupted = True
        try:
            self._shutdown()
            interrupted = False
        finally:
            if self._driver is not None:
                d, self._driver = self._driver, None
                if d.pid == os.getpid():
                    release(d, wait=not d.on_loop and not interrupted)
            self._view = self._lay = None
            self._shot = None

    def __del__(self) -> None:  # best effort, never blocking: the finaliser may run on any thread
        try:
            if getattr(self, "_owner_pid", None) != os.getpid():
                return
            if self._main_pid is not None:
                _kill(self.chromium_pids())
                _remove_tmp(self._tmp)
                _remove_stale_shm()
            if self._driver is not None:
                d, self._driver = self._driver, None
                release(d, wait=False)
        except Exception:
            pass

    # --- introspection (tests, benchmarks) ------------------------------------------------
    @property
    def page(self) -> Any:
        """The runtime page (started on first use), as a blocking view of Playwright's async
        ``Page`` (``backend.page.evaluate("1 + 1")``; tests and debugging)."""
        self.start()
        assert self._tab is not None and self._driver is not None
        return SyncView(self._tab.page, self._driver, self.timeout_s)

    @property
    def browser_pid(self) -> int | None:
        return self._main_pid

    @property
    def renderer_pid(self) -> int | None:
        """The renderer process that draws the page (``None`` before the first show)."""
        return self._tab.renderer if self._tab is not None else None

    def chromium_pids(self) -> list[int]:
        """The browser process and all its descendants (renderer, GPU, zygotes, ...)."""
        return process_tree(self._main_pid) if self._main_pid is not None else []

    def memory_kib(self) -> int:
        """PSS of all this browser's processes, in KiB."""
        return pss_kib(self.chromium_pids())

    @property
    def started(self) -> bool:
        return self._browser is not None and self._broken is None

    # --- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Start the browser (``show`` does it on first use)."""
        if self._browser is not None and self._broken is None:
            return
        if self._browser is not None or self._broken is not None:
            self._shutdown()
            self.restarts += 1
        if self._owner_pid != os.getpid():  # forked: the parent's browser and driver are not ours
            self._owner_pid, self._driver = os.getpid(), None
        if self._driver is not None and self._driver.dead:  # killed or hung: a new one
            d, self._driver = self._driver, None
            release(d, wait=False)
        if self._driver is None:
            self._driver = acquire()
        self._marker = f"--guigym-instance={os.getpid()}-{uuid.uuid4().hex}".encode()
        args = (*FAST_ARGS, *self.launch_args, self._marker.decode())
        try:
            browser, self.source, artifacts = self._launch(args)
        except ChromiumNotFound:
            if not self._driver.launches or self._driver.answers(min(self.timeout_s, DRIVER_PROBE_S)):
                # the driver is fine: this Chromium is what fails (another env's bad `executable` flagged
                # the driver every env of the process shares as dead, and started a second node process)
                raise
            # it worked before: the Playwright driver itself may have died; start a new one once
            self._driver.dead = True
            release(self._driver, wait=False)
            self._driver = acquire()
            browser, self.source, artifacts = self._launch(args)
        self._driver.launches += 1
        self._browser = browser
        self._main_pid = _find_marked(self._marker, os.getpid())
        self._tmp = _temp_dirs(self._main_pid, artifacts)
        _remove_orphaned(_claim(self._tmp))
        self._broken = None
        me = weakref.ref(self)  # handlers must not keep the backend alive

        async def watch() -> None:  # on the loop, like every Playwright call (its connection is not thread-safe)
            browser.on("disconnected", lambda _b, br=browser: _weak_call(me, "_on_disconnect", br))

        try:
            try:
                self._driver.run(watch(), self.timeout_s)
            except Exception as e:
                if isinstance(e, TimeoutError):
                    self._check_driver()
                self._mark_broken(f"could not watch the browser: {_first_line(e)}")
                raise BrowserCrashed(f"could not watch the browser: {_first_line(e)}") from e
            self._tab = self._open_tab()
        except BaseException as e:
            # also for a KeyboardInterrupt: a browser left without its page would pass for a
            # healthy one, and every later show() would fail on the missing page
            if not isinstance(e, BrowserCrashed):
                self._mark_broken(f"interrupted while starting ({type(e).__name__})")  # kill, not a graceful close
            self._shutdown()
            raise

    def _launch(self, args: tuple[str, ...]) -> tuple[Any, str, str | None]:
        """Launch Chromium: ``(browser, source, artifacts)``, ``artifacts`` being the folder
        Playwright made for this browser's artifacts (None if not known for sure): the one
        ``playwright-artifacts-*`` folder that appeared in the driver's temp folder during the
        launch (launches of a driver take turns; a concurrent one of another process makes
        two appear, and then neither is taken)."""
        d = self._driver
        assert d is not None
        with d.launch_lock:
            tmp = d.temp_dir()
            before = _artifacts_dirs(tmp)
            job = _Launch()
            try:
                try:
                    browser, source, _ = d.run(job.run(d.pw, self.executable, args, self.timeout_s * 3000), self.timeout_s * 3 + 5)
                except BaseException:
                    d.submit(job.abandon())
                    raise
            except TimeoutError as e:
                pid = _find_marked(self._marker, os.getpid())
                _kill(process_tree(pid) if pid else [])
                self._check_driver()
                raise BrowserCrashed(f"Chromium did not start within {self.timeout_s * 3:g} s") from e
            except ChromiumNotFound:  # Playwright gives up on a launch that timed out without killing what it started:
                _kill(_marked_trees(self._marker, os.getpid()))  # a hung executable stayed, one more per reset, until close
                raise
            except RuntimeError as e:  # the driver thread is gone
                raise BrowserCrashed(f"could not launch Chromium: {_first_line(e)}") from e
            new = (_artifacts_dirs(tmp) or set()) - before if before is not None else set()  # None: unreadable now
        return browser, source, os.path.join(tmp, new.pop()) if tmp is not None and len(new) == 1 else None

    def _open_tab(self) -> _Tab:
        """Open the runtime page in a fresh context of the running browser (at start, and to
        recycle the page); in ``"auto"``/``"layer"`` mode also learn its layers."""
        assert self._driver is not None
        renderers = set(self._renderers())
        tab = _Tab()
        try:
            self._driver.run(self._open_page(tab), self.timeout_s * 3)
        except BaseException as e:  # any failure here means this browser is not usable
            if tab.context is not None:
                self._driver.submit(_quietly(tab.context.close()))
            if not isinstance(e, Exception):  # KeyboardInterrupt: start() or the caller decides
                raise
            if isinstance(e, TimeoutError):
                _kill(self.chromium_pids())
                self._check_driver()
            self._mark_broken(f"could not open the runtime page: {_first_line(e)}")
            raise BrowserCrashed(f"could not open the guigym runtime page in Chromium: {_first_line(e)}") from e
        new = [p for p in self._renderers() if p not in renderers]
        tab.renderer = new[0] if len(new) == 1 else None  # None: not known (another platform, a reused process)
        old, self._tab = self._tab, tab
        try:
            if self._layer_ok is not False:
                self._calibrate(probe=old is None)
        finally:
            self._tab = old
        self._resets = 0
        return tab

    async def _open_page(self, tab: _Tab) -> None:
        me = weakref.ref(self)
        tab.context = ctx = await self._browser.new_context(
            viewport={"width": self.width, "height": self.height + 1}, device_scale_factor=1, is_mobile=False, has_touch=False,
            locale="en-US", timezone_id="UTC", color_scheme="light", reduced_motion="reduce", service_workers="block",
            accept_downloads=False, java_script_enabled=True,
        )
        ctx.set_default_timeout(self.timeout_s * 1000)
        await ctx.route("**/*", _guard)
        tab.page = page = await ctx.new_page()
        page.on("crash", lambda _p, t=tab: _weak_call(me, "_on_crash", t))
        await page.set_content(runtime_html(), wait_until="load")
        tab.cdp = cdp = await ctx.new_cdp_session(page)
        tab.send = _raw_send(cdp)
        if self._layer_ok is not False:  # the layer path needs to know the page's layers
            # on Playwright's implementation when there is one: the public wrapper walks every
            # layer of every event (one per show) to map objects that are never there
            getattr(cdp, "_impl_obj", cdp).on("LayerTree.layerTreeDidChange", tab.on_layers)
            await cdp.send("LayerTree.enable")
        res = await cdp.send("Runtime.evaluate", {"expression": "window.guigym", "returnByValue": False})
        tab.runtime_id = res["result"]["objectId"]

    def _recycle(self) -> None:
        """Replace the page by a fresh one (new context, page and renderer), then close the old
        one: what a long-lived page accumulates (renderer heap, caches) goes with it."""
        assert self._driver is not None
        old = self._tab
        tab = self._open_tab()
        self._tab, self._snapshot_id = tab, None
        self.recycles += 1
        if old is not None and old.context is not None:  # in the background: nothing waits for it
            self._driver.submit(_quietly(old.context.close()))

    def _renderers(self) -> list[int]:
        """Renderer processes of this browser (Chromium puts ``--type=renderer`` in their
        command line)."""
        return [pid for pid in self.chromium_pids() if b"--type=renderer" in cmdline(pid)]

    def _calibrate(self, probe: bool = True) -> None:
        """Learn the page's layers (one frame) and, with ``probe``, check that the page draws
        in a single layer and, in ``"auto"`` mode (once per browser), that layer snapshots and
        composited frames agree on a probe screen. A recycled page skips the probe: same
        browser, same runtime; a page that turned out different falls back per frame."""
        assert self._tab is not None
        self._send(*_CAPTURE)  # a first frame: the layer tree is reported
        if self._tab.layers is None:
            self._send("Runtime.evaluate", {"expression": "0"})  # let queued events arrive
        if not probe:
            return
        saved = self._view, self._lay, self._shot, self._boxes
        try:
            probe_view = _probe_view()
            self._view, self._lay, self._shot = probe_view, layout(probe_view, self.width, self.height), None
            self._redraw()
            if self._snapshot_id is None and self._shot is None:  # no single content layer
                self._layer_ok = False
            elif self._layer_ok is None:
                layer_shot = self._shot if self._shot is not None else self._capture()
                self._layer_ok = layer_shot is not None and _same_picture(layer_shot, self._screen())
        finally:
            self._view, self._lay, self._shot, self._boxes = saved
            if self._snapshot_id is not None:
                self._send("LayerTree.releaseSnapshot", {"snapshotId": self._snapshot_id})
                self._snapshot_id = None
        self.frames = {"layer": 0, "screen": 0, "fallback": 0}

    def restart(self) -> None:
        """Kill the browser (if any) and start a new one; the next ``show`` redraws."""
        self._mark_broken("restart requested")
        self.start()

    # --- internals -----------------------------------------------------------------------
    def _alive(self) -> None:
        if self._broken is not None or self._browser is None:
            raise BrowserCrashed(f"Chromium is gone ({self._broken or 'not started'}); call env.reset() to start a new browser")

    def _check_alive(self) -> None:
        """Raise :class:`BrowserCrashed` if the browser or the page's renderer has died, even if
        Playwright has not reported it yet: both processes are looked up in ``/proc`` (a few
        microseconds; skipped where there is no ``/proc``)."""
        if self._broken is None and self._browser is not None and self._main_pid is not None and self._owner_pid == os.getpid():
            if not _running(self._main_pid):
                self._mark_broken("the browser process exited")
            elif self._tab is not None and self._tab.renderer is not None and not _running(self._tab.renderer):
                self._mark_broken("the page's renderer process exited")
        self._alive()

    def _recover(self) -> None:
        """After a browser death found by ``show``/``screenshot``: start a new browser, unless
        this is inside ``env.step()`` (``in_step``, set by the env; the documented contract:
        every step raises :class:`BrowserCrashed` until the next ``reset()``)."""
        if self.in_step:
            self._mark_broken("the browser died")
            self._alive()
        self.start()

    def _check_driver(self) -> None:
        """After a call ran past its deadline: kill the Playwright driver if it does not answer
        a request of its own either (its node process stopped or stuck), or every later call,
        launches included, would time out too; the next start takes a new driver."""
        d = self._driver
        if d is not None and not d.dead and not d.answers(min(self.timeout_s, DRIVER_PROBE_S)):
            d.discard()

    def _mark_broken(self, why: str) -> None:
        if self._broken is None:
            self._broken = why

    def _on_disconnect(self, browser: Any) -> None:
        if browser is self._browser:  # not an old browser closing late
            self._mark_broken("the browser disconnected")

    def _on_crash(self, tab: _Tab) -> None:
        """The page's renderer died (the browser may live on): the whole browser goes, and the
        next reset starts a new one (as after a browser crash)."""
        if tab is self._tab:  # not a page being recycled
            self._mark_broken("the page's renderer crashed")
            _kill(self.chromium_pids())

    def _redraw(self) -> None:
        """Show the current view. On the layer path, the page's paint is recorded in the same
        round trip (the renderer runs both in order), ready for :meth:`screenshot`."""
        assert self._view is not None and self._lay is not None
        face = self._view.theme.get("font") if self._view.theme else None
        for f in (DEFAULT_FACE, face) if face else (DEFAULT_FACE,):  # the mock's own font; the `font` variation's
            if self._tab is not None and f not in self._tab.fonts:  # load it first
                b64 = _default_font_base64() if f == DEFAULT_FACE else font_base64(f)
                self._result("font", self._send("Runtime.callFunctionOn", self._runtime("font", family(f), b64, wait=True)))
                self._tab.fonts.add(f)
        self._frame_id = (self._frame_id + 1) & 0xFFFFFF
        calls = [("Runtime.callFunctionOn", self._runtime("show", payload(self._view, self._lay), self._frame_id))]
        self._shows += 1
        if self.gc_every > 0 and self._shows % self.gc_every == 0:  # same round trip; order does not matter
            calls.insert(0, ("HeapProfiler.collectGarbage", {}))
            self.collections += 1
        self._snapshot_id = None  # one made for a view whose screenshot nobody asked for: the next disable frees it
        layer = self._content_layer() if self._layer_ok is not False else None
        guess = None
        if layer is not None:
            tab = cast(_Tab, self._tab)
            if tab.snapshots >= RELEASE_EVERY:  # free every snapshot made on this page so far
                calls[:0] = [("LayerTree.disable", {}), ("LayerTree.enable", {})]
                tab.snapshots = 0
            calls.append(("LayerTree.makeSnapshot", {"layerId": layer}))
            tab.snapshots += 1
            # the renderer numbers snapshots 1, 2, 3, ...: replay the one being made in the same
            # round trip (no extra one for the screenshot); a wrong guess fails harmlessly
            guess = str(tab.next_snapshot) if tab.next_snapshot is not None else None
            if guess is not None:
                calls.append(("LayerTree.replaySnapshot", {"snapshotId": guess}))
        res = self._send_all(calls, optional=1 if guess is not None else 0)
        if guess is not None:
            replay, res = res[-1], res[:-1]
        if layer is not None:
            made = str(res[-1].get("snapshotId"))
            res = res[:-1]
            self._tab.next_snapshot = int(made) + 1 if made.isdigit() else None  # type: ignore[union-attr]
            self._snapshot_id = made
            if guess == made:
                if not isinstance(replay, BaseException):
                    self._snapshot_id = None  # replayed: nothing left for screenshot()
                    self._shot = self._decoded(replay)
                    if self._shot is None:
                        self.frames["fallback"] += 1
                    else:
                        self.frames["layer"] += 1
        boxes = self._result("show", res[-1])
        self._boxes = {k: (int(b[0]), int(b[1]), int(b[2]), int(b[3])) for k, b in boxes.items()}

    def _content_layer(self) -> str | None:
        """The id of the one layer that draws the page, if the page has exactly one (else the
        layer path cannot show everything: use composited frames)."""
        # a focused field's caret is a layer of its own (1-2 px wide); the runtime paints
        # carets transparent, so it adds nothing to the picture
        layers = self._tab.layers if self._tab is not None else None
        drawing = [x for x in layers or () if x.get("drawsContent") and x.get("width", 0) > 2 and x.get("height", 0) > 0]
        if len(drawing) != 1:
            return None
        x = drawing[0]
        whole = (x.get("offsetX"), x.get("offsetY"), x.get("width"), x.get("height")) == (0, 0, self.width, self.height + 1)
        if not whole or x.get("transform"):
            return None
        return str(x["layerId"])

    def _send(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """One DevTools command on the page, under the deadline."""
        return self._send_all([(method, params or {})])[0]

    def _send_all(self, calls: list[tuple[str, dict[str, Any]]], optional: int = 0) -> list[Any]:
        """Several commands sent back to back, then all answers awaited (one round trip
        instead of ``len(calls)``). Chromium may run commands of different domains out of
        order: callers make the result independent of that (``drainIf`` answers only once
        the input it drains has been handled; a capture carries the frame id of the view it
        shows). The last
        ``optional`` commands may fail: their exception is returned as their result."""
        tab = self._tab
        if tab is None or self._broken is not None:
            raise BrowserCrashed(f"Chromium is gone ({self._broken or 'not started'}); call env.reset() to start a new browser")
        send, required = tab.send, len(calls) - optional

        async def run() -> list[Any]:
            out = list(await asyncio.gather(*[send(m, p) for m, p in calls], return_exceptions=True))
            for r in out[:required]:
                if isinstance(r, BaseException):
                    raise r
            return out

        return self._guarded("+".join(m for m, _ in calls[:required]), run)

    def _guarded(self, what: str, make: Any) -> Any:
        """Run the coroutine ``make()`` on the driver's loop under the deadline (``timeout_s``);
        a browser that does not answer in time is killed; any failure marks the browser dead."""
        if self._driver is None or self._broken is not None:
            raise BrowserCrashed(f"Chromium is gone ({self._broken or 'not started'}); call env.reset() to start a new browser")
        try:
            return self._driver.run(make(), self.timeout_s)
        except Exception as e:
            if isinstance(e, TimeoutError) or "Timeout" in type(e).__name__:
                why = f"Chromium did not answer {what} within {self.timeout_s:g} s"
                _kill(self.chromium_pids())
                self._check_driver()
            else:
                why = f"Chromium failed during {what}: {_first_line(e)}"
            self._mark_broken(why)
            raise BrowserCrashed(f"{why}; call env.reset() to start a new browser") from e
        except BaseException as e:  # KeyboardInterrupt while waiting: see the module docstring
            # the call may have half happened (input dispatched, its DOM events left queued for
            # the next step to drain as its own): the page no longer matches the state
            self._mark_broken(f"{what} was interrupted ({type(e).__name__})")
            raise

    def _runtime(self, fn: str, *args: Any, wait: bool = False) -> dict[str, Any]:
        """Parameters of ``window.guigym[fn](*args)`` (arguments travel as data, never as code)."""
        return {
            "objectId": self._tab.runtime_id if self._tab else None, "functionDeclaration": _FUNCTIONS[fn],
            "arguments": [{"value": a} for a in args], "returnByValue": True, "awaitPromise": wait,
        }

    def _result(self, fn: str, res: dict[str, Any]) -> Any:
        if "exceptionDetails" in res:
            det = res["exceptionDetails"]
            msg = det.get("exception", {}).get("description") or det.get("text", "")
            raise RuntimeError(f"guigym runtime error in {fn}(): {msg}")
        return res.get("result", {}).get("value")

    def _call(self, fn: str, *args: Any) -> Any:
        return self._result(fn, self._send("Runtime.callFunctionOn", self._runtime(fn, *args)))

    def _input(self, calls: list[tuple[str, dict[str, Any]]], until: str) -> dict[str, Any]:
        """Dispatch input events and collect what the DOM did, usually in one round trip: the
        events and a ``drainIf(until)`` go out together, and the runtime drains if the DOM has
        seen the action's last low-level event (``until``): the task that handled it is over
        then, so the click, change, focus and input events it caused are recorded. Chromium
        may run that command before the input reaches the page (~5 % of the oracle's clicks on
        Login easy); then a ``drainAfter(until)`` waits for it. (``drainAfter`` alone would
        answer from a later task, which after input Chromium holds back until the next frame:
        8.9 ms a click instead of 3.6 on Login easy.) A wheel event reaches the page 20-30 ms
        after it is sent, so it goes with a ``drainAfter`` at once."""
        self._alive()
        wait = ("Runtime.callFunctionOn", self._runtime("drainAfter", until, INPUT_WAIT_MS, wait=True))
        if until == "wheel":
            self.drains["waited"] += 1
            out = self._result("drainAfter", self._send_all([*calls, wait])[-1])
        else:
            res = self._send_all([*calls, ("Runtime.callFunctionOn", self._runtime("drainIf", until))])
            out = self._result("drainIf", res[-1])
            if out is not None:  # the usual case: the DOM had handled the input (sites/runtime.js: drainIf)
                self.drains["at_once"] += 1
                return out
            self.drains["waited"] += 1
            out = self._result("drainAfter", self._send(*wait))
        if out.get("timed_out"):  # the DOM never saw it (e.g. no listener fired): take what is there
            more = self._call("drain")
            out = {"events": out["events"] + more["events"], "focus_value": more["focus_value"]}
        return out

    def _capture(self) -> np.ndarray:
        """The screen showing the last view: the layer snapshot made by ``show`` if there is
        one and it proves to be that view (frame id), else a composited frame."""
        sid, self._snapshot_id = self._snapshot_id, None
        if sid is not None:
            shot = self._decoded(self._send("LayerTree.replaySnapshot", {"snapshotId": sid}))
            if shot is not None:
                self.frames["layer"] += 1
                return shot
            self.frames["fallback"] += 1
        return self._screen()

    def _decoded(self, replay: dict[str, Any]) -> np.ndarray | None:
        """The screen in a ``LayerTree.replaySnapshot`` answer, if it shows the last view."""
        url = str(replay.get("dataURL", ""))
        return self._frame(base64.b64decode(url.partition(",")[2])) if url.startswith("data:image/png;base64,") else None

    def _screen(self) -> np.ndarray:
        """A composited frame (``Page.captureScreenshot``; waits for the frame clock)."""
        for _ in range(3):  # after show() answered, a capture always shows it: this is paranoia
            shot = self._frame(base64.b64decode(self._send(*_CAPTURE)["data"]))
            if shot is not None:
                self.frames["screen"] += 1
                return shot
        raise RuntimeError("Chromium's screenshots do not show the last view (frame id mismatch)")

    def _frame(self, png: bytes) -> np.ndarray | None:
        """The screen in ``png`` if it shows the last view (the frame id below it matches)."""
        arr = decode_png(png, self.width, self.height + 1)
        r, g, b = (int(c) for c in arr[self.height, 0])
        if (r << 16 | g << 8 | b) != self._frame_id:
            return None
        return arr[: self.height]

    def _click_event(self, events: list[dict[str, Any]]) -> Event | None:
        assert self._lay is not None
        vis = {w.id: w for w, _ in self._lay.visible}
        for e in events:
            if e.get("type") == "toggle" and e.get("id") in vis and vis[e["id"]].kind in ("checkbox", "toggle"):
                return Event("toggle", e["id"], bool(e.get("on")))
        for e in events:
            w = vis.get(e.get("id")) if e.get("type") == "click" else None  # type: ignore[arg-type]
            if w is not None and w.interactive:
                if w.kind in ("checkbox", "toggle"):  # clicked without a change event
                    return Event("toggle", w.id, not bool(w.value))
                return Event("click", w.id)
        return None

    def _wheel_event(self, events: list[dict[str, Any]]) -> Event | None:
        assert self._view is not None and self._lay is not None
        for e in events:
            if e.get("type") != "wheel":
                continue
            dx, dy = float(e.get("dx") or 0), float(e.get("dy") or 0)
            if dx == 0 and dy == 0:
                continue
            direction = ("down" if dy > 0 else "up") if abs(dy) >= abs(dx) else ("right" if dx > 0 else "left")
            delta = scroll_delta(self._view, self._lay, direction)
            if delta == 0:
                return None
            return Event("page", None, delta) if self._view.grid else Event("scroll", "body", delta)
        return None

    def _shutdown(self) -> None:
        """Close (or kill) the browser; keep the driver."""
        browser, self._browser = self._browser, None
        self._tab = None
        self._snapshot_id = None
        try:
            if self._owner_pid == os.getpid() and browser is not None and self._broken is None and self._driver is not None:
                try:
                    self._driver.run(browser.close(), min(self.timeout_s, 5.0))
                except Exception:  # killed below
                    pass
        finally:  # also after a KeyboardInterrupt in the graceful close: the browser was left running
            if self._owner_pid == os.getpid():
                pids = self.chromium_pids()
                if pids:
                    _kill(pids)
                    _wait_gone(pids, 3.0)
                _remove_tmp(self._tmp)
                _remove_stale_shm()
            self._tmp = []  # a forked copy's are the parent's
            self._main_pid = None
            self._broken = None


def _raw_send(cdp: Any) -> Any:
    """``send(method, params)`` of a CDP session: Playwright's implementation when it has the
    expected signature (it skips the public wrapper's walk over every parameter and result),
    else the public method."""
    impl = getattr(getattr(cdp, "_impl_obj", None), "send", None)
    try:
        names = list(inspect.signature(impl).parameters) if impl is not None else []
    except (TypeError, ValueError):
        names = []
    if names[:3] == ["method", "params", "timeout"]:
        return lambda m, p: impl(m, p, None)  # type: ignore[misc]
    if names[:2] == ["method", "params"] and len(names) == 2:
        return impl
    return cdp.send


class _Launch:
    """One :func:`~guigym.backends.chromium.launch_async` that its caller may give up on (a
    deadline, a ``KeyboardInterrupt``, which may even come before the call was handed over to
    the loop, so that there is nothing to cancel): :meth:`abandon` closes the browser it
    brings up. Cancelling the call alone does not stop the driver from starting it, and nothing
    would ever hold that browser: it ran until the driver stopped."""

    def __init__(self) -> None:
        self.task: asyncio.Future[Any] | None = None
        self.abandoned = False

    async def run(self, pw: Any, executable: str | None, args: tuple[str, ...], timeout_ms: float) -> Any:
        if self.abandoned:  # given up before it began (run on the loop's thread, like reap)
            raise asyncio.CancelledError
        self.task = asyncio.ensure_future(launch_async(pw, executable, args=args, timeout=timeout_ms))
        return await asyncio.shield(self.task)  # a cancelled call leaves the launch to reap()

    def abandon(self) -> Any:
        """Mark it given up; the coroutine to run on the loop that closes its browser."""
        self.abandoned = True
        return self._reap()

    async def _reap(self) -> None:
        if self.task is None:  # never began: run() sees `abandoned`
            return
        try:
            browser = (await self.task)[0]
        except BaseException:  # failed (ChromiumNotFound, ...) or the loop is stopping: nothing to close
            return
        await _quietly(browser.close())


async def _quietly(aw: Any) -> None:
    try:
        await aw
    except Exception:  # best effort (closing what is dying anyway)
        pass


_CAPTURE = ("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True, "captureBeyondViewport": False})
_FUNCTIONS = {
    "show": "function (v, frameId) { return this.show(v, frameId); }",
    "drain": "function () { return this.drain(); }",
    "drainAfter": "function (until, ms) { return this.drainAfter(until, ms); }",
    "drainIf": "function (until) { return this.drainIf(until); }",
    "measure": "function () { return this.measure(); }",
    "font": "function (name, b64) { return this.font(name, b64); }",
}


def _probe_view() -> View:
    """A screen with every kind of widget, to check the capture paths against each other."""
    from guigym.apps.base import Widget

    rows = [
        Widget("h", "label", "Probe", style="heading"), Widget("i", "input", "Name", value="Ada"),
        Widget("p", "input", "Password", placeholder="secret", secret=True), Widget("c", "checkbox", "Remember", value=True),
        Widget("t", "toggle", "Wi-Fi", value=True), Widget("r", "radio", "Small", value=True, group="g", option="s"),
        Widget("l", "link", "Display", detail="Dark", to="x"), Widget("b", "button", "Save", style="primary"),
    ]
    return View("probe", "probe", "Probe", rows, focus="i")


def _same_picture(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two renderings of one view agree up to anti-aliasing: a few edge pixels of
    text and rounded corners differ a little (two raster paths), no pixel differs a lot (as
    it would where a glyph, a widget or a colour were missing)."""
    d = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=-1)
    return bool((d > 0).mean() < 0.005 and d.max() <= 64)


def _weak_call(ref: weakref.ref[BrowserBackend], method: str, *args: Any) -> None:
    obj = ref()
    if obj is not None:
        getattr(obj, method)(*args)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie is not); True where ``/proc`` is absent."""
    st = stat(pid)
    if st is None:
        return not os.path.isdir("/proc/self")
    return st[0] not in ("Z", "X", "x")


def _profile_dir(pid: int | None) -> str | None:
    """The profile folder of Chromium ``pid`` (its ``--user-data-dir``), or None."""
    args = cmdline(pid).split(b"\0")
    profile = next((a.partition(b"=")[2] for a in args if a.startswith(b"--user-data-dir=")), None)
    return os.fsdecode(profile) if profile else None


def _temp_dirs(pid: int | None, artifacts: str | None) -> list[str]:
    """The temp folders of Chromium ``pid`` to remove once it is gone: its singleton folder, and
    the profile and artifacts folders Playwright made for it. Playwright removes the last two
    when its driver sees the browser exit, never when the driver is killed or hung (each crash
    recovery of that kind would leave two folders). Only Playwright's own temp profile (its
    ``playwright_*dev_profile-`` name) is taken, never a profile a user passed; ``artifacts``
    only when it lies next to that profile (made by the same launch in the same folder)."""
    out = [d for d in (_singleton_dir(pid),) if d]
    profile = os.path.normpath(_profile_dir(pid) or ".")
    if _is_pw_profile(profile):
        out.append(profile)
        if artifacts and os.path.basename(artifacts).startswith(_ARTIFACTS) and os.path.dirname(artifacts) == os.path.dirname(profile):
            out.append(artifacts)
    return out


_ARTIFACTS = "playwright-artifacts-"
#: A file the backend writes into the Playwright profile of each browser it starts, listing that
#: browser's temp folders (:func:`_temp_dirs`), so that another backend can remove them once no
#: process uses the profile: a process killed with its whole tree at once (``ray.kill`` of an
#: actor: Python, Playwright's driver and Chromium) leaves them, and nothing of it can clean up.
_CLAIM = "guigym-temp-dirs.json"


def _is_pw_profile(path: str) -> bool:
    """Whether ``path`` is a temp profile Playwright made (never one a user passed)."""
    name = os.path.basename(path)
    return name.startswith("playwright_") and "dev_profile-" in name


def _claim(tmp: list[str]) -> str | None:
    """Write :data:`_CLAIM` into the Playwright profile among ``tmp``; the folder that holds
    that profile (None: no Playwright profile)."""
    profile = next((p for p in tmp if _is_pw_profile(p)), None)
    if profile is None:
        return None
    try:
        with open(os.path.join(profile, _CLAIM), "w") as f:
            json.dump(tmp, f)
    except OSError:  # read-only or gone: the folders are left, as without the claim
        pass
    return os.path.dirname(profile)


def _remove_orphaned(folder: str | None) -> None:
    """Remove the temp folders of guigym browsers in ``folder`` whose processes are all gone:
    Playwright profiles of this user that hold a :data:`_CLAIM` and that no running process
    has as its ``--user-data-dir``, with the folders their claim lists (an artifacts or
    singleton folder beside them). Profiles are listed before the processes are read: a claim
    is written after its Chromium started, so a live one is always seen using its profile."""
    try:
        names = os.listdir(folder) if folder else []
    except OSError:
        return
    claimed = [p for p in (os.path.join(folder, n) for n in names) if _is_pw_profile(p)  # type: ignore[arg-type]
               and os.path.isfile(os.path.join(p, _CLAIM))]
    if not claimed:
        return
    used = {os.path.normpath(d) for d in map(_profile_dir, pids()) if d}
    for profile in claimed:
        try:
            if profile in used or os.lstat(profile).st_uid != os.getuid():
                continue
            with open(os.path.join(profile, _CLAIM)) as f:
                listed = json.load(f)
        except (OSError, ValueError):
            continue
        # only folders of the kinds _temp_dirs takes, beside the profile; the profile last, so
        # a sweep cut short leaves the claim for the next one
        listed = listed if isinstance(listed, list) else []
        beside = [p for p in listed if isinstance(p, str) and os.path.dirname(p) == folder and p != profile
                  and os.path.basename(p).startswith((_ARTIFACTS, "org.chromium.Chromium."))]
        _remove_tmp([*beside, profile])


def _artifacts_dirs(folder: str | None) -> set[str] | None:
    """Names of Playwright's artifacts folders in ``folder`` (None: not readable)."""
    if folder is None:
        return None
    try:
        return {n for n in os.listdir(folder) if n.startswith(_ARTIFACTS)}
    except OSError:
        return None


def _singleton_dir(pid: int | None) -> str | None:
    """The folder that Chromium ``pid`` made in the temp dir for its singleton socket (linked
    from its profile), or None. Chromium removes it when it exits, not when it is killed (a
    crash, a hang, an env never closed): the backend removes it once the browser is gone."""
    profile = _profile_dir(pid)
    if not profile:
        return None
    try:
        folder = os.path.dirname(os.readlink(os.path.join(profile, "SingletonSocket")))
        # only Chromium's singleton files in it: never remove anything else
        ok = bool(folder) and all(n.startswith("Singleton") for n in os.listdir(folder))
    except OSError:
        return None
    return folder if ok else None


def _remove_tmp(paths: list[str]) -> None:
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)


def _wait_gone(pids: list[int], timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if not any(alive(p) for p in pids):
            return
        time.sleep(0.01)


@functools.cache
def _default_font_base64() -> str:
    """pygame's default font file (what ``pygame.font.Font(None, size)`` draws), base64-encoded."""
    spec = importlib.util.find_spec("pygame")
    assert spec is not None and spec.origin is not None, "pygame is a dependency of guigym"
    return base64.b64encode((Path(spec.origin).parent / "freesansbold.ttf").read_bytes()).decode("ascii")


def runtime_html() -> str:
    """The runtime page from the ``sites`` package (shipped in the wheel), or from the source
    checkout's ``sites/`` folder when the package is not importable."""
    try:
        import sites

        if callable(getattr(sites, "page_html", None)):
            return sites.page_html()
    except ImportError:
        pass
    path = Path(__file__).resolve().parents[2] / "sites" / "__init__.py"
    if not path.is_file():
        raise FileNotFoundError("guigym's browser runtime (the `sites` package: index.html, runtime.js, runtime.css) is not installed")
    spec = importlib.util.spec_from_file_location("_guigym_sites", path)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod.page_html()


def _first_line(e: BaseException) -> str:
    s = str(e).strip()
    return s.splitlines()[0] if s else type(e).__name__


def _guard(route: Any) -> Any:
    """Let a request through only if it stays on this machine (loopback) or in the page.

    Returns what ``continue_``/``abort`` return (Playwright's async API awaits it)."""
    url = route.request.url
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about") or (parts.scheme in ("http", "https", "ws", "wss") and (parts.hostname or "") in LOOPBACK):
        return route.continue_()
    return route.abort("blockedbyclient")
