"""Pools of envs stepped in lockstep by a trainer: in-process, or one env per slot spread over
worker processes.

A trainer that batches its policy over several episodes (``train_small.py --rollout-workers
N``) needs what a Gymnasium vector env does not give directly: reset *some* envs with
explicit seeds, step *some* envs (episodes end at different times), no autoreset, and each
env's ``get_state()`` after every reset and step. An :class:`EnvPool` does that:

* ``reset(indices, seeds)`` → ``[(obs, info), …]`` in the order of ``indices`` (seeds: ints
  >= 0, numpy integers or ``None``; anything else is a ``TypeError`` or ``ValueError`` before
  any env resets, as :func:`guigym.vector.check_seeds` says);
* ``step(indices, actions)`` → ``[(obs, reward, terminated, truncated, info), …]``;
* with ``with_state=True`` every ``info`` also has ``"state"``: ``env.unwrapped.get_state()``
  (a :class:`RayEnvPool` env whose actor failed: the state of the last observation, which its
  info repeats; the other pools raise :class:`EnvPoolError` instead).

Results depend only on the envs, seeds and actions, never on how slots are spread over
workers: the same calls give the same results for any number of workers (tested), which is
what makes ``--rollout-workers 1`` and ``--rollout-workers 2`` train the same curves.
:class:`InlineEnvPool` runs the slots in this process; :class:`ProcessEnvPool` puts slot ``i``
on worker ``i % workers`` and steps the workers in parallel; :class:`RayEnvPool` puts them on
Ray actors (``guigym.distributed``), on one machine or many.

>>> from functools import partial
>>> import gymnasium as gym, guigym
>>> pool = InlineEnvPool(partial(gym.make, "GuiGym-Login-v0"), num_envs=2)
>>> [sorted(info["state"])[:2] for obs, info in pool.reset([0, 1], [3, 4])]
[['history', 'initial_len'], ['history', 'initial_len']]
>>> pool.close()
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import traceback
from collections.abc import Callable, Sequence
from typing import Any, Optional, Protocol, runtime_checkable

import gymnasium as gym

from guigym.env import gui_env
from guigym.vector import check_seeds

__all__ = ["EnvPool", "EnvPoolError", "InlineEnvPool", "ProcessEnvPool", "RayEnvPool"]

StepResult = tuple[Any, float, bool, bool, dict]


class EnvPoolError(RuntimeError):
    """A worker died, hung past the pool's timeout, or its env raised (the message says which
    slot and carries the worker's traceback). The pool is closed when this is raised. A call to a
    closed pool raises it too (``"the pool is closed"``), whichever the pool."""


@runtime_checkable
class EnvPool(Protocol):
    num_envs: int

    def reset(self, indices: Sequence[int], seeds: Sequence[Optional[int]]) -> list[tuple[Any, dict]]: ...

    def step(self, indices: Sequence[int], actions: Sequence[Any]) -> list[StepResult]: ...

    def close(self) -> None: ...


def _with_state(env: gym.Env, info: dict, with_state: bool) -> dict:
    if with_state:
        info = dict(info)
        info["state"] = gui_env(env, "with_state=True").get_state()
    return info


def _check(indices: Sequence[int], other: Sequence[Any], n: int, what: str) -> list[int]:
    idx = [int(i) for i in indices]
    if len(idx) != len(other):
        raise ValueError(f"{len(idx)} indices but {len(other)} {what}")
    if len(set(idx)) != len(idx):
        raise ValueError(f"indices repeat: {idx}")
    bad = [i for i in idx if not 0 <= i < n]
    if bad:
        raise ValueError(f"indices {bad} outside the pool's {n} envs")
    return idx


class InlineEnvPool:
    """All slots in this process (no parallelism): the reference the worker pools must match."""

    def __init__(self, env_fn: Callable[[], gym.Env], num_envs: int, with_state: bool = True) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        self.num_envs = num_envs
        self.with_state = with_state
        self.envs: list[gym.Env] = []
        try:
            for _ in range(num_envs):
                self.envs.append(env_fn())
        except BaseException:  # the envs already made (a browser each, for Chromium) are not left open
            self.close()
            raise

    def _assert_open(self) -> None:
        if not self.envs:  # closed: the same error as ProcessEnvPool's, not an IndexError
            raise EnvPoolError("the pool is closed")

    def reset(self, indices: Sequence[int], seeds: Sequence[Optional[int]]) -> list[tuple[Any, dict]]:
        self._assert_open()
        out = []
        for i, s in zip(_check(indices, seeds, self.num_envs, "seeds"), check_seeds(seeds)):
            obs, info = self.envs[i].reset(seed=s)
            out.append((obs, _with_state(self.envs[i], info, self.with_state)))
        return out

    def step(self, indices: Sequence[int], actions: Sequence[Any]) -> list[StepResult]:
        self._assert_open()
        out = []
        for i, a in zip(_check(indices, actions, self.num_envs, "actions"), actions):
            obs, r, term, trunc, info = self.envs[i].step(a)
            out.append((obs, float(r), bool(term), bool(trunc), _with_state(self.envs[i], info, self.with_state)))
        return out

    def close(self) -> None:
        for e in self.envs:
            e.close()
        self.envs = []


def _worker(conn: Any, env_fn: Callable[[], gym.Env], slots: list[int], with_state: bool) -> None:
    envs: dict[int, gym.Env] = {}
    # a Ctrl-C in the terminal reaches the whole process group: the trainer decides what it
    # means (finish the iteration, save); the workers end when the pool closes or the pipe does
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        for i in slots:  # one at a time: if one fails, those made before are closed below
            envs[i] = env_fn()
        conn.send(("ok", None))
        while True:
            cmd, payload = conn.recv()
            if cmd == "close":
                break
            try:
                out: list[Any] = []
                for i, arg in payload:
                    if cmd == "reset":
                        obs, info = envs[i].reset(seed=arg)
                        out.append((obs, _with_state(envs[i], info, with_state)))
                    else:
                        obs, r, term, trunc, info = envs[i].step(arg)
                        out.append((obs, float(r), bool(term), bool(trunc), _with_state(envs[i], info, with_state)))
                conn.send(("ok", out))
            except Exception:  # reported to the trainer, which closes the pool
                conn.send(("error", traceback.format_exc()))
    except (EOFError, KeyboardInterrupt):
        pass
    except Exception:
        try:
            conn.send(("error", traceback.format_exc()))
        except (BrokenPipeError, OSError):
            pass
    finally:
        for e in envs.values():
            e.close()
        conn.close()


class ProcessEnvPool:
    """Slot ``i`` lives on worker process ``i % workers``; a call sends each worker its part,
    then gathers, so the workers step in parallel while results keep the order of ``indices``.

    ``env_fn`` must be picklable (e.g. ``functools.partial(gym.make, env_id, level=…)``): the
    workers are started with ``spawn`` by default, which is safe beside torch threads.
    A worker that dies or does not answer within ``timeout_s`` closes the pool and raises
    :class:`EnvPoolError`; ``close()`` always returns (it terminates what does not exit).
    """

    def __init__(self, env_fn: Callable[[], gym.Env], num_envs: int, workers: int, with_state: bool = True,
                 timeout_s: float = 120.0, start_method: str = "spawn") -> None:
        if num_envs < 1 or workers < 1:
            raise ValueError(f"num_envs and workers must be >= 1, got {num_envs} and {workers}")
        self.num_envs = num_envs
        self.workers = min(workers, num_envs)
        self.timeout_s = timeout_s
        ctx = mp.get_context(start_method)
        self._conns: list[Any] = []
        self._procs: list[Any] = []
        for w in range(self.workers):
            parent, child = ctx.Pipe()
            slots = list(range(w, num_envs, self.workers))
            p = ctx.Process(  # type: ignore[attr-defined]  # typeshed: get_context(str) gives BaseContext, which lacks Process
                target=_worker, args=(child, env_fn, slots, with_state), daemon=True, name=f"guigym-pool-{w}")
            p.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(p)
        for w in range(self.workers):
            self._recv(w)  # each worker says its envs are built (or why not)

    def _fail(self, w: int, why: str) -> EnvPoolError:
        """Close the pool (every worker) and return the error to raise."""
        proc = self._procs[w] if w < len(self._procs) else None
        self.close()
        code = proc.exitcode if proc is not None else None
        return EnvPoolError(f"worker {w} {why}" if code is None else f"worker {w} {why} (exit code {code})")

    def _recv(self, w: int) -> Any:
        conn = self._conns[w]
        try:
            if not conn.poll(self.timeout_s):
                raise self._fail(w, f"did not answer within {self.timeout_s:.0f} s")
            status, out = conn.recv()
        except (EOFError, OSError) as e:
            raise self._fail(w, "died") from e
        if status != "ok":
            raise self._fail(w, f"failed:\n{out}")
        return out

    def _call(self, cmd: str, indices: list[int], args: Sequence[Any]) -> list[Any]:
        if not self._conns:
            raise EnvPoolError("the pool is closed")
        parts: dict[int, list[tuple[int, Any]]] = {}
        for i, a in zip(indices, args):
            parts.setdefault(i % self.workers, []).append((i, a))
        for w, part in parts.items():
            try:
                self._conns[w].send((cmd, part))
            except OSError as e:
                raise self._fail(w, "died") from e
        got: dict[int, Any] = {}
        for w, part in parts.items():
            for (i, _), res in zip(part, self._recv(w)):
                got[i] = res
        return [got[i] for i in indices]

    def reset(self, indices: Sequence[int], seeds: Sequence[Optional[int]]) -> list[tuple[Any, dict]]:
        return self._call("reset", _check(indices, seeds, self.num_envs, "seeds"), check_seeds(seeds))

    def step(self, indices: Sequence[int], actions: Sequence[Any]) -> list[StepResult]:
        return self._call("step", _check(indices, actions, self.num_envs, "actions"), actions)

    def close(self) -> None:
        conns, procs = self._conns, self._procs
        self._conns, self._procs = [], []
        for c in conns:
            try:
                c.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join(timeout=2)
            if p.is_alive():
                p.kill()
                p.join()
        for c in conns:
            c.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


class RayEnvPool:
    """Slots on ``min(actors, num_envs)`` Ray actors (:class:`guigym.distributed.RayVectorEnv`, its
    subset API ``reset_envs``/``step_envs`` with ``record_state``): exactly ``num_envs`` envs, as
    evenly spread as they go (16 over 3 actors: 6, 5 and 5; no env is built that no slot uses).

    ``address`` is what ``ray.init`` takes (``"auto"``: the cluster ``ray start`` made); ``None``
    or ``"local"`` starts Ray in this process unless it is running. Screenshots are
    zlib-compressed when joining a cluster (they may cross the network). A dead actor (or an
    env that raises) does not close the pool, unlike the other pools' :class:`EnvPoolError`:
    the actor is replaced and the env's step reported as truncated, reward 0, its last
    observation, ``info["actor_failed"]`` (and, with ``with_state``, ``info["state"]`` of that
    observation), again at every step until the slot is reset; the rollout goes on (the run is
    then no longer deterministic). A reset that fails on fresh actors too raises
    :class:`guigym.distributed.ActorFailure`. After :meth:`close`, calls raise
    :class:`EnvPoolError` as the other pools' do.
    """

    def __init__(self, env_fn: Callable[[], gym.Env], num_envs: int, actors: int, address: Optional[str] = None,
                 with_state: bool = True) -> None:
        from guigym.distributed import RayVectorEnv

        if num_envs < 1 or actors < 1:
            raise ValueError(f"num_envs and actors must be >= 1, got {num_envs} and {actors}")
        actors = min(actors, num_envs)
        per, extra = divmod(num_envs, actors)  # the first `extra` actors hold one env more
        remote = address not in (None, "local")
        self.num_envs = num_envs
        self.venv = RayVectorEnv(env_fn, num_actors=actors, envs_per_actor=[per + (k < extra) for k in range(actors)] if extra else per,
                                 record_state=with_state, compress="zlib" if remote else None, address=address if remote else None)

    def _assert_open(self) -> None:
        if self.venv.closed:  # the same error as the other pools', not Gymnasium's ClosedEnvironmentError
            raise EnvPoolError("the pool is closed")

    def reset(self, indices: Sequence[int], seeds: Sequence[Optional[int]]) -> list[tuple[Any, dict]]:
        self._assert_open()
        # reset_envs checks the seeds itself (guigym.vector.check_seeds), before any env resets
        return self.venv.reset_envs(_check(indices, seeds, self.num_envs, "seeds"), list(seeds))

    def step(self, indices: Sequence[int], actions: Sequence[Any]) -> list[StepResult]:
        self._assert_open()
        return self.venv.step_envs(_check(indices, actions, self.num_envs, "actions"), list(actions))

    def close(self) -> None:
        self.venv.close()
