"""German content (``guigym.i18n.content``): the families draw their names and texts from German
tables of the English ones' shape, so a German instance is the English task, with the same steps
(German names sort elsewhere: the scrolls and the order of a list's rows may differ), in German words."""

from __future__ import annotations

import importlib
import pkgutil
import threading

import numpy as np
import pytest

import guigym.i18n.de_content as de_content
from guigym.apps import FAMILIES
from guigym.apps.draws import Draws
from guigym.i18n import content_strings
from guigym.i18n.content import check_module, generating_in, language, shape_problems, tables
from guigym.variation import NEUTRAL
from tests.test_language import ID_LEVELS, make

DE = {**NEUTRAL, "language": "de"}
#: The modules with German tables (``guigym.i18n.de_content.<name>`` translates ``guigym.apps.<name>``
#: or ``guigym.<name>``).
TRANSLATED = sorted(m.name for m in pkgutil.iter_modules(de_content.__path__))


def source(name: str) -> str:
    """The module whose tables ``guigym.i18n.de_content.<name>`` translates."""
    for full in (f"guigym.apps.{name}", f"guigym.{name}"):
        try:
            importlib.import_module(full)
            return full
        except ModuleNotFoundError:
            continue
    raise AssertionError(f"guigym.i18n.de_content.{name} translates no module of guigym")


@pytest.mark.parametrize("name", TRANSLATED)
def test_german_tables_have_the_english_shape(name: str) -> None:
    assert check_module(source(name), "de") == []


def test_shape_problems_find_what_would_move_the_draws() -> None:
    assert shape_problems(("a", "b"), ("x", "y"), "T") == []
    assert shape_problems(("a", "b"), ("x",), "T")  # one entry fewer: another draw
    assert shape_problems(("Meet {name}",), ("Treffen",), "T")  # a field lost: format() drops the name
    assert shape_problems((("x", "topic"),), (("y",),), "T")
    assert shape_problems({"a": 1}, {"b": 1, "c": 2}, "T")


def test_tables_are_the_module_in_english_and_german_inside_the_block() -> None:
    import guigym.apps.files as files

    assert language() == "en" and tables(files.__name__) is files
    with generating_in("de"):
        assert language() == "de"
        t = tables(files.__name__)
        assert t.STEMS != files.STEMS and len(t.STEMS) == len(files.STEMS) and t.EXTS == files.EXTS
    assert language() == "en" and tables(files.__name__) is files
    with pytest.raises(ValueError, match="no content tables"):
        with generating_in("xx"):
            pass


def test_the_language_is_the_generating_threads_own() -> None:
    """A browser env on a worker thread generates German while another thread generates English."""
    seen: dict[str, str] = {}
    inside, done = threading.Event(), threading.Event()

    def german() -> None:
        with generating_in("de"):
            inside.set()
            done.wait(5)
            seen["de"] = language()

    t = threading.Thread(target=german)
    t.start()
    inside.wait(5)
    seen["en"] = language()
    done.set()
    t.join()
    assert seen == {"en": "en", "de": "de"}


def _reset(env, seed: int, level: str, lang: str):
    env.unwrapped.content_language = lang
    try:
        return env.reset(seed=seed, options={"level": level})[1]
    finally:
        env.unwrapped.content_language = "de"


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_german_content_is_the_english_task_step_for_step(env_id: str, level: str) -> None:
    """The same German env and seed, its content made in English and then in German: the same
    reference but for scrolls and the order of a list's rows (the same steps: kinds of action,
    targets) and the same task fields; where the family's module has German tables, German
    content the English instance does not show."""
    env = make(env_id, variation=DE, split="test")
    module = type(env.unwrapped.family).__module__.rsplit(".", 1)[-1]
    new: set[str] = set()
    for seed in range(12):
        en, de = (_reset(env, seed, level, lang) for lang in ("en", "de"))
        # German names sort elsewhere in a list: the scrolls to reach a row may differ, and the order
        # rows of a list are picked in, not the steps
        a, b = (sorted((type(r.action).__name__, str(r.target)) for r in i["reference"] if type(r.action).__name__ != "Scroll")
                for i in (en, de))
        assert a == b, (env_id, level, seed)
        s_de = env.unwrapped.scenario
        assert set(s_de["task"]) >= {"instruction"}
        _reset(env, seed, level, "en")
        s_en = env.unwrapped.scenario
        assert set(s_en["task"]) == set(s_de["task"])
        _reset(env, seed, level, "de")
        new |= set(content_strings(env.unwrapped.scenario)) - set(content_strings(s_en))
    env.close()
    if module in TRANSLATED:
        assert new, f"{env_id} {level}: no German content in 12 seeds"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_german_generation_is_deterministic_and_leaves_the_stream_where_english_does(family: str) -> None:
    fam = FAMILIES[family]
    for level in fam.levels:
        for seed in range(5):
            ends = []
            for lang in ("de", "de", "en"):
                g = np.random.default_rng(seed)
                with Draws(g) as rng, generating_in(lang):
                    sc = fam.instance(rng, level)
                ends.append((g.bit_generator.state, sc if lang == "de" else None))
            assert ends[0] == ends[1]  # German: the same scenario on every run of the seed
            assert ends[0][0] == ends[2][0]  # and the same draws as the English one


def test_the_browser_types_german_content() -> None:
    """German content puts umlauts and ß in what the agent types ("Zedernstraße 833"): the real
    Chromium's keyboard types them into the page's fields, and the episode ends as the mock's."""
    from guigym.actions import Type

    mock = make("GuiGym-Shop-v0", level="hard", variation=DE, split="test")
    seed = next(s for s in range(40) if any(isinstance(r.action, Type) and not r.action.text.isascii()
                                            for r in mock.reset(seed=s)[1]["reference"]))
    br = make("GuiGym-Shop-v0", level="hard", variation=DE, split="test", backend="browser")
    try:
        _, im = mock.reset(seed=seed)
        _, ib = br.reset(seed=seed)
        typed = []
        for _ in range(150):
            if not im["reference"]:
                break
            act = im["reference"][0].action
            typed += [act.text] if isinstance(act, Type) else []
            _, _, tm, _, im = mock.step(act)
            _, _, tb, _, ib = br.step(act)
            assert mock.unwrapped.get_state()["state"] == br.unwrapped.get_state()["state"]
            if tm or tb:
                break
        assert im["success"] and ib["success"] and any(not t.isascii() for t in typed), typed
    finally:
        mock.close()
        br.close()


def test_an_english_env_generates_english_inside_a_german_block() -> None:
    """The env sets the generating language on every reset: an English env reset inside someone
    else's ``generating_in("de")`` (a German env's generator on the same thread) draws English."""
    env = make("GuiGym-Files-v0")
    env.reset(seed=3)
    plain = env.unwrapped.scenario
    with generating_in("de"):
        env.reset(seed=3)
    assert env.unwrapped.scenario == plain
    env.close()
