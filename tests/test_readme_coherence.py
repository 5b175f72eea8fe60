"""The README's citations resolve: every test it names exists, every ``guigym.…`` name imports.

A user checks a guarantee by running the test the README names next to it; a rename (1423482's
helper extraction turned ``…_is_refused`` into ``…_isassert_set_state_refused`` in six test
names) left the README pointing at tests that no longer existed.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _defined_tests() -> set[str]:
    names: set[str] = set()
    for f in (ROOT / "tests").glob("test_*.py"):
        names.update(re.findall(r"^(?:async )?def (test_\w+)", f.read_text(encoding="utf-8"), flags=re.M))
    return names


def test_every_test_the_readme_names_exists() -> None:
    defined = _defined_tests()
    files = {f.stem for f in (ROOT / "tests").glob("test_*.py")}
    cited = set(re.findall(r"(?<![\w/.])(test_\w+)", README))
    missing = sorted(n for n in cited if n not in defined and n not in files)
    assert not missing, f"the README cites tests that do not exist: {missing}"


def test_every_file_and_test_pair_the_readme_names_exists() -> None:
    for path, name in re.findall(r"(tests/\w+\.py)::(\w+)", README):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {name}\b", text, flags=re.M), f"{path}::{name}"


def test_every_guigym_name_the_readme_names_resolves() -> None:
    missing = []
    for dotted in sorted(set(re.findall(r"\b(guigym(?:\.[A-Za-z_]\w*)+)", README))):
        parts = dotted.split(".")
        obj: Any = None
        rest: list[str] = []
        for k in range(len(parts), 0, -1):
            try:
                obj, rest = importlib.import_module(".".join(parts[:k])), parts[k:]
                break
            except ImportError:
                continue
        try:
            for attr in rest:
                obj = getattr(obj, attr)
        except AttributeError:
            missing.append(dotted)
    assert not missing, f"the README names what guigym does not have: {missing}"
