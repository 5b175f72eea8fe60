"""The VLM plan-act path reads a plan's text as the env and the rewards do (TraceR1's MPC loop).

A plan whose first step parses but a later one does not is cut before the malformed step: the
plan-act agent executes the first step (what ``env.step(text)`` executes), the cut is recorded
in ``Plan.error``; stage 2 of ``train_small.py`` gives that step its grounded reward, as
``grounded_reward(env, text)`` does; stage 1 keeps ``TrajectoryReward``'s rule (text whose
first ``T`` steps do not all parse scores the bottom of the range), for the VLM's completions
as for the tiny policy's structured plans.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from agents.plan_act import NOOP, Plan, PlanActAgent, run_episode
from agents.vlm import VLMExecutor, VLMPlanner, parse_plan_output
from guigym.action_text import format_action, parse_action, parse_plan
from guigym.actions import Back, Click, PlanStep
from guigym.rewards import TrajectoryReward, grounded_reward, trajectory_reward_range

ROOT = Path(__file__).resolve().parents[1]

# a first step, then a step no parser accepts ("fly"), in each format
BAD_STEP = {
    "json": '{"action": "fly"}',
    "function": "fly()",
    "mobile_use": '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "fly"}}\n</tool_call>',
}


def _body(action, fmt):
    """``action`` in ``fmt`` without the answer wrapper (one step of a plan)."""
    if fmt == "json":
        return json.dumps(json.loads(format_action(action, "json")[len("<answer>"):-len("</answer>")])[0])
    return format_action(action, fmt)


def _plan_text(steps, fmt, think=True):
    """A plan of ``steps`` (actions, or raw step strings) as a model writes it in ``fmt``."""
    items = [s if isinstance(s, str) else _body(s, fmt) for s in steps]
    if fmt == "json":
        answer = "[" + ", ".join(items) + "]"
    else:
        answer = "\n".join(items)
    return ("<think>plan</think>" if think else "") + f"<answer>{answer}</answer>"


class FakeVLM:
    """The planner's model: answers the scripted texts in turn; the model sees the screen as is."""

    def __init__(self, texts):
        self.texts, self.calls = list(texts), 0

    def model_size(self, screen_size):
        return screen_size

    def generate(self, messages, image):
        self.calls += 1
        shot = np.asarray(image)
        return self.texts.pop(0) if self.texts else "nothing", (shot.shape[1], shot.shape[0])


@pytest.mark.parametrize("fmt", ["json", "function", "mobile_use"])
def test_a_later_malformed_step_cuts_the_plan_and_keeps_the_first_step(fmt):
    """The plan is the steps before the first malformed one, the first being what ``env.step``
    (``parse_action``) reads from the text; ``error`` says the plan was cut; a whole plan has no
    error, and a malformed first step is still the no-op."""
    a, b = Click(40, 200), Back()
    for steps, keep in (([a, BAD_STEP[fmt]], 1), ([a, b, BAD_STEP[fmt], b], 2)):
        text = _plan_text(steps, fmt)
        plan = parse_plan_output(text, fmt, 4, (360, 640), (360, 640))
        assert [s.action for s in plan] == [a, b][:keep]
        assert plan[0].action == parse_action(text, fmt)  # the step env.step(text) executes
        assert plan.error.startswith("ActionParseError: ") and f"plan cut to its first {keep} step" in plan.error
        assert plan.text == text
    # the malformed step beyond the horizon is never read: a whole plan
    whole = parse_plan_output(_plan_text([a, b, BAD_STEP[fmt]], fmt), fmt, 2, (360, 640), (360, 640))
    assert [s.action for s in whole] == [a, b] and whole.error is None
    bad_first = parse_plan_output(_plan_text([BAD_STEP[fmt], a], fmt), fmt, 4, (360, 640), (360, 640))
    assert list(bad_first) == [NOOP] and bad_first.error.startswith("ActionParseError: ") and "cut" not in bad_first.error


def test_a_cut_plan_is_rescaled_like_a_whole_one():
    """The steps kept from a cut plan get their coordinates rescaled from the model's image to the
    screen, as a whole plan's do (half-size model image: twice the coordinates)."""
    text = _plan_text([Click(20, 100), Click(30, 40), BAD_STEP["json"]], "json")
    plan = parse_plan_output(text, "json", 3, (180, 320), (360, 640))
    assert [s.action for s in plan] == [Click(40, 200), Click(60, 80)] and "cut to its first 2 steps" in plan.error


def test_the_cut_plan_reads_the_answer_env_step_reads():
    """Text whose whole does not parse is read at its ``<answer>`` (prose around it): the cut
    plan's first step is that answer's, as ``env.step`` reads it; never a step from elsewhere."""
    text = ('Sure, I will go back. <answer>[{"action": "back"}, {"action": "fly"}]</answer> '
            'then [{"action": "click", "coordinate": [1, 2]}]')
    plan = parse_plan_output(text, "json", 3, (360, 640), (360, 640))
    assert [s.action for s in plan] == [Back()] == [parse_action(text, "json")]
    assert [s.action for s in plan] == [s.action for s in parse_plan(text, "json", max_len=1)]


def test_the_plan_act_agent_executes_the_first_step_of_a_cut_plan():
    """``VLMPlanner`` in the plan-act loop: a plan whose second step is malformed executes its
    first step — the reference's click, which the env accepts and moves on from, as
    ``env.step(text)`` does — and the record keeps the cut in ``plan_errors``; a plan with a
    malformed first step is a no-op with the parse error."""
    env = gym.make("GuiGym-Login-v0")
    try:
        _, info = env.reset(seed=3)
        first = info["reference"][0].action
        good = _plan_text([first, BAD_STEP["json"]], "json")
        garbage = _plan_text([BAD_STEP["json"], first], "json")
        rec = run_episode(env, PlanActAgent(VLMPlanner(FakeVLM([good, garbage]), horizon=3)), seed=3, max_steps=2)
        assert rec.actions == [first, None]
        assert rec.errors[0] is None and rec.errors[1].startswith("ActionParseError")
        assert "plan cut to its first 1 step" in rec.plan_errors[0] and "cut" not in rec.plan_errors[1]
        assert sum(e is not None for e in rec.plan_errors) == 2  # both plans counted as malformed
        assert json.loads(json.dumps(rec.to_dict()))["plans"][0]["error"] == rec.plan_errors[0]
        # what env.step makes of the same text, from the same state
        env.reset(seed=3)
        _, _, _, _, info_text = env.step(good)
        env.reset(seed=3)
        _, _, _, _, info_action = env.step(first)
        assert info_text.get("action_error") is None and info_text["event"] == info_action["event"] is not None
    finally:
        env.close()


def test_the_vlm_executor_does_not_ground_the_noop_step(monkeypatch):
    """The no-op plan step (no type, no instruction: text that did not parse) is not sent to the
    model: ``VLMExecutor`` returns ``None`` without asking it, so ``grounded_reward`` scores the
    no-op 0 with a VLM executor too (the model's guess for an empty instruction scored 1 when it
    happened to hit the target)."""
    env = gym.make("GuiGym-Login-v0")
    try:
        _, info = env.reset(seed=0)
        target = info["reference"][0].action
        fake = FakeVLM([format_action(target, "json")] * 3)
        ex = VLMExecutor(fake)
        assert ex(env, NOOP) is None and fake.calls == 0 and "no-op" in ex.last_error
        assert grounded_reward(env, NOOP, executor=ex) == 0.0 and fake.calls == 0
        # a typeless step with an instruction is still grounded by the model
        assert ex(env, PlanStep(instruction="Click the username field")) == target and fake.calls == 1
    finally:
        env.close()


# --- train_small.py: both stages on the VLM's completions ----------------------------------------

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

sys.path.insert(0, str(ROOT))
import train_small  # noqa: E402


@pytest.fixture(scope="module")
def vlm_policy(tmp_path_factory):
    from agents.tiny_vlm import build_tiny_qwen25vl
    from agents.vlm_policy import VLMPolicy

    path = build_tiny_qwen25vl(tmp_path_factory.mktemp("tiny"))
    return VLMPolicy.from_pretrained(path, horizon=3, device="cpu", max_new_tokens=8)


def _completion(policy, text, screen):
    """The policy's completion of generated ``text`` (its tokens, then the end token)."""
    tok = policy.tokenizer
    ids = tok.encode(text, add_special_tokens=False) + [tok.convert_tokens_to_ids("<|im_end|>")]
    return policy._completion(ids, screen, screen)


def test_vlm_stages_score_a_cut_plan_as_the_rewards_score_its_text(vlm_policy):
    """At a Login state, a group of four VLM completions: the reference's first step then a
    malformed step (cut), the reference's first two steps (whole), a malformed first step, and a
    wrong first step then a malformed one. Stage 2 scores each as ``grounded_reward(env, text)``
    does (1, 1, 0, 0: the cut plan's right first step counts); stage 1 as
    ``TrajectoryReward`` does (the cut plan is not valid: the bottom of the range). The rollout
    executes the cut plan's first step."""
    G, T = 4, 3
    args = train_small.Args(policy="vlm", group_size=G, horizon=T)
    env = train_small.make_env(args, lambda o, i, h: None)
    score_env = gym.make(args.env_id).unwrapped
    try:
        obs, _ = env.reset(seed=0)
        v = env.visited[0]
        screen = (obs["screenshot"].shape[1], obs["screenshot"].shape[0])
        r0, r1 = (r.action for r in v.reference[:2])
        texts = [
            _plan_text([r0, BAD_STEP["json"]], "json"),
            _plan_text([r0, r1], "json"),
            _plan_text([BAD_STEP["json"], r0], "json"),
            _plan_text([Click(5, 630), BAD_STEP["json"]], "json"),
        ]
        comps = [_completion(vlm_policy, t, screen) for t in texts]
        assert [c.text for c in comps] == texts
        assert [c.valid for c in comps] == [False, True, False, False]
        assert comps[0].steps[0].action == r0 and "cut" in comps[0].error

        s2 = train_small.stage2_rewards(args, score_env, [v], comps, executor=None)
        assert s2 == [grounded_reward(score_env, t, state=v.state) for t in texts] == [1.0, 1.0, 0.0, 0.0]

        s1 = train_small.stage1_rewards(args, [v], comps)
        want = TrajectoryReward(horizon=T)(texts, reference=[[r.to_dict() for r in v.reference]] * G,
                                            elements=[v.elements] * G)
        assert s1 == pytest.approx(want)
        bottom = trajectory_reward_range(T, args.gamma, args.lambda_align, args.lambda_rep)[0]
        assert s1[0] == s1[2] == s1[3] == pytest.approx(bottom) and s1[1] > bottom

        v.group = (comps, None, None)
        assert train_small.rollout_plan(v, follow_reference=False)[0].action == r0
    finally:
        env.close()
        score_env.close()


def test_the_vlm_policy_planner_executes_a_cut_plans_first_step(vlm_policy, monkeypatch):
    """``VLMPolicyPlanner`` (greedy evaluation of a trained VLM) hands the plan-act agent the cut
    plan with its error: the first step runs, the cut is in the record."""
    env = gym.make("GuiGym-Login-v0")
    try:
        obs, info = env.reset(seed=5)
        screen = (obs["screenshot"].shape[1], obs["screenshot"].shape[0])
        first = info["reference"][0].action
        cut = _completion(vlm_policy, _plan_text([first, BAD_STEP["json"]], "json"), screen)
        monkeypatch.setattr(vlm_policy, "completions", lambda obs, n, greedy=False, generator=None: [cut] * n)
        monkeypatch.setattr(vlm_policy, "greedy_batch", lambda obs: [cut] * len(obs))
        planner = vlm_policy.planner()
        for plan in (planner.plan(obs, info, []), planner.plan_batch([obs], [info], [[]])[0]):
            assert isinstance(plan, Plan) and [s.action for s in plan] == [first] and "cut" in plan.error
        rec = run_episode(env, PlanActAgent(planner), seed=5, max_steps=1)
        assert rec.actions == [first] and rec.errors == [None] and "cut" in rec.plan_errors[0]
    finally:
        env.close()
