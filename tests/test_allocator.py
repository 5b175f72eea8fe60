"""guigym.allocator: glibc's malloc thresholds, set once per process that makes an env, unless the
user opted out or set malloc up themselves. Each case runs in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from guigym import allocator

GLIBC = (getattr(os, "confstr", lambda _: None)("CS_GNU_LIBC_VERSION") or "").startswith("glibc")

#: Makes a Login env, warms it up (the caches grow the heap), then counts the page faults of
#: 1,500 oracle steps; prints the allocator's outcome and the faults per step.
PROBE = """
import json, os, resource
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
import gymnasium as gym
import guigym
from guigym import allocator
from guigym.bench import oracle_policy
env = gym.make("GuiGym-Login-v0").unwrapped
oracle_policy(env, 4000, "easy")
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
oracle_policy(env, 1500, "easy")
faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 1500
print(json.dumps({"outcome": allocator.outcome, "faults": faults}))
"""


def probe(**env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in (*allocator.USER_SETTINGS, "GUIGYM_MALLOC_TUNING", "GLIBC_TUNABLES")}
    out = subprocess.run([sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_tune_once_per_process_with_a_reason() -> None:
    first = allocator.tune()
    assert first in ("tuned", "off", "user settings", "not glibc", "mallopt failed")
    assert allocator.tune() == first == allocator.outcome


@pytest.mark.skipif(not GLIBC, reason="the thresholds are glibc's")
def test_an_env_tunes_its_process_and_frames_stop_faulting() -> None:
    got = probe()
    assert got["outcome"] == "tuned"
    assert got["faults"] < 2, got  # untuned, glibc shrinks and regrows the heap: ~40-60 faults a step here


@pytest.mark.skipif(not GLIBC, reason="the thresholds are glibc's")
def test_opt_out_and_the_users_own_settings_are_left_alone() -> None:
    assert probe(GUIGYM_MALLOC_TUNING="0")["outcome"] == "off"
    # a trim threshold of the user's own turns glibc's dynamic mmap threshold off: every frame is
    # then mmapped and faulted in afresh, which tuning over it would have stopped
    got = probe(MALLOC_TRIM_THRESHOLD_="1048576")
    assert got["outcome"] == "user settings"
    assert got["faults"] > 100, got
