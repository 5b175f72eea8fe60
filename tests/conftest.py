"""Shared test set-up: headless SDL, and the registry-derived parameter lists."""

from __future__ import annotations

import os

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


def make(env_id: str, **kw):
    """The raw env (no wrappers: tests drive references past nothing)."""
    return gym.make(env_id, disable_env_checker=True, **kw)


@pytest.fixture
def login_env():
    env = make("GuiGym-Login-v0")
    yield env
    env.close()
