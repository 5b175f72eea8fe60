"""The ``descriptions`` variation (:mod:`guigym.variation`): long content texts in the apps.

An item's screen (a product, a mail, an event, a contact's card, a file) shows a
description of several sentences below the item's own text lines, and each item's row on a
list (the catalog, the inbox, the agenda, a folder, the people, the notes, the conversations)
gets a preview line or two of it below: screens get longer, so the rows the task needs may
move below the fold. The task, its success check and its reward are unchanged. A note's own
screen gets none: its text is the note's, and a question asks what the note says, so filler
lines there would read as part of the answer (the notes list still gets the previews).

Multi-line text is shown as the project already shows a mail's body: one ``label`` row per
line, wrapped here at :data:`WRAP` characters (so both renderers show the same rows: the
display list has them). The text is made from the phrase tables below (the one data place),
seeded per episode (``scenario["descriptions"]["seed"]``) and per item (its screen id), so an
item shows the same text every time; it has no digits, names, dates, colours, prices or
interface verbs, so it never holds a fact a task asks about nor a label a task looks for.

The text is in the scenario's content language (``scenario["descriptions"]["language"]``, set
by :func:`guigym.variation.apply_variation` where it is not English): the phrase tables of
:mod:`guigym.i18n.de_content.descriptions` in German, of the same shape.
It is made when a screen is shown, outside :func:`guigym.i18n.content.generating_in`, so the
language travels with the scenario (and :func:`phrases` names it to ``tables``).

>>> lines = item_lines(7, "long", "mail", "m:2")
>>> 3 <= len(lines) and all(len(ln) <= WRAP for ln in lines) and lines == item_lines(7, "long", "mail", "m:2")
True
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from guigym.i18n.content import tables

#: The axis's values: how long an item's description is (sentences, at least / at most) and how
#: many of its lines the item's list row previews. ``own``: the apps' own texts (neutral).
LENGTHS: dict[str, tuple[int, int, int]] = {"short": (2, 2, 0), "long": (3, 5, 1), "very_long": (6, 9, 2)}
#: Characters per line (the mail body's width, :data:`guigym.apps.mail.WRAP`).
WRAP = 34
#: Id prefix of the rows made here (``desc:<screen>:<line>``; a list row's preview:
#: ``desc:<screen>:p<line>``).
PREFIX = "desc:"

#: Per app kind: the screens (id prefixes) of one item, which show its description below their
#: leading text rows, and which its list rows (links to such a screen) preview; and the kind of
#: text. Kinds not named (settings, login, the clock, the launcher's stubs) are left as they are.
#: The messenger's conversations only get a preview line on the list (a thread is its messages),
#: and so do the notes: a note's screen is its text (what a question about it asks for), which
#: filler label rows right under it would seem to continue.
PLACES: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    # kind: (screens that show the description, screens whose list rows preview it, text)
    "shop": (("p:", "i:"), ("p:", "i:"), "product"),
    "shop_seen": (("p:", "i:"), ("p:", "i:"), "product"),
    "mail": (("m:",), ("m:",), "mail"),
    "calendar": (("e:",), ("e:",), "event"),
    "addressbook": (("p:",), ("p:",), "person"),
    "phonebook": (("p:",), ("p:",), "person"),
    "filemanager": (("i:",), ("i:",), "file"),
    "notes_plus": ((), ("n:",), "note"),
    "notes": ((), ("note:",), "note"),
    "messenger": ((), ("t:",), "chat"),
}

#: The phrase tables: a sentence is an opener, a subject and a predicate of its text kind, or one
#: of the kind's whole sentences. No digits, names, dates, colours, prices or interface verbs: no
#: label of :data:`guigym.variation.LABELS`, train or held-out synonym, nor a one-word one's
#: inflections ("picked", "moved"; tests/test_instruction_styles.py checks both languages).
PHRASES: dict[str, dict[str, tuple[str, ...]]] = {
    "product": {
        "open": ("Designed for everyday use,", "Made with care,", "Built to last,", "Light and practical,",
                 "Loved by customers,", "Simple and sturdy,"),
        "subject": ("this piece", "the design", "the finish", "the material", "every seam", "the shape"),
        "pred": ("holds up well over many seasons.", "feels soft and comfortable all day.", "is easy to clean with a damp cloth.",
                 "keeps its form after many washes.", "suits both home and travel.", "looks good in any setting.",
                 "was tested for comfort and strength.", "fits neatly into a small bag."),
        "whole": ("Please check the care label before washing.", "The packaging is fully recyclable.",
                  "Small differences in texture are part of its charm.", "It pairs well with the rest of the range.",
                  "Our team loves it for its balance of quality and comfort."),
    },
    "mail": {
        "open": ("As mentioned before,", "On another note,", "Just so you know,", "In the meantime,", "Looking ahead,",
                 "For what it is worth,"),
        "subject": ("the team", "everyone here", "the office", "our group", "the whole crew", "the family next door"),
        "pred": ("has been quite busy lately.", "wishes you all the best.", "is eager for the summer.",
                 "enjoyed the long walk by the river.", "keeps asking about the garden.", "found the new coffee place nearby.",
                 "is still talking about the trip.", "has settled into the new routine."),
        "whole": ("Hope all is well on your side.", "Let me know if anything is unclear.", "It has been a while since we caught up.",
                  "Take care and enjoy the rest of the week.", "The weather here has been lovely.",
                  "No need to answer this part."),
    },
    "event": {
        "open": ("As usual,", "If possible,", "Like last time,", "Ideally,", "Please note,"),
        "subject": ("the group", "everyone", "the host", "the organisers", "each guest"),
        "pred": ("will bring something small for the table.", "prefers to start on time.", "should plan for a short break.",
                 "is welcome to bring a friend.", "will meet near the main entrance.", "can park close by."),
        "whole": ("Comfortable shoes are a good idea.", "Snacks and drinks will be available.", "The room is on the ground floor.",
                  "It usually wraps up without any rush.", "Bring a jacket in case it gets cool."),
    },
    "person": {
        "open": ("From what I remember,", "As far as I know,", "Good to know:", "Worth noting,"),
        "subject": ("this friend", "this contact", "the family", "this old colleague"),
        "pred": ("likes to keep things short and sweet.", "loves hiking and quiet weekends.", "is usually free in the evenings.",
                 "enjoys cooking for a crowd.", "came to town a few years ago.", "is always happy to help out."),
        "whole": ("We met through a mutual friend.", "Likes strong tea and good books.", "Usually answers within the hour.",
                  "Great company on long trips."),
    },
    "file": {
        "open": ("For reference,", "As a reminder,", "In short,", "For the record,"),
        "subject": ("this document", "this copy", "the original", "this version"),
        "pred": ("was kept for safekeeping.", "collects ideas from several sources.", "belongs to the whole group.",
                 "replaces an older draft.", "could be tidied up at some point.", "should stay where it is for now."),
        "whole": ("It opens with most common viewers.", "Some parts are still rough.", "A backup exists elsewhere.",
                  "Nothing in it is urgent."),
    },
    "note": {
        "open": ("Also,", "Remember,", "Later on,", "Maybe,", "Either way,"),
        "subject": ("the plan", "the idea", "the list", "this thought", "the rest"),
        "pred": ("can wait until things calm down.", "needs a bit more thought.", "still feels like a good start.",
                 "should stay short and simple.", "came up during a long walk.", "might shift after a long talk."),
        "whole": ("Keep it simple.", "Ask around for more ideas.", "Not urgent at all.", "Worth another look at some point.",
                  "Good enough for now."),
    },
    "chat": {
        "open": ("Earlier,", "By the way,", "Honestly,", "Anyway,"),
        "subject": ("the exchange", "this thread", "the talk", "the discussion"),
        "pred": ("drifted to holiday plans.", "was mostly about the weather.", "went on for quite a while.",
                 "covered old stories and jokes."),
        "whole": ("Lots of laughing emojis.", "Mostly small talk.", "A few photos went around.", "Nothing important really."),
    },
}


def wrap(text: str, width: int = WRAP) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken at spaces.

    >>> wrap("Hope all is well on your side. Take care.", 20)
    ['Hope all is well on', 'your side. Take', 'care.']
    """
    out, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*out, line] if line else out


def says(text: str, phrase: str) -> bool:
    """Whether ``text`` holds ``phrase`` as whole words (case ignored).

    >>> says("Ask around for more ideas.", "Ideas"), says("Some parts are still rough.", "art")
    (True, False)
    """
    return re.search(rf"(?<!\w){re.escape(phrase.casefold())}(?!\w)", text.casefold()) is not None


def avoid_of(task: Mapping[str, Any]) -> tuple[str, ...]:
    """What the filler of a scenario must not say: the instruction's quoted values and every
    text in the task's fields (names, titles, subjects, facts, answers)."""
    out: set[str] = set()
    out.update(a or b for a, b in re.findall(r"'([^']+)'|\"([^\"]+)\"", str(task.get("instruction", ""))))

    def walk(x: Any) -> None:
        if isinstance(x, str):
            if 2 <= len(x.strip()) <= 60:
                out.add(x.strip())
        elif isinstance(x, Mapping):
            for k, v in x.items():
                if k != "instruction":
                    walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)

    walk(task)
    return tuple(sorted({x.casefold() for x in out if x}))


def phrases(language: str = "en") -> dict[str, dict[str, tuple[str, ...]]]:
    """:data:`PHRASES` in ``language`` (the content language's tables; English: this module's)."""
    return tables(__name__, language).PHRASES


def sentences(rng: np.random.Generator, kind: str, n: int, avoid: tuple[str, ...] = (), language: str = "en") -> list[str]:
    """``n`` sentences of text ``kind`` (:data:`PHRASES`, in ``language``), none twice in a row,
    none that says a phrase of ``avoid`` (fewer when the tables run out of such sentences)."""
    t = phrases(language)[kind]
    out: list[str] = []
    tries = 0
    said = _says_any(tuple(avoid))
    while len(out) < n and tries < 50 * n:
        tries += 1
        if rng.random() < 0.4:
            s = t["whole"][int(rng.integers(len(t["whole"])))]
        else:
            o, subj, p = (t[k][int(rng.integers(len(t[k])))] for k in ("open", "subject", "pred"))
            s = f"{o} {subj} {p}"
        if (not out or s != out[-1]) and not (said is not None and said.search(s.casefold())):
            out.append(s)
    return out


@lru_cache(maxsize=256)
def _says_any(avoid: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern that finds a sentence's casefolded text to say one of ``avoid`` as
    :func:`says` does (``any(says(s, a) for a in avoid)``: the alternation backtracks into the
    next phrase when one fails its word boundary), or None when there is nothing to avoid."""
    if not avoid:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(a.casefold()) for a in avoid) + r")(?!\w)")


@lru_cache(maxsize=4096)
def item_lines(seed: int, length: str, app_kind: str, sid: str, avoid: tuple[str, ...] = (), language: str = "en") -> tuple[str, ...]:
    """The description of the item whose screen is ``sid`` in an app of ``app_kind``, in lines
    (the same for the same seed, length, app kind, screen and language), saying nothing of
    ``avoid``, in ``language``."""
    lo, hi, _ = LENGTHS[length]
    rng = np.random.default_rng([int(seed), zlib.crc32(f"{app_kind}|{sid}".encode())])
    n = int(rng.integers(lo, hi + 1))
    return tuple(wrap(" ".join(sentences(rng, PLACES[app_kind][2], n, avoid, language))))


def _item_of(sid: str, prefixes: tuple[str, ...]) -> bool:
    return any(sid.startswith(p) for p in prefixes)


def insert(rows: list[Any], desc: dict[str, Any], app_kind: str, sid: str) -> list[Any]:
    """``rows`` of screen ``sid`` (an app of ``app_kind``) with the long texts of ``desc``
    (``scenario["descriptions"]``: ``length``, ``seed``, ``avoid``, see :func:`avoid_of`, and
    ``language`` where not English): the item's description after the screen's leading text
    rows on an item's screen, a preview after each list row that opens one. ``rows`` itself is
    not modified."""
    place = PLACES.get(app_kind)
    if place is None or desc.get("length", "own") not in LENGTHS:
        return rows
    shows, previews, _ = place
    seed, length, avoid = int(desc["seed"]), str(desc["length"]), tuple(desc.get("avoid", ()))
    lang = str(desc.get("language", "en"))
    k_preview = LENGTHS[length][2]
    out = list(rows)
    if _item_of(sid, shows):
        at = 0
        while at < len(out) and out[at].kind == "label" and not out[at].cells:
            at += 1
        if at:  # below the item's own text (an item screen that shows none, a form: left as it is)
            out[at:at] = _rows(seed, length, app_kind, sid, avoid, None, lang)
    if k_preview and previews:
        with_previews = []
        for w in out:
            with_previews.append(w)
            to = w.to if w.kind == "link" else None
            if to and _item_of(to, previews):
                with_previews += _rows(seed, length, app_kind, to, avoid, k_preview, lang)
        out = with_previews
    return out


@lru_cache(maxsize=4096)
def _rows(seed: int, length: str, app_kind: str, sid: str, avoid: tuple[str, ...], preview: int | None,
          language: str = "en") -> tuple[Any, ...]:
    """The label rows of :func:`item_lines` (in ``language``): the description on the item's screen (``preview``
    None), or the first ``preview`` lines, muted, on its list row (memoised: a view is made
    for every state shown or planned through; rows are never mutated, so views share them)."""
    from guigym.apps.base import Widget

    lines = item_lines(seed, length, app_kind, sid, avoid, language)
    if preview is None:
        return tuple(Widget(f"{PREFIX}{sid}:{k}", "label", line) for k, line in enumerate(lines))
    return tuple(Widget(f"{PREFIX}{sid}:p{k}", "label", line, style="muted") for k, line in enumerate(lines[:preview]))
