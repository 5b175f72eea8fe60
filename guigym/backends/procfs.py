"""What Linux's ``/proc`` says about a process: its command line, state, parent, descendants,
memory and CPU time. The browser backend finds, watches and cleans up after its Chromium and Playwright
processes with these; elsewhere (no ``/proc``) each returns its documented empty answer.
"""

from __future__ import annotations

import os

__all__ = ["alive", "cmdline", "cpu_seconds", "pids", "private_kib", "process_tree", "pss_kib", "stat"]

#: clock ticks per second, the unit of CPU times in ``/proc`` (-1 where unknown)
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else -1


def cmdline(pid: int | None) -> bytes:
    """The command line of ``pid``, its arguments separated by NUL bytes (``b""`` if gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except (OSError, TypeError):
        return b""


def _stat_fields(path: str) -> list[bytes] | None:
    """The fields of a ``/proc/.../stat`` file after the command name, from the state on (None if
    it cannot be read)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    # the command name in brackets may hold spaces and ')': the fields follow the last ')'
    return data[data.rfind(b")") + 2:].split()


def stat(pid: int | str) -> tuple[str, int] | None:
    """``(state, ppid)`` of ``pid`` (state: ``R``, ``S``, ``D``, ``T`` stopped, ``Z`` zombie, ...),
    or None if it is gone or ``/proc`` cannot be read."""
    rest = _stat_fields(f"/proc/{pid}/stat")
    try:
        return (rest[0].decode(), int(rest[1])) if rest is not None else None
    except (IndexError, ValueError):
        return None


def cpu_seconds(pid: int | str, tid: int | str | None = None) -> float | None:
    """User + system CPU seconds that ``pid`` has used so far (its thread ``tid`` alone, if
    given), or None if it is gone or ``/proc`` cannot be read. The benchmarks measure CPU per
    step with it."""
    rest = _stat_fields(f"/proc/{pid}/stat" if tid is None else f"/proc/{pid}/task/{tid}/stat")
    try:
        return (int(rest[11]) + int(rest[12])) / _TICK if rest is not None and _TICK > 0 else None
    except (IndexError, ValueError):
        return None


def alive(pid: int | str) -> bool:
    """Whether ``pid`` exists and has not exited: a zombie (exited, not yet reaped) is not
    alive, a stopped process (``T``) is."""
    return (stat(pid) or ("X",))[0] not in ("Z", "X")


def pids() -> list[int]:
    """Every process id in ``/proc`` (empty without it)."""
    try:
        return [int(n) for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return []


def _proc_table() -> dict[int, tuple[int, str]]:
    """``pid -> (ppid, state)`` of every process (empty without ``/proc``)."""
    out: dict[int, tuple[int, str]] = {}
    for pid in pids():
        if (st := stat(pid)) is not None:
            out[pid] = (st[1], st[0])
    return out


def process_tree(root: int, include_zombies: bool = False) -> list[int]:
    """``root`` and its descendants that are still running (zombies left out by default)."""
    table = _proc_table()
    if root not in table:
        return []
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        if include_zombies or table[p][1] not in ("Z", "X"):
            out.append(p)
        todo.extend(children.get(p, ()))
    return out


def pss_kib(pids: list[int]) -> int:
    """Proportional set size (KiB) of ``pids``, summed (from ``/proc/PID/smaps_rollup``)."""
    return _smaps_kib(pids, ("Pss:",))


def private_kib(pids: list[int]) -> int:
    """Memory (KiB) that only ``pids`` use (``Private_Clean`` + ``Private_Dirty``): unlike PSS,
    it does not move when other programs map the same libraries (a steadier drift measure)."""
    return _smaps_kib(pids, ("Private_Clean:", "Private_Dirty:"))


def _smaps_kib(pids: list[int], keys: tuple[str, ...]) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith(keys):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total
