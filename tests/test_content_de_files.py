"""Files' German content (``guigym.i18n.de_content.files``): the German tables make the English
tree name for name (the same draws, clashes and steps), their names are the phrasebook's to keep,
and the Move picker's German labels are no wider than the English ones that fit its rows."""

from __future__ import annotations

import itertools

import pygame
import pytest

import guigym.apps.files as en
import guigym.i18n.de_content.files as de
from guigym.apps.files import DEST_CHARS, ELLIPSIS, HOME
from guigym.backends.mock import _Text
from guigym.fonts import FONT_FILES
from guigym.i18n.de import translate
from tests.conftest import twins


def test_german_names_are_distinct_short_and_one_stem_variant_and_extension() -> None:
    for table in ("FOLDER_NAMES", "STEMS", "VARIANTS"):
        words = getattr(de, table)
        assert len({w.casefold() for w in words}) == len(words), table
    assert max(map(len, de.FOLDER_NAMES)) <= max(map(len, en.FOLDER_NAMES))  # the Move picker's budget, DEST_CHARS
    assert de.VARIANTS[0] == "" and all(v[:1] in "_- " for v in de.VARIANTS[1:])
    assert not any(c in s for s in de.STEMS for c in "_- ./")  # a name splits into its stem and variant one way
    assert not any(c in s for s in de.FOLDER_NAMES for c in "./")  # never a file's name, always a valid one
    bases = {(s + v).casefold() for s in de.STEMS for v in de.VARIANTS}
    assert len(bases) == len(de.STEMS) * len(de.VARIANTS)
    # content the screen keeps as it is: no German name is a phrase the phrasebook would re-word
    assert all(translate(s) == s for s in de.FOLDER_NAMES + de.STEMS)


def _rename(names: dict[str, str], name: str) -> str:
    base, dot, ext = name.rpartition(".")
    return names[base] + dot + ext if dot else names[name]


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_german_tree_is_the_english_one_name_for_name(level: str) -> None:
    """The same seed in English and German: the same RNG end state and the same tree, task and
    clashes, each name the English one in German words (folder, stem and variant by position)."""
    names = dict(zip(en.FOLDER_NAMES, de.FOLDER_NAMES))
    names |= {s + v: t + w for s, t in zip(en.STEMS, de.STEMS) for v, w in zip(en.VARIANTS, de.VARIANTS)}
    german = set()
    for seed in range(40):
        a, b = twins("Files", level, seed)  # and the same draws
        na, nb = a["apps"]["Files"]["nodes"], b["apps"]["Files"]["nodes"]
        assert [{**n, "name": _rename(names, n["name"])} for n in na] == nb, seed
        ca, cb = a["task"]["changes"], b["task"]["changes"]
        assert [{**c, "name": c["name"] and _rename(names, c["name"])} for c in ca] == cb, seed
        german |= {n["name"] for n in nb} - {n["name"] for n in na}
        for c in cb:  # the German instruction quotes the German names it asks for
            assert c["name"] is None or f"'{c['name']}'" in b["task"]["instruction"], seed
    assert german


def _labels(names: tuple[str, ...]) -> set[str]:
    """Every label of up to three names the Move picker shows in full or shortened within DEST_CHARS."""
    out = set()
    for k in (1, 2, 3):
        for combo in itertools.product(names, repeat=k):
            tail = "/".join(combo)
            out |= {s for s in (f"{HOME}/{tail}", f"{ELLIPSIS}/{tail}") if len(s) <= DEST_CHARS}
    return out


def test_german_move_picker_labels_are_no_wider_than_english_ones() -> None:
    """DEST_CHARS is the budget the English names fit the narrowest row in: the widest German
    label within it is no wider, in every bundled font."""
    pygame.font.init()
    fonts = _Text()
    wide_en, wide_de = _labels(en.FOLDER_NAMES), _labels(de.FOLDER_NAMES)
    for face in [None, *FONT_FILES]:
        font = fonts._font(20, False, face)
        widest = {lang: max(font.size(s)[0] for s in labels) for lang, labels in (("en", wide_en), ("de", wide_de))}
        assert widest["de"] <= widest["en"], (face, widest)
