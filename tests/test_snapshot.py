"""``set_state`` checks a snapshot's level and variation (``guigym.apps.snapshot``): a level the
family lacks, an unknown axis or a value no axis has is refused, the env untouched; every
snapshot the envs make is still accepted."""

from __future__ import annotations

import copy
import json
from typing import Any

import gymnasium as gym
import pytest

from guigym.actions import Click, OpenApp, Type
from guigym.apps.snapshot import snapshot_problems
from guigym.env import HISTORY_LEN, STATE_VERSION, GuiEnv
from guigym.events import Event
from guigym.registration import env_ids
from guigym.variation import AXES
from tests.conftest import assert_set_state_refused

IDS = env_ids()


@pytest.fixture
def env() -> Any:
    e = gym.make("GuiGym-Login-v0", variation="all", split="test")
    _, info = e.reset(seed=0)
    e.step(info["reference"][0].action)
    yield e
    e.close()


@pytest.mark.parametrize("level", ["extreme", "Easy", ""])
def test_a_level_the_family_lacks_is_refused(env: Any, level: str) -> None:
    snap = env.unwrapped.get_state()
    snap["scenario"]["level"] = level
    assert_set_state_refused(env, snap, r"\$\.scenario\.level: .* is not a level of Login")


@pytest.mark.parametrize("variation,match", [
    ({"theme": "bogus"}, r"variation\['theme'\]: 'bogus' is not a value"),
    ({"popup_at": 7}, r"variation\['popup_at'\]: 7 is not a value"),
    ({"popup_at": True}, r"variation\['popup_at'\]: True is not a value"),  # JSON true is not the number 1
    ({"font_scale": "1.0"}, r"variation\['font_scale'\]"),
    ({"theme": ["blue"]}, r"variation\['theme'\]"),
    ({"colour": "blue"}, r"variation: unknown axis 'colour'"),
])
def test_an_unknown_variation_axis_or_value_is_refused(env: Any, variation: dict[str, Any], match: str) -> None:
    snap = env.unwrapped.get_state()
    snap["scenario"]["variation"] = variation
    assert_set_state_refused(env, snap, match)


def test_a_value_of_either_split_or_the_neutral_one_is_accepted(env: Any) -> None:
    """The env's split does not stop a restore: a test env restores a train-split snapshot (with a
    warning that names the train split's value) and back."""
    snap = env.unwrapped.get_state()
    snap["scenario"]["variation"] = {**snap["scenario"]["variation"], "theme": "blue", "popup_at": 3, "font_scale": 1.0}
    with pytest.warns(UserWarning, match=r"instance of the train split \(theme=blue\)"):
        env.unwrapped.set_state(snap)
    env.unwrapped.set_state({**snap, "scenario": {**snap["scenario"], "variation": {"theme": None}}})
    _, _, _, _, info = env.step(env.unwrapped.reference()[0].action)
    assert info["variation"] == {"theme": None}


@pytest.mark.parametrize("env_id", IDS)
def test_every_snapshot_the_envs_make_is_accepted(env_id: str) -> None:
    """Every level, no variation and ``"all"`` in both splits, at reset and a step in: the full
    check (not the shortcut for the env's own scenario) finds nothing, and a fresh env loads it."""
    family = gym.make(env_id).unwrapped.family
    for level in family.levels:
        for variation, split in ((None, "train"), ("all", "train"), ("all", "test")):
            env = gym.make(env_id, level=level, variation=variation, split=split)
            other = gym.make(env_id, level=level)  # plain: no split of its own (a varied env of the other split warns)
            other.reset(seed=99)
            for seed in range(3):
                _, info = env.reset(seed=seed)
                snaps = [env.unwrapped.get_state()]
                if info["reference"]:
                    env.step(info["reference"][0].action)
                    snaps.append(env.unwrapped.get_state())
                for snap in snaps:
                    snap = json.loads(json.dumps(snap))
                    found = snapshot_problems(snap, family, STATE_VERSION, HISTORY_LEN)
                    assert found == [], (level, variation, split, seed, found)
                    other.unwrapped.set_state(copy.deepcopy(snap))
                    assert other.unwrapped.scenario == snap["scenario"]
            env.close()
            other.close()


def test_every_axis_value_is_accepted_in_a_snapshot(env: Any) -> None:
    snap = env.unwrapped.get_state()
    family = env.unwrapped.family
    for axis, values in AXES.items():
        for v in (*values["train"], *values["test"]):
            s = copy.deepcopy(snap)
            s["scenario"]["variation"][axis] = v
            assert snapshot_problems(s, family, STATE_VERSION, HISTORY_LEN) == [], (axis, v)



def _unshown_event(s: dict[str, Any]) -> dict[str, Any]:
    """An event of a month the main screen does not show (so its screen does not draw it)."""
    app = s["state"]["apps"]["Calendar"]
    return next(e for e in app["data"]["events"] if e["date"][:7] != app["values"]["main.shown"])  # type: ignore[no-any-return]


def _unshown_node(s: dict[str, Any]) -> dict[str, Any]:
    """A file in a folder below the top one (the top folder's screen does not draw it)."""
    return next(n for n in s["state"]["apps"]["Files"]["data"]["nodes"] if n["parent"] != 0 and not n["folder"])  # type: ignore[no-any-return]


def _in_app(s: dict[str, Any]) -> list[str]:
    """The home screen's icons, the device put in front of an app first (so home is not drawn)."""
    icons: list[str] = s["scenario"]["home"]["icons"]
    s["state"]["fg"] = next(a for a in icons if a in s["state"]["apps"])
    return icons


def _records(s: dict[str, Any], app: str, key: str) -> list[dict[str, Any]]:
    return s["state"]["apps"][app]["data"][key]  # type: ignore[no-any-return]


def _folders(s: dict[str, Any]) -> list[dict[str, Any]]:
    """The folders in the top folder (two at least at every level)."""
    return [n for n in _records(s, "Files", "nodes") if n["folder"] and n["parent"] == 0]


def _cycle(a: dict[str, Any], b: dict[str, Any]) -> None:
    a["parent"], b["parent"] = b["id"], a["id"]


def _stack(s: dict[str, Any], app: str) -> list[str]:
    return s["state"]["apps"][app]["stack"]  # type: ignore[no-any-return]


#: Snapshots that fit the schema and show their current screen, so the dry run passed them, but
#: that a later step could not show: each was loaded, then a step or two later raised from the
#: renderer or the app (an exception out of ``step``).
CRASH_LATER = [
    ("GuiGym-Login-v0", "easy", None, "theme", lambda s: s["scenario"]["theme"].__setitem__("error", [0, 0, 256])),
    ("GuiGym-Login-v0", "easy", None, "color", lambda s: s["scenario"]["apps"][_in_app(s)[0]].__setitem__("color", [1, 2])),
    ("GuiGym-Login-v0", "easy", None, r"\.to: no screen",
     lambda s: next(r for a in s["scenario"]["apps"].values() for scr in a["screens"].values() for r in scr["rows"]
                    if "to" in r).__setitem__("to", "nowhere")),
    ("GuiGym-CrossApp-v0", "easy", {"icons": "recoloured"}, "looks",
     lambda s: s["scenario"]["home"]["looks"].__setitem__(_in_app(s)[0], ["", _in_app(s)[0]])),
    ("GuiGym-CrossApp-v0", "easy", {"icons": "recoloured"}, "looks", lambda s: s["scenario"]["home"]["looks"].pop(_in_app(s)[1])),
    ("GuiGym-Launcher-v0", "easy", None, "cannot be shown", lambda s: _stack(s, "Notes").append("-1")),
    ("GuiGym-Calendar-v0", "medium", None, "repeat", lambda s: _unshown_event(s).__setitem__("repeat", "fortnightly")),
    ("GuiGym-Calendar-v0", "medium", None, "date", lambda s: _unshown_event(s).__setitem__("date", "2026-02-30")),
    ("GuiGym-Calendar-v0", "medium", None, "not a month",
     lambda s: s["state"]["apps"]["Calendar"]["values"].__setitem__("form.date.shown", "soon")),
    ("GuiGym-Messages-v0", "easy", None, "new.to", lambda s: s["state"]["apps"]["Messages"]["values"].__setitem__("new.to", 5)),
    ("GuiGym-Files-v0", "medium", None, "expected a int", lambda s: _unshown_node(s).__setitem__("size", "big")),
    ("GuiGym-Mail-v0", "medium", None, "keys", lambda s: s["state"]["apps"]["Mail"]["data"]["mails"][-1].pop("subject")),
    # a record id below 0 names screens ("t:-1") no app parses: opening the record raised
    ("GuiGym-Contacts-v0", "easy", None, r"people\[0\]\.id: -1 is not a unique int",
     lambda s: _records(s, "Contacts", "people")[0].__setitem__("id", -1)),
    ("GuiGym-Messages-v0", "easy", None, r"threads\[0\]\.id: -1 is not a unique int",
     lambda s: _records(s, "Messages", "threads")[0].__setitem__("id", -1)),
    ("GuiGym-Calendar-v0", "medium", None, r"events\[0\]\.id: -1 is not a unique int",
     lambda s: _records(s, "Calendar", "events")[0].__setitem__("id", -1)),
    ("GuiGym-Mail-v0", "medium", None, r"mails\[0\]\.id: -5 is not a unique int",
     lambda s: _records(s, "Mail", "mails")[0].__setitem__("id", -5)),
    ("GuiGym-Phone-v0", "easy", None, r"notes\[0\]\.id: -1 is not a unique int",
     lambda s: _records(s, "Notes", "notes")[0].__setitem__("id", -1)),
    # a conversation's screen shows the first word of its name
    ("GuiGym-Messages-v0", "easy", None, r"threads\[0\]\.name: ' ' has no word",
     lambda s: _records(s, "Messages", "threads")[0].__setitem__("name", " ")),
    # a forward quotes the first line of the body
    ("GuiGym-Mail-v0", "medium", None, r"mails\[0\]\.body: ' ' is blank",
     lambda s: _records(s, "Mail", "mails")[0].__setitem__("body", " ")),
    # folders in a cycle: planning a path up to the top folder never ended (memory ran out)
    ("GuiGym-Files-v0", "medium", None, r"data\.nodes: the folders \[.*\] are in a cycle",
     lambda s: _cycle(*_folders(s)[:2])),
    # a New folder screen of a sub-folder right over the top folder: Save looked for the sub-folder's screen
    ("GuiGym-Files-v0", "easy", None, r"stack\[1\]: 'n:0/\d+' opens from 'f:0/\d+', not from 'f:0'",
     lambda s: _stack(s, "Files").__setitem__(slice(1, None), [f"n:0/{_folders(s)[0]['id']}"])),
]


@pytest.mark.parametrize("scale", [0, -1.0, 0.01, 50.0, True, "1.0", None])
def test_a_font_scale_no_variation_makes_is_refused(env: Any, scale: Any) -> None:
    """Any scale draws without an error, but 0 or less draws no text at all and a huge one takes
    seconds a frame: only the ``font_scale`` axis's values are accepted."""
    env.reset(seed=0)
    snap = env.unwrapped.get_state()
    snap["scenario"]["theme"]["font_scale"] = scale
    assert_set_state_refused(env, snap, "font_scale")
    snap["scenario"]["theme"]["font_scale"] = 1.3  # the test split's value
    env.unwrapped.set_state(snap)


@pytest.mark.parametrize("env_id,level,variation,match,corrupt", CRASH_LATER)
def test_a_snapshot_a_later_step_could_not_show_is_refused(env_id: str, level: str, variation: Any, match: str,
                                                           corrupt: Any) -> None:
    """Colours, the icons' looks, links, the screens under the current one (Back) and every
    app's data and values are checked, not only what the current screen draws: each of these
    was loaded and made a later step raise (README: "a bad one raises one ValueError")."""
    e = gym.make(env_id, level=level, variation=variation)
    e.reset(seed=0)
    snap = e.unwrapped.get_state()
    corrupt(snap)
    assert_set_state_refused(e, snap, match)
    e.unwrapped.step(e.unwrapped.reference()[0].action)  # still usable
    e.close()


def test_a_state_seen_valid_is_not_checked_again_and_a_changed_copy_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stage-2 reward's case, a set_state per candidate to the same state of the env's own
    episode, skips the state checks (the env made that state, or checked it once); any state
    not equal to one of those is checked in full."""
    e = gym.make("GuiGym-Messages-v0", level="easy").unwrapped
    e.reset(seed=0)
    e.step(e.reference()[0].action)
    snap = e.get_state()
    stacks: list[int] = []
    full = GuiEnv._check_stacks
    monkeypatch.setattr(GuiEnv, "_check_stacks", lambda self: (stacks.append(1), full(self))[1])
    for _ in range(3):
        e.set_state(snap)
        assert e.get_state() == snap
    assert stacks == []  # the env's own state: no dry run of its stacks
    other = e.get_state()
    other["state"]["apps"]["Messages"]["values"]["new.to"] = 5
    with pytest.raises(ValueError, match="new.to"):
        e.set_state(other)
    assert e.get_state() == snap and stacks == []  # refused by the state checks, before any dry run
    e.reset(seed=1)
    e.set_state(snap)  # another episode's state: checked in full, once
    e.set_state(snap)
    assert stacks == [1] and e.get_state() == snap


@pytest.mark.parametrize("focus,match", [("remember", "is a checkbox, not a text field"), ("signin", "is a button, not a text field"),
                                         ("nope", "is no widget of screen 'main'")])
def test_a_focus_on_no_text_field_is_refused(focus: str, match: str) -> None:
    """Only a click on a text field focuses it; a snapshot focusing a checkbox, a button or no
    widget at all used to load, and Type then reported an input event on that widget (which
    the grounded reward matches against the reference's)."""
    env = gym.make("GuiGym-Login-v0")
    env.reset(seed=0)
    snap = env.unwrapped.get_state()
    app = snap["state"]["fg"]
    snap["state"]["apps"][app]["focus"] = focus
    assert_set_state_refused(env, snap, f"app '{app}': its focus '{focus}' {match}")
    snap["state"]["apps"][app]["focus"] = "user"  # the user-name field: loads, and Type types into it
    env.unwrapped.set_state(snap)
    assert env.unwrapped.step(Type("bob"))[4]["event"] == Event("input", "user", "bob")
    env.close()


def test_a_background_apps_focus_is_checked_on_its_own_screen() -> None:
    """An app brought back by OpenApp keeps its focus, so a background app's is checked too, on
    its own top screen (CrossApp easy seed 0: Mail's list has a search field, ``q``)."""
    e = gym.make("GuiGym-CrossApp-v0", level="easy")
    e.reset(seed=0)
    snap = e.unwrapped.get_state()
    assert snap["state"]["fg"] == "home"
    snap["state"]["apps"]["Mail"]["focus"] = "m:1"
    assert_set_state_refused(e, snap, "app 'Mail': its focus 'm:1' is")
    snap["state"]["apps"]["Mail"]["focus"] = "q"
    e.unwrapped.set_state(snap)
    e.unwrapped.step(OpenApp("Mail"))
    assert e.unwrapped.step(Type("lunch"))[4]["event"] == Event("input", "q", "lunch")
    e.close()


def test_a_field_focused_under_a_pop_up_loads() -> None:
    """A pop-up that appears over a focused field keeps the focus (Back or a button of the
    pop-up uncovers it): the check looks under the pop-up, so such a snapshot of a real episode
    loads into another env."""
    src = gym.make("GuiGym-Login-v0", variation={"popup": "rate", "popup_at": 2})
    _, info = src.reset(seed=0)
    assert isinstance(info["reference"][0].action, Click)
    for _ in range(2):  # a click on a field, Type into it: the pop-up comes up after the second step
        _, _, _, _, info = src.step(info["reference"][0].action)
    snap = src.unwrapped.get_state()
    fg = snap["state"]["fg"]
    assert snap["state"]["apps"][fg]["focus"] is not None and snap["state"].get("popup") == 0
    dst = gym.make("GuiGym-Login-v0", variation={"popup": "rate", "popup_at": 2})
    dst.reset(seed=1)
    dst.unwrapped.set_state(snap)
    assert dst.unwrapped.get_state() == snap
    src.close()
    dst.close()
