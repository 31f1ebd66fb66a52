"""``mlcheck watch`` on files that are not a plain growing LF-ended log: CR line ends, a log
moved away once written, a compressed log."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from conftest import FIXTURES, watch_until_run_stop
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


def test_a_log_moved_away_after_its_run_stop_is_judged_as_it_was_read(tmp_path: Path) -> None:
    """A job script that ends with ``mv job.log results/.../result_0.txt``: the report is that of
    the lines read (check's findings and exit code), and watch says the file went away."""
    lines = [line for line in GOOD.read_bytes().splitlines(keepends=True) if b'"train_samples"' not in line]
    log, moved = tmp_path / "job.log", tmp_path / "result_0.txt"
    log.write_bytes(b"".join(lines))
    checked = CliRunner().invoke(main, ["check", str(log), "--format", "json"])
    watcher = watch_until_run_stop(log)
    log.rename(moved)  # (while watch waits 20 polls for records after run_stop)
    out, err = watcher.communicate(timeout=30)
    assert watcher.returncode == checked.exit_code == 1, err
    assert b"went away" in err and b"no such file" not in err
    assert _findings(out.decode()) == _findings(checked.stdout) and ("MLC105", 1) in _findings(checked.stdout)


def test_a_gzip_log_is_judged_once_its_stream_is_whole_and_never_followed_as_text(tmp_path: Path) -> None:
    """The path appears later as gzip, written in two parts: watch says a compressed stream is not
    followed, waits for its end and gives check's report; a stream never finished exits 2."""
    import gzip
    import threading
    import time

    packed = gzip.compress(GOOD.read_bytes())
    log = tmp_path / "job.log.gz"

    def write() -> None:
        time.sleep(0.3)
        log.write_bytes(packed[:len(packed) // 2])
        time.sleep(0.5)
        with open(log, "ab") as handle:
            handle.write(packed[len(packed) // 2:])

    writer = threading.Thread(target=write)
    writer.start()
    runner = CliRunner()
    watched = runner.invoke(main, ["watch", str(log), "--format", "json", "--poll", "0.05", "--no-progress"])
    writer.join()
    assert watched.exit_code == 0, watched.output
    assert "cannot be followed" in watched.stderr
    assert [r["verdict"] for r in json.loads(watched.stdout)["runs"]] == ["pass"]
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(packed[:len(packed) // 2])
    unfinished = runner.invoke(main, ["watch", str(cut), "--idle-timeout", "0.3", "--poll", "0.05"])
    assert unfinished.exit_code == 2 and "still incomplete" in unfinished.stderr


def test_a_watch_that_ends_before_the_files_last_run_says_so(tmp_path: Path) -> None:
    """``watch`` on a finished console of three runs ends at the first run's ``run_stop``
    (``--runs 1``) and says the file holds records after it, which ``check`` judges (was: a report of
    one run, no word of the other two); with ``--runs 3`` it judges all three and says nothing."""
    import re as _re

    from click.testing import CliRunner

    from mlcheck.cli import main
    lines = (FIXTURES / "raw" / "base.txt").read_text("utf-8").splitlines()
    out: list[str] = []
    for seed in range(3):
        out.append(f"+ srun --label python train.py --seed {seed}")
        out += ["0: " + _re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + seed * 7_200_000}',
                                line, count=1) for line in lines]
    log = tmp_path / "seeds.log"
    log.write_text("\n".join(out) + "\n", "utf-8")
    options = ["--format", "json", "--no-progress", "--idle-timeout", "5"]
    first = CliRunner().invoke(main, ["watch", str(log), *options])
    assert len(json.loads(first.stdout)["runs"]) == 1
    assert f"the watch ended at line {len(lines) + 1}, after 1 run ended (--runs 1)" in first.stderr
    every = CliRunner().invoke(main, ["watch", str(log), "--runs", "3", *options])
    assert len(json.loads(every.stdout)["runs"]) == 3 and "the watch ended at" not in every.stderr


def test_records_after_the_last_run_stop_of_the_last_run_are_judged_with_it(tmp_path: Path) -> None:
    """A record a rank logs after the last ``run_stop`` (``tracked_stats``) is the last run's:
    the watch's report is ``check``'s of the whole file, with no word of records left unjudged
    (review of session 28: it said the file held records after the watch, and left them out)."""
    run = GOOD.read_text("utf-8").splitlines()
    stop = json.loads(run[-1][len(":::MLLOG "):])
    assert stop["key"] == "run_stop"
    tail = ":::MLLOG " + json.dumps({**stop, "key": "tracked_stats", "value": {"step": 1}, "event_type": "POINT_IN_TIME"})
    log = tmp_path / "console.log"
    log.write_text("\n".join(["+ mpirun -np 8 python train.py", *run, tail]) + "\n", "utf-8")
    options = ["--format", "json", "--no-progress", "--idle-timeout", "3"]
    watched = CliRunner().invoke(main, ["watch", str(log), *options])
    checked = CliRunner().invoke(main, ["check", str(log), "--format", "json"])
    assert watched.exit_code == checked.exit_code == 0, watched.output
    assert "holds records after it" not in watched.stderr
    assert [r["lines"] for r in json.loads(watched.stdout)["runs"]] == [[2, len(run) + 2]]
    assert json.loads(watched.stdout)["runs"] == json.loads(checked.stdout)["runs"]


def test_a_utf16_console_is_read_as_check_reads_it_and_the_watch_ends(tmp_path: Path) -> None:
    """A console PowerShell 5.1 saved as UTF-16 (was: no record read, the watch waited for a
    run_stop forever): check's findings (MLC009 and the rest) and the watch ends at run_stop."""
    lines = GOOD.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"lars_opt_end_learning_rate"' in line)
    record = json.loads(lines[at][len(":::MLLOG "):])
    record["value"] = 0.5
    lines[at] = ":::MLLOG " + json.dumps(record) + "\n"
    log = tmp_path / "job.log"
    log.write_bytes(b"\xff\xfe" + "".join(lines).encode("utf-16-le"))
    runner = CliRunner()
    checked = runner.invoke(main, ["check", str(log), "--format", "json"])
    watched = runner.invoke(main, ["watch", str(log), "--format", "json", "--poll", "0.01"])  # no idle timeout
    assert checked.exit_code == watched.exit_code == 1, watched.output
    assert _findings(watched.stdout) == _findings(checked.stdout)
    assert {("MLC009", 1), ("MLC202", at + 1)} <= set(_findings(checked.stdout))
    assert f"job.log:{at + 1}: error MLC202" in watched.stderr


def test_a_utf16_console_read_as_it_grows_gives_its_characters_whole(tmp_path: Path) -> None:
    """Written in chunks that end inside a UTF-16 character (an odd number of bytes), its byte
    order mark first: every record is read, the run passes as the file does when checked whole."""
    import threading
    import time

    data = b"\xff\xfe" + GOOD.read_text("utf-8").encode("utf-16-le")
    log = tmp_path / "job.log"
    log.write_bytes(b"")

    def write() -> None:
        with open(log, "ab") as handle:
            handle.write(data[:2])  # (the byte order mark alone first: was a UnicodeError, a traceback)
            handle.flush()
            time.sleep(0.3)
            for at in range(2, len(data), 4097):
                handle.write(data[at:at + 4097])
                handle.flush()
                time.sleep(0.002)

    writer = threading.Thread(target=write)
    writer.start()
    watched = CliRunner().invoke(main, ["watch", str(log), "--format", "json", "--poll", "0.01", "--idle-timeout", "5"])
    writer.join()
    checked = CliRunner().invoke(main, ["check", str(log), "--format", "json"])
    assert watched.exit_code == checked.exit_code == 0, watched.output
    runs = [[(r["verdict"], r["time_to_train_min"]) for r in json.loads(out.stdout)["runs"]] for out in (watched, checked)]
    assert runs[0] == runs[1] and runs[0][0][0] == "pass"


def test_a_utf32_console_is_watched_as_check_reads_it(tmp_path: Path) -> None:
    """A console saved as UTF-32 big-endian (its mark begins with two NUL bytes): the watch reads
    its records as check does and ends at run_stop (was: one line of NUL-laden bytes, no record)."""
    log = tmp_path / "job.log"
    log.write_bytes(b"\x00\x00\xfe\xff" + GOOD.read_text("utf-8").encode("utf-32-be"))
    runner = CliRunner()
    checked = runner.invoke(main, ["check", str(log), "--format", "json"])
    watched = runner.invoke(main, ["watch", str(log), "--format", "json", "--poll", "0.01"])
    assert checked.exit_code == watched.exit_code == 0, watched.output
    assert _findings(watched.stdout) == _findings(checked.stdout)
    assert ("MLC009", 1) in set(_findings(checked.stdout))
