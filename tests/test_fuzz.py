"""Fuzz: nothing an agent sends to ``step()`` raises; every env keeps its contract."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guigym.actions import Back, Click, OpenApp, Scroll, Type
from guigym.apps.catalog import APP_NAMES
from tests.conftest import IDS, make

ENVS = {i: make(i, level="medium") for i in IDS}

coords = st.integers(-2000, 2000)
actions = st.one_of(
    st.builds(Click, coords, coords),
    st.builds(Scroll, st.sampled_from(["up", "down", "left", "right"]), st.none() | coords, st.none() | coords),
    st.just(Back()),
    st.builds(OpenApp, st.sampled_from(APP_NAMES) | st.text(max_size=20)),
    st.builds(Type, st.text(max_size=40)),
    st.text(max_size=200),  # any string, parsed or rejected
    st.dictionaries(st.sampled_from(["type", "x", "y", "direction", "app", "text"]), st.integers(-5, 500) | st.text(max_size=5)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(env_id=st.sampled_from(IDS), seed=st.integers(0, 10_000), acts=st.lists(actions, max_size=25))
def test_random_actions_never_raise(env_id, seed, acts):
    env = ENVS[env_id]
    obs, info = env.reset(seed=seed)
    for a in acts:
        obs, r, term, trunc, info = env.step(a)
        assert env.observation_space.contains(obs)
        assert r in (0.0, 1.0)
        assert info["success"] == (r == 1.0)
        if info["action_error"] is not None:
            assert info["event"] is None and isinstance(info["action_error"], str)
        if term:
            assert info["success"] or info["reference"] == []
            obs, info = env.reset(seed=seed + 1)
        else:
            assert info["reference"], "a live episode always has a way to success"
