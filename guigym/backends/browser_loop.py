"""The thread that talks to Chromium: one asyncio loop per process, on a daemon thread, running
Playwright's async API for every browser backend of the process.

Playwright's sync API refuses to run where an asyncio loop is running (a Jupyter cell, an
``async def``) and binds its objects to the thread that made them. Here the env stays
synchronous and the browser calls run on a loop nobody else owns: a backend submits a
coroutine and waits for its answer (:meth:`Driver.run`, with a deadline), so envs work from
any thread, inside a running loop, and several envs in several threads at once (their calls
interleave on the loop while each caller waits for its own). One Playwright driver (a node
process) serves the whole process; it stops, with its thread, when the last backend using it
closes. A forked child (an ``AsyncVectorEnv`` worker) starts its own. A driver that stops
answering (its node process stopped or stuck) is killed (:meth:`Driver.discard`); the next
:func:`acquire` starts a fresh one.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import inspect
import os
import signal
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from guigym.backends.chromium import NO_PLAYWRIGHT, PlaywrightMissing
from guigym.backends.procfs import cmdline, stat

__all__ = ["Driver", "SyncView", "acquire", "release"]


def require_async_playwright() -> Any:
    """The ``playwright.async_api`` module, or a :class:`~guigym.backends.chromium.PlaywrightMissing`
    (an ImportError) that says how to install it."""
    try:
        import playwright.async_api as api
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise PlaywrightMissing(NO_PLAYWRIGHT) from e
    return api


async def _await(aw: Awaitable[Any]) -> Any:
    return await aw


class Driver:
    """An asyncio loop on a daemon thread with a started ``async_playwright()``."""

    def __init__(self, start_timeout: float = 60.0) -> None:
        api = require_async_playwright()
        self.pid = os.getpid()
        self.users = 0
        self.launches = 0
        self.dead = False  # set when the node driver stopped answering
        self.node_pid: int | None = None  # Playwright's node process (None: not found)
        # held around a launch: the backend tells its browser's artifacts folder by the folders
        # that appeared during the launch, which needs one launch at a time per driver
        self.launch_lock = threading.Lock()
        self.loop = asyncio.new_event_loop()
        self.loop.set_exception_handler(_quiet_driver_exit)
        self.thread = threading.Thread(target=self._serve, name="guigym-playwright", daemon=True)
        self.thread.start()
        before = _node_children()  # acquire() starts one driver at a time
        try:
            self.pw = self.run(api.async_playwright().start(), start_timeout)
        except BaseException:
            self._stop_loop(join=True)
            raise
        new = [p for p in _node_children() if p not in before]
        self.node_pid = new[0] if len(new) == 1 else None

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:  # cancel what is left (a call abandoned at a deadline), then close
            tasks = [t for t in asyncio.all_tasks(self.loop) if not t.done()]
            for t in tasks:
                t.cancel()
            if tasks:
                self.loop.run_until_complete(asyncio.wait(tasks, timeout=1.0))
            self.loop.close()

    @property
    def on_loop(self) -> bool:
        """Whether the calling thread is the loop's own (where blocking would deadlock)."""
        return threading.current_thread() is self.thread

    def run(self, aw: Awaitable[Any], timeout: float) -> Any:
        """Run ``aw`` on the loop and return its result; ``TimeoutError`` after ``timeout``
        seconds (the call is cancelled), or the exception it raised."""
        if self.on_loop:
            raise RuntimeError("a guigym browser call was made from the browser thread itself")
        if self.pid != os.getpid() or not self.thread.is_alive():
            if inspect.iscoroutine(aw):
                aw.close()
            raise RuntimeError("the Playwright driver thread is gone (forked or stopped)")
        fut = asyncio.run_coroutine_threadsafe(aw if inspect.iscoroutine(aw) else _await(aw), self.loop)
        try:
            return fut.result(timeout)
        except concurrent.futures.TimeoutError:
            fut.cancel()
            raise TimeoutError(f"no answer within {timeout:g} s") from None
        except BaseException:  # KeyboardInterrupt while waiting: do not leave the call running
            fut.cancel()
            raise

    def submit(self, aw: Awaitable[Any]) -> None:
        """Run ``aw`` on the loop without waiting (from any thread, the loop's included)."""
        if self.pid == os.getpid() and self.thread.is_alive() and not self.loop.is_closed():
            try:
                self.loop.call_soon_threadsafe(lambda: asyncio.ensure_future(aw))
                return
            except RuntimeError:  # the loop closed meanwhile
                pass
        if inspect.iscoroutine(aw):  # never to run: closed, so Python does not warn "never awaited"
            aw.close()

    def answers(self, timeout: float) -> bool:
        """Whether the node driver answers a request of its own (no browser involved) within
        ``timeout`` seconds; False at once when its process is gone or stopped (SIGSTOP)."""
        if self.on_loop:  # cannot wait for it here: no verdict
            return True
        if self.dead or self.pid != os.getpid() or not self.thread.is_alive():
            return False
        if self.node_pid is not None and (_node_state(self.node_pid) or "X") in "TtZXx":
            return False

        async def ping() -> None:
            ctx = await self.pw.request.new_context()
            await ctx.dispose()

        try:
            self.run(ping(), timeout)
        except Exception:
            return False
        return True

    def discard(self) -> None:
        """Mark the driver dead and kill its node process (a hung driver never answers again;
        the browsers it launched exit with it). New backends get a new driver."""
        self.dead = True
        self._kill_node()

    def _kill_node(self) -> None:
        # only our own child that is still Playwright's driver: never a reused pid
        if self.node_pid is not None and self.pid == os.getpid() and _node_state(self.node_pid) not in (None, "Z", "X"):
            try:
                os.kill(self.node_pid, signal.SIGKILL)
            except OSError:
                pass

    def temp_dir(self) -> str | None:
        """The node driver's temp folder (Node's ``os.tmpdir()``: ``$TMPDIR``, ``$TMP``,
        ``$TEMP`` or ``/tmp``, read from its environment), where Playwright makes each
        browser's profile and artifacts folders; None if unknown."""
        try:
            with open(f"/proc/{self.node_pid}/environ", "rb") as f:
                env = dict(e.partition(b"=")[::2] for e in f.read().split(b"\0") if e)
        except (OSError, TypeError):
            return None
        path = env.get(b"TMPDIR") or env.get(b"TMP") or env.get(b"TEMP") or b"/tmp"
        return os.path.normpath(os.fsdecode(path))

    def stop(self, timeout: float = 5.0) -> None:
        """Stop Playwright (its node process exits) and the loop's thread."""
        if self.pid != os.getpid():  # a forked copy: its thread and node belong to the parent
            return
        if self.on_loop:
            self.stop_soon()
            return
        if self.thread.is_alive():
            try:
                self.run(self.pw.stop(), timeout)
            except Exception:  # dead: nothing left to stop; hung: it would never exit
                self._kill_node()
        self._stop_loop(join=True, timeout=timeout)

    def stop_soon(self) -> None:
        """:meth:`stop` without waiting (finalisers, the loop's own thread)."""

        async def stop() -> None:
            try:
                await asyncio.wait_for(self.pw.stop(), 5.0)
            except Exception:  # as in stop()
                self._kill_node()
            self.loop.stop()

        self.submit(stop())

    def _stop_loop(self, join: bool, timeout: float = 5.0) -> None:
        try:
            self.loop.call_soon_threadsafe(self.loop.stop)
        except RuntimeError:  # already closed
            return
        if join and not self.on_loop:
            self.thread.join(timeout)


#: What Playwright's transport sets on a future of its own, which nothing awaits, when its node
#: process goes away: asyncio logged it ("Future exception was never retrieved", a traceback on
#: stderr) when the dead driver's loop was dropped, after the backend had reported the death.
_DRIVER_GONE = "Connection closed while reading from the driver"


def _quiet_driver_exit(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The driver loop's exception handler: asyncio's default, less the never-retrieved error
    of a node driver that died (the backend reports that itself: ``BrowserCrashed``)."""
    exc = context.get("exception")
    if isinstance(context.get("future"), asyncio.Future) and exc is not None and str(exc) == _DRIVER_GONE:
        return
    loop.default_exception_handler(context)


def _node_state(pid: int) -> str | None:
    """The state letter of ``pid`` (``R``, ``S``, ``T``: stopped, ``Z``, ...) if it is a child
    of this process running Playwright's driver, else None (gone, or another process)."""
    st = stat(pid)
    if st is None or st[1] != os.getpid() or b"run-driver" not in cmdline(pid):
        return None
    return st[0]


def _node_children() -> set[int]:
    """This process's children that run a Playwright driver (``node ... run-driver``)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return set()
    return {int(n) for n in names if n.isdigit() and _node_state(int(n)) is not None}


_LOCK = threading.RLock()  # re-entrant: a finaliser may release while this thread acquires
_CURRENT: Driver | None = None


def _renew_after_fork() -> None:
    """In a forked child: a new lock and no driver. The parent's driver (its thread and node
    process) is not the child's, and a parent thread that was starting one at the fork
    (:func:`acquire` holds the lock for that, up to a second) left the child's copy of the lock
    held forever: the child's first browser env hung in ``reset()``."""
    global _LOCK, _CURRENT
    _LOCK = threading.RLock()
    _CURRENT = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_after_fork)


def acquire() -> Driver:
    """The process's driver (started if needed), counted as used once more."""
    global _CURRENT
    with _LOCK:
        d = _CURRENT
        if d is None or d.pid != os.getpid() or d.dead or not d.thread.is_alive():
            d = _CURRENT = Driver()
        d.users += 1
        return d


def release(d: Driver, wait: bool = True) -> None:
    """One use of ``d`` fewer; the last one stops it (``wait``: until its thread has ended)."""
    global _CURRENT
    with _LOCK:
        d.users -= 1
        if _CURRENT is d and (d.dead or d.users <= 0):  # new backends get a new driver
            _CURRENT = None
        if d.users > 0:
            return
    if wait:
        d.stop()
    else:
        d.stop_soon()


@atexit.register
def _stop_at_exit() -> None:
    """Stop the driver of envs never closed (interpreter exit never waits on it: daemon
    thread, bounded stop)."""
    d = _CURRENT
    if d is not None and d.pid == os.getpid():
        d.stop(timeout=2.0)


class SyncView:
    """A blocking view of an async Playwright object, for tests and debugging
    (``backend.page.evaluate("...")``): every method runs on the driver's loop (Playwright's
    connection is not thread-safe) and coroutine methods return their result; Playwright
    objects come back wrapped; handlers passed in get wrapped objects (their calls, on the
    loop's thread, are scheduled, not awaited)."""

    def __init__(self, obj: Any, driver: Driver, timeout: float) -> None:
        self._obj, self._driver, self._timeout = obj, driver, timeout

    def _wrap(self, value: Any) -> Any:
        if type(value).__module__.startswith("playwright.async_api"):
            return SyncView(value, self._driver, self._timeout)
        return value

    def _unwrap(self, value: Any) -> Any:
        if isinstance(value, SyncView):
            return value._obj
        if callable(value) and not inspect.isclass(value):
            f: Callable[..., Any] = value
            return lambda *a: f(*(self._wrap(x) for x in a))
        return value

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._obj, name)
        if not callable(attr):
            return self._wrap(attr)

        def call(*args: Any, **kwargs: Any) -> Any:
            a, k = [self._unwrap(x) for x in args], {n: self._unwrap(v) for n, v in kwargs.items()}
            if self._driver.on_loop:  # inside a handler: cannot block the loop it runs on
                res = attr(*a, **k)
                if inspect.isawaitable(res):
                    self._driver.submit(res)
                    return None
                return self._wrap(res)

            async def invoke() -> Any:  # on the loop: even "sync" methods (on(), ...) may write to the connection
                res = attr(*a, **k)
                return await res if inspect.isawaitable(res) else res

            return self._wrap(self._driver.run(invoke(), self._timeout))

        return call

    def __repr__(self) -> str:
        return f"SyncView({self._obj!r})"
