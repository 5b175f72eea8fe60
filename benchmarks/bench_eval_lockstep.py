"""The held-out evaluation of a trained tiny policy, one episode at a time (``train_small.py``
with ``--rollout-workers 0``) and in lockstep on an env pool (``--rollout-workers N``:
``eval_batch`` episodes at once, one batched greedy policy call per step), side by side:
the wall time of each and every metric of both, measured in one run.

    python train_small.py --iterations 80 --val-every 0 --run-name p80     # any policy.pt
    python benchmarks/bench_eval_lockstep.py runs/p80/policy.pt [--workers 2] [--eval-batch 16]

The run's ``args.json`` (beside the policy) gives the env, level and evaluation settings; the
metrics are :func:`train_small.evaluate`'s and :func:`train_small.expert_step_metrics`' on
the held-out seeds. Each greedy plan of a batch is the one decoded alone (the policy packs
shorter instructions) up to a batched product's last bit, which could flip a near-tie: the
script names any metric that differs.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # train_small.py lives at the top

import gymnasium as gym  # noqa: E402
import torch  # noqa: E402
from _args import at_least  # noqa: E402  (benchmarks/, the script's folder: on sys.path)

import train_small as ts  # noqa: E402
from agents.env_pool import ProcessEnvPool  # noqa: E402
from agents.tiny_policy import TinyPolicy  # noqa: E402

KEYS = ("success_rate", "mean_steps", "first_step_acc", "later_step_acc", "plan_consistency", "plan_repetition",
        "exec_repetition", "expert_type_acc", "expert_click_acc", "expert_step_acc")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("policy", type=Path, help="a policy.pt written by train_small.py (its args.json beside it)")
    p.add_argument("--workers", type=int, default=2, help="worker processes of the env pool")
    p.add_argument("--eval-batch", type=int, default=16, help="episodes evaluated at once in lockstep")
    a = p.parse_args(argv)
    # each of these was a traceback after the whole evaluation one episode at a time, or an
    # evaluation with train_small's defaults instead of the run's settings
    at_least(p, 1, workers=a.workers, eval_batch=a.eval_batch)
    if not a.policy.is_file():
        p.error(f"no policy file at {a.policy}")
    saved = a.policy.with_name("args.json")
    if not saved.is_file():
        p.error(f"policy {a.policy}: no args.json beside it (the run's settings: env, level, evaluation), so not a "
                "train_small.py run folder")
    fields = {f.name for f in dataclasses.fields(ts.Args)}
    try:
        kw = {k: v for k, v in json.loads(saved.read_text()).items() if k in fields}
    except (ValueError, AttributeError, OSError) as e:  # not JSON, or not an object
        p.error(f"policy {a.policy}: {saved} is not a train_small.py args.json ({type(e).__name__}: {' '.join(str(e).split())})")
    args = ts.Args(**{**kw, "progress": False, "eval_batch": a.eval_batch})
    torch.set_num_threads(args.threads)
    try:
        policy = TinyPolicy.load(str(a.policy))
    except Exception as e:  # a truncated or foreign file: said, not a traceback
        p.error(f"policy {a.policy}: not a tiny policy saved by train_small.py ({type(e).__name__}: {' '.join(str(e).split())})")
    policy.eval()
    planner = ts.planner_for(policy, True, args.horizon)
    seeds = list(range(args.eval_seed, args.eval_seed + args.eval_episodes))
    executor = ts.ElementExecutor()
    print(f"{args.env_id} {args.level}, {len(seeds)} held-out seeds from {args.eval_seed}, policy {a.policy}")

    t = time.perf_counter()
    alone = ts.evaluate(args, planner, seeds, max_steps=args.eval_max_steps, executor=executor)
    alone.update(ts.expert_step_metrics(args, planner, seeds))
    t_alone = time.perf_counter() - t

    pool = ProcessEnvPool(functools.partial(gym.make, args.env_id, **ts.env_kwargs(args)), a.eval_batch, workers=a.workers)
    try:
        t = time.perf_counter()
        lock = ts.evaluate(args, planner, seeds, max_steps=args.eval_max_steps, executor=executor, pool=pool)
        lock.update(ts.expert_step_metrics(args, planner, seeds, pool=pool))
        t_lock = time.perf_counter() - t
    finally:
        pool.close()

    print(f"\n| metric | one at a time | lockstep ({a.eval_batch} envs, {a.workers} workers) |\n|---|---:|---:|")
    for k in KEYS:
        print(f"| {k} | {alone[k]:.4f} | {lock[k]:.4f} |")
    print(f"| wall time (s) | {t_alone:.1f} | {t_lock:.1f} |")
    print(f"\nlockstep / one at a time: {t_alone / t_lock:.2f}x faster; metrics that differ: "
          f"{[k for k in KEYS if f'{alone[k]:.6f}' != f'{lock[k]:.6f}'] or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
