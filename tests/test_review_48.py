"""Defects left from session 47's reviews and found by session 48's (session 48)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck import check
from mlcheck.model import Severity
from mlcheck.rules.benchmark_names import what_tools_do

ACME = FIXTURES / "example" / "Acme"


@pytest.mark.parametrize("jobs", [0, -2])
def test_the_api_refuses_no_processes(jobs: int) -> None:
    with pytest.raises(ValueError, match=rf"^jobs must be 1 or more processes, not {jobs} "):
        check(ACME, jobs=jobs)


@pytest.mark.parametrize("jobs", [True, 2.0, "2", None])
def test_the_api_refuses_jobs_that_are_no_whole_number(jobs: object) -> None:
    with pytest.raises(TypeError, match=r"^jobs must be a whole number of processes \(1 or more\), not "):
        check(ACME, jobs=jobs)  # type: ignore[arg-type]


def test_the_api_takes_two_processes() -> None:
    assert [run.verdict for run in check(ACME, jobs=2).runs] == ["pass"] * 5


def _example_copy(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    shutil.copytree(ACME, root / "Acme")
    return root / "Acme"


def test_an_empty_folder_no_benchmark_is_a_warning_where_the_rounds_tools_ignore_it(tmp_path: Path) -> None:
    """``results/<system>/.ipynb_checkpoints/``: the package checker skips it and the summarizers
    of rounds before 6.0 ignore a folder without result files (session 48's review: an error that
    said the summarizer stops on it, which only 6.0's release and later do)."""
    acme = _example_copy(tmp_path)
    (acme / "results" / "acme-t8" / ".ipynb_checkpoints").mkdir()
    result = check(acme)
    [found] = [f for f in result.findings if f.code == "MLC506"]
    assert found.severity is Severity.WARNING and "the round's result summarizer ignores it" in found.message
    assert all(run.verdict == "pass" for run in result.runs) and not [f for f in result.findings if f.severity is Severity.ERROR]


def test_what_the_tools_do_with_a_folder_no_benchmark_by_round() -> None:
    assert what_tools_do(".ipynb_checkpoints", "6.0.0", {"flux1"}, False) == (
        "The package checker skips it; the result summarizer stops on it and publishes no result of its package", True)
    assert what_tools_do("resnet50", "2.0.0", {"resnet"}, True) == (
        "The package checker skips it; the result summarizer stops on it and publishes no result of its package", True)
    said, refused = what_tools_do("mask", "2.0.0", {"maskrcnn", "resnet"}, True)
    assert refused and "reads it as maskrcnn and publishes its score" in said


def test_a_result_file_of_no_record_stops_the_rcp_checker_of_a_round_that_compares_runs(tmp_path: Path) -> None:
    """The record checker reads it as a run of no batch size and no benchmark name; after a file
    with them it raises KeyError: None and the package checker stops (session 48's review: mlcheck
    said the official tools would publish the score, RCP pass)."""
    acme = _example_copy(tmp_path)
    (acme / "results" / "acme-t8" / "resnet" / "result_4.txt").write_bytes(b"")
    [bench] = check(acme, ruleset="2.1.0").benchmarks
    assert bench.rcp is not None and bench.rcp.verdict == "fail"
    assert "result_4.txt logs no submission_benchmark among runs that name 'resnet'" in bench.rcp.reason
    assert "MLC532" in {f.code for f in bench.all_findings()}


def test_logs_inside_a_benchmark_folder_are_grouped_under_the_packages_org_and_system(tmp_path: Path) -> None:
    """``resnet/extra/result_9.txt`` whose records name another org and system (a template's
    placeholders): its group names the package's, not a system the package does not have
    (session 48's review), and it is no result."""
    acme = _example_copy(tmp_path)
    folder = acme / "results" / "acme-t8" / "resnet"
    (folder / "extra").mkdir()
    text = (folder / "result_0.txt").read_text("utf-8")
    (folder / "extra" / "result_9.txt").write_text(text.replace('"value": "Acme"', '"value": "PLACEHOLDER_ORG"'), "utf-8")
    assert "PLACEHOLDER_ORG" in (folder / "extra" / "result_9.txt").read_text("utf-8")
    benches = check(acme).benchmarks
    assert sorted((b.org, b.system, b.benchmark, b.published) for b in benches) == [
        ("Acme", "acme-t8", "resnet", False), ("Acme", "acme-t8", "resnet", True)]


def test_hosts_that_print_two_benchmarks_into_one_output_are_said_to_be_two_runs(tmp_path: Path) -> None:
    """``pdsh -w node[1-2] ./run.sh`` where each host ran a run of its own (session 48's review):
    mlcheck reads labelled hosts as ranks of one run; a second benchmark name says it is not."""
    records = (ACME / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8").splitlines()
    other = [line.replace('"value": "resnet"', '"value": "bert"') for line in records]
    log = tmp_path / "console.log"
    log.write_text("".join(f"node1: {a}\nnode2: {b}\n" for a, b in zip(records, other)), "utf-8")
    found = [f for run in check(log).runs for f in run.findings if f.code == "MLC021"]
    assert found and "so these are two runs printed into one output" in found[0].message


def test_a_folder_named_results_inside_a_benchmark_folder_names_no_system(tmp_path: Path) -> None:
    """``resnet/results/run1/logs/result_0.txt``: the package's results/ (beside systems/) names the
    org and system, not the one inside the benchmark folder (attack review: org resnet, system run1)."""
    acme = _example_copy(tmp_path)
    inner = acme / "results" / "acme-t8" / "resnet" / "results" / "run1" / "logs"
    inner.mkdir(parents=True)
    shutil.copy(acme / "results" / "acme-t8" / "resnet" / "result_0.txt", inner / "result_0.txt")
    assert {(b.org, b.system) for b in check(acme).benchmarks} == {("Acme", "acme-t8")}


def test_an_empty_mask_folder_is_a_warning_as_every_empty_one() -> None:
    said, refused = what_tools_do("mask", "2.0.0", {"maskrcnn", "resnet"}, False)
    assert not refused and "holds no result_<i>.txt file" in said


def test_the_api_takes_what_stands_for_an_int() -> None:
    class Two:
        def __index__(self) -> int:
            return 2

    assert [run.verdict for run in check(ACME, jobs=Two()).runs] == ["pass"] * 5  # type: ignore[arg-type]
