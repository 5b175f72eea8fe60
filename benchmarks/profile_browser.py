"""Where a browser-backend step's time goes: CPU per oracle step of every process and thread
(Python's main thread, Playwright's loop thread, Playwright's node driver, each kind of Chromium
process), the round trip of each DevTools call ``show`` sends when sent alone, and the
screenshot decode. For whoever works on the browser's speed aims (``bench_browser.py`` gives
the rates these add up to).

    python benchmarks/profile_browser.py [--env GuiGym-Login-v0] [--level easy] [--steps 600] [--calls 3]

The round trips reach into the backend's private helpers (``_send``, ``_runtime``): a profiling
tool, not an API. Numbers depend on load: the load average is printed.
"""

from __future__ import annotations

import argparse
import base64
import os
import platform
import statistics
import sys
import threading
import time
import zlib
from typing import Any

os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout's guigym first

import gymnasium as gym
from _args import at_least, env_and_level  # benchmarks/, the script's folder (on sys.path)

import guigym  # noqa: F401  (registers the ids)
from guigym.backends import browser as browser_module
from guigym.backends.browser import BrowserBackend, decode_png, payload
from guigym.backends.procfs import cmdline, cpu_seconds, process_tree
from guigym.bench import oracle_run
from guigym.env import gui_env


def _kind(pid: int) -> str:
    """A process's part: ``node driver``, or a Chromium process by its ``--type`` (and sub-type)."""
    args = cmdline(pid).replace(b"\0", b" ").decode(errors="replace").split()  # Chromium rewrites its argv with spaces
    if args and os.path.basename(args[0]).startswith("node"):
        return "node driver"
    kind = next((a[7:] for a in args if a.startswith("--type=")), "browser")
    sub = next((a.split("=", 1)[1].rsplit(".", 1)[-1] for a in args if a.startswith("--utility-sub-type=")), None)
    return f"chromium {kind}" + (f" ({sub})" if sub else "")


def cpu_by_part() -> dict[str, float]:
    """CPU seconds so far of this process's threads (by name) and of its descendants (by part)."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    out: dict[str, float] = {}
    for tid in os.listdir("/proc/self/task"):
        c = cpu_seconds(os.getpid(), tid)
        if c is not None:
            key = f"python thread {names.get(int(tid), 'other')}"
            out[key] = out.get(key, 0.0) + c
    for pid in process_tree(os.getpid()):
        if pid == os.getpid():
            continue
        c = cpu_seconds(pid)
        if c is not None:
            key = _kind(pid)
            out[key] = out.get(key, 0.0) + c
    return out


def round_trips(be: BrowserBackend, views: list[Any], rounds: int) -> dict[str, list[float]]:
    """Seconds of each call ``show`` sends, each sent alone and awaited, over the views seen."""
    layer = be._content_layer()
    if layer is None:
        raise SystemExit("the page has no single content layer: the layer capture path is off")
    times: dict[str, list[float]] = {k: [] for k in ("no-op (Runtime.evaluate 1)", "show (DOM update)", "LayerTree.makeSnapshot",
                                                     "LayerTree.replaySnapshot", "LayerTree.releaseSnapshot")}
    keys = list(times)
    for _ in range(rounds):
        for v, lay in views:
            t = time.perf_counter()
            be._send("Runtime.evaluate", {"expression": "1"})
            times[keys[0]].append(time.perf_counter() - t)
            be._frame_id = (be._frame_id + 1) & 0xFFFFFF
            t = time.perf_counter()
            be._send("Runtime.callFunctionOn", be._runtime("show", payload(v, lay), be._frame_id))
            times[keys[1]].append(time.perf_counter() - t)
            t = time.perf_counter()
            sid = be._send("LayerTree.makeSnapshot", {"layerId": layer})["snapshotId"]
            times[keys[2]].append(time.perf_counter() - t)
            t = time.perf_counter()
            be._send("LayerTree.replaySnapshot", {"snapshotId": sid})
            times[keys[3]].append(time.perf_counter() - t)
            t = time.perf_counter()
            be._send("LayerTree.releaseSnapshot", {"snapshotId": sid})
            times[keys[4]].append(time.perf_counter() - t)
    be._tab.next_snapshot = None  # type: ignore[union-attr]  # the ids moved on: the next show guesses anew
    return times


def png_rows(png: bytes) -> tuple[bytes, dict[int, int]]:
    """The inflated image data of ``png`` and how many rows use each PNG filter type."""
    pos, chunks = 8, []
    while pos + 8 <= len(png):
        n = int.from_bytes(png[pos:pos + 4], "big")
        if png[pos + 4:pos + 8] == b"IDAT":
            chunks.append(png[pos + 8:pos + 8 + n])
        pos += 12 + n
    raw = zlib.decompress(b"".join(chunks))
    width, height, channels = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big"), 4 if png[25] == 6 else 3
    stride = 1 + width * channels
    filters: dict[int, int] = {}
    for r in range(height):
        filters[raw[r * stride]] = filters.get(raw[r * stride], 0) + 1
    return b"".join(chunks), filters


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", default="GuiGym-Login-v0", help="the env id profiled (default: %(default)s)")
    ap.add_argument("--level", default="easy", help="its level (default: %(default)s)")
    ap.add_argument("--steps", type=int, default=600, help="oracle steps for the CPU table (resets counted)")
    ap.add_argument("--calls", type=int, default=3, help="rounds of the round-trip table over the views seen")
    args = ap.parse_args(argv)
    args.env = env_and_level(ap, args.env, args.level)
    at_least(ap, 1, steps=args.steps, calls=args.calls)

    env = gym.make(args.env, backend="browser", level=args.level, disable_env_checker=True)
    be = gui_env(env).backend
    assert isinstance(be, BrowserBackend)
    print(f"# {args.env} level={args.level}  python {platform.python_version()}  cpus={os.cpu_count()}  "
          f"load={os.getloadavg()[0]:.2f}")
    pngs: list[bytes] = []
    views: list[Any] = []
    real_decode, real_show = browser_module.decode_png, be.show

    def keep_png(data: bytes, width: int, height: int) -> Any:
        pngs.append(data)
        return real_decode(data, width, height)

    def keep_view(v: Any, lay: Any) -> None:
        views.append((v, lay))
        real_show(v, lay)

    try:
        oracle_run(env, 200, args.level)  # warm-up: the browser started, caches filled
        before, t0 = cpu_by_part(), time.perf_counter()
        secs, n, _ = oracle_run(env, args.steps, args.level)
        wall, after = time.perf_counter() - t0, cpu_by_part()
        print(f"\noracle policy: {n / secs:.1f} steps/s, {1e3 * wall / n:.2f} ms a step (resets counted)\n")
        print("| process or thread | CPU ms per oracle step |\n|---|---:|")
        parts = sorted(((k, after[k] - before.get(k, 0.0)) for k in after), key=lambda kv: -kv[1])
        for k, c in parts:
            if c > 0:
                print(f"| {k} | {1e3 * c / n:.2f} |")
        print(f"| all | {1e3 * sum(c for _, c in parts) / n:.2f} |")

        browser_module.decode_png, be.show = keep_png, keep_view  # type: ignore[method-assign]
        oracle_run(env, 60, args.level)
        browser_module.decode_png, be.show = real_decode, real_show  # type: ignore[method-assign]
        times = round_trips(be, views, args.calls)
        print(f"\n| DevTools call, sent alone ({len(views)} views x {args.calls}) | median ms | mean ms |\n|---|---:|---:|")
        for k, ts in times.items():
            print(f"| {k} | {1e3 * statistics.median(ts):.2f} | {1e3 * statistics.mean(ts):.2f} |")

        png = pngs[-1]
        idat, filters = png_rows(png)
        reps = 200
        t = time.perf_counter()
        for _ in range(reps):
            decode_png(png, be.width, be.height + 1)
        dec = (time.perf_counter() - t) / reps
        t = time.perf_counter()
        for _ in range(reps):
            zlib.decompress(idat)
        inflate = (time.perf_counter() - t) / reps
        t = time.perf_counter()
        for _ in range(reps):
            base64.b64decode(base64.b64encode(png))
        b64 = (time.perf_counter() - t) / reps
        print(f"\nscreenshot: {len(png)} bytes of PNG, row filters {dict(sorted(filters.items()))} (0 none, 1 sub, 2 up, "
              f"3 average, 4 Paeth); decode {1e3 * dec:.2f} ms, of which inflate {1e3 * inflate:.2f} ms; "
              f"base64 encode + decode {1e3 * b64:.2f} ms")
    finally:
        env.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
