"""Audit of the plan-act loop, the VLM executor and ``agents.evaluate``: a plan's ``done`` step,
ungrounded answer steps, lone surrogates in ``--json``, flags that were ignored or ended in a
traceback, no-ops the env rejected, the lockstep loop with a pixel executor, and episodes cut
by the loop's own step limit."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from agents import ElementExecutor, OraclePlanner, PlanActAgent, run_episode, run_episodes, summarize
from agents.env_pool import InlineEnvPool
from agents.plan_act import ElementsView
from agents.vlm import VLMExecutor, VLMPlanner
from guigym.actions import Answer, Click, PlanStep, Type

MODEL = (84, 140)  # the model image of a 360x640 screenshot


class FakeVLM:
    """Canned answers in turn (the last one repeats); records every call."""

    def __init__(self, answers, size=MODEL):
        self.answers, self.size, self.calls = list(answers), size, []

    def model_size(self, screen_size):
        return self.size

    def seed(self, s):
        pass

    def generate(self, messages, image):
        self.calls.append((messages, np.asarray(image).shape))
        return self.answers[min(len(self.calls) - 1, len(self.answers) - 1)], self.size


CLICK = '<answer>[{"action": "click", "coordinate": [42, 28]}]</answer>'
DONE = '<answer>[{"action": "done"}]</answer>'


class Counting:
    """An executor that counts its calls and clicks (10, 10)."""

    def __init__(self):
        self.calls = 0

    def __call__(self, env, step):
        self.calls += 1
        return Click(10, 10)


# ---------------------------------------------------------------- 1. a plan's done step


@pytest.mark.parametrize("open_loop", [False, True])
def test_a_done_step_is_a_noop_that_never_reaches_the_executor(open_loop):
    """The VLM executor was asked where to click for a done step, and the click executed."""
    env = gym.make("GuiGym-Login-v0", max_episode_steps=3)
    model = FakeVLM([CLICK])
    agent = PlanActAgent(VLMPlanner(FakeVLM([DONE]), horizon=4), VLMExecutor(model), open_loop=open_loop)
    rec = run_episode(env, agent, seed=0)
    assert model.calls == [] and rec.actions == [None] * 3 and rec.errors == ["plan ended (done)"] * 3
    counting = Counting()
    assert PlanActAgent(OraclePlanner(), counting).ground(env, PlanStep(action_type="done")) == (None, "plan ended (done)")
    assert counting.calls == 0
    env.close()


def test_the_vlm_executor_does_not_ground_a_done_step(login_env):
    login_env.reset(seed=0)
    model = FakeVLM([CLICK])
    ex = VLMExecutor(model, ask_all=True)
    assert ex(login_env, PlanStep(action_type="done")) is None and model.calls == []
    assert "done step ends the plan" in ex.last_error
    assert ex(login_env, PlanStep(action_type="swipe", instruction="Swipe left")) is None and model.calls == []
    assert ex.last_error == "unknown action type 'swipe'"


# ---------------------------------------------------------------- 2. ungrounded answer steps


def test_the_vlm_executor_reads_an_answer_from_the_instruction(login_env):
    """An answer step went to the model, whose click was executed instead of the answer."""
    login_env.reset(seed=0)
    model = FakeVLM([CLICK])
    ex = VLMExecutor(model)
    assert ex(login_env, PlanStep(action_type="answer", instruction="Answer '3 pm'")) == Answer("3 pm")
    assert model.calls == [] and ex.last_error is None
    assert ex(login_env, PlanStep(action_type="answer", instruction="Tell the user the time")) is None  # no text to read
    assert "cannot read a answer action" in ex.last_error and model.calls == []


@pytest.mark.parametrize("kind,instruction", [("answer", "Answer '3 pm'"), ("open_app", "Open the app"),
                                              ("back", "Go back"), ("click", "Click the 'Sign in' button")])
def test_the_vlm_executor_rejects_a_model_action_of_another_type(login_env, kind, instruction):
    """With ``ask_all`` the model's answer is used; one of another type than the step's is no
    grounding of that step: a no-op with the reason."""
    login_env.reset(seed=0)
    answer = CLICK if kind != "click" else '<answer>[{"action": "back"}]</answer>'
    ex = VLMExecutor(FakeVLM([answer]), ask_all=True)
    assert ex(login_env, PlanStep(action_type=kind, instruction=instruction)) is None
    got = "click" if kind != "click" else "back"
    assert ex.last_error == f"the model answered a {got} action for a {kind} step"
    # the agent records it as a no-op with that reason
    action, err = PlanActAgent(OraclePlanner(), ex).ground(login_env, PlanStep(action_type=kind, instruction=instruction))
    assert action is None and f"a {got} action for a {kind} step" in err


def test_the_vlm_executor_still_takes_matching_and_converted_answers(login_env):
    login_env.reset(seed=0)
    click = VLMExecutor(FakeVLM([CLICK]))(login_env, PlanStep(action_type="click", instruction="Click the 'Username' field"))
    assert click == Click(180, 128)
    scroll = VLMExecutor(FakeVLM([CLICK]))(login_env, PlanStep(action_type="scroll", instruction="Scroll down"))
    assert scroll.type == "scroll" and scroll.direction == "down"  # a click answer keeps the instruction's direction
    typed = VLMExecutor(FakeVLM([CLICK]), ask_all=True)(login_env, PlanStep(action_type="type", instruction="Type 'alice'"))
    assert typed == Type("alice")  # a click for a type step: the instruction's text
    free = VLMExecutor(FakeVLM([CLICK]))(login_env, PlanStep(instruction="Click the 'Username' field"))
    assert free == Click(180, 128)  # a step without a type: whatever the model answers


# ---------------------------------------------------------------- 3. evaluate --json and lone surrogates


def test_evaluate_json_keeps_every_record_with_a_lone_surrogate(tmp_path, monkeypatch, capsys):
    """json.dumps(..., ensure_ascii=False) of a model's "\\ud83d" to a UTF-8 file raised
    UnicodeEncodeError and lost every record."""
    pytest.importorskip("torch")
    import agents.evaluate as ev

    fake = FakeVLM(['<answer>[{"action": "type", "text": "\\ud83d abc"}]</answer>'])
    monkeypatch.setattr(ev, "_load_vlm", lambda args: fake)
    out = tmp_path / "out.jsonl"
    assert ev.main(["--env", "GuiGym-Login-v0", "--level", "easy", "--planner", "vlm", "--tiny-model", "--episodes", "2",
                    "--max-steps", "2", "--json", str(out), "--no-progress"]) == 0
    recs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(recs) == 2 and recs[0]["actions"][0] == {"type": "type", "text": "\ud83d abc"}
    assert recs[0]["plans"][0]["text"] == fake.answers[0]


def test_json_line_escapes_only_lone_surrogates():
    from agents.evaluate import _json_line

    rec = {"a": "caf\u00e9 \U0001f600 \ud83d \\\ud83d"}
    line = _json_line(rec)
    line.encode("utf-8")
    assert line.endswith("\n") and "caf\u00e9 \U0001f600" in line and json.loads(line) == rec


# ---------------------------------------------------------------- 4, 6. flags that were ignored


@pytest.mark.parametrize("argv,says", [
    # --tiny-model won and --model was ignored without a word
    (["--planner", "vlm", "--model", ".", "--tiny-model"], "--model and --tiny-model: give one"),
    # the grounded oracle (and the random planner) never asks an executor: the model was loaded for nothing
    (["--executor", "vlm", "--tiny-model"], "--executor vlm grounds ungrounded steps; --planner oracle without --ungrounded"),
    (["--planner", "random", "--executor", "vlm", "--tiny-model"], "--planner random plans grounded ones only"),
])
def test_evaluate_refuses_flags_that_had_no_effect(argv, says, capsys):
    from agents.evaluate import main

    with pytest.raises(SystemExit) as e:
        main(["--env", "GuiGym-Login-v0", "--episodes", "1", "--no-progress", *argv])
    assert e.value.code == 2
    err = capsys.readouterr()
    assert says in err.err and "planner, T=" not in err.out


def test_the_ungrounded_oracle_with_a_vlm_executor_is_accepted(monkeypatch, capsys):
    pytest.importorskip("torch")
    import agents.evaluate as ev

    fake = FakeVLM([CLICK])
    monkeypatch.setattr(ev, "_load_vlm", lambda args: fake)
    assert ev.main(["--env", "GuiGym-Login-v0", "--level", "easy", "--ungrounded", "--executor", "vlm", "--tiny-model",
                    "--episodes", "1", "--max-steps", "2", "--no-progress"]) == 0
    assert fake.calls  # the executor was asked


def test_the_tiny_model_folder_is_removed_once_loaded(monkeypatch, capsys):
    pytest.importorskip("torch")
    import argparse

    import agents.evaluate as ev
    import agents.tiny_vlm
    import agents.vlm

    made: list[Path] = []

    def build(out):
        made.append(Path(out))
        (Path(out) / "config.json").write_text("{}")
        return Path(out)

    monkeypatch.setattr(agents.tiny_vlm, "build_tiny_qwen25vl", build)
    monkeypatch.setattr(agents.vlm, "load_vlm", lambda path, **kw: ("loaded", Path(path).is_dir()))
    args = argparse.Namespace(planner="vlm", executor="element", threads=None, tiny_model=True, model=None, device="cpu",
                              max_new_tokens=8, max_pixels=None)
    monkeypatch.setattr("torch.set_num_threads", lambda n: None)
    assert ev._load_vlm(args) == ("loaded", True)  # there while loading
    assert len(made) == 1 and not made[0].exists()


# ---------------------------------------------------------------- 7. --max-pixels below the model's minimum


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from agents.tiny_vlm import build_tiny_qwen25vl

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield build_tiny_qwen25vl(tmp_path_factory.mktemp("tiny-qwen25vl"))
    torch.set_num_threads(threads)


def test_max_pixels_below_the_models_minimum_is_a_usage_error(tiny, capsys):
    """It passed the flag checks, then raised a ValueError traceback once the model had loaded."""
    from agents.evaluate import main

    with pytest.raises(SystemExit) as e:
        main(["--env", "GuiGym-Login-v0", "--planner", "vlm", "--model", str(tiny), "--max-pixels", "100", "--episodes", "1",
              "--threads", "1", "--no-progress"])
    assert e.value.code == 2
    err = capsys.readouterr()
    assert "--max-pixels 100: below the model's minimum (max_pixels 100 < min_pixels 3136)" in err.err
    assert "planner, T=" not in err.out


def test_load_vlm_checks_max_pixels_before_the_weights_load(tiny, monkeypatch):
    import transformers

    from agents.vlm import load_vlm

    def never(*a, **k):
        raise AssertionError("the weights were loaded")

    monkeypatch.setattr(transformers.AutoModelForImageTextToText, "from_pretrained", never)
    with pytest.raises(ValueError, match="max_pixels 100 < min_pixels 3136"):
        load_vlm(tiny, max_pixels=100)


# ---------------------------------------------------------------- 5. no-ops the env rejected


class TypeFirst:
    """Plans Type('x') before any field is focused: the env rejects it (action_error)."""

    horizon = 1

    def reset(self, seed=None):
        pass

    def plan(self, obs, info, history):
        return [PlanStep(Type("x"))]


def test_summarize_counts_an_action_the_env_rejected_as_a_noop():
    env = gym.make("GuiGym-Login-v0")
    loop_history = []
    agent = PlanActAgent(TypeFirst())
    orig = agent.plan
    agent.plan = lambda obs, info, history: (loop_history.append(list(history)), orig(obs, info, history))[1]
    rec = run_episode(env, agent, seed=0, max_steps=3)
    assert rec.actions == [Type("x")] * 3 and all(e and "focused" in e for e in rec.errors)
    assert summarize([rec])["noop_rate"] == 1.0  # was 0.0: only a None action counted
    # documented choice: a rejected action still enters the planner's history (as in the env's own obs["history"])
    assert loop_history == [[], [Type("x")], [Type("x")] * 2]
    ok = run_episode(env, PlanActAgent(OraclePlanner(horizon=2)), seed=0, max_steps=20)
    assert ok.success and summarize([ok])["noop_rate"] == 0.0
    env.close()


# ---------------------------------------------------------------- 8. a pixel executor in the lockstep loop


def test_run_episodes_gives_a_vlm_executor_the_screenshot():
    """ElementsView had no screenshot: every ungrounded step was an AttributeError no-op."""
    fn = partial(gym.make, "GuiGym-Login-v0", max_episode_steps=6)
    agent = PlanActAgent(OraclePlanner(horizon=2, grounded=False), VLMExecutor(FakeVLM([CLICK])))
    env = fn()
    one = [run_episode(env, agent, seed=s).to_dict() for s in (0, 1)]
    env.close()
    pool = InlineEnvPool(fn, 2, with_state=False)
    try:
        many = [r.to_dict() for r in run_episodes(pool, agent, [0, 1], limit=6, env_id="GuiGym-Login-v0")]
    finally:
        pool.close()
    assert many == one
    assert not any(e and "ElementsView" in e for r in many for e in r["errors"])


def test_elements_view_without_an_observation_says_so():
    view = ElementsView({"elements": []})
    with pytest.raises(RuntimeError, match="no screenshot"):
        view.render()
    shot = np.zeros((4, 4, 3), np.uint8)
    assert ElementsView({}, {"screenshot": shot}).render() is shot


# ---------------------------------------------------------------- 9. episodes cut by the loop's step limit


def test_an_episode_cut_by_the_step_limit_is_truncated():
    env = gym.make("GuiGym-Login-v0", max_episode_steps=20)
    rec = run_episode(env, PlanActAgent(OraclePlanner(horizon=2)), seed=0, max_steps=2)
    assert rec.steps == 2 and not rec.success and not rec.terminated and rec.truncated
    assert rec.to_dict()["truncated"] is True
    done = run_episode(env, PlanActAgent(OraclePlanner(horizon=2)), seed=0, max_steps=20)
    assert done.success and done.terminated and not done.truncated  # an episode that ends in time: not truncated
    env.close()
    pool = InlineEnvPool(partial(gym.make, "GuiGym-Login-v0", max_episode_steps=20), 2, with_state=False)
    try:
        cut = run_episodes(pool, PlanActAgent(OraclePlanner(horizon=2)), [0, 1], limit=2)
        none = run_episodes(pool, PlanActAgent(OraclePlanner(horizon=2)), [0], limit=0)
    finally:
        pool.close()
    assert all(r.steps == 2 and r.truncated and not r.terminated for r in cut)
    assert none[0].steps == 0 and none[0].truncated


def test_element_executor_unchanged_in_the_lockstep_loop():
    fn = partial(gym.make, "GuiGym-Login-v0")
    agent = PlanActAgent(OraclePlanner(horizon=2, grounded=False), ElementExecutor())
    pool = InlineEnvPool(fn, 2, with_state=False)
    try:
        recs = run_episodes(pool, agent, [0, 1, 2], limit=30)
    finally:
        pool.close()
    assert all(r.success for r in recs)


def test_a_planner_passed_as_the_agent_is_told_to_wrap_it() -> None:
    """The usual slip, ``run_episode(env, planner)``: a TypeError that says how to wrap it, before
    the env is reset (it was an AttributeError from inside the loop)."""
    env = gym.make("GuiGym-Login-v0")
    with pytest.raises(TypeError, match=r"run_episode needs a PlanActAgent, got OraclePlanner; .*PlanActAgent\(planner\)"):
        run_episode(env, OraclePlanner(horizon=8), seed=0)
    with pytest.raises(TypeError, match=r"run_episodes needs a PlanActAgent, got NoneType$"):
        run_episodes(InlineEnvPool(lambda: gym.make("GuiGym-Login-v0"), 1), None, [0], limit=5)  # type: ignore[arg-type]
    assert run_episode(env, PlanActAgent(OraclePlanner(horizon=8)), seed=0).success
    env.close()


def test_tiny_planner_is_importable_from_agents() -> None:
    from agents import TinyPlanner
    from agents.tiny_policy import TinyPlanner as Same

    assert TinyPlanner is Same
