"""Shared test set-up: headless SDL, and the registry-derived parameter lists."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import gymnasium as gym  # noqa: E402
import pytest  # noqa: E402

import guigym  # noqa: E402
from guigym.registration import env_ids, id_levels  # noqa: E402

#: (env id, level) for every registered id and every level of its family; an id whose family
#: is unknown raises here instead of silently leaving the matrix.
ID_LEVELS = id_levels()
IDS = env_ids()


def load_example(name: str):
    """Import ``examples/<name>.py`` as module ``name`` (the examples are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses resolve string annotations through sys.modules
    spec.loader.exec_module(mod)
    return mod


def make(env_id: str, **kw):
    """The raw env (no wrappers: tests drive references past nothing)."""
    return gym.make(env_id, disable_env_checker=True, **kw)


@pytest.fixture
def login_env():
    env = make("GuiGym-Login-v0")
    yield env
    env.close()
