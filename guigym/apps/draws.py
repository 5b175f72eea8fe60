"""Scalar random draws that equal numpy's, bit for bit, at a fraction of the call cost.

Scenario generation makes hundreds of scalar draws (``rng.integers(2)`` per switch, a
``choice`` per sample); each numpy call costs about a microsecond of argument parsing, more
than the draw. :class:`Draws` reads the env's ``PCG64`` stream in blocks (``random_raw``)
and redoes numpy's algorithms in Python for the calls families make:

* ``integers(high)`` / ``integers(low, high)`` (int64, scalar): Lemire's bounded draw on
  32-bit words (``random_bounded_uint64`` for ranges below 2**32 - 1);
* ``random()``: a 53-bit double from one 64-bit word;
* ``choice(n, size=k, replace=False)``: Floyd's sampling, then the Fisher-Yates shuffle
  of ``Generator.choice`` (both with Lemire draws).

Anything else (other arguments, other methods) goes to the generator itself, after the
stream is handed back to it, so every call gives what numpy gives. :meth:`Draws.close`
(or leaving the ``with`` block) puts the generator in the exact state numpy would be in
after the same calls: advanced past the words used, with PCG64's spare 32-bit half.

>>> import numpy as np
>>> a, b = np.random.default_rng(7), np.random.default_rng(7)
>>> with Draws(a) as d:
...     mine = [d.integers(10), d.integers(3, 9), round(d.random(), 12), d.choice(20, size=5, replace=False).tolist()]
>>> mine == [int(b.integers(10)), int(b.integers(3, 9)), round(b.random(), 12), b.choice(20, size=5, replace=False).tolist()]
True
>>> a.bit_generator.state == b.bit_generator.state
True
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

BLOCK = 256  # 64-bit words read per random_raw call (reading ahead is rewound on close)
_M32 = 0xFFFFFFFF
_DOUBLE = 1.0 / 9007199254740992.0  # 2**-53


class Draws:
    """A stand-in for ``gen`` (a ``numpy.random.Generator``) during scenario generation; see
    the module doc. With another bit generator than ``PCG64`` every call goes to ``gen``."""

    __slots__ = ("gen", "_bg", "_start", "_words", "_pos", "_has32", "_u32", "_exact")

    def __init__(self, gen: np.random.Generator) -> None:
        self.gen = gen
        self._bg = gen.bit_generator
        self._exact = type(self._bg) is np.random.PCG64
        self._load()

    def __enter__(self) -> np.random.Generator:
        # typed as the generator it stands in for (it answers every Generator method), so the
        # families' ``rng: np.random.Generator`` takes it
        return cast(np.random.Generator, self)

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- the stream ----------------------------------------------------------------------
    def _load(self) -> None:
        """Start reading where the generator stands."""
        self._words: list[int] = []
        self._pos = 0
        if self._exact:
            st = self._bg.state
            self._start, self._has32, self._u32 = st, st["has_uint32"], st["uinteger"]

    def close(self) -> None:
        """Hand the stream back: the generator ends as if numpy had made every draw."""
        if not self._exact or not self._words:
            if self._exact and (self._has32, self._u32) != (self._start["has_uint32"], self._start["uinteger"]):
                self._set_state(self._start)
            return
        self._bg.state = self._start  # rewind the words read ahead ...
        cast(np.random.PCG64, self._bg).advance(self._pos)  # ... then skip the ones used (advance clears the spare half)
        self._set_state(self._bg.state)
        self._words, self._pos = [], 0

    def _set_state(self, st: Mapping[str, Any]) -> None:
        st = dict(st)
        st["has_uint32"], st["uinteger"] = self._has32, self._u32
        self._bg.state = st
        self._start = st

    def _word(self) -> int:
        """The next 64-bit output (``next_uint64``)."""
        if self._pos == len(self._words):
            self._words += self._bg.random_raw(BLOCK).tolist()
        w = self._words[self._pos]
        self._pos += 1
        return w

    def _word32(self) -> int:
        """``next_uint32`` of PCG64: the low half of a new word, its high half kept for next time."""
        if self._has32:
            self._has32 = 0
            return self._u32
        w = self._word()
        self._has32, self._u32 = 1, w >> 32
        return w & _M32

    def _bounded(self, rng: int) -> int:
        """A uniform int in ``[0, rng]`` for ``0 < rng < 2**32 - 1`` (Lemire, as numpy)."""
        excl = rng + 1
        m = self._word32() * excl
        if (m & _M32) < excl:
            threshold = (_M32 - rng) % excl
            while (m & _M32) < threshold:
                m = self._word32() * excl
        return m >> 32

    def _numpy(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """``gen.<name>(*args, **kwargs)`` on the exact stream (hand it back, call, re-read)."""
        self.close()
        try:
            return getattr(self.gen, name)(*args, **kwargs)
        finally:
            self._load()

    # --- the draws -------------------------------------------------------------------------
    def integers(self, low: Any, high: Any = None, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or not self._exact:
            return self._numpy("integers", low, high, *args, **kwargs)
        if high is None:
            low, high = 0, low
        if type(low) is not int or type(high) is not int:
            try:
                low, high = operator.index(low), operator.index(high)
            except TypeError:
                return self._numpy("integers", low, high)
        rng = high - 1 - low
        if not 0 < rng < _M32:  # empty (numpy raises), a single value, or a range over 32 bits
            return self._numpy("integers", low, high)
        # _bounded(rng) with the first _word32() inlined (the hot path of scenario generation)
        excl = rng + 1
        if self._has32:
            self._has32 = 0
            m = self._u32 * excl
        else:
            if self._pos == len(self._words):
                self._words += self._bg.random_raw(BLOCK).tolist()
            w = self._words[self._pos]
            self._pos += 1
            self._has32, self._u32 = 1, w >> 32
            m = (w & _M32) * excl
        if (m & _M32) < excl:
            threshold = (_M32 - rng) % excl
            while (m & _M32) < threshold:
                m = self._word32() * excl
        return low + (m >> 32)

    def random(self, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or not self._exact:
            return self._numpy("random", *args, **kwargs)
        return (self._word() >> 11) * _DOUBLE

    def choice(self, a: Any, size: Any = None, replace: bool = True, *args: Any, **kwargs: Any) -> Any:
        exact = self._exact and not args and not kwargs and not replace and type(a) is int and type(size) is int
        if not exact or not 0 <= size <= a or a > 10000:  # numpy's own errors, and its other algorithm
            return self._numpy("choice", a, size, replace, *args, **kwargs)
        return np.array(self.sample_indices(a, size), dtype=np.int64)

    def sample_indices(self, a: int, size: int) -> list[int]:
        """``choice(a, size=size, replace=False).tolist()`` (``0 <= size <= a <= 10000``), as a list."""
        out: list[int] = []
        seen: set[int] = set()
        for j in range(a - size, a):  # Floyd's algorithm
            val = self._bounded(j) if j else 0
            if val in seen:
                val = j
            seen.add(val)
            out.append(val)
        for i in range(size - 1, 0, -1):  # Generator.choice's shuffle
            j = self._bounded(i)
            out[i], out[j] = out[j], out[i]
        return out

    def __getattr__(self, name: str) -> Any:
        """Any other method of the generator, on the exact stream."""
        attr = getattr(self.gen, name)
        if not callable(attr):
            return attr
        return lambda *args, **kwargs: self._numpy(name, *args, **kwargs)
