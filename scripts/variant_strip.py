"""A README picture of the variation axes: the same task (same id, level and seed) under several
variants, side by side, each captioned with its variant and the instruction it shows.

    PYTHONPATH=. python scripts/variant_strip.py --env-id GuiGym-Shop-v0 --level easy --seed 4 \\
        --out docs/variants.png

A variant is ``name:axis=value,axis=value[,split=test]``; every axis it does not name is
neutral (:data:`guigym.variation.NEUTRAL`), so each panel differs from the plain one only by
what its caption says. The panels show the screen after ``--step`` steps of the oracle's
reference (0: the first screen). Pixels come from the env's own (mock) renderer; nothing is
drawn by hand. The task is the family's own in every panel (the variation is drawn after the
scenario), which the script checks: the same goal template and the same reference length
apart from an interruption's extra step.
"""

from __future__ import annotations

import argparse
import os
import textwrap
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

import guigym  # noqa: E402,F401
from guigym.variation import AXES, NEUTRAL  # noqa: E402

GAP = 8
CAPTION_LINES = 5  # the variant's name, then the instruction wrapped
CHARS_PER_LINE = 56  # PIL's default font is 6 px wide: 56 characters fill a 360-px panel
LINE_H = 13

#: The figure in the README: six looks of one task; the last one from the held-out test split.
DEFAULT_VARIANTS = (
    "plain (neutral):",
    "dark theme, serif font:theme=dark,font=serif",
    "mono theme, spacious, 1.15x text:theme=mono,density=spacious,font_scale=1.15",
    "grid layout, casual wording:layout=grid,instruction_style=casual",
    "cookie wall, fake 'done' row:popup=cookie,adversarial=fake_done",
    "German, colour-blind, 3 columns (test):language=de,theme=colourblind,layout=compact_grid,split=test",
)


def parse_variant(spec: str) -> tuple[str, dict[str, Any], str]:
    """``"name:axis=value,..."`` -> (name, the full variation dict, split). Values are checked
    by the env (``guigym.variation.resolve``); numbers are read as floats where the axis's
    values are numbers.

    >>> parse_variant("big text:font_scale=1.3,split=test")[1]["font_scale"], parse_variant("x:theme=dark")[2]
    (1.3, 'train')
    """
    name, sep, rest = spec.partition(":")
    if not sep:
        raise ValueError(f"variant {spec!r}: expected 'name:axis=value,...' (an empty list after ':' is the plain look)")
    var, split = dict(NEUTRAL), "train"
    for item in filter(None, (s.strip() for s in rest.split(","))):
        axis, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"variant {spec!r}: {item!r} is not axis=value")
        if axis == "split":
            split = value
            continue
        if axis not in AXES:
            raise ValueError(f"variant {spec!r}: unknown axis {axis!r}; expected one of {sorted(AXES)} or split")
        numeric = all(isinstance(v, float) for v in AXES[axis]["train"])
        var[axis] = float(value) if numeric else value
    return name.strip(), var, split


def panel(env_id: str, level: str, seed: int, step: int, variation: dict[str, Any], split: str) -> tuple[np.ndarray, str, dict[str, Any]]:
    """The screenshot after ``step`` reference steps, the instruction, and the reset's info."""
    env = gym.make(env_id, level=level, variation=variation, split=split)
    try:
        obs, info = env.reset(seed=seed)
        first = info
        for _ in range(step):
            if not info["reference"]:
                break
            obs, _, term, trunc, info = env.step(info["reference"][0].action)
            if term or trunc:
                break
        return obs["screenshot"], obs["instruction"], first
    finally:
        env.close()


def strip(env_id: str, level: str, seed: int, variants: list[str], step: int = 0) -> Image.Image:
    """The panels side by side, a caption under each."""
    shots = []
    templates = set()
    for spec in variants:
        name, var, split = parse_variant(spec)
        img, instruction, info = panel(env_id, level, seed, step, var, split)
        templates.add(info["template"])
        shots.append((img, [name] + textwrap.wrap(instruction, CHARS_PER_LINE)[: CAPTION_LINES - 1]))
    if len(templates) > 1:  # the variation must not change the task: a bug if it does
        raise RuntimeError(f"the variants gave different task templates {sorted(templates)}")
    h, w = shots[0][0].shape[:2]
    out = Image.new("RGB", (len(shots) * (w + GAP) - GAP, h + 6 + CAPTION_LINES * LINE_H), (255, 255, 255))
    d = ImageDraw.Draw(out)
    for i, (img, lines) in enumerate(shots):
        out.paste(Image.fromarray(img), (i * (w + GAP), 0))
        for j, line in enumerate(lines):
            # PIL's default bitmap font has no glyphs beyond Latin-1: those show as '?'
            d.text((i * (w + GAP) + 4, h + 4 + j * LINE_H), line.encode("latin-1", "replace").decode("latin-1"),
                   fill=(0, 0, 0) if j else (160, 0, 0))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env-id", default="GuiGym-Shop-v0")
    p.add_argument("--level", default="easy")
    p.add_argument("--seed", type=int, default=4)
    p.add_argument("--step", type=int, default=0, help="reference steps taken before the screenshot")
    p.add_argument("--variants", nargs="+", default=list(DEFAULT_VARIANTS), help="name:axis=value,... (see the module doc)")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    img = strip(a.env_id, a.level, a.seed, a.variants, a.step)
    img.save(a.out, optimize=True)
    print(f"{a.out}: {len(a.variants)} variants of {a.env_id} {a.level} seed {a.seed}")


if __name__ == "__main__":
    main()
