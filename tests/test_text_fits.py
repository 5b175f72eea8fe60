"""Every drawn text fits the space it is drawn in on German screens (guigym.display's fitting, on
where the theme's ``fit_text`` is: German words are longer): along the reference of every id x
level, in German alone and in the German test split with every other axis drawn (font scale 1.3,
grids, dialogs), no text record of the display list is wider than its space by the mock's own
font metrics, a shortened one ends in "…", and the widget it belongs to keeps its whole label
(``info["elements"]``, what the oracle and rewards read). English screens are drawn as before
(their pixels are what the published training results saw): nothing is shortened there."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

from guigym.display import ELLIPSIS, display_list, overflowing_texts, shortened_texts
from tests.conftest import ID_LEVELS, follow_reference

SETTINGS: dict[str, dict[str, Any]] = {
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


def test_long_labels_are_shortened_on_german_screens() -> None:
    """The settings of this file do shorten texts (the check above is not vacuous): the German
    permission dialog and Files' grid tiles at font scale 1.3 have texts too long for their space."""
    total = 0
    for env_id, level in (("GuiGym-Login-v0", "hard"), ("GuiGym-Files-v0", "medium"), ("GuiGym-Mail-v0", "medium")):
        env = gym.make(env_id, disable_env_checker=True, **SETTINGS["de"])
        for seed in SEEDS:
            env.reset(seed=seed, options={"level": level})
            total += len(shortened_texts(display_list(env.unwrapped.current_view, env.unwrapped._lay)))
        env.close()
    assert total > 0


@pytest.mark.parametrize("setting", [{}, {"variation": "all", "split": "test"}])
def test_english_screens_are_drawn_as_before(setting: dict[str, Any]) -> None:
    """No text is shortened on English screens, plain or varied (a text too wide stays cut at its
    widget's edge): the published training results saw those pixels."""
    for env_id, level in (("GuiGym-Login-v0", "hard"), ("GuiGym-Files-v0", "medium"), ("GuiGym-Mail-v0", "medium")):
        env = gym.make(env_id, disable_env_checker=True, level=level, **setting)
        for seed in SEEDS:
            _, info = env.reset(seed=seed)
            follow_reference(env, info, 30, seed=seed, on_state=_nothing_shortened)
        env.close()


def _nothing_shortened(env: gym.Env, info: dict[str, Any]) -> None:
    assert not shortened_texts(display_list(env.unwrapped.current_view, env.unwrapped._lay))
