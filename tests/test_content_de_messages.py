"""German content of Messages (``guigym.i18n.de_content.messages``): the relations the generator
relies on hold for the German tables too (small talk that repeats exactly where the English
does, so a redrawn stale draft draws alike; facts only in fact messages; times that answer as
the English ones), and a German instance is in German."""

from __future__ import annotations

import re

import numpy as np

import guigym.apps.messages as en
import guigym.i18n.de_content.messages as de
from guigym.apps import FAMILIES
from guigym.apps.draws import Draws
from guigym.i18n.content import generating_in, tables


def _chats(t) -> list[str]:
    """Every small-talk text, in draw order (template, thing, event, day)."""
    return [c.format(thing=x, event=e, day=d) for c in t.CHAT for x in t.THINGS for e in t.EVENTS for d in t.DAYS]


def _classes(texts: list[str]) -> list[int]:
    """Each text's first position: two draws give the same text exactly where these agree."""
    first: dict[str, int] = {}
    return [first.setdefault(s, i) for i, s in enumerate(texts)]


def test_german_small_talk_repeats_where_the_english_does() -> None:
    # the generator redraws a stale draft while it equals a text to send: the same draws need
    # the same coincidences in both languages
    assert _classes(_chats(de)) == _classes(_chats(en))


def test_german_small_talk_holds_no_fact_and_nothing_quoted() -> None:
    for s in set(_chats(de)):
        assert not re.search(r"[\d'\"]", s), s  # digits only in fact messages; quotes break the instruction
        assert s == s.strip() and s[:1].isupper(), s


def test_german_times_are_the_apps_clock() -> None:
    """A suggested time is what Clock's and Calendar's pickers show ("7:30 PM"): CrossApp copies it
    there, and a 24-hour German time would add a conversion the English task does not have."""
    from guigym.apps.messages import fact_message
    from guigym.i18n.content import generating_in

    rng = np.random.default_rng(0)
    with generating_in("de"):
        for _ in range(50):
            text, fact = fact_message(rng, "time")
            assert re.fullmatch(r"(1[0-2]|[1-9]):[0-5][05] (AM|PM)", fact) and fact in text
            assert text in {t.format(t=fact) for t in de.SAY_TIME}


def test_german_addresses_are_distinct_and_stated_in_their_message() -> None:
    streets = {de.ADDRESS.format(n=1, street=s, kind=k).casefold() for s in de.STREETS for k in de.STREET_KINDS}
    assert len(streets) == len(de.STREETS) * len(de.STREET_KINDS)
    with generating_in("de"):
        for seed in range(40):
            msg, fact = en.fact_message(np.random.default_rng(seed), "address" if seed % 2 else "time")
            assert msg in {s.format(a=fact, t=fact) for s in (*de.SAY_ADDRESS, *de.SAY_TIME)} and fact in msg
        assert tables(en.__name__).THINGS is de.THINGS


def test_a_german_instance_is_in_german() -> None:
    fam = FAMILIES["Messages"]
    chats = set(_chats(de))
    facts = tuple(s.split("{")[0] for s in (*de.SAY_ADDRESS, *de.SAY_TIME))
    seen_ask = set()
    for seed in range(30):
        with Draws(np.random.default_rng(seed)) as rng, generating_in("de"):
            sc = fam.instance(rng, "hard")
        texts = [m[1:] for t in sc["apps"]["Messages"]["threads"] for m in t["msgs"]]
        assert texts and all(m in chats or m.startswith(facts) for m in texts)
        for t in sc["task"]["tasks"]:
            if t["type"] in ("send", "reply"):
                assert t["text"] in chats and f'"{t["text"]}"' in sc["task"]["instruction"]
            if t["type"] == "ask":
                seen_ask.add(t["field"])
                msg = next(x for x in sc["apps"]["Messages"]["threads"] if x["name"] == t["name"])["msgs"][t["index"]]
                assert t["fact"] in msg
    assert seen_ask == {"address", "time"}
