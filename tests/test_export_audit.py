"""guigym export, read back: every row matches what the env showed and planned."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from guigym.export import export
from guigym.rewards import load_reference


@pytest.mark.parametrize("env_id,level", [("GuiGym-Login-v0", "hard"), ("GuiGym-Contacts-v0", "easy")])
def test_exported_rows_read_back_as_the_env_showed_them(env_id: str, level: str, tmp_path: Path) -> None:
    out = export(env_id, 2, tmp_path / "d", level=level, seed=3, progress=False)
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text(encoding="utf-8").split("\n") if line]
    steps = [json.loads(line) for line in (out / "steps.jsonl").read_text(encoding="utf-8").split("\n") if line]
    assert [e["seed"] for e in episodes] == [3, 4] and all(e["level"] == level for e in episodes)
    assert len(steps) == sum(len(e["actions"]) for e in episodes)
    env = gym.make(env_id)
    rows = iter(steps)
    for ep in episodes:
        obs, info = env.reset(seed=ep["seed"], options={"level": level})
        assert ep["goal"] == obs["instruction"]
        for t, shot in enumerate(ep["screenshots"]):
            assert np.array_equal(np.asarray(Image.open(out / shot)), obs["screenshot"])  # lossless, same pixels
            assert load_reference(ep["references"][t]) == list(info["reference"])
            if t == len(ep["actions"]):
                break
            row = next(rows)
            assert (row["episode_id"], row["step"], row["image"]) == (ep["episode_id"], t, shot)
            assert load_reference(row["reference"]) == list(info["reference"])
            assert row["step_instruction"] == ep["step_instructions"][t] == info["reference"][0].instruction
            obs, _, term, trunc, info = env.step(info["reference"][0].action)
        assert ep["success"] and info["success"] and not info["reference"]
    env.close()


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    a = export("GuiGym-Login-v0", 2, tmp_path / "a", seed=9, progress=False)
    b = export("GuiGym-Login-v0", 2, tmp_path / "b", seed=9, progress=False)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
