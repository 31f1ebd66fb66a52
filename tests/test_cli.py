"""The command line (issue 2 §7): the README's example, `score`, exit codes, `rules`/`explain`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from mlcheck.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "example" / "Acme"
BAD = ROOT / "fixtures" / "bad"
# The example's five runs in minutes (run_stop - run_start), fastest and slowest dropped.
EXAMPLE_SCORE = 15.29


def run_cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def assert_clean_exit(result: Result, code: int) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.stdout and "Traceback" not in result.stderr
    assert result.exit_code == code, result.output


def test_readme_example_passes() -> None:
    """`mlcheck check fixtures/example/Acme`: exit 0, a table of five passing runs and the score."""
    result = run_cli("check", str(EXAMPLE))
    assert_clean_exit(result, 0)
    out = result.stdout
    assert "Acme / acme-t8 / resnet" in out
    assert out.count(" pass ") == 5 and "fail" not in out
    assert f"{EXAMPLE_SCORE:.2f} min" in out and "valid" in out and "INVALID" not in out
    assert "closed division, training 2.0.0" in out
    assert "Findings" not in out
    assert result.stderr.strip() == ("mlcheck: 5 runs (0 failing), 1 benchmark (1 with a valid score), "
                                     "0 errors, 0 warnings")


def test_example_through_the_console_script() -> None:
    """The installed entry point, in a real process, from the repository root (README command)."""
    done = subprocess.run([sys.executable, "-c", "from mlcheck.cli import main; main()", "check",
                           "fixtures/example/Acme"], cwd=ROOT, capture_output=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert b"15.29 min" in done.stdout and b"Traceback" not in done.stderr


def test_score_command() -> None:
    result = run_cli("score", str(EXAMPLE))
    assert_clean_exit(result, 0)
    assert "Acme / acme-t8 / resnet (closed, 2.0.0): 15.29 min" in result.stdout.replace("\n", " ")


def test_score_of_an_incomplete_folder_exits_1(tmp_path: Path) -> None:
    folder = tmp_path / "Acme" / "results" / "acme-t8" / "resnet"
    shutil.copytree(EXAMPLE / "results" / "acme-t8" / "resnet", folder)
    (folder / "result_4.txt").unlink()
    result = run_cli("score", str(tmp_path / "Acme"))
    assert_clean_exit(result, 1)
    assert "INVALID" in result.stdout and "4 runs found; the round requires 5" in result.stdout
    checked = run_cli("check", str(tmp_path / "Acme"))
    assert_clean_exit(checked, 1)
    assert "MLC502" in checked.stdout


def test_one_result_file_alone_passes() -> None:
    """A result file named on its own is one run of a folder, not a folder with one run."""
    result = run_cli("check", str(EXAMPLE / "results" / "acme-t8" / "resnet" / "result_2.txt"))
    assert_clean_exit(result, 0)
    assert "MLC502" not in result.stdout


def test_json_format_and_summary_on_stderr() -> None:
    result = run_cli("check", str(EXAMPLE), "--format", "json")
    assert_clean_exit(result, 0)
    report = json.loads(result.stdout)
    assert report["summary"]["verdict"] == "pass" and report["summary"]["runs"] == 5
    assert result.stderr.startswith("mlcheck: 5 runs")


@pytest.mark.parametrize("options,code", [((), 1), (("--exit-zero",), 0), (("--strict",), 1)])
def test_error_findings_exit_codes(options: tuple[str, ...], code: int) -> None:
    result = run_cli("check", *options, str(BAD / "invalid_json.txt"))
    assert_clean_exit(result, code)
    assert "MLC003" in result.stdout


@pytest.mark.parametrize("options,code", [((), 0), (("--strict",), 1), (("--strict", "--exit-zero"), 0)])
def test_warning_exit_codes(options: tuple[str, ...], code: int) -> None:
    result = run_cli("check", *options, str(BAD / "invalid_utf8.txt"))
    assert_clean_exit(result, code)


def test_quiet_hides_infos() -> None:
    raw = ROOT / "fixtures" / "raw" / "two_runs.log"
    loud, quiet = run_cli("check", str(raw)), run_cli("check", "-q", str(raw))
    assert "info MLC024" in loud.stdout and "MLC024" not in quiet.stdout
    errors = run_cli("check", "-q", str(BAD / "aborted_but_reached.txt"))
    assert "error MLC302" in errors.stdout


def test_usage_errors_exit_2() -> None:
    assert_clean_exit(run_cli("check"), 2)
    assert_clean_exit(run_cli("check", "--format", "yaml", str(EXAMPLE)), 2)
    assert_clean_exit(run_cli("frobnicate"), 2)


def test_rules_lists_every_code_once() -> None:
    result = run_cli("rules")
    assert_clean_exit(result, 0)
    codes = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    assert codes == sorted(set(codes))
    assert {"MLC001", "MLC101", "MLC301", "MLC403", "MLC501"} <= set(codes)


def test_explain_prints_the_rule_docs() -> None:
    result = run_cli("explain", "mlc004")
    assert_clean_exit(result, 0)
    assert result.stdout.startswith("MLC004 truncated-record: the file ends in the middle of a record\n"
                                    "Reports: error or warning;")
    by_name = run_cli("explain", "truncated-record")
    assert by_name.stdout == result.stdout
    missing = run_cli("explain", "MLC999")
    assert_clean_exit(missing, 2)
    assert "mlcheck rules" in missing.stderr


def test_version() -> None:
    result = run_cli("--version")
    assert_clean_exit(result, 0)
    assert result.stdout.startswith("mlcheck, version ")


def test_every_subpackage_is_packaged() -> None:
    """``pip install .`` (the README's first command) ships only the packages listed in
    pyproject.toml; an editable install hides a missing one."""
    listed_line = next(line for line in (ROOT / "pyproject.toml").read_text("utf-8").splitlines()
                       if line.startswith("packages = "))
    listed = set(json.loads(listed_line.split("=", 1)[1]))
    found = {".".join(init.parent.relative_to(ROOT).parts)
             for init in (ROOT / "mlcheck").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)


def test_unreadable_file_named_on_the_command_line_exits_2(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import mlcheck.read.reader

    log = tmp_path / "result_0.txt"
    shutil.copy(BAD / "base_open.txt", log)

    def refuse(path: str) -> None:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(mlcheck.read.reader, "open_log", refuse)
    outcome = CliRunner().invoke(main, ["check", str(log), "-f", "json"])
    assert outcome.exit_code == 2, outcome.output
    found = json.loads(outcome.stdout)["runs"][0]["findings"]
    assert [(f["code"], f["line"]) for f in found] == [("MLC001", None)]
    assert "Permission denied" in found[0]["message"]


def test_unopenable_file_is_reported_and_the_rest_checked(tmp_path: Path) -> None:
    """A log found under a given folder that cannot be opened (a dangling symlink): MLC001 without
    a line, exit 1 (a finding about the folder: mlcheck did its job), and the other inputs are
    still checked. A path named on the command line that cannot be read exits 2."""
    dangling = tmp_path / "result_0.txt"
    dangling.symlink_to(tmp_path / "gone.txt")
    good = BAD / "base_open.txt"
    runner = CliRunner()
    outcome = runner.invoke(main, ["check", "--format", "json", str(tmp_path), str(good)])
    assert outcome.exit_code == 1, outcome.output
    report = json.loads(outcome.stdout)
    codes = {(f["code"], f["line"]) for f in report["findings"] if f["path"].endswith("result_0.txt")}
    assert ("MLC001", None) in codes
    assert any(r["path"] == str(good) for r in report["runs"])


def test_two_outputs_to_one_file_are_refused(tmp_path: Path) -> None:
    """``-o json:x -o sarif:x`` (or a config's output and the command line's) would leave only
    the last report: refused before the check, exit 2, nothing written; /dev/null twice is fine."""
    same = tmp_path / "report.out"
    result = run_cli("check", str(EXAMPLE), "--jobs", "1", "-o", f"json:{same}", "-o", f"sarif:{tmp_path}/./report.out")
    assert_clean_exit(result, 2)
    assert "name the same file" in result.stderr and not same.exists()
    assert_clean_exit(run_cli("check", str(EXAMPLE), "--jobs", "1", "-q", "-o", "json:/dev/null", "-o", "sarif:/dev/null"), 0)


@pytest.mark.parametrize("command", ["check", "score"])
def test_a_path_too_long_for_the_system_is_not_called_an_output_failure(tmp_path: Path, command: str) -> None:
    """A path over the system's name limits (ENAMETOOLONG where the config is looked for) names
    the path, exit 2; "cannot write the output" is for the output."""
    too_long = str(tmp_path / "/".join(["b" * 200] * 25) / "result_0.txt")
    found = subprocess.run([sys.executable, "-m", "mlcheck", command, too_long, "--jobs", "1"],
                           capture_output=True, text=True, timeout=60)
    assert found.returncode == 2 and "Traceback" not in found.stderr
    assert "cannot write the output" not in found.stderr and "bbbb" in found.stderr


def test_a_walked_file_named_like_a_log_without_a_record_is_passed_over(tmp_path: Path) -> None:
    """A notes.txt (or MANIFEST.txt) beside a package in a folder being checked is no run: an
    info MLC002 says it was passed over, exit 0; named on the command line it is a log (error)."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    (tmp_path / "notes.txt").write_text("notes\n")
    (tmp_path / "raw").mkdir()
    (tmp_path / "raw" / "job.log").write_text("starting\n" + (EXAMPLE / "results/acme-t8/resnet/result_0.txt").read_text())
    result = run_cli("check", str(tmp_path), "--jobs", "1", "--format", "json")
    assert_clean_exit(result, 0)
    report = json.loads(result.stdout)
    assert sorted(Path(run["path"]).name for run in report["runs"]) == [
        "job.log", "result_0.txt", "result_1.txt", "result_2.txt", "result_3.txt", "result_4.txt"]
    passed_over = [f for f in report["findings"] if f["code"] == "MLC002"]
    assert [(Path(f["path"]).name, f["severity"], f["official"]) for f in passed_over] == [("notes.txt", "info", False)]
    assert_clean_exit(run_cli("check", str(tmp_path / "notes.txt"), "--jobs", "1"), 1)


def test_a_piped_score_keeps_one_line_per_folder(tmp_path: Path) -> None:
    """A folder's score line is one line however long its system's name (grep reads it), where
    the console's width (80 when piped) split its head in two."""
    system = "acme-t8_" + "x" * 70
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    (package / "results" / "acme-t8").rename(package / "results" / system)
    (package / "systems" / "acme-t8.json").rename(package / "systems" / f"{system}.json")
    result = run_cli("score", str(package), "--jobs", "1")
    assert_clean_exit(result, 0)
    lines = [line for line in result.stdout.splitlines() if line.startswith(f"Acme / {system} / resnet")]
    assert len(lines) == 1 and lines[0].endswith("after dropping the 1 fastest and 1 slowest")


def test_a_system_description_named_alone_points_to_its_package() -> None:
    """``mlcheck check <org>/systems/x.json`` was read as a log (MLC002, "the official checker
    agrees"): it says how the description is checked, exit 2."""
    result = run_cli("check", str(EXAMPLE / "systems" / "acme-t8.json"), "--jobs", "1")
    assert_clean_exit(result, 2)
    assert "a system description is no log" in result.stderr and result.stderr.rstrip().endswith("Acme")


def test_a_named_log_that_cannot_be_read_says_why_on_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Exit 2 for a log named on the command line that cannot be opened (not readable by this
    user), with the reason on stderr beside the summary (it was only in the report)."""
    import builtins

    log = tmp_path / "result_0.txt"
    shutil.copy(EXAMPLE / "results" / "acme-t8" / "resnet" / "result_0.txt", log)

    def denied(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path) == str(log):
            raise PermissionError(13, "Permission denied", str(path))
        return builtins.open(path, *args, **kwargs)

    monkeypatch.setattr("mlcheck.read.log_files.open", denied, raising=False)
    result = run_cli("check", str(log), "--jobs", "1", "--format", "json")
    assert_clean_exit(result, 2)
    assert f"mlcheck: error: {log}: cannot open the log: Permission denied" in result.stderr


def test_only_a_stray_file_is_passed_over(tmp_path: Path) -> None:
    """Beside a package: a record-less log in a folder of raw job output (a job that logged
    nothing) and one inside a benchmark folder stay logs (errors, as before), a UTF-16 log is read
    as UTF-16; only a stray file alone of its kind in its folder (notes.txt) is passed over."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    (tmp_path / "notes.txt").write_text("notes\n")
    raw = tmp_path / "raw"
    raw.mkdir()
    clean = (EXAMPLE / "results/acme-t8/resnet/result_0.txt").read_text()
    (raw / "job_1.log").write_text(clean)
    (raw / "job_2.log").write_text("Traceback (most recent call last):\n")
    (raw / "job_3.log").write_bytes(clean.encode("utf-16"))
    (tmp_path / "Acme/results/acme-t8/ssd").mkdir()
    (tmp_path / "Acme/results/acme-t8/ssd/run_0.log").write_text("")
    report = json.loads(run_cli("check", str(tmp_path), "--jobs", "1", "--format", "json").stdout)
    no_records = sorted((Path(f["path"]).name, f["severity"]) for f in report["findings"] if f["code"] == "MLC002")
    assert no_records == [("job_2.log", "error"), ("notes.txt", "info"), ("run_0.log", "error")]
    assert [r["verdict"] for r in report["runs"] if r["path"].endswith("job_3.log")] == ["pass"]


def test_score_exits_1_when_a_benchmark_folder_holds_no_result_file(tmp_path: Path) -> None:
    """An empty benchmark folder is no benchmark result, but the package checker refuses it (MLC502,
    as check says): score exits 1, where it printed the other folders and exited 0."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    (tmp_path / "Acme/results/acme-t8/ssd").mkdir()
    assert_clean_exit(run_cli("score", str(tmp_path / "Acme"), "--jobs", "1"), 1)


def test_score_takes_the_options_a_script_passes_check() -> None:
    """A CI script passing check's ``--no-progress`` to score too got a usage error."""
    done = CliRunner().invoke(main, ["score", str(EXAMPLE), "--no-progress", "-j", "1"])
    assert done.exit_code == 0, done.output
    assert f"{EXAMPLE_SCORE:.2f} min" in done.stdout
