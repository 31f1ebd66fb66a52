"""Shared test helpers: where the fixtures and the (optional) shared corpus live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHARED = Path(os.environ.get("MLCHECK_TEST_SHARED") or ROOT.parent / "shared")  # (the public MLCommons data)
CORPUS = SHARED / "corpus"
ORACLE = SHARED / "oracle" / "graphcore-compliance.jsonl"


@pytest.fixture
def corpus() -> Path:
    """The shared Graphcore corpus; tests using it are skipped when ../shared is absent."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    return CORPUS
