"""The ``guigym`` command and the interactive player (driven with synthetic pygame events)."""

from __future__ import annotations

import os

import gymnasium as gym
import pygame
import pytest
from gymnasium.envs.classic_control.cartpole import CartPoleEnv

from guigym.actions import Answer, Back, Click, OpenApp, Scroll, Type
from guigym.cli import main as cli
from guigym.play import action_for_event, play
from guigym.registration import id_level_problem
from tests.conftest import reference_events


def test_list(capsys):
    assert cli(["list"]) == 0
    out = capsys.readouterr().out
    assert "GuiGym-Login-v0" in out and "easy medium hard" in out


def test_python_dash_m_guigym_is_the_command():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "guigym", "list"], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    assert out.returncode == 0 and "GuiGym-Shop-v0" in out.stdout, out.stderr


@pytest.mark.parametrize("argv", [["demo", "--backend", "browser", "--episodes", "1", "--gif", ""],
                                  ["export", "--backend", "browser", "--episodes", "1", "--out", "ds"]])
def test_browser_commands_without_playwright_say_what_to_install(argv, monkeypatch, capsys, tmp_path):
    """On the base install, ``--backend browser`` ended in a traceback from deep inside the env."""
    for m in ("playwright", "playwright.sync_api", "playwright.async_api"):
        monkeypatch.setitem(__import__("sys").modules, m, None)  # as if Playwright were not installed
    monkeypatch.chdir(tmp_path)
    assert cli(argv) == 1
    err = capsys.readouterr().err
    assert f"guigym {argv[0]}: the browser backend needs Playwright: pip install 'guigym[browser]'" in err


def test_list_into_a_closed_pipe_is_quiet():
    """``guigym list | head -1``: the reader gone before the rows were written raised
    ``BrokenPipeError`` with a traceback (unbuffered stdout, as ``PYTHONUNBUFFERED=1`` makes it)."""
    import subprocess
    import sys

    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-c", "from guigym.cli import main; raise SystemExit(main(['list']))"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # before the interpreter has started: its first print finds no reader
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and b"Traceback" not in err and b"BrokenPipe" not in err, err.decode()


def test_demo_runs_and_writes_gif(tmp_path, capsys):
    gif = tmp_path / "d.gif"
    assert cli(["demo", "--env", "GuiGym-Settings-v0", "--episodes", "5", "--gif", str(gif)]) == 0
    assert "success 5/5" in capsys.readouterr().out
    assert gif.stat().st_size > 1000


def test_demo_frames_caption_non_latin1_text_with_a_bitmap_font(monkeypatch):
    # Pillow 10.0's default font is a Latin-1 bitmap font: the "•" of a Contacts step
    # instruction ("Open '• Bob Wright'") raised UnicodeEncodeError in the GIF captions
    import numpy as np
    from PIL import ImageFont

    from guigym.viz import annotate

    monkeypatch.setattr(ImageFont, "load_default", lambda *a, **k: ImageFont.load_default_imagefont())
    frame = np.zeros((640, 360, 3), np.uint8)
    out = annotate(frame, Type("Zoë ☕ 日本"), "Open '• Bob Wright'")
    assert out.shape == frame.shape and out[-22:].any()


@pytest.mark.parametrize("fps", [0, -1, float("nan"), 1000, "2"])
def test_save_gif_rejects_an_fps_a_gif_cannot_hold(tmp_path, fps):
    # fps=0 raised ZeroDivisionError, < 0 or tiny an OverflowError inside Pillow, > 100 wrote
    # a delay of 0 (played at the viewer's own speed)
    import numpy as np

    from guigym.viz import save_gif

    frames = [np.full((8, 8, 3), i, np.uint8) for i in range(2)]
    with pytest.raises(ValueError, match="fps must be a number from 0.002 to 100"):
        save_gif(frames, tmp_path / "a.gif", fps=fps)
    assert not (tmp_path / "a.gif").exists()
    assert save_gif(frames, tmp_path / "b.gif", fps=100).stat().st_size > 0


def test_save_gif_interrupted_leaves_the_earlier_gif_whole(tmp_path, monkeypatch):
    """A Ctrl-C (or any error) while the GIF is written left a truncated file at the path: the
    GIF is written under a temporary name and renamed at the end."""
    import numpy as np
    from PIL import Image

    from guigym.viz import save_gif

    frames = [np.full((8, 8, 3), i, np.uint8) for i in range(3)]
    path = save_gif(frames, tmp_path / "run.gif")
    before = path.read_bytes()
    real_save = Image.Image.save

    def interrupted(self, fp, *args, **kwargs):
        real_save(self, fp, *args, **kwargs)  # the whole file written, then the interrupt
        with open(fp, "r+b") as f:
            f.truncate(10)
        raise KeyboardInterrupt

    monkeypatch.setattr(Image.Image, "save", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save_gif(frames[::-1], path, fps=5)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.gif"]  # no partial file left
    monkeypatch.undo()
    assert save_gif(frames[::-1], path, fps=5).read_bytes() != before
    with Image.open(path) as im:
        assert im.n_frames == 3


def test_bench_runs_and_gives_the_cores_back(capsys):
    before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    assert cli(["bench", "--steps", "60", "--vector", "0"]) == 0
    assert "GuiGym-Launcher-v0" in capsys.readouterr().out
    # it pins itself to one core while measuring; in-process (here: pytest) it must unpin
    assert before is None or os.sched_getaffinity(0) == before


def test_unknown_command():
    with pytest.raises(SystemExit):
        cli(["fly"])


def test_export_into_a_file_is_a_usage_error(tmp_path, capsys):
    f = tmp_path / "a_file"
    f.write_text("keep me")
    with pytest.raises(SystemExit) as e:
        cli(["export", "--episodes", "1", "--out", str(f)])
    assert e.value.code == 2 and "exists and is not a folder" in capsys.readouterr().err
    assert f.read_text() == "keep me"


@pytest.mark.parametrize("argv,says", [
    (["demo", "--env", "GuiGym-Nope-v0"], "unknown env id GuiGym-Nope-v0; guigym ids: GuiGym-Login-v0"),
    (["demo", "--level", "extreme"], "--level extreme: GuiGym-Login-v0's levels are easy, medium, hard"),
    (["demo", "--episodes", "0"], "--episodes must be >= 1"),
    (["export", "--env", "GuiGym-Files-v0", "--level", "x", "--out", "never"], "GuiGym-Files-v0's levels are"),
    (["play", "--env", "GuiGym-Shop"], "unknown env id GuiGym-Shop;"),
    (["bench", "--steps", "-5"], "--steps must be >= 1"),
    (["bench", "--variation", "all", "--split", "val"], "unknown split 'val'"),
    (["bench", "--variation", "nope"], "--variation nope: unknown variation preset"),
    (["list", "--bogus"], "unrecognized arguments: --bogus"),
    (["demo", "--backend", "bogus"], "argument --backend: invalid choice: 'bogus'"),
    (["export", "--backend", "bogus", "--out", "never"], "argument --backend: invalid choice: 'bogus'"),
    (["play", "--backend", "nope"], "argument --backend: invalid choice: 'nope'"),
    (["export", "--out", "never", "--seed", "-1"], "--seed must be >= 0, got -1"),
    # Path("") is ".": an empty --out (an unset "$DIR") wrote the dataset into the current folder
    (["export", "--episodes", "1", "--out", ""], "--out '': give a folder name"),
    (["play", "--seed", "-1"], "--seed must be >= 0, got -1"),
    # another package's id: it used to reach gym.make with guigym's kwargs (a TypeError traceback)
    (["demo", "--env", "CartPole-v1"], "CartPole-v1 is not a guigym id"),
    (["export", "--env", "CartPole-v1", "--out", "never"], "CartPole-v1 is not a guigym id"),
    (["play", "--env", "CartPole-v1"], "CartPole-v1 is not a guigym id"),
])
def test_commands_name_a_bad_argument_before_they_start(argv, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        cli(argv)
    assert e.value.code == 2 and says in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing written (no export folder, no GIF)


@pytest.mark.parametrize("command", ["list", "demo", "export", "play", "bench"])
def test_a_command_prints_its_own_help(command, capsys):
    # the top parser's -h used to take the flag and print guigym's help instead
    with pytest.raises(SystemExit) as e:
        cli([command, "--help"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith(f"usage: guigym {command} ")


def test_top_level_help_and_missing_command(capsys):
    with pytest.raises(SystemExit) as e:
        cli(["--help"])
    assert e.value.code == 0 and capsys.readouterr().out.startswith("usage: guigym [-h] {list,")
    with pytest.raises(SystemExit) as e:
        cli([])
    assert e.value.code == 2 and capsys.readouterr().err.endswith("the following arguments are required: command\n")


def test_a_users_own_id_of_a_gui_env_is_left_to_gym_make(monkeypatch):
    from gymnasium.envs.registration import EnvSpec

    def factory(**kw):  # a function: what it makes is not known before it runs
        raise AssertionError("not called")

    for i, entry_point in [("My-Login-v0", "guigym.env:GuiEnv"), ("My-Made-v0", factory)]:
        monkeypatch.setitem(gym.registry, i, EnvSpec(i, entry_point=entry_point, kwargs={"family": "Login"}))
        assert id_level_problem(i, "easy") is None
    monkeypatch.setitem(gym.registry, "My-Cart-v0", EnvSpec("My-Cart-v0", entry_point=CartPoleEnv))
    assert id_level_problem("My-Cart-v0").startswith("My-Cart-v0 is not a guigym id")


def ev(kind, **kw):
    return pygame.event.Event(kind, **kw)


def test_event_mapping():
    pygame.init()
    assert action_for_event(ev(pygame.MOUSEBUTTONDOWN, button=1, pos=(10, 20)), "")[0] == Click(10, 20)
    assert action_for_event(ev(pygame.MOUSEWHEEL, x=0, y=-1), "")[0] == Scroll("down")
    assert action_for_event(ev(pygame.KEYDOWN, key=pygame.K_ESCAPE), "")[0] == Back()
    assert action_for_event(ev(pygame.TEXTINPUT, text="b"), "a")[1] == "ab"
    assert action_for_event(ev(pygame.KEYDOWN, key=pygame.K_RETURN), "alice")[:2] == (Type("alice"), "")
    assert action_for_event(ev(pygame.KEYDOWN, key=pygame.K_RETURN), "/open Notes")[0] == OpenApp("Notes")
    assert action_for_event(ev(pygame.QUIT), "")[2] == "quit"


def test_a_sideways_wheel_pages_and_answer_is_sent():
    # a sideways wheel (y == 0) was read as Scroll("down"), so home screens could not be paged;
    # no input sent an Answer, so information tasks could not be finished
    pygame.init()
    assert action_for_event(ev(pygame.MOUSEWHEEL, x=1, y=0), "")[0] == Scroll("right")
    assert action_for_event(ev(pygame.MOUSEWHEEL, x=-1, y=0), "")[0] == Scroll("left")
    assert action_for_event(ev(pygame.MOUSEWHEEL, x=0, y=0), "")[0] is None
    assert action_for_event(ev(pygame.KEYDOWN, key=pygame.K_RETURN), "/answer 3 ")[:2] == (Answer("3"), "")


def test_play_loop_answers_a_question(monkeypatch):
    events = [ev(pygame.TEXTINPUT, text=ch) for ch in "/answer 1"] + [ev(pygame.KEYDOWN, key=pygame.K_RETURN), ev(pygame.QUIT)]
    it = iter(events)
    monkeypatch.setattr(pygame.event, "poll", lambda: next(it))
    summary = play("GuiGym-Calendar-v0", "easy", "mock", seed=0, max_events=len(events))  # the task: Answer("1")
    assert summary["successes"] == 1


def test_play_loop_reaches_success(monkeypatch):
    """Feed the reference as pygame events into the real loop."""
    import gymnasium as gym

    ref_env = gym.make("GuiGym-Login-v0")
    _, info = ref_env.reset(seed=0)
    events = reference_events(info["reference"]) + [ev(pygame.QUIT)]
    it = iter(events)
    monkeypatch.setattr(pygame.event, "poll", lambda: next(it))
    summary = play("GuiGym-Login-v0", "easy", "mock", seed=0, max_events=len(events))
    assert summary["successes"] == 1


@pytest.mark.parametrize("gif,says", [
    (".", "--gif .: is a folder"),  # the run went through every episode, then IsADirectoryError / ValueError
    ("a_file/demo.gif", "--gif a_file/demo.gif: a_file is not a folder"),  # FileExistsError after the run
    ("out/demo", "--gif out/demo: must end in .gif"),  # Pillow's "unknown file extension" after the run
    ("out/demo.png", "--gif out/demo.png: must end in .gif"),  # silently wrote an animated PNG
])
def test_demo_names_a_bad_gif_path_before_it_runs(gif, says, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_file").write_text("keep me")
    with pytest.raises(SystemExit) as e:
        cli(["demo", "--episodes", "1", "--level", "easy", "--gif", gif])
    captured = capsys.readouterr()
    assert e.value.code == 2 and says in captured.err
    assert "oracle success" not in captured.out  # stopped before the episodes, not after them
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"] and (tmp_path / "a_file").read_text() == "keep me"


@pytest.mark.parametrize("argv,says", [
    # --help said "(0: skip)", but 1 skipped the vector env too, silently
    (["bench", "--steps", "1", "--vector", "1"], "--vector must be 0 (skip) or >= 2, got 1"),
    # a split without a variation measured nothing varied, silently
    (["bench", "--steps", "1", "--vector", "0", "--split", "test"], "--split test needs --variation"),
])
def test_bench_refuses_flags_it_would_ignore(argv, says, capsys):
    with pytest.raises(SystemExit) as e:
        cli(argv)
    assert e.value.code == 2 and says in capsys.readouterr().err



@pytest.mark.parametrize("sub", ["a_file/sub", "a_file/sub/deeper", "/proc/guigym-no-such/y"])
def test_export_out_under_a_file_or_an_uncreatable_path_is_a_usage_error(sub, tmp_path, capsys, monkeypatch):
    # it was a NotADirectoryError / FileNotFoundError traceback from out.mkdir
    import guigym.export

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_file").write_text("keep me")
    monkeypatch.setattr(guigym.export, "episodes", lambda *a, **k: pytest.fail("an episode ran"))
    with pytest.raises(SystemExit) as e:
        cli(["export", "--episodes", "1", "--out", sub])
    err = capsys.readouterr().err
    assert e.value.code == 2 and f"--out {sub}: cannot write there" in err and "Traceback" not in err
    assert (tmp_path / "a_file").read_text() == "keep me" and sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_play_without_a_display_fails_fast(monkeypatch, capsys):
    # SDL fell back to its invisible "offscreen" window and `guigym play` waited forever, silently
    import sys

    import guigym.play

    for var in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(guigym.play, "play", lambda *a, **k: pytest.fail("the loop started without a display"))
    with pytest.raises(SystemExit) as e:
        cli(["play"])
    assert e.value.code == 2 and "no display" in capsys.readouterr().err
    with pytest.raises(RuntimeError, match="no display"):  # the loop itself, called without max_events
        play("GuiGym-Login-v0", "easy", "mock")  # the real loop (imported above), not the stub
    # an explicit SDL_VIDEODRIVER (tests: dummy) or a display: the loop runs
    calls = []
    monkeypatch.setattr(guigym.play, "play", lambda *a, **k: calls.append(a) or {"episodes": 1, "successes": 0})
    for var, value in (("SDL_VIDEODRIVER", "dummy"), ("DISPLAY", ":0"), ("WAYLAND_DISPLAY", "wayland-0")):
        monkeypatch.setenv(var, value)
        assert cli(["play"]) == 0
        monkeypatch.delenv(var)
    assert len(calls) == 3


def test_commands_accept_the_guigym_module_prefix(tmp_path, monkeypatch, capsys):
    # gym.make("guigym:GuiGym-Login-v0") works; the commands said "unknown env id guigym:GuiGym-Login-v0"
    import json

    import guigym.play
    from agents.evaluate import main as evaluate

    assert id_level_problem("guigym:GuiGym-Login-v0", "hard") is None
    assert "levels are" in id_level_problem("guigym:GuiGym-Login-v0", "extreme")
    assert cli(["demo", "--env", "guigym:GuiGym-Login-v0", "--episodes", "1", "--gif", ""]) == 0
    assert cli(["export", "--env", "guigym:GuiGym-Login-v0", "--episodes", "1", "--out", str(tmp_path / "d")]) == 0
    ep = json.loads((tmp_path / "d" / "episodes.jsonl").read_text())
    assert ep["env_id"] == "GuiGym-Login-v0" and ep["episode_id"].startswith("GuiGym-Login-v0-mock-")  # no ':' in paths
    calls = []
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setattr(guigym.play, "play", lambda *a, **k: calls.append(a) or {"episodes": 1, "successes": 1})
    assert cli(["play", "--env", "guigym:GuiGym-Login-v0"]) == 0 and calls[0][0] == "GuiGym-Login-v0"
    assert evaluate(["--env", "guigym:GuiGym-Login-v0", "--level", "easy", "--episodes", "1", "--no-progress"]) == 0
    with pytest.raises(SystemExit) as e:  # the prefix names guigym's ids only
        cli(["demo", "--env", "guigym:CartPole-v1"])
    assert e.value.code == 2 and "CartPole-v1 is not a guigym id" in capsys.readouterr().err


@pytest.mark.parametrize("argv,says", [
    # each stopped at its first bad flag: a fix, a rerun, the next usage error
    (["demo", "--env", "GuiGym-Nope-v0", "--level", "extreme", "--episodes", "0"],
     ["unknown env id GuiGym-Nope-v0", "--episodes must be >= 1, got 0"]),  # the level of an unknown id: not judged
    (["demo", "--episodes", "0", "--level", "hard2", "--gif", "x.png"],
     ["--level hard2: GuiGym-Login-v0's levels are", "--episodes must be >= 1, got 0", "--gif x.png: must end in .gif"]),
    (["export", "--episodes", "0", "--level", "hard2", "--seed", "-1", "--out", "new/sub"],
     ["--level hard2: GuiGym-Login-v0's levels are", "--episodes must be >= 1", "--seed must be >= 0, got -1"]),
    (["export", "--env", "GuiGym-Nope-v0", "--variation", "all", "--split", "test", "--episodes", "0", "--out", "a_file/sub"],
     ["unknown env id GuiGym-Nope-v0", "--episodes must be >= 1", "--out a_file/sub: cannot write there"]),
])
def test_demo_and_export_name_every_bad_flag_at_once(argv, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_file").write_text("keep me")
    with pytest.raises(SystemExit) as e:
        cli(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("error:") == 1 and "Traceback" not in err
    assert [s for s in says if s not in err] == [], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]  # the --out check made no folder to leave behind


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_demo_refuses_a_gif_under_proc_before_it_runs(tmp_path, monkeypatch, capsys):
    """``--gif /proc/x.gif``: ``os.access`` lets root write anywhere, /proc included, so the
    check passed and every episode ran before save_gif's FileNotFoundError on
    ``/proc/.x.gif.partial``. The check now creates (and removes) that very file."""
    from guigym.viz import writable_problem

    name = f"guigym-test-{os.getpid()}.gif"
    with pytest.raises(SystemExit) as e:
        cli(["demo", "--episodes", "2", "--level", "easy", "--gif", f"/proc/{name}"])
    captured = capsys.readouterr()
    assert e.value.code == 2 and f"--gif /proc/{name}: cannot create files in /proc" in captured.err
    assert "oracle success" not in captured.out and "Traceback" not in captured.err
    assert writable_problem(f"/proc/no-such-{os.getpid()}/sub/{name}") == "cannot create files in /proc (No such file or directory)"
    # a good path: the probe and the folders it made are gone again
    assert writable_problem(tmp_path / "a" / "b" / "ep.gif") is None and list(tmp_path.iterdir()) == []
    (tmp_path / ".ep.gif.partial").write_text("a killed run's")  # a leftover is only opened, not removed
    assert writable_problem(tmp_path / "ep.gif") is None and (tmp_path / ".ep.gif.partial").read_text() == "a killed run's"
