"""Rewards for GUI agents: UI-R1 (rule-based, per step), TraceR1 stage 1 (trajectory) and
stage 2 (grounded, executed on the env), plus TRL ``GRPOTrainer`` adapters.

Every function is pure (the grounded reward restores the env it used), typed, and carries
its formula and a doctest.
"""

from guigym.rewards._common import events_match, token_f1
from guigym.rewards.grounded import Executor, grounded_reward, grounded_rewards
from guigym.rewards.tracer1 import (
    action_similarity,
    refers_to,
    repetition,
    same_action,
    same_ref_step,
    same_target,
    step_target,
    trajectory_reward,
    trajectory_reward_range,
    trajectory_step_rewards,
)
from guigym.rewards.trl import (
    ActionTypeReward,
    ArgumentReward,
    FormatReward,
    TrajectoryReward,
    UIR1Reward,
    completion_text,
    load_elements,
    load_reference,
)
from guigym.rewards.uir1 import (
    action_type_reward,
    argument_reward,
    box_iou,
    format_reward,
    iou_argument_reward,
    point_in_box,
    uir1_reward,
)

__all__ = [
    "action_type_reward",
    "argument_reward",
    "box_iou",
    "iou_argument_reward",
    "format_reward",
    "uir1_reward",
    "point_in_box",
    "action_similarity",
    "repetition",
    "same_action",
    "same_ref_step",
    "same_target",
    "trajectory_reward",
    "trajectory_reward_range",
    "trajectory_step_rewards",
    "refers_to",
    "step_target",
    "Executor",
    "grounded_reward",
    "grounded_rewards",
    "events_match",
    "token_f1",
    "UIR1Reward",
    "ActionTypeReward",
    "ArgumentReward",
    "FormatReward",
    "TrajectoryReward",
    "completion_text",
    "load_reference",
    "load_elements",
]
