"""The ``labels`` variation axis (``guigym.variation.LABELS``): held-out chrome labels. The
table is well formed (train and test synonyms disjoint, every test one in German), the train
split and the unvaried envs never show a test synonym, the test split shows them and the oracle
still solves every id, the neutral value is the family's own screen, and the axis moves no other
axis's draw."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

from guigym.apps.base import APP_KINDS
from guigym.registration import env_ids
from guigym.variation import AXES, LABELS, NEUTRAL, PRESETS, grid, sample_variation

IDS = env_ids()
TEST_SYNONYMS = {t for groups in LABELS.values() for g in groups for t in g.test}
TRAIN_SYNONYMS = {t for groups in LABELS.values() for g in groups for t in g.train}
AT_REST = {**NEUTRAL}  # every axis neutral (the opt-in language too)


def shown(env: gym.Env) -> set[str]:
    """Every string the current screen shows (titles, labels, details, placeholders, options)."""
    out: set[str] = set()
    v = env.unwrapped.current_view
    while v is not None:
        out.add(v.title)
        for w in v.widgets():
            out |= {w.label, w.detail, w.placeholder}
            if w.kind == "label" and isinstance(w.value, str):
                out.add(w.value)
            out |= {str(o[1]) for o in w.options or [] if isinstance(o, (list, tuple))}
        v = v.backdrop
    return out


def walk(env: gym.Env, seed: int, rng: np.random.Generator | None = None, limit: int = 80) -> tuple[bool, set[str], list[str]]:
    """Follow the oracle from reset (with ``rng``: a random click on a visible element first, now
    and then); (success, every string shown, the reference texts)."""
    _, info = env.reset(seed=seed)
    seen, refs = shown(env), []
    for _ in range(limit):
        if rng is not None and info["elements"] and rng.random() < 0.3:
            e = info["elements"][int(rng.integers(len(info["elements"])))]
            x0, y0, x1, y1 = e["box"]
            from guigym.actions import Click

            act = Click((x0 + x1) // 2, (y0 + y1) // 2)
        elif info["reference"]:
            refs.append(info["reference"][0].instruction)
            act = info["reference"][0].action
        else:
            break
        _, _, term, trunc, info = env.step(act)
        seen |= shown(env)
        if term or trunc:
            break
    return bool(info["success"]), seen, refs


def test_the_table_is_well_formed() -> None:
    from guigym.i18n.de import known

    assert set(LABELS) <= set(APP_KINDS)
    assert not TEST_SYNONYMS & TRAIN_SYNONYMS  # no held-out label is any group's train label
    for kind, groups in LABELS.items():
        for g in groups:
            assert g.train and g.test and not set(g.train) & set(g.test), (kind, g)
            assert all(known(t) for t in (*g.train, *g.test)), (kind, g)  # German for every synonym
        for wkind in {g.kind for g in groups}:
            labels = [t for g in groups if g.kind == wkind for t in (*g.train, *g.test)]
            assert len(labels) == len(set(labels)), (kind, wkind)  # a label is in one group of an app kind


def test_the_axis_is_in_the_tables() -> None:
    assert AXES["labels"] == {"train": ("train",), "test": ("test",)} and NEUTRAL["labels"] == "all"
    assert list(AXES)[-1] == "labels"  # drawn last: it moves no other axis's draw
    assert "labels" in PRESETS["all"] and PRESETS["labels"] == ("labels",)
    assert ("labels=test", {**NEUTRAL, "labels": "test"}) in grid("test")
    rng = np.random.default_rng(0)
    assert sample_variation("labels", "test", rng)["labels"] == "test"


@pytest.mark.parametrize("env_id", IDS)
def test_train_never_shows_a_held_out_label(env_id: str) -> None:
    """The unvaried env and the train split of ``"all"`` (oracle paths with random clicks among
    them): no test synonym on any screen."""
    rng = np.random.default_rng(1)
    for variation, split in ((None, "train"), ("all", "train")):
        for level in ("easy", "medium", "hard"):
            env = gym.make(env_id, level=level, variation=variation, split=split)
            for seed in range(6):
                _, seen, _ = walk(env, seed, rng)
                assert not seen & TEST_SYNONYMS, (env_id, level, variation, seed, seen & TEST_SYNONYMS)
            env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_neutral_and_train_are_the_familys_own_labels(env_id: str) -> None:
    """``labels`` ``"all"`` and ``"train"`` (every other axis at rest): the same screens,
    elements and references as without variation."""
    plain = gym.make(env_id, level="medium")
    for value in ("all", "train"):
        varied = gym.make(env_id, level="medium", variation={**AT_REST, "labels": value})
        for seed in range(4):
            oa, ia = plain.reset(seed=seed)
            ob, ib = varied.reset(seed=seed)
            assert ib["variation"]["labels"] == value
            for _ in range(40):
                assert np.array_equal(oa["screenshot"], ob["screenshot"]) and oa["instruction"] == ob["instruction"]
                assert repr((ia["elements"], ia["reference"])) == repr((ib["elements"], ib["reference"]))
                if not ia["reference"]:
                    break
                act = ia["reference"][0].action
                oa, _, ta, tra, ia = plain.step(act)
                ob, _, tb, trb, ib = varied.step(act)
                if ta or tra:
                    break
        varied.close()
    plain.close()


@pytest.mark.parametrize("env_id", IDS)
def test_the_labels_draw_moves_no_other_axis(env_id: str) -> None:
    """Same seed and split, every other axis sampled: ``labels`` ``"all"`` or the split's value
    give the same scenario but the relabelling."""
    for split in ("train", "test"):
        a = gym.make(env_id, variation={"labels": "all"}, split=split).unwrapped
        b = gym.make(env_id, variation={"labels": split}, split=split).unwrapped
        for seed in range(5):
            a.reset(seed=seed)
            b.reset(seed=seed)
            sa = {**a.scenario, "variation": {k: v for k, v in a.scenario["variation"].items() if k != "labels"}}
            sb = {k: v for k, v in b.scenario.items() if k != "relabel"}
            sb["variation"] = {k: v for k, v in sb["variation"].items() if k != "labels"}
            assert json.dumps(sa, sort_keys=True) == json.dumps(sb, sort_keys=True)


def test_same_seed_same_labels() -> None:
    a, b = (gym.make("GuiGym-Mail-v0", level="hard", variation="labels", split="test").unwrapped for _ in range(2))
    tables = set()
    for seed in range(8):
        a.reset(seed=seed)
        b.reset(seed=seed)
        assert a.scenario["relabel"] == b.scenario["relabel"]
        tables.add(json.dumps(a.scenario["relabel"], sort_keys=True))
    assert len(tables) > 1  # the synonyms are drawn


def test_login_shows_held_out_labels_and_the_reference_names_them() -> None:
    from guigym.variation import LABELS as T

    user, password, sign_in, _ = T["login"]
    env = gym.make("GuiGym-Login-v0", variation={**AT_REST, "labels": "test"}, split="test")
    kept_user = 0
    for seed in range(30):
        _, info = env.reset(seed=seed)
        v = env.unwrapped.current_view
        button = v.find("signin")
        assert button.label in sign_in.test, (seed, button.label)
        field = v.find("user")
        instruction = env.unwrapped.scenario["task"]["instruction"].casefold()
        if field.label in user.test:
            assert field.label.casefold() not in instruction
        else:  # an e-mail account, or a label the instruction names
            kept_user += 1
            assert field.label == "Email" or field.label.casefold() in instruction
        assert v.find("pass").label in password.test or v.find("pass").label.casefold() in instruction
        refs = []
        for _ in range(20):
            if not info["reference"]:
                break
            refs.append(info["reference"][0].instruction)
            _, _, term, trunc, info = env.step(info["reference"][0].action)
            if term or trunc:
                break
        assert info["success"]
        assert f"Click the '{button.label}' button" in refs
    assert kept_user < 30
    env.close()


def test_german_says_the_held_out_labels() -> None:
    from guigym.i18n.de import translate

    env = gym.make("GuiGym-Login-v0", variation={**AT_REST, "labels": "test", "language": "de"}, split="test")
    for seed in range(5):
        _, info = env.reset(seed=seed)
        english = env.unwrapped.scenario["relabel"][env.unwrapped.scenario["task"]["app"]]["button"]["Sign in"]
        assert env.unwrapped.current_view.find("signin").label == translate(english, "button")
        while info["reference"]:
            _, _, term, trunc, info = env.step(info["reference"][0].action)
            if term or trunc:
                break
        assert info["success"]
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_the_oracle_solves_every_id_with_held_out_labels(env_id: str) -> None:
    """``{"labels": "test"}`` on the test split (the other axes sampled), 102 seeds per id (the
    levels in turn): the oracle succeeds on every one and its references name held-out labels."""
    envs = {level: gym.make(env_id, level=level, variation={"labels": "test"}, split="test") for level in ("easy", "medium", "hard")}
    failed, named = [], set()
    for seed in range(102):
        env = envs[("easy", "medium", "hard")[seed % 3]]
        ok, seen, refs = walk(env, seed, limit=150)
        assert env.unwrapped.scenario["variation"]["labels"] == "test"
        if not ok:
            failed.append((seed, env.unwrapped.scenario["variation"]))
        named |= {t for t in TEST_SYNONYMS if any(f"'{t}'" in r for r in refs)}
    for env in envs.values():
        env.close()
    assert not failed, failed[:3]
    if env_id != "GuiGym-Settings-v0":  # Settings' oracle never uses its search field
        assert named, env_id
