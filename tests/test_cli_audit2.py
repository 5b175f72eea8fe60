"""The ``guigym`` command as a user drives it from a terminal: Ctrl-C, a pipe whose reader
leaves early, and the ``python -m guigym.demo`` / ``guigym.play`` entry points (``make demo``)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from guigym.backends.procfs import cmdline, process_tree
from guigym.cli import main as cli
from tests.conftest import reference_events


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", **extra}


def _sigint_after(args: list[str], marker: bytes, cwd: Path, chromium: list[int] | None = None) -> tuple[int, str]:
    """Run ``python ARGS``, send it a SIGINT once ``marker`` shows in its output (it is then in
    its work, not its imports), and return its status and stderr; ``chromium`` gets the pids of
    its guigym Chromium processes just before the SIGINT (once there is one)."""
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                            env=_env(PYTHONUNBUFFERED="1"),
                            # a test run started with SIGINT ignored (a background job) must not pass that on
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = {"out": b"", "err": b""}
    ready = threading.Event()

    def read(name: str, pipe: Any) -> None:
        while chunk := os.read(pipe.fileno(), 4096):
            seen[name] += chunk
            if marker in seen["out"] + seen["err"]:
                ready.set()

    readers = [threading.Thread(target=read, args=(n, p), daemon=True) for n, p in (("out", proc.stdout), ("err", proc.stderr))]
    for t in readers:
        t.start()
    try:
        assert ready.wait(120), f"never reached its work: {seen}"
        time.sleep(0.3)
        end = time.monotonic() + 60
        while chromium is not None and not chromium and time.monotonic() < end:  # it starts at the first reset
            chromium += [q for q in process_tree(proc.pid) if b"--guigym-instance=" in cmdline(q)]
            time.sleep(0.05)
        # a second Ctrl-C if the first is lost: a SIGINT handled inside a finalizer (``__del__``, a
        # weakref callback) is "Exception ignored" by Python itself, and the run goes on (seen once)
        for _ in range(3):
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(20)
                break
            except subprocess.TimeoutExpired:
                continue
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    for t in readers:
        t.join(10)
    return proc.returncode, seen["err"].decode(errors="replace")


@pytest.mark.parametrize("args, marker", [
    (["-m", "guigym.demo", "--episodes", "1000000", "--gif", "d.gif"], b"it/s"),  # what `make demo` runs
    (["-m", "guigym", "play", "--seed", "1"], b"Task:"),  # Ctrl-C is how a terminal user leaves it
], ids=["demo", "play"])
def test_ctrl_c_is_one_line_and_status_130(args: list[str], marker: bytes, tmp_path: Path) -> None:
    """A Ctrl-C ended demo and play in a KeyboardInterrupt traceback (status -2), where
    export and train_small.py print one line and exit 130."""
    gif = tmp_path / "d.gif"
    gif.write_bytes(b"an earlier GIF")
    rc, err = _sigint_after(args, marker, tmp_path)
    # Python's own report of a Ctrl-C lost in a finalizer (then one more is sent) is not ours
    rest = re.sub(r"Exception ignored in[^\n]*\n(?:Traceback[^\n]*\n(?: [^\n]*\n)*)?KeyboardInterrupt[^\n]*\n?", "", err)
    assert rc == 130 and "Traceback" not in rest, (rc, err[-2000:])
    assert "interrupted" in err.strip().splitlines()[-1], err[-2000:]
    assert gif.read_bytes() == b"an earlier GIF"


def test_ctrl_c_in_bench_is_one_line_and_status_130(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``guigym bench`` too (in-process: a Ctrl-C raised where the measuring loop runs)."""
    from guigym import bench

    def interrupted(*args: Any, **kwargs: Any) -> float:
        raise KeyboardInterrupt

    monkeypatch.setattr(bench, "random_policy", interrupted)
    assert cli(["bench", "--steps", "10", "--vector", "0"]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "guigym bench: interrupted"


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["unbuffered", "buffered"])
def test_demo_into_a_closed_pipe_is_quiet(unbuffered: str) -> None:
    """``guigym demo | head -1``: the reader gone, the next print raised ``BrokenPipeError``
    with a traceback (or, buffered, "Exception ignored ... BrokenPipeError" at exit, status 120),
    as ``guigym list`` did before it was mended alone."""
    proc = subprocess.Popen([sys.executable, "-m", "guigym", "demo", "--episodes", "1", "--level", "easy", "--gif", ""],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(PYTHONUNBUFFERED=unbuffered))
    assert proc.stdout is not None
    proc.stdout.close()  # before the interpreter has started: its first print finds no reader
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and b"Traceback" not in err and b"BrokenPipe" not in err, (proc.returncode, err.decode()[-2000:])


def test_demo_interrupted_in_process_closes_the_env_and_keeps_the_earlier_gif(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``main()`` also runs in-process: a Ctrl-C while the GIF's episode runs is status 130 and a
    line saying the GIF was not written, the env closed and the earlier GIF whole."""
    from guigym import demo

    gif = tmp_path / "run.gif"
    Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(gif)
    before = gif.read_bytes()
    made: list[gym.Env] = []
    closed: list[bool] = []
    real_make = gym.make

    def make(*a: Any, **kw: Any) -> gym.Env:
        env = real_make(*a, **kw)
        made.append(env)
        real_close = env.close
        env.close = lambda: (closed.append(True), real_close())[1]  # type: ignore[method-assign]
        return env

    def annotate(*a: Any, **kw: Any) -> np.ndarray:
        raise KeyboardInterrupt  # as a Ctrl-C while the GIF's episode runs

    monkeypatch.setattr(demo.gym, "make", make)
    monkeypatch.setattr(demo, "annotate", annotate)
    try:
        rc = cli(["demo", "--episodes", "1", "--level", "easy", "--gif", str(gif)])
    except KeyboardInterrupt:  # caught here: escaping, it would stop the whole pytest session
        pytest.fail("a Ctrl-C escaped guigym demo as KeyboardInterrupt (a traceback)")
    assert rc == 130 and made and closed
    assert f"guigym demo: interrupted; {gif} not written" in capsys.readouterr().err
    assert gif.read_bytes() == before


def test_python_dash_m_guigym_demo_without_playwright_says_what_to_install(tmp_path: Path) -> None:
    """``python -m guigym.demo`` (what ``make demo`` runs) missed ``guigym demo``'s message:
    ``--backend browser`` on the base install was a traceback."""
    code = ("import runpy, sys\n"
            "for m in ('playwright', 'playwright.sync_api', 'playwright.async_api'):\n"
            "    sys.modules[m] = None  # as if Playwright were not installed\n"
            "sys.argv = ['guigym.demo', '--backend', 'browser', '--episodes', '1', '--gif', '']\n"
            "runpy.run_module('guigym.demo', run_name='__main__', alter_sys=True)\n")
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=_env())
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr[-2000:]
    assert "guigym demo: the browser backend needs Playwright: pip install 'guigym[browser]'" in out.stderr


def test_play_counts_the_episodes_played_not_the_one_opened_after_the_last(monkeypatch: pytest.MonkeyPatch) -> None:
    """Solving one task and quitting read "1 success(es) in 2 episode(s)": every episode's end
    opens the next at once, and that untouched one was counted (so was one skipped with F5
    before any action). An episode counts once an action was sent in it."""
    import pygame

    from guigym.play import play

    def ev(kind: int, **kw: Any) -> Any:
        return pygame.event.Event(kind, **kw)

    ref_env = gym.make("GuiGym-Login-v0", level="easy")
    _, info = ref_env.reset(seed=0)
    ref_env.close()
    solve = reference_events(info["reference"])

    def run(events: list[Any]) -> dict[str, Any]:
        it = iter(events)
        monkeypatch.setattr(pygame.event, "poll", lambda: next(it))
        return play("GuiGym-Login-v0", "easy", "mock", seed=0, max_events=len(events))

    quit_ = ev(pygame.QUIT)
    f5 = ev(pygame.KEYDOWN, key=pygame.K_F5)
    assert run(solve + [quit_]) == {"episodes": 1, "successes": 1}
    assert run(solve + [f5, f5, quit_]) == {"episodes": 1, "successes": 1}  # two tasks skipped untouched
    # the next one touched (Esc = Back), then skipped: played, not solved
    assert run(solve + [ev(pygame.KEYDOWN, key=pygame.K_ESCAPE), f5, quit_]) == {"episodes": 2, "successes": 1}
    assert run([quit_]) == {"episodes": 0, "successes": 0}


@pytest.mark.browser
def test_ctrl_c_in_a_browser_demo_leaves_no_chromium(tmp_path: Path) -> None:
    """A Ctrl-C (to the command, as ``kill -INT``; a terminal's also reaches Chromium itself)
    while ``guigym demo --backend browser`` runs: status 130, one line, and every Chromium of
    the run gone."""
    chromium: list[int] = []
    rc, err = _sigint_after(["-m", "guigym", "demo", "--backend", "browser", "--level", "easy", "--episodes", "1000",
                             "--gif", ""], b"it/s", tmp_path, chromium)
    assert chromium, "no guigym Chromium was running"
    end = time.monotonic() + 10
    while (left := [p for p in chromium if p in process_tree(p)]) and time.monotonic() < end:
        time.sleep(0.05)
    assert not left and rc == 130 and "Traceback" not in err, (left, rc, err[-2000:])
