"""Second audit of ``train_small.py`` and its baselines: resuming a run that was started with
the default run name, and what a PPO run or sweep leaves behind."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("tyro")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train_small  # noqa: E402


def _small(tmp_path: Path, name: Any, **kw: Any) -> train_small.Args:
    base: dict[str, Any] = dict(iterations=2, episodes_per_iter=1, rollout_max_steps=2, states_per_iter=2, group_size=2,
                                horizon=2, epochs=1, groups_per_minibatch=2, val_every=0, val_episodes=0, eval_episodes=1,
                                eval_max_steps=2, eval_random=False, progress=False, save_model=False, out_dir=str(tmp_path),
                                run_name=name)
    base.update(kw)
    return train_small.Args(**base)


def test_a_run_with_the_default_name_can_be_resumed(tmp_path, monkeypatch):
    """A run started without ``--run-name`` (the README's ``python train_small.py``) and stopped by
    Ctrl-C says "go on with the same flags and --resume --run-name NAME", but its checkpoint holds
    ``run_name=None``, so that command was refused ("--run-name is 'NAME', the run was started with
    None"): no run with the default name could be resumed. The folder's place is no setting either
    (here the same folder spelled another way)."""
    real = train_small.Trainer.iteration

    def iteration(self: Any, it: int) -> Any:
        row = real(self, it)
        if it == 0 and not self.args.resume:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C during the first iteration
        return row

    monkeypatch.setattr(train_small.Trainer, "iteration", iteration)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            train_small.train(_small(tmp_path, None))
    finally:
        signal.signal(signal.SIGINT, old)
    (folder,) = tmp_path.iterdir()
    assert json.loads((folder / "interrupted.json").read_text())["resumable"]
    resumed = _small(tmp_path, folder.name, resume=True, out_dir=os.path.join(str(tmp_path), ".", ""))  # another spelling
    assert train_small.arg_problems(resumed) == []
    # the other flags still have to be the run's
    assert any("--lr" in p for p in train_small.arg_problems(_small(tmp_path, folder.name, resume=True, lr=0.5)))
    res = train_small.train(resumed)
    assert res["iterations"] == 2 and (folder / "eval.json").exists() and not (folder / "checkpoint.pt").exists()


def test_ppo_runs_with_the_default_name_never_share_a_folder(tmp_path, monkeypatch):
    """``--algo ppo``'s default run name is per second, as GRPO's: two runs of the same seed
    started in the same second wrote into one folder, the second deleting the first's results on
    its way in (GRPO's default names get a folder of their own, ``_2``, ``_3``, …)."""
    import agents.sb3_baseline as sb3

    def fake_train_ppo(**kw: Any) -> dict[str, Any]:  # the test is about the folders, not PPO
        (Path(kw["out_dir"]) / "eval.json").write_text("{}")
        return {"out_dir": str(kw["out_dir"])}

    monkeypatch.setattr(sb3, "train_ppo", fake_train_ppo)
    monkeypatch.setattr(train_small.time, "time", lambda: 1_700_000_000.0)
    argv = ["--algo", "ppo", "--ppo-steps", "256", "--no-progress", "--out-dir", str(tmp_path)]
    outs = [Path(train_small.main(argv)["out_dir"]) for _ in range(2)]
    assert outs[0] != outs[1]
    assert all((o / "eval.json").exists() and (o / "args.json").exists() for o in outs)


def test_a_cut_short_seed_cache_of_the_ppo_sweep_is_retrained_not_a_traceback(tmp_path, monkeypatch, capsys):
    """``benchmarks/ppo_baseline.py`` reuses a seed whose ``row.json`` matches; that file was
    written in place, so a run killed while writing it left half a file, and every later run of
    the sweep stopped at a ``JSONDecodeError`` traceback. Now the seed is trained again and its
    row (and the table) written whole."""
    pytest.importorskip("stable_baselines3")
    import stable_baselines3

    import agents.sb3_baseline as sb3

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import ppo_baseline

    trained: list[int] = []

    def fake_train_ppo(**kw: Any) -> dict[str, Any]:  # the test is about the cache, not PPO
        trained.append(kw["seed"])
        Path(kw["out_dir"]).mkdir(parents=True, exist_ok=True)
        return {"total_timesteps": 256, "curve": [{"step": 0, "success": 0.0, "cpu_s": 0.0, "train_return": 0.0}]}

    monkeypatch.setattr(sb3, "train_ppo", fake_train_ppo)
    monkeypatch.setattr(sb3, "evaluate_sb3", lambda *a, **kw: 0.5)
    monkeypatch.setattr(sb3, "evaluate_random", lambda *a, **kw: 0.0)
    monkeypatch.setattr(stable_baselines3.PPO, "load", lambda *a, **kw: None)
    out = tmp_path / "sweep"
    (out / "seed0").mkdir(parents=True)
    (out / "seed0" / "row.json").write_text('{"setting": {"env_id": "GuiGym-Lo')  # cut short
    argv = ["--seeds", "0", "--steps", "256", "--eval-episodes", "1", "--curve-episodes", "1", "--out", str(out),
            "--png", str(tmp_path / "ppo.png")]
    rows = ppo_baseline.main(argv)
    assert trained == [0] and rows[0]["ppo_argmax"] == 0.5
    assert "not a readable row" in capsys.readouterr().err
    assert json.loads((out / "seed0" / "row.json").read_text())["row"]["seed"] == 0
    ppo_baseline.main(argv)  # and the whole row is reused
    assert trained == [0]


def test_a_stage1_reward_that_no_stage_reads_is_a_usage_error(tmp_path):
    """``--stage 2 --stage1-reward uir1`` trained stage 2 with the grounded reward alone, the
    flag dropped without a word (``--stage 1 --stage2-reward trajectory`` is refused so)."""
    problems = train_small.arg_problems(_small(tmp_path, "r", stage="2", stage1_reward="uir1"))
    assert any(p.startswith("--stage1-reward uir1 needs a stage scored with it") for p in problems), problems
    for ok in (dict(stage="1"), dict(stage="both"), dict(stage="2", stage2_reward="trajectory")):
        assert train_small.arg_problems(_small(tmp_path, "r", stage1_reward="uir1", **ok)) == [], ok
