"""How much of what the screens show is German under ``language="de"`` (``guigym.i18n``).

Walks the oracle's reference on many seeds per env id and level, and sorts every string a
view shows (titles, labels, details, placeholders, select options, message labels, dialogs,
pop-ups and banners; each distinct string once per family) into: *translated* (German, or a
word German spells the same: "Apps"); *content* (what the family generated, the UI does not
translate: people's names, note / file / message / mail / event / product texts, the long item
descriptions of the ``descriptions`` axis), split in two: *content de*, made in German
(``guigym.i18n.content``: words the same instance made in English does not show), and *content
en*, what the English instance shows too (names, addresses, numbers, texts of a module without
German tables); *names* (proper nouns the UI shows
and German keeps as they are: app names (an app's own title too: "Settings" in the Settings
app), product names ("Chromebook", "Android Auto"), device, ringtone and language names,
standards ("5G", "MIDI"): ``guigym.i18n.de.NAMES`` and the app names of
``guigym.apps.catalog``); *UI left English* (none of these: a gap of the phrasebook, or text
without words to translate, such as ``"05"``). "UI translated" is translated / (translated +
UI left English): names and content are set apart, not counted as translated; "content
German" is content de / (content de + content en).

Each family is measured in two settings, and its strings pooled: the preset ``"language"``
(German, every other axis neutral: the families' own screens, templates and labels) and the
German test split as ``{"language": "de"}`` draws it (every other axis sampled from its test
values: held-out templates and chrome labels, the contacts permission prompt, very long
descriptions, pop-ups, adversarial banners, looks). So what an axis adds to the screens (the
permission's dialog and its "Settings / Permissions" link, a pop-up, a banner) counts, and so do
the screens of the train-only templates. Only the reference's screens are seen:
``tests/test_language.py`` checks the permission's other screens (its settings, a denial).

    python scripts/i18n_coverage.py --seeds 10          # per family; --show 10: the top gaps
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym

from guigym.apps.base import View, view
from guigym.apps.catalog import APP_NAMES
from guigym.descriptions import PREFIX as DESCRIPTION
from guigym.env import gui_env
from guigym.i18n import content_strings
from guigym.i18n.de import NAMES, known
from guigym.registration import env_ids

if TYPE_CHECKING:
    from guigym.apps.schema import Scenario

#: Kinds of string, in the order of the table's columns ("content_de": content made in German,
#: guigym.i18n.content; "content": content the English instance shows too, such as people's names).
KINDS = ("translated", "content_de", "content", "names", "ui_en")
#: The settings each family is measured in (see the module's docstring): the preset "language"
#: (every other axis neutral) and the German test split with every other axis drawn.
SETTINGS: dict[str, str | dict[str, str]] = {"own": "language", "test": {"language": "de"}}
#: Proper nouns the screens show that German keeps: the phrasebook's and the apps' names.
PROPER = NAMES | frozenset(APP_NAMES)


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


def descriptions(v: View) -> set[str]:
    """The lines of the ``descriptions`` axis's texts ``v`` shows (rows ``desc:…``): content."""
    out = {w.label for w in v.widgets() if w.id.startswith(DESCRIPTION)}
    return out | descriptions(v.backdrop) if v.backdrop is not None else out


def is_content(s: str, keep: frozenset[str]) -> bool:
    """Content, or made of content and words-free parts: "Home/Work", "• Grace Hill", "Grace: See you",
    "4:15 PM · Sounds good", a sentence of a mail's body, "Re: <subject>". A part's lead-in
    ("Grace: ") is set aside only when it is a word of the content (a name) or Re / Fwd, so a UI
    label's ("From: ") is not."""
    if s in keep or not re.search(r"[A-Za-z]{3}", s):  # content, or no word ("XL", "S/M", "05")
        return True
    text = "\n".join(keep) + "\nHome"  # the top folder's name (Files): a part of every path
    for part in re.split(r" · | › |/|• ", s):
        part = part.strip()
        m = re.match(r"(Re|Fwd|[A-Z][a-z]+): ", part)
        if m and (m[1] in ("Re", "Fwd") or re.search(rf"\b{m[1]}\b", text)):
            part = part[m.end() :]
        part = part.rstrip("…").strip()
        if part and re.search(r"[A-Za-z]{3}", re.sub(r"\b(AM|PM|KB|MB)\b", "", part)) and part not in text:
            return False
    return True


def kind_of(s_en: str, s_de: str, keep: frozenset[str], descriptions: set[str] = set(),  # noqa: B006
            english: frozenset[str] | None = None, german_descriptions: bool = False) -> str:
    """What the English string ``s_en``, shown as ``s_de`` in German, is (one of :data:`KINDS`);
    ``keep``: the scenario's content strings, ``descriptions``: the lines of the long texts shown
    (German ones: ``german_descriptions``), ``english``: the content strings of the same instance
    made in English (content outside them, and made of more than them, is German content; None:
    every content string is "content")."""
    if s_en != s_de:
        return "translated"
    if s_en in PROPER:
        return "names"
    if known(s_en):  # German says it the same way ("Apps", "Name")
        return "translated"
    if s_en in descriptions and english is not None:  # made at display, in the scenario's language
        return "content_de" if german_descriptions else "content"
    if s_en in descriptions or is_content(s_en, keep):
        return "content" if english is None or is_content(s_en, english) else "content_de"
    return "ui_en"


def coverage(env_id: str, seeds: int) -> tuple[dict[str, set[str]], collections.Counter[str]]:
    """Per kind (:data:`KINDS`), the distinct English strings along the reference in every one of
    :data:`SETTINGS`; and the UI gaps by how often they show."""
    kinds: dict[str, set[str]] = {k: set() for k in KINDS}
    gaps: collections.Counter[str] = collections.Counter()
    for variation in SETTINGS.values():
        env = gym.make(env_id, variation=variation, split="test")
        u = gui_env(env)
        for level in u.family.levels:
            for seed in range(seeds):
                u.content_language = "en"  # the same instance with its content made in English
                env.reset(seed=seed, options={"level": level})
                assert u.scenario is not None  # reset made one
                english = content_strings(u.scenario)
                u.content_language = "de"
                _, info = env.reset(seed=seed, options={"level": level})
                assert u.scenario["variation"]["language"] == "de"
                german = u.scenario.get("descriptions", {}).get("language") == "de"
                for _ in range(200):
                    en: Scenario = {**u.scenario, "variation": {**u.scenario["variation"], "language": "en"}}
                    assert u._state is not None and u.current_view is not None  # reset / a step before the end shows a screen
                    v_en = view(en, u._state)
                    keep, desc = content_strings(u.scenario), descriptions(v_en)
                    for s_en, s_de in zip(strings(v_en), strings(u.current_view)):
                        k = kind_of(s_en, s_de, keep, desc, english, german)
                        kinds[k].add(s_en)
                        if k == "ui_en":
                            gaps[s_en] += 1
                    if not info["reference"]:
                        break
                    _, _, term, trunc, info = env.step(info["reference"][0].action)
                    if term or trunc:
                        break
        env.close()
    return kinds, gaps


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--show", type=int, default=0, help="list this many UI strings left English per family")
    args = p.parse_args(argv)
    # 0 seeds printed 0 % for every family (no string seen) with exit 0; a negative --show
    # listed all gaps but the last (Counter.most_common(-1))
    if args.seeds < 1:
        p.error(f"--seeds must be >= 1, got {args.seeds}")
    if args.show < 0:
        p.error(f"--show must be >= 0, got {args.show}")
    print(f"{'family':<10} {'translated':>10} {'content de':>10} {'content en':>10} {'names':>6} {'UI en':>6} "
          f"{'UI translated':>14} {'content German':>15}")
    for env_id in env_ids():
        kinds, gaps = coverage(env_id, args.seeds)
        tr, cd, co, na, en = (len(kinds[k]) for k in KINDS)
        fam = env_id.split("-")[1]
        print(f"{fam:<10} {tr:>10} {cd:>10} {co:>10} {na:>6} {en:>6} {tr / max(1, tr + en):>13.0%} {cd / max(1, cd + co):>14.0%}")
        if args.show:
            print("   left English:", [s for s, _ in gaps.most_common(args.show)])
    print("content de: content made in German (guigym.i18n.content); content en: content the English instance "
          "shows as well (people's names, addresses, numbers, and texts without German tables); names (proper "
          "nouns: apps, products, devices, standards) stay as they are; UI translated = translated / (translated + "
          "UI en); content German = content de / (content de + content en)")


if __name__ == "__main__":
    main()
