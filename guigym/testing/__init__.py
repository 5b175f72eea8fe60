"""guigym.testing: a kit to unit-test GUI rewards (your own and guigym's).

* Hypothesis strategies — :func:`actions`, :func:`plan_steps`, :func:`plans`,
  :func:`model_texts` (valid / near-valid / garbage completions in every text format);
* fixtures — :func:`reference_cases` (env states with their dense reference), and
  :func:`cases_fixture` / :func:`case_params` for pytest;
* property checks — :func:`check_never_raises`, :func:`check_bounded`,
  :func:`check_garbage_never_beats_valid`, :func:`check_reference_is_best`,
  :func:`check_rescale_invariant`, :func:`run_all_checks`, each raising ``AssertionError``
  with the counterexample;
* :class:`RewardUnderTest` — how a reward is described to the checks —, adapters for
  every reward guigym ships (:func:`library_rewards`) and :func:`trl_reward_adapter` for your
  own TRL reward function ``(completions, **kwargs) -> list[float]``.

See ``docs/reward_testing.md``. Needs Hypothesis: ``pip install 'guigym[test]'``.
"""

from __future__ import annotations

try:
    import hypothesis  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "guigym.testing needs Hypothesis, which is in the test extra: pip install 'guigym[test]'"
    ) from e

from guigym.testing.adapters import (
    RewardUnderTest,
    action_similarity_adapter,
    action_type_reward_adapter,
    action_type_reward_trl_adapter,
    argument_reward_adapter,
    argument_reward_trl_adapter,
    easyr1_adapter,
    format_reward_adapter,
    format_reward_trl_adapter,
    grounded_reward_adapter,
    library_rewards,
    trajectory_bounds,
    trajectory_reward_adapter,
    trajectory_reward_trl_adapter,
    trl_reward_adapter,
    uir1_reward_adapter,
    uir1_reward_trl_adapter,
)
from guigym.testing.fixtures import Case, Reference, all_reference_cases, case_params, cases_fixture, reference_cases
from guigym.testing.properties import (
    CHECKS,
    MODEL_SIZES,
    PLAN_CORRUPTIONS,
    applicable_checks,
    check_bounded,
    check_garbage_never_beats_valid,
    check_never_raises,
    check_reference_is_best,
    check_rescale_invariant,
    corrupt_plan,
    reference_plan,
    run_all_checks,
)
from guigym.testing.strategies import (
    CORRUPTIONS,
    KINDS,
    MAX_TEXT,
    actions,
    corrupt_text,
    done_step,
    model_texts,
    parses,
    plan_steps,
    plans,
    to_text,
)

__all__ = [
    # strategies
    "actions", "plan_steps", "plans", "done_step", "model_texts", "to_text", "corrupt_text", "parses", "KINDS", "CORRUPTIONS", "MAX_TEXT",
    # fixtures
    "Case", "Reference", "reference_cases", "all_reference_cases", "case_params", "cases_fixture",
    # checks
    "check_never_raises", "check_bounded", "check_garbage_never_beats_valid", "check_reference_is_best",
    "check_rescale_invariant", "run_all_checks", "applicable_checks", "CHECKS", "MODEL_SIZES", "reference_plan", "corrupt_plan",
    "PLAN_CORRUPTIONS",
    # adapters
    "RewardUnderTest", "library_rewards", "trajectory_bounds", "trajectory_reward_adapter", "trajectory_reward_trl_adapter",
    "uir1_reward_adapter", "uir1_reward_trl_adapter", "format_reward_adapter", "format_reward_trl_adapter",
    "action_similarity_adapter", "action_type_reward_adapter", "argument_reward_adapter",
    "action_type_reward_trl_adapter", "argument_reward_trl_adapter", "easyr1_adapter", "grounded_reward_adapter",
    "trl_reward_adapter",
]
