"""The README's family table (written to ``--out`` and into the README): per id × level, a sample instruction, the oracle's reference
length from reset, and how many distinct scenarios the generator gave on N seeds.

    PYTHONPATH=. python scripts/family_table.py [--seeds 300] [--out docs/results/families.md] [--no-readme]

A scenario is the JSON the family generates from a seed (apps, start state, theme, task);
"distinct" compares them whole. Reference lengths are over the first 200 of the seeds.
``--no-readme`` writes ``--out`` only (a trial run with a few seeds left its table in the README).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import guigym  # noqa: E402,F401
from guigym.apps.draws import Draws  # noqa: E402
from guigym.env import gui_env
from guigym.registration import env_ids  # noqa: E402
from guigym.viz import writable_problem, write_whole  # noqa: E402

README = Path(__file__).resolve().parents[1] / "README.md"
#: The README's table between its markers.
TABLE = re.compile(r"(<!-- table:families -->\n).*?(<!-- /table:families -->)", re.DOTALL)


#: Seeds whose reference from reset is planned (the scenarios are counted over all ``--seeds``).
REFERENCE_SEEDS = 200


def rows(seeds: int) -> list[str]:
    n_ref = min(REFERENCE_SEEDS, seeds)  # references planned on the first seeds; scenarios counted on all
    out = [f"| id | level | sample instruction (seed 0) | reference steps from reset: mean (max), {n_ref} seeds | distinct scenarios |",
           "|---|---|---|---|---|"]
    for eid in env_ids():
        env = gym.make(eid)
        u = gui_env(env)
        fam = u.family
        for level in fam.levels:
            seen = set()
            for s in range(seeds):
                with Draws(np.random.default_rng(s)) as rng:
                    seen.add(hashlib.sha256(json.dumps(fam.generate(rng, level), sort_keys=True).encode()).digest())
            lens = []
            for s in range(n_ref):
                _, info = env.reset(seed=s, options={"level": level})
                lens.append(len(info["reference"]))
            _, info = env.reset(seed=0, options={"level": level})
            text = u.instruction.replace("|", "\\|")
            out.append(f"| `{eid}` | {level} | {text} | {np.mean(lens):.1f} ({max(lens)}) | {len(seen):,} / {seeds:,} |")
            print(out[-1], flush=True)
        env.close()
    return out


def main(argv: list[str] | None = None) -> None:
    # the whole docstring: its first line alone stopped mid-sentence ("... the oracle's reference")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=300)
    ap.add_argument("--out", default="docs/results/families.md")
    ap.add_argument("--readme", action=argparse.BooleanOptionalAction, default=True,
                    help="also replace the README's families table (default: yes)")
    a = ap.parse_args(argv)
    # checked before the work (minutes at 300 seeds): 0 seeds ended in max() of nothing, a bad
    # --out in a traceback after the whole table was computed
    if a.seeds < 1:
        ap.error(f"--seeds must be >= 1, got {a.seeds}")
    out = Path(a.out)
    if problem := ("is a folder" if out.is_dir() else writable_problem(out)):
        ap.error(f"--out {a.out}: {problem}")
    if a.readme and not TABLE.search(README.read_text()):
        ap.error(f"{README} has no <!-- table:families --> ... <!-- /table:families --> markers; pass --no-readme")
    lines = rows(a.seeds)
    out.parent.mkdir(parents=True, exist_ok=True)
    body = "\n".join(lines) + f"\n\n<sub>`PYTHONPATH=. python scripts/family_table.py --seeds {a.seeds}`</sub>\n"
    write_whole(out, lambda tmp: tmp.write_text(body))
    if a.readme:
        text = README.read_text()
        write_whole(README, lambda tmp: tmp.write_text(TABLE.sub(lambda m: m.group(1) + body + m.group(2), text)))
        print(f"wrote {a.out} and the README's families table")
    else:
        print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
