"""The env pools behind ``train_small.py --rollout-workers``: the same results whatever the
number of workers, and faults that end in a clear error, never a hang."""

from __future__ import annotations

import os
import signal
import time
from functools import partial

import gymnasium as gym
import numpy as np
import pytest

import guigym  # noqa: F401
from agents.env_pool import EnvPoolError, InlineEnvPool, ProcessEnvPool
from guigym.actions import Click

ENV_FN = partial(gym.make, "GuiGym-Settings-v0", level="medium")


def _drive(pool, n: int = 3, steps: int = 6) -> list:
    """Reset every slot, then step a shrinking subset with oracle and off-target actions."""
    out = [(o["screenshot"].tobytes(), o["instruction"], info["state"]) for o, info in pool.reset(range(n), [11, 12, 13])]
    refs = [info["reference"] for _, info in pool.reset(range(n), [11, 12, 13])]
    for t in range(steps):
        idx = list(range(n))[t % 2:]
        acts = [refs[i][0].action if refs[i] and (i + t) % 3 else Click(5, 5) for i in idx]
        for i, (o, r, term, trunc, info) in zip(idx, pool.step(idx, acts)):
            out.append((i, o["screenshot"].tobytes(), r, term, trunc, info["state"], info["event"]))
            refs[i] = info["reference"]
    return out


def test_process_pool_matches_the_inline_pool_for_any_worker_count():
    inline = InlineEnvPool(ENV_FN, 3)
    expected = _drive(inline)
    inline.close()
    for workers in (1, 2, 3):
        pool = ProcessEnvPool(ENV_FN, 3, workers=workers)
        try:
            assert _drive(pool) == expected, workers
        finally:
            pool.close()


def test_bad_calls_are_clear_errors():
    pool = InlineEnvPool(ENV_FN, 2)
    with pytest.raises(ValueError, match="outside"):
        pool.reset([2], [0])
    with pytest.raises(ValueError, match="repeat"):
        pool.step([0, 0], [None, None])
    with pytest.raises(ValueError, match="2 indices but 1"):
        pool.reset([0, 1], [0])
    pool.close()


def _boom() -> gym.Env:
    env = ENV_FN()

    def step(action):
        raise RuntimeError("env exploded")

    env.step = step  # type: ignore[method-assign]
    return env


def test_an_env_that_raises_closes_the_pool_with_its_traceback():
    pool = ProcessEnvPool(_boom, 2, workers=2)
    pool.reset([0, 1], [0, 1])
    with pytest.raises(EnvPoolError, match="env exploded"):
        pool.step([1], [Click(5, 5)])
    assert not any(p.is_alive() for p in pool._procs)
    with pytest.raises(EnvPoolError, match="closed"):
        pool.reset([0], [0])


def test_a_killed_worker_is_an_error_not_a_hang():
    pool = ProcessEnvPool(ENV_FN, 2, workers=2, timeout_s=30)
    pool.reset([0, 1], [0, 1])
    procs = list(pool._procs)
    os.kill(procs[1].pid, signal.SIGKILL)
    procs[1].join(5)
    t = time.perf_counter()
    with pytest.raises(EnvPoolError, match="worker 1 died"):
        pool.step([0, 1], [Click(5, 5), Click(5, 5)])
    assert time.perf_counter() - t < 10
    assert not any(p.is_alive() for p in procs)
    pool.close()  # idempotent


def test_observations_are_what_a_single_env_gives():
    env = ENV_FN()
    obs, _ = env.reset(seed=5)
    pool = ProcessEnvPool(ENV_FN, 1, workers=1)
    try:
        [(pobs, info)] = pool.reset([0], [5])
        assert np.array_equal(pobs["screenshot"], obs["screenshot"]) and pobs["instruction"] == obs["instruction"]
        assert info["state"] == env.unwrapped.get_state()
    finally:
        pool.close()
        env.close()


def test_a_closed_inline_pool_says_so():
    pool = InlineEnvPool(ENV_FN, 2)
    pool.reset([0, 1], [0, 1])
    pool.close()
    pool.close()  # idempotent
    with pytest.raises(EnvPoolError, match="closed"):
        pool.reset([0], [0])
    with pytest.raises(EnvPoolError, match="closed"):
        pool.step([0], [Click(5, 5)])


class _Fragile:
    """An env factory whose ``fail_at``-th env fails to start; every env made says when it closes."""

    def __init__(self, fail_at: int) -> None:
        self.fail_at, self.made, self.closed = fail_at, 0, []

    def __call__(self) -> gym.Env:
        if self.made == self.fail_at:
            raise RuntimeError("the browser did not start")
        env = ENV_FN()
        k, real_close = self.made, env.close
        self.made += 1

        def close() -> None:
            self.closed.append(k)
            real_close()

        env.close = close  # type: ignore[method-assign]
        return env


def test_envs_made_before_one_that_fails_are_closed():
    """An env that fails to start (a browser that does not launch) left the envs made before it
    open, in the inline pool and in a pool worker (whose ``envs`` stayed empty until every env was
    made, so its ``finally`` closed none)."""
    from agents.env_pool import _worker

    fragile = _Fragile(fail_at=2)
    with pytest.raises(RuntimeError, match="did not start"):
        InlineEnvPool(fragile, num_envs=3)
    assert sorted(fragile.closed) == [0, 1]

    import multiprocessing as mp

    fragile = _Fragile(fail_at=1)
    parent, child = mp.Pipe()
    old = signal.getsignal(signal.SIGINT)
    try:
        _worker(child, fragile, [0, 1, 2], True)  # in this process: the worker's loop, without a process
    finally:
        signal.signal(signal.SIGINT, old)  # the worker ignores SIGINT; this process must not
    status, why = parent.recv()
    assert status == "error" and "did not start" in why
    assert fragile.closed == [0]
