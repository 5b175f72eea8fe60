"""Second audit of the model-free agent layer (``agents.plan_act``, ``agents.planners``,
``agents.evaluate``): a lone Type/Answer reported as model text, ``max_steps=0``, the open loop
past a ``done`` step, planner arguments that broke only at the first plan, and the grid's
failure reasons and spread."""

from __future__ import annotations

import json
import re
from functools import partial

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from agents import OraclePlanner, PlanActAgent, RandomPlanner, run_episode, run_episodes
from agents.env_pool import InlineEnvPool
from agents.plan_act import Plan
from guigym.actions import Answer, Back, PlanStep, Type
from tests.conftest import Returns


@pytest.fixture(scope="module")
def login():
    env = gym.make("GuiGym-Login-v0")
    yield env
    env.close()


@pytest.mark.parametrize("action", [Type("alice"), Answer("3 pm")])
def test_a_lone_type_or_answer_is_not_recorded_as_the_plans_model_text(login, action):
    """``Plan.text`` is the planner's raw model text; a lone Type's own ``text`` (what it types)
    was taken for it and written to the record's ``plans[i]["text"]``."""
    plan = PlanActAgent(Returns(action)).plan({}, {}, [])
    assert list(plan) == [PlanStep(action)] and plan.text is None and plan.error is None
    rec = run_episode(login, PlanActAgent(Returns(action)), seed=0, max_steps=1)
    assert rec.to_dict()["plans"][0]["text"] is None
    # a Plan still carries its own text and error
    own = PlanActAgent(Returns(Plan([PlanStep(action)], text="raw model answer", error=None))).plan({}, {}, [])
    assert own.text == "raw model answer"


def test_max_steps_zero_cuts_the_episode_before_it_begins(login):
    """``max_steps=0`` ran the whole episode (0 was read as "the default"), unlike
    ``run_episodes``' ``limit`` 0 and ``EpisodeLoop``'s; a negative one is an error."""
    rec = run_episode(login, PlanActAgent(OraclePlanner()), seed=0, max_steps=0)
    assert rec.steps == 0 and rec.truncated and not rec.terminated and not rec.success and rec.plans == []
    pool = InlineEnvPool(partial(gym.make, "GuiGym-Login-v0"), num_envs=1, with_state=False)
    try:
        [lock] = run_episodes(pool, PlanActAgent(OraclePlanner()), [0], 0, env_id="GuiGym-Login-v0")
    finally:
        pool.close()
    assert lock.to_dict() == rec.to_dict()
    with pytest.raises(ValueError, match="max_steps must be >= 0"):
        run_episode(login, PlanActAgent(OraclePlanner()), seed=0, max_steps=-1)


def test_a_negative_lockstep_limit_is_an_error_not_episodes_of_no_steps():
    pool = InlineEnvPool(partial(gym.make, "GuiGym-Login-v0"), num_envs=1, with_state=False)
    try:
        with pytest.raises(ValueError, match="limit must be >= 0"):
            run_episodes(pool, PlanActAgent(OraclePlanner()), [0, 1], -1)
    finally:
        pool.close()


def test_the_open_loop_does_not_execute_steps_after_done(login):
    """A ``done`` step ends a plan: the open loop executed what a hand-made plan put after it."""
    _, info = login.reset(seed=0)
    first = info["reference"][0]
    plan = [PlanStep(first.action, first.instruction), PlanStep(action_type="done"), PlanStep(Back(), "Go back")]
    agent = PlanActAgent(Returns(plan), open_loop=True)
    assert [s.kind for s in agent.plan({}, {}, [])] == [first.action.type, "done"]
    rec = run_episode(login, agent, seed=0, max_steps=4)
    assert Back() not in rec.actions
    assert rec.actions == [first.action, None] * 2 and rec.plan_steps == [0, 2]
    assert rec.errors[1] == "plan ended (done)"


@pytest.mark.parametrize("make", [
    lambda: OraclePlanner(horizon=2.5),
    lambda: OraclePlanner(horizon="3"),
    lambda: OraclePlanner(noise="0.3"),
    lambda: RandomPlanner(horizon=1.5),
    lambda: RandomPlanner(weights=(float("nan"), 1, 1, 1)),
    lambda: RandomPlanner(weights=(float("inf"), 1, 1, 1)),
])
def test_bad_planner_arguments_fail_when_the_planner_is_made(make):
    """Each was a ``TypeError`` (slicing by 2.5, comparing a str) or numpy's "Probabilities
    contain NaN" at the first plan, in the middle of a rollout; now a ``ValueError`` at once."""
    with pytest.raises(ValueError, match="horizon must be an int|noise must be|weights must be"):
        make()


def test_planner_arguments_that_were_fine_still_are():
    assert OraclePlanner(horizon=np.int64(3), noise=0).horizon == 3
    assert OraclePlanner(noise=np.float32(0.5)).noise == 0.5
    assert np.allclose(RandomPlanner(horizon=2, weights=(1, 0, 0, 1)).p, [0.5, 0, 0, 0.5])


def test_the_grid_prints_failure_reasons_and_the_population_std(tmp_path, monkeypatch, capsys):
    """``--variations grid`` printed no failure reasons (the plain run prints them under each
    id and level); its std is the population std of the variants' rates, as the JSON gives them."""
    import guigym.variation as variation
    from agents.evaluate import main

    three = variation.grid("train")[:3]
    monkeypatch.setattr(variation, "grid", lambda split, opt_in=False: three)
    jl = tmp_path / "g.jsonl"
    assert main(["--env", "GuiGym-Contacts-v0", "--level", "hard", "--noise", "0.4", "--episodes", "8",
                 "--variations", "grid", "--json", str(jl), "--no-progress"]) == 0
    out = capsys.readouterr().out
    rows = [json.loads(line) for line in jl.read_text().splitlines()]
    rates, failed_lines = [], re.findall(r"^  failed: (.*)$", out, re.M)
    expected_failed = []
    for name, _ in three:
        recs = [r for r in rows if r["variant"] == name]
        rates.append(sum(r["success"] for r in recs) / len(recs))
        assert f"{name:30} success {rates[-1]:.1%}" in out
        reasons: dict[str, int] = {}
        for r in recs:
            if r["failure"] is not None:
                reasons[r["failure"]] = reasons.get(r["failure"], 0) + 1
        if reasons:
            expected_failed.append("; ".join(f"{n} x {why}" for why, n in sorted(reasons.items(), key=lambda kv: -kv[1])))
    assert expected_failed and failed_lines == expected_failed  # this seed range has failures
    std = re.search(r"std ([\d.]+)% \(population\)", out)
    assert std and float(std.group(1)) == pytest.approx(100 * np.std(rates), abs=0.05)
