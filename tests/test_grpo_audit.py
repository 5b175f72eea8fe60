"""Audit of the GRPO objective and TraceR1's two stages as ``train_small.py`` runs them: the
importance ratio starts at 1 (a plan scores the same alone and in a batch), padded tokens stay
out of the loss and its gradient, the KL pulls towards the reference and the reference is the
stage-1 policy in stage 2, advantages are per group, stage 2 trains the first step only, and the
ablation flags change the stage-1 reward as they say."""

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium as gym
import pytest
import torch

import agents.grpo as grpo_mod
from agents.grpo import Completion, grpo_loss, grpo_stats
from agents.tiny_policy import TinyConfig, TinyPlanner, TinyPolicy
from guigym.actions import Back, Click

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train_small  # noqa: E402


def _login_obs(pol: TinyPolicy, seeds=range(6)):
    """Prepared Login observations of ``seeds``, with their instructions' word counts."""
    env = gym.make("GuiGym-Login-v0")
    try:
        out = []
        for s in seeds:
            obs, info = env.reset(seed=s)
            out.append((pol.prepare(obs, []), obs, info))
        return out
    finally:
        env.close()


def _short_and_long(pol: TinyPolicy):
    obs = _login_obs(pol)
    short = min(obs, key=lambda o: len(o[0].words))
    long = max(obs, key=lambda o: len(o[0].words))
    assert len(short[0].words) < len(long[0].words)  # the point: one instruction is padded in a batch
    return short, long


def test_a_plan_scores_the_same_alone_and_in_a_batch():
    """The word BiGRU ran its backward direction through the padding of a shorter instruction,
    so the plans of an observation scored other log-probs in a minibatch (GRPO's re-scoring,
    a batched rollout) than alone (where they were sampled): the importance ratio was off by up
    to e^0.19 before any update (measured on a Login run), and ``plan_batch`` was not the plan
    ``plan`` decodes "up to floating point"."""
    torch.manual_seed(0)
    pol = TinyPolicy(TinyConfig(horizon=3))
    (short, s_raw, s_info), (long, l_raw, l_info) = _short_and_long(pol)
    g = torch.Generator().manual_seed(1)
    comps_s, (lp_s, mask_s) = pol.sample([short], 6, generator=g)
    comps_l, (lp_l, _) = pol.sample([long], 6, generator=g)
    for order in ((short, long), (long, short)):
        comps = comps_s + comps_l if order[0] is short else comps_l + comps_s
        lp, mask = pol.logprobs(list(order), comps)
        got_s = lp[:6] if order[0] is short else lp[6:]
        got_l = lp[6:] if order[0] is short else lp[:6]
        assert torch.allclose(got_s, lp_s, atol=1e-5, rtol=0), (got_s - lp_s).abs().max()
        assert torch.allclose(got_l, lp_l, atol=1e-5, rtol=0)
    # sampling a batch (the lockstep rollout) gives each row the log-probs it has alone
    comps_b, (lp_b, _) = pol.sample([long, short], 4, generator=torch.Generator().manual_seed(2))
    alone, _ = pol.logprobs([short], comps_b[4:])
    assert torch.allclose(lp_b[4:], alone, atol=1e-5, rtol=0)
    # and the batched greedy planner scores what the one-observation planner scores
    planner = TinyPlanner(pol, greedy=True, horizon=3)
    batch = planner.plan_batch([l_raw, s_raw], [l_info, s_info], [[], []])
    assert [s.action for s in batch[1]] == [s.action for s in planner.plan(s_raw, s_info, [])]


def test_the_first_grpo_step_of_an_iteration_has_ratio_one(tmp_path, monkeypatch):
    """Nothing changed the policy between sampling the groups and the first gradient step of
    the update, so ``exp(new − old)`` must be 1 there (the clipped objective is PPO's only if
    the ratio measures the policy's change)."""
    args = train_small.Args(stage="1", iterations=4, episodes_per_iter=4, rollout_max_steps=3, states_per_iter=8, group_size=4,
                            horizon=3, epochs=1, groups_per_minibatch=8, skip_flat_groups=False, val_every=0, eval_episodes=0,
                            progress=False, save_model=False, out_dir=str(tmp_path), run_name="ratio", seed=2)
    calls: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = []
    lengths: list[set[int]] = []
    real_loss, real_update = grpo_mod.grpo_loss, train_small.grpo_update

    def loss_spy(new_logp, old_logp, adv, *a, mask=None, **kw):
        calls.append((new_logp.detach().clone(), old_logp.clone(), mask.clone()))
        return real_loss(new_logp, old_logp, adv, *a, mask=mask, **kw)

    def update_spy(policy, opt, obs, *a, **kw):
        lengths.append({len(o.words) for o in obs})
        calls.clear()
        out = real_update(policy, opt, obs, *a, **kw)
        new, old, mask = calls[0]  # the first minibatch: the whole batch here
        gap = ((new - old).abs() * mask).max()
        assert float(gap) < 1e-5, f"log-ratio {float(gap)} before any update (instructions of {sorted(lengths[-1])} words)"
        return out

    monkeypatch.setattr(grpo_mod, "grpo_loss", loss_spy)
    monkeypatch.setattr(train_small, "grpo_update", update_spy)
    tr = train_small.Trainer(args)
    try:
        for it in range(args.iterations):
            tr.iteration(it)
    finally:
        tr.close()
    assert any(len(s) > 1 for s in lengths)  # some batch mixed instruction lengths (the case that went wrong)


@pytest.mark.parametrize("pad", [float("-inf"), float("nan"), 80.0])
def test_padded_tokens_stay_out_of_the_loss_and_its_gradient(pad):
    """The mask's zeros only multiplied the per-token terms: a policy that leaves ``-inf`` (a
    masked softmax) or NaN at its padded tokens made the loss or the gradient NaN (``0 · inf``),
    and a large one overflowed the ratio there. The mask is the contract, whatever padding holds."""
    new = torch.tensor([[-1.0, pad], [-1.0, -2.0]], requires_grad=True)
    old = torch.tensor([[-1.2, pad if pad != 80.0 else -80.0], [-1.0, -2.0]])
    ref = torch.tensor([[-1.5, pad], [-1.0, -1.0]])
    mask = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
    adv = torch.tensor([1.0, -1.0])
    loss = grpo_loss(new, old, adv, ref_logp=ref, beta=0.1, mask=mask)
    loss.backward()
    assert torch.isfinite(loss) and torch.isfinite(new.grad).all()
    assert float(new.grad[0, 1]) == 0.0
    # the same as the padded token never being there
    clean_new = torch.tensor([[-1.0, 0.0], [-1.0, -2.0]], requires_grad=True)
    clean = grpo_loss(clean_new, old.nan_to_num(0.0, 0.0, 0.0).where(mask > 0, 0.0), adv,
                      ref_logp=ref.where(mask > 0, 0.0), beta=0.1, mask=mask)
    clean.backward()
    assert float(loss.detach()) == pytest.approx(float(clean.detach()))
    assert torch.allclose(new.grad, clean_new.grad)
    st = grpo_stats(new.detach(), old, adv, ref_logp=ref, mask=mask)
    assert all(v == v and abs(v) < float("inf") for v in st.values()), st
    # the same through the per-sequence token normaliser (Dr. GRPO)
    assert torch.isfinite(grpo_loss(new, old, adv, ref_logp=ref, beta=0.1, mask=mask, norm_tokens=4.0))


def test_the_k3_kl_term_pulls_the_policy_towards_the_reference():
    """``−β·k3`` in the objective, k3 = e^(ref−new) − (ref−new) − 1: the loss's gradient is
    ``β(1 − e^(ref−new))/N`` per token, positive where the policy is above the reference
    (a descent step lowers it), negative below, zero on it."""
    new = torch.log(torch.tensor([0.6, 0.2, 0.3])).requires_grad_(True)
    ref = torch.log(torch.tensor([0.3, 0.4, 0.3]))
    beta = 0.5
    grpo_loss(new, new.detach(), torch.zeros(3), ref_logp=ref, beta=beta).backward()
    want = beta * (1 - torch.exp(ref - new.detach())) / 3
    assert torch.allclose(new.grad, want, atol=1e-6)
    assert new.grad[0] > 0 > new.grad[1] and float(new.grad[2]) == pytest.approx(0.0, abs=1e-7)


def _small(tmp_path, name, **kw):
    base = dict(iterations=2, episodes_per_iter=2, rollout_max_steps=3, states_per_iter=4, group_size=4, horizon=3, epochs=1,
                groups_per_minibatch=4, skip_flat_groups=False, val_every=0, eval_episodes=0, progress=False, save_model=False,
                out_dir=str(tmp_path), run_name=name)
    base.update(kw)
    return train_small.Args(**base)


def _weights(policy):
    return {k: v.detach().clone() for k, v in policy.state_dict().items()}


def test_stage2_keeps_the_stage1_policy_as_its_kl_reference(tmp_path):
    """With β > 0 the reference is the initial policy in stage 1 and, from the switch on, the
    policy stage 1 ended with (frozen: the updates of stage 2 leave it alone)."""
    tr = train_small.Trainer(_small(tmp_path, "kl", stage="both", iterations=3, stage1_frac=0.34, beta=0.05))
    try:
        init = _weights(tr.policy)
        tr.iteration(0)
        assert tr.stage == 1 and all(torch.equal(v, init[k]) for k, v in tr.ref_policy.state_dict().items())
        after_stage1 = _weights(tr.policy)
        assert any(not torch.equal(v, init[k]) for k, v in after_stage1.items())
        row = tr.iteration(1)
        assert row["stage"] == 2 and tr.stage == 2
        assert all(torch.equal(v, after_stage1[k]) for k, v in tr.ref_policy.state_dict().items())
        assert not any(p.requires_grad and p.grad is not None for p in tr.ref_policy.parameters())
        tr.iteration(2)
        assert all(torch.equal(v, after_stage1[k]) for k, v in tr.ref_policy.state_dict().items())
    finally:
        tr.close()


@pytest.mark.parametrize("stage", ["1", "2"])
def test_each_group_is_centred_on_its_own_mean_and_stage2_trains_the_first_step(tmp_path, monkeypatch, stage):
    """The update gets one advantage per plan, centred within its own group (the default,
    Dr. GRPO), not over the batch; stage 2's rewards are the grounded 0/1 of the first step and
    its loss mask keeps the first step's decisions (type, argument, span) only."""
    seen = {}
    real = train_small.grpo_update

    def spy(policy, opt, obs, comps, old, mask, adv, **kw):
        seen.update(obs=obs, comps=comps, mask=mask, adv=adv, loss_mask=kw["loss_mask"])
        return real(policy, opt, obs, comps, old, mask, adv, **kw)

    rewards = {}
    real_s2 = train_small.stage2_rewards

    def s2_spy(*a, **kw):
        rewards["s2"] = real_s2(*a, **kw)
        return rewards["s2"]

    monkeypatch.setattr(train_small, "grpo_update", spy)
    monkeypatch.setattr(train_small, "stage2_rewards", s2_spy)
    tr = train_small.Trainer(_small(tmp_path, f"s{stage}", stage=stage, seed=3))
    try:
        tr.iteration(0)
    finally:
        tr.close()
    G, T = 4, 3
    adv = seen["adv"].view(-1, G)
    assert adv.shape[0] == len(seen["obs"]) >= 1
    assert torch.allclose(adv.sum(1), torch.zeros(adv.shape[0]), atol=1e-5)
    if stage == "2":
        assert set(rewards["s2"]) <= {0.0, 1.0}
        lm, m = seen["loss_mask"], seen["mask"]
        assert torch.equal(lm[:, :3], m[:, :3]) and not lm[:, 3:].any() and m[:, 3:].any()
        assert lm.shape[1] == 3 * T
    else:
        assert torch.equal(seen["loss_mask"], seen["mask"])


def _state(args):
    env = train_small.make_env(args, lambda o, i, h: None)
    env.reset(seed=0)
    return env, env.visited[0]


def test_the_ablation_flags_change_the_stage1_reward_as_they_say():
    """``--lambda-rep 0`` (no repetition penalty), ``--gamma 1`` (no discount) and ``--horizon``
    (T) reach the stage-1 reward the trainer scores groups with."""
    base = train_small.Args(group_size=2, horizon=3)
    env, v = _state(base)
    try:
        good = [r.action for r in v.reference[:3]]
        assert len(good) == 3
        stuck = [good[0]] * 3  # the first step right, then the same element twice more
        comps = [Completion(good), Completion(stuck)]

        def r(**kw):
            return train_small.stage1_rewards(train_small.Args(**{"group_size": 2, "horizon": 3, **kw}), [v], comps)

        assert r() == pytest.approx([1 + 0.9 + 0.81, 1 - 0.9 - 0.81])
        assert r(lambda_rep=0.0) == pytest.approx([1 + 0.9 + 0.81, 1.0])  # no penalty for the repeats
        assert r(gamma=1.0) == pytest.approx([3.0, 1 - 1 - 1])
        assert r(horizon=1) == pytest.approx([1.0, 1.0])  # T = 1: only the first step is scored
        assert r(lambda_align=0.5) == pytest.approx([0.5 * (1 + 0.9 + 0.81), 0.5 - 0.9 - 0.81])
        # the bottom of the range for a completion that did not parse follows the same flags
        bad = [Completion([Back()], valid=False), Completion([Click(5, 5)])]
        assert train_small.stage1_rewards(train_small.Args(group_size=2, horizon=3, lambda_rep=0.0), [v], bad)[0] == 0.0
        assert train_small.stage1_rewards(base, [v], bad)[0] == pytest.approx(-0.9 - 0.81)
    finally:
        env.close()
