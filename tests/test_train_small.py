"""GRPO core (hand-computed numbers), the tiny policy's action vocabulary, and a smoke test
of ``train_small.py``: a few GRPO updates of each TraceR1 stage in seconds."""

from __future__ import annotations

import doctest
import json
import math
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest
import torch  # the training extra (torch, tyro) must be installed: CI runs these tests

import agents.grpo as grpo_mod
import agents.tiny_policy as tiny_mod
from agents.grpo import Completion, group_advantages, grpo_loss, grpo_stats, step_advantages
from agents.tiny_policy import TinyConfig, TinyPlanner, TinyPolicy, cell_centre, split_words
from guigym.actions import Click, Type
from guigym.grounding import quoted
from guigym.registration import env_ids
from guigym.rewards import argument_reward

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train_small  # noqa: E402


# --- group_advantages / grpo_loss on hand-computed numbers ------------------------------


def test_group_advantages_by_hand():
    # mean 2, population std sqrt(2/3)
    a = group_advantages([[1.0, 2.0, 3.0], [5.0, 5.0, 5.0]], eps=0.0 + 1e-12)
    s = math.sqrt(2 / 3)
    assert a[0].tolist() == pytest.approx([-1 / s, 0.0, 1 / s], abs=1e-5)
    assert a[1].tolist() == [0.0, 0.0, 0.0]  # a flat group teaches nothing
    with pytest.raises(ValueError):
        group_advantages([1.0, 2.0])


def test_grpo_loss_unclipped_and_clipped_by_hand():
    old = torch.log(torch.tensor([0.5, 0.5, 0.5, 0.5]))
    new = torch.log(torch.tensor([0.5, 0.75, 0.75, 0.25]))  # ratios 1, 1.5, 1.5, 0.5
    adv = torch.tensor([2.0, 1.0, -1.0, -1.0])
    # per sequence min(ρA, clip(ρ, 0.8, 1.2)A): 2, min(1.5, 1.2)=1.2, min(-1.5, -1.2)=-1.5, min(-0.5, -0.8)=-0.8
    expected = -(2.0 + 1.2 - 1.5 - 0.8) / 4
    assert float(grpo_loss(new, old, adv, clip_eps=0.2)) == pytest.approx(expected)
    st = grpo_stats(new, old, adv, clip_eps=0.2)
    assert st["clip_frac"] == pytest.approx(0.25 + 0.25)  # seq 2 (ρ>1.2, A>0) and seq 4 (ρ<0.8, A<0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_reward_that_is_not_finite_is_named_not_spread_over_its_group(bad):
    """One NaN reward made its whole group's advantages NaN, silently."""
    with pytest.raises(ValueError, match=r"rewards must be finite, got (nan|inf) at index \(1, 0\)"):
        group_advantages([[1.0, 0.0], [bad, 2.0]])
    with pytest.raises(ValueError, match=r"step rewards must be finite.*index \(0, 1, 0\)"):
        step_advantages([[[1.0, 0.0], [bad, 0.0]]])
    # padding (mask False) is left out, whatever it holds
    assert torch.isfinite(step_advantages([[[1.0, bad], [0.0, 0.0]]], mask=[[[1, 0], [1, 1]]])).all()


def test_grpo_loss_gradient_is_minus_advantage_times_ratio():
    old = torch.log(torch.tensor([0.5, 0.5]))
    new = torch.log(torch.tensor([0.55, 0.5])).requires_grad_(True)
    adv = torch.tensor([1.0, -2.0])
    grpo_loss(new, old, adv).backward()
    # d/dnew of −mean(ρA) = −ρA/N inside the clip range
    assert new.grad.tolist() == pytest.approx([-1.1 * 1.0 / 2, -1.0 * -2.0 / 2], rel=1e-5)


def test_grpo_loss_k3_kl_and_token_mask_by_hand():
    # two tokens per sequence; the second token of sequence 0 is padding
    old = torch.log(torch.tensor([[0.25, 0.9], [0.25, 0.25]]))
    new = old.clone()
    ref = torch.log(torch.tensor([[0.5, 0.1], [0.25, 0.25]]))
    mask = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
    adv = torch.tensor([0.0, 0.0])
    # k3 at the real token of seq 0: d = ln 2 -> 2 − ln 2 − 1; seq 1: d = 0 -> 0
    k3 = 2 - math.log(2) - 1
    loss = grpo_loss(new, old, adv, ref_logp=ref, beta=0.1, mask=mask)
    assert float(loss) == pytest.approx(0.1 * k3 / 2)
    assert float(grpo_loss(new, old, adv, ref_logp=ref, beta=0.0, mask=mask)) == 0.0
    # per-sequence mean then batch mean: A=1 on seq 0 (1 token), A=3 on seq 1 (2 tokens)
    assert float(grpo_loss(new, old, torch.tensor([1.0, 3.0]), mask=mask)) == pytest.approx(-(1.0 + 3.0) / 2)


def test_step_advantages_by_hand():
    # one group of two plans, two steps: rewards [[1, 0], [0, 0]] -> mean 0.25, std sqrt(3)/4
    a = step_advantages([[[1.0, 0.0], [0.0, 0.0]]], eps=1e-12)[0]
    s = math.sqrt(3) / 4
    r = [[(1 - 0.25) / s, -0.25 / s], [-0.25 / s, -0.25 / s]]
    assert a.tolist() == [pytest.approx([r[0][0] + r[0][1], r[0][1]]), pytest.approx([r[1][0] + r[1][1], r[1][1]])]
    # per-token advantages go straight into the loss: −mean over tokens of A at ratio 1
    lp = torch.zeros(1, 2)
    assert float(grpo_loss(lp, lp, torch.tensor([[2.0, -1.0]]))) == pytest.approx(-0.5)


def test_grpo_loss_fixed_token_normalisation_by_hand():
    lp = torch.zeros(2, 3)
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    adv = torch.tensor([1.0, 3.0])
    assert float(grpo_loss(lp, lp, adv, mask=mask)) == pytest.approx(-(1.0 + 3.0) / 2)  # per-sequence means
    assert float(grpo_loss(lp, lp, adv, mask=mask, norm_tokens=3)) == pytest.approx(-(2 / 3 + 3 / 3) / 2)  # sums / 3


def test_doctests():
    for mod in (grpo_mod, tiny_mod):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.failed == 0 and res.attempted > 0


# --- the tiny policy's vocabulary can express every reference step -----------------------


@pytest.mark.parametrize("env_id,level", [("GuiGym-Login-v0", "easy"), ("GuiGym-Login-v0", "medium"), ("GuiGym-Login-v0", "hard"),
                                          ("GuiGym-Launcher-v0", "easy"), ("GuiGym-Settings-v0", "easy")])
def test_click_grid_covers_every_widget_and_reference_is_expressible(env_id, level):
    cfg = TinyConfig()
    pol = TinyPolicy(cfg)
    centres = [cell_centre(c, cfg) for c in range(cfg.grid_rows * cfg.grid_cols)]
    env = gym.make(env_id, level=level)
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        for e in info["elements"]:
            x0, y0, x1, y1 = e["box"]
            assert any(x0 <= x <= x1 and y0 <= y <= y1 for x, y in centres), (seed, e)
        ob = pol.prepare(obs, [])
        for ref in info["reference"]:
            code = pol._code_of(ref.action, ob.words, ob.instruction)
            assert argument_reward(pol._action_of(*code, ob), ref) == 1.0, (seed, ref)
    env.close()


def test_split_words_copies_login_credentials_verbatim():
    for text, want in [("Use the account rupert.lopez (password: lemon13) to sign in.", ["rupert.lopez", "lemon13"]),
                       ("Sign in as oscar95@example.com with password sunset22.", ["oscar95@example.com", "sunset22"])]:
        words = [w for w, _, _ in split_words(text)]
        assert all(w in words for w in want)


def test_sample_and_logprobs_agree_and_planner_runs():
    torch.manual_seed(0)
    pol = TinyPolicy(TinyConfig(horizon=3))
    env = gym.make("GuiGym-Login-v0")
    obs, info = env.reset(seed=3)
    obs_b = [pol.prepare(obs, []), pol.prepare(obs, [Click(180, 160), Type("x")])]
    comps, (lp, mask) = pol.sample(obs_b, 4)
    assert len(comps) == 8 and lp.shape == mask.shape == (8, 9) and all(len(c.steps) == 3 for c in comps)
    lp2, mask2 = pol.logprobs(obs_b, comps)
    assert torch.allclose(lp, lp2, atol=1e-5) and torch.equal(mask, mask2)
    assert (lp <= 0).all() and torch.isfinite(lp).all()
    planner = TinyPlanner(pol, greedy=True)
    planner.reset(0)
    plan = planner.plan(obs, info, [])
    assert len(plan) == 3 and all(s.action is not None for s in plan)
    env.close()


def test_checkpoint_round_trip(tmp_path):
    pol = TinyPolicy(TinyConfig(horizon=2))
    pol.save(str(tmp_path / "p.pt"))
    back = TinyPolicy.load(str(tmp_path / "p.pt"))
    assert back.cfg == pol.cfg
    assert all(torch.equal(a, b) for a, b in zip(pol.state_dict().values(), back.state_dict().values()))


# --- rewards of the two stages, on oracle plans ------------------------------------------


def _oracle_groups(args, n_states=2):
    env = train_small.make_env(args, lambda o, i, h: None)
    env.reset(seed=0)
    env.step(env.unwrapped.reference()[0].action)
    return env, env.visited


def test_stage_rewards_prefer_the_reference():
    args = train_small.Args(group_size=2, horizon=3)
    env, visited = _oracle_groups(args)
    groups = visited[:2]
    comps = []
    for v in groups:
        good = [r.action for r in v.reference[:3]]
        bad = [Click(5, 630)] * 3
        comps += [Completion(good), Completion(bad)]
    r1 = train_small.stage1_rewards(args, groups, comps)
    assert r1[0] == pytest.approx(1 + 0.9 + 0.81) and r1[2] == pytest.approx(1 + 0.9 + 0.81)
    assert r1[1] == pytest.approx(-0.9 - 0.81)  # no match, two repeats
    score_env = gym.make(args.env_id).unwrapped
    r2 = train_small.stage2_rewards(args, score_env, groups, comps, executor=None)
    assert r2 == [1.0, 0.0, 1.0, 0.0]
    env.close()


# --- smoke: a few GRPO updates of each stage -----------------------------------------------


@pytest.mark.parametrize("stage", ["1", "2"])
def test_few_grpo_updates_change_parameters(stage, tmp_path):
    args = train_small.Args(
        stage=stage, iterations=3, episodes_per_iter=2, rollout_max_steps=3, states_per_iter=4, group_size=4, horizon=3,
        epochs=1, groups_per_minibatch=4, skip_flat_groups=False, beta=0.05, val_every=0, progress=False,
        out_dir=str(tmp_path), run_name="smoke", lr=3e-3,
    )
    tr = train_small.Trainer(args)
    before = [p.detach().clone() for p in tr.policy.parameters()]
    losses = []
    for it in range(2):
        row = tr.iteration(it)
        assert row["stage"] == int(stage) and row["states"] > 0
        losses.append(row["loss"])
    assert all(math.isfinite(v) for v in losses)
    changed = sum(not torch.equal(a, b) for a, b in zip(before, tr.policy.parameters()))
    assert changed > 0
    tr.close()


def test_run_writes_outputs(tmp_path):
    args = train_small.Args(
        stage="both", iterations=2, episodes_per_iter=1, rollout_max_steps=2, states_per_iter=2, group_size=2, horizon=2,
        epochs=1, val_every=1, val_episodes=1, val_max_steps=2, eval_episodes=2, eval_max_steps=2, progress=False,
        out_dir=str(tmp_path), run_name="out",
    )
    res = train_small.train(args)
    out = tmp_path / "out"
    for name in ("args.json", "curves.csv", "policy.pt", "eval.json"):
        assert (out / name).exists(), name
    assert 0.0 <= res["policy"]["success_rate"] <= 1.0 and "random" in res
    assert len((out / "curves.csv").read_text().strip().splitlines()) == 3  # header + 2 iterations


@pytest.mark.parametrize("env_id", [i for i in env_ids() if i not in ("GuiGym-Login-v0", "GuiGym-Settings-v0", "GuiGym-Launcher-v0")])
def test_short_run_on_another_family(env_id, tmp_path):
    """A two-iteration run on every newer family (from the registry): Answer in their action
    spaces (the tiny policy has no Answer, so questions stay unsolved), dialogs, dropdowns,
    pickers, 100-step episodes."""
    args = train_small.Args(
        env_id=env_id, stage="both", iterations=2, episodes_per_iter=1, rollout_max_steps=3, states_per_iter=2, group_size=2,
        horizon=2, epochs=1, val_every=1, val_episodes=1, val_max_steps=3, eval_episodes=2, eval_max_steps=4, progress=False,
        save_model=False, out_dir=str(tmp_path), run_name="out",
    )
    res = train_small.train(args)
    assert 0.0 <= res["policy"]["success_rate"] <= 1.0 and (tmp_path / "out" / "eval.json").exists()


def test_short_run_under_variation(tmp_path):
    """``--variation all``: every env of the run draws from the split (rollouts, stage-2 scoring
    through saved states, validation, evaluation)."""
    args = train_small.Args(
        stage="both", iterations=2, episodes_per_iter=2, rollout_max_steps=3, states_per_iter=2, group_size=2, horizon=2,
        epochs=1, val_every=1, val_episodes=1, val_max_steps=3, eval_episodes=2, eval_max_steps=4, progress=False,
        save_model=False, out_dir=str(tmp_path), run_name="out", variation="all", split="test",
    )
    assert train_small.env_kwargs(args) == {"level": "easy", "backend": "mock", "variation": "all", "split": "test"}
    assert "variation" not in train_small.env_kwargs(train_small.Args())  # the defaults' envs are the plain id's
    res = train_small.train(args)
    assert 0.0 <= res["policy"]["success_rate"] <= 1.0


def test_cli_help():
    out = subprocess.run([sys.executable, str(ROOT / "train_small.py"), "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    for flag in ("--stage", "--horizon", "--gamma", "--lambda-rep", "--group-size", "--beta"):
        assert flag in out.stdout


def test_bad_arguments_stop_the_run_before_it_starts(tmp_path):
    """Every bad flag is named in one message, exit status non-zero, nothing written."""
    assert doctest.testmod(train_small, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0
    assert train_small.arg_problems(train_small.Args()) == []
    assert train_small.arg_problems(train_small.Args(env_id="GuiGym-Settings-v0", level="hard", variation="all")) == []
    wrong = train_small.Args(env_id="GuiGym-Nope-v0", variation="nope", rollout_workers=-1, gamma=0.0, stage1_frac=1.5,
                             eval_max_steps=0, clip_eps=float("nan"))
    found = "\n".join(train_small.arg_problems(wrong))
    for flag in ("--env-id: unknown env id GuiGym-Nope-v0", "--variation nope", "--rollout-workers", "--gamma", "--stage1-frac",
                 "--eval-max-steps", "--clip-eps"):
        assert flag in found, (flag, found)
    out = subprocess.run([sys.executable, str(ROOT / "train_small.py"), "--group-size", "1", "--level", "extreme",
                          "--out-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "--group-size must be >= 2" in out.stderr and "--level extreme" in out.stderr
    assert not any(tmp_path.iterdir())


def _tiny_args(tmp_path, name, **kw):
    base = dict(iterations=3, episodes_per_iter=2, rollout_max_steps=3, states_per_iter=4, group_size=4, horizon=3, epochs=1,
                groups_per_minibatch=4, val_every=2, val_episodes=2, val_max_steps=3, eval_episodes=2, eval_max_steps=3,
                progress=False, save_model=False, out_dir=str(tmp_path), run_name=name)
    base.update(kw)
    return train_small.Args(**base)


def test_same_seed_same_curves(tmp_path):
    """Reproducibility: the same seed on the same machine writes the same ``curves.csv`` (wall
    times live in ``timing.csv``); another seed writes another."""
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        train_small.train(_tiny_args(tmp_path, name, seed=seed, stage="both"))
    a, b, c = ((tmp_path / n / "curves.csv").read_text() for n in "abc")
    assert a == b
    assert a != c
    assert "time_s" not in a.splitlines()[0]
    assert (tmp_path / "a" / "timing.csv").read_text().splitlines()[0] == "iter,time_s"


def test_stage2_control_uses_the_trajectory_reward(tmp_path, monkeypatch):
    """``--stage2-reward trajectory``: stage 2's schedule and loss mask with the stage-1 reward
    (the control of the stage-2 ablation): the grounded reward is never computed."""
    calls = []
    real = train_small.stage2_rewards
    monkeypatch.setattr(train_small, "stage2_rewards", lambda *a, **k: calls.append(1) or real(*a, **k))
    for reward, expect_calls in (("trajectory", False), ("grounded", True)):
        calls.clear()
        tr = train_small.Trainer(_tiny_args(tmp_path, reward, stage="2", stage2_reward=reward, skip_flat_groups=False))
        rows = [tr.iteration(i) for i in range(2)]
        tr.close()
        assert all(r["stage"] == 2 for r in rows)
        assert bool(calls) is expect_calls


def test_unparsable_completions_score_the_bottom(tmp_path):
    """A completion whose text did not parse (``valid=False``) scores the bottom of the
    stage-1 range (T = 3, γ = 0.9: −(0.9 + 0.81)), below every valid plan of the group."""
    from guigym.actions import Back

    args = _tiny_args(tmp_path, "bad", horizon=3, group_size=2)
    v = train_small.Visited(obs=None, state=None, reference=[], elements=[])
    comps = [Completion(steps=[Back(), Back(), Back()]), Completion(steps=[], valid=False)]
    r = train_small.stage1_rewards(args, [v], comps)
    assert r[0] == pytest.approx(-(0.9 + 0.81))  # the worst valid plan: every later step repeats
    assert r[1] == pytest.approx(-(0.9 + 0.81)) and r[1] <= r[0]


def test_uir1_stage1_reward_and_its_ablations(tmp_path):
    """``--stage1-reward uir1``: UI-R1's R_type + R_C of each plan's first step (later steps are
    ignored); ``--no-uir1-type-reward`` drops R_type; ``--uir1-coord iou`` scores a click by the
    IoU of its 40-px cell with the target's box. Hand-computed on Login's first reference click."""
    from agents.tiny_policy import point_cell

    base = train_small.Args(group_size=3, horizon=1)
    env, visited = _oracle_groups(base)
    v = next(v for v in visited if v.reference and v.reference[0].action.type == "click")
    ref = v.reference[0]
    x0, y0, x1, y1 = ref.box
    cfg = TinyConfig()
    inside = Click(*cell_centre(point_cell((x0 + x1) / 2, (y0 + y1) / 2, cfg), cfg))
    cx, cy = inside.x, inside.y
    ix = max(0, min(cx + 20, x1) - max(cx - 20, x0))
    iy = max(0, min(cy + 20, y1) - max(cy - 20, y0))
    iou = ix * iy / (1600 + (x1 - x0) * (y1 - y0) - ix * iy)
    comps = [Completion([inside, Type("x")]), Completion([Click(5, 630)]), Completion([Type("x")])]
    expect = {(True, "inbox"): [2.0, 1.0, 0.0], (False, "inbox"): [1.0, 0.0, 0.0], (True, "iou"): [1.0 + iou, 1.0, 0.0]}
    for (use_type, coord), want in expect.items():
        args = train_small.Args(group_size=3, horizon=2, stage1_reward="uir1", uir1_type_reward=use_type, uir1_coord=coord)
        assert train_small.stage1_rewards(args, [v], comps) == pytest.approx(want), (use_type, coord)
    assert 0.0 < iou < 0.5  # a 40-px cell on a wide field: IoU is graded and small where R_C gives 1
    env.close()


def test_uir1_stage1_reward_adds_r_format_for_text_completions():
    """A text policy (``--policy vlm``) under ``--stage1-reward uir1`` also earns UI-R1's
    R_format: a well-formed answer with the wrong action (1) outscores text that does not
    parse (0), which the action rewards alone scored the same; the right click earns 2 + 1."""
    from guigym.action_text import format_action
    from guigym.actions import Back

    args = train_small.Args(group_size=3, horizon=1, stage1_reward="uir1")
    env, visited = _oracle_groups(args)
    v = next(v for v in visited if v.reference and v.reference[0].action.type == "click")
    right = v.reference[0].action
    comps = [Completion([right], text=format_action(right)), Completion([Back()], text=format_action(Back())),
             Completion([], text="click the button", valid=False)]
    assert train_small.stage1_rewards(args, [v], comps) == pytest.approx([3.0, 1.0, 0.0])
    env.close()


def test_expert_step_metrics_score_the_reference_and_a_wrong_planner():
    """UI-R1's offline metrics on the expert trajectory: a planner that returns the reference's
    step scores 1 on all three; one that always clicks the bottom-left corner gets the type
    right exactly at the reference's clicks and never grounds one."""
    from agents.plan_act import Plan
    from guigym.actions import PlanStep

    class Ref:
        def reset(self, seed=None):
            pass

        def plan(self, obs, info, history):
            return Plan([PlanStep(action=info["reference"][0].action)])

    class Corner(Ref):
        def plan(self, obs, info, history):
            return Plan([PlanStep(action=Click(1, 639))])

    args = train_small.Args()
    assert train_small.expert_step_metrics(args, Ref(), [0, 1]) == {
        "expert_type_acc": 1.0, "expert_click_acc": 1.0, "expert_step_acc": 1.0}
    m = train_small.expert_step_metrics(args, Corner(), [0, 1])
    env = gym.make(args.env_id, level=args.level)
    kinds = [r.action.type for s in (0, 1) for r in env.reset(seed=s)[1]["reference"]]
    env.close()
    assert m["expert_type_acc"] == pytest.approx(kinds.count("click") / len(kinds))
    assert m["expert_click_acc"] == 0.0 and m["expert_step_acc"] == 0.0


def test_reference_rollouts_follow_the_expert(tmp_path):
    """``--rollout-actor reference``: the rollouts execute the reference's actions (every
    episode succeeds) while groups are still sampled from the policy at each state."""
    tr = train_small.Trainer(_tiny_args(tmp_path, "ref", rollout_actor="reference", rollout_max_steps=8, stage="1"))
    visited, success = tr.rollout()
    tr.close()
    assert success == 1.0
    assert visited and all(v.group is not None and len(v.group[0]) == 4 for v in visited)


def test_vlm_refuses_step_advantages(tmp_path):
    with pytest.raises(SystemExit, match="advantage"):
        train_small.Trainer(_tiny_args(tmp_path, "vlm", policy="vlm", advantage="step"))


def test_short_training_run_beats_the_random_planner(tmp_path):
    """The regression test for training itself: ``train_small.py``'s defaults, cut to 100
    iterations (about 85 s on one core), must learn Login easy well above the random
    planner on held-out seeds. Deterministic on a given machine (see ``test_same_seed_same_curves``);
    it would catch a reward, advantage or policy change that stops learning (a run that does not
    take off stays at the random planner's 0 %)."""
    args = train_small.Args(seed=1, iterations=100, val_every=0, eval_episodes=20, eval_max_steps=12, progress=False,
                            save_model=False, out_dir=str(tmp_path), run_name="learn")
    res = train_small.train(args)
    learned, rnd = res["policy"]["success_rate"], res["random"]["success_rate"]
    assert learned >= rnd + 0.5, f"held-out success {learned:.2f} vs random planner {rnd:.2f} after 100 iterations"


def test_rollout_workers_give_the_same_curves_for_any_worker_count(tmp_path):
    """``--rollout-workers N``: lockstep rollouts, validations and held-out evaluation over N
    worker processes; the curves and the held-out results do not depend on N."""
    results = {}
    for name, w in (("w1", 1), ("w2", 2)):
        results[name] = train_small.train(_tiny_args(tmp_path, name, rollout_workers=w, episodes_per_iter=3, stage="both",
                                                     eval_episodes=5, eval_batch=2, val_episodes=3))
    assert (tmp_path / "w1" / "curves.csv").read_text() == (tmp_path / "w2" / "curves.csv").read_text()
    assert _same(results["w1"]["policy"], results["w2"]["policy"])
    assert results["w1"]["policy"]["episodes"] == 5


def _same(a: dict, b: dict) -> bool:
    """Equal dicts of numbers, NaN equal to NaN (a mean over no episode)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_lockstep_evaluation_equals_the_sequential_one(tmp_path):
    """The lockstep evaluation (``--rollout-workers N``: episodes on the pool's envs, a batch of
    greedy plans per step) gives the numbers the one-episode-at-a-time evaluation gives, when
    batching changes no plan: with a batch of one (``eval_batch=1``) every plan is decoded alone."""
    args = _tiny_args(tmp_path, "ev", rollout_workers=2, episodes_per_iter=1, eval_batch=1)
    trainer = train_small.Trainer(args)
    try:
        planner = train_small.planner_for(trainer.policy, True, args.horizon)
        seeds = list(range(10_000, 10_006))
        kw = dict(max_steps=6, executor=trainer.executor)
        lockstep = train_small.evaluate(args, planner, seeds, pool=trainer.pool, **kw)
        alone = train_small.evaluate(args, planner, seeds, **kw)
        assert _same(lockstep, alone) and lockstep["episodes"] == 6
        assert lockstep["mean_steps"] > 1  # the episodes ran
        expert = train_small.expert_step_metrics(args, planner, seeds, pool=trainer.pool)
        assert _same(expert, train_small.expert_step_metrics(args, planner, seeds))
        assert 0.0 <= expert["expert_step_acc"] <= 1.0
    finally:
        trainer.close()


def test_ray_rollout_workers_give_the_same_curves(tmp_path):
    """``--ray-address local --rollout-workers 2``: the envs on two Ray actors, the same curves
    as with worker processes."""
    import ray  # guigym[ray]: installed by make test
    try:
        for name, address in (("proc", None), ("ray", "local")):
            train_small.train(_tiny_args(tmp_path, name, rollout_workers=2, ray_address=address, episodes_per_iter=3, stage="1"))
    finally:
        ray.shutdown()
    assert (tmp_path / "proc" / "curves.csv").read_text() == (tmp_path / "ray" / "curves.csv").read_text()


def test_lockstep_rollout_visits_what_the_sequential_rollout_visits(tmp_path):
    """With the reference as the rollout actor the executed actions do not depend on sampling,
    so the lockstep rollout (envs in worker processes) must visit exactly the states, in the
    same order, that the one-episode-at-a-time rollout visits — same seeds, same references."""
    kw = dict(rollout_actor="reference", rollout_max_steps=8, stage="1", episodes_per_iter=3)
    seq = train_small.Trainer(_tiny_args(tmp_path, "seq", **kw))
    par = train_small.Trainer(_tiny_args(tmp_path, "par", rollout_workers=2, **kw))
    try:
        (v_seq, s_seq), (v_par, s_par) = seq.rollout(), par.rollout_lockstep()
    finally:
        seq.close()
        par.close()
    assert s_seq == s_par == 1.0
    assert [v.key for v in v_seq] == [v.key for v in v_par] and len(v_seq) > 3
    assert [[r.action for r in v.reference] for v in v_seq] == [[r.action for r in v.reference] for v in v_par]
    assert all(len(v.group[0]) == 4 for v in v_par)
    assert seq.env_steps == par.env_steps


@pytest.mark.parametrize("checkpoint", ["best-val", "last"])
def test_checkpoint_selection_keeps_the_best_validation_policy(tmp_path, monkeypatch, checkpoint):
    """``--checkpoint best-val`` evaluates and saves the policy of the validation point with the
    highest validation success (the later one on ties); ``last`` the final policy."""
    scripted = iter([0.5, 1.0, 1.0, 0.25])
    seen: list[dict] = []

    def fake_validate(self):
        seen.append(train_small.cpu_state(self.policy))
        return {"success_rate": next(scripted), "mean_steps": 1.0, "plan_repetition": 0.0, "exec_repetition": 0.0}

    monkeypatch.setattr(train_small.Trainer, "validate", fake_validate)
    res = train_small.train(_tiny_args(tmp_path, checkpoint, iterations=4, val_every=1, save_model=True, checkpoint=checkpoint))
    saved = torch.load(tmp_path / checkpoint / "policy.pt", weights_only=False)["state_dict"]
    # the validation points' policies differ (training moved the weights between them)
    assert any(not torch.equal(seen[2][k], seen[3][k]) for k in seen[2])
    want, it = (seen[2], 3) if checkpoint == "best-val" else (seen[3], 4)  # seen[3]: after the last iteration
    assert res["selected_iter"] == it
    assert all(torch.equal(saved[k], want[k]) for k in want)
    if checkpoint == "best-val":
        assert res["selected_val_success"] == 1.0


# --- the ungrounded variant: the planner names what to click, the frozen executor grounds it --------


def _ungrounded_policy(horizon: int = 3) -> TinyPolicy:
    labels = train_small.click_vocabulary(train_small.Args(plan_steps="ungrounded", label_vocab_seeds=50))
    return TinyPolicy(TinyConfig(horizon=horizon, click_labels=labels))


def test_click_vocabulary_holds_the_reference_targets():
    args = train_small.Args(plan_steps="ungrounded", label_vocab_seeds=50)
    vocab = train_small.click_vocabulary(args)
    env = gym.make("GuiGym-Login-v0")
    _, info = env.reset(seed=7)
    targets = {quoted(r.instruction)[0] for r in info["reference"] if r.action.type == "click"}
    assert targets and targets <= set(vocab)  # seed 7 is one of the 50 seeds read
    assert len(set(vocab)) == len(vocab) and "Sign in" in vocab
    env.close()


def test_ungrounded_policy_names_labels_that_the_executor_grounds(tmp_path):
    from agents.executors import ElementExecutor
    from guigym.actions import PlanStep

    torch.manual_seed(0)
    pol = _ungrounded_policy()
    env = gym.make("GuiGym-Login-v0")
    obs, info = env.reset(seed=3)
    obs_b = [pol.prepare(obs, []), pol.prepare(obs, [Click(180, 160), Type("x")])]
    comps, (lp, mask) = pol.sample(obs_b, 16)
    lp2, mask2 = pol.logprobs(obs_b, comps)
    assert torch.allclose(lp, lp2, atol=1e-5) and torch.equal(mask, mask2)
    clicks = [s for c in comps for s in c.steps if isinstance(s, PlanStep)]
    assert clicks, "16 random plans of 3 steps without a click"
    assert all(s.action is None and s.kind == "click" and quoted(s.instruction)[0] in pol.cfg.click_labels for s in clicks)
    # a planned click's span slot is a marker, not a decision: its log-prob is masked out
    codes = torch.stack([c.data for c in comps]).view(-1, 3)
    assert (codes[codes[:, 0] == tiny_mod.CLICK][:, 2] == 1).all()
    assert (mask.view(-1, 3)[codes[:, 0] == tiny_mod.CLICK][:, 2] == 0).all()
    # the executor clicks inside the element the label names
    ex = ElementExecutor()
    for e in env.unwrapped.elements():
        if e["label"] in pol.cfg.click_labels:
            a = ex(env, PlanStep(action_type="click", instruction=f"Click '{e['label']}'"))
            x0, y0, x1, y1 = e["box"]
            assert isinstance(a, Click) and x0 <= a.x <= x1 and y0 <= a.y <= y1
    # checkpoints keep the vocabulary
    pol.save(str(tmp_path / "u.pt"))
    back = TinyPolicy.load(str(tmp_path / "u.pt"))
    assert back.cfg == pol.cfg and back.cfg.click_labels == pol.cfg.click_labels
    lp3, _ = back.logprobs(obs_b, comps)
    assert torch.allclose(lp, lp3, atol=1e-5)
    env.close()


def test_ungrounded_variant_leaves_the_grounded_initialisation_alone():
    """The label modules are created after all others: with the same torch seed, every
    parameter the grounded policy has starts equal in both (the defaults' runs are unchanged)."""
    torch.manual_seed(5)
    grounded = dict(TinyPolicy(TinyConfig(horizon=3)).named_parameters())
    torch.manual_seed(5)
    named = dict(TinyPolicy(TinyConfig(horizon=3, click_labels=("Sign in", "Email"))).named_parameters())
    assert set(grounded) < set(named)
    assert all(torch.equal(p, named[k]) for k, p in grounded.items())


def test_stage_rewards_of_ungrounded_plans(tmp_path):
    """Stage 1 (abstract): naming each reference target scores what the reference scores.
    Stage 2: the executor grounds the first step; the right label earns 1, a wrong one 0,
    and without an executor an ungrounded step cannot be executed (0)."""
    from guigym.actions import PlanStep

    args = train_small.Args(group_size=2, horizon=3, plan_steps="ungrounded")
    env, visited = _oracle_groups(args)
    v = visited[0]  # reset: click Username/Email, type, click the password field …

    def named(r):
        return PlanStep(action_type="click", instruction=f"Click '{quoted(r.instruction)[0]}'") if r.action.type == "click" else r.action

    good = [named(r) for r in v.reference[:3]]
    wrong = [r for r in v.reference if r.action.type == "click"][-1]  # the sign-in button, not the first field
    bad = [named(wrong)] + good[1:]
    comps = [Completion(good), Completion(bad)]
    r1 = train_small.stage1_rewards(args, [v], comps)
    ref = train_small.stage1_rewards(args, [v], [Completion([r.action for r in v.reference[:3]])] * 2)
    assert r1[0] == pytest.approx(ref[0]) and r1[1] < r1[0]
    from agents.executors import ElementExecutor

    score_env = gym.make(args.env_id).unwrapped
    assert train_small.stage2_rewards(args, score_env, [v], comps, executor=ElementExecutor()) == [1.0, 0.0]
    assert train_small.stage2_rewards(args, score_env, [v], comps, executor=None) == [0.0, 0.0]
    env.close()


def test_short_ungrounded_run_executes_grounded_clicks(tmp_path):
    """``--plan-steps ungrounded``: a few iterations of both stages run; every click the
    rollouts executed was grounded by the executor; ``--executor none`` is refused."""
    args = _tiny_args(tmp_path, "ug", stage="both", plan_steps="ungrounded", label_vocab_seeds=30)
    tr = train_small.Trainer(args)
    assert tr.policy.cfg.click_labels
    rows = [tr.iteration(i) for i in range(4)]
    assert rows[0]["stage"] == 1 and rows[-1]["stage"] == 2
    executed = [a for v in tr.env.visited for a in v.obs.hist]  # (type, arg, span) codes of the history
    assert all(span == 0 for t, _, span in executed if t == tiny_mod.CLICK)  # executed clicks are points
    tr.close()
    with pytest.raises(SystemExit, match="executor"):
        train_small.Trainer(_tiny_args(tmp_path, "ug2", plan_steps="ungrounded", executor="none", label_vocab_seeds=5))


def test_step_advantages_leave_padding_out():
    # plan 0 has one real step (reward 1) and a padded one; plan 1 two real steps of 0:
    # the group's real rewards are 1, 0, 0 -> mean 1/3, std sqrt(2)/3; padding gets r̃ = 0
    a = step_advantages([[[1.0, 0.0], [0.0, 0.0]]], eps=1e-12, mask=[[[True, False], [True, True]]])[0]
    s = math.sqrt(2) / 3
    lo = -(1 / 3) / s
    assert a.tolist() == [pytest.approx([(2 / 3) / s, 0.0]), pytest.approx([2 * lo, lo])]
    # an all-True mask is the unmasked formula, bit for bit
    r = torch.tensor([[[0.3, -1.2, 0.7], [2.0, 0.1, -0.4]]])
    assert torch.equal(step_advantages(r, mask=torch.ones_like(r, dtype=torch.bool)), step_advantages(r))
    with pytest.raises(ValueError, match="mask"):
        step_advantages(r, mask=[[[True, True]]])


def test_stage1_step_mask_marks_the_planned_steps():
    from train_small import Args, stage1_step_mask

    args = Args(horizon=3)
    comps = [Completion(steps=["a", "b", "c"]), Completion(steps=["a"]), Completion(steps=[]),
             Completion(steps=["a", "b"], valid=False), Completion(steps=["a", "b", "c", "d"])]
    assert stage1_step_mask(args, comps) == [[True] * 3, [True, False, False], [True, False, False],
                                             [True, False, False], [True] * 3]
    args.stage1_reward = "uir1"
    assert stage1_step_mask(args, comps[:1]) == [[True, False, False]]


# --- audit regressions: seeds, flags, the run folder -------------------------------------------


def test_seed_ranges_and_paths_are_checked_before_training(tmp_path):
    """Held-out seeds inside the training seeds (or over the validation seeds), a negative seed,
    a validation on no episode, an output folder under a file, a missing VLM checkpoint: each is
    a usage error before anything starts (they trained silently on held-out tasks, or ended in a
    traceback)."""
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    cases = {
        "--eval-seed 0: the held-out seeds must be >= 10000": dict(eval_seed=0),
        "overlap the validation seeds 20000-20031": dict(eval_episodes=20_000),
        "--seed must be >= 0": dict(seed=-1),
        "--seed must be < 2**32": dict(seed=2**32),
        "--val-every 10 with --val-episodes 0": dict(val_episodes=0),
        "--label-vocab-seeds must be <= 10000": dict(plan_steps="ungrounded", label_vocab_seeds=20_000),
        "a_file is not a folder": dict(out_dir=str(a_file)),
        "--vlm-path": dict(policy="vlm", vlm_path=str(tmp_path / "missing")),
        # --algo ppo trains a fixed setting on its own held-out seeds; these flags were dropped silently
        "--algo ppo ignores --eval-seed: its held-out seeds are 100000": dict(algo="ppo", eval_seed=50_000),
        "--algo ppo ignores --lr": dict(algo="ppo", lr=0.1),
        "--ppo-steps 500 needs --algo ppo": dict(ppo_steps=500),
    }
    for want, kw in cases.items():
        found = "\n".join(train_small.arg_problems(train_small.Args(**kw)))
        assert want in found, (kw, found)
    fine = train_small.Args(eval_seed=30_000, val_every=0, val_episodes=0, out_dir=str(tmp_path / "new" / "dir"))
    assert train_small.arg_problems(fine) == []
    assert train_small.arg_problems(train_small.Args(algo="ppo", ppo_steps=500, seed=3, eval_episodes=5, threads=2,
                                                     out_dir=str(tmp_path / "ppo"))) == []
    with pytest.raises(SystemExit) as e:
        train_small.main(["--out-dir", str(a_file), "--no-progress"])
    assert e.value.code == 2 and "--out-dir" in str(e.value)  # exit status 2, as tyro's own usage errors
    (tmp_path / "not_a_model").mkdir()
    assert "--vlm-path" in "".join(train_small.arg_problems(train_small.Args(policy="vlm", vlm_path=str(tmp_path / "not_a_model"))))
    (tmp_path / "not_a_model" / "adapter_config.json").write_text("{}")  # a LoRA adapter folder: load_vlm loads it
    assert "--vlm-path" not in "".join(train_small.arg_problems(train_small.Args(policy="vlm", vlm_path=str(tmp_path / "not_a_model"))))
    # the validation seeds' overlap is GRPO's: --algo ppo says only that it ignores --eval-seed
    assert train_small.arg_problems(train_small.Args(algo="ppo", eval_seed=20_000, out_dir=str(tmp_path / "p"))) == [
        "--algo ppo ignores --eval-seed: its held-out seeds are 100000 + 1000 * seed onwards (101000-101099 for --seed 1)"]


def test_flat_groups_are_counted_whether_or_not_they_are_skipped(tmp_path, monkeypatch):
    """``flat_groups`` is the fraction of groups whose plans all scored the same; with
    ``--no-skip-flat-groups`` it read 0 whatever the groups were."""
    monkeypatch.setattr(train_small, "stage1_step_rewards", lambda a, groups, comps: [[0.0] * a.horizon for _ in comps])
    for skip in (True, False):
        tr = train_small.Trainer(_tiny_args(tmp_path, f"flat{skip}", stage="1", skip_flat_groups=skip))
        try:
            row = tr.iteration(0)
        finally:
            tr.close()
        assert row["states"] > 0 and row["flat_groups"] == 1.0, (skip, row)
        assert ("loss" in row) == (not skip)  # kept flat groups are still trained on


def test_ctrl_c_stops_training_and_leaves_a_consistent_run_folder(tmp_path, monkeypatch):
    """A Ctrl-C during training stops after the iteration in progress: ``curves.csv`` holds the
    finished iterations, ``policy.pt`` the selected policy, ``interrupted.json`` says so, and no
    ``eval.json`` (a previous run's, in the reused folder, is gone: it marks a finished run)."""
    import os
    import signal

    out = tmp_path / "int"
    out.mkdir()
    (out / "eval.json").write_text("{}")
    real, states = train_small.Trainer.iteration, []

    def iteration(self, it):
        row = real(self, it)
        states.append(train_small.cpu_state(self.policy))
        if it == 1:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C during the second iteration
        return row

    monkeypatch.setattr(train_small.Trainer, "iteration", iteration)
    # Python's own handler, as in a terminal (a shell's background job, e.g. a CI step, ignores SIGINT)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            train_small.train(_tiny_args(tmp_path, "int", iterations=5, val_every=1, save_model=True, checkpoint="last"))
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
    finally:
        signal.signal(signal.SIGINT, old)
    assert not (out / "eval.json").exists()
    info = json.loads((out / "interrupted.json").read_text())
    assert info["interrupted_after_iter"] == 2 and info["selected_iter"] == 2 and info["policy_saved"]
    assert len((out / "curves.csv").read_text().splitlines()) == 3  # header + 2 iterations
    saved = torch.load(out / "policy.pt", weights_only=False)["state_dict"]
    assert all(torch.equal(saved[k], states[-1][k]) for k in states[-1])


def test_eval_json_is_written_last_and_the_evaluation_is_announced(tmp_path, monkeypatch, capsys):
    """``eval.json`` marks a finished run (the benchmarks reuse a run that has one), so a
    failure after the evaluation (here: the plot) must not leave one; the held-out evaluation
    says that it starts."""
    def broken_plot(rows, path, title):
        raise RuntimeError("disk full")

    monkeypatch.setattr(train_small, "plot_curves", broken_plot)
    with pytest.raises(RuntimeError, match="disk full"):
        train_small.train(_tiny_args(tmp_path, "p", iterations=1, val_every=0, eval_episodes=2, progress=True))
    assert not (tmp_path / "p" / "eval.json").exists()
    assert "evaluating on 2 held-out seeds" in capsys.readouterr().err


def test_default_run_names_never_share_a_folder(tmp_path, monkeypatch):
    """The default run name has a one-second timestamp: two runs of the same seed started in
    the same second wrote into one folder (one crashed, or their files mixed)."""
    monkeypatch.setattr(train_small.time, "time", lambda: 1_700_000_000.0)
    names = [train_small.train(_tiny_args(tmp_path, None, iterations=1, val_every=0, eval_episodes=1,
                                          eval_random=False))["run_name"] for _ in range(2)]
    assert names[0] != names[1] and all((tmp_path / n / "eval.json").exists() for n in names)


def test_result_files_are_strict_json(tmp_path):
    """A metric with nothing to average (mean steps of the successes when none succeeded) was
    written as a bare ``NaN``, which is not JSON: jq and JSON.parse reject the whole file."""
    def strict(text):
        return json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in a result file"))

    train_small.train(_tiny_args(tmp_path, "s", iterations=1, val_every=0, eval_episodes=2, eval_max_steps=2))
    ev = strict((tmp_path / "s" / "eval.json").read_text())
    strict((tmp_path / "s" / "args.json").read_text())
    assert ev["policy"]["success_rate"] == 0.0 and ev["policy"]["mean_steps_success"] is None  # 2 steps cannot sign in
    assert ev["random"]["mean_steps_success"] is None


def test_more_workers_than_envs_is_said(tmp_path, capsys):
    """``--rollout-workers 64`` with the default 16 envs started 16 workers without a word."""
    pool = train_small.make_rollout_pool(_tiny_args(tmp_path, "w", rollout_workers=3, episodes_per_iter=2, eval_batch=1))
    try:
        assert pool.workers == 2 and "--rollout-workers 3 starts 2" in capsys.readouterr().err
    finally:
        pool.close()


def test_a_stage_without_iterations_is_said(tmp_path, capsys):
    """``--stage both`` with too few iterations for ``--stage1-frac`` trained one stage silently."""
    train_small.Trainer(_tiny_args(tmp_path, "one", iterations=1)).close()
    assert "stage 2 gets no iteration" in capsys.readouterr().err
    train_small.Trainer(_tiny_args(tmp_path, "both", iterations=5)).close()
    assert "gets no iteration" not in capsys.readouterr().err


def _same_run(a, b):
    """Two run folders hold the same results: curves, held-out evaluation (times aside), weights."""
    assert (a / "curves.csv").read_text() == (b / "curves.csv").read_text()
    ea, eb = (json.loads((d / "eval.json").read_text()) for d in (a, b))
    for e in (ea, eb):
        for k in ("run_name", "train_time_s", "policy_eval_time_s", "total_time_s", "val90_time_s"):
            e.pop(k, None)
    assert ea == eb
    wa, wb = (torch.load(d / "policy.pt", weights_only=False)["state_dict"] for d in (a, b))
    assert wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


@pytest.mark.parametrize("stop_after,kw", [(2, {}), (4, {"augment_invert": 0.5, "beta": 0.05, "checkpoint": "last"})],
                         ids=["before-the-stage-switch", "after-it-augment-kl-last"])
def test_a_run_stopped_by_ctrl_c_and_resumed_is_the_run_never_stopped(tmp_path, monkeypatch, stop_after, kw):
    """Ctrl-C after iteration ``stop_after`` writes ``checkpoint.pt``; the same flags with
    ``--resume`` go on from it (the stage switch comes after iteration 3 of 5: after the stop, or
    before it, when the KL reference is the stage-1 policy) and write the curves, held-out results
    and weights of the run that was never stopped; the finished run drops the checkpoint."""
    import os
    import signal

    args = dict(iterations=5, stage="both", val_every=2, save_model=True, **kw)
    train_small.train(_tiny_args(tmp_path, "whole", **args))
    real = train_small.Trainer.iteration

    def iteration(self, it):
        row = real(self, it)
        if it == stop_after - 1 and not self.args.resume:
            os.kill(os.getpid(), signal.SIGINT)
        return row

    monkeypatch.setattr(train_small.Trainer, "iteration", iteration)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            train_small.train(_tiny_args(tmp_path, "split", **args))
    finally:
        signal.signal(signal.SIGINT, old)
    out = tmp_path / "split"
    assert json.loads((out / "interrupted.json").read_text())["resumable"] and (out / "checkpoint.pt").exists()
    resumed = _tiny_args(tmp_path, "split", resume=True, **args)
    assert train_small.arg_problems(resumed) == []
    train_small.train(resumed)
    _same_run(tmp_path / "whole", out)
    assert not (out / "checkpoint.pt").exists() and not (out / "interrupted.json").exists()


@pytest.mark.parametrize("workers", [0, 1])
def test_save_every_survives_a_crash(tmp_path, monkeypatch, workers):
    """``--save-every 2``: a run that dies in iteration 4 (here an exception; a killed process
    alike) goes on with ``--resume`` from iteration 2's checkpoint to the run never stopped
    (episodes one after another, and in lockstep on a worker process)."""
    args = dict(iterations=5, stage="both", val_every=2, save_model=True, rollout_workers=workers)
    train_small.train(_tiny_args(tmp_path, "whole", **args))
    real = train_small.Trainer.iteration

    def iteration(self, it):
        if it == 3 and not self.args.resume:
            raise RuntimeError("out of memory")
        return real(self, it)

    monkeypatch.setattr(train_small.Trainer, "iteration", iteration)
    with pytest.raises(RuntimeError, match="out of memory"):
        train_small.train(_tiny_args(tmp_path, "crash", save_every=2, **args))
    assert torch.load(tmp_path / "crash" / "checkpoint.pt", weights_only=False)["rows"][-1]["iter"] == 2
    train_small.train(_tiny_args(tmp_path, "crash", save_every=2, resume=True, **args))
    _same_run(tmp_path / "whole", tmp_path / "crash")


def test_resume_refuses_what_would_not_go_on_the_same(tmp_path):
    """No run name, no checkpoint, a checkpoint of other flags, a file that is no checkpoint:
    usage errors that say so, before anything starts. A new run into the folder drops its checkpoint."""
    assert "--resume needs --run-name" in train_small.arg_problems(_tiny_args(tmp_path, None, resume=True))[0]
    assert "no " in train_small.arg_problems(_tiny_args(tmp_path, "none", resume=True))[0]
    args = _tiny_args(tmp_path, "r", iterations=2, save_every=1, val_every=0)
    tr = train_small.Trainer(args)
    try:
        tr.out.mkdir(parents=True)
        tr.checkpoint([{"iter": 1, "time_s": 0.1}], (-1.0, -1, None), {})
    finally:
        tr.close()
    assert train_small.arg_problems(_tiny_args(tmp_path, "r", iterations=2, save_every=1, val_every=0, resume=True,
                                               progress=True, time_limit_min=5.0)) == []
    problems = train_small.arg_problems(_tiny_args(tmp_path, "r", iterations=3, save_every=1, val_every=0, resume=True, lr=0.5))
    assert any("--iterations is 3, the run was started with 2" in p for p in problems)
    assert any(p.startswith("--resume: --lr is 0.5") for p in problems)
    (tmp_path / "r" / "checkpoint.pt").write_bytes(b"not a checkpoint")
    assert "not a readable checkpoint" in train_small.arg_problems(
        _tiny_args(tmp_path, "r", iterations=2, save_every=1, val_every=0, resume=True))[0]
    train_small.train(_tiny_args(tmp_path, "r", iterations=1, val_every=0, eval_episodes=1))  # a new run, not resumed
    assert not (tmp_path / "r" / "checkpoint.pt").exists()


def test_uir1_stage1_scores_a_step_without_arguments_as_uir1_reward_does():
    """``--stage1-reward uir1`` (UI-R1 proper with ``--horizon 1 --stage 1``) gave a click with
    no point R_type + R_format = 2, where ``uir1_reward`` rejects that text and scores 0."""
    from guigym.actions import PlanStep, RefStep, parse_plan
    from guigym.rewards import uir1_reward

    ref = RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click the 'Sign in' button", label="Sign in")
    group = [train_small.Visited(obs=None, state=None, reference=[ref])]
    texts = ['<answer>[{"action": "click", "instruction": "Click the \'Sign in\' button"}]</answer>',
             '<answer>[{"action": "click", "coordinate": [30, 20]}]</answer>']
    comps = [Completion(parse_plan(t[len("<answer>"):-len("</answer>")], "json"), text=t) for t in texts]
    assert isinstance(comps[0].steps[0], PlanStep) and comps[0].steps[0].action is None
    args = train_small.Args(stage1_reward="uir1", horizon=1, stage="1", group_size=2)
    got = [terms[0] for terms in train_small.stage1_step_rewards(args, group, comps)]
    assert got == [uir1_reward(t, ref, require_think=False) for t in texts] == [0.0, 3.0]


def test_time_limit_counts_this_process_only(tmp_path, monkeypatch, capsys):
    """``--time-limit-min`` is per process (README): a resumed run whose earlier process trained
    for an hour still trains on (it used to stop at once, evaluate, and drop its checkpoint, a
    finished run at 2 of 5 iterations); a limit that is reached says so and is in eval.json."""
    args = dict(iterations=5, stage="both", val_every=0)
    real = train_small.Trainer.iteration

    def iteration(self, it):
        if it == 2 and not self.args.resume:
            raise RuntimeError("preempted")
        return real(self, it)

    monkeypatch.setattr(train_small.Trainer, "iteration", iteration)
    with pytest.raises(RuntimeError, match="preempted"):
        train_small.train(_tiny_args(tmp_path, "long", save_every=2, **args))
    ckpt = tmp_path / "long" / "checkpoint.pt"
    saved = torch.load(ckpt, weights_only=False)
    saved["train_time_s"] = 3600.0  # the first process trained for an hour
    torch.save(saved, ckpt)
    res = train_small.train(_tiny_args(tmp_path, "long", save_every=2, resume=True, time_limit_min=1.0, **args))
    assert res["iterations"] == 5 and res["stopped_by_time_limit"] is False
    assert res["train_time_s"] >= 3600  # the run's time still counts both processes

    capsys.readouterr()
    res = train_small.train(_tiny_args(tmp_path, "short", time_limit_min=1e-9, **args))
    assert res["iterations"] == 0 and res["stopped_by_time_limit"] is True
    assert "--time-limit-min 1e-09 reached after 0 of 5 iterations" in capsys.readouterr().err
    assert json.loads((tmp_path / "short" / "eval.json").read_text())["stopped_by_time_limit"] is True


def test_no_held_out_episodes_leaves_nothing_averaged(tmp_path, capsys):
    """``--eval-episodes 0``: every metric of the evaluation is null (the repetition rates were
    0.0), and the summary line says there was no evaluation (it printed "nan")."""
    res = train_small.train(_tiny_args(tmp_path, "none", iterations=1, val_every=0, eval_episodes=0))
    for who in ("policy", "random"):
        assert res[who]["episodes"] == 0 and math.isnan(res[who]["plan_repetition"]) and math.isnan(res[who]["exec_repetition"])
    saved = json.loads((tmp_path / "none" / "eval.json").read_text())
    assert saved["policy"]["plan_repetition"] is None and saved["policy"]["exec_repetition"] is None
    out = capsys.readouterr().out
    assert "no held-out evaluation (--eval-episodes 0)" in out and "nan" not in out


def test_a_ray_address_where_no_cluster_answers_is_a_usage_error(tmp_path):
    """``--ray-address host:port`` with nothing listening: exit status 2 and guigym.distributed's
    one-paragraph reason, at once (Ray retried such an address for minutes)."""
    pytest.importorskip("ray")
    import socket

    with socket.socket() as s:  # a port nothing listens on (bound, not listening, for the test's length)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        with pytest.raises(SystemExit) as e:
            train_small.main(["--rollout-workers", "1", "--episodes-per-iter", "1", "--eval-batch", "1", "--iterations", "1",
                              "--ray-address", f"127.0.0.1:{port}", "--out-dir", str(tmp_path), "--no-progress"])
    assert e.value.code == 2 and f"--ray-address 127.0.0.1:{port}: RayVectorEnv: no Ray cluster answers" in str(e.value)
