"""guigym export and its trainer integrations, audited again: the TRL example's prompts, ids."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

from guigym.export import export
from tests.conftest import load_example


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def _plain(messages: list[dict]) -> list[dict]:
    """Chat messages as built, without the ``None`` keys ``datasets`` adds to join the parts' types."""
    return [{**m, "content": [{k: v for k, v in part.items() if v is not None} for part in m["content"]]} for m in messages]


def test_trl_example_prompts_list_the_actions_taken_as_the_planner_sees_them(tmp_path: Path) -> None:
    """Every prompt said "Previous actions: none", at step 5 of an episode too, while the VLM
    planner (and train_small.py's VLM policy) lists the executed actions: the model was
    trained on prompts it never sees when it acts."""
    pytest.importorskip("datasets")
    from agents.vlm import plan_messages

    out = export("GuiGym-Login-v0", 2, tmp_path / "d", level="hard", seed=1, progress=False)
    ex = load_example("trl_grpo")
    args = ex.Args(data=str(out), model="unused", max_rows=100)
    size = (180, 320)  # the model sees half the screen's pixels: the history is rescaled like the reference
    ds = ex.build_dataset(args, lambda screen: size)
    steps = _rows(out / "steps.jsonl")
    assert len(ds) == len(steps) > 4
    env = gym.make("GuiGym-Login-v0")
    i = 0
    for ep in _rows(out / "episodes.jsonl"):
        obs, info = env.reset(seed=ep["seed"], options={"level": "hard"})
        history: list = []
        while info["reference"]:
            screen = (obs["screenshot"].shape[1], obs["screenshot"].shape[0])
            assert _plain(ds[i]["prompt"]) == plan_messages(obs["instruction"], history, args.horizon, args.fmt, size, screen)
            action = info["reference"][0].action
            history.append(action)
            obs, _, term, trunc, info = env.step(action)
            i += 1
    env.close()
    assert i == len(ds)
    assert "none" not in ds[3]["prompt"][1]["content"][1]["text"].split("oldest first):")[1]


def test_trl_example_refuses_a_steps_file_with_a_gap_in_an_episode(tmp_path: Path) -> None:
    """A row whose earlier steps are missing cannot show the actions taken before it."""
    pytest.importorskip("datasets")
    out = export("GuiGym-Login-v0", 1, tmp_path / "d", level="hard", seed=1, progress=False)
    lines = (out / "steps.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (out / "steps.jsonl").write_text("".join(lines[:1] + lines[2:]), encoding="utf-8")  # step 1 dropped
    ex = load_example("trl_grpo")
    with pytest.raises(SystemExit, match="has no row for step 1"):
        ex.build_dataset(ex.Args(data=str(out), model="unused"), lambda screen: screen)
    (out / "steps.jsonl").write_text("".join(lines[2:] + lines[:2]), encoding="utf-8")  # out of order but complete: fine
    assert len(ex.build_dataset(ex.Args(data=str(out), model="unused", max_rows=3), lambda screen: screen)) == 3


def test_an_export_by_gym_make_s_prefixed_id_is_the_plain_id_s_dataset(tmp_path: Path) -> None:
    """``export("guigym:GuiGym-Login-v0")`` (the form gym.make takes) named every episode
    ``guigym:GuiGym-Login-v0-mock-…``: a colon in every screenshot folder, and ids that match no
    dataset the command writes for the same id."""
    a = export("GuiGym-Login-v0", 1, tmp_path / "a", seed=4, progress=False)
    b = export("guigym:GuiGym-Login-v0", 1, tmp_path / "b", seed=4, progress=False)
    (ep,) = _rows(b / "episodes.jsonl")
    assert ep["episode_id"] == "GuiGym-Login-v0-mock-easy-4" and ep["env_id"] == "GuiGym-Login-v0"
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)


_CLICK_CALL = '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [20, 20]}}\n</tool_call>'


def _ref_cell() -> str:
    from guigym.actions import Click, RefStep

    return json.dumps([RefStep(Click(30, 20), "signin", (10, 10, 50, 30), "Click 'Sign in'").to_dict()])


@pytest.mark.parametrize("raw,parsed", [
    # what TRL's parse_response makes of a Qwen answer (a tokenizer with a response template)
    ("<think>the field</think>\n" + _CLICK_CALL,
     {"role": "assistant", "reasoning_content": "the field", "content": "",
      "tool_calls": [{"type": "function", "function": {"name": "mobile_use",
                                                       "arguments": {"action": "click", "coordinate": [20, 20]}}}]}),
    ("<think>t</think>\n" + _CLICK_CALL,  # OpenAI-style: the arguments as JSON text
     {"role": "assistant", "thinking": "t",
      "tool_calls": [{"type": "function", "function": {"name": "mobile_use",
                                                       "arguments": '{"action": "click", "coordinate": [20, 20]}'}}]}),
])
def test_trl_rewards_read_a_parsed_response_as_the_text_the_model_wrote(raw: str, parsed: dict) -> None:
    """TRL (with ``tools=``, or a tokenizer that ships a response template) hands the reward a
    parsed message: the think block in ``reasoning_content``, each ``<tool_call>`` in
    ``tool_calls``, ``content`` empty. Only ``content`` was read: a correct ``mobile_use``
    answer scored as no answer (0 of 3) and the bottom of the trajectory range."""
    from guigym.rewards.trl import FormatReward, TrajectoryReward, UIR1Reward

    ref = [_ref_cell()] * 2
    for f in (UIR1Reward(fmt="mobile_use"), FormatReward(fmt="mobile_use"), TrajectoryReward(fmt="mobile_use", horizon=4)):
        want = f([raw, raw], reference=ref)
        assert want[0] > 0 and f([[parsed], parsed], reference=ref) == want


def test_trl_rewards_keep_the_think_block_of_a_parsed_json_answer() -> None:
    from guigym.rewards.trl import FormatReward, UIR1Reward, completion_text

    answer = '<answer>[{"action": "click", "coordinate": [20, 20]}]</answer>'
    msg = {"role": "assistant", "reasoning_content": "the sign-in button", "content": answer}
    assert UIR1Reward()([[msg]], reference=[_ref_cell()]) == [3.0]  # was 2.0: no think block, no format point
    assert FormatReward()([[msg]]) == [1.0]
    both = {**msg, "content": "<think>mine</think>" + answer}  # a think block already in the content: not doubled
    assert completion_text([both]) == both["content"]
    odd = {"role": "assistant", "content": answer, "tool_calls": [5, {"function": "x"}, {"function": {"name": "f", "arguments": {1j: 2}}}]}
    assert completion_text([odd]) == answer  # malformed calls are skipped, never raised on
    deep = "[" * 100_000 + "]" * 100_000  # model text nested past the stack: json.loads raises RecursionError
    nested = {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "mobile_use", "arguments": deep}}]}
    assert UIR1Reward(fmt="mobile_use")([[nested]], reference=[_ref_cell()]) == [0.0]


def test_trl_rewards_read_trl_s_own_parsed_response(tmp_path: Path) -> None:
    """The same through TRL's parser itself, on the tiny Qwen tokenizer with TRL's Qwen3 template."""
    utils = pytest.importorskip("trl.chat_template_utils")
    if not hasattr(utils, "qwen3_template") or not getattr(utils, "_SUPPORTS_RESPONSE_TEMPLATE", False):
        pytest.skip("this TRL has no response templates")
    from transformers import AutoTokenizer

    from agents.tiny_vlm import build_tiny_qwen25vl
    from guigym.rewards.trl import UIR1Reward

    tok = AutoTokenizer.from_pretrained(build_tiny_qwen25vl(tmp_path / "tiny"))
    tok.response_template = utils.qwen3_template
    prefix = tok("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n")["input_ids"]
    raw = "<think>the field</think>\n" + _CLICK_CALL
    msg = utils.parse_response(tok, tok(raw + "<|im_end|>")["input_ids"], prefix=prefix)
    assert msg.get("tool_calls") and not msg.get("content")  # TRL did split it
    assert UIR1Reward(fmt="mobile_use")([[msg]], reference=[_ref_cell()]) == [3.0]
