"""``agents.plan_act.run_episodes``: the plan-act loop of many episodes in lockstep on an env
pool (batched planning; ``train_small.py --rollout-workers``' evaluations) gives the episodes
``run_episode`` gives one at a time, whatever the pool's size and spread over processes."""

from __future__ import annotations

from functools import partial

import gymnasium as gym
import pytest
import torch

import guigym  # noqa: F401
from agents import ElementExecutor, OraclePlanner, PlanActAgent, run_episode
from agents.env_pool import InlineEnvPool, ProcessEnvPool
from agents.plan_act import Plan, run_episodes
from agents.tiny_policy import TinyConfig, TinyPlanner, TinyPolicy
from guigym.actions import Back


class DetourPlanner:
    """The oracle, except a Back after the first executed action and an empty plan (a no-op)
    after the third: deterministic per state, so its episodes do not depend on ``reset``."""

    horizon = 3

    def __init__(self) -> None:
        self.oracle = OraclePlanner(horizon=3)

    def reset(self, seed=None) -> None:
        pass

    def plan(self, obs, info, history):
        if len(history) == 1:
            return [Back()]
        if len(history) == 3:
            return Plan([], error="nothing planned")
        return self.oracle.plan(obs, info, history)


class Decisions(gym.Wrapper):
    """Records what ``run_episodes``' ``on_decision`` reports: after the reset and after every
    step that did not end the episode (the reference's actions and the history's length)."""

    def __init__(self, env):
        super().__init__(env)
        self.seen: list[tuple] = []
        self.history = 0

    def reset(self, **kw):
        obs, info = self.env.reset(**kw)
        self.history = 0
        self.seen.append(_decision(info, 0))
        return obs, info

    def step(self, action):
        obs, r, term, trunc, info = self.env.step(action)
        self.history += action is not None
        if not (term or trunc):
            self.seen.append(_decision(info, self.history))
        return obs, r, term, trunc, info


def _decision(info, n_history):
    return (tuple(r.action for r in info["reference"]), n_history)


AGENTS = {
    "oracle": lambda: PlanActAgent(OraclePlanner(horizon=4)),
    "ungrounded": lambda: PlanActAgent(OraclePlanner(horizon=4, grounded=False), ElementExecutor()),
    "detour": lambda: PlanActAgent(DetourPlanner()),
    "open-loop": lambda: PlanActAgent(OraclePlanner(horizon=3), open_loop=True),
}


@pytest.mark.parametrize("agent", sorted(AGENTS))
@pytest.mark.parametrize("env_id,level,limit", [("GuiGym-Login-v0", "easy", 50), ("GuiGym-Settings-v0", "medium", 4)])
def test_lockstep_episodes_equal_one_at_a_time(agent, env_id, level, limit):
    """Same records (plans, actions, rewards, errors, success, consistency) and the same
    decision points as ``run_episode`` per seed; a pool of 3 envs runs 7 seeds (slots are
    reused as episodes end; with ``limit`` 4 some end by the step limit, not the env)."""
    seeds = [5, 0, 11, 3, 8, 1, 20]
    env = Decisions(gym.make(env_id, level=level))
    one = []
    for s in seeds:
        one.append(run_episode(env, AGENTS[agent](), seed=s, max_steps=limit).to_dict())
    env.close()
    pool = InlineEnvPool(partial(gym.make, env_id, level=level), num_envs=3, with_state=False)
    seen: dict[int, list] = {i: [] for i in range(len(seeds))}
    try:
        recs = run_episodes(pool, AGENTS[agent](), seeds, limit, env_id=env_id,
                            on_decision=lambda i, obs, info, history: seen[i].append(_decision(info, len(history))))
    finally:
        pool.close()
    assert [r.to_dict() for r in recs] == one
    assert [d for i in range(len(seeds)) for d in seen[i]] == env.seen
    if agent == "detour":
        assert any(r.errors.count("nothing planned") for r in recs)
    if limit == 4:
        assert any(r.steps == 4 and r.truncated and not r.terminated for r in recs)  # cut by the limit: truncated


def test_lockstep_episodes_do_not_depend_on_the_worker_processes():
    """Envs in two worker processes, or in this one: the same records."""
    seeds = list(range(6))
    make = partial(gym.make, "GuiGym-Login-v0", level="medium")
    out = []
    for pool in (InlineEnvPool(make, num_envs=4, with_state=False), ProcessEnvPool(make, num_envs=4, workers=2, with_state=False)):
        try:
            out.append([r.to_dict() for r in run_episodes(pool, PlanActAgent(OraclePlanner(horizon=2)), seeds, 40)])
        finally:
            pool.close()
    assert out[0] == out[1]
    assert all(r["success"] for r in out[0])


def test_a_zero_step_limit_and_more_slots_than_seeds():
    pool = InlineEnvPool(partial(gym.make, "GuiGym-Login-v0"), num_envs=4, with_state=False)
    try:
        recs = run_episodes(pool, PlanActAgent(OraclePlanner()), [1, 2], 0)
        assert [(r.seed, r.steps, r.success) for r in recs] == [(1, 0, False), (2, 0, False)]
        assert run_episodes(pool, PlanActAgent(OraclePlanner()), [], 10) == []
    finally:
        pool.close()


def test_plan_batch_must_return_a_plan_per_episode():
    class Short(OraclePlanner):
        def plan_batch(self, obs, infos, histories):
            return []

    pool = InlineEnvPool(partial(gym.make, "GuiGym-Login-v0"), num_envs=2, with_state=False)
    try:
        with pytest.raises(ValueError, match="0 plans for 2 episodes"):
            run_episodes(pool, PlanActAgent(Short()), [1, 2], 10)
    finally:
        pool.close()


def test_tiny_planner_plans_a_batch_greedily():
    """``TinyPlanner.plan_batch``: one forward pass for several episodes; each plan is the one
    ``plan`` decodes alone (up to floating point: an untrained policy has no near-ties here);
    a sampling planner refuses (its plans depend on each episode's generator)."""
    torch.manual_seed(0)
    policy = TinyPolicy(TinyConfig(horizon=3))
    env = gym.make("GuiGym-Login-v0", level="medium")
    batch = []
    for s in range(8):
        obs, info = env.reset(seed=s)
        batch.append((obs, info, [info["reference"][0].action] if s % 2 else []))
    env.close()
    planner = TinyPlanner(policy, greedy=True, horizon=3)
    plans = planner.plan_batch(*map(list, zip(*batch)))
    alone = [planner.plan(o, i, h) for o, i, h in batch]
    assert len(plans) == 8 and all(len(p) == 3 for p in plans)
    assert sum(list(a) == list(b) for a, b in zip(plans, alone)) >= 7
    assert planner.plan_batch([], [], []) == []
    with pytest.raises(ValueError, match="greedily"):
        TinyPlanner(policy, greedy=False).plan_batch(*map(list, zip(*batch)))


def test_bench_eval_lockstep_runs_on_a_saved_policy(tmp_path, capsys):
    """``benchmarks/bench_eval_lockstep.py``: reads the run's ``args.json`` beside the policy,
    evaluates both ways and prints every metric of both."""
    import dataclasses
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_eval_lockstep
    import train_small

    torch.manual_seed(0)
    TinyPolicy(TinyConfig(horizon=3)).save(str(tmp_path / "policy.pt"))
    args = train_small.Args(horizon=3, eval_episodes=3, eval_max_steps=4, progress=False)
    (tmp_path / "args.json").write_text(json.dumps(dataclasses.asdict(args)))
    assert bench_eval_lockstep.main([str(tmp_path / "policy.pt"), "--workers", "2", "--eval-batch", "2"]) == 0
    out = capsys.readouterr().out
    assert "3 held-out seeds from 10000" in out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "metric" not in line]
    assert [r.split(" | ")[0][2:] for r in rows] == [*bench_eval_lockstep.KEYS, "wall time (s)"]
    assert "metrics that differ:" in out
    with pytest.raises(SystemExit):
        bench_eval_lockstep.main([str(tmp_path / "missing.pt")])
