"""Dates in labels and instructions do not follow the process's locale (guigym.apps.dates).

``calendar.month_name`` and ``date.strftime("%B")`` read ``LC_TIME``: a program that calls
``locale.setlocale(locale.LC_ALL, "")`` on a German desktop would see other Calendar and Files
instances for the same seed than everyone else, and guigym's German (which translates the English
names) would miss them.
"""

from __future__ import annotations

import ast
import calendar
from pathlib import Path

import gymnasium as gym
import pytest

import guigym
from guigym.apps.dates import MONTH_NAMES, WEEKDAY_NAMES, month_abbr, month_name

PACKAGE = Path(guigym.__file__).resolve().parent
#: What ``calendar`` gives after ``locale.setlocale(locale.LC_TIME, "de_DE.UTF-8")``.
GERMAN = {
    "month_name": ["", "Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
                   "November", "Dezember"],
    "month_abbr": ["", "Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"],
    "day_name": ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"],
    "day_abbr": ["Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"],
}


def test_names_are_the_c_locales():
    # the C locale, what Python starts in: the names every instance so far was built with
    assert MONTH_NAMES == tuple(calendar.month_name)[1:]
    assert WEEKDAY_NAMES == tuple(calendar.day_name)
    assert [month_abbr(m) for m in range(1, 13)] == list(calendar.month_abbr)[1:]
    assert month_name(12) == "December"


def _episode(env_id: str, seed: int) -> list[object]:
    """What an agent sees along the oracle's episode: instructions, frames, the reference's actions."""
    env = gym.make(env_id, level="hard")
    obs, info = env.reset(seed=seed)
    seen: list[object] = []
    for _ in range(40):
        seen += [obs["instruction"], obs["screenshot"].tobytes(), [str(r.action) for r in info["reference"]]]
        obs, _, term, trunc, info = env.step(info["reference"][0].action)
        if term or trunc:
            break
    env.close()
    return seen


@pytest.mark.parametrize("env_id", ["GuiGym-Calendar-v0", "GuiGym-Files-v0"])
def test_episodes_do_not_follow_the_locales_month_names(env_id, monkeypatch):
    plain = [_episode(env_id, seed) for seed in range(3)]
    for name, names in GERMAN.items():
        monkeypatch.setattr(calendar, name, names)
    assert [_episode(env_id, seed) for seed in range(3)] == plain


def test_no_module_reads_the_locales_date_names():
    """``strftime``, ``strptime`` and calendar's name tables are the locale's; guigym.apps.dates
    has fixed ones."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in {"strftime", "strptime", *GERMAN}:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .{node.attr}")
    assert not found, found


def test_a_calendar_frame_shows_english_months_under_a_patched_locale(monkeypatch):
    # the date picker's grid is memoised: its key must not let a locale's names in either
    from guigym.apps.widgets import date_picker_rows

    monkeypatch.setattr(calendar, "month_name", GERMAN["month_name"])
    rows = date_picker_rows("when", "2026-03-14", "2026-03")
    assert rows[0].cells[1].label == "March 2026"
    days = [c.label for r in rows[2:] for c in r.cells]
    assert "March 14" in days and not any("März" in d for d in days)
    assert all(d.split()[0] in MONTH_NAMES for d in days)
