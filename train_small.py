"""Train a GUI planner with GRPO, TraceR1-style, on a CPU in minutes.

    python train_small.py                                   # GuiGym-Login-v0, easy, stage 1 then 2
    python train_small.py --level medium
    python train_small.py --env-id GuiGym-Launcher-v0 --stage 1
    python train_small.py --help

One readable file in the CleanRL spirit. The pieces come from the library: the plan-act
loop and the random planner (``agents.plan_act``, ``agents.planners``), the rewards
(``guigym.rewards``: ``trajectory_reward`` for stage 1, ``grounded_rewards`` for stage 2),
GRPO (``agents.grpo``) and the tiny policy (``agents.tiny_policy``).

Each iteration:

1. **Roll out** the current policy with the plan-act loop (plan ``T`` steps, execute the
   first, re-plan) for a few episodes. At every visited state the rollout planner samples a
   **group** of ``G`` plans (one batched forward pass), the loop executes the first step of
   the first plan, and a wrapper saves the state (``env.unwrapped.get_state()``), what the
   policy saw and the dense reference from there (``info["reference"]``).
2. **Score** the groups of (distinct) visited states — stage 1:
   ``trajectory_reward(plan, reference, γ, λ_align, λ_rep, T)`` against the dense reference
   from that state; stage 2: ``grounded_reward`` of the plan's first step, executed on the
   env from the saved state (through an executor when the step is ungrounded).
3. **GRPO**: group-relative advantages, clipped importance ratio, optional k3 KL to a frozen
   reference policy (the initial policy; at the switch to stage 2, the stage-1 policy).
   ``--advantage trajectory`` (default, TraceR1 as written) gives every token of a plan the
   one group-relative trajectory reward (centred on the group's mean; ``--scale-rewards``
   also divides by the group's std, as GRPO as written does); ``--advantage step`` (a
   departure: DeepSeekMath's process-supervised GRPO) splits the stage-1 reward into its
   per-step terms ``γ^(t-1)(λ_align·sim_t − λ_rep·rep_t)`` and gives each planned step the
   group-normalised sum from that step on.

Determinism: the same seed on the same machine gives the same ``curves.csv`` (one torch
thread, deterministic algorithms, every random draw from seeded generators; wall times go
to ``timing.csv``). Across machines the float results of CPU kernels may differ in the last
bits (different SIMD paths), which can change a sampled action and so the run.

Evaluation: success rate of the greedy plan-act loop on held-out seeds (10 000+, never seen in
training; training uses seeds below 10 000, the curves use 20 000+), beside the random
planner. Outputs in ``runs/<run_name>/``: ``args.json``, ``curves.csv``, ``timing.csv``,
``curves.png``, ``policy.pt``, ``eval.json`` (written last: a finished run). Ctrl-C stops training
after the iteration in progress and saves ``policy.pt``, ``interrupted.json`` and ``checkpoint.pt``, with
no held-out evaluation (a second Ctrl-C aborts at once); the same command with ``--resume --run-name
NAME`` goes on from the checkpoint.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import dataclasses
import functools
import json
import math
import os
import random
import shutil
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, TypedDict

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import tyro  # noqa: E402
from tqdm import tqdm  # noqa: E402

import guigym  # noqa: E402,F401  (registers the envs)
from agents.env_pool import EnvPool, ProcessEnvPool, RayEnvPool  # noqa: E402
from agents.executors import ElementExecutor  # noqa: E402
from agents.grpo import GRPOConfig, group_advantages, grpo_update, step_advantages  # noqa: E402
from agents.json_out import to_json  # noqa: E402
from agents.plan_act import (  # noqa: E402
    NOOP, ElementsView, EpisodeRecord, Plan, PlanActAgent, failure_counts, run_episode, run_episodes, summarize,
)
from agents.planners import RandomPlanner  # noqa: E402
from agents.tiny_policy import TinyConfig, TinyPlanner, TinyPolicy  # noqa: E402
from agents.usage import UsageError  # noqa: E402
from agents.vlm import holds_checkpoint  # noqa: E402  (torch and transformers load only with --policy vlm)
from guigym.actions import ACTION_CLASSES, Action, PlanStep  # noqa: E402
from guigym.env import gui_env
from guigym.registration import id_level_problem  # noqa: E402
from guigym.rewards import (  # noqa: E402
    action_similarity,
    action_type_reward,
    argument_reward,
    format_reward,
    grounded_rewards,
    iou_argument_reward,
    repetition,
    same_target,
    step_target,
    trajectory_reward_range,
    trajectory_step_rewards,
)
from guigym.variation import resolve as resolve_variation  # noqa: E402
from guigym.viz import folder_problem  # noqa: E402

TRAIN_SEEDS = 10_000  # training episodes use seeds in [0, TRAIN_SEEDS)
VAL_SEED = 20_000  # validation episodes (the curves, --checkpoint best-val) use seeds VAL_SEED, VAL_SEED + 1, ...
VLM_FORMAT = "json"  # the answer format --policy vlm is prompted for (UI-R1's), which R_format checks
# GRPO's hyper-parameters are defined once, in agents.grpo.GRPOConfig; Args repeats them only
# as flags (names and defaults from there, help text here) so that the CLI stays flat.
_GRPO = GRPOConfig()


@dataclass
class Args:
    """GRPO (TraceR1 stage 1 / stage 2) for a tiny screenshot-reading planner."""

    # --- environment
    env_id: str = "GuiGym-Login-v0"
    """a registered guigym id (``guigym.registration.env_ids()``); always the mock backend"""
    level: str = "easy"
    """task level: easy, medium or hard"""
    variation: Optional[str] = None
    """a ``guigym.variation`` preset for every env of the run (training, validation, held-out
    evaluation), e.g. ``all``; None: the family's own instances"""
    split: Literal["train", "test"] = "train"
    """the variation split the run's envs draw from (with ``--variation``)"""
    strict: bool = False
    """Login, Settings and Launcher: success compares the whole state, a stray change must be
    undone (``gym.make(..., strict=True)``; every other family is always strict)"""
    # --- run
    seed: int = 1
    """seeds torch, numpy, python and the training episodes"""
    run_name: Annotated[Optional[str],
                        tyro.conf.arg(help_behavior_hint="(default: <env>__<level>__s<stage>__T<horizon>__<seed>__<time>)")] = None
    """output folder name under ``out_dir``"""
    out_dir: str = "runs"
    """where runs are written"""
    threads: int = 1
    """torch CPU threads (1 is fastest on a busy 2-core machine: no spin-waiting)"""
    rollout_workers: int = 0
    """0: training and evaluation episodes one after another in this process (the path behind
    the README's tables); N >= 1: the ``episodes_per_iter`` episodes run in lockstep, one batched
    policy call per step for all of them, their envs spread over N worker processes (or N Ray
    actors with ``--ray-address``), and validation and the held-out evaluation run
    ``eval_batch`` episodes at a time the same way; the curves and results are the same for
    every N >= 1 (not the same as for 0: one sampling call for all the states draws from the
    seeded generator in another order than state by state)"""
    eval_batch: int = 16
    """with ``--rollout-workers N``: episodes of validation and held-out evaluation run at once
    (the pool holds ``max(episodes_per_iter, eval_batch)`` envs)"""
    ray_address: Optional[str] = None
    """with ``--rollout-workers N``: run the rollout envs on N Ray actors of this cluster (at most
    ``max(episodes_per_iter, eval_batch)``, one env each; ``auto``: the cluster ``ray start`` made;
    ``local``: start one here); needs ``guigym[ray]``"""
    progress: bool = True
    """show a tqdm progress bar and what each phase does (``--no-progress``: only the result's
    one-line summary)"""
    save_model: bool = True
    """write ``policy.pt``"""
    # --- GRPO and the TraceR1 stages
    stage: Literal["1", "2", "both"] = "both"
    """1: trajectory reward; 2: grounded reward of the first step; both: stage 1 then stage 2"""
    stage1_frac: float = 0.6
    """with ``--stage both``: the fraction of iterations spent in stage 1"""
    iterations: int = 200
    """GRPO iterations (rollouts + one update each; 0: no training, only the held-out evaluation
    of the untrained policy)"""
    time_limit_min: float = 0.0
    """stop training after this many minutes of this process's wall time (a resumed run counts
    from its own start; 0: no limit; stage switch stays at ``stage1_frac`` of the iterations);
    the policy trained so far is evaluated"""
    episodes_per_iter: int = 4
    """plan-act episodes rolled out with the current (sampling) policy per iteration"""
    rollout_max_steps: int = 8
    """steps per training episode (a failing episode is cut here)"""
    states_per_iter: int = 24
    """at most this many visited states (groups) per update, drawn from the rollouts"""
    group_size: int = _GRPO.group_size
    """G: plans sampled per state"""
    horizon: int = _GRPO.horizon
    """T: planned steps per plan (only the first is executed)"""
    gamma: float = _GRPO.gamma
    """γ: discount of the trajectory reward over planned steps"""
    lambda_align: float = _GRPO.lambda_align
    """λ_align: weight of the action similarity"""
    lambda_rep: float = _GRPO.lambda_rep
    """λ_rep: weight of the repetition penalty (0 turns it off)"""
    similarity: Literal["abstract", "grounded"] = "abstract"
    """stage-1 ``sim``: abstract (TraceR1: right type on the right element, named by the step's
    instruction or hit by its point); grounded (a step without coordinates scores 0)"""
    typed_text: Literal["exact", "f1"] = "exact"
    """stage-1 ``sim`` of typed text: exact (1 only for the value the app accepts); f1 (token-F1
    partial credit)"""
    stage1_reward: Literal["trajectory", "uir1"] = "trajectory"
    """stage 1's reward: trajectory (TraceR1's ``trajectory_reward``); uir1 (UI-R1's rule-based
    action reward of the plan's first step, ``R_type + R_coord``, plus ``R_format`` for a text
    policy (``--policy vlm``; the tiny policy's structured output is always well formed, so
    there it would be a constant; the ``<think>`` block is optional, as the VLM prompt says,
    where UI-R1 requires it); a first step without its arguments (a click with no point) is no
    UI-R1 action and scores 0, as ``guigym.rewards.uir1_reward`` scores its text — UI-R1 proper
    is ``--stage1-reward uir1 --horizon 1 --stage 1``"""
    uir1_type_reward: bool = True
    """``--stage1-reward uir1``: include the action-type reward ``R_type`` (UI-R1's ablation
    finds it can hinder grounding)"""
    uir1_coord: Literal["inbox", "iou"] = "inbox"
    """``--stage1-reward uir1``: the click reward — inbox (UI-R1's ``R_C``: 1 if the click is in
    the target's box) or iou (``R_IoU``: IoU of the 40-px click cell with the target's box)"""
    rollout_actor: Literal["policy", "reference"] = "policy"
    """whose action the training rollouts execute: policy (online RL: the first step of the
    first sampled plan); reference (the dense reference's next action: states along the expert
    trajectory, like UI-R1's offline training data; the groups are still sampled from the
    policy and scored the same way)"""
    lr: float = _GRPO.lr
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over the iterations (CleanRL's default)"""
    epochs: int = _GRPO.epochs
    """passes over each batch of groups"""
    groups_per_minibatch: int = _GRPO.groups_per_minibatch
    """groups per gradient step"""
    clip_eps: float = _GRPO.clip_eps
    """ε of the clipped importance ratio"""
    beta: float = _GRPO.beta
    """β of the k3 KL to the frozen reference policy (0: no reference model)"""
    ent_coef: float = _GRPO.ent_coef
    """entropy bonus (per planned step): keeps sampling varied plans where the policy is confidently wrong
    (0.003 left whole groups identical on the rarer dark-theme screens: nothing to learn from)"""
    loss_norm_tokens: float = _GRPO.loss_norm_tokens
    """0: average the loss over each plan's own tokens (GRPO); > 0: divide each plan's token sum
    by this constant (Dr. GRPO) so that a token weighs the same whatever the horizon T"""
    max_grad_norm: float = _GRPO.max_grad_norm
    """gradient clipping"""
    advantage: Literal["trajectory", "step"] = "trajectory"
    """trajectory: one group-relative advantage per plan (TraceR1/GRPO); step (a departure):
    DeepSeekMath's process-supervised GRPO — the trajectory reward split into its per-step
    terms, normalised in the group, each step's tokens get the sum from that step on"""
    scale_rewards: bool = _GRPO.scale_rewards
    """also divide each group's centred rewards by their std (GRPO, TraceR1); off (a departure,
    Dr. GRPO): only centre them — the std turns the rare failure of a nearly solved group into a
    huge negative advantage, and runs collapsed after reaching 100 % validation success (the
    trajectory advantage; ``--advantage step`` normalises its step terms as DeepSeekMath does)"""
    dedupe_states: bool = True
    """sample distinct states (app state + recent history) for the groups. The key leaves out the
    scenario (the instruction): two episodes of one iteration whose app state and last 4 actions
    agree count as one state (about 1 % of the states on Login easy); kept so, since a key with the
    scenario would change every run the README quotes"""
    skip_flat_groups: bool = True
    """drop groups whose rewards are all equal (zero advantage, nothing to learn) before the update"""
    stage2_first_step_only: bool = True
    """stage 2: the loss covers only the tokens of the first (scored, executed) step"""
    stage2_reward: Literal["grounded", "trajectory"] = "grounded"
    """stage 2's reward: grounded (TraceR1: execute the first step, 1 if it produces the
    reference's event); trajectory (the ablation's control: stage 2's schedule and loss mask
    with the stage-1 reward, so a difference is the grounded reward's own)"""
    executor: Literal["element", "none"] = "element"
    """grounds ungrounded plan steps (a VLM's "Click the 'Sign in' button", the tiny policy's
    with ``--plan-steps ungrounded``) in rollouts, stage-2 rewards and evaluation"""
    plan_steps: Literal["grounded", "ungrounded"] = "grounded"
    """the tiny policy's clicks: grounded (a point: a cell of the click grid); ungrounded
    (TraceR1's stage-2 path: a label from the family's click vocabulary, "Click 'Sign in'",
    which the frozen executor grounds on the screen; the vocabulary is read from the references
    of ``label_vocab_seeds`` training seeds)"""
    label_vocab_seeds: int = 300
    """``--plan-steps ungrounded``: training seeds whose references give the click labels"""
    augment_invert: float = 0.0
    """training rollouts: probability of showing the tiny policy a colour-inverted screenshot
    (a light theme then looks like a dark one and back); evaluation never inverts. Off by
    default: in a first try it did not make learning more reliable"""
    # --- policy
    policy: Literal["tiny", "tiny-elements", "vlm"] = "tiny"
    """tiny: screenshot + instruction + history; tiny-elements: also the element list
    (privileged); vlm: a Hugging Face VLM (``--vlm-path``; see ``agents/``)"""
    vlm_path: Optional[str] = None
    """local checkpoint for ``--policy vlm``"""
    lora_rank: int = 0
    """``--policy vlm``: LoRA rank on the attention projections (0: train all weights)"""
    gradient_checkpointing: bool = False
    """``--policy vlm``: trade compute for activation memory"""
    max_new_tokens: int = 192
    """``--policy vlm``: tokens per sampled plan"""
    device: str = "auto"
    """``--policy vlm``: cpu, cuda or auto"""
    # --- baseline
    algo: Literal["grpo", "ppo"] = "grpo"
    """grpo: this file's GRPO; ppo: the stable-baselines3 PPO baseline on the SB3-wrapped env
    (``agents/sb3_baseline.py``), success vs env steps"""
    ppo_steps: int = 80_000
    """``--algo ppo``: total env steps (the measured setting, ``agents.sb3_baseline.PPO_SETTING``),
    rounded up to whole rollouts of 256"""
    # --- evaluation
    eval_episodes: int = 100
    """held-out episodes for the final evaluation (seeds ``eval_seed`` …)"""
    eval_seed: int = 10_000
    """first held-out seed"""
    val_episodes: int = 32
    """episodes of each evaluation during training (the curves; seeds from 20 000)"""
    val_every: int = 10
    """iterations between evaluations during training (0: none)"""
    eval_random: bool = True
    """also evaluate the random planner on the held-out seeds"""
    eval_max_steps: Annotated[Optional[int], tyro.conf.arg(help_behavior_hint="(default: the env's max_episode_steps)")] = None
    """step limit of the final evaluation's episodes"""
    val_max_steps: int = 15
    """step limit of the episodes of evaluations during training (keeps them cheap)"""
    checkpoint: Literal["best-val", "last"] = "best-val"
    """which policy is saved and evaluated on the held-out seeds: best-val (the one at the
    validation point with the highest validation success, the latest on ties: model selection
    on the validation seeds, disjoint from the training and held-out seeds); last (the policy
    after the last iteration). With no validation (``--val-every 0``) best-val is the last
    policy: ``eval.json``'s ``selected_val_success`` is then null"""
    save_every: int = 0
    """write ``checkpoint.pt`` into the run folder every N iterations (0: only on Ctrl-C): the
    trainable weights, the optimizer, every random state and the curves so far, so that
    ``--resume`` goes on as if never stopped (a finished run removes it)"""
    resume: bool = False
    """continue the run ``--out-dir/--run-name`` from its ``checkpoint.pt`` (written on Ctrl-C or
    by ``--save-every``), with the flags it was started with (only ``--progress``,
    ``--save-every`` and ``--time-limit-min`` may differ; a run started without ``--run-name``
    resumes with the folder name it printed): its curves and results are those of the run never
    stopped"""

    @property
    def grpo(self) -> GRPOConfig:
        """The GRPO hyper-parameters of these flags."""
        return GRPOConfig.from_fields(self)


#: Lower bounds of the integer flags (a run with less would not run as asked; ``--iterations 0``
#: evaluates the untrained policy).
_AT_LEAST = {"iterations": 0, "episodes_per_iter": 1, "rollout_max_steps": 1, "states_per_iter": 1, "horizon": 1,
             "epochs": 1, "groups_per_minibatch": 1, "threads": 1, "rollout_workers": 0, "eval_batch": 1, "eval_episodes": 0,
             "val_episodes": 0, "val_every": 0, "val_max_steps": 1, "label_vocab_seeds": 1, "lora_rank": 0,
             "max_new_tokens": 1, "ppo_steps": 1, "eval_seed": 0, "seed": 0}
#: Closed ranges of the float flags.
_WITHIN = {"stage1_frac": (0.0, 1.0), "time_limit_min": (0.0, math.inf), "lambda_align": (0.0, math.inf),
           "lambda_rep": (0.0, math.inf), "beta": (0.0, math.inf), "ent_coef": (0.0, math.inf),
           "loss_norm_tokens": (0.0, math.inf), "augment_invert": (0.0, 1.0)}
#: Float flags that must also be finite (an infinite reward weight, KL or entropy coefficient, token
#: normaliser or learning rate turns the loss or the weights into inf/NaN, or the loss into 0; an
#: infinite --time-limit-min, --clip-eps or --max-grad-norm only means "no limit").
_FINITE = ("lambda_align", "lambda_rep", "beta", "ent_coef", "loss_norm_tokens", "lr")

#: Flags that only some settings read: (flag, whether ``args`` reads it, what it needs). A flag
#: given (not its default) where it is not read was dropped silently (``--split test`` without
#: ``--variation`` trained and evaluated on the family's own instances).
_NEEDS: tuple[tuple[str, Any, str], ...] = (
    ("split", lambda a: a.variation is not None, "--variation (it is the split of the varied envs)"),
    ("eval_batch", lambda a: a.rollout_workers >= 1, "--rollout-workers N (without, episodes run one at a time)"),
    *((name, lambda a: a.policy == "vlm", "--policy vlm")
      for name in ("vlm_path", "lora_rank", "gradient_checkpointing", "max_new_tokens", "device")),
    *((name, lambda a: a.policy != "vlm", "the tiny policy (--policy tiny or tiny-elements)")
      for name in ("plan_steps", "augment_invert")),
    *((name, lambda a: a.stage1_reward == "uir1", "--stage1-reward uir1") for name in ("uir1_type_reward", "uir1_coord")),
    ("stage1_frac", lambda a: a.stage == "both", "--stage both"),
    *((name, lambda a: a.stage != "1", "stage 2 (--stage 2 or both)") for name in ("stage2_reward", "stage2_first_step_only")),
    ("label_vocab_seeds", lambda a: a.plan_steps == "ungrounded" and a.policy != "vlm",
     "--plan-steps ungrounded (the tiny policy)"),
    ("advantage", lambda a: a.stage != "2", "stage 1 (--stage 1 or both; stage 2 scores one step)"),
    # stage 2 alone scores with the grounded reward: --stage 2 --stage1-reward uir1 trained as without it
    ("stage1_reward", lambda a: a.stage != "2" or a.stage2_reward == "trajectory",
     "a stage scored with it (--stage 1 or both, or --stage2-reward trajectory)"),
)


def arg_problems(args: Args) -> list[str]:
    """What is wrong with ``args``, one line each (checked before anything starts, so a typo
    costs a second, not a run that trains the wrong thing).

    >>> arg_problems(Args(group_size=1, level="extreme", lr=0))  # doctest: +NORMALIZE_WHITESPACE
    ["--level extreme: GuiGym-Login-v0's levels are easy, medium, hard",
     '--group-size must be >= 2 (GRPO scores each plan against the others of its group), got 1',
     '--lr must be > 0, got 0']
    """
    out: list[str] = []
    problem = id_level_problem(args.env_id, args.level)
    if problem:
        out.append(problem if problem.startswith("--") else f"--env-id: {problem}")
    if args.variation is not None:
        try:
            resolve_variation(args.variation, args.split)
        except ValueError as e:
            out.append(f"--variation {args.variation}: {e}")
    if args.group_size < 2:
        out.append(f"--group-size must be >= 2 (GRPO scores each plan against the others of its group), got {args.group_size}")
    for name, low in _AT_LEAST.items():
        if getattr(args, name) < low:
            out.append(f"--{name.replace('_', '-')} must be >= {low}, got {getattr(args, name)}")
    for name, (lo, hi) in _WITHIN.items():
        v = getattr(args, name)
        if not lo <= v <= hi:  # NaN fails too
            out.append(f"--{name.replace('_', '-')} must be in [{lo:g}, {hi:g}], got {v}")
    for name in ("lr", "clip_eps", "max_grad_norm"):
        if not getattr(args, name) > 0:
            out.append(f"--{name.replace('_', '-')} must be > 0, got {getattr(args, name)}")
    for name in _FINITE:
        if math.isinf(getattr(args, name)):
            out.append(f"--{name.replace('_', '-')} must be finite, got {getattr(args, name)}")
    if not 0 < args.gamma <= 1:
        out.append(f"--gamma must be in (0, 1], got {args.gamma}")
    if args.eval_max_steps is not None and args.eval_max_steps < 1:
        out.append(f"--eval-max-steps must be >= 1, got {args.eval_max_steps}")
    if args.seed >= 2**32:  # numpy's legacy seeding takes no more
        out.append(f"--seed must be < 2**32, got {args.seed}")
    # the held-out seeds must be disjoint from the training seeds [0, TRAIN_SEEDS) and from the
    # validation seeds that pick the checkpoint (else the "held-out" success is measured on seen tasks)
    # (--algo ppo has held-out seeds of its own and no validation: ppo_ignored() names --eval-seed)
    held_out = range(args.eval_seed, args.eval_seed + args.eval_episodes) if args.algo == "grpo" else range(0)
    val = range(VAL_SEED, VAL_SEED + (args.val_episodes if args.val_every else 0))
    if held_out and held_out.start < TRAIN_SEEDS:
        out.append(f"--eval-seed {args.eval_seed}: the held-out seeds must be >= {TRAIN_SEEDS} (training uses seeds "
                   f"0-{TRAIN_SEEDS - 1})")
    if held_out and val and held_out.start < val.stop and val.start < held_out.stop:
        out.append(f"--eval-seed {args.eval_seed} --eval-episodes {args.eval_episodes}: the held-out seeds "
                   f"{held_out.start}-{held_out.stop - 1} overlap the validation seeds {val.start}-{val.stop - 1}")
    if args.val_every and not args.val_episodes:
        out.append(f"--val-every {args.val_every} with --val-episodes 0: nothing to validate on (use --val-every 0)")
    if args.plan_steps == "ungrounded" and args.label_vocab_seeds > TRAIN_SEEDS:
        out.append(f"--label-vocab-seeds must be <= {TRAIN_SEEDS} (the training seeds), got {args.label_vocab_seeds}")
    if args.policy == "vlm" and not args.vlm_path:
        out.append("--policy vlm needs --vlm-path (a local checkpoint)")
    elif args.policy == "vlm" and args.vlm_path is not None and not Path(args.vlm_path).is_dir():  # (set: the branch above)
        out.append(f"--vlm-path {args.vlm_path}: no such directory (a local Hugging Face checkpoint)")
    elif args.policy == "vlm" and args.vlm_path is not None and not holds_checkpoint(args.vlm_path):  # what load_vlm loads
        out.append(f"--vlm-path {args.vlm_path}: no config.json there (nor a LoRA adapter's adapter_config.json), "
                   "so not a Hugging Face checkpoint folder")
    if args.policy == "vlm" and args.advantage == "step":
        out.append("--advantage step needs per-step token spans; the VLM policy has none (use --advantage trajectory)")
    if args.plan_steps == "ungrounded" and args.executor == "none":
        out.append("--plan-steps ungrounded needs an executor to ground its clicks (--executor element)")
    if args.ray_address and args.rollout_workers < 1:
        out.append("--ray-address needs --rollout-workers N (N >= 1 actors)")
    if args.save_every < 0:
        out.append(f"--save-every must be >= 0, got {args.save_every}")
    if args.resume:
        out += resume_problems(args)
    if args.run_name and (Path(args.run_name).is_absolute() or ".." in Path(args.run_name).parts):
        # Path(out_dir) / "/abs" is "/abs": the run went outside --out-dir, which was dropped silently
        out.append(f"--run-name {args.run_name}: a folder name under --out-dir, not a path out of it")
    problem = folder_problem(Path(args.out_dir) / (args.run_name or "_"))
    if problem:
        out.append(f"--out-dir {args.out_dir}" + (f" --run-name {args.run_name}" if args.run_name else "") + f": {problem}")
    if args.algo == "ppo":
        out += ppo_ignored(args)
    else:
        if args.ppo_steps != Args.ppo_steps:
            out.append(f"--ppo-steps {args.ppo_steps} needs --algo ppo (GRPO's length is --iterations)")
        out += unread_flags(args)
    return out


#: Flags a resumed run may change: they touch no result (a time limit counts per process). The run
#: folder's name and place are where the checkpoint is found, not a setting: a run started without
#: ``--run-name`` (the default name) was refused on resume, ``--run-name`` "not what it was started with".
RESUME_MAY_CHANGE = frozenset({"progress", "save_every", "time_limit_min", "resume", "run_name", "out_dir"})
CHECKPOINT = "checkpoint.pt"
CHECKPOINT_FORMAT = 1


def resume_problems(args: Args) -> list[str]:
    """Why ``--resume`` cannot go on (no run name, no checkpoint, other flags), one line each."""
    if args.algo != "grpo":
        return []  # ppo_ignored says it
    if not args.run_name:
        return ["--resume needs --run-name (the run folder under --out-dir to go on with)"]
    path = Path(args.out_dir) / args.run_name / CHECKPOINT
    if not path.is_file():
        return [f"--resume: no {path} (written on Ctrl-C or by --save-every N)"]
    try:
        saved = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as e:  # a truncated or foreign file: said, not a traceback
        return [f"--resume: {path} is not a readable checkpoint ({type(e).__name__}: {e})"]
    if not isinstance(saved, dict) or saved.get("format") != CHECKPOINT_FORMAT:
        return [f"--resume: {path} is not a checkpoint of this train_small.py (format {CHECKPOINT_FORMAT})"]
    ours = asdict(args)
    changed = sorted(k for k in ours.keys() | saved["args"].keys()
                     if k not in RESUME_MAY_CHANGE and ours.get(k, "?") != saved["args"].get(k, "?"))
    return [f"--resume: --{k.replace('_', '-')} is {ours.get(k)!r}, the run was started with {saved['args'].get(k)!r}"
            for k in changed]


def unread_flags(args: Args) -> list[str]:
    """The flags given (not at their defaults) that this setting does not read, one line each.

    >>> unread_flags(Args(split="test", lora_rank=8, stage="1", stage1_frac=0.5))  # doctest: +NORMALIZE_WHITESPACE
    ['--split test needs --variation (it is the split of the varied envs)',
     '--lora-rank 8 needs --policy vlm',
     '--stage1-frac 0.5 needs --stage both']
    """
    default = Args()
    out = []
    for name, reads, needs in _NEEDS:
        v = getattr(args, name)
        if v != getattr(default, name) and not reads(args):
            flag = name.replace("_", "-")
            out.append(f"--{'' if v else 'no-'}{flag} needs {needs}" if isinstance(v, bool) else f"--{flag} {v} needs {needs}")
    return out


#: The flags ``--algo ppo`` reads; the baseline's setting is fixed (``agents.sb3_baseline.PPO_SETTING``).
PPO_FLAGS = frozenset({"algo", "ppo_steps", "env_id", "level", "seed", "run_name", "out_dir", "threads", "progress",
                       "eval_episodes"})


def ppo_ignored(args: Args) -> list[str]:
    """The flags given with ``--algo ppo`` that it would ignore, one line each (they were
    dropped silently: ``--eval-seed 50000`` still evaluated on PPO's own held-out seeds).

    >>> ppo_ignored(Args(algo="ppo", eval_seed=50_000, lr=0.1, ppo_steps=500))  # doctest: +NORMALIZE_WHITESPACE
    ['--algo ppo ignores --lr (it trains the fixed setting of agents.sb3_baseline.PPO_SETTING)',
     '--algo ppo ignores --eval-seed: its held-out seeds are 100000 + 1000 * seed onwards (101000-101099 for --seed 1)']
    """
    default = Args(algo="ppo")
    out = []
    for f in fields(Args):
        if f.name in PPO_FLAGS or f.name == "eval_seed" or getattr(args, f.name) == getattr(default, f.name):
            continue
        out.append(f"--algo ppo ignores --{f.name.replace('_', '-')} (it trains the fixed setting of agents.sb3_baseline.PPO_SETTING)")
    if args.eval_seed != default.eval_seed:
        first = 100_000 + 1000 * args.seed
        out.append(f"--algo ppo ignores --eval-seed: its held-out seeds are 100000 + 1000 * seed onwards "
                   f"({first}-{first + args.eval_episodes - 1} for --seed {args.seed})")
    return out


# ------------------------------------------------------------------------ visited states


@dataclass
class Visited:
    """A state where the plan-act loop planned: what the policy saw, the env snapshot, the
    dense reference from there."""

    obs: Any
    state: Optional[dict]
    reference: list
    key: str = ""
    group: Any = None  # (completions, logp, mask): the G plans sampled here during the rollout
    elements: Optional[list] = None  # the visible widgets (id, box, label, role): what "same element" means here


class StateRecorder(gym.Wrapper):
    """Saves every decision point of an episode (after ``reset`` and after each step that
    did not end it): ``transform(obs, info, history)`` (what the policy sees), the env's
    ``get_state()`` (with ``save_state``) and ``info["reference"]``. ``history`` is the
    executed actions, as the plan-act loop hands them to a planner."""

    def __init__(self, env: gym.Env, transform: Any, save_state: bool = True) -> None:
        super().__init__(env)
        self.transform = transform
        self.save_state = save_state
        self.visited: list[Visited] = []
        self.history: list[Any] = []

    def reset(self, **kw: Any) -> Any:
        obs, info = self.env.reset(**kw)
        self.history = []
        self._record(obs, info)
        return obs, info

    def step(self, action: Any) -> Any:
        obs, r, term, trunc, info = self.env.step(action)
        if action is not None:
            self.history.append(action)
        if not (term or trunc):
            self._record(obs, info)
        return obs, r, term, trunc, info

    def _record(self, obs: Any, info: dict) -> None:
        state = gui_env(self.env, "save_state").get_state() if self.save_state else None
        self.visited.append(visit(self.transform, obs, info, self.history, state))


def visit(transform: Any, obs: Any, info: dict, history: Sequence[Any], state: Optional[dict]) -> Visited:
    """The :class:`Visited` record of a decision point (its ``group`` is attached when planned)."""
    key = json.dumps(state["state"], sort_keys=True, default=str) + repr(history[-4:]) if state else ""
    elements = [{k: e[k] for k in ("id", "box", "label", "role") if k in e} for e in info.get("elements") or ()]
    return Visited(transform(obs, info, list(history)), state, list(info.get("reference") or []), key, None, elements)


def make_rollout_pool(args: Args) -> EnvPool:
    """``max(episodes_per_iter, eval_batch)`` mock envs over ``rollout_workers`` processes, or
    Ray actors: rollouts use the first ``episodes_per_iter``, evaluations up to ``eval_batch``."""
    env_fn = functools.partial(gym.make, args.env_id, **env_kwargs(args))
    n = max(args.episodes_per_iter, args.eval_batch)
    if args.rollout_workers > n:  # not an error (it runs), but said: the extra workers would hold no env
        print(f"train_small.py: --rollout-workers {args.rollout_workers} starts {n}: the pool holds max(--episodes-per-iter, "
              f"--eval-batch) = {n} envs, one per worker at most (raise --episodes-per-iter to use more)", file=sys.stderr)
    if args.ray_address:
        try:
            return RayEnvPool(env_fn, n, actors=args.rollout_workers, address=args.ray_address)
        except ConnectionError as e:  # no cluster there (guigym.distributed says why and what to do): a usage error
            raise UsageError(f"train_small.py: --ray-address {args.ray_address}: {e}") from None
    return ProcessEnvPool(env_fn, n, workers=args.rollout_workers)


def env_kwargs(args: Args) -> dict[str, Any]:
    """``gym.make`` keywords of every env of the run (variation only when asked: the defaults'
    envs are exactly the plain id's)."""
    kw: dict[str, Any] = {"level": args.level, "backend": "mock"}
    if args.variation is not None:
        kw.update(variation=args.variation, split=args.split)
    if args.strict:
        kw["strict"] = True
    return kw


def make_env(args: Args, transform: Any, save_state: bool = True) -> StateRecorder:
    return StateRecorder(gym.make(args.env_id, **env_kwargs(args)), transform, save_state)


# ------------------------------------------------------------------------------- policy


def make_policy(args: Args) -> Any:
    """The policy to train. ``tiny``/``tiny-elements``: :class:`agents.tiny_policy.TinyPolicy`.
    ``vlm``: :class:`agents.vlm_policy.VLMPolicy`, which implements
    :class:`agents.grpo.Policy` (``sample``/``logprobs`` of completions through transformers,
    ``parameters``) plus ``planner(greedy, horizon)`` (a plan-act planner),
    ``token_steps(completions, mask)`` (step index of each token, for ``--advantage step``)
    and ``first_step_mask(completions, mask)`` (for stage 2)."""
    if args.policy == "vlm":
        try:
            from agents.vlm_policy import VLMPolicy
        except ImportError as e:
            raise SystemExit(f"--policy vlm needs torch and transformers (pip install 'guigym[vlm]'): {e}")
        if not args.vlm_path:
            raise SystemExit("--policy vlm needs --vlm-path (a local checkpoint)")
        return VLMPolicy.from_pretrained(args.vlm_path, horizon=args.horizon, fmt=VLM_FORMAT, lora_rank=args.lora_rank,
                                         gradient_checkpointing=args.gradient_checkpointing,
                                         max_new_tokens=args.max_new_tokens, device=args.device)
    labels = click_vocabulary(args) if args.plan_steps == "ungrounded" else ()
    return TinyPolicy(TinyConfig(horizon=args.horizon, use_elements=args.policy == "tiny-elements", click_labels=labels))


def click_vocabulary(args: Args) -> tuple[str, ...]:
    """The labels the ungrounded tiny policy can name: those of the click targets of the
    dense references from reset on training seeds ``0 … label_vocab_seeds − 1`` (each step's
    instruction quotes its target, "Click the 'Sign in' button"), most frequent first, ties
    alphabetical. Labels that only held-out content has (a new contact's name) cannot be named."""
    from collections import Counter

    from guigym.grounding import quoted

    env = gym.make(args.env_id, **env_kwargs(args))
    counts: Counter[str] = Counter()
    try:
        for s in range(args.label_vocab_seeds):
            _, info = env.reset(seed=s)
            for r in info["reference"]:
                q = quoted(r.instruction)
                if r.action.type == "click" and q:
                    counts[q[0]] += 1
    finally:
        env.close()
    if not counts:
        raise SystemExit(f"--plan-steps ungrounded: no click labels in the references of {args.env_id}")
    return tuple(sorted(counts, key=lambda k: (-counts[k], k)))


def transform_for(policy: Any, invert_prob: float = 0.0, rng: Optional[np.random.Generator] = None) -> Any:
    """What the recorder keeps of an observation: the tiny policy's compact ``TinyObs``
    (elements from ``info`` for the privileged variant), else the raw observation. With
    ``invert_prob`` > 0 (training rollouts only) the tiny policy's image is colour-inverted with
    that probability — the plans of the group are sampled and scored on the same inverted image."""
    if isinstance(policy, TinyPolicy):
        def tf(obs: dict, info: dict, history: list) -> Any:
            if policy.cfg.use_elements:
                obs = {**obs, "elements": info.get("elements", [])}
            ob = policy.prepare(obs, history)
            if invert_prob > 0 and rng is not None and rng.random() < invert_prob:
                ob = dataclasses.replace(ob, image=255 - ob.image)
            return ob
        return tf
    return lambda obs, info, history: {**obs, "history_actions": history}


def planner_for(policy: Any, greedy: bool, horizon: int) -> Any:
    if isinstance(policy, TinyPolicy):
        return TinyPlanner(policy, greedy=greedy, horizon=horizon)
    return policy.planner(greedy=greedy, horizon=horizon)  # the VLM path provides its own


class GroupPlanner:
    """The rollout planner of the plan-act loop: at every state it samples a group of ``G``
    plans from the current policy, attaches them (with their log-probs) to the state the
    recorder just saved, and returns the first plan — whose first step the loop executes."""

    def __init__(self, policy: Any, recorder: StateRecorder, group_size: int, horizon: int, generator: torch.Generator,
                 follow_reference: bool = False) -> None:
        self.policy, self.recorder, self.group_size, self.horizon, self.gen = policy, recorder, group_size, horizon, generator
        self.follow_reference = follow_reference  # execute the reference's next action instead (``--rollout-actor reference``)

    def reset(self, seed: Optional[int] = None) -> None:
        pass  # sampling uses the trainer's generator

    def plan(self, obs: dict, info: dict, history: Any) -> Plan:
        v = self.recorder.visited[-1]  # the state being planned at (recorded by the wrapper)
        comps, (logp, mask) = self.policy.sample([v.obs], self.group_size, generator=self.gen)
        v.group = (comps, logp, mask)
        return rollout_plan(v, self.follow_reference)


def rollout_plan(v: Visited, follow_reference: bool) -> Plan:
    """The plan a training rollout executes (the first step of) at ``v``, once its group is
    sampled: the group's first plan, or the reference's next action (``--rollout-actor reference``)."""
    if follow_reference and v.reference:
        return Plan([PlanStep(action=v.reference[0].action)])
    return Plan([s if isinstance(s, PlanStep) else PlanStep(action=s) for s in v.group[0][0].steps])


def _pad_cat(parts: list[torch.Tensor]) -> torch.Tensor:
    """Concatenate ``[n_i, L_i]`` tensors along rows, zero-padding to the longest ``L``."""
    L = max(p.shape[1] for p in parts)
    return torch.cat([torch.nn.functional.pad(p, (0, L - p.shape[1])) for p in parts])


# ------------------------------------------------------------------------------ rewards


def _reward_kw(args: Args) -> dict[str, Any]:
    return {**args.grpo.trajectory_reward_kwargs(), "similarity": args.similarity, "text": args.typed_text}


def stage1_step_rewards(args: Args, groups: list[Visited], comps: list[Any]) -> list[list[float]]:
    """TraceR1 stage 1, per plan: the terms ``γ^(t-1)(λ_align·sim_t − λ_rep·rep_t)`` of
    ``trajectory_reward`` against the state's reference, with the state's visible elements
    (zero-padded to ``T``; they sum to the reward). A completion whose text did not parse
    (``valid=False``: its first ``T`` steps do not all parse, even where its first step is
    executed) gets the bottom of the reward's range, as its first term, as
    ``guigym.rewards.TrajectoryReward`` scores such text. With ``--stage1-reward uir1`` the
    first term is UI-R1's reward of the first step (:func:`uir1_first_step_reward`, plus
    ``R_format`` of a completion's text where the policy writes one), the rest 0."""
    G, T = args.group_size, args.horizon
    uir1 = args.stage1_reward == "uir1"
    bottom = 0.0 if uir1 else trajectory_reward_range(T, args.gamma, args.lambda_align, args.lambda_rep)[0]
    out = []
    for i, c in enumerate(comps):
        v = groups[i // G]
        if not getattr(c, "valid", True):
            out.append([bottom] + [0.0] * (T - 1))
            continue
        if uir1:
            first = c.steps[0] if c.steps else None
            if first is not None and not _grounded(first):  # no UI-R1 action: 0, format too, as uir1_reward
                out.append([0.0] * T)  # scores its text (the parser rejects it)
                continue
            r = uir1_first_step_reward(args, first, v.reference[0])
            if c.text is not None:  # UI-R1's R_format: a well-formed answer outscores garbage (think optional, as prompted)
                r += format_reward(c.text, VLM_FORMAT, require_think=False, plan=True)
            out.append([r] + [0.0] * (T - 1))
            continue
        terms = trajectory_step_rewards(c.steps, v.reference, **_reward_kw(args), elements=v.elements)
        out.append(terms + [0.0] * (T - len(terms)))
    return out


def stage1_step_mask(args: Args, comps: list[Any]) -> list[list[bool]]:
    """Which of :func:`stage1_step_rewards`' ``T`` terms per plan are real steps (the rest is
    padding, left out of ``--advantage step``'s normalisation): the plan's steps up to ``T``;
    the first term only for a completion that did not parse or under ``--stage1-reward uir1``
    (where the first step alone is scored), and for an empty plan (scored as one term)."""
    T, uir1 = args.horizon, args.stage1_reward == "uir1"
    out = []
    for c in comps:
        n = 1 if uir1 or not getattr(c, "valid", True) else max(1, min(len(c.steps), T))
        out.append([t < n for t in range(T)])
    return out


def uir1_first_step_reward(args: Args, step: Any, ref: Any) -> float:
    """UI-R1's rule-based action reward of one predicted step: ``R_type`` (unless
    ``--no-uir1-type-reward``) plus the argument reward, click-in-box ``R_C`` or ``R_IoU``;
    0 for a step without its arguments (an ungrounded click), which is no UI-R1 action."""
    if step is None or not _grounded(step):  # a step without its arguments (a click with no point) is no UI-R1 action
        return 0.0
    pred = _step_of(step)
    coord = iou_argument_reward(pred, ref) if args.uir1_coord == "iou" else argument_reward(pred, ref)
    return (action_type_reward(pred, ref) if args.uir1_type_reward else 0.0) + coord


def stage1_rewards(args: Args, groups: list[Visited], comps: list[Any]) -> list[float]:
    """TraceR1 stage 1: ``trajectory_reward`` of each plan against its state's reference."""
    return [float(sum(r)) for r in stage1_step_rewards(args, groups, comps)]


def stage2_rewards(args: Args, env: gym.Env, groups: list[Visited], comps: list[Any], executor: Any) -> list[float]:
    """TraceR1 stage 2: ``grounded_rewards`` of each plan's first step, executed from the
    saved state (identical first steps of a group are executed once). Only the first step
    counts, whether or not the completion is ``valid``: a VLM's text whose later step does not
    parse keeps the steps before it (:func:`agents.vlm.parse_plan_output`), and its first step
    scores as ``grounded_reward(env, text)`` scores the text; a first step that does not parse
    is a no-op, 0."""
    G = args.group_size
    out: list[float] = []
    for g, v in enumerate(groups):
        firsts = [comps[g * G + j].steps[0] if comps[g * G + j].steps else None for j in range(G)]
        keys = [repr(f) for f in firsts]
        uniq = list(dict.fromkeys(keys))
        preds = [firsts[keys.index(k)] for k in uniq]
        scores = dict(zip(uniq, grounded_rewards(env, preds, state=v.state, executor=executor)))
        out.extend(scores[k] for k in keys)
    return out


# ---------------------------------------------------------------------------- evaluation


class _SimKw(TypedDict):
    """``action_similarity``'s rules, from ``--similarity`` and ``--typed-text``."""

    similarity: Literal["abstract", "grounded"]
    text: Literal["exact", "f1"]


def _step_of(s: Any) -> Any:
    return s.action if isinstance(s, PlanStep) and s.action is not None else s


def _grounded(s: Any) -> bool:
    """Whether a plan step carries its action's arguments (a PlanStep's ``action``)."""
    return isinstance(_step_of(s), ACTION_CLASSES)


def evaluate(args: Args, planner: Any, seeds: list[int], max_steps: Optional[int] = None, executor: Any = None,
             pool: Optional[EnvPool] = None) -> dict[str, Any]:
    """Success rate (and steps, repetition) of the plan-act loop with ``planner`` on ``seeds``.

    ``plan_repetition``: mean over plans of the fraction of planned steps (after the first)
    that repeat an earlier step of the same plan where the state's reference does not
    (``guigym.rewards.repetition``, same element); ``exec_repetition``: the fraction of executed
    actions that act on the same element as the previous executed action (each judged on the
    screen it was executed on, ``guigym.rewards.step_target``); ``first_step_acc`` /
    ``later_step_acc``: mean ``action_similarity`` of a plan's first step / of its later steps
    to the reference from the state it was made in (near-term vs far accuracy).

    With a ``pool`` (``--rollout-workers N``) and a greedy planner that plans a batch
    (``plan_batch``), the episodes run in lockstep on the pool's envs, one batched policy call
    per step (:func:`agents.plan_act.run_episodes`); otherwise one after another here.
    """
    agent = PlanActAgent(planner, executor=executor)
    visited: list[list[Visited]]
    if pool is not None and lockstep_planner(planner):
        limit = max_steps if max_steps is not None else gym.spec(args.env_id).max_episode_steps or 200  # 0 is a limit, as in run_episode
        visited = [[] for _ in seeds]
        recs = run_episodes(eval_slots(pool, args.eval_batch), agent, seeds, limit, env_id=args.env_id,
                            on_decision=lambda i, obs, info, history: visited[i].append(visit(_ignore, obs, info, history, None)))
    else:
        env = make_env(args, _ignore, save_state=False)
        recs, visited = [], []
        try:
            for s in seeds:
                env.visited = []
                recs.append(run_episode(env, agent, seed=s, max_steps=max_steps))
                visited.append(env.visited)
        finally:
            env.close()
    return episode_metrics(args, recs, visited, seeds)


class _FirstSlots:
    """The first ``num_envs`` envs of an env pool, as a pool (:func:`eval_slots`)."""

    def __init__(self, pool: EnvPool, num_envs: int) -> None:
        self.pool, self.num_envs = pool, num_envs

    def reset(self, indices: Any, seeds: Any) -> list[tuple[Any, dict]]:
        if any(not 0 <= int(i) < self.num_envs for i in indices):
            raise ValueError(f"indices {list(indices)} outside the first {self.num_envs} envs")
        return self.pool.reset(indices, seeds)

    def step(self, indices: Any, actions: Any) -> list[Any]:
        if any(not 0 <= int(i) < self.num_envs for i in indices):
            raise ValueError(f"indices {list(indices)} outside the first {self.num_envs} envs")
        return self.pool.step(indices, actions)

    def close(self) -> None:
        pass  # the trainer's pool: closed with the trainer


def eval_slots(pool: EnvPool, eval_batch: int) -> EnvPool:
    """The envs of ``pool`` that an evaluation runs its episodes on: ``eval_batch`` of them
    (``--eval-batch``). The pool holds ``max(episodes_per_iter, eval_batch)`` envs, and
    :func:`agents.plan_act.run_episodes` runs as many episodes at once as its pool has envs,
    so with more rollout episodes than ``--eval-batch`` the evaluations ran that many at once and
    ``--eval-batch`` was ignored (a batch changes the plans it decodes in the last bits)."""
    return pool if eval_batch >= pool.num_envs else _FirstSlots(pool, eval_batch)


def _ignore(obs: Any, info: dict, history: list) -> None:
    """The transform of evaluation envs: nothing of the observation is kept."""
    return None


def lockstep_planner(planner: Any) -> bool:
    """Whether ``planner`` can plan for a batch of episodes at once (greedy, with ``plan_batch``)."""
    return callable(getattr(planner, "plan_batch", None)) and bool(getattr(planner, "greedy", False))


def episode_metrics(args: Args, recs: list[EpisodeRecord], visited: list[list[Visited]], seeds: list[int]) -> dict[str, Any]:
    """:func:`evaluate`'s numbers from its episodes (``visited[e]``: episode ``e``'s decision points)."""
    reps: list[float] = []
    first: list[float] = []
    later: list[float] = []
    exec_rep = exec_n = 0
    sim: _SimKw = {"similarity": args.similarity, "text": args.typed_text}
    for rec, seen in zip(recs, visited):
        for plan, v in zip(rec.plans, seen):
            steps = [_step_of(p) for p in plan]
            if len(steps) > 1:
                reps.append(float(np.mean([repetition(steps, v.reference, t, elements=v.elements) for t in range(1, len(steps))])))
            if v.reference and steps:
                first.append(action_similarity(steps[0], v.reference[0], elements=v.elements, **sim))
                # v.elements show the screen the plan was made on: the first step's only
                later.extend(action_similarity(steps[t], v.reference[t], **sim) for t in range(1, min(len(steps), len(v.reference))))
        acts = rec.actions
        targets = [step_target(a, v.elements, v.reference) if a is not None else None for a, v in zip(acts, seen)]
        exec_rep += sum(1 for a, b in zip(targets, targets[1:]) if same_target(a, b))
        exec_n += max(0, len(acts) - 1)
    out = summarize(recs)
    # no repeat is possible in one-step plans or one-action episodes (0); no episode at all: nothing to average
    out["plan_repetition"] = float(np.mean(reps)) if reps else 0.0 if recs else float("nan")
    out["exec_repetition"] = exec_rep / exec_n if exec_n else 0.0 if recs else float("nan")
    out["first_step_acc"] = float(np.mean(first)) if first else float("nan")
    out["later_step_acc"] = float(np.mean(later)) if later else float("nan")
    out["seeds"] = [seeds[0], seeds[-1]] if seeds else []
    out["failures"] = failure_counts(recs)  # why the env ended the failed episodes (info["failure"]), most frequent first
    return out


def expert_step_metrics(args: Args, planner: Any, seeds: list[int], max_steps: int = 60,
                        pool: Optional[EnvPool] = None) -> dict[str, float]:
    """Step-level accuracy on the states of the expert trajectory (UI-R1's offline metrics):
    on each held-out seed, follow the dense reference and compare the greedy plan's first step
    with the reference step at every state. ``expert_type_acc``: right action type;
    ``expert_click_acc``: at reference clicks, a click inside the target's box (grounding; an
    ungrounded click counts where the element executor would click: the centre of the element
    its label matches);
    ``expert_step_acc``: ``action_similarity`` (type and target/arguments, abstract).
    The episodes are plan-act episodes of :class:`ExpertFollower`; with a ``pool`` and a planner
    that plans a batch (:func:`lockstep_planner`) they run in lockstep on the pool's envs
    (:func:`agents.plan_act.run_episodes`), one batched policy call per step."""
    grounder = ElementExecutor()
    types: list[float] = []
    clicks: list[float] = []
    steps: list[float] = []

    def score(plan: Any, v: Visited) -> None:
        ref = v.reference[0]
        pred = _step_of(plan[0]) if len(plan) else None
        if isinstance(pred, PlanStep) and pred.kind == "click":  # an ungrounded click: where the executor would click
            pred = grounder(ElementsView({"elements": v.elements}), pred) or pred
        types.append(action_type_reward(pred, ref) if pred is not None else 0.0)
        if ref.action.type == "click":
            clicks.append(argument_reward(pred, ref) if pred is not None else 0.0)
        steps.append(action_similarity(pred, ref, elements=v.elements, similarity=args.similarity, text=args.typed_text)
                     if pred is not None else 0.0)

    agent = PlanActAgent(ExpertFollower(planner, score))
    if pool is not None and lockstep_planner(planner):
        run_episodes(eval_slots(pool, args.eval_batch), agent, seeds, max_steps, env_id=args.env_id)
    else:
        env = gym.make(args.env_id, **env_kwargs(args))
        try:
            for s in seeds:
                run_episode(env, agent, seed=s, max_steps=max_steps)
        finally:
            env.close()
    mean = lambda xs: float(np.mean(xs)) if xs else float("nan")  # noqa: E731
    return {"expert_type_acc": mean(types), "expert_click_acc": mean(clicks), "expert_step_acc": mean(steps)}


class ExpertFollower:
    """The planner of :func:`expert_step_metrics`' episodes: at every state it hands
    ``planner``'s plan and the state (a :class:`Visited`) to ``score``, then plans the
    reference's next action, so the episode follows the expert trajectory whatever
    ``planner`` says. Batched (``plan_batch``) where ``planner`` is."""

    horizon = 1

    def __init__(self, planner: Any, score: Any) -> None:
        self.planner, self.score = planner, score
        self.greedy = bool(getattr(planner, "greedy", False))

    def reset(self, seed: Optional[int] = None) -> None:
        self.planner.reset(seed=seed)

    def plan(self, obs: dict, info: dict, history: Sequence[Action]) -> list:
        return self._follow([obs], [info], [history], [self.planner.plan(obs, info, history)])[0]

    def plan_batch(self, obs: list[dict], infos: list[dict], histories: list[list]) -> list[list]:
        return self._follow(obs, infos, histories, self.planner.plan_batch(obs, infos, histories))

    def _follow(self, obs: list[dict], infos: list[dict], histories: Sequence[Sequence[Any]], plans: list[Any]) -> list[list]:
        out = []
        for o, i, h, plan in zip(obs, infos, histories, plans):
            v = visit(_ignore, o, i, h, None)
            if v.reference:  # (never empty where the episode goes on: success and dead ends end it)
                self.score(plan, v)
            out.append([v.reference[0].action] if v.reference else [])
        return out


# ---------------------------------------------------------------------------------- plots


def plot_curves(rows: list[dict[str, Any]], path: Path, title: str) -> bool:
    """``curves.png``: reward and validation success against wall time; False if
    matplotlib is missing (the CSV is always written)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    t = [r["time_s"] / 60 for r in rows]
    fig, ax = plt.subplots(1, 3, figsize=(13, 3.6))
    ax[0].plot(t, [r.get("reward_mean", float("nan")) for r in rows], lw=1)
    ax[0].set(xlabel="wall time (min)", ylabel="mean group reward", title="reward (stage 1: trajectory, 2: grounded)")
    val = [r for r in rows if r.get("val_success", "") != ""]
    ax[1].plot([r["time_s"] / 60 for r in val], [r["val_success"] for r in val], marker="o", lw=1.5)
    ax[1].set(xlabel="wall time (min)", ylabel="success rate", ylim=(-0.02, 1.02), title="validation success (greedy plan-act)")
    ax[2].plot([r["time_s"] / 60 for r in val], [r["val_plan_repetition"] for r in val], marker="o", label="plan repetition")
    ent = [(r["time_s"] / 60, float(r["entropy"])) for r in rows if r.get("entropy", "") not in ("", None)]
    ent = [(x, y) for x, y in ent if y == y]  # no NaN (iterations without an update)
    ax[2].plot([x for x, _ in ent], [y for _, y in ent], lw=1, label="entropy / step (updated groups)")
    ax[2].set(xlabel="wall time (min)", title="repetition and entropy")
    ax[2].legend()
    switch = next((r["time_s"] / 60 for r in rows if r["stage"] == 2), None)
    if switch is not None and rows[0]["stage"] == 1:
        for a in ax:
            a.axvline(switch, color="grey", ls="--", lw=0.8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    with _replacing(path) as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------------- train


def default_run_name(args: Args) -> str:
    env = args.env_id.replace("GuiGym-", "").replace("-v0", "")
    return f"{env}__{args.level}__s{args.stage}__T{args.horizon}__{args.seed}__{int(time.time())}"


class Trainer:
    """The training loop, one :meth:`iteration` at a time (the smoke test drives it)."""

    def __init__(self, args: Args) -> None:
        self.args = args
        self.run_name = args.run_name or default_run_name(args)
        self.out = Path(args.out_dir) / self.run_name
        if args.policy == "vlm" and args.advantage == "step":
            raise SystemExit("--advantage step needs per-step token spans; the VLM policy has none (use --advantage trajectory)")
        # refused before anything is built (they came after the envs, which a refusal left open)
        if args.executor != "element" and args.plan_steps == "ungrounded":
            raise SystemExit("--plan-steps ungrounded needs an executor to ground its clicks (--executor element)")
        if args.ray_address and args.rollout_workers < 1:
            raise SystemExit("--ray-address needs --rollout-workers N (N >= 1 actors)")
        if args.eval_batch < 1:
            raise SystemExit(f"--eval-batch must be >= 1, got {args.eval_batch}")
        random.seed(args.seed)
        np.random.seed(args.seed)
        torch.manual_seed(args.seed)
        torch.set_num_threads(max(1, args.threads))
        torch.use_deterministic_algorithms(True)
        self.rng = np.random.default_rng(args.seed)
        self.gen = torch.Generator().manual_seed(args.seed)
        self.t0 = time.time()
        self.policy = make_policy(args)
        self.ref_policy = copy.deepcopy(self.policy).eval() if args.beta > 0 else None
        self.optimizer = torch.optim.Adam([p for p in self.policy.parameters() if p.requires_grad], lr=args.lr)
        self.aug = aug = np.random.default_rng([args.seed, 1])  # its own stream: the other draws stay as they were
        self.score_env: Optional[gym.Env] = None
        self.pool: Optional[EnvPool] = None
        self.env = make_env(args, transform_for(self.policy, args.augment_invert, aug))
        try:  # what is built is closed if a later part fails (a pool that cannot start, Ray not reachable, Ctrl-C)
            self.score_env = gym.make(args.env_id, **env_kwargs(args)).unwrapped  # stage 2 executes here
            self.executor = ElementExecutor() if args.executor == "element" else None
            sampler = GroupPlanner(self.policy, self.env, args.group_size, args.horizon, self.gen,
                                   follow_reference=args.rollout_actor == "reference")
            self.rollout_agent = PlanActAgent(sampler, executor=self.executor)
            self.pool = make_rollout_pool(args) if args.rollout_workers > 0 else None
        except BaseException:
            self.close()
            raise
        self.stages = {"1": [1], "2": [2], "both": [1, 2]}[args.stage]
        self.switch_at = int(round(args.iterations * args.stage1_frac)) if args.stage == "both" else args.iterations
        if args.stage == "both" and args.iterations and not 0 < self.switch_at < args.iterations:
            # not an error (a smoke run of one iteration is fine), but said: the run trains one stage only
            print(f"train_small.py: --stage both with --iterations {args.iterations} and --stage1-frac {args.stage1_frac}: "
                  f"stage {1 if self.switch_at <= 0 else 2} gets no iteration", file=sys.stderr)
        self.stage = self.stages[0]
        self.env_steps = 0
        self.val_seeds = list(range(VAL_SEED, VAL_SEED + args.val_episodes))

    def set_stage(self, it: int) -> None:
        new = self.stages[-1] if it >= self.switch_at else self.stages[0]
        if new != self.stage:
            self.stage = new
            if self.ref_policy is not None:  # stage 2 stays close to the stage-1 policy
                self.ref_policy = copy.deepcopy(self.policy).eval()

    def rollout(self) -> tuple[list[Visited], float]:
        """Episodes of the plan-act loop with the sampling policy; the visited states that have
        a group of plans and a reference (not done)."""
        a = self.args
        self.env.visited = []
        wins = []
        self.policy.eval()
        for _ in range(a.episodes_per_iter):
            rec = run_episode(self.env, self.rollout_agent, seed=int(self.rng.integers(TRAIN_SEEDS)), max_steps=a.rollout_max_steps)
            wins.append(rec.success)
            self.env_steps += rec.steps
        return [v for v in self.env.visited if v.reference and v.group is not None], float(np.mean(wins))

    def rollout_lockstep(self) -> tuple[list[Visited], float]:
        """``--rollout-workers N``: the ``episodes_per_iter`` episodes in lockstep over the env
        pool. At every step, one batched ``sample`` of ``G`` plans for the states of all
        unfinished episodes (in episode order), then one pool step that runs the first step of
        each first plan. Nothing depends on how the envs are spread over workers."""
        assert self.pool is not None  # (iteration calls this only with a pool)
        a = self.args
        n, G = a.episodes_per_iter, a.group_size
        seeds = [int(self.rng.integers(TRAIN_SEEDS)) for _ in range(n)]
        obs, infos = map(list, zip(*self.pool.reset(range(n), seeds)))
        history: list[list[Any]] = [[] for _ in range(n)]
        steps, success = [0] * n, [False] * n
        per_episode: list[list[Visited]] = [[] for _ in range(n)]
        active = list(range(n))
        self.policy.eval()
        while active:
            vs = [visit(self.env.transform, obs[i], infos[i], history[i], infos[i]["state"]) for i in active]
            comps, (logp, mask) = self.policy.sample([v.obs for v in vs], G, generator=self.gen)
            actions = []
            for j, (i, v) in enumerate(zip(active, vs)):
                v.group = (comps[j * G:(j + 1) * G], logp[j * G:(j + 1) * G], mask[j * G:(j + 1) * G])
                per_episode[i].append(v)
                plan = rollout_plan(v, a.rollout_actor == "reference")
                step = plan[0] if plan else NOOP
                actions.append(self.rollout_agent.ground(ElementsView(infos[i]), step)[0])
            still = []
            for i, act, (o, _r, term, trunc, info) in zip(active, actions, self.pool.step(active, actions)):
                obs[i], infos[i] = o, info
                steps[i] += 1
                self.env_steps += 1
                if act is not None:
                    history[i].append(act)
                if term or trunc or steps[i] >= a.rollout_max_steps:
                    success[i] = bool(info.get("success", False))
                else:
                    still.append(i)
            active = still
        return [v for ep in per_episode for v in ep if v.reference], float(np.mean(success))

    def iteration(self, it: int) -> dict[str, Any]:
        """Roll out (sampling a group at every visited state), score the groups, update."""
        a = self.args
        self.set_stage(it)
        if a.anneal_lr:
            for pg in self.optimizer.param_groups:
                pg["lr"] = a.lr * (1.0 - it / max(1, a.iterations))
        visited, rollout_success = self.rollout_lockstep() if self.pool is not None else self.rollout()
        if a.dedupe_states:  # one group per distinct state (app state + recent history)
            visited = list({v.key: v for v in reversed(visited)}.values())
        pick = sorted(self.rng.choice(len(visited), size=min(a.states_per_iter, len(visited)), replace=False).tolist()) if visited else []
        groups = [visited[i] for i in pick]
        row: dict[str, Any] = {"iter": it + 1, "stage": self.stage, "states": len(groups), "rollout_success": rollout_success}
        if not groups:
            return row
        obs = [v.obs for v in groups]
        comps = [c for v in groups for c in v.group[0]]
        old_logp, mask = _pad_cat([v.group[1] for v in groups]), _pad_cat([v.group[2] for v in groups])
        B, G = len(groups), a.group_size
        if self.stage == 1 or a.stage2_reward == "trajectory":
            step_r = torch.tensor(stage1_step_rewards(a, groups, comps), dtype=torch.float64).view(B, G, -1)
            r = step_r.sum(-1)
        else:
            assert self.score_env is not None  # (built by __init__)
            r = torch.tensor(stage2_rewards(a, self.score_env, groups, comps, self.executor), dtype=torch.float64).view(B, G)
        if self.stage == 1 and a.advantage == "step":
            real = torch.tensor(stage1_step_mask(a, comps)).view(B, G, -1)
            adv = token_advantages(self.policy, step_advantages(step_r.float(), mask=real).view(B * G, -1), mask, comps)
            per_step = step_r
        else:
            adv = group_advantages(r.float(), scale=a.scale_rewards).flatten()
            per_step = r[..., None]
        spread = (per_step.amax(1) - per_step.amin(1)).amax(-1)  # [B]: 0 when every plan scored the same
        flat = [float(spread[g]) <= 1e-6 for g in range(B)]
        keep = [g for g in range(B) if not (a.skip_flat_groups and flat[g])]
        sim_kw: _SimKw = {"similarity": a.similarity, "text": a.typed_text}
        hits = [action_similarity(_step_of(c.steps[0]), v.reference[0], elements=v.elements, **sim_kw) if c.steps else 0.0
                for v in groups for c in v.group[0]]
        # flat_groups as 1 - kept / B, as before: the same float in curves.csv as sum(flat) / B is not
        row.update(reward_mean=float(r.mean()), reward_best=float(r.max(dim=1).values.mean()), flat_groups=1 - (B - sum(flat)) / B,
                   first_step_hit=float(np.mean(hits)))
        if keep:
            G = a.group_size
            idx = torch.tensor([g * G + j for g in keep for j in range(G)])
            loss_mask = first_step_mask(self.policy, mask, comps, a.horizon) if self.stage == 2 and a.stage2_first_step_only else mask
            self.policy.train()
            st = grpo_update(
                self.policy, self.optimizer, [obs[g] for g in keep], [comps[int(i)] for i in idx], old_logp[idx], mask[idx], adv[idx],
                ref_policy=self.ref_policy, config=a.grpo, loss_mask=loss_mask[idx], generator=self.gen,
            )
            self.policy.eval()
            row.update(loss=st.loss, clip_frac=st.clip_frac, kl_ref=st.kl_ref, entropy=st.entropy, grad_norm=st.grad_norm)
        return row

    def checkpoint(self, rows: list[dict[str, Any]], best: tuple[float, int, Any], last_val: dict[str, Any]) -> None:
        """Write ``checkpoint.pt`` (whole or not at all): what :meth:`restore` needs to go on
        after ``len(rows)`` iterations as if never stopped."""
        keys = trainable_keys(self.policy)
        state = {
            "format": CHECKPOINT_FORMAT, "args": asdict(self.args), "rows": rows, "last_val": last_val,
            "best": best,  # its weights are the trainable ones already (see run)
            "policy": cpu_state(self.policy, keys),
            "ref_policy": None if self.ref_policy is None else cpu_state(self.ref_policy, keys),
            "optimizer": self.optimizer.state_dict(), "stage": self.stage, "env_steps": self.env_steps,
            "train_time_s": time.time() - self.t0,
            "rng": {"numpy": self.rng.bit_generator.state, "aug": self.aug.bit_generator.state, "torch_gen": self.gen.get_state(),
                    "python": random.getstate(), "np_global": np.random.get_state(), "torch": torch.get_rng_state(),
                    "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None},
        }
        with _replacing(self.out / CHECKPOINT) as tmp:
            torch.save(state, tmp)

    def restore(self) -> tuple[list[dict[str, Any]], tuple[float, int, Any], dict[str, Any]]:
        """Load ``checkpoint.pt`` (``--resume``; :func:`resume_problems` checked it): the weights,
        optimizer, stage and random states; returns the rows, best and last validation so far."""
        saved = torch.load(self.out / CHECKPOINT, map_location="cpu", weights_only=False)
        load_trainable(self.policy, saved["policy"])
        if self.ref_policy is not None and saved["ref_policy"] is not None:
            load_trainable(self.ref_policy, saved["ref_policy"])
        self.optimizer.load_state_dict(saved["optimizer"])
        self.stage, self.env_steps = saved["stage"], saved["env_steps"]
        rng = saved["rng"]
        self.rng.bit_generator.state = rng["numpy"]
        self.aug.bit_generator.state = rng["aug"]
        self.gen.set_state(rng["torch_gen"])
        random.setstate(rng["python"])
        np.random.set_state(rng["np_global"])
        torch.set_rng_state(rng["torch"])
        if rng["cuda"] is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(rng["cuda"])
        self.t0 = time.time() - saved["train_time_s"]  # time_s goes on from where it stopped
        return saved["rows"], saved["best"], saved["last_val"]

    def validate(self) -> dict[str, Any]:
        a = self.args
        planner = planner_for(self.policy, greedy=True, horizon=a.horizon)
        return evaluate(a, planner, self.val_seeds, max_steps=a.val_max_steps, executor=self.executor, pool=self.pool)

    def run(self) -> dict[str, Any]:
        """Train, evaluate on held-out seeds, write the run folder; returns ``eval.json``.

        A Ctrl-C (SIGINT) during training stops it after the iteration in progress: the
        selected policy goes to ``policy.pt``, ``interrupted.json`` says after how many
        iterations, there is no held-out evaluation (no ``eval.json``, the mark of a finished
        run), and :class:`TrainingInterrupted` is raised; a second Ctrl-C aborts at once
        (``curves.csv`` then holds every finished iteration, and there is no ``policy.pt``).
        Every file is written whole or not at all (a temporary file, then a rename)."""
        try:
            return self._run()
        finally:
            self.close()

    def _run(self) -> dict[str, Any]:
        a = self.args
        if a.run_name:
            self.out.mkdir(parents=True, exist_ok=True)
        else:
            self.out = new_run_folder(self.out)
            self.run_name = self.out.name
        rows: list[dict[str, Any]] = []
        last_val: dict[str, Any] = {}
        # (validation success, iteration, policy weights): kept only with --checkpoint best-val
        best: tuple[float, int, Any] = (-1.0, -1, None)
        if a.resume:  # before the old outputs go: the checkpoint is one of them
            rows, best, last_val = self.restore()
            print(f"{self.run_name}: resuming after iteration {len(rows)} of {a.iterations}", file=sys.stderr, flush=True)
        old = ("eval.json", "policy.pt", "curves.png", "interrupted.json", "ppo.zip") + (() if a.resume else (CHECKPOINT,))
        for name in old:  # a previous run's, in a reused folder
            _remove(self.out / name)
        _write_atomic(self.out / "args.json", to_json(asdict(a)))
        fields = ["iter", "stage", "env_steps", "states", "reward_mean", "reward_best", "first_step_hit", "flat_groups",
                  "rollout_success", "loss", "clip_frac", "kl_ref", "entropy", "grad_norm",
                  "val_success", "val_steps", "val_plan_repetition", "val_exec_repetition"]
        # curves.csv holds only what the seed determines (same seed, same machine: same file);
        # wall times go to timing.csv
        with open(self.out / "curves.csv", "w", newline="") as f, open(self.out / "timing.csv", "w", newline="") as ft:
            writer = csv.DictWriter(f, fieldnames=fields, restval="", extrasaction="ignore")
            writer.writeheader()
            timing = csv.writer(ft)
            timing.writerow(["iter", "time_s"])
            for row in rows:  # a resumed run's iterations so far
                writer.writerow(row)
                timing.writerow([row["iter"], row["time_s"]])
            bar = tqdm(range(len(rows), a.iterations), initial=len(rows), total=a.iterations, disable=not a.progress,
                       desc=self.run_name[:40], dynamic_ncols=True)
            stop = _StopOnSigint()
            started, timed_out = time.time(), False  # --time-limit-min counts this process's time (a resumed run's too)
            with stop:
                for it in bar:
                    if stop.requested:
                        break
                    if a.time_limit_min and time.time() - started > 60 * a.time_limit_min:
                        timed_out = True
                        break
                    row = self.iteration(it)
                    if a.val_every and ((it + 1) % a.val_every == 0 or it + 1 == a.iterations):
                        last_val = self.validate()
                        row.update(val_success=last_val["success_rate"], val_steps=last_val["mean_steps"],
                                   val_plan_repetition=last_val["plan_repetition"], val_exec_repetition=last_val["exec_repetition"])
                        if a.checkpoint == "best-val" and last_val["success_rate"] >= best[0]:  # ties: the later policy
                            # the trainable weights alone (the frozen ones never change): a LoRA
                            # VLM's base is not copied each time validation improves
                            best = (last_val["success_rate"], it + 1, cpu_state(self.policy, trainable_keys(self.policy)))
                    row.update(time_s=round(time.time() - self.t0, 2), env_steps=self.env_steps)
                    rows.append(row)
                    writer.writerow(row)
                    timing.writerow([row["iter"], row["time_s"]])
                    f.flush()
                    ft.flush()
                    if a.save_every and len(rows) % a.save_every == 0 and len(rows) < a.iterations:
                        self.checkpoint(rows, best, last_val)
                    nan = float("nan")
                    bar.set_postfix(stage=row["stage"], R=f"{row.get('reward_mean', nan):.2f}",
                                    val=f"{last_val.get('success_rate', nan):.2f}")
            bar.close()
        if timed_out:
            print(f"{self.run_name}: --time-limit-min {a.time_limit_min:g} reached after {len(rows)} of {a.iterations} iterations; "
                  "evaluating the policy trained so far", file=sys.stderr, flush=True)
        train_time = time.time() - self.t0
        selected, selected_val = (rows[-1]["iter"] if rows else None), None
        if stop.requested and rows:  # what --resume goes on from, before the selected policy is loaded
            self.checkpoint(rows, best, last_val)
        if best[2] is not None:
            load_trainable(self.policy, best[2])
            selected_val, selected = best[:2]
        saved = a.save_model and hasattr(self.policy, "save")
        if saved:
            with _replacing(self.out / "policy.pt") as tmp:
                self.policy.save(str(tmp), extra={"args": asdict(a)})
        if stop.requested:  # Ctrl-C: what training made is on disk; no held-out evaluation
            info = {"interrupted_after_iter": len(rows), "iterations": a.iterations, "checkpoint": a.checkpoint,
                    "resumable": bool(rows),
                    "selected_iter": selected, "selected_val_success": selected_val, "policy_saved": saved,
                    "train_time_s": round(train_time, 1), "env_steps": self.env_steps}
            _write_atomic(self.out / "interrupted.json", to_json(info))
            if rows:
                plot_curves(rows, self.out / "curves.png", f"{self.run_name}: interrupted after {len(rows)} iterations")
            print(f"{self.run_name}: interrupted after {len(rows)} of {a.iterations} iterations; "
                  + (f"policy.pt (iteration {selected}), " if saved else "") + f"curves.csv and interrupted.json in {self.out}; "
                  "not evaluated on the held-out seeds (no eval.json)"
                  + (f"; go on with the same flags and --resume --run-name {self.run_name}" if rows else ""), file=sys.stderr, flush=True)
            raise TrainingInterrupted(info)
        # final evaluation on held-out seeds, beside the random planner
        seeds = list(range(a.eval_seed, a.eval_seed + a.eval_episodes))
        if a.progress and seeds:
            print(f"{self.run_name}: evaluating on {len(seeds)} held-out seeds ({a.eval_seed}-{a.eval_seed + len(seeds) - 1})"
                  + (", then the random planner" if a.eval_random else "") + " ...", file=sys.stderr, flush=True)
        t1 = time.time()
        result: dict[str, Any] = {
            "run_name": self.run_name, "env_id": a.env_id, "level": a.level, "stage": a.stage, "policy_kind": a.policy,
            "train_time_s": round(train_time, 1), "iterations": len(rows), "env_steps": self.env_steps,
            "checkpoint": a.checkpoint, "selected_iter": selected, "stopped_by_time_limit": timed_out,
            "selected_val_success": selected_val,
            "policy": evaluate(a, planner_for(self.policy, True, a.horizon), seeds, max_steps=a.eval_max_steps, executor=self.executor,
                               pool=self.pool),
        }
        result["policy"].update(expert_step_metrics(a, planner_for(self.policy, True, a.horizon), seeds, pool=self.pool))
        result["policy_eval_time_s"] = round(time.time() - t1, 1)
        vals = [(r["iter"], r["time_s"], r["val_success"]) for r in rows if r.get("val_success", "") != ""]
        result["val_auc"] = float(np.mean([v for _, _, v in vals])) if vals else None  # learning speed: mean val success
        hit = next(((i, t) for i, t, v in vals if v >= 0.9), None)
        result["val90_iter"], result["val90_time_s"] = hit if hit else (None, None)
        if a.eval_random:
            result["random"] = evaluate(a, RandomPlanner(horizon=a.horizon, seed=a.seed), seeds, max_steps=a.eval_max_steps)
        result["total_time_s"] = round(time.time() - self.t0, 1)
        title = f"{self.run_name}: held-out success {result['policy']['success_rate']:.2f}"
        plotted = plot_curves(rows, self.out / "curves.png", title) if rows else False
        _write_atomic(self.out / "eval.json", to_json(result))  # strict JSON (NaN as null); last: its presence marks a finished run
        _remove(self.out / CHECKPOINT)  # nothing left to resume
        # the result's summary, with or without --progress (a quiet run still says where it went)
        rnd = result.get("random", {}).get("success_rate")
        print(
            (f"{self.run_name}: held-out success {result['policy']['success_rate']:.3f} on {len(seeds)} seeds "
             + (f"(random planner {rnd:.3f}); " if rnd is not None else "")
             + f"mean steps {result['policy']['mean_steps']:.1f}; " if seeds else
             f"{self.run_name}: no held-out evaluation (--eval-episodes 0); ")
            + f"train {train_time:.0f} s, total {result['total_time_s']:.0f} s -> {self.out}"
            + ("" if plotted or not rows else " (no matplotlib: no PNG)")  # no rows (--iterations 0): nothing to plot
        )
        return result

    def close(self) -> None:
        self.env.close()
        if self.score_env is not None:
            self.score_env.close()
        if self.pool is not None:
            self.pool.close()


class TrainingInterrupted(KeyboardInterrupt):
    """Training stopped early by a Ctrl-C (:meth:`Trainer.run`); ``args[0]``: ``interrupted.json``."""


class _StopOnSigint:
    """While active (a ``with`` block, in the main thread, where SIGINT has Python's default
    handler): the first SIGINT only sets ``requested`` (the loop stops after the iteration in
    progress), a second raises ``KeyboardInterrupt`` at once."""

    def __init__(self) -> None:
        self.requested = False
        self._old: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("\nCtrl-C: stopping after this iteration, saving the policy (Ctrl-C again to abort now)", file=sys.stderr, flush=True)

    def __enter__(self) -> _StopOnSigint:
        import signal
        import threading

        if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._old = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._old is not None:
            import signal

            signal.signal(signal.SIGINT, self._old)
            self._old = None


def new_run_folder(base: Path) -> Path:
    """Make the folder of a run with a default name and return it: ``base``, or ``base_2``,
    ``base_3``, … where that exists (a default name is per second: two runs of the same seed started
    in the same second shared one folder, the second deleting the first's files)."""
    out, k = base, 1
    while True:
        try:
            out.mkdir(parents=True)
            return out
        except FileExistsError:
            k += 1
            out = base.with_name(f"{base.name}_{k}")


def _remove(path: Path) -> None:
    """Delete a file or folder (``--policy vlm`` saves a folder) if there is one."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


@contextlib.contextmanager
def _replacing(path: Path) -> Iterator[Path]:
    """A temporary name beside ``path`` to write to (a file, or a folder: ``--policy vlm``
    saves one), renamed to ``path`` when the block ends without an error: ``path`` is then
    whole, else as it was (a folder at either name is removed first: a rename cannot replace
    one)."""
    tmp = path.with_name(path.name + ".tmp")
    _remove(tmp)
    yield tmp
    if tmp.is_dir() or path.is_dir():
        _remove(path)
    os.replace(tmp, path)


def _write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    with _replacing(path) as tmp:
        tmp.write_text(text)


def train(args: Args) -> dict[str, Any]:
    """Train, evaluate, write ``runs/<run_name>/``; returns the contents of ``eval.json``."""
    return Trainer(args).run()


def token_advantages(policy: Any, step_adv: torch.Tensor, mask: torch.Tensor, comps: list[Any]) -> torch.Tensor:
    """Spread per-step advantages ``[N, T]`` over the tokens ``[N, L]`` of each step. A text
    policy says which step each token belongs to (``token_steps(completions, mask)``); the
    tiny policy has a fixed number of tokens per step."""
    if hasattr(policy, "token_steps"):
        steps = policy.token_steps(comps, mask)  # [N, L] step index of every token
    else:
        per = mask.shape[1] // step_adv.shape[1]
        steps = (torch.arange(mask.shape[1]) // max(1, per)).clamp(max=step_adv.shape[1] - 1).expand_as(mask)
    return step_adv.gather(1, steps.long())


def cpu_state(policy: Any, keys: Optional[set[str]] = None) -> dict[str, torch.Tensor]:
    """A copy of ``policy``'s weights on the CPU (a kept checkpoint must not grow GPU memory);
    with ``keys`` (:func:`trainable_keys`), of those alone: a VLM's frozen base is not copied."""
    return {k: v.detach().to("cpu", copy=True) for k, v in policy.state_dict().items() if keys is None or k in keys}


def trainable_keys(policy: Any) -> set[str]:
    """The ``state_dict`` keys of ``policy``'s trainable parameters: all of the tiny policy's,
    a VLM's LoRA adapters (its frozen base comes from ``--vlm-path`` again)."""
    ptrs = {p.data_ptr() for p in policy.parameters() if p.requires_grad}
    return {k for k, v in policy.state_dict().items() if v.data_ptr() in ptrs}


def load_trainable(policy: Any, weights: dict[str, torch.Tensor]) -> None:
    """Load ``weights`` (all of ``policy``'s, or its :func:`trainable_keys` only) into ``policy``."""
    full = policy.state_dict()
    unknown = weights.keys() - full.keys()
    if unknown:
        raise ValueError(f"weights of another model: {sorted(unknown)[:3]}")
    policy.load_state_dict({**full, **weights})


def first_step_mask(policy: Any, mask: torch.Tensor, comps: list[Any], horizon: int) -> torch.Tensor:
    """``mask`` restricted to the tokens of the first planned step (stage 2 scores only it).
    A text policy says where its first step ends (``first_step_mask(completions, mask)``);
    the tiny policy has a fixed number of tokens per step."""
    if hasattr(policy, "first_step_mask"):
        return policy.first_step_mask(comps, mask)
    out = mask.clone()
    out[:, mask.shape[1] // max(1, horizon) :] = 0
    return out


def main(argv: Optional[list[str]] = None) -> dict[str, Any]:
    args = tyro.cli(Args, args=argv, description=__doc__.split("\n")[0])
    problems = arg_problems(args)
    if problems:
        raise UsageError("train_small.py: " + "\n  ".join(["bad arguments:", *problems]))
    if args.algo == "ppo":
        from agents.sb3_baseline import ppo_setting, train_ppo

        # the measured setting (docs/ppo_baseline.md): smaller action space, action history, tuned PPO
        name = args.run_name or f"{args.env_id}__{args.level}__ppo__{args.seed}__{int(time.time())}"
        setting = ppo_setting(args.env_id, args.level, args.ppo_steps)
        # SB3 trains whole rollouts (n_envs x n_steps env steps): say so rather than overshoot silently
        rollout = setting["n_envs"] * setting["ppo_kwargs"]["n_steps"]
        setting["total_timesteps"] = -(-args.ppo_steps // rollout) * rollout
        if setting["total_timesteps"] != args.ppo_steps:
            print(f"train_small.py: --ppo-steps {args.ppo_steps} trains {setting['total_timesteps']} env steps (whole PPO "
                  f"rollouts of {setting['n_envs']} envs x {setting['ppo_kwargs']['n_steps']} steps)", file=sys.stderr)
        out = Path(args.out_dir) / name
        if not args.run_name:  # as GRPO's default names: a folder of its own
            out = new_run_folder(out)
            name = out.name
        for old in ("eval.json", "ppo.zip", "curves.csv", "curves.png", "policy.pt", "timing.csv", "interrupted.json", CHECKPOINT):
            _remove(out / old)  # a previous run's (GRPO's or PPO's), in a reused folder
        out.mkdir(parents=True, exist_ok=True)
        _write_atomic(out / "args.json", to_json(asdict(args)))
        try:
            return train_ppo(**setting, seed=args.seed, out_dir=out, eval_episodes=args.eval_episodes,
                             eval_every=max(1, max(args.ppo_steps, rollout) // 8), progress=args.progress, threads=args.threads)
        except KeyboardInterrupt:  # as GRPO's: a message and status 130, not a traceback
            print(f"train_small.py: interrupted; {Path(args.out_dir) / name} has no eval.json (not a finished run)",
                  file=sys.stderr)
            raise SystemExit(130) from None
    try:
        return train(args)
    except KeyboardInterrupt as e:  # Trainer.run said what it wrote (a graceful stop), or a second Ctrl-C aborted
        if not isinstance(e, TrainingInterrupted):
            print("train_small.py: interrupted; the run folder holds what was finished (no eval.json)", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    main(sys.argv[1:])
