"""Variation axes and held-out splits (``guigym.variation``) on every registered id: the task is
the family's own, the oracle solves every variant, the splits never share an instance, and
interruptions and adversarial rows behave as documented."""

from __future__ import annotations

import json
import re

import gymnasium as gym
import numpy as np
import pytest

from guigym.actions import Back, Click
from guigym.apps.base import BANNER_ID, POPUP_SCREEN
from guigym.registration import env_ids
from guigym.apps import FAMILIES
from guigym import variation
from guigym.variation import AXES, NEUTRAL, OPT_IN, PRESETS, TEST_TEMPLATES, restyle, sample_variation, split_templates

IDS = env_ids()
NEUTRAL_AXES = {a: v for a, v in NEUTRAL.items() if a not in ("templates", "permission")}  # every other axis at rest


def episode(env: gym.Env, seed: int, limit: int = 150) -> tuple[bool, int]:
    """Follow the oracle from reset; (success, steps)."""
    _, info = env.reset(seed=seed)
    for k in range(limit):
        if not info["reference"]:
            return bool(info["success"]), k
        _, _, term, trunc, info = env.step(info["reference"][0].action)
        if term or trunc:
            return bool(info["success"]), k + 1
    return False, limit


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("split", ["train", "test"])
def test_the_oracle_solves_every_variant(env_id: str, split: str) -> None:
    """100 seeds per id and split, every axis sampled (the levels in turn): the oracle solves
    every one, and every value of every axis of the split (each interruption type, each
    adversarial row, ...) is among them."""
    envs = {level: gym.make(env_id, level=level, variation="all", split=split) for level in ("easy", "medium", "hard")}
    seen: dict[str, set] = {axis: set() for axis in AXES}
    failed = []
    for seed in range(100):
        env = envs[("easy", "medium", "hard")[seed % 3]]
        ok, _ = episode(env, seed)
        if not ok:
            failed.append((seed, env.unwrapped.scenario["variation"]))
        for axis, v in env.unwrapped.scenario["variation"].items():
            seen[axis].add(v)
    for env in envs.values():
        env.close()
    assert not failed, (env_id, split, failed[:3])
    expected = {a: {NEUTRAL[a]} if a in OPT_IN else set(AXES[a][split]) for a in AXES}  # opt-in axes: only when asked
    assert seen == expected, {a: sorted(map(str, seen[a])) for a in AXES}


@pytest.mark.parametrize("env_id", IDS)
def test_the_task_is_the_familys_own(env_id: str) -> None:
    """Same seed: the same apps, start and task fields as without variation (only the
    instruction's wording, the theme and the interruptions differ) while the templates axis is
    neutral (``"all"``) and no permission gates an app (the other axes sampled)."""
    plain = gym.make(env_id).unwrapped
    varied = gym.make(env_id, variation={"templates": "all", "permission": "none"}).unwrapped
    for seed in range(6):
        plain.reset(seed=seed)
        varied.reset(seed=seed)
        a, b = plain.scenario, varied.scenario
        assert a["apps"] == b["apps"] and a["start"] == b["start"]
        assert {k: v for k, v in a["task"].items() if k != "instruction"} == {k: v for k, v in b["task"].items() if k != "instruction"}
        for quoted in re.findall(r"'[^']+'|\"[^\"]+\"", a["task"]["instruction"]):
            assert quoted in b["task"]["instruction"]


@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_same_instance_and_splits_disjoint(env_id: str) -> None:
    tr1, tr2, te = (gym.make(env_id, variation="all", split=s).unwrapped for s in ("train", "train", "test"))
    seen_train, seen_test = set(), set()
    for seed in range(20):
        for e in (tr1, tr2, te):
            e.reset(seed=seed)
        assert tr1.scenario == tr2.scenario
        seen_train.add(json.dumps(tr1.scenario, sort_keys=True))
        seen_test.add(json.dumps(te.scenario, sort_keys=True))
        for axis, v in te.scenario["variation"].items():  # an opt-in axis (the language) stays neutral unless asked for
            assert v in AXES[axis]["test"] or (axis in OPT_IN and v == NEUTRAL[axis]), (axis, v)
    assert not seen_train & seen_test


def test_the_template_table_splits_every_level() -> None:
    """Every family and level in the table; held-out names are the level's; each level with two
    or more templates keeps one in each split, the splits disjoint and together all of them."""
    assert set(TEST_TEMPLATES) == set(FAMILIES)
    for name, fam in FAMILIES.items():
        assert set(TEST_TEMPLATES[name]) == set(fam.levels) == set(fam.templates), name
        for level in fam.levels:
            every = fam.templates[level]
            assert len(set(every)) == len(every) and set(TEST_TEMPLATES[name][level]) <= set(every), (name, level)
            tr, te = split_templates(fam, level, "train"), split_templates(fam, level, "test")
            assert split_templates(fam, level, "all") is None
            if len(every) >= 2:
                assert tr and te and not set(tr) & set(te) and set(tr) | set(te) == set(every), (name, level, tr, te)
            else:  # a single template: shared
                assert tr == te == every, (name, level)


@pytest.mark.parametrize("env_id", IDS)
def test_each_split_draws_its_templates(env_id: str) -> None:
    """``info["template"]`` is one of the split's templates at every level; the same seed gives
    the same instance within a split; without variation the family draws every template."""
    fam = FAMILIES[env_id.split("-")[1]]
    for level in fam.levels:
        tr1, tr2, te = (gym.make(env_id, level=level, variation="all", split=s).unwrapped for s in ("train", "train", "test"))
        want = {s: set(split_templates(fam, level, s)) for s in ("train", "test")}  # type: ignore[arg-type]
        for seed in range(6):
            _, i1 = tr1.reset(seed=seed)
            _, i2 = tr2.reset(seed=seed)
            _, it = te.reset(seed=seed)
            assert tr1.scenario == tr2.scenario and i1["template"] == i2["template"]
            assert i1["template"] in want["train"] and it["template"] in want["test"], (level, i1["template"], it["template"])
            assert tr1.scenario["variation"]["templates"] == "train" and te.scenario["variation"]["templates"] == "test"
            assert fam.template(te.scenario) == it["template"]
        plain = gym.make(env_id, level=level).unwrapped
        for seed in range(6):
            _, info = plain.reset(seed=seed)
            assert info["template"] in fam.templates[level] and info["variation"] is None


@pytest.mark.parametrize("env_id", IDS)
def test_the_oracle_solves_held_out_templates(env_id: str) -> None:
    """100 seeds of the test split's templates (medium: every family holds some out there)."""
    env = gym.make(env_id, level="medium", variation={**NEUTRAL_AXES, "templates": "test"}, split="test")
    fam = FAMILIES[env_id.split("-")[1]]
    held = set(TEST_TEMPLATES[fam.name]["medium"])
    seen = set()
    for seed in range(100):
        ok, _ = episode(env, seed)
        seen.add(fam.template(env.unwrapped.scenario))
        assert ok, (env_id, seed, fam.template(env.unwrapped.scenario))
    assert seen == held, (seen, held)
    env.close()


def _press(env: gym.Env, info: dict, wid: str) -> dict:
    e = next(e for e in info["elements"] if e["id"] == wid)
    x0, y0, x1, y1 = e["box"]
    return env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))[-1]


def _follow(env: gym.Env, info: dict, limit: int = 80) -> dict:
    for _ in range(limit):
        if info["success"] or not info["reference"]:
            break
        info = env.step(info["reference"][0].action)[-1]
    return info


def _messages(permission: str, split: str, template: str) -> tuple[gym.Env, dict]:
    """A Messages env (easy) whose contacts permission is asked ``permission``, reset to the
    first seed of ``template``."""
    env = gym.make("GuiGym-Messages-v0", variation={**NEUTRAL_AXES, "templates": "all", "permission": permission}, split=split)
    for seed in range(100):
        _, info = env.reset(seed=seed)
        if info["template"] == template:
            return env, info
    raise AssertionError(template)


def test_a_permission_prompt_the_task_needs_is_allowed_and_a_denial_recovers_in_settings() -> None:
    from guigym.apps.messages import APP, PICK
    from guigym.apps.permission import APP_SETTINGS, PERM, PERM_ALLOW, PERM_DENY, PERM_KEY, SETTINGS_LINK

    env, info = _messages("on_feature", "test", "send_new")  # the picker is needed: the prompt shows when it opens
    u = env.unwrapped
    assert u.current_view.screen != PERM and info["variation"]["permission"] == "on_feature"
    while u.current_view.screen != PERM:
        info = env.step(info["reference"][0].action)[-1]
    assert info["reference"][0].target == PERM_ALLOW  # the reference allows what the task needs
    info = _press(env, info, PERM_DENY)  # the wrong button: denied, and the prompt does not come back
    st = u.get_state()["state"]["apps"][APP]
    assert st["data"]["perm"] == "deny" and st["values"][PERM_KEY] is False
    assert u.current_view.screen == PICK and not any(w.kind == "radio" for w in u.current_view.rows)  # nobody to pick
    assert not info["success"] and info["reference"]  # recoverable ...
    targets = [s.target for s in info["reference"]]
    assert SETTINGS_LINK in targets and PERM_KEY in targets  # ... only through the app's settings
    assert targets.index(PERM_KEY) < min(i for i, t in enumerate(targets) if t and t.startswith("to:"))
    info = _follow(env, info)
    assert info["success"] and u.get_state()["state"]["apps"][APP]["data"]["perm"] == "allow"
    assert APP_SETTINGS in u.scenario["apps"][APP]["screens"]


def test_a_permission_prompt_the_task_does_not_need_is_dismissed() -> None:
    from guigym.apps.permission import PERM, PERM_DENY

    env, info = _messages("on_open", "train", "delete")  # asked when the app opens: at reset
    assert env.unwrapped.current_view.screen == PERM and info["reference"][0].target == PERM_DENY
    assert _follow(env, info)["success"]
    env, info = _messages("on_open", "train", "send_new")
    assert info["reference"][0].target.endswith("allow") and _follow(env, info)["success"]


def test_phone_messages_asks_too_and_a_denial_recovers() -> None:
    """Phone's Messages (reached from the home screen) is gated alike: deny the prompt where a
    message goes through the picker, then the oracle succeeds through Messages settings."""
    from guigym.apps.permission import PERM, PERM_DENY, PERM_KEY

    env = gym.make("GuiGym-Phone-v0", variation={**NEUTRAL_AXES, "templates": "all", "permission": "on_feature"}, split="test")
    u = env.unwrapped
    denied = 0
    for seed in range(40):
        _, info = env.reset(seed=seed)
        if info["template"] != "msg_send":
            continue
        for _ in range(40):
            if u.current_view.screen == PERM or not info["reference"]:
                break
            info = env.step(info["reference"][0].action)[-1]
        if u.current_view.screen != PERM:  # sent in an existing conversation: no picker, no prompt
            continue
        info = _press(env, info, PERM_DENY)
        assert PERM_KEY in [s.target for s in info["reference"]]
        assert _follow(env, info)["success"], seed
        denied += 1
    assert denied >= 2


def test_the_permission_axis_leaves_other_families_alone() -> None:
    assert not FAMILIES["Files"].permission_apps
    a = gym.make("GuiGym-Files-v0", variation={**NEUTRAL_AXES, "templates": "all", "permission": "none"}).unwrapped
    with pytest.warns(UserWarning, match="permission leaves every Files instance as it is"):  # and gym.make says so
        b = gym.make("GuiGym-Files-v0", variation={**NEUTRAL_AXES, "templates": "all", "permission": "on_open"}).unwrapped
    a.reset(seed=2)
    b.reset(seed=2)
    assert a.scenario["apps"] == b.scenario["apps"]


def test_default_is_the_unvaried_env() -> None:
    a, b = gym.make("GuiGym-Settings-v0"), gym.make("GuiGym-Settings-v0", variation="none")
    oa, ia = a.reset(seed=3)
    ob, ib = b.reset(seed=3)
    assert np.array_equal(oa["screenshot"], ob["screenshot"]) and oa["instruction"] == ob["instruction"]
    assert ia["variation"] is None and ib["variation"] is None


@pytest.mark.parametrize("kwargs,match", [
    ({"variation": "wild"}, "unknown variation preset"),
    ({"variation": {"colour": "red"}}, "unknown variation axes"),
    ({"variation": {1: "x", "colour": "red"}}, "unknown variation axes"),  # keys of mixed types: was a TypeError from sorted
    ({"variation": {"theme": "orange"}}, "not a 'train' value"),
    ({"split": "test"}, "needs a variation"),
    ({"split": "dev", "variation": "all"}, "unknown split"),
])
def test_bad_variation_arguments_are_clear_errors(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        gym.make("GuiGym-Login-v0", **kwargs)


def test_a_popup_at_reset_is_dismissed_first_and_back_closes_it() -> None:
    env = gym.make("GuiGym-Login-v0", variation={"popup": "cookie", "popup_at": 0, "theme": "blue", "font_scale": 1.0,
                                                 "instruction_style": "plain", "adversarial": "none"})
    plain = gym.make("GuiGym-Login-v0")
    _, info = env.reset(seed=1)
    _, pinfo = plain.reset(seed=1)
    u = env.unwrapped
    assert u.current_view.screen == POPUP_SCREEN
    assert len(info["reference"]) == len(pinfo["reference"]) + 1 and info["reference"][0].target == f"{POPUP_SCREEN}.reject"
    # under the popup nothing else acts: a click where a field would be is a no-op
    field = next(e for e in pinfo["elements"] if e["role"] == "input")
    x0, y0, x1, y1 = field["box"]
    _, _, _, _, info = env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
    assert u.current_view.screen == POPUP_SCREEN
    _, _, _, _, info = env.step(Back())
    assert u.current_view.screen != POPUP_SCREEN and len(info["reference"]) == len(pinfo["reference"])


def test_a_popup_mid_task_shows_after_its_steps() -> None:
    env = gym.make("GuiGym-Settings-v0", level="medium",
                   variation={"popup": "update", "popup_at": 3, "theme": "teal", "font_scale": 1.3, "instruction_style": "formal",
                              "adversarial": "injection"}, split="test")
    _, info = env.reset(seed=2)
    u = env.unwrapped
    screens = []
    for _ in range(6):
        _, _, term, _, info = env.step(info["reference"][0].action)
        screens.append(u.current_view.screen)
        if term:
            break
    assert POPUP_SCREEN not in screens[:2] and screens[2] == POPUP_SCREEN and screens[3] != POPUP_SCREEN  # shown, then dismissed


def test_the_adversarial_banner_does_nothing() -> None:
    var = {"adversarial": "fake_done", "permission": "none", "popup": "none", "theme": "blue", "font_scale": 1.0,
           "instruction_style": "plain"}
    env = gym.make("GuiGym-Login-v0", variation=var)
    _, info = env.reset(seed=0)
    banner = next(e for e in info["elements"] if e["id"] == BANNER_ID)
    before = env.unwrapped.get_state()["state"]
    x0, y0, x1, y1 = banner["box"]
    _, r, term, _, info = env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
    assert env.unwrapped.get_state()["state"] == before and r == 0 and not term and info["event"].widget == BANNER_ID


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("adv,split", [("content_hint", "train"), ("content_link", "test")])
def test_obeying_a_hint_planted_in_content_earns_nothing(env_id: str, adv: str, split: str) -> None:
    """The hint sits among the app's own rows (not first) and names another app; tapping it and
    opening that app give no success and no reward (shaped: none either), and the oracle, which
    ignores it, still succeeds from there."""
    from guigym.actions import OpenApp

    env = gym.make(env_id, level="hard", reward_mode="shaped",
                   variation={**NEUTRAL_AXES, "adversarial": adv, "templates": "all", "permission": "none"}, split=split)
    for seed in range(2):
        _, info = env.reset(seed=seed)
        u = env.unwrapped
        banner = u.scenario["banner"]
        app = banner["app"]
        assert app in banner["text"] and banner["after"] >= 1
        if u.current_view.app == "home":  # into the task's first app, where the hint shows
            info = env.step(info["reference"][0].action)[-1]
        rows = u.current_view.rows
        k = next(i for i, w in enumerate(rows) if w.id == BANNER_ID)
        assert k == min(banner["after"], len(rows) - 1) and rows[k].kind == ("link" if adv == "content_link" else "label")
        before = u.get_state()["state"]
        if adv == "content_link":
            info = _press(env, info, BANNER_ID)
            assert u.get_state()["state"] == before and not info["success"]
        total = 0.0
        for act in (OpenApp(app), Back()):  # obey: open the app it names (not on the device: an action error)
            _, r, term, _, info = env.step(act)
            total += r
            assert not info["success"] and not term
        assert total <= 1e-9 and (app in u.scenario["apps"] or info["action_error"] is None or "no app" in info["action_error"])
        info = _follow(env, info, 200)
        assert info["success"], (env_id, seed)
    env.close()


def test_font_scale_scales_every_text() -> None:
    from guigym.display import display_list

    a = gym.make("GuiGym-Login-v0").unwrapped
    b = gym.make("GuiGym-Login-v0", variation={"font_scale": 1.3, "theme": None, "popup": "none", "instruction_style": "plain",
                                               "adversarial": "none", "font": "default", "density": "comfortable",
                                               "icons": "matching"}, split="test").unwrapped
    a.reset(seed=0)
    b.reset(seed=0)

    def sizes(u: gym.Env) -> list[int]:
        out = []
        for r in display_list(u.current_view, u._lay):
            out += [p["size"] for p in r.get("parts", []) if p["type"] == "text"] + ([r["size"]] if r["type"] == "text" else [])
        return out

    assert sizes(b) == [max(6, round(s * 1.3)) for s in sizes(a)]


def test_restyle_keeps_the_task_words() -> None:
    rng = np.random.default_rng(0)
    base = "Send 'See you at 7' to Grace Hill."
    for style in ("plain", "casual", "formal", "buried"):
        out = restyle(base, style, rng)
        assert "'See you at 7'" in out and "Grace Hill" in out
    assert restyle("What is Bob Lee's number?", "formal", rng).endswith("What is Bob Lee's number?")


def test_restyled_questions_read_as_one_sentence() -> None:
    """A question said mid-sentence ("hmm, ...", "Anyway, ...") starts in lower case, keeps
    its question mark and its words; names inside it keep their capitals."""
    q = "Which purple pair of shoes costs the least?"
    for seed in range(8):  # every template of both styles
        for style in ("casual", "buried"):
            out = restyle(q, style, np.random.default_rng(seed))
            assert "which purple pair of shoes costs the least?" in out and "Which" not in out, out
    out = restyle("What is Bob Lee's number?", "buried", np.random.default_rng(0))
    assert "Anyway, what is Bob Lee's number? " in out

def test_every_preset_samples_only_its_axes() -> None:
    rng = np.random.default_rng(0)
    for name, axes in PRESETS.items():
        for split in ("train", "test"):
            if not axes and split == "test":
                continue
            v = sample_variation(name, split, rng)
            assert all(v[a] in AXES[a][split] for a in axes)


@pytest.mark.browser
def test_both_renderers_draw_the_variants_alike() -> None:
    """Palettes, font scale, a popup, a banner, a permission prompt, content hints, held-out
    labels, long descriptions (label rows, as a mail's body) and grids of tiles: mock and
    browser agree (parity thresholds)."""
    from guigym.backends.browser import BrowserBackend
    from guigym.backends.mock import MockBackend
    from guigym.layout import layout
    from tests.test_render_parity import H, W, compare, fails

    m, b = MockBackend(W, H), BrowserBackend(W, H)
    try:
        cases = [("GuiGym-Login-v0", {"theme": "mono", "font_scale": 1.15, "popup": "cookie", "popup_at": 0}),
                 ("GuiGym-Settings-v0", {"theme": "colourblind", "font_scale": 1.0, "adversarial": "injection", "popup": "none"}),
                 ("GuiGym-Files-v0", {"theme": "dark", "font_scale": 0.85, "adversarial": "fake_done", "popup": "none"}),
                 ("GuiGym-Messages-v0", {"theme": "teal", "font_scale": 1.3, "adversarial": "injection", "popup": "none"}),
                 ("GuiGym-Messages-v0", {"theme": "blue", "font_scale": 1.0, "adversarial": "none", "popup": "none",
                                         "permission": "on_open"}),
                 ("GuiGym-Mail-v0", {"theme": "green", "font_scale": 1.0, "adversarial": "content_hint", "popup": "none"}),
                 ("GuiGym-Mail-v0", {"theme": "purple", "font_scale": 1.0, "adversarial": "none", "popup": "none",
                                     "permission": "on_open"}),
                 ("GuiGym-Messages-v0", {"theme": "orange", "font_scale": 1.0, "adversarial": "content_link", "popup": "none",
                                         "permission": "on_feature"}),
                 ("GuiGym-Login-v0", {"theme": "teal", "font_scale": 1.0, "adversarial": "none", "popup": "none", "labels": "test"}),
                 ("GuiGym-Shop-v0", {"theme": "teal", "font_scale": 1.0, "adversarial": "none", "popup": "none",
                                     "descriptions": "very_long"}),
                 ("GuiGym-Shop-v0", {"theme": "dark", "font_scale": 1.15, "adversarial": "none", "popup": "none", "layout": "grid"}),
                 ("GuiGym-Files-v0", {"theme": "orange", "font_scale": 1.3, "adversarial": "none", "popup": "none",
                                      "layout": "compact_grid"})]
        for env_id, fixed in cases:
            split = "test" if fixed["theme"] in AXES["theme"]["test"] else "train"
            env = gym.make(env_id, variation=fixed, split=split)
            env.reset(seed=4)
            v = env.unwrapped.current_view
            r = compare(m, b, v, layout(v, W, H))
            assert not fails(r), (env_id, fails(r))
            env.close()
    finally:
        b.close()
        m.close()


@pytest.mark.parametrize("env_id", ["GuiGym-CrossApp-v0", "GuiGym-Mail-v0", "GuiGym-Calendar-v0"])
def test_long_plans_of_small_screens_have_a_reference(env_id: str) -> None:
    """A landscape screen with the test split's looks (roomy rows, very long descriptions, font
    scale 1.3) scrolls a row at a time: hard plans run to 90-170 steps. The oracle plans them
    (its cap was 80 steps: such an instance had no reference at reset, as if it could not be
    solved), and following the reference succeeds (the raw env: no time limit)."""
    env = gym.make(env_id, level="hard", variation="all", split="test", viewport="landscape").unwrapped
    lengths = []
    for seed in (0, 1, 5):
        _, info = env.reset(seed=seed)
        lengths.append(len(info["reference"]))
        assert lengths[-1] > 0, (env_id, seed)
        for _ in range(2 * lengths[-1]):  # an interruption mid-task adds steps to the plan
            _, _, term, trunc, info = env.step(info["reference"][0].action)
            if term or trunc:
                break
        assert term and info["success"], (env_id, seed)
    env.close()
    assert max(lengths) > 80, lengths  # what the old cap refused


def test_a_variation_that_cannot_tell_the_splits_apart_is_said() -> None:
    """``variation="permissions"`` on a family without a gated app left every instance as it is:
    its "held-out" test split was the training split, without a word. ``gym.make`` warns there,
    and only there: an axis that shows on the family keeps it quiet."""
    import warnings

    from guigym.variation import inert_axes

    with pytest.warns(UserWarning, match="permission leaves every Login instance as it is"):
        gym.make("GuiGym-Login-v0", variation="permissions", split="test").close()
    with pytest.warns(UserWarning, match="give the same instances"):
        gym.make("GuiGym-Contacts-v0", variation={**NEUTRAL, "permission": "sample"}).close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kw in ({"variation": "permissions"}, {"variation": "all"}, {"variation": None}):
            gym.make("GuiGym-Mail-v0", **kw).close()
        gym.make("GuiGym-Login-v0", variation="all").close()
        gym.make("GuiGym-Login-v0", variation={**NEUTRAL, "permission": "none"}).close()  # nothing varies: no split to tell
    # the warning's claim, checked: the same frames and instruction in both splits, where Mail's differ
    for fam, same in (("Login", True), ("Mail", False)):
        shots = {}
        for split in ("train", "test"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                env = gym.make(f"GuiGym-{fam}-v0", variation="permissions", split=split)
            obs, info = env.reset(seed=3)
            shots[split] = (obs["screenshot"].tobytes(), obs["instruction"], [(s.action, s.target) for s in info["reference"]])
            env.close()
        assert (shots["train"] == shots["test"]) == same, fam
    assert "permission" in inert_axes(FAMILIES["Login"]) and not inert_axes(FAMILIES["Mail"])


#: Words by which a sentence asks for something or says what is still to do.
_REQUEST_WORDS = {"en": ("remind", "need", "please", "can you", "could you", "don't", "do not", "will", "i'll", "must", "should",
                         "call", "buy", "check", "send", "open", "tap", "click"),
                  "de": ("erinnere", "muss", "bitte", "kannst", "könntest", "werde", "erledige", "ruf", "anrufen", "kaufen",
                         "einkaufen", "prüfe", "prüfen", "schick", "öffne", "tippe", "klicke")}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_buried_context_asks_for_nothing(lang: str) -> None:
    """The unrelated context of the buried style only tells: a sentence that asks for something
    ("Also, remind me to call the plumber tomorrow.") or names what is still to do ("I still
    need to buy groceries") reads as a second request, and an agent that acts on it fails a
    task whose success is initial state + the intended change."""
    from guigym.i18n import de
    mod = variation if lang == "en" else de
    sentences = [s for name in ("CONTEXT_A", "CONTEXT_B", "CONTEXT_C") for s in getattr(mod, name)]
    assert len(sentences) >= 12
    for s in sentences:
        low = f" {s.lower()} "
        hits = [w for w in _REQUEST_WORDS[lang] if re.search(rf"\b{re.escape(w)}\b", low)]
        assert not hits, (s, hits)


def test_a_snapshot_of_the_other_split_warns_when_loaded() -> None:
    """A test-split instance loaded into a train-split env (a leak of held-out instances into
    training) is loaded, with a warning naming the values only the test split holds; the same
    snapshot in a test-split env, a train one in a train env and a plain one do not warn."""
    import warnings

    test_env = gym.make("GuiGym-Login-v0", variation="all", split="test")
    test_env.reset(seed=3)
    snap = test_env.unwrapped.get_state()
    held = variation.held_out_of(snap["scenario"]["variation"], "train")
    assert held and all(a.split("=")[0] in AXES for a in held)
    train_env = gym.make("GuiGym-Login-v0", variation="all")
    train_env.reset(seed=3)
    with pytest.warns(UserWarning, match=r"instance of the test split .*" + re.escape(held[0])):
        train_env.unwrapped.set_state(snap)
    assert train_env.unwrapped.get_state()["scenario"] == snap["scenario"]  # loaded all the same
    plain = gym.make("GuiGym-Login-v0")
    plain.reset(seed=3)
    other = gym.make("GuiGym-Login-v0", variation="all", split="test")
    other.reset(seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        other.unwrapped.set_state(snap)  # the same split
        test_env.unwrapped.set_state(plain.unwrapped.get_state())  # a plain instance holds no split's values
        train_env.reset(seed=4)
        train_snap = train_env.unwrapped.get_state()
        assert not variation.held_out_of(train_snap["scenario"]["variation"], "train")
        plain.unwrapped.set_state(train_snap)  # a train instance in a (train) plain env
    for e in (test_env, train_env, plain, other):
        e.close()
