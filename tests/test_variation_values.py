"""Variation values fixed by the user (``guigym.variation.resolve``) are stored as the axis
table's own values: ``info["variation"]`` and ``get_state()`` hold plain JSON values of the
table's type (a NumPy scalar becomes its Python value), and a bool is not taken for a number."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

from guigym.variation import AXES, NEUTRAL, resolve, sample_variation


def _reset(variation: dict, split: str = "train") -> tuple[gym.Env, dict]:
    env = gym.make("GuiGym-Login-v0", variation=variation, split=split)
    _, info = env.reset(seed=0)
    return env, info


def test_numpy_values_are_stored_as_plain_json_values() -> None:
    var = {"popup": np.str_("cookie"), "popup_at": np.int64(2), "font_scale": np.float64(1.15),
           "theme": np.str_("mono")}
    env, info = _reset(var)
    snap = env.unwrapped.get_state()
    json.dumps(snap)  # get_state is documented JSON-serialisable
    for v in (info["variation"], snap["scenario"]["variation"]):
        assert (v["popup"], v["popup_at"], v["font_scale"], v["theme"]) == ("cookie", 2, 1.15, "mono")
        assert [type(v[a]) for a in ("popup", "popup_at", "font_scale", "theme")] == [str, int, float, str]
    # the same instance as with the plain values
    plain, _ = _reset({"popup": "cookie", "popup_at": 2, "font_scale": 1.15, "theme": "mono"})
    assert plain.unwrapped.get_state() == snap
    env.close()
    plain.close()


def test_an_int_for_a_float_axis_becomes_the_tables_float() -> None:
    env, info = _reset({"font_scale": 1})
    assert info["variation"]["font_scale"] == 1.0 and type(info["variation"]["font_scale"]) is float
    env.close()


@pytest.mark.parametrize("flag", [True, np.bool_(True), False])
def test_a_bool_is_not_taken_for_an_int(flag: object) -> None:
    """``True == 1`` (a ``test`` popup_at) and ``False == 0`` (the neutral one) by accident only."""
    with pytest.raises(ValueError, match="popup_at=.*bool"):
        gym.make("GuiGym-Login-v0", variation={"popup": "update", "popup_at": flag}, split="test")
    with pytest.raises(ValueError, match="font_scale=.*bool"):
        resolve({"font_scale": flag}, "train")


def test_the_memo_does_not_take_a_bool_for_its_equal_int() -> None:
    """``sample_variation`` memoises by the argument: ``{"popup_at": 1}`` first must not let
    ``{"popup_at": True}`` (equal, the same hash) through."""
    rng = np.random.default_rng(0)
    assert sample_variation({"popup_at": 1}, "test", rng)["popup_at"] == 1
    with pytest.raises(ValueError, match="bool"):
        sample_variation({"popup_at": True}, "test", rng)
    v = sample_variation({"popup_at": np.int64(3)}, "test", rng)["popup_at"]
    assert v == 3 and type(v) is int


@pytest.mark.parametrize("split", ["train", "test"])
def test_every_table_value_resolves_to_itself(split: str) -> None:
    for axis, values in AXES.items():
        for v in (*values[split], NEUTRAL[axis]):
            got = resolve({axis: v}, split)[axis]  # type: ignore[index]
            assert got == v and type(got) is type(v), (axis, v)


def test_other_values_are_still_refused() -> None:
    for bad in ({"popup_at": 1.5}, {"popup_at": "2"}, {"theme": "bogus"}, {"popup_at": [2]}, {"font_scale": 1.3}):
        with pytest.raises(ValueError, match="is not a 'train' value"):
            resolve(bad, "train")
