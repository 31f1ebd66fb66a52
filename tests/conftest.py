"""Shared test helpers: where the fixtures and the (optional) shared corpus live."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
ORACLE = SHARED / "oracle" / "graphcore-compliance.jsonl"


@pytest.fixture
def corpus() -> Path:
    """The shared Graphcore corpus; tests using it are skipped when ../shared is absent."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    return CORPUS
