"""Faults found in an audit of the command line, the benchmarks' arguments and Chromium
discovery, each with the test that found it."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import guigym.bench
from guigym.backends import chromium
from guigym.backends.chromium import ENV_VAR, ChromiumNotFound, candidates, launch, system_chromium
from guigym.cli import main as cli

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_reset
import bench_step


def _executable(path: Path, text: str = "#!/bin/sh\nexit 1\n") -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


# ------------------------------------------------------------------ the guigym command


def test_browser_command_without_chromium_is_a_message_not_a_traceback(monkeypatch, capsys, tmp_path):
    """``guigym demo --backend browser`` with no usable Chromium ended in a ChromiumNotFound
    traceback from the browser's thread (Playwright missing was already a message)."""
    pytest.importorskip("playwright.sync_api")
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "no-chrome"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no system Chromium: the message says how to install one
    monkeypatch.chdir(tmp_path)
    assert cli(["demo", "--backend", "browser", "--episodes", "1", "--level", "easy", "--gif", ""]) == 1
    err = capsys.readouterr().err
    assert f"guigym demo: {ENV_VAR}={tmp_path / 'no-chrome'} does not exist: fix {ENV_VAR} or unset it." in err
    assert "playwright install chromium" in err or "Without it, guigym would use Playwright's Chromium" in err
    assert "Traceback" not in err


# ------------------------------------------------------------------ Chromium discovery


def test_no_chromium_anywhere_names_both_places_searched(tmp_path):
    """PATH without chromium and no Playwright browsers: the error said only that Playwright's
    build was missing, not that $PATH had been searched for a system Chromium too."""
    pytest.importorskip("playwright.sync_api")
    empty_bin, browsers = tmp_path / "bin", tmp_path / "browsers"
    empty_bin.mkdir()
    browsers.mkdir()
    env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
    env.update(PATH=str(empty_bin), PLAYWRIGHT_BROWSERS_PATH=str(browsers))
    run = subprocess.run([sys.executable, "-m", "guigym.backends.chromium"], capture_output=True, text=True,
                         timeout=120, env=env, cwd=ROOT, check=False)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Playwright's Chromium: not installed" in run.stderr and str(browsers) in run.stderr
    assert "system chromium: none of chromium, chromium-browser on $PATH" in run.stderr
    assert "playwright install chromium" in run.stderr and "apt-get install chromium" in run.stderr
    assert "Traceback" not in run.stderr and not any(browsers.iterdir())


def test_both_playwrights_and_the_systems_chromium_are_candidates(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert system_chromium() is None and candidates() == [("Playwright's Chromium", None)]
    fake = _executable(tmp_path / "chromium-browser", "\x7fELF not really\n")  # a binary, not a launcher script
    assert system_chromium() == str(fake)
    assert candidates() == [("Playwright's Chromium", None), ("system chromium", str(fake))]

    class Pw:  # Playwright's own build, installed where its executable_path says
        class chromium:
            executable_path = str(tmp_path / "ms-playwright" / "chromium-1" / "chrome-linux" / "chrome")

    assert chromium.playwright_build_missing(Pw) == str(tmp_path / "ms-playwright" / "chromium-1")
    Path(Pw.chromium.executable_path).parent.mkdir(parents=True)
    _executable(Path(Pw.chromium.executable_path))
    assert chromium.playwright_build_missing(Pw) is None


@pytest.mark.parametrize("given,says", [
    ("{tmp}/missing/chrome", "does not exist"),
    ("{tmp}", "is a folder, not an executable file"),  # said "is not an executable file", as for a typo
    ("{tmp}/plain.txt", "is not executable (chmod +x)"),
    ("~/guigym-no-such-chrome", "does not exist"),
])
def test_a_bad_override_says_what_is_wrong(given, says, monkeypatch, tmp_path):
    (tmp_path / "plain.txt").write_text("not a program")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no other Chromium: the message says how to install one
    monkeypatch.setenv(ENV_VAR, given.format(tmp=tmp_path))
    with pytest.raises(ChromiumNotFound) as e:
        launch(object())  # checked before anything is launched
    shown = given.format(tmp=tmp_path).replace("~", str(tmp_path))  # ~ is the home folder
    assert f"${ENV_VAR}: {shown!r} {says}" in str(e.value)
    assert str(e.value).startswith(f"{ENV_VAR}={given.format(tmp=tmp_path)}")
    assert "playwright install chromium" in str(e.value)


def test_an_override_naming_a_command_is_looked_up_on_path(monkeypatch, tmp_path):
    """``GUIGYM_CHROMIUM=google-chrome`` (a name, as in a shell) was taken as a file in the
    current folder: "not an executable file"."""
    fake = _executable(tmp_path / "my-chrome")
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv(ENV_VAR, "my-chrome")
    assert candidates() == [(f"${ENV_VAR}", str(fake))]
    assert candidates("my-chrome") == [("executable argument", str(fake))]
    assert chromium.executable_problem(str(fake)) is None
    monkeypatch.setenv(ENV_VAR, "not-on-path")
    with pytest.raises(ChromiumNotFound, match="'not-on-path' does not exist"):
        launch(object())


def test_a_bad_override_says_so_first_and_which_chromium_would_be_used_without_it(monkeypatch, tmp_path):
    """A bad $GUIGYM_CHROMIUM said "no usable Chromium ... Install one of: ... sudo apt-get
    install chromium" with a system Chromium installed (never tried, as the override is used
    alone), and never said to fix or unset the variable."""
    (tmp_path / "bin").mkdir()
    system = _executable(tmp_path / "bin" / "chromium", "\x7fELF not really\n")  # a binary, not a launcher script
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nope" / "chrome"))
    with pytest.raises(ChromiumNotFound) as e:
        launch(object())
    msg = str(e.value)
    assert msg.splitlines()[0] == f"{ENV_VAR}={tmp_path / 'nope' / 'chrome'} does not exist: fix {ENV_VAR} or unset it."
    assert f"Without it, guigym would use the system chromium ({str(system)!r})." in msg
    assert "Install one of" not in msg and "no usable Chromium" not in msg
    plain = tmp_path / "plain"
    plain.write_text("not a program")
    monkeypatch.setenv(ENV_VAR, str(plain))
    with pytest.raises(ChromiumNotFound, match=f"^{ENV_VAR}={plain} is not executable \\(chmod \\+x\\): fix {ENV_VAR} or unset it"):
        launch(object())
    monkeypatch.setenv(ENV_VAR, "not-on-path")  # a name: looked up on $PATH
    with pytest.raises(ChromiumNotFound, match=f"^{ENV_VAR}=not-on-path is not on \\$PATH: fix {ENV_VAR} or unset it"):
        launch(object())
    # the executable argument (backend_kwargs) wins over the variable: without it, the variable is used
    monkeypatch.setenv(ENV_VAR, str(system))
    with pytest.raises(ChromiumNotFound) as e:
        launch(object(), str(tmp_path / "gone"))
    assert str(e.value).startswith(f"executable {str(tmp_path / 'gone')!r} does not exist: fix it or leave it out.")
    assert f"Without it, guigym would use ${ENV_VAR} ({str(system)!r})." in str(e.value)


def _chromium_cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != ENV_VAR}
    full.update(env)
    return subprocess.run([sys.executable, "-m", "guigym.backends.chromium", *args], capture_output=True, text=True,
                          timeout=120, env=full, cwd=ROOT, check=False)


@pytest.mark.browser
def test_the_chromium_check_names_a_bad_override_and_the_chromium_it_hides(tmp_path):
    """``GUIGYM_CHROMIUM=/nope/chrome python -m guigym.backends.chromium`` with a working
    Chromium installed: exit 1 saying to install one (the one found, even). Now the first line
    names the variable and what is wrong with it, and the message the Chromium the check finds
    without it (a real launch; this suite runs with one installed)."""
    pytest.importorskip("playwright.sync_api")
    plain = _chromium_cli()
    assert plain.returncode == 0, plain.stdout + plain.stderr
    found = plain.stdout.split(": ", 1)[1].rsplit(" (Chromium ", 1)[0]  # "system chromium: PATH (Chromium 1.2.3)"
    (tmp_path / "plain").write_text("not a program")
    for value, says in [("/nope/chrome", "does not exist"), (str(tmp_path / "plain"), "is not executable (chmod +x)"),
                        ("/bin/false", "failed to launch")]:  # the last one launched for real, by Playwright
        run = _chromium_cli(**{ENV_VAR: value})
        assert run.returncode == 1, run.stdout + run.stderr
        lines = run.stderr.splitlines()
        assert lines[0] == f"{ENV_VAR}={value} {says}: fix {ENV_VAR} or unset it.", run.stderr
        assert lines[-1].startswith("Without it, guigym would use ") and repr(found) in lines[-1], run.stderr
        assert "Install one of" not in run.stderr and "Traceback" not in run.stderr


def test_the_chromium_check_has_a_help():
    """``python -m guigym.backends.chromium --help`` ignored --help and ran the check."""
    run = _chromium_cli("--help")
    assert run.returncode == 0 and run.stdout.startswith("usage: python -m guigym.backends.chromium"), run.stdout + run.stderr
    assert "Find the Chromium that guigym's browser backend would use" in run.stdout and "(Chromium " not in run.stdout
    bad = _chromium_cli("--nope")
    assert bad.returncode == 2 and "unrecognized arguments: --nope" in bad.stderr


# ------------------------------------------------------------------ guigym bench


def test_bench_vector_env_runs_on_the_cores_it_was_given(monkeypatch, capsys):
    """The vector env's part set the affinity to every core of the machine, escaping a
    ``taskset`` the user ran it under."""
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two cores and sched_setaffinity")
    before = os.sched_getaffinity(0)
    given = {max(before)}
    seen: list[set[int]] = []
    monkeypatch.setattr(guigym.bench, "env_ids", lambda: ["GuiGym-Login-v0"])
    monkeypatch.setattr(guigym.bench, "resets", lambda env, n, level: 1.0)
    monkeypatch.setattr(guigym.bench, "vector_random", lambda *a: seen.append(os.sched_getaffinity(0)) or 1.0)
    os.sched_setaffinity(0, given)
    try:
        assert cli(["bench", "--steps", "5", "--vector", "2"]) == 0
        assert os.sched_getaffinity(0) == given
    finally:
        os.sched_setaffinity(0, before)
    assert seen == [given] and "GuiVectorEnv x2" in capsys.readouterr().out


def test_bench_vector_with_fewer_steps_than_envs_still_measures():
    # --steps 1 --vector 2 ran no step at all and printed "0 steps/s"
    assert guigym.bench.vector_random("GuiGym-Login-v0", 2, 1) > 0


# ------------------------------------------------------------------ benchmarks/*.py arguments


@pytest.mark.parametrize("script", [bench_step, bench_reset])
@pytest.mark.parametrize("argv,says", [
    (["--ids", "Login,Mesages"], "--ids 'Login,Mesages': Mesages names no registered id"),  # bench_step dropped it
    (["--ids", "Nope"], "Nope names no registered id"),  # bench_reset measured nothing, exit 0
    (["--ids", "Login", "--levels", "bogus"], "--levels bogus: GuiGym-Login-v0's levels are easy, medium, hard"),
    (["--ids", "Login", "--levels", ","], "--levels ',': give at least one level"),
])
def test_bench_step_and_reset_check_ids_and_levels_alike(script, argv, says, capsys, monkeypatch):
    # an unknown level was a ValueError traceback from the first reset, in both scripts
    monkeypatch.setattr(os, "sched_setaffinity", lambda *a: pytest.fail("pinned before the arguments were checked"))
    count = ["--steps", "1"] if script is bench_step else ["--seeds", "1"]
    with pytest.raises(SystemExit) as e:
        script.main([*argv, *count])
    assert e.value.code == 2 and says in capsys.readouterr().err


@pytest.mark.parametrize("script,flag", [(bench_step, "--steps"), (bench_reset, "--seeds")])
def test_bench_step_and_reset_refuse_a_count_under_one(script, flag, capsys):
    # bench_reset --seeds 0 ended in statistics.StatisticsError after building every env
    with pytest.raises(SystemExit) as e:
        script.main([flag, "0", "--ids", "Login", "--no-pin"])
    assert e.value.code == 2 and f"{flag} must be >= 1, got 0" in capsys.readouterr().err


def test_bench_reset_takes_ids_as_bench_step_does(capsys, monkeypatch):
    """The same ``--ids`` in both scripts: families or ids (with spaces after commas);
    bench_reset took family names only and dropped ``Login, CrossApp``'s second name."""
    calls: list[tuple[str, str]] = []
    fake = {"gen": 0.1, "plan": 0.1, "reset": 0.3, "len": 2.0, "per_step": 0.05}
    monkeypatch.setattr(bench_reset, "phases", lambda env_id, level, seeds: calls.append((env_id, level)) or fake)
    assert bench_reset.main(["--ids", "guigym:GuiGym-Login-v0, CrossApp", "--levels", "easy, hard", "--seeds", "1",
                             "--no-pin"]) == 0
    assert calls == [("GuiGym-Login-v0", "easy"), ("GuiGym-Login-v0", "hard"),
                     ("GuiGym-CrossApp-v0", "easy"), ("GuiGym-CrossApp-v0", "hard")]
    capsys.readouterr()


@pytest.mark.parametrize("name,argv,says", [
    ("bench_browser", ["--level", "extreme"], "--level extreme: GuiGym-Login-v0's levels are"),
    ("bench_browser", ["--env", "CartPole-v1"], "CartPole-v1 is not a guigym id"),
    ("bench_browser", ["--steps", "0"], "--steps must be >= 1, got 0"),  # divided by zero after the runs
    ("bench_browser", ["--threads", "-2"], "--threads must be >= 0, got -2"),  # read as 0
    ("bench_soak", ["--level", "x"], "--level x: GuiGym-Settings-v0's levels are"),  # failed in the first reset
    ("bench_soak", ["--steps", "-1"], "--steps must be >= 0, got -1"),
])
def test_browser_benchmarks_check_env_level_and_counts_before_starting(name, argv, says, capsys, monkeypatch):
    pytest.importorskip("playwright.sync_api")
    import importlib

    script = importlib.import_module(name)
    monkeypatch.setattr(script.gym, "make", lambda *a, **k: pytest.fail("an env was made"))
    with pytest.raises(SystemExit) as e:
        script.main(argv)
    assert e.value.code == 2 and says in capsys.readouterr().err


@pytest.mark.parametrize("name,argv,says", [
    ("bench_vector", ["--envs", "0", "--steps", "1", "--no-browser"], "--envs must be >= 1, got 0"),
    ("bench_caches", ["--rounds", "0", "--steps", "1", "--envs", "1"], "--rounds must be >= 1, got 0"),  # an empty table
    ("bench_caches", ["--envs", "2", "0", "--rounds", "1", "--steps", "1"], "--envs must be >= 1, got 2 0"),
    ("bench_malloc", ["--rounds", "0", "--steps", "1"], "--rounds must be >= 1, got 0"),
    ("bench_overheads", ["--calls", "0", "--repeats", "1"], "--calls must be >= 1, got 0"),
    ("bench_adversarial", ["--repeat", "0"], "--repeat must be >= 1, got 0"),
])
def test_benchmark_counts_under_one_are_usage_errors(name, argv, says, capsys, monkeypatch):
    import importlib

    script = importlib.import_module(name)
    monkeypatch.setattr(script, "print", lambda *a, **k: pytest.fail("the run started"), raising=False)
    with pytest.raises(SystemExit) as e:
        script.main(argv)
    assert e.value.code == 2 and says in capsys.readouterr().err


@pytest.mark.parametrize("argv,says", [
    (["--seeds", "0"], "--seeds must be >= 1, got 0"),  # hashed nothing: a "total" of no episode
    (["--split", "test"], "--split test needs --variation"),  # hashed plain episodes under a varied name
    (["--variation", "bogus"], "unknown variation preset 'bogus'"),  # a traceback at the first gym.make
    (["--backend", "mok"], "invalid choice: 'mok'"),
])
def test_hash_episodes_refuses_a_run_other_than_the_one_asked_for(argv: list[str], says: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import hash_episodes

    with pytest.raises(SystemExit) as e:
        hash_episodes.main(argv)
    assert e.value.code == 2 and says in capsys.readouterr().err


def test_an_output_folder_that_cannot_be_written_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``guigym.viz.folder_problem`` (train_small, tiny_vlm, examples/trl_grpo.py, ppo_baseline
    check their output folders with it) accepted any existing folder: a read-only one passed and
    the run failed with a PermissionError at its first file. As root everything is writable, so
    ``os.access`` says no for that one folder."""
    from guigym.viz import folder_problem

    ro, ok = tmp_path / "ro", tmp_path / "ok"
    ro.mkdir()
    ok.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: Path(p) != ro and real(p, mode, **kw))
    assert folder_problem(ro) == "is not writable"
    assert folder_problem(ok) is None and folder_problem(tmp_path / "new" / "run") is None
    (tmp_path / "file").write_text("x")
    assert folder_problem(tmp_path / "file") == "exists and is not a folder"
