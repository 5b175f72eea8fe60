"""TraceR1's ablations in miniature: ``train_small.py`` under each setting, several seeds.

    python benchmarks/ablations.py                       # every setting, seeds 1 2 3, 2 workers, 120 iterations
    python benchmarks/ablations.py --settings full no-rep gamma1 --seeds 1 2
    python benchmarks/ablations.py --help

Settings (each a set of ``train_small.py`` flags on top of ``--extra``):

=============  ==============================================  ==============================
``full``       the defaults (stage 1 then stage 2, T = 5)       —
``no-rep``     ``--lambda-rep 0``                               no repetition penalty
``gamma1``     ``--gamma 1``                                    no discount over planned steps
``T1`` … ``T15``  ``--horizon N`` (``T5`` is ``full``)           planning horizon
``no-stage2``  ``--stage 1`` (all iterations in stage 1)        without grounded RL
``T1-fixnorm``  ``--horizon 1 --loss-norm-tokens 15`` (… T10)   horizon, equal per-token step
=============  ==============================================  ==============================

Each run is a separate process (``--workers`` at a time, one torch thread each) writing
``<out>/<setting>__<seed>/``; the table (mean ± std over seeds of held-out success,
repetition, steps, first-step accuracy) is printed and saved as ``table.md`` and
``results.json`` in ``<out>``. Finished runs (an ``eval.json`` exists) are reused, so an
interrupted sweep resumes.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import numpy as np
import tyro

ROOT = Path(__file__).resolve().parents[1]

SETTINGS: dict[str, list[str]] = {
    "full": [],
    "no-rep": ["--lambda-rep", "0"],
    "gamma1": ["--gamma", "1"],
    "T1": ["--horizon", "1"],
    "T3": ["--horizon", "3"],
    "T5": ["--horizon", "5"],
    "T10": ["--horizon", "10"],
    "T15": ["--horizon", "15"],
    "no-stage2": ["--stage", "1"],
    # the horizon with every token weighing the same (GRPO's per-plan mean gives a T = 1 plan's
    # tokens 5x the step size of a T = 5 plan's): Dr. GRPO normalisation by 15 tokens (3 per step at T = 5)
    "T1-fixnorm": ["--horizon", "1", "--loss-norm-tokens", "15"],
    "T3-fixnorm": ["--horizon", "3", "--loss-norm-tokens", "15"],
    "T5-fixnorm": ["--horizon", "5", "--loss-norm-tokens", "15"],
    "T10-fixnorm": ["--horizon", "10", "--loss-norm-tokens", "15"],
}
DEFAULT_ORDER = ["full", "no-rep", "gamma1", "T1", "T3", "T10", "T15", "no-stage2"]  # T5 is full

METRICS = [
    ("success_rate", "success"),
    ("plan_repetition", "plan rep."),
    ("exec_repetition", "exec rep."),
    ("mean_steps", "steps"),
    ("first_step_acc", "1st-step acc."),
    ("later_step_acc", "later-step acc."),
]


@dataclass
class Args:
    """Run the ablation sweep and print its table."""

    settings: list[str] = field(default_factory=lambda: list(DEFAULT_ORDER))
    """which settings (see the module docstring); ``T5`` equals ``full`` at the default horizon"""
    seeds: list[int] = field(default_factory=lambda: [1, 2, 3])
    """training seeds per setting"""
    env_id: str = "GuiGym-Login-v0"
    level: str = "easy"
    out: str = "runs/ablations"
    """folder of the runs and the table"""
    workers: int = 2
    """runs at a time (each uses one torch thread)"""
    iterations: int = 120
    """GRPO iterations per run (``train_small.py`` defaults to 200; fewer keeps the settings apart
    before they all saturate, and the sweep short)"""
    extra: str = ""
    """more ``train_small.py`` flags for every run, one string: ``--extra "--group-size 16"``"""
    rerun: bool = False
    """train again even where an ``eval.json`` exists"""
    table_only: bool = False
    """only aggregate the runs already in ``out``"""


def run_one(args: Args, setting: str, seed: int) -> Optional[dict[str, Any]]:
    name = f"{setting}__{seed}"
    done = Path(args.out) / name / "eval.json"
    if done.exists() and not args.rerun:
        return json.loads(done.read_text())
    if args.table_only:
        return None
    cmd = [sys.executable, str(ROOT / "train_small.py"), "--env-id", args.env_id, "--level", args.level, "--seed", str(seed),
           "--out-dir", args.out, "--run-name", name, "--no-progress", "--iterations", str(args.iterations),
           *SETTINGS[setting], *shlex.split(args.extra)]
    t = time.time()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0 or not done.exists():
        print(f"[{name}] failed ({proc.returncode}):\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None
    res = json.loads(done.read_text())
    print(f"[{name}] success {res['policy']['success_rate']:.2f} in {time.time() - t:.0f} s", flush=True)
    return res


def fmt(values: list[float], pct: bool) -> str:
    v = np.asarray([x for x in values if x == x], dtype=float)
    if v.size == 0:
        return "—"
    m, s = v.mean(), v.std(ddof=1) if v.size > 1 else 0.0
    return f"{100 * m:.1f} ± {100 * s:.1f}" if pct else f"{m:.2f} ± {s:.2f}"


def _num(v: Any) -> float:
    return float("nan") if v is None else float(v)


def table(results: dict[str, list[dict[str, Any]]], random_success: Optional[float]) -> str:
    head = "| setting | runs | " + " | ".join(lbl for _, lbl in METRICS) + " | val AUC | iters to 90 % |"
    lines = [head, "|" + "---|" * (len(METRICS) + 4)]
    for setting, runs in results.items():
        cells = []
        for key, _ in METRICS:
            vals = [_num(r["policy"].get(key)) for r in runs]
            cells.append(fmt(vals, pct=key != "mean_steps"))
        cells.append(fmt([_num(r.get("val_auc")) for r in runs], pct=True))
        reached = [r["val90_iter"] for r in runs if r.get("val90_iter") is not None]
        its = fmt([float(x) for x in reached], pct=False).replace(".00", "") if reached else "—"
        cells.append(f"{its} ({len(reached)}/{len(runs)})")
        lines.append(f"| {setting} | {len(runs)} | " + " | ".join(cells) + " |")
    if random_success is not None:
        lines.append(f"\nRandom planner on the same held-out seeds: {100 * random_success:.1f} % success.")
    lines.append(
        "\nPercentages: mean ± std over training seeds (held-out evaluation, greedy plan-act loop); steps per episode. "
        "plan rep.: planned steps repeating an earlier step of the same plan where the reference does not; exec rep.: "
        "executed actions equal to the previous one; 1st-step / later-step acc.: action similarity of a plan's first / "
        "later steps to the reference; val AUC: mean validation success over training (learning speed); iters to 90 %: "
        "first validation at ≥ 90 % (runs that got there)."
    )
    return "\n".join(lines)


def main(args: Args) -> dict[str, Any]:
    bad = [s for s in args.settings if s not in SETTINGS]
    if bad:
        raise SystemExit(f"unknown settings {bad}; choose from {list(SETTINGS)}")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    jobs = [(s, seed) for seed in args.seeds for s in args.settings]
    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        outs = list(pool.map(lambda j: run_one(args, *j), jobs))
    results: dict[str, list[dict[str, Any]]] = {s: [] for s in args.settings}
    for (s, _), res in zip(jobs, outs):
        if res is not None:
            results[s].append(res)
    rnd = [r["random"]["success_rate"] for runs in results.values() for r in runs if "random" in r]
    text = f"Ablations on {args.env_id} ({args.level}), seeds {args.seeds}\n\n" + table(results, float(np.mean(rnd)) if rnd else None)
    print(text)
    (Path(args.out) / "table.md").write_text(text + "\n")
    summary = {s: [{"run": r["run_name"], **{k: r["policy"].get(k) for k, _ in METRICS}, "val_auc": r.get("val_auc"),
                    "val90_iter": r.get("val90_iter"), "train_time_s": r.get("train_time_s")} for r in runs]
               for s, runs in results.items()}
    (Path(args.out) / "results.json").write_text(json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":
    main(tyro.cli(Args, description=__doc__.split("\n")[0]))
