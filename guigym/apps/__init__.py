"""App families, one module each. ``FAMILIES`` maps a family name to its generator."""

from __future__ import annotations

from guigym.apps.calendar_app import CalendarFamily
from guigym.apps.contacts import ContactsFamily
from guigym.apps.crossapp import CrossAppFamily
from guigym.apps.family import Family
from guigym.apps.files import FilesFamily
from guigym.apps.launcher import LauncherFamily
from guigym.apps.login import LoginFamily
from guigym.apps.mail import MailFamily
from guigym.apps.messages import MessagesFamily
from guigym.apps.phone import PhoneFamily
from guigym.apps.settings import SettingsFamily
from guigym.apps.shop import ShopFamily

FAMILIES: dict[str, Family] = {f.name: f for f in (LoginFamily(), SettingsFamily(), LauncherFamily(), ContactsFamily(),
                                                   MessagesFamily(), FilesFamily(), CalendarFamily(),
                                                   MailFamily(), PhoneFamily(), ShopFamily(), CrossAppFamily())}
