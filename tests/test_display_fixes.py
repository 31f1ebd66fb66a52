"""How results are shown, from a review on published logs: runs in their numbers' order, paths
outside the report's root written whole, a wrong clock's value as logged with the unit it is in."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from cli_helpers import assert_no_traceback, run_cli

from mlcheck import check
from mlcheck.model import Severity
from mlcheck.report import is_inside, relative_path

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "fixtures" / "bad" / "base_open.txt"
EXAMPLE = ROOT / "fixtures" / "example"


def _renumbered(tmp_path: Path, count: int) -> Path:
    """The example ResNet folder with ``count`` runs numbered from 1 (as some submitters publish)."""
    package = tmp_path / "pkg"
    shutil.copytree(EXAMPLE, package)
    folder = package / "Acme" / "results" / "acme-t8" / "resnet"
    runs = sorted(folder.glob("result_*.txt"))
    for old in runs:
        old.rename(folder / f"old_{old.name}")
    for number in range(1, count + 1):
        shutil.copyfile(folder / f"old_{runs[(number - 1) % len(runs)].name}", folder / f"result_{number}.txt")
    for old in runs:
        (folder / f"old_{old.name}").unlink()
    return folder


def test_the_run_table_lists_result_10_after_result_9(tmp_path: Path) -> None:
    folder = _renumbered(tmp_path, 10)
    result = check([str(folder)])
    names = [Path(run.path).name for run in result.benchmarks[0].runs]
    assert names == [f"result_{n}.txt" for n in range(1, 11)]
    shown = run_cli("check", str(folder), "--no-progress", "--format", "text")
    assert_no_traceback(shown)
    rows = [line for line in shown.stdout.splitlines() if "result_" in line and "│" in line]
    assert [row.split("│")[1].split()[0] for row in rows] == [f"result_{n}.txt" for n in range(1, 11)]


def test_a_path_outside_the_root_is_shown_whole(tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "repo", tmp_path / "data" / "result_0.txt"
    assert relative_path(str(root / "a" / "result_0.txt"), str(root)) == "a/result_0.txt"
    assert relative_path(str(elsewhere), str(root)) == str(elsewhere).replace(os.sep, "/")
    assert not is_inside(str(elsewhere), str(root)) and is_inside(str(root / "a"), str(root))
    assert relative_path("-", str(root)) == "-"


def test_markdown_names_a_log_outside_the_working_folder_by_its_whole_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "logs" / "result_0.txt"
    log.parent.mkdir()
    log.write_text(BASE.read_text("utf-8") + "not a record\n", "utf-8")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    shown = run_cli("check", str(log), "--no-progress", "--format", "markdown")
    assert_no_traceback(shown)
    assert f"`{log.as_posix()}" in shown.stdout and "`../" not in shown.stdout


def test_a_clock_in_seconds_is_shown_as_logged_and_named(tmp_path: Path) -> None:
    lines = BASE.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"key": "run_stop"' in line)
    record = json.loads(lines[at][len(":::MLLOG "):])
    seconds = float(int(record["time_ms"] // 1000))
    record["time_ms"] = seconds
    lines[at] = ":::MLLOG " + json.dumps(record) + "\n"
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines), "utf-8")
    found = [f for f in check([str(log)]).all_findings() if f.code == "MLC405"]
    assert [f.line for f in found] == [at + 1]
    assert f"time_ms {int(seconds)}, not a date" in found[0].message
    assert "(it is a date in seconds)" in found[0].message


def test_an_output_path_of_dash_prints_the_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    shown = run_cli("report", str(EXAMPLE), "-o", "-", "--no-progress")
    assert_no_traceback(shown)
    assert shown.stdout.startswith("<!DOCTYPE html>") and "report written to" not in shown.stderr
    sarif = run_cli("check", str(EXAMPLE), "-o", "sarif:-", "--no-progress")  # (in place of the text report)
    assert json.loads(sarif.stdout)["version"] == "2.1.0"
    both = run_cli("check", str(EXAMPLE), "-o", "sarif:-", "--format", "json", "--no-progress")
    assert both.exit_code == 2 and both.stdout == "" and "one would follow the other" in both.stderr
    table = run_cli("score", str(EXAMPLE), "-t", "csv", "--table-output", "-")
    assert table.stdout.startswith("round,division,")
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("folder,expected", [("training-1.1", ["MLC019"]), ("training-2.1", []),
                                             ("v1.1", ["MLC019"])])
def test_a_path_naming_a_round_published_before_the_run_is_a_warning(tmp_path: Path, folder: str,
                                                                     expected: list[str]) -> None:
    """The example runs are dated 2022-05 (round 2.0's period): a training-1.1/ folder (published
    2021-12) cannot hold them, but its round judges them, as its checker is run on the folder, with
    MLC019 about the date; a training-2.1/ one can (a run goes to a later round)."""
    package = tmp_path / folder / "Acme"
    shutil.copytree(EXAMPLE / "Acme", package)
    result = check([str(package / "results" / "acme-t8" / "resnet" / "result_0.txt")])
    (run,) = result.runs
    assert [f.code for f in run.findings if f.code == "MLC019"] == expected
    bare = folder.startswith("v")  # (a user's own numbering as often as a round: the date judges)
    assert run.ruleset == ("2.0.0" if bare else "1.1.0" if expected else "2.1.0")
    if expected:
        message = next(f.message for f in run.findings if f.code == "MLC019")
        assert message.startswith("the path names round 1.1, but the run is dated 2022-05-09")
        assert ("a folder named v1.1 (not training-1.1) does not overrule the date, so it is judged under 2.0"
                if bare else "it is judged under 1.1, the round its path names") in message


def test_a_clock_ahead_into_rounds_without_the_benchmark_keeps_the_paths_round(tmp_path: Path) -> None:
    """ResNet is a benchmark of rounds 1.0-4.0 only: a 4.0 run whose clock says 2025-01 (round 5.0's
    period) is judged under 4.0, the round its path names, with MLC019 about the clock."""
    import re

    package = tmp_path / "training-4.0" / "Acme"
    shutil.copytree(EXAMPLE / "Acme", package)
    log = package / "results" / "acme-t8" / "resnet" / "result_0.txt"
    days = 975 * 86_400_000  # (2022-05-09 + 975 days: 2025-01-08)
    log.write_text(re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + days}', log.read_text()))
    (run,) = check([str(log)]).runs
    assert run.ruleset == "4.0.0" and "MLC011" not in {f.code for f in run.findings}
    (told,) = [f.message for f in run.findings if f.code == "MLC019"]
    assert told.startswith("the path names round 4.0, but the run is dated 2025-01-")
    assert "5.0, the round of its date, and the later rounds have no resnet, so it is judged under 4.0" in told
    later = 3650 * 86_400_000  # (2032: after the newest period mlcheck knows, whose round has no resnet either)
    log.write_text(re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + later}', log.read_text()))
    (run,) = check([str(log)]).runs
    assert run.ruleset == "4.0.0" and "MLC011" not in {f.code for f in run.findings} and run.official_verdict == "pass"
    assert [f.code for f in run.findings if f.code in ("MLC018", "MLC019")] == ["MLC019"]


@pytest.mark.parametrize("content,says", [("{}", "scaling.json has no scaling_factor;"),
                                          ("[1.05]", "cannot read scaling.json: line 1:"),
                                          ('{"scaling_factor": "x"}', "scaling.json has scaling_factor 'x';")])
def test_an_unusable_scaling_json_says_what_it_holds(tmp_path: Path, content: str, says: str) -> None:
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE / "Acme", package)
    (package / "results" / "acme-t8" / "resnet" / "scaling.json").write_text(content)
    (bench,) = check([str(package)]).benchmarks
    assert [f.message.split(" expected")[0] for f in bench.findings if f.code == "MLC504"] == [says]


@pytest.mark.parametrize("factor,minutes", [("0", 0.0), ("-1.5", -1.5)])
def test_a_scaling_factor_of_zero_or_below_is_applied_as_the_summarizer_applies_it(
        tmp_path: Path, factor: str, minutes: float) -> None:
    """The summarizer multiplies any number in (it publishes 0.0 for a factor of 0): a warning."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE / "Acme", package)
    (package / "results" / "acme-t8" / "resnet" / "scaling.json").write_text('{"scaling_factor": %s}' % factor)
    (bench,) = check([str(package)]).benchmarks
    unscaled = bench.score.unscaled_min
    assert bench.score.valid and unscaled is not None and bench.score.score_min == pytest.approx(unscaled * minutes)
    (said,) = [f for f in bench.findings if f.code == "MLC504"]
    assert said.severity is Severity.WARNING and "publishes a time-to-train of 0 or below" in said.message
