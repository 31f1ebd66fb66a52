"""``mlcheck watch`` while it follows: the logging rank of output without a rank 0, the config
applied to what it prints, and init timed by the log's own clock."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.cli import main
from mlcheck.model import Finding, Severity

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


def _shifted(init_ago_min: float, init_min: float | None = None) -> list[bytes]:
    """The good log (judged under 2.0.0) with init_start ``init_ago_min`` minutes ago by the wall clock (its records
    written late, at once), init_stop ``init_min`` after init_start when given."""
    import re
    import time

    lines = GOOD.read_bytes().splitlines(keepends=True)
    start = json.loads(lines[1][len(b":::MLLOG "):])["time_ms"]
    shift = int(time.time() * 1000 - init_ago_min * 60000) - start
    stop = next(i for i, line in enumerate(lines) if b'"init_stop"' in line)
    extra = 0 if init_min is None else start + int(init_min * 60000) - json.loads(lines[stop][9:])["time_ms"]
    return [re.sub(rb'"time_ms": (\d+)', lambda m: b'"time_ms": %d' % (int(m.group(1)) + shift + (extra if i >= stop else 0)),
                   line) for i, line in enumerate(lines)]


def _watch_late(tmp_path: Path, lines: list[bytes]) -> tuple[list[Finding], str]:
    import threading
    import time

    from mlcheck.raw.watch import watch
    from mlcheck.raw.watch_state import StopWatching

    log = tmp_path / "job.log"
    stop = next(i for i, line in enumerate(lines) if b'"init_stop"' in line)
    log.write_bytes(b"".join(lines[:stop]))

    def rest() -> None:
        time.sleep(0.5)
        with open(log, "ab") as handle:
            handle.write(b"".join(lines[stop:]))

    writer = threading.Thread(target=rest)
    writer.start()
    found: list[Finding] = []

    def on_finding(finding: Finding) -> None:  # (as --fail-fast does)
        found.append(finding)
        if finding.severity is Severity.ERROR:
            raise StopWatching

    from mlcheck.facts.rulesets import load_ruleset

    outcome = watch(str(log), on_finding, lambda _text: None, load_ruleset("2.0.0"), poll=0.01, idle_timeout=10)
    writer.join()
    return found, outcome.reason


def test_records_written_late_are_no_init_error_until_the_logs_own_times_say_so(tmp_path: Path) -> None:
    found, reason = _watch_late(tmp_path, _shifted(35))  # (init took 10.6 min by the log's times)
    assert reason == "complete"
    assert [(f.code, f.severity) for f in found if f.code == "MLC401"] == [("MLC401", Severity.WARNING)]
    assert "by the clock" in next(f.message for f in found if f.code == "MLC401")
    assert not next(f.official for f in found if f.code == "MLC401")  # (session 58: no checker reads a clock)


def test_a_real_init_overrun_written_late_is_one_error(tmp_path: Path) -> None:
    found, reason = _watch_late(tmp_path, _shifted(40, init_min=35))
    assert reason == "stopped"
    assert [f.severity for f in found if f.code == "MLC401"] == [Severity.WARNING, Severity.ERROR]
    assert "init took 35.0 min" in found[-1].message


def test_fail_fast_still_writes_the_json_report_of_the_lines_read(tmp_path: Path) -> None:
    lines = GOOD.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if b'"init_stop"' in line)
    record = json.loads(lines[at][len(b":::MLLOG "):])
    record["time_ms"] += 35 * 60000  # (init over 30 min: MLC401 as soon as init_stop is read)
    lines[at] = b":::MLLOG " + json.dumps(record).encode() + b"\n"
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(lines))
    watched = CliRunner().invoke(main, ["watch", str(log), "--fail-fast", "-f", "json", "--poll", "0.01",
                                        "--no-progress"])
    assert watched.exit_code == 1, watched.output
    assert f"(MLC401 at line {at + 1}), {at + 1} lines read; the JSON report covers them" in watched.stderr
    report = json.loads(watched.stdout)  # (a CI job parsing stdout gets JSON, not nothing)
    assert report["runs"][0]["lines"] == [1, at + 1] and report["runs"][0]["verdict"] == "fail"
    assert ("MLC401", at + 1) in _findings(watched.stdout)
    watched = CliRunner().invoke(main, ["watch", str(log), "--fail-fast", "--poll", "0.01", "--no-progress"])
    assert watched.exit_code == 1 and watched.stdout == ""  # (text: the error on stderr is all)
    watched = CliRunner().invoke(main, ["watch", str(log), "--fail-fast", "-f", "sarif", "--poll", "0.01",
                                        "--no-progress"])  # (every format of check's report: review of session 41)
    assert watched.exit_code == 1 and "the SARIF report covers them" in watched.stderr
    assert json.loads(watched.stdout)["runs"][0]["results"]


def test_a_cut_record_the_rank_goes_on_after_ends_no_run(tmp_path: Path) -> None:
    """A record another stream cut where it cannot be joined again (MLC023), the logging rank's
    records going on after it: the run goes on, as check reads it (watch ended the run at the cut,
    and reported a missing run_stop and target that the file has; a review, session 34). Where the
    launcher then says the job died, the run ends there (test_watch.py)."""
    lines = GOOD.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if b'"eval_accuracy"' in line)
    cut = lines[at].index(b'"value": ') + len(b'"value": 0.4')
    lines[at:at + 1] = [lines[at][:cut] + b"\n", b"0it [00:00, ?it/s]\n", lines[at][cut:]]  # (a digit: no join)
    lines = [(b"[1,0]<stderr>:" if line.startswith(b"0it") else b"[1,0]<stdout>:") + line for line in lines]
    log = tmp_path / "job.log"  # (mpirun's tags: the cut is MLC023, an error)
    log.write_bytes(b"".join(lines))
    checked = CliRunner().invoke(main, ["check", str(log), "--format", "json"])
    watched = CliRunner().invoke(main, ["watch", str(log), "--format", "json", "--poll", "0.01",
                                        "--idle-timeout", "1", "--no-progress"])
    assert ("MLC023", at + 1) in _findings(checked.stdout)
    assert watched.exit_code == checked.exit_code == 1, watched.output
    assert _findings(watched.stdout) == _findings(checked.stdout)
    assert json.loads(watched.stdout)["runs"][0]["lines"] == [1, len(lines)]
    assert not {"MLC102", "MLC301"} & {code for code, _ in _findings(watched.stdout)}
    assert "MLC102" not in watched.stderr and "MLC301" not in watched.stderr  # (nothing said that turns false)
