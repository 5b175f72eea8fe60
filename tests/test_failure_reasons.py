"""``info["failure"]``: why an episode ended without success, from each family's ``failed``, on
every registered id; the plan-act loop's records and ``agents.evaluate`` carry it."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

from agents import EpisodeRecord, PlanActAgent, failure_counts, run_episode
from agents.planners import RandomPlanner
from guigym.actions import Answer, Click
from guigym.apps.family import CALL_PLACED, WRONG_ANSWER
from guigym.registration import env_ids

GENERIC = ("the task can no longer succeed", "no plan reaches success from this state")


@pytest.mark.parametrize("env_id", env_ids())
def test_a_failed_episode_says_why_and_no_other_step_does(env_id: str) -> None:
    """Episodes of reference steps mixed with clicks on random visible elements (side effects:
    calls, deletions, wrong answers): ``failure`` is None on every step but the one that ends an
    episode without success, where it is the family's own reason (never the generic fallbacks)."""
    env = gym.make(env_id, max_episode_steps=60)
    rng = np.random.default_rng(0)
    failed = 0
    for level in env.unwrapped.family.levels:
        for seed in range(8):
            _, info = env.reset(seed=seed, options={"level": level})
            assert info["failure"] is None
            for _ in range(60):
                els = info["elements"]
                if info["reference"] and (rng.random() < 0.4 or not els):
                    action = info["reference"][0].action
                else:
                    x0, y0, x1, y1 = els[rng.integers(len(els))]["box"]
                    action = Click((x0 + x1) // 2, (y0 + y1) // 2)
                _, _, terminated, truncated, info = env.step(action)
                if terminated and not info["success"]:
                    u = env.unwrapped
                    why = u.family.failed(u.scenario, u.get_state()["state"])
                    assert isinstance(info["failure"], str) and info["failure"] == why and why not in GENERIC, (level, seed)
                    failed += 1
                else:
                    assert info["failure"] is None, (level, seed, info["failure"])
                if terminated or truncated:
                    break
    # Settings: every change can be undone; Launcher: only strict=True fails; Files: a deletion takes
    # the select mode and a dialog (tests/test_files.py and tests/test_strict_success.py check those)
    if env_id not in ("GuiGym-Settings-v0", "GuiGym-Launcher-v0", "GuiGym-Files-v0"):
        assert failed > 0


def test_a_wrong_answer_and_a_call_say_so() -> None:
    env = gym.make("GuiGym-Contacts-v0")
    for seed in range(50):
        _, info = env.reset(seed=seed, options={"level": "easy"})
        if env.unwrapped.family.question(env.unwrapped.scenario):
            break
    _, _, terminated, _, info = env.step(Answer("not the answer"))
    assert terminated and not info["success"] and info["failure"] == WRONG_ANSWER
    for seed in range(50):  # a person's screen has Call: no task asks for a call
        _, info = env.reset(seed=seed, options={"level": "easy"})
        while info["reference"] and not any(e["label"] == "Call" for e in info["elements"]):
            *_, info = env.step(info["reference"][0].action)
        call = next((e for e in info["elements"] if e["label"] == "Call"), None)
        if call is not None:
            break
    assert call is not None, "no seed showed a Call button"
    x0, y0, x1, y1 = call["box"]
    _, _, terminated, _, info = env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
    assert terminated and info["failure"] == CALL_PLACED


def test_episode_records_and_evaluate_report_the_failures() -> None:
    env = gym.make("GuiGym-Contacts-v0")
    recs = [run_episode(env, PlanActAgent(RandomPlanner(horizon=1, seed=s)), seed=s, max_steps=40) for s in range(12)]
    for r in recs:
        assert (r.failure is not None) == (r.terminated and not r.success)
        assert r.to_dict()["failure"] == r.failure
    counts = failure_counts(recs)
    assert sum(counts.values()) == sum(r.failure is not None for r in recs) > 0
    assert list(counts.values()) == sorted(counts.values(), reverse=True)
    assert failure_counts([EpisodeRecord("x", "easy", 0, "", False, 1)]) == {}
    out = subprocess.run([sys.executable, "-m", "agents.evaluate", "--env", "GuiGym-Contacts-v0", "--level", "hard",
                          "--planner", "oracle", "--noise", "0.5", "--episodes", "30", "--no-progress"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    failed = [line for line in out.splitlines() if line.startswith("  failed: ")]
    assert len(failed) == 1 and " x " in failed[0], out


def test_train_small_evaluation_counts_the_failures() -> None:
    """``eval.json``'s ``policy`` (and ``random``) metrics: ``failures``, the reasons counted."""
    import train_small

    args = train_small.Args(env_id="GuiGym-Contacts-v0", progress=False)
    out = train_small.evaluate(args, RandomPlanner(horizon=args.horizon, seed=0), list(range(10, 22)), max_steps=40)
    assert out["failures"] and sum(out["failures"].values()) <= 12 - round(12 * out["success_rate"])
    assert all(isinstance(k, str) and k not in GENERIC for k in out["failures"])
