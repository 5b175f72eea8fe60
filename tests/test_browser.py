"""The browser backend against a real headless Chromium (never skipped: CI installs one).

Parity with the mock backend (same AppState, events, errors and boxes after every step of a
reference trajectory with random detours, >= 50 seeds per id x level), DOM boxes equal to the
shared layout, hit-testing at widget edges, deterministic screenshots, escaping of typed and
generated text, network isolation, crash and hang recovery, idempotent close without leftover
processes, bounded resources over many resets, and AsyncVectorEnv workers.
"""

from __future__ import annotations

import http.server
import os
import signal
import struct
import subprocess
import sys
import threading
import time
import zlib
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from guigym.actions import Back, Click, Scroll, Type
from guigym.apps.base import HOME, View, Widget
from guigym.backends import make_backend
from guigym.backends.base import event_for
from guigym.backends.browser import BrowserBackend, BrowserCrashed, _guard, decode_png, process_tree
from guigym.backends.chromium import ENV_VAR, ChromiumNotFound, candidates, launch
from guigym.backends.procfs import alive, cmdline
from guigym.layout import layout
from guigym.registration import id_levels

pytestmark = pytest.mark.browser

ID_LEVELS = id_levels()
PARITY_SEEDS = 50
PIXEL_SEEDS = 6  # of which the first ones also take real screenshots every step
W, H = 360, 640


def make(env_id: str, backend: str = "mock", **kw: Any) -> gym.Env:
    return gym.make(env_id, backend=backend, disable_env_checker=True, **kw)


def running(pids: list[int]) -> list[int]:
    """The pids that are still running (zombies count as gone)."""
    return [pid for pid in pids if alive(pid)]


def chromium_descendants() -> set[int]:
    """Running Chromium processes started (directly or not) by this test process."""
    exes = {pid: cmdline(pid).split(b"\0")[0].lower() for pid in process_tree(os.getpid())}
    return {pid for pid, exe in exes.items() if b"chrom" in exe or b"headless_shell" in exe}


class _Pool:
    """One browser env per id for the whole module (a browser per env, reused across resets)."""

    def __init__(self) -> None:
        self.envs: dict[str, gym.Env] = {}

    def get(self, env_id: str) -> gym.Env:
        if env_id not in self.envs:
            for other in list(self.envs):  # keep one browser at a time
                self.envs.pop(other).close()
            self.envs[env_id] = make(env_id, "browser")
        return self.envs[env_id]

    def close(self) -> None:
        for env in self.envs.values():
            env.close()
        self.envs.clear()


@pytest.fixture(scope="module")
def pool():
    p = _Pool()
    yield p
    p.close()


@pytest.fixture(scope="module")
def backend():
    b = BrowserBackend(W, H)
    yield b
    b.close()


# ------------------------------------------------------------------------------ parity


def _states_equal(benv: gym.Env, menv: gym.Env) -> bool:
    return benv.unwrapped.get_state()["state"] == menv.unwrapped.get_state()["state"]


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_parity_with_mock(pool: _Pool, env_id: str, level: str) -> None:
    """The reference trajectory (after 0-3 random detour actions) replayed on both backends
    gives the same state, event, action error, reward, termination and widget boxes after
    every step; the oracle succeeds on the browser as on the mock."""
    benv, menv = pool.get(env_id), make(env_id)
    backend = benv.unwrapped.backend
    blank = np.zeros((H, W, 3), np.uint8)
    pure_successes = 0
    for seed in range(PARITY_SEEDS):
        # semantic parity does not need pixels: past the first seeds, skip the captures
        # (screenshots are checked by the determinism tests); every DOM action stays real
        if seed == PIXEL_SEEDS:
            backend.screenshot = lambda: blank
        _, bi = benv.reset(seed=seed, options={"level": level})
        _, mi = menv.reset(seed=seed, options={"level": level})
        assert _states_equal(benv, menv)
        assert [r.action for r in bi["reference"]] == [r.action for r in mi["reference"]]
        space = menv.action_space
        space.seed(seed)
        detour = [space.sample() for _ in range(seed % 4)]
        done, k = False, 0
        while not done:
            if k < len(detour):
                a: Any = detour[k]
            elif mi["reference"]:
                a = mi["reference"][0].action
            else:
                break
            _, br, bt, btr, bi = benv.step(a)
            _, mr, mt, mtr, mi = menv.step(a)
            where = f"{env_id} {level} seed={seed} step={k} action={a}"
            assert bi["event"] == mi["event"], where
            assert bi["action_error"] == mi["action_error"], where
            assert _states_equal(benv, menv), where
            assert (br, bt, btr) == (mr, mt, mtr), where
            assert benv.unwrapped.backend.boxes() == {w.id: b for w, b in menv.unwrapped._lay.visible}, where
            assert [e["box"] for e in bi["elements"]] == [e["box"] for e in mi["elements"]], where
            k += 1
            done = bt or btr
            assert k < 100, where
        assert bi["success"] == mi["success"]
        if not detour:
            assert bi["success"], f"oracle failed on the browser: {env_id} {level} seed={seed}"
            pure_successes += 1
    del backend.screenshot
    assert pure_successes >= PARITY_SEEDS // 4
    menv.close()


# ------------------------------------------------------------- hit-testing and boxes


def _kitchen_sink(scroll: int = 0, focus: str | None = "name") -> View:
    rows = [
        Widget("head", "label", "Every widget", style="heading"),
        Widget("name", "input", "Name", value="bob", placeholder="Your name"),
        Widget("pw", "input", "Password", value="", placeholder="secret", secret=True),
        Widget("cb", "checkbox", "Remember me", value=True),
        Widget("tg", "toggle", "Wi-Fi", value=False),
        Widget("r1", "radio", "Small", value=True, group="size", option="s"),
        Widget("r2", "radio", "Large", value=False, group="size", option="l"),
        Widget("lk", "link", "Display", detail="Dark theme", to="display"),
        Widget("go", "button", "Save", style="primary"),
        Widget("no", "button", "Cancel"),
        Widget("err", "label", "", value="Something went wrong", style="error"),
    ]
    rows += [Widget(f"l{i}", "link", f"Item {i}", to="x") for i in range(8)]
    rows += [Widget("late", "input", "Far below", value="")]
    return View("app", "main", "<b>Kitchen</b> sink", rows, scroll=scroll, focus=focus, theme={"primary": (103, 58, 183)})


def _probe_points(lay) -> list[tuple[int, int]]:
    pts = []
    for _, (x0, y0, x1, y1) in lay.visible:
        cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
        pts += [(x0, y0), (x1, y1), (x0, y1), (x1, y0), (cx, cy), (x0 - 1, cy), (x1 + 1, cy), (cx, y0 - 1), (cx, y1 + 1)]
    rng = np.random.default_rng(0)
    pts += [(int(x), int(y)) for x, y in zip(rng.integers(0, W, 40), rng.integers(0, H, 40))]
    return pts + [(5, 5), (W - 1, H - 1), (0, 100), (-1, 10), (W, 10), (10, H)]


@pytest.mark.parametrize("scroll", [0, 4, 99])
def test_clicks_match_mock_hit_testing(backend: BrowserBackend, scroll: int) -> None:
    """Clicks at every widget's corners, centre and just outside, and at random points, give
    exactly the mock's event (or error); the DOM is restored after each."""
    v = _kitchen_sink(scroll)
    lay = layout(v, W, H)
    backend.show(v, lay)
    assert backend.boxes() == {w.id: b for w, b in lay.visible}
    for x, y in _probe_points(lay):
        assert backend.perform(Click(x, y)) == event_for(Click(x, y), v, lay), (x, y)
    assert backend.boxes() == {w.id: b for w, b in lay.visible}


def test_scroll_and_type_match_mock(backend: BrowserBackend) -> None:
    for scroll in (0, 3, 99):
        v = _kitchen_sink(scroll)
        lay = layout(v, W, H)
        backend.show(v, lay)
        for d in ("down", "up", "left", "right"):
            for a in (Scroll(d), Scroll(d, 30, 10), Scroll(d, W - 1, H - 1), Scroll(d, W + 5, 10)):
                assert backend.perform(a) == event_for(a, v, lay), a
    # typing replaces the focused field's content, also when it is scrolled out of view
    for focus in ("name", "late", "pw"):
        v = _kitchen_sink(0, focus)
        lay = layout(v, W, H)
        backend.show(v, lay)
        for text in ("alice", "", "  spaced  ", "ünï中文 ok"):
            assert backend.perform(Type(text)) == event_for(Type(text), v, lay) == (guigym.events.Event("input", focus, text), None)
    v = _kitchen_sink(0, None)
    lay = layout(v, W, H)
    backend.show(v, lay)
    assert backend.perform(Type("x")) == event_for(Type("x"), v, lay)
    assert backend.perform(Back()) == event_for(Back(), v, lay)


def test_both_ways_of_collecting_an_input_match_mock(backend: BrowserBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    """An input's effects are drained at once when the page has handled it (most clicks), and
    waited for when the drain ran first; either way the events are the mock's."""
    v = _kitchen_sink(0)
    lay = layout(v, W, H)
    backend.show(v, lay)
    points = _probe_points(lay)[::2]
    before = dict(backend.drains)
    for x, y in points:
        assert backend.perform(Click(x, y)) == event_for(Click(x, y), v, lay), (x, y)
    at_once = backend.drains["at_once"] - before["at_once"]
    assert at_once + backend.drains["waited"] - before["waited"] == sum(not (x < 0 or y < 0 or x >= W or y >= H) for x, y in points)
    assert at_once > 0
    import guigym.backends.browser as browser_mod

    monkeypatch.setitem(browser_mod._FUNCTIONS, "drainIf", "function (until) { return null; }")  # as if it ran first
    before = dict(backend.drains)
    for x, y in points:
        assert backend.perform(Click(x, y)) == event_for(Click(x, y), v, lay), (x, y)
    for text in ("alice", ""):
        assert backend.perform(Type(text)) == (guigym.events.Event("input", "name", text), None)
    for d in ("down", "up"):
        assert backend.perform(Scroll(d)) == event_for(Scroll(d), v, lay)
    assert backend.drains["at_once"] == before["at_once"] and backend.drains["waited"] > before["waited"]


def test_home_grid_matches_mock(backend: BrowserBackend) -> None:
    icons = [Widget(f"icon:App{i}", "icon", f"App{i}", value=[(i * 40) % 256, 120, 200]) for i in range(27)]
    for page in (0, 1):
        v = View(HOME, HOME, "", icons, grid=True, page=page, pages=2)
        lay = layout(v, W, H)
        backend.show(v, lay)
        assert backend.boxes() == {w.id: b for w, b in lay.visible}
        for x, y in _probe_points(lay)[::3]:
            assert backend.perform(Click(x, y)) == event_for(Click(x, y), v, lay), (x, y)
        for d in ("left", "right", "up", "down"):
            assert backend.perform(Scroll(d)) == event_for(Scroll(d), v, lay)


def test_layout_boxes_over_viewports() -> None:
    """DOM boxes equal the layout's on other viewport sizes too (including partial rows)."""
    for w, h in ((240, 304), (412, 915), (300, 650)):
        b = make_backend("browser", w, h)
        try:
            v = _kitchen_sink(2)
            lay = layout(v, w, h)
            b.show(v, lay)
            assert b.boxes() == {x.id: box for x, box in lay.visible}
            shot = b.screenshot()
            assert shot.shape == (h, w, 3) and shot.dtype == np.uint8
        finally:
            b.close()


# ----------------------------------------------------------------- screenshots


def test_screenshots_are_deterministic(pool: _Pool) -> None:
    env = pool.get("GuiGym-Login-v0")
    for level in ("easy", "hard"):
        first = {s: env.reset(seed=s, options={"level": level})[0]["screenshot"] for s in range(4)}
        env.action_space.seed(0)
        for _ in range(6):  # some history in between
            env.step(env.action_space.sample())
        for s in (3, 1, 0, 2):
            obs, info = env.reset(seed=s, options={"level": level})
            assert obs["screenshot"].tobytes() == first[s].tobytes()
        # the same actions from the same seed give the same frames
        frames = []
        for _ in range(2):
            obs, info = env.reset(seed=7, options={"level": level})
            seq = [obs["screenshot"]]
            for step in info["reference"][:4]:
                seq.append(env.step(step.action)[0]["screenshot"])
            frames.append(seq)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(*frames))
        assert len({f.tobytes() for f in frames[0]}) > 1  # and they do change


@pytest.mark.parametrize("channels", [3, 4])
def test_screenshot_decoding(channels: int) -> None:
    """The decoder of Chromium's fast PNGs (every row filtered Up), RGB and RGBA."""
    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, (7, 5, channels), dtype=np.uint8)
    rows = np.vstack([img[0].reshape(1, -1), (img[1:].astype(np.int16) - img[:-1]).astype(np.uint8).reshape(6, -1)])
    raw = np.hstack([np.array([[0]] + [[2]] * 6, dtype=np.uint8), rows]).tobytes()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", 5, 7, 8, 2 if channels == 3 else 6, 0, 0, 0))
    png = b"\x89PNG\r\n\x1a\n" + ihdr + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    assert np.array_equal(decode_png(png, 5, 7), img[:, :, :3])
    from PIL import Image

    assert np.array_equal(np.asarray(Image.open(__import__("io").BytesIO(png)).convert("RGB")), img[:, :, :3])


def test_fast_decoder_matches_pillow_on_chromium_pngs(backend: BrowserBackend) -> None:
    import base64
    import io

    from PIL import Image

    v = _kitchen_sink(1)
    backend.show(v, layout(v, W, H))
    data = base64.b64decode(backend._send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})["data"])
    ours = decode_png(data, W, H + 1)  # the viewport has one row more: the frame id
    assert np.array_equal(ours, np.asarray(Image.open(io.BytesIO(data)).convert("RGB")))
    assert len(np.unique(ours.reshape(-1, 3), axis=0)) > 20  # a real drawing, not a blank page


@pytest.mark.parametrize("scroll", [0, 5])
def test_layer_snapshots_agree_with_composited_frames(backend: BrowserBackend, scroll: int) -> None:
    """Screenshots paint the page's layer on demand; they match what the compositor shows up
    to text anti-aliasing, and carry the frame id of the view they show."""
    from guigym.backends.browser import _same_picture

    icons = [Widget(f"icon:A{i}", "icon", f"A{i}", value=[200, 40 * (i % 6), 90]) for i in range(23)]
    for v in (_kitchen_sink(scroll), _kitchen_sink(scroll, None), View(HOME, HOME, "", icons, grid=True, pages=2)):
        lay = layout(v, W, H)
        before = dict(backend.frames)
        backend.show(v, lay)
        shot = backend.screenshot()
        assert backend.frames["layer"] == before["layer"] + 1, backend.frames
        real = backend._screen()
        d = np.abs(shot.astype(int) - real.astype(int)).max(-1)
        assert _same_picture(shot, real), ((d > 0).sum(), d.max(), v.focus, v.grid)
        assert np.array_equal(backend.screenshot(), shot)  # cached until the next show


def test_composited_capture_mode() -> None:
    b = BrowserBackend(W, H, capture="screen")
    try:
        v = _kitchen_sink(0)
        b.show(v, layout(v, W, H))
        assert b.screenshot().shape == (H, W, 3)
        assert b.frames["screen"] == 1 and b.frames["layer"] == 0
    finally:
        b.close()
    with pytest.raises(ValueError, match="capture"):
        BrowserBackend(W, H, capture="gpu")


def test_picture_check_sees_small_differences(backend: BrowserBackend) -> None:
    from guigym.backends.browser import _same_picture

    shots = []
    for change in (None, "label", "tick"):
        v = _kitchen_sink(0)
        if change == "label":
            v.rows[9].label = "Cancal"
        elif change == "tick":
            v.rows[3].value = False
        backend.show(v, layout(v, W, H))
        shots.append(backend.screenshot())
    assert not _same_picture(shots[0], shots[1]) and not _same_picture(shots[0], shots[2])


# ------------------------------------------------------------------------- safety


PAYLOAD = "<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">&amp;'\""


def test_typed_text_stays_text(pool: _Pool) -> None:
    env = pool.get("GuiGym-Login-v0")
    _, info = env.reset(seed=0, options={"level": "easy"})
    page = env.unwrapped.backend.page
    dialogs: list[Any] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    click = next(r for r in info["reference"] if isinstance(r.action, Click) and r.target == "user")
    env.step(click.action)
    _, _, _, _, info = env.step(Type(PAYLOAD))
    assert info["event"].value == PAYLOAD
    assert env.unwrapped.get_state()["state"]["apps"][env.unwrapped.scenario["task"]["app"]]["values"]["user"] == PAYLOAD
    dom = page.evaluate("""() => ({
        scripts: document.querySelectorAll('script').length, imgs: document.querySelectorAll('img').length,
        pwned: window.__pwned === undefined ? null : window.__pwned,
        value: document.querySelector('[data-wid="user"] input').value })""")
    assert dom == {"scripts": 1, "imgs": 0, "pwned": None, "value": PAYLOAD}
    assert dialogs == []


def test_generated_text_is_not_markup(backend: BrowserBackend) -> None:
    rows = [Widget("l", "label", PAYLOAD), Widget("b", "button", PAYLOAD), Widget("k", "link", PAYLOAD, detail=PAYLOAD),
            Widget("i", "input", PAYLOAD, value=PAYLOAD, placeholder=PAYLOAD), Widget("c", "checkbox", PAYLOAD, value=False)]
    v = View("app", "main", PAYLOAD, rows)
    backend.show(v, layout(v, W, H))
    dom = backend.page.evaluate("""() => ({
        title: document.querySelector('.title').textContent,
        texts: [...document.querySelectorAll('.w')].map(e => e.querySelector('.t') ? e.querySelector('.t').textContent : null),
        value: document.querySelector('[data-wid="i"] input').value,
        scripts: document.querySelectorAll('script').length, imgs: document.querySelectorAll('img').length,
        pwned: window.__pwned === undefined ? null : window.__pwned })""")
    # too wide for its space, a text is shortened with "…" (guigym.display.fit_text): still the
    # payload's characters, never parsed (the markup would leave no "<script>" in textContent)
    def as_text(t: str) -> bool:
        return t == PAYLOAD or (t.endswith("…") and len(t) > len("<script>") and PAYLOAD.startswith(t[:-1]))
    assert as_text(dom["title"]) and dom["value"] == PAYLOAD
    assert all(as_text(t) for t in dom["texts"][:3]), dom["texts"]
    assert (dom["scripts"], dom["imgs"], dom["pwned"]) == (1, 0, None)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        body = b"<html><body>loopback ok</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_pages_reach_only_loopback(backend: BrowserBackend) -> None:
    from playwright.sync_api import Error as PlaywrightError

    page = backend.page
    # the runtime page itself: no network at all (CSP), whatever a script would try
    blocked = page.evaluate("() => fetch('http://93.184.215.14/').then(() => 'reached', e => 'blocked')")
    assert blocked == "blocked"
    # any page of the context: non-loopback requests are aborted by the route guard
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        for url in (f"http://127.0.0.1:{srv.server_address[1]}/", f"http://localhost:{srv.server_address[1]}/"):
            other = page.context.new_page()
            other.goto(url, timeout=5000)
            assert "loopback ok" in other.content()
            other.close()
        for url in ("http://93.184.215.14/", "https://example.com/", "http://10.255.255.1:8080/x"):
            other = page.context.new_page()  # a fresh page each: an error page would interrupt the next goto
            with pytest.raises(PlaywrightError, match="ERR_BLOCKED_BY_CLIENT"):
                other.goto(url, timeout=5000)
            other.close()
    finally:
        srv.shutdown()


def test_route_guard_rules() -> None:
    class R:
        def __init__(self, url: str) -> None:
            self.request = type("Q", (), {"url": url})()
            self.result = ""

        def continue_(self) -> None:
            self.result = "continue"

        def abort(self, reason: str) -> None:
            self.result = "abort"

    for url, want in [("http://127.0.0.1:8000/a", "continue"), ("http://localhost/", "continue"), ("http://[::1]:9/", "continue"),
                      ("data:text/html,x", "continue"), ("about:blank", "continue"), ("http://example.com/", "abort"),
                      ("https://127.0.0.1.evil.com/", "abort"), ("http://10.0.0.1/", "abort"), ("file:///etc/passwd", "abort"),
                      ("ftp://127.0.0.1/", "abort")]:
        r = R(url)
        _guard(r)
        assert r.result == want, url


# -------------------------------------------------------------------- faults, leaks


def test_crash_then_step_raises_and_reset_recovers() -> None:
    env = make("GuiGym-Login-v0", "browser")
    try:
        obs0, info = env.reset(seed=3)
        b = env.unwrapped.backend
        old = b.chromium_pids()
        assert b.browser_pid in old
        os.kill(b.browser_pid, signal.SIGKILL)
        t = time.monotonic()
        with pytest.raises(BrowserCrashed, match="reset"):
            env.step(info["reference"][0].action)
        assert time.monotonic() - t < 5
        with pytest.raises(BrowserCrashed):  # and it stays an error until reset
            env.step(info["reference"][0].action)
        obs, info = env.reset(seed=3)
        assert b.restarts == 1 and b.browser_pid not in old
        assert obs["screenshot"].tobytes() == obs0["screenshot"].tobytes()
        _, _, _, _, info = env.step(info["reference"][0].action)
        assert info["event"] is not None and info["action_error"] is None
        assert running(old) == []
    finally:
        env.close()


def test_hung_browser_is_killed_not_waited_for() -> None:
    env = make("GuiGym-Login-v0", "browser", backend_kwargs={"timeout_s": 2})
    try:
        _, info = env.reset(seed=0)
        b = env.unwrapped.backend
        os.kill(b.browser_pid, signal.SIGSTOP)
        t = time.monotonic()
        with pytest.raises(BrowserCrashed, match="did not answer|failed"):
            env.step(info["reference"][0].action)
        assert time.monotonic() - t < 8
        obs, info = env.reset(seed=0)
        assert obs["screenshot"].std() > 0 and b.restarts == 1
    finally:
        env.close()


def test_close_is_idempotent_and_leaves_no_process() -> None:
    before = chromium_descendants()
    env = make("GuiGym-Login-v0", "browser")
    env.reset(seed=0)
    pids = env.unwrapped.backend.chromium_pids()
    assert len(pids) >= 2 and set(pids) <= chromium_descendants()
    env.close()
    env.close()
    assert running(pids) == []
    assert chromium_descendants() <= before
    b = BrowserBackend(W, H)  # never started
    b.close()
    b.close()


def test_many_resets_do_not_grow(pool: _Pool) -> None:
    env = pool.get("GuiGym-Login-v0")
    env.reset(seed=0, options={"level": "hard"})
    b = env.unwrapped.backend
    for s in range(10):
        env.reset(seed=s)
    procs, mem = len(b.chromium_pids()), b.memory_kib()
    for s in range(50):
        env.reset(seed=1000 + s, options={"level": ("easy", "medium", "hard")[s % 3]})
    assert len(b.chromium_pids()) == procs
    assert b.memory_kib() - mem < 64 * 1024, "browser memory grew by more than 64 MiB over 50 resets"
    assert b.restarts == 0


def test_async_vector_env_starts_browsers_in_workers() -> None:
    before = chromium_descendants()
    venv = gym.vector.AsyncVectorEnv([lambda: make("GuiGym-Login-v0", "browser") for _ in range(2)], shared_memory=False)
    try:
        obs, _ = venv.reset(seed=0)
        assert obs["screenshot"].shape == (2, H, W, 3)
        assert not np.array_equal(obs["screenshot"][0], obs["screenshot"][1])
        venv.action_space.seed(0)
        for _ in range(5):
            obs, *_ = venv.step(venv.action_space.sample())
        assert obs["screenshot"].shape == (2, H, W, 3)
        assert len(chromium_descendants() - before) >= 4  # two browsers, in the workers
    finally:
        venv.close()
    deadline = time.monotonic() + 5
    while chromium_descendants() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert chromium_descendants() <= before


# ------------------------------------------------------------------ finding Chromium


def test_finding_chromium_order_and_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert candidates()[0] == ("Playwright's Chromium", None)
    assert candidates("/x/chrome") == [("executable argument", "/x/chrome")]
    monkeypatch.setenv(ENV_VAR, "/nonexistent/chromium")
    assert candidates() == [(f"${ENV_VAR}", "/nonexistent/chromium")]
    monkeypatch.setenv("PATH", "/nonexistent-bin")  # no other Chromium: the message says how to install one
    with pytest.raises(ChromiumNotFound) as e:
        launch(object())  # the path is checked before anything is launched
    msg = str(e.value)
    assert msg.startswith(f"{ENV_VAR}=/nonexistent/chromium does not exist: fix {ENV_VAR} or unset it.")
    assert "playwright install chromium" in msg and "apt-get install chromium" in msg


def test_missing_chromium_leaves_no_unawaited_coroutine() -> None:
    """The failed launch stops its Playwright driver cleanly: no "coroutine ... was never
    awaited" warning at exit (the stop used to be dropped unclosed once the loop had ended)."""
    code = ("import gymnasium as gym, guigym\n"
            "env = gym.make('GuiGym-Login-v0', backend='browser')\n"
            "try:\n    env.reset(seed=0)\nexcept Exception as e:\n    print(type(e).__name__)\n")
    run = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, ENV_VAR: "/nonexistent/chromium"})
    assert run.stdout.strip() == "ChromiumNotFound", run.stderr
    assert "never awaited" not in run.stderr, run.stderr


def test_launch_args_checked_at_make_still_reach_chromium() -> None:
    """``gym.make`` checks ``launch_args`` (reading a generator there, once, into a tuple): the
    flags still reach the browser that the first reset starts, and it runs."""
    env = make("GuiGym-Login-v0", "browser", backend_kwargs={"launch_args": (a for a in ["--mute-audio", "--guigym-test-flag"])})
    try:
        env.reset(seed=0)
        b = env.unwrapped.backend
        assert b"--guigym-test-flag" in cmdline(b._main_pid).split(b"\0")
        env.step("click(10, 10)")
    finally:
        env.close()


def test_broken_executable_is_a_clear_error() -> None:
    """The executable given is used alone: the error says first that it failed to launch (it
    said "no usable Chromium" and how to install one, with a working Chromium installed)."""
    env = make("GuiGym-Login-v0", "browser", backend_kwargs={"executable": "/bin/false"})
    try:
        with pytest.raises(ChromiumNotFound, match=r"^executable '/bin/false' failed to launch: fix it or leave it out\.") as e:
            env.reset(seed=0)
        assert "Without it, guigym would use " in str(e.value)  # this suite runs with a Chromium installed
    finally:
        env.close()
