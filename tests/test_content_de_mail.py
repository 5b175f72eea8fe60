"""German content of the Mail family (``guigym.i18n.de_content.mail``): the relations its generator
relies on hold for the German tables too."""

from __future__ import annotations

import itertools

import numpy as np

import guigym.apps.mail as en
import guigym.i18n.de_content.mail as de
from guigym.apps import FAMILIES
from guigym.apps.draws import Draws
from guigym.apps.mail import INBOX, body_lines, matches
from guigym.apps.tools import PEOPLE
from guigym.i18n.content import generating_in

SLOTS = {"month": "MONTHS", "day": "DAYS", "team": "TEAMS", "place": "PLACES", "event": "EVENTS"}


def subjects(module: object) -> dict[tuple[int, tuple[int, ...]], str]:
    """Every subject the module's templates make, by (template, slot values' positions)."""
    out = {}
    for i, (tpl, _) in enumerate(module.SUBJECTS):  # type: ignore[attr-defined]
        used = [f for f in ("num", *SLOTS) if "{" + f + "}" in tpl]
        ranges = [range(1000, 10000) if f == "num" else range(len(getattr(module, SLOTS[f]))) for f in used]
        for combo in itertools.product(*ranges):
            kw = {f: c if f == "num" else getattr(module, SLOTS[f])[c] for f, c in zip(used, combo)}
            out[(i, combo)] = tpl.format(**kw)
    return out


def test_the_subjects_collide_where_the_english_ones_do() -> None:
    """A subject made twice is drawn again: the German ones must repeat exactly where the English ones do."""
    e, d = subjects(en), subjects(de)
    assert e.keys() == d.keys()
    assert len(set(e.values())) == len(e) and len(set(d.values())) == len(d)


def test_a_topic_word_is_in_its_subjects_only() -> None:
    """A rule or a search on a topic's word finds that topic's mails and no other (nor a sender)."""
    assert [t for _, t in de.SUBJECTS] == [t for _, t in en.SUBJECTS] and set(de.SUBJECT_WORDS) == set(en.RULE_WORDS)
    made = subjects(de)
    for topic, word in de.SUBJECT_WORDS.items():
        w = word.casefold()
        assert all((w in s.casefold()) == (de.SUBJECTS[i][1] == topic) for (i, _), s in made.items()), word
        assert not [p for p in PEOPLE if w in p.casefold()], word


def test_a_meeting_time_is_on_one_line() -> None:
    """The oracle answers from the body line with the time: a sentence with it never wraps."""
    for fact in de.MEETING_FACT:
        assert len(body_lines(fact.format(t="12:45 PM"))) == 1, fact


def test_german_rules_and_searches_quote_german_words_that_find_their_mails() -> None:
    fam = FAMILIES["Mail"]
    seen = set()
    for level in ("easy", "hard"):
        for seed in range(40):
            with Draws(np.random.default_rng(seed)) as rng, generating_in("de"):
                sc = fam.instance(rng, level)
            inbox = [m for m in sc["apps"]["Mail"]["mails"] if m["box"] == INBOX]
            for t in sc["task"]["tasks"]:
                if t["rule"] == "about":
                    seen.add(t["key"])
                    assert t["key"] in de.SUBJECT_WORDS.values()
                    assert sorted(m["id"] for m in inbox if matches(m, t["key"])) == sorted(t["ids"]), (level, seed)
                if t["search"]:
                    seen.add(t["search"])
                    assert t["search"] in de.SUBJECT_WORDS.values() and matches(inbox[t["ids"][0]], t["search"])
    assert len(seen) >= 4
