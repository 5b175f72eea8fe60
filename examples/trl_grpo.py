"""TraceR1 stage 1 offline with TRL's ``GRPOTrainer`` on a dataset from ``guigym export``.

Each row of ``steps.jsonl`` is a state: its screenshot, the task, and the dense reference
from that state; its prompt lists the actions taken before it, as the VLM planner's does.
The policy (a local Qwen2.5-VL checkpoint) plans the next ``horizon``
actions; :class:`guigym.rewards.trl.TrajectoryReward` scores the plan against the
reference (rescaled to the model's image size) and :class:`~guigym.rewards.trl.FormatReward`
checks the ``<answer>…</answer>`` form (a ``<think>`` block before it optional, as the prompt
says and as ``train_small.py`` scores it). The same rewards serve any
trainer that takes TRL-style reward functions. At the end the trained model and its processor
are saved in ``--out`` (a checkpoint folder like ``--model``'s, loadable with
:func:`agents.vlm.load_vlm`; TRL saves no intermediate checkpoints).

    guigym export --env GuiGym-Login-v0 --episodes 100 --out data/login
    python -m agents.tiny_vlm out/tiny-qwen25vl            # or a real Qwen2.5-VL checkpoint dir
    python examples/trl_grpo.py --data data/login --model out/tiny-qwen25vl --max-steps 2
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any
from dataclasses import dataclass, replace
from pathlib import Path

import tyro
from PIL import Image

from agents.grpo import GRPOConfig
from agents.vlm import holds_checkpoint, load_vlm, plan_messages
from guigym.action_text import FORMATS
from guigym.actions import Action, RefStep, rescale_box, rescale_refstep
from guigym.rewards.trl import FormatReward, TrajectoryReward
from guigym.viz import folder_problem


# agents.grpo.GRPOConfig is the one definition of GRPO's hyper-parameters; a VLM trained offline
# wants small groups, longer plans, a small learning rate and TRL's single pass per batch. TRL
# has no entropy bonus.
GRPO = GRPOConfig(group_size=4, horizon=8, lr=1e-5, epochs=1, ent_coef=0.0)


@dataclass
class Args:
    data: str
    """folder written by ``guigym export`` (reads ``steps.jsonl`` and ``screenshots/``)"""
    model: str
    """local checkpoint folder (Qwen2.5-VL or any image-text-to-text model)"""
    out: str = "runs/trl_grpo"
    """output folder: the trained model and its processor (a checkpoint folder like --model's) and TRL's files"""
    max_steps: int = 2
    """optimizer steps"""
    max_rows: int = 64
    """dataset rows (states) to use"""
    num_generations: int = GRPO.group_size
    """G: completions per prompt (the GRPO group)"""
    horizon: int = GRPO.horizon
    """T: planned steps scored by the trajectory reward"""
    gamma: float = GRPO.gamma
    """discount of the trajectory reward"""
    lambda_rep: float = GRPO.lambda_rep
    """weight of the repetition penalty"""
    fmt: str = "json"
    """answer format: json | function | mobile_use"""
    max_completion_length: int = 128
    """tokens per completion"""
    learning_rate: float = GRPO.lr
    seed: int = 0

    @property
    def grpo(self) -> GRPOConfig:
        """The GRPO hyper-parameters of these flags (TRL's names mapped onto ours)."""
        return replace(GRPO, group_size=self.num_generations, horizon=self.horizon, gamma=self.gamma,
                       lambda_rep=self.lambda_rep, lr=self.learning_rate)


def arg_problems(args: Args) -> list[str]:
    """What is wrong with ``args``, one line each: checked before the model loads (a missing
    ``steps.jsonl`` or a bad ``--fmt`` used to fail after it, ``--model`` that is not a folder
    went to the Hugging Face hub, ``--max-steps 0`` still trained, ``--max-rows 0`` used a row)."""
    problems: list[str] = []
    if not (Path(args.data) / "steps.jsonl").is_file():
        problems.append(f"--data {args.data}: no steps.jsonl there (write one with `guigym export --out {args.data}`)")
    if not Path(args.model).is_dir():
        problems.append(f"--model {args.model}: not a folder (a local checkpoint folder, e.g. from `python -m agents.tiny_vlm`)")
    elif not holds_checkpoint(args.model):
        problems.append(f"--model {args.model}: not a Hugging Face checkpoint (no config.json in that folder; "
                        "pass the folder of a downloaded checkpoint or one from `python -m agents.tiny_vlm`)")
    if problem := folder_problem(args.out):
        problems.append(f"--out {args.out}: {problem}")
    if args.fmt not in FORMATS:
        problems.append(f"--fmt {args.fmt}: must be one of {', '.join(FORMATS)}")
    if args.num_generations < 2:
        problems.append(f"--num-generations must be >= 2 (GRPO scores each completion against its group), got {args.num_generations}")
    for name in ("max_steps", "max_rows", "horizon", "max_completion_length"):
        if getattr(args, name) < 1:
            problems.append(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if not args.learning_rate > 0:
        problems.append(f"--learning-rate must be > 0, got {args.learning_rate}")
    elif not math.isfinite(args.learning_rate):  # inf: an optimizer step makes the weights inf/NaN
        problems.append(f"--learning-rate must be finite, got {args.learning_rate}")
    if not 0 <= args.seed < 2**32:  # numpy's seed range: TRL's set_seed raised after the model loaded
        problems.append(f"--seed must be in [0, 2**32), got {args.seed}")
    if not 0 < args.gamma <= 1:
        problems.append(f"--gamma must be in (0, 1], got {args.gamma}")
    if not (args.lambda_rep >= 0 and math.isfinite(args.lambda_rep)):
        problems.append(f"--lambda-rep must be >= 0, got {args.lambda_rep}")
    return problems


def build_dataset(args: Args, model_size_of):
    """Rows ``{"prompt": chat messages, "image": PIL image at the model's size, "reference":
    JSON, "elements": JSON}``, the reference's and the elements' boxes rescaled to the model's
    image pixels (``elements``, the state's visible widgets, when the export has them).

    The prompt lists the actions taken before the row's state (the first step of the reference
    of each earlier step of its episode), as the VLM planner and ``train_small.py`` show the
    executed actions: a prompt that said "none" at every state trained the model on prompts it
    never sees when it acts."""
    from datasets import Dataset

    root = Path(args.data)
    steps: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    taken: dict[tuple[str, int], Action] = {}  # (episode id, step) -> the action taken from that state
    with open(root / "steps.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            refs = json.loads(r["reference"])
            if refs:  # every exported row has one: the action the export took from that state
                taken[(r["episode_id"], r["step"])] = RefStep.from_dict(refs[0]).action
            if len(steps) < args.max_rows:
                steps.append((r, refs))
    rows = []
    for r, refs in steps:
        eid, t = r["episode_id"], r["step"]
        missing = [k for k in range(t) if (eid, k) not in taken]
        if missing:  # a prompt with a gap in its history would not be the one the planner sees
            raise SystemExit(f"{root / 'steps.jsonl'}: episode {eid} has no row for step {missing[0]}, "
                             f"whose action step {t}'s prompt lists; use the steps.jsonl `guigym export` wrote")
        screen = (r["width"], r["height"])
        size = model_size_of(screen)
        ref = [rescale_refstep(RefStep.from_dict(d), screen, size).to_dict() for d in refs]
        history = [taken[(eid, k)] for k in range(t)]  # screen pixels: plan_messages rescales them
        row = {
            "prompt": plan_messages(r["goal"], history, args.horizon, args.fmt, size, screen),
            "image": Image.open(root / r["image"]).convert("RGB").resize(size, Image.Resampling.BICUBIC),
            "reference": json.dumps(ref),
        }
        if r.get("elements") is not None:  # exports since the column was added: TrajectoryReward judges elements exactly
            row["elements"] = json.dumps([{**e, "box": list(rescale_box(e["box"], screen, size))} for e in json.loads(r["elements"])],
                                         ensure_ascii=False)
        rows.append(row)
    if not rows:
        raise SystemExit(f"no rows in {root / 'steps.jsonl'}; run `guigym export` first")
    return Dataset.from_list(rows)


def reward_funcs(args: Args) -> list[Any]:
    """The TRL reward functions: TraceR1's trajectory reward and the format reward, which
    takes an answer without a ``<think>`` block as well formed, as the prompt allows (and as
    ``train_small.py`` scores it)."""
    return [
        TrajectoryReward(**args.grpo.trajectory_reward_kwargs(), fmt=args.fmt),
        FormatReward(fmt=args.fmt, require_think=False, plan=True),
    ]


def main(args: Args) -> dict:
    problems = arg_problems(args)
    if problems:
        raise ValueError("; ".join(problems))
    import trl

    vlm = load_vlm(args.model)  # the same loader as the VLM planner (handles missing torchvision)
    dataset = build_dataset(args, vlm.model_size)
    grpo = args.grpo
    rewards = reward_funcs(args)
    config = trl.GRPOConfig(
        output_dir=args.out, max_steps=args.max_steps, per_device_train_batch_size=grpo.group_size,
        num_generations=grpo.group_size, max_completion_length=args.max_completion_length,
        learning_rate=grpo.lr, num_iterations=grpo.epochs, epsilon=grpo.clip_eps, beta=grpo.beta,
        max_grad_norm=grpo.max_grad_norm, scale_rewards="group" if grpo.scale_rewards else "none",
        logging_steps=1, report_to="none", save_strategy="no",
        seed=args.seed, use_cpu=not vlm.device.type == "cuda", bf16=vlm.device.type == "cuda",
    )
    # TRL's RewardFunc returns list[float | None], and list is invariant: our list[float] rewards are valid ones
    trainer = trl.GRPOTrainer(model=vlm.model.train(), reward_funcs=rewards, args=config, train_dataset=dataset,
                          processing_class=vlm.processor)
    result = trainer.train()
    # save_strategy="no" keeps TRL from writing a checkpoint per step: the one model worth keeping is
    # saved here (Trainer.save_model writes the processing_class's files with the weights)
    trainer.save_model(args.out)
    print(f"trained {result.global_step} steps; last log: {trainer.state.log_history[-1]}; model saved in {args.out}")
    return {"global_step": result.global_step, "log_history": trainer.state.log_history, "out": args.out}


def cli(argv: list[str] | None = None) -> dict:
    """The script: tyro's flags; a bad value is a usage error (exit 2), not a traceback."""
    args = tyro.cli(Args, args=argv)
    problems = arg_problems(args)
    if problems:
        print(f"usage: {Path(__file__).name} [-h] [OPTIONS]\n{Path(__file__).name}: error: " + "; ".join(problems),
              file=sys.stderr)
        raise SystemExit(2)
    return main(args)


if __name__ == "__main__":
    cli()
