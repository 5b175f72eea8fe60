"""The canonical action dict, the one tuple of action classes, and the text-format names
that guigym.actions re-exports from guigym.action_text."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest

import guigym  # noqa: F401  (registers the ids)
import guigym.action_text as action_text
import guigym.actions as actions
from guigym.actions import (
    ACTION_CLASSES,
    ACTION_TYPES,
    Back,
    Click,
    OpenApp,
    Scroll,
    Type,
    action_from_dict,
    action_to_dict,
    checked_action,
)
from guigym.export import androidcontrol_action

CANONICAL = [
    (Click(3, 4), {"type": "click", "x": 3, "y": 4}),
    (Scroll("down"), {"type": "scroll", "direction": "down"}),
    (Scroll("left", 5, 6), {"type": "scroll", "direction": "left", "x": 5, "y": 6}),
    (Back(), {"type": "back"}),
    (OpenApp("Clock"), {"type": "open_app", "name": "Clock"}),
    (Type("alice"), {"type": "type", "text": "alice"}),
]


@pytest.mark.parametrize("action, d", CANONICAL)
def test_canonical_dict_round_trip(action, d):
    assert action_to_dict(action) == d
    assert list(action_to_dict(action)) == list(d)  # key order too: JSON columns stay stable
    assert action_from_dict(d) == action


@pytest.mark.parametrize("x, y", [(5, None), (None, 5)])
def test_scroll_with_half_a_point_is_refused(x, y):
    """As in the text formats ("scroll needs both 'x' and 'y'"): a Scroll acts with a whole point
    or none. Half a point used to be taken silently as none by the env, while the same scroll as
    text was refused; now it is an invalid action (a no-op with ``action_error``), and the dict
    parser refuses it as the text parser does."""
    with pytest.raises(ValueError, match="Scroll needs both x and y, or neither"):
        checked_action(Scroll("up", x, y))
    with pytest.raises(ValueError, match="Scroll needs both x and y, or neither"):
        action_from_dict({"type": "scroll", "direction": "up", **({"x": x} if x is not None else {"y": y})})
    env = gym.make("GuiGym-Settings-v0")
    env.reset(seed=0)
    before = env.unwrapped.get_state()["state"]
    info = env.step(Scroll("down", x, y))[4]
    assert "Scroll needs both x and y" in info["action_error"] and info["event"] is None
    assert env.unwrapped.get_state()["state"] == before
    assert action_to_dict(Scroll("up")) == {"type": "scroll", "direction": "up"}


def test_from_dict_casts_like_json_data():
    assert action_from_dict({"type": "click", "x": 3.0, "y": "4"}) == Click(3, 4)


@pytest.mark.parametrize("d", [{"type": "fly"}, {}, {"type": ["click"]}])
def test_from_dict_rejects_unknown_types(d):
    with pytest.raises(ValueError, match="unknown action type"):
        action_from_dict(d)


def test_to_dict_rejects_non_actions():
    with pytest.raises(TypeError):
        action_to_dict("click")  # type: ignore[arg-type]


def test_action_classes_follow_action_types():
    assert tuple(c.__dataclass_fields__["type"].default for c in ACTION_CLASSES) == ACTION_TYPES


@pytest.mark.parametrize("action, want", [
    (Click(3, 4), {"action_type": "click", "x": 3, "y": 4}),
    (Scroll("down", 5, 6), {"action_type": "scroll", "direction": "down"}),
    (Back(), {"action_type": "navigate_back"}),
    (OpenApp("Clock"), {"action_type": "open_app", "app_name": "Clock"}),
    (Type("alice"), {"action_type": "input_text", "text": "alice"}),
])
def test_androidcontrol_names(action, want):
    assert androidcontrol_action(action) == want


@pytest.mark.parametrize("name", action_text.__all__)
def test_text_names_are_re_exported(name):
    assert getattr(actions, name) is getattr(action_text, name)
    assert name in dir(actions)


def test_star_import_binds_the_text_names():
    """``from guigym.actions import *`` left out parse_action, ActionParseError and the other
    text names the module re-exports: they load lazily (module ``__getattr__``), which a star
    import only consults for the names of ``__all__``."""
    ns: dict = {}
    exec("from guigym.actions import *", ns)  # a fresh namespace
    for name in action_text.__all__:
        assert ns[name] is getattr(action_text, name), name
    assert ns["Click"] is actions.Click and ns["rescale_box"] is actions.rescale_box
    assert all(hasattr(actions, n) for n in actions.__all__) and len(set(actions.__all__)) == len(actions.__all__)
    assert "np" not in ns and "math" not in ns  # the module's own imports are not its API


def test_star_import_in_a_fresh_interpreter():
    """No import cycle: the star import alone, first thing in a new process, binds them."""
    import subprocess
    import sys

    code = "from guigym.actions import *; print(parse_action('back()'), ActionParseError.__name__, FORMATS[0])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["Back()", "ActionParseError", "json"]


def test_unknown_attribute_still_raises():
    with pytest.raises(AttributeError):
        actions.no_such_name  # noqa: B018
    with pytest.raises(ImportError):
        from guigym.actions import no_such_name  # noqa: F401


def _ref(**kw):
    return {"action": {"type": "click", "x": 10, "y": 20}, "target": "ok", "box": [4, 10, 16, 30], "instruction": "Click OK", **kw}


def test_refstep_from_dict_rounds_float_coordinates_as_parse_action_does():
    """``int()`` truncated them (10.7 -> 10, a box edge moved inwards); parse_action rounds a
    float coordinate, and to_dict writes ints, which read back unchanged."""
    from guigym.action_text import parse_action
    from guigym.actions import RefStep

    step = RefStep.from_dict(_ref(action={"type": "click", "x": 10.7, "y": 19.6}, box=[3.6, 9.5, 16.7, 30.2]))
    assert step.action == parse_action('{"action": "click", "coordinate": [10.7, 19.6]}', "json") == Click(11, 20)
    assert step.box == (4, 10, 17, 30) and all(type(v) is int for v in step.box)
    assert action_from_dict({"type": "scroll", "direction": "up", "x": 2.5, "y": 3.5}) == Scroll("up", 2, 4)
    assert RefStep.from_dict(step.to_dict()) == step


@pytest.mark.parametrize("bad, match", [
    ({"box": [1, 2, 3]}, "box must be"), ({"box": "1234"}, "box must be"), ({"box": [1, 2, float("nan"), 4]}, "finite"),
    ({"box": [True, 2, 3, 4]}, "number"), ({"action": {"type": "click", "x": None, "y": 1}}, "number"),
    ({"action": {"type": "click", "x": 1e12, "y": 1}}, "within"),
    ({"event": {"kind": 3}}, "kind must be one of"), ({"event": {"kind": "tap"}}, "kind must be one of"),
    ({"event": {"kind": "click", "widget": 7}}, "widget"),
])
def test_refstep_from_dict_rejects_what_to_dict_never_writes(bad, match):
    """``Event(kind=3)`` was accepted (and matched no event), ``"1234"`` read as a box digit by
    digit, three numbers as a three-number box, ``None`` a bare TypeError."""
    from guigym.actions import RefStep

    with pytest.raises(ValueError, match=match):
        RefStep.from_dict(_ref(**bad))
