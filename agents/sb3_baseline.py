"""The stable-baselines3 PPO baseline: PPO on the SB3-wrapped env, success rate vs steps.

Used by ``train_small.py --algo ppo`` and ``benchmarks/ppo_baseline.py``. The env is wrapped by
:func:`guigym.wrappers.make_sb3_env` (a ``Discrete`` click-grid action, the screenshot
downscaled plus a hashed bag of words of the instruction); PPO learns from the env's reward
(``reward_mode="shaped"`` by default: sparse success plus potential-based shaping from the
oracle's remaining length). Every ``eval_every`` steps the deterministic policy is evaluated on
held-out seeds.

:data:`PPO_SETTING` is the setting measured over seeds in ``docs/ppo_baseline.md`` (smaller action
space, action history, tuned PPO): its shaped return rises on Login easy, but its held-out
success stays low and differs widely between seeds (one of three seeds at 0 % at 80k and at 200k
env steps alike; the numbers, their commits and the curves are in the README's PPO tables and
that page). ``train_ppo``'s own defaults reproduce the original full-action-space baseline.
"""

from __future__ import annotations

import csv
import io
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence, cast

import numpy as np

from agents.json_out import to_json
from guigym.viz import write_whole

if TYPE_CHECKING:
    from gymnasium.spaces import Discrete

#: The setting measured in ``docs/ppo_baseline.md`` (``benchmarks/ppo_baseline.py``): Login
#: easy with a smaller action space (no OpenApp block, a full-width 1x16 click grid, the first
#: 10 instruction spans as type slots: 31 actions instead of 205), a 64x36 screenshot, the last
#: 4 actions (+ "screen changed" bits) in the observation, shaped reward plus a no-op penalty,
#: 10-step episodes, and more frequent, smaller PPO updates (lr 1e-3, clip 0.3) than the original.
PPO_SETTING: dict[str, Any] = {
    "env_id": "GuiGym-Login-v0",
    "level": "easy",
    "total_timesteps": 80_000,
    "max_steps": 10,
    "n_envs": 8,
    "reward_mode": "shaped",
    "policy": "MultiInputPolicy",
    "env_kwargs": {"grid": (1, 16), "type_slots": 10, "open_app": False, "image_size": (36, 64), "prev_action": 4,
                   "noop_penalty": 0.1},
    "ppo_kwargs": {"n_steps": 32, "batch_size": 128, "n_epochs": 5, "learning_rate": 1e-3, "ent_coef": 0.01, "gamma": 0.95,
                   "clip_range": 0.3},
}


def ppo_setting(env_id: str | None = None, level: str | None = None, total_timesteps: int | None = None) -> dict[str, Any]:
    """``PPO_SETTING`` (keyword arguments of :func:`train_ppo`) for another task or budget. Only
    Login easy is measured; elsewhere the same options apply but the OpenApp block is kept
    (Launcher tasks and hard levels start on the home screen and need it)."""
    s = json.loads(json.dumps(PPO_SETTING))
    s["env_kwargs"] = {**PPO_SETTING["env_kwargs"]}
    if env_id is not None:
        s["env_id"] = env_id
    if level is not None:
        s["level"] = level
    if (s["env_id"], s["level"]) != (PPO_SETTING["env_id"], PPO_SETTING["level"]):
        s["env_kwargs"]["open_app"] = True
    if total_timesteps is not None:
        s["total_timesteps"] = total_timesteps
    return s


def _check_seeds(seeds: Any) -> None:
    """A success rate over no episodes is no measurement (``max(1, len(seeds))`` made it 0 %)."""
    if len(seeds) == 0:
        raise ValueError(f"no seeds to evaluate on (got {seeds!r}): a success rate needs at least one episode")


def train_ppo_problems(env_id: str, level: str, total_timesteps: int, seed: int, eval_every: int, eval_episodes: int,
                       max_steps: int, n_envs: int) -> list[str]:
    """What is wrong with :func:`train_ppo`'s arguments, one line each (checked before anything
    is built or written: ``eval_every=0`` evaluated after every env step, ``total_timesteps=0``
    reported a run that trained nothing, ``n_envs=0`` was an IndexError inside SB3).

    >>> train_ppo_problems("GuiGym-Login-v0", "easy", 100, 0, 0, 5, 10, 0)
    ['eval_every must be >= 1, got 0', 'n_envs must be >= 1, got 0']
    """
    from guigym.registration import id_level_problem

    out: list[str] = []
    problem = id_level_problem(env_id, level)
    if problem:
        out.append(problem)
    for name, value, low in [("total_timesteps", total_timesteps, 1), ("seed", seed, 0), ("eval_every", eval_every, 1),
                             ("eval_episodes", eval_episodes, 0), ("max_steps", max_steps, 1), ("n_envs", n_envs, 1)]:
        if value < low:
            out.append(f"{name} must be >= {low}, got {value}")
    return out


#: The policies the wrapped env's observation takes: the ``Dict`` one, or the bare image (``image_only``).
POLICIES = ("MultiInputPolicy", "CnnPolicy")
#: PPO arguments :func:`train_ppo` sets itself (``seed`` is its own argument, torch's threads ``threads``).
_OWN_PPO_ARGS = ("seed", "verbose", "device")


def setup_problems(env_id: str, level: str, reward_mode: str, max_steps: int, policy: str, env_kwargs: dict[str, Any],
                   ppo_kwargs: dict[str, Any]) -> list[str]:
    """What is wrong with :func:`train_ppo`'s ``policy``, ``reward_mode``, ``env_kwargs`` and
    ``ppo_kwargs``, one line each: the env is made (not reset: nothing starts) with them, and
    ``ppo_kwargs`` are checked against PPO's arguments. An unknown ``env_kwargs`` key, a bad
    wrapper setting, ``prev_action`` with ``CnnPolicy``, a misspelt PPO argument or a ``MlpPolicy``
    failed only after the run folder was made and the last finished run's ``eval.json`` deleted."""
    import inspect

    from stable_baselines3 import PPO

    from guigym.wrappers import make_sb3_env

    out: list[str] = []
    if policy not in POLICIES:
        out.append(f"policy must be one of {', '.join(POLICIES)} (the wrapped env's observation), got {policy!r}")
    takes = [k for k in inspect.signature(PPO.__init__).parameters if k not in ("self", "policy", "env", *_OWN_PPO_ARGS)]
    unknown = [k for k in ppo_kwargs if k not in takes]
    if unknown:
        out.append(f"ppo_kwargs {unknown}: not arguments of stable-baselines3's PPO")
    own = [k for k in ppo_kwargs if k in _OWN_PPO_ARGS]
    if own:
        out.append(f"ppo_kwargs {own}: set by train_ppo itself (seed=, the CPU)")
    try:
        make_sb3_env(env_id, level=level, reward_mode=reward_mode, max_episode_steps=max_steps, **env_kwargs).close()
    except (TypeError, ValueError) as e:
        out.append(f"the env (reward_mode={reward_mode!r}, env_kwargs {env_kwargs}): {str(e).splitlines()[0][:300]}")
    return out


def evaluate_sb3(model: Any, env_id: str, level: str, seeds: range, max_steps: int, deterministic: bool = True,
                 **env_kwargs: Any) -> float:
    """Success rate of ``model`` over ``seeds`` (argmax actions, or sampled ones with
    ``deterministic=False``); ``env_kwargs`` go to :func:`make_sb3_env` and must match those the
    model was trained with."""
    from guigym.wrappers import make_sb3_env

    _check_seeds(seeds)
    env = make_sb3_env(env_id, level=level, max_episode_steps=max_steps, **env_kwargs)
    wins = 0
    try:  # closed when predict raises too (a browser env is a Chromium)
        for s in seeds:
            obs, info = env.reset(seed=s)
            done = False
            while not done:
                a, _ = model.predict(obs, deterministic=deterministic)
                obs, _, term, trunc, info = env.step(int(a))
                done = term or trunc
            wins += bool(info["success"])
    finally:
        env.close()
    return wins / len(seeds)


def evaluate_random(env_id: str, level: str, seeds: range, max_steps: int, seed: int = 0, **env_kwargs: Any) -> float:
    """Success rate of uniformly random actions in the same wrapped env over ``seeds``."""
    from guigym.wrappers import make_sb3_env

    _check_seeds(seeds)
    env = make_sb3_env(env_id, level=level, max_episode_steps=max_steps, **env_kwargs)
    rng = np.random.default_rng(seed)
    wins = 0
    try:
        for s in seeds:
            env.reset(seed=s)
            done = False
            info: dict[str, Any] = {}
            while not done:
                _, _, term, trunc, info = env.step(int(rng.integers(cast("Discrete", env.action_space).n)))
                done = term or trunc
            wins += bool(info["success"])
    finally:
        env.close()
    return wins / len(seeds)


def train_ppo(
    env_id: str = "GuiGym-Login-v0", level: str = "easy", total_timesteps: int = 20_000, seed: int = 0,
    out_dir: str | Path = "runs/ppo", eval_every: int = 5_000, eval_episodes: int = 50, max_steps: int = 20,
    reward_mode: str = "shaped", policy: str = "MultiInputPolicy", n_envs: int = 4, progress: bool = True,
    env_kwargs: dict[str, Any] | None = None, ppo_kwargs: dict[str, Any] | None = None, threads: int | None = 1,
) -> dict[str, Any]:
    """Train PPO and write ``curves.csv`` / ``curves.png`` / ``eval.json`` under ``out_dir``.

    ``env_kwargs`` go to :func:`make_sb3_env` (action-space options), ``ppo_kwargs`` override
    the PPO hyper-parameters (default ``n_steps=256, batch_size=256, n_epochs=4,
    learning_rate=3e-4, ent_coef=0.01``). ``threads`` caps torch's CPU threads (None: leave).
    Pass ``**PPO_SETTING`` for the setting that learns.

    The curve's points are the deterministic policy's success on ``eval_episodes`` held-out
    seeds (NaN with ``eval_episodes=0``: not evaluated); the last point, ``final_success``, is
    always the saved policy's. Bad arguments raise one ``ValueError`` before anything starts
    (:func:`train_ppo_problems`, :func:`setup_problems`): the run folder is left as it was.
    """
    problems = train_ppo_problems(env_id, level, total_timesteps, seed, eval_every, eval_episodes, max_steps, n_envs)
    if problems:
        raise ValueError("train_ppo: " + "; ".join(problems))
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.env_util import make_vec_env

    from guigym.wrappers import make_sb3_env

    ekw = dict(env_kwargs or {})
    ekw["image_only"] = policy == "CnnPolicy"
    problems = setup_problems(env_id, level, reward_mode, max_steps, policy, ekw, dict(ppo_kwargs or {}))
    if problems:  # before the run folder is touched (a finished run's eval.json was deleted first)
        raise ValueError("train_ppo: " + "; ".join(problems))
    # the cap holds for this run only: a caller's (a notebook's, a test session's) torch keeps its threads
    threads_before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    venv = None
    try:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        # a previous run's eval.json in a reused folder marks a finished run: gone until this one finishes
        (out / "eval.json").unlink(missing_ok=True)
        torch.manual_seed(seed)
        venv = make_vec_env(lambda: make_sb3_env(env_id, level=level, reward_mode=reward_mode, max_episode_steps=max_steps, **ekw),
                            n_envs=n_envs, seed=seed)
        hp = {"n_steps": 256, "batch_size": 256, "n_epochs": 4, "learning_rate": 3e-4, "ent_coef": 0.01, **(ppo_kwargs or {})}
        model = PPO(policy, venv, seed=seed, verbose=0, device="cpu", **hp)
        # SB3's default logger makes a /tmp/SB3-<time> folder on every learn() even with
        # nothing to write; the curve is logged below, so a logger with no output makes none
        model.set_logger(Logger(folder=None, output_formats=[]))
        held_out = range(100_000 + seed * 1000, 100_000 + seed * 1000 + eval_episodes)
        t0 = time.process_time()

        def evaluate() -> float:
            if not held_out:  # eval_episodes=0: no evaluation, and no 0 % that looks measured
                return float("nan")
            return evaluate_sb3(model, env_id, level, held_out, max_steps, **ekw)

        def train_return() -> float:
            """Mean return of the last 100 training episodes (shaped: 1 + progress ≈ 2 at success)."""
            buf: Sequence[dict[str, Any]] = model.ep_info_buffer or []
            return round(float(np.mean([e["r"] for e in buf])), 3) if buf else float("nan")

        rows: list[dict[str, float]] = [{"step": 0, "success": evaluate(), "cpu_s": 0.0, "train_return": float("nan")}]

        class Eval(BaseCallback):
            def __init__(self) -> None:
                super().__init__()
                self.next = eval_every

            def _on_step(self) -> bool:
                if self.num_timesteps >= self.next:
                    self.next += eval_every
                    rows.append({"step": self.num_timesteps, "success": evaluate(), "cpu_s": round(time.process_time() - t0, 1),
                                 "train_return": train_return()})
                    print(f"PPO {env_id} [{level}] step {self.num_timesteps}: eval success {rows[-1]['success']:.1%}, "
                          f"train return {rows[-1]['train_return']:.2f} ({rows[-1]['cpu_s']:.0f} CPU-s)", flush=True)
                return True

        model.learn(total_timesteps=total_timesteps, callback=Eval(), progress_bar=progress)
        # The callback runs inside a rollout, before that rollout's update: a point it took at the
        # last step measured the policy before PPO's last update. The final point is always the
        # final (saved) policy's; at the same step it replaces the callback's point.
        final = {"step": model.num_timesteps, "success": evaluate(), "cpu_s": round(time.process_time() - t0, 1),
                 "train_return": train_return()}
        if rows[-1]["step"] == model.num_timesteps and len(rows) > 1:
            rows[-1] = final
        else:
            rows.append(final)
        buf = io.StringIO(newline="")
        w = csv.DictWriter(buf, fieldnames=["step", "success", "cpu_s", "train_return"])
        w.writeheader()
        w.writerows(rows)
        write_whole(out / "curves.csv", lambda p: p.write_text(buf.getvalue(), newline=""))
        write_whole(out / "curves.png", lambda p: _plot(rows, p, f"PPO ({policy}) on {env_id} [{level}]"))
        write_whole(out / "ppo.zip", lambda p: model.save(p))  # a name with a suffix: SB3 adds no ".zip"
        result = {"algo": "ppo", "env_id": env_id, "level": level, "seed": seed, "total_timesteps": int(model.num_timesteps),
                  "final_success": rows[-1]["success"], "curve": rows, "eval_seeds": [held_out.start, held_out.stop],
                  "cpu_s": rows[-1]["cpu_s"], "max_steps": max_steps, "n_envs": n_envs, "reward_mode": reward_mode,
                  "policy": policy, "env_kwargs": {k: list(v) if isinstance(v, tuple) else v for k, v in ekw.items()}, "ppo_kwargs": hp}
        # strict JSON (train_return NaN at step 0 as null); written last: its presence marks a finished run
        write_whole(out / "eval.json", lambda p: p.write_text(to_json(result)))
        return result
    finally:
        if venv is not None:  # also on an error or a Ctrl-C: the envs were left open
            venv.close()
        torch.set_num_threads(threads_before)


def _plot(rows: list[dict[str, float]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot([r["step"] for r in rows], [100 * r["success"] for r in rows], marker="o")
    ax.set(xlabel="env steps", ylabel="eval success (%)", title=title, ylim=(-2, 102))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100, format="png")  # the format: path may be a temporary name
    plt.close(fig)
