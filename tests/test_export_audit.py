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


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


@pytest.mark.parametrize("env_id,level", [("GuiGym-Mail-v0", "medium"), ("GuiGym-Login-v0", "easy")])
def test_a_varied_export_of_the_test_split_reads_back_as_that_env_showed_it(env_id: str, level: str, tmp_path: Path) -> None:
    out = export(env_id, 2, tmp_path / "d", level=level, seed=5, progress=False, variation="all", split="test")
    episodes, steps = _rows(out / "episodes.jsonl"), _rows(out / "steps.jsonl")
    env = gym.make(env_id, variation="all", split="test")
    rows = iter(steps)
    for ep in episodes:
        obs, info = env.reset(seed=ep["seed"], options={"level": level})
        assert ep["episode_id"] == f"{env_id}-mock-{level}-{ep['seed']}-all-test"
        assert (ep["goal"], ep["variation"], ep["template"]) == (obs["instruction"], info["variation"], info["template"])
        assert ep["split"] == "test"
        assert ep["variation"]["templates"] == "test"  # drawn from the held-out split
        for t, shot in enumerate(ep["screenshots"]):
            assert np.array_equal(np.asarray(Image.open(out / shot)), obs["screenshot"])
            assert json.loads(ep["elements"][t]) == [{**e, "box": list(e["box"])} for e in info["elements"]]
            if t == len(ep["actions"]):
                break
            row = next(rows)
            assert (row["image"], row["elements"], row["split"], row["template"]) == (shot, ep["elements"][t], "test", ep["template"])
            assert load_reference(row["reference"]) == list(info["reference"])
            obs, _, _, _, info = env.step(info["reference"][0].action)
        assert ep["success"] and info["success"]
    env.close()


def test_a_plain_export_has_elements_and_no_split_and_preset_none_is_plain(tmp_path: Path) -> None:
    a = export("GuiGym-Login-v0", 1, tmp_path / "a", seed=2, progress=False)
    b = export("GuiGym-Login-v0", 1, tmp_path / "b", seed=2, progress=False, variation="none")
    (ep,) = _rows(a / "episodes.jsonl")
    assert ep["episode_id"] == "GuiGym-Login-v0-mock-easy-2" and ep["split"] is None and ep["variation"] is None
    assert all(isinstance(e, str) and json.loads(e) for e in ep["elements"])  # one JSON string per state
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)  # "none": the family's own instances
    with pytest.raises(ValueError, match="needs a variation"):
        export("GuiGym-Login-v0", 1, tmp_path / "c", split="test", progress=False)
    with pytest.raises(ValueError, match="unknown variation preset"):
        export("GuiGym-Login-v0", 1, tmp_path / "c", variation="al", progress=False)
    assert not (tmp_path / "c").exists()  # checked before any file is written


def test_the_train_and_test_splits_export_to_distinct_ids_and_instances(tmp_path: Path) -> None:
    tr = _rows(export("GuiGym-Settings-v0", 3, tmp_path / "tr", seed=0, progress=False, variation="all") / "episodes.jsonl")
    te = _rows(export("GuiGym-Settings-v0", 3, tmp_path / "te", seed=0, progress=False, variation="all", split="test")
               / "episodes.jsonl")
    assert not {e["episode_id"] for e in tr} & {e["episode_id"] for e in te}
    assert all(e["split"] == "train" and e["variation"]["templates"] == "train" for e in tr)
    assert [e["goal"] for e in tr] != [e["goal"] for e in te]


@pytest.mark.parametrize("argv,says", [
    (["--split", "test"], "--split test needs --variation"),
    (["--variation", "everything"], "invalid choice: 'everything'"),
])
def test_export_cli_variation_usage_errors(argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from guigym.export import main

    with pytest.raises(SystemExit) as e:
        main(["--episodes", "1", "--out", str(tmp_path / "d"), *argv])
    assert e.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def test_export_cli_writes_a_varied_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from guigym.export import main

    assert main(["--env", "GuiGym-Contacts-v0", "--episodes", "1", "--seed", "4", "--variation", "appearance",
                 "--split", "test", "--out", str(tmp_path / "d")]) == 0
    (ep,) = _rows(tmp_path / "d" / "episodes.jsonl")
    assert ep["episode_id"] == "GuiGym-Contacts-v0-mock-easy-4-appearance-test" and ep["split"] == "test"
    assert ep["variation"]["instruction_style"] == "plain"  # an axis outside the preset stays neutral


def test_the_exported_elements_column_gives_the_reward_of_the_envs_elements(tmp_path: Path) -> None:
    from guigym.rewards.trl import TrajectoryReward

    out = export("GuiGym-Settings-v0", 2, tmp_path / "d", level="medium", seed=1, progress=False)
    env = gym.make("GuiGym-Settings-v0")
    f, differ = TrajectoryReward(fmt="json"), 0
    for row in _rows(out / "steps.jsonl")[:4]:
        obs, info = env.reset(seed=int(row["episode_id"].rsplit("-", 1)[1]), options={"level": "medium"})
        for _ in range(row["step"]):
            obs, _, _, _, info = env.step(info["reference"][0].action)
        for e in info["elements"]:  # two clicks at two corners of one widget: the elements say whether that repeats
            (x0, y0, x1, y1) = e["box"]
            text = ('<think>t</think><answer>[{"action": "click", "coordinate": [%d, %d]}, '
                    '{"action": "click", "coordinate": [%d, %d]}]</answer>' % (x0 + 2, y0 + 2, x1 - 2, y1 - 2))
            direct = f([text], reference=[row["reference"]], elements=[info["elements"]])
            assert f([text], reference=[row["reference"]], elements=[row["elements"]]) == direct
            differ += direct != f([text], reference=[row["reference"]])
    assert differ  # the column matters: without it some of these plans score otherwise
    env.close()
