"""A README picture of the variation axes: the same task (same id, level and seed) under several
variants, side by side, each captioned with its variant and the instruction it shows.

    PYTHONPATH=. python scripts/variant_strip.py --env-id GuiGym-Shop-v0 --level easy --seed 4 \\
        --out docs/variants.png

A variant is ``name:axis=value,axis=value[,split=test]``; every axis it does not name is
neutral (:data:`guigym.variation.NEUTRAL`), so each panel differs from the plain one only by
what its caption says. The panels show the screen after ``--step`` steps of the oracle's
reference (0: the first screen). Pixels come from the env's own (mock) renderer; nothing is
drawn by hand. The task is the family's own in every panel (the variation is drawn after the
scenario), which the script checks: every panel's task has the same template. (Not the same
reference length: a pop-up adds a step to dismiss it, and a spacious density or long texts
can add scrolls.)
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
from guigym.registration import id_level_problem  # noqa: E402
from guigym.variation import AXES, NEUTRAL, resolve  # noqa: E402
from guigym.viz import image_out_problem, save_image  # noqa: E402

GAP = 8
CAPTION_LINES = 5  # the variant's name, then the instruction wrapped
CHARS_PER_LINE = 56  # PIL's default font is 6 px wide: 56 characters fill a 360-px panel
LINE_H = 13

class StepBeyondEpisode(ValueError):
    """``--step`` is past the end of a panel's episode."""


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
    by the env (``guigym.variation.resolve``); a value is read as the axis's values are: a
    float (``font_scale``) or an int (``popup_at``), else a string.

    >>> parse_variant("big text:font_scale=1.3,split=test")[1]["font_scale"], parse_variant("x:theme=dark")[2]
    (1.3, 'train')
    >>> parse_variant("late pop-up:popup=cookie,popup_at=2")[1]["popup_at"]
    2
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
        # popup_at's values are ints: read as the string "2", no value of it could be named
        values = [v for s in AXES[axis].values() for v in s]
        kind = float if all(isinstance(v, float) for v in values) else int if all(
            isinstance(v, int) and not isinstance(v, bool) for v in values) else str
        try:
            var[axis] = kind(value)
        except ValueError:
            number = "a whole number" if kind is int else "a number"
            raise ValueError(f"variant {spec!r}: {axis}={value!r} is not {number} ({axis} is one of "
                             f"{', '.join(map(str, values))})") from None
    return name.strip(), var, split


def panel(env_id: str, level: str, seed: int, step: int, variation: dict[str, Any], split: str) -> tuple[np.ndarray, str, dict[str, Any]]:
    """The screenshot after ``step`` reference steps, the instruction, and the reset's info. An
    episode that ends before ``step`` steps is a :class:`StepBeyondEpisode` (the panel showed
    its last screen without a word)."""
    env = gym.make(env_id, level=level, variation=variation, split=split)
    try:
        obs, info = env.reset(seed=seed)
        first = info
        for k in range(step):
            if not info["reference"]:
                raise StepBeyondEpisode(f"--step {step}: the reference of {env_id} {level} seed {seed} ends after {k} steps")
            obs, _, term, trunc, info = env.step(info["reference"][0].action)
            if (term or trunc) and k + 1 < step:
                raise StepBeyondEpisode(f"--step {step}: the episode of {env_id} {level} seed {seed} ends after {k + 1} steps")
        return obs["screenshot"], obs["instruction"], first
    finally:
        env.close()


def strip(env_id: str, level: str, seed: int, variants: list[str], step: int = 0) -> Image.Image:
    """The panels side by side, a caption under each."""
    shots = []
    templates = set()
    for spec in variants:
        name, var, split = parse_variant(spec)
        try:
            img, instruction, info = panel(env_id, level, seed, step, var, split)
        except StepBeyondEpisode as e:
            raise StepBeyondEpisode(f"{e} (variant {name!r})") from None
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


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env-id", default="GuiGym-Shop-v0")
    p.add_argument("--level", default="easy")
    p.add_argument("--seed", type=int, default=4)
    p.add_argument("--step", type=int, default=0, help="reference steps taken before the screenshot")
    p.add_argument("--variants", nargs="+", default=list(DEFAULT_VARIANTS), help="name:axis=value,... (see the module doc)")
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    # bad values are usage errors before any work, not tracebacks from gym, the env or Pillow
    if problem := id_level_problem(a.env_id, a.level):
        p.error(problem if problem.startswith("--") else f"--env-id: {problem}")
    if a.seed < 0:
        p.error(f"--seed must be >= 0, got {a.seed}")
    if a.step < 0:
        p.error(f"--step must be >= 0 (0: the first screen), got {a.step}")
    for spec in a.variants:
        try:
            _, var, split = parse_variant(spec)
        except ValueError as e:  # it names the variant
            p.error(f"--variants: {e}")
        try:
            resolve(var, split)  # what the env checks at make: a value outside the variant's split
        except ValueError as e:
            p.error(f"--variants {spec!r}: {e}")
    if problem := image_out_problem(a.out):
        p.error(f"--out {a.out}: {problem}")
    try:
        img = strip(a.env_id, a.level, a.seed, a.variants, a.step)
    except StepBeyondEpisode as e:
        p.error(str(e))
    save_image(img, a.out, optimize=True)
    print(f"{a.out}: {len(a.variants)} variants of {a.env_id} {a.level} seed {a.seed}")


if __name__ == "__main__":
    main()
