"""Usage errors of the command-line scripts (``train_small.py`` and the benchmarks that parse
their flags with tyro): a bad value found after the parse is reported as tyro and argparse
report their own — the message on stderr and exit status 2 — before any work starts.

``SystemExit(message)`` would exit 1, so a caller could not tell a bad flag from a failed run.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn, Optional


class UsageError(SystemExit):
    """Bad flags: ``message`` printed on stderr, exit status 2. ``str()`` is the message (tests
    and callers that catch it read it there)."""

    def __init__(self, message: str) -> None:
        print(message, file=sys.stderr)
        super().__init__(2)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose :meth:`error` (``usage: ...`` then ``prog: error: ...``, exit
    status 2, as argparse's) raises :class:`UsageError`, so the message is also its ``str()``.
    Scripts use it for the checks that follow tyro's parse (``p.error(...)``)."""

    def exit(self, status: int = 0, message: Optional[str] = None) -> NoReturn:
        if status != 2:  # --help and the like: argparse's own exit
            super().exit(status, message)
        raise UsageError((message or "").strip())
