"""Settings: change toggles and choices in an Android-like settings app.

Description:
    A main list of categories (Network & internet, Display, Sound & vibration, ...; each a
    link with a subtitle). A category screen holds switches (Wi-Fi, Dark theme, ...), choice
    settings (a row that shows the current choice and opens a list of options that closes on
    selection, like an Android dialog), links to screens without settings, and in some
    categories a link one level deeper (Display > Advanced > Night Light). Which categories
    and settings exist, their order (partly shuffled), the current values, padding rows and
    themes vary with the seed.
Instruction:
    "Turn on Bluetooth, then set the screen timeout to 5 minutes.", with synonyms
    (turn on/enable/switch on, set/change ... to ...) and, at medium/hard, sometimes where
    the setting lives ("In Display > Advanced, turn on 'Night Light'").
Levels:
    * easy: one change; at most 10 categories and 10 rows per screen (no Scroll), no deeper
      screens.
    * medium: two changes in two categories (Back between them); the main list is longer
      than 10 rows (Scroll); deeper screens exist as distractors.
    * hard: three changes in three categories, at least one on a deeper screen; category
      and deeper lists are longer than 10 rows.
Success / failure:
    Success when every instructed setting has its instructed value (other settings may be
    anything). Never fails: every setting can always be changed back.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from guigym.apps.base import row
from guigym.apps.family import Family, Goal, pick, sample, theme

APP = "Settings"
Item = tuple[Any, ...]  # ("t", id, label) | ("c", id, label, options) | ("n", label) | ("i", text) | ("d", id, title)

TIMEOUTS = ("15 seconds", "30 seconds", "1 minute", "2 minutes", "5 minutes", "10 minutes", "30 minutes")
LANGUAGES = ("English (US)", "English (UK)", "Deutsch", "Español", "Français", "Italiano", "Nederlands", "Polski", "Português", "Svenska", "Dansk", "Norsk")

#: The catalogue: categories in Android order. ``items`` sit on the category screen,
#: ``deep`` (id, title, items) on a screen one level below it.
CATEGORIES: tuple[dict[str, Any], ...] = (
    {"id": "network", "title": "Network & internet", "detail": "Mobile, Wi-Fi, hotspot", "items": (
        ("t", "wifi", "Wi-Fi"), ("t", "airplane", "Airplane mode"), ("t", "mobile_data", "Mobile data"),
        ("t", "roaming", "Roaming"), ("t", "data_saver", "Data Saver"), ("t", "adaptive_conn", "Adaptive connectivity"),
        ("c", "pref_network", "Preferred network type", ("5G", "4G", "3G", "2G")),
        ("c", "private_dns", "Private DNS", ("Off", "Automatic", "Provider hostname")),
        ("n", "Internet"), ("n", "SIMs"), ("n", "VPN"), ("n", "Calls & SMS"),
    ), "deep": ("hotspot", "Hotspot & tethering", (
        ("t", "wifi_hotspot", "Wi-Fi hotspot"), ("t", "usb_tether", "USB tethering"), ("t", "bt_tether", "Bluetooth tethering"),
        ("t", "eth_tether", "Ethernet tethering"), ("c", "ap_band", "AP band", ("2.4 GHz", "5 GHz", "6 GHz")),
        ("n", "Hotspot name"), ("n", "Hotspot password"),
    ))},
    {"id": "devices", "title": "Connected devices", "detail": "Bluetooth, pairing", "items": (
        ("t", "bluetooth", "Bluetooth"), ("t", "nearby_share", "Nearby Share"), ("t", "phone_hub", "Phone Hub"),
        ("c", "bt_visibility", "Bluetooth visibility", ("Hidden", "Visible for 2 minutes", "Always visible")),
        ("n", "Pair new device"), ("n", "Saved devices"), ("n", "Cast"), ("n", "Printing"),
    ), "deep": ("conn_prefs", "Connection preferences", (
        ("t", "nfc", "NFC"), ("t", "nfc_unlock", "Require unlock for NFC"), ("t", "wifi_direct", "Wi-Fi Direct"),
        ("t", "show_unnamed", "Show unnamed Bluetooth devices"),
        ("c", "usb_mode", "USB preferences", ("File transfer", "USB tethering", "MIDI", "PTP", "No data transfer")),
        ("n", "Android Auto"), ("n", "Chromebook"),
    ))},
    {"id": "apps", "title": "Apps", "detail": "Default apps, permissions", "items": (
        ("t", "pause_unused", "Pause app activity if unused"), ("t", "instant_apps", "Instant apps"), ("t", "auto_update", "Auto-update apps"),
        ("c", "browser_app", "Browser app", ("Chrome", "Firefox", "Opera", "Edge")),
        ("c", "sms_app", "SMS app", ("Messages", "Signal", "Textra")),
        ("n", "See all apps"), ("n", "Default apps"), ("n", "Unused apps"), ("n", "App battery usage"),
    ), "deep": ("special_access", "Special app access", (
        ("t", "pip", "Picture-in-picture"), ("t", "unknown_apps", "Install unknown apps"), ("t", "usage_access", "Usage access"),
        ("t", "alarms_access", "Alarms & reminders"), ("t", "full_screen", "Full screen notifications"),
        ("n", "Device admin apps"), ("n", "Premium SMS access"),
    ))},
    {"id": "notifications", "title": "Notifications", "detail": "History, conversations", "items": (
        ("t", "dnd", "Do Not Disturb"), ("t", "notif_history", "Notification history"), ("t", "bubbles", "Bubbles"),
        ("t", "notif_dot", "Notification dot on app icon"), ("t", "snoozing", "Allow notification snoozing"),
        ("c", "lock_notifs", "Notifications on lock screen", ("Show all", "Conversations only", "Don't show any")),
        ("n", "App notifications"), ("n", "Conversations"), ("n", "Flash notifications"),
    ), "deep": ("notif_adv", "Advanced", (
        ("t", "enhanced_notifs", "Enhanced notifications"), ("t", "hide_silent", "Hide silent notifications"),
        ("t", "swipe_notifs", "Swipe down for notifications"), ("t", "notif_cooldown", "Notification cooldown"),
        ("c", "cooldown_level", "Cooldown strength", ("Low", "Medium", "High")),
    ))},
    {"id": "battery", "title": "Battery", "detail": "82% - about 1 day left", "items": (
        ("t", "battery_saver", "Battery Saver"), ("t", "battery_pct", "Battery percentage"), ("t", "adaptive_battery", "Adaptive Battery"),
        ("c", "saver_schedule", "Battery Saver schedule", ("No schedule", "Based on your routine", "Based on percentage")),
        ("n", "Battery usage"), ("n", "Battery health"), ("i", "Last full charge: 9 hours ago"),
    ), "deep": ("battery_adv", "Battery preferences", (
        ("t", "adaptive_charging", "Adaptive Charging"), ("t", "extreme_saver", "Extreme Battery Saver"),
        ("t", "off_when_charged", "Turn off when charged"), ("c", "saver_at", "Turn on at", ("10%", "15%", "20%", "25%", "30%")),
    ))},
    {"id": "storage", "title": "Storage", "detail": "43% used - 73 GB free", "items": (
        ("t", "storage_manager", "Storage Manager"), ("t", "smart_trash", "Empty trash automatically"),
        ("c", "remove_media", "Remove backed-up photos", ("Over 30 days old", "Over 60 days old", "Over 90 days old")),
        ("n", "System"), ("n", "Images"), ("n", "Videos"), ("n", "Audio"), ("n", "Documents & other"), ("n", "Trash"),
    )},
    {"id": "sound", "title": "Sound & vibration", "detail": "Volume, haptics, Do Not Disturb", "items": (
        ("t", "vibrate_calls", "Vibrate for calls"), ("t", "live_caption", "Live Caption"), ("t", "media_lock", "Show media on lock screen"),
        ("c", "ringtone", "Phone ringtone", ("The Big Adventure", "Copycat", "Crackle", "Flutterby", "Hey Hey", "Lollipop", "Zen Too")),
        ("c", "notif_sound", "Default notification sound", ("Chime", "Pixie Dust", "Tweeter", "Beacon", "Spaceline")),
        ("c", "alarm_sound", "Default alarm sound", ("Bright Morning", "Cuckoo", "Early Twilight", "Gentle Breeze", "Sunshower")),
        ("n", "Media"), ("n", "Spatial Audio"), ("n", "Vibration & haptics"),
    ), "deep": ("sound_adv", "Advanced", (
        ("t", "dial_tones", "Dial pad tones"), ("t", "lock_sound", "Screen locking sound"), ("t", "charging_sounds", "Charging sounds"),
        ("t", "touch_sounds", "Touch sounds"), ("t", "keyboard_vibration", "Keyboard vibration"),
        ("c", "touch_vibration", "Touch vibration strength", ("Off", "Low", "Medium", "High")),
    ))},
    {"id": "display", "title": "Display", "detail": "Dark theme, font size, brightness", "items": (
        ("t", "dark_theme", "Dark theme"), ("t", "adaptive_brightness", "Adaptive brightness"), ("t", "auto_rotate", "Auto-rotate screen"),
        ("t", "always_on", "Always show time and info"), ("t", "tap_wake", "Tap to wake"),
        ("c", "screen_timeout", "Screen timeout", TIMEOUTS), ("c", "font_size", "Font size", ("Small", "Default", "Large", "Largest")),
        ("c", "display_size", "Display size", ("Small", "Default", "Large", "Larger")),
        ("n", "Brightness level"), ("n", "Lock screen"), ("n", "Screen saver"),
    ), "deep": ("display_adv", "Advanced", (
        ("t", "night_light", "Night Light"), ("t", "smooth_display", "Smooth Display"), ("t", "touch_sensitivity", "Increase touch sensitivity"),
        ("t", "lift_check", "Lift to check phone"), ("c", "colors", "Colors", ("Natural", "Boosted", "Adaptive")),
        ("c", "night_schedule", "Night Light schedule", ("None", "Custom time", "Sunset to sunrise")),
    ))},
    {"id": "wallpaper", "title": "Wallpaper & style", "detail": "Colors, themed icons, app grid", "items": (
        ("t", "themed_icons", "Themed icons"), ("t", "dim_wallpaper", "Dim wallpaper with Dark theme"),
        ("c", "app_grid", "App grid", ("4x4", "4x5", "5x5", "5x6")), ("c", "palette", "Color palette", ("Wallpaper colors", "Blue", "Green", "Purple", "Amber")),
        ("n", "Change wallpaper"), ("n", "Lock screen shortcuts"),
    )},
    {"id": "accessibility", "title": "Accessibility", "detail": "Display, interaction, audio", "items": (
        ("t", "high_contrast", "High contrast text"), ("t", "mono_audio", "Mono audio"), ("t", "select_to_speak", "Select to Speak"),
        ("t", "power_ends_call", "Power button ends call"), ("t", "large_pointer", "Large mouse pointer"),
        ("c", "touch_hold", "Touch & hold delay", ("Short", "Medium", "Long")),
        ("c", "action_time", "Time to take action", ("Default", "10 seconds", "30 seconds", "1 minute", "2 minutes")),
        ("n", "TalkBack"), ("n", "Magnification"), ("n", "Caption preferences"),
    ), "deep": ("color_motion", "Color and motion", (
        ("t", "color_inversion", "Color inversion"), ("t", "remove_animations", "Remove animations"), ("t", "color_correction", "Color correction"),
        ("t", "extra_dim", "Extra dim"), ("c", "correction_mode", "Correction mode", ("Deuteranomaly", "Protanomaly", "Tritanomaly", "Grayscale")),
    ))},
    {"id": "security", "title": "Security", "detail": "Screen lock, Find My Device", "items": (
        ("t", "find_device", "Find My Device"), ("t", "app_pinning", "App pinning"), ("t", "play_protect", "Scan apps with Play Protect"),
        ("c", "screen_lock", "Screen lock", ("None", "Swipe", "Pattern", "PIN", "Password")),
        ("c", "lock_after", "Lock after screen timeout", ("Immediately", "5 seconds", "30 seconds", "1 minute", "5 minutes")),
        ("n", "Face & Fingerprint Unlock"), ("n", "Security update"), ("n", "Encryption & credentials"),
    ), "deep": ("sec_more", "More security settings", (
        ("t", "confirm_sim", "Confirm SIM deletion"), ("t", "sim_lock", "SIM card lock"), ("t", "trust_agents", "Trust agents"),
        ("t", "power_menu_lock", "Power menu on lock screen"), ("n", "Device admin apps"),
    ))},
    {"id": "privacy", "title": "Privacy", "detail": "Permissions, account activity", "items": (
        ("t", "show_passwords", "Show passwords"), ("t", "clipboard_access", "Show clipboard access"), ("t", "camera_access", "Camera access"),
        ("t", "mic_access", "Microphone access"), ("c", "autofill", "Autofill service", ("None", "Google", "Password manager")),
        ("n", "Permission manager"), ("n", "Privacy dashboard"), ("n", "Ads"),
    ), "deep": ("privacy_more", "More privacy settings", (
        ("t", "usage_diag", "Usage & diagnostics"), ("t", "personal_ads", "Personalized ads"), ("t", "screenshot_notify", "Screenshot alerts"),
        ("c", "ads_frequency", "Ad topics", ("All topics", "Some topics", "No topics")),
    ))},
    {"id": "location", "title": "Location", "detail": "On - 6 apps have access", "items": (
        ("t", "use_location", "Use location"), ("t", "location_history", "Location History"),
        ("c", "location_accuracy_mode", "Location accuracy", ("High", "Battery saving", "Device only")),
        ("n", "App location permissions"), ("n", "Recent access"),
    ), "deep": ("location_services", "Location services", (
        ("t", "wifi_scanning", "Wi-Fi scanning"), ("t", "bt_scanning", "Bluetooth scanning"), ("t", "emergency_location", "Emergency Location Service"),
        ("t", "location_tz", "Use location to set time zone"), ("n", "Earthquake alerts"),
    ))},
    {"id": "accounts", "title": "Passwords & accounts", "detail": "Saved passwords, autofill, sync", "items": (
        ("t", "auto_sync", "Automatically sync app data"), ("t", "work_apps", "Work apps"),
        ("n", "Add account"), ("n", "Google"), ("n", "Work profile"), ("i", "2 accounts on this device"),
    )},
    {"id": "wellbeing", "title": "Digital Wellbeing", "detail": "Screen time, app timers, bedtime", "items": (
        ("t", "bedtime_mode", "Bedtime mode"), ("t", "focus_mode", "Focus mode"), ("t", "wellbeing_icon", "Show icon in the app list"),
        ("c", "bedtime_schedule", "Bedtime schedule", ("Off", "10 PM - 6 AM", "11 PM - 7 AM", "Midnight - 8 AM")),
        ("n", "Dashboard"), ("n", "App timers"), ("n", "Parental controls"),
    )},
    {"id": "safety", "title": "Safety & emergency", "detail": "Emergency SOS, medical info, alerts", "items": (
        ("t", "emergency_sos", "Emergency SOS"), ("t", "crash_detection", "Car crash detection"), ("t", "wireless_alerts", "Wireless emergency alerts"),
        ("n", "Medical information"), ("n", "Emergency contacts"),
    )},
    {"id": "system", "title": "System", "detail": "Languages, gestures, time, backup", "items": (
        ("t", "spell_check", "Spell checker"), ("t", "backup", "Backup by Google One"), ("t", "one_handed", "One-handed mode"),
        ("c", "language", "Language", LANGUAGES), ("c", "navigation", "Navigation mode", ("Gesture navigation", "3-button navigation")),
        ("n", "Keyboard"), ("n", "Gestures"), ("n", "Reset options"), ("n", "System update"),
    ), "deep": ("date_time", "Date & time", (
        ("t", "auto_time", "Automatic date & time"), ("t", "auto_tz", "Set time zone automatically"), ("t", "use_24h", "Use 24-hour format"),
        ("c", "time_zone", "Time zone", ("GMT", "Central European", "Eastern", "Pacific", "Japan Standard")),
        ("c", "first_day", "First day of week", ("Sunday", "Monday", "Saturday")),
    ))},
    {"id": "about", "title": "About phone", "detail": "Pixel 8", "items": (
        ("i", "Device name: Pixel 8"), ("i", "Phone number: +1 555-0142"), ("n", "Android version"), ("n", "Legal information"),
        ("i", "Build number: AP2A.240905"), ("n", "Regulatory labels"),
    )},
    {"id": "tips", "title": "Tips & support", "detail": "Help articles, phone & chat", "items": (
        ("n", "Help"), ("n", "Send feedback"), ("n", "Contact us"), ("i", "Support is available 24/7"),
    )},
)
#: Distractor switches that fill long lists at hard (never a target).
PAD_TOGGLES: tuple[str, ...] = (
    "Show tips", "Smart suggestions", "Sync across devices", "Experimental features", "Show in Quick Settings",
    "Send usage data", "Compact view", "Beta updates", "Show hints", "Haptic feedback", "Reduce data usage",
    "Show shortcut", "Auto-detect", "Quiet mode", "Show preview",
)
#: How instructions name choice settings whose label reads badly after "Set the ...".
NOUNS: dict[str, str] = {
    "saver_schedule": "the Battery Saver schedule", "night_schedule": "the Night Light schedule", "saver_at": "'Turn on at'",
    "bt_visibility": "the Bluetooth visibility", "colors": "the screen colors", "lock_notifs": "'Notifications on lock screen'",
    "remove_media": "'Remove backed-up photos'", "action_time": "'Time to take action'", "lock_after": "'Lock after screen timeout'",
}
ON_VERBS = ("Turn on", "Enable", "Switch on")
OFF_VERBS = ("Turn off", "Disable", "Switch off")
CHOICE_VERBS = ("Set", "Change")
CONNECTORS = (", then go back and ", ", then ", ". Then ", "; after that, ", ", and ")

#: (categories on the main list, rows per category screen) per level.
LEVEL_SIZES: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "easy": ((6, 10), (3, 8)),
    "medium": ((11, 15), (5, 10)),
    "hard": ((15, len(CATEGORIES)), (11, 14)),
}


def _settings(items: Sequence[Item]) -> list[Item]:
    return [it for it in items if it[0] in ("t", "c")]


def _partly_shuffle(rng: np.random.Generator, seq: Sequence[Any], swaps: int) -> list[Any]:
    """``seq`` with ``swaps`` random adjacent swaps: mostly the familiar order, never quite."""
    out = list(seq)
    for _ in range(swaps if len(out) > 1 else 0):
        i = int(rng.integers(len(out) - 1))
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def _noun(label: str) -> str:
    """'Screen timeout' -> 'the screen timeout'; acronyms keep their case ('the USB ...')."""
    first = label.split()[0]
    return "the " + (label if first.isupper() and len(first) > 1 else label[0].lower() + label[1:])


def _quoted(label: str) -> str:
    return f"'{label}'" if " " in label else label


class _Builder:
    """Builds the screens of one scenario; remembers where each setting lives."""

    def __init__(self, rng: np.random.Generator, level: str) -> None:
        self.rng, self.level = rng, level
        self.screens: dict[str, Any] = {}
        self.defaults: dict[str, str] = {}
        self.where: dict[str, dict[str, Any]] = {}  # setting id -> {"screen", "item", "path"}

    def screen(self, sid: str, title: str, parent: str, path: list[str], items: Sequence[Item], min_rows: int = 0) -> None:
        rng = self.rng
        rows: list[dict[str, Any]] = []
        for it in items:
            opts: list[str] | None = None
            if it[0] == "t":
                rows.append(row(it[1], "toggle", it[2], value=bool(rng.integers(2))))
            elif it[0] == "c":
                opts = list(it[3])[: 8 if self.level == "easy" else None]  # easy: no Scroll in choice lists
                self.defaults[it[1]] = pick(rng, opts)
                csid = f"choice:{it[1]}"
                rows.append(row(it[1], "link", it[2], group=it[1], to=csid))
                self.screens[csid] = {"title": it[2], "parent": sid, "pop_on_select": True,
                                      "rows": [row(f"{it[1]}={k}", "radio", o, group=it[1], option=o) for k, o in enumerate(opts)]}
            elif it[0] == "n":  # a link to a screen without settings
                stub = f"{sid}/{len(rows)}"
                rows.append(row(f"go:{stub}", "link", it[1], to=stub))
                self.screens[stub] = {"title": it[1], "parent": sid, "rows": [
                    row(f"{stub}.info", "label", f"{it[1]} is managed by the system."),
                    row(f"{stub}.hint", "label", "Nothing to change here.", style="muted"),
                ]}
            elif it[0] == "i":
                rows.append(row(f"{sid}.i{len(rows)}", "label", it[1], style="muted"))
            elif it[0] == "d":  # the link to a deeper screen (built separately)
                rows.append(row(f"go:{it[1]}", "link", it[2], to=it[1]))
            if it[0] in ("t", "c"):
                self.where[it[1]] = {"screen": sid, "item": it, "path": path, "options": opts}
        if len(rows) < min_rows:  # pad long lists with distractor switches
            pads = sample(rng, [p for p in PAD_TOGGLES if all(p != r["label"] for r in rows)], min_rows - len(rows))
            for k, label in enumerate(pads):
                rows.insert(int(rng.integers(len(rows) + 1)), row(f"pad:{sid}:{k}", "toggle", label, value=bool(rng.integers(2))))
        self.screens[sid] = {"title": title, "parent": parent, "rows": rows}


class SettingsFamily(Family):
    name = "Settings"
    description = "Change switches and choices across categories, sub-screens and long lists (Scroll, Back)."

    def generate(self, rng: np.random.Generator, level: str) -> dict[str, Any]:
        (lo_c, hi_c), (lo_r, hi_r) = LEVEL_SIZES[level]
        n_targets = {"easy": 1, "medium": 2, "hard": 3}[level]
        # target categories first, so they are on the list; a deep target needs a "deep" screen
        settable = [c for c in CATEGORIES if _settings(c["items"])]
        if level == "hard":
            first = pick(rng, [c for c in CATEGORIES if "deep" in c])
            chosen = [first] + sample(rng, [c for c in settable if c is not first], n_targets - 1)
        else:
            chosen = sample(rng, settable, n_targets)
        rest = [c for c in CATEGORIES if all(c is not t for t in chosen)]
        n_cats = int(rng.integers(lo_c, hi_c + 1))
        listed = chosen + sample(rng, rest, n_cats - len(chosen))
        order = {c["id"]: i for i, c in enumerate(CATEGORIES)}
        listed = _partly_shuffle(rng, sorted(listed, key=lambda c: order[c["id"]]), int(rng.integers(1, 4)))

        b = _Builder(rng, level)
        for cat in listed:
            items = list(cat["items"])
            if level == "hard":
                keep = len(items) - int(rng.integers(0, 2))
            else:  # easy/medium: a subset (at least two settings), within the row budget
                keep = int(rng.integers(lo_r, hi_r + 1)) - ("deep" in cat and level == "medium")
            keep = max(1, min(keep, len(items)))
            sets, others = _settings(items), [it for it in items if it[0] not in ("t", "c")]
            n_sets = min(len(sets), max(2, keep - len(others)), keep)
            picked = sample(rng, sets, n_sets) + sample(rng, others, min(len(others), keep - n_sets)) if sets else sample(rng, others, keep)
            picked.sort(key=items.index)
            if "deep" in cat and level != "easy":
                did, dtitle, ditems = cat["deep"]
                picked.insert(int(rng.integers(len(picked) + 1)), ("d", did, dtitle))
                b.screen(did, dtitle, cat["id"], ["main", cat["id"], did],
                         _partly_shuffle(rng, ditems, 2), min_rows=int(rng.integers(lo_r, hi_r + 1)) if level == "hard" else 0)
            min_rows = int(rng.integers(lo_r, hi_r + 1)) if level == "hard" and sets else 0
            b.screen(cat["id"], cat["title"], "main", ["main", cat["id"]], _partly_shuffle(rng, picked, int(rng.integers(0, 3))), min_rows)

        main_rows = [row(f"go:{c['id']}", "link", c["title"], detail=c["detail"], to=c["id"]) for c in listed]
        if level != "easy" and rng.integers(2):
            main_rows.insert(0, row("search", "input", "Search settings", placeholder="Search settings", value=""))
        b.screens["main"] = {"title": "Settings", "parent": None, "rows": main_rows}

        targets = self._targets(rng, level, b, chosen)
        text = self._instruction(rng, level, targets, b)
        spec = {"kind": "generic", "name": APP, "root": "main", "screens": b.screens, "defaults": b.defaults, "color": [95, 99, 104]}
        return {
            "family": self.name, "level": level, "apps": {APP: spec}, "home": {"enabled": False, "icons": [APP]},
            "theme": theme(rng), "start": {"fg": APP, "values": {}}, "task": {"instruction": text, "app": APP, "targets": targets},
        }

    def _targets(self, rng: np.random.Generator, level: str, b: _Builder, chosen: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """One setting per chosen category (for hard, the first is on its deeper screen),
        with a value different from the current one; returned in instruction order."""
        toggles = {r["id"]: r["value"] for s in b.screens.values() for r in s["rows"] if r["kind"] == "toggle"}
        out: list[dict[str, Any]] = []
        for k, cat in enumerate(chosen):
            deep = level == "hard" and k == 0
            sid = cat["deep"][0] if deep else cat["id"]
            cands = [sid_ for sid_, w in b.where.items() if w["screen"] == sid]
            # choices are a bit rarer than switches, as in real requests
            choices = [c for c in cands if b.where[c]["item"][0] == "c"]
            setting = pick(rng, choices) if choices and rng.random() < 0.4 else pick(rng, [c for c in cands if c not in choices] or cands)
            it = b.where[setting]["item"]
            t: dict[str, Any] = {"setting": setting, "label": it[2], "screen": sid, "path": b.where[setting]["path"]}
            if it[0] == "t":
                t.update(kind="toggle", value=not toggles[setting])
            else:
                all_opts = b.where[setting]["options"]
                opt = pick(rng, [o for o in all_opts if o != b.defaults[setting]])
                t.update(kind="choice", value=opt, choice_screen=f"choice:{setting}", row=f"{setting}={all_opts.index(opt)}")
            out.append(t)
        return sample(rng, out, len(out))

    def _instruction(self, rng: np.random.Generator, level: str, targets: list[dict[str, Any]], b: _Builder) -> str:
        clauses = []
        for t in targets:
            if t["kind"] == "toggle":
                c = f"{pick(rng, ON_VERBS if t['value'] else OFF_VERBS)} {_quoted(t['label'])}"
            else:
                c = f"{pick(rng, CHOICE_VERBS)} {NOUNS.get(t['setting']) or _noun(t['label'])} to {t['value']}"
            deep = len(t["path"]) > 2
            if level != "easy" and rng.random() < (0.6 if deep else 0.2):
                where = " > ".join(b.screens[s]["title"] for s in t["path"][1:])
                c = f"in {where}, {c[0].lower()}{c[1:]}"
            clauses.append(c)
        text = clauses[0]
        for c in clauses[1:]:
            text += pick(rng, CONNECTORS) + c[0].lower() + c[1:]
        return text[0].upper() + text[1:] + "."

    def _unmet(self, scn: dict[str, Any], st: dict[str, Any]) -> list[dict[str, Any]]:
        values = st["apps"][APP]["values"]
        return [t for t in scn["task"]["targets"] if values.get(t["setting"]) != t["value"]]

    def success(self, scn: dict[str, Any], st: dict[str, Any]) -> bool:
        return not self._unmet(scn, st)

    def next_goal(self, scn: dict[str, Any], st: dict[str, Any]) -> Goal | None:
        unmet = self._unmet(scn, st)
        if not unmet:
            return None
        t = unmet[0]
        if t["kind"] == "toggle":
            return Goal(APP, t["screen"], t["setting"], "set", t["value"])
        return Goal(APP, t["choice_screen"], t["row"], "press")
