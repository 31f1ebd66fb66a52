"""A review of the reports (session 33): a folder name's newline in a waived line of ``--format
github`` begins no workflow command; a ``\\`` of a POSIX name stays in every report's paths; SARIF
fingerprints ignore line lists; findings about keys that differ in a digit are not grouped; ``-q``
with ``--strict`` shows the warnings that fail; ``score`` of an unopenable path exits 2; a value
near a float's limit leaves the rest of the chart; a stdin finding in ``--format github`` says its
line; a system name's newline is ``%0A`` in a results-table link."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlcheck.cli import main
from mlcheck.model import Finding, Severity
from mlcheck.report.grouped import text_key
from mlcheck.report.results_table import _markdown_link
from mlcheck.report.sarif import fingerprint

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fixtures" / "example" / "Acme"
RESNET = Path("results") / "acme-t8" / "resnet"


def _package(tmp_path: Path, system: str = "acme-t8") -> Path:
    package = tmp_path / "Acme"
    shutil.copytree(PACKAGE, package)
    if system != "acme-t8":
        (package / "results" / "acme-t8").rename(package / "results" / system)
        (package / "systems" / "acme-t8.json").rename(package / "systems" / f"{system}.json")
    return package


def _run(args: list[str], cwd: Path) -> tuple[int, str]:
    before = os.getcwd()
    os.chdir(cwd)
    try:
        outcome = CliRunner().invoke(main, args)
    finally:
        os.chdir(before)
    return outcome.exit_code, outcome.output


def _set_opt_name(path: Path, value: str) -> None:
    text = path.read_text("utf-8")
    path.write_text(text.replace('"value": "lars"', f'"value": "{value}"', 1), "utf-8")


def test_a_waived_line_of_a_name_with_a_newline_begins_no_workflow_command(tmp_path: Path) -> None:
    system = "s\n::error title=INJECTED::pwned"
    package = _package(tmp_path, system)
    _set_opt_name(package / "results" / system / "resnet" / "result_2.txt", "adam")
    (tmp_path / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC203"\npath = "Acme/**"\nreason = "ok"\n', "utf-8")
    code, output = _run(["check", "Acme", "-f", "github", "--no-progress"], tmp_path)
    waived = [line for line in output.splitlines() if line.startswith("waived MLC203")]
    assert waived and "%0A::error title=INJECTED::pwned" in waived[0]
    assert not any(line.startswith("::error title=INJECTED") for line in output.splitlines())


@pytest.mark.skipif(os.sep != "/", reason="a backslash is a separator on Windows")
@pytest.mark.parametrize("output_format,expected", [
    ("github", "file=Acme/results/pod\\16/resnet/result_2.txt"),
    ("sarif", '"uri": "Acme/results/pod%5C16/resnet/result_2.txt"'),
    ("junit", 'file="Acme/results/pod\\16/resnet/result_2.txt"'),
])
def test_a_backslash_of_a_posix_name_stays_in_the_reports(tmp_path: Path, output_format: str, expected: str) -> None:
    package = _package(tmp_path, "pod\\16")
    _set_opt_name(package / "results" / "pod\\16" / "resnet" / "result_2.txt", "adam")
    _code, output = _run(["check", "Acme", "-f", output_format, "--no-progress"], tmp_path)
    assert expected in output and "pod/16" not in output


def test_sarif_fingerprints_ignore_lists_of_lines() -> None:
    def found(message: str) -> Finding:
        return Finding("MLC304", "eval-value-invalid", Severity.WARNING, message, "r/result_0.txt", 7)
    assert fingerprint(found("NaN (and 2 more at lines 210, 223)"), "u") == fingerprint(found("NaN (and 2 more at lines 211, 224)"), "u")
    assert fingerprint(found("at line 5"), "u") == fingerprint(found("at line 6"), "u")
    assert fingerprint(found("lines 5-9"), "u") == fingerprint(found("lines 6-10"), "u")
    assert fingerprint(found("value 0.9"), "u") != fingerprint(found("value 0.8"), "u")


def test_keys_that_differ_in_a_digit_say_different_things() -> None:
    assert text_key("opt_lamb_beta_1 is 0.91") != text_key("opt_lamb_beta_2 is 0.9991")
    assert text_key("precision fp16 at line 3") != text_key("precision fp32 at line 3")
    assert text_key("seed 17 repeats result_3.txt at line 4") == text_key("seed 99 repeats result_4.txt at line 12")


def test_quiet_and_strict_show_the_warnings_that_fail(tmp_path: Path) -> None:
    package = _package(tmp_path)
    run = package / RESNET / "result_1.txt"
    lines = run.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"key": "eval_accuracy"' in line)
    lines[at] = lines[at].replace('"value": 0.', '"value": NaN, "was": 0.', 1)
    run.write_text("".join(lines), "utf-8")
    code, output = _run(["check", "Acme", "--strict", "-q", "-f", "github", "--no-progress"], tmp_path)
    assert code == 1 and "::warning" in output and "MLC304" in output
    code, output = _run(["check", "Acme", "-q", "-f", "github", "--no-progress"], tmp_path)
    assert code == 0 and "::warning" not in output


def test_score_of_a_path_that_cannot_be_opened_exits_2(tmp_path: Path) -> None:
    code, output = _run(["score", str(tmp_path / "nowhere" / "result_0.txt")], tmp_path)
    assert code == 2 and "no such file or folder" in output


def test_a_value_near_a_floats_limit_leaves_the_rest_of_the_chart(tmp_path: Path) -> None:
    package = _package(tmp_path)
    run = package / RESNET / "result_1.txt"
    lines = run.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"key": "eval_accuracy"' in line)
    record = json.loads(lines[at][len(":::MLLOG "):])
    record["value"] = 1e308
    lines[at] = ":::MLLOG " + json.dumps(record) + "\n"
    run.write_text("".join(lines), "utf-8")
    code, _output = _run(["report", "Acme", "-o", "report.html", "--no-progress"], tmp_path)
    html = (tmp_path / "report.html").read_text("utf-8")
    assert "No eval_accuracy values to plot" not in html and "1 eval value of 1e300 or more" in html
    assert html.count('class="curve"') == 5


def _nan_on_stdin(output_format: str) -> tuple[int, str]:
    """The example's first eval made NaN, checked from stdin: its line, and the report."""
    lines = (PACKAGE / RESNET / "result_0.txt").read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"key": "eval_accuracy"' in line)
    lines[at] = lines[at].replace('"value": 0.', '"value": NaN, "was": 0.', 1)
    outcome = CliRunner().invoke(main, ["check", "-", "-f", output_format, "--ruleset", "2.0.0"], input="".join(lines))
    return at + 1, outcome.stdout


def test_a_stdin_finding_in_github_says_its_line() -> None:
    line, output = _nan_on_stdin("github")
    (annotation,) = [text for text in output.splitlines() if "MLC304" in text]
    assert f"::standard input, line {line}: " in annotation and "file=" not in annotation


def test_a_newline_of_a_system_name_is_percent_encoded_in_a_link() -> None:
    link = _markdown_link("https://github.com/mlcommons/x/blob/main/A/systems/s\n::e|x \udcff.json")
    assert link == "<https://github.com/mlcommons/x/blob/main/A/systems/s%0A%3A%3Ae%7Cx%20%FF.json>"
    assert _markdown_link("https://x/A\ud800c") == "<https://x/A%EF%BF%BDc>"  # (a JSON escape: U+FFFD)


def test_a_stdin_finding_in_sarif_says_its_line() -> None:
    line, output = _nan_on_stdin("sarif")
    (result,) = [r for r in json.loads(output)["runs"][0]["results"] if r["ruleId"] == "MLC304"]
    assert result["message"]["text"].endswith(f"(about standard input, line {line})")


def test_sarif_says_the_run_failed_where_a_named_path_could_not_be_opened() -> None:
    from mlcheck import check
    from mlcheck.report import ReportOptions
    from mlcheck.report.sarif import sarif_dict
    result = check([str(PACKAGE)])
    (fine,) = sarif_dict(result, ReportOptions())["runs"][0]["invocations"]
    (failed,) = sarif_dict(result, ReportOptions(unopenable=("x/result_0.txt",)))["runs"][0]["invocations"]
    assert fine["executionSuccessful"] is True and "toolExecutionNotifications" not in fine
    assert failed["executionSuccessful"] is False
    assert failed["toolExecutionNotifications"][0]["message"]["text"].startswith("x/result_0.txt: could not be opened")


def test_junit_reports_a_log_that_could_not_be_opened_as_an_error(tmp_path: Path) -> None:
    """``<error>`` is JUnit's "the test could not run": a result file that is a folder is not judged."""
    import xml.etree.ElementTree as ET
    package = _package(tmp_path)
    (package / RESNET / "result_5.txt").mkdir()
    _code, output = _run(["check", "Acme", "-f", "junit", "--no-progress"], tmp_path)
    root = ET.fromstring(output[:output.index("</testsuites>") + len("</testsuites>")])  # (the summary line follows)
    (case,) = [c for c in root.iter("testcase") if c.get("name") == "result_5.txt"]
    assert case.find("error") is not None and case.find("failure") is None
    assert root.get("errors") == "1" and sum(int(s.get("errors", "0")) for s in root.iter("testsuite")) == 1
