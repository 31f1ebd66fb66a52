"""Session 61: defects found by CI and by the reviewers of session 61."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_TERMINATED_BEFORE_A_READ = textwrap.dedent("""
    import os, signal, threading, time
    from mlcheck.read import stdin_copy

    def terminate_once_copying() -> None:
        while not stdin_copy._copies:
            time.sleep(0.01)
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)
        while True:  # (alive: the signal the handler sends again ends the process here)
            time.sleep(1)

    threading.Thread(target=terminate_once_copying, daemon=True).start()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    stdin_copy.stdin_copy()
""")


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask") or sys.platform == "win32", reason="POSIX signals")
def test_a_sigterm_that_comes_just_before_a_read_of_standard_input_ends_mlcheck() -> None:
    """CI (session 61): `job | mlcheck check -` ignored a CI time-out's SIGTERM that came just before
    a read of the pipe began (5 times in 300 under load): its handler waits for Python code to run,
    and the read waited for the job. Here the signal comes so (the main thread blocks it; another
    thread's handler only marks it): the copy's wait for the pipe lets the handler run."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, "-c", _TERMINATED_BEFORE_A_READ], stdin=subprocess.PIPE, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stdin is not None
    process.stdin.write(b":::MLLOG {}\n")
    process.stdin.flush()
    try:
        code = process.wait(timeout=30)
    finally:
        process.kill()
        process.stdin.close()
    assert code == -signal.SIGTERM


def test_sigterm_after_the_job_moved_its_log_away_reports_the_file_that_was_read(tmp_path: Path) -> None:
    """rv295 #5 (session 60, left undone): a CI job's time-out after the job moved its log away
    (`mv job.log results/...`, no new file yet) wrote no -o report: the report checked the path,
    which named nothing ("no such file or folder")."""
    from test_watch import GOOD, Watcher

    log, report = tmp_path / "job.log", tmp_path / "watch.json"
    lines = GOOD.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:20]))
    watcher = Watcher(str(log), "--poll", "0.1", "-o", f"json:{report}", "--config", os.devnull)
    watcher.wait_for("reading")
    log.rename(tmp_path / "job.log.1")
    watcher.process.send_signal(signal.SIGTERM)
    said = watcher.wait_for("went away")
    code, _out = watcher.finish()
    assert code == 143 and "the report covers the file that was read" in said
    (run,) = json.loads(report.read_text("utf-8"))["runs"]
    assert run["path"] == str(log) and run["verdict"] == "fail"
    assert {f["code"] for f in run["findings"]} >= {"MLC102"}  # (read to line 20: no run_stop)


def test_fail_fast_at_a_rotation_reports_the_file_rotated_away(tmp_path: Path) -> None:
    """rv295 #4 (session 60, left undone): --fail-fast stopped on an error of the run the rotation
    ended (judged whole at the rotation), but its JSON report judged the new file, 5 lines, under the
    lines counted in the old one (302): the report covers the file that was read."""
    from test_watch import GOOD, Watcher

    log, rotated = tmp_path / "job.log", tmp_path / "job.log.1"
    lines = [line for line in GOOD.read_bytes().splitlines(keepends=True) if b'"run_start"' not in line]
    log.write_bytes(b"".join(lines))
    watcher = Watcher(str(log), "--poll", "0.1", "--fail-fast", "--runs", "2", "-f", "json", "--config", os.devnull)
    watcher.wait_for("reading")
    log.rename(rotated)
    log.write_bytes(b"".join(lines[:5]))  # (the next run's first lines)
    said = watcher.wait_for("went away")
    code, out = watcher.finish()
    assert code == 1 and f"after line {len(lines)} was read" in said
    (run,) = json.loads(out)["runs"]
    assert run["lines"] == [1, len(lines)] and [(f["code"], f["line"]) for f in run["findings"]] == [("MLC101", 1)]


@pytest.mark.parametrize("written_on", [[b" (rank 0)\n"], [b" (rank", b" 0)\n"]])
def test_text_written_on_after_a_handed_run_stop_is_no_line_of_its_own(tmp_path: Path,
                                                                       written_on: list[bytes]) -> None:
    """rv295 #1 (session 60, left undone): a run_stop handed over at a quiet spell without its LF, then
    text written on its line: the text was read as a line of its own (every later live line number one
    too high, as check, which drops text after a record, MLC020, counts them)."""
    from mlcheck.read.follow import Follower
    from test_review_60 import RECORDS, RUN_STOP, _until_idle

    log = tmp_path / "job.log"
    log.write_bytes(RECORDS[0] + b"\n" + RUN_STOP)
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert _until_idle(signals) == [RECORDS[0] + b"\n"] and follower.quiet_record() == RUN_STOP
    for part in written_on:
        with open(log, "ab") as handle:
            handle.write(part)
        assert _until_idle(signals) == []
    with open(log, "ab") as handle:
        handle.write(RECORDS[1] + b"\n")
    assert _until_idle(signals) == [RECORDS[1] + b"\n"]
    follower.close()


_HUNG_UP_IN_THE_PARENT = textwrap.dedent("""
    import os, signal, sys, time
    from mlcheck.judge.fork_pool import forked_results

    PARENT, FORKED = os.getpid(), []
    fork = os.fork

    def recorded() -> int:
        pid = fork()
        if pid:
            FORKED.append(pid)
        return pid

    os.fork = recorded

    def work(task: int) -> int:
        if os.getpid() == PARENT:
            os.kill(PARENT, signal.SIGHUP)
        else:
            time.sleep(0.05)
        return task

    try:
        list(forked_results(list(range(200)), work, 2))
    finally:
        left = []
        for pid in FORKED:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            left.append(pid)
        print("left", left, flush=True)
""")


@pytest.mark.skipif(not hasattr(signal, "SIGHUP") or sys.platform == "win32", reason="POSIX signals")
def test_sighup_in_the_parent_ends_the_workers() -> None:
    """rv297 #6: a closed terminal's SIGHUP killed `check --jobs 2`'s parent and left its workers
    running (to the end of their chunks, the output pipe held open): it ends them, as SIGTERM does."""
    done = subprocess.run([sys.executable, "-c", _HUNG_UP_IN_THE_PARENT], capture_output=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 128 + signal.SIGHUP and done.stdout == b"left []\n", done


_TERMINATED_AS_THE_PART_IS_MADE = textwrap.dedent("""
    import os, signal, sys
    from mlcheck.settings import replaced_file

    made = replaced_file._part_beside

    def made_then_terminated(target: str) -> object:
        part = made(target)
        os.kill(os.getpid(), signal.SIGTERM)  # (the signal as the part appears)
        return part

    replaced_file._part_beside = made_then_terminated
    with replaced_file.replaced_file(sys.argv[1]) as handle:
        handle.write("report")
""")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_sigterm_as_the_part_of_a_report_is_made_leaves_no_part(tmp_path: Path) -> None:
    """rv297 #4: a SIGTERM right after `-o report.json`'s part was made (its handler not set yet) left
    an empty `.report.json.XXXX.part` (1 time in 80 under load)."""
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, "-c", _TERMINATED_AS_THE_PART_IS_MADE, str(report)], capture_output=True,
                          timeout=60, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 128 + signal.SIGTERM and list(tmp_path.iterdir()) == [], done


def _full_pipe() -> tuple[int, int]:
    """A pipe whose reader reads nothing, its buffer already full: a write to it waits."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        while True:
            os.write(write_end, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(write_end, True)
    return read_end, write_end


def _waiting_to_write(pid: int) -> None:
    for _ in range(600):
        if "pipe_write" in Path(f"/proc/{pid}/wchan").read_text():
            return
        time.sleep(0.05)
    raise AssertionError("mlcheck never waited to write")


_CLI = "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); from mlcheck.cli import run; run()"


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs /proc/PID/wchan (Linux) to see a write wait")
@pytest.mark.parametrize("command, stalled, number, code", [
    (["check", "RUN", "-f", "json", "-o", "json:REPORT", "--config", os.devnull], "stderr", signal.SIGINT, 130),
    (["watch", "RUN", "--poll", "0.1", "-o", "json:REPORT", "--config", os.devnull], "stderr", signal.SIGINT, 130),
    (["watch", "RUN", "--poll", "0.1", "-o", "json:REPORT", "--config", os.devnull], "stderr", signal.SIGTERM, 143),
    (["split", "RUN", "-o", "OUT"], "stdout", signal.SIGTERM, 143),
])
def test_an_interrupt_while_output_waits_for_a_reader_that_stopped_ends_mlcheck(
        tmp_path: Path, command: list[str], stalled: str, number: int, code: int) -> None:
    """rv297 #1-#3: with stderr (or stdout) a pipe its reader stopped reading (`2>&1 | less` left
    unread), the first Ctrl-C or SIGTERM ended nothing: what mlcheck still wrote as it ended
    ("Aborted!", watch's note, the flush at exit) waited too (watch: three SIGTERMs and no -o report;
    Ctrl-C never; split: exit 120 at the third SIGTERM)."""
    from test_watch import GOOD

    report = tmp_path / "r.json"
    places = {"RUN": str(GOOD), "json:REPORT": f"json:{report}", "OUT": str(tmp_path / "out")}
    args = [places.get(a, a) for a in command]
    read_end, write_end = _full_pipe()
    quiet = subprocess.DEVNULL
    try:
        process = subprocess.Popen([sys.executable, "-c", _CLI, *args], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                                   stderr=write_end if stalled == "stderr" else quiet,
                                   stdout=write_end if stalled == "stdout" else quiet)
        os.close(write_end)
        try:
            _waiting_to_write(process.pid)
            process.send_signal(number)
            assert process.wait(timeout=20) == code
        finally:
            process.kill()
            process.wait()
    finally:
        os.close(read_end)
    if command[0] == "watch" and number == signal.SIGTERM:  # (the -o report of what was read, as --help promises)
        assert json.loads(report.read_text("utf-8"))["runs"][0]["path"] == str(GOOD)


_TERMINATED_AS_WATCH_STARTS = textwrap.dedent("""
    import os, signal, sys
    import mlcheck.cli.raw as raw

    settings = raw.load_cli_settings

    def terminated_as_settings_are_read(*args: object, **kwargs: object) -> object:
        os.kill(os.getpid(), signal.SIGTERM)  # (a CI job's time-out in watch's first second)
        return settings(*args, **kwargs)

    raw.load_cli_settings = terminated_as_settings_are_read
    from mlcheck.cli import run
    run()
""")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_sigterm_as_watch_starts_writes_the_report(tmp_path: Path) -> None:
    """rv297 #5: a SIGTERM in watch's first second (its settings being read, before its handler was
    set) ended mlcheck without the -o report --help promises (9 times in 25 under load)."""
    from test_watch import GOOD

    report = tmp_path / "r.json"
    done = subprocess.run([sys.executable, "-c", _TERMINATED_AS_WATCH_STARTS, "watch", str(GOOD), "--poll", "0.1",
                           "-o", f"json:{report}", "--config", os.devnull], capture_output=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 143 and b"interrupted (SIGTERM)" in done.stderr, done
    assert json.loads(report.read_text("utf-8"))["runs"][0]["path"] == str(GOOD)


def _hangup_ignored(_task: int) -> bool:
    return signal.getsignal(signal.SIGHUP) is signal.SIG_IGN


@pytest.mark.skipif(not hasattr(signal, "SIGHUP") or sys.platform == "win32", reason="POSIX signals")
def test_a_worker_keeps_sighup_ignored_under_nohup() -> None:
    """rv300: under `nohup` (SIGHUP ignored) a closed terminal's SIGHUP killed `--jobs N`'s workers
    (this session's fix gave them SIGHUP's default): their logs were checked again, or lost (MLC000)."""
    from mlcheck.judge.fork_pool import forked_results

    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        assert dict(forked_results(list(range(4)), _hangup_ignored, 2, parent_works=False)) == {
            0: True, 1: True, 2: True, 3: True}
    finally:
        signal.signal(signal.SIGHUP, before)


@pytest.mark.parametrize("ruleset", ["4.0.0", "5.1.0"])
@pytest.mark.parametrize("status", [None, ["Preview"]])
def test_a_refused_status_is_said_once_as_json_writes_it(tmp_path: Path, ruleset: str, status: object) -> None:
    """rv300: a status of null or a list got an MLC515 error ("the system_desc_checker refuses the
    file") and an MLC512 warning that said the checker accepts it; the value was shown as Python
    writes it (None, ['Preview'])."""
    from mlcheck.package.layout import read_json_document
    from mlcheck.rules.package_system import check_system_description
    from test_seed_and_system_rules import SYSTEM, edit_system, make_package

    package = make_package(tmp_path)
    edit_system(package, lambda data: data.update(status=status))
    findings = check_system_description(read_json_document(str(package / SYSTEM)), "r", ruleset)
    (refused,) = [f for f in findings if f.code in ("MLC512", "MLC515")]
    assert refused.code == "MLC515" and refused.severity.name == "ERROR"
    assert f"status {json.dumps(status)} is" in refused.message


def test_a_record_written_on_the_line_of_a_handed_run_stop_is_read(tmp_path: Path) -> None:
    """rv300: a relaunch whose first record followed a run_stop that no LF ended (handed over at a quiet
    spell) on the same line: the watch dropped it with the line's rest (a false MLC105, --fail-fast
    exit 1, where check reads the record, MLC010, and exits 0)."""
    from mlcheck.read.follow import Follower
    from test_review_60 import RECORDS, RUN_STOP, _until_idle

    log = tmp_path / "job.log"
    log.write_bytes(RECORDS[0] + b"\n" + RUN_STOP)
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert _until_idle(signals) == [RECORDS[0] + b"\n"] and follower.quiet_record() == RUN_STOP
    with open(log, "ab") as handle:
        handle.write(RECORDS[1] + b"\n" + RECORDS[2] + b"\n")
    assert _until_idle(signals) == [RECORDS[1] + b"\n", RECORDS[2] + b"\n"]
    follower.close()


def test_sigterm_after_the_job_replaced_its_log_by_an_empty_one_reports_the_file_read(tmp_path: Path) -> None:
    """rv300: the job moved its log away and made a new, empty one at its path; a SIGTERM then wrote
    the -o report of the empty file (MLC002), not of the lines read."""
    from test_watch import GOOD, Watcher

    log, report = tmp_path / "job.log", tmp_path / "watch.json"
    log.write_bytes(b"".join(GOOD.read_bytes().splitlines(keepends=True)[:20]))
    watcher = Watcher(str(log), "--poll", "60", "-o", f"json:{report}", "--config", os.devnull)
    watcher.wait_for("reading")
    log.rename(tmp_path / "job.log.1")
    log.write_bytes(b"")
    watcher.process.send_signal(signal.SIGTERM)
    watcher.wait_for("went away")
    assert watcher.finish()[0] == 143
    (run,) = json.loads(report.read_text("utf-8"))["runs"]
    assert run["lines"] == [1, 20] and "MLC002" not in {f["code"] for f in run["findings"]}


def test_watch_that_ends_before_it_began_leaves_sigterm_as_it_was() -> None:
    """The SIGTERM held from watch's start (rv297 #5) is let go however the command ends: an error
    before the watch began left a handler that kept every later SIGTERM of the process."""
    from click.testing import CliRunner

    from mlcheck.cli import main

    before = signal.getsignal(signal.SIGTERM)
    assert CliRunner().invoke(main, ["watch", str(ROOT / "no-such.log"), "--ruleset", "9.9.9"]).exit_code == 2
    assert signal.getsignal(signal.SIGTERM) is before


_TERMINATED_WHILE_THE_WORKERS_WORK = textwrap.dedent("""
    import os, signal, threading, time
    from mlcheck.judge.fork_pool import forked_results

    PARENT = os.getpid()

    def work(task: int) -> int:
        time.sleep(600)  # (a worker's long chunk)
        return task

    def terminate_once_waiting() -> None:
        time.sleep(1)
        os.kill(PARENT, signal.SIGTERM)
        while True:
            time.sleep(1)

    threading.Thread(target=terminate_once_waiting, daemon=True).start()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    list(forked_results([0, 1], work, 2, parent_works=False))
""")


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask") or sys.platform == "win32", reason="POSIX signals")
def test_a_sigterm_that_comes_just_before_the_parent_waits_for_its_workers_ends_it() -> None:
    """rv297 (read in the code): `check --jobs N`'s parent waited for its workers' next result without a
    bound; a SIGTERM marked just before the wait began (here: the main thread blocks it, another
    thread's handler only marks it) waited for the end of a worker's chunk. It ends the parent now."""
    done = subprocess.run([sys.executable, "-c", _TERMINATED_WHILE_THE_WORKERS_WORK], capture_output=True,
                          timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 128 + signal.SIGTERM, done
