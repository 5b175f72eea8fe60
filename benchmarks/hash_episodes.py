"""One SHA-256 over everything the envs return, to check that a change (a speed-up) changes no behaviour.

    PYTHONPATH=. python benchmarks/hash_episodes.py [--seeds 10] [--backend mock] [--variation all [--split test]]

For every registered id × level, three kinds of episodes run ``--seeds`` seeds each, on one
env per id (reused across episodes, as in training, so caches carry over):

* ``oracle``: follow ``info["reference"][0]`` from reset to the end;
* ``random``: a seeded random policy (``action_space`` samples mixed with clicks on visible
  elements, so it leaves the start screen) until the episode ends; odd seeds play the
  scenario of a second, unseeded reset (the generator's stream after the first);
* ``detour``: a few random actions, then a ``get_state``/``set_state`` round trip into the
  same env, then the oracle to the end (references from states off the oracle's path).

Sparse and shaped rewards alternate by seed; the env has both extra observations. Every
step feeds the hash: the observation (screenshot bytes, instruction, elements, history),
reward, terminated, truncated, ``repr`` of ``info["reference"]``, ``info["elements"]``,
``info["event"]``, ``info["success"]``, ``info["action_error"]`` and the ``get_state()`` JSON.
Prints one hash per id × level and the total; two runs of the same code print the same.
With ``--variation`` (a preset name of :mod:`guigym.variation`, e.g. ``all`` or ``appearance``;
its ``PRESETS``, not a single axis) every env is made with it (and ``--split``), so the varied
episodes are hashed instead: the same check for the varied paths (looks, interruptions,
adversarial rows, long descriptions, relabelled chrome).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from typing import Any, SupportsFloat

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402

import guigym  # noqa: E402,F401
from guigym.actions import Click  # noqa: E402
from guigym.backends import BACKENDS  # noqa: E402
from guigym.env import gui_env
from guigym.registration import id_levels  # noqa: E402
from guigym.variation import SPLITS  # noqa: E402
from guigym.variation import resolve as resolve_variation  # noqa: E402

DETOUR_STEPS = (1, 8)  # random actions before the oracle takes over: at least, at most


def feed(h: Any, env: gym.Env, obs: dict[str, Any], info: dict[str, Any], reward: SupportsFloat = 0.0, term: bool = False,
         trunc: bool = False) -> None:
    """Add one transition to the hash ``h``."""
    h.update(obs["screenshot"].tobytes())
    h.update(repr((obs["instruction"], obs.get("history"), [(e["id"], int(e["role"]), e["label"], e["box"].tolist())
                                                            for e in obs.get("elements", ())])).encode())
    h.update(repr((float(reward), bool(term), bool(trunc))).encode())
    h.update(repr((info["reference"], info["elements"], info["event"], info["success"], info["action_error"])).encode())
    h.update(json.dumps(gui_env(env).get_state(), sort_keys=True).encode())


def random_action(env: gym.Env, info: dict[str, Any], rng: np.random.Generator) -> Any:
    """A click on a random visible element half of the time (so episodes leave the start
    screen), else a sample of the action space."""
    if info["elements"] and rng.random() < 0.5:
        e = info["elements"][int(rng.integers(len(info["elements"])))]
        x0, y0, x1, y1 = e["box"]
        return Click(int(rng.integers(x0, x1 + 1)), int(rng.integers(y0, y1 + 1)))
    return env.action_space.sample()


def episode(env: gym.Env, h: Any, kind: str, seed: int, level: str) -> int:
    """Run one episode of ``kind`` into ``h``; returns its number of steps."""
    rng = np.random.default_rng(seed)
    env.action_space.seed(seed)
    obs, info = env.reset(seed=seed, options={"level": level})
    feed(h, env, obs, info)
    if kind == "random" and seed % 2:  # a reset without a seed: the scenario comes from where the stream stands
        obs, info = env.reset(options={"level": level})
        feed(h, env, obs, info)
    n_random = {"oracle": 0, "random": 10**9, "detour": int(rng.integers(DETOUR_STEPS[0], DETOUR_STEPS[1] + 1))}[kind]
    n, done = 0, False
    while not done:
        if n == n_random and kind == "detour":  # restore into the same env: must change nothing
            base = gui_env(env)
            snap = base.get_state()
            base.set_state(json.loads(json.dumps(snap)))
            obs = base.observe()
            info = {**info, "reference": base.reference(), "elements": base.elements()}
            feed(h, env, obs, info)
        if n < n_random:
            act = random_action(env, info, rng)
        elif info["reference"]:
            act = info["reference"][0].action
        else:  # no reference left (done or failed): nothing more to follow
            break
        obs, reward, term, trunc, info = env.step(act)
        feed(h, env, obs, info, reward, term, trunc)
        n += 1
        done = term or trunc
    return n


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=10, help="episodes per id x level and kind")
    p.add_argument("--backend", default="mock", choices=BACKENDS, help="the backend of every env (default: %(default)s)")
    p.add_argument("--variation", default=None, help="make every env with this variation preset (e.g. all)")
    p.add_argument("--split", default=None, choices=SPLITS, help="the split of --variation (default: train)")
    a = p.parse_args(argv)
    # a hash of a run that was not the one asked for reads as "unchanged" or "changed" for the
    # wrong reason: --seeds 0 hashed nothing, --split without --variation hashed plain episodes
    if a.seeds < 1:  # not benchmarks/_args.py: tests and worktree A/B runs load this file by its path
        p.error(f"--seeds must be >= 1, got {a.seeds}")
    if a.split is not None and a.variation is None:
        p.error(f"--split {a.split} needs --variation (it is the split of the varied envs)")
    a.split = a.split or "train"
    if a.variation is not None:
        try:
            resolve_variation(a.variation, a.split)
        except ValueError as e:
            p.error(f"--variation {a.variation}: {e}")
    varied = {} if a.variation is None else {"variation": a.variation, "split": a.split}
    print(f"guigym from {os.path.dirname(guigym.__file__)}", flush=True)  # run from the tree under test (PYTHONPATH=.)
    total = hashlib.sha256()
    t0 = time.perf_counter()
    envs: dict[tuple[str, str], gym.Env] = {}
    for env_id, level in id_levels():
        h, steps = hashlib.sha256(), 0
        for reward_mode in ("sparse", "shaped"):
            key = (env_id, reward_mode)
            if key not in envs:
                envs[key] = gym.make(env_id, backend=a.backend, reward_mode=reward_mode, extra_obs=("elements", "history"),
                                     **varied)
        for kind in ("oracle", "random", "detour"):
            for seed in range(a.seeds):
                steps += episode(envs[(env_id, ("sparse", "shaped")[seed % 2])], h, kind, seed, level)
        total.update(h.digest())
        print(f"{env_id:22} {level:7} {steps:6d} steps  {h.hexdigest()}", flush=True)
    for env in envs.values():
        env.close()
    how = "" if a.variation is None else f", variation {a.variation} ({a.split})"
    print(f"total {total.hexdigest()}  ({a.seeds} seeds x 3 kinds x {len(id_levels())} id-levels, {a.backend} backend{how}, "
          f"{time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
