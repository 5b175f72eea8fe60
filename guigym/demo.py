"""``make demo``: run the oracle on an env over many seeds, print the success rate, save a GIF.

    python -m guigym.demo --env GuiGym-Login-v0 --episodes 200 --gif out/demo.gif
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import gymnasium as gym
from tqdm import tqdm

import guigym  # noqa: F401  (registers the envs)
from guigym.backends import BACKENDS
from guigym.env import gui_env
from guigym.registration import id_level_problem, plain_id
from guigym.viz import annotate, save_gif, writable_problem


def gif_path_problem(gif: str) -> str | None:
    """Why ``gif`` cannot take the demo's GIF, or None ('' skips the GIF: no problem). The
    folders above it are made when the GIF is saved; what must already hold is that the name
    ends in ``.gif`` (Pillow picks the format from it: ``out/demo`` raised "unknown file
    extension", ``demo.png`` became an animated PNG), that it is not a folder, and that the
    nearest existing folder above it is a writable folder.

    >>> gif_path_problem("out/demo.gif") is None and gif_path_problem("") is None
    True
    >>> gif_path_problem("out/demo")
    "must end in .gif (the file is a GIF; '' skips it)"
    """
    if not gif:
        return None
    path = Path(gif)
    if path.is_dir():
        return "is a folder; give a file name ending in .gif"
    if path.suffix.lower() != ".gif":
        return "must end in .gif (the file is a GIF; '' skips it)"
    return writable_problem(path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="guigym demo", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="GuiGym-Login-v0")
    p.add_argument("--level", default=None, help="easy | medium | hard (default: all three)")
    p.add_argument("--episodes", type=int, default=200, help="seeds per level")
    p.add_argument("--backend", default="mock", choices=BACKENDS)  # a typo: a usage error, not a traceback
    p.add_argument("--gif", default="out/demo.gif", help="where to save one annotated episode ('' to skip)")
    args = p.parse_args(argv)
    problems = []  # every bad flag in one usage error, not one per run (id_level_problem skips the level of a bad id)
    if problem := id_level_problem(args.env, args.level):
        problems.append(problem)
    if args.episodes < 1:
        problems.append(f"--episodes must be >= 1, got {args.episodes}")
    if problem := gif_path_problem(args.gif):  # checked now: the GIF is written last, after every episode has run
        problems.append(f"--gif {args.gif}: {problem}")
    if problems:
        p.error("; ".join(problems))
    args.env = plain_id(args.env)  # gym.make's "guigym:ID" form, printed as the plain id

    env = gym.make(args.env, backend=args.backend)
    try:  # closed on an error too (a browser env's Chromium missing, a Ctrl-C): main() also runs in-process
        return _demo(env, args)
    except KeyboardInterrupt:  # as guigym export's: one line and status 130, not a traceback (make demo runs this main)
        kept = f"; {args.gif} not written (an earlier GIF there is left whole)" if args.gif else ""
        print(f"\nguigym demo: interrupted{kept}", file=sys.stderr)
        return 130
    finally:
        env.close()


def _demo(env: gym.Env, args: argparse.Namespace) -> int:
    levels = [args.level] if args.level else list(gui_env(env).family.levels)
    t0, total_steps = time.perf_counter(), 0
    for level in levels:
        wins, steps = 0, 0
        # closed (its line cleared) on a Ctrl-C too, before the message that says so
        with tqdm(range(args.episodes), desc=f"{args.env} {level}", leave=False) as bar:
            for seed in bar:
                _, info = env.reset(seed=seed, options={"level": level})
                done = False
                while not done:
                    _, _, term, trunc, info = env.step(info["reference"][0].action)
                    steps += 1
                    done = term or trunc
                wins += info["success"]
        total_steps += steps
        print(f"{args.env} [{level:6}] oracle success {wins}/{args.episodes} = {wins / args.episodes:.1%}, "
              f"mean steps {steps / args.episodes:.1f}")
    dt = time.perf_counter() - t0
    print(f"{total_steps} steps in {dt:.1f}s ({total_steps / dt:.0f} steps/s, {args.backend} backend)")

    if args.gif:
        level = levels[-1]
        obs, info = env.reset(seed=0, options={"level": level})
        print(f"GIF episode: {obs['instruction']!r}")
        frames, done = [], False
        while not done:
            step = info["reference"][0]
            frames.append(annotate(obs["screenshot"], step.action, step.instruction))
            obs, _, term, trunc, info = env.step(step.action)
            done = term or trunc
        frames.append(annotate(obs["screenshot"], None, "success" if info["success"] else "failed"))
        print(f"saved {save_gif(frames, args.gif)} ({len(frames)} frames)")
    return 0


if __name__ == "__main__":  # `make demo`: through the guigym command, for its messages on a missing Chromium or a closed pipe
    from guigym.cli import main as cli

    raise SystemExit(cli(["demo", *sys.argv[1:]]))
