"""examples/trl_grpo.py: a couple of TRL GRPO steps on the tiny Qwen2.5-VL and an export."""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("trl")
torch = pytest.importorskip("torch")

from tests.conftest import load_example  # noqa: E402


def test_trl_grpo_smoke(tmp_path):
    from agents.tiny_vlm import build_tiny_qwen25vl
    from guigym.export import export

    torch.set_num_threads(1)
    model = build_tiny_qwen25vl(tmp_path / "tiny")
    data = export("GuiGym-Login-v0", 2, tmp_path / "data", progress=False)
    ex = load_example("trl_grpo")
    args = ex.Args(data=str(data), model=str(model), out=str(tmp_path / "run"), max_steps=2, max_rows=8,
                   num_generations=2, max_completion_length=24)
    ds = ex.build_dataset(args, lambda size: (112, 196))
    row = ds[0]
    assert row["image"].size == (112, 196) and row["prompt"][-1]["content"][0]["type"] == "image"
    ref = json.loads(row["reference"])[0]
    x0, y0, x1, y1 = ref["box"]
    assert x1 <= 112 and y1 <= 196 and x0 <= ref["action"]["x"] <= x1  # rescaled to the model's image

    out = ex.main(args)
    assert out["global_step"] == 2
    logs = [h for h in out["log_history"] if "rewards/trajectory_reward/mean" in h]
    assert len(logs) == 2 and all(math.isfinite(h["loss"]) for h in logs)
