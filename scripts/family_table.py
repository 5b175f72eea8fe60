"""The README's family table (written to ``--out`` and into the README): per id × level, a sample instruction, the oracle's reference
length from reset, and how many distinct scenarios the generator gave on N seeds.

    PYTHONPATH=. python scripts/family_table.py [--seeds 2000] [--out docs/results/families.md]

A scenario is the JSON the family generates from a seed (apps, start state, theme, task);
"distinct" compares them whole. Reference lengths are over the first 200 of the seeds.
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
from guigym.registration import env_ids  # noqa: E402


def rows(seeds: int) -> list[str]:
    out = ["| id | level | sample instruction (seed 0) | reference steps from reset: mean (max), 200 seeds | distinct scenarios |",
           "|---|---|---|---|---|"]
    for eid in env_ids():
        env = gym.make(eid)
        fam = env.unwrapped.family
        for level in fam.levels:
            seen = set()
            for s in range(seeds):
                with Draws(np.random.default_rng(s)) as rng:
                    seen.add(hashlib.sha256(json.dumps(fam.generate(rng, level), sort_keys=True).encode()).digest())
            lens = []
            for s in range(min(200, seeds)):
                _, info = env.reset(seed=s, options={"level": level})
                lens.append(len(info["reference"]))
            _, info = env.reset(seed=0, options={"level": level})
            text = env.unwrapped.instruction.replace("|", "\\|")
            out.append(f"| `{eid}` | {level} | {text} | {np.mean(lens):.1f} ({max(lens)}) | {len(seen):,} / {seeds:,} |")
            print(out[-1], flush=True)
        env.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=300)
    ap.add_argument("--out", default="docs/results/families.md")
    a = ap.parse_args()
    lines = rows(a.seeds)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    body = "\n".join(lines) + f"\n\n<sub>`PYTHONPATH=. python scripts/family_table.py --seeds {a.seeds}`</sub>\n"
    Path(a.out).write_text(body)
    readme = Path(__file__).resolve().parents[1] / "README.md"
    pat = re.compile(r"(<!-- table:families -->\n).*?(<!-- /table:families -->)", re.DOTALL)
    text = readme.read_text()
    if pat.search(text):
        readme.write_text(pat.sub(lambda m: m.group(1) + body + m.group(2), text))
    print(f"wrote {a.out} and the README's families table")


if __name__ == "__main__":
    main()
