"""MLC307 eval-cadence: closed runs evaluate on the round's schedule (a rule of the rules text
that the official checker leaves out)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FIXTURES
from mlcheck import check

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"


def _eval_rows(lines: list[str]) -> list[int]:
    return [i for i, row in enumerate(lines) if '"key": "eval_accuracy"' in row]


def _shift(lines: list[str], index: int, by: int) -> list[str]:
    record = json.loads(lines[index][len(":::MLLOG "):])
    record["metadata"]["epoch_num"] += by
    return lines[:index] + [":::MLLOG " + json.dumps(record) + "\n"] + lines[index + 1:]


def _cadence(path: Path) -> list[tuple[int | None, bool, str]]:
    return [(f.line, f.official, f.severity.label) for f in check([str(path)]).all_findings()
            if f.code == "MLC307"]


def test_resnet_on_schedule_has_no_finding() -> None:
    assert _cadence(GOOD) == []


def test_resnet_eval_off_the_4_epoch_schedule_is_one_warning(tmp_path: Path) -> None:
    lines = GOOD.read_text("utf-8").splitlines(keepends=True)
    rows = _eval_rows(lines)
    assert len(rows) >= 3
    log = tmp_path / "result_0.txt"
    log.write_text("".join(_shift(lines, rows[1], 1)), "utf-8")  # 2nd eval one epoch late
    assert _cadence(log) == [(rows[1] + 1, False, "warning")]


def test_bert_eval_off_the_formula_is_a_warning(tmp_path: Path, corpus: Path) -> None:
    source = next(iter(sorted((corpus / "training-2.0").rglob("*POPART-closed/bert/result_0.txt"))))
    lines = source.read_text("utf-8").splitlines(keepends=True)
    assert _cadence(source) == []
    rows = _eval_rows(lines)
    log = tmp_path / "result_0.txt"
    log.write_text("".join(_shift(lines, rows[2], 60_000)), "utf-8")
    found = _cadence(log)
    assert found == [(rows[2] + 1, False, "warning")]


def test_the_whole_corpus_is_on_schedule(corpus: Path) -> None:
    found = [f for f in check([str(corpus)]).all_findings() if f.code == "MLC307"]
    assert found == []
