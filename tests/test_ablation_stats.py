"""The statistics behind the ablation table's verdicts (``benchmarks/ablations.py``)."""

from __future__ import annotations

import doctest
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import ablations  # noqa: E402


def test_doctests():
    assert doctest.testmod(ablations).failed == 0


def test_permutation_p_by_hand():
    # 3 vs 3, fully separated: 1 of C(6,3) = 20 splits is as extreme
    assert ablations.permutation_p([0, 0, 0], [1, 1, 1], "<") == pytest.approx(1 / 20)
    assert ablations.permutation_p([0, 0, 0], [1, 1, 1], ">") == pytest.approx(1.0)
    # 5 vs 5, fully separated: 1/252 — the smallest p five seeds can give
    assert ablations.permutation_p([0.1, 0.2, 0.0, 0.1, 0.3], [0.9, 1.0, 0.8, 0.95, 0.85], "<") == pytest.approx(1 / 252)
    # overlapping groups are not significant
    assert ablations.permutation_p([0.5, 0.9, 0.7, 1.0, 0.6], [0.8, 0.6, 1.0, 0.7, 0.9], "<") > 0.05


def test_verdicts():
    low, high = [0.0, 0.1, 0.0, 0.2, 0.1], [0.9, 1.0, 0.95, 0.9, 1.0]
    assert ablations.verdict(low, high, "<")[0] == "reproduced"
    assert ablations.verdict(high, low, "<")[0] == "opposite"
    assert ablations.verdict([0.5, 0.9, 0.7, 1.0, 0.6], [0.8, 0.6, 1.0, 0.7, 0.9], "<")[0] == "not reproduced"
    assert ablations.verdict([], high, "<")[0] == "no runs"


def test_bootstrap_interval_contains_the_mean_and_is_seeded():
    v = [0.2, 0.9, 0.5, 0.7, 1.0]
    lo, hi = ablations.bootstrap_ci(v, n=2000)
    assert lo <= sum(v) / len(v) <= hi
    assert ablations.bootstrap_ci(v, n=2000) == (lo, hi)


def test_table_has_a_verdict_per_claim():
    def run(success, rep):
        return {"run_name": "x", "policy": {"success_rate": success, "plan_repetition": rep, "exec_repetition": 0.0,
                                            "first_step_acc": 0.5, "later_step_acc": 0.5, "mean_steps": 5.0}}
    results = {"full": [run(0.9 + 0.02 * i, 0.1) for i in range(5)], "no-rep": [run(0.05 * i, 0.8) for i in range(5)]}
    text = ablations.table(results, 0.0, n_boot=500)
    rows = [line for line in text.splitlines() if line.startswith("| no repetition") or line.startswith("| … because")]
    assert len(rows) == 2 and all("**reproduced**" in r for r in rows)
    assert "Random planner on the same held-out seeds: 0.0 % success." in text


def test_a_claim_on_the_runs_validation_auc_reads_it_from_the_run():
    """``val_auc`` is a field of the run (``eval.json``), not of its held-out ``policy`` results:
    a claim on it is tested on those values (before, it found none: "no runs")."""
    def run(auc):
        return {"run_name": "x", "val_auc": auc, "policy": {"success_rate": 1.0, "plan_repetition": 0.0, "exec_repetition": 0.0,
                                                            "first_step_acc": 1.0, "later_step_acc": 1.0, "mean_steps": 5.0}}
    results = {"full": [run(0.70 + 0.01 * i) for i in range(5)], "step-adv": [run(0.85 + 0.01 * i) for i in range(5)]}
    rows = [line for line in ablations.table(results, None, n_boot=200).splitlines() if "| step-adv vs full | val_auc >" in line]
    assert len(rows) == 1 and "| +15.0 | 0.004 | **reproduced** |" in rows[0]


def test_sweep_runs_archive_and_restore(tmp_path, monkeypatch):
    """A sweep longer than a session: finished runs (an ``eval.json``) go to the committed
    archive with the commit, unfinished ones do not, and another checkout gets them back."""
    import reproduce

    monkeypatch.setattr(reproduce, "ARCHIVE", tmp_path / "archive")
    out = tmp_path / "runs"
    (out / "T1__1").mkdir(parents=True)
    (out / "T1__1" / "eval.json").write_text('{"run_name": "T1__1"}')
    (out / "T1__1" / "curves.csv").write_text("iter,reward\n1,0.5\n")
    (out / "T1__1" / "policy.pt").write_bytes(b"weights")  # not archived: large, and no table reads it
    (out / "T3__1").mkdir()
    (out / "T3__1" / "curves.csv").write_text("iter\n")  # still running
    assert reproduce.archive_runs("horizon", out) == ["T1__1"]
    arch = tmp_path / "archive" / "horizon" / "T1__1"
    assert sorted(p.name for p in arch.iterdir()) == ["archived_at.txt", "curves.csv", "eval.json"]
    assert reproduce.archive_runs("horizon", out) == []  # already there
    fresh = tmp_path / "fresh"
    assert reproduce.restore_runs("horizon", fresh) == ["T1__1"]
    assert (fresh / "T1__1" / "eval.json").read_text() == '{"run_name": "T1__1"}'
    assert reproduce.restore_runs("horizon", fresh) == []  # a finished run is never overwritten


def test_the_table_names_the_task_the_extra_flags_train_on() -> None:
    """A sweep whose ``--extra`` moves the runs to another task (the horizon sweep: Settings hard)
    is labelled with that task, not the defaults' Login easy."""
    extra = "--env-id GuiGym-Settings-v0 --level hard --rollout-max-steps 16"
    assert ablations._task(ablations.Args(extra=extra)) == ("GuiGym-Settings-v0", "hard")
    assert ablations._task(ablations.Args(extra="--level medium")) == ("GuiGym-Login-v0", "medium")
    assert ablations._task(ablations.Args()) == ("GuiGym-Login-v0", "easy")


def test_robustness_table_puts_each_policy_and_split_in_its_column(tmp_path, monkeypatch, capsys) -> None:
    """The robustness table's evaluation runs one job per policy and split (in any order) and
    reports each as it ends; every success lands in its own seed's column and split's rows."""
    import concurrent.futures

    import reproduce

    def fake_grid(path: str | None, split: str, seeds: list[int]) -> dict[str, float]:
        if path is None:  # the noisy oracle
            return {"neutral": 1.0, f"{split}-only": 0.5}
        seed = int(Path(path).parent.name.split("__")[1])
        base = 0.0 if Path(path).parent.name.startswith("varied") else 0.5
        return {"neutral": base + seed / 10, f"{split}-only": base + seed / 100}

    monkeypatch.setattr(reproduce, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(reproduce, "_train_seeds", lambda *a, **k: [])
    monkeypatch.setattr(reproduce, "_policy_grid", fake_grid)
    monkeypatch.setattr(reproduce, "ProcessPoolExecutor", concurrent.futures.ThreadPoolExecutor)
    args = reproduce.Args(table="robustness", seeds=[1, 2], out=str(tmp_path / "runs"))
    text = reproduce.robustness_table(args)

    progress = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[robustness]")]
    assert len(progress) == 10 and "(10/10 after " in progress[-1]
    rows = {tuple(c.strip() for c in line.split("|")[1:3]): line for line in text.splitlines() if line.startswith("| t")}
    assert list(rows) == [("train", "neutral"), ("train", "train-only"), ("test", "neutral"), ("test", "test-only")]
    assert rows[("train", "neutral")].split("|")[3:8] == [" 60 / 70 ", " 65.0 % ", " 10 / 20 ", " 15.0 % ", " 100 % "]
    assert rows[("test", "test-only")].split("|")[3:8] == [" 51 / 52 ", " 51.5 % ", " 1 / 2 ", " 1.5 % ", " 50 % "]
    saved = json.loads((tmp_path / "results" / "robustness.json").read_text())
    assert list(saved["runs"]["plain 2"]) == ["train", "test"] and saved["runs"]["varied 1"]["train"]["neutral"] == 0.1
