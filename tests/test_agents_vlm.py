"""VLM planner and executor: prompts and parsing with canned model outputs in every action
format (no torch needed), then a tiny random Qwen2.5-VL built offline, saved, and loaded back
through the real checkpoint-loading code (needs torch + transformers)."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from agents import ElementExecutor, PlanActAgent, run_episode, summarize
from agents.plan_act import NOOP
from agents.vlm import (
    QWEN_VL_CHAT_TEMPLATE,
    VLMExecutor,
    VLMPlanner,
    ground_messages,
    history_lines,
    parse_plan_output,
    plan_messages,
    smart_resize,
    system_prompt,
)
from guigym.actions import FORMATS, Back, Click, OpenApp, PlanStep, Scroll, Type, format_plan, parse_plan, rescale_action

SCREEN = (360, 640)
MODEL = (84, 140)  # smart_resize of 360x640 with max_pixels 28*28*16

# Canned answers: the same two-step plan in every format, in model-image pixels:
# click (42, 28) on the 84x140 image = (180, 128) on the 360x640 screenshot.
CANNED = {
    "json": '<think>The username field is at the top.</think>\n<answer>[{"action": "click", "coordinate": [42, 28], '
    '"instruction": "Click the \'Email\' field"}, {"action": "type", "text": "carol@example.com", '
    '"instruction": "Type the email"}]</answer>',
    "function": 'click(x=42, y=28, instruction="Click the \'Email\' field")\ntype(text="carol@example.com", instruction="Type the email")',
    "mobile_use": '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [42, 28], '
    '"instruction": "Click the \'Email\' field"}}\n</tool_call>\n<tool_call>\n{"name": "mobile_use", "arguments": '
    '{"action": "type", "text": "carol@example.com", "instruction": "Type the email"}}\n</tool_call>',
}
EXPECTED = [PlanStep(Click(180, 128), "Click the 'Email' field"), PlanStep(Type("carol@example.com"), "Type the email")]


class FakeVLM:
    """Canned answers in turn (the last one repeats); records every call."""

    def __init__(self, answers, size=MODEL):
        self.answers, self.size, self.calls, self.seeds = list(answers), size, [], []

    def model_size(self, screen_size):
        return self.size

    def seed(self, s):
        self.seeds.append(s)

    def generate(self, messages, image):
        self.calls.append((messages, np.asarray(image).shape))
        return self.answers[min(len(self.calls) - 1, len(self.answers) - 1)], self.size


class OracleVLM(FakeVLM):
    """A "perfect" model: answers with the env's dense reference, written in ``fmt`` in the
    model's image pixels — so only the prompt → text → parse → rescale chain is tested."""

    def __init__(self, env, fmt, horizon):
        super().__init__([])
        self.env, self.fmt, self.horizon = env, fmt, horizon

    def generate(self, messages, image):
        self.calls.append((messages, np.asarray(image).shape))
        ref = self.env.unwrapped.reference()[: self.horizon]
        steps = [PlanStep(rescale_action(r.action, SCREEN, self.size), r.instruction) for r in ref]
        return format_plan(steps, self.fmt), self.size


def _obs(env, seed=0, level="easy"):
    return env.reset(seed=seed, options={"level": level})


# ------------------------------------------------------------------ prompts and parsing


def test_smart_resize_matches_qwen_rule():
    assert smart_resize(640, 360, 28, 28 * 28 * 4, 28 * 28 * 16) == (140, 84)
    assert smart_resize(640, 360, 28, 3136, 12845056) == (644, 364)  # Qwen2.5-VL defaults
    h, w = smart_resize(10, 10, 28, 3136, 12845056)
    assert h % 28 == w % 28 == 0 and h * w >= 3136


@pytest.mark.parametrize("fmt", FORMATS)
def test_canned_output_parses_and_rescales(fmt):
    plan = parse_plan_output(CANNED[fmt], fmt, horizon=8, model_size=MODEL, screen_size=SCREEN)
    assert list(plan) == EXPECTED and plan.error is None and plan.text == CANNED[fmt]


@pytest.mark.parametrize("fmt", FORMATS)
def test_system_prompt_example_parses_in_its_format(fmt):
    """The example answer shown to the model is valid in the format it asks for."""
    sp = system_prompt(fmt, MODEL, 8)
    example = sp.split("Example:\n", 1)[1]
    steps = parse_plan(example, fmt)
    assert len(steps) == 3 and steps[2].action is None and steps[2].instruction == "Click the 'Sign in' button"
    assert "84x140" in sp and "next 8 actions" in sp


@pytest.mark.parametrize("fmt", FORMATS)
def test_malformed_output_is_a_noop_with_the_parse_error(fmt):
    for text in ["", "I would click the sign in button.", "<answer>[{\"action\": \"fly\"}]</answer>", "click(x=1", "<tool_call>{oops"]:
        plan = parse_plan_output(text, fmt, 8, MODEL, SCREEN)
        assert list(plan) == [NOOP] and plan.error.startswith("ActionParseError: ") and plan.text == text


def test_wrong_format_is_an_error_unless_autodetect():
    assert parse_plan_output(CANNED["json"], "function", 8, MODEL, SCREEN).error
    assert list(parse_plan_output(CANNED["json"], None, 8, MODEL, SCREEN)) == EXPECTED


def test_horizon_truncates_and_ungrounded_steps_stay_ungrounded():
    steps = [PlanStep(Back(), "Go back")] * 5 + [PlanStep(action=None, action_type="click", instruction="Click 'OK'")]
    text = format_plan([PlanStep(action=None, action_type="click", instruction="Click 'Sign in'")] + steps, "json")
    plan = parse_plan_output(text, "json", 3, MODEL, SCREEN)
    assert len(plan) == 3 and plan[0] == PlanStep(action=None, action_type="click", instruction="Click 'Sign in'")
    scroll = parse_plan_output('<tool_call>{"name": "mobile_use", "arguments": {"action": "swipe", "coordinate": [42, 100], '
                               '"coordinate2": [42, 20]}}</tool_call>', "mobile_use", 8, MODEL, SCREEN)
    assert scroll[0].action == Scroll("down", 180, 457)


@pytest.mark.parametrize("fmt", FORMATS)
def test_plan_messages(fmt):
    history = [Click(180, 128), Type("alice"), Back(), OpenApp("Notes"), Scroll("down", 180, 320), Click(0, 0)]
    msgs = plan_messages("Log in as alice", history, 5, fmt, MODEL, SCREEN, history_len=4)
    assert [m["role"] for m in msgs] == ["system", "user"]
    user = msgs[1]["content"]
    assert sum(c["type"] == "image" for c in user) == 1 and user[0]["type"] == "image"
    text = user[1]["text"]
    assert "Task: Log in as alice" in text and "Plan the next 5 actions" in text and "the last 4" in text
    lines = [ln.split(". ", 1)[1] for ln in text.splitlines() if ln[:2] in ("1.", "2.", "3.", "4.")]
    assert len(lines) == 4  # the last K = 4 actions, oldest first
    joined = "\n".join(lines) if fmt == "function" else "[" + ",".join(lines) + "]"
    assert [s.action for s in parse_plan(joined, fmt)][:2] == [Back(), OpenApp("Notes")]
    assert lines[-1] == history_lines([Click(0, 0)], fmt, SCREEN, MODEL)[0]
    # coordinates in the history are in model-image pixels
    (scroll,) = history_lines([Scroll("down", 180, 320)], "function", SCREEN, MODEL)
    assert scroll == 'scroll(direction="down", x=42, y=70)'
    none = plan_messages("x", [], 5, fmt, MODEL, SCREEN)[1]["content"][1]["text"]
    assert "none" in none and "the last 0" in none


def test_ground_messages():
    msgs = ground_messages("Click the 'Sign in' button", "click", "json", MODEL)
    assert "84x140" in msgs[0]["content"][0]["text"]
    assert msgs[1]["content"][0] == {"type": "image"} and "Click the 'Sign in' button" in msgs[1]["content"][1]["text"]


# ------------------------------------------------------------------ planner / executor with fakes


@pytest.mark.parametrize("fmt", FORMATS)
def test_vlm_planner_with_canned_outputs(login_env, fmt):
    fake = FakeVLM([CANNED[fmt], "garbage"])
    planner = VLMPlanner(fake, horizon=4, history_len=2, fmt=fmt)
    planner.reset(3)
    obs, info = _obs(login_env, seed=3)
    plan = planner.plan(obs, info, [])
    assert list(plan) == EXPECTED and planner.last_text == CANNED[fmt] and fake.seeds == [3]
    assert fake.calls[0][1] == (640, 360, 3)
    assert "Plan the next 4 actions" in planner.last_messages[1]["content"][1]["text"]
    bad = planner.plan(obs, info, [Click(1, 2)])
    assert list(bad) == [NOOP] and bad.error.startswith("ActionParseError")


@pytest.mark.parametrize("fmt", FORMATS)
def test_vlm_planner_episode_with_perfect_model(fmt):
    """The whole chain (prompt, text in each format, parse, rescale 84x140 -> 360x640) solves
    the tasks when the model's answers are right."""
    for env_id, level in [("GuiGym-Login-v0", "hard"), ("GuiGym-Settings-v0", "medium")]:
        env = gym.make(env_id)
        agent = PlanActAgent(VLMPlanner(OracleVLM(env, fmt, 4), horizon=4, fmt=fmt), ElementExecutor())
        recs = [run_episode(env, agent, seed=s, level=level) for s in range(5)]
        assert summarize(recs)["success_rate"] == 1.0, [r.errors for r in recs]
        assert all(p.text for r in recs for p in r.plans)
        env.close()


def test_vlm_planner_garbage_model_runs_full_episodes(login_env):
    agent = PlanActAgent(VLMPlanner(FakeVLM(["<answer>nope</answer>"]), horizon=8), ElementExecutor())
    rec = run_episode(login_env, agent, seed=0)
    assert rec.truncated and rec.steps == login_env.spec.max_episode_steps and not rec.success
    assert all(e.startswith("ActionParseError") for e in rec.errors)


@pytest.mark.parametrize("fmt", FORMATS)
def test_vlm_executor_with_canned_points(login_env, fmt):
    login_env.reset(seed=0)
    signin = next(e for e in login_env.unwrapped.elements() if e["id"] == "signin")
    x0, y0, x1, y1 = signin["box"]
    cx, cy = round((x0 + x1) / 2 * MODEL[0] / SCREEN[0]), round((y0 + y1) / 2 * MODEL[1] / SCREEN[1])
    answer = format_plan([PlanStep(Click(cx, cy))], fmt)
    ex = VLMExecutor(FakeVLM([answer]), fmt=fmt)
    step = PlanStep(action_type="click", instruction=f"Click the '{signin['label']}' button")
    a = ex(login_env, step)
    assert x0 <= a.x <= x1 and y0 <= a.y <= y1
    msgs, shape = ex.vlm.calls[0]
    assert shape == (640, 360, 3) and signin["label"] in msgs[1]["content"][1]["text"]
    # steps that need no pointing are read from the instruction, without a model call
    assert ex(login_env, PlanStep(action_type="type", instruction="Type 'bob' into the 'Email' field")) == Type("bob")
    assert len(ex.vlm.calls) == 1
    bad = VLMExecutor(FakeVLM(["no idea"]), fmt=fmt)
    assert bad(login_env, step) is None and bad.last_error.startswith("ActionParseError")


def test_vlm_planner_validates_arguments():
    with pytest.raises(ValueError):
        VLMPlanner(FakeVLM([""]), fmt="xml")
    with pytest.raises(ValueError):
        VLMPlanner(FakeVLM([""]), horizon=0)
    with pytest.raises(TypeError):
        VLMPlanner(FakeVLM([""]), device="cpu")  # loading options need a path


# ------------------------------------------------------------------ the tiny Qwen2.5-VL


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from agents.tiny_vlm import build_tiny_qwen25vl

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: one thread is fastest, and immune to a busy CI core
    path = build_tiny_qwen25vl(tmp_path_factory.mktemp("tiny-qwen25vl"))
    yield path
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny_vlm(tiny):
    from agents.vlm import load_vlm

    return load_vlm(tiny, max_new_tokens=16)


def test_tiny_checkpoint_layout_and_config(tiny):
    from transformers import AutoConfig, AutoTokenizer

    names = {p.name for p in tiny.iterdir()}
    assert {"config.json", "model.safetensors", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
            "preprocessor_config.json", "chat_template.json"} <= names
    cfg = AutoConfig.from_pretrained(tiny)
    tok = AutoTokenizer.from_pretrained(tiny)
    text = cfg.text_config
    head_dim = text.hidden_size // text.num_attention_heads
    assert sum(text.rope_parameters["mrope_section"]) == head_dim // 2
    assert cfg.vision_config.out_hidden_size == text.hidden_size
    assert cfg.image_token_id == tok.convert_tokens_to_ids("<|image_pad|>")
    assert cfg.video_token_id == tok.convert_tokens_to_ids("<|video_pad|>")
    assert cfg.vision_start_token_id == tok.convert_tokens_to_ids("<|vision_start|>")
    assert cfg.vision_end_token_id == tok.convert_tokens_to_ids("<|vision_end|>")
    assert tok.eos_token == "<|im_end|>" and tok.pad_token == "<|endoftext|>"
    assert text.vocab_size >= len(tok)
    pre = json.loads((tiny / "preprocessor_config.json").read_text())
    assert pre["processor_class"] == "Qwen2_5_VLProcessor" and pre["image_processor_type"] == "Qwen2VLImageProcessor"
    assert json.loads((tiny / "chat_template.json").read_text())["chat_template"] == QWEN_VL_CHAT_TEMPLATE
    ids = tok("<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>click(x=12, y=30)<|im_end|>")["input_ids"]
    assert tok.decode(ids) == "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>click(x=12, y=30)<|im_end|>"
    call = "<tool_call>\n{}\n</tool_call>"
    assert tok.decode(tok(call + "<|im_end|>")["input_ids"], skip_special_tokens=True) == call


def test_tiny_build_is_deterministic(tiny, tmp_path):
    from agents.tiny_vlm import build_tiny_qwen25vl

    again = build_tiny_qwen25vl(tmp_path / "again")
    assert (again / "model.safetensors").read_bytes() == (tiny / "model.safetensors").read_bytes()
    assert (again / "tokenizer.json").read_text() == (tiny / "tokenizer.json").read_text()


def test_processor_loading_path(tiny):
    """``AutoProcessor`` is tried first (the path of a real checkpoint); without torchvision
    it raises, and the loader builds the same processor class without the video processor."""
    from transformers import AutoProcessor, Qwen2_5_VLProcessor
    from transformers.utils import is_torchvision_available

    from agents.vlm import load_processor

    proc = load_processor(tiny)
    assert isinstance(proc, Qwen2_5_VLProcessor)
    if is_torchvision_available():
        assert type(proc) is type(AutoProcessor.from_pretrained(tiny))
    else:
        with pytest.raises(ImportError, match="(?i)torchvision"):
            AutoProcessor.from_pretrained(tiny)
        assert type(proc).__name__ == "Qwen2_5_VLProcessorImageOnly" and not hasattr(proc, "video_processor")


def test_tiny_vlm_generate(tiny_vlm):
    from PIL import Image

    assert tiny_vlm.model_size(SCREEN) == MODEL
    msgs = plan_messages("Log in as alice", [Click(180, 128)], 8, "json", MODEL, SCREEN)
    text = tiny_vlm.processor.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
    assert text.count("<|vision_start|><|image_pad|><|vision_end|>") == 1 and text.endswith("<|im_start|>assistant\n")
    inputs = tiny_vlm.processor(text=[text], images=[Image.new("RGB", MODEL)], return_tensors="pt")
    n_image_tokens = int((inputs["input_ids"] == tiny_vlm.model.config.image_token_id).sum())
    assert n_image_tokens == int(inputs["image_grid_thw"].prod()) // 4 == 15
    shot = np.random.default_rng(0).integers(0, 255, (640, 360, 3), dtype=np.uint8)
    out, seen = tiny_vlm.generate(msgs, shot)
    assert isinstance(out, str) and seen == MODEL
    assert tiny_vlm.generate(msgs, shot)[0] == out  # greedy: deterministic


@pytest.mark.parametrize("fmt", FORMATS)
def test_tiny_vlm_planner_runs_full_episodes(tiny_vlm, fmt):
    """Acceptance: the VLM planner on the tiny random model runs whole episodes on the mock
    backend on CPU; its (random) answers become no-op steps with their parse errors."""
    env = gym.make("GuiGym-Login-v0", max_episode_steps=3)
    planner = VLMPlanner(tiny_vlm, horizon=4, history_len=2, fmt=fmt)
    rec = run_episode(env, PlanActAgent(planner, VLMExecutor(tiny_vlm, fmt=fmt)), seed=0)
    assert rec.steps == 3 and rec.truncated and len(rec.plans) == 3
    assert all(isinstance(p.text, str) for p in rec.plans)
    assert all(e for a, e in zip(rec.actions, rec.errors) if a is None)  # every no-op says why
    env.close()


def test_tiny_vlm_executor_never_raises(tiny_vlm, login_env):
    login_env.reset(seed=0)
    ex = VLMExecutor(tiny_vlm, fmt="json")
    a = ex(login_env, PlanStep(action_type="click", instruction="Click the 'Sign in' button"))
    assert a is None or isinstance(a, (Click, Scroll, Type, Back, OpenApp))
    assert (a is None) == (ex.last_error is not None)


def test_evaluate_cli_with_a_checkpoint(tiny, capsys):
    from agents.evaluate import main

    assert main(["--env", "GuiGym-Settings-v0", "--level", "easy", "--planner", "vlm", "--model", str(tiny), "--episodes", "1",
                 "--max-steps", "2", "--max-new-tokens", "8", "--format", "function", "--no-progress", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "vlm planner" in out and "success 0/1" in out and "no-op steps" in out


@pytest.mark.parametrize("args,says", [
    (["--hidden-size", "7"], "--hidden-size must be a multiple of 8"),  # a ValueError traceback from the builder
    (["--hidden-size", "0"], "--hidden-size must be >= 1"),
    (["--layers", "0"], "--layers must be >= 1"),  # "saved" a model with no layer
    (["--seed", "-1"], "--seed must be >= 0"),
])
def test_tiny_vlm_command_names_a_bad_flag_before_it_builds(args, says, tmp_path, capsys):
    from agents.tiny_vlm import main

    with pytest.raises(SystemExit) as e:
        main([str(tmp_path / "m"), *args])
    assert e.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "m").exists()


def test_tiny_vlm_command_refuses_a_file_as_its_folder(tmp_path, capsys):
    from agents.tiny_vlm import main

    (tmp_path / "a_file").write_text("x")
    with pytest.raises(SystemExit) as e:  # FileExistsError traceback
        main([str(tmp_path / "a_file")])
    assert e.value.code == 2 and "exists and is not a folder" in capsys.readouterr().err
