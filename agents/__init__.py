"""Policies that act in guigym environments: the TraceR1 plan-act (MPC) loop, planners and
executors.

* :mod:`agents.plan_act` — :class:`PlanActAgent`, :func:`run_episode`, :func:`run_episodes` (many
  episodes in lockstep on an env pool, batched planning), :class:`EpisodeRecord`,
  :func:`summarize`, :func:`failure_counts`, the :class:`Planner` / :class:`Executor` protocols.
* :mod:`agents.planners` — :class:`OraclePlanner` (optionally noisy), :class:`RandomPlanner`.
* :mod:`agents.executors` — :class:`ElementExecutor` (element list, fuzzy label match).
* :mod:`agents.vlm` — :class:`VLMPlanner`, :class:`VLMExecutor`, :func:`load_vlm` (Hugging Face
  image-text-to-text checkpoints; needs ``torch`` and ``transformers``, imported lazily).
* :mod:`agents.tiny_vlm` — :func:`build_tiny_qwen25vl`, a tiny random Qwen2.5-VL for tests.
* :mod:`agents.tiny_policy` — :class:`TinyPlanner`, the small policy ``train_small.py`` trains
  (needs ``torch``, imported lazily).
* ``python -m agents.evaluate`` — the evaluation CLI.

``import agents`` needs neither torch nor transformers; the VLM names and ``TinyPlanner`` load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from agents.executors import ElementExecutor
from agents.plan_act import (
    ElementsView,
    EpisodeLoop,
    EpisodeRecord,
    Executor,
    Plan,
    PlanActAgent,
    Planner,
    failure_counts,
    run_episode,
    run_episodes,
    same_plan_step,
    summarize,
)
from agents.planners import OraclePlanner, RandomPlanner, corrupt_step

_LAZY = {
    "VLMPlanner": "agents.vlm",
    "VLMExecutor": "agents.vlm",
    "VLM": "agents.vlm",
    "load_vlm": "agents.vlm",
    "build_tiny_qwen25vl": "agents.tiny_vlm",
    "TinyPlanner": "agents.tiny_policy",
}

__all__ = [
    "Plan",
    "Planner",
    "Executor",
    "PlanActAgent",
    "EpisodeRecord",
    "EpisodeLoop",
    "ElementsView",
    "run_episode",
    "run_episodes",
    "same_plan_step",
    "summarize",
    "failure_counts",
    "OraclePlanner",
    "RandomPlanner",
    "corrupt_step",
    "ElementExecutor",
    "VLMPlanner",
    "VLMExecutor",
    "VLM",
    "load_vlm",
    "build_tiny_qwen25vl",
    "TinyPlanner",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'agents' has no attribute {name!r}")
