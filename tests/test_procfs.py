"""guigym.backends.procfs: what /proc says about a process (the browser backend's process lookups)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from guigym.backends.procfs import alive, cmdline, process_tree, stat

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")


def test_own_process() -> None:
    assert stat(os.getpid()) == ("R", os.getppid())
    assert b"python" in cmdline(os.getpid()).split(b"\0")[0].lower()


def test_child_found_in_tree_then_gone() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "procfs-marker"])
    try:
        assert child.pid in process_tree(os.getpid())
        assert b"procfs-marker" in cmdline(child.pid)
        state, ppid = stat(child.pid)  # type: ignore[misc]
        assert ppid == os.getpid() and state in ("R", "S", "D")
    finally:
        child.kill()
        child.wait()
    assert stat(child.pid) is None and cmdline(child.pid) == b"" and process_tree(child.pid) == []


def test_zombie_left_out_of_tree_unless_asked() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    while (stat(child.pid) or ("Z",))[0] != "Z":  # exited, not yet reaped
        pass
    try:
        assert child.pid not in process_tree(os.getpid())
        assert child.pid in process_tree(os.getpid(), include_zombies=True)
        assert not alive(child.pid)
    finally:
        child.wait()
    assert not alive(child.pid)


def test_a_stopped_process_is_alive() -> None:
    assert alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        child.send_signal(signal.SIGSTOP)
        end = time.monotonic() + 5
        while (stat(child.pid) or ("",))[0] != "T" and time.monotonic() < end:
            time.sleep(0.01)
        assert stat(child.pid)[0] == "T" and alive(child.pid)  # type: ignore[index]
    finally:
        child.kill()
        child.wait()


def test_bad_pids() -> None:
    assert cmdline(None) == b"" and cmdline(-1) == b""
    assert stat(-1) is None and stat("self/../1/nope") is None and not alive(-1)
