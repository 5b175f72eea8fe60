"""Every drawn text fits the space it is drawn in (guigym.display's fitting): along the reference
of every id x level, plain, with every axis of ``all`` from the test split (font scale 1.3,
grids, dialogs, long descriptions), in German alone and in the German test split, no text
record of the display list is wider than its space by the mock's own font metrics, a shortened
one ends in "…", and the widget it belongs to keeps its whole label (``info["elements"]``, what
the oracle and rewards read). Along the reference, the plain screens of the training tables'
tasks shorten nothing; off it, Settings hard's do."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

from guigym.actions import Click
from guigym.display import ELLIPSIS, display_list, overflowing_texts, shortened_texts
from guigym.oracle import center
from tests.conftest import ID_LEVELS, follow_reference

SETTINGS: dict[str, dict[str, Any]] = {
    "en": {},
    "en-varied": {"variation": "all", "split": "test"},
    "de": {"variation": "language", "split": "test"},  # German alone: every other axis neutral
    # the German test split: every other axis drawn from its test values (font scale 1.3, its only
    # one; grids, pop-ups, long descriptions)
    "de-varied": {"variation": {"language": "de"}, "split": "test"},
}
SEEDS = (0, 1)


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_drawn_text_fits_and_labels_stay_whole(env_id: str, level: str, setting: str) -> None:
    env = gym.make(env_id, disable_env_checker=True, **SETTINGS[setting])

    def check(env: gym.Env, info: dict[str, Any]) -> None:
        u = env.unwrapped
        v, lay = u.current_view, u._lay
        items = display_list(v, lay)
        assert not overflowing_texts(items), (env_id, level, overflowing_texts(items)[:5])
        widgets = {w.id: w for w, _ in [*(lay.backdrop.visible if lay.backdrop else []), *lay.visible]}
        for r, p in shortened_texts(items):
            assert p["text"].endswith(ELLIPSIS), p
            if "wrap" in p:  # a line of a tile's name: a piece of the name
                assert p["text"][:-1].replace(" ", "") in p["wrap"][0].replace(" ", ""), p
                continue
            assert p["full"].startswith(p["text"][:-1].rstrip()), p
            if r is None:
                continue
            w = widgets[r["id"]]
            whole = {w.label, w.detail, w.placeholder, str(w.value), *(str(lab) for _, lab in w.options or [])}
            # the widget's own text (a field's line: a piece of its value; a secret one: dots)
            assert any(p["full"] in x for x in whole) or set(p["full"]) == {"\u2022"}, (p["full"], w)
            if p["full"] == w.label and w.interactive and not r.get("inert"):
                assert any(e["id"] == w.id and e["label"] == w.label for e in info["elements"]), (w.id, info["elements"])
        shown = {w.id: w for w, _ in lay.visible}
        for e in info["elements"]:  # labels are the widgets', never the drawn strings
            assert e["label"] == shown[e["id"]].label

    try:
        for seed in SEEDS:
            _, info = env.reset(seed=seed, options={"level": level})
            follow_reference(env, info, 80, seed=seed, on_state=check)
    finally:
        env.close()


@pytest.mark.parametrize("setting", ["en", "de"])
def test_long_labels_are_shortened(setting: str) -> None:
    """The settings of this file do shorten texts (the check above is not vacuous): Login hard's
    phishing note, Mail's select-mode rows and the German permission dialog are too long."""
    total = 0
    for env_id, level in (("GuiGym-Login-v0", "hard"), ("GuiGym-Files-v0", "medium"), ("GuiGym-Mail-v0", "medium")):
        env = gym.make(env_id, disable_env_checker=True, **SETTINGS[setting])
        for seed in SEEDS:
            _, info = env.reset(seed=seed, options={"level": level})

            def count(env: gym.Env, info: dict[str, Any]) -> None:
                nonlocal total
                total += len(shortened_texts(display_list(env.unwrapped.current_view, env.unwrapped._lay)))

            follow_reference(env, info, 30, seed=seed, on_state=count)
        env.close()
    assert total > 0


@pytest.mark.parametrize("env_id,level", [("GuiGym-Login-v0", "easy"), ("GuiGym-Contacts-v0", "easy"), ("GuiGym-Settings-v0", "hard")])
def test_the_training_tables_tasks_shorten_nothing_along_the_reference(env_id: str, level: str) -> None:
    """Login easy, Contacts easy and Settings hard, plain (the README's training tables but the
    robustness one): every text along the reference fits. Off it, Settings hard has texts that
    do not (the next test), so its training runs see other pixels than before the fitting."""
    env = gym.make(env_id, disable_env_checker=True, level=level)
    for seed in range(10):
        _, info = env.reset(seed=seed)
        follow_reference(env, info, 40, seed=seed, on_state=_nothing_shortened)
    env.close()


def test_off_the_reference_a_settings_note_is_shortened() -> None:
    """A page of a setting no task asks for says "<setting> is managed by the system." in a row
    too narrow for it: drawn shortened, the widget's label whole. A policy exploring Settings
    hard reaches such pages, so fitting changed what the horizon sweep's runs saw (retrained)."""
    env = gym.make("GuiGym-Settings-v0", disable_env_checker=True, level="hard")
    _, info = env.reset(seed=0)
    for wid in ("go:security", "go:security/5"):
        _, _, _, _, info = env.step(Click(*center(next(e["box"] for e in info["elements"] if e["id"] == wid))))
    v = env.unwrapped.current_view
    [(w, t)] = shortened_texts(display_list(v, env.unwrapped._lay))
    assert t["full"] == "Face & Fingerprint Unlock is managed by the system." and t["text"].endswith(ELLIPSIS)
    assert w is not None and v.find(w["id"]).label == t["full"]
    env.close()


def _nothing_shortened(env: gym.Env, info: dict[str, Any]) -> None:
    assert not shortened_texts(display_list(env.unwrapped.current_view, env.unwrapped._lay))
