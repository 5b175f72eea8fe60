"""Registers every environment from one table on ``import guigym``."""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium as gym


@dataclass(frozen=True)
class EnvEntry:
    id: str
    family: str
    max_episode_steps: int
    summary: str


#: The registry: one row per environment id (levels are the ``level`` kwarg).
ENVS: tuple[EnvEntry, ...] = (
    EnvEntry("GuiGym-Login-v0", "Login", 40, "sign in: fields, remember-me, verification code, lock-out"),
    EnvEntry("GuiGym-Settings-v0", "Settings", 60, "toggles and choices on nested screens and long lists (Scroll, Back)"),
    EnvEntry("GuiGym-Launcher-v0", "Launcher", 60, "a phone home screen; tasks across Notes, Clock, Contacts (OpenApp, Back)"),
)


def register_envs() -> None:
    from guigym.apps import FAMILIES

    for e in ENVS:
        if e.family in FAMILIES and e.id not in gym.registry:
            gym.register(id=e.id, entry_point="guigym.env:GuiEnv", kwargs={"family": e.family}, max_episode_steps=e.max_episode_steps)


def env_ids() -> list[str]:
    """Registered guigym ids (families that exist)."""
    from guigym.apps import FAMILIES

    return [e.id for e in ENVS if e.family in FAMILIES]
