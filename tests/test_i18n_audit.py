"""German audit (``guigym.i18n``): screens off the oracle's path, counts, sizes and sent mails in
German; the login field "Login" named as a name; CrossApp's mail wording; answers as a German
user writes them (decimal commas, "14:30 Uhr", German dates and quotes) accepted."""

from __future__ import annotations

import copy
import importlib.util
import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

from guigym.actions import Answer
from guigym.answers import answers_match, canonical_answer
from guigym.apps.base import view
from guigym.i18n import content_strings
from guigym.i18n.de import translate
from guigym.registration import id_levels
from guigym.variation import NEUTRAL
from tests.conftest import make, tap

DE = {**NEUTRAL, "language": "de"}


def _coverage() -> Any:
    spec = importlib.util.spec_from_file_location("i18n_coverage", Path(__file__).resolve().parents[1] / "scripts" / "i18n_coverage.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _left_english(u: Any, state: dict) -> list[str]:
    """The UI strings of ``state``'s screen that the German view shows as the English one does."""
    cov = _coverage()
    en = {**u.scenario, "variation": {**u.scenario["variation"], "language": "en"}}
    v_en, v_de = view(en, state), view(u.scenario, state)
    keep = content_strings(u.scenario)
    return [a for a, b in zip(cov.strings(v_en), cov.strings(v_de)) if cov.kind_of(a, b, keep, cov.descriptions(v_en)) == "ui_en"]


def test_every_screen_of_every_app_is_german() -> None:
    """Every screen each app's spec holds, not only the reference's: the distractor apps ("Welcome to
    Drive" / "Nothing to do here yet."), Settings' info pages ("Nothing to change here."), the
    locked sign-in ("Try again in 24 hours."), the Clock's tabs ("No timer running") were English."""
    left: dict[str, set[str]] = {}
    seen = 0
    for env_id, level in id_levels():
        env = gym.make(env_id, variation=DE, split="test")
        u = env.unwrapped
        for seed in range(2):
            env.reset(seed=seed, options={"level": level})
            for app, spec in u.scenario["apps"].items():
                root = spec.get("root", "main")
                for sid in spec.get("screens", {}):
                    st = copy.deepcopy(u._state)
                    st["fg"], st["apps"][app]["stack"] = app, [root] if sid == root else [root, sid]
                    seen += 1
                    for s in _left_english(u, st):
                        left.setdefault(env_id, set()).add(s)
        env.close()
    assert seen > 500 and not left, left


def test_dynamic_lines_are_german() -> None:
    assert translate("Delete 3 mails?") == "3 E-Mails löschen?" and translate("Delete 1 mail?") == "1 E-Mail löschen?"
    assert translate("3.3 MB") == "3,3 MB" and translate("Size: 12.5 MB") == "Größe: 12,5 MB" and translate("340 KB") == "340 KB"
    assert translate("12.5 MB · Dec 12, 2025") == "12,5 MB · 12. Dez 2025"
    assert translate("Calling Grace Hill...") == "Anruf an Grace Hill..."
    assert translate("Opening messages for Bob Lee...") == "Nachrichten für Bob Lee werden geöffnet..."
    assert translate("To Grace Hill · Fotos aus Rom") == "An Grace Hill · Fotos aus Rom"
    assert translate("Welcome to PixelBank") == "Willkommen bei PixelBank"
    assert translate("Enter a 16-digit card number") != "Enter a 16-digit card number"
    assert translate("To do") == "To do"  # only a sent mail's row: "To " with " · " after it


def test_mail_select_dialog_and_other_boxes_are_german() -> None:
    """The select mode's "Delete 3 mails?" said "3 mails löschen?"; the Sent / Archive / Trash tabs'
    search fields ("Search sent") and a sent mail's row ("To Grace Hill · …") stayed English."""
    from guigym.apps.mail import APP, BOXES, SEL, SEL_DIALOG, SENT, TAB, check_id

    env = make("GuiGym-Mail-v0", level="medium", variation=DE, split="test")
    u = env.unwrapped
    env.reset(seed=1)
    st = copy.deepcopy(u._state)
    mails = st["apps"][APP]["data"]["mails"]
    for m in mails[:3]:
        st["apps"][APP]["values"][check_id(m["id"])] = True
    st["fg"], st["apps"][APP]["stack"] = APP, ["main", SEL, SEL_DIALOG]
    assert not _left_english(u, st)
    assert "3 E-Mails löschen?" in [w.label for w in view(u.scenario, st).widgets()]
    mails[0]["box"] = SENT
    for box in BOXES:
        st["apps"][APP]["stack"], st["apps"][APP]["values"][TAB] = ["main"], box
        assert not _left_english(u, st), box
    st["apps"][APP]["values"][TAB] = SENT
    labels = [w.label for w in view(u.scenario, st).widgets()]
    assert f"An {mails[0]['peer']} · {mails[0]['subject']}" in labels
    env.close()


def test_a_contacts_message_line_and_a_files_size_are_german() -> None:
    from guigym.apps.contacts import person_screen

    env = make("GuiGym-Contacts-v0", level="easy", variation=DE, split="test")
    u = env.unwrapped
    env.reset(seed=0)
    pid = u.scenario["apps"]["Contacts"]["cards"][0]["id"]
    tap(env, person_screen(pid))
    tap(env, f"{person_screen(pid)}.message")
    line = u.current_view.find(f"{person_screen(pid)}.msg")
    assert line is not None and line.label == f"Nachrichten für {u.scenario['apps']['Contacts']['cards'][0]['name']} werden geöffnet..."
    assert not _left_english(u, u._state)
    env.close()

    env = make("GuiGym-Files-v0", level="easy", variation=DE, split="test")
    _, info = env.reset(seed=0)
    details = [w.detail for w in env.unwrapped.current_view.widgets() if re.match(r"\d+[.,]\d MB", w.detail)]
    assert details and all(re.match(r"\d+,\d MB · ", d) for d in details), details
    env.close()


def test_the_login_field_is_named_by_its_name() -> None:
    """The field labelled "Login" (a login name) showed "Anmeldung" (the act of signing in), and the
    instruction said "mit der Anmeldung judy"."""
    env = make("GuiGym-Login-v0", level="easy", variation=DE, split="test")
    u = env.unwrapped
    found = 0
    for seed in range(60):
        env.reset(seed=seed)
        rows = {r["id"]: r["label"] for r in u.scenario["apps"][u.scenario["task"]["app"]]["screens"]["main"]["rows"]}
        if rows["user"] != "Login":
            continue
        found += 1
        assert u.current_view.find("user").label == "Anmeldename"
        assert "Anmeldung" not in u.instruction
        if "Logge dich mit " in u.instruction:
            assert f"mit dem Anmeldenamen {u.scenario['task']['user']} " in u.instruction
    env.close()
    assert found >= 3


def test_crossapp_mail_clause_keeps_its_case() -> None:
    """"schick X eine Mail mit dem Betreff "…" und den Preis … als Text" put an accusative after
    "mit"; the clause now says "und schreib … hinein"."""
    env = make("GuiGym-CrossApp-v0", variation=DE, split="test")
    said = 0
    for level in ("easy", "medium", "hard"):
        for seed in range(40):
            env.reset(seed=seed, options={"level": level})
            text = env.unwrapped.instruction
            assert " als Text" not in text, text
            said += "eine Mail mit dem Betreff" in text
    env.close()
    assert said >= 3


@pytest.mark.parametrize(
    "given,expected",
    [
        ("137,99 $", "$137.99"), ("137,99", "$137.99"), ("137.99 $", "$137.99"), ("66 €", "$66.00"), ("1.250,00 $", "1250"),
        ("14:30 Uhr", "2:30 PM"), ("14.30 Uhr", "2:30 PM"), ("14 Uhr", "2:00 PM"), ("„Kirchgasse 947“", "Kirchgasse 947"),
        ("»Pflanzen gießen«", "Pflanzen gießen"), ("17. August 2027", "2027-08-17"), ("Dienstag, 17. August 2027", "2027-08-17"),
        ("17.08.2027", "2027-08-17"), ("Di, 17. Aug.", "Aug 17"), ("5. Mär 2025", "Mar 5, 2025"), ("„3“", "3"),
    ],
)
def test_german_answers_match(given: str, expected: str) -> None:
    assert answers_match(given, expected)


@pytest.mark.parametrize(
    "given,expected",
    [
        ("12,5", "125"), ("12,5", "12"), ("1,250", "1.25"), ("1.250", "1250"), ("2 Uhr", "2:00 PM"), ("3 Uhr", "3"),
        ("30. Februar 2027", "2027-02-28"), ("17.08", "2027-08-17"), ("137,98 $", "$137.99"), ("14:31 Uhr", "2:30 PM"),
    ],
)
def test_german_answers_that_do_not_match(given: str, expected: str) -> None:
    """Still English where it is ambiguous ("1,250" is 1250, "1.250" is 1.25), and never a near miss."""
    assert not answers_match(given, expected)


def test_canonical_forms_agree_across_languages() -> None:
    assert canonical_answer("12,50 €") == canonical_answer("$12.50") == "n:12.5"
    assert canonical_answer("19:05 Uhr") == canonical_answer("7:05 pm") == "t:19:05"
    assert canonical_answer("1. Dezember 2026") == canonical_answer("December 1, 2026") == "d:2026-12-01"


def _german(answer: str) -> str:
    """``answer`` (as the reference gives it, the screen's text) as a German user writes it."""
    m = re.fullmatch(r"\$(\d+)\.(\d\d)", answer)
    if m:
        return f"{m[1]},{m[2]} $"
    m = re.fullmatch(r"(\d{1,2}):(\d\d) (AM|PM)", answer)
    if m:
        return f"{int(m[1]) % 12 + (12 if m[3] == 'PM' else 0)}:{m[2]} Uhr"
    return f"„{answer}“"


@pytest.mark.parametrize("env_id,level", [("GuiGym-Shop-v0", "easy"), ("GuiGym-Calendar-v0", "easy"), ("GuiGym-Messages-v0", "medium"),
                                          ("GuiGym-Mail-v0", "easy")])
def test_german_instances_accept_german_answers(env_id: str, level: str) -> None:
    """Along the reference of German instances, the answer step given as a German user writes it
    ("137,99 $", "14:30 Uhr", „Kirchgasse 947“) ends the task with success, as the screen's text does."""
    env = make(env_id, level=level, variation=DE, split="test")
    kinds = set()
    for seed in range(30):
        _, info = env.reset(seed=seed)
        for _ in range(80):
            if not info["reference"]:
                break
            a = info["reference"][0].action
            if isinstance(a, Answer):
                german = _german(a.text)
                assert german != a.text
                kinds.add(german[-1])
                *_, term, _, info = env.step(Answer(german))
                assert term and info["success"], (seed, a.text, german)
                break
            *_, term, trunc, info = env.step(a)
            if term or trunc:
                break
    env.close()
    assert kinds, env_id


def test_an_empty_note_says_so_in_german() -> None:
    """A note saved without text showed "(empty note)" (Notes, in Launcher and Phone)."""
    from guigym.apps.schema import note_screen

    env = make("GuiGym-Launcher-v0", level="hard", variation=DE, split="test")
    u = env.unwrapped
    for seed in range(20):
        env.reset(seed=seed)
        notes = [a for a, s in u.scenario["apps"].items() if s["kind"] == "notes"]
        if notes and u._state["apps"][notes[0]]["data"]["notes"]:
            break
    else:
        raise AssertionError("no Notes app with a note")
    st = copy.deepcopy(u._state)
    st["apps"][notes[0]]["data"]["notes"][0]["body"] = ""
    st["fg"], st["apps"][notes[0]]["stack"] = notes[0], ["main", note_screen(0)]
    assert "(leere Notiz)" in [w.label for w in view(u.scenario, st).widgets()]
    assert not _left_english(u, st)
    env.close()
