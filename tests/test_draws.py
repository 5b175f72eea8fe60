"""``guigym.apps.draws.Draws`` gives numpy's draws bit for bit and leaves the generator in
numpy's state; scenario generation through it is unchanged."""

from __future__ import annotations

import random

import numpy as np
import pytest

from guigym.apps import FAMILIES
from guigym.apps.draws import Draws
from guigym.apps.family import sample
from guigym.apps.settings_catalog import CATEGORIES, Choice, Toggle


def _ops(seed: int) -> list[tuple[str, tuple]]:
    """A random mix of the calls families make, plus calls Draws hands to numpy."""
    pr = random.Random(seed)
    ops: list[tuple[str, tuple]] = []
    for _ in range(pr.randint(0, 80)):
        r = pr.random()
        if r < 0.35:
            ops.append(("integers", (pr.choice([1, 2, 3, 5, 7, 30, 1000, 2**31, 2**32 - 2]),)))
        elif r < 0.5:
            lo = pr.randint(-5, 50)
            ops.append(("integers", (lo, lo + pr.randint(1, 100))))
        elif r < 0.65:
            ops.append(("random", ()))
        elif r < 0.85:
            n = pr.randint(0, 40)
            ops.append(("choice", (n, pr.randint(0, n), False)))
        elif r < 0.9:  # 32 bits and more: numpy's other paths
            ops.append(("integers", (pr.choice([2**32 - 1, 2**32, 2**40]),)))
        elif r < 0.95:  # arguments Draws does not redo
            ops.append(("choice", (pr.randint(1, 9), 3, True)))
        else:
            ops.append(("standard_normal", ()))
    return ops


@pytest.mark.parametrize("seed", range(200))
def test_draws_equal_numpy_and_leave_its_state(seed: int) -> None:
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    if seed % 3 == 0:  # start with PCG64's spare 32-bit half held
        a.integers(5), b.integers(5)
    with Draws(a) as d:
        for name, args in _ops(seed):
            mine, theirs = getattr(d, name)(*args), getattr(b, name)(*args)
            assert np.asarray(mine).tolist() == np.asarray(theirs).tolist(), (name, args)
            assert type(mine) is not np.ndarray or mine.dtype == theirs.dtype
    assert a.bit_generator.state == b.bit_generator.state
    assert a.integers(1000, size=8).tolist() == b.integers(1000, size=8).tolist()


def test_numpy_errors_are_numpys() -> None:
    d = Draws(np.random.default_rng(0))
    for call in (lambda: d.integers(0), lambda: d.integers(5, 5), lambda: d.choice(3, size=4, replace=False)):
        with pytest.raises(ValueError):
            call()
    d.close()


def test_other_bit_generators_go_to_numpy() -> None:
    a, b = np.random.Generator(np.random.MT19937(3)), np.random.Generator(np.random.MT19937(3))
    with Draws(a) as d:
        got = [int(d.integers(10)), d.random(), d.choice(9, size=4, replace=False).tolist()]
    assert got == [int(b.integers(10)), b.random(), b.choice(9, size=4, replace=False).tolist()]
    assert a.integers(2**62, size=8).tolist() == b.integers(2**62, size=8).tolist()  # the same stream after


def test_sample_is_the_same_through_draws() -> None:
    seq = list("abcdefghijklmnopqrstuvwxyz")
    for seed in range(50):
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        with Draws(a) as d:
            got = [sample(d, seq, k) for k in (0, 1, 5, 26)]
        assert got == [sample(b, seq, k) for k in (0, 1, 5, 26)]
        assert a.bit_generator.state == b.bit_generator.state


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_generation_through_draws_is_unchanged(family: str) -> None:
    fam = FAMILIES[family]
    for level in fam.levels:
        for seed in range(15):
            a, b = np.random.default_rng(seed), np.random.default_rng(seed)
            with Draws(a) as d:
                mine = fam.generate(d, level)  # type: ignore[arg-type]
            assert mine == fam.generate(b, level), (family, level, seed)
            assert a.bit_generator.state == b.bit_generator.state


def test_settings_ids_are_unique() -> None:
    """Settings generation reads a target switch's value on its own screen: catalogue ids are unique."""
    ids = [it.id for c in CATEGORIES for it in (*c.items, *(c.deep.items if c.deep else ())) if isinstance(it, (Toggle, Choice))]
    assert len(ids) == len(set(ids))
