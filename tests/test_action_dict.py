"""The canonical action dict, the one tuple of action classes, and the text-format names
that guigym.actions re-exports from guigym.action_text."""

from __future__ import annotations

import pytest

import guigym.action_text as action_text
import guigym.actions as actions
from guigym.actions import ACTION_CLASSES, ACTION_TYPES, Back, Click, OpenApp, Scroll, Type, action_from_dict, action_to_dict
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


def test_scroll_with_half_a_point_has_no_point():
    assert action_to_dict(Scroll("up", 5, None)) == {"type": "scroll", "direction": "up"}


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


def test_unknown_attribute_still_raises():
    with pytest.raises(AttributeError):
        actions.no_such_name  # noqa: B018
    with pytest.raises(ImportError):
        from guigym.actions import no_such_name  # noqa: F401
