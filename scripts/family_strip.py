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
from guigym.env import gui_env
from guigym.registration import id_level_problem  # noqa: E402
from guigym.viz import image_out_problem, save_image  # noqa: E402

GAP = 8


class FramesBeyondEpisode(ValueError):
    """``--frames`` names frames past the episode's end."""


def strip(env_id: str, level: str, seed: int, frames: list[int]) -> tuple[Image.Image, str]:
    """The chosen frames of the oracle's episode, and the instruction. A frame past the
    episode's last one is a :class:`FramesBeyondEpisode` (it was left out without a word)."""
    env = gym.make(env_id, level=level)
    obs, info = env.reset(seed=seed)
    shots: list[tuple[np.ndarray, str]] = []
    last = 0  # the episode's last frame seen
    for k in range(max(frames) + 1):
        last = k
        step = info["reference"][0] if info["reference"] else None
        if k in frames:
            shots.append((obs["screenshot"], step.instruction if step else "done"))
        if step is None:
            break
        obs, _, term, trunc, info = env.step(step.action)
        if term or trunc:
            last = k + 1
            if k + 1 in frames:
                shots.append((obs["screenshot"], "success" if info["success"] else "failed"))
            break  # no step after the end (the loop went on stepping a finished episode)
    instruction = gui_env(env).instruction
    env.close()
    if beyond := sorted({f for f in frames if f > last}):
        raise FramesBeyondEpisode(f"--frames {' '.join(map(str, beyond))}: the episode of {env_id} {level} seed {seed} "
                         f"has frames 0 to {last}")
    h, w = shots[0][0].shape[:2]
    out = Image.new("RGB", (len(shots) * (w + GAP) - GAP, h + 22), (255, 255, 255))
    d = ImageDraw.Draw(out)
    for i, (img, caption) in enumerate(shots):
        out.paste(Image.fromarray(img), (i * (w + GAP), 0))
        d.text((i * (w + GAP) + 4, h + 5), caption[:56], fill=(0, 0, 0))
    return out, instruction


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env-id", default="GuiGym-Contacts-v0")
    p.add_argument("--level", default="hard")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--frames", type=int, nargs="+", default=[0])
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    # bad values are usage errors before any work, not tracebacks from gym, the env or Pillow
    if problem := id_level_problem(a.env_id, a.level):
        p.error(problem if problem.startswith("--") else f"--env-id: {problem}")
    if a.seed < 0:
        p.error(f"--seed must be >= 0, got {a.seed}")
    if min(a.frames) < 0:
        p.error(f"--frames must be >= 0 (0: the first screen), got {min(a.frames)}")
    if problem := image_out_problem(a.out):
        p.error(f"--out {a.out}: {problem}")
    try:
        img, instruction = strip(a.env_id, a.level, a.seed, a.frames)
    except FramesBeyondEpisode as e:
        p.error(str(e))
    save_image(img, a.out, optimize=True)
    print(f"{a.out}: {instruction}")


if __name__ == "__main__":
    main()
