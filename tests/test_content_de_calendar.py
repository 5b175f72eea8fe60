"""German Calendar content (``guigym.i18n.de_content.calendar_app``): the relations the generator
relies on hold for the German titles too, and a German instance quotes German titles."""

from __future__ import annotations

from types import ModuleType

import numpy as np

import guigym.apps.calendar_app as en
import guigym.i18n.de_content.calendar_app as de
from guigym.apps.calendar_app import CalendarFamily
from guigym.apps.catalog import FIRST_NAMES
from guigym.apps.draws import Draws
from guigym.i18n.content import generating_in, tables
from guigym.i18n.de import INSTRUCTIONS


def _all_titles(m: ModuleType) -> list[str]:
    """Every title a scenario may hold: the plain ones, one per person and template, the series."""
    personal = [p.format(n=f.title()) for p in m.PERSONAL for f in FIRST_NAMES]
    return [*m.TITLES, *personal, *m.SERIES]


def test_german_titles_are_distinct_and_not_english() -> None:
    """A task names its event by title: every title (a series' too) is one of a kind, in any case."""
    titles = _all_titles(de)
    assert len({t.casefold() for t in titles}) == len(titles)
    # German words but for loan words spelt alike ("Tennis")
    assert sum(a == b for a, b in zip(_all_titles(en), titles)) <= 1


def test_german_titles_are_plain_content() -> None:
    """No title has a shape the display's formatters split ("Title, Sat, Mar 14", "a · b", "x (y)")
    or is blank, and none is much longer than a row's width allows."""
    for t in _all_titles(de):
        assert t.strip() == t and t and ", " not in t and " · " not in t and "(" not in t, t
        assert len(t.format(n="Quentin")) <= 26, t


def test_german_instances_draw_german_titles_and_the_instruction_quotes_them() -> None:
    fam = CalendarFamily()
    german = set(_all_titles(de))
    personal = {p.format(n=f.title()) for p in de.PERSONAL for f in FIRST_NAMES}
    rules = 0
    for level in fam.levels:
        for seed in range(8):
            with Draws(np.random.default_rng(seed)) as rng, generating_in("de"):
                sc = fam.instance(rng, level)
            titles = {e["title"] for e in sc["apps"][en.APP]["events"]}
            assert titles <= german | personal, titles - german
            text = INSTRUCTIONS["Calendar"](sc, np.random.default_rng(seed))
            for t in sc["task"]["tasks"]:
                if t["title"] is not None:
                    assert f"'{t['title']}'" in text, (text, t["title"])
                    rules += t["title"] in de.SERIES
    assert rules  # a "delete every …" rule about a German series


def test_english_tables_are_the_modules_own() -> None:
    assert tables(en.__name__) is en
    with generating_in("de"):
        assert tables(en.__name__).TITLES == de.TITLES and tables(en.__name__).TIMES == en.TIMES
