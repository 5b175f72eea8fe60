"""Argument checks the benchmark scripts share, so one flag means one thing in every script:
``--ids`` / ``--levels`` (comma-separated lists), ``--env`` / ``--level`` (one id and level) and
counts that must be at least some number. Every problem is a usage error (exit 2, naming the
flag) before anything runs, never a traceback or a silently smaller run."""

from __future__ import annotations

import argparse

from guigym.registration import ENVS, id_level_problem, plain_id


def ids_and_levels(p: argparse.ArgumentParser, ids: str, levels: str) -> tuple[list[str], list[str]]:
    """The ids named by ``--ids`` (comma-separated family names such as ``Login`` or ids such as
    ``GuiGym-Login-v0`` / ``guigym:GuiGym-Login-v0``; empty: every registered id, in table
    order) and the levels of ``--levels`` (comma-separated), each once. A name that matches no
    id, or a level that one of the ids does not have, is a usage error of ``p`` (an unknown name
    used to be dropped silently, and an unknown level ended in a traceback mid-run)."""
    by_name = {}
    for e in ENVS:
        by_name[e.id] = e.id
        by_name[e.id.split("-")[1]] = e.id
    wanted = [plain_id(s.strip()) for s in ids.split(",") if s.strip()]
    unknown = [w for w in wanted if w not in by_name]
    if unknown:
        families = ", ".join(e.id.split("-")[1] for e in ENVS)
        p.error(f"--ids {ids!r}: {', '.join(unknown)} names no registered id; families: {families} (or their ids)")
    chosen = {by_name[w] for w in wanted}
    picked = [e.id for e in ENVS if not wanted or e.id in chosen]
    names = list(dict.fromkeys(s.strip() for s in levels.split(",") if s.strip()))
    if not names:
        p.error(f"--levels {levels!r}: give at least one level (e.g. easy,medium,hard)")
    for env_id in picked:
        for level in names:
            if (problem := id_level_problem(env_id, level)) is not None:
                p.error(problem.replace("--level ", "--levels ", 1))
    return picked, names


def env_and_level(p: argparse.ArgumentParser, env_id: str, level: str) -> str:
    """``--env`` and ``--level`` checked (:func:`guigym.registration.id_level_problem`: an
    unknown id or level, or another package's id, is a usage error of ``p``); the plain id."""
    if (problem := id_level_problem(env_id, level)) is not None:
        p.error(problem)
    return plain_id(env_id)


def at_least(p: argparse.ArgumentParser, minimum: int, **flags: int | list[int]) -> None:
    """Each of ``flags`` (``steps=...`` is ``--steps``; a list: each of its values) at least
    ``minimum``, else one usage error of ``p`` naming every flag that is not."""
    bad = []
    for name, value in flags.items():
        values = value if isinstance(value, list) else [value]
        if any(v < minimum for v in values):
            bad.append(f"--{name.replace('_', '-')} must be >= {minimum}, got {' '.join(map(str, values))}")
    if bad:
        p.error("; ".join(bad))
