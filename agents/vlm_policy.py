"""A Hugging Face VLM as a GRPO policy (the :class:`agents.grpo.Policy` protocol).

``train_small.py --policy vlm --vlm-path DIR`` trains a Qwen2.5-VL checkpoint with the same
stage-1 / stage-2 GRPO code as the tiny policy: the prompt and output format are those of
:class:`agents.vlm.VLMPlanner` (screenshot resized to the model's input size, task, last K
actions, horizon T); a completion is the generated token ids, its plan the parsed text
(coordinates rescaled to the screenshot); ``logprobs`` re-scores the tokens with gradients.
Optional LoRA (``peft``) and gradient checkpointing keep a 3B model on one GPU.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np
try:
    import torch
except ModuleNotFoundError as e:  # the base install: name the extra, not a bare "No module named 'torch'"
    raise ModuleNotFoundError("agents.vlm_policy needs torch: pip install 'guigym[vlm]'", name="torch") from e

from agents.grpo import Completion
from agents.json_out import to_json
from agents.plan_act import Plan, check_horizon
from agents.vlm import VLM, _check_fmt, load_vlm, parse_plan_output, plan_messages

__all__ = ["TextCompletion", "VLMPolicy", "VLMPolicyPlanner"]


@dataclass
class TextCompletion(Completion):
    """A :class:`~agents.grpo.Completion` that keeps why its text did not parse (``error``, the
    ``ActionParseError`` message), so a planner's plan records it as
    :class:`agents.vlm.VLMPlanner`'s does.

    Text whose first ``T`` steps do not all parse is not ``valid``: stage 1 scores it the bottom of
    its range, as :class:`guigym.rewards.TrajectoryReward` scores such text. Its ``steps`` are
    still those before the first malformed step (:func:`agents.vlm.parse_plan_output`; ``[NOOP]``
    when the first is malformed): the rollout executes the first, and stage 2 gives it its
    grounded reward, as :func:`guigym.rewards.grounded_reward` does the text."""

    error: Optional[str] = None


#: Qwen2-VL's vision placeholder tokens: the processor puts them in prompts; a plan has none.
VISION_TOKENS = ("<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>")


def _adapter_config(path: Union[str, Path]) -> Optional[dict[str, Any]]:
    """The LoRA adapter's config saved at ``path`` (``adapter_config.json``), or ``None``."""
    f = Path(path) / "adapter_config.json"
    return json.loads(f.read_text()) if f.is_file() else None


class VLMPolicy:
    """Samples plans from a VLM and scores their tokens. Observations are env observations
    with the executed actions under ``"history_actions"``."""

    vlm: VLM
    horizon: int
    fmt: str
    history_len: int
    max_new_tokens: int
    temperature: float
    tokenizer: Any  # the processor's (a transformers tokenizer)
    vision_ids: list[int]

    def __init__(self, vlm: VLM, horizon: int = 8, fmt: str = "json", history_len: int = 4,
                 max_new_tokens: int = 192, temperature: float = 1.0) -> None:
        if not temperature > 0:  # the scores divide by it; greedy decoding is ``sample(greedy=True)``
            raise ValueError(f"temperature must be > 0, got {temperature!r}")
        _check_fmt(fmt)  # here, not at the first prompt (mid-rollout)
        horizon = check_horizon(horizon)
        self.vlm, self.horizon, self.fmt, self.history_len = vlm, horizon, fmt, history_len
        self.max_new_tokens, self.temperature = max_new_tokens, temperature
        self.tokenizer = vlm.processor.tokenizer
        #: The vision placeholders (``<|image_pad|>``, ``<|vision_start|>``, …): never generated
        #: (``suppress_tokens``) and never scored, so a completion cannot hold one. One in a
        #: completion would make re-scoring count image tokens the images do not have (an
        #: undertrained model does emit them: the tiny test model on two Login screens of four).
        vocab = self.tokenizer.get_vocab()
        self.vision_ids = sorted(vocab[t] for t in VISION_TOKENS if t in vocab)

    @classmethod
    def from_pretrained(
        cls, path: Union[str, Path], horizon: int = 8, fmt: str = "json", device: str = "auto", dtype: Any = None,
        lora_rank: int = 0, gradient_checkpointing: bool = False, max_pixels: Optional[int] = None, **kw: Any,
    ) -> "VLMPolicy":
        """Load a local checkpoint (:func:`agents.vlm.load_vlm`), optionally with LoRA
        adapters of rank ``lora_rank`` on the language model's attention projections.

        A folder :meth:`save` wrote with LoRA holds an adapter: its training goes on (the
        saved adapter, trainable, on its base), which needs ``lora_rank`` equal to the saved
        rank; any other ``lora_rank`` raises ``ValueError`` before the weights load."""
        check_horizon(horizon)  # before a load of several GB, not after it
        _check_fmt(fmt)
        adapter = _adapter_config(path)
        if adapter is not None and lora_rank != adapter.get("r"):
            # a new adapter wrapped around the loaded one re-initialised it (training restarted from
            # the base without a word), and rank 0 left no trainable weight (the optimizer's error)
            raise ValueError(f"{path} holds a LoRA adapter of rank {adapter.get('r')}: continue training it with "
                             f"lora_rank={adapter.get('r')}, not {lora_rank} (to train all weights, merge it into its base first)")
        # an adapter: its base, then the adapter through peft, trainable (transformers' own loading
        # injects it frozen, for inference, and saving that model needs another peft version)
        base: Union[str, Path] = path
        if adapter is not None:
            base = adapter.get("base_model_name_or_path") or ""
            if not base:
                raise ValueError(f"{path}: the adapter names no base checkpoint (base_model_name_or_path)")
        vlm = load_vlm(base, device=device, dtype=dtype, max_pixels=max_pixels)
        model = vlm.model
        if gradient_checkpointing:
            model.gradient_checkpointing_enable()
            model.config.use_cache = False
        if adapter is not None:
            from peft import PeftModel

            vlm.model = PeftModel.from_pretrained(model, str(path), is_trainable=True)
        elif lora_rank > 0:
            from peft import LoraConfig, get_peft_model

            cfg = LoraConfig(r=lora_rank, lora_alpha=2 * lora_rank, lora_dropout=0.0,
                             target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])
            vlm.model = get_peft_model(model, cfg)
        vlm.model.train()
        return cls(vlm, horizon=horizon, fmt=fmt, **kw)

    def parameters(self) -> Any:
        return self.vlm.model.parameters()

    def state_dict(self) -> dict[str, Any]:
        return self.vlm.model.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> Any:
        """Restore weights from :meth:`state_dict` (``train_small.py``'s best-validation checkpoint)."""
        return self.vlm.model.load_state_dict(state)

    def save(self, path: Union[str, Path], extra: Optional[dict[str, Any]] = None) -> None:
        """Save in Hugging Face format (a folder), loadable with ``from_pretrained``
        (:func:`agents.vlm.load_vlm`); with LoRA the folder holds the adapter, which names the
        base checkpoint's path. ``extra`` (e.g. the training run's arguments) goes to
        ``guigym_extra.json`` in the folder, as strict JSON (anything else JSON cannot hold as
        text)."""
        self.vlm.model.save_pretrained(str(path))
        self.vlm.processor.save_pretrained(str(path))
        if extra:
            (Path(path) / "guigym_extra.json").write_text(to_json(extra, default=str))

    # --- prompts ---------------------------------------------------------------------------
    def _prompt(self, ob: dict[str, Any]) -> tuple[str, Any, tuple[int, int], tuple[int, int]]:
        """The chat text and the resized screenshot of an observation, the model's image size
        and the screen's (for rescaling the plan's coordinates)."""
        from PIL import Image

        shot = np.asarray(ob["screenshot"], dtype=np.uint8)
        screen = (int(shot.shape[1]), int(shot.shape[0]))
        size = self.vlm.model_size(screen)
        msgs = plan_messages(ob["instruction"], ob.get("history_actions", []), self.horizon, self.fmt, size, screen,
                             history_len=self.history_len)
        text = self.vlm.chat_text(msgs)  # special tokens typed into the history defused
        img = Image.fromarray(shot).convert("RGB").resize(size, Image.Resampling.BICUBIC)
        return text, img, size, screen

    def _encode(self, texts: list[str], images: list[Any]) -> dict[str, torch.Tensor]:
        """Processor inputs of several prompts, left-padded to one length (generation appends
        on the right)."""
        tok = self.tokenizer
        side, tok.padding_side = tok.padding_side, "left"
        try:
            inputs = self.vlm.processor(text=texts, images=images, padding=len(texts) > 1, return_tensors="pt").to(self.vlm.device)
        finally:
            tok.padding_side = side
        if "pixel_values" in inputs:
            inputs["pixel_values"] = inputs["pixel_values"].to(self.vlm.model.dtype)
        return dict(inputs)

    def _inputs(self, ob: dict[str, Any]) -> tuple[dict[str, torch.Tensor], tuple[int, int], tuple[int, int]]:
        text, img, size, screen = self._prompt(ob)
        return self._encode([text], [img]), size, screen

    def _completion(self, seq: list[int], size: tuple[int, int], screen: tuple[int, int]) -> Completion:
        """A generated sequence (prompt removed) cut after its first end token, and its parsed plan
        (valid only when its first ``T`` steps all parse; see :class:`TextCompletion`)."""
        eos = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        ids = seq[: seq.index(eos) + 1] if eos in seq else seq
        ids = ids or [eos]
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        plan = parse_plan_output(text, self.fmt, self.horizon, size, screen)
        return TextCompletion(steps=list(plan), data=ids, text=text, valid=plan.error is None, error=plan.error)

    def _generate_kw(self) -> dict[str, Any]:
        eos = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else eos
        # repetition_penalty 1: otherwise the checkpoint's (1.05 for Qwen2.5-VL-Instruct) reshapes the
        # distribution sampled from, which ``logprobs`` does not score
        kw: dict[str, Any] = {"max_new_tokens": self.max_new_tokens, "pad_token_id": pad, "eos_token_id": eos,
                              "repetition_penalty": 1.0}
        if self.vision_ids:
            kw["suppress_tokens"] = self.vision_ids
        return kw

    def greedy_batch(self, obs_batch: Sequence[dict[str, Any]]) -> list[Completion]:
        """The greedy plan of each observation, from one batched ``generate`` call over all of
        them (left-padded prompts), without re-scoring: what evaluation needs. Each is the plan
        ``sample(..., greedy=True)`` decodes for that observation alone, up to floating point
        (a padded batch computes in other shapes, which can flip a near-tie)."""
        if not obs_batch:
            return []
        prompts = [self._prompt(ob) for ob in obs_batch]
        inputs = self._encode([p[0] for p in prompts], [p[1] for p in prompts])
        with torch.no_grad():
            out = self.vlm.model.generate(**inputs, **self._generate_kw(), do_sample=False)
        width = inputs["input_ids"].shape[1]
        return [self._completion(seq, size, screen) for seq, (_, _, size, screen) in zip(out[:, width:].tolist(), prompts)]

    # --- Policy protocol -------------------------------------------------------------------
    def sample(self, obs_batch: Sequence[dict[str, Any]], n: int, greedy: bool = False,
               generator: Optional[torch.Generator] = None) -> tuple[list[Completion], tuple[torch.Tensor, torch.Tensor]]:
        """``n`` plans per observation (grouped), with their token log-probs and mask.
        ``greedy``: the most likely plan, ``n`` identical copies of it (as :class:`TinyPolicy`
        gives; a GRPO group of them has zero advantages)."""
        comps = self.completions(obs_batch, n, greedy, generator)
        with torch.no_grad():
            logp, mask = self.logprobs(obs_batch, comps)
        return comps, (logp, mask)

    def completions(self, obs_batch: Sequence[dict[str, Any]], n: int, greedy: bool = False,
                    generator: Optional[torch.Generator] = None) -> list[Completion]:
        """:meth:`sample`'s plans without their log-probs (a planner acting, not training:
        re-scoring them was a forward pass per step, thrown away)."""
        if generator is not None:  # transformers samples from the global RNG: seed it from ours
            torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=generator)))
        comps: list[Completion] = []
        for ob in obs_batch:
            inputs, size, screen = self._inputs(ob)
            # greedy: decode once and copy; generate refuses num_return_sequences > 1 without sampling
            kw: dict[str, Any] = {**self._generate_kw(), "num_return_sequences": 1 if greedy else n}
            kw.update({"do_sample": False} if greedy else {"do_sample": True, "temperature": self.temperature, "top_p": 1.0, "top_k": 0})
            with torch.no_grad():
                out = self.vlm.model.generate(**inputs, **kw)
            seqs = out[:, inputs["input_ids"].shape[1]:].tolist()
            comps.extend(self._completion(seq, size, screen) for seq in ([list(seqs[0]) for _ in range(n)] if greedy else seqs))
        return comps

    def logprobs(self, obs_batch: Sequence[dict[str, Any]], completions: Sequence[Completion]) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probabilities ``[B·n, L]`` of each completion's tokens (right-padded; ``mask``
        marks real tokens), one batched forward pass per observation's group."""
        logp, mask, _ = self._score(obs_batch, completions, want_entropy=False)
        return logp, mask

    def logprobs_entropy(
        self, obs_batch: Sequence[dict[str, Any]], completions: Sequence[Completion]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:meth:`logprobs` plus each row's mean token entropy (for an entropy bonus)."""
        return self._score(obs_batch, completions, want_entropy=True)

    def _score(
        self, obs_batch: Sequence[dict[str, Any]], completions: Sequence[Completion], want_entropy: bool
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        if not obs_batch or len(completions) % len(obs_batch):
            raise ValueError(f"{len(completions)} completions do not split into {len(obs_batch)} groups")
        n = len(completions) // len(obs_batch)
        width = max(len(c.data) for c in completions)
        rows_lp, rows_mask, rows_ent = [], [], []
        for g, ob in enumerate(obs_batch):
            inputs, _, _ = self._inputs(ob)
            prompt = inputs["input_ids"]
            group = completions[g * n:(g + 1) * n]
            comp = torch.zeros((n, width), dtype=torch.long, device=prompt.device)
            mask = torch.zeros((n, width), dtype=torch.float32, device=prompt.device)
            for i, c in enumerate(group):
                comp[i, : len(c.data)] = torch.as_tensor(c.data)
                mask[i, : len(c.data)] = 1.0
            ids = torch.cat([prompt.expand(n, -1), comp], dim=1)
            attn = torch.cat([inputs["attention_mask"].expand(n, -1), mask.long()], dim=1)
            extra = {k: v for k, v in inputs.items() if k not in ("input_ids", "attention_mask")}
            if "pixel_values" in extra:  # one image per row
                extra["pixel_values"] = extra["pixel_values"].repeat(n, 1)
                extra["image_grid_thw"] = extra["image_grid_thw"].repeat(n, 1)
            for k in ("mm_token_type_ids", "token_type_ids"):
                if k in extra:
                    extra[k] = torch.cat([extra[k].expand(n, -1), torch.zeros_like(comp)], dim=1)
            # logits of the positions that predict the completion only (logits_to_keep): the
            # prompt's (~700 tokens x a 152k vocabulary per row at 3B) were computed and dropped
            logits = self.vlm.model(input_ids=ids, attention_mask=attn, logits_to_keep=width + 1, **extra).logits[:, :-1].float()
            logits = logits / self.temperature  # the tempered distribution ``sample`` draws from
            if self.vision_ids:  # the distribution generation samples from (suppress_tokens); finite, so 0·log 0 stays 0
                logits = logits.index_fill(-1, torch.tensor(self.vision_ids, device=logits.device), torch.finfo(logits.dtype).min)
            all_lp = torch.log_softmax(logits, dim=-1)
            lp = all_lp.gather(-1, comp.unsqueeze(-1)).squeeze(-1)
            rows_lp.append(lp * mask)
            rows_mask.append(mask)
            if want_entropy:
                ent = -(all_lp.exp() * all_lp).sum(-1)
                rows_ent.append((ent * mask).sum(1) / mask.sum(1).clamp(min=1))
        ent_out = torch.cat(rows_ent).cpu() if want_entropy else torch.zeros(0)
        return torch.cat(rows_lp).cpu(), torch.cat(rows_mask).cpu(), ent_out

    def token_steps(self, completions: Sequence[Completion], mask: torch.Tensor) -> torch.Tensor:
        """Step index of every token, for per-step advantages. Text tokens are not aligned to
        plan steps here, so every token counts as step 0 and would get ``Σ_t r̃_t`` with ``r̃``
        normalised over the group's ``G×T`` step terms — not the trajectory advantage (which is
        normalised over the ``G`` plan totals; the scales differ). ``train_small.py`` therefore
        refuses ``--advantage step`` for a VLM."""
        return torch.zeros_like(mask, dtype=torch.long)

    def first_step_mask(self, completions: Sequence[Completion], mask: torch.Tensor) -> torch.Tensor:
        """Tokens that carry the stage-2 loss: all of them (the plan's text is one answer)."""
        return mask.clone()

    def train(self, mode: bool = True) -> "VLMPolicy":
        self.vlm.model.train(mode)
        return self

    def eval(self) -> "VLMPolicy":
        return self.train(False)

    def planner(self, greedy: bool = True, horizon: Optional[int] = None) -> "VLMPolicyPlanner":
        """A plan-act planner. ``horizon``: must be the policy's own (its prompt asks for that
        many steps); another value was ignored without a word."""
        if horizon is not None and horizon != self.horizon:
            raise ValueError(f"horizon {horizon} differs from the policy's {self.horizon} (its prompt asks for {self.horizon} steps)")
        return VLMPolicyPlanner(self, greedy=greedy)


class VLMPolicyPlanner:
    """The policy as a plan-act planner (greedy for evaluation)."""

    def __init__(self, policy: VLMPolicy, greedy: bool = True) -> None:
        self.policy, self.greedy, self.horizon = policy, greedy, policy.horizon

    def reset(self, seed: Optional[int] = None) -> None:
        if seed is not None:
            torch.manual_seed(seed)

    def plan(self, obs: dict[str, Any], info: dict[str, Any], history: Sequence[Any] = ()) -> Plan:
        (c,) = self.policy.completions([{**obs, "history_actions": list(history)}], 1, greedy=self.greedy)
        return Plan(c.steps, text=c.text, error=getattr(c, "error", None))  # the parse error of a no-op plan

    def plan_batch(self, obs: Sequence[dict[str, Any]], infos: Sequence[dict[str, Any]],
                   histories: Sequence[Sequence[Any]]) -> list[Plan]:
        """Greedy plans for several episodes from one batched ``generate`` call
        (:meth:`VLMPolicy.greedy_batch`; the lockstep loop, :func:`agents.plan_act.run_episodes`)."""
        if not self.greedy:  # a sampled plan depends on its own episode's seed (reset)
            raise ValueError("VLMPolicyPlanner.plan_batch decodes greedily; a sampling planner plans one episode at a time")
        comps = self.policy.greedy_batch([{**o, "history_actions": list(h)} for o, h in zip(obs, histories)])
        return [Plan(c.steps, text=c.text, error=getattr(c, "error", None)) for c in comps]
