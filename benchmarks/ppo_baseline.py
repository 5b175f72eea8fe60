"""The stable-baselines3 PPO baseline in its measured setting, over several seeds, against random.

    python benchmarks/ppo_baseline.py                       # seeds 0 1 2, agents.sb3_baseline.PPO_SETTING
    python benchmarks/ppo_baseline.py --seeds 0 1 2 3 4 --steps 150000
    python benchmarks/ppo_baseline.py --help

For each seed: ``train_ppo(**PPO_SETTING, seed=seed)`` (one torch thread, SB3 seeded), then the
final policy and a uniformly random policy (same wrapped env, same action space) are evaluated on
the same held-out seeds (``--eval-seed`` …, disjoint from the training streams): the
deterministic (argmax) policy, and the sampled policy. Writes ``<out>/table.md``,
``<out>/results.json`` and the learning curves of all seeds (``--png``, default
``docs/ppo_baseline.png``), and prints the table and the git commit. Runs are sequential; with
one thread SB3's PPO is deterministic per seed (same seed, same machine: same numbers). A seed
whose ``<out>/seed<k>/row.json`` has the same setting, held-out seeds and curve flags
(``--eval-every``, ``--curve-episodes``) is reused, not retrained.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from agents.json_out import to_json  # noqa: E402  (result files as strict JSON)
from guigym.viz import write_whole  # noqa: E402

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def git_commit() -> str:
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        mine = ["agents/sb3_baseline.py", "guigym/wrappers.py", "benchmarks/ppo_baseline.py"]
        dirty = subprocess.run(["git", "status", "--porcelain", "--", *mine], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    import torch

    from agents.sb3_baseline import PPO_SETTING, evaluate_random, evaluate_sb3, train_ppo

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="training seeds (all are reported)")
    p.add_argument("--steps", type=int, default=PPO_SETTING["total_timesteps"], help="env steps per seed")
    p.add_argument("--eval-every", type=int, default=10_000, help="env steps between learning-curve points")
    p.add_argument("--curve-episodes", type=int, default=50, help="held-out episodes per learning-curve point")
    p.add_argument("--eval-episodes", type=int, default=100, help="held-out episodes of the final evaluation")
    p.add_argument("--eval-seed", type=int, default=10_000, help="first held-out seed of the final evaluation")
    p.add_argument("--out", default="runs/ppo_baseline", help="run folder (per-seed runs, table.md, results.json)")
    p.add_argument("--png", default="docs/ppo_baseline.png", help="learning-curve figure")
    args = p.parse_args(argv)
    problems = arg_problems(args)
    if problems:  # before any training: a bad --eval-seed or --png used to fail after every seed had trained
        p.error("; ".join(problems))

    torch.set_num_threads(1)
    setting = {**PPO_SETTING, "total_timesteps": args.steps}
    env_id, level, max_steps = setting["env_id"], setting["level"], setting["max_steps"]
    ekw = {**setting["env_kwargs"], "image_only": setting["policy"] == "CnnPolicy"}
    held_out = range(args.eval_seed, args.eval_seed + args.eval_episodes)
    curve_flags = {"eval_every": args.eval_every, "curve_episodes": args.curve_episodes}
    commit = git_commit()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"commit {commit}; setting {json.dumps(setting)}", flush=True)

    rows: list[dict[str, Any]] = []
    for seed in args.seeds:
        cached = out / f"seed{seed}" / "row.json"
        old = read_row(cached)
        if old is not None:
            # the curve's flags too: a row trained with another --eval-every / --curve-episodes has
            # another learning curve, and was reused for the figure as if it were this run's
            if (old.get("setting") == json.loads(json.dumps(setting)) and old.get("held_out") == [held_out.start, held_out.stop]
                    and old.get("curve_flags") == curve_flags):
                rows.append(old["row"])
                print(f"seed {seed}: reusing {cached}", flush=True)
                continue
        t0, c0 = time.time(), time.process_time()
        res = train_ppo(**setting, seed=seed, out_dir=out / f"seed{seed}", eval_every=args.eval_every,
                        eval_episodes=args.curve_episodes, progress=False, threads=1)
        wall, cpu = time.time() - t0, time.process_time() - c0
        from stable_baselines3 import PPO

        model = PPO.load(out / f"seed{seed}" / "ppo.zip", device="cpu")
        torch.manual_seed(seed)
        row = {
            "seed": seed, "env_steps": res["total_timesteps"], "train_wall_s": round(wall, 1), "train_cpu_s": round(cpu, 1),
            "ppo_argmax": evaluate_sb3(model, env_id, level, held_out, max_steps, **ekw),
            "ppo_sampled": evaluate_sb3(model, env_id, level, held_out, max_steps, deterministic=False, **ekw),
            "random": evaluate_random(env_id, level, held_out, max_steps, seed=seed, **ekw),
            "curve": res["curve"],
        }
        rows.append(row)
        text = to_json({"setting": setting, "held_out": [held_out.start, held_out.stop], "curve_flags": curve_flags, "row": row},
                       indent=None, default=list)
        write_whole(cached, lambda p: p.write_text(text))  # whole or not at all: a seed's cache is never half a file
        print(f"seed {seed}: PPO argmax {row['ppo_argmax']:.0%}, sampled {row['ppo_sampled']:.0%}, random {row['random']:.0%}, "
              f"{row['env_steps']} steps, {wall:.0f} s wall / {cpu:.0f} CPU-s", flush=True)

    table = render_table(rows, env_id, level, held_out, commit)
    print(table)
    write_whole(out / "table.md", lambda p: p.write_text(table))
    results = to_json({"commit": commit, "setting": setting, "held_out": [held_out.start, held_out.stop], "rows": rows}, default=list)
    write_whole(out / "results.json", lambda p: p.write_text(results))
    plot(rows, Path(args.png), f"SB3 PPO on {env_id} [{level}], {len(rows)} seeds")
    print(f"wrote {out / 'table.md'}, {out / 'results.json'}, {args.png}")
    return rows


def read_row(path: Path) -> dict[str, Any] | None:
    """A seed's cached ``row.json``, or None where there is none or it cannot be read (a file cut
    short by a killed run, from before rows were written whole: that seed is trained again, where
    a ``JSONDecodeError`` traceback stopped every later run of the sweep)."""
    try:
        old = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        print(f"{path}: not a readable row ({type(e).__name__}: {e}); training that seed again", file=sys.stderr, flush=True)
        return None
    return old if isinstance(old, dict) else None


def arg_problems(args: argparse.Namespace) -> list[str]:
    """Every bad flag, one line each, checked before the first seed trains."""
    from matplotlib.backend_bases import FigureCanvasBase

    from guigym.viz import folder_problem, writable_problem

    out = [f"--seeds must be >= 0, got {s}" for s in args.seeds if s < 0]
    out += [f"--seeds: {s} is given twice (every seed is one row of the table and its mean)"
            for s in sorted({s for s in args.seeds if args.seeds.count(s) > 1})]
    for flag, low in [("steps", 1), ("eval_every", 1), ("curve_episodes", 1), ("eval_episodes", 1), ("eval_seed", 0)]:
        v = getattr(args, flag)
        if v < low:
            out.append(f"--{flag.replace('_', '-')} must be >= {low}, got {v}")
    png = Path(args.png)
    formats = sorted(FigureCanvasBase.get_supported_filetypes())  # matplotlib picks the format from the suffix
    if png.is_dir():
        out.append(f"--png {args.png}: is a folder; give a file name such as {png / 'ppo_baseline.png'}")
    elif png.suffix.lower().lstrip(".") not in formats:  # matplotlib appended .png: another file than the one named
        out.append(f"--png {args.png}: must end in .png (or .{', .'.join(f for f in formats if f != 'png')})")
    else:
        problem = writable_problem(png)
        if problem:
            out.append(f"--png {args.png}: {problem}")
    problem = folder_problem(args.out)
    if problem:
        out.append(f"--out {args.out}: {problem}")
    return out


def render_table(rows: list[dict[str, Any]], env_id: str, level: str, held_out: range, commit: str) -> str:
    lines = [f"SB3 PPO on {env_id} [{level}], held-out seeds {held_out.start}–{held_out.stop - 1}, commit {commit}", "",
             "| seed | PPO success (argmax) | PPO success (sampled) | random success | env steps | train wall time | train CPU time |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['seed']} | {r['ppo_argmax']:.0%} | {r['ppo_sampled']:.0%} | {r['random']:.0%} | {r['env_steps']:,} | "
                     f"{r['train_wall_s']:.0f} s | {r['train_cpu_s']:.0f} s |")
    if rows:
        m = lambda k: float(np.mean([r[k] for r in rows]))  # noqa: E731
        lines.append(f"| mean | {m('ppo_argmax'):.0%} | {m('ppo_sampled'):.0%} | {m('random'):.0%} | | "
                     f"{m('train_wall_s'):.0f} s | {m('train_cpu_s'):.0f} s |")
    return "\n".join(lines) + "\n"


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.3))
    for r in rows:
        steps = [c["step"] for c in r["curve"]]
        axes[0].plot(steps, [100 * c["success"] for c in r["curve"]], marker="o", label=f"seed {r['seed']}")
        axes[1].plot(steps[1:], [c["train_return"] for c in r["curve"][1:]], marker="o", label=f"seed {r['seed']}")
    axes[0].axhline(100 * float(np.mean([r["random"] for r in rows])), color="grey", ls="--", label="random")
    axes[0].set(xlabel="env steps", ylabel="held-out success, argmax (%)", ylim=(-2, 102))
    axes[1].set(xlabel="env steps", ylabel="training return (shaped − no-op penalty)")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    main()
