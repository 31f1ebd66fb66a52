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


def _package(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE / "Acme", tmp_path / "Acme")
    return tmp_path / "Acme"


def _run(args: list[str], stdout: Path, mode: str = "ab", stdin: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    with open(stdout, mode) as out, open(stdin or "/dev/null", "rb") as given:
        return subprocess.run([sys.executable, "-m", "mlcheck", *args], stdout=out, stdin=given,
                              stderr=subprocess.PIPE, timeout=120)


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
