"""How much of what the screens show is German under ``language="de"`` (``guigym.i18n``).

Walks the oracle's reference on many seeds per env id and level, and sorts every string a
view shows (titles, labels, details, placeholders, select options, message labels; each
distinct string once per family) into: *translated*; *content* (names, note / file / mail /
product texts and app names: left English on purpose, see ``guigym.i18n``); *UI left English*
(neither: a gap of the phrasebook, or text without words to translate, such as ``"05"``).

    python scripts/i18n_coverage.py --seeds 10          # per family; --show 10: the top gaps
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym

from guigym.apps.base import View, view
from guigym.i18n import content_strings
from guigym.i18n.de import known
from guigym.registration import env_ids


def strings(v: View) -> list[str]:
    out = [v.title]
    for w in v.widgets():
        if w.kind == "icon":
            continue
        out += [w.label, w.detail, w.placeholder]
        if w.kind == "label" and isinstance(w.value, str):
            out.append(w.value)
        if w.kind == "select":
            out += [str(o[1]) for o in w.options or []]
    if v.backdrop is not None:
        out += strings(v.backdrop)
    return [s for s in out if s and any(c.isalpha() for c in s)]


def is_content(s: str, keep: frozenset[str]) -> bool:
    """Content, or made of content and words-free parts: "Home/Work", "• Grace Hill", "Grace: See you",
    "4:15 PM · Sounds good", a sentence of a mail's body, "Re: <subject>"."""
    if s in keep or not re.search(r"[A-Za-z]{3}", s):  # content, or no word ("XL", "S/M", "05")
        return True
    text = "\n".join(keep) + "\nHome"  # the top folder's name (Files): a part of every path
    for part in re.split(r" · | › |/|• ", s):
        part = re.sub(r"^(Re|Fwd|[A-Z][a-z]+): ", "", part.strip()).rstrip("…").strip()
        if part and re.search(r"[A-Za-z]{3}", re.sub(r"\b(AM|PM|KB|MB)\b", "", part)) and part not in text:
            return False
    return True


def coverage(env_id: str, seeds: int) -> tuple[dict[str, set[str]], collections.Counter[str]]:
    """Per kind (translated / content / ui_en), the distinct English strings; and the UI gaps by how often they show."""
    kinds: dict[str, set[str]] = {"translated": set(), "content": set(), "ui_en": set()}
    gaps: collections.Counter[str] = collections.Counter()
    env = gym.make(
        env_id,
        variation={
            "language": "de",
            "instruction_style": "plain",
            "popup": "none",
            "adversarial": "none",
            "theme": None,
            "font_scale": 1.0,
        },
        split="test",
    )
    u = env.unwrapped
    for level in u.family.levels:
        for seed in range(seeds):
            _, info = env.reset(seed=seed, options={"level": level})
            for _ in range(200):
                en = {**u.scenario, "variation": {**u.scenario["variation"], "language": "en"}}
                keep = content_strings(u.scenario)
                for s_en, s_de in zip(strings(view(en, u._state)), strings(u.current_view)):
                    if s_en != s_de or known(s_en):
                        kinds["translated"].add(s_en)
                    elif is_content(s_en, keep):
                        kinds["content"].add(s_en)
                    else:
                        kinds["ui_en"].add(s_en)
                        gaps[s_en] += 1
                if not info["reference"]:
                    break
                _, _, term, trunc, info = env.step(info["reference"][0].action)
                if term or trunc:
                    break
    env.close()
    return kinds, gaps


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--show", type=int, default=0, help="list this many UI strings left English per family")
    args = p.parse_args()
    print(f"{'family':<10} {'translated':>10} {'content':>8} {'UI en':>6} {'UI translated':>14}")
    for env_id in env_ids():
        kinds, gaps = coverage(env_id, args.seeds)
        tr, co, en = (len(kinds[k]) for k in ("translated", "content", "ui_en"))
        fam = env_id.split("-")[1]
        print(f"{fam:<10} {tr:>10} {co:>8} {en:>6} {tr / max(1, tr + en):>13.0%}")
        if args.show:
            print("   left English:", [s for s, _ in gaps.most_common(args.show)])


if __name__ == "__main__":
    main()
