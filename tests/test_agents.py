"""The plan-act loop, the model-free planners and the element executor (``agents``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from agents import (
    ElementExecutor,
    EpisodeRecord,
    OraclePlanner,
    Plan,
    PlanActAgent,
    Planner,
    RandomPlanner,
    corrupt_step,
    run_episode,
    same_plan_step,
    summarize,
)
from agents.executors import instruction_action, match_element, quoted
from agents.plan_act import NOOP
from guigym.actions import Back, Click, OpenApp, PlanStep, RefStep, Scroll, Type
from guigym.apps import FAMILIES
from guigym.registration import env_ids, id_levels
from guigym.rewards import Executor as RewardExecutor
from guigym.rewards import grounded_reward

IDS = env_ids()
ID_LEVELS = id_levels()


@pytest.fixture(scope="module")
def envs():
    made = {i: gym.make(i) for i in IDS}
    yield made
    for e in made.values():
        e.close()


def _run(env, agent, seeds, level):
    return summarize([run_episode(env, agent, seed=s, level=level) for s in seeds])


# ------------------------------------------------------------------ acceptance: oracle


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_oracle_plan_act_succeeds_on_every_seed(envs, env_id, level):
    """Acceptance: the oracle in the plan-act loop succeeds on 100 of 100 seeds, with
    perfectly consistent plans and no no-op step."""
    env = envs[env_id]
    agent = PlanActAgent(OraclePlanner(horizon=8))
    recs = [run_episode(env, agent, seed=s, level=level) for s in range(100)]
    failed = [r.seed for r in recs if not r.success]
    assert not failed, f"{env_id} {level}: oracle failed on seeds {failed}"
    s = summarize(recs)
    assert s["success_rate"] == 1.0 and s["noop_rate"] == 0.0
    assert s["plan_consistency"] == 1.0
    assert all(r.steps == len(r.plans) for r in recs)  # closed loop: one plan per step


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_ungrounded_oracle_through_element_executor(envs, env_id, level):
    """Plans of action types + instructions only, grounded by the ElementExecutor (fuzzy
    label match over the element list), succeed like the grounded oracle, in the same
    number of steps."""
    env = envs[env_id]
    grounded = PlanActAgent(OraclePlanner(horizon=4))
    agent = PlanActAgent(OraclePlanner(horizon=4, grounded=False), ElementExecutor())
    for seed in range(30):
        r = run_episode(env, agent, seed=seed, level=level)
        assert r.success, (env_id, level, seed, [e for e in r.errors if e])
        assert all(s.action is None or isinstance(s.action, Back) for s in r.executed)
        assert r.steps == run_episode(env, grounded, seed=seed, level=level).steps


@pytest.mark.parametrize("env_id", IDS)
def test_open_loop_noise_free_oracle_succeeds(envs, env_id):
    env = envs[env_id]
    agent = PlanActAgent(OraclePlanner(horizon=8), open_loop=True)
    for level in FAMILIES[env.unwrapped.family.name].levels:
        for seed in range(20):
            r = run_episode(env, agent, seed=seed, level=level)
            assert r.success, (env_id, level, seed)
            assert len(r.plans) == -(-r.steps // 8)  # one plan per 8 executed steps


#: Where a corrupted step commits a change that cannot be taken back, re-planning cannot undo
#: it and the noisy loop stays below 95 %: a Save with a corrupted time or date (Calendar), a
#: mail or message sent or a note saved with a corrupted text (Mail, Phone), a call placed from
#: a person's screen (Contacts, Phone, CrossApp) fails the task at once. Measured on the 90
#: episodes below: Calendar 94.4 %, Mail 87.8 %, Contacts 90.0 %, Phone 73.3 %, CrossApp 81.1 %
#: (every CrossApp task ends in such sends and saves, two or three at hard); the floors sit a
#: few points under. Re-planning must still beat open loop everywhere.
MIN_REPLAN_SUCCESS = {"GuiGym-Calendar-v0": 0.9, "GuiGym-Mail-v0": 0.83, "GuiGym-Contacts-v0": 0.86, "GuiGym-Phone-v0": 0.7,
                      "GuiGym-CrossApp-v0": 0.76}


@pytest.mark.parametrize("env_id", IDS)
def test_replanning_beats_open_loop_with_noisy_oracle(envs, env_id):
    """Acceptance: with ε = 0.3 the re-planning loop succeeds clearly more often than
    open-loop execution of the same noisy plans (README table: benchmarks/bench_replanning.py)."""
    env = envs[env_id]
    seeds = range(30)
    replan, open_ = [], []
    for level in FAMILIES[env.unwrapped.family.name].levels:
        replan += [run_episode(env, PlanActAgent(OraclePlanner(8, noise=0.3)), seed=s, level=level) for s in seeds]
        open_ += [run_episode(env, PlanActAgent(OraclePlanner(8, noise=0.3), open_loop=True), seed=s, level=level) for s in seeds]
    a, b = summarize(replan), summarize(open_)
    assert a["success_rate"] >= MIN_REPLAN_SUCCESS.get(env_id, 0.95), a
    assert a["success_rate"] - b["success_rate"] >= 0.05, (a, b)
    # fewer steps on the episodes both solve: where a mistake ends the episode at once (a
    # message cannot be unsent), open loop's mean over all episodes is short because it fails early
    both = [(r.steps, o.steps) for r, o in zip(replan, open_) if r.success and o.success]
    assert both and sum(r for r, _ in both) < sum(o for _, o in both), (a, b, both)


@pytest.mark.parametrize("argv,says", [
    (["--episodes", "0"], "--episodes must be >= 1, got 0"),  # printed a table of nan
    (["--backend", "chrome"], "invalid choice: 'chrome'"),  # raised in gym.make
    (["--noise", "1.5", "--horizon", "0"], "--horizon must be >= 1, got 0; --noise must be in [0, 1], got 1.5"),
])
def test_bench_replanning_names_a_bad_flag_before_it_starts(argv, says, capsys):
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_replanning

    with pytest.raises(SystemExit) as e:
        bench_replanning.main(argv)
    err = capsys.readouterr()
    assert e.value.code == 2 and says in err.err and "| env id" not in err.out


# ------------------------------------------------------------------ the loop itself


class Scripted:
    """A planner that returns fixed plans in turn (and records what it was given)."""

    def __init__(self, plans, horizon=8):
        self.plans, self.horizon, self.calls, self.seeds = list(plans), horizon, [], []

    def reset(self, seed=None):
        self.seeds.append(seed)

    def plan(self, obs, info, history):
        self.calls.append((obs["instruction"], list(history)))
        return self.plans[min(len(self.calls) - 1, len(self.plans) - 1)]


def test_planner_protocol():
    assert isinstance(OraclePlanner(), Planner) and isinstance(RandomPlanner(), Planner)
    assert isinstance(Scripted([[NOOP]]), Planner)
    assert isinstance(ElementExecutor(), RewardExecutor)


def test_only_first_step_is_executed_and_history_is_passed(login_env):
    _, info = login_env.reset(seed=0)
    ref = info["reference"]
    plans = [Plan([PlanStep(ref[0].action, ref[0].instruction), PlanStep(Back(), "Go back")])]
    planner = Scripted(plans + [Plan([PlanStep(r.action) for r in ref[1:]]), Plan([PlanStep(r.action) for r in ref[2:]])])
    rec = run_episode(login_env, PlanActAgent(planner), seed=0, max_steps=3)
    assert rec.actions[0] == ref[0].action  # the first step, not Back
    assert Back() not in rec.actions
    assert planner.calls[1][1] == [ref[0].action]  # history of executed actions
    assert planner.seeds == [0]
    # plan 2 starts with ref[1] but plan 1's second step was Back: inconsistent;
    # plan 3 starts with ref[2], plan 2's second step: consistent
    assert rec.consistency_total == 2 and rec.consistency_hits == 1


def test_consistency_counts_new_first_vs_previous_second(login_env):
    _, info = login_env.reset(seed=0)
    ref = info["reference"]
    rec = run_episode(login_env, PlanActAgent(OraclePlanner(horizon=1)), seed=0)
    assert rec.success and rec.consistency is None  # T = 1: nothing to compare
    rec = run_episode(login_env, PlanActAgent(OraclePlanner(horizon=2)), seed=0)
    assert rec.consistency_total == len(ref) - 1 and rec.consistency == 1.0


def test_open_loop_executes_whole_plan_then_replans(login_env):
    _, info = login_env.reset(seed=1)
    ref = info["reference"]
    plan = Plan([PlanStep(Back(), "Go back")] + [PlanStep(r.action) for r in ref])
    planner = Scripted([plan], horizon=3)
    rec = run_episode(login_env, PlanActAgent(planner, open_loop=True), seed=1, max_steps=6)
    assert rec.plan_steps == [0, 3] and len(planner.calls) == 2
    assert rec.actions[:3] == [Back(), ref[0].action, ref[1].action]  # cut to horizon 3


def test_noop_steps_never_crash_and_consume_time(login_env):
    planner = Scripted([Plan([NOOP], text="garbage", error="ActionParseError: nope")], horizon=4)
    rec = run_episode(login_env, PlanActAgent(planner), seed=0)
    assert not rec.success and rec.truncated and rec.steps == login_env.spec.max_episode_steps
    assert rec.actions == [None] * rec.steps
    assert all(e == "ActionParseError: nope" for e in rec.errors)
    assert rec.plans[0].text == "garbage" and rec.plan_errors[0] == "ActionParseError: nope"
    assert summarize([rec])["noop_rate"] == 1.0


def test_empty_plan_and_ungrounded_without_executor_are_noops(login_env):
    rec = run_episode(login_env, PlanActAgent(Scripted([[]])), seed=0, max_steps=2)
    assert rec.actions == [None, None] and "empty plan" in rec.errors[0]
    step = PlanStep(action_type="click", instruction="Click the 'Sign in' button")
    rec = run_episode(login_env, PlanActAgent(Scripted([[step]])), seed=0, max_steps=2)
    assert rec.actions == [None, None] and "no executor" in rec.errors[0]
    rec = run_episode(login_env, PlanActAgent(Scripted([[step]]), ElementExecutor()), seed=0, max_steps=1)
    assert isinstance(rec.actions[0], Click) and rec.errors == [None]


def test_executor_failure_is_a_noop(login_env):
    def broken(env, step):
        raise RuntimeError("model crashed")

    step = PlanStep(action_type="click", instruction="Click 'nothing like this'")
    rec = run_episode(login_env, PlanActAgent(Scripted([[step]]), broken), seed=0, max_steps=1)
    assert rec.actions == [None] and "model crashed" in rec.errors[0]
    rec = run_episode(login_env, PlanActAgent(Scripted([[step]]), ElementExecutor()), seed=0, max_steps=1)
    assert rec.actions == [None] and "no visible element matches" in rec.errors[0]


def test_invalid_action_error_is_recorded(login_env):
    rec = run_episode(login_env, PlanActAgent(Scripted([[PlanStep(OpenApp("NoSuchApp"))]])), seed=0, max_steps=1)
    assert rec.actions == [OpenApp("NoSuchApp")] and "no app called" in rec.errors[0]


def test_record_fields_and_json(login_env):
    rec = run_episode(login_env, PlanActAgent(OraclePlanner(horizon=3, noise=0.5)), seed=4, level="medium", record_frames=True)
    assert isinstance(rec, EpisodeRecord)
    assert rec.env_id == "GuiGym-Login-v0" and rec.level == "medium" and rec.seed == 4
    assert len(rec.actions) == len(rec.rewards) == len(rec.errors) == len(rec.executed) == rec.steps
    assert all(len(p) <= 3 for p in rec.plans)
    assert rec.total_reward == sum(rec.rewards) and (rec.total_reward == 1.0) == rec.success
    assert len(rec.frames) == rec.steps + 1 and rec.frames[0].shape == (640, 360, 3)
    d = json.loads(json.dumps(rec.to_dict()))
    assert d["steps"] == rec.steps and len(d["plans"]) == len(rec.plans) and d["success"] == rec.success


def test_summarize():
    a = EpisodeRecord("x", "easy", 0, "", False, 8, success=True, actions=[Back(), None], consistency_hits=1, consistency_total=2)
    b = EpisodeRecord("x", "easy", 1, "", False, 8, success=False, actions=[Back()] * 4, consistency_hits=3, consistency_total=3)
    s = summarize([a, b])
    assert s["success_rate"] == 0.5 and s["mean_steps"] == 3.0 and s["mean_steps_success"] == 2.0
    assert s["plan_consistency"] == 4 / 5 and s["noop_rate"] == 1 / 6
    assert np.isnan(summarize([])["success_rate"])


def test_same_plan_step():
    assert same_plan_step(PlanStep(Click(10, 10)), PlanStep(Click(14, 13), "other words"))
    assert not same_plan_step(PlanStep(Click(10, 10)), PlanStep(Click(40, 10)))
    u = PlanStep(action_type="click", instruction="Click the 'OK' button")
    assert same_plan_step(u, PlanStep(action_type="click", instruction="click the  'ok' button"))
    assert not same_plan_step(NOOP, NOOP) and not same_plan_step(None, u)


# ------------------------------------------------------------------ planners


def test_noisy_oracle_is_deterministic_per_seed(login_env):
    agent = PlanActAgent(OraclePlanner(horizon=8, noise=0.3))
    a = run_episode(login_env, agent, seed=7, level="hard")
    b = run_episode(login_env, agent, seed=7, level="hard")
    c = run_episode(login_env, agent, seed=8, level="hard")
    assert a.actions == b.actions and [list(p) for p in a.plans] == [list(p) for p in b.plans]
    assert a.actions != c.actions


def test_noise_rate_matches_epsilon(login_env):
    _, info = login_env.reset(seed=0, options={"level": "hard"})
    obs = login_env.unwrapped.observe()
    planner = OraclePlanner(horizon=8, noise=0.3, seed=0)
    ref = info["reference"][:8]
    wrong = total = 0
    for _ in range(300):
        for step, r in zip(planner.plan(obs, info), ref):
            total += 1
            wrong += step.action != r.action
    assert 0.25 < wrong / total < 0.33  # a few corruptions coincide with the reference step


def test_oracle_noise_zero_plans_are_the_reference(login_env):
    obs, info = login_env.reset(seed=3, options={"level": "hard"})
    plan = OraclePlanner(horizon=4).plan(obs, info, [])
    assert [s.action for s in plan] == [r.action for r in info["reference"][:4]]
    assert [s.instruction for s in plan] == [r.instruction for r in info["reference"][:4]]
    un = OraclePlanner(horizon=4, grounded=False).plan(obs, info, [])
    assert [s.kind for s in un] == [r.action.type for r in info["reference"][:4]]
    assert all(s.action is None for s in un if s.kind != "back")
    assert OraclePlanner().plan(obs, {"reference": []}, []).error


def test_corrupt_step_kinds():
    rng = np.random.default_rng(0)
    els = [
        {"id": "a", "role": "button", "label": "OK", "box": (0, 0, 10, 10)},
        {"id": "b", "role": "input", "label": "Name", "box": (20, 20, 40, 40)},
    ]
    for _ in range(200):
        s = corrupt_step(RefStep(Click(5, 5), "a", (0, 0, 10, 10), "Click OK"), els, rng)
        assert s.action in (Click(30, 30), Back()) or isinstance(s.action, Scroll)
        assert s.instruction
        s = corrupt_step(RefStep(Scroll("down", 1, 2), "body", None, "Scroll down"), els, rng)
        assert s.action != Scroll("down", 1, 2)
        s = corrupt_step(RefStep(Type("alice"), "b", None, "Type 'alice'"), els, rng)
        assert s.action != Type("alice")
        s = corrupt_step(RefStep(Back(), None, None, "Go back"), els, rng)
        assert s.action != Back()
        s = corrupt_step(RefStep(Back(), None, None, "Go back"), [], rng)
        assert isinstance(s.action, (Click, Scroll))
        s = corrupt_step(RefStep(OpenApp("Notes"), None, None, "Open Notes"), els, rng)
        assert s.action != OpenApp("Notes")


def test_random_planner(login_env):
    obs, info = login_env.reset(seed=0)
    p = RandomPlanner(horizon=5, seed=1)
    a = p.plan(obs, info, [])
    p.reset(1)
    assert p.plan(obs, info, []) == a and len(a) == 5
    assert all(s.grounded for s in a)
    rec = run_episode(login_env, PlanActAgent(RandomPlanner(horizon=3, on_elements=True)), seed=0)
    assert rec.steps > 0
    with pytest.raises(ValueError):
        RandomPlanner(weights=(1, 0, 0))
    with pytest.raises(ValueError):
        OraclePlanner(noise=1.5)


# ------------------------------------------------------------------ executors


def test_element_executor_matching():
    els = [
        {"id": "user", "role": "input", "label": "Email", "box": (16, 86, 343, 129)},
        {"id": "signin", "role": "button", "label": "Sign in", "box": (16, 198, 343, 241)},
        {"id": "sso", "role": "button", "label": "Sign in with Google", "box": (16, 254, 343, 297)},
        {"id": "icon:Notes", "role": "icon", "label": "Notes", "box": (4, 40, 85, 131)},
        {"id": "rem", "role": "checkbox", "label": "Remember me", "box": (16, 310, 343, 353)},
    ]
    assert match_element("Click the 'Sign in' button", els)["id"] == "signin"
    assert match_element("Click the 'Sign in with Google' button", els)["id"] == "sso"
    assert match_element("Click the Notes icon", els)["id"] == "icon:Notes"
    assert match_element("Tick the 'Remember me' checkbox", els)["id"] == "rem"
    assert match_element("click email field", els)["id"] == "user"
    assert match_element("Click 'Quantum flux capacitor'", els) is None
    assert quoted("Type 'a b' into the \"Email\" field") == ["a b", "Email"]


def test_instruction_actions():
    assert instruction_action("type", "Type 'carol@example.com' into the 'Email' field") == Type("carol@example.com")
    assert instruction_action("open_app", "Open the Tasky app") == OpenApp("Tasky")
    assert instruction_action("open_app", "Open 'Clock'") == OpenApp("Clock")
    assert instruction_action("scroll", "Scroll down to find Privacy") == Scroll("down")
    assert instruction_action("back", "Go back") == Back()
    assert instruction_action("scroll", "move along") is None
    assert instruction_action("click", "Click OK") is None


def test_element_executor_serves_grounded_reward(login_env):
    """The executor protocol is the grounded reward's: a correct instruction scores 1."""
    _, info = login_env.reset(seed=2)
    first = info["reference"][0]
    step = PlanStep(action_type="click", instruction=first.instruction)
    assert grounded_reward(login_env, step, executor=ElementExecutor()) == 1.0
    assert grounded_reward(login_env, PlanStep(action_type="click", instruction="Click 'Sign up'"), executor=ElementExecutor()) == 0.0


def test_element_executor_jitter_stays_in_box(login_env):
    login_env.reset(seed=0)
    ex = ElementExecutor(jitter=True, seed=0)
    box = next(e["box"] for e in login_env.unwrapped.elements() if e["id"] == "signin")
    label = next(e["label"] for e in login_env.unwrapped.elements() if e["id"] == "signin")
    for _ in range(50):
        a = ex(login_env, PlanStep(action_type="click", instruction=f"Click the '{label}' button"))
        assert box[0] <= a.x <= box[2] and box[1] <= a.y <= box[3]


# ------------------------------------------------------------------ CLI, imports


def test_evaluate_cli(tmp_path, capsys):
    from agents.evaluate import main

    gif = tmp_path / "ep.gif"
    jl = tmp_path / "records.jsonl"
    assert main(["--env", "GuiGym-Login-v0", "--level", "hard", "--planner", "oracle", "--horizon", "8", "--episodes", "5",
                 "--save-gif", str(gif), "--json", str(jl), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "success 5/5 = 100.0%" in out and "plan consistency 1.000" in out and "mean steps" in out
    assert gif.stat().st_size > 0
    assert len(jl.read_text().splitlines()) == 5
    argv = ["--env", "all", "--level", "easy", "--planner", "oracle", "--noise", "0.3", "--open-loop", "--episodes", "3", "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert all(i in out for i in IDS) and "open-loop" in out
    with pytest.raises(SystemExit):
        main(["--env", "GuiGym-Nope-v0", "--episodes", "1"])


@pytest.mark.parametrize("argv,says", [
    (["--level", "extreme"], "--level extreme: GuiGym-Login-v0's levels are easy, medium, hard"),
    (["--noise", "1.5"], "--noise must be in [0, 1]"),
    (["--max-steps", "0"], "--max-steps must be >= 1"),
    (["--planner", "tiny"], "--planner tiny needs --checkpoint"),
    (["--planner", "tiny", "--checkpoint", "no/such/policy.pt"], "--checkpoint no/such/policy.pt: no such file or folder"),
    # a folder was "no such file"; a train_small.py run folder now means its policy.pt
    (["--planner", "tiny", "--checkpoint", os.path.dirname(__file__)],
     f"--checkpoint {os.path.dirname(__file__)}: a folder without policy.pt"),
    (["--seed", "-5"], "--seed must be >= 0, got -5"),
    (["--save-gif", "never.gif", "--gif-episodes", "-1"], "--gif-episodes must be >= 1 with --save-gif"),
    (["--json", "/nonexistent/dir/x.jsonl"], "--json /nonexistent/dir/x.jsonl: no such directory"),
    (["--json", "."], "--json .: is a directory"),
    # os.access lets root "write" under /proc: the JSON lines failed after the first episode
    (["--json", "/proc/guigym-x.jsonl"], "--json /proc/guigym-x.jsonl: cannot create files in /proc"),
    (["--env", ","], "--env ',' names no env id"),
    (["--env", " , "], "names no env id"),
    (["--split", "test"], "--split test needs --variations"),  # used to run the plain instances without a word
    (["--variations", "grid", "--save-gif", "never.gif"], "--save-gif is not supported with --variations grid"),
    (["--planner", "vlm", "--model", "/nonexistent/model"], "--model /nonexistent/model: no such directory"),
    # a VLM without a model ended in a bare SystemExit message (exit code 1) after importing torch
    (["--executor", "vlm"], "--executor vlm needs --model PATH (a local checkpoint) or --tiny-model"),
    (["--planner", "vlm"], "--planner vlm needs --model PATH"),
    (["--planner", "vlm", "--tiny-model", "--threads", "-2"], "--threads must be >= 1, got -2"),
    (["--max-new-tokens", "0"], "--max-new-tokens must be >= 1"),
    # a model's flags without the model were ignored without a word
    (["--model", "some/dir", "--device", "cuda"], "--model, --device: only with --planner vlm or --executor vlm"),
    (["--checkpoint", __file__], "--checkpoint is the tiny planner's (--planner tiny); --planner oracle takes none"),
    (["--planner", "random", "--threads", "2"], "--threads sets torch's threads; --planner random"),
    (["--planner", "tiny", "--checkpoint", __file__], "not a train_small.py policy"),
    # ignored without a word by every planner but the oracle; ungrounded steps with no executor: all no-ops
    (["--planner", "random", "--noise", "0.3"], "--planner random takes neither"),
    (["--planner", "random", "--ungrounded"], "--noise and --ungrounded are the oracle planner's"),
    (["--ungrounded", "--executor", "none"], "--ungrounded needs an executor"),
    # ignored without a word: no GIF without --save-gif; the tiny planner plans its checkpoint's T
    (["--gif-episodes", "3"], "--gif-episodes: only with --save-gif"),
    (["--planner", "tiny", "--checkpoint", __file__, "--horizon", "4"], "--horizon: --planner tiny plans its checkpoint's own T"),
])
def test_evaluate_names_a_bad_flag_before_it_starts(argv, says, capsys):
    from agents.evaluate import main

    with pytest.raises(SystemExit) as e:
        main(["--env", "GuiGym-Login-v0", "--episodes", "1", "--no-progress", *argv])
    assert e.value.code == 2  # argparse's usage error, not a traceback from inside the run
    err = capsys.readouterr()
    assert says in err.err and "planner, T=" not in err.out


def test_evaluate_takes_a_train_small_run_folder_as_its_checkpoint(tmp_path, capsys):
    # `--checkpoint runs/s1` (the run folder train_small.py prints) was "no such file": it means runs/s1/policy.pt
    torch = pytest.importorskip("torch")
    from agents.evaluate import main
    from agents.tiny_policy import TinyConfig, TinyPolicy

    torch.manual_seed(0)
    TinyPolicy(TinyConfig(horizon=3)).save(str(tmp_path / "policy.pt"))
    assert main(["--env", "GuiGym-Login-v0", "--level", "easy", "--planner", "tiny", "--checkpoint", str(tmp_path),
                 "--episodes", "1", "--max-steps", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "tiny planner, T=3" in out and "success" in out


@pytest.mark.parametrize("argv,says", [
    # it stopped at the first bad flag: a fix, a rerun, the next usage error
    (["--noise", "1.5", "--horizon", "0", "--seed", "-1"],
     ["--horizon and --episodes must be >= 1", "--noise must be in [0, 1], got 1.5", "--seed must be >= 0, got -1"]),
    (["--env", "GuiGym-Login-v0,GuiGym-Nope-v0", "--noise", "2"],
     ["unknown env id(s) ['GuiGym-Nope-v0']", "--noise must be in [0, 1], got 2.0"]),
    # the level is judged for the known id only
    (["--env", "GuiGym-Login-v0,GuiGym-Nope-v0", "--level", "extreme", "--save-gif", "ep.png"],
     ["unknown env id(s) ['GuiGym-Nope-v0']", "--level extreme: GuiGym-Login-v0's levels are", "--save-gif ep.png: must end in .gif"]),
])
def test_evaluate_names_every_bad_flag_at_once(argv, says, capsys):
    from agents.evaluate import main

    with pytest.raises(SystemExit) as e:
        main(["--episodes", "1", "--no-progress", *argv])
    err = capsys.readouterr()
    assert e.value.code == 2 and err.err.count("error:") == 1 and "planner, T=" not in err.out
    assert [s for s in says if s not in err.err] == [], err.err


def test_evaluate_help_shows_each_example_line_and_the_gif_names(capsys):
    """A backslash in the (non-raw) docstring joined two example lines into one; ``--save-gif``
    writes PATH itself only when it saves one GIF."""
    from agents.evaluate import main

    with pytest.raises(SystemExit) as e:
        main(["--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    assert any(line.rstrip().endswith("--checkpoint runs/<run>/policy.pt \\") for line in out.splitlines()), out
    assert any(line.strip().startswith("--variations grid --split test") for line in out.splitlines()), out
    assert "-ENV-LEVEL-seedN" in " ".join(out.split()).replace("- ", "-")


def test_evaluate_checks_save_gif_before_it_starts(tmp_path, monkeypatch, capsys):
    """``--save-gif`` is checked as ``guigym demo --gif`` is: a folder, or a file as its folder,
    raised after every episode had run, and ``ep.png`` got GIF bytes under a PNG name."""
    from agents.evaluate import main

    monkeypatch.chdir(tmp_path)  # nothing is written here once the check holds
    (tmp_path / "a_file").write_text("")
    for gif, says in ((".", "--save-gif .: is a folder"), ("a_file/ep.gif", "a_file is not a folder"),
                      ("ep.png", "--save-gif ep.png: must end in .gif")):
        with pytest.raises(SystemExit) as e:
            main(["--env", "GuiGym-Login-v0", "--level", "easy", "--episodes", "1", "--no-progress", "--save-gif", gif])
        err = capsys.readouterr()
        assert e.value.code == 2 and says in err.err and "planner, T=" not in err.out
    assert sorted(q.name for q in tmp_path.iterdir()) == ["a_file"]


def test_evaluate_grid_writes_every_record(tmp_path, capsys):
    """``--variations grid --json``: one record per episode and variant, tagged with both
    (the records were silently dropped before: an empty file)."""
    from agents.evaluate import main
    from guigym.variation import grid

    jl = tmp_path / "grid.jsonl"
    assert main(["--env", "GuiGym-Login-v0", "--level", "easy", "--planner", "oracle", "--episodes", "2",
                 "--variations", "grid", "--split", "test", "--json", str(jl), "--no-progress"]) == 0
    rows = [json.loads(line) for line in jl.read_text().splitlines()]
    names = [n for n, _ in grid("test")]
    assert len(rows) == 2 * len(names) and {r["variant"] for r in rows} == set(names)
    assert all(r["split"] == "test" and r["success"] for r in rows)  # the oracle solves every variant
    assert "spread across" in capsys.readouterr().out


def test_evaluate_under_a_variation_preset(tmp_path, capsys):
    """``--variations PRESET``: every env made with that preset and split (here German, held
    out: the instructions are German), the records tagged with both; the oracle solves all."""
    from agents.evaluate import main

    jl = tmp_path / "de.jsonl"
    assert main(["--env", "GuiGym-Login-v0,GuiGym-Shop-v0", "--level", "easy", "--planner", "oracle", "--episodes", "3",
                 "--variations", "language", "--split", "test", "--json", str(jl), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "variation language (test split)" in out and out.count("success 3/3 = 100.0%") == 2
    rows = [json.loads(line) for line in jl.read_text().splitlines()]
    assert len(rows) == 6 and all(r["variation"] == "language" and r["split"] == "test" and r["success"] for r in rows)
    got = next(r["instruction"] for r in rows if r["env_id"] == "GuiGym-Login-v0" and r["seed"] == 0)
    want = {}
    for name, kw in (("plain", {}), ("de", {"variation": "language", "split": "test"})):
        env = gym.make("GuiGym-Login-v0", level="easy", **kw)
        try:
            env.reset(seed=0)
            want[name] = env.unwrapped.instruction
        finally:
            env.close()
    assert got == want["de"] != want["plain"]
    with pytest.raises(SystemExit):
        main(["--env", "GuiGym-Login-v0", "--episodes", "1", "--variations", "nope"])


def test_import_agents_does_not_import_torch():
    code = "import sys, agents, agents.evaluate; assert 'torch' not in sys.modules and 'transformers' not in sys.modules"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr


# ------------------------------------------------------------------ browser backend


@pytest.mark.browser
@pytest.mark.parametrize("env_id", IDS)
def test_plan_act_on_the_browser_backend(env_id):
    """The loop on headless Chromium: the oracle (grounded, and ungrounded through the
    ElementExecutor, which then reads the browser's boxes) succeeds on every level.
    (The full check, 100 seeds per id × level: ``python -m agents.evaluate --env all
    --planner oracle --episodes 100 --backend browser``.)"""
    from agents.evaluate import make_env

    env = make_env(env_id, backend="browser")
    try:
        for level in FAMILIES[env.unwrapped.family.name].levels:
            for seed in range(2):
                r = run_episode(env, PlanActAgent(OraclePlanner(horizon=8)), seed=seed, level=level)
                assert r.success and r.consistency in (1.0, None), (env_id, level, seed, r.errors)
            r = run_episode(env, PlanActAgent(OraclePlanner(horizon=8, grounded=False), ElementExecutor()), seed=2, level=level)
            assert r.success, (env_id, level, r.errors)
    finally:
        env.close()


# --- the stable-baselines3 baseline (agents/sb3_baseline.py, benchmarks/ppo_baseline.py) ----------------------

#: a PPO run of a few hundred env steps: small enough for a test, every code path of train_ppo
_TINY_PPO = {"total_timesteps": 64, "n_envs": 1, "eval_every": 64, "eval_episodes": 1, "max_steps": 5, "progress": False,
             "ppo_kwargs": {"n_steps": 32, "batch_size": 32, "n_epochs": 1}}


@pytest.mark.parametrize("bad,says", [
    ({"eval_every": 0}, "eval_every must be >= 1, got 0"),  # evaluated after every single env step
    ({"eval_every": -5}, "eval_every must be >= 1, got -5"),
    ({"total_timesteps": 0}, "total_timesteps must be >= 1, got 0"),  # a run that trained nothing, reported
    ({"n_envs": 0}, "n_envs must be >= 1, got 0"),  # an IndexError inside SB3
    ({"eval_episodes": -1}, "eval_episodes must be >= 0, got -1"),
    ({"max_steps": 0}, "max_steps must be >= 1, got 0"),
    ({"seed": -1}, "seed must be >= 0, got -1"),
    ({"level": "extreme"}, "--level extreme: GuiGym-Login-v0's levels are easy, medium, hard"),
    ({"env_id": "GuiGym-Nope-v0"}, "unknown env id GuiGym-Nope-v0"),
])
def test_train_ppo_names_a_bad_argument_before_it_trains(bad, says, tmp_path):
    from agents.sb3_baseline import train_ppo

    out = tmp_path / "run"
    with pytest.raises(ValueError) as e:
        train_ppo(**{**_TINY_PPO, **bad}, out_dir=out)
    assert says in str(e.value)
    assert not out.exists()  # nothing trained, nothing written


def test_train_ppo_names_every_bad_argument_at_once(tmp_path):
    from agents.sb3_baseline import train_ppo

    with pytest.raises(ValueError) as e:
        train_ppo(**{**_TINY_PPO, "eval_every": 0, "n_envs": 0, "seed": -2}, out_dir=tmp_path / "run")
    assert all(s in str(e.value) for s in ("eval_every", "n_envs", "seed"))


def test_evaluating_on_no_seeds_is_an_error_not_a_success_rate_of_zero():
    # max(1, len(seeds)) turned "no episodes" into a measured 0 % success
    from agents.sb3_baseline import evaluate_random, evaluate_sb3

    with pytest.raises(ValueError, match="no seeds"):
        evaluate_random("GuiGym-Login-v0", "easy", range(0), 5)
    with pytest.raises(ValueError, match="no seeds"):
        evaluate_sb3(object(), "GuiGym-Login-v0", "easy", range(5, 5), 5)


def test_train_ppo_without_eval_episodes_reports_no_success_rate(tmp_path):
    """eval_episodes=0 (train_small.py --algo ppo --eval-episodes 0 allows it) skips the
    evaluation: the curve says NaN, not a measured 0 %."""
    import math

    from agents.sb3_baseline import train_ppo

    res = train_ppo(**{**_TINY_PPO, "eval_episodes": 0}, out_dir=tmp_path / "run")
    assert len(res["curve"]) == 2 and all(math.isnan(c["success"]) for c in res["curve"])
    assert math.isnan(res["final_success"])
    assert "nan" in (tmp_path / "run" / "curves.csv").read_text().lower()


def test_train_ppo_leaves_nothing_in_the_temp_dir(tmp_path, monkeypatch):
    """SB3's default logger made an empty /tmp/SB3-<time> folder on every run."""
    import tempfile

    from agents.sb3_baseline import train_ppo

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    train_ppo(**_TINY_PPO, out_dir=tmp_path / "run")
    assert [p.name for p in tmp.iterdir() if p.name.startswith("SB3-")] == []  # (torch's own caches may appear)


def test_train_ppo_same_seed_same_model_and_it_loads(tmp_path):
    """Same seed, same curve and the same saved weights; the saved model loads and acts as trained."""
    from stable_baselines3 import PPO

    from agents.sb3_baseline import evaluate_sb3, train_ppo

    runs = [train_ppo(**{**_TINY_PPO, "eval_episodes": 2}, seed=1, out_dir=tmp_path / f"r{i}") for i in range(2)]
    assert runs[0]["curve"][-1]["success"] == runs[1]["curve"][-1]["success"]
    models = [PPO.load(tmp_path / f"r{i}" / "ppo.zip", device="cpu") for i in range(2)]
    for a, b in zip(models[0].policy.parameters(), models[1].policy.parameters()):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    held_out = range(*runs[0]["eval_seeds"])
    assert evaluate_sb3(models[0], "GuiGym-Login-v0", "easy", held_out, 5) == runs[0]["final_success"]


def test_train_ppo_final_success_is_the_final_models(tmp_path, monkeypatch):
    """The callback evaluated at the step that reached total_timesteps, inside the last rollout,
    before PPO's last update; no evaluation followed, so ``final_success`` (and the curve's last
    point) measured an older policy than the saved one."""
    from stable_baselines3 import PPO

    from agents import sb3_baseline

    seen = []
    real = sb3_baseline.evaluate_sb3

    def spy(model, *a, **kw):
        seen.append([p.detach().numpy().copy() for p in model.policy.parameters()])
        return real(model, *a, **kw)

    monkeypatch.setattr(sb3_baseline, "evaluate_sb3", spy)
    res = sb3_baseline.train_ppo(**_TINY_PPO, out_dir=tmp_path / "run")  # 2 rollouts of 32, eval_every 64
    saved = [p.detach().numpy() for p in PPO.load(tmp_path / "run" / "ppo.zip", device="cpu").policy.parameters()]
    assert all(np.array_equal(a, b) for a, b in zip(seen[-1], saved))
    assert [c["step"] for c in res["curve"]] == [0, 64]  # the step's point is re-measured, not duplicated


def test_train_ppo_gives_torch_its_threads_back(tmp_path):
    """threads=1 caps the run; it stayed set, so everything after an in-process run (a
    notebook, the rest of a test session) ran torch on one thread."""
    import torch

    from agents.sb3_baseline import train_ppo

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        train_ppo(**{**_TINY_PPO, "eval_episodes": 0}, threads=1, out_dir=tmp_path / "run")
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def _ppo_baseline():
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import ppo_baseline

    return ppo_baseline


_TINY_BASELINE = ["--seeds", "0", "--steps", "64", "--eval-every", "64", "--curve-episodes", "1", "--eval-episodes", "1"]


@pytest.mark.parametrize("argv,says", [
    # the final evaluation's reset(seed=-1) raised after the whole training
    (["--eval-seed", "-1"], "--eval-seed must be >= 0, got -1"),
    (["--seeds", "0", "-1"], "--seeds must be >= 0, got -1"),
    (["--steps", "0"], "--steps must be >= 1, got 0"),  # a table of a policy that never trained
    (["--eval-every", "0"], "--eval-every must be >= 1, got 0"),  # an evaluation after every env step
    (["--eval-episodes", "0"], "--eval-episodes must be >= 1, got 0"),  # "0 %" measured on no episode
    (["--curve-episodes", "0"], "--curve-episodes must be >= 1, got 0"),
    # matplotlib wrote <png>.png beside the folder / the extensionless name, and the run said it wrote <png>
    (["--png", "."], "--png .: is a folder"),
    (["--png", "curves"], "--png curves: must end in"),
    (["--png", "a_file/curves.png"], "--png a_file/curves.png: a_file is not a folder"),  # after the training
    (["--out", "a_file"], "--out a_file: exists and is not a folder"),
    # seed 0 trained, then was "reused" as a second row: the table's mean counted it twice
    (["--seeds", "0", "1", "0"], "--seeds: 0 is given twice"),
])
def test_ppo_baseline_names_a_bad_flag_before_it_trains(argv, says, tmp_path, monkeypatch, capsys):
    ppo_baseline = _ppo_baseline()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_file").write_text("keep me")
    with pytest.raises(SystemExit) as e:
        ppo_baseline.main([*_TINY_BASELINE, "--out", "run", "--png", "c.png", *argv])
    assert e.value.code == 2 and says in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]  # nothing trained, nothing written


def test_ppo_baseline_reuses_a_seed_only_with_the_same_curve_flags(tmp_path, capsys):
    """A cached seed trained with another --eval-every was reused: the figure showed its curve
    (other points, other episodes) as this run's."""
    ppo_baseline = _ppo_baseline()
    argv = [*_TINY_BASELINE, "--out", str(tmp_path / "run"), "--png", str(tmp_path / "c.png")]
    ppo_baseline.main(argv)
    assert "reusing" not in capsys.readouterr().out
    assert [c["step"] for c in ppo_baseline.main(argv)[0]["curve"]] == [0, 64, 128, 192, 256]
    assert "reusing" in capsys.readouterr().out  # the same flags: reused
    rows = ppo_baseline.main([*argv, "--eval-every", "128"])
    assert "reusing" not in capsys.readouterr().out
    assert [c["step"] for c in rows[0]["curve"]] == [0, 128, 256]
    assert (tmp_path / "c.png").stat().st_size > 0 and (tmp_path / "run" / "table.md").exists()


def test_process_pool_workers_survive_a_ctrl_c():
    """A Ctrl-C in a terminal reaches the whole process group; the pool's workers ignore it, so
    that ``train_small.py`` can finish the iteration in progress and save (they ended, and the
    next pool call failed with "worker died")."""
    import os
    import signal
    import time
    from functools import partial

    from agents.env_pool import ProcessEnvPool

    # Python's own handler, as in a terminal (a shell's background job ignores SIGINT, and so
    # would the workers without the fix)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    pool = ProcessEnvPool(partial(gym.make, "GuiGym-Login-v0"), 1, workers=1)
    try:
        pool.reset([0], [0])
        os.kill(pool._procs[0].pid, signal.SIGINT)
        time.sleep(0.5)
        (obs, info), = pool.reset([0], [1])
        assert "screenshot" in obs and pool._procs[0].is_alive()
    finally:
        pool.close()
        signal.signal(signal.SIGINT, old)


@pytest.mark.parametrize("argv, says", [
    (["--planner", "tiny", "--checkpoint", __file__], "--planner tiny needs torch: pip install 'guigym[rl]'"),
    (["--planner", "vlm", "--tiny-model"], "a VLM needs torch: pip install 'guigym[vlm]'"),
])
def test_evaluate_without_torch_names_the_extra(argv, says, monkeypatch, capsys):
    """On the base install the tiny and VLM planners ended in a bare ``No module named 'torch'``."""
    from agents.evaluate import main

    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    with pytest.raises(SystemExit) as e:
        main(["--env", "GuiGym-Login-v0", "--episodes", "1", "--no-progress", *argv])
    assert e.value.code == 2 and says in capsys.readouterr().err
