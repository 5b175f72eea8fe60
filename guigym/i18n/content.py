"""Content in the interface language: the tables families draw names and texts from.

A family makes its content (mail subjects and bodies, messages, file and folder names, event
titles, products, notes, …) by drawing from module-level tables (``SUBJECTS``, ``STEMS``, …).
With ``language="de"`` the env generates the scenario inside :func:`generating_in`, and a family
reads its tables through :func:`tables`: the German tables of
``guigym.i18n.de_content.<module>`` where there is one, the module's own otherwise. A German
table has the English one's length and shape, entry for entry, so the generator makes the
same draws and the same task — the same reference, step for step — with German words, which
the task quotes, ``success`` compares and the agent types (``Type("Rechnung März")``).

People's names, e-mail addresses, phone numbers, times and app names stay as they are: they are
names (and ``OpenApp`` takes app names). English generation is untouched: :func:`tables` hands
back the module itself.

>>> from guigym.i18n.content import generating_in, tables
>>> import guigym.apps.files as files
>>> tables(files.__name__) is files
True
>>> with generating_in("de"):
...     tables(files.__name__).STEMS[0] != files.STEMS[0]
True
"""

from __future__ import annotations

import contextlib
import importlib
import string
import sys
import types
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

#: The language a scenario is being generated in (a context variable: threads and event loops
#: that generate at once keep their own).
_LANGUAGE: ContextVar[str] = ContextVar("guigym_content_language", default="en")
#: ``(module name, language)``: the module's tables in that language (built once).
_TABLES: dict[tuple[str, str], Any] = {}
#: The package of each language's tables (one module per family module, named as it is).
PACKAGES = {"de": "guigym.i18n.de_content"}


def _check(language: str) -> None:
    if language != "en" and language not in PACKAGES:
        raise ValueError(f"no content tables for language {language!r}; expected 'en' or one of {sorted(PACKAGES)}")


@contextlib.contextmanager
def generating_in(language: str) -> Iterator[None]:
    """Within the block, :func:`tables` reads ``language``'s tables (``"en"``: the modules' own)."""
    _check(language)
    token = _LANGUAGE.set(language)
    try:
        yield
    finally:
        _LANGUAGE.reset(token)


def language() -> str:
    """The language content is being generated in now (``"en"`` outside :func:`generating_in`)."""
    return _LANGUAGE.get()


def tables(module: str, language: str | None = None) -> Any:
    """The content tables of ``module`` (a family module's ``__name__``) in ``language`` (None: the
    one being generated in): the module itself in English; else a namespace of the module's names
    with the language's tables in place of the English ones."""
    lang = _LANGUAGE.get() if language is None else language
    if lang == "en":
        return sys.modules[module]
    _check(lang)
    hit = _TABLES.get((module, lang))
    if hit is None:
        own = sys.modules[module]
        local = translated_module(module, lang)
        hit = types.SimpleNamespace(**vars(own))
        if local is not None:
            hit.__dict__.update(table_names(local))
        _TABLES[(module, lang)] = hit
    return hit


def translated_module(module: str, lang: str) -> types.ModuleType | None:
    """``module``'s tables in ``lang`` (``None``: it has none, its content stays as it is)."""
    name = f"{PACKAGES[lang]}.{module.rsplit('.', 1)[-1]}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:  # the module exists but imports something missing: a real error
            raise
        return None


def table_names(local: types.ModuleType) -> dict[str, Any]:
    """The tables a translated module defines: its upper-case names (not its imports)."""
    return {k: v for k, v in vars(local).items() if k.isupper() and not isinstance(v, types.ModuleType)}


def _fields(s: str) -> list[str]:
    return sorted(f for _, f, _, _ in string.Formatter().parse(s) if f is not None)


def shape_problems(own: Any, local: Any, where: str) -> list[str]:
    """How ``local`` (a translated table) differs in shape from ``own`` (the English one): type,
    length, nested shape (dicts entry by entry, in order) and ``str.format`` fields. ``[]``: it
    can stand in for it in every draw."""
    if isinstance(own, str):
        if not isinstance(local, str):
            return [f"{where}: a {type(local).__name__} for a str"]
        if _fields(own) != _fields(local):
            return [f"{where}: format fields {_fields(local)} for {_fields(own)} ({local!r})"]
        return [] if bool(own) == bool(local) else [f"{where}: {local!r} for {own!r} (empty on one side)"]
    if isinstance(own, (tuple, list)):
        if type(local) is not type(own) or len(local) != len(own):
            return [f"{where}: {type(local).__name__} of {len(local) if hasattr(local, '__len__') else '?'} "
                    f"for {type(own).__name__} of {len(own)}"]
        return [p for i, (a, b) in enumerate(zip(own, local)) for p in shape_problems(a, b, f"{where}[{i}]")]
    if isinstance(own, dict):
        if not isinstance(local, dict) or len(local) != len(own):
            return [f"{where}: {type(local).__name__} of {len(local) if hasattr(local, '__len__') else '?'} for a dict of {len(own)}"]
        out = []
        for (ka, va), (kb, vb) in zip(own.items(), local.items()):  # keys in the same order: drawn by position
            out += shape_problems(ka, kb, f"{where} key {ka!r}") + shape_problems(va, vb, f"{where}[{ka!r}]")
        return out
    if isinstance(own, (frozenset, set)):
        return [] if type(local) is type(own) and len(local) == len(own) else [f"{where}: a set of another size"]
    return [] if type(local) is type(own) else [f"{where}: a {type(local).__name__} for a {type(own).__name__}"]


def check_module(module: str, lang: str) -> list[str]:
    """Every table ``lang`` translates for ``module`` exists there and has its shape (a test)."""
    own = importlib.import_module(module)
    local = translated_module(module, lang)
    if local is None:
        return []
    out = []
    for k, v in table_names(local).items():
        if not hasattr(own, k):
            out.append(f"{local.__name__}.{k}: {module} has no table {k}")
        else:
            out += shape_problems(getattr(own, k), v, f"{local.__name__}.{k}")
    return out
