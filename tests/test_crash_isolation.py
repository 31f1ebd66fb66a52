"""A rule (or a stage of rules) that raises on some input becomes an MLC000 finding; every other
check still runs and mlcheck exits 1, not 2 (quality bar: internal errors in one rule do not stop
the others)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

import pytest
from click.testing import CliRunner

import mlcheck.checker
import mlcheck.judge.folders
import mlcheck.judge.package_check
import mlcheck.results
from mlcheck import check
from mlcheck.cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"
BAD = Path(__file__).resolve().parent.parent / "fixtures" / "bad"


def _boom(*_args: Any, **_kwargs: Any) -> NoReturn:
    raise ZeroDivisionError("synthetic failure")


def _codes(result: mlcheck.results.CheckResult) -> set[str]:
    return {f.code for f in result.all_findings()}


def test_crashing_run_rule_leaves_the_other_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    checks = tuple((name, _boom if name == "convergence" else fn) for name, fn in mlcheck.checker.RUN_CHECKS)
    monkeypatch.setattr(mlcheck.checker, "RUN_CHECKS", checks)
    result = check([str(BAD / "run_stop_before_run_start.txt")])
    crashes = [f for f in result.all_findings() if f.code == "MLC000"]
    assert len(crashes) == 1 and "convergence" in crashes[0].message and crashes[0].run_index == 0
    assert "MLC403" in _codes(result)  # the timing rule still ran


def test_crashing_folder_checks_leave_the_other_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mlcheck.judge.folders, "rcp_for_runs", _boom)
    result = check([str(EXAMPLE)])
    (bench,) = result.benchmarks
    assert [f.code for f in bench.findings] == ["MLC000"]
    assert bench.score.score_min is None and not bench.score.valid
    assert all(run.verdict == "pass" for run in result.runs)


def test_crashing_package_checks_exit_1_not_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mlcheck.judge.package_check, "check_layout", _boom)
    outcome = CliRunner().invoke(main, ["check", "--format", "json", str(EXAMPLE)])
    assert outcome.exit_code == 1, outcome.output
    report = json.loads(outcome.stdout)
    assert [f["code"] for f in report["findings"]] == ["MLC000"]
    assert report["benchmarks"][0]["valid"] is True


def test_crashing_reader_on_one_file_leaves_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    real = mlcheck.checker.check_log

    def flaky(ref: Any, forced: Any, *rest: Any) -> Any:
        return _boom() if ref.path.endswith("result_2.txt") else real(ref, forced, *rest)

    monkeypatch.setattr(mlcheck.checker, "check_log", flaky)
    result = check([str(EXAMPLE)])
    by_name = {Path(r.path).name: r for r in result.runs}
    assert [f.code for f in by_name["result_2.txt"].findings] == ["MLC000"]
    assert all(by_name[f"result_{i}.txt"].verdict == "pass" for i in (0, 1, 3, 4))
