"""The instruction styles (``instruction_style``: casual, formal, buried) read as natural requests
for every family, level and template split, in English and German, and keep every task word; and
the long descriptions' filler says no interface label (``descriptions`` axis)."""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
import pytest

from guigym import i18n
from guigym.apps import FAMILIES
from guigym.descriptions import PHRASES, phrases
from guigym.i18n import de
from guigym.i18n.content import generating_in
from guigym.variation import LABELS, NEUTRAL, restyle, split_templates
from tests.conftest import make

STYLES = ("casual", "formal", "buried")
SEEDS = 6
#: A quoted span, as the instructions quote ('Don't allow' keeps its apostrophe).
QUOTED = re.compile(r"\"[^\"]*\"|(?<!\w)'(?:[^']|'(?=\w))*'(?!\w)")
#: A sentence boundary of a quote-masked text (German ordinal dates, "9. April", excepted).
BOUNDARY = re.compile(r"(?<!\d)\. (?=[A-ZÄÖÜ])|(?<=\d)\. (?=[A-ZÄÖÜ])(?!(?:" + "|".join(de.MONTHS_DE) + r")\b)")
#: The place an instruction starts with ("In Clock, ", "In Clock: ").
LEAD = {"en": re.compile(r"In [^,:]+, "), "de": re.compile(r"In [^,:]+: ")}


class Nth:
    """A stand-in generator whose every draw is ``k`` (modulo the range): picks each template in turn."""

    def __init__(self, k: int) -> None:
        self.k = k

    def integers(self, n: int, *_: object) -> int:
        return self.k % n


@lru_cache(maxsize=None)
def plain_instructions(lang: str) -> tuple[tuple[str, str, str], ...]:
    """(family, level, plain instruction) of every family, level and template split, a few seeds each."""
    out = []
    for name, fam in FAMILIES.items():
        for level in ("easy", "medium", "hard"):
            for which in ("train", "test"):
                for seed in range(SEEDS):
                    rng = np.random.default_rng(seed)
                    with generating_in(lang):
                        s = fam.instance(rng, level, split_templates(fam, level, which))
                    text = s["task"]["instruction"] if lang == "en" else i18n.instruction(s, lang, rng)
                    out.append((name, level, text))
    return tuple(dict.fromkeys(out))


def styled(lang: str, text: str, style: str, k: int) -> str:
    return restyle(text, style, Nth(k)) if lang == "en" else de.restyle(text, style, Nth(k))  # type: ignore[arg-type]


def every_styled(lang: str):
    """(family, level, plain, style, styled) for every instruction, style and template of the style."""
    for fam, level, text in plain_instructions(lang):
        for style in STYLES:
            seen = set()
            for k in range(4):
                out = styled(lang, text, style, k)
                if out not in seen:
                    seen.add(out)
                    yield fam, level, text, style, out


def masked(text: str) -> str:
    return QUOTED.sub(lambda m: "_" * len(m.group()), text)


def parts(text: str, lang: str) -> tuple[str, str, str]:
    """(the place it starts with, its first sentence, the rest) of an instruction (read here, not
    with the code under test)."""
    m = masked(text)
    lead = LEAD[lang].match(m)
    at = lead.end() if lead else 0
    b = BOUNDARY.search(m, at)
    return (text[:at], text[at:b.start() + 1], text[b.start() + 1:]) if b else (text[:at], text[at:], "")


def test_the_sweep_covers_every_shape() -> None:
    """The instructions swept below hold each shape the styles must handle: a place first, several
    sentences, a question, a quote with its own punctuation (both languages)."""
    for lang, lead in LEAD.items():
        texts = [t for _, _, t in plain_instructions(lang)]
        assert sum(bool(lead.match(t)) for t in texts) > 10, lang
        assert sum(bool(BOUNDARY.search(masked(t))) for t in texts) > 50, lang
        assert sum(t.endswith("?") for t in texts) > 30, lang
        assert any(re.search(r"\?[\"']", t) for t in texts), lang
        assert {f for f, _, t in plain_instructions(lang) if lead.match(t)} >= ({"Launcher", "Phone"} if lang == "en" else {"Launcher"})


@pytest.mark.parametrize("lang", ["en", "de"])
def test_no_style_word_is_glued_before_a_place(lang: str) -> None:
    """"In Clock, switch on ..." became "Kindly in Clock, switch on ...", "can you in Clock, ...?",
    "Bitte in Clock: schalte ..." and "Die Aufgabe lautet: In Clock: ...": the style's words go
    after the place ("In Clock, kindly switch on ...") or take it in ("kurze Bitte in Clock: ...")."""
    glued = {
        "en": re.compile(r"(?i)\b(?:please|kindly|would|could you|can you)\s+in [^,]+,"),
        "de": re.compile(r"(?:(?<!kurze )\b(?:[Bb]itte|kannst du)\s+[Ii]n [^:,]+:|:\s+[Ii]n [^:,]+:)"),
    }[lang]
    bad = [(f, lv, s, out) for f, lv, _, s, out in every_styled(lang) if glued.search(masked(out))]
    assert not bad, bad[:5]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_frame_holds_one_request(lang: str) -> None:
    """A frame that asks ("could you ... for me?", "can you ...?") or signs off ("..., please :)")
    holds the first sentence only: it was wrapped around several ("can you do A. Then do B? thanks!",
    "... The verification code is 828444, please :)"). A question keeps its one question mark,
    and a request gets at most the frame's."""
    closers = {"en": (" for me?", "?", ", please :)"), "de": (", bitte :)",)}[lang]
    opener = {"en": re.compile(r"(?:could|can) you "), "de": re.compile(r"kannst du mir(?: in [^?]+)? kurz helfen\?")}[lang]
    bad = []
    for f, lv, text, style, out in every_styled(lang):
        m, mt = masked(out), masked(text)
        if text.endswith("?"):
            if m.count("?") != 1 or (style != "buried" and not out.endswith("?")):
                bad.append(("question", f, lv, style, out))
            continue
        asks = m.count("?")
        if asks > 1 or mt.count("?"):
            bad.append(("marks", f, lv, style, out))
        if lang == "de" and "kannst du" in out and not opener.search(out):  # "kannst du öffne ...?" is no German
            bad.append(("kannst du", f, lv, style, out))
        if style == "buried":
            continue
        o = opener.search(m)
        start = o.end() if o else 0
        for c in closers:
            at = m.find(c, start)
            if at >= 0 and (c != "?" or o) and BOUNDARY.search(m[start:at]):
                bad.append(("frame", f, lv, style, out))
    assert not bad, bad[:6]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_every_task_word_is_kept(lang: str) -> None:
    """Every quoted value, name, number and place of the plain instruction is in every styled one
    as it was (only a sentence's first letter may change case), and the rest of the words too,
    in order (case aside)."""
    bad = []
    for f, lv, text, style, out in every_styled(lang):
        place, first, rest = parts(text, lang)
        words = [q.group() for q in QUOTED.finditer(text)]
        for part in (place, first, rest):
            tokens = re.findall(r"[^\s,;:()]+", masked(part).rstrip(".?"))
            words += [t for t in tokens[1:] if "_" not in t and re.search(r"[A-ZÄÖÜ0-9]", t)]
        missing = [w for w in words if not re.search(rf"(?<![\w'\"]){re.escape(w)}(?![\w'\"])", out)]
        low = out.casefold()
        body = (first + rest).strip()
        body = body[:-1] if body.endswith(".") else body
        pieces = [place.strip().rstrip(",:").casefold(), *(p.casefold() for p in re.split(r"(?<=[.?]) ", body) if p)]
        at, lost = 0, []
        for p in pieces:
            p = p[:-1] if p.endswith(".") else p
            k = low.find(p, at)
            if k < 0:
                lost.append(p)
            else:
                at = k + len(p)
        if missing or lost:
            bad.append((f, lv, style, text, out, missing, lost))
    assert not bad, bad[:4]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_styles_start_as_their_register_does(lang: str) -> None:
    """A formal request starts with an upper-case letter (a place first: "In Clock, please ...");
    German casual questions after "hmm, " continue in lower case ("hmm, Wie viele ...?" was not)."""
    bad = []
    for f, lv, text, style, out in every_styled(lang):
        if style == "formal" and not out[:1].isupper():
            bad.append((f, lv, style, out))
        if out.startswith("hmm, ") and out[5:6].isupper():
            bad.append((f, lv, style, out))
    assert not bad, bad[:5]


GLUED = re.compile(r"(?i)\b(?:please|kindly|would|can you|could you|bitte|lautet:|erledigen:)\s+in (?:Clock|Notes|Contacts)\b")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_styled_envs_keep_the_task(lang: str) -> None:
    """End to end (``apply_variation``): a styled Launcher instance (its instructions start with
    a place) has the plain one's task, and its instruction has no style word glued before the place."""
    base = {**NEUTRAL, "language": lang}
    plain = make("GuiGym-Launcher-v0", variation=base, split="test" if lang == "de" else "train")
    seen = 0
    for style, split in (("casual", "train"), ("formal", "test"), ("buried", "test")):
        if lang == "de" and split == "train":  # German is the test split's: casual is swept above
            continue
        env = make("GuiGym-Launcher-v0", variation={**base, "instruction_style": style}, split=split)
        for seed in range(6):
            for level in ("easy", "medium", "hard"):
                env.reset(seed=seed, options={"level": level})
                plain.reset(seed=seed, options={"level": level})
                a, b = env.unwrapped.scenario["task"], plain.unwrapped.scenario["task"]
                assert {k: v for k, v in a.items() if k != "instruction"} == {k: v for k, v in b.items() if k != "instruction"}
                text = a["instruction"]
                seen += bool(re.search(r"\b[Ii]n Clock\b", text))
                assert not GLUED.search(text), text
        env.close()
    plain.close()
    assert seen > 3


# --- the descriptions' filler -------------------------------------------------------------------
def _label_forms(label: str, lang: str) -> list[str]:
    """What says ``label``: the phrase, and a one-word label's inflections ("picked", "moved";
    German "findet", "geändert")."""
    low = label.casefold()
    if " " in low:
        return [low]
    if lang == "en":
        out = {low, low + "s", low + "es", low + "ed", low + "d", low + "ing", low[:-1] + "ing" if low.endswith("e") else low}
        if re.search(r"[^aeiou][aeiou][bdgkmnprt]$", low):
            out |= {low + low[-1] + "ed", low + low[-1] + "ing"}
        return sorted(out)
    stem = low[:-2] if low.endswith("en") else low[:-1] if low.endswith(("ern", "eln")) else low
    return sorted({low, stem + "t", stem + "et", stem + "e", stem + "st", "ge" + stem + "t", "ge" + stem + "en"} if stem != low else {low})


def _labels(lang: str) -> set[str]:
    out = set()
    for groups in LABELS.values():
        for g in groups:
            for lab in (*g.train, *g.test):
                out.add(lab if lang == "en" else de.translate(lab, g.kind))
    return out


@pytest.mark.parametrize("lang", ["en", "de"])
def test_filler_says_no_interface_label(lang: str) -> None:
    """The filler claims no interface verbs, yet said "A customer pick,", "can find parking",
    "prefers a quick text over a long chat", "might change after a chat" (held-out synonyms of
    Select, Search, Message, Edit) and "sends", "moved" (train labels): an agent that looks for a
    relabelled button reads them. No train or test synonym of :data:`LABELS` (in German: their
    translations), nor a one-word one's inflections, is in a phrase table."""
    tables = PHRASES if lang == "en" else phrases("de")
    labels = _labels(lang)
    assert len(labels) > 60
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(f) for lab in labels for f in _label_forms(lab, lang)) + r")(?!\w)")
    hits = [(kind, s, pattern.findall(s.casefold())) for kind, t in tables.items() for part in t.values() for s in part
            if pattern.search(s.casefold())]
    assert not hits, hits
    assert pattern.search("the chat" if lang == "en" else "das hat sich geändert")  # the check can fail


def test_filler_tables_keep_their_shape() -> None:
    """The replaced phrases keep each table's size (every other sentence is drawn as before) and the
    German tables the English ones' shape."""
    de_tables = phrases("de")
    for kind, t in PHRASES.items():
        assert {k: len(v) for k, v in t.items()} == {k: len(v) for k, v in de_tables[kind].items()}, kind
