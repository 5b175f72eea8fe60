"""Doctest collection over guigym/ and agents/: every module is either importable with the
core dependencies or named in the root conftest.py with the optional import it needs."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# import names of pyproject's core dependencies (gymnasium, numpy, pygame, pillow, tqdm)
CORE = {"gymnasium", "numpy", "pygame", "PIL", "tqdm"}
OURS = {"guigym", "agents", "sites", "__future__"}


def _root_conftest():
    spec = importlib.util.spec_from_file_location("_root_conftest", ROOT / "conftest.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _top_level_imports(path: Path) -> set[str]:
    """Top-level packages imported when the module is (statements at module level only)."""
    out: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_optional_imports_are_listed():
    optional = _root_conftest().OPTIONAL_IMPORTS
    unlisted = []
    for path in sorted([*ROOT.glob("guigym/**/*.py"), *ROOT.glob("agents/**/*.py")]):
        rel = path.relative_to(ROOT).as_posix()
        extra = _top_level_imports(path) - CORE - OURS - set(sys.stdlib_module_names)
        listed = {optional[rel][0]} if rel in optional else set()
        unlisted += [f"{rel}: {m}" for m in sorted(extra - listed)]
    assert not unlisted, "modules that import an optional dependency at the top; list them in conftest.py:\n" + "\n".join(unlisted)


def test_listed_modules_exist():
    assert all((ROOT / rel).is_file() for rel in _root_conftest().OPTIONAL_IMPORTS)
