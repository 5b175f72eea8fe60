"""agents.grpo.GRPOConfig: the one set of GRPO hyper-parameters behind train_small.py's flags,
examples/trl_grpo.py and grpo_update."""

from __future__ import annotations

import dataclasses
import math
import sys
import typing
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tyro")

from agents.grpo import Completion, GRPOConfig, grpo_update  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train_small  # noqa: E402
from tests.conftest import load_example  # noqa: E402


def test_train_small_flags_are_the_config_fields():
    args = {f.name: f for f in dataclasses.fields(train_small.Args)}
    hints = typing.get_type_hints(train_small.Args)
    for f in dataclasses.fields(GRPOConfig):
        assert f.name in args, f"train_small.Args lacks --{f.name.replace('_', '-')}"
        assert args[f.name].default == f.default, f.name
        assert hints[f.name] is typing.get_type_hints(GRPOConfig)[f.name], f.name
    assert train_small.Args().grpo == GRPOConfig()
    assert train_small.Args(group_size=2, clip_eps=0.1).grpo == GRPOConfig(group_size=2, clip_eps=0.1)


def test_trl_example_maps_its_flags_onto_the_config():
    ex = load_example("trl_grpo")
    cfg = ex.Args(data="d", model="m", num_generations=2, learning_rate=3e-4, horizon=4).grpo
    assert (cfg.group_size, cfg.lr, cfg.horizon) == (2, 3e-4, 4)
    assert cfg.gamma == ex.Args(data="d", model="m").gamma == GRPOConfig().gamma


class _Toy(torch.nn.Module):
    """A one-token policy over three choices; a completion's ``data`` is its choice."""

    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(3))

    def logprobs(self, obs_batch, completions):
        lp = torch.log_softmax(self.w, 0)[torch.tensor([c.data for c in completions])]
        return lp[:, None], torch.ones(len(completions), 1)


@pytest.mark.parametrize("epochs, per_minibatch, updates", [(1, 0, 1), (3, 1, 6), (2, 2, 2)])
def test_grpo_update_follows_the_config(epochs, per_minibatch, updates):
    policy = _Toy()
    comps = [Completion([], data=i % 2) for i in range(4)]  # 2 groups of 2: choices 0, 1
    old, mask = policy.logprobs([0, 1], comps)
    adv = torch.tensor([1.0, -1.0, 1.0, -1.0])
    cfg = GRPOConfig(epochs=epochs, groups_per_minibatch=per_minibatch, ent_coef=0.0)
    stats = grpo_update(policy, torch.optim.SGD(policy.parameters(), lr=0.1), [0, 1], comps, old.detach(), mask, adv, config=cfg)
    assert stats.n_updates == updates
    assert float(policy.w[0].detach()) > float(policy.w[1].detach())  # choice 0 had the positive advantage


class _Ragged(_Toy):
    """Like ``_Toy`` but a completion's ``data`` is its list of choices, and the log-probs are as
    wide as the longest completion *given* (a text policy's right-padded tokens)."""

    def logprobs(self, obs_batch, completions):
        width = max(len(c.data) for c in completions)
        lp, mask = torch.zeros(len(completions), width), torch.zeros(len(completions), width)
        all_lp = torch.log_softmax(self.w, 0)
        for i, c in enumerate(completions):
            lp[i, : len(c.data)] = all_lp[torch.tensor(c.data)]
            mask[i, : len(c.data)] = 1.0
        return lp, mask


def test_grpo_update_pads_minibatches_to_the_batch_width():
    """Minibatches of whole groups whose completions are shorter than the batch's longest (the
    README's VLM recipe, ``--groups-per-minibatch 2``) and a reference scored on fewer columns
    than the sampler's padded log-probs (train_small drops flat groups after padding): both used
    to raise "new_logp (…) and old_logp (…) differ"."""
    policy = _Ragged()
    comps = [Completion([], data=d) for d in ([0], [1], [0, 0, 0], [1])]  # group 2 holds the longest
    old, mask = policy.logprobs([0, 1], comps)
    old = torch.nn.functional.pad(old.detach(), (0, 2))  # padded wider still, as _pad_cat does
    mask = torch.nn.functional.pad(mask, (0, 2))
    ref = _Ragged()
    cfg = GRPOConfig(epochs=1, groups_per_minibatch=1, ent_coef=0.0, beta=0.1)
    stats = grpo_update(policy, torch.optim.SGD(policy.parameters(), lr=0.1), [0, 1], comps, old, mask,
                        torch.tensor([1.0, -1.0, 1.0, -1.0]), ref_policy=ref, config=cfg)
    assert stats.n_updates == 2 and math.isfinite(stats.loss)
    assert float(policy.w[0].detach()) > float(policy.w[1].detach())
