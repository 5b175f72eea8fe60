"""scripts/ and examples/: faults found in an audit, each with a regression test. A bad flag is a
usage error (exit 2, the flag named) before any work, not a traceback or a silent odd result;
a picture or table is written whole or not at all; ``scripts/ensure_chromium.sh`` against stub
commands (nothing is installed)."""

from __future__ import annotations

import importlib.util
import json
import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"


def run_script(path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
               ) -> tuple[int, str, str]:
    """Run ``path`` as ``python path args`` in this process (fast: guigym is imported once);
    (exit code, stdout, stderr). Any exception but SystemExit propagates: a traceback."""
    monkeypatch.setattr(sys, "argv", [str(path), *args])
    code = 0
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"audit_{name}", SCRIPTS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def error_line(err: str) -> str:
    """argparse's ``prog: error: ...`` line (the usage line above it names every flag)."""
    lines = [ln for ln in err.splitlines() if ": error: " in ln]
    assert lines, err[-2000:]
    return lines[-1]


@pytest.mark.parametrize("script,args,says", [
    # each of these was a traceback (gym's NameNotFound, the env's ValueError, IndexError,
    # Pillow's ValueError), or ran and printed a result that was not what was asked for
    ("family_strip", ["--env-id", "GuiGym-Nope-v0"], "--env-id: unknown env id GuiGym-Nope-v0"),
    ("family_strip", ["--level", "extreme"], "--level extreme"),
    ("family_strip", ["--seed", "-1"], "--seed must be >= 0"),
    ("family_strip", ["--frames", "-1"], "--frames must be >= 0"),
    ("family_strip", ["--frames", "500"], "--frames 500: the episode"),  # IndexError
    ("family_strip", ["--frames", "0", "500"], "--frames 500: the episode"),  # a 1-panel picture, exit 0
    ("family_strip", ["--out", "{tmp}/strip.txt"], "--out {tmp}/strip.txt: .txt is not an image file type"),
    ("family_strip", ["--out", "{tmp}/a_file/strip.png"], "a_file is not a folder"),
    ("variant_strip", ["--env-id", "GuiGym-Nope-v0"], "--env-id: unknown env id"),
    ("variant_strip", ["--level", "x"], "--level x"),
    ("variant_strip", ["--seed", "-3"], "--seed must be >= 0"),
    ("variant_strip", ["--step", "-1"], "--step must be >= 0"),
    ("variant_strip", ["--step", "100", "--variants", "plain:"], "--step 100: the episode"),  # the last screen, silently
    ("variant_strip", ["--variants", "nocolon"], "--variants: variant 'nocolon'"),
    ("variant_strip", ["--variants", "x:font_scale=big"], "font_scale='big' is not a number"),
    ("variant_strip", ["--variants", "x:theme=teal"], "--variants 'x:theme=teal': variation theme='teal' is not a 'train'"),
    ("variant_strip", ["--variants", "plain:", "--out", "{tmp}/v.bad"], "--out {tmp}/v.bad"),
    ("widget_gallery", ["--out", "{tmp}/a_file"], "--out {tmp}/a_file: exists and is not a folder"),
    ("widget_gallery", ["--out", "."], "--out .: name the gallery's folder"),  # ValueError: empty name
    ("family_table", ["--seeds", "0", "--no-readme"], "--seeds must be >= 1, got 0"),  # max() of nothing
    ("family_table", ["--seeds", "1", "--no-readme", "--out", "{tmp}"], "is a folder"),
    ("i18n_coverage", ["--seeds", "0"], "--seeds must be >= 1, got 0"),  # 0 % everywhere, exit 0
    ("i18n_coverage", ["--seeds", "1", "--show", "-1"], "--show must be >= 0"),  # all gaps but one
])
def test_a_bad_flag_is_a_usage_error_before_any_work(script, args, says, tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "a_file").write_text("keep me")
    monkeypatch.chdir(tmp_path)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if script in ("family_strip", "variant_strip") and "--out" not in args:
        args += ["--out", str(tmp_path / "out.png")]
    if script == "family_table" and "--out" not in args:
        args += ["--out", str(tmp_path / "table.md")]
    readme = (ROOT / "README.md").read_bytes()
    code, _, err = run_script(SCRIPTS / f"{script}.py", args, monkeypatch, capsys)
    assert code == 2, err[-2000:]
    assert says.replace("{tmp}", str(tmp_path)) in error_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]  # nothing written
    assert (tmp_path / "a_file").read_text() == "keep me" and (ROOT / "README.md").read_bytes() == readme


def test_custom_reward_example_has_a_usage(monkeypatch, capsys) -> None:
    """It took no flags: ``--help`` or a typo ran the whole example (exit 0)."""
    path = ROOT / "examples" / "custom_reward.py"
    code, out, err = run_script(path, ["--bogus"], monkeypatch, capsys)
    assert code == 2 and "unrecognized arguments: --bogus" in error_line(err) and "cases" not in out
    code, out, _ = run_script(path, ["--help"], monkeypatch, capsys)
    assert code == 0 and "--max-examples" in out and "click-distance" in out and "cases" not in out


@pytest.mark.parametrize("script,text", [
    # the help showed the docstring's first line, which stops mid-sentence
    ("family_table", "how many distinct scenarios the generator gave on N seeds"),
    ("widget_gallery", "renderer draws it (the gallery app"),
    ("noisy_oracle_table", "the first of ties in the grid's order"),
])
def test_help_shows_the_whole_description(script, text, monkeypatch, capsys) -> None:
    code, out, _ = run_script(SCRIPTS / f"{script}.py", ["--help"], monkeypatch, capsys)
    assert code == 0 and text in " ".join(out.split())


def test_reference_detours_replays_every_case_as_a_success(monkeypatch, capsys) -> None:
    """Each documented detour's shorter sequence is a success the env judges, from the widgets
    the script names (the README quotes the lengths); ``--help`` runs nothing."""
    code, out, _ = run_script(SCRIPTS / "reference_detours.py", ["--help"], monkeypatch, capsys)
    assert code == 0 and "not the shortest way to success" in " ".join(out.split()) and "| id |" not in out
    code, out, _ = run_script(SCRIPTS / "reference_detours.py", [], monkeypatch, capsys)
    rows = [r for r in out.splitlines() if r.startswith("| GuiGym-")]
    assert code == 0 and len(rows) == 4 and not any("no success" in r or "not shorter" in r for r in rows), out
    assert "| GuiGym-Settings-v0 | hard | 2 | 12 steps | 10 steps |" in out


def test_trl_grpo_refuses_a_seed_numpy_refuses_and_an_infinite_learning_rate(tmp_path, monkeypatch) -> None:
    """Both passed the checks and failed after the model loaded (TRL's set_seed: ValueError) or
    trained to NaN weights."""
    pytest.importorskip("tyro")
    from tests.conftest import load_example

    ex = load_example("trl_grpo")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "steps.jsonl").write_text("")
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text("{}")  # a checkpoint folder (one without is refused too)
    monkeypatch.chdir(tmp_path)
    base = {"data": "data", "model": "model", "out": "run"}
    assert ex.arg_problems(ex.Args(**base)) == []
    assert ex.arg_problems(ex.Args(**base, seed=-1)) == ["--seed must be in [0, 2**32), got -1"]
    assert ex.arg_problems(ex.Args(**base, seed=2**32)) == [f"--seed must be in [0, 2**32), got {2**32}"]
    assert ex.arg_problems(ex.Args(**base, learning_rate=float("inf"))) == ["--learning-rate must be finite, got inf"]


def test_family_strip_frames_follow_the_episode_to_its_end(tmp_path, monkeypatch, capsys) -> None:
    """The last frame of an episode (its final screen) can be asked for; one past it is an error."""
    import gymnasium as gym

    env = gym.make("GuiGym-Login-v0", level="easy")
    _, info = env.reset(seed=0)
    n = len(info["reference"])
    env.close()
    out = tmp_path / "deeper" / "strip.png"  # a missing folder is made
    code, _, err = run_script(SCRIPTS / "family_strip.py", ["--env-id", "GuiGym-Login-v0", "--level", "easy", "--seed", "0",
                                                            "--frames", "0", str(n), "--out", str(out)], monkeypatch, capsys)
    assert code == 0, err[-2000:]
    assert Image.open(out).size == (2 * 360 + 8, 640 + 22)
    code, _, err = run_script(SCRIPTS / "family_strip.py", ["--env-id", "GuiGym-Login-v0", "--level", "easy", "--seed", "0",
                                                            "--frames", "0", str(n + 1), "--out", str(out)], monkeypatch, capsys)
    assert code == 2 and f"--frames {n + 1}: the episode of GuiGym-Login-v0 easy seed 0 has frames 0 to {n}" in error_line(err)


@pytest.mark.parametrize("script,args", [
    ("family_strip", ["--env-id", "GuiGym-Login-v0", "--level", "easy", "--frames", "0", "--out", "{out}"]),
    ("variant_strip", ["--env-id", "GuiGym-Login-v0", "--level", "easy", "--variants", "plain:", "--out", "{out}"]),
])
def test_a_picture_is_written_whole_or_not_at_all(script, args, tmp_path, monkeypatch, capsys) -> None:
    """A save stopped half-way (an error, a Ctrl-C) left a truncated PNG at --out that passed for the figure."""
    out = tmp_path / "fig.png"
    out.write_bytes(b"the old figure")
    real_save = Image.Image.save

    def half_save(self, fp, *a, **k):
        real_save(self, fp, *a, **k)
        Path(fp).write_bytes(Path(fp).read_bytes()[:100])  # what was on disk when it stopped
        raise KeyboardInterrupt

    monkeypatch.setattr(Image.Image, "save", half_save)
    with pytest.raises(KeyboardInterrupt):
        run_script(SCRIPTS / f"{script}.py", [a.replace("{out}", str(out)) for a in args], monkeypatch, capsys)
    assert out.read_bytes() == b"the old figure"
    assert [p.name for p in tmp_path.iterdir()] == ["fig.png"]  # no partial file left behind


def test_widget_gallery_writes_its_pictures_whole(tmp_path, monkeypatch, capsys) -> None:
    out = tmp_path / "widgets"
    monkeypatch.setattr(Image.Image, "save", lambda self, fp, *a, **k: (Path(fp).write_bytes(b"\x89PNG"), 1 / 0))
    with pytest.raises(ZeroDivisionError):
        run_script(SCRIPTS / "widget_gallery.py", ["--out", str(out)], monkeypatch, capsys)
    assert list(out.iterdir()) == [] and not out.with_suffix(".png").exists()


def test_family_table_writes_out_only_with_no_readme_and_whole(tmp_path, monkeypatch) -> None:
    """A trial run with a few seeds wrote its table into the README (the flag did not exist), a
    write stopped half-way left a truncated table, and a README without the markers was reported
    as updated."""
    ft = load("family_table")
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- table:families -->\nold table\n<!-- /table:families -->\nend\n")
    monkeypatch.setattr(ft, "README", readme)
    monkeypatch.setattr(ft, "env_ids", lambda: ["GuiGym-Login-v0"])  # one id: a second, not 30
    out = tmp_path / "t.md"
    ft.main(["--seeds", "2", "--out", str(out), "--no-readme"])
    body = out.read_text()
    assert body.count("| `GuiGym-Login-v0` |") == 3 and "| 2 / 2 |" in body and "old table" in readme.read_text()
    assert "reference steps from reset: mean (max), 2 seeds |" in body  # the seeds planned, not always "200"
    ft.main(["--seeds", "2", "--out", str(out)])
    assert readme.read_text() == f"intro\n<!-- table:families -->\n{body}<!-- /table:families -->\nend\n"

    real_write = Path.write_text

    def half_write(self, text, *a, **k):
        real_write(self, text[: len(text) // 2], *a, **k)
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_text", half_write)
    with pytest.raises(KeyboardInterrupt):
        ft.main(["--seeds", "1", "--out", str(out), "--no-readme"])
    assert out.read_text() == body and sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "t.md"]
    monkeypatch.setattr(Path, "write_text", real_write)

    readme.write_text("no markers here\n")
    with pytest.raises(SystemExit) as e:
        ft.main(["--seeds", "1", "--out", str(out)])
    assert e.value.code == 2 and out.read_text() == body


def test_variant_strip_reads_popup_at_as_a_number() -> None:
    """popup_at's values are ints: "2" was kept a string, so no variant could set it."""
    vs = load("variant_strip")
    assert vs.parse_variant("late:popup=cookie,popup_at=2")[1]["popup_at"] == 2
    with pytest.raises(ValueError, match="popup_at='1.5' is not a whole number"):
        vs.parse_variant("x:popup_at=1.5")
    img = vs.strip("GuiGym-Login-v0", "easy", 0, ["plain:", "late pop-up:popup=cookie,popup_at=2"], step=2)
    assert img.size[0] == 2 * 360 + vs.GAP


# --- scripts/ensure_chromium.sh, against stubs of python, id and apt-get ---------------------------
STUB_PY = """#!/bin/sh
# a stub python (shell builtins only: $PATH has the stubs alone): -c (the Playwright check)
# exits $STUB/pw_rc; -m guigym.backends.chromium finds a Chromium once $STUB/installed exists
case "$1" in
  -c) read -r rc < "$STUB/pw_rc"; exit "$rc" ;;
  -m) if [ -e "$STUB/installed" ]; then echo "system chromium: found"; exit 0; fi
      echo "no Chromium: install one" >&2; exit 1 ;;
esac
exit 3
"""
STUB_APT = """#!/bin/sh
echo "$*" >> "$STUB/apt.log"
[ "$1" = install ] && : > "$STUB/installed"
exit 0
"""
#: apt-get that cannot reach its mirrors: every call fails, as with no network
STUB_APT_FAILS = """#!/bin/sh
echo "$*" >> "$STUB/apt.log"
echo "E: Unable to locate package chromium" >&2
exit 100
"""


def chromium_script(tmp_path: Path, *, uid: int, apt: bool, python: str = "stub", pw_rc: int = 0, found: bool = False,
                    env: dict[str, str] | None = None, apt_fails: bool = False) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run ensure_chromium.sh with $PATH holding only stubs; (result, apt-get's calls)."""
    if shutil.which("sh") is None or shutil.which("dirname") is None:
        pytest.skip("needs sh and dirname")
    stub, bin_ = tmp_path / "stub", tmp_path / "bin"
    stub.mkdir()
    bin_.mkdir()
    (stub / "pw_rc").write_text(str(pw_rc))
    if found:
        (stub / "installed").touch()
    files = {"id": f"#!/bin/sh\necho {uid}\n", "python": STUB_PY}
    if apt:
        files["apt-get"] = STUB_APT_FAILS if apt_fails else STUB_APT
    for name, text in files.items():
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(0o755)
    os.symlink(shutil.which("dirname"), bin_ / "dirname")
    py = str(bin_ / "python") if python == "stub" else python
    r = subprocess.run([shutil.which("sh"), str(SCRIPTS / "ensure_chromium.sh"), py], capture_output=True, text=True,
                       timeout=30, env={"PATH": str(bin_), "STUB": str(stub), **(env or {})}, check=False)
    log = stub / "apt.log"
    return r, log.read_text().splitlines() if log.exists() else []


def test_ensure_chromium_found_does_nothing(tmp_path) -> None:
    r, apt = chromium_script(tmp_path, uid=0, apt=True, found=True)
    assert r.returncode == 0 and apt == [] and r.stderr == ""


def test_ensure_chromium_as_root_with_apt_installs_debians(tmp_path) -> None:
    r, apt = chromium_script(tmp_path, uid=0, apt=True)
    assert r.returncode == 0, r.stderr
    assert apt == ["install -y -q chromium fonts-dejavu-core"] and "system chromium: found" in r.stdout


def test_ensure_chromium_says_what_to_do_when_apt_fails(tmp_path) -> None:
    """apt-get failing (no network, no such package) ended the script under ``set -e`` with its
    own exit code and no word on what to do next."""
    r, apt = chromium_script(tmp_path, uid=0, apt=True, apt_fails=True)
    assert r.returncode == 1
    assert apt == ["install -y -q chromium fonts-dejavu-core", "update -q"]  # one retry, after fetching the lists
    assert "apt-get could not install chromium" in r.stderr and "playwright install --with-deps chromium" in r.stderr
    assert "GUIGYM_CHROMIUM=" in r.stderr


@pytest.mark.parametrize("uid,apt", [(1000, True), (0, False)])
def test_ensure_chromium_otherwise_says_how_to_install(uid, apt, tmp_path) -> None:
    r, calls = chromium_script(tmp_path, uid=uid, apt=apt)
    assert r.returncode == 1 and calls == []
    assert "playwright install chromium" in r.stderr and "GUIGYM_CHROMIUM=" in r.stderr


@pytest.mark.parametrize("python,pw_rc", [("{tmp}/no/python", 0), ("stub", 1)])
def test_ensure_chromium_does_not_install_for_a_broken_python(python, pw_rc, tmp_path) -> None:
    """A missing venv or one without Playwright read as 'no Chromium': as root, Debian's chromium
    was installed for nothing and the script then failed the same way (exit 127 for no python)."""
    r, apt = chromium_script(tmp_path, uid=0, apt=True, python=python.replace("{tmp}", str(tmp_path)), pw_rc=pw_rc)
    assert r.returncode == 1 and apt == []
    assert "cannot run guigym's browser backend" in r.stderr


def test_ensure_chromium_does_not_install_past_a_broken_guigym_chromium(tmp_path) -> None:
    """$GUIGYM_CHROMIUM is used alone: a Chromium installed beside it changed nothing."""
    r, apt = chromium_script(tmp_path, uid=0, apt=True, env={"GUIGYM_CHROMIUM": "/nowhere/chrome"})
    assert r.returncode == 1 and apt == []
    assert "GUIGYM_CHROMIUM=/nowhere/chrome does not start" in r.stderr and "no Chromium: install one" in r.stderr


def test_noisy_oracle_table_writes_the_spread_of_every_cell(tmp_path, monkeypatch, capsys) -> None:
    """A small run (Login, 2 seeds): one row per level, both splits' spreads, and the rates in
    the JSON are the ones ``agents.evaluate`` gives for the same variant and seeds."""
    from argparse import Namespace

    from agents.evaluate import build_agent, evaluate, make_env
    from guigym.variation import grid

    out = tmp_path / "noisy.md"
    code, printed, _ = run_script(SCRIPTS / "noisy_oracle_table.py",
                                  ["--ids", "GuiGym-Login-v0", "--episodes", "2", "--jobs", "1", "--out", str(out)], monkeypatch, capsys)
    assert code == 0 and out.exists(), printed
    rows = [r for r in out.read_text().splitlines() if r.startswith("| Login |")]
    assert [r.split(" | ")[1] for r in rows] == ["easy", "medium", "hard"] and all(r.count(" pts (") == 2 for r in rows)
    rates = json.loads(out.with_suffix(".json").read_text())
    assert sorted(rates) == ["GuiGym-Login-v0 test", "GuiGym-Login-v0 train"]
    assert [len(rates[f"GuiGym-Login-v0 {s}"]["hard"]) for s in ("train", "test")] == [len(grid("train")), len(grid("test"))]
    name, var = grid("test")[-1]
    agent = build_agent(Namespace(planner="oracle", horizon=8, noise=0.2, ungrounded=False, executor="element", open_loop=False))
    env = make_env("GuiGym-Login-v0", variation=var, split="test")
    summary, _ = evaluate(env, agent, range(2), "hard")
    env.close()
    assert rates["GuiGym-Login-v0 test"]["hard"][-1] == [name, summary["success_rate"]]
    code, _, err = run_script(SCRIPTS / "noisy_oracle_table.py", ["--ids", "GuiGym-Nope-v0"], monkeypatch, capsys)
    assert code == 2 and "--ids 'GuiGym-Nope-v0': GuiGym-Nope-v0 names no registered id" in error_line(err)


def test_noisy_oracle_table_reads_ids_as_the_benchmarks_do(tmp_path, monkeypatch, capsys) -> None:
    """``--ids`` takes family names and ``guigym:`` ids (benchmarks/_args.py), each id once."""
    out = tmp_path / "noisy.md"
    code, printed, err = run_script(SCRIPTS / "noisy_oracle_table.py", ["--ids", "Login,guigym:GuiGym-Login-v0", "--episodes", "1",
                                                                        "--jobs", "1", "--out", str(out)], monkeypatch, capsys)
    assert code == 0, err[-2000:]
    assert [r.split(" | ")[:2] for r in out.read_text().splitlines() if r.startswith("| Login |")] == [
        ["| Login", lv] for lv in ("easy", "medium", "hard")]
    assert sorted(json.loads(out.with_suffix(".json").read_text())) == ["GuiGym-Login-v0 test", "GuiGym-Login-v0 train"]


# --- benchmarks/: the same audit ---------------------------------------------------------------------
BENCHMARKS = ROOT / "benchmarks"
if str(BENCHMARKS) not in sys.path:  # the scripts import benchmarks/_args.py (their folder, on sys.path when run)
    sys.path.append(str(BENCHMARKS))


@pytest.mark.parametrize("script,args,says", [
    # ablations.py: every run failed (an empty table, exit 0), or the statistics failed after all the training
    ("benchmarks/ablations.py", ["--env-id", "Nope"], "--env-id: unknown env id Nope"),
    ("benchmarks/ablations.py", ["--level", "extreme"], "--level extreme: GuiGym-Login-v0's levels are"),
    ("benchmarks/ablations.py", ["--extra=--bogus 3"], "--extra '--bogus 3': train_small.py refuses the run full__1: "
                                                        "Unrecognized options: --bogus, 3"),
    ("benchmarks/ablations.py", ["--extra=--group-size 1"], "--extra '--group-size 1': train_small.py refuses the run"),
    ("benchmarks/ablations.py", ["--iterations", "-1"], "--iterations -1: train_small.py refuses the run full__1"),
    ("benchmarks/ablations.py", ["--seeds", "-1"], "--seeds must be >= 0, got -1"),
    ("benchmarks/ablations.py", ["--seeds"], "--seeds: give at least one seed"),
    ("benchmarks/ablations.py", ["--seeds", "1", "1"], "--seeds: 1 given twice"),  # counted twice, one folder
    ("benchmarks/ablations.py", ["--settings"], "--settings: give at least one setting"),
    ("benchmarks/ablations.py", ["--settings", "bogus"], "--settings: unknown bogus; choose from full, "),  # exit 1
    ("benchmarks/ablations.py", ["--workers", "0"], "--workers must be >= 1, got 0"),  # silently 1
    ("benchmarks/ablations.py", ["--bootstrap", "0"], "--bootstrap must be >= 1, got 0"),  # IndexError after training
    ("benchmarks/ablations.py", ["--out", "{tmp}/a_file/runs"], "--out {tmp}/a_file/runs: {tmp}/a_file is not a folder"),
    ("benchmarks/ablations.py", ["--table-only", "--out", "{tmp}/runs"], "--out {tmp}/runs: no runs there"),  # an empty table
    # reproduce.py: an IndexError after tables were written, a failed run, SystemExit(message): exit 1
    ("benchmarks/reproduce.py", ["--seeds"], "--seeds: give at least one seed"),
    ("benchmarks/reproduce.py", ["--ppo-seeds"], "--ppo-seeds: give at least one seed"),
    ("benchmarks/reproduce.py", ["--seeds", "1", "-2"], "--seeds must be >= 0, got 1 -2"),
    ("benchmarks/reproduce.py", ["--workers", "0"], "--workers must be >= 1, got 0"),
    ("benchmarks/reproduce.py", ["--skip", "bogus"], "--skip bogus: not among the tables of --table readme"),
    ("benchmarks/reproduce.py", ["--archive", "--table", "ppo"], "--archive: --table must be one of the sweeps"),
    # bench_vlm_step.py: each built (or loaded) the model first, or exited 1
    ("benchmarks/bench_vlm_step.py", ["--size", "tiny", "--states", "0"], "--states must be >= 1, got 0"),
    ("benchmarks/bench_vlm_step.py", ["--size", "tiny", "--lora-rank", "-1"], "--lora-rank must be >= 0, got -1"),
    ("benchmarks/bench_vlm_step.py", ["--size", "tiny", "--device", "bogus"], "--device bogus: not a torch device"),
    ("benchmarks/bench_vlm_step.py", ["--size", "3b", "--device", "cpu"], "--size 3b needs a GPU (--device cuda)"),
    ("benchmarks/bench_vlm_step.py", ["--size", "tiny", "--json-out", "{tmp}/a_file/o.json"], "--json-out {tmp}/a_file/o.json: "),
    ("benchmarks/bench_vlm_step.py", ["--size", "tiny", "--checkpoint", "{tmp}/a_file"], "--checkpoint {tmp}/a_file: exists and is not"),
    # bench_malloc.py: taskset's CalledProcessError in the first cell
    ("benchmarks/bench_malloc.py", ["--cpu", "100000"], "--cpu 100000: not a core this process may run on"),
])
def test_a_bad_benchmark_flag_is_a_usage_error_before_any_work(script, args, says, tmp_path, monkeypatch, capsys) -> None:
    import subprocess as sp

    (tmp_path / "a_file").write_text("keep me")
    monkeypatch.chdir(tmp_path)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if script in ("benchmarks/ablations.py", "benchmarks/reproduce.py") and "--out" not in args:
        args += ["--out", str(tmp_path / "runs")]
    monkeypatch.setattr(sp, "run", lambda *a, **k: pytest.fail(f"a run started: {a}"))  # train_small, taskset
    readme = (ROOT / "README.md").read_bytes()
    code, _, err = run_script(ROOT / script, args, monkeypatch, capsys)
    assert code == 2, err[-2000:]
    assert says.replace("{tmp}", str(tmp_path)) in error_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]  # nothing written
    assert (tmp_path / "a_file").read_text() == "keep me" and (ROOT / "README.md").read_bytes() == readme


def test_ablations_accepts_every_setting_and_sweep_it_runs(tmp_path) -> None:
    """The up-front check parses each run's train_small.py flags as the run will: every setting
    and the sweeps reproduce.py runs pass it; --table-only passes where a run is finished."""
    import ablations
    import reproduce

    out = str(tmp_path / "runs")
    ablations.check_args(ablations.Args(settings=list(ablations.SETTINGS), out=out), list(ablations.SETTINGS))
    for settings, extra in reproduce.SWEEPS.values():
        ablations.check_args(ablations.Args(settings=settings, extra=extra, out=out), settings)
    (tmp_path / "runs" / "full__3").mkdir(parents=True)
    (tmp_path / "runs" / "full__3" / "eval.json").write_text("{}")
    ablations.check_args(ablations.Args(settings=["full"], seeds=[3], out=out, table_only=True), ["full"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]


@pytest.mark.parametrize("files,argv,says", [
    ({}, ["--workers", "0"], "--workers must be >= 1, got 0"),
    ({}, ["--eval-batch", "0", "--workers", "-1"], "--workers must be >= 1, got -1; --eval-batch must be >= 1, got 0"),
    ({"policy.pt": b"not torch"}, [], "no args.json beside it"),  # train_small's defaults, silently
    ({"policy.pt": b"", "args.json": b"{}"}, [], "not a tiny policy saved by train_small.py (EOFError"),
    ({"policy.pt": b"x", "args.json": b"[1]"}, [], "args.json is not a train_small.py args.json"),
])
def test_bench_eval_lockstep_refuses_a_run_it_cannot_evaluate(files, argv, says, tmp_path, monkeypatch, capsys) -> None:
    """Each was a traceback (EOFError, UnpicklingError, ValueError after the whole evaluation one
    at a time) or an evaluation with train_small's defaults instead of the run's settings."""
    import bench_eval_lockstep

    for name, data in {"policy.pt": b"", **files}.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.setattr(bench_eval_lockstep.ts, "evaluate", lambda *a, **k: pytest.fail("the evaluation started"))
    with pytest.raises(SystemExit) as e:
        bench_eval_lockstep.main([str(tmp_path / "policy.pt"), *argv])
    assert e.value.code == 2 and says in error_line(capsys.readouterr().err)


def test_bench_vlm_step_checkpoint_is_built_where_missing_and_reused(tmp_path, monkeypatch, capsys) -> None:
    """``--checkpoint DIR`` is built where DIR holds none (the help said "reuse ... built earlier"
    and it built one silently), then reused; one of another --size is a usage error, not figures
    labelled with the wrong size."""
    pytest.importorskip("transformers")
    import bench_vlm_step

    code, out, _ = run_script(ROOT / "benchmarks" / "bench_vlm_step.py", ["--help"], monkeypatch, capsys)
    assert code == 0 and "else built there at --size and kept" in " ".join(out.replace("│", " ").split())
    assert bench_vlm_step.check_args(bench_vlm_step.Args(size="tiny", device="cpu", checkpoint=str(tmp_path / "new"))) == "cpu"
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "config.json").write_text(json.dumps({"text_config": {"hidden_size": 2048}}))
    with pytest.raises(SystemExit, match="holds a model of text width 2048, not --size tiny's 64") as e:
        bench_vlm_step.check_args(bench_vlm_step.Args(size="tiny", device="cpu", checkpoint=str(tmp_path / "big")))
    assert e.value.code == 2 and sorted(p.name for p in tmp_path.iterdir()) == ["big"]


def test_hash_episodes_docstring_names_what_variation_takes() -> None:
    """It said "a preset or axis"; an axis name (``theme``) is refused, a preset works."""
    from guigym.variation import PRESETS
    from guigym.variation import resolve as resolve_variation

    import hash_episodes

    doc = " ".join(hash_episodes.__doc__.split())
    assert "preset or axis" not in doc and "a preset name of :mod:`guigym.variation`" in doc and "not a single axis" in doc
    assert "all" in PRESETS and "appearance" in PRESETS and resolve_variation("appearance", "train")
    with pytest.raises(SystemExit) as e:
        hash_episodes.main(["--variation", "theme"])
    assert e.value.code == 2
