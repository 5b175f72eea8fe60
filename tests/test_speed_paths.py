"""The mock backend's speed paths (issue 14) change no behaviour: memoised transitions equal
``apply``, shared app states are never mutated, handed-over frames are not drawn into again."""

from __future__ import annotations

import json
import marshal

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from guigym.apps.base import apply, copy_state, start_state, view
from guigym.backends.mock import MockBackend
from guigym.layout import layout
from guigym.oracle import Oracle, state_key
from guigym.registration import id_levels


@pytest.mark.parametrize("env_id,level", id_levels())
def test_memoised_transitions_equal_apply_and_leave_states_alone(env_id: str, level: str) -> None:
    env = gym.make(env_id).unwrapped
    for seed in range(3):
        env.reset(seed=seed, options={"level": level})
        scenario, s = env.scenario, start_state(env.scenario)
        oracle = Oracle(env.family, scenario, env.width, env.height)
        ref = oracle.reference(s) or []
        for step in ref:
            before = json.dumps(s)
            nxt, key = oracle.step(s, state_key(s), step.event)
            assert json.dumps(s) == before  # the old state is untouched
            # the key stands for the state (marshal's bytes also vary with sharing: that only costs a cache miss)
            assert nxt == apply(scenario, copy_state(s), step.event) and marshal.loads(key) == nxt
            v, lay = oracle.screen(nxt, key)
            assert v == view(scenario, nxt) and lay == layout(v, env.width, env.height)
            s = nxt
    env.close()


def test_apply_shares_only_what_the_event_cannot_change() -> None:
    env = gym.make("GuiGym-Launcher-v0").unwrapped
    _, info = env.reset(seed=3, options={"level": "hard"})
    s = env.get_state()["state"]
    ref = info["reference"]
    opened = apply(env.scenario, s, ref[0].event)  # OpenApp: no app state changes
    assert opened["fg"] != s["fg"] and list(opened) == list(s)
    nxt = apply(env.scenario, opened, ref[1].event)
    fg = opened["fg"]
    assert nxt["apps"][fg] is not opened["apps"][fg]  # the foreground app: a copy
    assert all(nxt["apps"][a] is opened["apps"][a] for a in opened["apps"] if a != fg)  # the rest: shared
    env.close()


def test_frames_are_handed_over_once() -> None:
    env = gym.make("GuiGym-Settings-v0").unwrapped
    obs, info = env.reset(seed=0)
    shot = env.backend.screenshot()  # the env took the frame: this one is a copy
    shot[:] = 0
    assert np.array_equal(env.render(), obs["screenshot"])
    obs["screenshot"][:] = 7  # an agent writing into its observation changes nothing kept
    assert np.array_equal(env.render(), env.observe()["screenshot"]) and not np.array_equal(env.render(), obs["screenshot"])
    held = env._frame  # the array the backend handed over
    kept = held.copy()
    env.step(info["reference"][0].action)  # the next frame is drawn into a new array, not into the held one
    assert not np.array_equal(env.render(), kept) and np.array_equal(held, kept)
    env.close()


def test_background_cache_is_bounded_and_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many themes and titles: the cache stays within its entry bound, and a frame drawn from a
    cached background equals one drawn by a fresh backend."""
    from guigym.backends import mock

    for budget in (mock.BACKGROUND_FRAMES, 0.02):  # and one that holds a band or two: evicting on every frame
        # caches of its own: each budget starts empty (not the process's, which other envs fill)
        env = gym.make("GuiGym-Settings-v0", variation="appearance", backend_kwargs={"shared_caches": False}).unwrapped
        monkeypatch.setattr(mock, "BACKGROUND_FRAMES", budget)
        for seed in range(12):
            env.reset(seed=seed, options={"level": "hard"})
            fresh = MockBackend(env.width, env.height, shared_caches=False)
            fresh.show(env.current_view, layout(env.current_view, env.width, env.height))
            assert np.array_equal(fresh.screenshot(), env.render())
            c = env.backend._caches
            bands = [band for _, _, band in c.backgrounds.values()]
            assert len(bands) <= mock.BACKGROUND_ENTRIES and len(c.plains) <= mock.PLAIN_ENTRIES
            assert c.background_bytes == sum(x.nbytes for x in bands)
            assert c.background_bytes <= max(budget * env.width * env.height * 3, max(x.nbytes for x in bands))
            # a band is the rows the bars drew; below it the frame is the plain colour
            assert all(0 < len(x) < env.height for x in bands)
        env.close()


def test_frames_shown_again_equal_fresh_drawings_and_stay_unwritten() -> None:
    """A state shown again (the env's frame cache, ``MockBackend.reshow``) gives the frame a
    fresh backend draws, hit-tests as before, and the kept frames are bounded and never
    written into."""
    from guigym.actions import Back
    from guigym.env import FRAME_ENTRIES

    env = gym.make("GuiGym-Settings-v0").unwrapped
    for seed in range(3):
        obs, info = env.reset(seed=seed, options={"level": "hard"})
        first = obs["screenshot"].copy()
        obs["screenshot"][:] = 3  # the agent's copy: the kept frame is not it
        nxt, *_ = env.step(info["reference"][0].action)
        back, *_, info2 = env.step(Back())
        if env._key == state_key(start_state(env.scenario)):  # back at the start: the kept frame again
            assert np.array_equal(back["screenshot"], first)
        fresh = MockBackend(env.width, env.height, shared_caches=False)
        fresh.show(env.current_view, layout(env.current_view, env.width, env.height))
        assert np.array_equal(fresh.screenshot(), env.render())
        assert info2["elements"] == env.elements() and env.backend.boxes() == fresh.boxes()
        shot = env.backend.screenshot()  # after a reshow: a copy, never the kept frame
        shot[:] = 0
        assert np.array_equal(env.render(), back["screenshot"])
        assert len(env._frames) <= FRAME_ENTRIES
    env.close()


def _hash_episodes_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "hash_episodes.py"
    spec = importlib.util.spec_from_file_location("hash_episodes_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_hash_episodes_hashes_varied_episodes_reproducibly(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``benchmarks/hash_episodes.py --variation``: the check that a speed-up changes no varied
    episode gives the same total twice, and another than without variation (one id, one seed)."""
    mod = _hash_episodes_module()
    monkeypatch.setattr(mod, "id_levels", lambda: [("GuiGym-Login-v0", "easy")])

    def total(*args: str) -> str:
        assert mod.main(["--seeds", "1", *args]) == 0
        return next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("total ")).split()[1]

    varied = total("--variation", "all")
    assert varied == total("--variation", "all") != total()
    assert total("--variation", "all", "--split", "test") != varied


def test_relabel_view_keeps_a_view_it_does_not_change() -> None:
    """The train split's label table names only held-out synonyms: the view comes back as it
    is (no copy); a table that changes a label still gives a new view, the old one untouched."""
    from guigym.apps.base import relabel_view

    env = gym.make("GuiGym-Login-v0")
    env.reset(seed=3)
    v = env.unwrapped.current_view
    assert relabel_view(v, {"button": {"No such label": "X"}}) is v
    label = next(w.label for w in v.rows if w.kind == "button")
    new = relabel_view(v, {"button": {label: "Renamed"}})
    assert new is not v and "Renamed" in [w.label for w in new.rows] and label in [w.label for w in v.rows]
    env.close()


def test_resolved_variation_is_resolve() -> None:
    from guigym.variation import PRESETS, _resolved, resolve

    for split in ("train", "test"):
        for preset in PRESETS:
            if preset == "none" and split == "test":
                continue
            assert _resolved(preset, split) == resolve(preset, split) == _resolved(preset, split)
    assert _resolved({"theme": "blue"}, "train") == resolve({"theme": "blue"}, "train")
    with pytest.raises(ValueError):
        _resolved({"theme": "teal"}, "train")  # a test value in train: still refused, every time
    with pytest.raises(ValueError):
        _resolved({"theme": "teal"}, "train")


@pytest.mark.parametrize("env_id,level", id_levels())
def test_assess_is_success_failed_and_next_goal(env_id: str, level: str) -> None:
    """``Family.assess`` (what the oracle asks of every planned state; CrossApp reads its
    digests once for all three) answers as ``success``, ``failed`` and ``next_goal`` do, on the
    states of random detours and of the reference after them."""
    env = gym.make(env_id).unwrapped
    fam = env.family
    for seed in range(4):
        _, info = env.reset(seed=seed, options={"level": level})
        env.action_space.seed(seed)
        term = trunc = False
        for k in range(31):
            scenario, state = env.scenario, env._state
            ok = fam.success(scenario, state)
            bad = not ok and bool(fam.failed(scenario, state))  # failed may give its reason: assess says True
            want = (ok, bad, None if ok or bad else fam.next_goal(scenario, state))
            assert fam.assess(scenario, state) == want, (seed, k)
            if k == 30 or term or trunc:  # the state the episode ended in is checked too
                break
            ref = info["reference"]
            action = env.action_space.sample() if k < 5 or not ref else ref[0].action
            _, _, term, trunc, info = env.step(action)
    env.close()

def test_bench_reset_times_the_resets_own_phases(capsys):
    """``benchmarks/bench_reset.py`` generates and plans exactly what ``env.reset`` does (it
    checks the planned reference against the reset's ``info``) and prints one row per id x level."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_reset

    r = bench_reset.phases("GuiGym-CrossApp-v0", "easy", range(3))  # raises if a planned reference is not the reset's
    assert r["len"] >= 2 and min(r["gen"], r["plan"], r["reset"], r["per_step"]) > 0
    assert bench_reset.main(["--seeds", "2", "--ids", "Login", "--levels", "easy,hard", "--no-pin"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("GuiGym-Login-v0")]
    assert [row[1] for row in rows] == ["easy", "hard"] and all(len(row) == 8 for row in rows)


def test_bench_step_measures_the_same_episodes_with_drawing_free(capsys):
    """``benchmarks/bench_step.py`` runs the same oracle episodes with drawing free (it raises if
    the steps or episodes differ), puts every patched method back, and prints one row per id x level."""
    import sys
    from pathlib import Path

    from guigym.backends import mock

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_step

    draw, render = mock.MockBackend._draw, mock._Text.render
    r = bench_step.measure("GuiGym-Settings-v0", "medium", 60)
    assert r["steps"] >= 60 and r["episodes"] >= 2 and r["free_sps"] > 0 and 0 < r["draw_share"] < 1
    assert (mock.MockBackend._draw, mock._Text.render) == (draw, render)
    assert bench_step.main(["--steps", "30", "--ids", "Login", "--levels", "easy,hard", "--no-pin", "--aim", "1e9"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("GuiGym-Login-v0")]
    assert [row[1] for row in rows] == ["easy", "hard"] and all(len(row) == 7 for row in rows)
    assert "under 1000000000 oracle steps/s: 2 of 2: Login easy" in out
