"""Where the oracle's reference from reset is not the shortest way to success: known cases,
replayed. Each case is a shorter action sequence (clicks on widgets named by id, then the reference
from the state they reach) that the env itself judges a success; the script prints the
reference's length beside it, so a planner change that removes a detour shows here.

    PYTHONPATH=. python scripts/reference_detours.py

The reference follows the family's goals in the instruction's order and by its means (a Mail
"Look up X, then ..." task searches; a Shop list with two products of one name is narrowed so
that the step's instruction names one row), which the state-delta success check does not
require. The README's "Environments" section lists what each case shows. Found by a
breadth-first search over the app model (seeds 0-19 of every id x level). A price or a message
that a list row shows whole, which the reference used to open first, is now read off the row
(``guigym.apps.family.Goal.read_off``; Shop easy seed 11 and Messages easy seed 1 answer at once),
and a row one Scroll away is scrolled to rather than searched for (Contacts medium seed 3: 3 steps).
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402

import guigym  # noqa: E402,F401
from guigym.actions import Click  # noqa: E402
from guigym.env import gui_env  # noqa: E402
from guigym.oracle import center  # noqa: E402

#: (id, level, seed, what it shows, the shorter prefix: the widgets clicked, by id; the
#: reference's own steps follow from the state they reach)
CASES: list[tuple[str, str, int, str, list[str]]] = [
    ("GuiGym-Settings-v0", "hard", 2, "chained tasks in another order than the instruction's", ["go:notifications", "snoozing"]),
    ("GuiGym-Mail-v0", "easy", 0, "'Look up X, then delete ...' without the search (the query is not compared)", ["m:1"]),
    ("GuiGym-Shop-v0", "easy", 1, "a row of the right colour opened beside a same-named product (no narrowing)", ["p:3"]),
    ("GuiGym-Shop-v0", "medium", 19, "a stale category tab set back to All instead of a search", ["cat.tab0"]),
]


def _click(env: gym.Env, wid: str) -> Click:
    lay = gui_env(env)._lay  # the current screen's layout (set by reset)
    box = lay.box(wid) if lay is not None else None
    if box is None:
        raise SystemExit(f"widget {wid!r} is not on screen: {[w.id for w, _ in lay.visible] if lay else []}")
    return Click(*center(box))


def replay(env_id: str, level: str, seed: int, prefix: list[str]) -> tuple[int, int | None]:
    """The reference's length from reset, and the steps the prefix then the reference took to
    succeed (None: no success)."""
    env = gym.make(env_id)
    try:
        _, info = env.reset(seed=seed, options={"level": level})
        ref_len, n = len(info["reference"]), 0
        while n < len(prefix) or info["reference"]:
            action = _click(env, prefix[n]) if n < len(prefix) else info["reference"][0].action
            _, _, term, trunc, info = env.step(action)
            n += 1
            if term or trunc:
                break
        return ref_len, n if info.get("success") else None
    finally:
        env.close()


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split())).parse_args(argv)
    print("| id | level | seed | reference from reset | shorter, judged a success | what it shows |\n|---|---|---|---|---|---|")
    for env_id, level, seed, what, prefix in CASES:
        ref_len, short = replay(env_id, level, seed, prefix)
        got = "no success" if short is None else f"{short} step{'s' * (short != 1)}" + ("" if short < ref_len else " (not shorter)")
        print(f"| {env_id} | {level} | {seed} | {ref_len} steps | {got} | {what} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
