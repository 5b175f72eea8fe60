"""The Shop's German content (``guigym.i18n.de_content.shop``): what the generator and the
oracle rely on holds for the German product names and addresses too."""

from __future__ import annotations

import re

import numpy as np

import guigym.apps.shop as shop
import guigym.i18n.de_content.shop as de
from guigym.apps.draws import Draws
from guigym.apps.shop import ShopFamily
from guigym.i18n.content import generating_in, tables


def _names(t: object) -> list[str]:
    return [t.PRODUCT_NAME.format(a=a, n=n) for c in t.CATEGORIES.values() for n in c[0] for a in t.ADJECTIVES]  # type: ignore[attr-defined]


def test_no_product_name_lists_another_when_searched() -> None:
    """Searching a whole name (the reference's first narrowing step) lists that model alone,
    then the category and colour filters single it out: no name is part of another's."""
    for t in (shop, de):
        names = [n.casefold() for n in _names(t)]
        assert len(set(names)) == len(names) == 320
        assert not [(a, b) for a in names for b in names if a != b and a in b]


def test_the_ui_values_stay_english_and_only_nouns_change() -> None:
    """Categories (the tabs' values; CrossApp looks its own up by them), sizes and price ranges
    are the English ones: the phrasebook translates them at display. The nouns are German."""
    assert list(de.CATEGORIES) == list(shop.CATEGORIES)
    for cat, (nouns, sizes, word, prices) in de.CATEGORIES.items():
        en_nouns, en_sizes, en_word, en_prices = shop.CATEGORIES[cat]
        assert (sizes, prices) == (en_sizes, en_prices) and word != en_word
        assert not set(nouns) & (set(en_nouns) - {"Parka", "T-Shirt"})  # words German shares with English
    assert not hasattr(de, "COLOURS")


def test_german_instances_have_german_names_and_addresses() -> None:
    nouns = {n for c in de.CATEGORIES.values() for n in c[0]}
    addresses = []
    for level in ("easy", "medium", "hard"):
        for seed in range(10):
            with Draws(np.random.default_rng(seed)) as rng, generating_in("de"):
                sc = ShopFamily().instance(rng, level)
            for p in sc["apps"]["Shop"]["shop"]["products"]:
                noun, _, model = p["name"].partition(" ")
                assert noun in nouns and model in de.ADJECTIVES, p["name"]
            search = sc["start"]["values"].get("Shop", {}).get(shop.SEARCH)
            assert search is None or search in de.ADJECTIVES
            addresses += [t["address"] for t in sc["task"]["tasks"] if t["type"] == "checkout"]
    assert addresses and all(re.fullmatch(r"\w+(straße|allee|weg|gasse|ring) \d+", a) for a in addresses), addresses
    assert tables(shop.__name__) is shop  # outside the block: English again
