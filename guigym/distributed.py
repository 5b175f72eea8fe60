"""Scale-out on Ray: env actors behind a Gymnasium ``VectorEnv`` front (``pip install 'guigym[ray]'``).

:class:`RayVectorEnv` runs ``num_actors × envs_per_actor`` envs in Ray actors (:class:`EnvActor`; or
one count per actor, ``envs_per_actor=[6, 5, 5]``), on one machine or a cluster, either backend.
Two ways to drive it:

* **Gymnasium's VectorEnv API**: ``reset(seed=, options=)``, ``step(actions)`` with NEXT_STEP
  autoreset (``metadata["autoreset_mode"]``; ``autoreset_mode=`` other than NEXT_STEP is a
  ``ValueError``), ``call``, ``get_attr``, ``set_attr``, ``render``, ``close``, batched spaces.
  ``call`` refuses ``"reset"``, ``"step"`` and ``"close"`` (as Gymnasium's ``AsyncVectorEnv``):
  behind the front, they would desynchronise its autoreset and failure bookkeeping.
* **Lockstep rollouts** (a GRPO trainer): :meth:`RayVectorEnv.reset_envs` and
  :meth:`RayVectorEnv.step_envs` act on a subset of envs with explicit seeds and return one
  plain tuple per env, never autoreset; the trainer batches its policy on the envs still active.

Screenshots travel as numpy arrays through Ray's object store (zero-copy between processes of one
node); ``compress="zlib"`` or ``"png"`` packs them losslessly in the actor for links between
nodes (:func:`pack_frame`), and the info with zlib. ``record_state=True`` adds ``info["state"] =
env.unwrapped.get_state()`` after every reset and step (a failed step: the state of the last good
observation, the one it repeats).

**Failures.** Every remote call has a deadline (``timeout_s``; ``start_timeout_s`` for an actor's
calls up to the first job its envs answer, usually their first reset). An actor that dies
(``ray.kill``, ``os._exit``, its node gone) or misses its deadline is killed and replaced by a fresh
one; an env that raises (e.g. ``BrowserCrashed`` after Chromium died) stays in its live actor.
Either way the episode is reported as failed, never as a hang:
``info["actor_failed"]`` is True (``info["actor_error"]`` says why; both keys are in every
info), the step is ``truncated`` with reward 0 and the last good observation, and the env must be reset
(``step`` does so on the next call, like any finished episode; ``step_envs`` keeps reporting the
failure until ``reset_envs``; an env whose episode ended raises ``ResetNeeded`` in ``step_envs``
until ``reset_envs``). A reset that fails is retried ``reset_retries`` times (on a fresh actor
if its actor died), then raises :class:`ActorFailure` (when that reset is ``step``'s autoreset,
the step's other results are lost with it: a caller that goes on stepping gets each env that
stepped in it reported as failed at the next step, not stepped on, so that an episode that ended
in the lost step does not go on past its end; the due autoresets are tried again). A
``ValueError`` or ``TypeError`` that ``env.reset`` raises for the caller's seed or options (an
unknown level) is raised at once, as its own type, not retried (as
:class:`~guigym.vector.GuiVectorEnv` does); a seed that is not ``None`` or an int >= 0 (numpy
integers are ints) is a ``TypeError`` or ``ValueError`` before anything is sent. An env method that raises in ``call`` raises in the
caller, as its own type. ``close()`` always returns.

The codecs need no cluster:

>>> import numpy as np
>>> frame = np.zeros((640, 360, 3), np.uint8)
>>> packed = pack_frame(frame, "zlib")
>>> len(packed.data) < frame.nbytes // 100, np.array_equal(unpack_frame(packed), frame)
(True, True)
"""

from __future__ import annotations

import copy as copy_module
import io
import math
import numbers
import os
import pickle
import socket
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

import guigym  # noqa: F401 - registers the GuiGym ids in every actor process
from guigym.env import gui_env
from guigym.vector import _picklable, check_seeds, per_env_actions

try:
    import ray
    import ray.cloudpickle  # pickles a call's jobs as Ray would (RayVectorEnv._exec)
    from ray.exceptions import GetTimeoutError, RayError, RayTaskError
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("guigym.distributed needs Ray: pip install 'guigym[ray]'") from e

__all__ = ["CODECS", "ActorFailure", "EnvActor", "PackedFrame", "RayVectorEnv", "pack_frame", "unpack_frame"]

#: Lossless screenshot codecs for cross-node links (``None``: raw numpy, zero-copy on a node).
CODECS = (None, "zlib", "png")
#: Keys every info from this module carries (also on success, so vector infos always have them).
FAILED, FAILURE = "actor_failed", "actor_error"
#: Seconds a ``host:port`` address gets to accept a TCP connection before ``ray.init`` (which would
#: otherwise retry an address where nothing listens for minutes).
CONNECT_TIMEOUT_S = 5.0

EnvSource = str | Callable[[], gym.Env]


class ActorFailure(RuntimeError):
    """A remote call could not be completed: a reset even on fresh actors, or a ``call`` /
    ``set_attr`` whose actor died (it has been replaced)."""


@dataclass(frozen=True)
class _PackedInfo:
    """An info dict, pickled and zlib-packed by an actor that compresses (see :func:`_unpack_info`)."""

    data: bytes


@dataclass(frozen=True)
class _Failed:
    """An actor's call that gave no result: ``error`` is the exception an actor method raised (the
    actor lives on), ``None`` when the actor died or missed its deadline (it was replaced)."""

    why: str
    error: BaseException | None = None


# --------------------------------------------------------------------------- frame codecs


@dataclass(frozen=True)
class PackedFrame:
    """A screenshot compressed by :func:`pack_frame` (``codec``: ``"zlib"`` or ``"png"``)."""

    codec: str
    shape: tuple[int, ...]
    data: bytes


def pack_frame(frame: np.ndarray, codec: str | None) -> np.ndarray | PackedFrame:
    """``frame`` (H, W, 3 uint8) losslessly compressed with ``codec``; ``None`` returns it as is.

    zlib at level 1: GUI screenshots are large flat areas, so the fastest level already packs
    them ~50-100×; PNG (Pillow, level 1) filters rows first: smaller, slower."""
    if codec is None:
        return frame
    if codec == "zlib":
        return PackedFrame("zlib", frame.shape, zlib.compress(np.ascontiguousarray(frame).tobytes(), 1))
    if codec == "png":
        from PIL import Image

        buf = io.BytesIO()
        Image.fromarray(frame).save(buf, format="PNG", compress_level=1)
        return PackedFrame("png", frame.shape, buf.getvalue())
    raise ValueError(f"unknown codec {codec!r}; expected one of {CODECS}")


def unpack_frame(packed: np.ndarray | PackedFrame) -> np.ndarray:
    """The array :func:`pack_frame` packed (an array passes through)."""
    if not isinstance(packed, PackedFrame):
        return packed
    if packed.codec == "zlib":
        return np.frombuffer(bytearray(zlib.decompress(packed.data)), np.uint8).reshape(packed.shape)  # writable
    if packed.codec == "png":
        from PIL import Image

        return np.asarray(Image.open(io.BytesIO(packed.data)).convert("RGB")).reshape(packed.shape)
    raise ValueError(f"unknown codec {packed.codec!r}; expected one of {CODECS}")


# --------------------------------------------------------------------------- the actor


class EnvActor:
    """Owns ``n_envs`` envs in one process (a Ray actor via :class:`RayVectorEnv`; plain here).

    :meth:`run` executes a batch of jobs, ``("reset", local_index, seed, options)`` or
    ``("step", local_index, action)`` (a list, or that list pickled), and returns one record per job:
    ``(True, obs, info)`` for a reset, ``(True, obs, reward, terminated, truncated, info)`` for a
    step, or ``(False, "ExceptionType: message")`` when the env raised (it then needs a reset);
    a ``ValueError`` or ``TypeError`` from ``env.reset`` (a seed or options the env refuses)
    gives ``(False, "ExceptionType: message", exception)``.
    """

    def __init__(self, env: EnvSource, env_kwargs: Mapping[str, Any], n_envs: int, compress: str | None = None,
                 record_state: bool = False) -> None:
        if compress not in CODECS:
            raise ValueError(f"unknown compress {compress!r}; expected one of {CODECS}")
        self.compress, self.record_state = compress, record_state
        # Gymnasium's PassiveEnvChecker (gym.make's default) breaks an env whose first reset raises
        # (a refused seed or option): every later step raised TypeError in its data-reuse check, so
        # the env failed every step for good; as in gym.make_vec's guigym envs, it is left out
        kw = {"disable_env_checker": True, **env_kwargs}
        make = (lambda: gym.make(env, **kw)) if isinstance(env, str) else env
        self.envs = [make() for _ in range(n_envs)]

    def describe(self) -> dict[str, Any]:
        """Where this actor runs and what its envs look like (the front's first call)."""
        e = self.envs[0]
        return {
            "node_id": _node_id(), "pid": os.getpid(), "observation_space": e.observation_space, "action_space": e.action_space,
            "metadata": dict(e.metadata), "render_mode": e.render_mode, "spec": e.spec,
        }

    def run(self, jobs: Sequence[tuple[Any, ...]] | bytes) -> list[tuple[Any, ...]]:
        if isinstance(jobs, bytes):  # pickled by the driver (RayVectorEnv._exec), which Ray trusts as much
            jobs = cast("Sequence[tuple[Any, ...]]", pickle.loads(jobs))
        out: list[tuple[Any, ...]] = []
        for job in jobs:
            env = self.envs[job[1]]
            try:
                if job[0] == "reset":
                    obs, info = env.reset(seed=job[2], options=job[3])
                    out.append((True, self._obs(obs), self._info(env, info)))
                else:
                    obs, reward, terminated, truncated, info = env.step(job[2])
                    out.append((True, self._obs(obs), float(reward), bool(terminated), bool(truncated), self._info(env, info)))
            except Exception as e:  # noqa: BLE001 - one env's fault (a dead browser) must not fail its siblings
                why = f"{type(e).__name__}: {str(e)[:500]}"
                if job[0] == "reset" and isinstance(e, (ValueError, TypeError)):  # the caller's seed or options, likely
                    out.append((False, why, e if _picklable(e) else (ValueError if isinstance(e, ValueError) else TypeError)(why)))
                else:
                    out.append((False, why))
        return out

    def call(self, local: Sequence[int], name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        out = []
        for i in local:
            attr = self.envs[i].get_wrapper_attr(name)
            out.append(attr(*args, **kwargs) if callable(attr) else attr)
        return out

    def set_attr(self, local: Sequence[int], name: str, values: Sequence[Any]) -> None:
        for i, v in zip(local, values, strict=True):
            self.envs[i].set_wrapper_attr(name, v)

    def close(self) -> None:
        for env in self.envs:
            try:
                env.close()
            except Exception:  # noqa: BLE001, S110 - closing is best effort; the actor is killed next
                pass

    def _obs(self, obs: dict[str, Any]) -> dict[str, Any]:
        if self.compress is not None and isinstance(obs, dict) and "screenshot" in obs:
            obs = {**obs, "screenshot": pack_frame(obs["screenshot"], self.compress)}
        return obs

    def _info(self, env: gym.Env, info: dict[str, Any]) -> dict[str, Any] | _PackedInfo:
        info = {**info, FAILED: False, FAILURE: ""}
        if self.record_state:
            info["state"] = gui_env(env, "record_state=True").get_state()
        if self.compress is not None:  # a state is up to ~35 KB (Settings), 3x smaller packed
            return _PackedInfo(zlib.compress(pickle.dumps(info, protocol=5), 1))
        return info


def _node_id() -> str | None:
    return ray.get_runtime_context().get_node_id() if ray.is_initialized() else None


_RemoteEnvActor = ray.remote(EnvActor)


# --------------------------------------------------------------------------- the front


class RayVectorEnv(VectorEnv):
    """``num_actors × envs_per_actor`` envs in Ray actors, as one Gymnasium ``VectorEnv``.

    Env ``i`` lives in actor ``i // envs_per_actor`` (with one count per actor, actor ``k`` holds
    the next ``envs_per_actor[k]`` envs: ``[2, 1]`` puts envs 0 and 1 on actor 0, env 2 on actor 1;
    :meth:`actor_of`). ``ray.init`` is called only when Ray is not
    initialised yet (``address``: ``"auto"`` joins a running cluster; ``None`` starts a local one
    with ``init_kwargs``); :meth:`close` kills the actors and leaves Ray running.

    Args:
        env: a registered id (made with ``gym.make(env, **env_kwargs)`` in each actor) or a
            picklable callable returning an env.
        num_actors: Ray actors (processes); each steps its envs one after another.
        envs_per_actor: envs owned by each actor, or a list of one count per actor (``num_envs`` is
            their sum: ``[6, 5, 5]`` for 16 envs on 3 actors, none idle).
        compress: ``None`` (raw numpy through the object store), ``"zlib"`` or ``"png"`` (the
            screenshot's codec; the info is then zlib-packed too).
        record_state: add ``info["state"] = env.unwrapped.get_state()`` after every reset/step (a
            failed step's: the state of the last good observation, which it repeats).
        copy: return writable copies of the observations' arrays (a Dict's screenshot, a wrapped
            env's ``Box`` observation) from :meth:`reset_envs`/:meth:`step_envs`,
            and from :meth:`reset`/:meth:`step` a batch of its own; ``False`` returns read-only
            zero-copy views that pin their object in Ray's store, and the batch the next call overwrites.
        address: passed to ``ray.init`` when Ray is not initialised; a ``host:port`` that accepts no TCP
            connection within ``CONNECT_TIMEOUT_S``, or ``"auto"`` with no cluster running, raises :class:`ConnectionError`.
        init_kwargs: more ``ray.init`` arguments (a local start defaults to no dashboard, WARNING logs).
        actor_options: Ray ``.options()`` for the actors: one mapping for all or one per actor
            (e.g. ``{"num_cpus": 1}``, ``{"resources": {"node_a": 1}}``, ``{"scheduling_strategy": "SPREAD"}``).
        timeout_s: deadline of a remote call, in seconds (finite, > 0; there is no "no deadline");
            an actor that misses it is replaced.
        start_timeout_s: deadline of an actor's calls until its envs first answered a job (process
            start, imports, a browser launch, the first reset's first frame).
        reset_retries: fresh actors a failing reset is retried on before :class:`ActorFailure`.
        **env_kwargs: keyword arguments of ``gym.make`` (``backend="browser"``, ``level``, ...);
            Gymnasium's passive env checker is off (``disable_env_checker=True``, as in
            ``gym.make_vec``'s guigym envs) unless given. ``autoreset_mode`` is taken here: only
            NEXT_STEP.

    Info keys added to every env's info: ``actor_failed`` (bool) and ``actor_error`` (why, or ``""``).
    :meth:`step` and :meth:`reset` merge infos the Gymnasium way (arrays with ``_key`` masks; a
    dict value such as ``state`` nests); ``gymnasium.wrappers.vector.DictInfoToList`` gives one
    dict per env back, and :meth:`reset_envs` / :meth:`step_envs` return them as they are.
    """

    def __init__(
        self,
        env: EnvSource,
        num_actors: int = 1,
        envs_per_actor: int | Sequence[int] = 1,
        *,
        compress: str | None = None,
        record_state: bool = False,
        copy: bool = True,
        address: str | None = None,
        init_kwargs: Mapping[str, Any] | None = None,
        actor_options: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        timeout_s: float = 60.0,
        start_timeout_s: float = 180.0,
        reset_retries: int = 2,
        **env_kwargs: Any,
    ) -> None:
        if not _count(num_actors):
            raise ValueError(f"num_actors must be an int >= 1, got {num_actors!r}")
        if "autoreset_mode" in env_kwargs:  # a vector env's option (gym.make would pass it to the env, which refuses it)
            mode = env_kwargs.pop("autoreset_mode")
            if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.NEXT_STEP.value):
                raise ValueError(f"RayVectorEnv autoresets NEXT_STEP only, got autoreset_mode={mode!r}; for no autoreset, "
                                 "reset_envs()/step_envs(); for SAME_STEP or DISABLED, guigym.vector.GuiVectorEnv on one machine")
        if isinstance(envs_per_actor, Sequence) and not isinstance(envs_per_actor, str):
            counts = tuple(envs_per_actor)
            if len(counts) != num_actors or not all(map(_count, counts)):
                raise ValueError(f"envs_per_actor must be an int >= 1 or one such int per actor ({num_actors}), got {envs_per_actor!r}")
        elif _count(envs_per_actor):
            counts = (cast(int, envs_per_actor),) * num_actors
        else:
            raise ValueError(f"envs_per_actor must be an int >= 1 (or one per actor), got {envs_per_actor!r}")
        if compress not in CODECS:
            raise ValueError(f"unknown compress {compress!r}; expected one of {CODECS}")
        if not (isinstance(env, str) or callable(env)):
            raise TypeError(f"env must be an env id or a callable returning an env, got {type(env).__name__}")
        if env_kwargs and not isinstance(env, str):
            raise ValueError(f"env kwargs {sorted(env_kwargs)} need an env id; a callable makes its env itself")
        for name, t in (("timeout_s", timeout_s), ("start_timeout_s", start_timeout_s)):
            # None (or inf) would be "no deadline": a hung actor would block the caller forever,
            # against the module's promise; it raised a bare TypeError (inf: OverflowError in Ray)
            if isinstance(t, bool) or not isinstance(t, numbers.Real) or not (0 < t < math.inf):
                raise ValueError(f"{name} must be a finite number of seconds > 0 (no deadline is not supported: "
                                 f"a hung actor would block forever; pass a large value instead), got {t!r}")
        if not isinstance(reset_retries, int) or isinstance(reset_retries, bool) or reset_retries < 0:
            raise ValueError(f"reset_retries must be an int >= 0, got {reset_retries!r}")
        if isinstance(env, str):  # a bad id or kwarg fails here, clearly, not as a dead actor
            gym.make(env, **env_kwargs).close()
        if actor_options is None or isinstance(actor_options, Mapping):
            per_actor = [dict(actor_options or {}) for _ in range(num_actors)]
        else:
            per_actor = [dict(o) for o in actor_options]
            if len(per_actor) != num_actors:
                raise ValueError(f"actor_options has {len(per_actor)} entries for {num_actors} actors")
        if not ray.is_initialized():
            kw = dict(init_kwargs or {})
            if address is None:  # ray.init refuses these when it joins an existing cluster
                kw.setdefault("include_dashboard", False)
                kw.setdefault("logging_level", "WARNING")
            _init_ray(address, kw)

        self.num_actors = num_actors
        #: As given: an int (each actor's envs), or a tuple with one count per actor.
        self.envs_per_actor: int | tuple[int, ...] = envs_per_actor if isinstance(envs_per_actor, int) else counts
        self.num_envs = sum(counts)
        self._counts = counts
        self._first = [sum(counts[:k]) for k in range(num_actors)]  # actor k holds envs _first[k] .. _first[k] + counts[k] - 1
        self._home = [(k, j) for k, c in enumerate(counts) for j in range(c)]  # env i -> (its actor, its index there)
        self.timeout_s, self.start_timeout_s, self.reset_retries, self.copy = timeout_s, start_timeout_s, reset_retries, copy
        self._record_state = record_state
        self._actor_args = (env, dict(env_kwargs), compress, record_state)
        self._actor_options = per_actor
        self.actors: list[Any] = [self._spawn(k) for k in range(num_actors)]
        self._fresh = [True] * num_actors  # calls wait up to start_timeout_s until a job of its envs answers
        #: Times each actor was replaced.
        self.restarts = [0] * num_actors
        self._described: list[dict[str, Any] | None] = [None] * num_actors
        self._reset_done = np.zeros(self.num_envs, dtype=np.bool_)  # reset at least once (else stepping is a usage error)
        self._lost = [""] * self.num_envs  # why an env's episode is gone (its actor was replaced, it raised); "" = fine
        self._last_state: list[Any] = [None] * self.num_envs  # record_state: the state of _last_obs (a failed step's)

        try:
            first = self._describe([0])[0]
        except BaseException:
            self.close()
            raise
        self.metadata = {**first["metadata"], "autoreset_mode": AutoresetMode.NEXT_STEP}
        self.render_mode = first["render_mode"]
        self.spec = first["spec"]
        self.single_observation_space = first["observation_space"]
        self.single_action_space = first["action_space"]
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._observations = create_empty_array(self.single_observation_space, n=self.num_envs, fn=np.zeros)
        # what an env not reset yet shows in a batch (a first reset may reset some envs only): zeros and
        # empty strings, as GuiVectorEnv's and Gymnasium's AsyncVectorEnv's untouched shared memory
        self._last_obs: list[Any] = [_empty_obs(self.single_observation_space)] * self.num_envs
        self._autoreset = np.zeros(self.num_envs, dtype=np.bool_)

    # --- placement ------------------------------------------------------------------------
    def actor_of(self, i: int) -> int:
        """The actor that owns env ``i``."""
        return self._home[self._check_index(i)][0]

    def node_ids(self) -> list[str]:
        """The Ray node id of each actor (as it runs now; a replaced actor may have moved)."""
        return [d["node_id"] for d in self._describe(range(self.num_actors))]

    def pids(self) -> list[int]:
        """The process id of each actor."""
        return [d["pid"] for d in self._describe(range(self.num_actors))]

    # --- lockstep rollout API -----------------------------------------------------------
    def reset_envs(
        self, indices: Sequence[int], seeds: Sequence[int | None] | None = None,
        options: Mapping[str, Any] | Sequence[Mapping[str, Any] | None] | None = None,
    ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Reset envs ``indices`` (``seeds[j]`` for ``indices[j]``; ``options``: one mapping or one per
        env) and return ``[(obs, info), ...]`` in that order. Other envs are untouched. A reset that
        fails is retried ``reset_retries`` times (on a fresh actor when its actor died; the other
        envs of that actor then lost their episodes too, which their next step reports), then
        :class:`ActorFailure`."""
        idx = self._check_indices(indices)
        seeds = [None] * len(idx) if seeds is None else check_seeds(list(seeds))
        if len(seeds) != len(idx):
            raise ValueError(f"{len(seeds)} seeds for {len(idx)} envs")
        if options is None or isinstance(options, Mapping):
            opts = [options] * len(idx)
        elif isinstance(options, Sequence) and not isinstance(options, (str, bytes)):
            opts = list(options)
        else:
            raise TypeError(f"options must be a dict or None, or a list of them (one per env), got {type(options).__name__}")
        if len(opts) != len(idx):
            raise ValueError(f"{len(opts)} options for {len(idx)} envs")
        for j, o in enumerate(opts):
            if o is not None and not isinstance(o, Mapping):
                raise TypeError(f"options[{j}] must be a dict or None, got {type(o).__name__}")
        results = self._reset(idx, seeds, [dict(o) if o is not None else None for o in opts], caller=True)
        return [(self._public_obs(obs), info) for obs, info in results]

    def step_envs(self, indices: Sequence[int], actions: Sequence[Any]) -> list[tuple[dict[str, Any], float, bool, bool, dict[str, Any]]]:
        """Step envs ``indices`` with ``actions[j]`` for ``indices[j]`` (any action ``env.step``
        takes: a space sample, an ``Action``, text) and return ``[(obs, reward, terminated,
        truncated, info), ...]`` in that order, without autoreset. A failed env gives ``(last obs,
        0.0, False, True, info)`` with ``info["actor_failed"]`` True, and does so again on every
        step until it is reset with :meth:`reset_envs`. An env whose episode ended (terminated or
        truncated, in this or in :meth:`step`) raises ``ResetNeeded`` until it is reset: stepped on,
        it would pay its reward again."""
        idx = self._check_indices(indices)
        actions = list(actions)
        if len(actions) != len(idx):
            raise ValueError(f"{len(actions)} actions for {len(idx)} envs")
        never = [i for i in idx if not self._reset_done[i]]
        if never:
            raise gym.error.ResetNeeded(f"envs {never} were never reset; call reset_envs() (or reset()) first")
        ended = [i for i in idx if self._autoreset[i] and not self._lost[i]]  # a failed env is reported again instead
        if ended:
            raise gym.error.ResetNeeded(f"envs {ended} ended their episodes (terminated or truncated); reset them with "
                                        "reset_envs() before stepping them again; nothing was stepped")
        out = self._step(idx, actions)
        for i, (_, _, te, tr, _) in zip(idx, out, strict=True):  # step() resets them (NEXT_STEP), step_envs() refuses them
            self._autoreset[i] = te or tr
        return [(self._public_obs(o), r, te, tr, info) for o, r, te, tr, info in out]

    # --- Gymnasium VectorEnv API --------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Reset every env (or those of ``options["reset_mask"]``, as Gymnasium's vector envs do;
        also in the first reset: an env not reset yet shows zeros and empty strings, and
        :meth:`step` raises ``ResetNeeded`` until every env was reset); ``seed``: an int
        (``seed + i`` for env ``i``), a list, or None; ``options``: one dict for every env, or None
        (anything else is a ``TypeError``: per-env options go to :meth:`reset_envs`)."""
        one_seed = isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
        if one_seed:
            seed = int(seed)  # type: ignore[arg-type]
        n = self.num_envs
        if not (seed is None or isinstance(seed, (int, np.ndarray)) or isinstance(seed, Sequence) and not isinstance(seed, (str, bytes))):
            raise TypeError(f"seed must be an int (seed + i for env i), a list of one int or None per env, or None; "
                            f"got {type(seed).__name__}")
        seeds = check_seeds([None] * n if seed is None else [seed + i for i in range(n)] if isinstance(seed, int) else list(seed))
        if len(seeds) != n:
            raise ValueError(f"{len(seeds)} seeds for num_envs={n}")
        if options is not None and not isinstance(options, Mapping):  # dict() of a list failed obscurely, or made a wrong dict
            raise TypeError(f"reset options must be a dict (the same for every env) or None, got {type(options).__name__}; "
                            "for per-env options, reset_envs(indices, seeds, options=[one per env])")
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if mask is None:
            mask = np.ones(n, dtype=np.bool_)
        elif not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (n,) and mask.any()):
            raise ValueError(f"options['reset_mask'] must be a bool array of shape ({n},) with a True value")
        if one_seed:  # only once the arguments hold: a refused reset leaves np_random as it was
            super().reset(seed=seed)  # type: ignore[arg-type]
        idx = [int(i) for i in np.flatnonzero(mask)]
        results = self._reset(idx, [seeds[i] for i in idx], [options or None] * len(idx), caller=True)
        infos: dict[str, Any] = {}
        for i, (_, info) in zip(idx, results, strict=True):
            infos = self._add_info(infos, info, i)
        self._observations = concatenate(self.single_observation_space, self._last_obs,
                                         self._observations)  # type: ignore[arg-type]  # gymnasium's hint omits a custom space's None
        return self._batch(), infos

    def step(self, actions: Any) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every env (NEXT_STEP autoreset: an env whose episode ended last step is reset
        instead and its action ignored). ``actions``: a batch of ``action_space`` or a list of
        per-env actions (anything ``env.step`` takes, e.g. action text). An autoreset that fails
        every retry raises :class:`ActorFailure`, this step's other results lost with it: the next
        step reports each env that stepped in it as failed (truncated, ``actor_failed``, the
        observation it reached) without stepping it, and tries the due autoresets again."""
        per_env = per_env_actions(self.action_space, actions, self.num_envs)
        if not self._reset_done.all():
            raise gym.error.ResetNeeded(f"envs {np.flatnonzero(~self._reset_done).tolist()} were never reset; call reset() before step()")
        n = self.num_envs
        rewards, terminated, truncated = np.zeros(n), np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_)
        infos: dict[str, Any] = {}
        # one call per actor: envs whose episode ended last step are reset, the others stepped
        again = [i for i in range(n) if self._autoreset[i]]
        moving = [i for i in range(n) if not self._autoreset[i] and not self._lost[i]]
        recs = dict(zip(again + moving, self._exec(
            [(i, ("reset", self._home[i][1], None, None)) for i in again]
            + [(i, ("step", self._home[i][1], per_env[i])) for i in moving]), strict=True))
        retry = [i for i in again if not recs[i][0]]
        if retry:  # a failed autoreset gets the retries of reset() (then ActorFailure), never a silent loop
            try:
                redone = self._reset(retry, [None] * len(retry), [None] * len(retry))
            except ActorFailure as e:
                self._drop_step(again, moving, recs, e)
                raise
            recs.update({i: (True, *r) for i, r in zip(retry, redone, strict=True)})
        for i in range(n):
            if i in again:
                info = recs[i][2] if i in retry else self._reset_ok(i, recs[i])[1]
            else:
                rec = self._step_record(i, recs[i]) if i in recs else self._failed(i, self._lost[i])
                _, rewards[i], terminated[i], truncated[i], info = rec
            infos = self._add_info(infos, info, i)
        self._autoreset = terminated | truncated
        self._observations = concatenate(self.single_observation_space, self._last_obs,
                                         self._observations)  # type: ignore[arg-type]  # gymnasium's hint omits a custom space's None
        return self._batch(), rewards, terminated, truncated, infos

    def render(self) -> tuple[Any, ...]:
        return self.call("render")

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """``getattr(env, name)(*args, **kwargs)`` (or the attribute itself) for every env."""
        return tuple(self.call_envs(range(self.num_envs), name, *args, **kwargs))

    def call_envs(self, indices: Sequence[int], name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """:meth:`call` on envs ``indices`` only (e.g. ``call_envs([3], "set_state", snapshot)``),
        results in that order. An actor that fails is replaced and :class:`ActorFailure` raised."""
        self._assert_open()
        if name in ("reset", "step", "close"):  # behind the front's back: its autoreset and failure bookkeeping would be wrong
            raise ValueError(f"Trying to call function `{name}` with `call`, use `{name}` directly instead "
                             "(reset_envs/step_envs for some envs).")
        idx = self._check_indices(indices)
        by_actor: dict[int, list[int]] = {}
        for i in idx:
            by_actor.setdefault(self._home[i][0], []).append(i)
        got = self._wait({k: self.actors[k].call.remote([self._home[i][1] for i in ii], name, args, kwargs)
                          for k, ii in by_actor.items()})
        _raise_failures(got, f"call({name!r})")
        value = {i: v for k, ii in by_actor.items() for i, v in zip(ii, got[k], strict=True)}
        return [value[i] for i in idx]

    def get_attr(self, name: str) -> tuple[Any, ...]:
        return self.call(name)

    def set_attr(self, name: str, values: Any) -> None:
        """Set attribute ``name`` of every env (one value for all, or a list/tuple with one per env)."""
        if not isinstance(values, (list, tuple)):
            values = [values] * self.num_envs
        if len(values) != self.num_envs:
            raise ValueError(f"{len(values)} values for num_envs={self.num_envs}")
        first, counts = self._first, self._counts
        self._remote_each(lambda a, k: a.set_attr.remote(list(range(counts[k])), name, list(values[first[k]:first[k] + counts[k]])),
                          f"set_attr({name!r})")

    def close_extras(self, **kwargs: Any) -> None:
        """Close every env (browsers exit cleanly), then kill every actor. Always returns: actors
        that never answered get no grace period, the others at most ``min(10 s, timeout_s)``."""
        actors = list(getattr(self, "actors", []))
        try:
            refs = [a.close.remote() for k, a in enumerate(actors) if not self._fresh[k]]
            if refs:
                ray.wait(refs, num_returns=len(refs), timeout=min(10.0, self.timeout_s), fetch_local=False)
        except Exception:  # noqa: BLE001, S110 - the actors are killed below whatever happened
            pass
        for a in actors:
            try:
                ray.kill(a, no_restart=True)
            except Exception:  # noqa: BLE001, S110 - already gone
                pass
        self.actors = []

    # --- internals ------------------------------------------------------------------------
    def _spawn(self, k: int) -> Any:
        # replacement is ours (a fresh actor, the episode reported as failed): Ray's own restarts off unless asked for
        env, env_kwargs, compress, record_state = self._actor_args
        return _RemoteEnvActor.options(**{"max_restarts": 0, "max_task_retries": 0, **self._actor_options[k]}).remote(
            env, env_kwargs, self._counts[k], compress, record_state)

    def _replace(self, k: int, why: str) -> None:
        """Kill actor ``k`` (whatever its state) and start a fresh one; its envs' episodes are lost."""
        try:
            ray.kill(self.actors[k], no_restart=True)
        except Exception:  # noqa: BLE001, S110 - it may be dead already
            pass
        self.actors[k] = self._spawn(k)
        self._fresh[k], self._described[k] = True, None
        self.restarts[k] += 1
        for i in self._locals_global(k):
            self._lost[i] = f"actor {k} was replaced ({why})"

    def _locals_global(self, k: int) -> range:
        return range(self._first[k], self._first[k] + self._counts[k])

    def _wait(self, refs: dict[int, Any], started: bool = True) -> dict[int, Any]:
        """``{actor: result}``, or ``{actor: _Failed}`` for a call that gave none: the method raised
        (``error`` set; the actor is kept), or the actor died or missed its own deadline
        (``start_timeout_s`` until it started, else ``timeout_s``; it is replaced).

        Normally one ``ray.get`` fetches every answer. When it fails, the answers are sorted out
        with ``ray.wait(fetch_local=False)``: Ray 2.60's ``ray.wait`` does not pull a finished
        object from another node while an object it also waits for is pending, so one hung actor
        would make every remote actor look hung. The finished objects are then pulled together.

        ``started``: whether an answer ends an actor's start (its ``start_timeout_s``). Not for
        :meth:`describe`: the first reset after it also loads and draws for the first time, and
        on a loaded machine missed a short ``timeout_s`` (the actor replaced for no fault)."""
        t0 = time.monotonic()
        limit = {k: self.start_timeout_s if self._fresh[k] else self.timeout_s for k in refs}
        if len(set(limit.values())) == 1:  # fast path: one ray.get for all (ray.wait costs as much as a step)
            try:
                values = ray.get(list(refs.values()), timeout=next(iter(limit.values())))
            except (RayError, GetTimeoutError):
                pass  # sort out below which actor failed; the others keep their deadlines
            else:
                for k in refs:
                    self._fresh[k] = self._fresh[k] and not started
                return dict(zip(refs, values, strict=True))
        pending, done, out = dict(refs), {}, {}
        while pending:
            left = min(limit[k] for k in pending) - (time.monotonic() - t0)
            ready = set(ray.wait(list(pending.values()), num_returns=len(pending), timeout=max(0.0, left), fetch_local=False)[0])
            for k in [k for k, r in pending.items() if r in ready]:
                done[k] = pending.pop(k)
            for k in [k for k in pending if limit[k] <= time.monotonic() - t0]:
                del pending[k]
                out[k] = _Failed(f"no answer within {limit[k]:g} s")
        if done:
            ray.wait(list(done.values()), num_returns=len(done), timeout=self.timeout_s)  # pull them in parallel
        for k, ref in done.items():
            try:
                out[k] = ray.get(ref, timeout=self.timeout_s)
                self._fresh[k] = self._fresh[k] and not started
            except RayTaskError as e:  # the method raised; the actor is fine
                self._fresh[k] = self._fresh[k] and not started
                out[k] = _Failed(f"{type(e.cause).__name__ if e.cause else 'RayTaskError'}: {str(e.cause or e)[:300]}", e)
            except (RayError, GetTimeoutError) as e:
                out[k] = _Failed(_summary(e))
        for k, v in out.items():
            if isinstance(v, _Failed) and v.error is None:
                self._replace(k, v.why)
        return out

    def _remote_each(self, submit: Callable[[Any, int], Any], what: str) -> dict[int, Any]:
        self._assert_open()
        got = self._wait({k: submit(a, k) for k, a in enumerate(self.actors)})
        _raise_failures(got, what)
        return got

    def _describe(self, ks: Sequence[int]) -> list[dict[str, Any]]:
        """Where actors ``ks`` run and what their envs look like (asked once per actor, in parallel)."""
        self._assert_open()
        got = self._wait({k: self.actors[k].describe.remote() for k in ks if self._described[k] is None}, started=False)
        for k, d in got.items():
            if isinstance(d, _Failed):
                raise ActorFailure(f"actor {k} did not start: {d.why}")
            self._described[k] = d
        return [self._described[k] for k in ks]  # type: ignore[misc]

    def _exec(self, items: list[tuple[int, tuple[Any, ...]]]) -> list[tuple[Any, ...]]:
        """Run ``(env index, job)`` items, one call per actor, all actors in parallel; one record
        per item: the actor's (``(True, ...)`` or ``(False, why)``), or ``(False, why)`` for a
        failed actor (replaced by then)."""
        self._assert_open()
        jobs: dict[int, list[tuple[Any, ...]]] = {}
        where = []
        for i, job in items:
            k = self._home[i][0]
            jobs.setdefault(k, []).append(job)
            where.append((k, len(jobs[k]) - 1))
        # Ray pickles a call's arguments as it submits it: a job that cannot be pickled (an odd action)
        # raised after the calls before it were sent, whose envs then stepped unseen. Pickled all first
        # (as Ray would: same work per step), it raises before any actor gets a job.
        packed = {k: ray.cloudpickle.dumps(js) for k, js in jobs.items()}
        got = self._wait({k: self.actors[k].run.remote(b) for k, b in packed.items()})
        return [(False, got[k].why) if isinstance(got[k], _Failed) else got[k][n] for k, n in where]

    def _reset(self, idx: list[int], seeds: list[int | None], options: list[dict[str, Any] | None],
               caller: bool = False) -> list[tuple[Any, dict[str, Any]]]:
        """Reset envs ``idx``; failures are retried on fresh actors, then :class:`ActorFailure`.
        ``caller``: the seeds and options are the caller's (not an autoreset's), so a ``ValueError``
        or ``TypeError`` from ``env.reset`` is theirs: raised at once, as its own type, not retried
        (it would fail again; the env keeps the episode it had, as ``GuiVectorEnv``'s)."""
        results: dict[int, tuple[Any, dict[str, Any]]] = {}
        todo = list(range(len(idx)))
        for _ in range(self.reset_retries + 1):
            recs = self._exec([(idx[j], ("reset", self._home[idx[j]][1], seeds[j], options[j])) for j in todo])
            failed = []
            refused: BaseException | None = None
            for j, rec in zip(todo, recs, strict=True):
                if rec[0]:
                    results[j] = self._reset_ok(idx[j], rec)
                elif caller and len(rec) > 2:
                    if refused is None:
                        refused = rec[2]
                        if hasattr(refused, "add_note"):  # Python >= 3.11
                            refused.add_note(f"(raised by env {idx[j]}'s reset in its Ray actor; not retried)")
                else:
                    self._lost[idx[j]] = rec[1]
                    failed.append(j)
            if refused is not None:
                raise refused
            if not failed:
                return [results[j] for j in range(len(idx))]
            todo = failed
        raise ActorFailure(f"reset of envs {[idx[j] for j in todo]} failed {self.reset_retries + 1} times; last: "
                           f"{[self._lost[idx[j]] for j in todo]}")

    def _reset_ok(self, i: int, rec: tuple[Any, ...]) -> tuple[Any, dict[str, Any]]:
        obs, info = _unpack_obs(rec[1]), _unpack_info(rec[2])
        self._last_obs[i], self._lost[i], self._reset_done[i] = obs, "", True
        self._autoreset[i] = False  # a new episode: step() must not reset it again (NEXT_STEP's pending autoreset)
        if self._record_state:
            self._last_state[i] = info.get("state")
        return obs, info

    def _step_record(self, i: int, rec: tuple[Any, ...]) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not rec[0]:
            self._lost[i] = rec[1]
            return self._failed(i, rec[1])
        obs, info = _unpack_obs(rec[1]), _unpack_info(rec[5])
        self._last_obs[i] = obs
        if self._record_state:
            self._last_state[i] = info.get("state")
        return obs, rec[2], rec[3], rec[4], info

    def _step(self, idx: list[int], actions: list[Any]) -> list[tuple[Any, float, bool, bool, dict[str, Any]]]:
        """Step envs ``idx``; an env whose episode is already lost is reported again, untouched."""
        live = [j for j, i in enumerate(idx) if not self._lost[i]]
        recs = dict(zip(live, self._exec([(idx[j], ("step", self._home[idx[j]][1], actions[j])) for j in live]), strict=True))
        return [self._step_record(i, recs[j]) if j in recs else self._failed(i, self._lost[i]) for j, i in enumerate(idx)]

    def _failed(self, i: int, why: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """A failed step: the last good observation, and with ``record_state`` its state (the env's
        own state may be gone with its actor; every info of a recording env has a ``state``)."""
        info: dict[str, Any] = {FAILED: True, FAILURE: why}
        if self._record_state and self._last_state[i] is not None:  # (kept as the step's info had it, not copied per step)
            info["state"] = copy_module.deepcopy(self._last_state[i])  # the caller may keep and change each info's
        return self._last_obs[i], 0.0, False, True, info

    def _drop_step(self, again: list[int], moving: list[int], recs: dict[int, tuple[Any, ...]], error: ActorFailure) -> None:
        """:meth:`step` raises ``error`` (an autoreset failed every retry): its results never reach
        the caller. Each env that stepped in it is marked lost, so that the next step reports it as
        a failed step (its observation from this step, truncated, ``actor_failed``) without stepping
        it (an episode that ended in this step would go on past its end), and resets it at the one
        after; each env whose autoreset was due is reset again at the next step (unseen, this one's
        reset counts for nothing). Envs already lost stay so, reported at the next step."""
        why = f"its step's result was lost: step() raised ActorFailure ({str(error)[:300]})"
        for i in moving:
            self._step_record(i, recs[i])  # its last observation and state, or its own failure
            self._lost[i] = self._lost[i] or why  # (or why its actor was replaced in the retries)
        for i in again:
            self._autoreset[i] = True

    def _batch(self) -> Any:  # a Dict space's batch is a dict; another space's, an array or a tuple
        # concatenate writes into the same arrays every call: a batch the caller keeps must not change under it
        return copy_module.deepcopy(self._observations) if self.copy else self._observations

    def _assert_open(self) -> None:
        if self.closed:  # its actors are gone
            raise gym.error.ClosedEnvironmentError("RayVectorEnv: the vector env is closed")

    def _public_obs(self, obs: Any) -> Any:
        return _writable(obs) if self.copy else obs

    def _check_index(self, i: Any) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise ValueError(f"env index {i!r} is not an int in [0, {self.num_envs})")
        return int(i)

    def _check_indices(self, indices: Sequence[int]) -> list[int]:
        idx = [self._check_index(i) for i in indices]
        if len(set(idx)) != len(idx):
            raise ValueError(f"duplicate env indices in {idx}")
        return idx


def _writable(obs: Any) -> Any:
    """``obs`` with a writable copy of each read-only array (a zero-copy view of Ray's store) in it,
    at any depth: a Dict space's keys, a Tuple's or Sequence's items, and an observation that is an
    array itself (a wrapped env's ``Box``, which was handed out read-only). Frames unpacked by a
    codec are fresh already, and kept."""
    if isinstance(obs, np.ndarray):
        return obs if obs.flags.writeable else np.array(obs)
    if isinstance(obs, dict):
        return {k: _writable(v) for k, v in obs.items()}
    if type(obs) is tuple:
        return tuple(_writable(v) for v in obs)
    if type(obs) is list:
        return [_writable(v) for v in obs]
    return obs


def _count(v: Any) -> bool:
    """Whether ``v`` is a count of actors or envs: an int >= 1 (not a bool)."""
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def _empty_obs(space: gym.Space[Any]) -> Any:
    """One observation of ``space`` as ``create_empty_array(space, fn=np.zeros)`` makes them (zeros,
    empty strings); Gymnasium's ``iterate`` cannot split guigym's ``UnicodeText`` out of a batch."""
    def first(sub: gym.Space[Any], batch: Any) -> Any:
        if isinstance(sub, spaces.Dict):
            return {k: first(s, batch[k]) for k, s in sub.spaces.items()}
        if isinstance(sub, spaces.Tuple):
            return tuple(first(s, b) for s, b in zip(sub.spaces, batch, strict=True))
        return batch[0]

    return first(space, create_empty_array(space, n=1, fn=np.zeros))


def _host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of an explicit ``[ray://]host:port`` address; ``None`` for ``"auto"``,
    ``"local"`` and anything else ``ray.init`` resolves itself."""
    host, sep, port = address.split("://", 1)[-1].rpartition(":")
    host = host.strip("[]")  # an IPv6 literal: [::1]:6379
    return (host, int(port)) if sep and host and port.isdigit() else None


def _no_cluster(address: str | None, why: str) -> str:
    return (f"RayVectorEnv: no Ray cluster answers at address={address!r} ({why}). Start one with `ray start --head` "
            f"(then address=\"auto\" on that machine, or the address it prints elsewhere), or pass address=None "
            f"(or \"local\") to start a local Ray in this process.")


def _init_ray(address: str | None, kw: dict[str, Any]) -> None:
    """``ray.init(address=address, **kw)``, failing fast with one clear :class:`ConnectionError`
    when no cluster answers (Ray's own is a long traceback, or a hang of minutes on a dead port)."""
    hp = _host_port(address) if address else None
    if hp is not None:
        try:
            socket.create_connection(hp, timeout=CONNECT_TIMEOUT_S).close()
        except OSError as e:
            raise ConnectionError(_no_cluster(address, f"a TCP connection to it failed: {e or type(e).__name__}")) from e
    try:
        ray.init(address=address, **kw)
    except ConnectionError as e:  # "auto" without a running cluster, or a port that is not Ray's
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        raise ConnectionError(_no_cluster(address, lines[0][:200].rstrip(".") if lines else type(e).__name__)) from e


def _summary(e: BaseException) -> str:
    """The exception's type, first line and, when Ray appends a traceback (an actor that died in
    its constructor), the line that names the cause."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    first = f"{type(e).__name__}: {lines[0][:300] if lines else ''}"
    return first if len(lines) < 2 else f"{first} ... {lines[-1][:300]}"


def _raise_failures(got: dict[int, Any], what: str) -> None:
    """Raise the exception an actor method raised (as its own type), else :class:`ActorFailure`
    for actors that died or hung (already replaced; their envs need a reset)."""
    bad = {k: v for k, v in got.items() if isinstance(v, _Failed)}
    for v in bad.values():
        if isinstance(v.error, RayTaskError) and isinstance(v.error.cause, BaseException):
            # the env's own exception (type(e) is ValueError, not Ray's RayTaskError(ValueError)), as
            # reset's are; Ray's error, with the actor's traceback, is its cause
            raise v.error.cause from v.error
        if v.error is not None:
            raise v.error.as_instanceof_cause() if isinstance(v.error, RayTaskError) else v.error
    if bad:
        raise ActorFailure(f"{what} failed on actors {sorted(bad)} (replaced; their envs need a reset): "
                           f"{ {k: v.why for k, v in bad.items()} }")


def _unpack_info(info: dict[str, Any] | _PackedInfo) -> dict[str, Any]:
    # the bytes come from our own actors, which the driver started: the same trust as Ray's own pickles
    return pickle.loads(zlib.decompress(info.data)) if isinstance(info, _PackedInfo) else info


def _unpack_obs(obs: Any) -> Any:
    if isinstance(obs, dict) and isinstance(obs.get("screenshot"), PackedFrame):
        return {**obs, "screenshot": unpack_frame(obs["screenshot"])}
    return obs

