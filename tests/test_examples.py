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
    els = json.loads(row["elements"])  # the state's widgets, their boxes rescaled the same way
    assert any(e["id"] == ref["target"] and e["box"] == ref["box"] for e in els)
    assert all(0 <= e["box"][0] <= e["box"][2] <= 112 and 0 <= e["box"][1] <= e["box"][3] <= 196 for e in els)

    out = ex.main(args)
    assert out["global_step"] == 2
    logs = [h for h in out["log_history"] if "rewards/trajectory_reward/mean" in h]
    assert len(logs) == 2 and all(math.isfinite(h["loss"]) for h in logs)
    # the trained model was thrown away (save_strategy="no", no save_model): --out stayed empty
    from agents.vlm import load_vlm

    run = tmp_path / "run"
    assert out["out"] == str(run) and (run / "config.json").is_file() and any(run.glob("*.safetensors"))
    shapes = {n: p.shape for n, p in load_vlm(run).model.named_parameters()}  # weights and processor load back
    assert shapes == {n: p.shape for n, p in load_vlm(model).model.named_parameters()}


def test_trl_grpo_format_reward_follows_its_prompt():
    """The prompt makes the ``<think>`` block optional ("you may think inside <think>…</think>
    first"), as train_small.py scores it; the example's format reward wanted one, so an answer
    the prompt allows lost the format point in the TRL run only."""
    from agents.vlm import plan_messages

    ex = load_example("trl_grpo")
    args = ex.Args(data="unused", model="unused")
    prompt = plan_messages("Sign in", [], args.horizon, args.fmt, (112, 196), (360, 640))
    assert "may think" in json.dumps(prompt)
    fmt = ex.reward_funcs(args)[1]
    plan = '<answer>[{"action": "click", "coordinate": [30, 40]}]</answer>'
    assert fmt([plan]) == fmt(["<think>the field</think>" + plan]) == [1.0]
    assert fmt(["click somewhere"]) == [0.0]


@pytest.mark.parametrize("change,says", [
    ({"data": "nowhere"}, "--data nowhere: no steps.jsonl there"),  # a FileNotFoundError after loading the model
    ({"model": "no_model"}, "--model no_model: not a folder"),  # went looking on the Hugging Face hub
    ({"model": "data"}, "--model data: not a Hugging Face checkpoint (no config.json in that folder"),  # a traceback
    ({"fmt": "bogus"}, "--fmt bogus: must be one of json, function, mobile_use"),  # a ValueError after loading
    ({"num_generations": 1}, "--num-generations must be >= 2"),  # TRL's ValueError after loading
    ({"max_steps": 0}, "--max-steps must be >= 1, got 0"),  # TRL trained a step anyway
    ({"max_rows": 0}, "--max-rows must be >= 1, got 0"),  # one row was used
    ({"horizon": 0}, "--horizon must be >= 1, got 0"),  # trained on a reward of 0 for every plan
    ({"max_completion_length": 0}, "--max-completion-length must be >= 1, got 0"),
    ({"learning_rate": 0.0}, "--learning-rate must be > 0, got 0.0"),
    ({"gamma": 1.5}, "--gamma must be in (0, 1], got 1.5"),
    ({"lambda_rep": -1.0}, "--lambda-rep must be >= 0, got -1.0"),
    ({"out": "a_file"}, "--out a_file: exists and is not a folder"),  # TRL's FileExistsError after loading
    ({"out": "a_file/run"}, "--out a_file/run: a_file is not a folder"),
])
def test_trl_grpo_names_a_bad_argument_before_it_loads_the_model(change, says, tmp_path, monkeypatch):
    ex = load_example("trl_grpo")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "steps.jsonl").write_text("")
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text("{}")
    (tmp_path / "a_file").write_text("keep me")
    monkeypatch.chdir(tmp_path)

    def no_load(*a, **k):
        raise AssertionError("the model was loaded before the arguments were checked")

    monkeypatch.setattr(ex, "load_vlm", no_load)
    args = ex.Args(**{"data": "data", "model": "model", "out": "run", **change})
    with pytest.raises(ValueError) as e:
        ex.main(args)
    assert says in str(e.value)
    assert not (tmp_path / "run").exists() and (tmp_path / "a_file").read_text() == "keep me"


def test_trl_grpo_script_reports_bad_flags_as_a_usage_error(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "examples" / "trl_grpo.py"
    r = subprocess.run([sys.executable, str(script), "--data", str(tmp_path / "none"), "--model", str(tmp_path / "none"),
                        "--max-steps", "0", "--out", str(tmp_path / "run")],
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 2, r.stderr[-2000:]
    assert "--max-steps must be >= 1" in r.stderr and "--data" in r.stderr and "--model" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "run").exists()


def test_trl_grpo_script_says_a_folder_without_config_json_is_no_checkpoint(tmp_path):
    # load_vlm's FileNotFoundError came as a traceback (exit 1) after the other checks passed
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "steps.jsonl").write_text("")
    (tmp_path / "empty").mkdir()
    script = Path(__file__).resolve().parents[1] / "examples" / "trl_grpo.py"
    r = subprocess.run([sys.executable, str(script), "--data", str(tmp_path / "data"), "--model", str(tmp_path / "empty"),
                        "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 2, r.stderr[-2000:]
    assert f"--model {tmp_path / 'empty'}: not a Hugging Face checkpoint (no config.json" in r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "run").exists()
