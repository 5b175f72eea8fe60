"""glibc's malloc thresholds in processes that step guigym envs.

A screenshot is a 675 KB array (360 x 640 x 3), and a step makes one or two (the frame drawn, the
observation's copy) and frees as many. glibc serves blocks that size from its heap only once its
dynamic mmap threshold has grown past them, and from then on gives the top of the heap back to
the system whenever more than twice such a block lies free there. Frames freed in a bad order
make a process shrink and regrow its heap again and again, and each regrowth page-faults the
next frame in: on Login easy under the oracle's policy, ~45-60 page faults and ~0.1 ms of kernel
time a step, a third of the step (``python benchmarks/bench_malloc.py`` compares the two).

:func:`tune` sets both thresholds at once to the largest values glibc's own dynamic scheme
would reach (an mmap threshold of 32 MiB, its ``DEFAULT_MMAP_THRESHOLD_MAX`` on 64-bit, and
twice that as the trim threshold): blocks under 32 MiB come from the heap, and up to 64 MiB
free at its top stays with the process instead of going back and being faulted in again. Every
:class:`~guigym.env.GuiEnv` calls it once per process (vector workers and Ray actors included).

It does nothing where the C library is not glibc, when ``GUIGYM_MALLOC_TUNING=0``, or when the
process was started with its own malloc settings (``MALLOC_MMAP_THRESHOLD_``,
``MALLOC_TRIM_THRESHOLD_``, ``MALLOC_TOP_PAD_``, ``MALLOC_MMAP_MAX_``, or malloc tunables in
``GLIBC_TUNABLES``): those are the user's to choose.
"""

from __future__ import annotations

import os

#: glibc's ``mallopt`` parameters (malloc.h).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
#: The values :func:`tune` sets: glibc's dynamic mmap threshold stops at 32 MiB on 64-bit
#: (``DEFAULT_MMAP_THRESHOLD_MAX``) and keeps the trim threshold at twice the mmap threshold.
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD
#: Environment variables that mean the user set malloc's behaviour themselves.
USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")

#: What the first :func:`tune` of this process did: None before it, then "tuned" or why not.
outcome: str | None = None


def tune() -> str:
    """Set glibc's mmap and trim thresholds (see the module docstring), once per process;
    returns what was done: ``"tuned"``, or why nothing was (``"off"``: ``GUIGYM_MALLOC_TUNING=0``,
    ``"user settings"``, ``"not glibc"``, ``"mallopt failed"``). A forked child inherits the
    settings with the memory, and the answer."""
    global outcome
    if outcome is None:
        outcome = _tune()
    return outcome


def _tune() -> str:
    if os.environ.get("GUIGYM_MALLOC_TUNING", "1").strip().lower() in ("0", "false", "no", "off"):
        return "off"
    if any(k in os.environ for k in USER_SETTINGS) or "glibc.malloc." in os.environ.get("GLIBC_TUNABLES", ""):
        return "user settings"
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return "not glibc"
    except (AttributeError, ValueError, OSError):  # no confstr (Windows) or no such name (musl, macOS)
        return "not glibc"
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return "not glibc"
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    # the mmap threshold first: setting either ends glibc's dynamic adjustment of both
    if mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) != 1 or mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) != 1:
        return "mallopt failed"
    return "tuned"
