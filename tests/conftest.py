"""Shared test set-up: headless SDL, and the registry-derived parameter lists."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import pytest  # noqa: E402

import guigym  # noqa: E402,F401  (registers the envs)
from guigym.actions import Click  # noqa: E402
from guigym.apps.base import apply  # noqa: E402
from guigym.oracle import center  # noqa: E402
from guigym.registration import env_ids, id_levels  # noqa: E402

#: (env id, level) for every registered id and every level of its family; an id whose family
#: is unknown raises here instead of silently leaving the matrix.
ID_LEVELS = id_levels()
IDS = env_ids()


def load_example(name: str):
    """Import ``examples/<name>.py`` as module ``name`` (the examples are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses resolve string annotations through sys.modules
    spec.loader.exec_module(mod)
    return mod


def make(env_id: str, **kw):
    """The raw env (no wrappers: tests drive references past nothing)."""
    return gym.make(env_id, disable_env_checker=True, **kw)


# --- the oracle, shared by the family tests -----------------------------------------------------
@dataclass
class OracleRun:
    """One run of the oracle (:func:`follow_reference`): what it was asked to do and what came of it."""

    seed: int | None
    plan: list[Any]  # info["reference"] when the run began
    limit: int  # the most steps it could take (the env's max_episode_steps in oracle_episodes)
    success: bool = False  # info["success"] where it stopped (False when it ran out of steps)
    steps: int = 0
    rewards: list[float] = field(default_factory=list)
    terminated: list[bool] = field(default_factory=list)
    truncated: list[bool] = field(default_factory=list)


def follow_reference(env, info, limit: int, *, replan: bool = True, seed: int | None = None,
                     on_state: Callable[[Any, dict[str, Any]], None] | None = None) -> OracleRun:
    """Follow the oracle from ``info`` (reset's or a step's) for at most ``limit`` steps.

    ``replan=True``: step the first step of the current ``info["reference"]`` until it is empty
    or the episode ends; every step must take (no ``action_error``) and be the reference's event.
    ``replan=False``: step the plan in ``info`` as it is, to its end or until the episode ends.
    ``on_state(env, info)`` is called on every state before it is acted on (the last one too
    where the reference runs out; not the state an episode ends in).
    """
    run = OracleRun(seed, list(info["reference"]), limit)
    plan = iter(run.plan)
    for n in range(limit):
        if on_state is not None:
            on_state(env, info)
        step = (info["reference"] or [None])[0] if replan else next(plan, None)
        if step is None:
            run.success = info["success"]
            return run
        _, r, term, trunc, info = env.step(step.action)
        if replan:
            assert info["action_error"] is None, info["action_error"]
            assert info["event"] == step.event, (step, info["event"])
        run.steps = n + 1
        run.rewards.append(r)
        run.terminated.append(term)
        run.truncated.append(trunc)
        if term or trunc:
            run.success = info["success"]
            return run
    return run


def run_reference(env, info, limit):
    """Follow the reference (re-planned after every step); returns (success, steps)."""
    run = follow_reference(env, info, limit)
    return run.success, run.steps


def oracle_episodes(env_id: str, level: str, seeds: Iterable[int] = range(200), *, replan: bool = True) -> Iterator[OracleRun]:
    """The oracle from reset on each of ``seeds`` (one env, made at ``level``, reused; at most the
    env's ``max_episode_steps`` each): one :class:`OracleRun` per seed, in order."""
    env = make(env_id, level=level)
    try:
        for seed in seeds:
            _, info = env.reset(seed=seed)
            yield follow_reference(env, info, env.spec.max_episode_steps, replan=replan, seed=seed)
    finally:
        env.close()


def assert_extra_change_fails(env, spoil: Callable[[dict[str, Any]], None]) -> None:
    """Step ``env``'s reference but its last step; take that one by hand on a copy of the state
    (success there, not failure), then let ``spoil`` make a change the task does not ask for in
    the copy's ``apps``: the family must call it failed, not success."""
    ref = env.unwrapped.reference()
    for s in ref[:-1]:
        env.step(s.action)
    fam = env.unwrapped.family
    sc = env.unwrapped.scenario
    ok = apply(sc, env.unwrapped.get_state()["state"], ref[-1].event)  # the last step, by hand on a copy
    assert fam.success(sc, ok) and not fam.failed(sc, ok)
    spoil(ok["apps"])
    assert fam.failed(sc, ok) and not fam.success(sc, ok)


@pytest.fixture
def login_env():
    env = make("GuiGym-Login-v0")
    yield env
    env.close()


# --- German content (guigym.i18n.content) ----------------------------------------------------------
def twins(family: str, level: str, seed: int) -> tuple[dict, dict]:
    """``family``'s instance for ``seed`` made in English and in German (``generating_in``), after
    checking that both leave the generator in the same state (German tables make the same draws)."""
    import numpy as np

    from guigym.apps import FAMILIES
    from guigym.apps.draws import Draws
    from guigym.i18n.content import generating_in

    out, ends = [], []
    for lang in ("en", "de"):
        g = np.random.default_rng(seed)
        with Draws(g) as rng, generating_in(lang):
            out.append(FAMILIES[family].instance(rng, level))
        ends.append(g.bit_generator.state)
    assert ends[0] == ends[1], (family, level, seed)
    return out[0], out[1]


def tap(env: gym.Env, wid: str) -> Any:
    """Click the centre of visible widget ``wid`` (scrolling down to it first); returns step()'s tuple."""
    for _ in range(12):
        box = env.unwrapped._lay.box(wid)
        if box is not None:
            return env.step(Click(*center(box)))
        env.step({"type": 1, "x": 180, "y": 400, "direction": 1, "app": 0, "text": ""})  # Scroll down
    raise AssertionError((wid, [w.id for w, _ in env.unwrapped._lay.visible]))


class Returns:
    """A planner that always returns ``value`` (a plan, a step, an action or model text)."""

    horizon = 4

    def __init__(self, value: object) -> None:
        self.value = value

    def reset(self, seed: int | None = None) -> None:
        pass

    def plan(self, obs: dict, info: dict, history: list) -> object:
        return self.value


def reference_events(reference: Iterable[Any]) -> list[Any]:
    """The pygame events that play a reference in ``guigym play``: a click as a mouse press,
    typed text as text input and Enter."""
    import pygame

    events: list[Any] = []
    for step in reference:
        a = step.action
        if isinstance(a, Click):
            events.append(pygame.event.Event(pygame.MOUSEBUTTONDOWN, button=1, pos=(a.x, a.y)))
        else:
            events += [pygame.event.Event(pygame.TEXTINPUT, text=ch) for ch in a.text]
            events.append(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN))
    return events


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One small local Ray for the module (2 CPUs, no dashboard), shut down after it."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False, object_store_memory=80 * 2**20)
    try:
        yield
    finally:
        ray.shutdown()


def assert_set_state_refused(env: Any, snap: dict[str, Any], match: str) -> None:
    """``set_state(snap)`` raises a ValueError matching ``match`` and leaves ``env`` as it was."""
    before = env.unwrapped.get_state()
    shot = env.unwrapped.observe()["screenshot"].tobytes()
    with pytest.raises(ValueError, match=match):
        env.unwrapped.set_state(snap)
    assert env.unwrapped.get_state() == before
    assert env.unwrapped.observe()["screenshot"].tobytes() == shot


def driver_threads() -> list[str]:
    """The names of the live threads guigym's browser backend started (its Playwright driver loop)."""
    import threading

    return [t.name for t in threading.enumerate() if t.name.startswith("guigym-")]


def settled(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    """``check()`` polled until it is falsy or ``timeout`` seconds pass; its last value (processes
    and threads take a moment to go after a close or a kill)."""
    import time

    end = time.monotonic() + timeout
    while (value := check()) and time.monotonic() < end:
        time.sleep(0.05)
    return value

