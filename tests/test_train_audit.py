"""Audit regressions of ``train_small.py`` and the agents it trains with: flags that were read
by no setting, ``--eval-batch`` under a larger rollout batch, what a failed start or a failed
PPO run left behind (open envs, a stale ``eval.json``, a traceback for a Ctrl-C)."""

from __future__ import annotations

import functools
import math
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("torch")
pytest.importorskip("tyro")

from agents.env_pool import InlineEnvPool  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train_small  # noqa: E402


def _small(tmp_path: Path, **kw: Any) -> train_small.Args:
    base: dict[str, Any] = dict(iterations=1, episodes_per_iter=1, rollout_max_steps=2, states_per_iter=2, group_size=2,
                                horizon=2, epochs=1, groups_per_minibatch=2, val_every=0, val_episodes=0, eval_episodes=1,
                                eval_max_steps=2, progress=False, save_model=False, out_dir=str(tmp_path), run_name="r")
    base.update(kw)
    return train_small.Args(**base)


@pytest.mark.parametrize("argv, want", [
    (["--split", "test"], "--split test needs --variation"),
    (["--vlm-path", "ckpt"], "--vlm-path ckpt needs --policy vlm"),
    (["--lora-rank", "8"], "--lora-rank 8 needs --policy vlm"),
    (["--eval-batch", "4"], "--eval-batch 4 needs --rollout-workers N"),
    (["--uir1-coord", "iou"], "--uir1-coord iou needs --stage1-reward uir1"),
    (["--no-uir1-type-reward"], "--no-uir1-type-reward needs --stage1-reward uir1"),
    (["--stage", "1", "--stage1-frac", "0.3"], "--stage1-frac 0.3 needs --stage both"),
    (["--stage", "1", "--stage2-reward", "trajectory"], "--stage2-reward trajectory needs stage 2"),
    (["--stage", "2", "--advantage", "step"], "--advantage step needs stage 1"),
    (["--label-vocab-seeds", "50"], "--label-vocab-seeds 50 needs --plan-steps ungrounded"),
    (["--lr", "inf"], "--lr must be finite"),
    (["--lambda-rep", "inf"], "--lambda-rep must be finite"),
    (["--ent-coef", "inf"], "--ent-coef must be finite"),
])
def test_flags_no_setting_reads_are_usage_errors(tmp_path, argv, want):
    """A flag the setting does not read was dropped silently: ``--split test`` without
    ``--variation`` trained and evaluated on the family's own instances, ``--vlm-path`` without
    ``--policy vlm`` trained the tiny policy; an infinite learning rate or reward weight trained
    NaN weights. Each is now a usage error before anything starts."""
    with pytest.raises(SystemExit) as e:
        train_small.main([*argv, "--out-dir", str(tmp_path), "--no-progress"])
    assert e.value.code == 2 and want in str(e.value), str(e.value)  # exit status 2, as tyro's own usage errors
    assert not any(tmp_path.iterdir())


def test_the_same_flags_where_a_setting_reads_them_are_fine(tmp_path):
    ok = [
        train_small.Args(variation="all", split="test"),
        train_small.Args(rollout_workers=2, eval_batch=4),
        train_small.Args(stage1_reward="uir1", uir1_coord="iou", uir1_type_reward=False, horizon=1, stage="1"),
        train_small.Args(stage1_frac=0.3, stage2_reward="trajectory", advantage="step"),
        train_small.Args(stage="2", stage2_first_step_only=False),
        train_small.Args(plan_steps="ungrounded", label_vocab_seeds=50),
        train_small.Args(time_limit_min=math.inf, max_grad_norm=math.inf),  # infinite: no limit, no clipping
    ]
    for args in ok:
        assert train_small.arg_problems(args) == [], args


def test_eval_batch_bounds_the_lockstep_evaluation(tmp_path):
    """The pool holds ``max(episodes_per_iter, eval_batch)`` envs and the lockstep loop runs as
    many episodes at once as its pool has envs: with 3 rollout episodes, ``--eval-batch 1`` still
    evaluated 3 at a time (``--eval-batch`` ignored)."""
    args = _small(tmp_path, rollout_workers=1, episodes_per_iter=3, eval_batch=1)
    pool = InlineEnvPool(functools.partial(gym.make, args.env_id, **train_small.env_kwargs(args)), 3)
    policy = train_small.make_policy(args)
    planner = train_small.planner_for(policy, True, args.horizon)
    sizes: list[int] = []
    batch = planner.plan_batch
    planner.plan_batch = lambda obs, infos, hs: sizes.append(len(obs)) or batch(obs, infos, hs)  # type: ignore[method-assign]
    try:
        seeds = [10_000, 10_001, 10_002]
        res = train_small.evaluate(args, planner, seeds, max_steps=2, pool=pool)
        assert res["episodes"] == 3 and sizes and set(sizes) == {1}, sizes
        sizes.clear()
        train_small.expert_step_metrics(args, planner, seeds, max_steps=2, pool=pool)
        assert sizes and set(sizes) == {1}, sizes
        sizes.clear()
        # an eval batch as large as the pool: the pool itself, all three at once
        train_small.evaluate(train_small.Args(**{**vars(args), "eval_batch": 3}), planner, seeds, max_steps=2, pool=pool)
        assert max(sizes) == 3
    finally:
        pool.close()


def test_a_trainer_that_fails_to_start_closes_its_envs(tmp_path, monkeypatch):
    """A rollout pool that cannot start (Ray not reachable, a worker that dies) left the
    trainer's rollout and scoring envs open; refusals that need nothing built came after the
    policy and the envs were built."""
    closed: list[str] = []
    real_close = train_small.StateRecorder.close

    def close(self: Any) -> None:
        closed.append("rollout env")
        real_close(self)

    def no_pool(args: Any) -> Any:
        raise ConnectionError("no Ray cluster")

    monkeypatch.setattr(train_small.StateRecorder, "close", close)
    monkeypatch.setattr(train_small, "make_rollout_pool", no_pool)
    with pytest.raises(ConnectionError):
        train_small.Trainer(_small(tmp_path, rollout_workers=1))
    assert closed == ["rollout env"]

    def no_env(*a: Any, **kw: Any) -> Any:
        raise AssertionError("an env was built for a run that is refused")

    monkeypatch.setattr(train_small, "make_env", no_env)
    with pytest.raises(SystemExit, match="needs an executor"):
        train_small.Trainer(_small(tmp_path, plan_steps="ungrounded", executor="none", label_vocab_seeds=1))
    with pytest.raises(SystemExit, match="--eval-batch must be >= 1"):
        train_small.Trainer(_small(tmp_path, eval_batch=0))


def test_a_ctrl_c_of_the_ppo_baseline_is_exit_130_not_a_traceback(tmp_path, monkeypatch):
    """``--algo ppo`` let a Ctrl-C through as a ``KeyboardInterrupt`` traceback (GRPO's path
    exits with status 130 and says what is on disk)."""
    import agents.sb3_baseline as sb3

    def interrupted(**kw: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(sb3, "train_ppo", interrupted)
    code = None
    try:
        train_small.main(["--algo", "ppo", "--out-dir", str(tmp_path), "--run-name", "p", "--no-progress"])
    except KeyboardInterrupt:  # (caught here: let through, it would stop the whole test session)
        pytest.fail("a Ctrl-C of --algo ppo ended in a KeyboardInterrupt traceback")
    except SystemExit as e:
        code = e.code
    assert code == 130


def test_ppo_run_leaves_no_stale_or_half_written_results(tmp_path, monkeypatch):
    """``train_ppo`` in a reused folder: a failed run left the previous run's ``eval.json`` (the
    mark of a finished run), wrote ``ppo.zip`` in place (a failure half-way truncated the previous
    model) and left its vector env open."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.sb3_baseline import train_ppo

    out = tmp_path / "ppo"
    out.mkdir()
    (out / "eval.json").write_text('{"final_success": 1.0}')
    (out / "ppo.zip").write_bytes(b"previous model")
    closed: list[bool] = []
    real_close = DummyVecEnv.close
    monkeypatch.setattr(DummyVecEnv, "close", lambda self: closed.append(True) or real_close(self))
    monkeypatch.setattr(PPO, "learn", lambda self, **kw: self)  # nothing to train: the test is about the files

    def broken_save(self: Any, path: Any, *a: Any, **kw: Any) -> None:
        Path(path).write_bytes(b"half")
        raise OSError("disk full")

    monkeypatch.setattr(PPO, "save", broken_save)
    kw = dict(total_timesteps=8, eval_every=8, eval_episodes=0, max_steps=2, n_envs=1, progress=False, out_dir=out,
              ppo_kwargs={"n_steps": 8, "batch_size": 8, "n_epochs": 1})
    with pytest.raises(OSError, match="disk full"):
        train_ppo(**kw)
    assert not (out / "eval.json").exists()
    assert (out / "ppo.zip").read_bytes() == b"previous model"
    assert not list(out.glob("*.tmp"))
    assert closed == [True]
    monkeypatch.undo()
    res = train_ppo(**kw)  # and a run that succeeds writes every file
    assert res["total_timesteps"] >= 8 and (out / "eval.json").exists() and (out / "curves.csv").read_text().startswith("step,")
    assert (out / "ppo.zip").read_bytes() != b"previous model" and not list(out.glob("*.tmp"))


def test_a_read_only_run_folder_is_a_usage_error(tmp_path, monkeypatch):
    """``--run-name`` of an existing folder that cannot be written: the path check accepted any
    existing folder, and the run built its policy and envs, then ended in a PermissionError
    traceback."""
    import os

    run = tmp_path / "ro"
    run.mkdir()
    real = os.access
    monkeypatch.setattr(train_small.os, "access", lambda p, mode, **kw: Path(p) != run and real(p, mode, **kw))
    found = "\n".join(train_small.arg_problems(train_small.Args(out_dir=str(tmp_path), run_name="ro")))
    assert "--run-name ro: is not writable" in found, found
    assert train_small.arg_problems(train_small.Args(out_dir=str(tmp_path), run_name="other")) == []


def test_a_run_without_iterations_does_not_blame_matplotlib(tmp_path, capsys):
    """``--iterations 0`` (evaluate the untrained policy) has no curve to plot; the summary said
    "no matplotlib: no PNG" (matplotlib is installed)."""
    pytest.importorskip("matplotlib")
    res = train_small.train(_small(tmp_path, iterations=0, eval_random=False, progress=True))
    assert res["iterations"] == 0 and (tmp_path / "r" / "eval.json").exists()
    out = capsys.readouterr().out
    assert "held-out success" in out and "no matplotlib" not in out


@pytest.mark.parametrize("eval_random", [True, False])
def test_a_quiet_run_still_prints_its_result(tmp_path, capsys, eval_random):
    """``--no-progress`` hides the progress bar and the phases, not the result: a quiet run
    printed nothing at all, not even where it was written; without ``--eval-random`` the summary
    said "(random planner nan)"."""
    train_small.train(_small(tmp_path, eval_random=eval_random, progress=False))
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("r: held-out success ") and out[0].endswith(f"-> {tmp_path / 'r'}"), out
    assert ("(random planner " in out[0]) == eval_random and "nan" not in out[0]


def test_the_help_names_each_default_once(capsys, monkeypatch):
    """A field whose default is described (``--run-name``, ``--eval-max-steps``) showed it twice,
    the second time as "(default: None)"; the run name's pattern also missed the horizon."""
    import tyro

    monkeypatch.setenv("COLUMNS", "400")  # one line per flag
    with pytest.raises(SystemExit):
        tyro.cli(train_small.Args, args=["--help"])
    entries: dict[str, str] = {}  # flag -> its help, continuation lines joined
    for ln in capsys.readouterr().out.splitlines():
        text = " ".join(ln.strip("│ ╭╰─").split())
        if text.startswith("--"):
            flag = text.split()[0].rstrip(",")
            entries[flag] = text
        elif entries and text:
            entries[flag] += " " + text
    for flag in ("--run-name", "--eval-max-steps"):
        assert entries[flag].count("(default:") == 1 and "(default: None)" not in entries[flag], entries[flag]
    assert "(default: <env>__<level>__s<stage>__T<horizon>__<seed>__<time>)" in entries["--run-name"]


@pytest.mark.parametrize("name", ["ABSOLUTE", "../up", "a/../../b"])
def test_a_run_name_that_leaves_the_out_dir_is_a_usage_error(tmp_path, name):
    """``Path(out_dir) / run_name`` with an absolute ``--run-name`` is the run name alone: the run
    was written outside ``--out-dir`` without a word (so was one that climbs out with ``..``)."""
    name = str(tmp_path / "elsewhere") if name == "ABSOLUTE" else name
    found = "\n".join(train_small.arg_problems(train_small.Args(out_dir=str(tmp_path / "runs"), run_name=name)))
    assert f"--run-name {name}: a folder name under --out-dir" in found, found
    assert train_small.arg_problems(train_small.Args(out_dir=str(tmp_path / "runs"), run_name="sweep/a")) == []


def test_evaluate_sb3_closes_its_env_when_the_model_raises(monkeypatch):
    """``agents.sb3_baseline.evaluate_sb3`` closed its env only after the last episode: a model
    whose ``predict`` raised left it open (a Chromium, on the browser backend)."""
    import agents.sb3_baseline as sb3
    import guigym.wrappers

    closed = []
    real = guigym.wrappers.make_sb3_env

    def make(*a, **kw):
        env = real(*a, **kw)
        close = env.close
        env.close = lambda: (closed.append(True), close())[1]
        return env

    monkeypatch.setattr(guigym.wrappers, "make_sb3_env", make)

    class Broken:
        def predict(self, obs, deterministic=True):
            raise RuntimeError("model on fire")

    with pytest.raises(RuntimeError, match="on fire"):
        sb3.evaluate_sb3(Broken(), "GuiGym-Login-v0", "easy", range(2), 5)
    assert closed == [True]
