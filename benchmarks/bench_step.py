"""Where a mock oracle step's time goes, per env id x level: drawing the frame against the rest
(applying the event, re-planning the reference, the observation and ``info``), on one pinned core.

    python benchmarks/bench_step.py [--steps 2000] [--ids Messages,Login] [--levels medium]

For each id x level the oracle policy of ``make bench`` (``guigym.bench.oracle_run``: seeds
0, 1, 2, ..., every step the reference's first action, a reset per episode, counted in the rate)
runs twice on the same seeds:

* as is, with the drawing (``MockBackend._draw``: the display list, the background, the widget
  tiles, the text) timed, and the text renders that missed the text cache counted;
* with drawing replaced by a black frame: the same episodes (the oracle plans from the app state
  and hit-tests with the layout, never with pixels; checked: the same number of steps and
  episodes), so its rate is what the env would do if drawing were free.

Columns: oracle steps/s as is; drawing's ms per step and share of the time; text-cache misses per
step; steps/s with drawing free. Where even the last is under ``--aim`` (4,000 steps/s, issue
14's aim for every id x level), drawing alone cannot close the gap.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import time
from collections.abc import Iterator
from typing import Any

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium as gym
import numpy as np
from _args import at_least, ids_and_levels  # benchmarks/, the script's folder (on sys.path)

import guigym  # noqa: F401
from guigym.backends import mock
from guigym.bench import oracle_run


@contextlib.contextmanager
def timed_drawing(stats: dict[str, float]) -> Iterator[None]:
    """Time ``MockBackend._draw`` and count the text renders that miss the text cache."""
    draw, render = mock.MockBackend._draw, mock._Text.render

    def timed(self: Any, v: Any, lay: Any) -> None:
        t = time.perf_counter()
        try:
            draw(self, v, lay)
        finally:
            stats["draw_s"] += time.perf_counter() - t

    def counted(self: Any, text: str, size: int, color: Any, bold: bool = False, face: str | None = None) -> Any:
        if (text, size, bold, color, face) not in self.cache:
            stats["misses"] += 1
        return render(self, text, size, color, bold, face)

    mock.MockBackend._draw, mock._Text.render = timed, counted  # type: ignore[method-assign]
    try:
        yield
    finally:
        mock.MockBackend._draw, mock._Text.render = draw, render  # type: ignore[method-assign]


@contextlib.contextmanager
def free_drawing() -> Iterator[None]:
    """Every frame a new black one, nothing drawn (what the env would do if drawing cost nothing)."""
    draw = mock.MockBackend._draw

    def black(self: Any, v: Any, lay: Any) -> None:
        self._arr, self._handed_out = np.zeros((self.height, self.width, 3), dtype=np.uint8), False

    mock.MockBackend._draw = black  # type: ignore[method-assign]
    try:
        yield
    finally:
        mock.MockBackend._draw = draw  # type: ignore[method-assign]


def measure(env_id: str, level: str, steps: int) -> dict[str, float]:
    """One id x level: the run as is (drawing timed) and the run with drawing free, same seeds."""
    out: dict[str, float] = {}
    for mode in ("as is", "free"):
        env = gym.make(env_id, level=level, disable_env_checker=True)
        stats = {"draw_s": 0.0, "misses": 0.0}
        ctx = timed_drawing(stats) if mode == "as is" else free_drawing()
        with ctx:
            oracle_run(env, min(300, steps), level)  # warm-up: fonts, caches, memos
            stats.update(draw_s=0.0, misses=0.0)
            secs, n, episodes = oracle_run(env, steps, level)
        env.close()
        if mode == "as is":
            out.update(sps=n / secs, draw_ms=stats["draw_s"] / n * 1e3, draw_share=stats["draw_s"] / secs,
                       misses=stats["misses"] / n, steps=n, episodes=episodes)
        else:
            if (n, episodes) != (out["steps"], out["episodes"]):  # not the same work: the ceiling would mean nothing
                raise RuntimeError(f"{env_id} {level}: {n} steps in {episodes} episodes with drawing free, "
                                   f"{out['steps']} in {out['episodes']} as is")
            out["free_sps"] = n / secs
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=2000, help="oracle steps per id x level and run (after 300 of warm-up)")
    p.add_argument("--ids", default="", help="comma-separated families (Login,Messages) or ids; default: all")
    p.add_argument("--levels", default="easy,medium,hard", help="comma-separated levels (default: %(default)s)")
    p.add_argument("--aim", type=float, default=4000.0, help="oracle steps/s to compare with (issue 14: 4,000)")
    p.add_argument("--pin", action=argparse.BooleanOptionalAction, default=True, help="run on one core (Linux)")
    a = p.parse_args(argv)
    at_least(p, 1, steps=a.steps)
    ids, levels = ids_and_levels(p, a.ids, a.levels)  # shared with bench_reset.py: the same flags, the same checks
    if a.pin and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    print(f"# python {platform.python_version()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; "
          f"{a.steps} oracle steps per id x level and run")
    print(f"{'env':24} {'level':7} {'oracle st/s':>11} {'draw ms/st':>10} {'draw %':>7} {'text miss/st':>12} {'free st/s':>10}")
    below = []
    for env_id in ids:
        for level in levels:
            r = measure(env_id, level, a.steps)
            print(f"{env_id:24} {level:7} {r['sps']:11.0f} {r['draw_ms']:10.3f} {100 * r['draw_share']:6.0f}% "
                  f"{r['misses']:12.2f} {r['free_sps']:10.0f}", flush=True)
            if r["free_sps"] < a.aim:
                below.append(f"{env_id.split('-')[1]} {level} ({r['free_sps']:.0f})")
    print(f"with drawing free, under {a.aim:.0f} oracle steps/s: {len(below)} of {len(ids) * len(levels)}"
          + (f": {', '.join(below)}" if below else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
