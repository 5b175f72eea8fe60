"""guigym: a Gymnasium suite of procedurally generated GUI apps for training GUI agents.

>>> import gymnasium as gym, guigym
>>> env = gym.make("GuiGym-Login-v0")
"""

from __future__ import annotations

from guigym.actions import Back, Click, OpenApp, RefStep, Scroll, Type
from guigym.env import GuiEnv, gui_env
from guigym.registration import ENVS, env_ids, register_envs

__version__ = "0.1.0"
__all__ = ["GuiEnv", "gui_env", "Click", "Scroll", "Back", "OpenApp", "Type", "RefStep", "ENVS", "env_ids", "register_envs"]

register_envs()
