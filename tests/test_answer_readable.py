"""A question's fact is drawn whole where the reference answers it: along the reference of the
Messages, Contacts and Phone question tasks (Phone's read a Contacts detail row), plain, with
every axis of ``all`` from either split (font scales 0.85-1.3, fonts, densities) and in the
German alone and in the German test split, the state the Answer is given in draws the expected
fact in the text of one widget of the display list (its lines joined: a long message or contact
detail would wrap onto more rows), not shortened with "…" (an agent that sees only the
screenshot can read it)."""

from __future__ import annotations

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
                if not any(isinstance(s.action, Answer) for s in info["reference"]):
                    continue  # no question: nothing to read
                run = follow_reference(env, info, 60, seed=seed, on_state=check)
                assert run.success, (level, seed)
    finally:
        env.close()
    assert answered > 0
    assert not cut, f"{len(cut)} of {answered} answers not drawn whole: {cut[:5]}"
