"""Browser faults and isolation against a real headless Chromium (issue 15, items 8 and 12).

* After Chromium dies mid-episode, every ``step()`` raises ``BrowserCrashed`` whatever the
  action (including the ones that never reach the page: Back, OpenApp, off-screen clicks,
  unparsable text), until ``reset()`` starts a new browser.
* WebSocket handshakes to a host that is not loopback never leave the browser (Playwright's
  route guard does not see them; a dead proxy with loopback bypass does).
"""

from __future__ import annotations

import http.server
import os
import signal
import socket
import threading
import time
from typing import Any

import gymnasium as gym
import pytest

import guigym  # noqa: F401
from guigym.actions import Back, Click, OpenApp, Scroll, Type
from guigym.backends.browser import BrowserCrashed
from guigym.backends.procfs import cmdline as _cmdline
from guigym.backends.procfs import alive

pytestmark = pytest.mark.browser


def _gone(pid: int, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.01)
    return False


def _actions(env: gym.Env) -> dict[str, Any]:
    apps = sorted(env.unwrapped.scenario["apps"])
    return {
        "click": Click(180, 320), "off-screen click": Click(5000, 5000), "scroll": Scroll("down"), "type": Type("alice"),
        "back": Back(), "open app": OpenApp(apps[0]), "unknown app": OpenApp("NoSuchApp"), "unparsable text": "not an action",
        "action text": '{"action": "back"}', "action dict": env.action_space.sample(),
    }


def test_every_action_raises_after_a_crash_until_reset() -> None:
    env = gym.make("GuiGym-Login-v0", backend="browser", disable_env_checker=True)
    try:
        obs0, _ = env.reset(seed=3)
        b = env.unwrapped.backend
        kinds = _actions(env)
        for i, (name, first) in enumerate(kinds.items()):
            pid = b.browser_pid
            os.kill(pid, signal.SIGKILL)
            assert _gone(pid)
            t = time.monotonic()
            with pytest.raises(BrowserCrashed, match="reset"):
                env.step(first)
            assert time.monotonic() - t < 5, name
            for other, act in kinds.items():  # and every step stays an error until reset
                with pytest.raises(BrowserCrashed):
                    env.step(act)
                assert b.browser_pid == pid, f"{other} after {name} restarted Chromium"
            obs, info = env.reset(seed=3)
            assert b.restarts == i + 1 and b.browser_pid != pid
            assert obs["screenshot"].tobytes() == obs0["screenshot"].tobytes()
            _, _, _, _, info = env.step(info["reference"][0].action)
            assert info["event"] is not None and info["action_error"] is None
    finally:
        env.close()


# --------------------------------------------------------------------------- WebSockets


class _Listener:
    """A plain TCP listener on every interface that records which connections arrive."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.arrived: list[bytes] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    self.arrived.append(conn.recv(4096))
                except OSError:
                    self.arrived.append(b"")

    def close(self) -> None:
        self.sock.close()


class _Page(http.server.BaseHTTPRequestHandler):
    """A loopback page without a CSP (the runtime page's CSP would block every WebSocket)."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        body = b"<html><body>no csp</body></html>"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


_OPEN_WS = """url => new Promise(done => {
    let w; try { w = new WebSocket(url); } catch (e) { done('refused: ' + e.name); return; }
    w.onopen = () => done('open'); w.onerror = () => done('error'); setTimeout(() => done('timeout'), 4000);
})"""


def _not_loopback_hosts() -> list[str]:
    """Addresses of this machine that reach the listener but are not loopback to the guard."""
    hosts = {"127.0.0.2"}  # loopback to the kernel, not to guigym's rule (exactly localhost, 127.0.0.1, ::1)
    try:
        for *_, addr in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            if not addr[0].startswith("127."):
                hosts.add(addr[0])
    except OSError:
        pass
    return sorted(hosts)


def _arrives(host: str, port: int, listener: _Listener) -> bool:
    n = len(listener.arrived)
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError:
        return False
    end = time.monotonic() + 2
    while len(listener.arrived) == n and time.monotonic() < end:
        time.sleep(0.01)
    return len(listener.arrived) > n


@pytest.mark.parametrize("launch_args", [(), ("--host-resolver-rules=MAP nothing.invalid ~NOTFOUND",)], ids=["default", "resolver-off"])
def test_websockets_reach_only_loopback(launch_args: tuple[str, ...]) -> None:
    """A page opens real WebSockets: to loopback they connect, to any other address of this
    machine (a listener that would record the handshake) nothing arrives, also with the
    resolver rules overridden (the proxy layer alone); the runtime page opens none at all."""
    from guigym.backends.browser import BrowserBackend

    listener = _Listener()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    b = BrowserBackend(360, 640, launch_args=launch_args)
    try:
        runtime = b.page
        n = len(listener.arrived)  # the runtime page's CSP (connect-src 'none'): not even loopback
        assert runtime.evaluate(_OPEN_WS, f"ws://127.0.0.1:{listener.port}/") in ("error", "refused: SecurityError")
        time.sleep(0.2)
        assert len(listener.arrived) == n
        page = runtime.context.new_page()
        page.goto(f"http://127.0.0.1:{srv.server_address[1]}/", timeout=5000)
        for host in ("127.0.0.1", "localhost"):  # the listener sees loopback handshakes
            n = len(listener.arrived)
            page.evaluate(_OPEN_WS, f"ws://{host}:{listener.port}/ws")
            time.sleep(0.2)
            assert any(b"Upgrade: websocket" in x for x in listener.arrived[n:]), host
        hosts = [h for h in _not_loopback_hosts() if _arrives(h, listener.port, listener)]
        assert hosts, "no address of this machine other than loopback reaches the listener"
        for host in hosts:
            n = len(listener.arrived)
            assert page.evaluate(_OPEN_WS, f"ws://{host}:{listener.port}/ws") == "error", host
            time.sleep(0.2)
            assert listener.arrived[n:] == [], f"a WebSocket handshake to {host} left the browser"
        page.close()
    finally:
        b.close()
        srv.shutdown()
        listener.close()


# ------------------------------------------------------------------------------- memory


def test_periodic_garbage_collection_is_invisible_and_frees_the_heap() -> None:
    """With ``gc_every=4``, 13 resets collect 3 times (the probe screen's show counts too),
    each collection leaves the page's JS heap small, and every screenshot equals the one of
    a browser that never collects."""
    envs = [gym.make("GuiGym-Settings-v0", backend="browser", disable_env_checker=True, backend_kwargs={"gc_every": n})
            for n in (4, 0)]
    try:
        shots: list[list[bytes]] = [[], []]
        for seed in range(13):
            for env, out in zip(envs, shots):
                obs, _ = env.reset(seed=seed, options={"level": "hard"})
                out.append(obs["screenshot"].tobytes())
            b = envs[0].unwrapped.backend
            if b._shows % 4 == 0:  # this show collected
                used = b._send("Runtime.getHeapUsage")["usedSize"]
                assert used < 4 << 20, f"{used} bytes of JS heap right after a collection"
        assert envs[0].unwrapped.backend.collections == 14 // 4 and envs[1].unwrapped.backend.collections == 0
        assert shots[0] == shots[1]
    finally:
        for env in envs:
            env.close()


# ------------------------------------------------------------------ renderer-only crash


def _is_renderer(pid: int) -> bool:
    return b"--type=renderer" in _cmdline(pid)


@pytest.mark.parametrize("first", ["click", "back", "unparsable text"])
def test_renderer_crash_raises_until_reset(first: str) -> None:
    """Only the page's renderer process dies (the browser process lives): the next step
    raises ``BrowserCrashed`` whatever the action, so do all the others until ``reset()``,
    which gives a working env with the same observation as before."""
    env = gym.make("GuiGym-Login-v0", backend="browser", disable_env_checker=True)
    try:
        obs0, _ = env.reset(seed=3)
        b = env.unwrapped.backend
        kinds = _actions(env)
        renderer, browser = b.renderer_pid, b.browser_pid
        assert renderer is not None and renderer in b.chromium_pids() and _is_renderer(renderer)
        os.kill(renderer, signal.SIGKILL)
        assert _gone(renderer)
        with pytest.raises(BrowserCrashed, match="reset"):
            env.step(kinds[first])
        for name, act in kinds.items():
            with pytest.raises(BrowserCrashed):
                env.step(act)
            assert b.renderer_pid == renderer, f"{name} opened a new page"
        assert _gone(browser)  # the browser goes too: the next reset starts afresh
        obs, info = env.reset(seed=3)
        assert b.restarts == 1 and b.renderer_pid not in (None, renderer)
        assert obs["screenshot"].tobytes() == obs0["screenshot"].tobytes()
        _, _, _, _, info = env.step(info["reference"][0].action)
        assert info["event"] is not None and info["action_error"] is None
    finally:
        env.close()


def test_renderer_crash_reported_by_chromium_alone() -> None:
    """Without the ``/proc`` check (renderer pid unknown, as on a platform without ``/proc``),
    Chromium's own crash report marks the env broken within a moment, and every step raises."""
    env = gym.make("GuiGym-Login-v0", backend="browser", disable_env_checker=True)
    try:
        env.reset(seed=3)
        b = env.unwrapped.backend
        renderer = b.renderer_pid
        b._tab.renderer = None
        os.kill(renderer, signal.SIGKILL)
        end = time.monotonic() + 5
        while b.started and time.monotonic() < end:
            time.sleep(0.01)
        assert not b.started, "the page's crash was not reported"
        for act in _actions(env).values():
            with pytest.raises(BrowserCrashed):
                env.step(act)
        obs, info = env.reset(seed=3)
        assert obs["screenshot"].std() > 0 and b.restarts == 1
    finally:
        env.close()


def test_dead_playwright_driver_raises_then_reset_starts_a_new_one() -> None:
    """Playwright's node driver killed mid-episode (Chromium goes with it): steps raise until
    reset, which starts a new driver and browser; close leaves nothing behind."""
    from guigym.backends.browser import process_tree

    env = gym.make("GuiGym-Login-v0", backend="browser", disable_env_checker=True)
    try:
        obs0, info = env.reset(seed=3)
        b = env.unwrapped.backend
        mine = process_tree(os.getpid())[1:]
        node = [pid for pid in mine if b"run-driver" in _cmdline(pid)]
        assert len(node) == 1
        profile = _profile(b.browser_pid)
        assert os.path.basename(profile).startswith("playwright_chromiumdev_profile-")
        os.kill(node[0], signal.SIGKILL)
        assert _gone(node[0]) and _gone(b.browser_pid)
        for _ in range(2):
            with pytest.raises(BrowserCrashed):
                env.step(info["reference"][0].action)
        obs, info = env.reset(seed=3)
        assert b.restarts == 1 and obs["screenshot"].tobytes() == obs0["screenshot"].tobytes()
        assert not os.path.exists(profile), "the killed driver's browser left its profile folder"
        _, _, _, _, info = env.step(info["reference"][0].action)
        assert info["event"] is not None
    finally:
        env.close()
    end = time.monotonic() + 5
    while process_tree(os.getpid())[1:] and time.monotonic() < end:
        time.sleep(0.05)
    assert [p for p in process_tree(os.getpid())[1:] if p not in mine] == []


def _profile(pid: int) -> str:
    """Chromium ``pid``'s profile folder (its ``--user-data-dir``)."""
    args = _cmdline(pid).split(b"\0")
    return next(os.fsdecode(a.partition(b"=")[2]) for a in args if a.startswith(b"--user-data-dir="))


def _driver_pid() -> int:
    from guigym.backends.browser import process_tree

    node = [p for p in process_tree(os.getpid())[1:] if b"run-driver" in _cmdline(p)]
    assert len(node) == 1
    return node[0]


def test_hung_playwright_driver_is_replaced_at_the_next_reset() -> None:
    """Playwright's node driver stops answering (SIGSTOP) mid-episode: the step raises
    ``BrowserCrashed`` after the deadline, the hung driver is killed, and the next reset starts
    a new driver and browser within seconds (not a launch timeout, again at every reset); the
    env then works, and close leaves no process behind."""
    from guigym.backends.browser import process_tree

    mine = process_tree(os.getpid())[1:]
    env = gym.make("GuiGym-Login-v0", backend="browser", disable_env_checker=True, backend_kwargs={"timeout_s": 2})
    node = None
    try:
        obs0, info = env.reset(seed=3)
        b = env.unwrapped.backend
        node, browser, profile = _driver_pid(), b.browser_pid, _profile(b.browser_pid)
        os.kill(node, signal.SIGSTOP)
        t = time.monotonic()
        with pytest.raises(BrowserCrashed, match="reset"):
            env.step(info["reference"][0].action)
        assert time.monotonic() - t < 2 + 5
        assert _gone(node) and _gone(browser), "the hung driver was not killed"
        t = time.monotonic()
        obs, info = env.reset(seed=3)
        assert time.monotonic() - t < 8, "the reset waited on the hung driver"
        assert b.restarts == 1 and b.browser_pid != browser and _driver_pid() != node
        assert obs["screenshot"].tobytes() == obs0["screenshot"].tobytes()
        _, _, _, _, info = env.step(info["reference"][0].action)
        assert info["event"] is not None and info["action_error"] is None
        assert not os.path.exists(profile)
    finally:
        env.close()
        if node is not None and not _gone(node, 0.1):  # before the fix: a stopped orphan forever
            os.kill(node, signal.SIGKILL)
    end = time.monotonic() + 5
    while [p for p in process_tree(os.getpid())[1:] if p not in mine] and time.monotonic() < end:
        time.sleep(0.05)
    assert [p for p in process_tree(os.getpid())[1:] if p not in mine] == []


def test_only_playwrights_own_temp_folders_are_taken(tmp_path: Any) -> None:
    """The folders removed once a browser is gone: Playwright's temp profile named on its
    command line and an artifacts folder next to it; never a profile of another name (one a
    user passed) nor an artifacts folder elsewhere."""
    import subprocess
    import sys

    from guigym.backends.browser import _temp_dirs

    art, pro = str(tmp_path / "playwright-artifacts-abc"), str(tmp_path / "playwright_chromiumdev_profile-x1")
    for profile, artifacts, want in [
        (pro, art, [pro, art]),
        (pro, str(tmp_path / "sub" / "playwright-artifacts-abc"), [pro]),  # not next to the profile
        (pro, str(tmp_path / "my-artifacts"), [pro]),
        (str(tmp_path / "my-profile"), art, []),  # a profile Playwright did not make: nothing taken
    ]:
        sleeper = [sys.executable, "-c", "import time; time.sleep(30)"]
        p = subprocess.Popen([*sleeper, f"--user-data-dir={profile}"])
        try:
            end = time.monotonic() + 5
            while f"--user-data-dir={profile}".encode() not in _cmdline(p.pid) and time.monotonic() < end:
                time.sleep(0.01)
            assert _temp_dirs(p.pid, artifacts) == want
        finally:
            p.kill()
            p.wait()
    assert _temp_dirs(None, art) == []


# ----------------------------------------------------------------- typed line breaks


@pytest.mark.parametrize("kind", ["input", "textarea"])
@pytest.mark.parametrize("typed", ["ab\n", "a\nb", "a\r\nb", "a\rb", "\n\n", "ab"])
def test_typed_line_breaks_give_the_mock_event(kind: str, typed: str) -> None:
    """The browser reports the typed text as the mock does, not the field's DOM value (which
    has its line breaks dropped or turned into spaces): the same event on both backends."""
    from guigym.apps.base import View, Widget
    from guigym.backends.base import event_for
    from guigym.backends.browser import BrowserBackend
    from guigym.events import Event
    from guigym.layout import layout

    v = View("s", "s", "Form", [Widget("f", kind, "Field", value="")], focus="f")
    lay = layout(v, 360, 640)
    b = BrowserBackend(360, 640)
    try:
        b.show(v, lay)
        assert b.perform(Type(typed)) == event_for(Type(typed), v, lay) == (Event("input", "f", typed), None)
    finally:
        b.close()


def test_grounded_reward_of_typed_line_breaks_is_the_mocks() -> None:
    """An agent that types the reference's text and a line break ("then Enter") gets the same
    grounded reward on both backends (the event it is scored by is the same)."""
    from guigym.rewards.grounded import grounded_reward

    got = {}
    for backend in ("mock", "browser"):
        env = gym.make("GuiGym-Login-v0", backend=backend, disable_env_checker=True)
        try:
            _, info = env.reset(seed=0)
            while not isinstance(info["reference"][0].action, Type):
                _, _, _, _, info = env.step(info["reference"][0].action)
            typed = Type(info["reference"][0].action.text + "\n")
            reward = grounded_reward(env, typed)
            _, _, _, _, info = env.step(typed)
            got[backend] = (reward, info["event"], env.unwrapped.get_state()["state"])
        finally:
            env.close()
    assert got["browser"] == got["mock"]


# ------------------------------------------------------------------------- temp dirs


def _subprocess_env(tmp_path: Any) -> tuple[str, dict[str, str]]:
    """The repository root and an environment for a Python child that uses ``tmp_path`` as its
    temp dir (so whatever its browsers leave there can be counted)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return root, dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""),
                      SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


_TEMP_DIRS = """
import gc, os, signal, sys, threading, time
import gymnasium as gym
import guigym
env = gym.make("GuiGym-Login-v0", backend="browser", disable_env_checker=True)
env.reset(seed=0)
b = env.unwrapped.backend
print(" ".join(map(str, b.chromium_pids())), flush=True)
if sys.argv[1] == "killed":  # Chromium dies mid-episode; a reset starts another; then close
    os.kill(b.browser_pid, signal.SIGKILL)
    time.sleep(0.5)
    env.reset(seed=1)
    print(" ".join(map(str, b.chromium_pids())), flush=True)
    env.close()
elif sys.argv[1] == "collected":  # never closed, garbage-collected, then some work goes on
    del env, b
    gc.collect()
    time.sleep(2)
elif sys.argv[1] == "closed":
    env.close()
elif sys.argv[1].startswith("driver"):  # Playwright's node driver killed or stopped mid-episode
    from guigym.backends.browser import BrowserCrashed, process_tree
    envs = [env, gym.make("GuiGym-Login-v0", backend="browser", disable_env_checker=True, backend_kwargs={"timeout_s": 2})]
    envs[1].reset(seed=0)  # a second env on the same driver
    from guigym.backends.procfs import cmdline
    node = [p for p in process_tree(os.getpid())[1:] if b"run-driver" in cmdline(p)]
    assert len(node) == 1
    os.kill(node[0], signal.SIGKILL if sys.argv[1] == "driver killed" else signal.SIGSTOP)
    try:
        for e in envs[::-1]:  # the short deadline first: then the other's browser is gone at once
            try:
                e.step("back()")
            except BrowserCrashed:
                pass
        threads = [threading.Thread(target=e.reset, kwargs={"seed": 1}) for e in envs]  # launches at once
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for e in envs:
            assert e.unwrapped.backend.started
            print(" ".join(map(str, e.unwrapped.backend.chromium_pids())), flush=True)
    finally:
        try:
            os.kill(node[0], signal.SIGKILL)  # a stopped driver left by a failed recovery
        except OSError:
            pass
    for e in envs:
        e.close()
# "referenced": still referenced at exit
"""


@pytest.mark.parametrize("how", ["closed", "killed", "collected", "referenced", "driver killed", "driver hung"])
def test_no_temp_dirs_left(tmp_path: Any, how: str) -> None:
    """Nothing is left in the temp dir after an env's browser is gone: not after close(), a
    Chromium killed mid-episode, an env garbage-collected unclosed or one alive at exit, nor
    after Playwright's driver was killed or stopped under two envs, which then recover (a
    killed Chromium leaves its singleton folder behind; a failed launch of a Playwright
    Chromium that is not installed leaves a profile and an artifacts folder; so does every
    browser of a driver that is killed, by anyone, since only the driver removes them)."""
    import subprocess
    import sys

    root, env = _subprocess_env(tmp_path)
    proc = subprocess.run([sys.executable, "-c", _TEMP_DIRS, how], capture_output=True, text=True, timeout=180, env=env, cwd=root,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for pid in {int(p) for p in proc.stdout.split()}:
        assert _gone(pid), f"Chromium process {pid} left"
    end = time.monotonic() + 5
    while os.listdir(tmp_path) and time.monotonic() < end:
        time.sleep(0.05)
    assert sorted(os.listdir(tmp_path)) == []


_ORPHAN = """
import sys, time
import gymnasium as gym
import guigym
env = gym.make("GuiGym-Login-v0", backend="browser", disable_env_checker=True)
env.reset(seed=0)
print(" ".join(map(str, env.unwrapped.backend.chromium_pids())), flush=True)
if sys.argv[1] == "wait":  # killed from outside with every process it started, as Ray kills an actor
    time.sleep(120)
env.close()
"""


def test_temp_dirs_of_a_process_killed_outright_are_removed_by_the_next_browser(tmp_path: Any) -> None:
    """A process killed with its whole tree (Python, Playwright's driver and Chromium at once,
    as ``ray.kill`` does to an actor) leaves its browser's profile and artifacts folders: no
    process of it can remove them. The next guigym browser started on the machine does."""
    import subprocess
    import sys

    from guigym.backends.browser import process_tree

    root, env = _subprocess_env(tmp_path)
    victim = subprocess.Popen([sys.executable, "-c", _ORPHAN, "wait"], stdout=subprocess.PIPE, text=True, env=env, cwd=root)
    try:
        chromium = [int(p) for p in victim.stdout.readline().split()]  # type: ignore[union-attr]
        assert chromium, "the browser did not start"
        tree = process_tree(victim.pid)
        for pid in tree:
            os.kill(pid, signal.SIGSTOP)  # none of them can react to the others' deaths
        for pid in tree:
            os.kill(pid, signal.SIGKILL)
    finally:
        victim.kill()
        victim.wait()
    for pid in tree:
        assert _gone(pid), f"process {pid} left"
    left = sorted(os.listdir(tmp_path))
    assert any(n.startswith("playwright_chromiumdev_profile-") for n in left), left  # what the kill leaves
    proc = subprocess.run([sys.executable, "-c", _ORPHAN, "close"], capture_output=True, text=True, timeout=120, env=env,
                          cwd=root, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    end = time.monotonic() + 5
    while os.listdir(tmp_path) and time.monotonic() < end:
        time.sleep(0.05)
    assert sorted(os.listdir(tmp_path)) == []


def test_missing_playwright_build_is_not_launched(tmp_path: Any) -> None:
    """Playwright's Chromium counts as missing (not launched) only when neither its full build
    nor the headless shell is installed; an unknown layout is left to the launch."""
    from types import SimpleNamespace

    from guigym.backends.chromium import playwright_build_missing

    def pw(exe: Any) -> Any:
        return SimpleNamespace(chromium=SimpleNamespace(executable_path=str(exe)))

    exe = tmp_path / "chromium-1255" / "chrome-linux64" / "chrome"
    assert playwright_build_missing(pw(exe)) == str(tmp_path / "chromium-1255")
    (tmp_path / "chromium_headless_shell-1255").mkdir()
    assert playwright_build_missing(pw(exe)) is None
    exe2 = tmp_path / "b" / "chromium-7" / "chrome-linux" / "chrome"
    exe2.parent.mkdir(parents=True)
    exe2.write_text("")
    assert playwright_build_missing(pw(exe2)) is None
    assert playwright_build_missing(pw(tmp_path / "elsewhere" / "chrome")) is None
    assert playwright_build_missing(object()) is None


def test_kill_removes_a_shared_memory_file_not_yet_unlinked(tmp_path: Any) -> None:
    """Chromium unlinks each shared-memory file it makes in the temp dir right after making it;
    a process killed between the two (an env alive at exit, a hung browser) left it behind.
    ``_kill`` stops the processes, removes such files they hold, then kills them; files they do
    not hold, and other names, stay."""
    import subprocess
    import sys

    from guigym.backends.browser import _SHM_PREFIX, _kill

    held, other, not_held = tmp_path / f"{_SHM_PREFIX}abc", tmp_path / "mine.txt", tmp_path / f"{_SHM_PREFIX}xyz"
    not_held.write_bytes(b"")
    code = "import sys, time; fs = [open(p, 'w') for p in sys.argv[1:]]; print('ok', flush=True); time.sleep(60)"
    p = subprocess.Popen([sys.executable, "-c", code, str(held), str(other)], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "ok"
        _kill([p.pid])
        assert p.wait(timeout=10) == -9
    finally:
        p.kill()
    assert not held.exists()
    assert other.exists() and not_held.exists()


def test_stale_shared_memory_files_are_removed_once_a_browser_is_gone(tmp_path: Any) -> None:
    """A Chromium killed from outside (SIGKILL of the browser process) between making a
    shared-memory file and unlinking it leaves the file: no process holds it any more, so
    ``_kill`` cannot see it. A live Chromium's file keeps its name for microseconds, so a file
    of that name still there ``SHM_STALE_S`` after the sweep starts (one just made by a process
    killed at once included) is a leftover; a live one, unlinked by its maker meanwhile, and
    other names stay untouched."""
    import threading

    from guigym.backends.browser import _SHM_PREFIX, SHM_STALE_S, _remove_stale_shm

    old, young, live = tmp_path / f"{_SHM_PREFIX}old", tmp_path / f"{_SHM_PREFIX}young", tmp_path / f"{_SHM_PREFIX}live"
    other, folder = tmp_path / "mine.txt", tmp_path / f"{_SHM_PREFIX}dir"
    for f in (old, young, live, other):
        f.write_bytes(b"x")
    folder.mkdir()
    past = time.time() - 10 * SHM_STALE_S - 1
    for f in (old, other, folder):
        os.utime(f, (past, past))
    maker = threading.Timer(SHM_STALE_S / 4, live.unlink)  # its maker unlinks it, as Chromium does
    maker.start()
    _remove_stale_shm(str(tmp_path))
    maker.join()
    assert not old.exists() and not young.exists() and not live.exists()
    assert other.exists() and folder.is_dir()
    _remove_stale_shm(str(tmp_path / "missing"))  # a folder that is not there: nothing happens
