"""Raw output in which a launcher says the job (or its attempt) ended: what follows is another run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.package.discover import LogRef

EXAMPLE = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
_TIME = re.compile(r'"time_ms": (\d+)')

ENDS = [
    "slurmstepd: error: *** JOB 4411 ON node017 CANCELLED AT 2022-05-17T03:10:00 DUE TO PREEMPTION ***",
    "slurmstepd: error: *** STEP 4411.0 ON node017 CANCELLED AT 2022-05-17T03:10:00 DUE TO TIME LIMIT ***",
    "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
    "[2022-05-17 03:10:00,000] torch.distributed.elastic.agent.server.api: [WARNING] Worker group FAILED. "
    "3/3 attempts left; will restart worker group",
    "Primary job  terminated normally, but 1 process returned",
    "mpirun noticed that process rank 0 with PID 4242 on node node017 exited on signal 9 (Killed).",
    "srun: error: node03: task 3: Exited with exit code 1",
    "srun: error: gpu-[01-04]: tasks 0,2-5: Segmentation fault (core dumped)",
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 1233) of "
    "binary: /usr/bin/python",
    "E0325 10:00:00.123000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
    "local_rank: 0 (pid: 77) of binary: /opt/conda/bin/python3",
    "run.sh: line 12:  1233 Killed                  python train.py --config bert.yaml",
    "./run_and_time.sh: line 40: 88 Segmentation fault      (core dumped) python train.py",
    "ENDING TIMING RUN AT 2023-04-28 12:22:50 AM",
    "Beginning trial 2 of 10",
    # From the review of session 40.
    "srun: forcing job termination", "srun: error: Node failure on node017",
    "slurmstepd: error: Detected 1 oom_kill event in StepId=4411.0. Some of the step tasks have been OOM Killed.",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "W0501 10:00:00.123000 140 torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death "
    "signal, shutting down workers",
    "[2024-05-01 10:00:00,000] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py'] exits "
    "with return code = 1",
    "[mpiexec@node017] HYDU_sock_write (utils/sock/sock.c:256): write error (Bad file descriptor)",
    "=>> PBS: job killed: walltime 7230 exceeded limit 7200",
    "TERM_RUNLIMIT: job killed after reaching LSF run time limit.",
]


def _records() -> list[str]:
    return EXAMPLE.read_text("utf-8").splitlines()


def _later(line: str, minutes: int) -> str:
    return _TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + minutes * 60_000}', line)


@pytest.mark.parametrize("end", ENDS)
def test_an_attempt_killed_in_its_init_then_run_again_is_two_runs(end: str, tmp_path: Path) -> None:
    """The first attempt dies before init_stop (no launcher line after it, as a Slurm requeue or
    a torchelastic restart prints none): the second is a run of its own, with the clean file's
    verdict and time (was: one run, init timed from the first attempt, MLC401)."""
    note, init_stop = _died_in_init_then_again([end], 40, tmp_path)
    assert note.line == init_stop - 1 and note.message.startswith("the job ends here (")


def _died_in_init_then_again(crash: list[str], minutes: int, tmp_path: Path) -> tuple[Any, int]:
    """The example's run dying two records before its init_stop, ``crash`` printed, then the
    whole run again ``minutes`` later: two runs, the first failing, the second the clean file's;
    the one MLC024 note, and the index of init_stop."""
    records = _records()
    init_stop = next(i for i, line in enumerate(records) if '"init_stop"' in line)
    lines = records[:init_stop - 2] + crash + [_later(line, minutes) for line in records]
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    first, second = check_log(LogRef(str(log)), None)
    assert first.status is None and first.verdict == "fail"
    assert (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    [note] = [f for f in first.findings + second.findings if f.code == "MLC024"]
    return note, init_stop


@pytest.mark.parametrize("end", [ENDS[1], "ENDING TIMING RUN AT 2023-04-28 12:22:50 AM"])
def test_a_job_end_after_the_run_opens_nothing(end: str, tmp_path: Path) -> None:
    """Nor does another rank's end of its run script before this rank's last records (run_stop
    and what follows it stay in the run: only a record that begins a run opens one)."""
    records = _records()
    log = tmp_path / "console.log"
    log.write_text("\n".join(records[:-3] + [end] + records[-3:] + [end]) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_a_result_file_stays_one_run(tmp_path: Path) -> None:
    """A submitted result file is one run, as the official checker reads it (no job-end note)."""
    records = _records()
    path = tmp_path / "result_0.txt"
    path.write_text("\n".join(records[:5] + [ENDS[0]] + records[5:]) + "\n", "utf-8")
    [result] = check_log(LogRef(str(path)), None)
    assert result.verdict == "pass" and "MLC024" not in {f.code for f in result.findings}


def test_an_untagged_record_cut_by_the_next_on_its_line_is_a_cut_record(tmp_path: Path) -> None:
    """A job appended to a log whose last job was killed mid-record (``--open-mode=append``,
    no launcher line): the cut record is MLC023 at its line (was: MLC003, 'invalid JSON')."""
    records = _records()
    log = tmp_path / "console.log"
    log.write_text("\n".join(records[:100] + [records[100][:90] + records[0]] + records[1:]) + "\n", "utf-8")
    found = {(f.code, f.line) for r in check_log(LogRef(str(log)), None) for f in r.findings}
    assert ("MLC023", 101) in found and not any(code == "MLC003" for code, _ in found)


@pytest.mark.parametrize("at_key", ["run_stop", "eval_accuracy"])
def test_a_job_end_followed_by_no_run_beginning_splits_nothing(at_key: str, tmp_path: Path) -> None:
    """A rank that died at teardown (mpirun's word after run_stop, its last record after it) or a
    helper step cancelled mid-run: the records after it do not begin a run, so they stay in it
    (no MLC024: the job's end opened nothing)."""
    records = _records()
    at = next(i for i, line in enumerate(records) if f'"{at_key}"' in line)
    for end in (ENDS[1], ENDS[4]):
        log = tmp_path / "console.log"
        log.write_text("\n".join(records[:at] + [end] + records[at:]) + "\n", "utf-8")
        [clean] = check_log(LogRef(str(EXAMPLE)), None)
        [result] = check_log(LogRef(str(log)), None)
        assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min), end
        assert "MLC024" not in {f.code for f in result.findings}, end


def test_split_follows_the_job_ends_that_begin_a_run(tmp_path: Path) -> None:
    """``split`` cuts where ``check`` does: at a requeue, not at a teardown's last record."""
    from click.testing import CliRunner
    from mlcheck.cli import main
    records = _records()
    init_stop = next(i for i, line in enumerate(records) if '"init_stop"' in line)
    stop = next(i for i, line in enumerate(records) if '"run_stop"' in line)
    for name, lines, files in (
            ("requeue", records[:init_stop - 2] + [ENDS[0]] + [_later(line, 40) for line in records], 2),
            ("teardown", records[:stop + 1] + [ENDS[4], records[stop - 1]], 1)):
        log = tmp_path / f"{name}.log"
        log.write_text("\n".join(lines) + "\n", "utf-8")
        out = tmp_path / name
        CliRunner().invoke(main, ["split", str(log), "-o", str(out)])
        assert len(list(out.iterdir())) == files, name


@pytest.mark.parametrize("late_ms", [5_000, 75_000])
def test_ranks_printing_their_starts_and_blocks_late_stay_one_run(late_ms: int, tmp_path: Path) -> None:
    """Two untagged processes that both print the start and the submission_* block, one behind
    the other by seconds or more than a minute (a slow rank, a slow cache clearing), with no
    launcher line between: copies, not a run begun again. (An attempt killed in its init and
    run again within ten minutes of its init_start with no launcher line looks the same: one run,
    the block's repeats reported, MLC107.)"""
    records = _records()
    block = next(i for i, line in enumerate(records) if '"init_stop"' in line)
    lines = records[:block] + [_TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + late_ms}', line)
                               for line in records[:block]] + records[block:]
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    [result] = check_log(LogRef(str(log)), None)
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    assert result.time_to_train_min == clean.time_to_train_min


@pytest.mark.parametrize("order", ["as logged", "submission first", "settings first"])
def test_an_attempt_killed_in_its_init_is_told_from_a_late_process_by_the_time_between(
        order: str, tmp_path: Path) -> None:
    """No launcher line and no job end between: an attempt killed in its initialisation and run
    again more than ten minutes after its init_start is a run of its own, with the submission_*
    block and settings the second attempt printed before its start (was: one run, init timed from
    the first attempt, MLC401; then the settings went to the killed attempt); within ten minutes
    it reads as a late process's copies (the test above)."""
    records = _records()
    init_stop = next(i for i, line in enumerate(records) if '"init_stop"' in line)
    if order == "submission first":  # (the block, then cache_clear and init_start)
        records = records[2:7] + records[:2] + records[7:]
    elif order == "settings first":  # (every setting, then cache_clear and init_start: killed there)
        records = records[2:init_stop] + records[:2] + records[init_stop:]
    init_stop = next(i for i, line in enumerate(records) if '"init_stop"' in line)
    cut = init_stop if order == "settings first" else init_stop - 2
    log = tmp_path / "console.log"
    log.write_text("\n".join(records[:cut] + ["Traceback (most recent call last):", "RuntimeError: x"]
                             + [_later(line, 12) for line in records]) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    first, second = check_log(LogRef(str(log)), None)
    assert first.status is None and first.verdict == "fail"
    assert {f.code for f in first.findings} >= {"MLC101", "MLC102"} and "MLC107" not in {f.code for f in first.findings}
    assert (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert not {"MLC105", "MLC107", "MLC201"} & {f.code for f in second.findings}
    from click.testing import CliRunner
    from mlcheck.cli import main
    CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "split")])
    written = sorted(path.name for path in (tmp_path / "split").iterdir())
    assert written == ["result_0.txt", "result_1.txt"]
    assert (tmp_path / "split" / "result_1.txt").read_text("utf-8").count(":::MLLOG") == len(records)


@pytest.mark.parametrize("launcher", [True, False])
def test_a_run_s_own_submission_keys_after_its_run_stop_stay_with_it(launcher: bool, tmp_path: Path) -> None:
    """TPU consoles print part of the submission_* block after run_stop: the keys the run had
    not logged are its own, a launcher line next or not; repeats of logged keys are the next
    run's block (was: the late keys went to the next run, MLC105 on this one, MLC107 on that)."""
    records = _records()
    late = [line for line in records if '"submission_org"' in line or '"submission_status"' in line]
    run = [line for line in records if line not in late] + late
    _two_runs_read_as_the_clean_one(run, ["poprun: launching 1 instances"] if launcher else [], tmp_path)


def test_late_submission_keys_printed_twice_each_stay_with_their_run(tmp_path: Path) -> None:
    """A logger with two handlers (or two hosts in turn) prints each late record twice: a copy
    of a key the run logged a line before does not take the keys after it to the next run."""
    records = _records()
    late = [line for line in records if '"submission_org"' in line or '"submission_status"' in line]
    run = [line for line in records if line not in late] + [line for line in late for _ in range(2)]
    _two_runs_read_as_the_clean_one(run, [], tmp_path, split=False)


def _two_runs_read_as_the_clean_one(run: list[str], between: list[str], tmp_path: Path, split: bool = True) -> None:
    """``run``, ``between`` and ``run`` two hours later read as two runs of the clean file's
    verdict and time, no key missing (MLC105); with ``split``, a file of ``run``'s records each."""
    log = tmp_path / "console.log"
    log.write_text("\n".join(run + between + [_later(line, 120) for line in run]) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    results = check_log(LogRef(str(log)), None)
    assert [(r.verdict, r.time_to_train_min) for r in results] == [(clean.verdict, clean.time_to_train_min)] * 2
    assert "MLC105" not in {f.code for r in results for f in r.findings}
    if not split:
        return
    assert "MLC107" not in {f.code for r in results for f in r.findings}
    from click.testing import CliRunner
    from mlcheck.cli import main
    CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "split")])
    assert [path.read_text("utf-8").count(":::MLLOG") for path in sorted((tmp_path / "split").iterdir())] == \
        [len(run)] * 2


@pytest.mark.parametrize("cut", [
    # tqdm's bars (stderr) inside a record of block-buffered stdout: in a string, in a number, between fields
    lambda line: line[:20] + "\r  1%|          | 1/100 [00:01<00:10, 9.8it/s]" + line[20:],
    lambda line: line[:line.index('"key":') + 6] + "\r  9%|          | 9/100 [00:09<00:10, 9.8it/s]" + line[
        line.index('"key":') + 6:],
])
def test_a_record_broken_by_a_progress_bar_is_joined_with_no_noise_before(cut: Any, tmp_path: Path) -> None:
    """The bar taken out of the record (its end is the ']' of its times: mlcheck.read.bar_cuts; was
    MLC023, and MLC003 'invalid JSON' until a line of noise had been read); a record malformed from
    its start stays MLC003."""
    records = _records()
    log = tmp_path / "console.log"
    log.write_text("\n".join(records[:10] + [cut(records[10])] + records[11:]) + "\n", "utf-8")
    found = {(f.code, f.line) for r in check_log(LogRef(str(log)), None) for f in r.findings}
    assert not any(code in ("MLC003", "MLC023") for code, _ in found), found
    log.write_text("\n".join(records[:10] + [":::MLLOG {bad"] + records[10:]) + "\n", "utf-8")
    found = {(f.code, f.line) for r in check_log(LogRef(str(log)), None) for f in r.findings}
    assert ("MLC003", 11) in found
    # a CR between members is a JSON blank: a record malformed after it (a trailing comma) is no bar's
    malformed = records[10].replace(', "metadata"', ',\r "metadata"').replace("}}", "},}")
    log.write_text("\n".join(records[:10] + [malformed] + records[11:]) + "\n", "utf-8")
    found = {(f.code, f.line) for r in check_log(LogRef(str(log)), None) for f in r.findings}
    assert ("MLC003", 11) in found and ("MLC023", 11) not in found


def test_a_record_cut_after_a_numbers_point_is_cut_not_malformed(tmp_path: Path) -> None:
    records = _records()
    at = records[12].index('"time_ms": ') + 14
    log = tmp_path / "console.log"
    log.write_text("\n".join(records[:12] + ["W0501 10:00:00.000000 1 a.py:1] noise", records[12][:at] + "."]
                             + records[13:]) + "\n", "utf-8")
    found = {(f.code, f.line) for r in check_log(LogRef(str(log)), None) for f in r.findings}
    assert ("MLC023", 14) in found and not any(code == "MLC003" for code, _ in found), found


@pytest.mark.parametrize("label", ["{r}: ", "[1,{r}]<stdout>:", "[default{r}]:"])
def test_one_rank_s_end_line_ends_only_that_rank(label: str, tmp_path: Path) -> None:
    """Each task of a job runs the run script, which prints ``ENDING TIMING RUN AT`` when its own
    process exits; rank 1's block-buffered output comes after rank 0's end line. Its records are
    still copies: the clean file's verdict, time and findings (was: rank 1 chosen as the logging
    rank after the line, its records kept, init_stop after run_start, MLC404: a fail)."""
    records = [line for line in _records() if line.startswith(":::MLLOG")]
    late = len(records) // 2
    end = "ENDING TIMING RUN AT 2023-04-28 12:22:50 AM"
    lines: list[str] = []
    for index, record in enumerate(records):
        lines.append(label.format(r=0) + record)
        if index < len(records) - late:
            lines.append(label.format(r=1) + _later(record, 0))
    lines += [label.format(r=0) + end, *(label.format(r=1) + record for record in records[-late:]),
              label.format(r=1) + end]
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    [console] = check_log(LogRef(str(log)), None)
    codes = sorted({f.code for f in console.findings} - {"MLC020", "MLC024"})
    assert (console.verdict, console.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert codes == sorted({f.code for f in clean.findings})


def test_a_trial_loop_behind_rank_labels_is_still_one_run_per_trial(tmp_path: Path) -> None:
    """Every rank prints every record and its own end line; the loop's next trial is the next run."""
    records = [line for line in _records() if line.startswith(":::MLLOG")]
    lines: list[str] = []
    for trial in range(2):
        lines.append(f"Beginning trial {trial + 1} of 2")
        for record in records:
            lines += [f"{rank}: {_later(record, 40 * trial)}" for rank in range(2)]
        lines += [f"{rank}: ENDING TIMING RUN AT 2023-04-28 12:22:50 AM" for rank in range(2)]
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    runs = check_log(LogRef(str(log)), None)
    assert [(run.verdict, run.time_to_train_min) for run in runs] == [(clean.verdict, clean.time_to_train_min)] * 2


def test_every_rank_s_end_line_then_the_next_trial_compares_its_copies_afresh(tmp_path: Path) -> None:
    """Rank 0 dies first (the other ranks printed more), every rank prints its end line, the next
    trial follows behind the same labels: once every rank said its end the ranks are chosen
    again, no copy of one trial is compared with the other's records (review of session 40: MLC021)."""
    records = [line for line in _records() if line.startswith(":::MLLOG")]
    cut = len(records) * 2 // 3
    end = "ENDING TIMING RUN AT 2023-04-28 12:22:50 AM"
    lines = [f"{rank}: {record}" for index, record in enumerate(records[:cut + 3])
             for rank in (0, 1) if rank or index < cut]
    lines += [f"{rank}: {end}" for rank in (0, 1)]
    lines += [f"{rank}: {_later(record, 60)}" for record in records for rank in (0, 1)]
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    crashed, again = check_log(LogRef(str(log)), None)
    assert crashed.verdict == "fail" and (again.verdict, again.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert not [f for run in (crashed, again) for f in run.findings if f.code == "MLC021"]


TRACEBACK = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 412, in <module>', "    main()",
             "", "During handling of the above exception, another exception occurred:", "",
             "Traceback (most recent call last):", '  File "/workspace/train.py", line 390, in main',
             "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 3."]


def test_a_python_traceback_in_the_init_then_a_run_again_within_minutes_is_two_runs(tmp_path: Path) -> None:
    """``python train.py`` in a run script's loop dies in its initialisation and runs again a minute
    later with no launcher line: the exception's line ends the process (session 48's review: one
    run, the crashed attempt's records in it, MLC206 on the union of its weights)."""
    note, init_stop = _died_in_init_then_again(TRACEBACK, 1, tmp_path)
    assert note.line == init_stop - 2 + len(TRACEBACK) and "a Python traceback ends with its exception" in note.message


def test_a_traceback_a_run_goes_on_after_opens_nothing(tmp_path: Path) -> None:
    """A handled exception's traceback in the training (logging.exception): the next record
    begins no run, so the run goes on."""
    records = _records()
    run_start = next(i for i, line in enumerate(records) if '"run_start"' in line)
    log = tmp_path / "console.log"
    log.write_text("\n".join(records[:run_start + 3] + TRACEBACK + records[run_start + 3:]) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


@pytest.mark.parametrize("before", [["Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f>"],
                                    ["ERROR:root:apex is not installed"]])
def test_a_handled_traceback_between_ranks_copies_of_init_start_opens_nothing(before: list[str], tmp_path: Path) -> None:
    """An all-ranks console: a handled exception's traceback (Python's unraisable hook, a
    logging.exception) between two ranks' init_start copies 3 ms apart: no relaunch can come so soon
    after the run's last record, so it stays one run (session 48's attack review: two failing runs)."""
    records = _records()
    start = next(i for i, line in enumerate(records) if '"init_start"' in line)
    copy = _TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + 3}', records[start])
    log = tmp_path / "console.log"
    log.write_text("\n".join([*records[:start + 1], *before, *TRACEBACK, copy, *records[start + 1:]]) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert "MLC024" not in {f.code for f in result.findings}


def test_a_launchers_word_after_a_traceback_cut_short_is_read(tmp_path: Path) -> None:
    """A traceback without its exception's line (the process killed while it printed), then srun's
    word that a task failed: the job's end is srun's (the traceback's lines do not hide it)."""
    note, init_stop = _died_in_init_then_again(["Traceback (most recent call last):", '  File "train.py", line 3',
                                                ENDS[6]], 40, tmp_path)
    assert note.line == init_stop + 1 and "srun: error: node03" in note.message


def _srun_console(records: list[str], tasks: int, died: int, at_key: str) -> list[str]:
    """``srun --label``'s console of a job whose every task prints the run's records; task
    ``died`` exits (srun says so) after the record of ``at_key``; the others' copies of that record
    come after srun's line, as a block-buffered console shows them."""
    at = next(i for i, line in enumerate(records) if f'"key": "{at_key}"' in line)
    lines = []
    for i, record in enumerate(records):
        late = i == at
        lines.extend(f"{t}: {record}" for t in range(tasks) if not (i > at and t == died) and not (late and t != 0))
        if late:
            lines.append(f"srun: error: node01: task {died}: Exited with exit code 1")
            lines.extend(f"{t}: {record}" for t in range(1, tasks))
    return lines


def test_an_srun_task_that_exits_mid_run_ends_only_itself(tmp_path: Path) -> None:
    """srun says one task exited while the others print on: their copies are still compared with
    the logging task's records (was: the copies forgotten at srun's line, each copy after it
    compared with the next record: false MLC021 warnings), and the run is the clean file's."""
    log = tmp_path / "console.log"
    log.write_text("\n".join(_srun_console(_records(), 4, 3, "eval_accuracy")) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert {f.code for f in result.findings} - {f.code for f in clean.findings} == {"MLC020"}
    assert result.verdict == "pass" and result.time_to_train_min == clean.time_to_train_min


def test_srun_lines_that_end_every_task_end_the_job(tmp_path: Path) -> None:
    """srun's lines per node that name every task that printed (``tasks 0-1``, ``tasks 2-3``) end
    the job: a run after them is another run (its ranks chosen again)."""
    records = _records()
    first = [f"{t}: {r}" for r in records for t in range(4)]
    ends = ["srun: error: node01: tasks 0-1: Exited with exit code 1", "srun: error: node02: tasks [2-3]: Killed"]
    second = [f"{t}: {_later(r, 600)}" for r in records for t in range(4)]
    log = tmp_path / "console.log"
    log.write_text("\n".join(first + ends + second) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    runs = check_log(LogRef(str(log)), None)
    assert [r.time_to_train_min for r in runs] == [clean.time_to_train_min] * 2
    assert not any(f.code == "MLC021" for r in runs for f in r.findings)
