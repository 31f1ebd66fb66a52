"""The text report's options (issue 14): ``--statistics`` (counts per rule), ``--output-format
concise|full``, and a cap with "N more" on a terminal only (never in a file, a pipe or a machine
format)."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from mlcheck.model import Finding, Severity
from mlcheck.report.text_findings import TERMINAL_CAP, render_findings, rule_counts, statistics_lines
from mlcheck.results import CheckResult

from cli_helpers import run_cli
from conftest import ROOT

BROKEN = (':::MLLOG {"namespace": "", "time_ms": 1652083200000, "event_type": "POINT_IN_TIME", '
          '"key": "submission_benchmark", "value": "resnet", "metadata": {"file": "t.py", "lineno": 1}}\n')


def _broken_logs(folder: Path, count: int) -> Path:
    """``count`` folders of one broken log each: four findings per log, none shared."""
    for number in range(count):
        (folder / f"d{number:02d}").mkdir(parents=True)
        (folder / f"d{number:02d}" / "run.txt").write_text(BROKEN)
    return folder


def _findings(count: int, errors: int = 0) -> CheckResult:
    found = tuple(Finding("MLC105" if n < errors else "MLC107", "x", Severity.ERROR if n < errors else Severity.WARNING,
                          f"problem {chr(97 + n % 26)}{n // 26}", f"f{n:03d}/result_0.txt", 1, False, 0)
                  for n in range(count))
    return CheckResult(runs=(), benchmarks=(), findings=tuple(sorted(found, key=lambda f: f.path)))


def _text(result: CheckResult, **options: object) -> str:
    buffer = io.StringIO()
    render_findings(result, Console(file=buffer, width=300, color_system=None), **options)  # type: ignore[arg-type]
    return buffer.getvalue()


def test_full_shows_what_a_finding_covers_and_concise_one_line(tmp_path: Path) -> None:
    folder = _broken_logs(tmp_path, 1)
    full = run_cli("check", str(folder), "--no-progress").stdout
    concise = run_cli("check", str(folder), "--no-progress", "--output-format", "concise").stdout
    assert "    - init_stop (exactly one)" in full and "more (the JSON report lists 14)" in full
    assert "    - " not in concise and "14 required keys are not logged" in concise
    findings = concise[concise.index("Findings"):].splitlines()
    assert len([line for line in findings if " error MLC" in line]) == 4


def test_the_cap_keeps_the_most_severe_and_says_how_many_more() -> None:
    text = _text(_findings(60, errors=5), cap=10)
    lines = [line for line in text.splitlines() if "/result_0.txt:1:" in line]
    assert len(lines) == 10 and sum(" error MLC105" in line for line in lines) == 5
    assert "... 50 more lines (50 warning lines) not shown on the terminal" in text
    assert "not shown" not in _text(_findings(60))


def test_no_cap_off_a_terminal(tmp_path: Path) -> None:
    folder = _broken_logs(tmp_path, TERMINAL_CAP // 4 + 2)  # more than the cap's findings
    out = run_cli("check", str(folder), "--no-progress", "--output-format", "concise").stdout
    assert "not shown on the terminal" not in out
    assert out.count(" error MLC") == 4 * (TERMINAL_CAP // 4 + 2)


def test_the_cap_applies_on_a_terminal(tmp_path: Path) -> None:
    folder = _broken_logs(tmp_path, TERMINAL_CAP // 4 + 2)
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="200", PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, "-c", "from mlcheck.cli import run; run()", "check", str(folder),
                                "--no-progress", "--color", "never", "--output-format", "concise"],
                               stdout=slave, stderr=subprocess.PIPE, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.communicate(timeout=60)
    os.close(master)
    out = b"".join(chunks).decode("utf-8", "replace")
    assert out.count(" error MLC") == TERMINAL_CAP
    assert "... 8 more lines (8 error lines) not shown on the terminal" in out


def test_statistics_count_findings_lines_and_folders(tmp_path: Path) -> None:
    result = _findings(3)
    (row,) = rule_counts(result)
    assert (row.code, row.findings, row.lines, row.folders, row.severities) == ("MLC107", 3, 3, 3, (Severity.WARNING,))
    lines = statistics_lines(result)
    assert lines[0] == "Statistics" and "MLC107  warning" in lines[2] and lines[-1].split()[:3] == ["3", "3", "3"]
    folder = _broken_logs(tmp_path, 2)
    text = run_cli("check", str(folder), "--no-progress", "--statistics")
    assert "Statistics" in text.stdout and text.stdout.rstrip().endswith("4 rules")
    machine = run_cli("check", str(folder), "--no-progress", "--statistics", "--format", "json")
    assert "Statistics" not in machine.stdout and "Statistics" in machine.stderr


def test_long_result_file_names_are_shown_whole_in_the_run_table(tmp_path: Path) -> None:
    """result_<job>-<id>_NN.txt names (4.0+) fold onto a second line instead of being cut, so two
    files that differ only at the end stay apart."""
    import shutil

    from mlcheck import check
    from mlcheck.report.text import render_text

    folder = tmp_path / "resnet"
    shutil.copytree(ROOT / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet", folder)
    names = [f"result_5800-240517143744812449396_{i}.txt" for i in range(5)]
    for old, new in zip(sorted(folder.glob("result_*.txt")), names):
        old.rename(folder / new)
    out = io.StringIO()
    render_text(check([str(folder)]), Console(file=out, width=100, color_system=None))
    table = "".join(line.split("│")[1].strip() for line in out.getvalue().splitlines() if line.startswith("│"))
    assert all(name in table for name in names) and "…" not in out.getvalue().split("Findings")[0]


def test_a_run_table_written_to_a_pipe_is_as_wide_as_its_widest_row(tmp_path: Path) -> None:
    """Off a terminal (a CI log, grep) the run table is not folded at 80 columns: a long result
    file name stays on its line with its '*' (was 'result_5759-24051│7075402311260012_│2.txt *')."""
    import shutil
    from click.testing import CliRunner
    from mlcheck.cli import main
    package = tmp_path / "Acme"
    shutil.copytree(ROOT / "fixtures" / "example" / "Acme", package)
    folder = package / "results" / "acme-t8" / "resnet"
    long = "result_5759-240517075402311260012-with-a-long-job-name_0.txt"
    (folder / "result_0.txt").rename(folder / long)
    out = CliRunner().invoke(main, ["check", str(package), "--color", "never"]).stdout
    assert any(line.startswith(f"│ {long} *") for line in out.splitlines()), out[:2000]


def test_a_narrow_terminal_lists_the_runs_instead_of_cutting_their_codes(tmp_path: Path) -> None:
    """On a terminal of 56 columns the run table does not fit: each run is listed, its name on a line
    and its cells as ``header: value`` (as ``score`` lists its table), every code whole, never cut to
    ``MLC30…`` nor split over two lines (was: ellipsis below about 64 columns, then one code a line)."""
    from mlcheck import check
    from mlcheck.report.text import render_text

    log = tmp_path / "resnet" / "result_0.txt"
    log.parent.mkdir()
    log.write_text(BROKEN * 2, "utf-8")
    result = check([str(log.parent)])
    [run] = result.runs
    codes = sorted({f.code for f in run.findings})
    assert len(codes) >= 3
    out = io.StringIO()
    render_text(result, Console(file=out, width=56, color_system=None, force_terminal=True))
    listed = out.getvalue().split("Findings")[0]
    assert "│" not in listed and "…" not in listed, listed
    lines = listed.splitlines()
    at = lines.index("result_0.txt")
    fields = " ".join(lines[at + 1:at + 7])
    assert lines[at + 1].startswith("  minutes: ") and lines[at + 2].startswith("  status: ")
    assert "minutes:" in fields and "verdict:" in fields and f"findings: {', '.join(codes)}".replace(" ", "") in \
        fields.replace(" ", ""), listed
