"""Phone's German content: the notes (saved ones, a new note's title, an edit's text) are entries
of ``guigym.apps.tools``' note tables in the generating language, entry for entry the English
instance's, and the conversations are the Messages family's generators' (German with it)."""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import pytest

import guigym.apps.tools as tools
from guigym.apps import FAMILIES
from guigym.apps.phone import NOTES
from guigym.apps.schema import Scenario
from guigym.i18n import content
from guigym.i18n.content import generating_in
from tests.conftest import make, twins
from tests.test_language import DE, run

FAMILY = FAMILIES["Phone"]


def pairs(seeds: int) -> Iterator[tuple[str, int, Scenario, Scenario]]:
    """(level, seed, German instance, English instance), and the draws are the same."""
    for level in FAMILY.levels:
        for seed in range(seeds):
            en, de = twins("Phone", level, seed)
            yield level, seed, de, en


def check_notes(t: Any, de: Scenario, en: Scenario) -> None:
    """``de``'s notes are ``t``'s entries where ``en`` has the English ones; the task's too."""
    dn, enn = de["apps"][NOTES]["notes"], en["apps"][NOTES]["notes"]
    assert [(t.NOTE_TITLES.index(n["title"]), t.NOTE_BODIES.index(n["body"])) for n in dn] == [
        (tools.NOTE_TITLES.index(n["title"]), tools.NOTE_BODIES.index(n["body"])) for n in enn]
    for jd, je in zip(de["task"]["jobs"], en["task"]["jobs"]):
        if jd["type"] == "note_new":  # a title none of the saved notes has
            assert t.NOTE_TITLES.index(jd["title"]) == tools.NOTE_TITLES.index(je["title"])
            assert jd["title"] not in {n["title"] for n in dn}
        elif jd["type"] == "note_edit":  # a text the note does not say yet
            assert t.NOTE_BODIES.index(jd["text"]) == tools.NOTE_BODIES.index(je["text"])
            assert jd["text"] != dn[jd["ref"]]["body"]
        elif jd["type"] in ("note_delete", "note_ask"):
            assert jd["title"] == dn[jd["ref"]]["title"] and jd["fact"] in (None, dn[jd["ref"]]["body"])


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    """German note tables of the English shape, whatever ``guigym.i18n.de_content`` holds."""
    t = types.SimpleNamespace(**vars(tools))
    t.NOTE_TITLES = tuple(f"Notiz {x}" for x in tools.NOTE_TITLES)
    t.NOTE_BODIES = tuple(f"bitte {x}" for x in tools.NOTE_BODIES)
    monkeypatch.setitem(content._TABLES, (tools.__name__, "de"), t)
    return t


def test_notes_are_the_note_tables_entry_for_entry() -> None:
    with generating_in("de"):
        t = tools.note_tables()
    for _, _, de, en in pairs(15):
        check_notes(t, de, en)


def test_notes_follow_german_note_tables(stand_in: types.SimpleNamespace) -> None:
    for _, _, de, en in pairs(15):
        check_notes(stand_in, de, en)


def test_the_oracle_solves_note_tasks_with_german_notes(stand_in: types.SimpleNamespace) -> None:
    solved = 0
    for level in ("easy", "hard"):
        env = make("GuiGym-Phone-v0", level=level, variation=DE, split="test")
        for seed in range(25):
            env.reset(seed=seed)
            jobs = env.unwrapped.scenario["task"]["jobs"]
            if any(j["type"].startswith("note_") for j in jobs):
                assert all(n["title"] in stand_in.NOTE_TITLES for n in env.unwrapped.scenario["apps"][NOTES]["notes"])
                assert run(env, seed)[0], (level, seed)
                solved += 1
        env.close()
    assert solved >= 10


def test_conversations_are_german() -> None:
    """The Messages family's texts (its German tables): a German instance's messages are, but
    for a few the languages share, not the English one's."""
    for level, seed, de, en in pairs(3):
        msgs = [[m for t in s["apps"]["Messages"]["threads"] for m in t["msgs"]] for s in (de, en)]
        assert len(msgs[0]) == len(msgs[1]) and sum(a == b for a, b in zip(*msgs)) < len(msgs[0]) / 2, (level, seed)
