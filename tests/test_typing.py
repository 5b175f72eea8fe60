"""The type hints hold: mypy, configured in pyproject.toml (``[tool.mypy]``: guigym, agents,
train_small.py, benchmarks, scripts and examples), reports no error. guigym ships ``py.typed`` (PEP 561), so a user's type checker
reads these same hints: a wrong one would mislead it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_reports_no_error(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "--no-error-summary"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    if "No module named mypy" in proc.stderr:
        pytest.fail("mypy is missing: pip install -e '.[test]'")
    assert proc.returncode == 0, f"mypy found errors:\n{proc.stdout[-6000:]}{proc.stderr[-2000:]}"


def test_the_package_says_it_is_typed() -> None:
    assert (ROOT / "guigym" / "py.typed").is_file()
