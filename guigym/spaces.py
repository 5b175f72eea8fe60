"""Gymnasium spaces for GUI observations and actions."""

from __future__ import annotations

import string
from collections import abc
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
        # What Gymnasium's uniform sample() builds on every call (the characters as an array,
        # the uniform mask's CDF, as Generator.choice computes it), built once.
        self._chars = np.array(self.character_list)
        cdf = (np.ones(len(self.character_set)) / len(self.character_set)).cumsum()
        cdf /= cdf[-1]
        self._cdf = cdf

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """Gymnasium's ``Text.sample``: without ``mask`` or ``probability``, the same string
        from the same draws (a length, then one uniform double per character, looked up in the
        CDF, as ``Generator.choice`` with ``p`` does), in a fraction of the time: it was most
        of the cost of sampling a random action. With either argument, Gymnasium's own."""
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        length = self.np_random.integers(self.min_length, self.max_length + 1)
        return "".join(self._chars[self._cdf.searchsorted(self.np_random.random(length), side="right")])

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


class ElementList(spaces.Sequence):
    """The ``elements`` observation: a ``Sequence`` whose length changes with the screen, so it
    cannot live in a fixed shared-memory buffer. Gymnasium's ``AsyncVectorEnv(shared_memory=True)``
    then fails at construction with an error naming the fixes; guigym's vector env
    (:class:`guigym.vector.GuiVectorEnv`, what ``gym.make_vec(id, n)`` builds) sends it through the pipe."""


#: The longest element id and label an ``elements`` observation holds (:func:`element_space`).
ELEMENT_ID_CHARS, ELEMENT_LABEL_CHARS = 128, 256


def element_space(width: int, height: int) -> spaces.Sequence:
    """Visible interactive widgets: id, role (index in ``KINDS``: ``role_id`` of the kind), label, box."""
    return ElementList(spaces.Dict({
        "id": UnicodeText(ELEMENT_ID_CHARS),
        "role": spaces.Discrete(len(KINDS)),
        "label": UnicodeText(ELEMENT_LABEL_CHARS),
        "box": spaces.Box(0, max(width, height), shape=(4,), dtype=np.int32),
    }), stack=False)


# Gymnasium flattens Text to indices into its charset (vector envs' shared memory, flatten
# wrappers), which cannot hold arbitrary Unicode. UnicodeText flattens to code points + 1
# (0 pads), so every string survives AsyncVectorEnv and FlattenObservation round trips.
@spaces.utils.flatten.register(UnicodeText)
def _flatten_unicode(space: UnicodeText, x: str) -> np.ndarray:  # type: ignore[misc]  # mypy#13040: fallback is generic (Space[T])
    arr = np.zeros(space.max_length, dtype=np.int32)
    codes = np.frombuffer(x[: space.max_length].encode("utf-32-le", "surrogatepass"), dtype="<u4")
    arr[: len(codes)] = codes + 1
    return arr


@spaces.utils.unflatten.register(UnicodeText)
def _unflatten_unicode(space: UnicodeText, x: np.ndarray) -> str:  # type: ignore[misc]  # mypy#13040: fallback is generic (Space[T])
    return _decode(np.asarray(x))


def _decode(row: np.ndarray) -> str:
    """The string a :func:`_flatten_unicode` row holds (vectorised: a 1024-long row is one numpy op)."""
    codes = row[row > 0].astype("<u4") - 1
    return codes.tobytes().decode("utf-32-le", "surrogatepass")


@spaces.utils.flatten_space.register(UnicodeText)
def _flatten_space_unicode(space: UnicodeText) -> spaces.Box:
    return spaces.Box(0, 0x110000, shape=(space.max_length,), dtype=np.int32)


class SharedTexts(abc.Sequence):
    """The strings of ``n`` envs, decoded from a shared-memory buffer each time they are read.

    Gymnasium's ``AsyncVectorEnv(shared_memory=True)`` reads its buffer once, at construction,
    and afterwards relies on the result being a live view (true of numpy arrays). A tuple of
    ``str`` would stay frozen at construction (every instruction ``''``), so the read returns
    this view instead. Copies (``copy.copy``/``deepcopy``, which the vector env applies to
    observations when ``copy=True``, the default) and pickles are plain tuples of ``str``, as
    ``SyncVectorEnv`` returns; equality is tuple equality.

    >>> import copy, multiprocessing as mp
    >>> buf = mp.Array("i", 2 * 8)
    >>> view = SharedTexts(np.frombuffer(buf.get_obj(), dtype=np.int32).reshape(2, 8))
    >>> view._data[1] = spaces.utils.flatten(UnicodeText(8), "héllo")
    >>> view, copy.deepcopy(view)
    (SharedTexts(('', 'héllo')), ('', 'héllo'))
    """

    __slots__ = ("_data",)
    __hash__ = None  # type: ignore[assignment]  # mutable view, like a list

    def __init__(self, data: np.ndarray) -> None:
        self._data = data  # (n, max_length) int32 view of the shared buffer

    def __len__(self) -> int:
        return int(self._data.shape[0])

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return tuple(_decode(row) for row in self._data[i])
        return _decode(self._data[i])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (SharedTexts, tuple, list)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"

    def __copy__(self) -> tuple[str, ...]:
        return tuple(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return tuple, (tuple(self),)


def _register_shared_memory() -> None:
    from gymnasium.vector.utils import shared_memory as shm

    @shm.read_from_shared_memory.register(UnicodeText)
    def _read(space: UnicodeText, shared_memory: Any, n: int = 1) -> SharedTexts:
        return SharedTexts(np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape((n, space.max_length)))

    @shm.create_shared_memory.register(ElementList)
    def _create(space: ElementList, n: int = 1, ctx: Any = None) -> Any:
        raise TypeError(
            "the 'elements' observation has a different length on every screen, so it cannot live in shared memory: "
            "use guigym's vector env (gym.make_vec(id, n) or guigym.vector.GuiVectorEnv), which sends it through the pipe, "
            "or gym.vector.AsyncVectorEnv(..., shared_memory=False)"
        )


_register_shared_memory()
