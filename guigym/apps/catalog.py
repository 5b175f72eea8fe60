"""Names shared by families: app names, people, and simple "stub" apps that fill a home screen.

An env's ``OpenApp`` actions name only its own family's apps (``Family.apps``), so adding
names here changes no existing env's spaces unless a family draws from the grown tuple.
"""

from __future__ import annotations

import numpy as np

from guigym.apps.base import row
from guigym.apps.family import pick
from guigym.apps.schema import AppSpec

#: Apps a login scenario is about (brand names).
BRANDS: tuple[str, ...] = (
    "Mailbox", "Shopr", "Cloudy", "PixelBank", "TravelGo", "FitTrack", "Chatter", "NewsHub",
    "PhotoBox", "Tasky", "Streamly", "Foodie",
)
#: Apps with behaviour used by the Launcher family.
TOOL_APPS: tuple[str, ...] = ("Notes", "Clock", "Contacts")
#: Apps that only show a screen (distractors on the home screen).
STUB_APPS: tuple[str, ...] = (
    "Camera", "Photos", "Maps", "Music", "Weather", "Calendar", "Files", "Phone", "Messages",
    "Browser", "Store", "Video", "Calculator", "Podcasts", "Wallet", "Translate", "Radio",
    "Recorder", "Compass", "Books", "Health", "News", "Games", "Drive",
)
#: Every app name some family uses (for agents that name apps themselves; envs use ``Family.apps``).
APP_NAMES: tuple[str, ...] = BRANDS + TOOL_APPS + ("Settings",) + STUB_APPS

FIRST_NAMES: tuple[str, ...] = (
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
    "mallory", "nina", "oscar", "peggy", "quentin", "rupert", "sybil", "trent", "ursula",
    "victor", "wendy", "xavier", "yvonne", "zoe",
)
LAST_NAMES: tuple[str, ...] = (
    "smith", "jones", "garcia", "miller", "davis", "lopez", "wilson", "anderson", "thomas",
    "moore", "martin", "lee", "clark", "lewis", "walker", "young", "king", "wright", "hill",
)
WORDS: tuple[str, ...] = (
    "sunset", "maple", "river", "orbit", "cobalt", "lemon", "falcon", "harbor", "velvet",
    "pepper", "meadow", "quartz", "tiger", "cactus", "ember", "nimbus", "walnut", "zephyr",
)

ICON_COLORS: tuple[tuple[int, int, int], ...] = (
    (234, 67, 53), (251, 188, 5), (52, 168, 83), (66, 133, 244), (171, 71, 188),
    (0, 172, 193), (255, 112, 67), (124, 179, 66), (92, 107, 192), (236, 64, 122),
)


def stub_app(rng: np.random.Generator, name: str) -> AppSpec:
    """A distractor app: one screen with a few labels and a harmless button."""
    return {
        "kind": "generic", "name": name, "root": "main", "color": list(pick(rng, ICON_COLORS)),
        "screens": {"main": {"title": name, "parent": None, "rows": [
            row("info", "label", f"Welcome to {name}"),
            row("hint", "label", "Nothing to do here yet."),
            row("ok", "button", "OK"),
        ]}},
    }


def password(rng: np.random.Generator) -> str:
    return f"{pick(rng, WORDS)}{int(rng.integers(10, 100))}"
