"""Evaluate a planner in the plan-act loop: success rate, mean steps, plan consistency.

    python -m agents.evaluate --env GuiGym-Login-v0 --planner oracle --horizon 8 --episodes 100
    python -m agents.evaluate --env all --planner oracle --noise 0.3 --open-loop
    python -m agents.evaluate --env GuiGym-Login-v0 --planner vlm --model path/to/Qwen2.5-VL-3B-Instruct
    python -m agents.evaluate --env GuiGym-Login-v0 --planner vlm --tiny-model --episodes 2 --max-steps 5
    python -m agents.evaluate --env GuiGym-Settings-v0 --planner oracle --save-gif out/eval.gif
    python -m agents.evaluate --env GuiGym-Login-v0 --level easy --planner tiny --checkpoint runs/<run>/policy.pt \\
        --variations grid --split test      # success per variant and the spread (guigym.variation)
    python -m agents.evaluate --env all --planner oracle --episodes 200 --variations all --split test
        # every axis of the preset sampled per episode, from the held-out split

One line per env id × level (``--level`` picks one), over seeds ``--seed`` …
``--seed + --episodes − 1``; ``--backend browser`` runs on headless Chromium.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
from tqdm import tqdm  # noqa: E402

import guigym  # noqa: E402,F401  (registers the envs)
from agents.executors import ElementExecutor  # noqa: E402
from agents.plan_act import EpisodeRecord, PlanActAgent, failure_counts, run_episode, summarize  # noqa: E402
from agents.planners import OraclePlanner, RandomPlanner  # noqa: E402
from guigym.action_text import escape_surrogates  # noqa: E402
from guigym.env import gui_env
from guigym.registration import env_ids, id_level_problem, plain_id  # noqa: E402
from guigym.variation import PRESETS  # noqa: E402

PLANNERS = ("oracle", "random", "vlm", "tiny")
EXECUTORS = ("element", "vlm", "none")


def make_env(env_id: str, backend: str = "mock", max_steps: Optional[int] = None, variation: Any = None,
             split: str = "train", strict: bool = False) -> gym.Env:
    """``gym.make`` with a clear error when the browser backend is not installed."""
    kw: dict[str, Any] = {"backend": backend}
    if strict:  # Settings, Launcher: the whole state compared (every other family always is)
        kw["strict"] = True
    if max_steps:
        kw["max_episode_steps"] = max_steps
    if variation is not None:
        kw.update(variation=variation, split=split)
    env = gym.make(env_id, **kw)
    if backend == "browser":
        try:
            import guigym.backends.browser  # noqa: F401
        except ImportError as e:
            env.close()
            raise SystemExit(f"--backend browser: the browser backend is not available ({e})") from None
    return env


def evaluate(
    env: gym.Env,
    agent: PlanActAgent,
    seeds: Sequence[int],
    level: Optional[str] = None,
    progress: bool = False,
    desc: str = "",
    record_frames: Callable[[int], bool] = lambda i: False,
) -> tuple[dict[str, Any], list[EpisodeRecord]]:
    """Run ``agent`` on ``env`` for every seed (at ``level``); return (summary, records)."""
    records = []
    for i, seed in enumerate(tqdm(seeds, desc=desc, leave=False, disable=not progress, file=sys.stderr)):
        records.append(run_episode(env, agent, seed=seed, level=level, record_frames=record_frames(i)))
    return summarize(records), records


def _gif_path(base: str, env_id: str, level: str, seed: Optional[int], many: bool) -> Path:
    p = Path(base)
    if not many:
        return p
    return p.with_name(f"{p.stem}-{env_id}-{level}-seed{seed}{p.suffix or '.gif'}")


def _unwritable(path: str) -> str | None:
    """Why a file cannot be written at ``path``, or None."""
    out = Path(path)
    if out.is_dir():
        return "is a directory"
    parent = out.parent
    if not parent.is_dir():
        return f"no such directory {str(parent)!r}"
    if out.exists() and not os.access(out, os.W_OK):
        return "not writable"
    from guigym.viz import writable_problem  # creates and removes a file there: os.access lets root "write" under /proc

    return writable_problem(out)


def _json_line(record: dict[str, Any]) -> str:
    """One JSON line for ``--json``: non-ASCII text as it is, a lone surrogate (model text such
    as a typed ``"\\ud83d"``, which UTF-8 cannot hold) as its ``\\u`` escape, so the line
    encodes and reads back as the same string."""
    return escape_surrogates(json.dumps(record, ensure_ascii=False)) + "\n"


def build_agent(args: argparse.Namespace, vlm: Any = None) -> PlanActAgent:
    if args.planner == "oracle":
        planner: Any = OraclePlanner(horizon=args.horizon, noise=args.noise, grounded=not args.ungrounded)
    elif args.planner == "random":
        planner = RandomPlanner(horizon=args.horizon)
    elif args.planner == "tiny":  # main() made sure there is a --checkpoint file (a run folder's policy.pt)
        from agents.tiny_policy import TinyPlanner, TinyPolicy

        policy = TinyPolicy.load(args.checkpoint)
        args.horizon = policy.cfg.horizon  # its own T (the header reports it)
        planner = TinyPlanner(policy, greedy=True, horizon=policy.cfg.horizon)
    else:
        from agents.vlm import VLMPlanner

        planner = VLMPlanner(vlm, horizon=args.horizon, history_len=args.history, fmt=args.format)
    if args.executor == "element":
        executor: Any = ElementExecutor()
    elif args.executor == "vlm":
        from agents.vlm import VLMExecutor

        executor = VLMExecutor(vlm, fmt=args.format)
    else:
        executor = None
    return PlanActAgent(planner, executor, open_loop=args.open_loop)


def _load_vlm(args: argparse.Namespace) -> Any:
    if args.planner != "vlm" and args.executor != "vlm":
        return None
    import torch

    from agents.vlm import load_vlm

    threads = args.threads or (1 if args.tiny_model else None)
    if threads:
        torch.set_num_threads(threads)
    path = args.model
    tmp = None
    if args.tiny_model:
        from agents.tiny_vlm import build_tiny_qwen25vl

        tmp = tempfile.mkdtemp(prefix="tiny-qwen25vl-")
        path = build_tiny_qwen25vl(Path(tmp))
        print(f"built a tiny random Qwen2.5-VL at {path}")
    if not path:
        raise SystemExit("--planner vlm / --executor vlm need --model PATH (a local checkpoint) or --tiny-model")
    kw: dict[str, Any] = {"device": args.device, "max_new_tokens": args.max_new_tokens}
    if args.max_pixels:
        kw["max_pixels"] = args.max_pixels
    try:
        return load_vlm(path, **kw)
    finally:
        if tmp is not None:  # loaded (or failed): the folder is no longer needed
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv: Optional[list[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.evaluate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="GuiGym-Login-v0", help="env id, comma-separated ids, or 'all'")
    p.add_argument("--level", default=None, help="easy | medium | hard (default: every level)")
    p.add_argument("--planner", choices=PLANNERS, default="oracle")
    p.add_argument("--noise", type=float, default=0.0, help="oracle: chance ε of corrupting each planned step")
    p.add_argument("--ungrounded", action="store_true", help="oracle: plan action types + instructions, grounded by the executor")
    p.add_argument("--executor", choices=EXECUTORS, default="element", help="grounds ungrounded steps")
    p.add_argument("--horizon", type=int, default=8, help="T, planned steps per call")
    p.add_argument("--open-loop", action="store_true", help="execute whole plans before re-planning")
    p.add_argument("--episodes", type=int, default=100, help="seeds per env id and level")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--backend", choices=("mock", "browser"), default="mock")
    p.add_argument("--max-steps", type=int, default=None, help="override the env's time limit")
    p.add_argument("--strict", action="store_true",
                   help="Login, Settings and Launcher: success compares the whole state (gym.make(..., strict=True))")
    p.add_argument("--model", default=None, help="vlm: local Hugging Face checkpoint directory")
    p.add_argument("--checkpoint", default=None, help="tiny: a train_small.py run's policy.pt, or its run folder (greedy plans, its own T)")
    p.add_argument("--tiny-model", action="store_true", help="vlm: build and use a tiny random Qwen2.5-VL (smoke test)")
    p.add_argument("--format", choices=("json", "function", "mobile_use"), default="json", help="vlm answer format")
    p.add_argument("--history", type=int, default=4, help="vlm: K, past actions in the prompt")
    p.add_argument("--max-new-tokens", type=int, default=256)
    p.add_argument("--max-pixels", type=int, default=None, help="vlm: cap on the resized screenshot's pixels")
    p.add_argument("--device", default="cpu", help="vlm: cpu | cuda | auto")
    p.add_argument("--threads", type=int, default=None,
                   help="vlm and tiny: torch CPU threads (default: torch's for a vlm; 1 with --tiny-model or --planner tiny)")
    p.add_argument("--save-gif", default=None, metavar="PATH",
                   help="write annotated episodes as GIF(s): PATH itself only when that is one GIF (one env id, one "
                        "--level, --gif-episodes 1); else one GIF per episode beside it, PATH's name plus -ENV-LEVEL-seedN "
                        "(out/eval.gif: out/eval-GuiGym-Login-v0-easy-seed0.gif, ...)")
    p.add_argument("--gif-episodes", type=int, default=1, help="episodes per env id and level to save as GIFs")
    p.add_argument("--json", default=None, metavar="PATH", help="write every episode record as JSON lines")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--variations", choices=("grid", *PRESETS), default="none",
                   help="grid: every value of each variation axis in --split, one at a time (guigym.variation.grid), "
                        "with success per variant and the spread across them (max - min, population std); "
                        "a preset of guigym.variation.PRESETS "
                        "(e.g. all): every env made with variation=PRESET, its axes sampled per episode from --split")
    p.add_argument("--split", choices=("train", "test"), default="train", help="the variation split (with --variations)")
    args = p.parse_args(argv)
    problems: list[str] = []  # every bad flag in one usage error; a check that needs an earlier one to pass is skipped
    if args.horizon < 1 or args.episodes < 1:
        problems.append("--horizon and --episodes must be >= 1")

    # gym.make's "guigym:ID" form too (plain_id: ids name records, GIFs and tables)
    ids = env_ids() if args.env == "all" else [plain_id(s.strip()) for s in args.env.split(",") if s.strip()]
    if not ids:
        problems.append(f"--env {args.env!r} names no env id")
    unknown = [i for i in ids if i not in gym.registry]
    if unknown:
        problems.append(f"unknown env id(s) {unknown}; registered: {env_ids()}")
    # the rest of the flags, checked before anything starts (each would fail later with a traceback)
    for i in ids:
        if i not in unknown and (problem := id_level_problem(i, args.level)):  # the level of an unknown id: not judged
            problems.append(problem)
    if not 0 <= args.noise <= 1:
        problems.append(f"--noise must be in [0, 1], got {args.noise}")
    if args.max_steps is not None and args.max_steps < 1:
        problems.append(f"--max-steps must be >= 1, got {args.max_steps}")
    if args.seed < 0:  # gymnasium's reset takes no negative seed
        problems.append(f"--seed must be >= 0, got {args.seed}")
    if args.save_gif and args.gif_episodes < 1:
        problems.append(f"--gif-episodes must be >= 1 with --save-gif, got {args.gif_episodes}")
    if args.save_gif:  # as guigym demo's --gif: a folder or an unwritable place raised after the last episode
        from guigym.demo import gif_path_problem

        if problem := gif_path_problem(args.save_gif):
            problems.append(f"--save-gif {args.save_gif}: {problem}")
    if args.json and (problem := _unwritable(args.json)):  # else found only after the model loads
        problems.append(f"--json {args.json}: {problem}")
    if args.planner == "tiny" and not args.checkpoint:
        problems.append("--planner tiny needs --checkpoint (a train_small.py run's policy.pt or its run folder)")
    if args.checkpoint and Path(args.checkpoint).is_dir():  # a train_small.py run folder: its policy.pt
        if (Path(args.checkpoint) / "policy.pt").is_file():
            args.checkpoint = str(Path(args.checkpoint) / "policy.pt")
        else:
            problems.append(f"--checkpoint {args.checkpoint}: a folder without policy.pt (a train_small.py run folder has one "
                            "once the run ends or is stopped with Ctrl-C; a PPO run's ppo.zip is not a tiny policy)")
    elif args.checkpoint and not Path(args.checkpoint).is_file():
        problems.append(f"--checkpoint {args.checkpoint}: no such file or folder (a train_small.py run's policy.pt or its run folder)")
    # each of these ran silently without effect (a plain train-split run, no GIFs) or ended in a traceback
    if args.split != "train" and args.variations == "none":
        problems.append(f"--split {args.split} needs --variations (a preset or grid): without one every instance is the family's own")
    if args.save_gif and args.variations == "grid":
        problems.append("--save-gif is not supported with --variations grid")
    if args.planner != "oracle" and (args.noise or args.ungrounded):  # the other planners ignored them
        problems.append(f"--noise and --ungrounded are the oracle planner's; --planner {args.planner} takes neither")
    if args.ungrounded and args.executor == "none":  # no step grounded: every step a no-op, 0 % success
        problems.append("--ungrounded needs an executor to ground its steps: --executor element or vlm, not none")
    grounded_only = {"oracle": not args.ungrounded, "random": True}.get(args.planner, False)
    if args.executor == "vlm" and grounded_only:  # the model was loaded and never asked
        problems.append(f"--executor vlm grounds ungrounded steps; --planner {args.planner}"
                        f"{' without --ungrounded' if args.planner == 'oracle' else ''} plans grounded ones only")
    uses_vlm = "vlm" in (args.planner, args.executor)
    if uses_vlm and not args.model and not args.tiny_model:  # was a bare SystemExit (code 1) after importing torch
        problems.append(f"--{'planner' if args.planner == 'vlm' else 'executor'} vlm needs --model PATH (a local checkpoint) "
                        "or --tiny-model")
    if uses_vlm and args.model and args.tiny_model:  # --tiny-model won: --model was ignored without a word
        problems.append("--model and --tiny-model: give one (--tiny-model builds its own random model and ignores --model)")
    if uses_vlm and args.model and not args.tiny_model and not Path(args.model).is_dir():
        problems.append(f"--model {args.model}: no such directory (a local Hugging Face checkpoint)")
    for flag, v, low in (("--threads", args.threads, 1), ("--max-new-tokens", args.max_new_tokens, 1),
                         ("--max-pixels", args.max_pixels, 1), ("--history", args.history, 0)):
        if v is not None and v < low:
            problems.append(f"{flag} must be >= {low}, got {v}")
    # a model's flags without that model were dropped silently (--checkpoint with the oracle evaluated the oracle)
    given = [f for f in ("model", "tiny_model", "format", "history", "max_new_tokens", "max_pixels", "device")
             if not uses_vlm and getattr(args, f) != p.get_default(f)]
    if given:
        problems.append(f"{', '.join('--' + f.replace('_', '-') for f in given)}: only with --planner vlm or --executor vlm")
    if args.checkpoint and args.planner != "tiny":
        problems.append(f"--checkpoint is the tiny planner's (--planner tiny); --planner {args.planner} takes none")
    if args.planner == "tiny" and args.horizon != p.get_default("horizon"):  # was replaced by the policy's own T
        problems.append(f"--horizon: --planner tiny plans its checkpoint's own T; --horizon {args.horizon} would be ignored")
    if args.gif_episodes != p.get_default("gif_episodes") and not args.save_gif:  # no GIF was written
        problems.append("--gif-episodes: only with --save-gif")
    if args.threads is not None and not uses_vlm and args.planner != "tiny":
        problems.append(f"--threads sets torch's threads; --planner {args.planner} with --executor {args.executor} uses no torch")
    if args.planner == "tiny" or uses_vlm:  # on the base install: the extra to add, not a traceback
        if importlib.util.find_spec("torch") is None:
            problems.append(f"{'--planner tiny' if args.planner == 'tiny' else 'a VLM'} needs torch: "
                            f"pip install 'guigym[{'rl' if args.planner == 'tiny' else 'vlm'}]'")
    if problems:
        p.error("; ".join(problems))
    if args.planner == "tiny":  # as train_small.py evaluates it: one thread (no spin-waiting on a busy machine)
        import torch

        torch.set_num_threads(args.threads or 1)
    try:
        vlm = _load_vlm(args)
    except ValueError as e:  # the model's minimum is known once its processor is read
        if not (args.max_pixels and str(e).startswith("max_pixels ")):
            raise
        p.error(f"--max-pixels {args.max_pixels}: below the model's minimum ({e})")
    try:
        agent = build_agent(args, vlm)
    except Exception as e:  # the tiny planner's torch.load of a file that is not a policy
        if args.planner != "tiny":
            raise
        p.error(f"--checkpoint {args.checkpoint}: not a train_small.py policy ({type(e).__name__}: {str(e)[:200]})")
    seeds = list(range(args.seed, args.seed + args.episodes))
    name = args.planner + (f"(ε={args.noise:g})" if args.planner == "oracle" and args.noise else "")
    mode = "open-loop" if args.open_loop else "plan-act"
    preset = None if args.variations in ("none", "grid") else args.variations  # grid makes its own envs
    varied = "" if preset is None else f", variation {preset} ({args.split} split)"
    print(f"{name} planner, T={args.horizon}, {mode}, executor={args.executor}, {args.backend} backend, "
          f"seeds {seeds[0]}..{seeds[-1]}{varied}")

    if args.variations == "grid":
        return _grid(args, ids, agent, seeds)
    out_json = open(args.json, "w", encoding="utf-8") if args.json else None
    all_records: list[EpisodeRecord] = []
    t0 = time.perf_counter()
    try:
        for env_id in ids:
            env = make_env(env_id, args.backend, args.max_steps, variation=preset, split=args.split, strict=args.strict)
            levels = [args.level] if args.level else list(gui_env(env).family.levels)
            for level in levels:
                n_gif = args.gif_episodes if args.save_gif else 0
                summary, records = evaluate(
                    env, agent, seeds, level, progress=not args.no_progress, desc=f"{env_id} {level}",
                    record_frames=lambda i: i < n_gif,
                )
                all_records += records
                print(
                    f"{env_id} [{level:6}] success {sum(r.success for r in records)}/{len(records)} = {summary['success_rate']:.1%}, "
                    f"mean steps {summary['mean_steps']:.1f}, plan consistency {summary['plan_consistency']:.3f}, "
                    f"no-op steps {summary['noop_rate']:.1%}",
                    flush=True,
                )
                if failures := failure_counts(records):  # why the env ended the others (info["failure"])
                    print("  failed: " + "; ".join(f"{n} x {why}" for why, n in failures.items()), flush=True)
                if args.save_gif:
                    from guigym.viz import save_gif

                    many = len(ids) * len(levels) * min(n_gif, len(records)) > 1
                    for r in records[:n_gif]:
                        path = save_gif(r.frames, _gif_path(args.save_gif, env_id, level, r.seed, many))
                        print(f"  saved {path} ({len(r.frames)} frames, {'success' if r.success else 'failed'})")
                        r.frames = []
                if out_json:
                    tag = {} if preset is None else {"variation": preset, "split": args.split}
                    for r in records:
                        out_json.write(_json_line({**r.to_dict(), **tag}))
            env.close()
    finally:
        if out_json:
            out_json.close()
    total = summarize(all_records)
    dt = time.perf_counter() - t0
    print(
        f"overall: success {total['success_rate']:.1%}, mean steps {total['mean_steps']:.1f}, "
        f"plan consistency {total['plan_consistency']:.3f} ({len(all_records)} episodes, "
        f"{sum(r.steps for r in all_records)} steps in {dt:.1f}s)"
    )
    return 0


def _grid(args: argparse.Namespace, ids: list[str], agent: PlanActAgent, seeds: list[int]) -> int:
    """``--variations grid``: success per variant of ``guigym.variation.grid`` (and, under it,
    the reasons the env gave for the episodes it ended as failures) and the spread (max − min,
    population std) across the variants, neutral included, per env id × level. A variant whose
    instances are the neutral ones says so (:func:`neutral_instances`: an axis that does not show
    on the family or at that level, or a value that is the seed's own); where some are on every
    seed, the spread over the variants that show is printed too. With ``--json``, every episode
    record with its ``variant`` and ``split``."""

    from guigym.variation import grid

    variants = grid(args.split)
    print(f"variation grid, split {args.split}: {len(variants)} variants x {len(seeds)} seeds per env id and level")
    with open(args.json, "w", encoding="utf-8") if args.json else contextlib.nullcontext() as out_json:
        _grid_runs(args, ids, agent, seeds, variants, out_json)
    return 0


#: Why a grid variant's instances are the neutral ones on every seed (:func:`neutral_instances`).
NEVER_SHOWS = "the axis does not show here"


def _changed_axes(var: Mapping[str, Any]) -> list[str]:
    from guigym.variation import NEUTRAL

    return [a for a, v in var.items() if v != NEUTRAL.get(a)]


def _never_shows(family: Any, var: Mapping[str, Any]) -> bool:
    """Whether every axis ``var`` (a variant of ``guigym.variation.grid``) moves off its neutral
    value is one that no instance of ``family`` shows: ``inert_axes`` and ``unshown_axes``
    (``gym.make`` warns of those), and the ``labels`` axis's train value (its table names the
    held-out synonyms only, which the families never show: ``guigym.apps.base.relabel_view``)."""
    from guigym.variation import inert_axes, unshown_axes

    never = inert_axes(family) | unshown_axes(family)
    changed = _changed_axes(var)
    return bool(changed) and all(a in never or (a == "labels" and var[a] == "train") for a in changed)


def instance_key(env: gym.Env) -> str:
    """The instance ``env`` was last reset to: its scenario as JSON, but the record of the
    variation that made it (``scenario["variation"]``), so that a variant that changes nothing
    has the neutral variant's key."""
    scenario: Mapping[str, Any] = gui_env(env).scenario or {}
    return json.dumps({k: v for k, v in scenario.items() if k != "variation"}, sort_keys=True, default=str)


def _instance_digest(env: gym.Env) -> str:
    """:func:`instance_key`'s SHA-256, what the grid keeps per episode and variant (a scenario's
    JSON is up to tens of kB: kept whole, a grid with many episodes held hundreds of MB)."""
    return hashlib.sha256(instance_key(env).encode()).hexdigest()


class _InstanceLog(gym.Wrapper):
    """Keeps :func:`_instance_digest` of every reset (the episodes the evaluation runs, no extra reset)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.keys: list[str] = []

    def reset(self, **kw: Any) -> Any:
        out = self.env.reset(**kw)
        self.keys.append(_instance_digest(self.env))
        return out


def _neutral_count(family: Any, var: Mapping[str, Any], k: Sequence[str], neutral: Optional[Sequence[str]]) -> int:
    """On how many of its episodes (instance digests ``k``) variant ``var`` is the neutral
    instance (``neutral``: the neutral variant's digests, None if not known)."""
    if not _changed_axes(var) or _never_shows(family, var):
        return len(k)
    return sum(a == b for a, b in zip(k, neutral)) if neutral is not None and len(neutral) == len(k) else 0


def _count_neutral(family: Any, variants: Sequence[tuple[str, Mapping[str, Any]]], keys: Mapping[str, list[str]]) -> dict[str, int]:
    neutral = next((keys[n] for n, v in variants if not _changed_axes(v)), None)
    return {name: _neutral_count(family, var, keys[name], neutral) for name, var in variants}


def neutral_instances(env_id: str, level: str, variants: Sequence[tuple[str, Mapping[str, Any]]], split: str,
                      seeds: Sequence[int]) -> dict[str, int]:
    """For each variant of ``guigym.variation.grid(split)`` (``variants``) on ``env_id`` at
    ``level``: on how many of ``seeds`` its instance is the neutral variant's, so that it
    measures nothing the neutral row does not. Every seed where its axis does not show on the
    family (:func:`_never_shows`); else the seeds whose scenario is the neutral one's
    (``icons`` without a home screen at that level, ``templates`` at a level with one template,
    a ``theme`` that is the seed's own). Resets only (the mock backend), no episode."""
    import warnings

    keys: dict[str, list[str]] = {}
    family = None
    for name, var in variants:
        with warnings.catch_warnings():  # the axes the family does not show: _never_shows counts them
            warnings.simplefilter("ignore")
            env = make_env(env_id, variation=dict(var), split=split)
        try:
            family = gui_env(env).family
            keys[name] = []
            for s in seeds:
                env.reset(seed=s, options={"level": level})
                keys[name].append(_instance_digest(env))
        finally:
            env.close()
    return _count_neutral(family, variants, keys) if variants else {}


def _grid_runs(args: argparse.Namespace, ids: list[str], agent: PlanActAgent, seeds: list[int], variants: list[Any],
               out_json: Any) -> None:
    import numpy as np

    for env_id in ids:
        probe = make_env(env_id)
        family = gui_env(probe).family
        levels = [args.level] if args.level else list(family.levels)
        probe.close()
        for level in levels:
            rates = []
            keys: dict[str, list[str]] = {}
            counts: dict[str, int] = {}  # each variant's, counted once as it comes (the spread reuses them)
            for name, var in variants:
                env = _InstanceLog(make_env(env_id, args.backend, args.max_steps, variation=var, split=args.split, strict=args.strict))
                summary, records = evaluate(env, agent, seeds, level, progress=not args.no_progress, desc=f"{env_id} {level} {name}")
                env.close()
                keys[name] = env.keys
                rates.append(summary["success_rate"])
                if out_json is not None:
                    for rec in records:
                        out_json.write(_json_line({**rec.to_dict(), "variant": name, "split": args.split}))
                    out_json.flush()
                # grid() runs neutral first: each variant's instances against its, as they come
                neutral = next((keys[n] for n, v in variants if n in keys and not _changed_axes(v)), None)
                same = counts[name] = _neutral_count(family, var, keys[name], neutral)
                note = ""
                if _changed_axes(var) and same:
                    why = f" ({NEVER_SHOWS})" if _never_shows(family, var) else ""
                    note = (f"  [the neutral instance on every seed{why}]" if same == len(seeds)
                            else f"  [the neutral instance on {same} of {len(seeds)} seeds]")
                print(f"{env_id} [{level:6}] {name:30} success {summary['success_rate']:.1%}, mean steps {summary['mean_steps']:.1f}"
                      f"{note}", flush=True)
                if failures := failure_counts(records):  # as the plain run prints them (info["failure"])
                    print("  failed: " + "; ".join(f"{n} x {why}" for why, n in failures.items()), flush=True)
            r = np.array(rates)
            inert = [n for n, v in variants if _changed_axes(v) and counts[n] == len(seeds)]
            # the population std (ddof 0) of the variants' rates, as benchmarks/reproduce.py's robustness table
            print(f"{env_id} [{level:6}] spread across {len(r)} variants (neutral included): max - min {r.max() - r.min():.1%}, "
                  f"std {r.std(ddof=0):.1%} (population) (min {r.min():.1%} at {variants[int(r.argmin())][0]})", flush=True)
            if inert:  # their episodes are the neutral ones: they measure nothing more, and pull the std towards 0
                shown = np.array([x for (n, _), x in zip(variants, rates) if n not in inert])
                print(f"{env_id} [{level:6}] {len(inert)} variants the neutral instance on every seed ({', '.join(inert)}); "
                      f"spread across the other {len(shown)} (neutral included): max - min {shown.max() - shown.min():.1%}, "
                      f"std {shown.std(ddof=0):.1%}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
