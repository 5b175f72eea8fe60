"""scripts/variant_strip.py, the README's figure of one task under six variants."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from guigym.variation import NEUTRAL

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vs():
    spec = importlib.util.spec_from_file_location("variant_strip", ROOT / "scripts" / "variant_strip.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["variant_strip"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_a_variant_names_only_what_differs_from_neutral(vs) -> None:
    name, var, split = vs.parse_variant("big text:font_scale=1.3,theme=teal,split=test")
    assert (name, split) == ("big text", "test")
    assert var == {**NEUTRAL, "font_scale": 1.3, "theme": "teal"}
    assert vs.parse_variant("plain:") == ("plain", NEUTRAL, "train")
    for bad, why in (("no colon", "expected 'name:axis=value"), ("x:theme", "not axis=value"), ("x:colour=red", "unknown axis 'colour'")):
        with pytest.raises(ValueError, match=why):
            vs.parse_variant(bad)


def test_the_default_figure_shows_one_task_six_ways(vs) -> None:
    """Every default variant is valid for its split, the panels are the env's own screenshots
    (the plain one equals an unvaried env's first frame), and no two panels look alike."""
    img = vs.strip("GuiGym-Shop-v0", "easy", 4, list(vs.DEFAULT_VARIANTS))
    arr = np.asarray(img)
    w, gap = 360, vs.GAP
    assert arr.shape == (640 + 6 + vs.CAPTION_LINES * vs.LINE_H, 6 * w + 5 * gap, 3)
    panels = [arr[:640, i * (w + gap): i * (w + gap) + w] for i in range(6)]
    import gymnasium as gym

    env = gym.make("GuiGym-Shop-v0", level="easy")
    obs, _ = env.reset(seed=4)
    env.close()
    assert np.array_equal(panels[0], obs["screenshot"])
    for i in range(6):
        for j in range(i + 1, 6):
            assert (panels[i] != panels[j]).any(axis=2).mean() > 0.05, (i, j)
    assert panels[1].mean() < panels[0].mean() - 40  # the dark theme is dark


def test_a_variant_that_is_not_in_its_split_is_refused(vs) -> None:
    with pytest.raises(ValueError, match="not a 'train' value"):
        vs.strip("GuiGym-Login-v0", "easy", 0, ["held out:theme=teal"])
