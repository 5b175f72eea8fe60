"""Dataset export: AndroidControl-style JSONL that Hugging Face ``datasets`` loads."""

from __future__ import annotations

import json

import numpy as np
from PIL import Image

from guigym.actions import RefStep
from guigym.cli import main as cli
from guigym.rewards import uir1_reward


def test_export_100_login_episodes(tmp_path):
    datasets = __import__("datasets")
    out = tmp_path / "login"
    assert cli(["export", "--env", "GuiGym-Login-v0", "--episodes", "100", "--out", str(out)]) == 0
    ds = datasets.load_dataset("json", data_files=str(out / "episodes.jsonl"), split="train")
    assert len(ds) == 100 and set(ds["goal"]) and all(ds["success"])
    n_clicks = 0
    for ep in ds:
        assert len(ep["screenshots"]) == len(ep["actions"]) + 1 == len(ep["references"])
        assert len(ep["step_instructions"]) == len(ep["actions"]) == len(ep["boxes"])
        for a, box, refs in zip(ep["actions"], ep["boxes"], ep["references"]):
            first = RefStep.from_dict(json.loads(refs)[0])
            if a["action_type"] == "click":
                x0, y0, x1, y1 = box
                assert x0 <= a["x"] <= x1 and y0 <= a["y"] <= y1
                assert (first.action.x, first.action.y) == (a["x"], a["y"])
                n_clicks += 1
        assert json.loads(ep["references"][-1]) == []  # the episode ends with nothing left to do
    assert n_clicks > 200
    img = np.asarray(Image.open(out / ds[0]["screenshots"][0]))
    assert img.shape == (640, 360, 3)

    steps = datasets.load_dataset("json", data_files=str(out / "steps.jsonl"), split="train")
    row = steps[0]
    x, y = row["action"]["x"], row["action"]["y"]
    answer = f'<think>the field</think><answer>[{{"action": "click", "coordinate": [{x}, {y}]}}]</answer>'
    ref = RefStep.from_dict(json.loads(row["reference"])[0])
    assert uir1_reward(answer, ref) == 3.0


def test_an_interrupted_export_leaves_the_earlier_dataset_whole(tmp_path, monkeypatch):
    # the JSONL files were opened for writing at once: Ctrl-C mid-export left a truncated
    # dataset that looked complete, and the earlier export in the folder was lost
    import pytest

    import guigym.export as export_mod

    out = export_mod.export("GuiGym-Login-v0", 2, tmp_path / "d", progress=False)
    before = {f: (out / f).read_bytes() for f in ("episodes.jsonl", "steps.jsonl")}
    shots_before = {p: p.read_bytes() for p in (out / "screenshots").rglob("*.png")}
    real = export_mod.episodes

    def interrupted(*args, **kwargs):
        for i, ep in enumerate(real(*args, **kwargs)):
            if i == 1:
                raise KeyboardInterrupt
            yield ep

    monkeypatch.setattr(export_mod, "episodes", interrupted)
    with pytest.raises(KeyboardInterrupt):
        export_mod.export("GuiGym-Login-v0", 2, out, seed=5, progress=False)
    assert {f: (out / f).read_bytes() for f in before} == before
    assert sorted(p.name for p in out.iterdir()) == ["episodes.jsonl", "screenshots", "steps.jsonl"]
    # the screenshots too: the new episodes were written into screenshots/ before the rename
    assert {p: p.read_bytes() for p in (out / "screenshots").rglob("*.png")} == shots_before


def test_a_re_export_replaces_the_earlier_screenshots_and_ids_name_the_backend(tmp_path):
    # a second export into the same folder left the first one's screenshot folders beside
    # the new JSONL (a dataset mixing runs), and ids were the same for mock and browser
    import guigym.export as export_mod

    out = export_mod.export("GuiGym-Login-v0", 2, tmp_path / "d", progress=False)
    export_mod.export("GuiGym-Login-v0", 2, out, seed=10, progress=False)
    ids = [json.loads(line)["episode_id"] for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert ids == ["GuiGym-Login-v0-mock-easy-10", "GuiGym-Login-v0-mock-easy-11"]
    assert sorted(p.name for p in (out / "screenshots").iterdir()) == ids
    assert sorted(p.name for p in out.iterdir()) == ["episodes.jsonl", "screenshots", "steps.jsonl"]


def test_export_refuses_a_screenshots_folder_that_is_not_an_export(tmp_path, capsys):
    # a re-export replaces screenshots/ whole: someone's own folder of that name must not go
    import pytest

    import guigym.export as export_mod

    (tmp_path / "screenshots").mkdir()
    (tmp_path / "screenshots" / "mine.png").write_bytes(b"x")
    with pytest.raises(ValueError, match="no earlier guigym export"):
        export_mod.export("GuiGym-Login-v0", 1, tmp_path, progress=False)
    with pytest.raises(SystemExit):
        cli(["export", "--episodes", "1", "--out", str(tmp_path)])
    assert "no earlier guigym export" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["mine.png", "screenshots"]


def test_ctrl_c_on_the_export_command_is_one_line_and_status_130(tmp_path):
    # the CLI dumped a KeyboardInterrupt traceback and died on the signal
    import os
    import signal
    import subprocess
    import sys
    import time

    import guigym.export as export_mod

    out = export_mod.export("GuiGym-Login-v0", 1, tmp_path / "d", progress=False)
    before = (out / "episodes.jsonl").read_bytes()
    p = subprocess.Popen([sys.executable, "-m", "guigym", "export", "--episodes", "100000", "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
    try:
        end = time.monotonic() + 60
        while not (out / ".screenshots.partial").exists():  # it is writing episodes: inside export()
            assert p.poll() is None and time.monotonic() < end, "the export did not start writing"
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    finally:
        p.kill()
    assert p.returncode == 130, err[-2000:]
    assert "Traceback" not in err
    assert f"guigym export: interrupted; nothing of this export was kept in {out}" in err.splitlines()[-1]
    assert (out / "episodes.jsonl").read_bytes() == before
    assert sorted(q.name for q in out.iterdir()) == ["episodes.jsonl", "screenshots", "steps.jsonl"]
