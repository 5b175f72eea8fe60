"""German content of Contacts, Launcher and Settings (``guigym.i18n.content``).

Contacts and Settings generate no content but names, numbers, addresses and UI (a German
instance is the English one); Launcher's notes (the task's and the saved ones: the note tables of
``guigym.apps.tools``) are German, entry for entry the English ones."""

from __future__ import annotations

import json

import pytest

import guigym.apps.tools as tools
import guigym.i18n.de_content.tools as de
from guigym.apps import FAMILIES
from tests.conftest import twins


def test_german_note_tables_are_distinct_and_no_english_title_of_another_entry() -> None:
    for table in (de.NOTE_TITLES, de.NOTE_BODIES):
        assert len({s.casefold() for s in table}) == len(table)
    # so a German string maps back to one English entry (the instance test below maps them back)
    for i, t in enumerate(de.NOTE_TITLES):
        assert all(t != e for j, e in enumerate(tools.NOTE_TITLES) if j != i), t
    assert not set(de.NOTE_BODIES) & set(tools.NOTE_BODIES)


@pytest.mark.parametrize("family", ["Contacts", "Settings"])
def test_contacts_and_settings_are_the_english_instance(family: str) -> None:
    for level in FAMILIES[family].levels:
        for seed in range(4):
            en, de_ = twins(family, level, seed)
            assert de_ == en


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_launcher_notes_are_german_entry_for_entry(level: str) -> None:
    words = {**dict(zip(de.NOTE_TITLES, tools.NOTE_TITLES)), **dict(zip(de.NOTE_BODIES, tools.NOTE_BODIES))}
    seen = 0
    for seed in range(30):
        en, ge = twins("Launcher", level, seed)
        notes = ge["apps"]["Notes"]["notes"]
        assert all(n["title"] in de.NOTE_TITLES and n["body"] in de.NOTE_BODIES for n in notes)
        # the German instance is the English one with each note string in German (the instruction aside)
        back = json.loads(json.dumps(ge), object_hook=lambda d: {k: words.get(v, v) if isinstance(v, str) else v for k, v in d.items()})
        back["task"]["instruction"] = en["task"]["instruction"]
        assert back == en, (level, seed)
        for t in ge["task"]["tasks"]:
            if t["type"] == "note":
                seen += 1
                assert t["title"] in de.NOTE_TITLES and t["body"] in (None, *de.NOTE_BODIES)
                assert t["title"] not in {n["title"] for n in notes}  # a new note: no saved one has its title
    assert seen
