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
