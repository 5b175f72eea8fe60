"""Review of the bad-input hardening (actions, action_text, wrappers) and the browser-loop fixes:
valid inputs behave as before, and the new guards act only on what they name."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
import uuid
import zlib

import numpy as np
import pytest

from guigym.action_text import FORMATS, ActionParseError, format_action, parse_action
from guigym.actions import Click, Scroll, rescale_action, rescale_box
from guigym.wrappers import _STRIP, hashed_bag_of_words


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_scroll_with_a_bool_point_is_written_as_given_and_refused_on_reading(fmt: str) -> None:
    """An invalid action an episode recorded is written as given (``_plain``), which the parsers
    refuse. The swipe of the ``mobile_use`` format made ``int(True)`` of a bool point: it wrote
    ``[1, 0]``, a valid swipe that read back as ``Scroll('down', 1, 0)``."""
    text = format_action(Scroll("down", True, False), fmt)
    assert "true" in text and "false" in text, text
    with pytest.raises(ActionParseError):
        parse_action(text, fmt)
    # numpy integers are still written as plain ints (np.uint64 - 300 overflowed) and read back
    a = Scroll("right", np.uint64(10), np.uint64(20))
    assert parse_action(format_action(a, fmt), fmt) == Scroll("right", 10, 20)


def test_rescale_rounds_valid_points_and_boxes_as_the_plain_formula() -> None:
    """The checks added to ``rescale_action``/``rescale_box`` change no result for a valid point:
    ``round(v * to / from)`` (boxes: floor and ceil) in Python arithmetic, numpy integers included."""
    rng = random.Random(4)
    sizes = [(1080, 2400), (1092, 2436), (640, 480), (3, 7), (1, 1), (1080.0, 2400.0)]
    kinds = [int, np.int64, np.int32, float, np.float64]
    for _ in range(400):
        kind = rng.choice(kinds)
        x, y = (kind(rng.randint(0, 2400) + (rng.choice([0, 0.5, 0.25]) if kind in (float, np.float64) else 0)) for _ in "xy")
        (fw, fh), (tw, th) = rng.choice(sizes), rng.choice(sizes)
        px, py = int(x) if kind not in (float, np.float64) else float(x), int(y) if kind not in (float, np.float64) else float(y)
        want = (round(px * tw / fw), round(py * th / fh))
        got = rescale_action(Click(x, y), (fw, fh), (tw, th))
        assert (got.x, got.y) == want and type(got.x) is int, (kind, x, y, (fw, fh), (tw, th))
        assert rescale_action(Scroll("up", x, y), (fw, fh), (tw, th)) == Scroll("up", *want)
        box = (x, y, x + kind(9), y + kind(5))
        pbox = (px, py, px + 9, py + 5)
        assert rescale_box(box, (fw, fh), (tw, th)) == (
            int(np.floor(pbox[0] * tw / fw)), int(np.floor(pbox[1] * th / fh)),
            int(np.ceil(pbox[2] * tw / fw)), int(np.ceil(pbox[3] * th / fh)))


def test_hashed_bag_of_words_buckets_are_unchanged_for_valid_text() -> None:
    """The ``surrogatepass`` encoding (for a lone surrogate) gives every valid word the bucket of
    its plain UTF-8 bytes, as before: the instruction vectors of trained policies do not move."""
    texts = ["Open Notes and create a note titled 'Milk and eggs'", "Schreib „Grüße“ an Zoë — ok?",
             "发送消息给 王小明 🙂", "café CAFÉ Ⅻ ﬁle ǅ", "  tabs\tand\nnew lines  "]
    for text in texts:
        for dim in (1, 7, 64, 256):
            want = np.zeros(dim, np.float32)
            for w in text.lower().split():
                want[zlib.crc32(w.strip(_STRIP).encode()) % dim] += 1
            np.testing.assert_array_equal(hashed_bag_of_words(text, dim), np.minimum(want, 4) / 4)


def test_the_driver_loop_drops_only_the_dead_driver_error() -> None:
    """The driver loop's exception handler keeps asyncio's report of every error but the one
    Playwright's transport leaves when its node process goes away."""
    from guigym.backends.browser_loop import _DRIVER_GONE, _quiet_driver_exit

    loop = asyncio.new_event_loop()
    try:
        seen: list[dict] = []
        loop.default_exception_handler = seen.append  # type: ignore[method-assign]
        loop.set_exception_handler(_quiet_driver_exit)
        fut = loop.create_future()
        loop.call_exception_handler({"message": "Future exception was never retrieved", "future": fut,
                                     "exception": Exception(_DRIVER_GONE)})
        assert seen == []
        others = [{"message": "Future exception was never retrieved", "future": fut, "exception": Exception("boom")},
                  {"message": "Future exception was never retrieved", "future": fut, "exception": Exception(_DRIVER_GONE + "!")},
                  {"message": "Exception in callback", "exception": Exception(_DRIVER_GONE)},  # no future: not that one
                  {"message": "no exception at all"}]
        for ctx in others:
            loop.call_exception_handler(ctx)
        assert seen == others
    finally:
        loop.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_marked_trees_are_those_of_one_launch_only() -> None:
    """``_marked_trees`` (killed after a launch that gave up) holds the processes of that launch's
    marker and their descendants, never another launch's (the marker is unique per launch)."""
    from guigym.backends.browser import _marked_trees

    mine, other = (f"--guigym-instance={os.getpid()}-{uuid.uuid4().hex}" for _ in range(2))
    spawn = "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    procs = [subprocess.Popen([sys.executable, "-c", spawn, m]) for m in (mine, other)]
    try:
        end = time.monotonic() + 20
        while True:  # until each marked process has started its child
            trees = [_marked_trees(m.encode(), os.getpid()) for m in (mine, other)]
            if all(len(t) == 2 for t in trees) or time.monotonic() > end:
                break
            time.sleep(0.05)
        assert [len(t) for t in trees] == [2, 2], trees
        assert procs[0].pid in trees[0] and procs[1].pid in trees[1]
        assert not set(trees[0]) & set(trees[1])
        assert os.getpid() not in trees[0] + trees[1]
    finally:
        for t in trees:
            for pid in t:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        for p in procs:
            p.wait(10)
