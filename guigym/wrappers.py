"""Wrappers that give stable-baselines3 (and other flat-space libraries) what they accept.

SB3 cannot take a ``Text`` observation nor a nested ``Dict`` action space. So:

* :class:`DiscreteActions`: one ``Discrete`` action over a click grid (cell centres), the four
  scroll directions, Back, OpenApp of each app the env can open, and "type the k-th span of the
  instruction" (quoted strings first, then words: the username and password of a Login
  instruction are spans).
* :class:`NumericObservation`: the screenshot downscaled (uint8, channel-last, what
  ``CnnPolicy`` expects) and the instruction as a hashed bag of words (float32), in a ``Dict``
  for ``MultiInputPolicy``; ``image_only=True`` gives just the image ``Box`` for ``CnnPolicy``.

>>> import gymnasium as gym, guigym
>>> env = NumericObservation(DiscreteActions(gym.make("GuiGym-Login-v0")))
>>> int(env.action_space.n) == 9 * 16 + 4 + 1 + len(env.unwrapped.apps) + 16, sorted(env.observation_space.spaces)
(True, ['image', 'instruction'])
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Sequence
from typing import Any, SupportsFloat, cast

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from PIL import Image

from guigym.action_text import _short
from guigym.actions import DIRECTIONS, Action, Answer, Back, Click, OpenApp, Scroll, Type, as_int, checked_action
from guigym.env import gui_env

#: a quoted span: single quotes not inside a word (the apostrophe of "Wright's" opens nothing)
_QUOTED = re.compile(r"(?<!\w)'([^']+)'(?!\w)|\"([^\"]+)\"")
_STRIP = "()[]{}:;,.!?'\""


def instruction_spans(text: str, k: int) -> list[str]:
    """Up to ``k`` candidate strings to type: quoted spans first, then whitespace words with
    surrounding punctuation removed (inner dots and ``@`` kept), without repeats.

    >>> instruction_spans("Use the account bob.lee (password: maple12) to sign in.", 6)
    ['Use', 'the', 'account', 'bob.lee', 'password', 'maple12']
    >>> instruction_spans("Open Notes and create a note titled 'Milk and eggs'", 3)
    ['Milk and eggs', 'Open', 'Notes']
    >>> instruction_spans("Read Mallory Wright's address, then add it to a note called 'Packing list'", 2)
    ['Packing list', 'Read']
    """
    if not isinstance(text, str):  # an AttributeError or "expected string" TypeError from inside, before
        raise TypeError(f"instruction_spans reads an instruction (a str), got {type(text).__name__}")
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


def _count(v: Any, what: str, low: int) -> int:
    """``v`` as an ``int`` >= ``low`` (numpy integers accepted), else a ``ValueError`` naming ``what``."""
    try:
        n = as_int(v, what)
    except ValueError:
        raise ValueError(f"{what} must be an integer >= {low}, got {_short(v)}") from None
    if n < low:
        raise ValueError(f"{what} must be an integer >= {low}, got {n}")
    return n


def _pair(v: Any, what: str) -> tuple[int, int]:
    """``v`` as two ints >= 1 (a tuple, list or array of two), else a ``ValueError``."""
    try:
        a, b = v
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be two integers >= 1, got {_short(v)}") from None
    return _count(a, f"{what}[0]", 1), _count(b, f"{what}[1]", 1)


def _flag(v: Any, what: str) -> bool:
    """``v`` as a ``bool`` (a numpy bool accepted), else a ``ValueError``: any truthy value was
    taken as ``True``, so ``open_app="no"`` kept the OpenApp block."""
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError(f"{what} must be True or False, got {_short(v)}")
    return bool(v)


def _penalty(v: Any, what: str) -> float:
    """``v`` as a finite ``float`` >= 0, else a ``ValueError`` (a negative one rewards no-ops)."""
    ok = isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
    try:
        x = float(v) if ok else math.nan
    except OverflowError:  # an int too big for a float
        x = math.inf
    if not (math.isfinite(x) and x >= 0):
        raise ValueError(f"{what} must be a finite number >= 0 (a negative one would reward no-ops), got {_short(v)}")
    return x


class DiscreteActions(gym.ActionWrapper, gym.utils.RecordConstructorArgs):
    """``Discrete(cols*rows + 4 + 1 + len(env.unwrapped.apps) + type_slots)`` over the env's actions.

    Index layout: click cells (row-major, each at its cell centre), scroll up/down/left/right,
    Back, OpenApp(apps[i]) over the env's own apps (so the size depends only on the env id),
    Type(span k of the instruction). A Type slot past the last span does nothing: it is
    ``OpenApp("")``, which opens no app and changes no state (``info["action_error"]`` says
    so), not ``Type("")``, which would empty the focused field.

    ``open_app=False`` drops the OpenApp block (``Discrete(cols*rows + 5 + type_slots)``): for
    tasks that start inside their app (Login and Settings below ``hard``) those actions
    can only do nothing, and a smaller space is much easier to explore. A coarser ``grid``
    (e.g. ``(1, 16)``: one full-width cell per 40-px band, which still hits every list row of
    the default 360x640 viewport) and fewer ``type_slots`` shrink it further.

    Valid settings: ``grid`` two integers ``(cols, rows)``, each >= 1 and at most half the screen's
    width and height in pixels (narrower cells gave two indices one click point, and ``index_of``
    a neighbour's index for a cell's own centre); ``type_slots`` an integer >= 0 (0: no Type
    block); ``open_app`` ``True`` or ``False``. Anything else is a
    ``ValueError`` here, not a wrong index later (``grid=(0, n)`` made ``index_of(Click)`` return -1).
    """

    def __init__(self, env: gym.Env, grid: tuple[int, int] = (9, 16), type_slots: int = 16, open_app: bool = True) -> None:
        cols, rows = _pair(grid, "grid")
        type_slots = _count(type_slots, "type_slots", 0)
        open_app = _flag(open_app, "open_app")
        self._gui = gui_env(env, "DiscreteActions")  # a TypeError now, not an AttributeError at the first step
        w, h = self._gui.width, self._gui.height
        if 2 * cols > w or 2 * rows > h:  # narrower cells: two indices clicked one pixel, or index_of missed its cell
            raise ValueError(f"grid ({cols}, {rows}) is too fine for the {w}x{h} screen: a cell must be at least 2 pixels "
                             f"wide and tall (at most ({w // 2}, {h // 2}))")
        # recorded for env.spec: gym.make(env.spec) (and check_env's close check) rebuilds the wrapper
        gym.utils.RecordConstructorArgs.__init__(self, grid=(cols, rows), type_slots=type_slots, open_app=open_app)
        super().__init__(env)
        self.cols, self.rows = cols, rows
        self.width, self.height = self._gui.width, self._gui.height
        self.type_slots = type_slots
        self.n_click = self.cols * self.rows
        self.apps: tuple[str, ...] = tuple(self._gui.apps) if open_app else ()
        self.action_space = spaces.Discrete(self.n_click + len(DIRECTIONS) + 1 + len(self.apps) + type_slots)

    def cell_center(self, i: int) -> tuple[int, int]:
        c, r = i % self.cols, i // self.cols
        return int((c + 0.5) * self.width / self.cols), int((r + 0.5) * self.height / self.rows)

    def action(self, a: Any) -> Action:
        # as_int, not int(): int() took -0.5 for index 0, True for 1 and "3" for 3, and raised a
        # TypeError on None or a 1-element array; every non-index is now the same ValueError
        i = as_int(a, "action index")
        space = cast(spaces.Discrete, self.action_space)  # set in __init__
        if not 0 <= i < space.n:
            raise ValueError(f"action index {i} outside Discrete({space.n})")
        if i < self.n_click:
            return Click(*self.cell_center(i))
        i -= self.n_click
        if i < len(DIRECTIONS):
            return Scroll(DIRECTIONS[i])
        i -= len(DIRECTIONS)
        if i == 0:
            return Back()
        i -= 1
        if i < len(self.apps):
            return OpenApp(self.apps[i])
        i -= len(self.apps)
        spans = instruction_spans(self._gui.instruction, self.type_slots)
        return Type(spans[i]) if i < len(spans) else OpenApp("")  # a spare slot: a no-op

    def index_of(self, action: Action, box: Sequence[int] | None = None) -> int:
        """The index whose action is closest to ``action`` (for imitation / evaluation): a
        Click's grid cell; a Type must type one of the instruction's spans (a fact read off the
        screen is not one), and an OpenApp name one of the wrapper's apps, else a ``ValueError``.

        ``box``: the Click's target, ``(x0, y0, x1, y1)`` inclusive (a reference step's
        ``RefStep.box``). The cell holding the click point may centre on another widget (a 9x16
        grid's cell centres miss small steppers and dialog buttons, and rows on other viewports
        or with ``variation``): with ``box`` the index is that of the cell whose centre lies in
        the box, the nearest to the click point, and a box that holds no cell centre is a
        ``ValueError`` (the click is not expressible on this grid). Other actions ignore it.

        ``action`` must be a valid action (:func:`~guigym.actions.checked_action`: integer
        coordinates, numpy's too), else a ``ValueError`` (``TypeError`` for a non-action): an
        ``AttributeError``, a float index for a float point, or numpy's overflow, before."""
        action = checked_action(action)
        if isinstance(action, Click):
            if box is not None:
                return self._cell_in(box, action)
            c = min(self.cols - 1, max(0, action.x * self.cols // self.width))
            r = min(self.rows - 1, max(0, action.y * self.rows // self.height))
            return r * self.cols + c
        if isinstance(action, Scroll):
            return self.n_click + DIRECTIONS.index(action.direction)
        if isinstance(action, Back):
            return self.n_click + len(DIRECTIONS)
        if isinstance(action, OpenApp):
            if action.name not in self.apps:
                why = "this wrapper has open_app=False" if not self.apps else f"this env's apps are {list(self.apps)}"
                raise ValueError(f"{action} is not expressible: {why}")
            return self.n_click + len(DIRECTIONS) + 1 + self.apps.index(action.name)
        if isinstance(action, Answer):  # its text is a fact read off the screen, not a span of the instruction
            raise ValueError(f"{action} is not expressible: DiscreteActions has no Answer block")
        if self.type_slots == 0:
            raise ValueError(f"{action} is not expressible: this wrapper has type_slots=0")
        spans = instruction_spans(self._gui.instruction, self.type_slots)
        if action.text not in spans:  # it returned the last Type slot: typing another text, silently
            raise ValueError(f"{action} is not expressible: its text is not one of the instruction's "
                             f"{len(spans)} typeable spans {[_short(t) for t in spans]}")
        return self.n_click + len(DIRECTIONS) + 1 + len(self.apps) + spans.index(action.text)


    def _cell_in(self, box: Sequence[int], click: Click) -> int:
        """The index of the cell whose centre lies in ``box`` (inclusive), nearest to ``click``."""
        try:
            x0, y0, x1, y1 = (as_int(v, "box") for v in box)
        except (TypeError, ValueError):
            raise ValueError(f"box must be four integers (x0, y0, x1, y1), got {_short(box)}") from None
        cols = [c for c in range(self.cols) if x0 <= self.cell_center(c)[0] <= x1]
        rows = [r for r in range(self.rows) if y0 <= self.cell_center(r * self.cols)[1] <= y1]
        if not cols or not rows:
            raise ValueError(f"{click} is not expressible: no centre of the {self.cols}x{self.rows} grid's cells lies in its "
                             f"target box {(x0, y0, x1, y1)}")
        c = min(cols, key=lambda c: abs(self.cell_center(c)[0] - click.x))
        r = min(rows, key=lambda r: abs(self.cell_center(r * self.cols)[1] - click.y))
        return r * self.cols + c


def hashed_bag_of_words(text: str, dim: int) -> np.ndarray:
    """A ``dim``-vector counting each lower-cased word's CRC32 bucket, scaled to [0, 1]. ``text``
    must be a ``str`` (else a ``TypeError``), ``dim`` an integer >= 1 (else a ``ValueError``)."""
    if not isinstance(text, str):
        raise TypeError(f"hashed_bag_of_words reads an instruction (a str), got {type(text).__name__}")
    dim = _count(dim, "dim", 1)
    v = np.zeros(dim, dtype=np.float32)
    for w in text.lower().split():
        v[zlib.crc32(w.strip(_STRIP).encode("utf-8", "surrogatepass")) % dim] += 1.0  # a lone surrogate: no UnicodeEncodeError
    return np.minimum(v, 4.0) / 4.0


class NumericObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """``Dict(image=uint8 (h, w, 3), instruction=float32 (dim,))`` or, with ``image_only``,
    just the image ``Box``. The image is the screenshot downscaled with a box filter.
    ``size`` is two integers ``(width, height)``, each >= 1, ``instruction_dim`` an integer
    >= 1 and ``image_only`` ``True`` or ``False`` (else a ``ValueError``)."""

    def __init__(self, env: gym.Env, size: tuple[int, int] = (72, 128), instruction_dim: int = 256, image_only: bool = False) -> None:
        size = _pair(size, "size")
        instruction_dim = _count(instruction_dim, "instruction_dim", 1)
        image_only = _flag(image_only, "image_only")
        gym.utils.RecordConstructorArgs.__init__(self, size=size, instruction_dim=instruction_dim, image_only=image_only)
        super().__init__(env)
        self.size, self.instruction_dim, self.image_only = size, instruction_dim, image_only
        w, h = size
        image = spaces.Box(0, 255, shape=(h, w, 3), dtype=np.uint8)
        self.observation_space = image if image_only else spaces.Dict({
            "image": image, "instruction": spaces.Box(0.0, 1.0, shape=(instruction_dim,), dtype=np.float32),
        })

    def observation(self, obs: dict[str, Any]) -> Any:
        img = np.asarray(Image.fromarray(obs["screenshot"]).resize(self.size, Image.Resampling.BOX))
        if self.image_only:
            return img
        return {"image": img, "instruction": hashed_bag_of_words(obs["instruction"], self.instruction_dim)}


def _frame(obs: Any) -> np.ndarray:
    """The screen of an observation: NumericObservation's ``image`` (or its bare image), else the
    env's own ``screenshot`` (a wrapper over the raw env, or over ``DiscreteActions`` alone, used
    to fail with ``KeyError: 'image'`` at reset)."""
    if not isinstance(obs, dict):
        return obs
    return obs["image"] if "image" in obs else obs["screenshot"]


class PreviousAction(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Adds ``prev_action``: the last ``k`` ``Discrete`` actions, newest first, each a one-hot
    (float32, all zeros before the episode's first actions) followed by one bit "the screenshot
    changed", flattened to ``k * (n + 1)``. Memoryless agents often get the previous action
    (e.g. IMPALA); here it tells the policy what it just did (which field it clicked, which
    span it typed) and whether that did anything, which a downscaled screenshot shows only
    faintly. Computed from the agent's own actions and observations only. ``k`` is an integer
    >= 1 (else a ``ValueError``)."""

    def __init__(self, env: gym.Env, k: int = 1) -> None:
        k = _count(k, "k", 1)
        gym.utils.RecordConstructorArgs.__init__(self, k=k)
        super().__init__(env)
        if not isinstance(env.observation_space, spaces.Dict) or not isinstance(env.action_space, spaces.Discrete):
            raise TypeError("PreviousAction needs a Dict observation and a Discrete action space")
        self.n, self.k = int(env.action_space.n), k
        self.observation_space = spaces.Dict({**env.observation_space.spaces,
                                              "prev_action": spaces.Box(0.0, 1.0, shape=(k * (self.n + 1),), dtype=np.float32)})
        self._hist = np.zeros((k, self.n + 1), dtype=np.float32)
        self._image: np.ndarray | None = None

    def _add(self, obs: dict[str, Any]) -> dict[str, Any]:
        self._image = _frame(obs)
        return {**obs, "prev_action": self._hist.reshape(-1).copy()}

    def reset(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self._hist[:] = 0.0
        return self._add(obs), info

    def step(self, action: Any) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        obs, r, term, trunc, info = self.env.step(action)
        self._hist[1:] = self._hist[:-1].copy()
        self._hist[0] = 0.0
        self._hist[0, int(action)] = 1.0
        self._hist[0, self.n] = float(self._image is None or not np.array_equal(_frame(obs), self._image))
        return self._add(obs), r, term, trunc, info


class NoEffectPenalty(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Subtracts ``penalty`` from the reward of a step whose (downscaled) screenshot did not
    change: a click on empty space, typing with no focused field or the same text again. A
    policy that repeats such no-ops forever gets nothing from potential-based shaping, so it
    stops exploring; this pushes it towards actions that do something. A step that solves the
    task is never penalised: the right ``Answer`` to a question changes no pixel (it used to cost
    ``penalty``, the solving step of every question task). Solving the task never needs another
    no-op, so the reward's optimal policies are unchanged. ``penalty`` is a finite number >= 0
    (a negative one would reward no-ops: a ``ValueError``)."""

    def __init__(self, env: gym.Env, penalty: float = 0.1) -> None:
        penalty = _penalty(penalty, "penalty")
        gym.utils.RecordConstructorArgs.__init__(self, penalty=penalty)
        super().__init__(env)
        self.penalty = penalty
        self._image: np.ndarray | None = None

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self._image = _frame(obs)
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, r, term, trunc, info = self.env.step(action)
        img = _frame(obs)
        if self._image is not None and not info.get("success") and np.array_equal(img, self._image):
            r = float(r) - self.penalty
        self._image = img
        return obs, r, term, trunc, info


def make_sb3_env(
    env_id: str = "GuiGym-Login-v0", image_only: bool = False, grid: tuple[int, int] = (9, 16), type_slots: int = 16,
    open_app: bool = True, image_size: tuple[int, int] = (72, 128), instruction_dim: int = 256, prev_action: int = 0,
    noop_penalty: float = 0.0, **kwargs: Any,
) -> gym.Env:
    """``gym.make(env_id, **kwargs)`` wrapped for SB3 (discrete actions, numeric observation).

    ``grid``, ``type_slots`` and ``open_app`` go to :class:`DiscreteActions`; ``image_size``
    (width, height), ``instruction_dim`` and ``image_only`` to :class:`NumericObservation`;
    ``prev_action=k > 0`` adds :class:`PreviousAction` with the last ``k`` actions (not with
    ``image_only``); ``noop_penalty > 0`` adds :class:`NoEffectPenalty` (training reward only:
    ``info["success"]`` is unchanged).
    The defaults are the full action space; ``agents.sb3_baseline.PPO_SETTING`` is the
    smaller one PPO learns Login-easy with.

    Valid settings (checked before the env is made; anything else is a ``ValueError``):
    ``grid`` and ``image_size`` two integers >= 1 each, ``type_slots`` an integer >= 0,
    ``instruction_dim`` an integer >= 1, ``prev_action`` an integer >= 0 (0: none; > 0 only
    without ``image_only``), ``noop_penalty`` a finite number >= 0 (0: none), ``open_app`` and
    ``image_only`` ``True`` or ``False``.
    """
    _pair(grid, "grid")
    _count(type_slots, "type_slots", 0)
    _pair(image_size, "image_size")
    _count(instruction_dim, "instruction_dim", 1)
    prev_action = _count(prev_action, "prev_action", 0)
    noop_penalty = _penalty(noop_penalty, "noop_penalty")
    open_app, image_only = _flag(open_app, "open_app"), _flag(image_only, "image_only")
    if prev_action and image_only:
        raise ValueError("prev_action > 0 needs the Dict observation: not with image_only=True")
    env = DiscreteActions(gym.make(env_id, **kwargs), grid=tuple(grid), type_slots=type_slots, open_app=open_app)  # type: ignore[arg-type]
    obs = NumericObservation(env, size=tuple(image_size), instruction_dim=instruction_dim, image_only=image_only)  # type: ignore[arg-type]
    out: gym.Env = NoEffectPenalty(obs, noop_penalty) if noop_penalty else obs
    return PreviousAction(out, k=prev_action) if prev_action else out
