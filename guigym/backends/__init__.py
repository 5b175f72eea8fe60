"""Backends draw app states and turn pointer/keyboard input into semantic events.

* ``mock`` (:mod:`guigym.backends.mock`): pygame, in-process, thousands of steps/s.
* ``browser`` (:mod:`guigym.backends.browser`): real HTML in headless Chromium (Playwright).
"""

from __future__ import annotations

from typing import Any

from guigym.backends.base import Backend

BACKENDS = ("mock", "browser")


def make_backend(name: str, width: int, height: int, **kwargs: Any) -> Backend:
    if name == "mock":
        from guigym.backends.mock import MockBackend

        return MockBackend(width, height, **kwargs)
    if name == "browser":
        from guigym.backends.browser import BrowserBackend

        return BrowserBackend(width, height, **kwargs)
    raise ValueError(f"unknown backend {name!r}; expected one of {BACKENDS}")
