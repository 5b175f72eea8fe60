"""Grounding instructions to widgets: which visible element a sentence such as "Click the
'Sign in' button" refers to, and the action of a step that needs no pointing ("Type 'alice'",
"Scroll down", "Open the Notes app").

Shared by the executors of the plan-act loop (``agents.executors``) and by the rewards, which
judge an ungrounded plan step by the element its instruction names (TraceR1's abstract
stage-1 similarity, ``guigym.rewards.action_similarity``).

>>> els = [{"id": "user", "label": "Username", "role": "input"}, {"id": "go", "label": "Sign in", "role": "button"}]
>>> match_element("Click the 'Sign in' button", els)["id"], match_element("tap the username field", els)["id"]
('go', 'user')
>>> instruction_action("type", "Type 'alice' into the 'Username' field")
Type(text='alice')
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any, Optional, Sequence

from guigym.actions import DIRECTIONS, Action, Answer, Back, OpenApp, Scroll, Type

__all__ = ["quoted", "match_element", "element_scores", "names_label", "instruction_action", "normalize_label"]

# An apostrophe between two letters ("Don't allow", "Mom’s") is part of a single-quoted text, not
# its end: 'Don't allow' was read as 'Don' (grounded to a "Done" button; typed as "Don"); nor
# does one open a quote ("it's 'x'": x). German quotes („Anmelden“) too: a German instruction
# such as "Gib „alice“ in das Feld 'Name' ein" typed "Name".
_QUOTED = re.compile(r"(?<!\w)'((?:[^']|(?<=\w)'(?=\w))*)'|\"([^\"]*)\"|‘((?:[^’]|(?<=\w)’(?=\w))*)’|“([^”]*)”|„([^“”]*)[“”]")
# role words in an instruction -> widget kinds they point at
_ROLE_WORDS: dict[str, tuple[str, ...]] = {
    "field": ("input",),
    "box": ("input", "checkbox"),
    "input": ("input",),
    "button": ("button",),
    "checkbox": ("checkbox",),
    "tick": ("checkbox",),
    "untick": ("checkbox",),
    "switch": ("toggle",),
    "toggle": ("toggle",),
    "turn": ("toggle",),
    "icon": ("icon",),
    "app": ("icon",),
    "link": ("link",),
    "open": ("link", "button", "icon"),
    "select": ("radio",),
    "option": ("radio",),
    "choose": ("radio",),
}
_FILLER = re.compile(
    r"\b(click|tap|press|on|the|a|an|open|select|choose|tick|untick|turn|on|off|switch|toggle|checkbox|button|field|"
    r"link|icon|option|item|into|in|to|go|please)\b",
    re.IGNORECASE,
)


# where a quote can open (a ' only where no letter precedes it), and the marks that close each
_OPENER = re.compile(r"(?<!\w)'|[\"‘“„]")
_CLOSERS = {"'": "'", '"': '"', "‘": "’", "“": "”", "„": "“”"}


@lru_cache(maxsize=None)
def _opener(marks: frozenset[str]) -> re.Pattern[str]:
    """:data:`_OPENER` for the opening ``marks`` only (one of the 31 non-empty sets of them)."""
    alts = ([r"(?<!\w)'"] if "'" in marks else []) + ([f"[{''.join(sorted(marks - {chr(39)}))}]"] if marks - {"'"} else [])
    return re.compile("|".join(alts))


def quoted(text: str) -> list[str]:
    """The quoted parts of ``text`` ('…', "…", ‘…’, “…”, „…“), in order.

    ``_QUOTED.finditer``, without its quadratic time on many unclosed quotes ("‘" * 8000 took
    1.3 s, each opening mark scanning to the end): an opening mark with no closing mark after it
    cannot start a match, so the pattern is tried only where one can.

    >>> quoted("Click the 'Don't allow' button, then 'OK'")
    ["Don't allow", 'OK']
    """
    return [q for _, _, q in _quoted_spans(text)]


def _quoted_spans(text: str) -> list[tuple[int, int, str]]:
    """:func:`quoted`'s parts with where each lies in ``text`` (its marks included): ``(start, end, part)``.

    Only the marks with a closing mark after ``pos`` are sought (:func:`_opener`), and only
    before the last such closing mark: the others cannot start a match, and seeking them
    one by one cost a Python iteration per mark (an instruction of 8,000 unclosed ‘ took ~2.5
    ms, five times per ``trajectory_reward`` step). Every opening mark found either starts a
    match (an opening mark with a closing mark after it always does: the text between may stop
    at the first one) or is the last of its kind to be sought, so the loop turns at most
    once per part found plus once per kind of mark."""
    last = {o: max(text.rfind(c) for c in cs) for o, cs in _CLOSERS.items()}
    out: list[tuple[int, int, str]] = []
    pos = dies = 0
    while True:
        if pos >= dies:  # (again) the marks with a closing mark after pos
            live = frozenset(c for c, e in last.items() if e > pos)
            if not live:
                break
            opener, end, dies = _opener(live), max(last[c] for c in live), min(last[c] for c in live)
        o = opener.search(text, pos, end)
        if o is None:
            break
        i = o.start()
        m = _QUOTED.match(text, i) if last[text[i]] > i else None
        if m is None:
            pos = i + 1
            continue
        out.append((i, m.end(), next(g for g in m.groups() if g is not None)))
        pos = m.end()
    return out


#: The words that say "enter this text"; the quoted text after the first of them (outside quotes) is
#: what a Type step types, wherever the field's label stands ("In the 'Username' field, type 'alice'").
_ENTRY_VERB = re.compile(r"\b(?:type|enter|write|input)\b", re.IGNORECASE)
#: Between the entry verb and a quote, a word that makes the quote the field typed into: "into",
#: "onto", or "in" after another word ("Type alice in the 'Name' field"; "Type in 'alice'" is the
#: verb "type in").
_INTO = re.compile(r"\b(?:into|onto)\b|\S\s+in\b", re.IGNORECASE)


def typed_text(instruction: str) -> Optional[str]:
    """The text a Type step's ``instruction`` says to type: the first quoted text after its entry
    verb (type, enter, write, input; one inside a quote does not count), else its first quoted
    text; ``None`` without quotes. A quote after the verb that ``into`` (or ``in`` after a word)
    leads to names the field, not the text: the next quote is the text, else ``None`` (the
    text is not quoted).

    >>> typed_text("Type 'alice' into the 'Username' field"), typed_text("In the 'Username' field, type 'alice'")
    ('alice', 'alice')
    >>> typed_text("In the 'Enter code' field, write '0421'"), typed_text("Enter 'Bob' in the 'Name' field")
    ('0421', 'Bob')
    >>> typed_text("Type alice into the 'Username' field"), typed_text("Type your name in 'Name': 'Bob'")
    (None, 'Bob')
    """
    spans = _quoted_spans(instruction)
    if not spans:
        return None
    k = 0  # the first span that does not end before the verb (both in order: linear time)
    for m in _ENTRY_VERB.finditer(instruction):
        while k < len(spans) and spans[k][1] <= m.start():
            k += 1
        if k == len(spans) or spans[k][0] > m.start():  # outside every quote
            if k < len(spans) and _INTO.search(instruction, m.end(), spans[k][0]):
                # "Type alice into the 'Username' field": the quote is where, not what (it typed
                # "Username"); the text is the next quote ("Type into 'Name' the text 'Bob'"), else unquoted
                return spans[k + 1][2] if k + 1 < len(spans) else None
            return spans[k][2] if k < len(spans) else spans[0][2]
    return spans[0][2]


def normalize_label(s: str) -> str:
    """Case-folded words (punctuation other than ``&@.+-`` dropped), single-spaced. Case-folded,
    not lower-cased: "STRASSE" names the German label "Straße" (``lower`` keeps the ß); for
    English text the two are the same."""
    return " ".join(re.sub(r"[^\w&@.+-]+", " ", s.casefold()).split())


def _quoted_target(instruction: str) -> Optional[str]:
    """The quoted text that names the instruction's target (a Type step's last, else the
    first), or ``None`` without quotes."""
    q = quoted(instruction)
    if not q:
        return None
    return q[-1] if re.match(r"\s*type\b", instruction, re.IGNORECASE) else q[0]


def _target_phrase(instruction: str) -> str:
    q = _quoted_target(instruction)
    return q if q is not None else _FILLER.sub(" ", instruction)


def match_element(instruction: str, elements: Sequence[dict[str, Any]], min_score: float = 0.6) -> Optional[dict[str, Any]]:
    """The visible element an instruction refers to: the best fuzzy match (difflib ratio)
    between the instruction's quoted label (or, without quotes, its words minus verbs and
    role nouns) and each element's label, plus 0.1 when the instruction names the element's
    role ("button", "field", "switch", …). A label shortened from the front ("…/Downloads/Reports")
    whose words end the phrase scores 0.95. ``None`` if no element scores ``min_score``.

    >>> els = [{"id": "a", "label": "Home"}, {"id": "b", "label": "…/Downloads/Reports"}]
    >>> match_element("Click 'Home/Backups/Clients/Downloads/Reports'", els)["id"]
    'b'
    """
    if not elements:
        return None
    return best_scored(element_scores(instruction, elements), elements, min_score)


def best_scored(scores: Sequence[float], elements: Sequence[dict[str, Any]], min_score: float = 0.6) -> Optional[dict[str, Any]]:
    """:func:`match_element`'s pick from scores :func:`element_scores` gave (for a caller that
    also needs the scores, so they are computed once): the first of the best, if it scores
    ``min_score``."""
    if not elements:
        return None
    best = max(range(len(scores)), key=scores.__getitem__)  # the first of equal bests
    return elements[best] if scores[best] >= min_score and scores[best] >= 0 else None


def element_scores(instruction: str, elements: Sequence[dict[str, Any]]) -> list[float]:
    """:func:`match_element`'s score of each element (-1 for one without a label)."""
    phrase = normalize_label(_target_phrase(instruction))
    words = set(normalize_label(instruction).split())
    kinds = {k for w in words for k in _ROLE_WORDS.get(w, ())}
    out = []
    for e in elements:
        raw = str(e.get("label") or "")
        label = normalize_label(raw)
        if not label:
            out.append(-1.0)
            continue
        score = SequenceMatcher(None, phrase, label).ratio()
        if phrase and (phrase == label):
            score = 1.0
        elif phrase and label and (label in phrase or phrase in label):
            score = max(score, 0.8)
            if raw.startswith("…") and phrase.endswith(label):
                # a path shortened from the front ("…/Downloads/Reports", Files' Move picker) names
                # the end of the full path: above "Home", also inside that path
                score = 0.95
        if str(e.get("role")) in kinds:
            score += 0.1
        out.append(score)
    return out


#: How close a phrase must be to a label to name it (difflib ratio), for :func:`names_label`.
NAMES_LABEL_RATIO = 0.8


def names_label(instruction: str, label: str) -> bool:
    """Whether ``instruction`` names ``label`` closely (the rewards' test of an ungrounded
    click, stricter than :func:`match_element`'s ranking): its target phrase (the quoted text,
    or the words left after verbs and role nouns) equals the label, is within a difflib ratio of
    :data:`NAMES_LABEL_RATIO` of it, or is the full path a label shortened from the front ends;
    or the label's words stand in the instruction (in its quoted text, if it has one) with
    only verbs, articles and role nouns beside them. A phrase that merely contains the label, or
    is contained in it, does not name it: "Click 's'" names no label, and a phrase listing
    several labels names none of them. Unquoted instructions are read with English filler
    words ("the", "button", ...): quote the label in other languages.

    >>> names_label("Click the 'Sign in' button", "Sign in"), names_label("Click the Sign in button", "Sign in")
    (True, True)
    >>> names_label("Click 's'", "Sign in"), names_label("Click 'Username Password Sign in'", "Sign in")
    (False, False)
    """
    lab = normalize_label(label)
    if not lab:
        return False
    phrase = normalize_label(_target_phrase(instruction))
    if phrase == lab or SequenceMatcher(None, phrase, lab).ratio() >= NAMES_LABEL_RATIO:
        return True
    if label.startswith("…") and phrase.endswith(lab):  # "…/Downloads/Reports": the end of the full path
        return True
    q = _quoted_target(instruction)
    src = normalize_label(instruction if q is None else q)
    m = re.search(rf"(?<!\S){re.escape(lab)}(?!\S)", src)
    return m is not None and not _FILLER.sub(" ", src[: m.start()] + " " + src[m.end():]).split()


# The actions whose one text argument is a quoted text of the instruction (Type: typed_text's; the
# others: the first), else what this pattern captures. The captured text grows a word at a time
# (``_WORDS``: a non-space, then runs of spaces each followed by a non-space, none crossing a line
# break), not a character at a time as ``(.+?)`` did: that retried the tail after every space of a
# long run ("open x" + 8,000 spaces + "y" took 0.4 s). The same captures, except that a capture is never spaces only: where
# ``(.+?)`` took one space ("answer ", "Reply with "), no match now, or the word the optional
# parts give back ("with").
_WORDS = r"\S(?:[^\S\n]*+\S)*?"
_TEXT_ARG: dict[str, tuple[type, re.Pattern[str]]] = {
    "type": (Type, re.compile(rf"^\s*+type\s++({_WORDS}(?:[^\S\n]*+$)?)(?:\s+(?:into|onto|in\s+the)\b.*)?$", re.IGNORECASE)),
    "open_app": (OpenApp, re.compile(rf"\bopen\s++(?:the\s++)?({_WORDS})(?:\s+app)?\s*$", re.IGNORECASE)),
    "answer": (Answer, re.compile(rf"^\s*+(?:answer|reply|say)\b\s*+(?:with\b)?\s*+:?\s*+({_WORDS})\s*$", re.IGNORECASE)),
}


def instruction_action(kind: Optional[str], instruction: str) -> Optional[Action]:
    """The action of a step that needs no pointing, read from its instruction: Back; Type
    (:func:`typed_text`, the quoted text after "type": "Type 'alice' into …", "In the 'Username'
    field, type 'alice'"; else the words after "type", up to "into …" or "in the …": "Type alice
    into the 'Username' field"); OpenApp ("Open the Notes app", or the
    quoted name); Scroll (the direction word); Answer (the first quoted text, or what follows
    "Answer"/"Reply": "Answer '3 pm'"). ``None`` for a click or when unreadable.

    >>> instruction_action("answer", "Answer: 3 pm"), instruction_action("answer", "Reply 'Room B' to the user")
    (Answer(text='3 pm'), Answer(text='Room B'))
    """
    if kind == "back":
        return Back()
    if kind in _TEXT_ARG:
        cls, pattern = _TEXT_ARG[kind]
        q = typed_text(instruction) if kind == "type" else next(iter(quoted(instruction)), None)
        if q is not None:
            return cls(q)
        m = pattern.search(instruction.strip().rstrip(".") if kind == "open_app" else instruction)
        return cls(m.group(1)) if m else None
    if kind == "scroll":
        for w in normalize_label(instruction).split():
            if w in DIRECTIONS:
                return Scroll(w)
        return None
    return None
