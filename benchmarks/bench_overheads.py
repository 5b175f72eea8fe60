"""Per-call costs that are not an app's own work, guigym's way next to the library default it
replaces, in one run (µs per call, best of ``--repeats``):

    python benchmarks/bench_overheads.py [--calls 20000] [--repeats 5]

* a random text: Gymnasium's ``Text.sample`` against ``guigym.spaces.UnicodeText.sample`` (the same
  strings from the same draws, ``tests/test_spaces_sample.py``);
* a random action: ``env.action_space.sample()`` with each of the two text samplers;
* a vector env's step message to a worker (the actions of four envs, as ``iterate`` gives them):
  pickled by ``multiprocessing``'s pickler against ``guigym.vector._dumps`` (numpy integer
  scalars as type and value), and read back.
"""

from __future__ import annotations

import argparse
import pickle
import time
from collections.abc import Callable
from multiprocessing.reduction import ForkingPickler
from typing import Any

from _args import at_least  # benchmarks/, the script's folder (on sys.path)
from gymnasium import spaces
from gymnasium.vector.utils import batch_space, iterate

from guigym.spaces import UnicodeText, action_space
from guigym.vector import _dumps


def per_call(fn: Callable[[], Any], calls: int, repeats: int) -> float:
    """The best of ``repeats`` timings, in µs per call."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t) / calls)
    return best * 1e6


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=20000,
                   help="calls per timing (the 4-env messages: a quarter of them, at least one) (default: %(default)s)")
    p.add_argument("--repeats", type=int, default=5, help="timings per row, the best one kept (default: %(default)s)")
    args = p.parse_args(argv)
    at_least(p, 1, calls=args.calls, repeats=args.repeats)  # as every benchmark script
    n, r = args.calls, args.repeats
    quarter = max(1, n // 4)  # --calls 1..3: n // 4 was 0 calls, divided by zero in per_call

    ours, theirs = UnicodeText(64, seed=0), UnicodeText(64, seed=0)
    rows = [("random text (64 chars at most)", per_call(lambda: spaces.Text.sample(theirs), n, r), per_call(ours.sample, n, r))]

    a, b = action_space(360, 640, ("Mail", "Notes")), action_space(360, 640, ("Mail", "Notes"))
    b["text"].sample = (  # type: ignore[method-assign]  # on purpose: Gymnasium's sampler
        lambda mask=None, probability=None: spaces.Text.sample(b["text"]))  # type: ignore[arg-type]  # a Text: Dict's items are typed Space
    a.seed(0)
    b.seed(0)
    rows.append(("random action (Dict space)", per_call(b.sample, n, r), per_call(a.sample, n, r)))

    batch_sp = batch_space(a, 4)
    batch_sp.seed(0)
    message = ("step", list(iterate(batch_sp, batch_sp.sample())))
    default, guigym = ForkingPickler.dumps(message), _dumps(message)
    rows.append(("4-env step message, pickle", per_call(lambda: ForkingPickler.dumps(message), quarter, r),
                 per_call(lambda: _dumps(message), quarter, r)))
    rows.append(("4-env step message, unpickle", per_call(lambda: pickle.loads(default), quarter, r),
                 per_call(lambda: pickle.loads(guigym), quarter, r)))

    print(f"{'µs per call':34} {'library default':>16} {'guigym':>8} {'ratio':>7}")
    for name, base, new in rows:
        print(f"{name:34} {base:16.1f} {new:8.1f} {base / new:6.2f}x")
    print(f"message bytes: {len(default)} with multiprocessing's pickler, {len(guigym)} with guigym's")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
