"""UnicodeText.sample: Gymnasium's Text.sample, draw for draw (a faster path, not a new sampler)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

from guigym.spaces import UnicodeText, action_space


@pytest.mark.parametrize("min_length, max_length", [(0, 64), (0, 0), (3, 5), (1, 200)])
def test_sample_is_gymnasiums_for_the_same_seed(min_length, max_length):
    for seed in range(50):
        ours, theirs = UnicodeText(max_length, min_length=min_length, seed=seed), UnicodeText(max_length, min_length=min_length, seed=seed)
        for _ in range(30):
            s = ours.sample()
            assert s == spaces.Text.sample(theirs)
            assert ours.contains(s) and min_length <= len(s) <= max_length
        assert ours.np_random.random() == theirs.np_random.random()  # the same draws consumed


def test_masked_and_weighted_samples_are_gymnasiums():
    ours, theirs = UnicodeText(10, seed=1), UnicodeText(10, seed=1)
    only_first = np.zeros(len(ours.character_set), dtype=np.int8)
    only_first[0] = 1
    assert ours.sample(mask=(4, only_first)) == spaces.Text.sample(theirs, mask=(4, only_first)) == ours.character_list[0] * 4
    p = np.eye(len(ours.character_set))[2]
    assert ours.sample(probability=(3, p)) == spaces.Text.sample(theirs, probability=(3, p)) == ours.character_list[2] * 3
    with pytest.raises(ValueError, match="Only one of"):
        ours.sample(mask=(1, only_first), probability=(1, p))


def test_action_samples_are_unchanged():
    """A seeded random policy's actions are those Gymnasium's sampler gave (runs stay reproducible)."""
    ours = action_space(360, 640, ("Mail", "Notes"))
    theirs = action_space(360, 640, ("Mail", "Notes"))
    theirs["text"].sample = lambda mask=None, probability=None: spaces.Text.sample(theirs["text"])  # Gymnasium's
    ours.seed(7)
    theirs.seed(7)
    for _ in range(200):
        assert ours.sample() == theirs.sample()


def test_bench_overheads_compares_like_with_like(capsys):
    """``benchmarks/bench_overheads.py`` times guigym's sampler and message pickler next to the
    library defaults they replace, on the same inputs (the messages read back equal)."""
    import pickle
    import sys
    from multiprocessing.reduction import ForkingPickler
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_overheads

    from guigym.vector import _dumps

    message = ("step", [{"type": np.int64(1), "x": np.int64(5), "text": "a"}] * 2)
    assert pickle.loads(_dumps(message)) == pickle.loads(ForkingPickler.dumps(message))
    assert bench_overheads.main(["--calls", "40", "--repeats", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith(("random", "4-env"))]
    assert len(rows) == 4 and all(line.rstrip().endswith("x") for line in rows)
