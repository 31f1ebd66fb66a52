"""``mlcheck watch`` while it follows: the logging rank of output without a rank 0, the config
applied to what it prints, and init timed by the log's own clock."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.cli import main

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"


def _findings(stdout: str) -> list[tuple[str, int | None]]:
    return [(f["code"], f["line"]) for r in json.loads(stdout)["runs"] for f in r["findings"]]


def test_raw_output_without_a_rank_0_is_read_from_its_lowest_rank(tmp_path: Path) -> None:
    from tool_scripts import load_tool

    make_raw = load_tool("make_raw")
    raw = make_raw.make_raw(GOOD.read_bytes(), make_raw.RawOptions(instances=4))
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(line for line in raw.splitlines(keepends=True) if not line.startswith(b"[1,0]")))
    watched = CliRunner().invoke(main, ["watch", str(log), "--format", "json", "--poll", "0.01"])  # no idle timeout
    checked = CliRunner().invoke(main, ["check", str(log), "--format", "json"])
    assert watched.exit_code == checked.exit_code, watched.output
    assert "time-to-train 14.76 min" in watched.stderr
    assert _findings(watched.stdout) == _findings(checked.stdout)


def test_the_config_decides_what_watch_prints_and_what_stops_fail_fast(tmp_path: Path) -> None:
    lines = [line for line in GOOD.read_bytes().splitlines(keepends=True) if b'"train_samples"' not in line]
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(lines))
    config = tmp_path / ".mlcheck.toml"
    config.write_text('ignore = ["MLC3"]\n[[waivers]]\ncode = "MLC105"\npath = "*.log"\nreason = "known"\n')
    runner = CliRunner()
    watched = runner.invoke(main, ["watch", str(log), "--fail-fast", "--poll", "0.01", "--no-progress"])
    assert watched.exit_code == runner.invoke(main, ["check", str(log)]).exit_code == 0, watched.output
    assert "MLC105" not in watched.stderr and "--fail-fast" not in watched.stderr
    config.write_text('ruleset = "5.0.0"\n')  # (judged under it while following)
    watched = runner.invoke(main, ["watch", str(log), "--fail-fast", "--poll", "0.01", "--no-progress"])
    assert watched.exit_code == 1 and "(training_5.0.0/" in watched.stderr
    assert "--fail-fast: stopped" in watched.stderr
    assert "config" in runner.invoke(main, ["watch", "--help"]).output
