"""CrossApp's German content (``guigym.i18n.de_content.crossapp``) and the German long texts of
the ``descriptions`` axis (``guigym.i18n.de_content.descriptions``): German subjects and meeting
mails, the calendar's draws kept whatever the Calendar's and Mail's German titles are, and
German filler that says no value nor interface word, shown only where the language is German."""

from __future__ import annotations

import re

import gymnasium as gym

import guigym.apps.crossapp as en
import guigym.descriptions as desc
import guigym.i18n.de_content.crossapp as de
import guigym.i18n.de_content.descriptions as de_desc
from guigym.apps.crossapp import MAIL, CrossAppFamily
from guigym.i18n.de import translate
from guigym.variation import NEUTRAL
from tests.conftest import twins

FAMILY = CrossAppFamily()


def test_german_subjects_are_distinct_short_and_kept_by_the_screen() -> None:
    for source, subjects in de.SUBJECTS.items():
        assert len({s.casefold() for s in subjects}) == len(subjects), source
        assert max(map(len, subjects)) <= max(map(len, en.SUBJECTS[source])) + 4, source
        assert all(translate(s) == s for s in subjects), source
    assert de.LONG_DATE.format(weekday=de.WEEKDAYS[5], month=de.MONTHS[2], day=14, year=2026) == "Samstag, 14. März 2026"


def test_german_instances_draw_as_english_and_say_the_meeting_in_german() -> None:
    """The same draws (the calendar leaves out the entry the English titles share with the
    meeting's subject, "Budget meeting", by position) and German meeting mails."""
    bodies = 0
    for level in ("easy", "medium", "hard"):
        for seed in range(40):
            sc_en, sc_de = twins("CrossApp", level, seed)  # and the same draws
            t_en, t_de = sc_en["task"], sc_de["task"]
            assert [j["type"] for j in t_en["jobs"]] == [j["type"] for j in t_de["jobs"]]
            for a, b in zip(t_en["jobs"], t_de["jobs"]):
                if b["type"] == "mail":
                    assert b["title"] == de.SUBJECTS[t_de["source"]][en.SUBJECTS[t_en["source"]].index(a["title"])]
            if t_de["source"] == "meeting":
                m = next(m for m in sc_de["apps"][MAIL]["mails"] if m["id"] == t_de["reads"][0]["ref"])
                assert any(d in m["body"] for d in de.WEEKDAYS) and not any(d in m["body"] for d in en.WEEKDAYS), m["body"]
                assert any(s.split("{")[0] in m["body"] for s in de.STARTS)
                bodies += 1
    assert bodies


#: German interface verbs, what tasks name or ask for, dates and colours: the filler says none.
_FORBIDDEN_DE = {
    "löschen", "archivieren", "antworten", "antwort", "weiterleiten", "senden", "schicken", "kaufen", "entfernen", "umbenennen",
    "verschieben", "teilen", "anrufen", "nachricht", "favorit", "bearbeiten", "speichern", "abbrechen", "auswählen", "verfassen",
    "suchen", "suche", "hinzufügen", "warenkorb", "kasse", "fertig", "erledigt", "aufgabe", "ignorieren", "system", "tippen",
    "klicken", "öffnen", "erlauben", "einstellungen", "kalender", "mail", "dateien", "notizen", "telefon", "preis", "kosten",
    "kostet", "heute", "morgen", "montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag", "januar",
    "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "dezember", "rot", "blau",
    "grün", "schwarz", "weiß", "grau", "marine", "rosa", "orange", "gelb", "lila", "braun", "jacke", "tasche", "hut", "schuhe",
}


def test_german_phrases_hold_no_values_nor_interface_words_and_fit_the_lines() -> None:
    words = {w.strip(".,:!").casefold() for t in de_desc.PHRASES.values() for group in t.values() for s in group for w in s.split()}
    assert not {w for w in words if re.search(r"\d", w)}
    assert not words & (_FORBIDDEN_DE - {"schuhe"}), words & _FORBIDDEN_DE  # "Bequeme Schuhe": as the English "shoes"
    for kind, t in de_desc.PHRASES.items():
        for group, phrases in t.items():
            assert len({p.casefold() for p in phrases}) == len(phrases), (kind, group)
        assert all(o.endswith(":") for o in t["open"]) and all(s[:1].isupper() for s in t["subject"]), kind
    for seed in range(20):
        for kind in desc.PLACES:
            lines = desc.item_lines(seed, "very_long", kind, f"x:{seed}", (), "de")
            assert lines and all(len(ln) <= desc.WRAP for ln in lines)
            assert lines != desc.item_lines(seed, "very_long", kind, f"x:{seed}")


def test_german_descriptions_only_where_the_language_is_german() -> None:
    de_words = {w.strip(".,:!") for t in de_desc.PHRASES.values() for g in t.values() for s in g for w in s.split()}
    for lang, split in (("de", "test"), ("en", "test")):
        env = gym.make("GuiGym-Mail-v0", level="easy", variation={**NEUTRAL, "language": lang, "descriptions": "very_long"},
                       split=split)
        env.reset(seed=3)
        d = env.unwrapped.scenario["descriptions"]
        assert d.get("language", "en") == lang and ("language" in d) == (lang != "en")
        rows = [w.label for w in env.unwrapped.current_view.rows if w.id.startswith(desc.PREFIX)]
        german = sum(w.strip(".,:!") in de_words for r in rows for w in r.split())
        english = sum(w.strip(".,:!").casefold() in {"the", "is", "has"} for r in rows for w in r.split())
        assert rows and (german > english if lang == "de" else english > 0 and german < english), (lang, rows)
        env.close()
