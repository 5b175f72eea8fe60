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


def test_greedy_sampling_of_n_gives_n_copies_of_the_greedy_plan(policy, obs):
    # generate refused num_return_sequences > 1 without sampling ("Greedy methods ... do not
    # support num_return_sequences"); the tiny policy gives n copies, the VLM now does too
    was_training = policy.vlm.model.training
    policy.eval()
    try:
        one, (lp1, _) = policy.sample([obs], 1, greedy=True)
        comps, (lp, _) = policy.sample([obs, obs], 3, greedy=True)
    finally:
        policy.train(was_training)
    assert len(comps) == 6 and lp.shape[0] == 6
    assert all(c.data == one[0].data and c.text == one[0].text for c in comps)
    assert comps[0].data is not comps[1].data  # copies, not one list shared by the group
    assert torch.allclose(lp[:, : lp1.shape[1]], lp1.expand(6, -1), atol=1e-4)


def test_scores_the_distribution_sampling_draws_from(policy, obs, monkeypatch):
    """``logprobs`` must score the distribution ``sample`` drew from, or the GRPO ratio and its
    gradient are off-policy from the first step. A checkpoint's own ``repetition_penalty``
    (Qwen2.5-VL-Instruct ships 1.05) used to reshape sampling, and a ``temperature`` other than 1
    was not applied when scoring."""
    monkeypatch.setattr(policy.vlm.model.generation_config, "repetition_penalty", 1.5)
    monkeypatch.setattr(policy, "temperature", 0.7)
    scores = []
    generate = policy.vlm.model.generate

    def traced(**kw):  # the sampler's own (processed) scores of every step
        out = generate(**kw, return_dict_in_generate=True, output_scores=True)
        scores.append(torch.stack(out.scores, 1).float().log_softmax(-1))
        return out.sequences

    monkeypatch.setattr(policy.vlm.model, "generate", traced)
    policy.eval()
    comps, (lp, _) = policy.sample([obs], 3, generator=torch.Generator().manual_seed(0))
    for i, c in enumerate(comps):
        sampler = scores[0][i, : len(c.data)].gather(-1, torch.tensor(c.data)[:, None]).squeeze(-1)
        assert torch.allclose(sampler, lp[i, : len(c.data)], atol=1e-4)


def test_checkpoint_round_trip(policy, obs, tmp_path):
    """``save`` writes a folder that ``load_vlm`` (``from_pretrained``) loads back to the same model
    (the image-only processor used to save a processor class transformers does not know, and the
    folder then loaded as a bare tokenizer); ``load_state_dict`` restores ``state_dict``
    (train_small's best-validation checkpoint used to raise AttributeError for the VLM)."""
    from agents.grpo import Completion
    from agents.vlm import load_vlm

    saved = {k: v.clone() for k, v in policy.state_dict().items()}
    comps = [Completion([], data=policy.tokenizer("back()")["input_ids"])]
    policy.eval()
    with torch.no_grad():
        before, _ = policy.logprobs([obs], comps)
    policy.save(tmp_path / "ckpt")
    again = VLMPolicy(load_vlm(tmp_path / "ckpt", device="cpu"), horizon=policy.horizon)
    assert getattr(again.vlm.processor, "image_processor", None) is not None
    with torch.no_grad():
        assert torch.allclose(again.logprobs([obs], comps)[0], before, atol=1e-5)
        for p in policy.parameters():
            p.add_(0.01)
    policy.load_state_dict(saved)
    with torch.no_grad():
        assert torch.equal(policy.logprobs([obs], comps)[0], before)


def test_temperature_must_be_positive(policy):
    """Scores are divided by the temperature: 0 (or less) is refused when the policy is built."""
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="temperature"):
            VLMPolicy(policy.vlm, temperature=bad)
