"""Wrappers that give stable-baselines3 (and other flat-space libraries) what they accept.

SB3 cannot take a ``Text`` observation nor a nested ``Dict`` action space. So:

* :class:`DiscreteActions`: one ``Discrete`` action over a click grid (cell centres), the four
  scroll directions, Back, OpenApp of each catalogue app, and "type the k-th span of the
  instruction" (quoted strings first, then words: the username and password of a Login
  instruction are spans).
* :class:`NumericObservation`: the screenshot downscaled (uint8, channel-last, what
  ``CnnPolicy`` expects) and the instruction as a hashed bag of words (float32), in a ``Dict``
  for ``MultiInputPolicy``; ``image_only=True`` gives just the image ``Box`` for ``CnnPolicy``.

>>> import gymnasium as gym, guigym
>>> env = NumericObservation(DiscreteActions(gym.make("GuiGym-Login-v0")))
>>> int(env.action_space.n) == 9 * 16 + 4 + 1 + len(APP_NAMES) + 16, sorted(env.observation_space.spaces)
(True, ['image', 'instruction'])
"""

from __future__ import annotations

import re
import zlib
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from PIL import Image

from guigym.actions import DIRECTIONS, Action, Back, Click, OpenApp, Scroll, Type
from guigym.apps.catalog import APP_NAMES

_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"")
_STRIP = "()[]{}:;,.!?'\""


def instruction_spans(text: str, k: int) -> list[str]:
    """Up to ``k`` candidate strings to type: quoted spans first, then whitespace words with
    surrounding punctuation removed (inner dots and ``@`` kept), without repeats.

    >>> instruction_spans("Use the account bob.lee (password: maple12) to sign in.", 6)
    ['Use', 'the', 'account', 'bob.lee', 'password', 'maple12']
    >>> instruction_spans("Open Notes and create a note titled 'Milk and eggs'", 3)
    ['Milk and eggs', 'Open', 'Notes']
    """
    out: list[str] = []
    for m in _QUOTED.finditer(text):
        out.append(m.group(1) or m.group(2))
    for w in _QUOTED.sub(" ", text).split():
        w = w.strip(_STRIP)
        if w:
            out.append(w)
    seen: set[str] = set()
    uniq = [s for s in out if not (s in seen or seen.add(s))]  # type: ignore[func-returns-value]
    return uniq[:k]


class DiscreteActions(gym.ActionWrapper):
    """``Discrete(cols*rows + 4 + 1 + len(APP_NAMES) + type_slots)`` over the env's actions.

    Index layout: click cells (row-major, each at its cell centre), scroll up/down/left/right,
    Back, OpenApp(APP_NAMES[i]), Type(span k of the instruction). A Type slot past the last
    span types nothing useful and becomes the env's documented no-op.
    """

    def __init__(self, env: gym.Env, grid: tuple[int, int] = (9, 16), type_slots: int = 16) -> None:
        super().__init__(env)
        self.cols, self.rows = grid
        self.width, self.height = env.unwrapped.width, env.unwrapped.height
        self.type_slots = type_slots
        self.n_click = self.cols * self.rows
        self.action_space = spaces.Discrete(self.n_click + len(DIRECTIONS) + 1 + len(APP_NAMES) + type_slots)

    def cell_center(self, i: int) -> tuple[int, int]:
        c, r = i % self.cols, i // self.cols
        return int((c + 0.5) * self.width / self.cols), int((r + 0.5) * self.height / self.rows)

    def action(self, a: Any) -> Action:
        i = int(a)
        if not 0 <= i < self.action_space.n:
            raise ValueError(f"action index {i} outside Discrete({self.action_space.n})")
        if i < self.n_click:
            return Click(*self.cell_center(i))
        i -= self.n_click
        if i < len(DIRECTIONS):
            return Scroll(DIRECTIONS[i])
        i -= len(DIRECTIONS)
        if i == 0:
            return Back()
        i -= 1
        if i < len(APP_NAMES):
            return OpenApp(APP_NAMES[i])
        i -= len(APP_NAMES)
        spans = instruction_spans(self.env.unwrapped.instruction, self.type_slots)
        return Type(spans[i] if i < len(spans) else "")

    def index_of(self, action: Action) -> int:
        """The index whose action is closest to ``action`` (for imitation / evaluation)."""
        if isinstance(action, Click):
            c = min(self.cols - 1, max(0, action.x * self.cols // self.width))
            r = min(self.rows - 1, max(0, action.y * self.rows // self.height))
            return r * self.cols + c
        if isinstance(action, Scroll):
            return self.n_click + DIRECTIONS.index(action.direction)
        if isinstance(action, Back):
            return self.n_click + len(DIRECTIONS)
        if isinstance(action, OpenApp):
            return self.n_click + len(DIRECTIONS) + 1 + APP_NAMES.index(action.name)
        spans = instruction_spans(self.env.unwrapped.instruction, self.type_slots)
        k = spans.index(action.text) if action.text in spans else self.type_slots - 1
        return self.n_click + len(DIRECTIONS) + 1 + len(APP_NAMES) + k


def hashed_bag_of_words(text: str, dim: int) -> np.ndarray:
    """A ``dim``-vector counting each lower-cased word's CRC32 bucket, scaled to [0, 1]."""
    v = np.zeros(dim, dtype=np.float32)
    for w in text.lower().split():
        v[zlib.crc32(w.strip(_STRIP).encode()) % dim] += 1.0
    return np.minimum(v, 4.0) / 4.0


class NumericObservation(gym.ObservationWrapper):
    """``Dict(image=uint8 (h, w, 3), instruction=float32 (dim,))`` or, with ``image_only``,
    just the image ``Box``. The image is the screenshot downscaled with a box filter."""

    def __init__(self, env: gym.Env, size: tuple[int, int] = (72, 128), instruction_dim: int = 256, image_only: bool = False) -> None:
        super().__init__(env)
        self.size, self.instruction_dim, self.image_only = size, instruction_dim, image_only
        w, h = size
        image = spaces.Box(0, 255, shape=(h, w, 3), dtype=np.uint8)
        self.observation_space = image if image_only else spaces.Dict({
            "image": image, "instruction": spaces.Box(0.0, 1.0, shape=(instruction_dim,), dtype=np.float32),
        })

    def observation(self, obs: dict[str, Any]) -> Any:
        img = np.asarray(Image.fromarray(obs["screenshot"]).resize(self.size, Image.BOX))
        if self.image_only:
            return img
        return {"image": img, "instruction": hashed_bag_of_words(obs["instruction"], self.instruction_dim)}


def make_sb3_env(env_id: str = "GuiGym-Login-v0", image_only: bool = False, **kwargs: Any) -> gym.Env:
    """``gym.make(env_id, **kwargs)`` wrapped for SB3 (discrete actions, numeric observation)."""
    return NumericObservation(DiscreteActions(gym.make(env_id, **kwargs)), image_only=image_only)
