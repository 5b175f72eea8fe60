"""The ``descriptions`` axis of ``guigym.variation`` (:mod:`guigym.descriptions`): long content
texts (an item's description on its screen, a preview on its list row). The task is the
family's own, the oracle solves every id with long and very long texts, the same seed gives the
same texts, the other axes draw as before, and the filler never holds the task's values."""

from __future__ import annotations

import json
import re
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from guigym.descriptions import LENGTHS, PHRASES, PLACES, PREFIX, WRAP, item_lines, says
from guigym.registration import env_ids
from guigym.variation import AXES, NEUTRAL, OPT_IN, PRESETS, SIDE_DRAWN, grid, sample_variation
from tests.conftest import follow_reference

IDS = env_ids()
CASES = [("long", "train"), ("very_long", "test")]


def only(value: str) -> dict[str, Any]:
    """Every other axis at rest (the held-out templates aside: ``all`` is every split's)."""
    return {**NEUTRAL, "descriptions": value}


def episode(env: gym.Env, seed: int, limit: int = 150) -> tuple[bool, int, set[str]]:
    """Follow the oracle from reset; (success, steps, the description rows seen on the way)."""
    _, info = env.reset(seed=seed)
    seen: set[str] = set()

    def collect(env: gym.Env, info: dict) -> None:
        seen.update(w.id for w in env.unwrapped.current_view.rows if w.id.startswith(PREFIX))

    run = follow_reference(env, info, limit, on_state=collect)
    return run.success, run.steps, seen


def test_the_axis_is_declared_with_disjoint_splits() -> None:
    assert not set(AXES["descriptions"]["train"]) & set(AXES["descriptions"]["test"])
    assert NEUTRAL["descriptions"] == "own" and "descriptions" not in OPT_IN
    assert "descriptions" in PRESETS["all"] and PRESETS["descriptions"] == ("descriptions",)
    assert set(AXES["descriptions"]["train"] + AXES["descriptions"]["test"]) == set(LENGTHS)
    names = [n for n, _ in grid("test")]
    assert "descriptions=very_long" in names


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("value,split", CASES)
def test_the_oracle_solves_every_id_with_long_texts(env_id: str, value: str, split: str) -> None:
    """100 seeds per id and split (the levels in turn), descriptions fixed long / very long: the
    oracle solves every one, the task and its reference length are the unvaried env's or longer
    only by scrolls, and the content families show the texts on the oracle's way."""
    envs = {lv: gym.make(env_id, level=lv, variation=only(value), split=split) for lv in ("easy", "medium", "hard")}
    failed, shown = [], set()
    for seed in range(100):
        env = envs[("easy", "medium", "hard")[seed % 3]]
        ok, _, seen = episode(env, seed)
        shown |= seen
        if not ok:
            failed.append(seed)
        assert env.unwrapped.scenario["variation"]["descriptions"] == value
    for env in envs.values():
        env.close()
    assert not failed, (env_id, split, failed[:5])
    kinds = {s["kind"] for env in envs.values() for s in env.unwrapped.scenario["apps"].values()}
    if any(PLACES.get(k, ((), (), ""))[1] for k in kinds) and not env_id.startswith(("GuiGym-Launcher", "GuiGym-Login", "GuiGym-Settings")):
        assert shown, env_id  # the texts show on the way in every family with content


@pytest.mark.parametrize("env_id", IDS)
def test_the_task_is_the_familys_own_and_reads_back(env_id: str) -> None:
    plain = gym.make(env_id)
    long = gym.make(env_id, variation="descriptions", split="test")
    for seed in range(6):
        _, a = plain.reset(seed=seed)
        _, b = long.reset(seed=seed)
        sa, sb = plain.unwrapped.scenario, long.unwrapped.scenario
        assert sa["task"] == sb["task"] and sa["apps"] == sb["apps"] and sa["start"] == sb["start"]
        assert b["variation"]["descriptions"] == "very_long" and sb["descriptions"]["length"] == "very_long"
        assert "descriptions" not in sa and a["variation"] is None
    plain.close()
    long.close()


def test_same_seed_same_texts() -> None:
    out = []
    for _ in range(2):
        env = gym.make("GuiGym-Mail-v0", variation="all", split="train")
        obs, _ = env.reset(seed=11)
        out.append((json.dumps(env.unwrapped.scenario, sort_keys=True, default=str), obs["screenshot"].tobytes(),
                    [w.label for w in env.unwrapped.current_view.rows]))
        env.close()
    assert out[0] == out[1]


def test_other_axes_draw_as_before() -> None:
    """The axis draws aside (``SIDE_DRAWN``): every other axis's value, and where the shared
    stream stands after sampling (what ``apply_variation`` draws next), are those of the draw
    without it."""
    for split in ("train", "test"):
        for seed in range(50):
            a, b = np.random.default_rng(seed), np.random.default_rng(seed)
            v = sample_variation("all", split, a)
            old = {ax: AXES[ax][split][int(b.integers(len(AXES[ax][split])))] for ax in AXES
                   if ax not in OPT_IN and ax not in SIDE_DRAWN}
            assert {ax: v[ax] for ax in old} == old
            assert a.bit_generator.state == b.bit_generator.state


@pytest.mark.parametrize("env_id", IDS)
def test_own_is_the_variation_without_the_axis(env_id: str) -> None:
    """``descriptions="own"``: the same screens and instruction as the same variation before the
    axis existed (no descriptions key, every other value the same)."""
    env = gym.make(env_id, variation={"descriptions": "own"}, split="train")
    for seed in range(4):
        env.reset(seed=seed)
        assert "descriptions" not in env.unwrapped.scenario
        assert not any(w.id.startswith(PREFIX) for w in env.unwrapped.current_view.rows)
    env.close()


_NUM = re.compile(r"\d")
#: Words the filler never says: interface verbs and what tasks name or ask for.
_FORBIDDEN = {"delete", "archive", "reply", "forward", "send", "buy", "remove", "rename", "move", "share", "call", "message",
              "favourite", "edit", "save", "cancel", "select", "compose", "search", "add", "cart", "checkout", "done", "complete",
              "task", "ignore", "system", "tap", "click", "open", "allow", "settings", "calendar", "mail", "files", "notes", "phone",
              "price", "cost", "today", "tomorrow", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
              "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
              "december", "red", "blue", "green", "black", "white", "grey", "gray", "navy", "pink", "orange", "yellow", "purple", "brown"}


def test_the_phrase_tables_hold_no_values_nor_interface_words() -> None:
    words = {w.strip(".,:").casefold() for t in PHRASES.values() for group in t.values() for s in group for w in s.split()}
    assert not {w for w in words if _NUM.search(w)}
    assert not words & _FORBIDDEN, words & _FORBIDDEN
    for kind in PLACES.values():
        assert kind[2] in PHRASES
    lines = item_lines(3, "very_long", "shop", "p:1")
    assert all(len(ln) <= WRAP for ln in lines) and len(lines) >= LENGTHS["very_long"][0]


@pytest.mark.parametrize("env_id", IDS)
def test_the_filler_never_holds_the_tasks_values_or_a_targets_label(env_id: str) -> None:
    """Along the oracle's way (very long texts): no description line holds a quoted value of
    the instruction or the expected answer, nor is it the label of a widget on its screen."""
    env = gym.make(env_id, variation=only("very_long"), split="test")
    for seed in range(12):
        _, info = env.reset(seed=seed, options={"level": ("easy", "medium", "hard")[seed % 3]})
        task = env.unwrapped.scenario["task"]
        quoted = re.findall(r"'([^']+)'|\"([^\"]+)\"", task["instruction"])
        values = [x.casefold() for pair in quoted for x in pair if x]
        values += [str(task[k]).casefold() for k in ("answer", "expected") if isinstance(task.get(k), str) and task.get(k)]

        def check(env: Any, info: dict[str, Any], values: list[str] = values, seed: int = seed) -> None:
            v = env.unwrapped.current_view
            labels = {w.label.casefold() for w in v.widgets() if not w.id.startswith(PREFIX)}
            for w in v.rows:
                if w.id.startswith(PREFIX):
                    assert w.label.casefold() not in labels, (env_id, seed, w.label)
            text = " ".join(w.label for w in v.rows if w.id.startswith(PREFIX) and not w.id.split(":")[-1].startswith("p"))
            assert not any(says(text, x) for x in values), (env_id, seed, text, values)

        follow_reference(env, info, 80, on_state=check)
    env.close()


def test_lists_get_longer_and_rows_may_leave_the_screen() -> None:
    """The catalog with very long texts: every product's row has its preview below it (muted
    label rows), so the list is longer and scrolls further than the unvaried one."""
    from guigym.layout import layout

    env = gym.make("GuiGym-Shop-v0", level="easy", variation=only("very_long"), split="test")
    plain = gym.make("GuiGym-Shop-v0", level="easy")
    for seed in range(10):
        env.reset(seed=seed)
        plain.reset(seed=seed)
        u, p = env.unwrapped, plain.unwrapped
        vu, vp = u.current_view, p.current_view
        links = [k for k, w in enumerate(vu.rows) if w.kind == "link" and w.to and w.to.startswith("p:")]
        assert links
        for k in links:
            prev = vu.rows[k + 1:k + 1 + LENGTHS["very_long"][2]]
            assert all(w.id.startswith(PREFIX) and w.style == "muted" for w in prev)
        assert len(vu.rows) == len(vp.rows) + LENGTHS["very_long"][2] * len(links)
        assert layout(vu, u.width, u.height).max_scroll > layout(vp, p.width, p.height).max_scroll
    env.close()
    plain.close()


def test_one_pattern_avoids_what_says_avoids() -> None:
    """``sentences`` checks every avoided phrase with one alternation (``_says_any``): it must
    reject exactly the sentences ``any(says(s, a) for a in avoid)`` rejects, word boundaries
    included (a phrase that fails its boundary lets the next one match at the same place)."""
    from guigym.descriptions import _says_any

    rng = np.random.default_rng(5)
    words = ["art", "arts", "part", "ideas", "idea", "a.b", "x+y", "c++", "naïve", "straße", "strasse", "the plan", "(tm)"]
    pool = [s for t in PHRASES.values() for s in t["whole"]] + [f"{a} {b} and {c}." for a, b, c in
                                                              rng.choice(words, size=(200, 3))]
    for _ in range(300):
        avoid = tuple(sorted({str(w).casefold() for w in rng.choice(words + ["ideas", "rough"], size=int(rng.integers(1, 5)))}))
        pat = _says_any(avoid)
        for s in pool[:: int(rng.integers(1, 7))]:
            assert bool(pat.search(s.casefold())) == any(says(s, a) for a in avoid), (s, avoid)
    assert _says_any(()) is None


def test_description_rows_are_shared_and_equal_fresh_ones() -> None:
    """``insert`` memoises the label rows it adds (``_rows``): the same objects on every view,
    equal to rows made from ``item_lines`` anew."""
    from guigym.apps.base import Widget
    from guigym.descriptions import _rows

    a = _rows(7, "long", "mail", "m:2", ("alice",), None)
    assert a is _rows(7, "long", "mail", "m:2", ("alice",), None)
    lines = item_lines(7, "long", "mail", "m:2", ("alice",))
    assert list(a) == [Widget(f"{PREFIX}m:2:{k}", "label", ln) for k, ln in enumerate(lines)]
    p = _rows(7, "long", "mail", "m:2", ("alice",), 2)
    assert list(p) == [Widget(f"{PREFIX}m:2:p{k}", "label", ln, style="muted") for k, ln in enumerate(lines[:2])]
