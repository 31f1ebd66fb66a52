"""Raw output of a job that crashed, then was launched again into the same console: the attempt
that crashed is a run of its own (failing), the relaunch is a run with the clean file's verdict and
time, wherever the crash came (review of session 26: an attempt that logged its block and settings
before its init_start, as HugeCTR does, was merged with its relaunch; a relaunch's first records
went to the crashed run after a job's end and after a traceback).

A run script that only prepared its run before the launcher line (block, settings, cache_clear) is
still one run: tests/test_launch_after_settings.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef
from mlcheck.results import RunResult

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
LAUNCH = "+ srun --nodes=1 --ntasks=8 python train.py"
CANCELLED = "slurmstepd: error: *** JOB 81234 ON node1 CANCELLED AT 2022-10-01T10:00:00 DUE TO NODE_FAIL ***"
TASK_FAILED = "srun: error: node03: task 1: Exited with exit code 1"
TRACEBACK = ["Traceback (most recent call last):", "RuntimeError: CUDA error: an illegal memory access"]
_TIME = re.compile(r'"time_ms": (\d+)')


def _records() -> list[str]:
    lines = GOOD.read_text("utf-8").splitlines()
    keys = [json.loads(line[len(":::MLLOG "):])["key"] for line in lines]
    assert keys[:3] == ["cache_clear", "init_start", "submission_benchmark"] and keys[9] == "gradient_accumulation_steps"
    return lines


def _block_first() -> list[str]:
    """The example run as HugeCTR logs it: cache_clear, the submission block, the settings and
    weights_initialization, then init_start."""
    lines = _records()
    last_weight = max(i for i, line in enumerate(lines) if '"weights_initialization"' in line)
    return lines[:1] + lines[2:last_weight + 1] + lines[1:2] + lines[last_weight + 1:]


def _died_in_weights(run: list[str]) -> int:
    """Where an attempt of :func:`_block_first` order dies: after its block, settings and 3 weights."""
    return next(i for i, line in enumerate(run) if '"weights_initialization"' in line) + 3


def _script_first() -> list[str]:
    """The example run as a run script prepares it: the submission block and first settings (seed,
    batch size), then cache_clear and init_start."""
    lines = _records()
    return lines[2:10] + lines[:2] + lines[10:]


def _later(lines: list[str], minutes: int = 40) -> list[str]:
    return [_TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + minutes * 60_000}', line) for line in lines]


def _training_cut(lines: list[str]) -> int:
    return next(i for i, line in enumerate(lines) if '"run_start"' in line) + 5


def _runs(tmp_path: Path, lines: list[str]) -> list[RunResult]:
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    return check_log(LogRef(str(log)), None)


def _clean() -> RunResult:
    [clean] = check_log(LogRef(str(GOOD)), None)
    return clean


@pytest.mark.parametrize("crash", [[*TRACEBACK, CANCELLED], TRACEBACK], ids=["cancelled", "traceback"])
def test_an_attempt_that_died_before_its_init_start_is_a_run_of_its_own(crash: list[str], tmp_path: Path) -> None:
    """cache_clear, launcher, block, settings, a crash; then the run script again: cache_clear,
    launcher, the whole run."""
    run = _block_first()
    died = _died_in_weights(run)
    first, second = _runs(tmp_path, [run[0], LAUNCH, *run[1:died], *crash, *_later([run[0], LAUNCH, *run[1:]])])
    assert first.verdict == "fail" and first.run is not None and first.run.last_line == died + 1
    clean = _clean()
    assert (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert not [f for f in second.findings if f.code in ("MLC106", "MLC107")]
    [note] = [f for f in first.findings + second.findings if f.code == "MLC024"]  # (the job's end; else the traceback's)
    assert note.line == died + len(crash) + 1 if len(crash) == 3 else "a Python traceback ends" in note.message


def test_a_relaunch_after_a_job_s_end_and_a_launcher_line_keeps_its_first_records(tmp_path: Path) -> None:
    """The relaunch logs a setting first (not a key that begins a run): it is the relaunch's, not
    the crashed run's (was: MLC105 gradient_accumulation_steps not logged)."""
    records = _records()
    relaunch = records[9:10] + records[:9] + records[10:]
    cut = _training_cut(records)
    lines = [LAUNCH, *records[:cut], *TRACEBACK, TASK_FAILED, LAUNCH, *_later(relaunch)]
    first, second = _runs(tmp_path, lines)
    assert first.verdict == "fail"
    clean = _clean()
    assert (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    notes = [(f.line, f.message.split(" (")[0]) for f in second.findings if f.code == "MLC024"]
    assert notes == [(cut + 4, "the job ends here"), (cut + 5, "a new job begins here")]  # (srun's word, not the traceback)


def test_a_run_script_s_block_after_a_crash_in_training_is_the_relaunch_s(tmp_path: Path) -> None:
    """A crash with only a traceback; the run script logs the next attempt's block, settings and
    cache_clear, then launches it (was: the block and settings went to the crashed run)."""
    records, run = _records(), _script_first()
    cut = _training_cut(records)
    init = run.index(records[1])
    lines = [*records[:cut], *TRACEBACK, *_later(run[:init]), LAUNCH, *_later(run[init:])]
    first, second = _runs(tmp_path, lines)
    assert first.verdict == "fail" and first.run is not None and (first.run.first_line, first.run.last_line) == (1, cut)
    clean = _clean()
    assert (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert second.run is not None and second.run.first_line == cut + len(TRACEBACK) + 1


def test_split_and_watch_cut_the_crashed_attempt_where_check_does(tmp_path: Path) -> None:
    run = _block_first()
    died = _died_in_weights(run)
    lines = [run[0], LAUNCH, *run[1:died], *TRACEBACK, CANCELLED, *_later([run[0], LAUNCH, *run[1:]])]
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    out = tmp_path / "split"
    assert CliRunner().invoke(main, ["split", "-o", str(out), str(log)]).exit_code == 0
    assert (out / "result_0.txt").read_text("utf-8") == "\n".join(run[:died]) + "\n"
    assert (out / "result_1.txt").read_text("utf-8") == "\n".join(_later(run)) + "\n"
    watched = CliRunner().invoke(main, ["watch", str(log), "--format", "json", "--runs", "1", "--no-progress",
                                        "--idle-timeout", "5"])
    assert [r["verdict"] for r in json.loads(watched.stdout)["runs"]] == ["fail", "pass"]


def _at(line: str, time_ms: int) -> str:
    return _TIME.sub(f'"time_ms": {time_ms}', line)


def _time(line: str) -> int:
    return int(json.loads(line[len(":::MLLOG "):])["time_ms"])


@pytest.mark.parametrize("before", [1, 2], ids=["script-step", "copies-around-the-launcher"])
def test_a_run_script_s_cache_clear_step_then_the_training_s_own_is_one_run(before: int, tmp_path: Path) -> None:
    """cache_clear logged by the run script, the launcher line, then the training logs its own
    cache_clear and init_start (review of session 27: split into a failing run of one record)."""
    records = _records()
    [run] = _runs(tmp_path, [*[records[0]] * before, LAUNCH, *[records[0]] * (before - 1), *records])
    clean = _clean()
    assert (run.verdict, run.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_a_run_s_own_records_of_a_setting_in_training_stay_with_the_crashed_run(tmp_path: Path) -> None:
    """A key logged before run_start and again in training (as tracked_stats in LLM logs), then
    the crash and the relaunch: those records are the crashed run's."""
    records = _records()
    cut = _training_cut(records)
    again = next(line for line in records if '"train_samples"' in line)
    copies = [_at(again, _time(records[cut - 1]) + step) for step in (1, 2, 3)]
    lines = [*records[:cut], *copies, *TRACEBACK, TASK_FAILED, LAUNCH, *_later(records)]
    first, second = _runs(tmp_path, lines)
    assert first.run is not None and first.run.last_line == cut + 3
    assert second.run is not None and second.run.first_line == cut + 8
    clean = _clean()
    assert (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_another_process_s_block_after_init_stop_stays_with_the_crashed_run(tmp_path: Path) -> None:
    """A process prints its own submission block half a second after init_stop; the job dies before
    run_start and is launched again: the copies are the crashed run's (no MLC107 in the relaunch)."""
    records = _records()
    init_stop = next(i for i, line in enumerate(records) if '"init_stop"' in line)
    copies = [_at(line, _time(records[init_stop]) + 500) for line in records[2:7]]
    lines = [*records[:init_stop + 1], *copies, *TRACEBACK, TASK_FAILED, LAUNCH, *_later(records)]
    first, second = _runs(tmp_path, lines)
    assert first.run is not None and first.run.last_line == init_stop + 1 + len(copies)
    clean = _clean()
    assert (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert not [f for f in second.findings if f.code == "MLC107"]


def test_a_crash_in_init_then_a_run_script_s_block_before_the_launcher_is_the_relaunch_s(tmp_path: Path) -> None:
    """Block and settings, launcher, init_start, a crash after a few settings; the run script logs
    the next attempt's block and settings, then launches it (half an hour later)."""
    lines = _records()
    run = lines[2:10] + lines[:2] + lines[10:]  # (the block and first settings before cache_clear, init_start)
    crash = [*run[:8], LAUNCH, *run[8:15], *TRACEBACK]
    first, second = _runs(tmp_path, [*crash, *_later(run[:8], 30), LAUNCH, *_later(run[8:], 30)])
    assert first.verdict == "fail" and first.run is not None and first.run.last_line == 16
    clean = _clean()
    assert (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


@pytest.mark.parametrize("cleared", [False, True], ids=["block", "cache_clear-and-block"])
def test_a_run_script_s_block_before_a_hugectr_run_is_one_run(cleared: bool, tmp_path: Path) -> None:
    """The run script logs the submission block (and cache_clear), then launches a training that
    logs its own block, settings and weights before init_start (review of session 27: the script's
    block became a failing run of its own)."""
    run = _block_first()
    script = run[:6] if cleared else run[1:6]
    [one] = _runs(tmp_path, [*script, LAUNCH, *run])
    clean = _clean()
    assert (one.verdict, one.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_a_rank_s_block_after_srun_said_another_task_failed_stays_in_its_attempt(tmp_path: Path) -> None:
    """srun says a task failed while the run initialises; rank 0 goes on logging its block and
    settings, then dies; the relaunch is a run of its own (was: the block opened a run, and the
    relaunch merged into it)."""
    records = _records()
    lines = [LAUNCH, *records[:2], TASK_FAILED, *records[2:12], *TRACEBACK, LAUNCH, *_later(records)]
    first, second = _runs(tmp_path, lines)
    assert first.verdict == "fail" and first.run is not None and first.run.last_line == 14
    clean = _clean()
    assert (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_a_run_script_loop_s_next_block_is_the_next_run_s_after_a_setting_logged_in_training(tmp_path: Path) -> None:
    """Before each launch the script logs the block, seed and batch size; the run logs its batch
    size again after run_start: the next block and settings begin the next run (was: the
    previous run's, up to the launcher line)."""
    records = _records()
    start = next(i for i, line in enumerate(records) if '"run_start"' in line)
    run = [*records[:start + 1], _at(records[8], _time(records[start]) + 1), *records[start + 1:]]
    script = [_at(line, _time(records[0]) - 4000) for line in records[2:9]]
    lines = [*script, LAUNCH, *run, *_later(script, 60), LAUNCH, *_later(run, 60)]
    first, second = _runs(tmp_path, lines)
    assert first.run is not None and first.run.last_line == len(script) + 1 + len(run)
    assert second.run is not None and second.run.first_line == len(script) + len(run) + 2
    assert first.verdict == second.verdict == "pass"


def test_a_task_s_failure_said_while_a_hugectr_run_logs_its_weights_opens_no_run(tmp_path: Path) -> None:
    """srun says a task failed between two weights_initialization records; the run goes on (review
    of session 27: a repeated weights_initialization or setting opened a run)."""
    run = _block_first()
    died = _died_in_weights(run)
    [one] = _runs(tmp_path, [LAUNCH, *run[:died], TASK_FAILED, *run[died:]])
    clean = _clean()
    assert (one.verdict, one.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_a_setting_the_run_script_and_the_hugectr_training_both_log_opens_no_run(tmp_path: Path) -> None:
    """The script logs the block and opt_name, then launches a training that logs opt_name again
    after its weights: one run (the repeated opt_name a warning)."""
    lines = _records()
    last_weight = max(i for i, line in enumerate(lines) if '"weights_initialization"' in line)
    opt_name = next(i for i, line in enumerate(lines) if '"opt_name"' in line)
    hugectr = lines[:1] + lines[2:opt_name] + lines[22:last_weight + 1] + lines[opt_name:22] + lines[1:2] \
        + lines[last_weight + 1:]
    [one] = _runs(tmp_path, [*lines[2:opt_name + 1], LAUNCH, *hugectr])
    clean = _clean()
    assert (one.verdict, one.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_a_run_begun_without_a_launcher_line_is_said_where_and_why(tmp_path: Path) -> None:
    """Runs one after the other in a console with no launcher line between them: MLC024 says at
    the record that begins the next run why it does (was: a second run with no note)."""
    records = _records()
    cut = _training_cut(records)
    init = next(i for i, line in enumerate(records) if '"init_stop"' in line)
    cases = {  # (lines, the line of the note, why)
        "after run_stop": ([*records, *_later(records)], len(records) + 1, "cache_clear after the run's run_stop"),
        "killed in training": ([*records[:cut], *_later(records)], cut + 1, "cache_clear later than every record of "
                               "a run that logged its run_start and no run_stop: it was stopped in training"),
        "another attempt after init_stop": ([*records[:init + 1], *_later(records[1:])], init + 2,
                                            "init_start after the run's init_stop, later than every record of it"),
    }
    for name, (lines, line, why) in cases.items():
        first, second = _runs(tmp_path, lines)
        notes = [f for f in first.findings + second.findings if f.code == "MLC024"]
        assert [(f.line, f.run_index) for f in notes] == [(line, 1)], name
        assert notes[0].message.startswith(f"the next run begins here ({why}"), notes[0].message
        assert notes[0].message.endswith("): the records after it are read as another run"), name
        assert second.run is not None and second.run.first_line == line, name
    [one] = check_log(LogRef(str(GOOD)), None)  # (a result file: one run, no note)
    assert not [f for f in one.findings if f.code == "MLC024"]


def test_a_relaunch_on_a_host_whose_clock_is_behind_is_a_run_of_its_own(tmp_path: Path) -> None:
    """A crash in training, then the run script's block and the relaunch, dated three hours before
    the crashed run (another node, its clock behind): two runs, the block the relaunch's (was: one
    failing run with an init of 206 minutes; a review, session 43). A copy of the run's start
    logged within ten minutes of it (a rank's clock off) stays the run's."""
    records, run = _records(), _script_first()
    cut = _training_cut(records)
    for crash in ([], TRACEBACK):  # (without a traceback, the dates alone tell)
        first, second = _runs(tmp_path, [*records[:cut], *crash, *_later(run, -180)])
        assert first.verdict == "fail" and first.run is not None and first.run.last_line == cut
        clean = _clean()
        assert (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
        assert second.run is not None and second.run.first_line == cut + len(crash) + 1
        [note] = [f for f in second.findings if f.code == "MLC024"]  # (a traceback: no relaunch dated before the run)
        assert "dated 180 min before the run's first record, in its training" in note.message
    assert len(_runs(tmp_path, [*records[:cut], *records[:2], *records[cut:]])) == 1  # (a start's copy)
    assert len(_runs(tmp_path, [*records[:cut], *_later(records[:2], -5), *records[cut:]])) == 1  # (5 min off)


def _setting_first(lines: list[str]) -> list[str]:
    """The run as some loggers print it: a hyper-parameter (gradient_accumulation_steps) before its
    cache_clear."""
    setting = next(i for i, line in enumerate(lines) if '"gradient_accumulation_steps"' in line)
    return [lines[setting], *lines[:setting], *lines[setting + 1:]]


@pytest.mark.parametrize("end", [[], [TASK_FAILED]], ids=["traceback", "job-end"])
def test_a_relaunch_whose_first_record_is_a_setting_keeps_it(end: list[str], tmp_path: Path) -> None:
    """A run killed in training, relaunched a minute later without a launcher line; the relaunch
    logs a hyper-parameter before its cache_clear: that record is the relaunch's (was: the crashed
    attempt's, and the relaunch failed MLC105 for a required key not logged; a review, session 44)."""
    records = _setting_first(_records())
    cut = _training_cut(records)
    lines = [*records[:cut], *TRACEBACK, *end, *_later(records)]
    first, second = _runs(tmp_path, lines)
    clean = _clean()
    assert first.verdict == "fail" and first.run is not None and first.run.last_line == cut
    assert (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert second.run is not None and second.run.first_line == cut + len(TRACEBACK) + len(end) + 1
    out = tmp_path / "split"
    CliRunner().invoke(main, ["split", str(tmp_path / "console.log"), "-o", str(out)])
    assert (out / "result_1.txt").read_text("utf-8").count('"gradient_accumulation_steps"') == 1


def test_a_relaunch_with_its_clock_behind_after_a_job_end_begins_at_its_setting(tmp_path: Path) -> None:
    """The same, relaunched on a host whose clock is 4 minutes behind (its records dated before the
    crashed attempt's last), after srun's word that a task failed: a setting of the run's
    initialisation logged again first after a job's end begins the next run (was: one failing run,
    MLC404, MLC104, MLC107; a review, session 44)."""
    records = _setting_first(_records())
    cut = _training_cut(records)
    crashed_last = _time(records[cut - 1])
    behind = _later(records, 0)
    shift = crashed_last + 60_000 - 240_000 - _time(behind[1])
    relaunch = [_at(line, _time(line) + shift) for line in behind]
    first, second = _runs(tmp_path, [*records[:cut], *TRACEBACK, TASK_FAILED, *relaunch])
    clean = _clean()
    assert first.verdict == "fail" and (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    watched = CliRunner().invoke(main, ["watch", str(tmp_path / "console.log"), "--format", "json", "--poll", "0.01",
                                        "--idle-timeout", "0.5"])
    assert [r["verdict"] for r in json.loads(watched.stdout)["runs"]] == ["fail", "pass"]


def _with_tracked_stats(lines: list[str]) -> list[str]:
    """The run with a ``tracked_stats`` record in its initialisation and after each record of its
    training 15 s later (as the LLM benchmarks log it, more than 10 s apart)."""
    start = next(i for i, line in enumerate(lines) if '"run_start"' in line)
    stats = '{"namespace": "", "time_ms": %d, "event_type": "POINT_IN_TIME", "key": "tracked_stats", ' \
            '"value": {"step": 1}, "metadata": {"file": "train.py", "lineno": 9}}'
    out = [*lines[:start], ":::MLLOG " + stats % (_time(lines[start]) - 1)]
    for line in lines[start:]:
        out.append(line)
        if '"run_stop"' not in line and '"run_start"' not in line:
            out.append(":::MLLOG " + stats % (_time(line) + 15_000))
    return out


def test_a_key_of_the_initialisation_a_run_logs_again_in_training_is_never_the_next_runs(tmp_path: Path) -> None:
    """tracked_stats logged in the initialisation and again in training, 15 s after the records
    around it: a job's end in the middle of the run splits nothing, and a run killed then launched
    again keeps its own records (a review, session 44: both were taken as a relaunch's settings)."""
    records = _with_tracked_stats(_records())
    cut = _training_cut(records) + 4
    [whole] = _runs(tmp_path, [*records[:cut], TASK_FAILED, *records[cut:]])
    [clean] = _runs(tmp_path, records)
    assert (whole.verdict, whole.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    first, second = _runs(tmp_path, [*records[:cut], *TRACEBACK, *_later(records)])
    assert first.run is not None and first.run.last_line == cut
    assert second.run is not None and second.run.first_line == cut + len(TRACEBACK) + 1
