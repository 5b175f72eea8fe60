"""Gymnasium spaces for GUI observations and actions."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from guigym.actions import ACTION_TYPES, DIRECTIONS, Action, Answer, Back, Click, OpenApp, Scroll, Type, as_int
from guigym.apps.base import KINDS

#: Characters ``sample()`` draws text from (``contains`` accepts any Unicode).
SAMPLE_CHARSET = string.ascii_letters + string.digits + " .,'@-_!?éüß中"


class UnicodeText(spaces.Text):
    """A ``Text`` space that contains any Unicode string of the allowed length.

    Gymnasium's ``Text`` rejects characters outside its charset (alphanumeric by default),
    which would reject instructions like "Log in as alice.smith@example.com".
    """

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Any = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"


def action_space(width: int, height: int, apps: Sequence[str], answer: bool = False) -> spaces.Dict:
    """``Dict(type, x, y, direction, app, text)``; ``type`` indexes ``ACTION_TYPES``
    (click, scroll, back, open_app, type, and with ``answer=True`` answer: only families whose
    tasks ask questions have it, so the spaces of the others are unchanged) and only the
    fields of that type are used (``text`` by Type and Answer).
    ``app`` indexes ``apps``: the apps the env can open (its family's, never a global list,
    so one env's space does not change when another family adds apps).

    >>> action_space(360, 640, ("Settings",))["app"]
    Discrete(1)
    """
    if not apps:
        raise ValueError("action_space needs at least one app name (OpenApp's choices)")
    return spaces.Dict({
        "type": spaces.Discrete(len(ACTION_TYPES) if answer else ACTION_TYPES.index("answer")),
        "x": spaces.Discrete(width),
        "y": spaces.Discrete(height),
        "direction": spaces.Discrete(len(DIRECTIONS)),
        "app": spaces.Discrete(len(apps)),
        "text": UnicodeText(64),
    })


def _index(a: dict[str, Any], key: str, n: int) -> int:
    """Field ``key`` of a Dict action as an index into ``n`` choices (no silent wrap-around)."""
    v = as_int(a[key], key)
    if not 0 <= v < n:
        raise ValueError(f"{key}={v} is outside Discrete({n})")
    return v


def action_from_space(a: dict[str, Any], apps: Sequence[str], answer: bool = False) -> Action:
    """The :class:`Action` a sample of :func:`action_space` (made with the same ``apps`` and
    ``answer``) stands for.

    Only the fields of the chosen type are read. Indices (``type``, ``direction``, ``app``) must
    be integers inside their ``Discrete`` (a negative index is an error, not Python's wrap-around),
    ``x``/``y`` integers (:func:`~guigym.actions.as_int`; off-screen points are the backend's
    error), ``text`` a ``str``. Anything else raises ``ValueError`` or ``KeyError``.

    >>> action_from_space({"type": 3, "x": 0, "y": 0, "direction": 0, "app": 1, "text": ""}, ("Notes", "Clock"))
    OpenApp(name='Clock')
    """
    t = ACTION_TYPES[_index(a, "type", len(ACTION_TYPES) if answer else ACTION_TYPES.index("answer"))]
    if t == "click":
        return Click(as_int(a["x"], "x"), as_int(a["y"], "y"))
    if t == "scroll":
        return Scroll(DIRECTIONS[_index(a, "direction", len(DIRECTIONS))], as_int(a["x"], "x"), as_int(a["y"], "y"))
    if t == "back":
        return Back()
    if t == "open_app":
        return OpenApp(apps[_index(a, "app", len(apps))])
    if not isinstance(a["text"], str):
        raise ValueError(f"text must be a str, got {type(a['text']).__name__}")
    return Type(str(a["text"])) if t == "type" else Answer(str(a["text"]))


def element_space(width: int, height: int) -> spaces.Sequence:
    """Visible interactive widgets: id, role (index in ``KINDS``), label, box."""
    return spaces.Sequence(spaces.Dict({
        "id": UnicodeText(128),
        "role": spaces.Discrete(len(KINDS)),
        "label": UnicodeText(256),
        "box": spaces.Box(0, max(width, height), shape=(4,), dtype=np.int32),
    }), stack=False)


# Gymnasium flattens Text to indices into its charset (vector envs' shared memory, flatten
# wrappers), which cannot hold arbitrary Unicode. UnicodeText flattens to code points + 1
# (0 pads), so every string survives AsyncVectorEnv and FlattenObservation round trips.
@spaces.utils.flatten.register(UnicodeText)
def _flatten_unicode(space: UnicodeText, x: str) -> np.ndarray:
    arr = np.zeros(space.max_length, dtype=np.int32)
    codes = [ord(c) + 1 for c in x[: space.max_length]]
    arr[: len(codes)] = codes
    return arr


@spaces.utils.unflatten.register(UnicodeText)
def _unflatten_unicode(space: UnicodeText, x: np.ndarray) -> str:
    return "".join(chr(int(v) - 1) for v in x if v > 0)


@spaces.utils.flatten_space.register(UnicodeText)
def _flatten_space_unicode(space: UnicodeText) -> spaces.Box:
    return spaces.Box(0, 0x110000, shape=(space.max_length,), dtype=np.int32)


def _register_shared_memory() -> None:
    from gymnasium.vector.utils import shared_memory as shm

    @shm.read_from_shared_memory.register(UnicodeText)
    def _read(space: UnicodeText, shared_memory: Any, n: int = 1) -> tuple[str, ...]:
        data = np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape((n, space.max_length))
        return tuple(_unflatten_unicode(space, row) for row in data)


_register_shared_memory()
