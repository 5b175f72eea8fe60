"""The README and docs/*.md as a new user reads them: the Use snippet prints what its comments
say, the tables name what the registry and the variation module hold, and figures quoted from
docs/results/ are the ones those files hold (a figure copied from the wrong run reads as true)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
RESULTS = ROOT / "docs" / "results"


def flat(text: str) -> str:
    """``text`` with line breaks as spaces (the docs wrap sentences anywhere)."""
    return re.sub(r"\s+", " ", text)


def log_blocks(path: Path) -> list[tuple[str, str]]:
    """``(header, body)`` per run of a benchmark log: a run starts at a ``# python ...`` line
    and takes the ``# second run`` / ``# third run`` parts that follow it."""
    blocks: list[tuple[str, str]] = []
    for line in path.read_text().splitlines():
        if line.startswith("# python") or line.startswith("# taskset") or not blocks:
            blocks.append((line, ""))
        else:
            header, body = blocks[-1]
            blocks[-1] = (header, body + line + "\n")
    return blocks


def test_use_snippet_prints_what_its_comments_say(tmp_path: Path) -> None:
    code = re.search(r"^## Use\n\n```python\n(.*?)^```", README, re.S | re.M)
    assert code, "README has no Use snippet"
    snippet = code.group(1)
    expected = []
    for line in snippet.splitlines():
        if line.startswith("print("):
            comment = line.split("#", 1)[1].strip()
            expected.append(comment[1:-1] if comment.startswith('"') else comment)
    assert len(expected) == 2
    (tmp_path / "use.py").write_text(snippet)
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, str(tmp_path / "use.py")], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == expected


def test_environments_table_is_the_registry() -> None:
    from guigym.registration import ENVS, family_of

    section = README.split("## Environments", 1)[1].split("Every id takes", 1)[0]
    rows = re.findall(r"^\| `(GuiGym-[\w-]+)` \| (\w+) \| .* \| (\d+) \|$", section, re.M)
    assert rows == [(e.id, e.family, str(e.max_episode_steps)) for e in ENVS]
    assert all(family_of(e).levels == ("easy", "medium", "hard") for e in ENVS)  # 'level="easy" | "medium" | "hard"'


def test_variation_axes_table_is_the_variation_module() -> None:
    from guigym.layout import DENSITIES
    from guigym.variation import AXES

    section = README.split("### Variation axes and held-out splits", 1)[1].split("\n\n\n", 1)[0]
    rows = {m[0]: (m[1], m[2]) for m in re.findall(r"^\| `(\w+)`[^|]* \| (.*?) \| (.*?) \|$", section, re.M)}
    assert set(rows) == set(AXES)
    for axis in ("font_scale", "popup_at"):
        for split, cell in zip(("train", "test"), rows[axis]):
            assert [float(x) for x in cell.split(", ")] == [float(v) for v in AXES[axis][split]], axis
    for split, cell in zip(("train", "test"), rows["density"]):
        named = re.findall(r"(\w+) (\d+)/(\d+)", cell)
        assert [n for n, _, _ in named] == list(AXES["density"][split])
        assert all(DENSITIES[n] == (int(h), int(p)) for n, h, p in named)
    for split, cell in zip(("train", "test"), rows["theme"]):
        assert re.findall(r"(\w+)(?: \([^)]*\))?(?:, |$)", cell) == list(AXES["theme"][split])


@pytest.mark.parametrize("doc", [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_generated_tables_equal_their_results_files(doc: Path) -> None:
    """A ``<!-- table:NAME -->`` block is what ``benchmarks/reproduce.py`` wrote to docs/results/NAME.md."""
    for name, body in re.findall(r"<!-- table:(\w+) -->\n(.*?)<!-- /table:\1 -->", doc.read_text(), re.S):
        assert body == (RESULTS / f"{name}.md").read_text(), name


def test_speed_table_is_the_first_logged_run() -> None:
    table = README.split("## Speed", 1)[1].split("One run of", 1)[0]
    rows = re.findall(r"^\| (\w+) \| (\w+) \| (\d+) \| (\d+) \| (\d+) \|$", table, re.M)
    commit = re.search(r"One run of `taskset -c 1 python benchmarks/bench_env.py --vector 0` .*?\(commit (\w{7})", flat(README))
    assert commit
    body = next(body for header, body in log_blocks(RESULTS / "bench_env.log") if commit.group(1) in header)
    logged = re.findall(r"^GuiGym-(\w+)-v0\s+(\w+)\s+(\d+)\s+(\d+)\s+(\d+)$", body, re.M)
    assert rows == logged and len(rows) == 33


@pytest.mark.parametrize("doc", ["README.md", "docs/speed.md"])
def test_playwright_loop_figures_are_those_of_the_commit_named(doc: Path) -> None:
    """'at <commit> the loop ran a, b and c steps/s': the commit's runs in bench_browser.log logged
    those anchor rates, in that order (c1d6d8b's sentence once quoted fe84ae3's runs)."""
    text = flat((ROOT / doc).read_text())
    claims = re.findall(r"at ([0-9a-f]{7}),? (?:a plain Playwright [^;]*? loop ran |the loop ran )?([\d.]+), ([\d.]+) and ([\d.]+) steps/s",
                        text)
    assert len(claims) >= 2
    blocks = log_blocks(RESULTS / "bench_browser.log")
    for commit, *rates in claims:
        anchors = [a for header, body in blocks if commit in header
                   for a in re.findall(r"loop\): ([\d.]+) steps/s", body)]
        assert any(anchors[i:i + 3] == rates for i in range(len(anchors))), (commit, rates, anchors)


def test_i18n_content_figures_are_the_logged_run() -> None:
    text = flat(README)
    log = (RESULTS / "i18n_coverage.log").read_text()
    first = log.split("\n# ", 2)[1]  # the newest table (the file starts with a note on its rerun)
    rows = {m[0]: (int(m[2]), int(m[3]), m[7]) for m in
            re.findall(r"^(\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)%\s+(\d+)%$", first, re.M)}
    shares = re.search(r"share made in German is (.*?) — ", text)
    assert shares
    for pct, family in re.findall(r"(\d+) % (?:in )?(\w+)", shares.group(1)):
        assert rows[family][2] == pct, family
    without = re.search(r"\(([A-Z]\w+(?: and [A-Z]\w+)*) shows? no content", text)
    assert without
    for family in without.group(1).split(" and "):
        assert rows[family][:2] == (0, 0), f"{family} shows {sum(rows[family][:2])} content strings"


def test_ppo_means_are_the_tables() -> None:
    text = flat((ROOT / "docs" / "ppo_baseline.md").read_text())
    quoted = re.findall(r"sampled (\d+) %, (\d+) %, (\d+) %[;,] mean (\d+) %", text)
    assert len(quoted) >= 2
    for (a, b, c, mean), name in zip(quoted, ("ppo.md", "ppo200.md")):
        table = (RESULTS / name).read_text()
        sampled = re.findall(r"^\| (\w+) \| \d+% \| (\d+)% \|", table, re.M)
        assert sampled == [("0", a), ("1", b), ("2", c), ("mean", mean)], name
