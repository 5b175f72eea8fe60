"""``GuiVectorEnv``: guigym's asynchronous vector env, what ``gym.make_vec(id, n)`` builds.

A subclass of Gymnasium's :class:`~gymnasium.vector.AsyncVectorEnv` with the same API
(``reset``/``step`` and their ``_async``/``_wait`` halves, the three autoreset modes,
``reset(options={"reset_mask": ...})``, ``call``, ``get_attr``, ``set_attr``, ``render``,
seeding, ``close``) and five differences:

* **Shared memory for every fixed-size observation key, the pipe for the rest.** The screenshot
  and the text keys (``instruction``, ``history``) go through shared memory; a key whose size
  changes (``elements``) is pickled through the pipe. Gymnasium's own ``AsyncVectorEnv`` needs
  ``shared_memory=False`` for ``elements``, which pipes every screenshot too.
* **Several envs per worker** (``envs_per_worker=k``): worker ``w`` runs envs ``w*k`` to
  ``w*k + k - 1`` one after the other, and one message a step carries all their actions and
  results. ``gym.make_vec(id, n)`` puts at most one mock worker on each usable core.
* **Faults are contained.** A worker that dies (killed, out of memory, a crashed browser taking
  it down) or that does not answer within ``worker_timeout`` seconds is replaced by a fresh
  worker, and each of its envs fails; an env that raises in ``step`` is made anew (its worker
  restarted when it holds that env alone, otherwise the env is closed and made again inside
  the worker, whose other envs carry on; if that fails too, the worker is restarted). The other
  envs carry on. A failed env's step returns
  ``reward=0``, ``terminated=False``, ``truncated=True`` and ``info["worker_failed"]`` (a bool
  array over the envs, with Gymnasium's ``info["_worker_failed"]`` mask) and
  ``info["worker_error"]`` (the error text, an object array). Its observation is, by autoreset mode:

  - ``NEXT_STEP`` (default): the env's last observation (the one before the failed step); the
    next step ignores that env's action and returns the first observation of a new episode of
    the env made anew (reward 0, not done), like any autoreset step.
  - ``SAME_STEP``: the first observation of a new episode of the env made anew;
    ``info["final_obs"]`` holds the last observation before the failure, ``info["final_info"]``
    the failure keys.
  - ``DISABLED``: the last observation; reset that env (``options={"reset_mask": ...}``) as
    after any truncation. Under ``DISABLED`` a step while an env's episode has ended (a failure
    included) raises ``gym.error.ResetNeeded`` naming it, before anything is sent.

  An env whose step went well but whose worker was restarted for another env's failure keeps
  that step's observation, reward and ``info``, and is truncated with the failure keys: its
  episode ended with the worker.
  (Under ``SAME_STEP`` they are its ``final_obs`` and ``final_info``: the episode's real end
  when that step ended it.)
  A ``timeout`` given to ``step_wait``/``reset_wait`` works like ``worker_timeout`` for that call
  (late workers are restarted; Gymnasium raises ``TimeoutError`` instead); ``0`` polls once, as
  Gymnasium's does.
  A worker that dies during ``reset`` is restarted and its reset repeated once (reported the
  same way). An exception raised by ``env.reset`` itself (a bad option) and errors in ``call`` /
  ``get_attr`` / ``set_attr`` are raised in the caller, as Gymnasium does, and leave the vector
  env usable. A worker that dies in ``call`` / ``get_attr`` / ``set_attr`` is restarted and the
  error raised; the episodes its envs were in are lost, and the next step reports each as a
  failed step (as above, without stepping the env), unless a reset comes first. More than
  ``max_restarts`` env restarts in all (a worker's restart counts one for each of its envs) raise
  ``RuntimeError`` (an env that fails on every step is a bug to fix, not to retry forever). An
  env that cannot be made at all makes the constructor raise its exception (the worker's
  traceback attached), without a restart.
* **Per-env actions.** ``step`` also takes a list of ``num_envs`` actions, each anything
  ``env.step`` takes (an action's text, an :class:`~guigym.actions.Action`), as
  :class:`guigym.distributed.RayVectorEnv` does: a language model's policy gives one text per env.
  A 1-D numpy array of texts is such a list; one text or ``Action`` for all the envs, or anything
  that is neither a list nor a batch, is a ``TypeError`` before anything is sent.
* **close() always returns**, within about ``close_timeout`` seconds plus one, and leaves no
  worker process: workers that do not exit when asked are terminated, then killed.

The observation a worker was writing when it was killed may be torn (part old, part new screen);
only that env's failed step can show it.
"""

from __future__ import annotations

import copy as copy_module
import io
import math
import multiprocessing as mp
import numbers
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.reduction import ForkingPickler
from typing import Any, cast

import gymnasium as gym
import numpy as np
from gymnasium import logger, spaces
from gymnasium.error import AlreadyPendingCallError, NoAsyncCallError
from gymnasium.vector import AsyncVectorEnv, AutoresetMode
from gymnasium.vector.async_vector_env import AsyncState
from gymnasium.vector.utils import (
    CloudpickleWrapper,
    batch_space,
    clear_mpi_env_vars,
    concatenate,
    create_empty_array,
    create_shared_memory,
    iterate,
    read_from_shared_memory,
    write_to_shared_memory,
)

from guigym.actions import ACTION_CLASSES
from guigym.registration import CheckedSpec
from guigym.spaces import SharedTexts

#: Keyword arguments of :func:`make_vector` that configure the vector env, not the envs.
VECTOR_OPTIONS = ("copy", "context", "autoreset_mode", "worker_timeout", "max_restarts", "close_timeout", "envs_per_worker",
                  "worker_threads")


class WorkerDied(RuntimeError):
    """A worker process ended (or stopped answering) instead of replying. ``error``: the
    ``(exception, traceback)`` it reported before ending, if any (its envs could not be made;
    in the constructor that exception itself is raised instead)."""

    def __init__(self, message: str, error: tuple[BaseException, str] | None = None) -> None:
        super().__init__(message)
        self.error = error


class GuiVectorEnv(AsyncVectorEnv):
    """Runs ``env_fns`` in worker processes; see the module docstring for what differs from
    Gymnasium's ``AsyncVectorEnv``.

    Args:
        env_fns: functions that make the envs (each called in its worker, and ``env_fns[0]`` once
            here to read the spaces; guigym envs start no backend until their first reset).
        copy: return copies of the observations (default; keys sent by pipe, ``elements``, too)
            rather than what the vector env holds: read-only views of shared memory that the next
            step overwrites, and the piped objects it keeps (a whole observation sent by pipe: a
            writable batch buffer the next call refills, as Gymnasium's with ``shared_memory=False``).
        context: ``multiprocessing`` start method (``None``: the platform's default).
        daemon: mark workers as daemons (they end with this process).
        autoreset_mode: ``AutoresetMode`` or its value (``"NextStep"``, ``"SameStep"``, ``"Disabled"``).
        worker_timeout: seconds a worker may take for one ``reset``/``step`` (of all its envs)
            before it is counted as hung, killed and restarted (``None``: wait for ever; a dead
            worker is noticed at once either way).
        max_restarts: env restarts allowed over the vector env's life before ``RuntimeError``.
        close_timeout: seconds ``close()`` waits for workers to close their envs before killing them.
        envs_per_worker: envs each worker process runs, one after the other, per step: env ``i``
            lives in worker ``i // envs_per_worker``. One message a step then carries that many
            envs' actions and results, which divides the per-message cost (a pipe write that
            wakes the other process costs ~70 µs of CPU on a VM) among them: for the mock,
            whose step costs ~0.2 ms, use about one worker per core. For the browser, several
            envs per worker pay only with ``worker_threads``.
        worker_threads: a worker resets and steps its envs each in a thread of its own, at once:
            for the browser, whose steps mostly wait on Chromium, the waits then overlap (the
            envs' browser calls interleave on the process's event loop). No use for the mock,
            whose drawing holds a lock.
    """
    #: gym.make_vec(id, family=...) made another family's envs under id: refused when set
    spec = CheckedSpec()

    def __init__(
        self,
        env_fns: Sequence[Callable[[], gym.Env]],
        copy: bool = True,
        context: str | None = None,
        daemon: bool = True,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        worker_timeout: float | None = None,
        max_restarts: int = 100,
        close_timeout: float = 5.0,
        envs_per_worker: int = 1,
        worker_threads: bool = False,
    ) -> None:
        if len(env_fns) < 1:
            raise ValueError("GuiVectorEnv needs at least one env function")
        if worker_timeout is not None and not _seconds(worker_timeout, 0.0, open_low=True):  # inf: selectors overflow; NaN never expires
            raise ValueError(f"worker_timeout must be a finite number of seconds > 0, or None (no limit), got {worker_timeout!r}")
        if not _seconds(close_timeout, 0.0):  # -1 killed the workers without asking them to close; inf would never return
            raise ValueError(f"close_timeout must be a finite number of seconds >= 0, got {close_timeout!r}")
        if isinstance(max_restarts, bool) or not isinstance(max_restarts, (int, np.integer)) or max_restarts < 0:
            raise ValueError(f"max_restarts must be an int >= 0, got {max_restarts!r}")
        if isinstance(envs_per_worker, bool) or not isinstance(envs_per_worker, (int, np.integer)) or envs_per_worker < 1:
            raise ValueError(f"envs_per_worker must be an int >= 1, got {envs_per_worker!r}")
        self.env_fns = list(env_fns)
        self.num_envs = len(self.env_fns)
        self._owner = os.getpid()  # the process whose workers these are (a forked child's copy must leave them alone)
        self.shared_memory, self.copy, self.context, self.daemon = True, copy, context, daemon
        self.worker, self.observation_mode, self.max_concurrency = None, "same", None
        self.autoreset_mode = autoreset_mode if isinstance(autoreset_mode, AutoresetMode) else AutoresetMode(autoreset_mode)
        self.worker_timeout, self.max_restarts, self.close_timeout = worker_timeout, max_restarts, close_timeout
        #: Envs per worker process (the last worker may hold fewer), and whether each steps in a thread.
        self.envs_per_worker = k = int(min(envs_per_worker, self.num_envs))
        self.worker_threads = bool(worker_threads)
        #: The envs of each worker, in order: worker ``w`` holds envs ``w * k`` to ``w * k + k - 1``.
        self.worker_envs: list[range] = [range(s, min(s + k, self.num_envs)) for s in range(0, self.num_envs, k)]
        #: Restarts so far, per env (a restart of a worker counts for each of its envs).
        self.restarts = [0] * self.num_envs

        dummy = self.env_fns[0]()
        self.metadata = {**dummy.metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = dummy.render_mode
        self.single_action_space, self.single_observation_space = dummy.action_space, dummy.observation_space
        dummy.close()
        del dummy
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

        self._ctx = mp.get_context(context)
        self._shm_keys, self._pipe_keys, shm = _split_shared(self.single_observation_space, self.num_envs, self._ctx)
        self._shm = shm
        self._views = {k: read_from_shared_memory(self._space(k), shm[k], n=self.num_envs) for k in self._shm_keys}
        for view in self._views.values():  # only workers write there (and may skip a frame a slot holds)
            if isinstance(view, np.ndarray):
                view.flags.writeable = False
        if not isinstance(self.single_observation_space, spaces.Dict) and self._pipe_keys:  # the whole obs goes by pipe
            self._pipe_buf = create_empty_array(self.single_observation_space, n=self.num_envs, fn=np.zeros)
        self._pipe_obs: list[Any] = [None] * self.num_envs  # each env's last pipe-sent part
        self.error_queue = None  # type: ignore[assignment]  # errors come back through the pipes
        n_workers = len(self.worker_envs)
        self._pipes: list[Connection | None] = [None] * n_workers
        self._procs: list[Any] = [None] * n_workers
        self._dead: dict[int, str] = {}  # worker -> why it is known dead before a reply (a failed send)
        self._dead_error: dict[int, tuple[BaseException, str]] = {}  # worker -> the error it reported before a failed send
        self._reset_kwargs: list[dict[str, Any] | None] = [None] * self.num_envs
        self._reset_done = np.zeros(self.num_envs, dtype=np.bool_)  # reset by the caller at least once (else stepping is a usage error)
        # episode ended in the last step, not reset since (NEXT_STEP: the next step resets it; DISABLED: stepping it is a usage error)
        self._ended = np.zeros(self.num_envs, dtype=np.bool_)
        #: env -> why: its worker was restarted in ``call``/``get_attr``/``set_attr`` while its episode ran; the
        #: next step reports that episode's end (as a failed step) instead of stepping the env
        self._lost: dict[int, str] = {}
        with clear_mpi_env_vars():
            try:
                for w in range(n_workers):
                    self._start_worker(w, needs_reset=False)
            except BaseException:  # an env fn that spawn/forkserver cannot pickle: no worker outlives the error
                for w in range(n_workers):
                    self._stop_worker(w, grace=0.0)
                raise
        self._state = AsyncState.DEFAULT
        try:
            self._check_spaces()
        except BaseException:  # an env that cannot be made (its own error) or other spaces: no worker outlives it
            self.close()  # and, closed, the object has nothing left to do when a forked child collects it
            raise

    @property
    def processes(self) -> list[Any]:  # type: ignore[override]
        """The worker process of each env (Gymnasium's attribute: one entry per env; envs of
        the same worker share it)."""
        return [self._procs[i // self.envs_per_worker] for i in range(self.num_envs)]

    @property
    def parent_pipes(self) -> list[Connection | None]:  # type: ignore[override]
        """The pipe to each env's worker (one entry per env, as in Gymnasium)."""
        return [self._pipes[i // self.envs_per_worker] for i in range(self.num_envs)]

    # --- observations ------------------------------------------------------------------
    def _space(self, key: str | None) -> spaces.Space[Any]:
        return self.single_observation_space if key is None else self.single_observation_space[key]  # type: ignore[index]

    @property
    def observations(self) -> Any:
        """The batch as the vector env holds it: views of shared memory (what ``copy=False`` returns)."""
        return self._batch(copy=False)

    def _batch(self, copy: bool) -> Any:
        def shared(key: str | None) -> Any:
            view = self._views[key]
            if not copy:
                return view
            return view.copy() if isinstance(view, np.ndarray) else copy_module.deepcopy(view)

        def piped(key: str | None) -> Any:
            items = [p if key is None else p[key] for p in self._pipe_obs]
            if key is None:  # a whole non-Dict observation: batch it like Gymnasium does
                self._pipe_buf = concatenate(self.single_observation_space, items,
                                             self._pipe_buf)  # type: ignore[arg-type]  # gymnasium's hint omits a custom space's None
                return copy_module.deepcopy(self._pipe_buf) if copy else self._pipe_buf
            # a Sequence key batches to a tuple (Gymnasium's concatenate) of the very objects kept in
            # _pipe_obs (a failed env's next step, its final_obs and a masked reset show them again): copied
            return tuple(_owned(p) for p in items) if copy else tuple(items)

        if not isinstance(self.single_observation_space, spaces.Dict):
            return shared(None) if self._shm_keys else piped(None)
        return {k: shared(k) if k in self._views else piped(k) for k in self.single_observation_space.spaces}

    def _single(self, i: int) -> Any:
        """A copy of env ``i``'s current observation (unbatched)."""
        def one(key: str | None) -> Any:
            if key in self._views:
                return _slot(self._views[key], i)
            p = self._pipe_obs[i]
            return copy_module.deepcopy(p if key is None else p[key])

        if not isinstance(self.single_observation_space, spaces.Dict):
            return one(None)
        return {k: one(k) for k in self.single_observation_space.spaces}

    # --- workers -----------------------------------------------------------------------
    def _start_worker(self, w: int, needs_reset: bool) -> None:
        parent, child = self._ctx.Pipe()
        shm = {k: self._shm[k] for k in self._shm_keys}
        envs = self.worker_envs[w]
        p = self._ctx.Process(  # type: ignore[attr-defined]  # typeshed's BaseContext lacks Process, which every real context has
            target=_worker, name=f"Worker<{type(self).__name__}>-{w}", daemon=self.daemon,
            args=(envs.start, [CloudpickleWrapper(self.env_fns[i]) for i in envs], child, shm, self._pipe_keys,
                  self.autoreset_mode, needs_reset, self.worker_threads,
                  # Linux's parent-death signal fires when the forking thread ends: from another thread
                  # (a short-lived one would kill the worker at once) the worker ends on its pipe's EOF instead
                  threading.current_thread() is threading.main_thread()),
        )
        p.start()
        child.close()
        self._pipes[w], self._procs[w] = parent, p
        self._dead.pop(w, None)
        self._dead_error.pop(w, None)

    def _stop_worker(self, w: int, grace: float) -> None:
        """End worker ``w``: ask it to close its envs (if it can still hear), then terminate, then kill."""
        p, pipe = self._procs[w], self._pipes[w]
        if p is None:
            return
        if p.is_alive() and grace > 0 and pipe is not None and w not in self._dead:
            try:
                pipe.send(("close", None))
            except (OSError, ValueError):
                pass
            p.join(grace)
        for stop in (p.terminate, p.kill):
            if p.is_alive():
                stop()
                p.join(1.0)
        if pipe is not None:
            pipe.close()
        self._procs[w] = self._pipes[w] = None

    def _count_restart(self, envs: Sequence[int], why: str) -> None:
        """Count a restart of ``envs``; ``RuntimeError`` past ``max_restarts``."""
        total = sum(self.restarts) + len(envs)
        if total > self.max_restarts:
            raise RuntimeError(f"GuiVectorEnv: env {envs[0]} failed ({_gist(why)}) and the vector env has "
                               f"already restarted envs {sum(self.restarts)} times (max_restarts={self.max_restarts})")
        for i in envs:
            self.restarts[i] += 1

    def _restart(self, w: int, why: str) -> None:
        """Replace worker ``w`` by a fresh one, whose envs start a new episode at their next step."""
        self._count_restart(self.worker_envs[w], why)
        logger.warn(f"GuiVectorEnv: worker {w} (envs {list(self.worker_envs[w])}) failed and is restarted: "
                    f"{_gist(why)}")
        self._stop_worker(w, grace=1.0)
        self._start_worker(w, needs_reset=True)

    def _rebuild(self, i: int, why: str) -> bool:
        """Env ``i`` raised in ``step``: make it anew (a new episode at its next step). Alone in
        its worker, the worker is restarted; otherwise the worker closes it and makes another,
        and its other envs carry on. Returns whether the worker was restarted (with all its envs:
        also when making the env anew failed)."""
        w = i // self.envs_per_worker
        if len(self.worker_envs[w]) == 1 or w in self._dead:
            self._restart(w, why)
            return True
        self._count_restart([i], why)
        logger.warn(f"GuiVectorEnv: env {i} raised and is made anew in its worker: {_gist(why)}")
        self._send_worker(w, "_rebuild", [j == i for j in self.worker_envs[w]])
        ok, payload = self._collect([i], self.worker_timeout)[i]
        if ok:
            return False
        self._restart(w, _error_text(payload))
        return True

    def _send_worker(self, w: int, command: str, items: list[Any]) -> None:
        """Send ``command`` with one item per env of worker ``w``."""
        self._send_bytes(w, _dumps((command, items)))

    def _send_bytes(self, w: int, message: memoryview) -> None:
        """Send a pickled ``(command, items)`` to worker ``w`` (marked dead if it is gone)."""
        if w in self._dead:
            return
        try:
            self._pipes[w].send_bytes(message)  # type: ignore[union-attr]
        except (OSError, ValueError) as e:  # BrokenPipeError: the worker is gone
            reported = self._last_words(w)
            if reported is not None:  # it could not make its envs, said why and ended (before reading a large message)
                self._dead[w], self._dead_error[w] = f"worker failed: {_gist(_error_text(reported))}", reported
            else:
                self._dead[w] = _died(self._procs[w], f"{type(e).__name__} on send")

    def _last_words(self, w: int) -> tuple[BaseException, str] | None:
        """The ``(exception, traceback)`` worker ``w`` sent before ending (its envs could not be
        made), read from its pipe after a send to it failed; ``None`` if it sent none."""
        pipe = self._pipes[w]
        try:
            if pipe is None or not pipe.poll(0):  # an ended worker's words are in the pipe before the pipe breaks
                return None
            ok, payload = pipe.recv()
        except Exception:  # noqa: BLE001 - nothing readable: it died without a word
            return None
        return None if ok else cast("tuple[BaseException, str]", payload)

    def _send(self, command: str, items: Sequence[Any]) -> None:
        """Send ``command`` to every worker, with ``items[i]`` for env ``i``."""
        # pickle them all first: an item that cannot be pickled (an odd action) then raises before any
        # worker got the command, whose reply the next call would otherwise read as its own
        try:
            messages = [_dumps((command, [items[i] for i in envs])) for envs in self.worker_envs]
        except (pickle.PickleError, AttributeError, TypeError) as e:  # a lambda: AttributeError, a lock: TypeError
            bad = next((i for i in range(len(items)) if not _picklable(items[i])), None)
            what = {"step": "the action", "reset": "the reset options", "_call": "the call's arguments",
                    "_setattr": "the value"}.get(command, "the item")
            raise TypeError(f"GuiVectorEnv: {what} of env {bad} cannot be pickled for its worker process "
                            f"({type(e).__name__}: {e}); nothing was sent") from e
        for w, message in enumerate(messages):
            self._send_bytes(w, message)

    def _collect(self, envs: Sequence[int], timeout: float | None) -> dict[int, tuple[bool, Any]]:
        """Each env's reply ``(ok, payload)`` (the replies of the workers that hold ``envs``); the
        envs of a dead or hung worker, or of one that could not make its envs, give ``(False, WorkerDied)``."""
        k = self.envs_per_worker
        asked: dict[int, list[int]] = {}
        for i in envs:
            asked.setdefault(i // k, []).append(i)
        out: dict[int, tuple[bool, Any]] = {}

        def fail(w: int, err: WorkerDied) -> None:
            for i in asked[w]:
                out[i] = (False, err)

        for w in [w for w in asked if w in self._dead]:
            fail(w, WorkerDied(self._dead[w], self._dead_error.get(w)))
        pending = {cast(Connection, self._pipes[w]): w for w in asked if w not in self._dead}  # a live worker has its pipe
        deadline = None if timeout is None else time.monotonic() + timeout
        while pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = cast("list[Connection]", wait(list(pending), left))  # some of the pipes given
            if not ready:  # timed out: every worker still busy counts as hung
                for pipe, w in pending.items():
                    fail(w, WorkerDied(f"worker did not answer within {timeout} s (hung); killed"))
                    self._dead[w] = "hung"
                break
            for pipe in ready:
                w = pending.pop(pipe)
                try:
                    ok, payload = pipe.recv()
                except (EOFError, OSError) as e:
                    fail(w, WorkerDied(_died(self._procs[w], f"{type(e).__name__} on receive")))
                    self._dead[w] = "died"
                    continue
                except Exception as e:  # noqa: BLE001 - the reply pickled there but cannot be unpickled here: its envs fail
                    # (the message was read whole, so the pipe stays in step; raising here left the call pending for ever)
                    fail(w, WorkerDied(f"worker's reply could not be unpickled: {type(e).__name__}: {e}"))
                    continue
                if not ok:  # the worker could not make its envs, and has ended
                    fail(w, WorkerDied(f"worker failed: {_gist(_error_text(payload))}", payload))
                    self._dead[w] = "ended"
                    continue
                first = self.worker_envs[w].start
                for i in asked[w]:
                    out[i] = payload[i - first]
        return out

    def _dead_workers(self, replies: dict[int, tuple[bool, Any]]) -> dict[int, WorkerDied]:
        """The workers (in order) whose envs' replies say they died, hung or ended, each with
        that :class:`WorkerDied` (all its envs carry the same one)."""
        out: dict[int, WorkerDied] = {}
        for i in sorted(replies):
            ok, payload = replies[i]
            if not ok and isinstance(payload, WorkerDied):
                out.setdefault(i // self.envs_per_worker, payload)
        return out

    def _deadline(self, timeout: float | None) -> float | None:
        """A ``*_wait`` call's time limit: its own ``timeout``, else ``worker_timeout``. ``0`` polls
        once (as Gymnasium's ``AsyncVectorEnv``), so workers not done yet count as hung; ``timeout
        or worker_timeout`` read it as none given (no limit at all without ``worker_timeout``).
        ``inf`` is no limit (the selector raised OverflowError on it); a negative number or NaN
        is a ``ValueError`` before anything is waited for."""
        if timeout is None:
            return self.worker_timeout
        if isinstance(timeout, numbers.Real) and not isinstance(timeout, bool) and float(timeout) == math.inf:
            return None
        if not _seconds(timeout, 0.0):
            raise ValueError(f"timeout must be a number of seconds >= 0, inf (no limit) or None (worker_timeout), got {timeout!r}")
        return timeout

    # --- reset -------------------------------------------------------------------------
    def reset_async(self, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None) -> None:
        self._assert_is_running()
        if seed is None:
            seed = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seed = [int(seed) + i for i in range(self.num_envs)]
        elif isinstance(seed, (list, tuple, np.ndarray)):  # numpy integers (np.arange's) as the ints env.reset takes
            seed = list(seed)
        else:  # a float or a str: len() failed, or a str's characters became the seeds
            raise TypeError(f"seed must be an int (seed + i for env i), a list of one int or None per env, or None; "
                            f"got {type(seed).__name__}")
        if len(seed) != self.num_envs:
            raise ValueError(f"If seeds are passed as a list the length must match num_envs={self.num_envs} but got length={len(seed)}.")
        # a float, a str or a negative seed is the caller's error, here (a worker raised gymnasium.error.Error
        # after the other envs had reset), as RayVectorEnv does
        seed = check_seeds(seed)
        if self._state != AsyncState.DEFAULT:
            raise AlreadyPendingCallError(f"Calling `reset_async` while waiting for a pending call to `{self._state.value}` to complete",
                                          str(self._state.value))
        mask = np.ones(self.num_envs, dtype=np.bool_)
        if options is not None and "reset_mask" in options:
            options = dict(options)
            mask = options.pop("reset_mask")
            if not isinstance(mask, np.ndarray) or mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise TypeError(f"`options['reset_mask']` must be a numpy bool array of shape ({self.num_envs},), got {mask!r}")
            if not mask.any():
                raise ValueError(f"`options['reset_mask']` must contain at least one True value, got reset_mask={mask}")
        for i in range(self.num_envs):
            self._reset_kwargs[i] = {"seed": seed[i], "options": options} if mask[i] else None
        self._send("reset", self._reset_kwargs)  # None: that env is not reset
        self._state = AsyncState.WAITING_RESET

    def reset_wait(self, timeout: float | None = None) -> tuple[Any, dict[str, Any]]:
        self._assert_is_running()
        if self._state != AsyncState.WAITING_RESET:
            raise NoAsyncCallError("Calling `reset_wait` without any prior call to `reset_async`.", AsyncState.WAITING_RESET.value)
        replies = self._collect(range(self.num_envs), self._deadline(timeout))
        self._state = AsyncState.DEFAULT
        failed: dict[int, str] = {}  # env -> why its worker was restarted
        for w, died in self._dead_workers(replies).items():  # restart it and reset its envs again, once
            envs = self.worker_envs[w]
            why = str(died)
            self._restart(w, why)
            self._send_worker(w, "reset", [self._reset_kwargs[i] or {} for i in envs])  # its envs lost their episodes
            replies.update(self._collect(envs, self._deadline(timeout)))
            failed.update({i: why for i in envs})
        infos: dict[str, Any] = {}
        error: BaseException | None = None
        for i in range(self.num_envs):
            ok, payload = replies[i]
            if not ok:
                error = error or _exception(payload, i)
                continue
            pipe_obs, info = payload
            if pipe_obs is not None:
                self._pipe_obs[i] = pipe_obs
            if self._reset_kwargs[i] is not None or i in failed:
                self._reset_done[i] = True
                self._ended[i] = False
                self._lost.pop(i, None)  # a new episode: the lost one ended unseen, as any reset ends an episode
            if i in failed:
                info = {**info, "worker_failed": True, "worker_error": failed[i]}
            infos = self._add_info(infos, info, i)
        if error is not None:
            raise error
        return self._batch(self.copy), infos

    # --- step --------------------------------------------------------------------------
    def step_async(self, actions: Any) -> None:
        self._assert_is_running()
        if self._state != AsyncState.DEFAULT:
            raise AlreadyPendingCallError(f"Calling `step_async` while waiting for a pending call to `{self._state.value}` to complete.",
                                          str(self._state.value))
        if not self._reset_done.all():  # else each env's ResetNeeded would count as a failure and restart its worker
            raise gym.error.ResetNeeded(f"envs {np.flatnonzero(~self._reset_done).tolist()} were never reset; call reset() before step()")
        if self.autoreset_mode == AutoresetMode.DISABLED and self._ended.any():  # it would step on past its end, as Gymnasium asserts
            ended = np.flatnonzero(self._ended).tolist()
            raise gym.error.ResetNeeded(
                f"envs {ended} ended their episodes (terminated or truncated) and autoreset_mode is Disabled: reset them "
                f"first with reset(options={{'reset_mask': mask}}), mask True at {ended}; nothing was stepped")
        items = per_env_actions(self.action_space, actions, self.num_envs)
        for i in self._lost:  # its worker was restarted in a call: left alone, its lost episode's end is reported
            items[i] = _LOST
        self._send("step", items)
        self._state = AsyncState.WAITING_STEP

    def step_wait(self, timeout: float | None = None) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self._assert_is_running()
        if self._state != AsyncState.WAITING_STEP:
            raise NoAsyncCallError("Calling `step_wait` without any prior call to `step_async`.", AsyncState.WAITING_STEP.value)
        replies = self._collect(range(self.num_envs), self._deadline(timeout))
        self._state = AsyncState.DEFAULT
        n = self.num_envs
        rewards, terms, truncs = np.zeros(n, dtype=np.float64), np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_)
        infos: dict[str, Any] = {}
        failed: dict[int, str] = {}
        for i in range(n):
            ok, payload = replies[i]
            if not ok:
                failed[i] = _error_text(payload)
                continue
            pipe_obs, rewards[i], terms[i], truncs[i], info = payload
            if pipe_obs is not None:
                self._pipe_obs[i] = pipe_obs
        for i in [i for i in self._lost if replies[i][0]]:  # the worker left it alone: reported as a failed step below
            failed[i] = self._lost.pop(i)
        self._lost.clear()  # (the others' workers died in this step: reported as such)
        restarted: set[int] = set()  # workers restarted in this step
        for w, died in self._dead_workers(replies).items():  # restarted once, for all its envs
            self._restart(w, _error_text(died))
            restarted.add(w)
        for i in [i for i in failed if not replies[i][0]]:  # an env that raised: made anew
            w = i // self.envs_per_worker
            if w not in restarted and self._rebuild(i, failed[i]):
                restarted.add(w)
        for w in restarted:  # the restarted workers' other envs lost their episodes with them
            first = min(j for j in failed if j // self.envs_per_worker == w)
            for i in self.worker_envs[w]:
                failed.setdefault(i, f"restarted with its worker after env {first} failed")
        for i in range(n):
            if i not in failed:
                infos = self._add_info(infos, replies[i][1][4], i)
                continue
            why = failed[i]
            ended = bool(terms[i] or truncs[i])  # its own step ended its episode (SAME_STEP: the worker reset it)
            truncs[i] = True
            if not replies[i][0]:
                rewards[i], terms[i] = 0.0, False
            fail = {"worker_failed": True, "worker_error": why}
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                last, final = self._single(i), fail  # its last observation: before the failed step, or its step's own
                if replies[i][0]:  # a mate whose step went well: its episode ends with that step's observation and info
                    step_info = replies[i][1][4]
                    if ended:  # the worker had reset it already: its slot shows that reset, the reply the real end
                        last, step_info = step_info["final_obs"], step_info["final_info"]
                    final = {**step_info, **fail}
                info = self._fresh_episode(i, why)
                infos = self._add_info(infos, {"final_obs": last, "final_info": final, **info, **fail}, i)
            else:  # its next step resets; the shared slot still shows its last obs
                infos = self._add_info(infos, {**replies[i][1][4], **fail} if replies[i][0] else fail, i)
        if self.autoreset_mode != AutoresetMode.SAME_STEP:  # NEXT_STEP: reset at the next step; DISABLED: by the caller first
            self._ended = terms | truncs
        return self._batch(self.copy), rewards, terms, truncs, infos

    def _fresh_episode(self, i: int, why: str) -> dict[str, Any]:
        """Reset env ``i`` now, made anew after a failure (SAME_STEP); its info."""
        w = i // self.envs_per_worker
        self._send_worker(w, "reset", [{} if j == i else None for j in self.worker_envs[w]])
        ok, payload = self._collect([i], self.worker_timeout)[i]
        if not ok:
            raise RuntimeError(f"GuiVectorEnv: env {i} failed ({_gist(why)}) and its restarted worker "
                               f"could not reset: {payload}")
        pipe_obs, info = payload
        if pipe_obs is not None:
            self._pipe_obs[i] = pipe_obs
        return info

    # --- call / attributes -------------------------------------------------------------
    def call_async(self, name: str, /, *args: Any, **kwargs: Any) -> None:
        self._assert_is_running()
        if self._state != AsyncState.DEFAULT:
            raise AlreadyPendingCallError(f"Calling `call_async` while waiting for a pending call to `{self._state.value}` to complete.",
                                          str(self._state.value))
        self._send("_call", [(name, args, kwargs)] * self.num_envs)
        self._state = AsyncState.WAITING_CALL

    def call_wait(self, timeout: float | None = None) -> tuple[Any, ...]:
        self._assert_is_running()
        if self._state != AsyncState.WAITING_CALL:
            raise NoAsyncCallError("Calling `call_wait` without any prior call to `call_async`.", AsyncState.WAITING_CALL.value)
        # None: no limit, as Gymnasium's (worker_timeout is for reset and step); inf too (the selector raised
        # OverflowError on it, and the vector env was left waiting for a call for good); a bad one raises first
        replies = self._collect(range(self.num_envs), None if timeout is None else self._deadline(timeout))
        self._state = AsyncState.DEFAULT
        return self._results(replies)

    def set_attr(self, name: str, values: Any) -> None:
        self._assert_is_running()
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"Values must be a list or tuple with length equal to the number of environments. "
                             f"Got `{len(values)}` values for {self.num_envs} environments.")
        if self._state != AsyncState.DEFAULT:
            raise AlreadyPendingCallError(f"Calling `set_attr` while waiting for a pending call to `{self._state.value}` to complete.",
                                          str(self._state.value))
        self._send("_setattr", [(name, v) for v in values])
        self._results(self._collect(range(self.num_envs), None))

    def _results(self, replies: dict[int, tuple[bool, Any]]) -> tuple[Any, ...]:
        """The payloads in env order; a dead worker is restarted, then the first error is raised."""
        error: BaseException | None = None
        for w, died in self._dead_workers(replies).items():
            self._restart(w, str(died))
            for i in self.worker_envs[w]:  # an episode under way is gone with the worker: the next step says so
                if self._reset_done[i] and not self._ended[i]:
                    self._lost[i] = f"worker restarted during call/get_attr/set_attr: {_gist(str(died))}"
        for i in range(self.num_envs):
            ok, payload = replies[i]
            if not ok:
                error = error or _exception(payload, i)
        if error is not None:
            raise error
        return tuple(replies[i][1] for i in range(self.num_envs))

    def _check_spaces(self) -> None:
        """Every env has the first one's spaces. The constructor's first message to the workers:
        one that could not make its envs (or died) raises its error here (the env's own
        exception, its traceback attached) and is not restarted: it would fail again."""
        check = (self.single_observation_space, self.single_action_space)
        for w, envs in enumerate(self.worker_envs):  # the spaces' uniform bounds sent compact (a screenshot's: 2 x 691,200 bytes)
            self._send_bytes(w, _dumps(("_check_spaces", [check] * len(envs)), compact=True))
        replies = self._collect(range(self.num_envs), None)
        for i in range(self.num_envs):
            ok, payload = replies[i]
            if not ok:
                raise _exception(payload, i)
        same_obs, same_act = zip(*(replies[i][1] for i in range(self.num_envs)))
        if not all(same_obs):
            raise RuntimeError("GuiVectorEnv: the envs' observation spaces differ; every env must have the first one's")
        if not all(same_act):
            raise RuntimeError(f"Some environments have an action space different from `{self.single_action_space}`. "
                               "In order to batch actions, the action spaces from all environments must be equal.")

    # --- close -------------------------------------------------------------------------
    def close_extras(self, timeout: float | None = None, terminate: bool = False) -> None:
        """Ask every worker to close its envs, wait up to ``timeout`` (default ``close_timeout``)
        seconds in all, then terminate and kill what is left. Never raises, never blocks longer.
        In a forked child (a worker of another vector env collecting a copy of this object) it
        does nothing: the workers are the parent's."""
        if os.getpid() != self._owner:
            return
        budget = 0.0 if terminate else (self.close_timeout if timeout is None else timeout)
        live = [w for w in range(len(self.worker_envs)) if self._pipes[w] is not None]
        if self._state != AsyncState.DEFAULT:  # drain replies in flight (results are dropped)
            self._collect([self.worker_envs[w].start for w in live], min(budget, 1.0))
            self._state = AsyncState.DEFAULT
        for w in live:
            if budget > 0:
                self._send_worker(w, "close", [])
        deadline = time.monotonic() + budget
        for w in range(len(self.worker_envs)):
            p = self._procs[w]
            if p is not None:
                p.join(max(0.0, deadline - time.monotonic()))
            self._dead[w] = "closing"
            self._stop_worker(w, grace=0.0)

    def __repr__(self) -> str:
        spec = getattr(self, "spec", None)
        per = f", envs_per_worker={self.envs_per_worker}" if self.envs_per_worker > 1 else ""
        return f"GuiVectorEnv({spec.id + ', ' if spec is not None else ''}num_envs={self.num_envs}{per})"


class _Lost:
    """What a step sends instead of the action of an env whose episode was lost with its worker in a
    ``call``: the worker leaves the env alone (the parent reports the lost episode's end)."""


_LOST = _Lost()


def check_seeds(seeds: Sequence[Any]) -> list[int | None]:
    """``seeds`` as ``env.reset`` takes them: each ``None`` or a Python int >= 0 (a numpy integer
    made one). Anything else is the caller's error, raised here, before anything is sent: a
    ``TypeError`` (a float, a str, a bool) or a ``ValueError`` (a negative int). In a worker or an
    actor, Gymnasium's own error for it (``gymnasium.error.Error``, not a ``ValueError``) came
    after the other envs had reset (:class:`GuiVectorEnv`), or was taken for the env's fault,
    retried and raised as ``ActorFailure`` (``guigym.distributed.RayVectorEnv``)."""
    out: list[int | None] = []
    for j, s in enumerate(seeds):
        if s is None:
            out.append(None)
            continue
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"seed {j} must be an int >= 0 or None, got {s!r} ({type(s).__name__})")
        if s < 0:
            raise ValueError(f"seed {j} must be an int >= 0 or None, got {s}")
        out.append(int(s))
    return out


def per_env_actions(action_space: spaces.Space[Any], actions: Any, num_envs: int) -> list[Any]:
    """One action per env: a batch of ``action_space`` (what Gymnasium's vector envs take), or a
    list or tuple of ``num_envs`` actions, each anything ``env.step`` takes (an action's text, an
    :class:`~guigym.actions.Action`, a dict of the single action space). A list is never a batch
    of guigym's ``Dict`` action space, so the two cannot be confused.

    >>> per_env_actions(None, ["back()", 'type(text="hi")'], 2)
    ['back()', 'type(text="hi")']
    """
    # one action for a vector env: indexed as a batch, it failed obscurely ("string indices must be integers")
    if isinstance(actions, (str, bytes, *ACTION_CLASSES)):
        raise TypeError(f"one action ({actions!r:.80}) for num_envs={num_envs}: pass a list of {num_envs} actions, "
                        "one per env, or a batch of action_space")
    if isinstance(actions, np.ndarray) and actions.ndim == 1 and actions.dtype.kind in "USO":
        actions = actions.tolist()  # texts (or Actions) in an array: one per env, never a batch of numbers
    if isinstance(actions, (list, tuple)):
        if len(actions) != num_envs:
            raise ValueError(f"{len(actions)} actions for num_envs={num_envs}")
        return list(actions)
    try:
        out = list(iterate(action_space, actions))
    except (TypeError, KeyError, IndexError, ValueError, AssertionError, AttributeError) as e:
        raise TypeError(f"actions must be a batch of action_space (a {type(action_space).__name__}) or a list of {num_envs} actions, "
                        f"one per env; got {type(actions).__name__} ({type(e).__name__}: {str(e)[:200]})") from e
    if len(out) != num_envs:  # iterate() follows the batch, not the space: extra actions would be dropped silently
        raise ValueError(f"a batch of {len(out)} actions for num_envs={num_envs}")
    return out


def _integer_scalar(v: np.generic) -> tuple[type, tuple[int | bool]]:
    """Pickle a numpy integer or bool scalar as its type called on the Python value (the same
    type and value back)."""
    return type(v), (v.item(),)


class _Pickler(ForkingPickler):
    """``multiprocessing``'s pickler (what ``Connection.send`` uses), with numpy's integer and
    bool scalars pickled as their type and Python value. A step's actions, iterated out of the
    batch into one dict per env, hold five such scalars per env; numpy's own reduction of a
    scalar (its dtype, then its bytes) took ~3 us each, most of the parent's work in sending a
    step. Floats keep numpy's reduction, which keeps every bit (NaN payloads included)."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.dispatch_table.update(_SCALAR_REDUCERS)


_SCALAR_REDUCERS: dict[type, Callable[[Any], tuple[type, tuple[int | bool]]]] = {
    t: _integer_scalar for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_)}


class _CompactPickler(_Pickler):
    """:class:`_Pickler` that sends a large array whose elements are all the same (bit for bit)
    as ``np.full`` of its shape, value and dtype: a ``Box`` space's bounds (a screenshot's are
    691,200 zeros and as many 255s)."""

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is np.ndarray and obj.size >= 64 and obj.dtype.kind in "biuf" and obj.dtype.itemsize in (1, 2, 4, 8):
            flat = obj.reshape(-1)
            bits = flat.view(f"u{obj.dtype.itemsize}")
            if (bits == bits[0]).all():
                return np.full, (obj.shape, flat[0], obj.dtype)
        return NotImplemented


def _dumps(obj: Any, compact: bool = False) -> memoryview:
    """``obj`` pickled for a worker's pipe (read back by ``Connection.recv``); ``compact``: with
    :class:`_CompactPickler` (slower per object: for the spaces' check only)."""
    buf = io.BytesIO()
    (_CompactPickler if compact else _Pickler)(buf).dump(obj)
    return buf.getbuffer()


def _split_shared(space: spaces.Space[Any], n: int, ctx: Any) -> tuple[list[Any], list[Any], dict[Any, Any]]:
    """(keys in shared memory, keys sent through the pipe, their buffers); a non-Dict space is one key, ``None``."""
    items = list(space.spaces.items()) if isinstance(space, spaces.Dict) else [(None, space)]
    shm_keys, pipe_keys, buffers = [], [], {}
    for key, sub in items:
        try:
            buf = create_shared_memory(sub, n=n, ctx=ctx)
        except (TypeError, gym.error.CustomSpaceError):  # dynamic size (Sequence, Graph) or no shared-memory support
            pipe_keys.append(key)
            continue
        if not _live(read_from_shared_memory(sub, buf, n=n)):  # the batch would keep showing what it holds now
            pipe_keys.append(key)
            continue
        buffers[key] = buf
        shm_keys.append(key)
    return shm_keys, pipe_keys, buffers


def _slot(view: Any, i: int) -> Any:
    """A copy of env ``i``'s part of a batched shared-memory read: a ``Dict`` or ``Tuple``
    space reads as a dict or tuple of batched views (indexing those by ``i`` picked a key or a
    sub-space, not the env)."""
    if isinstance(view, dict):
        return {k: _slot(v, i) for k, v in view.items()}
    if isinstance(view, tuple):
        return tuple(_slot(v, i) for v in view)
    return view[i].copy() if isinstance(view, np.ndarray) else copy_module.deepcopy(view[i])


_ATOMS = frozenset({str, int, float, bool, bytes, type(None)})
_IMMUTABLE = (str, bytes, int, float, complex, np.generic, type(None))


def _owned(x: Any) -> Any:
    """A copy of a piped observation part (guigym's ``elements``: a tuple of dicts of str, int and a
    small array) that shares nothing mutable with ``x``: arrays copied, plain containers rebuilt,
    immutable leaves shared; anything else deep-copied. About a third of ``copy.deepcopy``'s time."""
    t = type(x)
    if t in _ATOMS:
        return x
    if t is np.ndarray:
        return x.copy()
    if t is dict:
        return {k: _owned(v) for k, v in x.items()}
    if t is tuple:
        return tuple([_owned(v) for v in x])
    if t is list:
        return [_owned(v) for v in x]
    return x if isinstance(x, _IMMUTABLE) else copy_module.deepcopy(x)


def _live(view: Any) -> bool:
    """Whether a read of shared memory shows later writes: numpy arrays and guigym's
    :class:`~guigym.spaces.SharedTexts` do; Gymnasium's read of a plain ``Text`` (a tuple of
    ``str``) or of a ``OneOf`` is built once, at the read."""
    if isinstance(view, (np.ndarray, SharedTexts)):
        return True
    if isinstance(view, dict):
        return all(_live(v) for v in view.values())
    return isinstance(view, tuple) and all(_live(v) for v in view)


def _seconds(v: Any, low: float, open_low: bool = False) -> bool:
    """Whether ``v`` is a finite real number (not a bool, not NaN) ``>= low`` (``> low``: ``open_low``)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(float(v)):
        return False
    return float(v) > low if open_low else float(v) >= low


def _died(p: Any, how: str) -> str:
    """What ``info["worker_error"]`` says of a worker process that is gone, found out by ``how``
    (a send to it or a receive from it failed): the same words either way (a worker killed while
    idle is found on the next send), with its exit code and signal once it is reaped."""
    p.join(0.5)
    code = p.exitcode
    sig = f" (signal {signal.Signals(-code).name})" if code is not None and code < 0 else ""
    return f"worker process died: exit code {code}{sig} ({how})"


def _gist(text: str) -> str:
    """The last line of an error text (a traceback's exception line), at most 300 characters."""
    return (text.strip().splitlines() or [""])[-1][:300]


def _error_text(payload: Any) -> str:
    """A worker's failure as text: the traceback of the env's exception, or why the worker died."""
    if isinstance(payload, WorkerDied):
        return _error_text(payload.error) if payload.error is not None else str(payload)
    exc, trace = payload
    return trace or f"{type(exc).__name__}: {exc}"


def _exception(payload: Any, i: int) -> BaseException:
    """The exception a worker reported for env ``i`` (its traceback attached as a note)."""
    if isinstance(payload, WorkerDied):
        if payload.error is None:
            return WorkerDied(f"env {i}: {payload}")
        payload = payload.error
    exc, trace = payload
    if hasattr(exc, "add_note"):
        exc.add_note(f"(raised in GuiVectorEnv worker of env {i})\n{trace}")
    return exc


def _die_with_parent() -> None:
    """Linux: SIGTERM this worker when the thread that started it ends (Linux counts the forking
    thread as the parent): the main thread, whose end is the process's (even by SIGKILL)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def _picklable(obj: Any) -> bool:
    """Whether ``obj`` survives the pipe: pickled here *and* unpickled in the parent (an exception
    whose ``__init__`` takes other arguments than its ``args`` pickles, then fails to unpickle)."""
    try:
        pickle.loads(pickle.dumps(obj))
    except Exception:  # noqa: BLE001 - any pickling failure
        return False
    return True


def _slot_error(e: BaseException) -> tuple[bool, Any]:
    """One env's failure as its reply: ``(False, (exception, traceback))`` (the text of an
    exception that cannot be pickled)."""
    trace = traceback.format_exc()
    return False, (e if _picklable(e) else RuntimeError(f"{type(e).__name__}: {e}"), trace)


def _worker(first: int, env_fns: list[Any], pipe: Connection, shm: dict[Any, Any], pipe_keys: list[Any], mode: AutoresetMode,
            needs_reset: bool, threads: bool = False, die_with_parent: bool = True) -> None:
    """Envs ``first``, ``first + 1``, ... in one process: commands in (one item per env), one
    reply out: ``(True, [(ok, payload) per env])``, or ``(False, (exception, traceback))`` when
    the envs cannot be made (the worker then ends). Fixed-size observation keys are written to
    shared memory, the rest travel in the reply. ``threads``: reset and step the envs at once,
    each in a thread of its own (each writes only its own slots)."""
    if die_with_parent:
        _die_with_parent()
    envs: list[Any] = []
    pool = None
    try:
        envs = [fn() for fn in env_fns]
        space = envs[0].observation_space
        autoreset = [needs_reset] * len(envs)  # a restarted worker's first step starts new episodes

        # an env whose frames are never written again (GuiEnv.share_frames) lets its slot skip a frame it already holds
        writers = [{key: _writer(space if key is None else space[key], first + j, buf, _shares_frames(envs[j]))
                    for key, buf in shm.items()} for j in range(len(envs))]

        def publish(j: int, obs: Any) -> Any:
            """Write env ``j``'s shared keys; the pipe part of ``obs`` (None if none)."""
            if not isinstance(space, spaces.Dict):
                if writers[j]:
                    writers[j][None](obs)
                    return None
                return obs
            for key, write in writers[j].items():
                write(obs[key])
            return {k: obs[k] for k in pipe_keys} if pipe_keys else None

        def reset(j: int, kwargs: dict[str, Any]) -> tuple[bool, Any]:
            obs, info = envs[j].reset(**kwargs)
            autoreset[j] = False
            return True, (publish(j, obs), info)

        def step(j: int, action: Any) -> tuple[bool, Any]:
            env = envs[j]
            if isinstance(action, _Lost):  # the parent reports its lost episode's end: untouched (a new one at the next step)
                return True, (None, 0.0, False, False, {})
            if autoreset[j]:
                obs, info = env.reset()
                reward, terminated, truncated = 0.0, False, False
            else:
                obs, reward, terminated, truncated, info = env.step(action)
                if mode == AutoresetMode.SAME_STEP and (terminated or truncated):
                    final_obs, final_info = obs, info
                    obs, info = env.reset()
                    info = {"final_info": final_info, "final_obs": final_obs, **info}
            autoreset[j] = mode == AutoresetMode.NEXT_STEP and bool(terminated or truncated)
            return True, (publish(j, obs), float(reward), bool(terminated), bool(truncated), info)

        def call(j: int, data: Any) -> tuple[bool, Any]:
            name, args, kwargs = data
            if name in ("reset", "step", "close", "_setattr", "_check_spaces"):
                raise ValueError(f"Trying to call function `{name}` with `call`, use `{name}` directly instead.")
            attr = envs[j].get_wrapper_attr(name)
            return True, (attr(*args, **kwargs) if callable(attr) else attr)

        def setattr_(j: int, data: Any) -> tuple[bool, Any]:
            envs[j].set_wrapper_attr(*data)
            return True, None

        def check_spaces(j: int, data: Any) -> tuple[bool, Any]:
            obs_space, act_space = data
            return True, (obs_space == envs[j].observation_space, act_space == envs[j].action_space)

        def rebuild(j: int, data: Any) -> tuple[bool, Any]:
            if data:  # env j raised in step: close it (best effort) and make it anew
                old, envs[j] = envs[j], None
                try:
                    old.close()
                except Exception:  # noqa: BLE001 - the env is being replaced anyway
                    pass
                envs[j] = env_fns[j]()
                autoreset[j] = True
            return True, None

        def skip(j: int, data: Any) -> tuple[bool, Any]:
            return True, (None, {})

        handlers = {"reset": reset, "step": step, "_call": call, "_setattr": setattr_, "_check_spaces": check_spaces,
                    "_rebuild": rebuild}
        if threads and len(envs) > 1:
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(len(envs), thread_name_prefix="guigym-env")
        while True:
            try:
                command, items = pipe.recv()
            except (EOFError, OSError):  # the parent closed the pipe: nothing more to do
                break
            if command == "close":
                break
            handler = handlers.get(command)
            if handler is None:
                raise RuntimeError(f"Received unknown command `{command}`.")

            def run(j: int, data: Any, command: str = command, handler: Any = handler) -> tuple[bool, Any]:
                try:
                    return skip(j, data) if command == "reset" and data is None else handler(j, data)
                except Exception as e:  # noqa: BLE001 - reported to the parent, which decides (make anew, restart or raise)
                    return _slot_error(e)

            if pool is not None and command in ("reset", "step"):
                out = list(pool.map(run, range(len(items)), items))
            else:
                out = [run(j, data) for j, data in enumerate(items)]
            try:
                pipe.send((True, out))
            except Exception as e:  # noqa: BLE001 - something in a reply cannot be pickled: that env's step fails
                pipe.send((True, [r if _picklable(r) else _slot_error(e) for r in out]))
    except KeyboardInterrupt:
        pass
    except Exception as e:  # noqa: BLE001 - the envs could not even be made: the parent's next receive says so
        _reply_error(pipe, e)
    finally:
        if pool is not None:
            pool.shutdown(wait=False)
        for env in envs:
            if env is not None:
                try:
                    env.close()
                except Exception:  # noqa: BLE001 - closing is best effort; the parent kills what is left
                    pass


def _shares_frames(env: Any) -> bool:
    try:
        return getattr(env.unwrapped, "share_frames", False) is True
    except AttributeError:  # not a gym.Env: nothing known about its frames
        return False


def _writer(space: spaces.Space[Any], index: int, buf: Any, stable: bool = False) -> Callable[[Any], None]:
    """A function that writes one observation of ``space`` into slot ``index`` of ``buf``: a Box
    straight into its slot (one copy; Gymnasium's writer flattens first, two copies), a text
    only when it changed (an instruction changes once an episode), anything else with Gymnasium's writer.

    ``stable``: the env hands out read-only views of frames it never writes again
    (``GuiEnv.share_frames``), so a view of the very frame the slot already holds is not copied
    again (a step that changes nothing on screen: most of a random policy's)."""
    if isinstance(space, spaces.Box):
        slot = np.frombuffer(buf.get_obj(), dtype=space.dtype).reshape((-1, *space.shape))[index]
        held: list[Any] = [None]  # (frame, its address, shape, strides) in the slot; the reference keeps the address its own

        def write_box(value: Any) -> None:
            mark = None
            if stable and isinstance(value, np.ndarray) and not value.flags.writeable and value.base is not None:
                mark = (value.base, value.__array_interface__["data"][0], value.shape, value.strides)
                was = held[0]
                if was is not None and was[0] is mark[0] and was[1:] == mark[1:]:
                    return
            slot[...] = value
            held[0] = mark

        return write_box
    if isinstance(space, spaces.Text):
        last: list[Any] = [None]

        def write_text(value: Any) -> None:
            if value != last[0]:
                write_to_shared_memory(space, index, value, buf)
                last[0] = value

        return write_text
    return lambda value: write_to_shared_memory(space, index, value, buf)


def _reply_error(pipe: Connection, e: BaseException) -> None:
    trace = traceback.format_exc()
    if not _picklable(e):  # send its text
        e = RuntimeError(f"{type(e).__name__}: {e}")
    try:
        pipe.send((False, (e, trace)))
    except (OSError, ValueError):
        pass


def _usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform tells)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def make_vector(num_envs: int = 1, family: str = "Login", max_episode_steps: int | None = None, **kwargs: Any) -> GuiVectorEnv:
    """The ``vector_entry_point`` of every guigym id: ``gym.make_vec(id, n, **kwargs)`` (mode
    ``None`` or ``"vector_entry_point"``) builds a :class:`GuiVectorEnv` of ``gym.make(id, **kwargs)``.

    ``kwargs`` named in :data:`VECTOR_OPTIONS` configure the vector env; the rest go to every
    env (``level``, ``backend``, ``extra_obs``, ...). With ``backend="browser"`` workers start
    from a fresh process (``context="forkserver"``) unless ``context`` says otherwise: a worker
    forked from a process running Playwright would hang starting its own. ``envs_per_worker``
    defaults to one env per worker for the browser and, for the mock, to as few envs per
    worker as leave at most one worker per usable core (``num_envs`` ≤ cores: one each).
    """
    from guigym.registration import id_of_family

    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):  # True made one env; 2.0 failed deep inside
        raise TypeError(f"num_envs must be an int, got {num_envs!r} ({type(num_envs).__name__})")
    if num_envs < 1:
        raise ValueError(f"num_envs must be >= 1, got {num_envs}")
    num_envs = int(num_envs)
    vector = {k: kwargs.pop(k) for k in VECTOR_OPTIONS if k in kwargs}
    if kwargs.get("backend") == "browser":
        # a worker forked from a process that runs Playwright (a browser env here, or a restart
        # after one started) inherits its event loop and hangs starting its own: start clean ones
        vector.setdefault("context", "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
    else:  # the mock: a step costs ~0.2 ms, so more workers than cores only add messages
        vector.setdefault("envs_per_worker", -(-num_envs // max(1, min(num_envs, _usable_cores()))))
    env_id = id_of_family(family)
    if max_episode_steps is not None:
        kwargs["max_episode_steps"] = max_episode_steps

    # the worker copies each screenshot into shared memory at once, so the env may hand out its
    # kept frame (share_frames); Gymnasium's passive checker would warn that two observations
    # share memory, which is the point here (guigym's envs are checked by its tests)
    env_kwargs = {"disable_env_checker": True, **kwargs}

    def make_one() -> gym.Env:
        env = gym.make(env_id, **env_kwargs)
        env.unwrapped.share_frames = True  # type: ignore[attr-defined]
        return env

    return GuiVectorEnv([make_one] * num_envs, **vector)
