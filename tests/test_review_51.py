"""Session 51: standard output redirected into an input is refused as ``-o`` is."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example"
REFUSED = "mlcheck: error: standard output is redirected into "
REFUSED_ERR = "mlcheck: error: standard error is redirected into "


def _package(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE / "Acme", tmp_path / "Acme")
    return tmp_path / "Acme"


def _run(args: list[str], stdout: Path, mode: str = "ab", stdin: Path | None = None,
         stderr: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """mlcheck with standard output (or, given ``stderr``, standard error, and stdout piped) redirected."""
    with open(stdout, mode) as out, open(stdin or "/dev/null", "rb") as given:
        if stderr is None:
            return subprocess.run([sys.executable, "-m", "mlcheck", *args], stdout=out, stdin=given,
                                  stderr=subprocess.PIPE, timeout=120)
        both = subprocess.STDOUT if stderr == stdout else open(stderr, "ab")
        return subprocess.run([sys.executable, "-m", "mlcheck", *args], stdout=out if stderr == stdout else subprocess.PIPE,
                              stdin=given, stderr=both, timeout=120)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", [["check"], ["check", "-f", "json"], ["score"], ["report", "-o", "-"]])
def test_output_appended_to_a_log_is_refused_and_the_log_kept(tmp_path: Path, command: list[str]) -> None:
    log = _package(tmp_path) / "results" / "acme-t8" / "resnet" / "result_0.txt"
    before = _digest(log)
    done = _run([*command, str(tmp_path / "Acme")], log)
    assert done.returncode == 2 and _digest(log) == before
    assert f"{REFUSED}{log}, an input of this check" in done.stderr.decode()


def test_output_into_a_new_file_of_a_checked_folder_is_refused(tmp_path: Path) -> None:
    report = _package(tmp_path) / "results" / "acme-t8" / "report.txt"
    done = _run(["check", str(tmp_path / "Acme")], report, "wb")
    assert done.returncode == 2 and report.read_bytes() == b""
    assert f"{REFUSED}{report}, an input" in done.stderr.decode()


def test_stdin_and_stdout_one_file_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "result_1.txt"
    shutil.copy(EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_1.txt", log)
    before = _digest(log)
    done = _run(["check", "-"], log, stdin=log)
    assert done.returncode == 2 and _digest(log) == before
    assert f"{REFUSED}the file standard input reads" in done.stderr.decode()


def test_output_into_a_file_beside_the_package_is_written(tmp_path: Path) -> None:
    _package(tmp_path)
    report = tmp_path / "report.json"
    done = _run(["check", str(tmp_path / "Acme"), "-f", "json"], report, "wb")
    assert done.returncode == 0 and REFUSED not in done.stderr.decode()
    assert report.read_text("utf-8").startswith('{\n  "schema": "mlcheck-report/1"')


def test_report_to_a_file_leaves_standard_output_alone(tmp_path: Path) -> None:
    """``report -o FILE`` writes nothing to standard output: where it points is no matter."""
    log = _package(tmp_path) / "results" / "acme-t8" / "resnet" / "result_0.txt"
    before = _digest(log)
    done = _run(["report", str(tmp_path / "Acme"), "-o", str(tmp_path / "r.html")], log)
    assert done.returncode == 0 and _digest(log) == before and (tmp_path / "r.html").read_bytes().startswith(b"<!DOCTYPE html>")


def test_watch_into_the_log_watched_is_refused_at_once(tmp_path: Path) -> None:
    """``mlcheck watch job.log >> job.log``: said at the start, not after the run's quiet polls."""
    log = tmp_path / "job.log"
    shutil.copy(EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt", log)
    before = _digest(log)
    done = _run(["watch", str(log), "--idle-timeout", "30"], log)
    assert done.returncode == 2 and _digest(log) == before
    assert f"{REFUSED}{log}, the log watched" in done.stderr.decode()


def test_standard_error_into_a_log_is_refused_and_said_on_stdout(tmp_path: Path) -> None:
    """``2>> result_0.txt``: the summary line would be appended to the log (an attack review,
    session 51); the error is said on standard output, the log left as it was."""
    log = _package(tmp_path) / "results" / "acme-t8" / "resnet" / "result_0.txt"
    before = _digest(log)
    done = _run(["check", str(tmp_path / "Acme"), "-f", "json"], tmp_path / "unused.txt", stderr=log)
    assert done.returncode == 2 and _digest(log) == before
    assert done.stdout.decode().startswith(f"{REFUSED_ERR}{log}, an input")


def test_both_streams_into_a_log_say_nothing_there(tmp_path: Path) -> None:
    """``>> result_0.txt 2>&1``: the refusal itself would be written into the log; exit 2 alone."""
    log = _package(tmp_path) / "results" / "acme-t8" / "resnet" / "result_0.txt"
    before = _digest(log)
    done = _run(["check", str(tmp_path / "Acme")], log, stderr=log)
    assert done.returncode == 2 and _digest(log) == before
    watched = _run(["watch", str(log), "--idle-timeout", "30"], log, stderr=log)
    assert watched.returncode == 2 and _digest(log) == before


def test_watch_with_standard_error_into_the_log_is_refused_at_once(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    shutil.copy(EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt", log)
    before = _digest(log)
    done = _run(["watch", str(log), "--idle-timeout", "30"], tmp_path / "out.txt", stderr=log)
    assert done.returncode == 2 and _digest(log) == before
    assert done.stdout.decode().startswith(f"{REFUSED_ERR}{log}, the log watched")


def test_split_of_stdin_refuses_to_write_over_stdins_file(tmp_path: Path) -> None:
    """``split - -o DIR --force --start-index 2 < DIR/result_2.txt`` (an attack review, session 51:
    the file was rewritten)."""
    log = tmp_path / "result_2.txt"
    shutil.copy(EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt", log)
    before = _digest(log)
    done = _run(["split", "-", "-o", str(tmp_path), "--force", "--start-index", "2"], tmp_path / "out.txt", stdin=log)
    assert done.returncode == 2 and _digest(log) == before
    assert f"{log} is an input of this split (the log it reads: standard input)" in done.stderr.decode()


@pytest.mark.parametrize("key", ["run_start", "run_stop"])
def test_a_boundary_logged_twice_with_nan_is_the_checkers_warning(tmp_path: Path, key: str) -> None:
    """Two run_stops (or run_starts) of value NaN: the checker's all_same (``l.count(l[0])``) reads
    json's one NaN object as one value, so it warns (a review, session 51: MLC104 was an error)."""
    import json

    from mlcheck import check

    lines = (EXAMPLE / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8").splitlines(True)
    at = next(i for i, line in enumerate(lines) if f'"key": "{key}"' in line)
    nan = lines[at].replace('"value": null', '"value": NaN')
    assert nan != lines[at]
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines[:at] + [nan, nan] + lines[at + 1:]), "utf-8")
    (run,) = check(str(log)).runs
    assert run.official_verdict == "pass"
    assert [(f.code, f.severity.name, f.official, f.line) for f in run.findings if f.code == "MLC104"] == \
        [("MLC104", "WARNING", False, at + 2)]
    assert json.loads("[NaN, NaN]")[0] is json.loads("[NaN, NaN]")[1]  # (the checker's premise)
