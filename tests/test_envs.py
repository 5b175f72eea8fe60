"""Environment contract, collected from the registry: every id x level."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pygame
import pytest
from gymnasium.utils.env_checker import check_env

from guigym.actions import Back, Click, OpenApp, Scroll, Type
from tests.conftest import ID_LEVELS, IDS, make, oracle_episodes, run_reference


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_check_env(env_id, level):
    env = make(env_id, level=level)
    check_env(env.unwrapped, skip_render_check=False)
    env.close()


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_same_seed_same_app(env_id, level):
    a, b = make(env_id, level=level), make(env_id, level=level)
    for seed in (0, 7, 123):
        oa, ia = a.reset(seed=seed)
        ob, ib = b.reset(seed=seed)
        assert oa["instruction"] == ob["instruction"]
        assert oa["screenshot"].tobytes() == ob["screenshot"].tobytes()
        assert json.dumps(a.unwrapped.get_state()) == json.dumps(b.unwrapped.get_state())
        ra = [s.action for s in ia["reference"]]
        rb = [s.action for s in ib["reference"]]
        assert ra == rb
    # different seeds give different apps (at least one of a few)
    insts = {a.reset(seed=s)[0]["instruction"] for s in range(5)}
    assert len(insts) > 1


@pytest.mark.parametrize("variation", [None, "all"])
def test_same_seed_same_episodes_in_processes_with_other_string_hashes(variation):
    """Same seed, same episode in another process too: a generator that iterated a set of strings
    (its order follows ``PYTHONHASHSEED``, random per process) would break it, and with it vector
    workers, Ray actors and reruns. benchmarks/hash_episodes.py hashes every id x level's
    oracle, random and detour episodes; two processes with other hash seeds must print the same."""
    root = Path(__file__).resolve().parents[1]
    args = [sys.executable, str(root / "benchmarks" / "hash_episodes.py"), "--seeds", "1"]
    args += ["--variation", variation, "--split", "test"] if variation else []
    outs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(root), "SDL_VIDEODRIVER": "dummy",
               "SDL_AUDIODRIVER": "dummy"}
        proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600, cwd=root)
        assert proc.returncode == 0, proc.stderr[-2000:]
        outs.append([line.rsplit("  (", 1)[0] for line in proc.stdout.splitlines() if "steps  " in line or line.startswith("total")])
    assert len(outs[0]) == len(ID_LEVELS) + 1
    assert outs[0] == outs[1]


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_state_round_trip(env_id, level):
    env = make(env_id, level=level)
    obs, info = env.reset(seed=3)
    env.action_space.seed(3)
    env.step(info["reference"][0].action)
    snap = env.unwrapped.get_state()
    json.loads(json.dumps(snap))  # plain JSON
    acts = [env.action_space.sample() for _ in range(5)] + [s.action for s in env.unwrapped.reference()[:3]]
    first = [env.step(a) for a in acts]
    env.unwrapped.set_state(snap)
    second = [env.step(a) for a in acts]
    for (o1, r1, t1, _, i1), (o2, r2, t2, _, i2) in zip(first, second):
        assert o1["screenshot"].tobytes() == o2["screenshot"].tobytes()
        assert (r1, t1, i1["success"], i1["event"]) == (r2, t2, i2["success"], i2["event"])
    # a snapshot restores into a fresh env too
    other = make(env_id, level=level)
    other.reset(seed=999)
    other.unwrapped.set_state(snap)
    env.unwrapped.set_state(snap)
    assert other.unwrapped.observe()["screenshot"].tobytes() == env.unwrapped.observe()["screenshot"].tobytes()


@pytest.mark.parametrize("env_id,level", ID_LEVELS)
def test_oracle_from_reset(env_id, level):
    for run in oracle_episodes(env_id, level, range(200)):
        assert run.success, f"{env_id} {level} seed {run.seed}: reference failed after {run.steps} steps"


@pytest.mark.parametrize("env_id", IDS)
def test_oracle_after_detour(env_id):
    levels = [lvl for i, lvl in ID_LEVELS if i == env_id]
    env = make(env_id)
    limit = env.spec.max_episode_steps
    rng = np.random.default_rng(0)
    for seed in range(120):
        level = levels[seed % len(levels)]
        _, info = env.reset(seed=seed, options={"level": level})
        env.action_space.seed(seed)
        ended = False
        for _ in range(int(rng.integers(1, 12))):
            ref = info["reference"]
            # half detours are random actions, half are reference steps gone wrong (Back, scroll)
            a = env.action_space.sample() if rng.random() < 0.7 or not ref else Back()
            _, _, term, _, info = env.step(a)
            if term:
                ended = True
                break
        if ended:  # a detour may finish or fail the task: then there is nothing to recover
            assert info["success"] or info["reference"] == []
            continue
        ok, n = run_reference(env, info, limit)
        assert ok, f"{env_id} seed {seed}: reference after a detour failed"


def test_reference_steps_are_grounded(login_env):
    _, info = login_env.reset(seed=1)
    for step in info["reference"]:
        if isinstance(step.action, Click):
            x0, y0, x1, y1 = step.box
            assert x0 <= step.action.x <= x1 and y0 <= step.action.y <= y1
            assert step.instruction and step.target
    assert info["reference"][0].instruction.startswith("Click the '")


def test_invalid_actions_are_noops(login_env):
    obs, info = login_env.reset(seed=0)
    snap = login_env.unwrapped.get_state()["state"]
    cases = [
        (Click(-5, 10), "outside"),
        (Click(360, 10), "outside"),
        (Type("hello"), "focused"),
        (OpenApp("NoSuchApp"), "no app"),
        ("click(x=", "parse"),
        ("<answer>[{'action': 'fly'}]</answer>", "parse"),
        (12345, "unsupported"),
        ({"type": 99}, "invalid action dict"),
    ]
    for action, words in cases:
        o, r, term, trunc, inf = login_env.step(action)
        assert words in inf["action_error"], (action, inf["action_error"])
        assert r == 0.0 and not term
        assert login_env.unwrapped.get_state()["state"] == snap
        assert o["screenshot"].tobytes() == obs["screenshot"].tobytes()


def test_string_and_dict_actions(login_env):
    _, info = login_env.reset(seed=2)
    x, y = info["reference"][0].action.x, info["reference"][0].action.y
    _, _, _, _, info2 = login_env.step(f"click(x={x}, y={y})")
    assert info2["event"] == info["reference"][0].event
    _, _, _, _, info3 = login_env.step('<answer>[{"action": "input_text", "text": "bob"}]</answer>')
    assert info3["action_error"] is None and info3["event"].value == "bob"
    _, _, _, _, info4 = login_env.step({"type": 4, "x": 0, "y": 0, "direction": 0, "app": 0, "text": "carol"})
    assert info4["event"].value == "carol"
    assert login_env.unwrapped.elements()[0]["value"] == "carol"  # Type replaces, never appends


def test_shaped_reward_telescopes():
    env = make("GuiGym-Login-v0", level="medium", reward_mode="shaped")
    _, info = env.reset(seed=4)
    total, n = 0.0, len(info["reference"])
    while info["reference"]:
        _, r, term, _, info = env.step(info["reference"][0].action)
        total += r
        assert r > 0  # every reference step makes progress
    assert term and info["success"]
    assert total == pytest.approx(2.0)  # 1 for success + shaping from -1 to 0
    assert n > 1


def test_time_limit_truncates():
    env = gym.make("GuiGym-Login-v0", max_episode_steps=3)
    env.reset(seed=0)
    out = [env.step(Scroll("up")) for _ in range(3)]
    assert out[-1][3] is True and not any(o[2] for o in out)


def test_make_without_import():
    env = gym.make("guigym:GuiGym-Login-v0")
    obs, _ = env.reset(seed=0)
    assert obs["screenshot"].shape == (640, 360, 3)


def test_viewport_and_bad_kwargs():
    env = make("GuiGym-Login-v0", viewport=(480, 800))
    obs, info = env.reset(seed=0)
    assert obs["screenshot"].shape == (800, 480, 3)
    assert run_reference(env, info, 40)[0]
    for kw, msg in [({"level": "impossible"}, "unknown level"), ({"backend": "vnc"}, "unknown backend"),
                    ({"reward_mode": "dense"}, "unknown reward_mode"), ({"viewport": (100, 100)}, "at least"),
                    ({"viewport": (100_000, 100_000)}, "at most 4096x4096"), ({"viewport": (360, 4097)}, "at most"),
                    ({"extra_obs": ("dom",)}, "extra_obs"), ({"render_mode": "ansi"}, "render_mode")]:
        with pytest.raises(ValueError, match=msg):
            make("GuiGym-Login-v0", **kw)



@pytest.mark.parametrize("kw,says", [
    ({"viewport": 5}, "viewport must be (width, height)"),  # a bare TypeError from tuple(5)
    ({"viewport": None}, "viewport must be (width, height)"),
    ({"viewport": (360.5, 640)}, "viewport must be (width, height)"),  # silently a 360-px-wide screen
    ({"viewport": (360, 640, 3)}, "viewport must be (width, height)"),  # the third value silently dropped
    ({"extra_obs": "history"}, "extra_obs must be a sequence of names"),  # refused letter by letter
    ({"extra_obs": None}, "extra_obs must be a sequence of names"),  # a bare TypeError
])
def test_a_malformed_viewport_or_extra_obs_is_one_clear_value_error(kw: dict, says: str) -> None:
    with pytest.raises(ValueError, match=re.escape(says)):
        make("GuiGym-Login-v0", **kw)


def test_numpy_viewports_and_any_iterable_of_extra_obs_still_work() -> None:
    env = make("GuiGym-Login-v0", viewport=np.array([400, 700]), extra_obs={"history"})
    assert env.reset(seed=0)[0]["screenshot"].shape == (700, 400, 3) and env.unwrapped.width == 400
    assert set(env.observation_space.spaces) == {"screenshot", "instruction", "history"}
    lazy = make("GuiGym-Login-v0", extra_obs=(k for k in ("history",)))  # a generator was used up by the check
    assert "history" in lazy.reset(seed=0)[0] and "history" in lazy.observation_space.spaces

def test_unknown_reset_options_are_an_error_not_the_default_level():
    env = make("GuiGym-Login-v0", level="easy")
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    for options in ({"lvl": "hard"}, {"level": "hard", "split": "test"}):
        with pytest.raises(ValueError, match="unknown reset options"):
            env.reset(seed=1, options=options)
    assert env.unwrapped.get_state() == before  # nothing was reset
    _, info = env.reset(seed=1, options={"level": "hard"})
    assert info["level"] == "hard"



def test_a_refused_reset_leaves_the_rng_stream_as_it_was():
    """A bad level used to be found after ``reset(seed=...)`` had re-seeded the env: the reset
    raised, yet the next unseeded reset drew from the refused seed's stream."""
    env, other = make("GuiGym-Login-v0", variation="all"), make("GuiGym-Login-v0", variation="all")
    env.reset(seed=0)
    other.reset(seed=0)
    with pytest.raises(ValueError, match="unknown level"):
        env.reset(seed=7, options={"level": "extreme"})
    a, b = env.reset()[0], other.reset()[0]
    assert a["instruction"] == b["instruction"] and np.array_equal(a["screenshot"], b["screenshot"])


@pytest.mark.parametrize("options", [["level"], "level", ("level", "hard"), 3])
def test_reset_options_that_are_not_a_dict_are_a_clear_error(options) -> None:
    """A list of keys raised AttributeError ('list' object has no attribute 'get'), a str
    ValueError naming its letters as unknown options, an int a bare TypeError."""
    env = make("GuiGym-Login-v0")
    env.reset(seed=0)
    before = env.unwrapped.get_state()
    with pytest.raises(TypeError, match="reset options must be a dict"):
        env.reset(seed=1, options=options)
    assert env.unwrapped.get_state() == before
    assert env.reset(seed=1, options={})[1]["level"] == "easy"

def test_extra_obs():
    env = make("GuiGym-Login-v0", extra_obs=("elements", "history"))
    obs, info = env.reset(seed=5)
    assert env.observation_space.contains(obs)
    assert {e["id"] for e in obs["elements"]} == {e["id"] for e in info["elements"]}
    env.step(info["reference"][0].action)
    obs, *_ = env.step(Back())
    assert obs["history"].splitlines()[-1] == "back()"
    assert env.observation_space.contains(obs)


def test_history_is_the_same_whether_read_every_step_or_not():
    """Steps keep their actions and write them as lines only when read: an env that shows the
    history every step and one that never does give the same lines, through get_state, a
    set_state back and more steps (the last HISTORY_LEN, each cut to HISTORY_LINE)."""
    from guigym.env import HISTORY_LEN, HISTORY_LINE

    shown, hidden = make("GuiGym-Login-v0", extra_obs=("history",)), make("GuiGym-Login-v0")
    shown.reset(seed=2)
    hidden.reset(seed=2)
    acts = [Click(5 * i, 7 * i) for i in range(6)] + [Type("x" * 300), Back(), Scroll("down")]
    for a in acts:
        obs, *_ = shown.step(a)
        hidden.step(a)
    lines = hidden.unwrapped.get_state()["history"]
    assert lines == obs["history"].splitlines() == shown.unwrapped.get_state()["history"]
    assert len(lines) == HISTORY_LEN and lines[0] == "click(x=5, y=7)" and lines[-1] == 'scroll(direction="down")'
    assert len(lines[-3]) == HISTORY_LINE and lines[-3].endswith("…")
    snap = hidden.unwrapped.get_state()
    hidden.step(Click(1, 2))
    hidden.unwrapped.set_state(snap)
    obs, *_ = shown.step(Back())
    hidden.step(Back())
    assert hidden.unwrapped.get_state()["history"] == obs["history"].splitlines() == lines[1:] + ["back()"]


@pytest.mark.parametrize("env_id", IDS)
def test_render_modes(env_id):
    env = make(env_id, render_mode="rgb_array")
    obs, _ = env.reset(seed=0)
    assert np.array_equal(env.render(), obs["screenshot"])
    env.close()
    env = make(env_id, render_mode="human")  # SDL dummy video driver in tests
    for seed in (0, 1):  # each reset shows its own first screen (the window used to wait for a step)
        obs, _ = env.reset(seed=seed)
        window = pygame.surfarray.array3d(env.unwrapped._window).transpose(1, 0, 2)
        assert np.array_equal(window, obs["screenshot"]), seed
    assert env.render() is None
    env.close()


def test_unicode_text_survives_flatten_and_vector_envs():
    from gymnasium.spaces.utils import flatten, unflatten

    from guigym.spaces import UnicodeText

    sp = UnicodeText(64)
    for s in ["Log in as alice.smith@example.com", "Grüße, 世界 (x)", ""]:
        assert sp.contains(s) and unflatten(sp, flatten(sp, s)) == s
    # Gymnasium's shared memory reads Text observations once, at construction: pass
    # shared_memory=False so instructions arrive (documented in the README).
    venv = gym.vector.AsyncVectorEnv([lambda: gym.make("GuiGym-Login-v0") for _ in range(2)], shared_memory=False)
    try:
        obs, _ = venv.reset(seed=0)
        single = make("GuiGym-Login-v0")
        assert obs["instruction"][1] == single.reset(seed=1)[0]["instruction"]
        assert obs["screenshot"].shape == (2, 640, 360, 3)
        obs, *_ = venv.step(venv.action_space.sample())
    finally:
        venv.close()


#: The sections of every family's module docstring, in this order (``Levels`` may sit between
#: Actions and Rewards), as Minigrid documents each env.
DOC_SECTIONS = ("Description:", "Instruction:", "Actions:", "Rewards:", "Termination:", "Registered ids:")


@pytest.mark.parametrize("env_id", IDS)
def test_every_family_documents_the_same_sections(env_id):
    doc = sys.modules[type(gym.make(env_id).unwrapped.family).__module__].__doc__ or ""
    lines = [ln.rstrip() for ln in doc.splitlines()]
    at = [lines.index(s) if s in lines else -1 for s in DOC_SECTIONS]
    assert -1 not in at, f"{env_id}: missing {[s for s, i in zip(DOC_SECTIONS, at) if i < 0]}"
    assert at == sorted(at), f"{env_id}: sections out of order"
    assert f"``{env_id}``" in "\n".join(lines[at[-1]:])


@pytest.mark.parametrize("bad", [[1], "headless", {1: 2}])
def test_backend_kwargs_must_be_a_dict_of_keywords(bad) -> None:
    """``backend_kwargs=[1]`` was a bare ``TypeError`` from ``dict()``; a str key-by-letter error
    and a non-str key failed only at the first reset."""
    with pytest.raises(TypeError, match="backend_kwargs must be a dict of keyword arguments"):
        gym.make("GuiGym-Login-v0", backend_kwargs=bad)
    gym.make("GuiGym-Login-v0", backend_kwargs={}).reset(seed=0)


BROWSER_TAKES = "it takes 'executable', 'timeout_s', 'launch_args', 'capture', 'gc_every', 'recycle_every'"


@pytest.mark.parametrize("backend,kwargs,error,says", [
    # unknown names: a bare "__init__() got an unexpected keyword argument" at the first reset
    ("browser", {"captur": "layer"}, TypeError,
     f"'captur' (did you mean 'capture'?), which the browser backend does not take; {BROWSER_TAKES}"),
    ("mock", {"shared_cache": False}, TypeError,
     "'shared_cache' (did you mean 'shared_caches'?), which the mock backend does not take; it takes 'shared_caches'"),
    ("mock", {"capture": "layer", "width": 5}, TypeError, "'capture', 'width', which the mock backend does not take"),
    # a str: Chromium was given its letters, reported as "no usable Chromium ... Install one of"
    ("browser", {"launch_args": "--mute-audio"}, ValueError,
     "launch_args must be a list of Chromium flags, e.g. ['--mute-audio'], got '--mute-audio'"),
    ("browser", {"launch_args": ["mute-audio"]}, ValueError, "(each a str starting with '-'), got 'mute-audio' in it"),
    ("browser", {"launch_args": [b"--mute-audio"]}, ValueError, "(each a str starting with '-'), got b'--mute-audio' in it"),
    ("browser", {"launch_args": 5}, ValueError, "launch_args must be a list of Chromium flags"),
    ("browser", {"launch_args": ["--user-data-dir=/tmp/x"]}, ValueError, "launch_args may not hold --user-data-dir: Playwright sets it"),
    # timeout_s <= 0 timed out the browser's first call ("no answer within 0 s"), plus asyncio noise
    ("browser", {"timeout_s": 0}, ValueError, "timeout_s must be a number of seconds > 0 and <= 86400"),
    ("browser", {"timeout_s": -1.5}, ValueError, "got -1.5"),
    ("browser", {"timeout_s": float("nan")}, ValueError, "got nan"),
    ("browser", {"timeout_s": float("inf")}, ValueError, "got inf"),
    ("browser", {"timeout_s": 1e12}, ValueError, "got 1000000000000.0"),  # an OverflowError in the first wait
    ("browser", {"timeout_s": "5"}, ValueError, "got '5'"),
    ("browser", {"timeout_s": True}, ValueError, "got True"),
    ("browser", {"executable": 5}, ValueError, "executable must be a path to a Chromium/Chrome executable (a str) or None, got 5"),
    ("browser", {"capture": "fast"}, ValueError, "capture must be one of ('auto', 'layer', 'screen'), got 'fast'"),
    ("browser", {"gc_every": -1}, ValueError, "gc_every must be an int >= 0 (0: never), got -1"),
])
def test_bad_backend_kwargs_fail_at_make_before_anything_starts(backend, kwargs, error, says, monkeypatch) -> None:
    """Each failed only at the first reset, some as a browser that would not start. Now
    ``gym.make`` names the option and what it takes; no backend is made, no browser started."""
    import guigym.env

    monkeypatch.setattr(guigym.env, "make_backend", lambda *a, **k: pytest.fail("a backend was made"))
    with pytest.raises(error, match=re.escape(says)):
        gym.make("GuiGym-Login-v0", backend=backend, backend_kwargs=kwargs)


def test_bad_browser_options_fail_in_the_backend_too() -> None:
    """The backend made directly checks the same, before any browser starts."""
    from guigym.backends.browser import BrowserBackend

    with pytest.raises(ValueError, match="launch_args must be a list of Chromium flags"):
        BrowserBackend(360, 640, launch_args="--mute-audio")
    with pytest.raises(ValueError, match="timeout_s must be a number of seconds > 0"):
        BrowserBackend(360, 640, timeout_s=0)


def test_good_backend_kwargs_reach_the_backend_as_given() -> None:
    """Valid options pass the checks at make unchanged (a generator of flags read once, into a
    tuple); the mock's ``shared_caches`` still works; no browser starts until a reset."""
    from guigym.backends.browser import BrowserBackend

    flags = (a for a in ["--mute-audio"])
    env = gym.make("GuiGym-Login-v0", backend="browser", backend_kwargs={"launch_args": flags, "timeout_s": 3, "capture": "screen"})
    assert env.unwrapped._backend_kwargs == {"launch_args": ("--mute-audio",), "timeout_s": 3, "capture": "screen"}
    b = BrowserBackend(360, 640, **env.unwrapped._backend_kwargs)  # not started: no show yet
    try:
        assert (b.launch_args, b.timeout_s, b.capture) == (("--mute-audio",), 3.0, "screen")
    finally:
        b.close()
    env.close()
    env = gym.make("GuiGym-Login-v0", backend_kwargs={"shared_caches": False})
    env.reset(seed=0)
    from guigym.backends import mock

    assert env.unwrapped.backend._caches is not mock._caches(env.unwrapped.width, env.unwrapped.height)  # its own
    env.close()


def test_the_docstring_names_every_variation_preset() -> None:
    from guigym.env import GuiEnv
    from guigym.variation import PRESETS

    text = " ".join(GuiEnv.__doc__.split())
    presets = text[text.index("Variation ("):]
    assert [p for p in PRESETS if f'``"{p}"``' not in presets] == []


def test_an_env_closed_during_a_step_starts_no_new_renderer() -> None:
    """``close()`` while a step runs (another thread's, here from inside the step) leaves the env
    without a renderer: the step's clean-up used to go through ``env.backend``, which made a
    new one (on the browser backend, a Chromium that nothing closed)."""
    env = gym.make("GuiGym-Login-v0").unwrapped
    _, info = env.reset(seed=0)
    step = env._step

    def closing_step(action):
        out = step(action)
        env.close()
        return out

    env._step = closing_step
    env.step(info["reference"][0].action)
    assert env._backend is None
    del env._step
    env.reset(seed=1)  # and the env starts a renderer again when used
    assert env._backend is not None
    env.close()
