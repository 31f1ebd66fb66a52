"""``mlcheck watch``: a log written line by line while mlcheck follows it."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from conftest import FIXTURES
from mlcheck.model import Finding
from mlcheck.raw.watch import watch

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
COMMAND = [sys.executable, "-c", "from mlcheck.cli import main; main()", "watch"]


def _lines() -> list[bytes]:
    return GOOD.read_bytes().splitlines(keepends=True)


def _index(lines: list[bytes], key: str) -> int:
    return next(i for i, line in enumerate(lines) if f'"key": "{key}"'.encode() in line)


def _with_time(line: bytes, time_ms: int) -> bytes:
    record = json.loads(line[len(b":::MLLOG "):])
    record["time_ms"] = time_ms
    return b":::MLLOG " + json.dumps(record).encode() + b"\n"


class Watcher:
    """``mlcheck watch`` in a subprocess, its stderr read line by line on a thread."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen([*COMMAND, *args], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE)
        self.errors: queue.Queue[str] = queue.Queue()
        self.output: queue.Queue[str] = queue.Queue()
        assert self.process.stderr is not None and self.process.stdout is not None
        self.pumps = [threading.Thread(target=self._pump, args=(stream, lines), daemon=True)
                      for stream, lines in ((self.process.stderr, self.errors),
                                            (self.process.stdout, self.output))]
        for pump in self.pumps:
            pump.start()

    @staticmethod
    def _pump(stream: IO[bytes], lines: queue.Queue[str]) -> None:
        for raw in stream:
            lines.put(raw.decode())

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.errors.get(timeout=0.05)
            except queue.Empty:
                continue
            if text in line:
                return line
        raise AssertionError(f"watch never printed {text!r}")

    def finish(self, timeout: float = 20.0) -> tuple[int, str]:
        code = self.process.wait(timeout=timeout)
        for pump in self.pumps:
            pump.join(timeout=5)
        return code, "".join(self.output.queue)


def _append(path: Path, lines: list[bytes], pause: float = 0.0) -> None:
    with open(path, "ab") as handle:
        for line in lines:
            handle.write(line)
            handle.flush()
            if pause:
                time.sleep(pause)


def test_init_violation_ends_fail_fast_watch_within_one_second(tmp_path: Path) -> None:
    log = tmp_path / "live.log"  # does not exist yet when the watch starts
    watcher = Watcher(str(log), "--fail-fast", "--idle-timeout", "30")
    lines = _lines()
    stop = _index(lines, "init_stop")
    start_ms = json.loads(lines[_index(lines, "init_start")][len(b":::MLLOG "):])["time_ms"]
    time.sleep(0.5)
    _append(log, lines[:stop], pause=0.001)
    watcher.wait_for("reading")
    time.sleep(0.3)
    _append(log, [_with_time(lines[stop], start_ms + 35 * 60000)])  # init took 35 min
    written = time.monotonic()
    code, _out = watcher.finish()
    elapsed = time.monotonic() - written
    assert code == 1
    assert elapsed < 1.0, elapsed
    print(f"init violation reported {elapsed:.2f} s after the line was written")
    found = watcher.wait_for("MLC401")
    assert f"live.log:{stop + 1}: error MLC401" in found and "init took 35.0 min" in found
    stopped = watcher.wait_for("--fail-fast")  # (the error that stopped it, and how far it read)
    assert f"stopped on the first error (MLC401 at line {stop + 1}), {stop + 1} lines read" in stopped


def test_good_run_ends_at_run_stop_with_exit_0_and_its_time_to_train(tmp_path: Path) -> None:
    log = tmp_path / "live.log"
    watcher = Watcher(str(log), "--idle-timeout", "30")
    _append(log, _lines(), pause=0.0005)
    code, out = watcher.finish()
    assert code == 0
    assert "14.76" in out and "pass" in out
    assert "time-to-train 14.76 min" in watcher.wait_for("run_stop (success)")


def test_truncated_log_is_read_again_from_the_start(tmp_path: Path) -> None:
    log = tmp_path / "live.log"
    lines = _lines()
    _append(log, GOOD.with_name("result_1.txt").read_bytes().splitlines(keepends=True)[:50])
    watcher = Watcher(str(log), "--idle-timeout", "30", "--format", "json")
    watcher.wait_for("reading")
    time.sleep(0.3)
    log.write_bytes(b"")  # the job was restarted and the log rewritten
    _append(log, lines, pause=0.0002)
    watcher.wait_for("rotated or truncated")
    code, out = watcher.finish()
    assert code == 0
    report = json.loads(out)
    assert [round(r["time_to_train_min"], 2) for r in report["runs"]] == [14.76]


def test_runs_and_errors_read_before_a_truncation_still_count(tmp_path: Path) -> None:
    """A run that broke a rule and stopped, then the log truncated and a good run written: the
    first run counts toward --runs (the watch ends at the second run_stop, was: waited forever) and
    its error fails the watch (was: exit 0 with the error printed), said beside the report."""
    log = tmp_path / "live.log"
    bad = [line.replace(b'"value": "lars"', b'"value": "adam"') if b'"key": "opt_name"' in line else line
           for line in _lines()]
    opt_line = _index(bad, "opt_name") + 1
    watcher = Watcher(str(log), "--runs", "2", "--idle-timeout", "60", "--format", "json")
    _append(log, bad, pause=0.0002)
    assert f"live.log:{opt_line}: error MLC203" in watcher.wait_for("MLC203")
    watcher.wait_for("run_stop (success)")
    log.write_bytes(b"")  # (the job restarted and rewrote its log)
    _append(log, GOOD.with_name("result_1.txt").read_bytes().splitlines(keepends=True), pause=0.0002)
    assert "(1 run stopped there: counted)" in watcher.wait_for("rotated or truncated")
    code, out = watcher.finish(timeout=40)
    assert code == 1
    note = watcher.wait_for("truncated or rotated while watched")
    assert "1 run stopped in them, 1 failing finding reported on them above" in note
    report = json.loads(out)
    assert [round(r["time_to_train_min"], 2) for r in report["runs"]] == [16.45]
    assert not [f for r in report["runs"] for f in r["findings"] if f["code"] == "MLC203"]


def test_a_truncation_right_after_the_watched_run_stopped_judges_no_other_file(tmp_path: Path) -> None:
    """The log truncated and rewritten within the quiet wait after the run's run_stop: the watch
    ended with the run watched, then judged the new lines as if they were it (MLC102, MLC301). Now
    it says the file holds another thing, and its exit code is the watched run's findings'."""
    log = tmp_path / "live.log"
    bad = [line.replace(b'"value": "lars"', b'"value": "adam"') if b'"key": "opt_name"' in line else line
           for line in _lines()]
    watcher = Watcher(str(log), "--runs", "1", "--idle-timeout", "60")
    _append(log, bad, pause=0.0002)
    watcher.wait_for("run_stop (success)")
    log.write_bytes(b"")
    _append(log, _lines()[:20])
    code, out = watcher.finish(timeout=40)
    assert code == 1 and out == ""
    note = watcher.wait_for("what it holds now is not judged")
    assert "after the 1 run watched had stopped" in note and "1 failing" in note


def _rotated_while_watched(tmp_path: Path, idle_timeout: str, rest: list[bytes]) -> Watcher:
    """A watch of a log of the first 50 lines, renamed to ``live.log.1`` 1.5 s in, then ``rest``
    written to a new ``live.log``."""
    log = tmp_path / "live.log"
    _append(log, _lines()[:50])
    watcher = Watcher(str(log), "--idle-timeout", idle_timeout, "--no-progress")
    time.sleep(1.5)
    os.rename(log, tmp_path / "live.log.1")
    _append(log, rest, pause=0.0002)
    return watcher


def test_rotated_log_is_followed_under_its_name(tmp_path: Path) -> None:
    code, out = _rotated_while_watched(tmp_path, "30", _lines()).finish()
    assert code == 0 and "14.76" in out


def _watch_file(path: Path, **options: object) -> tuple[list[Finding], list[str], str]:
    found: list[Finding] = []
    progress: list[str] = []
    outcome = watch(str(path), found.append, progress.append, poll=0.01, **options)  # type: ignore[arg-type]
    return found, progress, outcome.reason


def test_init_still_running_past_the_limit_is_reported_before_init_stop(tmp_path: Path) -> None:
    lines = _lines()
    stop = _index(lines, "init_stop")
    start_ms = json.loads(lines[_index(lines, "init_start")][len(b":::MLLOG "):])["time_ms"]
    log = tmp_path / "compiling.log"
    # the last record before the log goes quiet was written 31 min into init (log clock: replay)
    log.write_bytes(b"".join(lines[:stop - 1]) + _with_time(lines[stop - 1], start_ms + 31 * 60000))
    found, _progress, reason = _watch_file(log, idle_timeout=0.3)
    assert reason == "idle"
    alarms = [f for f in found if f.code == "MLC401"]
    assert len(alarms) == 1 and "has not stopped yet" in alarms[0].message
    assert alarms[0].line == _index(lines, "init_start") + 1


def test_missing_keys_wait_for_the_end_even_keys_that_configure_the_run(tmp_path: Path) -> None:
    """Logs put no order on most keys (BERT logs of round 3.0 write train_samples after run_start, DLRM
    after run_stop): a key missing from a partial run is not a finding yet."""
    lines = [line for line in _lines() if b'"key": "train_samples"' not in line]
    run_start = _index(lines, "run_start")
    log = tmp_path / "partial.log"
    log.write_bytes(b"".join(lines[:run_start + 3]))  # stops early in the run: no eval yet
    found, progress, reason = _watch_file(log, idle_timeout=0.3)
    assert reason == "idle"
    assert not [f for f in found if f.code in ("MLC105", "MLC102", "MLC301")]
    assert any("since run_start" in line for line in progress)
    log.write_bytes(b"".join(lines))  # the whole run: now it is missing
    found, _progress, reason = _watch_file(log, idle_timeout=2)
    assert reason == "complete"
    assert [(f.code, f.message.split()[0]) for f in found if f.code == "MLC105"] == [("MLC105", "train_samples")]


def test_records_after_run_stop_belong_to_the_run(tmp_path: Path) -> None:
    """As check reads a result file: train_samples logged after run_stop (DLRM logs) is logged."""
    lines = _lines()
    at = _index(lines, "train_samples")
    moved = lines[:at] + lines[at + 1:] + [lines[at]]
    log = tmp_path / "result_0.txt"
    log.write_bytes(b"".join(moved))
    found, _progress, reason = _watch_file(log, idle_timeout=2)
    assert reason == "complete"
    assert not [f for f in found if f.code == "MLC105"]


def test_a_submission_block_finished_after_run_stop_is_waited_for(tmp_path: Path) -> None:
    """TPU loggers print the rest of the submission_* block after run_stop, seconds later: while
    the block is incomplete the watch waits 20 s of quiet at least (not 20 polls) before it
    judges the run (was: MLC105 for keys the log printed a moment later, where check passes it)."""
    lines = _lines()
    late = [line for line in lines if b'"submission_org"' in line or b'"submission_status"' in line]
    lines = [line for line in lines if line not in late]
    log = tmp_path / "tpu.log"
    log.write_bytes(b"".join(lines))
    found: list[Finding] = []

    def write_the_rest() -> None:
        time.sleep(0.6)  # (over 20 polls of 0.01 s, within 20 s)
        with log.open("ab") as handle:
            handle.write(b"".join(late))
    writer = threading.Thread(target=write_the_rest)
    writer.start()
    progress: list[str] = []
    outcome = watch(str(log), found.append, progress.append, poll=0.01, idle_timeout=5)
    writer.join()
    assert outcome.reason == "complete"
    assert not [f for f in found if f.code == "MLC105"]
    # (the wait is said, once: a watch silent for 20 s after run_stop looked hung)
    assert sum(line.startswith("run_stop read; waiting up to 20 s for the submission_* records") for line in progress) == 1


def test_runs_option_waits_for_the_second_run(tmp_path: Path) -> None:
    log = tmp_path / "two.log"  # a second job, started by its launcher command
    log.write_bytes(GOOD.read_bytes() + b"mpirun -np 8 python train.py\n" + GOOD.read_bytes())
    _found, progress, reason = _watch_file(log, runs=2, idle_timeout=2)
    assert reason == "complete"
    assert sum("run_stop (success)" in line for line in progress) == 2


def test_raw_output_keeps_the_lowest_rank_even_when_another_rank_prints_first(tmp_path: Path) -> None:
    raw = FIXTURES / "raw" / "rank_conflict.log"
    assert raw.read_bytes().startswith(b"[1,1]<stdout>:")
    found, progress, reason = _watch_file(raw, idle_timeout=2)
    assert reason == "complete"
    conflicts = [f for f in found if f.code == "MLC021"]
    assert len(conflicts) == 1 and "where rank 0 of job 1 printed 0.7 (line 50)" in conflicts[0].message
    assert any("time-to-train 15.00 min" in line for line in progress)


def _follow(path: Path, max_line: int, limit: int) -> list[object]:
    """The non-idle signals of a follower over a file that is complete, up to ``limit``."""
    from mlcheck.read.follow import IDLE, Follower
    follower = Follower(str(path), poll=0.0, max_line=max_line)
    got: list[object] = []
    for signal in follower.signals():
        if signal == IDLE:
            break
        got.append(signal)
        if len(got) >= limit:
            break
    follower.close()
    return got


def test_follower_gives_the_length_of_an_over_long_line_not_its_bytes(tmp_path: Path) -> None:
    """And the markers on it, as check counts them: a line without one loses no record (MLC014 a
    warning in watch as in check); the record after its last marker is kept, as check keeps it."""
    from mlcheck.read.long_lines import LongLine
    log = tmp_path / "job.log"
    long_line = b"x" * 300_000 + b":::MLLOG {}" + b"\n"  # over several 64 KiB reads
    log.write_bytes(b"first\n" + long_line + b"second\n" + b"y" * 2_000 + b"\n" + b"z" * 150_000)
    assert _follow(log, max_line=1_000, limit=10) == [b"first\n", LongLine(300_012, b"\r:::MLLOG {}\n", 0), b"second\n",
                                                      LongLine(2_001, None, 0)]
    from mlcheck.read.follow import Follower
    follower = Follower(str(log), poll=0.0, max_line=1_000)
    for _signal in zip(range(5), follower.signals()):
        pass
    assert follower.rest() == LongLine(150_000, None, 0)  # the unfinished last line: its length only
    follower.close()


def test_follower_joins_a_line_written_in_many_pieces(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    line = b":::MLLOG " + b"a" * 200_000 + b"\n"
    log.write_bytes(line + b"next\n")
    assert _follow(log, max_line=16 * 1024 * 1024, limit=2) == [line, b"next\n"]


def test_watch_reports_an_over_long_line_and_goes_on(tmp_path: Path) -> None:
    from mlcheck.read import follow
    log = tmp_path / "result_0.txt"
    lines = _lines()
    at = _index(lines, "init_stop")
    log.write_bytes(b"".join(lines[:at]) + b"#" * 70_000 + b"\n" + b"".join(lines[at:]))
    found: list[Finding] = []
    original = follow.Follower.__init__

    def small_lines(self: follow.Follower, path: str, poll: float = 0.1, max_line: int = 0) -> None:
        original(self, path, poll, max_line=65_536)

    follow.Follower.__init__ = small_lines  # type: ignore[method-assign]
    try:
        outcome = watch(str(log), found.append, lambda _text: None, poll=0.01, idle_timeout=5)
    finally:
        follow.Follower.__init__ = original  # type: ignore[method-assign]
    assert outcome.reason == "complete"
    long_lines = [f for f in found if f.code == "MLC014"]
    assert [(f.line, f.path) for f in long_lines] == [(at + 1, str(log))]


def test_final_report_covers_only_the_runs_watched(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mlcheck.cli import main
    lines = _lines()
    log = tmp_path / "two_runs.log"
    later = [re.sub(rb'"time_ms": (\d+)', lambda m: b'"time_ms": %d' % (int(m.group(1)) + 3_600_000), line)
             for line in lines[:len(lines) // 2]]  # (run 2, an hour later: still running)
    log.write_bytes(b"".join(lines) + b"".join(later))
    outcome = CliRunner().invoke(main, ["watch", str(log), "--runs", "1", "--format", "json",
                                        "--no-progress", "--idle-timeout", "5"])
    assert outcome.exit_code == 0, outcome.output
    report = json.loads(outcome.stdout)
    assert [(r["index"], r["verdict"]) for r in report["runs"]] == [(0, "pass")]
    everything = CliRunner().invoke(main, ["check", str(log), "--format", "json"])
    assert everything.exit_code == 1  # the half-written run, read as a whole file, fails


def test_watch_of_a_folder_or_an_empty_file_says_what_it_is(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mlcheck.cli import main
    runner = CliRunner()
    folder = runner.invoke(main, ["watch", str(tmp_path), "--idle-timeout", "1"])
    assert folder.exit_code == 2 and "is a folder" in folder.stderr
    empty = tmp_path / "job.log"
    empty.write_bytes(b"")
    idle = runner.invoke(main, ["watch", str(empty), "--idle-timeout", "0.3", "--no-progress"])
    assert idle.exit_code == 1, idle.output  # the report of an empty log: MLC002
    assert "did not grow for" in idle.stderr and "did not appear" not in idle.stderr
    assert "MLC002" in idle.stdout
    missing = runner.invoke(main, ["watch", str(tmp_path / "later.log"), "--idle-timeout", "0.3"])
    assert missing.exit_code == 2 and "did not appear" in missing.stderr


def test_closed_value_in_the_init_block_ends_fail_fast_within_one_second(tmp_path: Path) -> None:
    """The graph compiles for minutes between the hyper-parameters and init_stop: a closed value
    is reported when its own line arrives."""
    log = tmp_path / "live.log"
    lines = _lines()
    at = _index(lines, "lars_opt_end_learning_rate")
    record = json.loads(lines[at][len(b":::MLLOG "):])
    record["value"] = 0.5  # the round fixes it
    lines[at] = b":::MLLOG " + json.dumps(record).encode() + b"\n"
    watcher = Watcher(str(log), "--fail-fast", "--idle-timeout", "30")
    _append(log, lines[:at], pause=0.001)
    watcher.wait_for("reading")
    time.sleep(0.3)
    _append(log, [lines[at]])  # ... and nothing more: init_stop is minutes away
    written = time.monotonic()
    code, _out = watcher.finish()
    elapsed = time.monotonic() - written
    assert code == 1 and elapsed < 1.0, elapsed
    found = watcher.wait_for("MLC202")
    assert f"live.log:{at + 1}: error MLC202" in found



def test_closed_value_logged_after_run_start_ends_fail_fast_at_its_line(tmp_path: Path) -> None:
    """An optimizer built at the first step logs its value after run_start: the value is reported
    when its line arrives, not at the first eval (was: at the eval, half an hour later for a run
    whose evals come at its end; review of session 49). Nothing follows the line here but the
    idle timeout, which a watch that waited for the eval would have reached."""
    log = tmp_path / "live.log"
    lines = _lines()
    at = _index(lines, "lars_opt_end_learning_rate")
    record = json.loads(lines.pop(at)[len(b":::MLLOG "):])
    record["value"] = 0.5  # the round fixes it
    started = _index(lines, "run_start") + 1
    watcher = Watcher(str(log), "--fail-fast", "--idle-timeout", "15")
    _append(log, [*lines[:started], b":::MLLOG " + json.dumps(record).encode() + b"\n"], pause=0.001)
    code, _out = watcher.finish()
    assert code == 1
    found = watcher.wait_for("MLC202")
    assert f"live.log:{started + 1}: error MLC202" in found
    assert "stopped on the first error (MLC202" in "".join(watcher.errors.queue)

def test_a_compressed_log_is_checked_whole_and_a_fifo_is_refused(tmp_path: Path) -> None:
    """A .gz log is finished (a compressed stream is not followed): watch says so and gives
    check's report and exit code, at once; a FIFO (whose opening would wait for a writer) exits 2."""
    import gzip

    log = tmp_path / "run.log.gz"
    log.write_bytes(gzip.compress(GOOD.read_bytes()))
    done = subprocess.run([*COMMAND, str(log), "--format", "json"], capture_output=True, timeout=60)
    assert done.returncode == 0 and b"compressed" in done.stderr
    assert [r["verdict"] for r in json.loads(done.stdout)["runs"]] == ["pass"]
    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)
    refused = subprocess.run([*COMMAND, str(fifo), "--idle-timeout", "1"], capture_output=True, timeout=20)
    assert refused.returncode == 2 and b"not a regular file" in refused.stderr
    afile = tmp_path / "afile"  # (a log under a file never appears: exit 2 at once, not a silent wait)
    afile.write_text("x", encoding="utf-8")
    refused = subprocess.run([*COMMAND, str(afile / "x.log")], capture_output=True, timeout=20)
    assert refused.returncode == 2 and b"x.log: cannot be reached: Not a directory" in refused.stderr


def test_watch_ends_where_the_logging_rank_died(tmp_path: Path) -> None:
    """A job whose logging rank dies while writing a record writes no run_stop: the watch ends
    there (MLC023, once no relaunch came within --relaunch-wait) with the run judged whole, rather
    than waiting for lines that never come."""
    from click.testing import CliRunner

    from mlcheck.cli import main
    from tool_scripts import load_tool

    make_raw = load_tool("make_raw")
    log = tmp_path / "job.log"
    log.write_bytes(make_raw.make_raw(GOOD.read_bytes(), make_raw.RawOptions(instances=4, crash=True)))
    outcome = CliRunner().invoke(main, ["watch", str(log), "--no-progress", "--format", "json", "--relaunch-wait", "0.5"])
    assert outcome.exit_code == 1, outcome.output  # (no relaunch within --relaunch-wait: the run that died counts)
    (run,) = json.loads(outcome.stdout)["runs"]
    codes = {f["code"] for f in run["findings"]}
    assert run["verdict"] == "fail" and {"MLC023", "MLC102"} <= codes
    cut = next(f["line"] for f in run["findings"] if f["code"] == "MLC023")
    checked = CliRunner().invoke(main, ["check", str(log), "--format", "json"])
    assert [f["line"] for r in json.loads(checked.stdout)["runs"] for f in r["findings"] if f["code"] == "MLC023"] == [cut]


def test_the_progress_of_a_bert_run_counts_samples_not_epochs(tmp_path: Path, corpus: Path) -> None:
    """BERT logs the samples trained in ``epoch_num``: the progress line says samples."""
    source = corpus / "training-2.0" / "Graphcore" / "results" / "ipu-pod16-POPART-closed" / "bert" / "result_0.txt"
    lines = source.read_bytes().splitlines(keepends=True)
    log = tmp_path / "bert.log"
    log.write_bytes(b"".join(lines[:_index(lines, "run_stop") - 1]))
    _found, progress, _reason = _watch_file(log, idle_timeout=0.3)
    evals = [line for line in progress if "last eval" in line]
    assert evals and re.search(r"last eval [\d.]+ \(samples [\d,]+\)", evals[-1]) and "epoch" not in evals[-1]


def test_the_projected_time_to_train_says_it_is_a_straight_line(tmp_path: Path) -> None:
    """The projection extends the last two evals' trend, said so (was a bare 'projected
    time-to-train 7.6 min' a user took as an estimate: real runs of 117 min were projected at 25
    after their second eval). No bound either way (was 'at least': a run whose accuracy jumps
    after a plateau, a step schedule, is projected longer than it takes), but usually longer."""
    from mlcheck.facts.rulesets import load_ruleset
    from mlcheck.raw.watch_progress import progress_line
    from mlcheck.read.reader import read_mllog
    from mlcheck.read.runs import iter_runs
    lines = _lines()
    third = [i for i, line in enumerate(lines) if b'"eval_accuracy"' in line][2]
    log = tmp_path / "live.log"
    log.write_bytes(b"".join(lines[:third + 1]))
    (run,) = list(iter_runs(read_mllog(str(log)), str(log), [], True))
    line = progress_line(run, load_ruleset("2.0.0").benchmarks["resnet"])
    assert line.endswith("projected time-to-train 7.6 min if the last two evals' trend held (curves usually "
                         "flatten near the target: likely longer)"), line


def test_fail_fast_under_exit_zero_exits_0(tmp_path: Path) -> None:
    """``exit_zero`` always exits 0, --fail-fast too, with or without the JSON report (a review, session 35)."""
    log = tmp_path / "bad.log"
    log.write_bytes((Path(__file__).resolve().parent.parent / "fixtures" / "bad" / "run_stop_no_status.txt").read_bytes())
    env = {**os.environ, "MLCHECK_EXIT_ZERO": "1"}
    for extra in ([], ["--format", "json"]):
        done = subprocess.run([*COMMAND, str(log), "--config", "/dev/null", "--fail-fast", "--idle-timeout", "2", *extra],
                              capture_output=True, timeout=60, env=env)
        assert done.returncode == 0 and b"--fail-fast: stopped on the first error" in done.stderr, done.stderr


def test_watch_takes_the_format_of_the_environment_or_config(tmp_path: Path) -> None:
    """``-f`` had a default of its own, so MLCHECK_FORMAT and the config's format were never used
    (a review, session 35); without any, text."""
    log = tmp_path / "run.log"
    log.write_bytes(GOOD.read_bytes())
    base = [*COMMAND, str(log), "--config", "/dev/null", "--idle-timeout", "2", "--no-progress"]
    done = subprocess.run(base, capture_output=True, timeout=60, env={**os.environ, "MLCHECK_FORMAT": "json"})
    assert done.returncode == 0 and json.loads(done.stdout)["summary"]["runs"] == 1
    done = subprocess.run(base, capture_output=True, timeout=60, env={**os.environ, "MLCHECK_FORMAT": ""})
    assert done.returncode == 0 and b"acme-t8" in done.stdout and not done.stdout.startswith(b"{")


def test_a_log_that_fails_to_read_is_named_not_the_output(tmp_path: Path) -> None:
    """An I/O error reading the watched log (EIO on a network file system; /proc/self/mem here)
    is the log's: it was reported as "cannot write the output"."""
    if not Path("/proc/self/mem").exists():
        import pytest
        pytest.skip("no /proc/self/mem (not Linux): no file that fails to read")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "watch", "/proc/self/mem", "--idle-timeout", "1"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2
    assert "mlcheck: error: /proc/self/mem: Input/output error" in done.stderr
    assert "cannot write the output" not in done.stderr


def test_configuration_keys_not_logged_by_run_start_are_said_as_progress_not_as_findings(tmp_path: Path) -> None:
    """A review of session 47: the README promised missing configuration keys at run_start; a key
    may still come (the official checker takes it anywhere), so they are a progress note."""
    lines = [line for line in _lines() if b'"key": "submission_org"' not in line and b'"key": "train_samples"' not in line]
    run_start = _index(lines, "run_start")
    log = tmp_path / "partial.log"
    log.write_bytes(b"".join(lines[:run_start + 3]))
    found, progress, reason = _watch_file(log, idle_timeout=0.3)
    assert reason == "idle" and not [f for f in found if f.code in ("MLC105", "MLC201")]
    (note,) = [line for line in progress if "not logged yet" in line]
    assert note == (f"run 0: at run_start (line {run_start + 1}) not logged yet: submission_org; judged at run_stop "
                    "(the official checker takes a key anywhere in the log)")


def test_fail_fast_json_reports_only_what_was_decided_while_following(tmp_path: Path) -> None:
    log = tmp_path / "live.log"
    lines = _lines()
    stop = _index(lines, "init_stop")
    start_ms = json.loads(lines[_index(lines, "init_start")][len(b":::MLLOG "):])["time_ms"]
    _append(log, lines[:stop] + [_with_time(lines[stop], start_ms + 35 * 60000)] + lines[stop + 1:stop + 5])
    watcher = Watcher(str(log), "--fail-fast", "--idle-timeout", "30", "-f", "json")
    code, out = watcher.finish()
    report = json.loads(out)
    assert code == 1 and sorted({f["code"] for run in report["runs"] for f in run["findings"]}) == ["MLC401"]


def test_a_rotation_while_a_run_is_written_is_said_at_the_end(tmp_path: Path) -> None:
    watcher = _rotated_while_watched(tmp_path, "3", _lines()[50:])
    said = watcher.wait_for("was truncated or rotated while watched")
    assert "(after line 50)" in said and "cat job.log.1 job.log | mlcheck check -" in said
    code, _out = watcher.finish()
    assert code == 1  # (the run judged without its first 50 lines)


def test_sigterm_ends_a_watch_as_ctrl_c_and_says_what_failed_so_far(tmp_path: Path) -> None:
    import signal

    log = tmp_path / "live.log"
    lines = _lines()
    stop = _index(lines, "init_stop")
    start_ms = json.loads(lines[_index(lines, "init_start")][len(b":::MLLOG "):])["time_ms"]
    _append(log, lines[:stop] + [_with_time(lines[stop], start_ms + 35 * 60000)])
    watcher = Watcher(str(log), "--idle-timeout", "60")
    watcher.wait_for("MLC401")
    watcher.process.send_signal(signal.SIGTERM)
    said = watcher.wait_for("interrupted")
    code, _out = watcher.finish()
    assert code == 143 and "(SIGTERM)" in said and "failing findings were said above (MLC401): the run fails" in said


def test_a_copytruncate_between_the_check_and_the_read_is_seen_by_the_files_first_bytes(tmp_path: Path) -> None:
    """A review of session 47: logrotate's copytruncate, the job writing on at its own offset (no
    O_APPEND), landing after the poll's check and before its read: the tail compared was the new
    bytes', and the file (NULs, then the rest) was judged without a word."""
    from mlcheck.read.follow import Follower

    log = tmp_path / "job.log"
    lines = _lines()
    log.write_bytes(b"".join(lines[:40]))
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    read = [next(signals) for _ in range(40)]
    assert read[-1] == lines[39]
    end = log.stat().st_size
    with open(log, "r+b") as handle:  # (copytruncate; the job's next write lands at its own offset)
        handle.truncate(0)
        os.pwrite(handle.fileno(), b"".join(lines[40:45]), end)
    follower._rewritten = lambda: False  # type: ignore[method-assign]  # (the check ran before the truncation)
    assert next(signals) == lines[40]
    del follower._rewritten  # (the next poll's check)
    assert [next(signals) for _ in range(4)] == lines[41:45]
    assert next(signals) == "restart"
    follower.close()


def test_a_header_rewritten_in_place_is_no_truncation(tmp_path: Path) -> None:
    from mlcheck.read.follow import Follower

    log = tmp_path / "job.log"
    lines = _lines()
    log.write_bytes(b"".join(lines[:40]))
    follower = Follower(str(log), poll=0.0)
    signals = follower.signals()
    assert [next(signals) for _ in range(40)] == lines[:40]
    with open(log, "r+b") as handle:  # (a writer updating its first line in place, same length)
        os.pwrite(handle.fileno(), lines[0].upper()[:len(lines[0]) - 1], 0)
    assert next(signals) == "idle" and not follower._rewritten()
    follower.close()


def test_sigterm_writes_the_report_of_what_was_written_where_one_is_asked_for(tmp_path: Path) -> None:
    """rv245: a CI job's time-out (SIGTERM) left no SARIF to upload, and watch had no -o."""
    import signal

    log = tmp_path / "live.log"
    lines = _lines()
    _append(log, lines[:_index(lines, "init_stop") + 1])
    sarif = tmp_path / "watch.sarif"
    watcher = Watcher(str(log), "--idle-timeout", "60", "-o", f"sarif:{sarif}", "--config", os.devnull)
    watcher.wait_for("reading")
    watcher.process.send_signal(signal.SIGTERM)
    said = watcher.wait_for("interrupted")
    code, _out = watcher.finish()
    assert code == 143 and "the report covers what was written" in said
    report = json.loads(sarif.read_text("utf-8"))
    assert {r["ruleId"] for r in report["runs"][0]["results"]} >= {"MLC102"}  # (no run_start, run_stop yet)
