"""First rules (issue 2 §6): run boundaries, status, quality target, clock order, benchmark names;
plus the folder and usage errors of the CLI (MLC501, exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlcheck import check
from cli_helpers import ISSUE2_CODES, assert_no_traceback, run_cli

BAD = Path(__file__).resolve().parent.parent / "fixtures" / "bad"

# file -> ((code, physical line), ...), exit code, expected run status / converged.
RULE_CASES: dict[str, tuple[tuple[tuple[str, int], ...], int]] = {
    "run_start_missing.txt": ((("MLC101", 1),), 1),
    "run_stop_missing.txt": ((("MLC102", 23),), 1),
    "run_stop_no_status.txt": ((("MLC103", 24),), 1),
    "run_stop_before_run_start.txt": ((("MLC403", 24),), 1),
    # Open: MLC303 (info) says the run counts as non-converged (an open run converges by its
    # status); MLC302 that it claims otherwise. (Closed, it converged: MLC302 alone.)
    "aborted_but_reached.txt": ((("MLC302", 24), ("MLC303", 24)), 1),
    "success_not_reached.txt": ((("MLC301", 24),), 1),
    "eval_accuracy_string.txt": ((("MLC304", 17),), 1),
    "eval_accuracy_nan.txt": ((("MLC304", 17),), 0),  # a warning: the official checker passes it
    "unknown_benchmark.txt": ((("MLC011", 3),), 1),
}





def codes_and_lines(path: Path) -> list[tuple[str, int | None]]:
    result = check([str(path)])
    return sorted((f.code, f.line) for f in result.all_findings() if f.code in ISSUE2_CODES)


@pytest.mark.parametrize("name", sorted(RULE_CASES))
def test_rule_case_library(name: str) -> None:
    expected, _ = RULE_CASES[name]
    assert codes_and_lines(BAD / name) == sorted(expected)


@pytest.mark.parametrize("name", sorted(RULE_CASES))
def test_rule_case_cli(name: str) -> None:
    expected, exit_code = RULE_CASES[name]
    result = run_cli("check", str(BAD / name))
    assert_no_traceback(result)
    assert result.exit_code == exit_code, result.output
    flat = result.stdout.replace("\n", "")
    for code, line in expected:
        assert f"{BAD / name}:{line}: " in flat and code in flat, (code, line, result.stdout)


@pytest.mark.parametrize("name,status,converged", [
    ("base_open.txt", "success", True),
    ("aborted_but_reached.txt", "aborted", False),
    ("run_stop_missing.txt", None, False),
    ("run_stop_before_run_start.txt", "success", False),
    ("success_not_reached.txt", "success", False),
])
def test_status_and_convergence(name: str, status: str | None, converged: bool) -> None:
    (run,) = check([str(BAD / name)]).runs
    assert (run.status, run.converged) == (status, converged)
    assert (run.time_to_train_min is not None) == converged


def test_base_run_is_timed_from_run_start_to_run_stop() -> None:
    (run,) = check([str(BAD / "base_open.txt")]).runs
    assert run.ruleset == "2.0.0" and run.ruleset_source is not None and "run date" in run.ruleset_source
    # run_start at init_stop + 1 ms, run_stop after two blocks of 98002 ms that start 1 ms later.
    assert run.time_to_train_min == (2 * 98002 + 1) / 60000
    assert run.verdict == "pass" and run.official_verdict == "pass"


def test_official_flags() -> None:
    """The official checker of record fails a missing run_stop, not an aborted run that reached
    the target (its summarizer times that run as a success)."""
    stop_missing = check([str(BAD / "run_stop_missing.txt")]).runs[0]
    assert stop_missing.official_verdict == "fail"
    aborted = check([str(BAD / "aborted_but_reached.txt")]).runs[0]
    assert aborted.verdict == "fail" and aborted.official_verdict == "pass"


def test_unknown_benchmark_lists_the_valid_ones() -> None:
    (found,) = [f for f in check([str(BAD / "unknown_benchmark.txt")]).all_findings() if f.code == "MLC011"]
    assert "'resnet50'" in found.message and "resnet" in found.message and "bert" in found.message


def test_a_benchmark_of_another_round_is_named_with_the_ruleset_to_pass() -> None:
    """ResNet judged under 5.1 (a clock off, or --ruleset): MLC011 names the nearest round that has
    it and the --ruleset that judges it there (session 36)."""
    good = BAD.parent / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    (found,) = [f for f in check([str(good)], ruleset="5.1.0").all_findings() if f.code == "MLC011"]
    assert found.message.endswith("It is a benchmark of training 4.0.0 (and of 6 other rounds): "
                                  "pass --ruleset 4.0.0 if the run is for it")
    (unknown,) = [f for f in check([str(BAD / "unknown_benchmark.txt")]).all_findings() if f.code == "MLC011"]
    assert "--ruleset" not in unknown.message  # ('resnet50' is no round's)


def test_folder_without_logs_is_mlc501(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("nothing here\n", "utf-8")
    result = run_cli("check", str(tmp_path))
    assert_no_traceback(result)
    assert result.exit_code == 1
    assert f"{tmp_path}: error MLC501 no-logs" in result.stdout.replace("\n", "")
    report = check([str(tmp_path)])
    assert [(f.code, f.path) for f in report.findings] == [("MLC501", str(tmp_path))]


def test_missing_path_exits_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "result_0.txt"
    result = run_cli("check", str(missing))
    assert_no_traceback(result)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert str(missing) in result.stderr and "no such file or folder" in result.stderr


def test_unknown_ruleset_exits_2_and_lists_the_valid_ones() -> None:
    result = run_cli("check", "--ruleset", "3.7.0", str(BAD / "base_open.txt"))
    assert_no_traceback(result)
    assert result.exit_code == 2
    for version in ("1.0.0", "1.1.0", "2.0.0", "2.1.0"):
        assert version in result.stderr
    score = run_cli("score", "--ruleset", "banana", str(BAD / "base_open.txt"))
    assert score.exit_code == 2 and "valid rulesets" in score.stderr


def test_forced_ruleset_is_reported() -> None:
    (run,) = check([str(BAD / "base_open.txt")], ruleset="2.1").runs
    assert (run.ruleset, run.ruleset_source) == ("2.1.0", "--ruleset")
