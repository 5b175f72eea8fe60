"""The ``guigym`` command and the interactive player (driven with synthetic pygame events)."""

from __future__ import annotations

import os

import pygame
import pytest

from guigym.actions import Back, Click, OpenApp, Scroll, Type
from guigym.cli import main as cli
from guigym.play import action_for_event, play


def test_list(capsys):
    assert cli(["list"]) == 0
    out = capsys.readouterr().out
    assert "GuiGym-Login-v0" in out and "easy medium hard" in out


def test_demo_runs_and_writes_gif(tmp_path, capsys):
    gif = tmp_path / "d.gif"
    assert cli(["demo", "--env", "GuiGym-Settings-v0", "--episodes", "5", "--gif", str(gif)]) == 0
    assert "success 5/5" in capsys.readouterr().out
    assert gif.stat().st_size > 1000


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
])
def test_commands_name_a_bad_argument_before_they_start(argv, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        cli(argv)
    assert e.value.code == 2 and says in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing written (no export folder, no GIF)


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


def test_play_loop_reaches_success(monkeypatch):
    """Feed the reference as pygame events into the real loop."""
    import gymnasium as gym

    ref_env = gym.make("GuiGym-Login-v0")
    _, info = ref_env.reset(seed=0)
    events = []
    for step in info["reference"]:
        a = step.action
        if isinstance(a, Click):
            events.append(ev(pygame.MOUSEBUTTONDOWN, button=1, pos=(a.x, a.y)))
        else:
            events += [ev(pygame.TEXTINPUT, text=ch) for ch in a.text] + [ev(pygame.KEYDOWN, key=pygame.K_RETURN)]
    events.append(ev(pygame.QUIT))
    it = iter(events)
    monkeypatch.setattr(pygame.event, "poll", lambda: next(it))
    summary = play("GuiGym-Login-v0", "easy", "mock", seed=0, max_events=len(events))
    assert summary["successes"] == 1
