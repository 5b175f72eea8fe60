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
