"""GitHub annotations and the job summary (issue 14): annotations only where GitHub can attach
them (a file, and a line when there is one), what repeats across a folder's runs once, the
summary line on stderr, and the Markdown job summary in ``$GITHUB_STEP_SUMMARY``."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlcheck import check
from mlcheck.cli import main
from mlcheck.model import Finding, Severity
from mlcheck.report import ReportOptions
from mlcheck.report.github import render_github
from mlcheck.report.job_summary import render_job_summary
from mlcheck.results import CheckResult

from conftest import CORPUS, FIXTURES

_FILE = re.compile(r"^::(error|warning|notice) file=([^,:]*)")


def _annotations(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"^::(error|warning|notice) ", line)]


def test_every_annotation_with_a_file_names_a_file_and_repeats_are_one(monkeypatch: pytest.MonkeyPatch) -> None:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    monkeypatch.chdir(CORPUS / "training-1.1")
    result = check(["Graphcore"])
    lines = _annotations(render_github(result, ReportOptions()))
    files = [m.group(2).replace("%2C", ",").replace("%3A", ":").replace("%25", "%")
             for m in map(_FILE.match, lines) if m]
    assert files and all(os.path.isfile(path) for path in files)
    assert len(files) == len(lines)  # every finding of the package concerns a file or a folder
    weight = [line for line in lines if "title=MLC205" in line]
    assert len(weight) == 3 and all("(also 9 other runs: result_1.txt" in line for line in weight)
    rcp = [line for line in lines if "title=MLC530" in line]
    assert rcp and all(line.startswith("::error file=Graphcore/results/") and "/result_0.txt," in line
                       and "line=" not in line.split("::")[1] and "(about the folder " in line for line in rcp)
    assert lines[0].startswith("::error ")  # the most severe first: GitHub shows ten of each kind
    assert len(lines) < 40


def test_a_finding_about_no_file_is_an_annotation_without_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Acme").mkdir()
    found = Finding("MLC501", "package-layout", Severity.ERROR, "no systems/ folder", "Acme", None)
    (line,) = _annotations(render_github(CheckResult((), (), (found,)), ReportOptions()))
    assert line == "::error title=MLC501 package-layout::Acme: no systems/ folder"


def _cli(args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, args, env={"GITHUB_ACTIONS": "", **env})
    return result.exit_code, result.stdout, result.stderr


def test_job_summary_goes_to_the_step_summary_file(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    example = str(FIXTURES / "example" / "Acme")
    code, out, err = _cli(["check", example, "-f", "github", "--no-progress"], {"GITHUB_STEP_SUMMARY": str(summary)})
    assert code == 0 and "mlcheck: 5 runs" in err and "mlcheck: 5 runs" not in out
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## mlcheck\n")  # appended
    assert "✅ **pass**: 5 runs (0 failing), 1 benchmark folder (1 with a valid score), 0 errors" in text
    assert "### Results (minutes)" in text and "| 15.29 |" in text
    code, _, _ = _cli(["check", example, "-f", "json", "--no-progress"], {"GITHUB_STEP_SUMMARY": str(summary)})
    assert summary.read_text(encoding="utf-8") == text  # only the github format writes it


def test_an_unwritable_step_summary_is_named_and_loses_no_other_report(tmp_path: Path) -> None:
    """The job summary is a page beside the annotations: one that cannot be written is a warning
    and the check's exit code stands (was: 2); the other reports are written."""
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    sarif = tmp_path / "out.sarif"
    example = str(FIXTURES / "example" / "Acme")
    code, out, err = _cli(["check", example, "-f", "github", "--no-progress", "-o", f"sarif:{sarif}"],
                          {"GITHUB_STEP_SUMMARY": str(blocked / "summary.md")})
    assert code == 0 and "Traceback" not in err
    assert "warning: cannot write the job summary to $GITHUB_STEP_SUMMARY:" in err and str(blocked / "summary.md") in err
    assert '"version": "2.1.0"' in sarif.read_text(encoding="utf-8")  # (written all the same)


def test_an_output_that_cannot_be_written_is_refused_before_the_check(tmp_path: Path) -> None:
    """A report whose folder is a file (or not writable) is a usage error before anything is
    checked or written (was: found after the whole check)."""
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    sarif = tmp_path / "out.sarif"
    example = str(FIXTURES / "example" / "Acme")
    code, out, err = _cli(["check", example, "-f", "json", "--no-progress", "-o", f"json:{blocked}/r.json",
                           "-o", f"sarif:{sarif}"], {})
    assert code == 2 and "Traceback" not in err and out == ""
    assert f"the output 'json:{blocked}/r.json' cannot be written: {blocked} is not a folder" in err
    assert not sarif.exists()


def test_job_summary_counts_findings_per_rule() -> None:
    found = (Finding("MLC301", "target-not-reached", Severity.ERROR, "e", "b/result_0.txt", 9, run_index=0),
             Finding("MLC301", "target-not-reached", Severity.ERROR, "e", "b/result_1.txt", 9, run_index=0))
    text = render_job_summary(CheckResult((), (), found), ReportOptions())
    assert "❌ **fail**" in text and "| `MLC301` target-not-reached | error | 2 | 1 |" in text


def test_power_folder_findings_are_placed_on_the_benchmark_folders_first_result_file(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A package with power logs (round 4.0): findings about ``power/`` and ``power/result_<i>/``
    were placed on those folders, which code scanning refuses and GitHub cannot attach; they go on
    the benchmark folder's first result file, saying which folder they are about, and a group's
    other runs are named with their folders (``result_3/node_1.txt``, not ``node_1.txt``)."""
    import json
    from mlcheck.report.sarif import render_sarif
    shared = CORPUS.parent / "other-submitters" / "training-4.0"
    packages = sorted(p for p in shared.glob("*") if list(p.glob("results/*/*/power"))) if shared.is_dir() else []
    if not packages:
        pytest.skip("../shared/other-submitters/training-4.0 with a power/ folder is not present")
    monkeypatch.chdir(shared)
    result = check([packages[0].name])
    lines = _annotations(render_github(result, ReportOptions()))
    files = [m.group(2).replace("%2C", ",").replace("%3A", ":").replace("%25", "%")
             for m in map(_FILE.match, lines) if m]
    assert len(files) == len(lines) and all(os.path.isfile(path) for path in files)
    power = [line for line in lines if "title=MLC54" in line]
    assert power and any("/power" in line and "(about the folder " in line for line in power)
    assert all(re.search(r"also \d+ other runs: [^/]*/", line) for line in power if "(also " in line)
    sarif = json.loads(render_sarif(result, ReportOptions()))
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]]
    assert uris and all(os.path.isfile(uri) for uri in uris)
    # Checked from inside the benchmark folder (`mlcheck check .`): the run paths name no folder.
    (bench,) = list(packages[0].glob("results/*/*/power"))
    monkeypatch.chdir(bench.parent)
    sarif = json.loads(render_sarif(check(["."]), ReportOptions()))
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]]
    placed = [uri for uri in uris if not uri.startswith("file:")]  # (the system description: outside the root)
    assert placed and all(os.path.isfile(uri) for uri in placed)


def test_a_folder_finding_is_not_placed_on_another_folders_file(tmp_path: Path) -> None:
    """A benchmark folder without a result file (MLC502): its finding goes on a file of its own
    (code scanning takes files only), not on the result file of a benchmark folder beside it
    (only power/ folders go up to theirs); a folder holding no file at all, on the report's first
    result file, as a finding about no file."""
    import json
    import shutil
    from mlcheck.report.sarif import render_sarif
    package = tmp_path / "Acme"
    shutil.copytree(FIXTURES / "example" / "Acme", package)
    (package / "results" / "acme-t8" / "bert").mkdir()
    (package / "results" / "acme-t8" / "bert" / "notes.md").write_text("x")
    sarif = json.loads(render_sarif(check([str(package)]), ReportOptions(root=str(tmp_path))))
    (uri,) = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]
              if r["ruleId"] == "MLC502"}
    assert uri == "Acme/results/acme-t8/bert/notes.md"
    (package / "results" / "acme-t8" / "bert" / "notes.md").unlink()
    sarif = json.loads(render_sarif(check([str(package)]), ReportOptions(root=str(tmp_path))))
    (uri,) = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]
              if r["ruleId"] == "MLC502"}
    assert uri == "Acme/results/acme-t8/resnet/result_0.txt"


def test_a_folder_named_like_a_result_file_is_never_an_annotation_s_file(tmp_path: Path) -> None:
    """The folder's findings go to its first result file that is a file (review of session 41:
    file=.../result_0.txt, a folder, which GitHub attaches nothing to), in SARIF too."""
    import json
    import shutil

    from mlcheck.report import render

    package = tmp_path / "Acme"
    shutil.copytree(FIXTURES / "example" / "Acme", package)
    folder = package / "results" / "acme-t8" / "resnet"
    (folder / "result_0.txt").unlink()
    (folder / "result_0.txt").mkdir()
    result = check([str(package)])
    files = set(re.findall(r"file=([^,:]+)", render_github(result, ReportOptions())))
    assert files == {str(folder / "result_1.txt")}
    sarif = json.loads(render("sarif", result, ReportOptions()))
    uris = {location["physicalLocation"]["artifactLocation"]["uri"] for run in sarif["runs"]
            for found in run["results"] for location in found["locations"]}
    assert not any(uri.endswith("result_0.txt") for uri in uris), uris


def test_one_other_run_is_said_in_the_singular(tmp_path: Path) -> None:
    """Two runs with the same finding: "(also 1 other run: ...)", not "1 other runs" (review of session 49)."""
    package = tmp_path / "example"
    shutil.copytree(FIXTURES / "example", package)
    bench = package / "Acme" / "results" / "acme-t8" / "resnet"
    for index in (1, 3):
        path = bench / f"result_{index}.txt"
        path.write_text(path.read_text("utf-8").replace('"status": "success"', '"status": "aborted"'), "utf-8")
    lines = [line for line in _annotations(render_github(check([str(package / "Acme")]), ReportOptions()))
             if "title=MLC302" in line]
    assert len(lines) == 1 and "(also 1 other run: result_3.txt: " in lines[0]  # (its own numbers: session 52)
