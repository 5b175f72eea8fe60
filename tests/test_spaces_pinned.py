"""Each registered id's observation and action spaces, written out: changing one (a new app in
a family, a wrapper default) must be a deliberate new id version, so this test fails on any
change. The expected values are literal on purpose; do not compute them from the code."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

from guigym.registration import env_ids
from guigym.spaces import UnicodeText
from guigym.wrappers import make_sb3_env
from tests.conftest import make

BRANDS = ("Mailbox", "Shopr", "Cloudy", "PixelBank", "TravelGo", "FitTrack", "Chatter", "NewsHub", "PhotoBox", "Tasky",
          "Streamly", "Foodie")
STUBS = ("Camera", "Photos", "Maps", "Music", "Weather", "Calendar", "Files", "Phone", "Messages", "Browser", "Store", "Video",
         "Calculator", "Podcasts", "Wallet", "Translate", "Radio", "Recorder", "Compass", "Books", "Health", "News", "Games", "Drive")

#: id -> (the apps OpenApp can name, in action-space order; the SB3 wrapper's default Discrete size)
PINNED: dict[str, tuple[tuple[str, ...], int]] = {
    "GuiGym-Login-v0": (BRANDS + STUBS, 201),
    "GuiGym-Settings-v0": (("Settings",), 166),
    "GuiGym-Launcher-v0": (BRANDS + ("Notes", "Clock", "Contacts") + STUBS, 204),
    "GuiGym-Contacts-v0": (("Contacts",), 166),
    "GuiGym-Messages-v0": (("Messages",), 166),
    "GuiGym-Files-v0": (("Files",), 166),
    "GuiGym-Calendar-v0": (("Calendar",), 166),
    "GuiGym-Mail-v0": (("Mail",), 166),
    "GuiGym-Phone-v0": (("Notes", "Clock", "Contacts", "Messages", "Camera", "Photos", "Maps", "Music", "Weather", "Calendar", "Files",
                         "Phone", "Browser", "Store", "Video", "Calculator", "Podcasts", "Wallet", "Translate", "Radio", "Recorder",
                         "Compass", "Books", "Health", "News", "Games", "Drive") + BRANDS, 204),
    "GuiGym-Shop-v0": (("Shop",), 166),
    "GuiGym-CrossApp-v0": (("Notes", "Contacts", "Messages", "Mail", "Calendar", "Shop", "Camera", "Photos", "Maps", "Music", "Weather",
                            "Files", "Phone", "Browser", "Store", "Video", "Calculator", "Podcasts", "Wallet", "Translate", "Radio",
                            "Recorder", "Compass", "Books", "Health", "News", "Games", "Drive") + BRANDS, 205),
}
#: ids whose tasks ask questions: their action ``type`` has Answer too (Discrete(6), not 5)
ANSWERS = {"GuiGym-Contacts-v0", "GuiGym-Messages-v0", "GuiGym-Calendar-v0", "GuiGym-Mail-v0", "GuiGym-Phone-v0", "GuiGym-Shop-v0"}
W, H = 360, 640


def test_every_id_is_pinned():
    assert sorted(env_ids()) == sorted(PINNED)


@pytest.mark.parametrize("env_id", sorted(PINNED))
def test_env_spaces(env_id):
    apps, _ = PINNED[env_id]
    env = make(env_id)
    assert env.unwrapped.apps == apps
    assert env.observation_space == spaces.Dict({
        "screenshot": spaces.Box(0, 255, shape=(H, W, 3), dtype=np.uint8),
        "instruction": UnicodeText(1024),
    })
    assert env.action_space == spaces.Dict({
        "type": spaces.Discrete(6 if env_id in ANSWERS else 5), "x": spaces.Discrete(W), "y": spaces.Discrete(H),
        "direction": spaces.Discrete(4),
        "app": spaces.Discrete(len(apps)), "text": UnicodeText(64),
    })
    env.close()


@pytest.mark.parametrize("env_id", sorted(PINNED))
def test_env_spaces_with_extra_obs(env_id):
    env = make(env_id, extra_obs=("elements", "history"))
    assert env.observation_space == spaces.Dict({
        "screenshot": spaces.Box(0, 255, shape=(H, W, 3), dtype=np.uint8),
        "instruction": UnicodeText(1024),
        "elements": spaces.Sequence(spaces.Dict({
            "id": UnicodeText(128), "role": spaces.Discrete(8), "label": UnicodeText(256),
            "box": spaces.Box(0, H, shape=(4,), dtype=np.int32),
        }), stack=False),
        "history": UnicodeText(1600),
    })
    env.close()


@pytest.mark.parametrize("env_id", sorted(PINNED))
def test_sb3_wrapped_spaces(env_id):
    _, n = PINNED[env_id]
    env = make_sb3_env(env_id)
    assert env.action_space == spaces.Discrete(n)  # 9*16 clicks + 4 scrolls + Back + apps + 16 type slots
    assert env.observation_space == spaces.Dict({
        "image": spaces.Box(0, 255, shape=(128, 72, 3), dtype=np.uint8),
        "instruction": spaces.Box(0.0, 1.0, shape=(256,), dtype=np.float32),
    })
    env.close()
    # the PPO baseline's setting (agents.sb3_baseline.PPO_SETTING): no OpenApp block, the same size for every id
    env = make_sb3_env(env_id, grid=(1, 16), type_slots=10, open_app=False, image_size=(36, 64), prev_action=4, noop_penalty=0.1)
    assert env.action_space == spaces.Discrete(31)
    assert env.observation_space == spaces.Dict({
        "image": spaces.Box(0, 255, shape=(64, 36, 3), dtype=np.uint8),
        "instruction": spaces.Box(0.0, 1.0, shape=(256,), dtype=np.float32),
        "prev_action": spaces.Box(0.0, 1.0, shape=(4 * 32,), dtype=np.float32),
    })
    env.close()


def test_ppo_setting_is_the_pinned_one():
    from agents.sb3_baseline import PPO_SETTING

    assert PPO_SETTING["env_kwargs"] == {"grid": (1, 16), "type_slots": 10, "open_app": False, "image_size": (36, 64),
                                             "prev_action": 4, "noop_penalty": 0.1}
