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
