"""The screenshot that travels in ``show``'s round trip: the backend guesses the id of the layer
snapshot being made (the renderer numbers them in order) and replays it in the same round trip.
A wrong guess, including one that names another live snapshot of an older view, must never
give a wrong picture: the frame id row rejects it and the backend takes another capture.
"""

from __future__ import annotations

import numpy as np
import pytest

from guigym.backends.browser import BrowserBackend
from guigym.layout import layout

pytestmark = pytest.mark.browser

W, H = 360, 640


@pytest.fixture(scope="module")
def views():
    import gymnasium as gym

    env = gym.make("GuiGym-Login-v0", level="medium", disable_env_checker=True)
    out = []
    _, info = env.reset(seed=5)
    for ref in info["reference"][:3]:
        v = env.unwrapped.current_view
        out.append((v, layout(v, W, H)))
        env.step(ref.action)
    env.close()
    return out


def test_screenshot_comes_with_show_and_bad_guesses_fall_back(views) -> None:
    b = BrowserBackend(W, H)
    try:
        b.show(*views[0])
        plain = [b.screenshot()]
        for v in views[1:]:  # the guess is known now: no capture round trip after show
            b.show(*v)
            assert b._shot is not None and b._snapshot_id is None
            plain.append(b.screenshot())
        assert b.frames["fallback"] == 0 and b.frames["screen"] == 0
        assert len({p.tobytes() for p in plain}) == len(plain)

        # a guess that names no snapshot: the made one is replayed in a second round trip
        b._tab.next_snapshot += 1000
        b.show(*views[0])
        assert b._shot is None and b._snapshot_id is not None
        assert np.array_equal(b.screenshot(), plain[0])

        # a guess that names a live snapshot of another view (made behind the backend's back)
        layer = b._content_layer()
        stray = int(b._send("LayerTree.makeSnapshot", {"layerId": layer})["snapshotId"])
        b._tab.next_snapshot = stray  # what the backend would guess if it had not seen it
        before = dict(b.frames)
        b.show(*views[1])
        assert b._shot is None  # the guess was not the snapshot made: its replay is not used
        assert np.array_equal(b.screenshot(), plain[1])  # not the stray snapshot's view
        assert b.frames["layer"] == before["layer"] + 1 and b.frames["screen"] == before["screen"]

        # and afterwards the guesses are right again
        b.show(*views[2])
        assert b._shot is not None and np.array_equal(b.screenshot(), plain[2])
    finally:
        b.close()
