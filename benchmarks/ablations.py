"""TraceR1's ablations in miniature: ``train_small.py`` under each setting, ≥ 5 seeds, with a
test of each claimed direction.

    python benchmarks/ablations.py                          # the default settings, seeds 1–5, 2 workers
    python benchmarks/ablations.py --settings full no-rep --seeds 1 2 3 4 5 6 7 8
    python benchmarks/ablations.py --table-only             # re-aggregate the runs in --out
    python benchmarks/ablations.py --help

Every setting is a set of ``train_small.py`` flags (``SETTINGS``) on top of ``--extra``. A
setting with a **claim** (``CLAIMS``: the paper's finding, as a direction of one metric
against a baseline setting) gets a verdict: the one-sided exact permutation test over seeds
(all ways of splitting the pooled per-seed values into the two groups; no distributional
assumption, exact for small n) gives ``p``; "reproduced" when the difference has the claimed
sign and ``p < 0.05``, "opposite" when it has the other sign and the opposite one-sided ``p <
0.05``, "not reproduced" otherwise. Means come with a 95 % bootstrap interval over seeds.

Each run is a separate process (``--workers`` at a time, one torch thread each) writing
``<out>/<setting>__<seed>/`` (``curves.csv`` among its files: the reward curves). The sweep
writes ``table.md``, ``results.json`` and ``curves.png`` (mean stage reward and validation
success per setting) into ``<out>``. Finished runs (an ``eval.json`` exists) are reused, so an
interrupted sweep resumes.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
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
sys.path.insert(0, str(ROOT))
from _args import at_least  # noqa: E402  (benchmarks/, the script's folder: on sys.path)
from agents.json_out import to_json  # noqa: E402  (result files as strict JSON)
from agents.usage import UsageParser  # noqa: E402
from guigym.registration import id_level_problem  # noqa: E402
from guigym.viz import folder_problem  # noqa: E402

# UI-R1's recipe, with its trainer's std-scaled group advantage (TRL's GRPOTrainer of the time)
UIR1 = ["--stage1-reward", "uir1", "--horizon", "1", "--stage", "1", "--rollout-actor", "reference", "--scale-rewards"]
SETTINGS: dict[str, list[str]] = {
    "full": [],
    "no-rep": ["--lambda-rep", "0"],
    "gamma1": ["--gamma", "1"],
    "no-stage2": ["--stage", "1"],
    # stage 2's schedule and first-step loss mask, with the stage-1 reward: the control for no-stage2
    "stage2-control": ["--stage2-reward", "trajectory"],
    "step-adv": ["--advantage", "step"],
    # GRPO's (and TraceR1's) std-scaled group advantage instead of the default's centring only
    "std-scaled": ["--scale-rewards"],
    "grounded-sim": ["--similarity", "grounded"],
    "f1-text": ["--typed-text", "f1"],
    "T1": ["--horizon", "1"],
    "T3": ["--horizon", "3"],
    "T5": ["--horizon", "5"],
    "T10": ["--horizon", "10"],
    "T15": ["--horizon", "15"],
    # TraceR1's stage-2 path: the planner names what to click ("Click 'Sign in'"), the frozen
    # element executor grounds it; without stage 2, and the control (stage 2's schedule and mask)
    "ungrounded": ["--plan-steps", "ungrounded"],
    "ungrounded-no-stage2": ["--plan-steps", "ungrounded", "--stage", "1"],
    "ungrounded-control": ["--plan-steps", "ungrounded", "--stage2-reward", "trajectory"],
    # UI-R1: one action per state (T = 1), stage 1 only, rule-based action reward R_type + R_C, on the
    # states of the expert trajectory (UI-R1 trains on a fixed set of annotated screens, not on-policy)
    "uir1": [*UIR1],
    "uir1-no-type": [*UIR1, "--no-uir1-type-reward"],
    "uir1-iou": [*UIR1, "--uir1-coord", "iou"],
}
DEFAULT_ORDER = ["full", "no-rep", "gamma1", "no-stage2", "stage2-control", "std-scaled"]


@dataclass(frozen=True)
class Claim:
    """The paper's finding for a setting: ``metric`` of the setting is ``direction`` (``"<"``
    or ``">"``) that of ``baseline``."""

    baseline: str
    metric: str
    direction: str
    text: str


CLAIMS: dict[str, list[Claim]] = {
    "no-rep": [Claim("full", "success_rate", "<", "no repetition penalty → lower success"),
               Claim("full", "plan_repetition", ">", "… because plans repeat actions on the same element (reward hacking)")],
    "gamma1": [Claim("full", "success_rate", "<", "γ = 1 → lower success"),
               Claim("full", "first_step_acc", "<", "… the near-term step gets worse")],
    "no-stage2": [Claim("full", "success_rate", "<", "without stage 2 (grounded RL) → lower success")],
    "stage2-control": [Claim("full", "success_rate", "<", "stage 2's schedule/mask with the stage-1 reward → lower success "
                             "(the grounded reward itself helps)")],
    "std-scaled": [Claim("full", "success_rate", "<", "(a departure's check, not the paper's claim) GRPO's std-scaled "
                         "advantage → lower success than centring only")],
    "ungrounded-no-stage2": [Claim("ungrounded", "success_rate", "<", "ungrounded planner + frozen executor (the paper's "
                                   "path): without stage 2 → lower success")],
    "ungrounded-control": [Claim("ungrounded", "success_rate", "<", "ungrounded planner: stage 2's schedule/mask with the "
                                 "stage-1 reward → lower success (the grounded reward itself helps)")],
    "uir1-no-type": [Claim("uir1", "expert_click_acc", ">", "UI-R1: without the action-type reward → better grounding "
                           "(the action reward can hinder it)")],
    "uir1-iou": [Claim("uir1", "expert_click_acc", "<", "UI-R1: IoU-style coordinate reward → worse grounding than click-in-box")],
    # TraceR1: performance peaks near T ≈ 10 and falls beyond it. Success first; the step accuracy on
    # the reference's states (UI-R1's offline metric) too, which still moves where success is 0
    # The trainer's options that are in neither paper's recipe (written down before they were run):
    # what each is for, and whether it costs the default's success
    "step-adv": [Claim("full", "val_auc", ">", "(an option, DeepSeekMath's finding, not TraceR1's) per-step "
                       "(process-supervised) advantage → learns faster (validation AUC)"),
                 Claim("full", "success_rate", "<", "(an option's check) per-step advantage → lower success")],
    "grounded-sim": [Claim("full", "success_rate", "<", "(an option's check) grounded similarity (a step without "
                           "coordinates scores 0) → lower success")],
    "f1-text": [Claim("full", "val_auc", ">", "(an option's check) token-F1 partial credit for typed text → learns "
                      "faster (validation AUC)"),
                Claim("full", "success_rate", "<", "… or lower success (a partly right value is paid)")],
    "T1": [Claim("T10", "success_rate", "<", "T = 1 worse than T ≈ 10"),
           Claim("T10", "expert_step_acc", "<", "… in step accuracy on the reference's states")],
    "T3": [Claim("T10", "success_rate", "<", "T = 3 worse than T ≈ 10"),
           Claim("T10", "expert_step_acc", "<", "… in step accuracy on the reference's states")],
    "T15": [Claim("T10", "success_rate", "<", "T = 15 worse than T ≈ 10 (uncertainty accumulates)"),
            Claim("T10", "expert_step_acc", "<", "… in step accuracy on the reference's states")],
}

METRICS = [
    ("success_rate", "success"),
    ("plan_repetition", "plan rep."),
    ("exec_repetition", "exec rep."),
    ("first_step_acc", "1st-step acc."),
    ("later_step_acc", "later-step acc."),
    ("mean_steps", "steps"),
]
#: Step-level accuracy on the expert trajectory's states (UI-R1's offline metrics); a column is
#: shown when the runs have it (``train_small.expert_step_metrics``, runs from before it lack it).
EXPERT_METRICS = [
    ("expert_type_acc", "expert type acc."),
    ("expert_click_acc", "expert click acc."),
    ("expert_step_acc", "expert step acc."),
]


@dataclass
class Args:
    """Run the ablation sweep and print its table (with a verdict per claim)."""

    settings: list[str] = field(default_factory=lambda: list(DEFAULT_ORDER))
    """which settings (``SETTINGS``); a claim's baseline is added when missing"""
    seeds: list[int] = field(default_factory=lambda: [1, 2, 3, 4, 5])
    """training seeds per setting (≥ 5 for a verdict to mean something)"""
    env_id: str = "GuiGym-Login-v0"
    level: str = "easy"
    out: str = "runs/ablations"
    """folder of the runs and the table"""
    workers: int = 2
    """runs at a time (each uses one torch thread)"""
    iterations: Optional[int] = None
    """GRPO iterations per run (default: ``train_small.py``'s)"""
    extra: str = ""
    """more ``train_small.py`` flags for every run, one string: ``--extra="--group-size 16"``"""
    rerun: bool = False
    """train again even where an ``eval.json`` exists"""
    table_only: bool = False
    """only aggregate the runs already in ``out``"""
    bootstrap: int = 10_000
    """bootstrap resamples for the 95 % intervals"""


def train_argv(args: Args, setting: str, seed: int) -> list[str]:
    """The ``train_small.py`` flags of the run of ``setting`` with ``seed``."""
    argv = ["--env-id", args.env_id, "--level", args.level, "--seed", str(seed), "--out-dir", args.out,
            "--run-name", f"{setting}__{seed}", "--no-progress", *SETTINGS[setting], *shlex.split(args.extra)]
    if args.iterations is not None:
        argv += ["--iterations", str(args.iterations)]
    return argv


def run_one(args: Args, setting: str, seed: int) -> Optional[dict[str, Any]]:
    name = f"{setting}__{seed}"
    done = Path(args.out) / name / "eval.json"
    if done.exists() and not args.rerun:
        return json.loads(done.read_text())
    if args.table_only:
        return None
    cmd = [sys.executable, str(ROOT / "train_small.py"), *train_argv(args, setting, seed)]
    t = time.time()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0 or not done.exists():
        print(f"[{name}] failed ({proc.returncode}):\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None
    res = json.loads(done.read_text())
    print(f"[{name}] success {res['policy']['success_rate']:.2f} in {time.time() - t:.0f} s", flush=True)
    return res


# ----------------------------------------------------------------------------- statistics


def bootstrap_ci(values: list[float], n: int = 10_000, seed: int = 0) -> tuple[float, float]:
    """95 % percentile bootstrap interval of the mean (seeded: the same table every time).

    >>> bootstrap_ci([1.0, 1.0, 1.0])
    (1.0, 1.0)
    """
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    means = v[rng.integers(0, v.size, size=(n, v.size))].mean(1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def permutation_p(a: list[float], b: list[float], direction: str) -> float:
    """Exact one-sided permutation test of ``mean(a) − mean(b)`` in ``direction`` (``"<"``:
    ``a`` lower): the fraction of all splits of the pooled values into groups of the same
    sizes whose difference is at least as extreme. With 5 vs 5 the smallest possible p is
    1/252 ≈ 0.004.

    >>> round(permutation_p([0, 0, 0, 0, 0], [1, 1, 1, 1, 1], "<"), 4)
    0.004
    >>> permutation_p([1, 1], [1, 1], "<")
    1.0
    """
    a_, b_ = np.asarray(a, float), np.asarray(b, float)
    if a_.size == 0 or b_.size == 0:
        return float("nan")
    pooled = np.concatenate([a_, b_])
    obs = a_.mean() - b_.mean()
    sign = -1.0 if direction == "<" else 1.0
    hits = total = 0
    for idx in itertools.combinations(range(pooled.size), a_.size):
        mask = np.zeros(pooled.size, bool)
        mask[list(idx)] = True
        d = pooled[mask].mean() - pooled[~mask].mean()
        hits += bool(sign * d >= sign * obs - 1e-12)
        total += 1
    return float(hits / total)


def verdict(a: list[float], b: list[float], direction: str, alpha: float = 0.05) -> tuple[str, float]:
    """("reproduced" | "opposite" | "not reproduced", one-sided p in the claimed direction)."""
    p = permutation_p(a, b, direction)
    if p != p:
        return "no runs", p
    if p < alpha:
        return "reproduced", p
    other = ">" if direction == "<" else "<"
    if permutation_p(a, b, other) < alpha:
        return "opposite", p
    return "not reproduced", p


# ---------------------------------------------------------------------------------- table


def _vals(runs: list[dict[str, Any]], key: str) -> list[float]:
    """``key`` of each run's held-out results, or of the run itself (``val_auc``, ``val90_iter``)."""
    out = []
    for r in runs:
        v = r["policy"].get(key, r.get(key))
        if v is not None and v == v:
            out.append(float(v))
    return out


def _cell(values: list[float], pct: bool, n_boot: int) -> str:
    if not values:
        return "—"
    lo, hi = bootstrap_ci(values, n_boot)
    m = float(np.mean(values))
    k = 100.0 if pct else 1.0
    return f"{k * m:.1f} [{k * lo:.1f}, {k * hi:.1f}]" if pct else f"{m:.2f} [{lo:.2f}, {hi:.2f}]"


def table(results: dict[str, list[dict[str, Any]]], random_success: Optional[float], n_boot: int = 10_000) -> str:
    shown = METRICS + [m for m in EXPERT_METRICS if all(_vals(runs, m[0]) for runs in results.values())]
    head = "| setting | seeds | " + " | ".join(lbl for _, lbl in shown) + " | final stage reward |"
    lines = [head, "|" + "---|" * (len(shown) + 3)]
    for setting, runs in results.items():
        cells = [_cell(_vals(runs, k), pct=k != "mean_steps", n_boot=n_boot) for k, _ in shown]
        cells.append(_cell([r["final_reward"] for r in runs if r.get("final_reward") is not None], pct=False, n_boot=n_boot))
        lines.append(f"| {setting} | {len(runs)} | " + " | ".join(cells) + " |")
    lines.append("\nMean over training seeds [95 % bootstrap interval]; percentages except steps. Held-out evaluation with the "
                 "greedy plan-act loop. plan rep.: planned steps acting on the same element as an earlier step of the plan where "
                 "the reference does not; exec rep.: executed actions on the same element as the previous one; 1st-step / "
                 "later-step acc.: action similarity of a plan's first / later steps to the reference; final stage reward: mean "
                 "group reward over the last 10 iterations (the stage-1 or stage-2 reward being optimised)."
                 + (" expert type / click / step acc.: the greedy first step on the states of the reference trajectory (UI-R1's "
                    "offline metrics): right action type; a click inside the target's box at reference clicks; action similarity."
                    if len(shown) > len(METRICS) else ""))
    if random_success is not None:
        lines.append(f"Random planner on the same held-out seeds: {100 * random_success:.1f} % success.")
    claims = [(s, c) for s in results for c in CLAIMS.get(s, []) if c.baseline in results]
    if claims:
        lines += ["", "| claim (paper) | setting vs baseline | metric | difference of means | p (one-sided, exact permutation) | verdict |",
                  "|---|---|---|---|---|---|"]
        for s, c in claims:
            a, b = _vals(results[s], c.metric), _vals(results[c.baseline], c.metric)
            v, p = verdict(a, b, c.direction)
            d = (np.mean(a) - np.mean(b)) if a and b else float("nan")
            k = 1.0 if c.metric == "mean_steps" else 100.0
            lines.append(f"| {c.text} | {s} vs {c.baseline} | {c.metric} {c.direction} | {k * d:+.1f} | {p:.3f} | **{v}** |")
    return "\n".join(lines)


def _final_reward(run_dir: Path) -> Optional[float]:
    f = run_dir / "curves.csv"
    if not f.exists():
        return None
    rows = [r for r in csv.DictReader(f.open()) if r.get("reward_mean")]
    return float(np.mean([float(r["reward_mean"]) for r in rows[-10:]])) if rows else None


def plot(results: dict[str, list[dict[str, Any]]], out: Path, root: Path) -> bool:
    """``curves.png``: mean stage reward and validation success over iterations, per setting."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(1, 2, figsize=(12, 3.8))
    for setting, runs in results.items():
        curves = []
        for r in runs:
            f = root / r["run_name"] / "curves.csv"
            if f.exists():
                curves.append(list(csv.DictReader(f.open())))
        if not curves:
            continue
        # by iteration, over the runs that logged it (a run's file may lack rows: see its NOTE.txt)
        by_iter = [{int(r["iter"]): r for r in c} for c in curves]
        it = sorted(set().union(*by_iter))
        rew = [np.nanmean([float(b[i]["reward_mean"] or "nan") for b in by_iter if i in b]) for i in it]
        (line,) = ax[0].plot(it, rew, lw=1, label=setting)
        val = [(i, float(r["val_success"])) for b in by_iter for i, r in b.items() if r["val_success"]]
        xs = sorted({x for x, _ in val})
        means = [np.mean([v for x2, v in val if x2 == x]) for x in xs]
        ax[1].plot(xs, means, marker="o", ms=3, lw=1, color=line.get_color(), label=setting)
    ax[0].set(xlabel="iteration", ylabel="mean group reward", title="reward of the stage being trained (seed mean)")
    ax[1].set(xlabel="iteration", ylabel="validation success", ylim=(-0.02, 1.02), title="validation success (seed mean)")
    ax[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def _task(args: Args) -> tuple[str, str]:
    """The env id and level the runs train on: ``--extra``'s ``--env-id``/``--level`` win, as in
    ``train_small.py``'s command line (the last occurrence of a flag counts)."""
    env_id, level = args.env_id, args.level
    extra = shlex.split(args.extra)
    for flag, val in zip(extra, extra[1:]):
        if flag == "--env-id":
            env_id = val
        elif flag == "--level":
            level = val
    return env_id, level


def usage_parser() -> UsageParser:
    """The parser that reports a bad value found after tyro's parse: a usage error (exit status
    2, one line naming the flag), as tyro's own."""
    return UsageParser(prog=Path(__file__).name, usage="%(prog)s [-h] [OPTIONS]")


def _tyro_message(text: str) -> str:
    """The message of tyro's error box (its first line under the title), on one line."""
    lines = [ln.strip(" │╭╮╰╯") for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and set(ln) - set("-─ ") and not ln.startswith("For full helptext")]
    return lines[1] if len(lines) > 1 else (lines[0] if lines else text.strip())


def train_problems(args: Args, setting: str, seed: int) -> list[str]:
    """What ``train_small.py`` would refuse in the run of ``setting`` with ``seed``, found by
    parsing its flags in this process as the run will (tyro, then ``train_small.arg_problems``)
    without training anything."""
    import tyro

    import train_small

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
            parsed = tyro.cli(train_small.Args, args=train_argv(args, setting, seed))
    except SystemExit:
        return [_tyro_message(err.getvalue())]
    return train_small.arg_problems(parsed)


def check_args(args: Args, settings: list[str]) -> None:
    """Every bad flag is a usage error before the first run starts (the runs failed one by one
    and left an empty table, or the statistics failed after all the training); ``settings``:
    ``--settings`` with the claims' baselines added."""
    p = usage_parser()
    bad = [s for s in args.settings if s not in SETTINGS]
    if bad:
        p.error(f"--settings: unknown {', '.join(bad)}; choose from {', '.join(SETTINGS)}")
    if not args.settings:
        p.error("--settings: give at least one setting")
    twice = sorted({s for s in args.settings if args.settings.count(s) > 1})
    if twice:
        p.error(f"--settings: {', '.join(twice)} given twice (a setting's runs share their folders)")
    if not args.seeds:
        p.error("--seeds: give at least one seed")
    at_least(p, 0, seeds=args.seeds)
    if max(args.seeds) >= 2**32:  # train_small's limit (numpy's legacy seeding)
        p.error(f"--seeds must be < 2**32, got {max(args.seeds)}")
    twice_seeds = sorted({s for s in args.seeds if args.seeds.count(s) > 1})
    if twice_seeds:
        p.error(f"--seeds: {' '.join(map(str, twice_seeds))} given twice (one run folder, counted twice in the table)")
    at_least(p, 1, workers=args.workers, bootstrap=args.bootstrap)
    if args.iterations == 0:  # train_small's "evaluate only": every setting the same untrained policy, each claim untested
        p.error("--iterations 0 trains no setting, so every claim would compare the same untrained policy; give >= 1")
    if (problem := id_level_problem(args.env_id, args.level)) is not None:
        p.error(problem if problem.startswith("--") else f"--env-id: {problem}")
    try:
        shlex.split(args.extra)
    except ValueError as e:
        p.error(f"--extra {args.extra!r}: {e}")
    if (problem := folder_problem(args.out)) is not None:
        p.error(f"--out {args.out}: {problem}")
    jobs = [(s, seed) for seed in args.seeds for s in settings]
    if args.table_only:
        if args.rerun:
            p.error("--rerun with --table-only: nothing is trained, so no run would be read (drop one of them)")
        if not any((Path(args.out) / f"{s}__{seed}" / "eval.json").exists() for s, seed in jobs):
            p.error(f"--out {args.out}: no runs there (no <setting>__<seed>/eval.json of these --settings and --seeds) "
                    "to tabulate; run the sweep without --table-only first")
        return
    given = " ".join(([f"--extra {args.extra!r}"] if args.extra else [])
                     + ([f"--iterations {args.iterations}"] if args.iterations is not None else []))
    checked: set[str] = set()
    for s, seed in jobs:  # one run per setting that will train (a finished run is reused, not run again)
        if s in checked or ((Path(args.out) / f"{s}__{seed}" / "eval.json").exists() and not args.rerun):
            continue
        checked.add(s)
        problems = train_problems(args, s, seed)
        if problems:
            p.error(f"{given or f'--settings {s}'}: train_small.py refuses the run {s}__{seed}: {'; '.join(problems)}")


def main(args: Args) -> dict[str, Any]:
    settings = list(args.settings)
    for s in list(settings):
        for c in CLAIMS.get(s, []):
            if c.baseline not in settings:
                settings.append(c.baseline)
    check_args(args, settings)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(s, seed) for seed in args.seeds for s in settings]
    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        outs = list(pool.map(lambda j: run_one(args, *j), jobs))
    results: dict[str, list[dict[str, Any]]] = {s: [] for s in settings}
    for (s, _), res in zip(jobs, outs):
        if res is not None:
            res["final_reward"] = _final_reward(out / res["run_name"])
            results[s].append(res)
    rnd = [r["random"]["success_rate"] for runs in results.values() for r in runs if "random" in r]
    env_id, level = _task(args)
    text = (f"Ablations on {env_id} ({level}), seeds {args.seeds}"
            + (f", flags {args.extra!r}" if args.extra else "") + "\n\n"
            + table(results, float(np.mean(rnd)) if rnd else None, args.bootstrap))
    print(text)
    (out / "table.md").write_text(text + "\n")
    plot(results, out / "curves.png", out)
    summary = {s: [{"run": r["run_name"], **{k: r["policy"].get(k) for k, _ in METRICS + EXPERT_METRICS},
                    "final_reward": r.get("final_reward"), "val_auc": r.get("val_auc"), "val90_iter": r.get("val90_iter"),
                    "train_time_s": r.get("train_time_s")}
                   for r in runs] for s, runs in results.items()}
    (out / "results.json").write_text(to_json(summary))
    return {"text": text, "results": summary}


if __name__ == "__main__":
    main(tyro.cli(Args, description=" ".join(__doc__.split("\n\n")[0].split())))  # the first paragraph: one sentence
