"""A second interface language (``guigym.i18n``, the ``language`` variation axis): German screens
and instructions, the same tasks, references and rewards."""

from __future__ import annotations

import copy
import importlib.util
import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from guigym.i18n import LANGUAGES, check_language, content_strings
from guigym.i18n.de import INSTRUCTIONS, PHRASES, translate
from guigym.registration import env_ids, id_levels
from guigym.variation import AXES, NEUTRAL, PRESETS, grid, resolve
from tests.conftest import make

#: The ids whose family has German instructions (a family added later without them: see
#: test_families_without_german_are_clear_errors).
IDS = [i for i in env_ids() if gym.spec(i).kwargs.get("family", i.split("-")[1]) in INSTRUCTIONS]
ID_LEVELS = [(i, lv) for i, lv in id_levels() if i in IDS]
#: German alone: the other axes neutral (so what differs from English is the language only).
DE = {**NEUTRAL, "language": "de"}


def run(env: gym.Env, seed: int, limit: int = 250) -> tuple[bool, list[dict]]:
    """Follow the oracle from reset: (success, infos)."""
    _, info = env.reset(seed=seed)
    infos = [info]
    for _ in range(limit):
        if not info["reference"]:
            break
        _, _, term, trunc, info = env.step(info["reference"][0].action)
        infos.append(info)
        if term or trunc:
            break
    return bool(info["success"]), infos


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_the_oracle_solves_german_instances(env_id: str, level: str) -> None:
    env = make(env_id, level=level, variation=DE, split="test")
    fails = [s for s in range(100) if not run(env, s)[0]]
    env.close()
    assert not fails, (env_id, level, fails[:10])


@pytest.mark.parametrize("env_id", IDS)
def test_same_task_german_words_deterministic(env_id: str) -> None:
    """Same seed: the English instance's task (the same apps, task fields and steps; the content in
    German words, ``guigym.i18n.content``); the German instruction differs from the English one, the
    whole German scenario is the same on every reset of the seed, and what the oracle types the
    German instruction says wherever the English instruction says the English text."""
    en = make(env_id).unwrapped
    de, de2 = (make(env_id, variation=DE, split="test").unwrapped for _ in range(2))
    for level in en.family.levels:
        for seed in range(8):
            ie, idd, _ = (e.reset(seed=seed, options={"level": level})[1] for e in (en, de, de2))
            a, b = en.scenario, de.scenario
            assert [(n, s["kind"]) for n, s in a["apps"].items()] == [(n, s["kind"]) for n, s in b["apps"].items()]
            assert set(a["task"]) == set(b["task"])
            assert b["task"]["instruction"] != a["task"]["instruction"]
            assert de2.scenario == b
            typed_en = [r.action.text for r in ie["reference"] if type(r.action).__name__ == "Type"]
            typed_de = [r.action.text for r in idd["reference"] if type(r.action).__name__ == "Type"]
            assert len(typed_en) == len(typed_de), (env_id, level, seed)
            for t_en, t_de in zip(typed_en, typed_de):
                if t_en in a["task"]["instruction"]:
                    assert t_de in b["task"]["instruction"], (env_id, level, seed, t_de, b["task"]["instruction"])
            assert idd["variation"]["language"] == "de"


def test_login_screen_is_german_and_ids_unchanged() -> None:
    en, de = make("GuiGym-Login-v0"), make("GuiGym-Login-v0", variation=DE, split="test")
    _, ie = en.reset(seed=0)
    _, idd = de.reset(seed=0)
    assert [e["id"] for e in ie["elements"]] == [e["id"] for e in idd["elements"]]
    assert [e["box"] for e in ie["elements"]] == [e["box"] for e in idd["elements"]]
    labels = {e["id"]: e["label"] for e in idd["elements"]}
    for e in ie["elements"]:
        assert labels[e["id"]] == translate(e["label"])
    assert "Anmelden" in [translate(x) for x in ("Sign in", "Sign me in")]
    assert not {"Password", "Passcode", "Sign in", "Log in", "Username", "User name"} & set(labels.values())
    assert [r.target for r in ie["reference"]] == [r.target for r in idd["reference"]]


def test_known_words() -> None:
    assert translate("Sign in") == "Anmelden" and translate("Cancel") == "Abbrechen" and translate("Settings") == "Einstellungen"
    assert translate("3 selected") == "3 ausgewählt" and translate("Folder · 1 item") == "Ordner · 1 Element"
    assert translate("Tuesday, January 5, 2027") == "Dienstag, 5. Januar 2027" and translate("Wed, Jan 6") == "Mi, 6. Jan"
    assert translate("Grace Hill") == "Grace Hill"  # a name: not in the phrasebook, as it is
    assert translate("Archive") == "Archiv" and translate("Archive", "button") == "Archivieren"


def test_settings_screen_and_instruction_agree() -> None:
    """The instruction quotes a setting's label as the German screen shows it."""
    env = make("GuiGym-Settings-v0", variation=DE, split="test")
    for seed in range(10):
        env.reset(seed=seed)
        t = env.unwrapped.scenario["task"]["targets"][0]
        assert f"'{translate(t['label'])}'" in env.unwrapped.instruction
        success, infos = run(env, seed)
        shown = {e["label"] for i in infos for e in i["elements"]}
        assert success and translate(t["label"]) in shown and t["label"] not in shown - {translate(t["label"])}


@pytest.mark.parametrize("env_id", ["GuiGym-Files-v0", "GuiGym-Mail-v0", "GuiGym-Shop-v0", "GuiGym-Messages-v0"])
def test_content_shows_as_the_instance_made_it(env_id: str) -> None:
    """Names, file names, subjects and product names (the scenario's content, German where the
    family has German tables) show as they are along the reference: the phrasebook translates the
    UI around them, never them; ids and values are those of the screen without translation."""
    from guigym.apps.base import view

    env = make(env_id, level="medium", variation=DE, split="test")
    u = env.unwrapped
    for seed in range(3):
        _, info = env.reset(seed=seed)
        keep = content_strings(u.scenario)
        en = {**u.scenario, "variation": {**u.scenario["variation"], "language": "en"}}
        kept = 0
        for _ in range(60):
            for a, b in zip(view(en, u._state).widgets(), u.current_view.widgets()):
                assert a.id == b.id and a.value == b.value or a.kind == "label"
                if a.label in keep and a.kind != "icon":
                    assert b.label == a.label, (env_id, a.label, b.label)
                    kept += 1
            if not info["reference"]:
                break
            _, _, term, _, info = env.step(info["reference"][0].action)
            if term:
                break
        assert kept, env_id


def test_the_axis_is_opt_in_and_test_only() -> None:
    assert AXES["language"] == {"train": ("en",), "test": ("de",)} and NEUTRAL["language"] == "en"
    assert "language" not in PRESETS["all"] and PRESETS["language"] == ("language",)
    assert resolve("all", "test")["language"] == "en" and resolve({"theme": "orange"}, "test")["language"] == "en"
    assert resolve("language", "test")["language"] == "sample"
    assert ("language=de", {**NEUTRAL, "language": "de"}) in grid("test", opt_in=True)
    assert not any(name.startswith("language") for name, _ in grid("test"))  # the published grid stays as it was
    ten = {"Login", "Settings", "Launcher", "Contacts", "Messages", "Files", "Calendar", "Mail", "Phone", "Shop"}
    assert set(LANGUAGES) == {"en", "de"} and ten <= set(INSTRUCTIONS)
    env = make("GuiGym-Contacts-v0", variation="language", split="test")
    _, info = env.reset(seed=0)
    assert info["variation"]["language"] == "de"


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"variation": {"language": "fr"}, "split": "test"}, "unknown language 'fr'"),
        ({"variation": {"language": "zh"}}, "unknown language 'zh'"),
        ({"variation": {"language": "de"}}, "not a 'train' value"),
    ],
)
def test_bad_languages_are_clear_errors(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        gym.make("GuiGym-Login-v0", **kwargs)


def test_a_family_without_german_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(INSTRUCTIONS, "Shop")
    with pytest.raises(ValueError, match=r"not available for the Shop family: German instructions exist for \[.*'Login'"):
        gym.make("GuiGym-Shop-v0", variation=DE, split="test")
    with pytest.raises(ValueError, match="not available for the Shop family"):
        check_language("de", "Shop")


def test_families_without_german_are_clear_errors() -> None:
    for env_id in set(env_ids()) - set(IDS):
        with pytest.raises(ValueError, match="German instructions exist for"):
            gym.make(env_id, variation=DE, split="test")


def test_styles_in_german() -> None:
    env = make("GuiGym-Messages-v0", variation={**DE, "instruction_style": "buried"}, split="test")
    plain = make("GuiGym-Messages-v0", variation=DE, split="test")
    for seed in range(5):
        env.reset(seed=seed)
        plain.reset(seed=seed)
        i = env.unwrapped.instruction
        assert "Jedenfalls:" in i and "Anyway" not in i
        for q in re.findall(r"\"[^\"]+\"", plain.unwrapped.instruction):
            assert q in i


def test_german_snapshot_round_trip() -> None:
    env = make("GuiGym-Calendar-v0", level="medium", variation=DE, split="test").unwrapped
    obs, _ = env.reset(seed=2)
    snap = env.get_state()
    other = make("GuiGym-Calendar-v0", level="medium").unwrapped
    other.reset(seed=0)
    other.set_state(snap)
    assert np.array_equal(other.observe()["screenshot"], obs["screenshot"]) and other.instruction == env.instruction


def _coverage_script():
    """``scripts/i18n_coverage.py`` (a script, not a package) as a module."""
    spec = importlib.util.spec_from_file_location("i18n_coverage", Path(__file__).resolve().parents[1] / "scripts" / "i18n_coverage.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("env_id", IDS)
def test_no_ui_string_left_english(env_id: str) -> None:
    """Along the reference, in both settings of ``scripts/i18n_coverage.py`` (the preset and the
    German test split with every other axis drawn: the permission prompt, long descriptions,
    pop-ups, banners), every string a German screen shows is translated, content or a proper
    name: none is UI left English (the script's categories)."""
    kinds, gaps = _coverage_script().coverage(env_id, 3)
    assert not kinds["ui_en"], (env_id, gaps.most_common(10))
    assert kinds["translated"]
    if env_id not in ("GuiGym-Login-v0", "GuiGym-Settings-v0"):  # the families with content: some of it German
        assert kinds["content_de"], env_id


@pytest.mark.parametrize("env_id", ["GuiGym-Messages-v0", "GuiGym-Phone-v0", "GuiGym-Mail-v0", "GuiGym-CrossApp-v0"])
def test_the_contacts_permission_is_german(env_id: str) -> None:
    """Every screen of the contacts permission (``guigym.apps.permission``), not only those the
    reference visits: the prompt, the app's settings with its Contacts switch (German even where
    the Contacts app keeps its name), the first screen's link, and the picker's note after a denial."""
    from guigym.apps.base import app_of, view
    from guigym.apps.permission import APP_SETTINGS, PERM, ContactsGate

    cov = _coverage_script()
    env = make(env_id, level="medium", variation={**DE, "permission": "on_feature"}, split="test")
    u = env.unwrapped
    for seed in range(3):
        env.reset(seed=seed)
        en = {**u.scenario, "variation": {**u.scenario["variation"], "language": "en"}}
        keep = content_strings(u.scenario)
        for app in u.family.permission_apps:
            kind, spec = app_of(u.scenario, app)
            assert isinstance(kind, ContactsGate) and spec["permission"] == "on_feature"
            for screen in ("main", PERM, APP_SETTINGS):
                st = copy.deepcopy(u._state)
                st["fg"], st["apps"][app]["stack"] = app, ["main"] if screen == "main" else ["main", screen]
                v_en, v_de = view(en, st), view(u.scenario, st)
                assert v_en.title != v_de.title or screen == "main"
                pairs = list(zip(cov.strings(v_en), cov.strings(v_de)))
                left = [a for a, b in pairs if cov.kind_of(a, b, keep) == "ui_en"]
                assert not left, (env_id, seed, screen, left)
                assert ("Permissions", "Berechtigungen") in pairs or screen == PERM
                if screen == APP_SETTINGS:
                    assert ("Contacts", "Kontakte") in pairs
            for w in kind.blocked_rows(spec, "picker"):
                assert translate(w.label) != w.label and app in translate(w.label)
    env.close()


def test_phrasebook_is_clean() -> None:
    assert all(isinstance(k, str) and isinstance(v, str) and k.strip() == k and v for k, v in PHRASES.items())


@pytest.mark.browser
def test_browser_and_mock_agree_on_german_screens() -> None:
    """The reference replayed in the browser: the same events, states and success as the mock,
    German labels in both, and the screens drawn alike (parity thresholds)."""
    from guigym.backends.browser import BrowserBackend
    from guigym.backends.mock import MockBackend
    from guigym.layout import layout
    from tests.test_render_parity import H, W, compare, fails

    m, b = MockBackend(W, H), BrowserBackend(W, H)
    try:
        for env_id, level in (
            ("GuiGym-Login-v0", "hard"),
            ("GuiGym-Settings-v0", "medium"),
            ("GuiGym-Calendar-v0", "easy"),
            ("GuiGym-Shop-v0", "medium"),
            ("GuiGym-Mail-v0", "medium"),  # tabs too narrow for "Posteingang": drawn shortened by both
        ):
            mock = make(env_id, level=level, variation=DE, split="test")
            br = make(env_id, level=level, variation=DE, split="test", backend="browser")
            try:
                _, im = mock.reset(seed=1)
                _, ib = br.reset(seed=1)
                for _ in range(40):
                    assert [(e["id"], e["label"]) for e in im["elements"]] == [(e["id"], e["label"]) for e in ib["elements"]]
                    v = br.unwrapped.current_view
                    r = compare(m, b, v, layout(v, W, H))
                    assert not fails(r), (env_id, fails(r))
                    if not im["reference"]:
                        break
                    act = im["reference"][0].action
                    _, _, tm, _, im = mock.step(act)
                    _, _, tb, _, ib = br.step(act)
                    assert im["event"] == ib["event"] and mock.unwrapped.get_state()["state"] == br.unwrapped.get_state()["state"]
                    if tm or tb:
                        break
                assert im["success"] and ib["success"], env_id
            finally:
                mock.close()
                br.close()
    finally:
        b.close()
        m.close()


def test_formal_style_does_not_mix_sie_with_the_du_imperative() -> None:
    """The German instructions are du-imperatives ("Sende ..."): the formal style framed them with
    "Würden Sie bitte Folgendes erledigen:", mixing the polite form with the familiar one."""
    from guigym.i18n.de import FORMAL, FORMAL_Q, restyle

    assert not any(re.search(r"\b(Sie|Ihnen|Ihr)\b", t) for t in FORMAL + FORMAL_Q)
    env = make("GuiGym-Messages-v0", variation={**DE, "instruction_style": "formal"}, split="test")
    for seed in range(12):
        env.reset(seed=seed)
        assert not re.search(r"\b(Sie|Ihnen)\b", env.unwrapped.instruction), env.unwrapped.instruction
    framed = [t.format(i="sende X", I="Sende X", l="", w="", r="") for t in FORMAL]  # no place, one sentence
    assert restyle("Sende X.", "formal", np.random.default_rng(1)) in {f[:1].upper() + f[1:] for f in framed}


def test_files_name_clash_message_is_german() -> None:
    assert translate("bericht.pdf already exists here") == "bericht.pdf gibt es hier schon"
