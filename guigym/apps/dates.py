"""English month and weekday names, fixed in code.

``calendar.month_name`` and ``date.strftime("%B")`` follow the process's ``LC_TIME`` locale (a
program that calls ``locale.setlocale(locale.LC_ALL, "")`` on a German desktop gets "März"),
so labels and instructions built from them would differ between machines for the same seed,
and guigym's own translation (:mod:`guigym.i18n.de`), which starts from the English names,
would miss them. They are also slow: every access formats a date through the C library.
"""

from __future__ import annotations

MONTH_NAMES: tuple[str, ...] = ("January", "February", "March", "April", "May", "June", "July", "August",
                                "September", "October", "November", "December")
WEEKDAY_NAMES: tuple[str, ...] = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def month_name(m: int) -> str:
    """The English name of month ``m`` (1-12).

    >>> month_name(3), month_abbr(9)
    ('March', 'Sep')
    """
    return MONTH_NAMES[m - 1]


def month_abbr(m: int) -> str:
    """The three-letter English abbreviation of month ``m`` (1-12), as the C locale's ``%b``."""
    return MONTH_NAMES[m - 1][:3]
