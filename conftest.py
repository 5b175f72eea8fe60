"""Root pytest set-up: doctests of every module under ``guigym/`` and ``agents/`` run with
the tests (``--doctest-modules`` in pyproject.toml).

Collecting a module's doctests imports it. Modules that import an optional dependency at
the top are listed here with the extra that provides it; without that dependency they are
left out of collection by name (``collect_ignore``) instead of failing it. ``make test``
installs every extra, so CI runs them all. Importing any of these modules only registers
things (guigym's envs, gymnasium space handlers) or sets headless SDL defaults: no windows,
files or network.
"""

from __future__ import annotations

import importlib.util
import os

# Doctests may build envs (pygame); keep SDL headless as tests/conftest.py does.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

#: module file → (top-level import it needs, the extra that installs it)
OPTIONAL_IMPORTS: dict[str, tuple[str, str]] = {
    "agents/grpo.py": ("torch", "rl"),
    "agents/tiny_policy.py": ("torch", "rl"),
    "agents/vlm_policy.py": ("torch", "vlm"),
    "guigym/distributed.py": ("ray", "ray"),
    "guigym/testing/properties.py": ("hypothesis", "test"),
    "guigym/testing/strategies.py": ("hypothesis", "test"),
}


def _missing(module: str) -> bool:
    return importlib.util.find_spec(module) is None


collect_ignore = [path for path, (module, _) in OPTIONAL_IMPORTS.items() if _missing(module)]
