"""agents.usage: the one way the scripts report a bad flag found after tyro's parse."""

from __future__ import annotations

import pytest

from agents.usage import UsageError, UsageParser


def test_usage_error_exits_2_with_its_message_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        raise UsageError("train_small.py: --seed must be >= 0")
    assert e.value.code == 2 and str(e.value) == "train_small.py: --seed must be >= 0"
    assert capsys.readouterr().err == "train_small.py: --seed must be >= 0\n"


def test_usage_parser_error_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    p = UsageParser(prog="bench.py", usage="%(prog)s [-h] [OPTIONS]")
    with pytest.raises(UsageError) as e:
        p.error("--steps must be >= 1, got 0")
    assert e.value.code == 2 and str(e.value) == "bench.py: error: --steps must be >= 1, got 0"
    err = capsys.readouterr().err
    assert err.startswith("usage: bench.py [-h] [OPTIONS]\n") and err.endswith("bench.py: error: --steps must be >= 1, got 0\n")


def test_usage_parser_help_still_exits_0() -> None:
    p = UsageParser(prog="bench.py")
    with pytest.raises(SystemExit) as e:
        p.parse_args(["--help"])
    assert e.value.code == 0 and not isinstance(e.value, UsageError)
