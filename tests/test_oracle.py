"""mlcheck's ``official_verdict`` against what the checker of record said about every corpus file
(../shared/oracle/graphcore-compliance.jsonl; skipped when ../shared is absent)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mlcheck import check
from mlcheck.model import Severity
from mlcheck.results import RunResult

from conftest import ORACLE

#: How the official checker words a failure -> the mlcheck codes that report the same problem.
_FAILURE_CODES: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"^Failed checks for eval_accuracy"), frozenset({"MLC301", "MLC304"})),
    (re.compile(r"^Required (EXACTLY_ONE|AT_LEAST_ONE) occurrence of 'run_(start|stop)'"),
     frozenset({"MLC101", "MLC102", "MLC104"})),
    (re.compile(r"^Required (EXACTLY_ONE|AT_LEAST_ONE) occurrence"),
     frozenset({"MLC105", "MLC106", "MLC201", "MLC205"})),
    (re.compile(r"^CHECK for 'init_stop' failed"), frozenset({"MLC401", "MLC109", "MLC404"})),
    (re.compile(r"^END check failed|failed test: sorted\(s\['initialized_tensors'\]\)"), frozenset({"MLC206"})),
)


def _codes_for(failure: str) -> frozenset[str]:
    for pattern, codes in _FAILURE_CODES:
        if pattern.search(failure):
            return codes
    raise AssertionError(f"no mlcheck code is mapped to the official failure {failure!r}")


@pytest.fixture(scope="module")
def judged(corpus_dir: Path) -> dict[str, RunResult]:
    runs: dict[str, RunResult] = {}
    for round_name, ruleset in (("training-1.1", "1.1.0"), ("training-2.0", "2.0.0")):
        for run in check([str(corpus_dir / round_name / "Graphcore")], ruleset=ruleset).runs:
            runs[str(Path(run.path).resolve().relative_to(corpus_dir.resolve()))] = run
    return runs


@pytest.fixture(scope="module")
def corpus_dir() -> Path:
    if not ORACLE.is_file():
        pytest.skip("../shared/oracle is not present")
    return ORACLE.parent.parent / "corpus"


def _oracle() -> list[dict[str, Any]]:
    return [json.loads(line) for line in ORACLE.read_text("utf-8").splitlines() if line.strip()]


def test_official_verdict_equals_record_verdict(judged: dict[str, RunResult]) -> None:
    rows = _oracle()
    assert len(rows) == 170
    wrong = [(row["path"], judged[row["path"]].official_verdict, row["record_verdict"])
             for row in rows if judged[row["path"]].official_verdict != row["record_verdict"]]
    assert not wrong


def test_failing_checks_agree(judged: dict[str, RunResult]) -> None:
    for row in _oracle():
        run = judged[row["path"]]
        official = {f.code for f in run.official_failures()}
        expected = [_codes_for(failure) for failure in row["record_failures"]]
        assert all(codes & official for codes in expected), row["path"]
        assert all(any(code in codes for codes in expected) for code in official), row["path"]


def test_record_warnings_are_warnings(judged: dict[str, RunResult]) -> None:
    for row in _oracle():
        run = judged[row["path"]]
        weight = [f for f in run.findings if f.code in ("MLC205", "MLC206")]
        if any("weights initialization" in w for w in row["record_warnings"]):
            assert weight and all(f.severity is Severity.WARNING and not f.official for f in weight), row["path"]
            # today's release fails these files; the message says so
            assert row["latest_verdict"] == "fail" and all("4.1.68" in f.message for f in weight)
        else:
            assert not weight, row["path"]


def test_verdicts_of_the_rounds(judged: dict[str, RunResult]) -> None:
    failing = sorted(path for path, run in judged.items() if run.official_verdict == "fail")
    assert len(failing) == 5
    assert sum("training-1.1" in p and "/resnet/" in p for p in failing) == 4
    assert sum("training-2.0" in p and "PaddlePaddle" in p for p in failing) == 1
