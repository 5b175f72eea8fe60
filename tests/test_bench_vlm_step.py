"""``benchmarks/bench_vlm_step.py`` (one GRPO iteration of the VLM recipe) and the 3B shape it
builds: the script runs end to end on the tiny model on CPU, and ``QWEN25VL_3B`` gives the
parameter count of the real Qwen2.5-VL-3B (built on the meta device: no memory, no weights)."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers")
pytest.importorskip("peft")

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_vlm_step", ROOT / "benchmarks" / "bench_vlm_step.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclass looks its module up there
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_one_iteration_of_the_recipe_runs_on_the_tiny_model(tmp_path):
    bench = _bench()
    args = bench.Args(size="tiny", device="cpu", states=2, group_size=2, horizon=2, max_new_tokens=8, lora_rank=4,
                      iterations=1, json_out=str(tmp_path / "out.json"))
    out = bench.main(args)
    assert json.loads((tmp_path / "out.json").read_text()) == json.loads(json.dumps(out))
    (row,) = out["iterations"]
    assert row["completions"] == 4 and 0 < row["tokens"] <= 4 * 8
    assert math.isfinite(row["loss"]) and row["sample_s"] > 0 and row["update_s"] > 0
    assert 0 < out["trainable"] < out["params"]  # LoRA: only the adapters train
    assert row["peak_gib"] is None  # no CUDA peak on a CPU


def test_the_3b_preset_has_qwen25vl_3bs_parameter_count(tmp_path, monkeypatch):
    import torch
    from transformers import Qwen2_5_VLForConditionalGeneration

    from agents.tiny_vlm import QWEN25VL_3B, build_tiny_qwen25vl

    seen = {}

    def instead_of_saving(model, out, **kw):  # meta tensors cannot be saved: count them and stop
        seen["params"] = sum(p.numel() for p in model.parameters())
        seen["text"] = model.config.text_config
        raise _Stop

    monkeypatch.setattr(Qwen2_5_VLForConditionalGeneration, "save_pretrained", instead_of_saving)
    with pytest.raises(_Stop):
        build_tiny_qwen25vl(tmp_path, **QWEN25VL_3B, device="meta", dtype=torch.bfloat16)
    assert seen["params"] == 3_754_622_976  # "3.75B" of the model card (embedding tied to the LM head)
    assert (seen["text"].num_hidden_layers, seen["text"].hidden_size, seen["text"].vocab_size) == (36, 2048, 151_936)


def test_a_3b_run_needs_a_gpu():
    bench = _bench()
    with pytest.raises(SystemExit, match="needs a GPU"):
        bench.main(bench.Args(size="3b", device="cpu"))


class _Stop(Exception):
    pass
