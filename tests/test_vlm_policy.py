"""The VLM as a GRPO policy on the tiny Qwen2.5-VL (CPU): sampling, re-scoring, updates."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import gymnasium as gym  # noqa: E402

from agents.grpo import group_advantages, grpo_update  # noqa: E402
from agents.plan_act import PlanActAgent, run_episode  # noqa: E402
from agents.vlm_policy import VLMPolicy  # noqa: E402


@pytest.fixture(scope="module")
def policy(tmp_path_factory):
    from agents.tiny_vlm import build_tiny_qwen25vl

    torch.set_num_threads(1)
    torch.manual_seed(0)
    path = build_tiny_qwen25vl(tmp_path_factory.mktemp("tiny"))
    return VLMPolicy.from_pretrained(path, horizon=4, device="cpu", max_new_tokens=16)


@pytest.fixture(scope="module")
def obs():
    env = gym.make("GuiGym-Login-v0")
    o, _ = env.reset(seed=0)
    return {**o, "history_actions": []}


def test_sample_and_rescore(policy, obs):
    comps, (lp, mask) = policy.sample([obs, obs], 3)
    assert len(comps) == 6 and lp.shape == mask.shape and lp.shape[0] == 6
    assert all(1 <= len(c.data) <= 16 and isinstance(c.text, str) and c.steps for c in comps)
    assert torch.all(lp <= 0) and torch.all(mask.sum(1) == torch.tensor([len(c.data) for c in comps]))
    lp2, mask2 = policy.logprobs([obs, obs], comps)
    assert torch.allclose(lp, lp2.detach(), atol=1e-4)  # the same tokens score the same
    assert lp2.requires_grad


def test_grpo_update_changes_parameters(policy, obs):
    comps, (lp, mask) = policy.sample([obs], 4)
    adv = group_advantages(torch.tensor([[1.0, 0.0, 0.5, 0.0]])).reshape(-1)
    opt = torch.optim.AdamW(policy.parameters(), lr=1e-3)
    before = [p.detach().clone() for p in policy.parameters()]
    stats = grpo_update(policy, opt, [obs], comps, lp, mask, adv)
    assert math.isfinite(stats.loss)
    assert any(not torch.equal(a, b) for a, b in zip(before, policy.parameters()))


def test_planner_runs_an_episode(policy):
    env = gym.make("GuiGym-Login-v0", max_episode_steps=3)
    rec = run_episode(env, PlanActAgent(policy.planner(greedy=True)), seed=1)
    assert rec.steps == 3 and not rec.success  # a random tiny model: runs, never crashes


def test_lora(tmp_path):
    pytest.importorskip("peft")
    from agents.tiny_vlm import build_tiny_qwen25vl

    path = build_tiny_qwen25vl(tmp_path / "tiny")
    pol = VLMPolicy.from_pretrained(path, horizon=2, device="cpu", max_new_tokens=8, lora_rank=4)
    trainable = [n for n, p in pol.vlm.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora" in n for n in trainable)


def test_planner_plans_a_batch_in_one_generate_call(policy, monkeypatch):
    """``plan_batch``: one left-padded ``generate`` call for prompts of different lengths (other
    histories); each plan is the one ``plan`` decodes for its episode alone; a sampling planner
    refuses."""
    from agents.plan_act import Plan

    env = gym.make("GuiGym-Login-v0", level="medium")
    batch = []
    for s in range(3):
        o, info = env.reset(seed=s)
        history = [r.action for r in info["reference"][:s]]  # 0, 1 and 2 actions: prompts of other lengths
        batch.append((o, info, history))
    env.close()
    planner = policy.planner(greedy=True)
    alone = [planner.plan(o, i, h) for o, i, h in batch]
    calls = []
    generate = policy.vlm.model.generate
    monkeypatch.setattr(policy.vlm.model, "generate", lambda **kw: calls.append(kw["input_ids"].shape) or generate(**kw))
    plans = planner.plan_batch(*map(list, zip(*batch)))
    assert len(calls) == 1 and calls[0][0] == 3
    assert all(isinstance(p, Plan) and isinstance(p.text, str) for p in plans)
    assert [p.text for p in plans] == [p.text for p in alone]
    assert planner.plan_batch([], [], []) == []
    with pytest.raises(ValueError, match="greedily"):
        policy.planner(greedy=False).plan_batch(*map(list, zip(*batch)))


def test_completions_never_hold_vision_tokens(policy):
    """The tiny random model emits ``<|image_pad|>`` on some screens when nothing stops it; such
    a completion made re-scoring fail ("Image features and image tokens do not match"), a
    crash of the rollout. Generation suppresses the vision tokens and scoring leaves them out."""
    env = gym.make("GuiGym-Login-v0", level="medium")
    batch = []
    for s in range(4):
        o, info = env.reset(seed=s)
        batch.append({**o, "history_actions": [r.action for r in info["reference"][:s]]})
    env.close()
    assert policy.vision_ids and len(policy.vision_ids) == 5
    comps, (lp, mask) = policy.sample(batch, 1, greedy=True)
    sampled, (lp_s, _) = policy.sample(batch, 2)
    every = comps + sampled + policy.greedy_batch(batch)
    assert not {i for c in every for i in c.data} & set(policy.vision_ids)
    assert torch.isfinite(lp).all() and torch.all(lp <= 0) and torch.isfinite(lp_s).all()
    lp2, _, ent = policy.logprobs_entropy(batch, comps)
    assert torch.allclose(lp, lp2.detach(), atol=1e-4) and torch.isfinite(ent).all()
