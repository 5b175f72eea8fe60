"""A question's fact is drawn whole where the reference answers it: along the reference of the
Messages, Contacts and Phone question tasks (Phone's read a Contacts detail row), plain, with
every axis of ``all`` from either split (font scales 0.85-1.3, fonts, densities) and in the
German alone and in the German test split, the state the Answer is given in draws the expected
fact in the text of one widget of the display list (its lines joined: a long message or contact
detail would wrap onto more rows), not shortened with "…" (an agent that sees only the
screenshot can read it)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import gymnasium as gym
import pytest

from guigym.actions import Answer
from guigym.display import display_list
from tests.conftest import follow_reference

SETTINGS: dict[str, dict[str, Any]] = {
    "plain": {},
    "all-train": {"variation": "all", "split": "train"},
    "all-test": {"variation": "all", "split": "test"},
    "de": {"variation": "language", "split": "test"},  # German alone: every other axis neutral
    "de-test": {"variation": {"language": "de"}, "split": "test"},
    "narrow": {"variation": "all", "split": "test", "viewport": (240, 400)},  # rows of many lines, few on screen
}
FAMILIES = ("Messages", "Contacts", "Phone")
SEEDS = range(40)

def drawn_texts(env: gym.Env) -> list[str]:
    """The texts of the current screen's display list as drawn, a widget's lines joined (a text
    that wraps is broken at spaces): shortened ones end in "…"."""
    u = env.unwrapped
    return [" ".join(str(p["text"]) for p in (r["parts"] if r["type"] == "widget" else [r]) if p["type"] == "text")
            for r in display_list(u.current_view, u._lay)]


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("family", FAMILIES)
def test_the_fact_is_drawn_whole_where_the_reference_answers(family: str, setting: str) -> None:
    """A message in Messages and a contact's phone or email were single-line labels, shortened
    with "…" where too wide (German, font scale 1.3, a narrow viewport): a question's fact was cut
    off where the reference answered it ("Heidi: Meine neue Adresse ist Eichengasse…"), and a
    screenshot-only agent could not read it. They now wrap onto as many rows as they need."""
    env = gym.make(f"GuiGym-{family}-v0", disable_env_checker=True, **SETTINGS[setting])
    cut: list[tuple[str, int, str, list[str]]] = []
    answered = 0

    def check(env: gym.Env, info: dict[str, Any]) -> None:
        nonlocal answered
        step = (info["reference"] or [None])[0]
        if step is None or not isinstance(step.action, Answer):
            return
        answered += 1
        texts = drawn_texts(env)
        fact = step.action.text.replace(" ", "")  # a line may break inside it (an e-mail address too wide for one)
        if not any(fact in t.replace(" ", "") and "\u2026" not in t for t in texts):
            cut.append((level, seed, step.action.text, [t for t in texts if "\u2026" in t]))

    try:
        for level in ("easy", "medium", "hard"):
            for seed in SEEDS:
                _, info = env.reset(seed=seed, options={"level": level})
                # a task the oracle cannot solve is no question skipped (a scroll that jumped over a
                # wrapped message left one unsolvable at 240x400)
                assert info["failure"] is None and info["reference"], (level, seed, info["failure"])
                if not any(isinstance(s.action, Answer) for s in info["reference"]):
                    continue  # no question: nothing to read
                run = follow_reference(env, info, 60, seed=seed, on_state=check)
                assert run.success, (level, seed)
    finally:
        env.close()
    assert answered > 0
    assert not cut, f"{len(cut)} of {answered} answers not drawn whole: {cut[:5]}"


@pytest.mark.parametrize("setting", ["all-test", "de", "narrow"])
def test_every_row_of_a_thread_is_reached_and_a_hidden_focus_stays_out_of_the_rows(setting: str) -> None:
    """Along Messages references: (1) every row of the screen is shown at some scroll position
    reached by Scroll down from the top (half a page of rows was one Scroll's step whatever the
    rows' heights, and jumped over wrapped messages that no position then showed); (2) a focused
    field scrolled out of view, which the browser keeps off-screen so typing reaches it, lies
    outside the rows' clip (it was placed ``index - first`` rows down, inside the clip when tall
    rows put fewer rows on screen, and Chromium drew it over the messages)."""
    from guigym.display import hidden_focus, rows_clip
    from guigym.layout import layout, scroll_delta

    env = gym.make("GuiGym-Messages-v0", disable_env_checker=True, **SETTINGS[setting])
    screens = hidden = 0

    def check(env: gym.Env, info: dict[str, Any]) -> None:
        nonlocal screens, hidden
        u = env.unwrapped
        v, lay = u.current_view, u._lay
        for pos in range(lay.max_scroll + 1) if v.focus is not None and not v.grid else ():  # the focus at every scroll
            view = replace(v, scroll=pos)
            sl = layout(view, lay.width, lay.height)
            rec = hidden_focus(view, sl)
            if rec is not None:
                hidden += 1
                x, y, w, h = rows_clip(view, sl)
                top, bottom = rec["box"][1], rec["box"][3]
                assert bottom < y or top >= y + h, (setting, pos, rec["id"], rec["box"], (x, y, w, h))
        if v.grid or v.backdrop is not None or lay.max_scroll == 0:
            return
        screens += 1
        seen, pos, view = set(), 0, v
        for _ in range(len(v.rows) + 1):
            view = replace(view, scroll=pos)
            sl = layout(view, lay.width, lay.height)
            seen |= {w.id for w, _ in sl.visible}
            move = scroll_delta(view, sl, "down")
            if move <= 0:
                break
            pos += move
        missed = [w.id for w in v.rows if w.id not in seen and not w.cells]
        assert not missed, (setting, missed)

    try:
        for level in ("medium", "hard"):
            for seed in range(25):
                _, info = env.reset(seed=seed, options={"level": level})
                follow_reference(env, info, 60, seed=seed, on_state=check)
    finally:
        env.close()
    assert screens > 0 and (hidden > 0 or setting == "de")  # German alone: no focused field is ever scrolled away


def test_shown_texts_of_a_wrapped_message_are_its_lines() -> None:
    """``shown_texts`` (what the oracle checks before reading a fact off a row) laid out the
    widget as the app made it (span 0), one line shortened with "…", where the screen draws the
    wrapped lines."""
    from guigym.display import shown_texts

    env = gym.make("GuiGym-Messages-v0", disable_env_checker=True, **SETTINGS["de"])
    wrapped = 0

    def check(env: gym.Env, info: dict[str, Any]) -> None:
        nonlocal wrapped
        u = env.unwrapped
        for w, _ in u._lay.visible:
            if w.kind == "label" and w.span > 1:
                wrapped += 1
                lines = [t for t in shown_texts(u.current_view, u._lay, w.id) if t]
                assert len(lines) > 1 and " ".join(lines).replace(" ", "") == str(w.value or w.label).replace(" ", ""), lines

    try:
        for seed in range(10):
            _, info = env.reset(seed=seed, options={"level": "hard"})
            follow_reference(env, info, 60, seed=seed, on_state=check)
    finally:
        env.close()
    assert wrapped > 0
