"""Faults found in an audit of the Ray front and the env pools, each with the test that found it."""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401

ray = pytest.importorskip("ray", reason="the Ray extra: pip install 'guigym[ray]' (CI installs it)")

from agents.env_pool import EnvPoolError, InlineEnvPool, RayEnvPool
from guigym.distributed import ActorFailure, RayVectorEnv
from tests.test_distributed import kill

ENV = "GuiGym-Login-v0"
BACK = "back()"


def test_a_step_whose_autoreset_fails_steps_no_env_past_its_end_afterwards(local_ray: None) -> None:
    """``step()`` raised ``ActorFailure`` for env 0's autoreset that failed every retry before its
    bookkeeping: env 1, whose episode ended in that very step, was not marked as ended, so a caller
    who caught the error and stepped on stepped env 1 past its end (its TimeLimit count went on).
    Now every env whose result that step dropped is reported at the next step as a failure
    (truncated, ``actor_failed``, its last observation), unstepped, and autoreset at the one after;
    env 0's autoreset is tried again (as ``GuiVectorEnv`` reports an episode lost in a call)."""

    def flaky_env() -> gym.Env:
        """Login whose episodes end after ``limit`` steps (1 after a reset with seed 0, else 2); after a
        seed-0 reset, its next two unseeded resets (autoresets) raise. ``t``: steps in this episode."""

        class Flaky(gym.Wrapper):
            limit, t, flaky = 2, 0, 0

            def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
                if seed is None and self.flaky > 0:
                    self.flaky -= 1
                    raise RuntimeError("flaky autoreset")
                if seed is not None:
                    self.limit, self.flaky = (1, 2) if seed == 0 else (2, 0)
                self.t = 0
                return self.env.reset(seed=seed, options=options)

            def step(self, action: Any) -> Any:
                obs, r, te, tr, info = self.env.step(action)
                self.t += 1
                return obs, r, te, tr or self.t >= self.limit, info

        return Flaky(gym.make(ENV))

    v = RayVectorEnv(flaky_env, num_actors=1, envs_per_actor=2, reset_retries=0)
    try:
        v.reset(seed=[0, 1])
        _, _, _, trunc, _ = v.step([BACK, BACK])
        assert trunc.tolist() == [True, False]
        with pytest.raises(ActorFailure, match="flaky autoreset"):
            v.step([BACK, BACK])  # env 0's autoreset fails twice; env 1 steps and its episode ends (limit 2)
        assert v.get_attr("t")[1] == 2
        obs, rew, term, trunc, info = v.step([BACK, BACK])
        assert v.get_attr("t") == (0, 2), "env 1 was stepped past the end of its episode"
        assert trunc.tolist() == [False, True] and not term.any() and rew[1] == 0.0
        assert info["actor_failed"].tolist() == [False, True] and "ActorFailure" in info["actor_error"][1]
        assert np.array_equal(obs["screenshot"][1], v.call("observe")[1]["screenshot"]), "its last observation"
        _, _, _, trunc, info = v.step([BACK, BACK])  # env 1's autoreset; env 0 steps (its limit is still 1)
        assert v.get_attr("t") == (1, 0) and trunc.tolist() == [True, False] and not info["actor_failed"].any()
    finally:
        v.close()


def test_a_failed_envs_info_in_a_ray_pool_has_the_state_of_its_last_observation(local_ray: None) -> None:
    """``EnvPool`` promises ``info["state"]`` in every info with ``with_state=True``; a
    ``RayEnvPool`` env whose actor died gave an info with ``actor_failed`` and no ``state`` (a
    ``KeyError`` for a caller reading it). It now has the state of the observation it repeats, the
    last good one (the env's own state went with its actor); so does ``RayVectorEnv(record_state=True)``."""
    pool = RayEnvPool(functools.partial(gym.make, ENV), num_envs=2, actors=1)
    try:
        (obs0, info0), (_, info1) = pool.reset([0, 1], [3, 4])
        kill(pool.venv, 0)
        for _ in range(2):  # reported again until reset, with the same state
            (obs, rew, term, trunc, info), = pool.step([0], [BACK])
            assert info["actor_failed"] and trunc and not term and rew == 0.0
            assert info["state"] == info0["state"] and np.array_equal(obs["screenshot"], obs0["screenshot"])
        (*_, info), = pool.step([1], [BACK])  # its mate, lost with the actor, not stepped
        assert info["actor_failed"] and info["state"] == info1["state"]
        (_, info), = pool.reset([0], [3])
        assert not info["actor_failed"] and info["state"] == info0["state"]
    finally:
        pool.close()


def test_a_closed_ray_pool_raises_env_pool_error_as_the_other_pools(local_ray: None) -> None:
    """After ``close()`` the inline and process pools raise ``EnvPoolError("the pool is closed")``;
    ``RayEnvPool`` raised Gymnasium's ``ClosedEnvironmentError``, which a trainer catching
    ``EnvPoolError`` did not catch."""
    pool = RayEnvPool(functools.partial(gym.make, ENV), num_envs=1, actors=1)
    pool.reset([0], [0])
    pool.close()
    with pytest.raises(EnvPoolError, match="closed"):
        pool.reset([0], [0])
    with pytest.raises(EnvPoolError, match="closed"):
        pool.step([0], [BACK])
    pool.close()  # again: a no-op


def test_a_ray_pool_makes_exactly_num_envs_envs_and_matches_the_inline_pool(local_ray: None) -> None:
    """``RayEnvPool(num_envs=5, actors=3)`` made ``ceil(5/3) * 3 = 6`` envs (16 over 3 actors: 18),
    the extra ones built and never used (a Chromium each with the browser backend). The actors now
    hold 2, 2 and 1 envs (``RayVectorEnv(envs_per_actor=[2, 2, 1])``), and give what the inline pool
    gives for the same seeds and actions."""
    fn = functools.partial(gym.make, ENV)
    pool, inline = RayEnvPool(fn, num_envs=5, actors=3), InlineEnvPool(fn, num_envs=5)
    try:
        assert pool.venv.num_envs == 5 and pool.venv.num_actors == 3 and pool.venv.envs_per_actor == (2, 2, 1)
        assert [pool.venv.actor_of(i) for i in range(5)] == [0, 0, 1, 1, 2]
        seeds = [7, 8, 9, 10, 11]
        got, want = pool.reset(range(5), seeds), inline.reset(range(5), seeds)
        for (o, i), (lo, li) in zip(got, want):
            assert o["instruction"] == lo["instruction"] and np.array_equal(o["screenshot"], lo["screenshot"])
            assert i["state"] == li["state"]
        acts = [info["reference"][0].action for _, info in want]
        for (o, r, te, tr, i), (lo, lr, lte, ltr, li) in zip(pool.step(range(5), acts), inline.step(range(5), acts)):
            assert (r, te, tr) == (lr, lte, ltr) and i["state"] == li["state"] and np.array_equal(o["screenshot"], lo["screenshot"])
    finally:
        pool.close()
        inline.close()


def test_a_vector_env_with_unequal_envs_per_actor(local_ray: None) -> None:
    """``envs_per_actor`` as one count per actor: env ``i`` lives in the actor whose range holds it;
    ``set_attr``, ``call_envs`` and the VectorEnv API address the right env; a killed actor takes
    only its own envs' episodes. A count list of the wrong length or with a count < 1 is refused."""
    for bad in ([2], [2, 0], [2, 1.5]):
        with pytest.raises(ValueError, match="envs_per_actor"):
            RayVectorEnv(ENV, num_actors=2, envs_per_actor=bad)
    v = RayVectorEnv(functools.partial(gym.make, ENV, max_episode_steps=50), num_actors=2, envs_per_actor=[1, 2])
    try:
        assert v.num_envs == 3 and v.envs_per_actor == (1, 2) and [v.actor_of(i) for i in range(3)] == [0, 1, 1]
        obs, _ = v.reset(seed=[1, 2, 3])
        local = [gym.make(ENV) for _ in range(3)]
        assert [o["instruction"] for o in (e.reset(seed=s)[0] for e, s in zip(local, [1, 2, 3]))] == list(obs["instruction"])
        v.set_attr("marker", ["a", "b", "c"])
        assert v.get_attr("marker") == ("a", "b", "c") and v.call_envs([2, 0], "get_wrapper_attr", "marker") == ["c", "a"]
        kill(v, 1)
        _, _, _, trunc, info = v.step([BACK] * 3)
        assert trunc.tolist() == [False, True, True] and info["actor_failed"].tolist() == [False, True, True]
        _, _, _, trunc, info = v.step([BACK] * 3)  # envs 1 and 2 autoreset on the fresh actor
        assert not trunc.any() and not info["actor_failed"].any() and v.restarts == [0, 1]
    finally:
        v.close()


def test_per_env_reset_options_to_reset_are_a_clear_type_error(local_ray: None) -> None:
    """``reset(options=[{...}, {...}])`` died in ``dict(options)`` ("dictionary update sequence
    element #0 ..."), and a list of two-key dicts even became a wrong dict. Now a ``TypeError``
    (as ``GuiVectorEnv``'s) that names ``reset_envs`` for per-env options, before any env resets."""
    v = RayVectorEnv(ENV, num_actors=1, envs_per_actor=2)
    try:
        obs, _ = v.reset(seed=[1, 2])
        state = v.np_random.bit_generator.state
        for options in ([{"level": "easy"}, {"level": "hard"}], [{"level": "easy", "x": 1}] * 2, "level"):
            with pytest.raises(TypeError, match="reset_envs"):
                v.reset(seed=7, options=options)  # type: ignore[arg-type]
        assert v.np_random.bit_generator.state == state  # a refused reset seeds nothing
        with pytest.raises(TypeError, match="dict or None"):
            v.reset_envs([0, 1], [1, 2], options=["level", None])  # type: ignore[list-item]
        assert v.get_attr("_elapsed_steps") == (0, 0) and v.call("observe")[0]["instruction"] == obs["instruction"][0]
        (o, _), = v.reset_envs([1], [5], options=[{"level": "easy"}])  # per-env options: the subset API
        assert o["instruction"] == gym.make(ENV, level="easy").reset(seed=5)[0]["instruction"]
    finally:
        v.close()
