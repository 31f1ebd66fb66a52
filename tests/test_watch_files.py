"""``mlcheck watch`` on files that are not a plain growing LF-ended log: CR line ends, a log
moved away once written, a compressed log."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.cli import main

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"


def _findings(stdout: str) -> list[tuple[str, int | None]]:
    return [(f["code"], f["line"]) for r in json.loads(stdout)["runs"] for f in r["findings"]]


def test_a_log_with_cr_line_ends_is_read_as_check_reads_it_and_the_watch_ends(tmp_path: Path) -> None:
    lines = GOOD.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if b'"lars_opt_end_learning_rate"' in line)
    record = json.loads(lines[at][len(b":::MLLOG "):])
    record["value"] = 0.5  # a closed value the round fixes: MLC202 on its own line
    lines[at] = b":::MLLOG " + json.dumps(record).encode() + b"\n"
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(lines).replace(b"\n", b"\r"))
    runner = CliRunner()
    checked = runner.invoke(main, ["check", str(log), "--format", "json"])
    watched = runner.invoke(main, ["watch", str(log), "--format", "json", "--poll", "0.01"])  # no idle timeout
    assert checked.exit_code == watched.exit_code == 1, watched.output
    assert _findings(watched.stdout) == _findings(checked.stdout)
    assert ("MLC202", at + 1) in _findings(checked.stdout)
    assert f"job.log:{at + 1}: error MLC202" in watched.stderr
