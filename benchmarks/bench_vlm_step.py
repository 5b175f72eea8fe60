"""One GRPO iteration of ``train_small.py --policy vlm`` at the size of Qwen2.5-VL-3B: time per
phase and peak GPU memory.

    python benchmarks/bench_vlm_step.py --size 3b --device cuda   # the README's 3B recipe (needs a GPU)
    python benchmarks/bench_vlm_step.py --size tiny               # the same code on CPU in seconds

No model hub is needed: the checkpoint is a *randomly initialised* Qwen2.5-VL of the published
3B dimensions (:data:`agents.tiny_vlm.QWEN25VL_3B`: 3.75 B parameters, 151,936-row embedding,
real image-processor limits) with the offline tokenizer of :mod:`agents.tiny_vlm`, saved and
loaded back through ``from_pretrained`` like a real one. So parameters, memory and the cost
of every token are the real model's; what differs is the answers: random weights never emit
the end token, so **every completion runs to ``--max-new-tokens``** and the sampling time is
an upper bound of a trained model's (the offline tokenizer also splits the prompt into
somewhat more tokens than Qwen's).

The iteration is train_small's, on ``--states`` Login screens: sample ``--group-size``
plans per screen (``VLMPolicy.sample``: ``generate`` and the no-grad re-scoring of the old
log-probs), then ``grpo_update`` with train_small's GRPO settings (epochs, clipping,
``--groups-per-minibatch``) and its Adam optimiser, rewards drawn at random (their values do
not change the cost).
"""

from __future__ import annotations

import inspect
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional

import tyro

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if str(ROOT / "benchmarks") not in sys.path:  # tests load this file by its path
    sys.path.append(str(ROOT / "benchmarks"))
from _args import at_least  # noqa: E402  (benchmarks/, the script's folder)
from agents.usage import UsageParser  # noqa: E402


@dataclass
class Args:
    """Time one GRPO iteration of the VLM recipe on a random model of a real model's shape."""

    size: Literal["3b", "tiny"] = "3b"
    """3b: Qwen2.5-VL-3B's dimensions; tiny: agents.tiny_vlm's defaults (a CPU check of this script)"""
    device: str = "auto"
    """cpu, cuda or auto"""
    states: int = 8
    """screens per iteration (the recipe's --states-per-iter)"""
    group_size: int = 8
    """plans sampled per screen (G)"""
    horizon: int = 5
    """planned steps per plan (T)"""
    max_new_tokens: int = 192
    """tokens per sampled plan (every one is generated: random weights)"""
    lora_rank: int = 16
    """LoRA rank on the attention projections (0: every weight trained)"""
    gradient_checkpointing: bool = True
    """trade compute for activation memory"""
    groups_per_minibatch: int = 2
    """groups per gradient step"""
    iterations: int = 2
    """iterations timed (the first also warms up CUDA kernels; each is reported)"""
    checkpoint: Optional[str] = None
    """a folder for the random checkpoint: reused when it holds one of --size (its config.json), else
    built there at --size and kept for the next run (default: built in a temporary folder, removed after)"""
    json_out: Optional[str] = None
    """also write the figures to this JSON file"""


def _saved_hidden_size(path: Path) -> Optional[int]:
    """The text model's width in ``path/config.json`` (None: none readable)."""
    try:
        config: Any = json.loads((path / "config.json").read_text())
        width = config.get("text_config", {}).get("hidden_size", config.get("hidden_size"))
    except (OSError, ValueError, AttributeError):
        return None
    return width if isinstance(width, int) else None


def check_args(args: Args) -> str:
    """Every bad flag is a usage error before a model is built or loaded; the device to use."""
    import torch

    from agents.tiny_vlm import QWEN25VL_3B, build_tiny_qwen25vl
    from guigym.viz import folder_problem, writable_problem

    p = UsageParser(prog=Path(__file__).name, usage="%(prog)s [-h] [OPTIONS]")
    at_least(p, 1, states=args.states, group_size=args.group_size, horizon=args.horizon, max_new_tokens=args.max_new_tokens,
             groups_per_minibatch=args.groups_per_minibatch, iterations=args.iterations)
    at_least(p, 0, lora_rank=args.lora_rank)
    device = ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    try:
        kind = torch.device(device)
    except (RuntimeError, ValueError) as e:
        p.error(f"--device {args.device}: not a torch device ({' '.join(str(e).split())}); use cpu, cuda or auto")
    if kind.type not in ("cpu", "cuda"):
        p.error(f"--device {args.device}: use cpu, cuda (cuda:N) or auto")
    if kind.type == "cuda" and not torch.cuda.is_available():
        p.error(f"--device {args.device}: torch sees no CUDA GPU here")
    if kind.type == "cuda" and kind.index is not None and kind.index >= torch.cuda.device_count():
        p.error(f"--device {args.device}: torch sees {torch.cuda.device_count()} CUDA GPU(s)")
    if args.size == "3b" and kind.type != "cuda":
        p.error(f"--size 3b needs a GPU (--device cuda), got --device {args.device}: 3.75 B parameters; use --size tiny on a CPU")
    if args.checkpoint is not None:
        path = Path(args.checkpoint)
        if (problem := folder_problem(path)) is not None:
            p.error(f"--checkpoint {args.checkpoint}: {problem}")
        width = _saved_hidden_size(path)
        want = QWEN25VL_3B["hidden_size"] if args.size == "3b" else inspect.signature(build_tiny_qwen25vl).parameters["hidden_size"].default
        if width is not None and width != want:
            p.error(f"--checkpoint {args.checkpoint}: holds a model of text width {width}, not --size {args.size}'s {want}")
    if args.json_out is not None:
        out = Path(args.json_out)
        if (problem := "is a folder" if out.is_dir() else writable_problem(out)) is not None:
            p.error(f"--json-out {args.json_out}: {problem}")
    return device


def main(args: Args) -> dict:
    import gymnasium as gym
    import numpy as np
    import torch

    import guigym  # noqa: F401  (registers the ids)
    import train_small
    from agents.grpo import group_advantages, grpo_update
    from agents.tiny_vlm import QWEN25VL_3B, build_tiny_qwen25vl
    from agents.vlm_policy import VLMPolicy

    device = check_args(args)
    cuda = device.startswith("cuda")
    out: dict = {"size": args.size, "device": torch.cuda.get_device_name() if cuda else "cpu", "args": vars(args).copy()}

    def peak_gib() -> Optional[float]:  # CUDA's allocator peak (None on a CPU)
        return round(torch.cuda.max_memory_allocated() / 2**30, 2) if cuda else None

    tmp = tempfile.TemporaryDirectory() if args.checkpoint is None else None
    path = Path(args.checkpoint) if args.checkpoint else Path(tmp.name) / f"random-qwen25vl-{args.size}"  # type: ignore[union-attr]
    t = time.perf_counter()
    if not (path / "config.json").exists():
        dims = QWEN25VL_3B if args.size == "3b" else {}
        build_tiny_qwen25vl(path, **dims, device=device, dtype=torch.bfloat16 if cuda else None)
        if cuda:
            torch.cuda.empty_cache()
        out["build_s"] = round(time.perf_counter() - t, 1)
        print(f"built a random {args.size} Qwen2.5-VL at {path} in {out['build_s']} s", flush=True)

    t = time.perf_counter()
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    policy = VLMPolicy.from_pretrained(path, horizon=args.horizon, fmt=train_small.VLM_FORMAT, device=device,
                                       lora_rank=args.lora_rank, gradient_checkpointing=args.gradient_checkpointing,
                                       max_new_tokens=args.max_new_tokens)
    params = sum(p.numel() for p in policy.vlm.model.parameters())
    trainable = [p for p in policy.parameters() if p.requires_grad]
    out.update(load_s=round(time.perf_counter() - t, 1), params=params, trainable=sum(p.numel() for p in trainable),
               weights_gib=peak_gib())
    print(f"loaded in {out['load_s']} s: {params / 1e9:.2f} B parameters, {out['trainable'] / 1e6:.1f} M trained, "
          f"{out['weights_gib']} GiB allocated", flush=True)

    a = train_small.Args(policy="vlm", group_size=args.group_size, horizon=args.horizon, states_per_iter=args.states,
                         groups_per_minibatch=args.groups_per_minibatch)
    optimizer = torch.optim.Adam(trainable, lr=a.lr)  # train_small's optimiser
    env = gym.make("GuiGym-Login-v0")
    obs = [{**env.reset(seed=s)[0], "history_actions": []} for s in range(args.states)]
    env.close()
    gen = torch.Generator().manual_seed(0)
    rng = np.random.default_rng(0)
    out["iterations"] = []
    for it in range(args.iterations):
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        t0 = time.perf_counter()
        policy.eval()
        comps, (old_logp, mask) = policy.sample(obs, args.group_size, generator=gen)
        if cuda:
            torch.cuda.synchronize()
        t1 = time.perf_counter()
        sample_peak = peak_gib()
        rewards = torch.as_tensor(rng.random(len(comps)), dtype=torch.float32).view(args.states, args.group_size)
        adv = group_advantages(rewards, scale=a.scale_rewards).view(-1)
        policy.train()
        st = grpo_update(policy, optimizer, obs, comps, old_logp, mask, adv, config=a.grpo, generator=gen)
        if cuda:
            torch.cuda.synchronize()
        t2 = time.perf_counter()
        row = {"iteration": it + 1, "sample_s": round(t1 - t0, 2), "update_s": round(t2 - t1, 2), "total_s": round(t2 - t0, 2),
               "tokens": int(mask.sum()), "completions": len(comps), "sample_peak_gib": sample_peak,
               "peak_gib": peak_gib(), "loss": round(float(st.loss), 4)}
        out["iterations"].append(row)
        print(json.dumps(row), flush=True)
    if cuda:
        out["reserved_gib"] = round(torch.cuda.max_memory_reserved() / 2**30, 2)
    print(json.dumps({k: v for k, v in out.items() if k != "iterations"}), flush=True)
    if args.json_out:
        Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)  # checked up front: it can be made
        Path(args.json_out).write_text(json.dumps(out, indent=2) + "\n")
    if tmp is not None:
        tmp.cleanup()
    return out


if __name__ == "__main__":
    main(tyro.cli(Args))
