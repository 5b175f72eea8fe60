"""Export reference episodes as a dataset: JSONL + PNG screenshots.

One line per episode, with AndroidControl's field names (``episode_id``, ``goal``,
``screenshots``, ``actions``, ``step_instructions``) plus what guigym adds: the target box and
widget of every step and the full dense reference from every state (``references``: one JSON
string per state, the ``RefStep.to_dict()`` list, so the column has one type and loads with
Hugging Face ``datasets``). A second file, ``steps.jsonl``, has one row per step (the
screenshot, the goal, the reference from that state) — the shape of an offline GRPO dataset
for :mod:`guigym.rewards.trl`, with the visible widgets of that state (``elements``, as
``info["elements"]``, which :class:`~guigym.rewards.trl.TrajectoryReward` reads to judge
elements exactly). Episode ids are ``<env>-<backend>-<level>-<seed>``; screenshots are
``screenshots/<episode_id>/NNN.png``. Exporting again into the same folder replaces the earlier
dataset, screenshots included, once the new one is complete.

``--variation PRESET`` (a preset of :mod:`guigym.variation`) exports varied instances of
``--split`` (train, the default, or test): a training set from one split and a held-out set
from the other. Their episode ids end in ``-<preset>-<split>`` (the screenshots of one seed
differ by variation and split), and every episode records the axes its instance drew
(``variation``), its ``split`` and its task ``template``.

    guigym export --env GuiGym-Login-v0 --episodes 100 --out data/login
    guigym export --env GuiGym-Mail-v0 --episodes 100 --variation all --split test --out data/mail-test
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Union

import gymnasium as gym
from PIL import Image
from tqdm import tqdm

import guigym  # noqa: F401  (registers the envs)
from guigym.actions import Action, RefStep, Scroll, action_to_dict
from guigym.backends import BACKENDS
from guigym.registration import id_level_problem, plain_id
from guigym.variation import PRESETS, SPLITS
from guigym.variation import resolve as resolve_variation

#: ``variation`` of :func:`export`: a preset's name or a dict of axes (None: the family's own instances).
Variation = Optional[Union[str, Mapping[str, Any]]]


# AndroidControl's names where they differ from the canonical dict (action_to_dict).
_AC_TYPES: dict[str, str] = {"type": "input_text", "back": "navigate_back"}
_AC_KEYS: dict[str, str] = {"type": "action_type", "name": "app_name"}


def androidcontrol_action(a: Action) -> dict[str, Any]:
    """An action in AndroidControl's JSON (``action_type`` click / scroll / input_text /
    navigate_back / open_app): the canonical dict renamed; a scroll keeps only its direction,
    as AndroidControl's does.

    >>> from guigym.actions import OpenApp
    >>> androidcontrol_action(OpenApp("Clock"))
    {'action_type': 'open_app', 'app_name': 'Clock'}
    """
    d = action_to_dict(a)
    d["type"] = _AC_TYPES.get(d["type"], d["type"])
    if isinstance(a, Scroll):
        d = {k: v for k, v in d.items() if k not in ("x", "y")}
    return {_AC_KEYS.get(k, k): v for k, v in d.items()}


def _refs_json(ref: list[RefStep]) -> str:
    return json.dumps([r.to_dict() for r in ref], ensure_ascii=False)


def _elements_json(elements: list[dict[str, Any]]) -> str:
    """``info["elements"]`` as one JSON string (boxes as lists): one type per column, as ``references``."""
    return json.dumps([{**e, "box": list(e["box"])} for e in elements], ensure_ascii=False)


def variation_tag(variation: Variation, split: str) -> str:
    """The end of a varied episode's id: ``-<preset>-<split>``, or for a dict of axes
    ``-custom<hash>-<split>`` (the hash of its sorted JSON); ``""`` without a variation (None
    or ``"none"``: the family's own instances, the same screenshots as a plain export).

    >>> variation_tag("all", "test"), variation_tag(None, "train"), variation_tag("none", "train")
    ('-all-test', '', '')
    """
    if variation is None or variation == "none":
        return ""
    if isinstance(variation, str):
        return f"-{variation}-{split}"
    digest = hashlib.sha256(json.dumps(dict(variation), sort_keys=True, default=str).encode()).hexdigest()[:8]
    return f"-custom{digest}-{split}"


def episodes(
    env_id: str, n: int, out: Path, level: str | None = None, seed: int = 0, backend: str = "mock",
    shots_dir: Path | None = None, variation: Variation = None, split: str = "train",
) -> Iterator[dict[str, Any]]:
    """Run the oracle for ``n`` episodes, save screenshots, yield records.

    PNGs go to ``shots_dir`` (default ``out / "screenshots"``); the records name them as
    ``screenshots/<episode_id>/NNN.png``, relative to ``out``. The episode id is
    ``<env_id>-<backend>-<level>-<seed>`` (plus :func:`variation_tag` for varied instances):
    the backends, variations and splits draw different screenshots for one seed, so their
    datasets never share an id or a screenshot folder. ``env_id`` may have ``gym.make``'s
    ``guigym:`` prefix; ids, folders and the ``env_id`` field use the plain id, as the command's."""
    env_id = plain_id(env_id)  # "guigym:GuiGym-…" put a colon in every id and folder: not the CLI's dataset
    shots_dir = out / "screenshots" if shots_dir is None else shots_dir
    plain = resolve_variation(variation, split) is None
    varied: dict[str, Any] = {} if plain else {"variation": variation, "split": split}
    env = gym.make(env_id, backend=backend, **varied)
    try:
        for i in range(n):
            options = {"level": level} if level else None
            obs, info = env.reset(seed=seed + i, options=options)
            eid = f"{env_id}-{backend}-{info['level']}-{seed + i}{variation_tag(variation, split)}"
            folder = shots_dir / eid
            folder.mkdir(parents=True, exist_ok=True)
            shots, actions, instr, boxes, targets, refs, elements = [], [], [], [], [], [], []
            axes, template = info["variation"], info["template"]
            done, t = False, 0
            while True:
                name = f"{t:03d}.png"
                Image.fromarray(obs["screenshot"]).save(folder / name, compress_level=1)  # fast; PNG stays lossless
                shots.append(f"screenshots/{eid}/{name}")
                refs.append(_refs_json(info["reference"]))
                elements.append(_elements_json(info["elements"]))
                if done or not info["reference"]:
                    break
                step = info["reference"][0]
                actions.append(androidcontrol_action(step.action))
                instr.append(step.instruction)
                boxes.append(list(step.box) if step.box else None)
                targets.append(step.target)
                obs, _, term, trunc, info = env.step(step.action)
                done, t = term or trunc, t + 1
            yield {
                "episode_id": eid, "env_id": env_id, "level": info["level"], "seed": seed + i, "backend": backend,
                "goal": obs["instruction"], "screenshots": shots, "actions": actions, "step_instructions": instr,
                "boxes": boxes, "targets": targets, "references": refs, "elements": elements, "success": bool(info["success"]),
                "width": int(obs["screenshot"].shape[1]), "height": int(obs["screenshot"].shape[0]),
                "variation": axes, "split": None if plain else split, "template": template,
            }
    finally:
        env.close()


def _foreign_screenshots(out: Path) -> str | None:
    """Why ``out`` can't take an export, or None: a re-export replaces ``out/screenshots``
    whole, so that folder must be an earlier export's, never someone's own files."""
    if (out / "screenshots").exists() and not (out / "episodes.jsonl").is_file():
        return (f"{out / 'screenshots'} exists but {out} holds no earlier guigym export (no episodes.jsonl); "
                "export into an empty or new folder, or move that folder away")
    return None


def _unwritable_folder(out: Path) -> str | None:
    """Why the export cannot write into ``out``, or None: creates ``out`` (as the export would)
    and a probe file in it, so a path under a file (``a_file/sub``), in a folder that cannot be
    created (``/proc/x/y``) or not writable is a usage error before any episode runs, not an
    ``OSError`` traceback. Only folders this call created are removed again on failure."""
    missing = [q for q in (out, *out.parents) if not q.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        for q in missing:  # deepest first: only the (empty) folders made here
            try:
                q.rmdir()
            except OSError:
                pass
        return f"cannot write there ({e.strerror or type(e).__name__})"
    return None


def export(
    env_id: str, n: int, out: str | Path, level: str | None = None, seed: int = 0, backend: str = "mock", progress: bool = True,
    variation: Variation = None, split: str = "train",
) -> Path:
    """Write ``episodes.jsonl``, ``steps.jsonl`` and ``screenshots/`` under ``out``.

    ``variation`` and ``split`` are ``gym.make``'s (a preset's name or a dict of axes; checked
    before anything is written).

    Everything is written under temporary names (``*.jsonl.partial``, ``.screenshots.partial/``)
    and put in place only once every episode is done: an error or Ctrl-C leaves no truncated
    dataset that looks complete, and an earlier export in ``out`` stays as it was. A finished
    export replaces an earlier one in ``out`` whole, screenshots included, so a dataset never
    mixes runs. Other files in ``out`` are left alone; a ``screenshots/`` folder that is not
    an earlier export's (no ``episodes.jsonl`` beside it) is refused, not deleted."""
    out = Path(out)
    resolve_variation(variation, split)  # a bad preset, axis or split: a ValueError before any file is touched
    shots, staged, old = out / "screenshots", out / ".screenshots.partial", out / ".screenshots.old"
    if old.is_dir() and not shots.exists():  # an export killed mid-swap: put the earlier screenshots back
        old.rename(shots)
    problem = _foreign_screenshots(out)
    if problem:
        raise ValueError(problem)
    out.mkdir(parents=True, exist_ok=True)
    for leftover in (staged, old):  # a run killed (SIGKILL) before it could clean up
        shutil.rmtree(leftover, ignore_errors=True)
    tmp_e, tmp_s = out / "episodes.jsonl.partial", out / "steps.jsonl.partial"
    try:
        with open(tmp_e, "w", encoding="utf-8") as fe, open(tmp_s, "w", encoding="utf-8") as fs:
            eps = episodes(env_id, n, out, level, seed, backend, shots_dir=staged, variation=variation, split=split)
            for ep in tqdm(eps, total=n, desc=f"export {env_id}", disable=not progress):
                fe.write(json.dumps(ep, ensure_ascii=False) + "\n")
                for t, action in enumerate(ep["actions"]):
                    fs.write(json.dumps({
                        "episode_id": ep["episode_id"], "step": t, "goal": ep["goal"], "image": ep["screenshots"][t],
                        "action": action, "step_instruction": ep["step_instructions"][t], "box": ep["boxes"][t],
                        "reference": ep["references"][t], "elements": ep["elements"][t], "width": ep["width"],
                        "height": ep["height"], "template": ep["template"], "split": ep["split"],
                    }, ensure_ascii=False) + "\n")
        staged.mkdir(exist_ok=True)  # n == 0: still a (empty) screenshots/ folder
    except BaseException:  # Ctrl-C too: no half-written files left beside the dataset
        tmp_e.unlink(missing_ok=True)
        tmp_s.unlink(missing_ok=True)
        shutil.rmtree(staged, ignore_errors=True)
        raise
    # Renames only from here: the earlier screenshots go (stale episode folders with them)
    # together with the earlier JSONL files.
    if shots.exists():
        shots.rename(old)
    staged.rename(shots)
    tmp_e.replace(out / "episodes.jsonl")
    tmp_s.replace(out / "steps.jsonl")
    shutil.rmtree(old, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="guigym export", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", default="GuiGym-Login-v0")
    p.add_argument("--episodes", type=int, default=100)
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--level", default=None, help="easy | medium | hard (default: the env's default)")
    p.add_argument("--seed", type=int, default=0, help="first seed; episode i uses seed + i")
    p.add_argument("--backend", default="mock", choices=BACKENDS)  # a typo: a usage error, not a traceback
    p.add_argument("--variation", default=None, choices=sorted(PRESETS),
                   help="export varied instances: every axis of this guigym.variation preset sampled per episode")
    p.add_argument("--split", default=None, choices=SPLITS, help="the variation split (default: train; needs --variation)")
    args = p.parse_args(argv)
    args.env = plain_id(args.env)  # gym.make's "guigym:ID" form; the plain id names episodes and folders
    problems = []  # every bad flag in one usage error; a check that needs an earlier one to pass is skipped
    if problem := id_level_problem(args.env, args.level):
        problems.append(problem)
    if args.episodes < 1:
        problems.append("--episodes must be >= 1")
    if args.split is not None and args.variation is None:  # it would export the family's own instances, silently
        problems.append(f"--split {args.split} needs --variation (a preset): without one every instance is the family's own")
    # e.g. a language the family has no translation for: before any file is written (needs a good env id)
    if args.variation is not None and id_level_problem(args.env) is None:
        try:
            gym.make(args.env, variation=args.variation, split=args.split or "train").close()
        except ValueError as e:
            problems.append(f"--variation {args.variation}: {e}")
    if args.seed < 0:  # gymnasium's reset takes no negative seed: it failed after the JSONL files were created
        problems.append(f"--seed must be >= 0, got {args.seed}")
    out = Path(args.out)
    if not args.out:  # Path("") is ".": an unset `--out "$DIR"` wrote the dataset into the current folder
        problems.append(f"--out {args.out!r}: give a folder name (to export into the current folder, say --out .)")
    elif out.exists() and not out.is_dir():
        problems.append(f"--out {args.out}: exists and is not a folder")
    elif problem := _foreign_screenshots(out):
        problems.append(f"--out: {problem}")
    else:
        missing = [q for q in (out, *out.parents) if not q.exists()]
        if problem := _unwritable_folder(out):  # creates --out (and the folders above it) as the export will
            problems.append(f"--out {args.out}: {problem}")
        elif problems:  # no export after all: nothing left behind
            for q in missing:  # deepest first: only the (empty) folders made by the check
                try:
                    q.rmdir()
                except OSError:
                    pass
    if problems:
        p.error("; ".join(problems))
    try:
        out = export(args.env, args.episodes, args.out, args.level, args.seed, args.backend,
                     variation=args.variation, split=args.split or "train")
    except KeyboardInterrupt:  # as train_small.py: one line and status 130, not a traceback
        print(f"guigym export: interrupted; nothing of this export was kept in {args.out} "
              "(an earlier export there is left whole)", file=sys.stderr)
        return 130
    print(f"wrote {out / 'episodes.jsonl'}, {out / 'steps.jsonl'} and {out / 'screenshots'}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
