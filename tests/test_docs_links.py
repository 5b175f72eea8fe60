"""Links in README.md and docs/*.md lead somewhere: every ``(#anchor)`` names a heading of its
file and every relative link names a file of the repository (headings get renamed and files
moved; a dead link fails quietly on GitHub)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens.

    >>> slug("Training: `train_small.py` (GRPO, TraceR1 stage 1 and 2)")
    'training-train_smallpy-grpo-tracer1-stage-1-and-2'
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(md: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in FENCE.sub("", md).splitlines():
        if m := re.match(r"#{1,6} (.+)", line):
            s = slug(m.group(1))
            out.add(s if s not in seen else f"{s}-{seen[s]}")  # a repeated heading gets -1, -2, ...
            seen[s] = seen.get(s, 0) + 1
    return out


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_links_resolve(doc: Path) -> None:
    md = doc.read_text()
    own = anchors(md)
    dead = []
    for target in LINK.findall(FENCE.sub("", md)):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            dead.append(f"{target}: no file {path}")
        elif anchor and file.suffix == ".md" and anchor not in (own if file == doc else anchors(file.read_text())):
            dead.append(f"{target}: no heading #{anchor} in {file.relative_to(ROOT)}")
    assert not dead, dead


def test_the_slug_rule_finds_the_readme_sections() -> None:
    assert {"two-commands", "variation-axes-and-held-out-splits", "scaling-out"} <= anchors((ROOT / "README.md").read_text())
