"""When does an :class:`~guigym.actions.Answer` match the fact an information task asks for?

:func:`answers_match` compares the canonical forms of both sides (:func:`canonical_answer`):

1. **Text**: Unicode NFKC, case-folded, whitespace runs → one space, surrounding quotes (German
   „…“ and »…« too) and trailing ``.``/``!`` removed ("  Room  B. " = "room b").
2. **Numbers**: a currency sign before or after the number and a trailing ``%`` ignored, and
   compared as numbers ("1,000" = "1000.0"; "$12.50" = "12.5" = "12,50 $"). A comma or space
   inside a number is read as a thousands separator only between groups of three digits
   ("1,250", "1 250"); a comma before one or two last digits is a German decimal comma
   ("12,5" = 12.5, "1.250,00" = 1250), so "1, 2" is no number and "12,5" never matches 12 or
   125 ("1,250" stays 1250 and "1.250" 1.25, as in English).
3. **Times**: "3 pm", "3:00 PM", "15:00", "15.00" and the German "15 Uhr" / "15:00 Uhr" are all ``15:00``.
4. **Dates**: ISO (2026-12-01), "Dec 1, 2026", "1 December 2026", "Tuesday, December 1, 2026",
   slashed US dates (12/01/2026: month first) and German ones ("1. Dezember 2026", "Di, 1. Dez.",
   01.12.2026: day first, with its year); without a year ("Dec 1") only month and day
   are compared, so the expected date must then have no year either.
5. **Lists**: when the expected answer is a list (or tuple), the given text is split at commas,
   semicolons, newlines and a final " and ", and the two are compared as multisets: order is
   free, each item must match once.
6. **A number in words** (a count, "2"): where a number is expected, an answer that states
   exactly that one number among plain words matches: "2 events", "You have 2 events.",
   "two" (the number words zero to twenty, English and German). Not where it states a second
   number ("2 events on Dec 1"), a word with digits ("3pm") or a word that qualifies the number
   ("not 2", "more than 2", "2 thousand", "2 pm": :data:`_QUALIFIERS`).
7. **Phone numbers**: where the expected answer is a phone number (digits with dashes, spaces,
   dots, parentheses, a leading ``+``; 7 to 15 digits), one written with other separators
   matches when its digits are the same: "(402) 555-7199" = "402 555 7199" = "402-555-7199".

Anything else must be equal after step 1. ``answers_match`` never raises on any text; the
answer is read up to :data:`MAX_ANSWER_CHARS` characters (longer never matches).

>>> answers_match("  3 PM ", "15:00"), answers_match("1,250", 1250), answers_match("Bob and alice", ["Alice", "Bob"])
(True, True, True)
>>> answers_match("December 1, 2026", "2026-12-01"), answers_match("Room B.", "room b"), answers_match("Room C", "Room B")
(True, True, False)
>>> answers_match("You have 2 events.", "2"), answers_match("two", "2"), answers_match("3 events", "2")
(True, True, False)
>>> answers_match("(402) 555-7199", "402-555-7199"), answers_match("402 555 7190", "402-555-7199")
(True, False)
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from functools import lru_cache
from typing import Any, Union

from guigym.apps.dates import MONTH_NAMES, WEEKDAY_NAMES

__all__ = ["MAX_ANSWER_CHARS", "Expected", "answers_match", "canonical_answer", "answer_f1"]

#: Longest answer compared; a longer one never matches (keeps matching linear and cheap).
MAX_ANSWER_CHARS: int = 1_000

Expected = Union[str, int, float, Sequence[str]]

_WS = re.compile(r"\s+")
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?")
#: digits in groups of three after the first, one separator kind throughout ("1,250,000", "1 250")
_GROUPED = re.compile(r"[-+]?\d{1,3}(?P<sep>[, ])\d{3}(?:(?P=sep)\d{3})*(?:\.\d*)?")
_TIME = re.compile(r"(\d{1,2})(?:[:.](\d{2}))?\s*(?:(a\.?m\.?|p\.?m\.?)|(uhr))?")
#: a decimal comma (German "12,50", "0,5": one or two digits after it, so never a thousands
#: separator) and German grouping ("1.250,00"): read as "12.50", "1250.00"
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d{1,2}")
_GROUPED_DE = re.compile(r"[-+]?\d{1,3}(?:\.\d{3})+,\d+")
#: a phone number as written: digits with dashes, spaces, dots, parentheses, a leading "+"
_PHONE = re.compile(r"\+?[\d\s().\-]+")
#: number words (case-folded) a count may be said in, English and German: zero to twenty
_NUMBER_WORDS: dict[str, int] = {
    **{w: n for n, w in enumerate((
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"))},
    **{w: n for n, w in enumerate((
        "null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "elf", "zwölf",
        "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn", "achtzehn", "neunzehn", "zwanzig"))},
}
#: words that change what a number states (a negation, a bound, a hedge, a magnitude, a time of
#: day): an answer with one of them is not read as stating its number (rule 6)
_QUALIFIERS = frozenset((
    "not", "no", "never", "none", "nor", "except", "than", "over", "under", "least", "most", "about", "around",
    "approximately", "roughly", "nearly", "almost", "maybe", "perhaps", "or", "plus", "minus", "times",
    "hundred", "thousand", "million", "billion", "dozen", "half", "quarter", "am", "pm", "o'clock",
    "nicht", "kein", "keine", "keinen", "mehr", "weniger", "als", "etwa", "ungefähr", "circa", "fast", "vielleicht",
    "oder", "hundert", "tausend", "millionen", "dutzend", "halb", "uhr",
))
_LIST_SPLIT = re.compile(r"\s*(?:[,;\n]\s*(?:and\s+)?|\s+and\s+)\s*")
#: The date spellings read (``strptime`` directives, in the C locale), with and without a year.
_DATE_FORMATS = (
    "%Y-%m-%d", "%b %d %Y", "%B %d %Y", "%d %b %Y", "%d %B %Y", "%m/%d/%Y", "%a %b %d %Y", "%A %B %d %Y",
    "%a %d %b %Y", "%A %d %B %Y",
)
_DAY_FORMATS = ("%b %d", "%B %d", "%d %b", "%d %B", "%m/%d", "%a %b %d", "%A %B %d")
#: English names, lower case, as the text compared is case-folded
_MONTHS = {name.lower(): m for m, name in enumerate(MONTH_NAMES, 1)}
_MONTH_ABBRS = {name[:3].lower(): m for m, name in enumerate(MONTH_NAMES, 1)}
_DIRECTIVES = {
    "%Y": r"(?P<Y>\d{4})", "%m": r"(?P<m>1[0-2]|0[1-9]|[1-9])", "%d": r"(?P<d>3[01]|[12]\d|0[1-9]|[1-9])",
    "%b": f"(?P<b>{'|'.join(_MONTH_ABBRS)})", "%B": f"(?P<B>{'|'.join(_MONTHS)})",
    "%a": f"(?:{'|'.join(n[:3].lower() for n in WEEKDAY_NAMES)})", "%A": f"(?:{'|'.join(n.lower() for n in WEEKDAY_NAMES)})",
}


def _date_pattern(fmt: str) -> re.Pattern[str]:
    """The regular expression of one format: what ``strptime`` reads with it in the C locale."""
    out = re.sub(r"%[YmdbBaA]", lambda m: _DIRECTIVES[m.group()], fmt.replace(" ", r"\s+"))
    return re.compile(out)


#: (pattern, has a year) in the order tried; the names are English whatever the process's
#: locale (``strptime``'s ``%b`` reads the ``LC_TIME`` locale's, and is slow)
_DATE_PATTERNS = [(_date_pattern(f), True) for f in _DATE_FORMATS] + [(_date_pattern(f), False) for f in _DAY_FORMATS]
#: German month names and abbreviations (case-folded; "Mär" and "Mrz" both), as the German
#: screens show dates ("Di, 17. Aug", "Dienstag, 5. Januar 2027", ``guigym.i18n.de``)
_DE_MONTHS = {
    **{n: m for m, n in enumerate(("januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september",
                                   "oktober", "november", "dezember"), 1)},
    **{n: m for m, n in enumerate(("jan", "feb", "mär", "apr", "mai", "jun", "jul", "aug", "sep", "okt", "nov", "dez"), 1)},
    "jänner": 1, "mrz": 3, "sept": 9,
}
_DE_WEEKDAY = r"(?:(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|mo|di|mi|do|fr|sa|so)\.?\s+)?"
_DE_DAY = r"(?P<d>3[01]|[12]\d|0?[1-9])\."
#: "17. August 2027", "Di 17. Aug.", "17.08.2027" (commas read as spaces, as for the English ones);
#: the numeric form only with its year ("17.08" is a number)
_DE_DATES = (
    re.compile(_DE_WEEKDAY + _DE_DAY + r"\s*(?P<b>" + "|".join(sorted(_DE_MONTHS, key=len, reverse=True)) + r")\.?(?:\s+(?P<Y>\d{4}))?"),
    re.compile(_DE_WEEKDAY + _DE_DAY + r"(?P<m>1[0-2]|0?[1-9])\.(?P<Y>\d{4})"),
)


#: quotation marks stripped around an answer: English and German ones („…“, ‚…‘, »…«)
_QUOTES = "\"'“”‘’`„‚»«›‹"


def _text(s: str) -> str:
    s = unicodedata.normalize("NFKC", s).casefold()
    s = _WS.sub(" ", s).strip()
    s = s.strip(_QUOTES).strip()
    return s.rstrip(".!").strip()


def _number_key(exact: Decimal, v: float) -> str:
    """The canonical form of the number ``exact`` (``v`` is its nearest float): ``str(v)`` where
    that names ``exact`` itself ("1250.0", "0.1"), else its digits and exponent without trailing
    zeros ("9007199254740993e0"). Comparing floats alone matched numbers past a float's 15-17
    digits ("9007199254740993" = "9007199254740992", "1e-400" = "0")."""
    if Decimal(repr(v)) == exact:
        return repr(v)
    sign, digits, exp = exact.as_tuple()
    text, e = "".join(map(str, digits)).rstrip("0"), int(exp)
    e += len(digits) - len(text)  # (exact is no zero: 0.0 names it)
    return f"{'-' if sign else ''}{text}e{e}"


def _as_number(s: str) -> str | None:
    """``s`` read as a number, in :func:`_number_key`'s form, or None."""
    t = s.lstrip("$€£¥").lstrip()
    t = t[:-1].rstrip() if t[-1:] in ("$", "€", "£", "¥") and t[:-1].rstrip()[-1:].isdigit() else t  # "66,99 $"
    t = t[:-1].rstrip() if t.endswith("%") else t
    m = _GROUPED.fullmatch(t)
    if m:
        t = t.replace(m.group("sep"), "")
    elif _DECIMAL_COMMA.fullmatch(t) or _GROUPED_DE.fullmatch(t):
        t = t.replace(".", "").replace(",", ".")
    if not _NUMBER.fullmatch(t):
        return None
    v = float(t) + 0.0  # -0.0 → 0.0: "-0" is the number 0
    if not math.isfinite(v):
        return None
    try:
        exact = Decimal(t)
    except ArithmeticError:  # an exponent past the decimal module's (±999,999,999,999,999,999): not read as a number, as inf is not
        return None
    return _number_key(exact, v)


def _as_time(s: str) -> str | None:
    m = _TIME.fullmatch(s)
    if not m or (m.group(2) is None and m.group(3) is None and m.group(4) is None):  # a bare number is a number
        return None
    h, mins, ampm = int(m.group(1)), int(m.group(2) or 0), (m.group(3) or "").replace(".", "")
    if mins > 59 or (ampm and not 1 <= h <= 12) or h > 23:
        return None
    if ampm:
        h = h % 12 + (12 if ampm == "pm" else 0)
    return f"{h:02d}:{mins:02d}"


def _as_date(s: str) -> str | None:
    t = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", s.replace(",", " "))
    t = _WS.sub(" ", t).strip()
    for pattern, with_year in _DATE_PATTERNS:
        m = pattern.fullmatch(t)
        if m is None:
            continue
        g = m.groupdict()
        month = int(g["m"]) if g.get("m") else _MONTHS.get(g.get("B") or "") or _MONTH_ABBRS[g["b"]]
        try:  # a day the month does not have: the next spelling (as strptime's ValueError did)
            # without a year, any day of the month in a leap year (29 February too)
            d = date(int(g["Y"]) if with_year else 2000, month, int(g["d"]))
        except ValueError:
            continue
        return d.isoformat() if with_year else f"--{d.month:02d}-{d.day:02d}"
    for pattern in _DE_DATES:
        m = pattern.fullmatch(t)
        if m is None:
            continue
        g = m.groupdict()
        year = g["Y"]
        try:
            d = date(int(year) if year else 2000, int(g["m"]) if g.get("m") else _DE_MONTHS[g["b"]], int(g["d"]))
        except ValueError:
            return None
        return d.isoformat() if year else f"--{d.month:02d}-{d.day:02d}"
    return None


def canonical_answer(value: Any) -> str:
    """One answer (not a list) in canonical form: ``"n:<number>"`` (the float's repr where it is
    the number exactly, else digits and exponent: :func:`_number_key`), ``"t:HH:MM"``,
    ``"d:YYYY-MM-DD"`` (``"d:--MM-DD"`` without a year) or the normalised text.

    >>> canonical_answer("$1,250.00"), canonical_answer("7:05 pm"), canonical_answer("Dec 1st"), canonical_answer(" Hi  there! ")
    ('n:1250.0', 't:19:05', 'd:--12-01', 'hi there')
    """
    if isinstance(value, bool):
        return _text(str(value))
    if isinstance(value, float):
        return f"n:{value + 0.0}" if math.isfinite(value) else _text(str(value))  # + 0.0: no "n:-0.0"
    if isinstance(value, int):  # exactly, as a text's digits are read (past Python's int-to-text limit, 4,300 digits: ValueError)
        try:
            v = float(value) + 0.0
        except OverflowError:  # past a float's range: text, as its digits are (they read as inf, no number)
            return _canonical_text(str(value))
        return f"n:{_number_key(Decimal(value), v)}"
    if isinstance(value, date):
        return f"d:{value.isoformat()}"
    return _canonical_text(str(value))


@lru_cache(maxsize=4096)
def _canonical_text(value: str) -> str:
    """:func:`canonical_answer` of a text, memoised: a success check compares the same answer
    and the same expected fact with every state the oracle plans through."""
    s = _text(value)
    for kind, parse in (("n", _as_number), ("t", _as_time), ("d", _as_date)):
        got = parse(s)
        if got is not None:
            return f"{kind}:{got}"
    return s


def _items(given: str) -> list[str]:
    return [p for p in _LIST_SPLIT.split(_text(given)) if p]


def _as_text(value: Any) -> str | None:
    """``str(value)`` as a plain str, or None where ``str`` raises (an int past Python's digit
    limit, a broken ``__str__``); a str subclass is copied so no override of it runs later."""
    try:
        return str.__str__(value) if isinstance(value, str) else str(value)
    except Exception:  # noqa: BLE001 - any given text is scored, never raised on
        return None


def answers_match(given: Any, expected: Expected) -> bool:
    """Whether the answer ``given`` (a model's text) states ``expected`` (see the module
    docstring for the normalisation). Never raises: a non-string ``given`` is compared through
    ``str`` (one that fails never matches), an over-long one (> :data:`MAX_ANSWER_CHARS`) never matches."""
    given = "" if given is None else _as_text(given)
    if given is None or len(given) > MAX_ANSWER_CHARS:
        return False
    try:
        if isinstance(expected, (list, tuple)):
            want = Counter(canonical_answer(e) for e in expected)
            return Counter(canonical_answer(p) for p in _items(given)) == want
        want_one = canonical_answer(expected)
        if canonical_answer(given) == want_one:
            return True
        if want_one.startswith("t:"):  # "15.00" reads first as the number 15 (a price); where a time is expected it is 15:00
            return _time_text(given) == want_one
        if want_one.startswith("n:"):  # rule 6: "2 events", "two"
            return _number_said(given) == want_one[2:]
        phone = None if want_one[:2] in ("t:", "d:") else _phone_digits(str(expected))
        return phone is not None and _phone_digits(given) == phone  # rule 7: the same digits
    except (ValueError, OverflowError):
        return False


def _number_said(given: str) -> str | None:
    """The one number ``given`` states among plain words (rule 6 of the module docstring), in
    :func:`_number_key`'s form, or None: no number, two or more, a word with digits that is not
    a number, a word of :data:`_QUALIFIERS`, or more than twelve words.

    >>> _number_said("You have 2 events."), _number_said("Two"), _number_said("1,250 dollars")
    ('2.0', '2.0', '1250.0')
    >>> _number_said("2 events on Dec 1"), _number_said("not 2"), _number_said("3pm"), _number_said("events")
    (None, None, None, None)
    """
    words = [w for w in (t.strip(",.!?;:()" + _QUOTES) for t in _text(given).split()) if w]
    if len(words) > 12:
        return None
    found: list[str] = []
    for w in words:
        n = repr(float(_NUMBER_WORDS[w])) if w in _NUMBER_WORDS else _as_number(w)
        if n is not None:
            found.append(n)
        elif w in _QUALIFIERS or not w.replace("'", "").replace("-", "").isalpha():
            return None
    return found[0] if len(found) == 1 else None


def _phone_digits(text: str) -> str | None:
    """The digits of ``text`` where it is written as a phone number (rule 7 of the module
    docstring: only digits and separators, 7 to 15 digits), else None.

    >>> _phone_digits("(402) 555-7199"), _phone_digits("+1 555-0142"), _phone_digits("12:30"), _phone_digits("555-01")
    ('4025557199', '15550142', None, None)
    """
    t = _text(text)
    if not _PHONE.fullmatch(t):
        return None
    digits = re.sub(r"\D", "", t)
    return digits if 7 <= len(digits) <= 15 else None


def _time_text(given: str) -> str | None:
    """``given`` read as a time (``"t:HH:MM"``) even where it also reads as a number ("15.00")."""
    t = _as_time(_text(given))
    return None if t is None else f"t:{t}"


def answer_f1(given: Any, expected: Expected) -> float:
    """Partial credit: 1.0 when :func:`answers_match`, else the token F1 of the normalised
    texts (a list's items joined by spaces). In [0, 1].

    >>> answer_f1("the meeting starts at 3 pm", "3 pm"), answer_f1("Room B", "room b")
    (0.5, 1.0)
    """
    if answers_match(given, expected):
        return 1.0
    given = "" if given is None else _as_text(given)
    if given is None or len(given) > MAX_ANSWER_CHARS:  # as answers_match reads it
        return 0.0
    want = [_as_text(e) for e in expected] if isinstance(expected, (list, tuple)) else [_as_text(expected)]
    g = _text(given).split()
    e = _text(" ".join(w for w in want if w is not None)).split()
    common = sum((Counter(g) & Counter(e)).values())
    if not common:
        return 0.0
    p, r = common / len(g), common / len(e)
    return 2 * p * r / (p + r)
