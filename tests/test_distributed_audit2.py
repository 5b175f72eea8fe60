"""Faults found in a second audit of the vector envs and the Ray front (a Gymnasium / Ray user's
view: seeds, a first reset that is refused, ``call``, autoreset modes, actions of the wrong form),
each with the test that found it. One small local Ray for the module."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import guigym  # noqa: F401
from guigym.actions import Back
from guigym.vector import GuiVectorEnv, per_env_actions

ray = pytest.importorskip("ray", reason="the Ray extra: pip install 'guigym[ray]' (CI installs it)")

from guigym.distributed import EnvActor, RayVectorEnv  # noqa: E402

ENV = "GuiGym-Login-v0"
BACK = "back()"


def login() -> gym.Env:
    return gym.make(ENV, disable_env_checker=True)


def stepped_alone(seeds: list[int], actions: list[Any]) -> tuple[Any, ...]:
    """Each single env's state after ``reset(seed=seeds[i])`` and ``step(actions[i])``."""
    out = []
    for s, a in zip(seeds, actions):
        env = gym.make(ENV)
        env.reset(seed=s)
        env.step(a)
        out.append(env.unwrapped.get_state())
        env.close()
    return tuple(out)


def instructions(seeds: list[int]) -> list[str]:
    env = gym.make(ENV)
    try:
        return [env.reset(seed=s)[0]["instruction"] for s in seeds]
    finally:
        env.close()


@pytest.fixture(scope="module")
def venv(local_ray: None) -> Iterator[RayVectorEnv]:
    """1 actor × 2 envs; episodes of 3 steps; ``autoreset_mode`` NEXT_STEP given, as a user of
    Gymnasium's vector envs may."""
    v = RayVectorEnv(ENV, num_actors=1, envs_per_actor=2, max_episode_steps=3, autoreset_mode=AutoresetMode.NEXT_STEP)
    yield v
    v.close()


# --------------------------------------------------------------------------- no Ray needed


def test_an_actors_env_whose_first_reset_is_refused_steps_normally_afterwards() -> None:
    """An actor's env made by ``gym.make(id)`` was wrapped in Gymnasium's PassiveEnvChecker, which
    breaks an env whose *first* reset raises (a bad level option, a negative seed): every later
    step raised ``TypeError: cannot unpack non-iterable NoneType object`` in its data-reuse check,
    so the env failed every step for good (reported ``actor_failed``, autoreset, failed again).
    The actor's envs now leave the checker out, as ``gym.make_vec``'s guigym envs do."""
    actor = EnvActor(ENV, {"max_episode_steps": 5}, 1)
    try:
        refused = actor.run([("reset", 0, 0, {"level": "nope"})])[0]
        assert refused[0] is False and isinstance(refused[2], ValueError)  # the caller's error, as before
        (ok, obs, _), = actor.run([("reset", 0, 3, None)])
        assert ok and obs["instruction"] == instructions([3])[0]
        recs = actor.run([("step", 0, BACK), ("step", 0, BACK)])
        assert [r[0] for r in recs] == [True, True], recs
    finally:
        actor.close()


def test_one_action_or_an_array_of_texts_for_a_vector_env() -> None:
    """``step("back()")`` on a vector env (one action for N envs, a common slip) died in Gymnasium's
    ``iterate`` with ``TypeError: string indices must be integers``; a numpy array of action texts
    (a policy's outputs) with an ``IndexError``; an incomplete batch dict with ``KeyError: 'app'``.
    One text or ``Action`` is now a ``TypeError`` that says to pass one action per env, an array
    of texts is one action per env, and any other batch that is not one a ``TypeError`` naming
    the space, nothing sent."""
    venv = GuiVectorEnv([login, login], envs_per_worker=2)
    try:
        venv.reset(seed=0)
        for one in (BACK, Back()):
            with pytest.raises(TypeError, match="one action .* pass a list of 2 actions"):
                venv.step(one)
        for bad in (None, 3, {"type": np.array([0, 0])}):
            with pytest.raises(TypeError, match=r"batch of action_space \(a Dict\) or a list of 2 actions"):
                venv.step(bad)
        assert venv.get_attr("_elapsed_steps") == (0, 0) and venv.restarts == [0, 0], "nothing was stepped"
        _, _, _, _, info = venv.step(np.array([BACK, 'type(text="x")']))
        assert venv.get_attr("_elapsed_steps") == (1, 1) and "worker_failed" not in info
        assert venv.call("get_state") == stepped_alone([0, 1], [BACK, 'type(text="x")'])  # each env its own action
    finally:
        venv.close()
    space = gym.vector.utils.batch_space(gym.spaces.Discrete(3), 2)  # a numeric batch is still a batch
    assert per_env_actions(space, np.array([1, 2]), 2) == [1, 2]


def test_gui_vector_env_takes_numpy_integer_seeds_and_refuses_a_float_clearly() -> None:
    """``reset(seed=np.arange(n))`` (or a list of numpy integers) raised Gymnasium's ``Seed must be
    a python integer`` from each env; ``seed=2.0`` died in ``len()``, ``seed="3"`` in a length check
    (its characters taken for seeds). Numpy integers are now ints, as an int seed's already were,
    and any other type is one ``TypeError``."""
    venv = GuiVectorEnv([login, login], envs_per_worker=2)
    try:
        want = instructions([4, 5])
        for seed in (np.arange(4, 6), [np.int64(4), np.int32(5)], (4, 5)):
            obs, _ = venv.reset(seed=seed)
            assert list(obs["instruction"]) == want
        for bad in (2.0, "45"):
            with pytest.raises(TypeError, match="seed must be an int"):
                venv.reset(seed=bad)  # type: ignore[arg-type]
        venv.step([BACK, BACK])  # still usable
    finally:
        venv.close()


def test_call_wait_with_an_infinite_or_bad_timeout_leaves_the_vector_env_usable() -> None:
    """``call_wait(timeout=math.inf)`` raised ``OverflowError`` from the selector after the call was
    sent, and the vector env stayed waiting for that call for good: every later ``step``,
    ``reset`` or ``call`` was ``AlreadyPendingCallError``. ``inf`` now waits without a limit (as
    ``step_wait``'s does), and a negative or NaN timeout is a ``ValueError`` before anything is
    waited for, after which ``call_wait()`` still collects the call."""
    venv = GuiVectorEnv([login, login], envs_per_worker=1)
    try:
        venv.reset(seed=0)
        venv.call_async("get_wrapper_attr", "_elapsed_steps")
        assert venv.call_wait(timeout=float("inf")) == (0, 0)
        for bad in (-1, float("nan")):
            venv.call_async("get_wrapper_attr", "_elapsed_steps")
            with pytest.raises(ValueError, match="timeout"):
                venv.call_wait(timeout=bad)
            assert venv.call_wait() == (0, 0)
        venv.step([BACK, BACK])
        assert venv.get_attr("_elapsed_steps") == (1, 1) and venv.restarts == [0, 0]
    finally:
        venv.close()


def test_ray_autoreset_modes_other_than_next_step_are_refused_before_any_actor_starts() -> None:
    """``RayVectorEnv(id, autoreset_mode=...)`` passed the option on to ``gym.make``: every mode,
    NEXT_STEP included, was ``TypeError: GuiEnv.__init__() got an unexpected keyword argument``.
    NEXT_STEP (what it does) is taken; the others are a ``ValueError`` naming the alternatives,
    raised before Ray is touched (no cluster is needed to see it)."""
    for mode in (AutoresetMode.SAME_STEP, "Disabled", "bogus"):
        with pytest.raises(ValueError, match="NEXT_STEP only"):
            RayVectorEnv(ENV, autoreset_mode=mode, address="127.0.0.1:1")


# --------------------------------------------------------------------------- one small local Ray


def test_a_bad_seed_is_the_callers_error_at_once_not_retried_actor_failures(venv: RayVectorEnv) -> None:
    """A negative seed, a float or a string raised Gymnasium's ``gymnasium.error.Error`` in the
    actor, which is not a ``ValueError``: it was taken for the env's fault, retried
    ``reset_retries`` times and raised as ``ActorFailure`` ("failed 3 times"). A list of numpy
    integers (``list(np.arange(n))``) failed the same way. Bad seeds are now a ``ValueError`` or
    ``TypeError`` before anything is sent (the episodes and ``np_random`` untouched); numpy
    integers are ints, in ``reset`` and ``reset_envs`` alike."""
    obs, _ = venv.reset(seed=10)
    states, rng = venv.call("get_state"), venv.np_random.bit_generator.state
    for seed, err in (([-1, 2], ValueError), (-1, ValueError), ([1.5, 2], TypeError), ("ab", TypeError),
                      ([True, 1], TypeError), (2.0, TypeError)):
        with pytest.raises(err, match="seed"):
            venv.reset(seed=seed)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed 0"):
        venv.reset_envs([1], [-3])
    assert venv.restarts == [0] and venv.call("get_state") == states and venv.np_random.bit_generator.state == rng
    want = instructions([4, 5])
    for seeds in (list(np.arange(4, 6)), np.arange(4, 6)):
        obs, _ = venv.reset(seed=seeds)
        assert list(obs["instruction"]) == want
    assert [o["instruction"] for o, _ in venv.reset_envs([1, 0], [np.int64(5), np.uint8(4)])] == want[::-1]


def test_a_refused_first_reset_leaves_the_ray_env_working(local_ray: None) -> None:
    """End to end: a fresh vector env whose first reset names an unknown level raises the env's
    ``ValueError``; after a good reset every step used to fail (``actor_failed``, "cannot unpack
    non-iterable NoneType object"). Now the envs step as the single env does."""
    v = RayVectorEnv(ENV, num_actors=1, envs_per_actor=2)
    try:
        with pytest.raises(ValueError, match="level"):
            v.reset(seed=0, options={"level": "nope"})
        obs, _ = v.reset(seed=0)
        assert list(obs["instruction"]) == instructions([0, 1])
        for _ in range(2):
            _, _, _, trunc, info = v.step([BACK, BACK])
            assert not info["actor_failed"].any(), info["actor_error"]
            assert not trunc.any()
    finally:
        v.close()


def test_call_refuses_reset_step_and_close_as_gymnasium_does(venv: RayVectorEnv) -> None:
    """``call("reset")`` reset the envs inside their actor behind the front: an env whose episode
    had ended was then reset a second time by the next ``step`` (its seeded episode thrown away),
    and ``call("step", a)`` stepped episodes the front never saw. Gymnasium's ``AsyncVectorEnv``
    and ``GuiVectorEnv`` refuse these names; so does the Ray front now, for every env and for
    ``call_envs``. Other calls still work."""
    venv.reset(seed=0)
    before = venv.call("get_state")
    for name, args in (("reset", ()), ("step", (BACK,)), ("close", ())):
        with pytest.raises(ValueError, match=f"`{name}` with `call`"):
            venv.call(name, *args)
        with pytest.raises(ValueError, match=f"`{name}` with `call`"):
            venv.call_envs([1], name, *args)
    assert venv.call("get_state") == before and venv.get_attr("_elapsed_steps") == (0, 0)


def test_ray_steps_an_array_of_texts_and_refuses_one_action_clearly(venv: RayVectorEnv) -> None:
    """The same action forms on the Ray front: one text is a ``TypeError`` before any actor gets a
    step; an array of texts steps each env with its own."""
    venv.reset(seed=0)
    with pytest.raises(TypeError, match="one action"):
        venv.step(BACK)
    assert venv.get_attr("_elapsed_steps") == (0, 0)
    _, _, _, _, info = venv.step(np.array([BACK, 'type(text="x")']))
    assert not info["actor_failed"].any() and venv.get_attr("_elapsed_steps") == (1, 1)
    assert venv.call("get_state") == stepped_alone([0, 1], [BACK, 'type(text="x")'])


def test_copy_hands_out_writable_arrays_for_a_wrapped_envs_array_observation(local_ray: None) -> None:
    """``copy=True`` (the default) promises writable copies from ``reset_envs``/``step_envs``, but
    only a Dict observation's keys were copied: a wrapped env whose observation is an array itself
    (``NumericObservation(image_only=True)``, a ``Box``) got the read-only zero-copy view of Ray's
    store (``ValueError: assignment destination is read-only`` on an in-place normalisation).
    With ``copy=False`` the views stay read-only, as documented."""
    from guigym.wrappers import NumericObservation

    image_only_login = lambda: NumericObservation(gym.make(ENV), image_only=True)  # noqa: E731 - pickled by value for the actor
    for copy in (True, False):
        v = RayVectorEnv(image_only_login, num_actors=1, envs_per_actor=1, copy=copy)
        try:
            (obs, _), = v.reset_envs([0], [1])
            (stepped, *_), = v.step_envs([0], [v.single_action_space.sample()])
            local = image_only_login()
            assert np.array_equal(obs, local.reset(seed=1)[0])
            assert obs.flags.writeable == stepped.flags.writeable == copy
        finally:
            v.close()


def test_every_env_pool_takes_numpy_integer_seeds(local_ray: None) -> None:
    """``pool.reset(range(2), np.arange(2))``: the inline pool raised Gymnasium's ``Seed must be a
    python integer`` (and, under its passive checker, left the env failing every step), the
    process pool closed itself with ``EnvPoolError``. Every pool now gives the episodes of the
    same int seeds, as the Ray pool does."""
    from agents.env_pool import InlineEnvPool, ProcessEnvPool, RayEnvPool

    fn = functools.partial(gym.make, ENV)
    want = instructions([7, 8])
    for pool in (InlineEnvPool(fn, 2), ProcessEnvPool(fn, 2, workers=1), RayEnvPool(fn, 2, actors=1)):
        try:
            assert [o["instruction"] for o, _ in pool.reset([0, 1], np.arange(7, 9))] == want, type(pool).__name__
            assert all(not (te or tr) for _, _, te, tr, _ in pool.step([0, 1], [BACK, BACK]))
        finally:
            pool.close()
