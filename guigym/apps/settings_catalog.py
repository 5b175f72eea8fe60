"""The Settings catalogue: categories of settings as named records (the data ``settings.py`` draws from).

Records, not tagged tuples, so generation dispatches on types and reads fields by name.
Equality includes the record type (a ``Page`` never equals an ``Info`` with the same text).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Toggle:
    """A switch setting: row ``id`` with ``label``."""

    id: str
    label: str


@dataclass(frozen=True)
class Choice:
    """A choice setting: a link showing the current option that opens the options list."""

    id: str
    label: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class Page:
    """A link to a screen without settings ("Pair new device")."""

    label: str


@dataclass(frozen=True)
class Info:
    """A muted line of text."""

    text: str


@dataclass(frozen=True)
class DeepLink:
    """The link to a category's deeper screen (added while building a scenario)."""

    id: str
    title: str


Setting = Toggle | Choice
Item = Toggle | Choice | Page | Info | DeepLink


@dataclass(frozen=True)
class SubScreen:
    """A screen one level below a category (Display > Advanced)."""

    id: str
    title: str
    items: tuple[Item, ...]


@dataclass(frozen=True)
class Category:
    """A category of the main list: its screen's ``items`` and an optional deeper screen."""

    id: str
    title: str
    detail: str  # the subtitle on the main list
    items: tuple[Item, ...]
    deep: SubScreen | None = None


def settings_of(items: tuple[Item, ...] | list[Item]) -> list[Setting]:
    """The items that are settings (a target can be one of them)."""
    return [it for it in items if isinstance(it, (Toggle, Choice))]


TIMEOUTS = ("15 seconds", "30 seconds", "1 minute", "2 minutes", "5 minutes", "10 minutes", "30 minutes")
LANGUAGES = ("English (US)", "English (UK)", "Deutsch", "Español", "Français", "Italiano", "Nederlands", "Polski", "Português", "Svenska",
    "Dansk", "Norsk")

#: The catalogue: categories in Android order. ``items`` sit on the category screen,
#: ``deep`` on a screen one level below it.
CATEGORIES: tuple[Category, ...] = (
    Category("network", "Network & internet", "Mobile, Wi-Fi, hotspot", (
        Toggle("wifi", "Wi-Fi"), Toggle("airplane", "Airplane mode"), Toggle("mobile_data", "Mobile data"),
        Toggle("roaming", "Roaming"), Toggle("data_saver", "Data Saver"), Toggle("adaptive_conn", "Adaptive connectivity"),
        Choice("pref_network", "Preferred network type", ("5G", "4G", "3G", "2G")),
        Choice("private_dns", "Private DNS", ("Off", "Automatic", "Provider hostname")),
        Page("Internet"), Page("SIMs"), Page("VPN"), Page("Calls & SMS"),
    ), SubScreen("hotspot", "Hotspot & tethering", (
        Toggle("wifi_hotspot", "Wi-Fi hotspot"), Toggle("usb_tether", "USB tethering"), Toggle("bt_tether", "Bluetooth tethering"),
        Toggle("eth_tether", "Ethernet tethering"), Choice("ap_band", "AP band", ("2.4 GHz", "5 GHz", "6 GHz")),
        Page("Hotspot name"), Page("Hotspot password"),
    ))),
    Category("devices", "Connected devices", "Bluetooth, pairing", (
        Toggle("bluetooth", "Bluetooth"), Toggle("nearby_share", "Nearby Share"), Toggle("phone_hub", "Phone Hub"),
        Choice("bt_visibility", "Bluetooth visibility", ("Hidden", "Visible for 2 minutes", "Always visible")),
        Page("Pair new device"), Page("Saved devices"), Page("Cast"), Page("Printing"),
    ), SubScreen("conn_prefs", "Connection preferences", (
        Toggle("nfc", "NFC"), Toggle("nfc_unlock", "Require unlock for NFC"), Toggle("wifi_direct", "Wi-Fi Direct"),
        Toggle("show_unnamed", "Show unnamed Bluetooth devices"),
        Choice("usb_mode", "USB preferences", ("File transfer", "USB tethering", "MIDI", "PTP", "No data transfer")),
        Page("Android Auto"), Page("Chromebook"),
    ))),
    Category("apps", "Apps", "Default apps, permissions", (
        Toggle("pause_unused", "Pause app activity if unused"), Toggle("instant_apps", "Instant apps"),
        Toggle("auto_update", "Auto-update apps"),
        Choice("browser_app", "Browser app", ("Chrome", "Firefox", "Opera", "Edge")),
        Choice("sms_app", "SMS app", ("Messages", "Signal", "Textra")),
        Page("See all apps"), Page("Default apps"), Page("Unused apps"), Page("App battery usage"),
    ), SubScreen("special_access", "Special app access", (
        Toggle("pip", "Picture-in-picture"), Toggle("unknown_apps", "Install unknown apps"), Toggle("usage_access", "Usage access"),
        Toggle("alarms_access", "Alarms & reminders"), Toggle("full_screen", "Full screen notifications"),
        Page("Device admin apps"), Page("Premium SMS access"),
    ))),
    Category("notifications", "Notifications", "History, conversations", (
        Toggle("dnd", "Do Not Disturb"), Toggle("notif_history", "Notification history"), Toggle("bubbles", "Bubbles"),
        Toggle("notif_dot", "Notification dot on app icon"), Toggle("snoozing", "Allow notification snoozing"),
        Choice("lock_notifs", "Notifications on lock screen", ("Show all", "Conversations only", "Don't show any")),
        Page("App notifications"), Page("Conversations"), Page("Flash notifications"),
    ), SubScreen("notif_adv", "Advanced", (
        Toggle("enhanced_notifs", "Enhanced notifications"), Toggle("hide_silent", "Hide silent notifications"),
        Toggle("swipe_notifs", "Swipe down for notifications"), Toggle("notif_cooldown", "Notification cooldown"),
        Choice("cooldown_level", "Cooldown strength", ("Low", "Medium", "High")),
    ))),
    Category("battery", "Battery", "82% - about 1 day left", (
        Toggle("battery_saver", "Battery Saver"), Toggle("battery_pct", "Battery percentage"),
        Toggle("adaptive_battery", "Adaptive Battery"),
        Choice("saver_schedule", "Battery Saver schedule", ("No schedule", "Based on your routine", "Based on percentage")),
        Page("Battery usage"), Page("Battery health"), Info("Last full charge: 9 hours ago"),
    ), SubScreen("battery_adv", "Battery preferences", (
        Toggle("adaptive_charging", "Adaptive Charging"), Toggle("extreme_saver", "Extreme Battery Saver"),
        Toggle("off_when_charged", "Turn off when charged"), Choice("saver_at", "Turn on at", ("10%", "15%", "20%", "25%", "30%")),
    ))),
    Category("storage", "Storage", "43% used - 73 GB free", (
        Toggle("storage_manager", "Storage Manager"), Toggle("smart_trash", "Empty trash automatically"),
        Choice("remove_media", "Remove backed-up photos", ("Over 30 days old", "Over 60 days old", "Over 90 days old")),
        Page("System"), Page("Images"), Page("Videos"), Page("Audio"), Page("Documents & other"), Page("Trash"),
    )),
    Category("sound", "Sound & vibration", "Volume, haptics, Do Not Disturb", (
        Toggle("vibrate_calls", "Vibrate for calls"), Toggle("live_caption", "Live Caption"),
        Toggle("media_lock", "Show media on lock screen"),
        Choice("ringtone", "Phone ringtone", ("The Big Adventure", "Copycat", "Crackle", "Flutterby", "Hey Hey", "Lollipop", "Zen Too")),
        Choice("notif_sound", "Default notification sound", ("Chime", "Pixie Dust", "Tweeter", "Beacon", "Spaceline")),
        Choice("alarm_sound", "Default alarm sound", ("Bright Morning", "Cuckoo", "Early Twilight", "Gentle Breeze", "Sunshower")),
        Page("Media"), Page("Spatial Audio"), Page("Vibration & haptics"),
    ), SubScreen("sound_adv", "Advanced", (
        Toggle("dial_tones", "Dial pad tones"), Toggle("lock_sound", "Screen locking sound"), Toggle("charging_sounds", "Charging sounds"),
        Toggle("touch_sounds", "Touch sounds"), Toggle("keyboard_vibration", "Keyboard vibration"),
        Choice("touch_vibration", "Touch vibration strength", ("Off", "Low", "Medium", "High")),
    ))),
    Category("display", "Display", "Dark theme, font size, brightness", (
        Toggle("dark_theme", "Dark theme"), Toggle("adaptive_brightness", "Adaptive brightness"),
        Toggle("auto_rotate", "Auto-rotate screen"),
        Toggle("always_on", "Always show time and info"), Toggle("tap_wake", "Tap to wake"),
        Choice("screen_timeout", "Screen timeout", TIMEOUTS), Choice("font_size", "Font size", ("Small", "Default", "Large", "Largest")),
        Choice("display_size", "Display size", ("Small", "Default", "Large", "Larger")),
        Page("Brightness level"), Page("Lock screen"), Page("Screen saver"),
    ), SubScreen("display_adv", "Advanced", (
        Toggle("night_light", "Night Light"), Toggle("smooth_display", "Smooth Display"),
        Toggle("touch_sensitivity", "Increase touch sensitivity"),
        Toggle("lift_check", "Lift to check phone"), Choice("colors", "Colors", ("Natural", "Boosted", "Adaptive")),
        Choice("night_schedule", "Night Light schedule", ("None", "Custom time", "Sunset to sunrise")),
    ))),
    Category("wallpaper", "Wallpaper & style", "Colors, themed icons, app grid", (
        Toggle("themed_icons", "Themed icons"), Toggle("dim_wallpaper", "Dim wallpaper with Dark theme"),
        Choice("app_grid", "App grid", ("4x4", "4x5", "5x5", "5x6")),
        Choice("palette", "Color palette", ("Wallpaper colors", "Blue", "Green", "Purple", "Amber")),
        Page("Change wallpaper"), Page("Lock screen shortcuts"),
    )),
    Category("accessibility", "Accessibility", "Display, interaction, audio", (
        Toggle("high_contrast", "High contrast text"), Toggle("mono_audio", "Mono audio"), Toggle("select_to_speak", "Select to Speak"),
        Toggle("power_ends_call", "Power button ends call"), Toggle("large_pointer", "Large mouse pointer"),
        Choice("touch_hold", "Touch & hold delay", ("Short", "Medium", "Long")),
        Choice("action_time", "Time to take action", ("Default", "10 seconds", "30 seconds", "1 minute", "2 minutes")),
        Page("TalkBack"), Page("Magnification"), Page("Caption preferences"),
    ), SubScreen("color_motion", "Color and motion", (
        Toggle("color_inversion", "Color inversion"), Toggle("remove_animations", "Remove animations"),
        Toggle("color_correction", "Color correction"),
        Toggle("extra_dim", "Extra dim"),
        Choice("correction_mode", "Correction mode", ("Deuteranomaly", "Protanomaly", "Tritanomaly", "Grayscale")),
    ))),
    Category("security", "Security", "Screen lock, Find My Device", (
        Toggle("find_device", "Find My Device"), Toggle("app_pinning", "App pinning"),
        Toggle("play_protect", "Scan apps with Play Protect"),
        Choice("screen_lock", "Screen lock", ("None", "Swipe", "Pattern", "PIN", "Password")),
        Choice("lock_after", "Lock after screen timeout", ("Immediately", "5 seconds", "30 seconds", "1 minute", "5 minutes")),
        Page("Face & Fingerprint Unlock"), Page("Security update"), Page("Encryption & credentials"),
    ), SubScreen("sec_more", "More security settings", (
        Toggle("confirm_sim", "Confirm SIM deletion"), Toggle("sim_lock", "SIM card lock"), Toggle("trust_agents", "Trust agents"),
        Toggle("power_menu_lock", "Power menu on lock screen"), Page("Device admin apps"),
    ))),
    Category("privacy", "Privacy", "Permissions, account activity", (
        Toggle("show_passwords", "Show passwords"), Toggle("clipboard_access", "Show clipboard access"),
        Toggle("camera_access", "Camera access"),
        Toggle("mic_access", "Microphone access"), Choice("autofill", "Autofill service", ("None", "Google", "Password manager")),
        Page("Permission manager"), Page("Privacy dashboard"), Page("Ads"),
    ), SubScreen("privacy_more", "More privacy settings", (
        Toggle("usage_diag", "Usage & diagnostics"), Toggle("personal_ads", "Personalized ads"),
        Toggle("screenshot_notify", "Screenshot alerts"),
        Choice("ads_frequency", "Ad topics", ("All topics", "Some topics", "No topics")),
    ))),
    Category("location", "Location", "On - 6 apps have access", (
        Toggle("use_location", "Use location"), Toggle("location_history", "Location History"),
        Choice("location_accuracy_mode", "Location accuracy", ("High", "Battery saving", "Device only")),
        Page("App location permissions"), Page("Recent access"),
    ), SubScreen("location_services", "Location services", (
        Toggle("wifi_scanning", "Wi-Fi scanning"), Toggle("bt_scanning", "Bluetooth scanning"),
        Toggle("emergency_location", "Emergency Location Service"),
        Toggle("location_tz", "Use location to set time zone"), Page("Earthquake alerts"),
    ))),
    Category("accounts", "Passwords & accounts", "Saved passwords, autofill, sync", (
        Toggle("auto_sync", "Automatically sync app data"), Toggle("work_apps", "Work apps"),
        Page("Add account"), Page("Google"), Page("Work profile"), Info("2 accounts on this device"),
    )),
    Category("wellbeing", "Digital Wellbeing", "Screen time, app timers, bedtime", (
        Toggle("bedtime_mode", "Bedtime mode"), Toggle("focus_mode", "Focus mode"), Toggle("wellbeing_icon", "Show icon in the app list"),
        Choice("bedtime_schedule", "Bedtime schedule", ("Off", "10 PM - 6 AM", "11 PM - 7 AM", "Midnight - 8 AM")),
        Page("Dashboard"), Page("App timers"), Page("Parental controls"),
    )),
    Category("safety", "Safety & emergency", "Emergency SOS, medical info, alerts", (
        Toggle("emergency_sos", "Emergency SOS"), Toggle("crash_detection", "Car crash detection"),
        Toggle("wireless_alerts", "Wireless emergency alerts"),
        Page("Medical information"), Page("Emergency contacts"),
    )),
    Category("system", "System", "Languages, gestures, time, backup", (
        Toggle("spell_check", "Spell checker"), Toggle("backup", "Backup by Google One"), Toggle("one_handed", "One-handed mode"),
        Choice("language", "Language", LANGUAGES), Choice("navigation", "Navigation mode", ("Gesture navigation", "3-button navigation")),
        Page("Keyboard"), Page("Gestures"), Page("Reset options"), Page("System update"),
    ), SubScreen("date_time", "Date & time", (
        Toggle("auto_time", "Automatic date & time"), Toggle("auto_tz", "Set time zone automatically"),
        Toggle("use_24h", "Use 24-hour format"),
        Choice("time_zone", "Time zone", ("GMT", "Central European", "Eastern", "Pacific", "Japan Standard")),
        Choice("first_day", "First day of week", ("Sunday", "Monday", "Saturday")),
    ))),
    Category("about", "About phone", "Pixel 8", (
        Info("Device name: Pixel 8"), Info("Phone number: +1 555-0142"), Page("Android version"), Page("Legal information"),
        Info("Build number: AP2A.240905"), Page("Regulatory labels"),
    )),
    Category("tips", "Tips & support", "Help articles, phone & chat", (
        Page("Help"), Page("Send feedback"), Page("Contact us"), Info("Support is available 24/7"),
    )),
)
#: Distractor switches that fill long lists at hard (never a target).
PAD_TOGGLES: tuple[str, ...] = (
    "Show tips", "Smart suggestions", "Sync across devices", "Experimental features", "Show in Quick Settings",
    "Send usage data", "Compact view", "Beta updates", "Show hints", "Haptic feedback", "Reduce data usage",
    "Show shortcut", "Auto-detect", "Quiet mode", "Show preview",
)
