"""The configured line length (``[tool.ruff] line-length`` in pyproject.toml) holds everywhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_no_line_longer_than_configured():
    # ruff reads line-length from pyproject.toml; E501 alone, so other rules stay advisory
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "E501", "--output-format", "concise", "--no-cache", "."],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    if "No module named ruff" in proc.stderr:
        pytest.fail("ruff is missing: pip install -e '.[test]'")
    if proc.returncode != 0:
        pytest.fail(f"lines over the configured length:\n{proc.stdout}{proc.stderr}", pytrace=False)


def test_no_module_constant_is_assigned_twice():
    """An upper-case module-level name bound twice silently drops the first value: a content
    table named ``ADDRESS`` (a format) replaced Shop's checkout field id ``ADDRESS`` below it."""
    import ast

    twice = []
    for path in sorted((ROOT / "guigym").rglob("*.py")):
        seen: dict[str, int] = {}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names: list[str] = []
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    names += [e.id for e in (t.elts if isinstance(t, ast.Tuple) else [t]) if isinstance(e, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.append(node.target.id)
            elif isinstance(node, ast.ImportFrom):
                names += [a.asname or a.name for a in node.names]
            for n in names:
                if n.isupper() and n in seen:
                    twice.append(f"{path.relative_to(ROOT)}: {n} (lines {seen[n]} and {node.lineno})")
                seen[n] = node.lineno
    assert not twice, twice
