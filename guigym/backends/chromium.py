"""Finding and launching a Chromium for the browser backend.

Order: ``$GUIGYM_CHROMIUM`` if set (an executable's path, or a name looked up on $PATH), used
alone: one that does not work is a :class:`ChromiumNotFound` that says so first, to fix or unset
it, and which Chromium would be used without it. Unset: Playwright's own Chromium (``playwright
install chromium``), else the system's ``chromium``; if none works, :class:`ChromiumNotFound`
says how to install one.

    python -m guigym.backends.chromium     # which Chromium would be used (exit 1: none)
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

ENV_VAR = "GUIGYM_CHROMIUM"
#: Executable names tried on $PATH for a system Chromium.
SYSTEM_NAMES = ("chromium", "chromium-browser")
#: Flags for a headless Chromium as root without a display (CI, containers, workers).
LAUNCH_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-breakpad",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,InterestFeedContentSuggestions,SpareRendererForSitePerProcess",
    "--mute-audio",
    "--hide-scrollbars",
    "--font-render-hinting=none",
    # network, below Playwright's route guard (which never sees WebSocket handshakes): resolve no
    # host but loopback (IP literals included), and send everything else to a proxy that does
    # not exist, so a connection that leaves loopback fails even if the resolver rules are
    # overridden (the bypass list is exactly the route guard's loopback hosts)
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
    "--proxy-server=http://no-network.invalid:9",
    "--proxy-bypass-list=<-loopback>;localhost;127.0.0.1;[::1]",
)

INSTALL_HELP = (
    "Install one of:\n"
    "  * Playwright's Chromium:  pip install playwright && playwright install chromium\n"
    "  * the system's Chromium:  e.g. sudo apt-get install chromium  (found as `chromium` on $PATH)\n"
    f"or point ${ENV_VAR} at a Chromium/Chrome executable."
)


class ChromiumNotFound(RuntimeError):
    """No usable Chromium (the message says how to install one)."""


NO_PLAYWRIGHT = ("the browser backend needs Playwright: pip install 'guigym[browser]' (or pip install playwright), "
                 "then `playwright install chromium` (or install your system's chromium)")


class PlaywrightMissing(ImportError):
    """The browser backend was asked for on an install without Playwright (the message says
    how to install it; ``guigym``'s commands print it instead of a traceback)."""


def require_playwright() -> Any:
    """The ``playwright.sync_api`` module, or a :class:`PlaywrightMissing` (an ImportError) that
    says how to install it."""
    try:
        import playwright.sync_api as api
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise PlaywrightMissing(NO_PLAYWRIGHT) from e
    return api


#: Real binaries behind distribution launcher scripts (Debian's /usr/bin/chromium sources
#: /etc/chromium.d/*, which adds flags and prints shell warnings on some machines).
_LAUNCHER_TARGETS = ("/usr/lib/chromium/chromium", "/usr/lib/chromium-browser/chromium-browser")


def system_chromium() -> str | None:
    """A Chromium on $PATH (the binary itself when $PATH has a launcher script), or None."""
    for name in SYSTEM_NAMES:
        path = shutil.which(name)
        if path:
            try:
                with open(path, "rb") as f:
                    script = f.read(2) == b"#!"
            except OSError:
                script = False
            if script:
                for target in _LAUNCHER_TARGETS:
                    if os.path.isfile(target) and os.access(target, os.X_OK):
                        return target
            return path
    return None


def _given(path: str) -> str:
    """An executable given by the user (the ``executable`` argument, ``$GUIGYM_CHROMIUM``): a
    bare name (``chromium``, ``google-chrome``) is looked up on $PATH, as a shell would (it was
    taken as a file in the current folder: "not an executable file" for a command that works
    in the shell), and a leading ``~`` is the home folder (quoted in a shell, it stays literal)."""
    path = os.path.expanduser(path)
    if os.sep not in path and (os.altsep is None or os.altsep not in path):
        return shutil.which(path) or path
    return path


def executable_problem(path: str) -> str | None:
    """Why ``path`` cannot be launched as Chromium, in words (None: it can be tried).

    >>> executable_problem("/no/such/chrome")
    'does not exist'
    >>> executable_problem("/")
    'is a folder, not an executable file'
    """
    if not os.path.exists(path):
        return "does not exist"
    if os.path.isdir(path):
        return "is a folder, not an executable file"
    if not os.path.isfile(path):
        return "is not a regular file"
    if not os.access(path, os.X_OK):
        return "is not executable (chmod +x)"
    return None


def _chosen(executable: str | None) -> tuple[str, str] | None:
    """The Chromium the user chose, as ``(how, value as given)``: the ``executable`` argument or
    ``$GUIGYM_CHROMIUM``; None when the search is automatic."""
    if executable:
        return "executable", str(executable)
    env = os.environ.get(ENV_VAR, "").strip()
    return (ENV_VAR, env) if env else None


def candidates(executable: str | None = None) -> list[tuple[str, str | None]]:
    """``(source, executable_path)`` to try in order; ``None`` as path: Playwright's own build."""
    chosen = _chosen(executable)
    if chosen is not None:  # used alone
        how, value = chosen
        return [("executable argument" if how == "executable" else f"${ENV_VAR}", _given(value))]
    out: list[tuple[str, str | None]] = [("Playwright's Chromium", None)]
    sys_path = system_chromium()
    if sys_path:
        out.append(("system chromium", sys_path))
    return out


def _playwright_paths(pw: Any) -> tuple[Path, Path | None, Path | None] | None:
    """Playwright's own Chromium: its executable, its build folder (``chromium-<n>``) and the
    headless shell installed next to that build (headless launches use it), each ``None`` where
    the executable's path names no build; ``None`` when ``pw`` names no executable (not a
    Playwright object, or no build known for this platform)."""
    try:
        exe = Path(pw.chromium.executable_path)
    except Exception:
        return None
    build = next((p for p in exe.parents if p.name.startswith("chromium-")), None)
    shell = build.with_name("chromium_headless_shell-" + build.name.partition("-")[2]) if build is not None else None
    return exe, build, shell


def playwright_build_missing(pw: Any) -> str | None:
    """Where Playwright's own Chromium should be if none of it is installed, else None (also
    when unsure: then launching decides). A launch of a missing build fails only after
    Playwright has made a profile and an artifacts folder in the temp dir, which it never
    removes: each browser start on a machine with only a system Chromium would leave two."""
    paths = _playwright_paths(pw)
    if paths is None:
        return None
    exe, build, shell = paths
    if build is None or shell is None or exe.exists():
        return None
    return None if shell.exists() else str(build)


def playwright_build(pw: Any) -> str | None:
    """Playwright's own Chromium (the executable, or the headless shell installed next to its
    build) when it is installed, else None (also when unsure: ``pw`` is not a Playwright)."""
    paths = _playwright_paths(pw)
    if paths is None:
        return None
    exe, _, shell = paths
    if exe.exists():
        return str(exe)
    return str(shell) if shell is not None and shell.exists() else None


def _without_choice(pw: Any) -> list[str]:
    """The Chromiums the automatic search would find (not launched), in its order."""
    found = []
    if (own := playwright_build(pw)) is not None:
        found.append(f"Playwright's Chromium ({own!r})")
    if (sys_path := system_chromium()) is not None:
        found.append(f"the system chromium ({sys_path!r})")
    return found


def _attempts(executable: str | None, pw: Any = None) -> tuple[list[tuple[str, str | None]], list[str]]:
    """The candidates worth launching, and the errors of those that are not."""
    errors: list[str] = []
    ok = []
    todo = candidates(executable)
    for source, path in todo:
        if path is not None and (problem := executable_problem(path)):
            errors.append(f"{source}: {path!r} {problem}")
        elif path is None and pw is not None and (missing := playwright_build_missing(pw)):
            errors.append(f"{source}: not installed ({missing!r} not found)")
        else:
            ok.append((source, path))
    if todo and todo[0][0] == "Playwright's Chromium" and len(todo) == 1:
        # the automatic search found no system Chromium either: say so, or the message named
        # only Playwright's build and left the reader to wonder whether $PATH was searched
        errors.append(f"system chromium: none of {', '.join(SYSTEM_NAMES)} on $PATH")
    return ok, errors


def _launch_kwargs(path: str | None, args: tuple[str, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    return dict(executable_path=path, headless=True, args=[*LAUNCH_ARGS, *args],
                handle_sigint=False, handle_sigterm=False, handle_sighup=False, **kwargs)


def _failure(source: str, path: str | None, e: Exception) -> str:
    first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return f"{source}{' ' + repr(path) if path else ''}: {first}"


def _not_found(errors: list[str], executable: str | None = None, pw: Any = None) -> ChromiumNotFound:
    """The error when nothing launched. A Chromium the user chose (``executable``,
    ``$GUIGYM_CHROMIUM``) is used alone: the message says first that it does not work and to fix
    or unset it, and which Chromium guigym would use without it (before: "no usable Chromium" and
    how to install one, with a system Chromium installed and never tried)."""
    tried = "Tried:\n  " + "\n  ".join(errors) + "\n"
    chosen = _chosen(executable)
    if chosen is None:
        return ChromiumNotFound("no usable Chromium for guigym's browser backend.\n" + tried + INSTALL_HELP)
    how, value = chosen
    path = _given(value)
    problem = executable_problem(path)
    if problem == "does not exist" and path == value and os.sep not in value:
        problem = "is not on $PATH"  # a bare name, looked up there (_given)
    shown = value if path == value else f"{value} ({path})"
    what, fix = ((f"{ENV_VAR}={shown}", f"fix {ENV_VAR} or unset it") if how == ENV_VAR
                 else (f"executable {shown!r}", "fix it or leave it out"))
    lead = f"{what} {problem or 'failed to launch'}: {fix}."
    env = os.environ.get(ENV_VAR, "").strip()
    found = [f"${ENV_VAR} ({env!r})"] if how != ENV_VAR and env else _without_choice(pw)
    if found:
        instead = f"Without it, guigym would use {found[0]}" + "".join(f", else {f}" for f in found[1:]) + "."
    else:
        instead = "Without it, guigym would find no Chromium either. " + INSTALL_HELP
    return ChromiumNotFound(lead + "\n" + tried + instead)


def launch(pw: Any, executable: str | None = None, args: tuple[str, ...] = (), **kwargs: Any) -> tuple[Any, str, str | None]:
    """Launch a headless Chromium with Playwright ``pw`` (a started ``sync_playwright()``).

    Returns ``(browser, source, executable_path)``. An explicit ``executable`` or
    ``$GUIGYM_CHROMIUM`` is used alone (an error if it fails); otherwise Playwright's own
    build, then the system ``chromium``. Raises :class:`ChromiumNotFound` when none works.
    """
    todo, errors = _attempts(executable, pw)
    for source, path in todo:
        try:
            browser = pw.chromium.launch(**_launch_kwargs(path, args, kwargs))
        except Exception as e:  # playwright.Error: missing executable, crash on start, ...
            errors.append(_failure(source, path, e))
            continue
        return browser, source, path
    raise _not_found(errors, executable, pw)


async def launch_async(pw: Any, executable: str | None = None, args: tuple[str, ...] = (), **kwargs: Any) -> tuple[Any, str, str | None]:
    """:func:`launch` for a started ``async_playwright()`` (what the browser backend uses)."""
    todo, errors = _attempts(executable, pw)
    for source, path in todo:
        try:
            browser = await pw.chromium.launch(**_launch_kwargs(path, args, kwargs))
        except Exception as e:  # as in launch()
            errors.append(_failure(source, path, e))
            continue
        return browser, source, path
    raise _not_found(errors, executable, pw)


def main(argv: list[str] | None = None) -> int:
    """The command line; ``argv`` None: no arguments (not ``sys.argv``, a caller's own)."""
    argparse.ArgumentParser(
        prog="python -m guigym.backends.chromium",
        description="Find the Chromium that guigym's browser backend would use, launch it once headless and say which "
                    "it is (exit status 0), or why none works and how to get one (exit status 1).",
        epilog=f"${ENV_VAR}, when set, is used alone (a path, or a name looked up on $PATH); unset, Playwright's own "
               "Chromium (`playwright install chromium`), then the system's chromium.",
    ).parse_args([] if argv is None else argv)
    try:
        api = require_playwright()
    except ImportError as e:  # the base install: say which extra to add, not a traceback
        print(e, file=sys.stderr)
        return 1
    with api.sync_playwright() as pw:
        try:
            browser, source, path = launch(pw)
        except ChromiumNotFound as e:
            print(e, file=sys.stderr)
            return 1
        print(f"{source}: {path or pw.chromium.executable_path} (Chromium {browser.version})")
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
