"""What ``run_stop``'s status decides: convergence is the target reached (the rules, the summarizer),
while the RCP checker reads the status of every ``run_stop`` and keeps the last."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable

from conftest import FIXTURES
from mlcheck.checker import check
from mlcheck.results import CheckResult

RESNET = Path("Acme") / "results" / "acme-t8" / "resnet"


def _record(line: str) -> dict[str, object]:
    return json.loads(line[len(":::MLLOG "):])  # type: ignore[no-any-return]


def _line(record: dict[str, object]) -> str:
    return ":::MLLOG " + json.dumps(record) + "\n"


def _changed(tmp_path: Path, runs: tuple[int, ...], change: Callable[[list[str], int], None]) -> CheckResult:
    package = tmp_path / "example"
    shutil.copytree(FIXTURES / "example", package)
    for run in runs:
        path = package / RESNET / f"result_{run}.txt"
        lines = path.read_text("utf-8").splitlines(keepends=True)
        change(lines, next(i for i, line in enumerate(lines) if '"key": "run_stop"' in line))
        path.write_text("".join(lines), "utf-8")
    return check([str(package / "Acme")])


def _aborted(lines: list[str], at: int, shift: int = 0) -> str:
    record = _record(lines[at])
    record["metadata"] = {**record["metadata"], "status": "aborted"}  # type: ignore[dict-item]
    record["time_ms"] = int(record["time_ms"]) + shift  # type: ignore[call-overload]
    return _line(record)


def _codes(result: CheckResult) -> set[tuple[str, str]]:
    return {(f.code, f.severity.label) for r in result.runs for f in r.findings} | \
        {(f.code, f.severity.label) for b in result.benchmarks for f in b.findings}


def test_a_run_that_reached_the_target_and_says_aborted_is_timed_as_the_summarizer_times_it(tmp_path: Path) -> None:
    """It converged (the target reached): timed, the score the summarizer publishes (was counted
    as the non-converged slowest run, 5.59 where 5.47 was published); MLC302 is a warning (the
    RCP checker tolerates one such run, and the package checker passes)."""
    clean = check([str(FIXTURES / "example" / "Acme")])
    result = _changed(tmp_path, (0,), lambda lines, at: lines.__setitem__(at, _aborted(lines, at)))
    [bench], [clean_bench] = result.benchmarks, clean.benchmarks
    assert bench.score.valid and bench.score.score_min == clean_bench.score.score_min
    assert "summarizer would publish" not in bench.score.reason
    run = next(r for r in result.runs if r.path.endswith("result_0.txt"))
    assert run.converged and run.time_to_train_min is not None
    assert _codes(result) == {("MLC302", "warning")} and bench.rcp is not None and bench.rcp.verdict == "pass"


def test_an_aborted_run_stop_after_the_last_success_counts_for_the_rcp_checker(tmp_path: Path) -> None:
    """Two runs log a second run_stop, aborted, after their success: the RCP checker keeps the
    last status and fails the folder (insufficient convergence); the summarizer times the first."""
    def second(lines: list[str], at: int) -> None:
        lines.insert(at + 1, _aborted(lines, at, 10))

    result = _changed(tmp_path, (0, 1), second)
    [bench] = result.benchmarks
    assert bench.rcp is not None and bench.rcp.verdict == "fail"
    assert "2 runs did not converge (result_0.txt, result_1.txt: no convergence point" in bench.rcp.reason
    assert ("MLC532", "error") in _codes(result) and ("MLC503", "error") not in _codes(result)


def test_an_aborted_run_stop_before_a_success_is_overruled_by_it(tmp_path: Path) -> None:
    """The reverse: the RCP checker keeps the last (success) status and passes; the runs reached
    the target, so they converged (were MLC503 and MLC532 errors the package checker does not give)."""
    def first(lines: list[str], at: int) -> None:
        lines.insert(at, _aborted(lines, at, -10))

    result = _changed(tmp_path, (0, 1), first)
    [bench] = result.benchmarks
    assert bench.rcp is not None and bench.rcp.verdict == "pass" and bench.score.valid
    assert {code for code, severity in _codes(result) if severity == "error"} == set()


def test_mlc503_says_why_each_run_has_no_time_to_train(tmp_path: Path) -> None:
    """A run whose run_stop comes before its run_start, and one with no run_stop, are not runs that
    "did not converge" (the summarizer counts both as failed): MLC503 says each run's reason."""
    package = tmp_path / "example"
    shutil.copytree(FIXTURES / "example", package)
    for run, early in ((0, True), (1, False)):
        path = package / RESNET / f"result_{run}.txt"
        lines = path.read_text("utf-8").splitlines(keepends=True)
        at = next(i for i, line in enumerate(lines) if '"key": "run_stop"' in line)
        if early:
            start = _record(next(line for line in lines if '"key": "run_start"' in line))
            record = _record(lines[at])
            record["time_ms"] = int(start["time_ms"]) - 1000  # type: ignore[call-overload]
            lines[at] = _line(record)
        else:
            del lines[at]
        path.write_text("".join(lines), "utf-8")
    result = check([str(package / "Acme")])
    [bench] = result.benchmarks
    [message] = [f.message for f in bench.findings if f.code == "MLC503"]
    assert message.startswith("2 of 5 runs have no time to train (")
    assert "result_0.txt: its run_stop comes before its run_start" in message
    assert "result_1.txt: no run_start and run_stop to time it" in message


def test_mlc502_names_the_result_files_missing(tmp_path: Path) -> None:
    """A folder short of runs: MLC502 says which result_<i>.txt is missing (review of session 49)."""
    package = tmp_path / "example"
    shutil.copytree(FIXTURES / "example", package)
    (package / RESNET / "result_2.txt").unlink()
    [bench] = check([str(package / "Acme")]).benchmarks
    [message] = [f.message for f in bench.findings if f.code == "MLC502"]
    assert message.startswith("4 runs found; training ") and message.endswith("requires 5 result files (result_2.txt is missing)")
