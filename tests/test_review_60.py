"""Session 60: the reviews of this session."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner

from conftest import FIXTURES, time_shifted, watch_until_run_stop
from mlcheck.cli import main

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
RECORDS = [f':::MLLOG {{"key": "k{i}", "value": {i}}}'.encode() for i in range(6)]


def _until_idle(signals: Iterator[object]) -> list[object]:
    got: list[object] = []
    for signal in signals:
        if signal == "idle":
            return got
        got.append(signal)
    return got


def _findings(stdout: str) -> list[tuple[str, int | None]]:
    return [(f["code"], f["line"]) for r in json.loads(stdout)["runs"] for f in r["findings"]]


def _failing_lines() -> list[bytes]:
    """The example run without its train_samples record: MLC105 at line 1."""
    return [line for line in GOOD.read_bytes().splitlines(keepends=True) if b'"train_samples"' not in line]


def test_a_rotated_logs_last_line_without_its_lf_comes_before_the_restart(tmp_path: Path) -> None:
    """rv291 D1: the old file's last line, which no LF ended, was dropped at a rotation (the run whose
    run_stop it was: lost, its error never failing the watch)."""
    from mlcheck.read.follow import Follower

    log = tmp_path / "job.log"
    log.write_bytes(b"\n".join(RECORDS))
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert _until_idle(signals) == [record + b"\n" for record in RECORDS[:-1]]
    log.rename(tmp_path / "job.log.1")
    log.write_bytes(RECORDS[0] + b"\n")
    assert _until_idle(signals) == [RECORDS[-1], "restart", RECORDS[0] + b"\n"]
    follower.close()


def test_lines_read_ahead_before_a_rotation_are_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    """rv291 D1: a whole run read in one burst (held for the lookahead that finds the logging rank),
    then the log rotated before a quiet poll: the run was never judged, the watch went on with the new
    file and passed. It is judged, its error said, and the watch ends ("replaced")."""
    from mlcheck.raw import watch as watch_module

    lines = _failing_lines()

    class Scripted:
        def __init__(self, path: str, poll: float) -> None:
            self.grew = time.monotonic()

        def signals(self) -> Iterator[object]:
            yield from lines
            yield "restart"
            while True:
                yield "idle"
                time.sleep(0.01)

        def rest(self) -> bytes:
            return b""

        def quiet_record(self) -> None:
            return None

        def gone(self) -> None:
            return None

        def line_ends(self) -> None:
            return None

        def close(self) -> None:
            pass

    monkeypatch.setattr(watch_module, "Follower", Scripted)
    said: list[tuple[str, int | None]] = []
    outcome = watch_module.watch("job.log", lambda f: said.append((f.code, f.line)), lambda _text: None,
                                 poll=0.01, idle_timeout=1.0)
    assert outcome.reason == "replaced" and ("MLC105", 1) in said, (outcome, said)


def test_a_last_record_without_its_lf_ends_the_watch_as_check_reads_it(tmp_path: Path) -> None:
    """rv291 D4: a log whose last record (run_stop) no LF ends: check reads it; watch waited for the LF
    for ever (without --idle-timeout). Held a quiet spell, the record is read: the watch ends, as check."""
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(_failing_lines()).rstrip(b"\n"))
    runner = CliRunner()
    checked = runner.invoke(main, ["check", str(log), "--format", "json"])
    watched = runner.invoke(main, ["watch", str(log), "--format", "json", "--poll", "0.01"])  # no idle timeout
    assert checked.exit_code == watched.exit_code == 1, watched.output
    assert _findings(watched.stdout) == _findings(checked.stdout) and ("MLC105", 1) in _findings(checked.stdout)


RUN_STOP = b':::MLLOG {"key": "run_stop", "value": null, "metadata": {"status": "success"}}'


def test_the_line_end_after_a_run_stop_handed_over_at_a_quiet_spell_is_no_line(tmp_path: Path) -> None:
    from mlcheck.read.follow import Follower

    log = tmp_path / "job.log"
    log.write_bytes(RECORDS[0] + b"\n" + RUN_STOP)
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert _until_idle(signals) == [RECORDS[0] + b"\n"]
    assert follower.quiet_record() == RUN_STOP and follower.quiet_record() is None
    with open(log, "ab") as handle:
        handle.write(b"\r\n" + RECORDS[2] + b"\nstep 1")
    assert _until_idle(signals) == [RECORDS[2] + b"\n"]
    assert follower.quiet_record() is None  # (a line being written that is no record: not handed over)
    follower.close()


@pytest.mark.parametrize("held", [
    b':::MLLOG {"key": "eval_start", "value": null, "metadata": {"epoch_num": 1.3}',  # (cut before its last brace)
    b':::MLLOG {"key": "run_stop", "value": null, "metadata": {"status": "success"}',
    b':::MLLOG {"key": "eval_accuracy", "value": 0.5, "metadata": {"epoch_num": 1}}',  # (text may follow on its line)
    b'0: done {}',
])
def test_only_a_whole_run_stop_is_handed_over_at_a_quiet_spell(tmp_path: Path, held: bytes) -> None:
    """rv293: a record a writer's pause cut right after an inner closing brace was handed over as a line
    (a false MLC004, --fail-fast exit 1 on a passing log); a whole record that text then followed on its
    line made two lines (live line numbers one too high, --runs 1 judging the next run)."""
    from mlcheck.read.follow import Follower

    log = tmp_path / "job.log"
    log.write_bytes(RECORDS[0] + b"\n" + held)
    follower = Follower(str(log), poll=0.0)
    assert _until_idle(follower.signals()) == [RECORDS[0] + b"\n"]
    assert follower.quiet_record() is None and follower.rest() == held
    follower.close()


def test_a_log_rotated_before_its_line_ends_were_decided_is_read_as_check_reads_it(tmp_path: Path) -> None:
    """rv293: a progress bar drawn with CRs and the start of a record, then the log rotated: the held start
    was read as one line (MLC004 at line 1 where check of the rotated file says line 3)."""
    from mlcheck.read.follow import Follower

    log = tmp_path / "job.log"
    log.write_bytes(b"loading 10%\rloading 100%\r" + RECORDS[0][:20])
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert _until_idle(signals) == []
    log.rename(tmp_path / "job.log.1")
    log.write_bytes(RECORDS[1] + b"\n")
    assert _until_idle(signals) == [b"loading 10%\n", b"loading 100%\n", RECORDS[0][:20], "restart", RECORDS[1] + b"\n"]
    follower.close()


def test_a_utf16_start_whose_first_read_holds_no_nul_waits_for_the_bytes_check_peeks(tmp_path: Path) -> None:
    """rv291 D3: a UTF-16 console whose first characters are not Latin (a box-drawing banner) and whose first
    read is 4-7 bytes: no NUL after the mark, so it was taken for UTF-8 for good and no record was ever read.
    check peeks 8 bytes: the follower reads such a start again with what follows it."""
    from mlcheck.read.follow import Follower

    text = "╔═ job ═╗\r\n" + "\r\n".join(record.decode() for record in RECORDS) + "\r\n"
    data = text.encode("utf-16")
    log = tmp_path / "job.log"
    log.write_bytes(data[:6])
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert _until_idle(signals) == []
    with open(log, "ab") as handle:
        handle.write(data[6:])
    assert _until_idle(signals) == [line.encode("utf-8") for line in text.splitlines(keepends=True)]
    follower.close()


def _wide_check_lines(log: Path) -> list[bytes]:
    from mlcheck.read.utf16_lines import Utf16Lines

    with open(log, "rb") as raw:
        lines = Utf16Lines(raw)
        return list(iter(lambda: lines.readline(), b""))


def test_a_utf16_consoles_line_ends_are_tested_on_as_many_characters_as_check_reads(tmp_path: Path) -> None:
    """rv291 D2: check tests a UTF-16 console's first 512 Ki characters, watch tested 512 KiB of their UTF-8: a
    bar of 220 K box characters drawn with CRs (620 KB as UTF-8), then LF-ended records, was read with CR
    line ends by watch (MLC301 said at line 5396 where check says 396), LF line ends by check."""
    from mlcheck.read.follow import Follower

    bar = "".join("%3d%% %s\r" % (i % 100, "█" * 40) for i in range(5000))
    log = tmp_path / "job.log"
    log.write_bytes((bar + "\n".join(record.decode() for record in RECORDS) + "\n").encode("utf-16"))
    follower = Follower(str(log), poll=0.0)
    lines = _until_idle(follower.signals())
    follower.close()
    assert lines == _wide_check_lines(log) and len(lines) == len(RECORDS) and follower.line_ends() is False


def test_a_utf16_console_read_otherwise_by_check_is_reported_whole_and_said(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """rv291 D2: a UTF-16 console whose line ends the watch decided before it was all written (LF) where
    check reads CR line ends: never said, the report cut at the watch's own line count (false errors)."""
    from mlcheck.cli.watch_end import read_otherwise, records_after

    log = tmp_path / "job.log"
    log.write_bytes(("\n".join(record.decode() for record in RECORDS[:2]) + "\nloading\r"
                     + "\r".join(record.decode() for record in RECORDS[2:]) + "\r").encode("utf-16"))
    assert read_otherwise(str(log), False) and "a CR alone ends a line" in capsys.readouterr().err
    assert not read_otherwise(str(log), True)
    assert records_after(str(log), 4) and not records_after(str(log), 7)  # (lines as check reads them)


def test_a_check_meeting_the_pipe_copies_half_imported_by_another_thread_waits_for_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two checks in two threads (`tee fa > fb`, test_review_51): one imported the pipe copies' module
    while the other, ending, read it from sys.modules half made: AttributeError, that thread's check
    gone (its pipe never read, the writer blocked for ever). The module is now imported, which waits."""
    import importlib.abc
    import importlib.machinery
    import sys
    import threading
    from types import ModuleType

    import mlcheck.read
    from mlcheck.read import log_files

    name = "mlcheck.read.stdin_copy"

    class SlowLoader(importlib.abc.Loader):
        def __init__(self, loader: importlib.abc.Loader) -> None:
            self.loader = loader

        def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
            return None

        def exec_module(self, module: ModuleType) -> None:
            time.sleep(0.5)  # (half made, in sys.modules, for half a second)
            self.loader.exec_module(module)

    class SlowFinder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname: str, path: object, target: object = None) -> importlib.machinery.ModuleSpec | None:
            if fullname != name:
                return None
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)  # type: ignore[arg-type]
            assert spec is not None and spec.loader is not None
            spec.loader = SlowLoader(spec.loader)  # type: ignore[arg-type]
            return spec

    monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.delattr(mlcheck.read, "stdin_copy", raising=False)
    monkeypatch.setattr(sys, "meta_path", [SlowFinder(), *sys.meta_path])
    importer = threading.Thread(target=lambda: __import__(name))
    importer.start()
    time.sleep(0.1)
    assert name in sys.modules and not hasattr(sys.modules[name], "forget_pipes")  # (half made)
    log_files.forget_pipes()  # (was: AttributeError)
    assert log_files.readable_path("job.log") == "job.log"
    importer.join(5)
    assert hasattr(sys.modules[name], "forget_pipes")


def test_a_log_rotated_after_the_runs_watched_stopped_is_reported_as_read(tmp_path: Path) -> None:
    """rv291: a log rotated (renamed, a new one begun) after the run watched stopped: no report was written,
    so `--format json` gave a CI job nothing to read. The report is check's of the lines read of the
    rotated file (exit as check's); the new file is not judged."""
    log, rotated = tmp_path / "job.log", tmp_path / "job.log.1"
    log.write_bytes(b"".join(_failing_lines()))
    checked = CliRunner().invoke(main, ["check", str(log), "--format", "json"])
    watcher = watch_until_run_stop(log)
    log.rename(rotated)  # (while watch waits 20 polls for records after run_stop)
    log.write_bytes(_failing_lines()[0])
    out, err = watcher.communicate(timeout=30)
    assert watcher.returncode == checked.exit_code == 1, err
    assert b"the report covers the lines read of the file rotated away" in err
    assert _findings(out.decode()) == _findings(checked.stdout) and ("MLC105", 1) in _findings(checked.stdout)


def test_checks_with_jobs_in_two_threads_fork_no_workers_and_both_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rv294: `check(..., jobs=2)` forked its workers beside other threads: a child inherited their locks held
    (an import's: it waited for ever) and the pipes of the other thread's pool (each pool's workers never saw
    their task pipe end: both checks hung, the workers orphaned). Beside another thread the logs are checked
    in the process (or spawned workers, for 64 MiB or more), with the same results."""
    import shutil
    import threading

    from mlcheck import check
    from mlcheck.judge import jobs

    shutil.copytree(FIXTURES / "example" / "Acme", tmp_path / "Acme")
    monkeypatch.setattr(jobs, "PARALLEL_FROM", 1)
    monkeypatch.setattr(jobs, "PARALLEL_FROM_BYTES", 0)
    alone = check([str(tmp_path / "Acme")], jobs=1)
    forked: list[str] = []
    in_workers = jobs._in_workers
    monkeypatch.setattr(jobs, "_in_workers", lambda *args: forked.append(args[4]) or in_workers(*args))
    results: dict[int, object] = {}
    threads = [threading.Thread(target=lambda n=n: results.update({n: check([str(tmp_path / "Acme")], jobs=2)}))
               for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads) and results == {0: alone, 1: alone}
    assert forked == []
    waiting = threading.Event()
    other = threading.Thread(target=waiting.wait)
    other.start()
    try:
        assert jobs._start_method(jobs.PARALLEL_FROM_BYTES) is None
    finally:
        waiting.set()
        other.join()


def test_classes_are_compiled_once_when_two_threads_compile_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """rv294: `while _PENDING: _PENDING.pop()` raised IndexError when another thread took the last class
    between the test and the pop (two checks with jobs at once)."""
    from mlcheck import records

    class TakenMeanwhile(list):  # type: ignore[type-arg]
        def __bool__(self) -> bool:
            return True  # (another thread pops the last one after this says there is one)

    monkeypatch.setattr(records, "_PENDING", TakenMeanwhile())
    records.compile_pending()


def _mpi_jobs_at_once(last_lf: bool) -> bytes:
    """Two MPI jobs of the example run that ran at once into one console (the second 5 s later), tagged
    `[1,0]<stdout>:` and `[2,0]<stdout>:`; the second's run_stop last, with or without its LF."""
    first = GOOD.read_bytes().splitlines(keepends=True)
    second = time_shifted(first, 5000)
    console = b"".join(b"[1,0]<stdout>:" + a + b"[2,0]<stdout>:" + b for a, b in zip(first, second))
    return console if last_lf else console.rstrip(b"\n")


def test_mpi_jobs_at_once_whose_last_line_has_no_lf_are_read_as_two_runs(tmp_path: Path) -> None:
    """rv295: the last line of MPI jobs that ran at once, no LF after it, was read into the other job too (it
    is blanked there only when it ends in an LF): a third run, failing. And a watch of it never ended."""
    with_lf, without = tmp_path / "with.log", tmp_path / "without.log"
    with_lf.write_bytes(_mpi_jobs_at_once(True))
    without.write_bytes(_mpi_jobs_at_once(False))
    runner = CliRunner()
    checked = [runner.invoke(main, ["check", str(log), "--format", "json"]) for log in (with_lf, without)]
    runs = [[(r["verdict"], r["lines"]) for r in json.loads(out.stdout)["runs"]] for out in checked]
    assert checked[0].exit_code == checked[1].exit_code and runs[0] == runs[1] and len(runs[1]) == 2, runs
    watched = runner.invoke(main, ["watch", str(without), "--runs", "2", "--format", "json", "--poll", "0.01"])
    assert watched.exit_code == checked[1].exit_code and json.loads(watched.stdout)["runs"] == json.loads(
        checked[1].stdout)["runs"], watched.output


def test_a_run_stop_longer_than_a_mib_without_its_lf_is_handed_over(tmp_path: Path) -> None:
    """rv295: only a held line of at most 1 MiB was looked at: a longer run_stop (a blob in its metadata)
    with no LF after it kept the watch waiting for ever; check reads it."""
    from mlcheck.read.follow import Follower

    run_stop = RUN_STOP[:-2] + b', "blob": "' + b"x" * (2 << 20) + b'"}}'
    log = tmp_path / "job.log"
    log.write_bytes(RECORDS[0] + b"\n" + run_stop)
    follower = Follower(str(log), poll=0.0)
    assert _until_idle(follower.signals()) == [RECORDS[0] + b"\n"] and follower.quiet_record() == run_stop
    follower.close()


def test_a_run_stop_handed_over_at_the_idle_timeouts_poll_is_read(tmp_path: Path) -> None:
    """The whole-review of session 60: where the quiet spell that hands over an unended run_stop and
    --idle-timeout end at the same poll, the record was taken from the follower and never read (the
    run judged without its run_stop)."""
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(_failing_lines()).rstrip(b"\n"))
    runner = CliRunner()
    checked = runner.invoke(main, ["check", str(log), "--format", "json"])
    watched = runner.invoke(main, ["watch", str(log), "--format", "json", "--poll", "0.05", "--idle-timeout", "1"])
    assert checked.exit_code == watched.exit_code == 1, watched.output
    assert _findings(watched.stdout) == _findings(checked.stdout)
    assert "run_stop (success)" in watched.stderr and "0 of 1 run stopped" not in watched.stderr


def test_a_run_stop_whose_crlf_lost_its_lf_is_handed_over(tmp_path: Path) -> None:
    """rv296: a run_stop, then the CR of its CRLF and no LF: the watch waited for ever; check reads it."""
    from mlcheck.read.follow import Follower

    log = tmp_path / "job.log"
    log.write_bytes(RECORDS[0] + b"\n" + RUN_STOP + b"\r")
    follower = Follower(str(log), poll=0.0)
    assert _until_idle(follower.signals()) == [RECORDS[0] + b"\n"] and follower.quiet_record() == RUN_STOP + b"\r"
    follower.close()


def test_mpi_jobs_at_once_ended_by_the_idle_timeout_count_their_last_run_stop(tmp_path: Path) -> None:
    """rv296: with an --idle-timeout shorter than the 20 polls after which an unended run_stop is read, the
    jobs' last run_stop was left out: "did not grow for 1 s ... 1 of 2 runs stopped" (the report was check's)."""
    log = tmp_path / "job.log"
    log.write_bytes(_mpi_jobs_at_once(False))
    watched = CliRunner().invoke(main, ["watch", str(log), "--runs", "2", "--format", "json", "--poll", "0.1",
                                        "--idle-timeout", "1"])
    assert watched.exit_code == 0 and "did not grow" not in watched.stderr, watched.stderr
