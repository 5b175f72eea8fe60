"""A second interface language (the ``language`` variation axis, ``guigym.variation``).

With ``language="de"`` the device speaks German: every :class:`~guigym.apps.base.View` is
translated (:func:`localize_view`, called by ``base.view``) before either renderer,
``env.elements()`` or the oracle's layout sees it, and the instruction is a German one made from
the family's structured task (``scenario["task"]``), not a translation of the English text
(:func:`instruction`). Widget ids, options' values (what the events, the oracle and ``success``
read) and the task's structure stay as the family made them, so the reference takes the English
instance's steps (German names may sort elsewhere in a list: its scrolls may differ) and the
rewards are the same functions.

* **Labels**: an exact-string phrasebook (:data:`guigym.i18n.de.PHRASES`) for screen titles,
  row labels, details, placeholders, select options, dialogs and the variation's popups and
  banners, plus a few explicit formatters for dynamic shapes (``"3 selected"``,
  ``"Folder · 3 items"``, ``"Phone: …"``, month names, weekday prefixes; see
  :func:`guigym.i18n.de.translate`). A string that is in neither stays as it is.
* **Content** (note titles and bodies, message and mail texts, file, folder, event and product
  names) is made in German by the family itself (:mod:`guigym.i18n.content`: the same draws from
  German tables of the English ones' shape), so the task quotes it, ``success`` compares it and
  the agent types it in German. People's names, addresses, numbers and app names stay as they
  are (``OpenApp`` takes app names).
* **Instructions**: one function per family (:data:`guigym.i18n.de.INSTRUCTIONS`); UI words
  an instruction quotes go through the same phrasebook as the screen, so they always agree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from guigym.apps.base import View, Widget
from guigym.apps.schema import Scenario

#: Interface languages: English (every family's own) and the translated ones.
LANGUAGES = ("en", "de")


def language_of(scenario: Scenario) -> str:
    """The scenario's interface language (``"en"`` unless a variation set another)."""
    var = scenario.get("variation")
    return str(var.get("language", "en")) if var else "en"


def check_language(language: str, family: str | None = None) -> None:
    """Raise ``ValueError`` if ``language`` is unknown, or ``family`` has no instructions in it."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; expected one of {LANGUAGES}")
    if language == "en" or family is None:
        return
    table = _instructions(language)
    if family not in table:
        raise ValueError(f"language {language!r} is not available for the {family} family: German instructions exist for {sorted(table)}")


def _instructions(language: str) -> dict[str, Callable[[Scenario, np.random.Generator], str]]:
    from guigym.i18n import de

    return de.INSTRUCTIONS


def translator(language: str) -> Callable[..., str]:
    from guigym.i18n import de

    return de.translate


def _by_kind(language: str) -> dict[tuple[str, str], str]:
    """``(widget kind, English)``: the words that ``language`` says by the widget's kind (UI, even
    where content is spelt the same)."""
    from guigym.i18n import de

    return de.BY_KIND


def instruction(scenario: Scenario, language: str, rng: np.random.Generator) -> str:
    """The task of ``scenario`` said in ``language`` (made from ``scenario["task"]``'s fields)."""
    check_language(language, scenario["family"])
    if language == "en":
        return scenario["task"]["instruction"]
    return _instructions(language)[scenario["family"]](scenario, rng)


def restyle(text: str, style: str, language: str, rng: np.random.Generator) -> str:
    """``text`` (an instruction in ``language``) said in ``style`` (``guigym.variation``'s styles)."""
    from guigym.i18n import de

    return de.restyle(text, style, rng)


#: Keys of an app's spec that hold UI, not content: their strings are translated.
_UI_KEYS = frozenset(
    {
        "screens",
        "defaults",
        "option_labels",
        "kind",
        "root",
        "colours",
        "cats",
        "sizes",
        "colour",
        "cat",
        "repeat",
        "box",
        "today",
        "now",
        "time",
        "date",
        # task fields naming UI, not content (a setting's label and option, a size, a repeat)
        "label",
        "value",
        "size",
        "field",
        "type",
        "path",
        "screen",
        "setting",
        "choice_screen",
        "row",
    }
)
_KEEP: dict[int, tuple[Scenario, frozenset[str]]] = {}


def content_strings(scenario: Scenario) -> frozenset[str]:
    """What a screen shows that is content, not UI, and so stays as it is: app names and the
    strings of the apps' records (notes, files, events, mails, products, people, …) and of the
    task (memoised per scenario)."""
    hit = _KEEP.get(id(scenario))
    if hit is not None and hit[0] is scenario:
        return hit[1]
    out: set[str] = set(scenario["apps"])

    def walk(x: Any) -> None:
        if isinstance(x, str):
            out.add(x)
            if x[:1] in "<>!":  # a conversation's message: its mark, then the text (Messages)
                out.add(x[1:])
        elif isinstance(x, dict):
            for k, v in x.items():
                if k not in _UI_KEYS:
                    walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)

    for spec in scenario["apps"].values():
        walk(spec)
    walk({k: v for k, v in scenario["task"].items() if k != "instruction"})
    if len(_KEEP) >= 16:
        _KEEP.clear()
    keep = _KEEP[id(scenario)] = (scenario, frozenset(out))
    return keep[1]


def localize(scenario: Scenario, v: View) -> View:
    """``v`` in the scenario's language (``base.view`` calls this when it is not English)."""
    return localize_view(v, language_of(scenario), content_strings(scenario))


def localize_view(v: View, language: str, keep: frozenset[str] = frozenset()) -> View:
    """A copy of ``v`` with every shown string in ``language`` (``keep``: strings left as they
    are, the app names). Ids, values of fields and options' values are unchanged."""
    if language == "en":
        return v
    tr = translator(language)
    by_kind = _by_kind(language)

    def t(s: str, kind: str | None = None) -> str:
        if not s or (s in keep and (kind, s) not in by_kind):  # a kind's own word is UI ("Contacts" switch)
            return s
        return tr(s, kind)

    def w_(w: Widget) -> Widget:
        if w.kind == "icon":  # an app's name: OpenApp takes it
            return w
        ch: dict[str, Any] = {"label": t(w.label, w.kind), "detail": t(w.detail), "placeholder": t(w.placeholder)}
        if w.kind == "label" and isinstance(w.value, str) and w.value:  # a message shown in place of the label
            ch["value"] = t(w.value)
        if w.kind == "select" and w.options:
            ch["options"] = [[o[0], t(str(o[1]))] if isinstance(o, (list, tuple)) else o for o in w.options]
        if w.cells:
            ch["cells"] = [w_(c) for c in w.cells]
        return dataclasses.replace(w, **ch)

    back = localize_view(v.backdrop, language, keep) if v.backdrop is not None else None
    return dataclasses.replace(v, title=t(v.title), rows=[w_(w) for w in v.rows], backdrop=back)
