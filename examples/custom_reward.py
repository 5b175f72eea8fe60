"""A custom GUI reward, tested with guigym.testing (the code of docs/reward_testing.md).

A "click-distance" reward for the first planned step: full credit for the right action,
partial credit for a click that lands *near* the target box. Version 1 measures "near" in
pixels, and the kit shows it is not invariant to image rescaling; version 2 measures it in
box sizes and passes every check.

    python examples/custom_reward.py        # needs: pip install 'guigym[test]'
"""

from __future__ import annotations

import math

from guigym.action_text import parse_plan
from guigym.actions import Click
from guigym.rewards import action_similarity
from guigym.testing import (
    RewardUnderTest,
    all_reference_cases,
    check_rescale_invariant,
    run_all_checks,
)


def click_distance_v1(steps, reference):
    """1 for a correct first step; a click outside its box gets ``max(0, 1 − d/400)`` with
    ``d`` the pixel distance to the box centre, halved. (Pixels: not rescale-invariant.)"""
    if not steps or not reference:
        return 0.0
    pred, ref = steps[0], reference[0]
    if isinstance(pred.action, Click) and isinstance(ref.action, Click) and ref.box is not None:
        x0, y0, x1, y1 = ref.box
        if x0 <= pred.action.x <= x1 and y0 <= pred.action.y <= y1:
            return 1.0
        d = math.hypot(pred.action.x - (x0 + x1) / 2, pred.action.y - (y0 + y1) / 2)
        return 0.5 * max(0.0, 1.0 - d / 400)
    return action_similarity(pred, ref)  # 0/1 for the other action types (guigym's rule)


def click_distance_v2(steps, reference):
    """As v1, but the gap to the box is measured in box widths/heights, so it means the same
    at every image size: ``0.5 · max(0, 1 − hypot(gap_x / w, gap_y / h))``."""
    if not steps or not reference:
        return 0.0
    pred, ref = steps[0], reference[0]
    if isinstance(pred.action, Click) and isinstance(ref.action, Click) and ref.box is not None:
        x0, y0, x1, y1 = ref.box
        x, y = pred.action.x, pred.action.y
        if x0 <= x <= x1 and y0 <= y <= y1:
            return 1.0
        gap_x = max(x0 - x, 0, x - x1) / (x1 - x0 + 1)
        gap_y = max(y0 - y, 0, y - y1) / (y1 - y0 + 1)
        return 0.5 * max(0.0, 1.0 - math.hypot(gap_x, gap_y))
    return action_similarity(pred, ref)


def text_version(score_plan):
    """The reward on raw model text: parse the plan; text that does not parse gets the
    bottom of the range (0), never more than a valid answer."""

    def score_text(text, reference):
        try:
            steps = parse_plan(text, "json")
        except Exception:  # ActionParseError, or anything else on odd text
            return 0.0
        return score_plan(steps, reference)

    return score_text


def reward_under_test(score_plan, name):
    return RewardUnderTest(
        name,
        low=0.0,
        high=1.0,
        score_plan=score_plan,
        score_text=text_version(score_plan),
        fmt="json",
        first_step_only=True,
        # rounding to whole pixels moves a point and a box edge by up to a pixel, so a
        # *continuous* reward can only be rescale-invariant up to a tolerance
        tol=0.05,
    )


def main(max_examples: int = 30) -> dict:
    cases = all_reference_cases(["GuiGym-Login-v0", "GuiGym-Settings-v0", "GuiGym-Launcher-v0"], seeds=range(2), detours=(0, 2))
    v1 = reward_under_test(click_distance_v1, "click_distance_v1")
    try:
        check_rescale_invariant(v1, cases, max_examples=max_examples)
        v1_error = None
    except AssertionError as e:
        v1_error = str(e)
    v2 = reward_under_test(click_distance_v2, "click_distance_v2")
    passed = run_all_checks(v2, cases, max_examples=max_examples)
    return {"cases": len(cases), "v1_error": v1_error, "v2_passed": passed}


def cli(argv: list[str] | None = None) -> dict:
    """The script's flags: it took none and ran the whole example on ``--help`` or any typo."""
    import argparse

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--max-examples", type=int, default=30, help="drawn examples per check (default: 30)")
    a = p.parse_args(argv)
    if a.max_examples < 1:
        p.error(f"--max-examples must be >= 1, got {a.max_examples}")
    return main(a.max_examples)


if __name__ == "__main__":
    out = cli()
    print(f"{out['cases']} cases")
    print("v1:", (out["v1_error"] or "passed?!").splitlines()[0])
    print("v2 passed:", ", ".join(out["v2_passed"]))
