"""How many texts the screens draw wider than their space, and how many they draw shortened.

Walks the oracle's reference on ``--seeds`` seeds per env id and level, in four settings (plain;
every axis of ``all`` from the train split; from the test split, font scale 1.3; the German test
split), and counts per family the distinct texts of the display list that
:func:`guigym.display.overflowing_texts` finds wider than their space (cut at their widget's edge
or running into a chevron or switch) and those :func:`guigym.display.shortened_texts` finds
drawn shortened with "…". Every screen shortens what does not fit (see ``guigym.display``), so
the first count is 0 where the fitting covers every text.

    python scripts/text_fit_audit.py --seeds 10
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402

import guigym  # noqa: E402,F401
from guigym.display import display_list, overflowing_texts, shortened_texts  # noqa: E402
from guigym.env import gui_env
from guigym.registration import id_levels  # noqa: E402

SETTINGS: dict[str, dict[str, Any]] = {
    "plain": {},
    "all/train": {"variation": "all", "split": "train"},
    "all/test": {"variation": "all", "split": "test"},
    "de/test": {"variation": {"language": "de"}, "split": "test"},
}


def audit(env_id: str, level: str, seeds: int, setting: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The distinct texts drawn too wide, and drawn shortened, along the reference of ``seeds`` seeds."""
    wide: set[str] = set()
    short: set[str] = set()
    env = gym.make(env_id, level=level, disable_env_checker=True, **setting)
    u = gui_env(env)
    for seed in range(seeds):
        _, info = env.reset(seed=seed)
        for _ in range(200):
            assert u.current_view is not None and u._lay is not None  # reset / a step before the end shows a screen
            items = display_list(u.current_view, u._lay)
            wide |= {t for _, t, _, _ in overflowing_texts(items)}
            short |= {cast(str, p.get("full", p["text"])) for _, p in shortened_texts(items)}  # records: dict[str, Any]
            if not info["reference"]:
                break
            _, _, term, trunc, info = env.step(info["reference"][0].action)
            if term or trunc:
                break
    env.close()
    return wide, short


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=10, help="seeds per env id and level")
    args = p.parse_args(argv)
    if args.seeds < 1:
        p.error(f"--seeds must be >= 1, got {args.seeds}")
    wide: dict[tuple[str, str], set[str]] = collections.defaultdict(set)
    short: dict[tuple[str, str], set[str]] = collections.defaultdict(set)
    for name, setting in SETTINGS.items():
        for env_id, level in id_levels():
            fam = env_id.split("-")[1]
            w, s = audit(env_id, level, args.seeds, setting)
            wide[name, fam] |= w
            short[name, fam] |= s
    families = sorted({f for _, f in wide} | {f for _, f in short}, key=[i.split("-")[1] for i, _ in id_levels()].index)
    print(f"distinct texts along the reference, {args.seeds} seeds per id x level: too wide / shortened")
    print(f"{'family':<10}" + "".join(f"{n:>16}" for n in SETTINGS))
    for fam in families:
        print(f"{fam:<10}" + "".join(f"{len(wide[n, fam]):>9} / {len(short[n, fam]):<4}" for n in SETTINGS))
    print(f"{'total':<10}" + "".join(f"{sum(len(wide[n, f]) for f in families):>9} / {sum(len(short[n, f]) for f in families):<4}"
                                     for n in SETTINGS))


if __name__ == "__main__":
    main()
