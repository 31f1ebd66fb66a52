"""Text from a log reaches every report safely: a lone surrogate (valid JSON, ``"\\ud800"``) never
makes a traceback that loses the report, and control characters (a colour code, ^A) in a
submitter's names are written as escapes on the terminal, in tables and in files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"


def _log(tmp_path: Path, org: str, platform: str) -> Path:
    text = EXAMPLE.read_text("utf-8")
    text = text.replace('"value": "Acme"', f'"value": "{org}"', 1).replace('"value": "acme-t8"', f'"value": "{platform}"', 1)
    path = tmp_path / "result_0.txt"
    path.write_text(text, "utf-8")
    return path


def _mlcheck(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    environ.pop("PYTHONIOENCODING", None)
    return subprocess.run([sys.executable, "-m", "mlcheck", *args], capture_output=True, env=environ, timeout=120)


@pytest.mark.parametrize("command", [["check"], ["check", "--format", "markdown"], ["check", "--format", "html"],
                                     ["check", "--format", "junit"], ["score"], ["score", "-t", "csv"],
                                     ["score", "-t", "markdown"], ["watch", "--no-progress"]])
def test_a_lone_surrogate_and_control_characters_are_escaped(tmp_path: Path, command: list[str]) -> None:
    log = _log(tmp_path, "\\ud800NV", "x\\u0001\\u001b[31mred")
    done = _mlcheck(*command, str(log), env={"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")})
    assert b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    assert done.returncode in (0, 1)
    assert done.stdout  # (the report is there)
    assert b"\x1b[31m" not in done.stdout and b"\x01" not in done.stdout
    if command[0] == "score" or command == ["check"]:
        shown = b"\\x1b\\[31mred" if "markdown" in command else b"\\x1b[31mred"  # (Markdown escapes its [)
        assert shown in done.stdout  # (the title shows what the log says, escaped)


def test_the_github_job_summary_is_written_with_escapes(tmp_path: Path) -> None:
    log = _log(tmp_path, "\\ud800NV", "x\\u001b[2Jcleared")
    summary = tmp_path / "summary.md"
    done = _mlcheck("check", str(log), "--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert b"Traceback" not in done.stderr and done.returncode in (0, 1)
    text = summary.read_bytes()
    assert b"\x1b" not in text and b"\\x1b\\[2Jcleared" in text  # (Markdown escapes its [)


def test_a_run_stop_status_with_escapes_is_shown_escaped_in_the_run_table(tmp_path: Path) -> None:
    """run_stop's status (a log's text) was drawn raw in the text report's run table: a window
    title, a clear screen and a line end that drew rows of its own."""
    text = EXAMPLE.read_text("utf-8").replace(
        '"status": "success"', '"status": "\\u001b]0;owned\\u0007\\u001b[2J\\u001b[32mok\\nfake\\u2028row\\u202e"')
    (tmp_path / "result_0.txt").write_text(text, "utf-8")
    done = _mlcheck("check", "--color", "never", "--ruleset", "2.0.0", str(tmp_path / "result_0.txt"))
    out = done.stdout.decode("utf-8")
    assert b"\x1b" not in done.stdout and "\u2028" not in out and "\u202e" not in out
    assert "\\x1b]0;owned\\x07\\x1b[2J" in out and "fake\\u2028row" in out.replace("\n", "")


def test_a_value_in_a_folders_score_reason_is_escaped_in_check_and_score(tmp_path: Path) -> None:
    import shutil

    package = tmp_path / "Acme"
    shutil.copytree(ROOT / "fixtures" / "example" / "Acme", package)
    hostile = "\x1b]0;PWNED\x07\x1b[2J\u202e\r\nX"
    for log in (package / "results" / "acme-t8" / "resnet").glob("result_*.txt"):
        log.write_text(log.read_text("utf-8").replace('"value": "lars"', '"value": ' + json.dumps(hostile)), "utf-8")
    for command in ("check", "score"):
        done = _mlcheck(command, str(package), "--color", "never") if command == "check" else _mlcheck(command, str(package))
        assert done.returncode == 1, done.stderr
        assert b"closed_resnet_" in done.stdout  # (the score's reason names the rule file the value picks)
        assert not any(c in done.stdout for c in (b"\x1b", b"\x07", "\u202e".encode())), done.stdout
        assert b"\\x1b]0;PWNED\\x07\\x1b[2J\\u202e" in done.stdout
