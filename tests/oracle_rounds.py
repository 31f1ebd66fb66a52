"""The published results of whole rounds of ``../shared/other-submitters`` judged by mlcheck, beside
what each round's checker of record said of each file (``../shared/oracle/other-submitters.jsonl``):
the shared part of ``test_other_submitters.py`` (1.0-2.1) and ``test_later_rounds.py`` (3.0-5.1)."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Any, Sequence

import pytest

from mlcheck import check
from mlcheck.results import BenchmarkResult, RunResult

from conftest import SHARED

OTHERS = SHARED / "other-submitters"
ORACLE = SHARED / "oracle" / "other-submitters.jsonl"

Judged = tuple[list[dict[str, Any]], dict[str, list[RunResult]], dict[str, BenchmarkResult]]
"""The oracle rows of the rounds, the runs mlcheck read from each file and each benchmark folder's
result, keyed by paths relative to ``OTHERS``."""


def judge_rounds(rounds: Sequence[str]) -> Judged:
    """Every oracle row of ``rounds`` (``training-X.Y``) and mlcheck's judgement of each org's
    package; skips the test with the reason when the shared data is absent."""
    if not ORACLE.is_file() or not OTHERS.is_dir():
        pytest.skip("../shared/other-submitters or ../shared/oracle/other-submitters.jsonl is not present")
    rows = [json.loads(line) for line in ORACLE.read_text("utf-8").splitlines() if line.strip()]
    rows = [row for row in rows if row["path"].split("/")[0] in rounds]
    runs: dict[str, list[RunResult]] = defaultdict(list)
    benches: dict[str, BenchmarkResult] = {}
    for round_name in rounds:
        for org in sorted(p.name for p in (OTHERS / round_name).iterdir() if p.is_dir()):
            result = check([str(OTHERS / round_name / org)])
            for run in result.runs:
                runs[os.path.relpath(run.path, OTHERS)].append(run)
            for bench in result.benchmarks:
                if bench.folder:
                    benches[os.path.relpath(bench.folder, OTHERS)] = bench
    return rows, runs, benches


def not_one_run(judged: Judged) -> dict[str, int]:
    """The oracle's files that mlcheck did not read as exactly one run, with their run counts."""
    rows, runs, _ = judged
    return {row["path"]: n for row in rows if (n := len(runs.get(row["path"], []))) != 1}
