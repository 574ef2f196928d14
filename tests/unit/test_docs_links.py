"""The measurement logs that the README and docs/ cite exist: every figure they quote names
the file under docs/perf/ that holds its run, and a log renamed, moved or never committed
would leave a figure without its evidence."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PERF = ROOT / "docs" / "perf"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: a path under docs/perf/ in a code span; a trailing * or a * inside is a glob
CITED = re.compile(r"`(docs/perf/[^`\s]+)`")


def cited(path: Path) -> list[str]:
    return CITED.findall(path.read_text(encoding="utf-8"))


def test_the_docs_cite_logs():
    """The pattern finds what it is meant to: a check that reads no citation proves nothing."""
    assert len(cited(ROOT / "README.md")) >= 10
    assert len(cited(ROOT / "docs" / "performance.md")) >= 20


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_cited_log_exists(doc):
    names = sorted(p.name for p in PERF.iterdir())
    missing = []
    for ref in cited(doc):
        pattern = ref.removeprefix("docs/perf/")
        if not fnmatch.filter(names, pattern):
            missing.append(ref)
    assert not missing, f"{doc.name} cites logs that docs/perf/ lacks: {missing}"
