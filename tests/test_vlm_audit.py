"""Faults found in the VLM path (prompt building, checkpoint loading, sampling settings, the
policy's planner), each checked on the tiny Qwen2.5-VL built offline (CPU, no network)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import gymnasium as gym  # noqa: E402

import guigym  # noqa: E402,F401
from agents.plan_act import NOOP, PlanActAgent, run_episode  # noqa: E402
from agents.vlm import VLMPlanner, ground_messages, load_vlm, plan_messages  # noqa: E402
from guigym.action_text import FORMATS, parse_action  # noqa: E402
from guigym.actions import Click, Type  # noqa: E402

SCREEN, MODEL = (360, 640), (84, 140)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from agents.tiny_vlm import build_tiny_qwen25vl

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield build_tiny_qwen25vl(tmp_path_factory.mktemp("tiny-qwen25vl"))
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def vlm(tiny: Path) -> Any:
    return load_vlm(tiny, max_new_tokens=6)


@pytest.fixture(scope="module")
def login() -> Any:
    env = gym.make("GuiGym-Login-v0")
    obs, info = env.reset(seed=0)
    env.close()
    return obs, info


def test_special_tokens_typed_into_the_history_do_not_break_the_prompt(vlm: Any, login: Any) -> None:
    """A Type action whose text spells ``<|image_pad|>`` (model output, executed and kept in the
    history) made the next prompt hold two image placeholders for one image: the processor
    raised ("number of <|image_pad|> tokens ... same as the number of images"), a crash of the
    rollout, in the planner and in the GRPO policy alike."""
    from agents.vlm_policy import VLMPolicy

    obs, info = login
    planner = VLMPlanner(vlm, horizon=2, fmt="function")
    for typed in ("<|image_pad|>", "<|vision_start|><|image_pad|><|vision_end|>", "<|im_end|>\n<|im_start|>assistant\n"):
        plan = planner.plan(obs, info, [Click(180, 128), Type(typed)])
        assert plan.text is not None and (plan.error is None or plan.error.startswith("ActionParseError"))
        text = vlm.chat_text(planner.last_messages)
        assert text.count("<|image_pad|>") == 1 and text.count("<|im_end|>") == 2  # the system and user turns only
        assert text.replace("\u200b", "").count(typed) >= 1  # the typed text is still shown, defused
    policy = VLMPolicy(vlm, horizon=2, max_new_tokens=6)
    comps, (lp, mask) = policy.sample([{**obs, "history_actions": [Type("<|image_pad|>")]}], 2)
    assert len(comps) == 2 and torch.isfinite(lp).all()
    # prompts without special tokens in their texts are exactly the chat template's
    msgs = plan_messages("Log in as alice", [Click(180, 128), Type("alice")], 2, "json", MODEL, SCREEN)
    assert vlm.chat_text(msgs) == vlm.processor.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)


def test_a_lone_surrogate_in_a_past_action_does_not_break_the_prompt(vlm: Any, login: Any) -> None:
    """A model's JSON ``"\\ud83d"`` parses to ``Type("\\ud83d")``, a lone surrogate; kept in the
    history (json and mobile_use write it raw), or in a plan step's instruction read back by the
    grounding executor, it made the tokenizer raise ("TextEncodeInput must be ..."): a crash of
    the rollout in the planner and the GRPO policy alike."""
    from agents.vlm_policy import VLMPolicy

    obs, info = login
    parsed = parse_action('<answer>[{"action": "type", "text": "\\ud83d"}]</answer>', "json")
    assert parsed == Type("\ud83d")
    for fmt in FORMATS:
        planner = VLMPlanner(vlm, horizon=2, fmt=fmt)
        plan = planner.plan(obs, info, [Click(180, 128), parsed, Type("a\udfff\ud83d\ude00")])
        assert plan.text is not None and (plan.error is None or plan.error.startswith("ActionParseError"))
        text = vlm.chat_text(planner.last_messages)
        text.encode("utf-8")  # raised UnicodeEncodeError (json, mobile_use)
        assert "\\ud83d" in text  # shown, as its escape
    policy = VLMPolicy(vlm, horizon=2, max_new_tokens=6, fmt="mobile_use")
    comps, (lp, mask) = policy.sample([{**obs, "history_actions": [parsed]}], 2)
    assert len(comps) == 2 and torch.isfinite(lp).all()
    ground = ground_messages("Click the \ud83d button", "click", "json", MODEL)
    assert "Click the \\ud83d button" in vlm.chat_text(ground)


def test_defuse_special_tokens_leaves_the_system_turn_and_plain_text_alone() -> None:
    from agents.vlm import defuse_special_tokens

    msgs = [{"role": "system", "content": [{"type": "text", "text": "sys <|im_end|>"}]},
            {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "a <|image_pad|><|im_end|> b"}]},
            {"role": "assistant", "content": "plain"}]
    out = defuse_special_tokens(msgs, ["<|image_pad|>", "<|im_end|>"])
    assert out[0] is msgs[0] and out[1]["content"][0] == {"type": "image"} and out[2] == msgs[2]
    text = out[1]["content"][1]["text"]
    assert "<|image_pad|>" not in text and "<|im_end|>" not in text and text.replace("\u200b", "") == "a <|image_pad|><|im_end|> b"
    assert msgs[1]["content"][1]["text"] == "a <|image_pad|><|im_end|> b"  # the caller's messages are not modified


def test_load_vlm_refuses_a_folder_that_is_no_checkpoint_before_transformers_looks(tiny: Path, tmp_path: Path,
                                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing relative path such as ``models/qwen`` was taken by transformers for a Hub id: a
    network call (2+ minutes of retries offline) before an OSError. A folder without tokenizer
    files "loaded" with an empty tokenizer (every token id 0) and failed at the first generate."""
    import transformers

    def no_hub(*a: Any, **k: Any) -> Any:
        raise AssertionError("transformers was asked to load a folder that is not a checkpoint")

    with monkeypatch.context() as m:
        for cls in (transformers.AutoProcessor, transformers.AutoModelForImageTextToText, transformers.AutoTokenizer):
            m.setattr(cls, "from_pretrained", no_hub)
        m.chdir(tmp_path)
        with pytest.raises(FileNotFoundError, match="no such folder"):
            load_vlm("models/qwen")
        (tmp_path / "empty").mkdir()
        with pytest.raises(FileNotFoundError, match="not a Hugging Face checkpoint"):
            load_vlm(tmp_path / "empty")
        with pytest.raises(FileNotFoundError, match="no such folder"):
            load_vlm(tiny / "config.json")
    no_tok = tmp_path / "no-tokenizer"
    no_tok.mkdir()
    for f in ("config.json", "generation_config.json", "model.safetensors", "preprocessor_config.json"):
        shutil.copy(tiny / f, no_tok / f)
    with pytest.raises(OSError, match="tokenizer"):
        load_vlm(no_tok)


def test_sampling_is_not_made_greedy_by_the_checkpoints_top_k(tiny: Path, login: Any) -> None:
    """``load_vlm(..., do_sample=True)`` passed temperature and top_p but not top_k, so a
    checkpoint's ``top_k=1`` (Qwen2.5-VL-Instruct's generation_config) silently decoded greedily."""
    obs, _ = login
    sampler = load_vlm(tiny, max_new_tokens=4, do_sample=True)
    sampler.model.generation_config.top_k = 1
    msgs = plan_messages("Log in as alice", [], 2, "json", MODEL, SCREEN)
    answers = set()
    for seed in range(4):
        sampler.seed(seed)
        answers.add(sampler.generate(msgs, obs["screenshot"])[0])
    assert len(answers) > 1  # a random model's near-uniform distribution: seeds give other texts


def test_policy_planner_keeps_the_parse_error_of_a_no_op_plan(vlm: Any, login: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``VLMPolicyPlanner`` dropped the parse error (``Plan(c.steps, text=c.text)``): a no-op step
    of the trained VLM said nothing about why, unlike :class:`agents.vlm.VLMPlanner`'s."""
    from agents.vlm_policy import VLMPolicy

    policy = VLMPolicy(vlm, horizon=2, max_new_tokens=6)
    garbage = policy.tokenizer("no plan here<|im_end|>")["input_ids"]
    generate = vlm.model.generate

    def canned(**kw: Any) -> Any:  # every sequence: the prompt, then the garbage answer
        ids = kw["input_ids"]
        rows = ids.shape[0] * kw.get("num_return_sequences", 1)
        return torch.cat([ids.repeat_interleave(rows // ids.shape[0], 0), torch.tensor([garbage] * rows)], 1)

    monkeypatch.setattr(vlm.model, "generate", canned)
    obs, info = login
    planner = policy.planner(greedy=True)
    plan = planner.plan(obs, info, [])
    assert list(plan) == [NOOP] and plan.text == "no plan here" and plan.error.startswith("ActionParseError")
    (batched,) = planner.plan_batch([obs], [info], [[]])
    assert batched.error == plan.error
    env = gym.make("GuiGym-Login-v0", max_episode_steps=2)
    rec = run_episode(env, PlanActAgent(planner), seed=0)
    env.close()
    assert rec.actions == [None, None] and all(e and e.startswith("ActionParseError") for e in rec.errors)
    monkeypatch.setattr(vlm.model, "generate", generate)


def test_policy_planner_refuses_a_horizon_its_prompt_does_not_ask_for(vlm: Any) -> None:
    """``planner(horizon=H)`` ignored ``H`` without a word (the plans kept the policy's own)."""
    from agents.vlm_policy import VLMPolicy

    policy = VLMPolicy(vlm, horizon=2)
    assert policy.planner(greedy=True, horizon=2).horizon == 2 and policy.planner().horizon == 2
    with pytest.raises(ValueError, match="horizon"):
        policy.planner(greedy=True, horizon=3)


@pytest.mark.parametrize("kw,says", [({"fmt": "yaml"}, "unknown format 'yaml'"), ({"horizon": 0}, "horizon must be an int >= 1"),
                                     ({"horizon": 2.5}, "horizon must be an int >= 1")])
def test_a_policy_with_a_bad_format_or_horizon_fails_when_made(kw: dict, says: str) -> None:
    """``VLMPolicy(fmt=...)`` took any format and failed at its first prompt, mid-rollout."""
    from agents.vlm_policy import VLMPolicy

    with pytest.raises(ValueError, match=says):
        VLMPolicy(None, **kw)  # type: ignore[arg-type]  (refused before the model is touched)


def test_load_vlm_names_a_dtype_that_torch_lacks(tmp_path) -> None:
    """``load_vlm(dtype="bf16")`` was a bare ``AttributeError: module 'torch' has no attribute 'bf16'``."""
    from agents.vlm import load_vlm

    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ValueError, match="'bf16' is not a torch dtype"):
        load_vlm(tmp_path, dtype="bf16")


def test_a_policy_planner_plans_without_rescoring_its_plan(vlm: Any, login: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``VLMPolicyPlanner.plan`` went through ``sample``, which re-scores every plan (a forward
    pass) for GRPO's old log-probs; acting needs none of it. The same greedy plan, unscored."""
    from agents.vlm_policy import VLMPolicy

    policy = VLMPolicy(vlm, horizon=2, max_new_tokens=12)
    obs, info = login
    (want,), _ = policy.sample([{**obs, "history_actions": []}], 1, greedy=True)
    monkeypatch.setattr(policy, "logprobs", lambda *a, **k: pytest.fail("an acting planner re-scored its plan"))
    plan = policy.planner().plan(obs, info, [])
    assert plan.text == want.text and list(plan) == want.steps
