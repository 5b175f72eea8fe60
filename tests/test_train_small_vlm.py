"""train_small.py's other paths: GRPO on the tiny Qwen2.5-VL (both stages) and the PPO baseline."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("train_small", ROOT / "train_small.py")
train_small = importlib.util.module_from_spec(spec)
sys.modules.setdefault("train_small", train_small)
spec.loader.exec_module(train_small)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from agents.tiny_vlm import build_tiny_qwen25vl

    return build_tiny_qwen25vl(tmp_path_factory.mktemp("tiny"))


@pytest.mark.parametrize("stage", ["1", "2"])
def test_vlm_grpo_updates(stage, tiny, tmp_path):
    args = train_small.Args(
        policy="vlm", vlm_path=str(tiny), device="cpu", max_new_tokens=12, stage=stage, iterations=2,
        episodes_per_iter=1, rollout_max_steps=2, states_per_iter=2, group_size=2, horizon=2, epochs=1,
        groups_per_minibatch=2, skip_flat_groups=False, val_every=0, progress=False, out_dir=str(tmp_path),
        run_name="vlm", lr=1e-3, ent_coef=0.01,  # a random model earns no reward: the entropy bonus moves it
    )
    tr = train_small.Trainer(args)
    before = [p.detach().clone() for p in tr.policy.parameters()]
    row = tr.iteration(0)
    assert row["stage"] == int(stage) and row["states"] > 0 and math.isfinite(row["loss"])
    assert any(not torch.equal(a, b) for a, b in zip(before, tr.policy.parameters()))
    tr.close()


def test_vlm_evaluation_in_lockstep(tiny, tmp_path, monkeypatch):
    """``--rollout-workers 1``: the VLM's held-out evaluation runs in lockstep, each step one
    batched ``generate`` call for every running episode (``VLMPolicyPlanner.plan_batch``), and
    gives the sequential evaluation's numbers here."""
    args = train_small.Args(
        policy="vlm", vlm_path=str(tiny), device="cpu", max_new_tokens=12, horizon=2, progress=False, out_dir=str(tmp_path),
        run_name="vlm-eval", rollout_workers=1, episodes_per_iter=1, eval_batch=3,
    )
    tr = train_small.Trainer(args)
    try:
        planner = train_small.planner_for(tr.policy, True, args.horizon)
        calls = []
        batch = planner.plan_batch
        monkeypatch.setattr(planner, "plan_batch", lambda obs, infos, hs: calls.append(len(obs)) or batch(obs, infos, hs))
        seeds = [10_000, 10_001, 10_002]
        lockstep = train_small.evaluate(args, planner, seeds, max_steps=2, executor=tr.executor, pool=tr.pool)
        alone = train_small.evaluate(args, planner, seeds, max_steps=2, executor=tr.executor)
    finally:
        tr.close()
    assert calls == [3, 3]  # two steps of the three episodes
    assert lockstep["episodes"] == alone["episodes"] == 3 and lockstep["mean_steps"] == alone["mean_steps"] == 2
    assert lockstep["first_step_acc"] == alone["first_step_acc"]


def test_ppo_baseline_cli(tmp_path):
    pytest.importorskip("stable_baselines3")
    res = train_small.main(["--algo", "ppo", "--ppo-steps", "1024", "--eval-episodes", "3", "--out-dir", str(tmp_path),
                            "--run-name", "ppo", "--no-progress"])
    assert res["total_timesteps"] >= 1024 and 0.0 <= res["final_success"] <= 1.0
    for name in ("curves.csv", "curves.png", "eval.json", "ppo.zip"):
        assert (tmp_path / "ppo" / name).exists(), name
    # strict JSON: the curve's first point has no training return yet (NaN in memory, null on disk)
    ev = json.loads((tmp_path / "ppo" / "eval.json").read_text(), parse_constant=lambda c: pytest.fail(f"{c} in eval.json"))
    assert ev["curve"][0]["train_return"] is None and ev["final_success"] == res["final_success"]


def test_vlm_best_val_checkpoint(tiny, tmp_path):
    """The default ``--checkpoint best-val`` restores the best validation point's weights into the
    VLM policy before saving and evaluating (it used to raise AttributeError there, after training)."""
    args = train_small.Args(
        policy="vlm", vlm_path=str(tiny), device="cpu", max_new_tokens=8, stage="1", iterations=1, episodes_per_iter=1,
        rollout_max_steps=1, states_per_iter=1, group_size=2, horizon=2, epochs=1, skip_flat_groups=False, val_every=1,
        val_episodes=1, val_max_steps=1, eval_episodes=1, eval_max_steps=1, eval_random=False, progress=False,
        out_dir=str(tmp_path), run_name="vlm-best", checkpoint="best-val",
    )
    res = train_small.Trainer(args).run()
    assert res["selected_iter"] == 1 and (tmp_path / "vlm-best" / "policy.pt" / "config.json").exists()


def test_best_val_keeps_a_lora_vlms_adapters_alone_and_restores_the_best_iteration(tiny, tmp_path, monkeypatch):
    """``--checkpoint best-val`` with LoRA: the weights kept at each better validation are the
    adapters alone (the frozen base never changes, and copying it each time cost a copy of the
    whole model), and the policy evaluated after training is the best iteration's: its adapters
    over the unchanged base."""
    pytest.importorskip("peft")
    args = train_small.Args(
        policy="vlm", vlm_path=str(tiny), device="cpu", max_new_tokens=8, lora_rank=4, stage="1", iterations=2,
        episodes_per_iter=1, rollout_max_steps=2, states_per_iter=2, group_size=2, horizon=2, epochs=1,
        skip_flat_groups=False, val_every=1, eval_episodes=1, eval_max_steps=1, eval_random=False, progress=False,
        out_dir=str(tmp_path), run_name="best", lr=1e-2, ent_coef=0.01, checkpoint="best-val",
    )
    tr = train_small.Trainer(args)
    vals = iter([1.0, 0.0])  # iteration 1 validates best, iteration 2 worse
    monkeypatch.setattr(tr, "validate", lambda: {"success_rate": next(vals), "mean_steps": 1.0, "plan_repetition": 0.0,
                                                 "exec_repetition": 0.0})
    snaps: list[dict[str, torch.Tensor]] = []
    real = train_small.Trainer.iteration

    def iteration(self, it):
        row = real(self, it)
        snaps.append({k: v.detach().clone() for k, v in self.policy.state_dict().items()})
        return row

    monkeypatch.setattr(train_small.Trainer, "iteration", iteration)
    copies: list[int] = []  # the number of tensors of every copy made to the CPU
    real_cpu_state = train_small.cpu_state

    def cpu_state(*args, **kwargs):
        state = real_cpu_state(*args, **kwargs)
        copies.append(len(state))
        return state

    monkeypatch.setattr(train_small, "cpu_state", cpu_state)
    res = tr.run()
    lora = train_small.trainable_keys(tr.policy)
    assert lora and all("lora_" in k for k in lora)
    assert copies and max(copies) == len(lora)  # no copy of the whole model
    assert res["selected_iter"] == 1
    after, first, last = tr.policy.state_dict(), snaps[0], snaps[1]
    assert any(not torch.equal(first[k], last[k]) for k in lora)  # the two iterations' adapters differ
    assert all(torch.equal(after[k], first[k]) for k in after)  # the best iteration's adapters, the same base
    tr.close()


def test_vlm_run_resumed_from_a_lora_checkpoint_is_the_run_never_stopped(tiny, tmp_path, monkeypatch):
    """``--save-every 1`` with LoRA: ``checkpoint.pt`` holds the adapters alone (the frozen base
    comes from ``--vlm-path`` again), and a run that died after it goes on with ``--resume`` to
    the curves and held-out results of the run never stopped."""
    pytest.importorskip("peft")
    kw = dict(policy="vlm", vlm_path=str(tiny), device="cpu", max_new_tokens=8, lora_rank=4, stage="1", iterations=2,
              episodes_per_iter=1, rollout_max_steps=2, states_per_iter=2, group_size=2, horizon=2, epochs=1,
              skip_flat_groups=False, val_every=1, val_episodes=1, val_max_steps=2, eval_episodes=2, eval_max_steps=2,
              eval_random=False, progress=False, out_dir=str(tmp_path), lr=1e-3, ent_coef=0.01, save_every=1)
    whole = train_small.Trainer(train_small.Args(run_name="whole", **kw)).run()
    real = train_small.Trainer.iteration

    def iteration(self, it):
        if it == 1 and not self.args.resume:
            raise RuntimeError("preempted")
        return real(self, it)

    monkeypatch.setattr(train_small.Trainer, "iteration", iteration)
    with pytest.raises(RuntimeError, match="preempted"):
        train_small.Trainer(train_small.Args(run_name="split", **kw)).run()
    saved = torch.load(tmp_path / "split" / "checkpoint.pt", weights_only=False)["policy"]
    assert saved and all("lora_" in k for k in saved)
    resumed = train_small.Trainer(train_small.Args(run_name="split", resume=True, **kw)).run()
    assert (tmp_path / "whole" / "curves.csv").read_text() == (tmp_path / "split" / "curves.csv").read_text()
    ea, eb = (json.loads((tmp_path / d / "eval.json").read_text()) for d in ("whole", "split"))  # NaN as null
    assert ea["policy"] == eb["policy"] and ea["selected_iter"] == eb["selected_iter"] == resumed["selected_iter"]
    assert ea["policy"]["success_rate"] == whole["policy"]["success_rate"]


def test_ppo_into_a_grpo_runs_folder_replaces_its_outputs_and_says_how_many_steps_it_trains(tmp_path, capsys):
    """A run into an existing folder first removes that folder's old outputs, whichever algorithm
    wrote them (a PPO run left GRPO's policy.pt and timing.csv beside ppo.zip, and the reverse);
    --algo ppo writes args.json too; and a budget that is no whole number of PPO rollouts is
    rounded up with a word, the evaluations spread over what is trained (--ppo-steps 64 trained
    256 steps, evaluated at 8-step intervals: 32 times)."""
    pytest.importorskip("stable_baselines3")
    train_small.train(train_small.Args(iterations=1, episodes_per_iter=1, rollout_max_steps=2, states_per_iter=2, group_size=2,
                                       horizon=2, val_every=0, eval_episodes=1, eval_max_steps=2, progress=False,
                                       save_model=True, out_dir=str(tmp_path), run_name="x"))
    assert (tmp_path / "x" / "policy.pt").exists() and (tmp_path / "x" / "timing.csv").exists()
    res = train_small.main(["--algo", "ppo", "--ppo-steps", "64", "--eval-episodes", "2", "--out-dir", str(tmp_path),
                            "--run-name", "x", "--no-progress"])
    assert "--ppo-steps 64 trains 256 env steps (whole PPO rollouts of 8 envs x 32 steps)" in capsys.readouterr().err
    assert res["total_timesteps"] == 256 and len(res["curve"]) <= 10
    assert sorted(p.name for p in (tmp_path / "x").iterdir()) == ["args.json", "curves.csv", "curves.png", "eval.json", "ppo.zip"]
    assert json.loads((tmp_path / "x" / "args.json").read_text())["algo"] == "ppo"
    train_small.train(train_small.Args(iterations=1, episodes_per_iter=1, rollout_max_steps=2, states_per_iter=2, group_size=2,
                                       horizon=2, val_every=0, eval_episodes=1, eval_max_steps=2, progress=False,
                                       out_dir=str(tmp_path), run_name="x"))
    assert not (tmp_path / "x" / "ppo.zip").exists()
