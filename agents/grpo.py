"""GRPO, policy-agnostic: group-relative advantages, the clipped surrogate, a k3 KL.

The core of ``train_small.py``, written so that any policy that can *sample* completions
and *score* them again drives it — the tiny torch policy (``agents/tiny_policy.py``) and a
Hugging Face VLM alike. A policy implements :class:`Policy`:

* ``sample(obs_batch, n) -> (completions, (logp, mask))``: ``n`` completions per
  observation, grouped (the ``n`` of ``obs_batch[0]`` first), and the log-probabilities of
  their tokens (``logp``: ``[B·n, L]``; ``mask``: ``[B·n, L]``, 1 for real tokens), detached;
* ``logprobs(obs_batch, completions) -> (logp, mask)`` with gradients (``n`` is
  ``len(completions) // len(obs_batch)``).

A "token" is whatever the policy decides in one go: a text token for a VLM, one decision
(action type, click cell, word pointer, …) for the tiny policy. A :class:`Completion`
carries the plan (``steps``: actions or :class:`~guigym.actions.PlanStep` s) that rewards
read, plus the policy's private data (token ids, decision codes) that ``logprobs`` reads.

The objective (DeepSeekMath's GRPO, per token, averaged per sequence then over the batch)::

    A_i   = r_i − mean(r_group)        (scale_rewards: / (std(r_group) + ε))  group_advantages
    ρ_it  = exp(log π_θ(o_it) − log π_old(o_it))
    L     = −mean_i mean_t [ min(ρ_it A_i, clip(ρ_it, 1−ε_c, 1+ε_c) A_i) − β · KL_it ]
    KL_it = exp(log π_ref − log π_θ) − (log π_ref − log π_θ) − 1             (k3, ≥ 0)

Everything here is pure: no env, no rewards (those come from ``guigym.rewards``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Optional, Protocol, Sequence, TypedDict, runtime_checkable

try:
    import torch
except ModuleNotFoundError as e:  # the base install: name the extra, not a bare "No module named 'torch'"
    raise ModuleNotFoundError("agents.grpo needs torch: pip install 'guigym[rl]'", name="torch") from e

__all__ = [
    "GRPOConfig",
    "Completion",
    "Policy",
    "group_advantages",
    "step_advantages",
    "grpo_loss",
    "grpo_stats",
    "masked_mean_per_seq",
    "grpo_update",
    "UpdateStats",
]


@dataclass(frozen=True)
class GRPOConfig:
    """GRPO's hyper-parameters, including those of TraceR1's stage-1 trajectory reward.

    The one definition shared by ``train_small.py`` (its ``Args`` exposes these as flags with
    the same names and defaults), ``examples/trl_grpo.py`` (mapped onto TRL's ``GRPOConfig``)
    and :func:`grpo_update` (which reads the update's share). The defaults are
    ``train_small.py``'s measured setting for the tiny policy.

    >>> GRPOConfig.from_fields({"group_size": 8, "seed": 1, "lr": 0.1}).group_size
    8
    >>> sorted(GRPOConfig().trajectory_reward_kwargs())
    ['gamma', 'horizon', 'lambda_align', 'lambda_rep']
    """

    group_size: int = 32  # G: completions sampled per state (the group)
    horizon: int = 5  # T: planned steps per completion
    gamma: float = 0.9  # γ: discount of the trajectory reward over planned steps
    lambda_align: float = 1.0  # λ_align: weight of the action similarity
    lambda_rep: float = 1.0  # λ_rep: weight of the repetition penalty
    lr: float = 2e-3  # learning rate
    epochs: int = 2  # passes over each batch of groups
    groups_per_minibatch: int = 16  # groups per gradient step (0: the whole batch)
    clip_eps: float = 0.2  # ε of the clipped importance ratio
    beta: float = 0.0  # β of the k3 KL to the frozen reference policy
    ent_coef: float = 0.01  # entropy bonus, for a policy with ``logprobs_entropy``
    loss_norm_tokens: float = 0.0  # > 0: Dr. GRPO's constant token normaliser (0: per-sequence means)
    max_grad_norm: float = 1.0  # gradient clipping (0: none)
    # False (the default, Dr. GRPO): advantages are only centred in the group; True: also divided by
    # the group's std (GRPO, TraceR1): see ``group_advantages``
    scale_rewards: bool = False

    @classmethod
    def from_fields(cls, values: Any) -> "GRPOConfig":
        """The config whose fields are read by name from ``values`` (a mapping or an object
        such as ``train_small.Args``); other keys or attributes are ignored."""
        get = values.get if isinstance(values, Mapping) else lambda k, d: getattr(values, k, d)
        return cls(**{f.name: get(f.name, f.default) for f in fields(cls)})

    def trajectory_reward_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``guigym.rewards.trajectory_reward`` and its relatives."""
        return {"gamma": self.gamma, "lambda_align": self.lambda_align, "lambda_rep": self.lambda_rep, "horizon": self.horizon}


@dataclass
class Completion:
    """One sampled completion: the plan the rewards read and the policy's private data.

    ``steps``: the predicted trajectory (``T`` actions or plan steps; only the first is
    executed by the plan-act loop). ``data``: whatever ``Policy.logprobs`` needs to score this
    completion again (decision codes, token ids). ``text``: the raw text, for text policies.
    ``valid``: whether that text parsed into a plan.
    """

    steps: list[Any]
    data: Any = None
    text: Optional[str] = None
    valid: bool = True  # False: the text did not parse (rewards give it the bottom of their range)

    def __len__(self) -> int:
        return len(self.steps)


@runtime_checkable
class Policy(Protocol):
    """What GRPO needs from a policy (see the module docstring)."""

    def sample(self, obs_batch: Sequence[Any], n: int) -> tuple[list[Completion], tuple[torch.Tensor, torch.Tensor]]: ...

    def logprobs(self, obs_batch: Sequence[Any], completions: Sequence[Completion]) -> tuple[torch.Tensor, torch.Tensor]: ...

    def parameters(self) -> Any: ...


def group_advantages(rewards: torch.Tensor | Sequence[Sequence[float]], eps: float = 1e-6, scale: bool = True) -> torch.Tensor:
    """``A = (r − mean(r)) / (std(r) + eps)`` within each group (row) of ``rewards`` ``[B, G]``;
    with ``scale=False`` only ``A = r − mean(r)`` (Dr. GRPO: no division by the std, which
    gives the rare failure of a nearly solved group a huge advantage).

    ``std`` is the population standard deviation (``ddof = 0``), so a group of equal
    rewards — nothing to learn from — gets zero advantages.

    >>> [[round(a, 4) for a in g] for g in group_advantages([[1.0, 0.0], [2.0, 2.0]]).tolist()]
    [[1.0, -1.0], [0.0, 0.0]]
    >>> [round(a, 4) for a in group_advantages([[1.0, 1.0, 1.0, 0.0]], scale=False)[0].tolist()]
    [0.25, 0.25, 0.25, -0.75]
    """
    r = torch.as_tensor(rewards, dtype=torch.float32)
    if r.dim() != 2:
        raise ValueError(f"rewards must be [groups, group_size], got shape {tuple(r.shape)}")
    _check_finite(r, "rewards")
    mean = r.mean(dim=1, keepdim=True)
    if not scale:
        return r - mean
    std = r.std(dim=1, keepdim=True, unbiased=False)
    return (r - mean) / (std + eps)


def _check_finite(r: torch.Tensor, what: str) -> None:
    """One NaN or infinite reward makes its whole group's advantages NaN (a user's reward
    function, never the library's): the caller's error, raised where it is made."""
    bad = ~torch.isfinite(r)
    if bool(bad.any()):
        where = bad.nonzero()[0].tolist()
        raise ValueError(f"{what} must be finite, got {r[tuple(where)].item()} at index {tuple(where)} "
                         f"(a NaN or infinite reward would make its whole group's advantages NaN)")


def step_advantages(
    step_rewards: torch.Tensor | Sequence[Sequence[Sequence[float]]],
    eps: float = 1e-6,
    mask: torch.Tensor | Sequence[Sequence[Sequence[bool]]] | None = None,
) -> torch.Tensor:
    """Per-step advantages ``[B, G, T]`` from per-step rewards ``[B, G, T]`` (DeepSeekMath's
    GRPO with process supervision): normalise every step reward by the mean and std of all
    step rewards of its group, ``r̃ = (r − mean) / (std + eps)``, then each step's advantage is
    the sum of the normalised rewards from that step on, ``A_t = Σ_{k ≥ t} r̃_k``.
    ``mask`` (``[B, G, T]``, True for a step the plan has): padding after a shorter plan is
    left out of the mean and std and gets ``r̃ = 0`` (a zero there would pull the group's
    mean towards 0 and reward or punish steps that were never planned).

    >>> [round(a, 3) for a in step_advantages([[[1.0, 0.0], [0.0, 0.0]]])[0, 0].tolist()]
    [1.155, -0.577]
    >>> [round(a, 3) for a in step_advantages([[[1.0, 0.0], [0.0, 0.0]]], mask=[[[1, 0], [1, 1]]])[0, 0].tolist()]
    [1.414, 0.0]
    """
    r = torch.as_tensor(step_rewards, dtype=torch.float32)
    if r.dim() != 3:
        raise ValueError(f"step rewards must be [groups, group_size, steps], got shape {tuple(r.shape)}")
    m = None if mask is None else torch.as_tensor(mask).bool()
    if m is not None and m.shape != r.shape:
        raise ValueError(f"the step mask's shape {tuple(m.shape)} is not the step rewards' {tuple(r.shape)}")
    _check_finite(r if m is None else torch.where(m, r, torch.zeros_like(r)), "step rewards")  # padding may hold anything
    if m is None or bool(m.all()):  # every step real: the plain formula (bit for bit what it always gave)
        flat = r.flatten(1)
        mean = flat.mean(dim=1)[:, None, None]
        std = flat.std(dim=1, unbiased=False)[:, None, None]
        norm = (r - mean) / (std + eps)
    else:
        r = torch.where(m, r, torch.zeros_like(r))  # padding may hold anything (NaN times 0 is NaN)
        w = m.to(r.dtype)
        n = w.flatten(1).sum(1).clamp(min=1.0)[:, None, None]
        mean = (r * w).flatten(1).sum(1)[:, None, None] / n
        std = (((r - mean) ** 2 * w).flatten(1).sum(1)[:, None, None] / n).sqrt()
        norm = torch.where(m, (r - mean) / (std + eps), torch.zeros_like(r))
    return norm.flip(-1).cumsum(-1).flip(-1)


def masked_mean_per_seq(x: torch.Tensor, mask: Optional[torch.Tensor]) -> torch.Tensor:
    """Mean over the token dimension of ``x`` ``[N, L]`` where ``mask`` is 1 (a row with no
    tokens gives 0); ``x`` ``[N]`` is returned as is."""
    if x.dim() == 1:
        return x
    if mask is None:
        return x.mean(dim=1)
    m = mask.to(x.dtype)
    return (x * m).sum(dim=1) / m.sum(dim=1).clamp(min=1.0)


def _zero_padding(x: torch.Tensor, mask: Optional[torch.Tensor]) -> torch.Tensor:
    """Per-token ``x`` ``[N, L]`` with 0 where ``mask`` is 0: what a policy puts at its padded
    tokens is its own business (``-inf`` from a masked softmax, garbage), and ``0 · inf`` or
    ``0 · NaN`` there made the loss, or the gradient of every weight, NaN (``torch.where`` sends
    no gradient to them). Per-sequence ``[N]`` values and ``mask=None`` pass unchanged."""
    if mask is None or x.dim() != 2 or x.shape != mask.shape:
        return x
    return torch.where(mask > 0, x, torch.zeros_like(x))


def _broadcast_adv(adv: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    if adv.dim() == 2 and like.dim() == 2:  # per-token advantages
        if adv.shape != like.shape:
            raise ValueError(f"per-token advantages {tuple(adv.shape)} do not match log-probs {tuple(like.shape)}")
        return adv.to(like.dtype)
    adv = adv.reshape(-1).to(like.dtype)
    if adv.shape[0] != like.shape[0]:
        raise ValueError(f"one advantage per sequence expected: {adv.shape[0]} advantages for {like.shape[0]} sequences")
    return adv if like.dim() == 1 else adv[:, None]


def grpo_loss(
    new_logp: torch.Tensor,
    old_logp: torch.Tensor,
    adv: torch.Tensor,
    ref_logp: Optional[torch.Tensor] = None,
    clip_eps: float = GRPOConfig.clip_eps,
    beta: float = GRPOConfig.beta,
    mask: Optional[torch.Tensor] = None,
    norm_tokens: Optional[float] = None,
) -> torch.Tensor:
    """The GRPO loss (to minimise) for ``N`` sequences.

    ``new_logp``/``old_logp``/``ref_logp``: per-token log-probs ``[N, L]`` (or per-sequence
    ``[N]``) under the current, the sampling and the frozen reference policy; ``adv``:
    ``[N]`` (one advantage per sequence) or ``[N, L]`` (one per token, e.g. from
    :func:`step_advantages`); ``mask``: ``[N, L]``, 1 for real tokens (what the others hold at a
    padded token, ``-inf`` or NaN included, is left out, of the gradient too).
    Per token: ``ρ = exp(new − old)``, ``s = min(ρA, clip(ρ, 1−ε, 1+ε)A)``; with
    ``ref_logp`` and ``β > 0`` also ``k3 = exp(ref − new) − (ref − new) − 1``;
    ``loss = −mean_seq( mean_tok( s − β·k3 ) )``. With ``norm_tokens`` the token sum of
    each sequence is divided by that constant instead of by its own token count (Dr. GRPO's
    fix of the length bias: every token weighs the same whatever the length of its sequence).

    >>> lp = torch.log(torch.tensor([0.5, 0.5]))
    >>> float(grpo_loss(lp, lp, torch.tensor([1.0, 3.0])))   # ρ = 1: −(1 + 3)/2
    -2.0
    """
    if new_logp.shape != old_logp.shape:
        raise ValueError(f"new_logp {tuple(new_logp.shape)} and old_logp {tuple(old_logp.shape)} differ")
    a = _broadcast_adv(adv, new_logp)
    new_logp, old_logp, a = _zero_padding(new_logp, mask), _zero_padding(old_logp, mask), _zero_padding(a, mask)
    ref_logp = None if ref_logp is None else _zero_padding(ref_logp, mask)
    ratio = torch.exp(new_logp - old_logp.detach())
    surr = torch.minimum(ratio * a, torch.clamp(ratio, 1.0 - clip_eps, 1.0 + clip_eps) * a)
    per_tok = surr
    if ref_logp is not None and beta != 0.0:
        d = ref_logp.detach() - new_logp
        per_tok = per_tok - beta * (torch.exp(d) - d - 1.0)
    if norm_tokens is not None and per_tok.dim() == 2:
        m = torch.ones_like(per_tok) if mask is None else mask.to(per_tok.dtype)
        return -((per_tok * m).sum(dim=1) / float(norm_tokens)).mean()
    return -masked_mean_per_seq(per_tok, mask).mean()


def grpo_stats(
    new_logp: torch.Tensor,
    old_logp: torch.Tensor,
    adv: torch.Tensor,
    ref_logp: Optional[torch.Tensor] = None,
    clip_eps: float = GRPOConfig.clip_eps,
    mask: Optional[torch.Tensor] = None,
) -> dict[str, float]:
    """Diagnostics (no gradients): fraction of tokens whose ratio was clipped against the
    advantage, mean ratio, ``k3`` KL to the reference, approximate KL to the sampler."""
    with torch.no_grad():
        a = _broadcast_adv(adv, new_logp)
        new_logp, old_logp, a = _zero_padding(new_logp, mask), _zero_padding(old_logp, mask), _zero_padding(a, mask)
        ref_logp = None if ref_logp is None else _zero_padding(ref_logp, mask)
        ratio = torch.exp(new_logp - old_logp)
        clipped = ((ratio > 1 + clip_eps) & (a > 0)) | ((ratio < 1 - clip_eps) & (a < 0))
        m = torch.ones_like(new_logp) if mask is None else mask.to(new_logp.dtype)
        n = m.sum().clamp(min=1.0)
        out = {
            "clip_frac": float((clipped.to(m.dtype) * m).sum() / n),
            "ratio": float((ratio * m).sum() / n),
            "approx_kl_old": float((((ratio - 1) - (new_logp - old_logp)) * m).sum() / n),
        }
        if ref_logp is not None:
            d = ref_logp - new_logp
            out["kl_ref"] = float(((torch.exp(d) - d - 1.0) * m).sum() / n)
        return out


@dataclass
class UpdateStats:
    loss: float = 0.0
    clip_frac: float = 0.0
    approx_kl_old: float = 0.0
    kl_ref: float = 0.0
    grad_norm: float = 0.0
    entropy: float = 0.0
    n_updates: int = 0
    extra: dict[str, float] = field(default_factory=dict)


class _ClipKwargs(TypedDict):
    """The keyword arguments :func:`grpo_update` passes to both :func:`grpo_loss` and :func:`grpo_stats`."""

    clip_eps: float
    mask: torch.Tensor


def _take(seq: Sequence[Any], idx: Sequence[int]) -> list[Any]:
    return [seq[i] for i in idx]


def _pad_to(x: torch.Tensor, width: int) -> torch.Tensor:
    """Per-token values ``[N, L]`` right-padded with zeros (masked tokens) to ``width`` columns."""
    if x.dim() != 2 or x.shape[1] >= width:
        return x
    return torch.nn.functional.pad(x, (0, width - x.shape[1]))


def grpo_update(
    policy: Policy,
    optimizer: torch.optim.Optimizer,
    obs_batch: Sequence[Any],
    completions: Sequence[Completion],
    old_logp: torch.Tensor,
    mask: torch.Tensor,
    adv: torch.Tensor,
    ref_policy: Optional[Policy] = None,
    config: GRPOConfig = GRPOConfig(),
    loss_mask: Optional[torch.Tensor] = None,
    generator: Optional[torch.Generator] = None,
) -> UpdateStats:
    """``config.epochs`` passes of GRPO over ``B`` groups of ``n`` completions (minibatches of
    ``config.groups_per_minibatch`` whole groups, shuffled with ``generator``); returns
    averaged stats.

    ``adv``: one advantage per completion (``[B·n]``, or ``[B, n]`` as
    :func:`group_advantages` gives) or per token (``[B·n, L]``).
    ``loss_mask`` (``[B·n, L]``) narrows which tokens carry the loss (e.g. stage 2 scores
    only the first planned step); by default every real token (``mask``). ``config.ent_coef > 0``
    adds ``−ent_coef · mean(entropy)`` for a policy that has
    ``logprobs_entropy(obs, completions) -> (logp, mask, entropy_per_row)``.
    """
    clip_eps, beta, ent_coef = config.clip_eps, config.beta, config.ent_coef
    norm_tokens = config.loss_norm_tokens or None
    B = len(obs_batch)
    N = len(completions)
    if B == 0 or N % B:
        raise ValueError(f"{N} completions do not split into {B} equal groups")
    n = N // B
    if adv.dim() == 2 and tuple(adv.shape) == (B, n) and adv.shape != mask.shape:
        adv = adv.reshape(-1)  # group_advantages' [groups, group_size]: was indexed by completion, an IndexError
    elif adv.dim() == 2 and adv.shape[0] != N:
        raise ValueError(f"advantages of shape {tuple(adv.shape)}: expected one per completion ([{N}] or [{B}, {n}]) "
                         f"or one per token ([{N}, L])")
    elif adv.dim() <= 1 and adv.numel() != N:
        raise ValueError(f"{adv.numel()} advantages for {N} completions")
    lm = mask if loss_mask is None else loss_mask
    ref_lp: Optional[torch.Tensor] = None
    if ref_policy is not None and beta != 0.0:
        with torch.no_grad():
            ref_lp, _ = ref_policy.logprobs(obs_batch, completions)
    gpm = B if not config.groups_per_minibatch else max(1, min(B, config.groups_per_minibatch))
    stats = UpdateStats()
    params = [p for p in policy.parameters() if p.requires_grad]
    for _ in range(config.epochs):
        order = torch.randperm(B, generator=generator).tolist()
        for s in range(0, B, gpm):
            groups = order[s : s + gpm]
            rows = [g * n + j for g in groups for j in range(n)]
            obs_mb = _take(obs_batch, groups)
            comp_mb = _take(completions, rows)
            ent = None
            if ent_coef > 0 and hasattr(policy, "logprobs_entropy"):
                new_lp, _, ent = policy.logprobs_entropy(obs_mb, comp_mb)
            else:
                new_lp, _ = policy.logprobs(obs_mb, comp_mb)
            r = torch.as_tensor(rows)
            # a minibatch's longest completion can be shorter than the batch's: pad to its width
            new_lp = _pad_to(new_lp, old_logp.shape[-1])
            ref_mb = None if ref_lp is None else _pad_to(ref_lp, old_logp.shape[-1])[r]
            kw: _ClipKwargs = dict(clip_eps=clip_eps, mask=lm[r])
            loss = grpo_loss(new_lp, old_logp[r], adv[r], ref_mb, beta=beta, norm_tokens=norm_tokens, **kw)
            if ent is not None:
                loss = loss - ent_coef * ent.mean()
                stats.entropy += float(ent.detach().mean())
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            max_norm = config.max_grad_norm
            gn = torch.nn.utils.clip_grad_norm_(params, max_norm) if max_norm > 0 else torch.tensor(0.0)
            optimizer.step()
            st = grpo_stats(new_lp.detach(), old_logp[r], adv[r], ref_mb, **kw)
            stats.loss += float(loss.detach())
            stats.clip_frac += st["clip_frac"]
            stats.approx_kl_old += st["approx_kl_old"]
            stats.kl_ref += st.get("kl_ref", 0.0)
            stats.grad_norm += float(gn)
            stats.n_updates += 1
    k = max(1, stats.n_updates)
    stats.loss /= k
    stats.clip_frac /= k
    stats.approx_kl_old /= k
    stats.kl_ref /= k
    stats.grad_norm /= k
    stats.entropy /= k
    return stats
