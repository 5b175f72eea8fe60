"""A README picture of a family: mock screenshots along the oracle's reference, side by side.

    PYTHONPATH=. python scripts/family_strip.py --env-id GuiGym-Contacts-v0 --level hard --seed 3 \\
        --frames 0 3 8 15 --out docs/contacts.png

``--frames`` picks steps of the episode (0: the first screen); each frame is captioned with
the reference step taken from it. Pixels come from the env's own renderer, nothing is drawn by hand.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

import guigym  # noqa: E402,F401

GAP = 8


def strip(env_id: str, level: str, seed: int, frames: list[int]) -> tuple[Image.Image, str]:
    """The chosen frames of the oracle's episode, and the instruction."""
    env = gym.make(env_id, level=level)
    obs, info = env.reset(seed=seed)
    shots: list[tuple[np.ndarray, str]] = []
    for k in range(max(frames) + 1):
        step = info["reference"][0] if info["reference"] else None
        if k in frames:
            shots.append((obs["screenshot"], step.instruction if step else "done"))
        if step is None:
            break
        obs, _, term, trunc, info = env.step(step.action)
        if (term or trunc) and k + 1 in frames:
            shots.append((obs["screenshot"], "success" if info["success"] else "failed"))
            break
    instruction = env.unwrapped.instruction
    env.close()
    h, w = shots[0][0].shape[:2]
    out = Image.new("RGB", (len(shots) * (w + GAP) - GAP, h + 22), (255, 255, 255))
    d = ImageDraw.Draw(out)
    for i, (img, caption) in enumerate(shots):
        out.paste(Image.fromarray(img), (i * (w + GAP), 0))
        d.text((i * (w + GAP) + 4, h + 5), caption[:56], fill=(0, 0, 0))
    return out, instruction


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env-id", default="GuiGym-Contacts-v0")
    p.add_argument("--level", default="hard")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--frames", type=int, nargs="+", default=[0])
    p.add_argument("--out", required=True)
    a = p.parse_args()
    img, instruction = strip(a.env_id, a.level, a.seed, a.frames)
    img.save(a.out, optimize=True)
    print(f"{a.out}: {instruction}")


if __name__ == "__main__":
    main()
