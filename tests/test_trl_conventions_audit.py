"""guigym.rewards.trl used as TRL's current GRPOTrainer calls reward functions.

``GRPOTrainer._calculate_rewards`` calls each reward as ``f(prompts=..., completions=...,
completion_ids=..., **columns, trainer_state=..., log_extra=..., log_metric=...)`` (plus
``environments`` with an environment factory), every dataset column a list with one cell per
completion (the rows already repeated ``num_generations`` times), names the reward by
``__name__`` and turns the output into a float tensor of one value per completion. The tests
below go through that very method (with a stand-in for the trainer's state) where TRL is
installed, and check the conventions the adapters promise: both completion formats, text
parts, TRL's tool loop, pickling, names, and a formula and a doctest in each docstring.
"""

from __future__ import annotations

import copy
import doctest
import json
import math
import pickle
import re
import types

import pytest

from guigym.actions import Click, RefStep
from guigym.rewards import trl as adapters
from guigym.rewards.trl import (
    ActionTypeReward,
    ArgumentReward,
    FormatReward,
    TrajectoryReward,
    UIR1Reward,
    completion_text,
)

REF = json.dumps([RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click 'Sign in'").to_dict()])
CLICK_IN = '<think>t</think><answer>[{"action": "click", "coordinate": [20, 20]}]</answer>'
CLICK_OUT = '<think>t</think><answer>[{"action": "click", "coordinate": [90, 90]}]</answer>'
DONE = '<think>t</think><answer>[{"action": "done"}]</answer>'
TEXTS = [CLICK_IN, CLICK_OUT, DONE, "no answer at all"]


def all_rewards():
    return [UIR1Reward(), ActionTypeReward(), ArgumentReward(), FormatReward(), FormatReward(plan=True),
            TrajectoryReward(horizon=4), TrajectoryReward(), UIR1Reward(fmt="mobile_use"), TrajectoryReward(fmt="mobile_use")]


def _trainer(funcs, environments=None):
    """What ``_calculate_rewards`` reads of its trainer (accelerator, state, args, names, loggers)."""
    torch = pytest.importorskip("torch")
    utils = pytest.importorskip("trl.trainer.utils")
    logged: dict[str, list] = {"extra": [], "metric": []}
    fake = types.SimpleNamespace(
        accelerator=types.SimpleNamespace(device=torch.device("cpu"), is_main_process=True),
        reward_funcs=list(funcs), reward_processing_classes=[None] * len(funcs),
        reward_func_names=[utils.get_callable_name(f) for f in funcs],
        state=types.SimpleNamespace(global_step=3), args=types.SimpleNamespace(report_to=[]),
        _log_completion_extra=lambda column, values: logged["extra"].append(column),
        _log_metric=lambda name, value: logged["metric"].append(name), environments=environments,
    )
    return fake, logged


def trl_rewards(funcs, inputs, prompts, completions, environments=None):
    """The rewards as TRL computes them: ``GRPOTrainer._calculate_rewards`` (B*G x funcs)."""
    grpo = pytest.importorskip("trl.trainer.grpo_trainer")
    fake, _ = _trainer(funcs, environments)
    out = grpo.GRPOTrainer._calculate_rewards(fake, inputs, prompts, completions, [[1, 2, 3]] * len(completions))
    return fake, out.tolist()


def _batch(texts, num_generations=2, form="standard"):
    """TRL's batch: each row repeated num_generations times, one completion per entry."""
    refs = [REF, "[]"]  # a state with something to do, and a terminal state
    inputs, completions = [], []
    for r, ref in enumerate(refs):
        for g in range(num_generations):
            text = texts[(r * num_generations + g) % len(texts)]
            prompt = "Sign in." if form == "standard" else [{"role": "user", "content": [{"type": "text", "text": "Sign in."}]}]
            inputs.append({"prompt": prompt, "reference": ref, "image": None, "elements": None, "task_id": r})
            if form == "standard":
                completions.append(text)
            elif form == "conversational":
                completions.append([{"role": "assistant", "content": text}])
            else:  # multimodal content: a list of parts, text split over two of them around an image
                half = len(text) // 2
                completions.append([{"role": "assistant", "content": [
                    {"type": "text", "text": text[:half]}, {"type": "image"}, {"type": "text", "text": text[half:]}]}])
    return inputs, [i["prompt"] for i in inputs], completions


@pytest.mark.parametrize("form", ["standard", "conversational", "parts"])
def test_every_adapter_through_trl_s_calculate_rewards(form):
    """All formats give the rewards of the plain texts, one finite float per completion, under
    the reward's ``__name__``; the extra kwargs TRL adds (prompts, completion_ids, other columns,
    trainer_state, log_extra, log_metric, environments) are ignored, not errors."""
    funcs = all_rewards()
    inputs, prompts, completions = _batch(TEXTS, form=form)
    fake, got = trl_rewards(funcs, inputs, prompts, completions, environments=[object()] * len(inputs))
    plain_inputs, _, plain = _batch(TEXTS, form="standard")
    refs = [i["reference"] for i in plain_inputs]
    for j, f in enumerate(funcs):
        want = f(plain, reference=refs)
        assert len(want) == len(plain) and all(isinstance(v, float) and math.isfinite(v) for v in want)
        assert [row[j] for row in got] == pytest.approx(want), f.__name__
        assert fake.reward_func_names[j] == f.__name__
    # the scores are not all alike: the batch does tell a good answer from a bad one
    assert [row[0] for row in got] == [3.0, 2.0, 3.0, 0.0]  # uir1_reward: done is right at the terminal state


def test_names_are_the_ones_trl_logs():
    utils = pytest.importorskip("trl.trainer.utils")
    names = {utils.get_callable_name(f) for f in all_rewards()}
    assert names == {"uir1_reward", "action_type_reward", "argument_reward", "format_reward", "trajectory_reward"}
    assert not any(utils.is_async_callable(f) for f in all_rewards())  # TRL calls them synchronously


def _call(args):
    return {"type": "function", "function": {"name": "mobile_use", "arguments": args}}


ACTING = {"role": "assistant", "reasoning_content": "the sign-in button", "content": "",
          "tool_calls": [_call({"action": "click", "coordinate": [20, 20]})]}


@pytest.mark.parametrize("reply", [
    {"role": "assistant", "content": "Done."},
    {"role": "assistant", "content": "", "tool_calls": [_call({"action": "terminate", "status": "success"})]},
    {"role": "assistant", "content": '<think>x</think><answer>[{"action": "back"}]</answer>'},
])
@pytest.mark.parametrize("tool_result", ["{'error': 'Tool mobile_use not found.'}", "ok"])
def test_a_tool_loop_completion_is_scored_by_the_turn_that_acted(reply, tool_result):
    """``GRPOTrainer(tools=...)`` runs each tool call and lets the model reply to the result:
    the completion becomes ``[acting turn, tool message, reply]``. Only the reply was read, so
    the correct click at the sample's state scored 0 of 3, format 0 and near the bottom of the
    trajectory range; it scores what the acting turn alone scores."""
    tool = {"role": "tool", "name": "mobile_use", "content": tool_result}
    loop = [ACTING, tool, reply]
    assert completion_text(loop) == completion_text([ACTING])
    funcs = [UIR1Reward(fmt="mobile_use"), FormatReward(fmt="mobile_use"), TrajectoryReward(fmt="mobile_use", horizon=4),
             ActionTypeReward(fmt="mobile_use"), ArgumentReward(fmt="mobile_use")]
    for f in funcs:
        assert f([[ACTING], loop, loop + [tool, reply]], reference=[REF] * 3) == [f([[ACTING]], reference=[REF])[0]] * 3
    assert funcs[0]([loop], reference=[REF]) == [3.0]
    inputs = [{"prompt": [{"role": "user", "content": "Sign in."}], "reference": REF}] * 2
    _, got = trl_rewards(funcs[:3], inputs, [i["prompt"] for i in inputs], [[ACTING], loop])
    assert got[0] == got[1] and got[1][0] == 3.0


def test_conversations_without_tool_messages_still_read_their_last_assistant_turn():
    conv = [{"role": "assistant", "content": CLICK_OUT}, {"role": "assistant", "content": CLICK_IN}]
    assert UIR1Reward()([conv], reference=[REF]) == [3.0]
    # a tool message with no assistant turn before it: nothing to split on, the last turn counts
    odd = [{"role": "tool", "content": "x"}, {"role": "assistant", "content": CLICK_IN}]
    assert completion_text(odd) == CLICK_IN


def test_odd_trl_completions_give_one_finite_reward_each():
    """Shapes TRL can hand over: a fully truncated reply (no message), an image-only content,
    content None, a message without a role: each a finite reward, never an exception."""
    odd = [[], [{"role": "assistant", "content": [{"type": "image"}]}], [{"role": "assistant", "content": None}],
           [{"content": CLICK_IN}], [ACTING, {"role": "tool", "name": "mobile_use", "content": "ok"}], ""]
    for f in all_rewards():
        out = f(odd, reference=[REF] * len(odd), trainer_state=None, log_extra=print, log_metric=print)
        assert len(out) == len(odd) and all(isinstance(v, float) and math.isfinite(v) for v in out), f.__name__


def test_arrow_struct_cells_score_as_json_cells():
    """A reference column stored as a list of structs (``Dataset.from_list`` of ``to_dict()``
    steps): Arrow unifies the steps' keys and fills the missing ones with None; TRL passes those
    cells on as they come. They score as the JSON strings of ``guigym export`` do."""
    datasets = pytest.importorskip("datasets")
    from tests.conftest import make

    env = make("GuiGym-Login-v0")
    try:
        _, info = env.reset(seed=3)
    finally:
        env.close()
    steps = [r.to_dict() for r in info["reference"]]
    ds = datasets.Dataset.from_list([{"reference": steps}, {"reference": []}])
    cells = [ds[0]["reference"], ds[1]["reference"]]
    assert any(None in s["action"].values() for s in cells[0])  # Arrow did fill missing keys
    first = info["reference"][0].action
    texts = [f'<think>t</think><answer>[{{"action": "click", "coordinate": [{first.x}, {first.y}]}}]</answer>', DONE]
    for f in all_rewards()[:7]:
        assert f(texts, reference=cells) == f(texts, reference=[json.dumps(steps), "[]"]), f.__name__


def test_picklable_copyable_and_named_after_a_round_trip():
    """TRL (and multiprocessing data loaders, accelerate) may pickle or deep-copy the reward
    list: the copies keep their names and options and score the same."""
    for f in all_rewards() + [TrajectoryReward(gamma=0.5, lambda_rep=0.3, horizon=3, invalid_reward=-7.0, column="ref")]:
        for g in (pickle.loads(pickle.dumps(f)), copy.deepcopy(f)):
            assert type(g) is type(f) and g.__name__ == f.__name__ and repr(g) == repr(f) and vars(g) == vars(f)
            col = getattr(f, "column", "reference")
            assert g(TEXTS, **{col: [REF] * len(TEXTS)}) == f(TEXTS, **{col: [REF] * len(TEXTS)})


def test_wrong_lengths_fail_before_trl_s_own_length_check():
    """A column whose length is not the number of completions is a ValueError naming the
    reward (zip would have dropped rewards and TRL reported a length mismatch instead).
    ``FormatReward(plan=True)`` reads no column."""
    for f in [f for f in all_rewards() if not (isinstance(f, FormatReward) and f.plan)]:
        with pytest.raises(ValueError, match=f.__name__):
            f(TEXTS, reference=[REF] * (len(TEXTS) - 1))


PUBLIC = [UIR1Reward, ActionTypeReward, ArgumentReward, FormatReward, TrajectoryReward, adapters.completion_text,
          adapters.load_reference, adapters.load_elements]


@pytest.mark.parametrize("obj", PUBLIC, ids=lambda o: o.__name__)
def test_each_docstring_has_a_doctest_that_passes(obj):
    """The guide: each reward's docstring has its formula and a doctest (four adapters and the
    two column readers had none of their own)."""
    tests = [t for t in doctest.DocTestFinder(recurse=False).find(obj, obj.__name__, globs=vars(adapters).copy())
             if t.examples]
    assert tests, f"{obj.__name__} has no doctest"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for t in tests:
        runner.run(t)
    assert runner.failures == 0
    if isinstance(obj, type):  # a reward: its formula, ``R… = …``
        assert re.search(r"``R\w* = [^`]+``", obj.__doc__ or ""), f"{obj.__name__} states no formula"
