"""guigym.backends.procfs: what /proc says about a process (the browser backend's process lookups)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from guigym.backends.procfs import alive, cmdline, cpu_seconds, process_tree, stat

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
    assert cpu_seconds(-1) is None and cpu_seconds(os.getpid(), -1) is None


def test_cpu_seconds_of_a_process_and_of_one_thread() -> None:
    """CPU time agrees with the kernel's count for the process (``os.times``) and grows with work;
    a thread's own count holds only what that thread did."""
    before, idle_tid = cpu_seconds(os.getpid()), None
    ready, done = threading.Event(), threading.Event()

    def idle() -> None:
        nonlocal idle_tid
        idle_tid = threading.get_native_id()
        ready.set()
        done.wait()

    t = threading.Thread(target=idle)
    t.start()
    ready.wait()
    try:
        end = time.process_time() + 0.3
        while time.process_time() < end:  # busy on this thread only
            pass
        after = cpu_seconds(os.getpid())
        assert before is not None and after is not None and after - before >= 0.25
        own = os.times()
        assert abs(after - (own.user + own.system)) < 0.05  # clock ticks: 10 ms each
        mine = cpu_seconds(os.getpid(), threading.get_native_id())
        assert mine is not None and mine >= 0.25
        assert cpu_seconds(os.getpid(), idle_tid) is not None and cpu_seconds(os.getpid(), idle_tid) < 0.05
    finally:
        done.set()
        t.join()
