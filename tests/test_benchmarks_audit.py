"""Audit of the benchmark scripts and of the commands README.md and docs/ tell a user to run:
small settings that crashed or measured something else than they printed, flags that --help
did not describe, and the documented commands checked against the scripts' own flags."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import guigym  # noqa: F401  (registers the ids)

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
if str(BENCHMARKS) not in sys.path:  # the scripts import benchmarks/_args.py (their folder, on sys.path when run)
    sys.path.append(str(BENCHMARKS))

#: The argparse scripts (module: how main() is called); guigym.bench is benchmarks/bench_env.py.
ARGPARSE_SCRIPTS = ["bench_adversarial", "bench_browser", "bench_caches", "bench_eval_lockstep", "bench_malloc",
                    "bench_overheads", "bench_ray", "bench_replanning", "bench_reset", "bench_soak", "bench_step",
                    "bench_vector", "hash_episodes", "ppo_baseline", "profile_browser", "guigym.bench"]
TYRO_SCRIPTS = ["ablations", "reproduce", "bench_vlm_step"]


class _Parsed(Exception):
    pass


def _parser(name: str, monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    """The ArgumentParser ``name``'s main() builds (stopped at parse_args: nothing runs)."""
    if name in ("bench_ray", "profile_browser", "bench_browser"):
        pytest.importorskip({"bench_ray": "ray"}.get(name, "playwright.sync_api"))
    module = importlib.import_module(name)
    seen: list[argparse.ArgumentParser] = []

    def grab(self: argparse.ArgumentParser, *a: Any, **k: Any) -> Any:
        seen.append(self)
        raise _Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", grab)
    with pytest.raises(_Parsed):
        module.main([])
    return seen[0]


# ------------------------------------------------------------------ small settings that crashed


def test_bench_overheads_runs_with_fewer_than_four_calls(capsys: pytest.CaptureFixture[str]) -> None:
    """The 4-env message rows time ``--calls // 4`` calls: ``--calls 1`` (accepted, >= 1) timed 0
    calls and divided by zero."""
    import bench_overheads

    assert bench_overheads.main(["--calls", "1", "--repeats", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith(("random", "4-env"))]
    assert len(rows) == 4 and all(re.search(r"\d+\.\d\dx$", line.rstrip()) for line in rows)


@pytest.mark.parametrize("argv,fitted", [
    (["--resets", "10", "--every", "50"], 0),  # one sample (the last reset), inside the default 100-reset warm-up
    (["--resets", "100", "--warmup", "100"], 0),  # every sample in the warm-up: they were fitted instead
    (["--resets", "100", "--every", "50", "--warmup", "50"], 1),  # one sample left: a slope of nan
    (["--resets", "10", "--every", "50", "--warmup", "0"], 1),  # --every over --resets: the last reset alone, nan
])
def test_bench_soak_refuses_a_fit_with_fewer_than_two_samples(argv: list[str], fitted: int, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The slope per 1,000 resets is a line through the samples after ``--warmup``: with none
    there the warm-up's own samples were fitted (a "drift" of the warm-up), with one the table
    said ``+nan``; both after running every reset in two browsers."""
    pytest.importorskip("playwright.sync_api")
    import bench_soak

    monkeypatch.setattr(bench_soak.gym, "make", lambda *a, **k: pytest.fail("an env was made"))
    with pytest.raises(SystemExit) as e:
        bench_soak.main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and "the slope needs at least 2" in err
    assert f": {fitted} memory sample(s) after the warm-up" in err


@pytest.mark.parametrize("argv", [
    [],  # the defaults
    "--resets 100000 --steps 0 --envs recycled --every 2000 --warmup 2000".split(),  # the README's 100,000-reset soak
])
def test_bench_soak_documented_runs_pass_the_check(argv: list[str], monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("playwright.sync_api")
    import bench_soak

    class Started(Exception):
        pass

    def make(*a: Any, **k: Any) -> Any:
        raise Started

    monkeypatch.setattr(bench_soak.gym, "make", make)
    with pytest.raises(Started):
        bench_soak.main(argv)
    capsys.readouterr()
    assert bench_soak.sample_points(2000, 50, 100) == list(range(150, 2001, 50))
    assert bench_soak.sample_points(105, 50, 60) == [100, 105]  # the last reset is sampled too


# ------------------------------------------------------------------ per step run, not per step asked


def test_bench_browser_oracle_rate_counts_the_steps_it_ran() -> None:
    """The oracle runs whole episodes, so more steps than asked; ``oracle CPU ms/step`` divided
    the CPU of all of them by ``--steps`` (with ``--steps 1``: five steps' CPU as one step's)."""
    pytest.importorskip("playwright.sync_api")
    import bench_browser

    env = gym.make("GuiGym-Login-v0", level="easy", disable_env_checker=True)
    try:
        _, info = env.reset(seed=0)
        episode = len(info["reference"])
        rate, n = bench_browser.oracle_sps(env, 1)
    finally:
        env.close()
    assert n == episode > 1 and rate > 0


def test_bench_malloc_rates_are_per_step_run() -> None:
    """A cell's oracle rate and faults were divided by ``--steps``, though the oracle runs whole
    episodes (Login easy, 7 asked: 10 run, the rate 30 % low)."""
    import bench_malloc

    from guigym.bench import oracle_run

    out = subprocess.run([sys.executable, "-c", bench_malloc.CHILD, "Login", "easy", "oracle", "7"], capture_output=True,
                         text=True, check=True, cwd=ROOT, env={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    cell = json.loads(out.stdout.strip().splitlines()[-1])
    env = gym.make("GuiGym-Login-v0").unwrapped
    try:
        oracle_run(env, 7 // 4, "easy")
        expected = oracle_run(env, 7, "easy")[1]
    finally:
        env.close()
    assert cell["steps"] == expected > 7 and cell["rate"] > 0 and cell["faults"] >= 0


def test_bench_vector_ceiling_row_runs_steps_under_envs() -> None:
    """Every vector row runs at least one step per env; the ceiling row ran ``--steps // --envs``:
    0 with ``--steps 1 --envs 2``, a rate of 0 (and a ratio of 0.00) for the machine's ceiling."""
    import bench_vector

    assert bench_vector.separate({}, 2, 1, oracle=False) > 0


# ------------------------------------------------------------------ ablations


def test_ablations_refuses_zero_iterations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--iterations 0`` is train_small's "evaluate only": every setting the same untrained
    policy, and the sweep still printed a verdict per claim."""
    import ablations

    with pytest.raises(SystemExit) as e:
        ablations.check_args(ablations.Args(iterations=0, out=str(tmp_path / "runs")), ["full", "no-rep"])
    assert e.value.code == 2 and "--iterations 0 trains no setting" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


# ------------------------------------------------------------------ --help and the documented commands


@pytest.mark.parametrize("name", ARGPARSE_SCRIPTS)
def test_help_describes_every_flag(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    parser = _parser(name, monkeypatch)
    bare = [a.option_strings[0] if a.option_strings else a.dest for a in parser._actions
            if not isinstance(a, argparse._HelpAction) and not (a.help or "").strip()]
    assert bare == [], f"{name}: flags --help does not describe"


def _documented_commands() -> list[tuple[str, str, str]]:
    """(where, script, its flags text) for every ``python benchmarks/X.py ...`` the README and
    docs/*.md show, inline (possibly across lines) or as a line of a fenced or indented block."""
    out = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text()
        fenced = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)
        commands = [line.split(" #")[0] for block in fenced for line in block.splitlines()]
        inline = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.S | re.M)
        commands += [line.split(" #")[0] for line in inline.splitlines() if re.match(r" {4}\S", line) and "`" not in line]  # indented
        commands += [" ".join(m.split()) for m in re.findall(r"`([^`]+)`", inline)]
        for cmd in commands:
            for m in re.finditer(r"python (?:-\S+ )*benchmarks/(\w+)\.py((?:(?!python ).)*)", cmd):
                out.append((path.name, m.group(1), m.group(2)))
    return out


def test_documented_benchmark_commands_use_flags_the_scripts_have(monkeypatch: pytest.MonkeyPatch) -> None:
    commands = _documented_commands()
    assert {s for _, s, _ in commands} >= {"bench_env", "bench_vector", "bench_soak", "reproduce", "ablations", "hash_episodes"}
    flags: dict[str, set[str]] = {}
    for name in {s for _, s, _ in commands}:
        if name in TYRO_SCRIPTS:
            module = importlib.import_module(name)
            fields = [f.name.replace("_", "-") for f in dataclasses.fields(module.Args)]
            flags[name] = {f"--{f}" for f in fields} | {f"--no-{f}" for f in fields} | {"--help"}
        else:
            with monkeypatch.context() as m:
                parser = _parser("guigym.bench" if name == "bench_env" else name, m)
            flags[name] = {o for a in parser._actions for o in a.option_strings}
    wrong = []
    for where, name, rest in commands:
        rest = re.sub(r"'[^']*'|\"[^\"]*\"", "", rest)  # --extra='--env-id ...': train_small's flags, not the script's
        wrong += [f"{where}: {name} {flag}" for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", rest) if flag not in flags[name]]
    assert wrong == []


def test_documented_make_targets_exist() -> None:
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][\w-]*):", makefile, re.M))
    named = set()
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        named |= set(re.findall(r"`make ([a-z][\w-]*)", path.read_text()))
        named |= set(re.findall(r"^make ([a-z][\w-]*)", path.read_text(), re.M))
    assert named >= {"demo", "test", "bench"} and named - targets == set()
