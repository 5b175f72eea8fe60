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

from guigym.display import ELLIPSIS, display_list, text_width
from tests.conftest import ID_LEVELS

SETTINGS: dict[str, dict[str, Any]] = {
    "de": {"variation": "language", "split": "test"},  # German alone: every other axis neutral
    # the German test split: every other axis drawn from its test values (font scale 1.3, its only
    # one; grids, pop-ups, long descriptions)
    "de-varied": {"variation": {"language": "de"}, "split": "test"},
}
SEEDS = (0, 1)


def _width(r: dict[str, Any]) -> int:
    return text_width(r["text"], r["size"], r["bold"], r.get("font"))


def _span(r: dict[str, Any], tw: int) -> tuple[int, int]:
    """Where the mock draws text record ``r``, ``tw`` px wide: ``[left, right)`` from its box's corner."""
    if r["align"] == "right":
        return r["x"] - tw, r["x"]
    if r["align"] == "center":
        left = r["x"] + (r["w"] - tw) // 2 if r["w"] is not None else r["x"] - tw // 2
        return left, left + tw
    return r["x"], r["x"] + tw


def overflows(items: list[dict[str, Any]]) -> list[tuple[str, str, int, int]]:
    """``(widget kind, text, width, room)`` of each text drawn wider than its space: its clip, a
    centred one's ``w``, its widget's box, a row's chevron and a switch's track."""
    out = []
    for r in items:
        if r["type"] == "text" and r["text"] and r["clip"] is not None and _width(r) > r["clip"]:
            out.append(("screen", r["text"], _width(r), r["clip"]))
        if r["type"] != "widget":
            continue
        ps, bw = r["parts"], r["box"][2] - r["box"][0] + 1
        ends = [_span(p, _width(p))[0] for p in ps if p["type"] == "text" and p["align"] == "right"]  # a chevron
        if r["kind"] == "toggle":  # its track: 40 x 18
            ends += [p["box"][0] for p in ps if p["type"] == "rect" and p["box"][2:] == [40, 18]]
        for p in ps:
            if p["type"] != "text" or not p["text"] or p["align"] == "right":
                continue
            tw = _width(p)
            left = _span(p, tw)[0]
            room = [p["clip"]] if p["clip"] is not None else []
            if p["align"] == "center" and p["w"] is not None:
                room.append(p["w"])
            if p["align"] == "left":
                room += [e - left for e in ends]
                if r["clip"] is not None:  # the widget's tile: drawn up to its box's right edge
                    room.append(bw - left)
            if any(tw > x for x in room) or (r["clip"] is not None and left < 0):
                out.append((r["kind"], p["text"], tw, min(room, default=bw)))
    return out


def shortened(items: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``(widget record or None, text record)`` of each text drawn shortened."""
    out = []
    for r in items:
        for p in r["parts"] if r["type"] == "widget" else [r]:
            if p["type"] == "text" and ("full" in p or "wrap" in p and p["text"].endswith(ELLIPSIS)):
                out.append((r if r["type"] == "widget" else None, p))
    return out


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_drawn_text_fits_and_labels_stay_whole(env_id: str, level: str, setting: str) -> None:
    env = gym.make(env_id, disable_env_checker=True, **SETTINGS[setting])
    u = env.unwrapped
    try:
        for seed in SEEDS:
            _, info = env.reset(seed=seed, options={"level": level})
            for _ in range(80):
                v, lay = u.current_view, u._lay
                items = display_list(v, lay)
                assert not overflows(items), (env_id, level, seed, overflows(items)[:5])
                widgets = {w.id: w for w, _ in [*(lay.backdrop.visible if lay.backdrop else []), *lay.visible]}
                for r, p in shortened(items):
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
                if not info["reference"]:
                    break
                _, _, term, trunc, info = env.step(info["reference"][0].action)
                if term or trunc:
                    break
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
            total += len(shortened(display_list(env.unwrapped.current_view, env.unwrapped._lay)))
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
            for _ in range(30):
                assert not shortened(display_list(env.unwrapped.current_view, env.unwrapped._lay))
                if not info["reference"]:
                    break
                _, _, term, trunc, info = env.step(info["reference"][0].action)
                if term or trunc:
                    break
        env.close()
