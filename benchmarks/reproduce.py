"""Regenerate every training figure the README quotes, from this checkout, in one command.

    python benchmarks/reproduce.py --table defaults     # train_small.py with its defaults, seeds 1–5
    python benchmarks/reproduce.py --table ablations    # benchmarks/ablations.py, its default settings, seeds 1–5
    python benchmarks/reproduce.py --table ppo          # benchmarks/ppo_baseline.py (SB3 PPO vs random), seeds 0–2
    python benchmarks/reproduce.py --table ppo200       # the same at 200k env steps per seed (≈ 5–8 CPU-minutes each)
    python benchmarks/reproduce.py --table uir1         # UI-R1's reward ablations (T = 1, Login easy), seeds 1–5
    python benchmarks/reproduce.py --table horizon      # TraceR1's horizon sweep T ∈ {1,3,5,10,15} on a long task
    python benchmarks/reproduce.py --table stage2ug     # stage 2 on TraceR1's path: ungrounded planner + frozen executor
    python benchmarks/reproduce.py --table options      # the trainer's options in neither paper's recipe
    python benchmarks/reproduce.py --table contacts     # train_small.py's defaults on GuiGym-Contacts-v0 easy, seeds 1–3
    python benchmarks/reproduce.py --table robustness   # the defaults' policies under every variation (guigym.variation)
    python benchmarks/reproduce.py --table readme       # all of them, then rewrite the README's tables

Each table is written to ``docs/results/<table>.md`` (and ``.json``: per-seed values, the
command, the commit and whether the tree had uncommitted changes). With ``--table readme``
the README's blocks between ``<!-- table:NAME -->`` and ``<!-- /table:NAME -->`` are replaced
by those files (a single ``--table NAME`` rewrites its own block), so no training figure in the
README comes from anywhere else. Runs go to
``runs/reproduce/`` (2 at a time, one torch thread each: what a 2-core machine gives);
finished runs are reused unless ``--rerun``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import tyro

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import ablations  # noqa: E402
import ppo_baseline  # noqa: E402
from _args import at_least  # noqa: E402  (benchmarks/, on sys.path)
from agents.json_out import to_json  # noqa: E402  (ablations put the repository on sys.path)
from guigym.viz import folder_problem  # noqa: E402

RESULTS = ROOT / "docs" / "results"
#: The horizon sweep's task: references from reset longer than most horizons swept (see the README).
HORIZON_TASK = "--env-id GuiGym-Settings-v0 --level hard --rollout-max-steps 16 --val-max-steps 20"


@dataclass
class Args:
    """Reproduce the README's training tables."""

    table: Literal["defaults", "ablations", "ppo", "ppo200", "uir1", "horizon", "stage2ug", "options", "contacts", "robustness",
                   "readme"] = "readme"
    """which table (``readme``: all of them, then rewrite the README)"""
    seeds: list[int] = field(default_factory=lambda: [1, 2, 3, 4, 5])
    """training seeds of the GRPO tables (every one is reported)"""
    ppo_seeds: list[int] = field(default_factory=lambda: [0, 1, 2])
    """training seeds of the PPO table"""
    workers: int = 2
    """runs at a time"""
    out: str = "runs/reproduce"
    """where the runs are written"""
    rerun: bool = False
    """train again even where a finished run exists"""
    archive: bool = False
    """only copy the finished runs of ``--table``'s sweep to ``docs/results/sweeps/<table>/`` (their
    ``eval.json``, curves and args, committed) and exit: a sweep longer than a session resumes
    from them on another checkout"""
    skip: list[str] = field(default_factory=list)
    """with ``--table readme``: tables not rerun (their README blocks, with their own commit
    and command, stay as they are), e.g. ``--skip ppo200`` (≈ 16–25 CPU-minutes)"""


def git_commit() -> str:
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        # uncommitted edits of the README and docs/ (which this script rewrites) don't change a result
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!README.md", ":!docs"],
                               cwd=ROOT, capture_output=True, text=True).stdout.strip()
        return sha + (" (with uncommitted code changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _train(args: Args, seed: int, env_id: str | None = None, extra: tuple[str, ...] = (), prefix: str | None = None) -> dict[str, Any]:
    """``train_small.py --seed seed`` (on ``env_id``, default Login) with its other defaults
    (plus ``extra`` flags, then the run is called ``<prefix>__<seed>``); a finished run is
    reused unless ``--rerun``."""
    name = f"{prefix or ('defaults' if env_id is None else env_id)}__{seed}"
    done = Path(args.out) / name / "eval.json"
    if not done.exists() or args.rerun:
        cmd = [sys.executable, str(ROOT / "train_small.py"), "--seed", str(seed), "--out-dir", args.out, "--run-name", name,
               "--no-progress", *(["--env-id", env_id] if env_id else []), *extra]
        t = time.time()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0 or not done.exists():
            raise SystemExit(f"[{name}] failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        print(f"[{name}] done in {time.time() - t:.0f} s", flush=True)
    return json.loads(done.read_text())


def _train_seeds(args: Args, seeds: list[int], env_id: str | None = None, extra: tuple[str, ...] = (),
                 prefix: str | None = None) -> list[dict[str, Any]]:
    """:func:`_train` for every seed, ``args.workers`` at a time."""
    Path(args.out).mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        return list(pool.map(lambda s: _train(args, s, env_id, extra, prefix), seeds))


def defaults_table(args: Args) -> str:
    """``python train_small.py --seed S`` for every seed: held-out success beside the random planner."""
    runs = _train_seeds(args, args.seeds)
    lines = _run_rows(args.seeds, runs)
    succ = [r["policy"]["success_rate"] for r in runs]
    lines.append(f"\nMean {100 * np.mean(succ):.1f} %, lowest {100 * min(succ):.0f} %; every seed ≥ 90 %: "
                 f"**{'yes' if min(succ) >= 0.9 else 'no'}**. Longest run {max(r['total_time_s'] for r in runs):.0f} s "
                 f"({args.workers} runs at a time on this machine).")
    _save("defaults", lines, args, {str(s): r for s, r in zip(args.seeds, runs)},
          f"python benchmarks/reproduce.py --table defaults --seeds {' '.join(map(str, args.seeds))}")
    png = Path(args.out) / f"defaults__{args.seeds[0]}" / "curves.png"
    if png.exists():  # the README's curve figure: the first seed's run
        shutil.copyfile(png, ROOT / "docs" / "grpo_login_easy.png")
    return "\n".join(lines)


def _run_rows(seeds: list[int], runs: list[dict[str, Any]]) -> list[str]:
    """One table row per training run: held-out success beside the random planner, the
    checkpoint evaluated, times."""
    lines = ["| seed | held-out success (100 seeds) | random planner | first validation ≥ 90 % (iteration) "
             "| checkpoint evaluated (iteration, validation success) | training time | total time (incl. evaluation) |",
             "|---|---|---|---|---|---|---|"]
    for seed, r in zip(seeds, runs):
        v90, sel, sv = r.get("val90_iter"), r.get("selected_iter"), r.get("selected_val_success")
        chosen = f"{sel} ({100 * sv:.0f} %)" if sv is not None else f"{sel} (last)"
        lines.append(f"| {seed} | {100 * r['policy']['success_rate']:.0f} % | {100 * r['random']['success_rate']:.0f} % | "
                     f"{v90 if v90 is not None else '—'} | {chosen} | {r['train_time_s']:.0f} s | {r['total_time_s']:.0f} s |")
    return lines


#: The family of ``--table contacts``: a family added after Login, trained with the same defaults.
CONTACTS_ID = "GuiGym-Contacts-v0"


def contacts_table(args: Args) -> str:
    """``python train_small.py --env-id GuiGym-Contacts-v0 --seed S`` (easy, the defaults) for
    the first three seeds: what the tiny policy does on a family with questions and edits."""
    seeds = list(args.seeds[:3])
    runs = _train_seeds(args, seeds, CONTACTS_ID)
    lines = _run_rows(seeds, runs)
    first = [r["policy"].get("first_step_acc") for r in runs]
    if all(f is not None for f in first):
        lines.append(f"\nFirst planned step similar to the reference's (held-out states): "
                     f"{', '.join(f'{100 * f:.0f} %' for f in first)} (seeds {', '.join(map(str, seeds))}).")
    _save("contacts", lines, args, {str(s): r for s, r in zip(seeds, runs)},
          f"python benchmarks/reproduce.py --table contacts --seeds {' '.join(map(str, seeds))}", seeds=seeds)
    return "\n".join(lines)


def _grid_success(planner: Any, split: str, seeds: list[int]) -> dict[str, float]:
    """Held-out success of ``planner`` on Login easy under every variant of
    ``guigym.variation.grid(split)`` (the plan-act loop, 40 steps at most)."""
    from agents.evaluate import evaluate, make_env
    from agents.executors import ElementExecutor
    from agents.plan_act import PlanActAgent
    from guigym.variation import grid

    out = {}
    for name, var in grid(split):
        env = make_env("GuiGym-Login-v0", max_steps=40, variation=var, split=split)
        summary, _ = evaluate(env, PlanActAgent(planner, ElementExecutor()), seeds, "easy")
        env.close()
        out[name] = summary["success_rate"]
    return out


def _policy_grid(policy_path: str | None, split: str, seeds: list[int]) -> dict[str, float]:
    """:func:`_grid_success` on ``split`` for the tiny policy saved at ``policy_path`` (None:
    the noisy oracle, ε = 0.2); a top-level function, so runs can go to worker processes."""
    import torch

    from agents.planners import OraclePlanner
    from agents.tiny_policy import TinyPlanner, TinyPolicy

    torch.set_num_threads(1)
    if policy_path is None:
        planner: Any = OraclePlanner(horizon=8, noise=0.2)
    else:
        policy = TinyPolicy.load(policy_path)
        planner = TinyPlanner(policy, greedy=True, horizon=policy.cfg.horizon)
    return _grid_success(planner, split, seeds)


def robustness_table(args: Args) -> str:
    """The trained tiny policies (the defaults runs, seeds ``args.seeds``) and the noisy oracle
    on Login easy under each variation of the train and test splits: success per variant and
    the spread across variants."""
    # the defaults' runs (the family's own instances; reused where the defaults table made them), and
    # the same recipe trained on the train split of every axis (``--variation all``)
    _train_seeds(args, args.seeds)
    _train_seeds(args, args.seeds, extra=("--variation", "all", "--split", "train"), prefix="varied")
    eval_seeds = list(range(10_000, 10_100))  # train_small's held-out seeds
    groups = {"plain": "defaults", "varied": "varied"}
    jobs: dict[str, str | None] = {f"{g} {s}": str(Path(args.out) / f"{p}__{s}" / "policy.pt")
                                   for g, p in groups.items() for s in args.seeds}
    jobs["oracle ε=0.2"] = None
    # one job per policy and split (22 of about 2 to 10 minutes each on one core), a line as each ends
    cols: dict[str, dict[str, dict[str, float]]] = {name: {} for name in jobs}
    t0 = time.time()
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        futures = {pool.submit(_policy_grid, path, sp, eval_seeds): (name, sp) for name, path in jobs.items()
                   for sp in ("train", "test")}
        for i, f in enumerate(as_completed(futures), 1):
            name, sp = futures[f]
            cols[name][sp] = f.result()
            print(f"[robustness] {name}, {sp} split: mean success {100 * np.mean(list(cols[name][sp].values())):.1f} % over "
                  f"{len(cols[name][sp])} variants ({i}/{len(futures)} after {time.time() - t0:.0f} s)", flush=True)
    cols = {name: {sp: c[sp] for sp in ("train", "test")} for name, c in cols.items()}  # the JSON's order
    variants = {sp: list(cols[f"plain {args.seeds[0]}"][sp]) for sp in ("train", "test")}
    # the variants whose instance is the neutral one on every held-out seed (an axis Login easy does not
    # show): their rows repeat the neutral row, marked so, and the spread is also given without them
    from agents.evaluate import neutral_instances
    from guigym.variation import grid

    same = {sp: neutral_instances("GuiGym-Login-v0", "easy", [(n, v) for n, v in grid(sp) if n in variants[sp]], sp, eval_seeds)
            for sp in ("train", "test")}
    inert = {sp: [v for v in variants[sp] if v != "neutral" and same[sp].get(v) == len(eval_seeds)] for sp in ("train", "test")}

    def mean(group: str, sp: str, variant: str) -> float:
        return float(np.mean([cols[f"{group} {s}"][sp][variant] for s in args.seeds]))

    lines = ["| split | variant | trained on plain instances: " + ", ".join(f"seed {s}" for s in args.seeds) + " | mean "
             "| trained on the train split: " + ", ".join(f"seed {s}" for s in args.seeds) + " | mean | oracle ε = 0.2 |",
             "|---|---|---|---|---|---|---|"]
    for sp in ("train", "test"):
        for variant in variants[sp]:
            per = {g: " / ".join(f"{100 * cols[f'{g} {s}'][sp][variant]:.0f}" for s in args.seeds) for g in groups}
            mark = " (= neutral)" if variant in inert[sp] else ""
            lines.append(f"| {sp} | {variant}{mark} | {per['plain']} | {100 * mean('plain', sp, variant):.1f} % | {per['varied']} "
                         f"| {100 * mean('varied', sp, variant):.1f} % | {100 * cols['oracle ε=0.2'][sp][variant]:.0f} % |")

    def spreads(left_out: dict[str, list[str]]) -> str:
        out = []
        for g in groups:
            for sp in ("train", "test"):
                m = np.array([mean(g, sp, v) for v in variants[sp] if v not in left_out[sp]])
                out.append(f"{g}, {sp} split: max − min {100 * (m.max() - m.min()):.0f} points, std {100 * m.std():.1f}, "
                           f"mean {100 * m.mean():.1f} %")
        return "; ".join(out)

    lines.append("\nSpread of the seed-mean success across a split's variants (neutral included): "
                 + spreads({"train": [], "test": []}) + ". Success in % of 100 "
                 "held-out seeds (10000–10099) per variant, Login easy, plan-act loop, at most 40 steps.")
    if inert["train"] or inert["test"]:
        lines.append(f"\nRows marked (= neutral) are the neutral instance on every one of those seeds (an axis Login easy does "
                     f"not show: {', '.join(inert['train'] + inert['test'])}), so they repeat the neutral row. Without them: "
                     + spreads(inert) + ".")
    _save("robustness", lines, args, cols, f"python benchmarks/reproduce.py --table robustness --seeds {' '.join(map(str, args.seeds))}")
    return "\n".join(lines)


#: The extra sweeps: name -> (settings of ``benchmarks/ablations.py``, extra ``train_small.py`` flags).
SWEEPS: dict[str, tuple[list[str], str]] = {
    "uir1": (["uir1", "uir1-no-type", "uir1-iou"], ""),
    "horizon": (["T10", "T1", "T3", "T5", "T15"], HORIZON_TASK),
    "stage2ug": (["ungrounded", "ungrounded-no-stage2", "ungrounded-control"], ""),
    # the defaults next to the options in neither paper's recipe, on the defaults' task
    "options": (["full", "step-adv", "grounded-sim", "f1-text"], ""),
}


#: Finished runs of the long sweeps, committed (a sweep can span sessions and checkouts).
ARCHIVE = RESULTS / "sweeps"
_ARCHIVED = ("args.json", "eval.json", "curves.csv", "timing.csv")


def archive_runs(name: str, out: Path) -> list[str]:
    """Copy each finished run of ``out`` (an ``eval.json`` exists) to ``ARCHIVE/name`` with the
    commit it was archived at; returns the runs copied."""
    done = []
    for run in sorted(p.parent for p in out.glob("*/eval.json")):
        dst = ARCHIVE / name / run.name
        if (dst / "eval.json").exists():
            continue
        dst.mkdir(parents=True, exist_ok=True)
        for f in _ARCHIVED:
            if (run / f).exists():
                shutil.copy2(run / f, dst / f)
        (dst / "archived_at.txt").write_text(git_commit() + "\n")
        done.append(run.name)
    return done


def restore_runs(name: str, out: Path) -> list[str]:
    """Copy the archived runs of ``name`` into ``out`` where ``out`` lacks them (they are then
    reused like any finished run); returns the runs restored."""
    done = []
    for run in sorted(p.parent for p in (ARCHIVE / name).glob("*/eval.json")):
        dst = out / run.name
        if not (dst / "eval.json").exists():
            shutil.copytree(run, dst, dirs_exist_ok=True)
            done.append(run.name)
    return done


def sweep_table(name: str, args: Args) -> str:
    """One of ``SWEEPS`` through ``benchmarks/ablations.py`` (finished runs are reused, archived
    ones too unless ``--rerun``)."""
    settings, extra = SWEEPS[name]
    a = ablations.Args(settings=settings, seeds=list(args.seeds), workers=args.workers, out=str(Path(args.out) / name), extra=extra)
    if args.rerun:
        shutil.rmtree(a.out, ignore_errors=True)
    else:
        restored = restore_runs(name, Path(a.out))
        if restored:
            print(f"{name}: reusing {len(restored)} archived runs from {ARCHIVE / name}: {', '.join(restored)}", flush=True)
    res = ablations.main(a)
    archive_runs(name, Path(a.out))
    extra_txt = f" --extra='{extra}'" if extra else ""  # --extra='--flag ...': tyro reads a separate '--flag ...' as a flag
    _save(name, res["text"].split("\n"), args, res["results"],
          f"python benchmarks/ablations.py --settings {' '.join(settings)} --seeds {' '.join(map(str, args.seeds))}{extra_txt}")
    png = Path(a.out) / "curves.png"
    if png.exists():
        (RESULTS / f"{name}_curves.png").write_bytes(png.read_bytes())
    return res["text"]


def ablations_table(args: Args) -> str:
    a = ablations.Args(seeds=list(args.seeds), workers=args.workers, out=str(Path(args.out) / "ablations"))
    if args.rerun:  # start the sweep afresh (its `full` runs are the defaults runs, copied below)
        shutil.rmtree(a.out, ignore_errors=True)
    for seed in args.seeds:  # the ablations' `full` is train_small's defaults: reuse those runs (same seed, same run)
        src, dst = Path(args.out) / f"defaults__{seed}", Path(a.out) / f"full__{seed}"
        if (src / "eval.json").exists() and not (dst / "eval.json").exists():
            shutil.copytree(src, dst, dirs_exist_ok=True)
            ev = json.loads((dst / "eval.json").read_text())
            ev["run_name"] = dst.name
            (dst / "eval.json").write_text(to_json(ev))
    res = ablations.main(a)
    lines = res["text"].split("\n")
    command = f"python benchmarks/reproduce.py --table ablations --seeds {' '.join(map(str, args.seeds))}"
    _save("ablations", lines, args, res["results"], command)
    png = Path(a.out) / "curves.png"
    if png.exists():
        (RESULTS / "ablations_curves.png").write_bytes(png.read_bytes())
    return res["text"]


def ppo_table(args: Args, steps: int | None = None) -> str:
    """``benchmarks/ppo_baseline.py`` (its measured setting, or ``steps`` env steps per seed;
    finished seeds are reused)."""
    name = "ppo" if steps is None else f"ppo{steps // 1000}"
    out = Path(args.out) / name
    png = ROOT / "docs" / ("ppo_baseline.png" if steps is None else f"ppo_baseline_{steps // 1000}k.png")
    ppo_baseline.main(["--seeds", *map(str, args.ppo_seeds), "--out", str(out), "--png", str(png)]
                      + ([] if steps is None else ["--steps", str(steps)]))
    lines = (out / "table.md").read_text().strip().split("\n")
    _save(name, lines, args, json.loads((out / "results.json").read_text()),
          f"python benchmarks/reproduce.py --table {name} --ppo-seeds {' '.join(map(str, args.ppo_seeds))}", seeds=args.ppo_seeds)
    return "\n".join(lines)


def _save(name: str, lines: list[str], args: Args, data: Any, command: str, seeds: Any = None) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    commit = git_commit()
    seeds = args.seeds if seeds is None else seeds
    footer = f"\n<sub>`{command}` · commit {commit} · seeds {', '.join(map(str, seeds))} (all runs reported)</sub>"
    (RESULTS / f"{name}.md").write_text("\n".join(lines) + "\n" + footer + "\n")
    record = {"command": command, "commit": commit, "seeds": seeds, "runs": data}
    (RESULTS / f"{name}.json").write_text(to_json(record, default=str))


def update_readme(names: list[str]) -> list[str]:
    """Replace each ``<!-- table:NAME -->…<!-- /table:NAME -->`` block of the README by
    ``docs/results/NAME.md``; returns the names replaced."""
    readme = ROOT / "README.md"
    text = readme.read_text()
    done = []
    for n in names:
        f = RESULTS / f"{n}.md"
        pat = re.compile(rf"(<!-- table:{n} -->\n).*?(<!-- /table:{n} -->)", re.DOTALL)
        if f.exists() and pat.search(text):
            body = f.read_text()
            text = pat.sub(lambda m: m.group(1) + body + m.group(2), text)
            done.append(n)
    readme.write_text(text)
    return done


#: The tables of ``--table readme``, in the order they are made.
README_TABLES = ["defaults", "ablations", "ppo", "ppo200", "uir1", "stage2ug", "options", "horizon", "contacts", "robustness"]


def check_args(args: Args) -> None:
    """Every bad flag is a usage error (exit status 2, the flag named) before anything trains or
    is written (an empty --seeds ended in an IndexError after tables were written, a negative
    one in a failed run)."""
    p = argparse.ArgumentParser(prog=Path(__file__).name, usage="%(prog)s [-h] [OPTIONS]")
    if args.archive:
        if args.table not in SWEEPS:
            p.error(f"--archive: --table must be one of the sweeps {', '.join(sorted(SWEEPS))}, got {args.table}")
        return
    for flag, seeds in (("--seeds", args.seeds), ("--ppo-seeds", args.ppo_seeds)):
        if not seeds:
            p.error(f"{flag}: give at least one seed")
        twice = sorted({s for s in seeds if seeds.count(s) > 1})
        if twice:
            p.error(f"{flag}: {' '.join(map(str, twice))} given twice (one run, reported twice)")
        if max(seeds) >= 2**32:  # train_small's and numpy's limit
            p.error(f"{flag} must be < 2**32, got {max(seeds)}")
    at_least(p, 0, seeds=args.seeds, ppo_seeds=args.ppo_seeds)
    at_least(p, 1, workers=args.workers)
    names = README_TABLES if args.table == "readme" else [args.table]
    unknown = [n for n in args.skip if n not in names]
    if unknown:
        p.error(f"--skip {' '.join(unknown)}: not among the tables of --table {args.table}: {', '.join(names)}")
    if set(names) <= set(args.skip):
        p.error(f"--skip {' '.join(args.skip)}: skips every table of --table {args.table}, so nothing would be made")
    if (problem := folder_problem(args.out)) is not None:
        p.error(f"--out {args.out}: {problem}")


def main(args: Args) -> None:
    check_args(args)
    if args.archive:
        copied = archive_runs(args.table, Path(args.out) / args.table)
        print(f"archived {len(copied)} finished runs to {ARCHIVE / args.table}: {', '.join(copied) or '-'}")
        return
    # the horizon sweep trains for hours on 2 cores (Settings hard, 25 runs): its archived runs are
    # reused (only the table is recomputed) unless --rerun; --skip horizon leaves its block as it is
    names = README_TABLES if args.table == "readme" else [args.table]
    names = [n for n in names if n not in args.skip]
    tables: dict[str, Callable[[Args], str]] = {"defaults": defaults_table, "ablations": ablations_table, "ppo": ppo_table,
                                                "contacts": contacts_table, "robustness": robustness_table,
                                                "ppo200": lambda a: ppo_table(a, steps=200_000)}
    tables.update({n: (lambda a, n=n: sweep_table(n, a)) for n in SWEEPS})  # type: ignore[misc]  # mypy cannot type a lambda's n=n
    for n in names:
        print(tables[n](args), flush=True)
    print(f"README tables rewritten: {update_readme(names)}")  # a single table's block too


if __name__ == "__main__":
    main(tyro.cli(Args, description=__doc__.split("\n")[0]))
