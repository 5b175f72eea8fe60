"""Audit of the Gymnasium surface and the SB3 wrappers, as a demanding SB3/Gymnasium user meets
them: what ``tests/test_wrappers.py``, ``tests/test_gym_api.py`` and ``tests/test_api_audit.py``
do not already cover. Each test names the fault it found, where it found one."""

from __future__ import annotations

import copy
import functools
import json
import pickle

import gymnasium as gym
import numpy as np
import pytest

from guigym.actions import Answer, Click
from guigym.wrappers import DiscreteActions, NoEffectPenalty, instruction_spans, make_sb3_env
from tests.conftest import IDS, make

LOGIN = "GuiGym-Login-v0"


@pytest.mark.parametrize("wrapped", [False, True])
@pytest.mark.parametrize("bad,error", [({"levle": "hard"}, ValueError), ({"level": "extreme"}, ValueError), (["level"], TypeError)])
def test_steps_after_a_refused_first_reset_under_gym_make(wrapped: bool, bad: object, error: type) -> None:
    """A first ``reset`` that guigym refuses (documented: an unknown option key or level, options
    that are not a dict) left Gymnasium's passive checker (``gym.make`` adds it) without reset's
    data: after the next, good, reset the first step died inside the checker with ``TypeError:
    cannot unpack non-iterable NoneType object``."""
    env = make_sb3_env(LOGIN) if wrapped else gym.make(LOGIN)
    with pytest.raises(error):
        env.reset(options=bad)
    obs, _ = env.reset(seed=0, options={"level": "hard"})
    assert env.observation_space.contains(obs)
    env.action_space.seed(0)
    for _ in range(3):
        obs, *_ = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
    env.close()
    from guigym.registration import mend_passive_checker

    assert mend_passive_checker() is False  # once per process (import guigym did it)


@pytest.mark.parametrize("seed", [np.int64(7), np.uint32(7), np.int32(7)])
def test_a_numpy_integer_seed_is_that_ints_episode(seed: np.integer) -> None:
    """``reset(seed=np.int64(7))`` (a seed drawn with ``rng.integers``) raised Gymnasium's "Seed
    must be a python integer"; actions, viewports and wrapper settings already took numpy ints."""
    for build in (lambda: gym.make(LOGIN, level="medium"), lambda: make_sb3_env(LOGIN, prev_action=2)):
        a, b = build(), build()
        oa, ob = a.reset(seed=seed)[0], b.reset(seed=7)[0]
        assert oa.keys() == ob.keys() and all(np.array_equal(oa[k], ob[k]) for k in oa)
        assert a.unwrapped.np_random_seed == 7 and type(a.unwrapped.np_random_seed) is int
        assert a.unwrapped.get_state() == b.unwrapped.get_state()
    with pytest.raises(gym.error.Error):  # a negative one stays Gymnasium's error
        gym.make(LOGIN).reset(seed=np.int64(-1))


@pytest.mark.parametrize("env_id", ["GuiGym-Contacts-v0", "GuiGym-Calendar-v0"])
def test_the_answer_that_solves_a_question_task_is_not_penalised(env_id: str) -> None:
    """NoEffectPenalty said "solving the task never needs a no-op", yet the right ``Answer`` (which
    changes no pixel) cost the penalty: the solving step of every question task scored 1 - penalty."""
    env = NoEffectPenalty(make(env_id), penalty=0.5)
    answered = 0
    for seed in range(6):
        _, info = env.reset(seed=seed)
        while info["reference"]:
            step = info["reference"][0]
            before = env.unwrapped.observe()["screenshot"]
            _, r, term, _, info = env.step(step.action)
            if isinstance(step.action, Answer):
                answered += 1
                assert np.array_equal(env.unwrapped.observe()["screenshot"], before)  # it changes no pixel
                assert info["success"] and term and r == 1.0, (seed, r)
            if term:
                break
        assert info["success"]
    assert answered  # question tasks were met
    _, info = env.reset(seed=0)
    _, r, *_ = env.step(Answer("certainly not the answer"))  # a wrong answer is still a no-op's cost
    assert not info["success"] and r == -0.5


def test_a_grid_finer_than_two_pixels_a_cell_is_refused_and_valid_ones_round_trip() -> None:
    """Cells narrower than 2 pixels gave two indices one click point, and ``index_of`` of a cell's
    own centre returned a neighbour (grid (127, 16) on a 240-wide screen: cell 9's centre is x=17,
    which index_of put in cell 8); now a ``ValueError`` at construction."""
    for vp, grid in [((360, 640), (181, 16)), ((360, 640), (9, 321)), ((240, 304), (127, 16))]:
        with pytest.raises(ValueError, match="too fine for the"):
            DiscreteActions(make(LOGIN, viewport=vp), grid=grid)
    with pytest.raises(ValueError, match="too fine for the"):
        make_sb3_env(LOGIN, grid=(400, 16))
    for vp, grid in [((240, 304), (120, 152)), ((240, 304), (119, 7)), ("tablet", (9, 16)), ("landscape", (13, 5)),
                     ((361, 641), (180, 320))]:
        env = DiscreteActions(make(LOGIN, viewport=vp), grid=grid)
        env.reset(seed=0)
        for i in range(env.n_click):  # every cell centre on screen, and index_of its inverse
            a = env.action(i)
            assert 0 <= a.x < env.width and 0 <= a.y < env.height and env.index_of(a) == i, (vp, grid, i)
        spans = len(instruction_spans(env.unwrapped.instruction, env.type_slots))
        for i in range(env.n_click, int(env.action_space.n) - env.type_slots + spans):  # every other block, no spare slot
            assert env.index_of(env.action(i)) == i, (vp, grid, i)


@pytest.mark.parametrize("env_id", IDS)
def test_index_of_with_the_target_box_clicks_the_reference_target_or_says_it_cannot(env_id: str) -> None:
    """``index_of(Click)`` returned the cell holding the click point, whose centre can lie off the
    target (a neighbouring row on the tablet viewport, the gap beside a stepper's "+", a pop-up's
    button with ``variation``): an imitation target that clicked something else, silently. With
    the reference step's ``box`` it is a cell centred in the target, or a ``ValueError`` when no
    cell centre lies in it (as a Type of no instruction span already was)."""
    said = 0
    for kw in ({"viewport": "tablet"}, {"variation": "all", "split": "test"}):
        env = DiscreteActions(make(env_id, level="hard", **kw))
        for seed in range(2):
            _, info = env.reset(seed=seed)
            for _ in range(60):
                if not info["reference"]:
                    break
                step = info["reference"][0]
                try:
                    i = env.index_of(step.action, box=step.box)
                except ValueError as e:  # not expressible: a fact to type or answer, or a target between cell centres
                    if "grid's cells lies in its target box" in str(e):
                        said += 1
                        x0, y0, x1, y1 = step.box
                        a = env.action(env.index_of(step.action))  # without the box: a cell centred off the target
                        assert not (x0 <= a.x <= x1 and y0 <= a.y <= y1)
                    break
                if isinstance(step.action, Click):
                    x0, y0, x1, y1 = step.box
                    a = env.action(i)
                    assert x0 <= a.x <= x1 and y0 <= a.y <= y1
                _, _, term, trunc, info2 = env.step(i)
                assert info2["event"] == step.event, (kw, seed, step)
                info = info2
                if term or trunc:
                    break
        env.close()
    if env_id in ("GuiGym-Settings-v0", "GuiGym-Messages-v0", "GuiGym-Files-v0", "GuiGym-Calendar-v0"):
        assert said  # the case happened
    env = DiscreteActions(make(env_id))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="box must be four integers"):
        env.index_of(Click(5, 5), box=(1, 2, 3))


def test_copies_of_a_wrapped_env_step_on_their_own() -> None:
    """``pickle`` and ``copy.deepcopy`` of an SB3-wrapped env: DiscreteActions' GuiEnv is the copy's
    own (not the original's), so the copy reads its own instruction and steps as the original would."""
    env = make_sb3_env(LOGIN, level="medium", prev_action=2, noop_penalty=0.1)
    env.reset(seed=4)
    env.step(3)
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert twin.get_wrapper_attr("_gui") is twin.unwrapped is not env.unwrapped
        for a in (int(twin.action_space.n) - 1, 0, 12):
            o1, r1, t1, tr1, _ = env.step(a)
            o2, r2, t2, tr2, _ = twin.step(a)
            assert all(np.array_equal(o1[k], o2[k]) for k in o1) and (r1, t1, tr1) == (r2, t2, tr2)
        env.reset(seed=4)
        env.step(3)
        twin.close()
    env.close()


def _rollout(venv, steps: int = 6) -> list:
    venv.seed(11)
    out = [venv.reset()]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        obs, r, done, _ = venv.step(rng.integers(venv.action_space.n, size=venv.num_envs))
        out.append((obs, r.copy(), done.copy()))
    venv.close()
    return out


def test_subproc_and_dummy_vec_envs_and_vec_normalize_give_the_same_rollout() -> None:
    """make_sb3_env under SB3's SubprocVecEnv (envs made in other processes) gives what DummyVecEnv
    gives, the episode ends of ``max_episode_steps`` included; VecNormalize on the instruction runs."""
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecNormalize

    factory = functools.partial(make_sb3_env, LOGIN, max_episode_steps=4, prev_action=2, noop_penalty=0.1)
    runs = [_rollout(make_vec_env(factory, n_envs=2, vec_env_cls=cls)) for cls in (DummyVecEnv, SubprocVecEnv)]
    for a, b in zip(*runs):
        oa, ob = (a, b) if isinstance(a, dict) else (a[0], b[0])
        assert all(np.array_equal(oa[k], ob[k]) for k in oa)
        if not isinstance(a, dict):
            assert np.array_equal(a[1].astype(np.float32), b[1].astype(np.float32)) and np.array_equal(a[2], b[2])  # (float64 in Subproc)
    assert any(r[2].all() for r in runs[0][1:])  # the time limit ended both episodes
    norm = VecNormalize(make_vec_env(factory, n_envs=2), norm_obs_keys=["instruction"])
    obs = _rollout(norm)[-1][0]
    assert obs["image"].dtype == np.uint8 and obs["instruction"].dtype == np.float32


@pytest.mark.parametrize("kw,says", [
    ({"policy": "CnnPolicy", "env_kwargs": {"prev_action": 2}}, "prev_action > 0 needs the Dict observation"),
    ({"env_kwargs": {"gird": (1, 16)}}, "unexpected keyword argument 'gird'"),
    ({"env_kwargs": {"grid": (0, 16)}}, "grid[0] must be an integer >= 1"),
    ({"ppo_kwargs": {"n_step": 8}}, "ppo_kwargs ['n_step']: not arguments of stable-baselines3's PPO"),
    ({"ppo_kwargs": {"device": "cuda"}}, "ppo_kwargs ['device']: set by train_ppo itself"),
    ({"policy": "MlpPolicy"}, "policy must be one of MultiInputPolicy, CnnPolicy"),
    ({"reward_mode": "dense"}, "unknown reward_mode 'dense'"),
])
def test_train_ppo_refuses_a_bad_setup_before_it_touches_the_run_folder(kw: dict, says: str, tmp_path) -> None:
    """These failed inside SB3 or gym.make after the run folder was made and the last finished
    run's ``eval.json`` deleted (a TypeError for the misspelt ones), though the docstring said
    "bad arguments raise one ValueError before anything starts"."""
    from agents.sb3_baseline import train_ppo

    (tmp_path / "eval.json").write_text(json.dumps({"final_success": 0.5}))
    with pytest.raises(ValueError) as e:
        train_ppo(total_timesteps=8, n_envs=1, eval_episodes=0, progress=False, out_dir=tmp_path, **kw)
    assert says in str(e.value) and str(e.value).startswith("train_ppo: ")
    assert [p.name for p in tmp_path.iterdir()] == ["eval.json"]  # the finished run's marker is still there
