"""Second audit of the VLM path: the model's image size vs the processor's, LoRA checkpoints
trained on, GRPO's advantage shapes, strict JSON through ``default``. CPU, no network: the
tiny Qwen2.5-VL is built offline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.grpo import Completion, group_advantages, grpo_update  # noqa: E402
from agents.json_out import to_json  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pytest.importorskip("transformers")
    from agents.tiny_vlm import build_tiny_qwen25vl

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield build_tiny_qwen25vl(tmp_path_factory.mktemp("tiny-qwen25vl"))
    torch.set_num_threads(threads)


def _canned_generate(policy: Any, answer: str) -> Any:
    ids = policy.tokenizer(answer + "<|im_end|>")["input_ids"]

    def generate(**kw: Any) -> Any:  # every sequence: its prompt, then the canned answer
        rows = kw["input_ids"].shape[0] * kw.get("num_return_sequences", 1)
        prompt = kw["input_ids"].repeat_interleave(rows // kw["input_ids"].shape[0], 0)
        return torch.cat([prompt, torch.tensor([ids] * rows)], 1)

    return generate


@pytest.mark.parametrize("bounds,screen", [({"max_pixels": 5000}, (360, 640)), ({"max_pixels": 5000}, (1080, 2400)),
                                           ({}, (2000, 100)), ({}, (360, 640))])
def test_model_size_is_the_size_the_processor_keeps(tiny: Path, bounds: dict, screen: tuple[int, int],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Qwen's resize rule can miss its bounds (a 360x640 screen with ``max_pixels=5000`` floors to
    28x84, under the processor's 3136-pixel minimum; a 2000x100 one keeps a one-patch short side
    and lands above ``max_pixels``); the processor then resized the image again. The prompt named
    a size the model never saw, and ``VLMPolicy`` rescaled its plan's clicks from it (2x off)."""
    from agents.plan_act import Plan
    from agents.vlm import load_vlm, plan_messages
    from agents.vlm_policy import VLMPolicy
    from guigym.actions import Click

    vlm = load_vlm(tiny, max_new_tokens=1, **bounds)
    size = vlm.model_size(screen)
    shot = np.zeros((screen[1], screen[0], 3), np.uint8)
    _, seen = vlm.generate(plan_messages("Log in", [], 1, "json", size, screen), shot)
    assert seen == size  # what the processor's image grid says the model saw
    policy = VLMPolicy(vlm, horizon=1, max_new_tokens=24)
    x, y = size[0] // 2, size[1] // 2  # the centre of the model's image
    answer = f'<answer>[{{"action": "click", "coordinate": [{x}, {y}]}}]</answer>'
    monkeypatch.setattr(vlm.model, "generate", _canned_generate(policy, answer))
    plan: Plan = policy.planner().plan({"screenshot": shot, "instruction": "Log in"}, {}, [])
    assert plan.error is None and plan[0].action == Click(screen[0] // 2, screen[1] // 2)  # the screen's centre


def test_a_lora_checkpoint_trains_on_from_its_saved_adapter(tiny: Path, tmp_path: Path) -> None:
    """``VLMPolicy.from_pretrained(adapter_folder, lora_rank=r)`` wrapped a new adapter around the
    one transformers had loaded, re-initialising it: training went on from the base model without
    a word. With ``lora_rank=0`` (train_small's default) no weight was trainable, and the
    optimizer raised "empty parameter list"."""
    pytest.importorskip("peft")
    import gymnasium as gym

    import guigym  # noqa: F401
    from agents.vlm_policy import VLMPolicy

    env = gym.make("GuiGym-Login-v0")
    o, _ = env.reset(seed=0)
    env.close()
    obs = {**o, "history_actions": []}
    pol = VLMPolicy.from_pretrained(tiny, horizon=2, device="cpu", lora_rank=4)
    comps = [Completion([], data=pol.tokenizer("back()")["input_ids"])]
    with torch.no_grad():
        for name, p in pol.vlm.model.named_parameters():
            if "lora_B" in name:  # a trained adapter (lora_B starts at zero: the base model's scores)
                p.add_(0.3)
    pol.eval()
    with torch.no_grad():
        trained, _ = pol.logprobs([obs], comps)
    pol.save(tmp_path / "lora")
    assert (tmp_path / "lora" / "adapter_config.json").is_file()

    again = VLMPolicy.from_pretrained(tmp_path / "lora", horizon=2, device="cpu", lora_rank=4).eval()
    with torch.no_grad():
        assert torch.allclose(again.logprobs([obs], comps)[0], trained, atol=1e-5)
    names = [n for n, p in again.vlm.model.named_parameters() if p.requires_grad]
    assert names and all("lora_" in n for n in names)  # the saved adapter is what trains
    with torch.no_grad():
        for p in again.parameters():
            if p.requires_grad:
                p.add_(0.05)
        moved, _ = again.logprobs([obs], comps)
    again.save(tmp_path / "lora2")  # a reloaded adapter saves, and loads back as trained
    third = VLMPolicy.from_pretrained(tmp_path / "lora2", horizon=2, device="cpu", lora_rank=4).eval()
    with torch.no_grad():
        assert torch.allclose(third.logprobs([obs], comps)[0], moved, atol=1e-5)
    for rank in (0, 8):
        with pytest.raises(ValueError, match="LoRA adapter of rank 4"):
            VLMPolicy.from_pretrained(tmp_path / "lora", horizon=2, device="cpu", lora_rank=rank)


class _Softmax(torch.nn.Module):
    """A one-token policy over 3 choices (``Completion.data[0]``), two tokens per row."""

    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([0.1, -0.2, 0.3]))

    def logprobs(self, obs: Any, comps: Any) -> tuple[torch.Tensor, torch.Tensor]:
        lp = torch.log_softmax(self.w, 0)[[c.data[0] for c in comps]]
        return lp[:, None].expand(-1, 2), torch.ones(len(comps), 2)


@pytest.mark.parametrize("B,n", [(2, 2), (1, 4), (3, 2)])
def test_grpo_update_takes_group_advantages_as_they_come(B: int, n: int) -> None:
    """``group_advantages`` gives ``[groups, group_size]``; handed to ``grpo_update`` as is, its
    rows were indexed by completion: an ``IndexError`` (or, for a minibatch of the first groups,
    the matrix read as per-token advantages). Now the same update as the flattened advantages."""
    comps = [Completion([], data=[i % 3]) for i in range(B * n)]
    rewards = torch.arange(B * n, dtype=torch.float32).reshape(B, n) % 3
    adv = group_advantages(rewards)
    weights = []
    for a in (adv, adv.reshape(-1)):
        pol = _Softmax()
        old, mask = pol.logprobs(list(range(B)), comps)
        grpo_update(pol, torch.optim.SGD(pol.parameters(), lr=0.5), list(range(B)), comps, old.detach(), mask, a,
                    generator=torch.Generator().manual_seed(0))
        weights.append(pol.w.detach().clone())
    assert torch.equal(weights[0], weights[1]) and not torch.equal(weights[0], _Softmax().w.detach())
    pol = _Softmax()
    old, mask = pol.logprobs(list(range(B)), comps)
    for bad in (torch.zeros(B * n + 1), torch.zeros(B + 1, n)):
        with pytest.raises(ValueError, match="advantages"):
            grpo_update(pol, torch.optim.SGD(pol.parameters(), lr=0.5), list(range(B)), comps, old.detach(), mask, bad)


def test_to_json_writes_null_for_a_nan_that_default_makes() -> None:
    """``to_json(obj, default=float)`` on a numpy float32 NaN (no ``float`` subclass, so not
    replaced first): ``default`` made a float NaN and ``allow_nan=False`` raised ValueError."""
    out = to_json({"a": np.float32("nan"), "b": [np.float32(2.5), np.float32("inf")]}, indent=None, default=float)
    assert json.loads(out) == {"a": None, "b": [2.5, None]}
    assert to_json({"a": np.float32("nan")}, indent=None, default=str) == '{"a": "nan"}'  # other defaults as before
    with pytest.raises(TypeError):
        to_json({"a": np.float32(1.0)})  # no default: as json.dumps


def test_save_writes_extra_next_to_the_weights(tiny: Path, tmp_path: Path) -> None:
    """``save(path, extra=...)`` dropped ``extra`` for a VLM (train_small passes the run's args
    there, as it does to the tiny policy's checkpoint); it is now ``guigym_extra.json``."""
    from agents.vlm import load_vlm
    from agents.vlm_policy import VLMPolicy

    policy = VLMPolicy(load_vlm(tiny, max_new_tokens=1), horizon=1)
    policy.save(tmp_path / "ckpt", extra={"args": {"seed": 3, "lr": float("nan"), "out": tmp_path}})
    saved = json.loads((tmp_path / "ckpt" / "guigym_extra.json").read_text())
    assert saved == {"args": {"seed": 3, "lr": None, "out": str(tmp_path)}}
    policy.save(tmp_path / "plain")
    assert not (tmp_path / "plain" / "guigym_extra.json").exists()
