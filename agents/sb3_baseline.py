"""The stable-baselines3 PPO baseline: PPO on the SB3-wrapped env, success rate vs steps.

Used by ``train_small.py --algo ppo``. The env is wrapped by :func:`guigym.wrappers.make_sb3_env`
(a ``Discrete`` click-grid action, the screenshot downscaled plus a hashed bag of words of
the instruction); PPO learns from the env's reward (``reward_mode="shaped"`` by default:
sparse success plus potential-based shaping from the oracle's remaining length). Every
``eval_every`` steps the deterministic policy is evaluated on held-out seeds.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any


def evaluate_sb3(model: Any, env_id: str, level: str, seeds: range, max_steps: int) -> float:
    """Success rate of ``model`` (deterministic) over ``seeds``."""
    from guigym.wrappers import make_sb3_env

    env = make_sb3_env(env_id, level=level, max_episode_steps=max_steps)
    wins = 0
    for s in seeds:
        obs, info = env.reset(seed=s)
        done = False
        while not done:
            a, _ = model.predict(obs, deterministic=True)
            obs, _, term, trunc, info = env.step(int(a))
            done = term or trunc
        wins += bool(info["success"])
    env.close()
    return wins / max(1, len(seeds))


def train_ppo(
    env_id: str = "GuiGym-Login-v0", level: str = "easy", total_timesteps: int = 20_000, seed: int = 0,
    out_dir: str | Path = "runs/ppo", eval_every: int = 5_000, eval_episodes: int = 50, max_steps: int = 20,
    reward_mode: str = "shaped", policy: str = "MultiInputPolicy", n_envs: int = 4, progress: bool = True,
) -> dict[str, Any]:
    """Train PPO and write ``curves.csv`` / ``curves.png`` / ``eval.json`` under ``out_dir``."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env

    from guigym.wrappers import make_sb3_env

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    image_only = policy == "CnnPolicy"
    venv = make_vec_env(lambda: make_sb3_env(env_id, image_only=image_only, level=level, reward_mode=reward_mode,
                                             max_episode_steps=max_steps), n_envs=n_envs, seed=seed)
    model = PPO(policy, venv, n_steps=256, batch_size=256, n_epochs=4, learning_rate=3e-4, ent_coef=0.01,
                seed=seed, verbose=0, device="cpu")
    held_out = range(100_000 + seed * 1000, 100_000 + seed * 1000 + eval_episodes)
    rows: list[dict[str, float]] = [{"step": 0, "success": evaluate_sb3(model, env_id, level, held_out, max_steps)}]

    class Eval(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.next = eval_every

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                self.next += eval_every
                rows.append({"step": self.num_timesteps, "success": evaluate_sb3(self.model, env_id, level, held_out, max_steps)})
                print(f"PPO {env_id} [{level}] step {self.num_timesteps}: eval success {rows[-1]['success']:.1%}")
            return True

    model.learn(total_timesteps=total_timesteps, callback=Eval(), progress_bar=progress)
    if rows[-1]["step"] < model.num_timesteps:
        rows.append({"step": model.num_timesteps, "success": evaluate_sb3(model, env_id, level, held_out, max_steps)})
    with open(out / "curves.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["step", "success"])
        w.writeheader()
        w.writerows(rows)
    _plot(rows, out / "curves.png", f"PPO ({policy}) on {env_id} [{level}]")
    model.save(out / "ppo.zip")
    result = {"algo": "ppo", "env_id": env_id, "level": level, "seed": seed, "total_timesteps": int(model.num_timesteps),
              "final_success": rows[-1]["success"], "curve": rows, "eval_seeds": [held_out.start, held_out.stop]}
    (out / "eval.json").write_text(json.dumps(result, indent=2))
    venv.close()
    return result


def _plot(rows: list[dict[str, float]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot([r["step"] for r in rows], [100 * r["success"] for r in rows], marker="o")
    ax.set(xlabel="env steps", ylabel="eval success (%)", title=title, ylim=(-2, 102))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
