"""TraceR1 stage 1 offline with TRL's ``GRPOTrainer`` on a dataset from ``guigym export``.

Each row of ``steps.jsonl`` is a state: its screenshot, the task, and the dense reference
from that state. The policy (a local Qwen2.5-VL checkpoint) plans the next ``horizon``
actions; :class:`guigym.rewards.trl.TrajectoryReward` scores the plan against the
reference (rescaled to the model's image size) and :class:`~guigym.rewards.trl.FormatReward`
checks the ``<think>…</think><answer>…</answer>`` form. The same rewards serve any
trainer that takes TRL-style reward functions.

    guigym export --env GuiGym-Login-v0 --episodes 100 --out data/login
    python -m agents.tiny_vlm out/tiny-qwen25vl            # or a real Qwen2.5-VL checkpoint dir
    python examples/trl_grpo.py --data data/login --model out/tiny-qwen25vl --max-steps 2
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import tyro
from PIL import Image

from agents.vlm import load_vlm, plan_messages
from guigym.actions import RefStep, rescale_refstep
from guigym.rewards.trl import FormatReward, TrajectoryReward


@dataclass
class Args:
    data: str
    """folder written by ``guigym export`` (reads ``steps.jsonl`` and ``screenshots/``)"""
    model: str
    """local checkpoint folder (Qwen2.5-VL or any image-text-to-text model)"""
    out: str = "runs/trl_grpo"
    """TRL output folder"""
    max_steps: int = 2
    """optimizer steps"""
    max_rows: int = 64
    """dataset rows (states) to use"""
    num_generations: int = 4
    """G: completions per prompt (the GRPO group)"""
    horizon: int = 8
    """T: planned steps scored by the trajectory reward"""
    gamma: float = 0.9
    """discount of the trajectory reward"""
    lambda_rep: float = 1.0
    """weight of the repetition penalty"""
    fmt: str = "json"
    """answer format: json | function | mobile_use"""
    max_completion_length: int = 128
    """tokens per completion"""
    learning_rate: float = 1e-5
    seed: int = 0


def build_dataset(args: Args, model_size_of):
    """Rows ``{"prompt": chat messages, "image": PIL image at the model's size, "reference":
    JSON}``, the reference rescaled to the model's image pixels."""
    from datasets import Dataset

    root = Path(args.data)
    rows = []
    with open(root / "steps.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            screen = (r["width"], r["height"])
            size = model_size_of(screen)
            ref = [rescale_refstep(RefStep.from_dict(d), screen, size).to_dict() for d in json.loads(r["reference"])]
            rows.append({
                "prompt": plan_messages(r["goal"], [], args.horizon, args.fmt, size, size),
                "image": Image.open(root / r["image"]).convert("RGB").resize(size, Image.BICUBIC),
                "reference": json.dumps(ref),
            })
            if len(rows) >= args.max_rows:
                break
    if not rows:
        raise SystemExit(f"no rows in {root / 'steps.jsonl'}; run `guigym export` first")
    return Dataset.from_list(rows)


def main(args: Args) -> dict:
    from trl import GRPOConfig, GRPOTrainer

    vlm = load_vlm(args.model)  # the same loader as the VLM planner (handles missing torchvision)
    dataset = build_dataset(args, vlm.model_size)
    rewards = [
        TrajectoryReward(gamma=args.gamma, lambda_rep=args.lambda_rep, horizon=args.horizon, fmt=args.fmt),
        FormatReward(fmt=args.fmt, plan=True),
    ]
    config = GRPOConfig(
        output_dir=args.out, max_steps=args.max_steps, per_device_train_batch_size=args.num_generations,
        num_generations=args.num_generations, max_completion_length=args.max_completion_length,
        learning_rate=args.learning_rate, logging_steps=1, report_to="none", save_strategy="no",
        seed=args.seed, use_cpu=not vlm.device.type == "cuda", bf16=vlm.device.type == "cuda",
    )
    trainer = GRPOTrainer(model=vlm.model.train(), reward_funcs=rewards, args=config, train_dataset=dataset,
                          processing_class=vlm.processor)
    result = trainer.train()
    print(f"trained {result.global_step} steps; last log: {trainer.state.log_history[-1]}")
    return {"global_step": result.global_step, "log_history": trainer.state.log_history}


if __name__ == "__main__":
    main(tyro.cli(Args))
