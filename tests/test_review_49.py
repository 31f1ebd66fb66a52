"""Review of session 49: raw output of a run that two processes write (an evaluation launched after
the training, each by its own launcher command), and srun's and Slurm's words in it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.package.discover import LogRef
from mlcheck.raw.split import split_log

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
TRAIN = "+ poprun --num-instances=2 --num-replicas=16 python3 train.py"
EVALUATE = "+ poprun --num-instances=2 --num-replicas=16 python3 validation.py"
_TIME = re.compile(r'"time_ms": (\d+)')


def _records() -> list[str]:
    return GOOD.read_text("utf-8").splitlines()


def _two_processes(records: list[str]) -> list[str]:
    """The training's records, then the launch of the evaluation process, which logs the last
    evaluation and run_stop (as a run whose evaluations a script of their own runs)."""
    last_eval = max(i for i, line in enumerate(records) if '"key": "eval_start"' in line)
    return [TRAIN, *(f"[1,0]<stdout>:{r}" for r in records[:last_eval]), EVALUATE,
            *(f"[1,0]<stdout>:{r}" for r in records[last_eval:])]


def test_an_evaluation_launched_after_the_training_goes_on_with_its_run(tmp_path: Path) -> None:
    """The launcher line of the evaluation process comes in a run that started and did not stop,
    and its first record begins no run: one run, the clean file's (was two failing runs: MLC102,
    then MLC101/MLC105/MLC011), and ``split`` writes the clean file's records."""
    log = tmp_path / "console.log"
    log.write_text("\n".join(_two_processes(_records())) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(GOOD)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert not [f for f in result.findings if f.code == "MLC024"]
    split = split_log(str(log), str(tmp_path / "out"))
    assert [Path(p).name for p in split.written] == ["result_0.txt"]
    assert (tmp_path / "out" / "result_0.txt").read_text("utf-8").splitlines() == _records()


@pytest.mark.parametrize("first", ["cache_clear", "gradient_accumulation_steps", "train_samples"])
def test_a_relaunch_in_a_run_that_did_not_stop_is_still_another_run(first: str, tmp_path: Path) -> None:
    """The same launcher line after a crash mid-training (no word of the job's end), the job run
    again from its first record (its cache_clear; or a setting or another key of its initialisation
    that it logs first, logged again once the crashed run trained: the attack review of session 49):
    two runs, the crashed one failing, the relaunch the clean file's."""
    records = _records()
    at = next(i for i, line in enumerate(records) if f'"key": "{first}"' in line)
    relaunch = [records[at], *records[:at], *records[at + 1:]]
    cut = next(i for i, line in enumerate(records) if '"key": "run_start"' in line) + 5
    later = [_TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + 2_400_000}', line) for line in relaunch]
    log = tmp_path / "console.log"
    log.write_text("\n".join([TRAIN, *records[:cut], TRAIN, *later]) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(GOOD)), None)
    crashed, again = check_log(LogRef(str(log)), None)
    assert crashed.verdict == "fail" and any(f.code == "MLC102" for f in crashed.findings)
    assert (again.verdict, again.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.line for f in again.findings if f.code == "MLC024"] == [cut + 2]


EXAMPLE = FIXTURES / "example" / "Acme"
RESNET = EXAMPLE / "results" / "acme-t8" / "resnet"


def _raw_copies(folder: Path, names: list[str], sources: list[Path]) -> Path:
    folder.mkdir()
    for name, source in zip(names, sources):
        (folder / name).write_text("srun: job 77 queued and waiting for resources\n" + source.read_text("utf-8"), "utf-8")
    return folder


def test_a_job_array_s_folder_is_tested_as_its_package_is(tmp_path: Path) -> None:
    """A job array's outputs (one run a file, named by Slurm): the RCP test and the cross-run checks
    run as on the result files `mlcheck split` would write (were skipped: a score without the RCP
    normalisation, a missed RCP failure); a non-converged run is tolerated as in the package."""
    from mlcheck import check

    sources = sorted(RESNET.glob("result_*.txt"))
    array = _raw_copies(tmp_path / "array", [f"slurm-77_{i}.out" for i in range(len(sources))], sources)
    [packaged] = check([str(EXAMPLE)]).benchmarks
    [bench] = check([str(array)]).benchmarks
    assert bench.rcp is not None and packaged.rcp is not None
    assert (bench.rcp.verdict, bench.rcp.reason) == (packaged.rcp.verdict, packaged.rcp.reason)
    assert (bench.score.score_min, bench.score.valid) == (packaged.score.score_min, packaged.score.valid)


def test_per_task_files_of_one_run_are_said_to_be_copies(tmp_path: Path) -> None:
    """srun --output=job-%j-%t.out, every task printing the run's records: five files of one run.
    The folder's seeds repeat (MLC519, as the seed checker says), and MLC519 says why: the seeds
    were logged within a second of each other (was a valid score of five copies before the
    cross-run checks ran on raw logs)."""
    from mlcheck import check

    tasks = _raw_copies(tmp_path / "tasks", [f"job-4242-{t}.out" for t in range(5)], [RESNET / "result_0.txt"] * 5)
    [bench] = check([str(tasks)]).benchmarks
    assert not bench.score.valid
    duplicates = [f for f in bench.findings if f.code == "MLC519"]
    assert duplicates and all("logged within a second of it too: the two files hold one run's output" in f.message
                              for f in duplicates)


def test_a_requeue_whose_first_record_is_a_setting_after_a_kill_in_init_is_another_run(tmp_path: Path) -> None:
    """Slurm cancels the job in its initialisation and requeues it into the same file; the
    relaunch logs a setting first (a logger that prints a hyper-parameter before its cache_clear):
    after the job's end, a setting the run logged already begins the next run (was: given to the
    killed attempt, the relaunch failing MLC105 for it)."""
    records = _records()
    setting = next(i for i, line in enumerate(records) if '"key": "gradient_accumulation_steps"' in line)
    relaunch = [records[setting], *records[:setting], *records[setting + 1:]]
    init = next(i for i, line in enumerate(relaunch) if '"key": "init_start"' in line) + 3
    later = [_TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + 300_000}', line) for line in relaunch]
    cancelled = "slurmstepd: error: *** JOB 4242 ON node001 CANCELLED AT 2024-05-10T12:34:56 DUE TO PREEMPTION ***"
    log = tmp_path / "console.log"
    log.write_text("\n".join([*relaunch[:init], cancelled, *later]) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(GOOD)), None)
    killed, again = check_log(LogRef(str(log)), None)
    assert killed.verdict == "fail" and killed.run is not None and killed.run.last_line == init
    assert (again.verdict, again.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_a_task_file_of_no_record_names_the_task_file_that_holds_the_run(tmp_path: Path) -> None:
    """srun --output=job-%j-%t.out where only task 0 logs: MLC002 on the other tasks' files says
    where the run is (was: "is this an MLPerf log?"); a file of one number keeps the question."""
    from mlcheck import check

    tasks = _raw_copies(tmp_path / "tasks", ["job-4242-0.out"], [RESNET / "result_0.txt"])
    (tasks / "job-4242-1.out").write_text("srun: job 4242 queued\nNCCL INFO Bootstrap\n", "utf-8")
    (tasks / "notes-1.log").write_text("nothing here\n", "utf-8")
    messages = {Path(f.path).name: f.message for r in check([str(tasks / "job-4242-1.out"), str(tasks / "notes-1.log")]).runs
                for f in r.findings if f.code == "MLC002"}
    assert "another task of the job whose records job-4242-0.out holds" in messages["job-4242-1.out"]
    assert messages["notes-1.log"].endswith("is this an MLPerf log?")


def test_a_passing_run_checked_alone_is_not_shown_as_a_failure() -> None:
    """One good result file: "no score INVALID" (the round needs five runs) in yellow, not in the
    bold red of a failure (review of session 49)."""
    from mlcheck import check
    from mlcheck.report.text import score_text

    [bench] = check([str(GOOD)]).benchmarks
    text = score_text(bench)
    assert text.plain.startswith("no score  INVALID: 1 run found; the round requires 5")
    assert {str(span.style) for span in text.spans} == {"bold yellow", "yellow"}


def test_two_jobs_interleaved_under_one_tag_are_said_to_be_two_runs(tmp_path: Path) -> None:
    """Two jobs launched at once (``poprun ... &`` twice) whose records carry one rank tag read as
    one run; MLC104 on its two run_starts says that it logs two seeds too: two runs' records in one
    (was only "run_start appears 2 times"; review of session 49)."""
    import json

    first = _records()
    second = []
    for line in first:
        record = json.loads(line[len(":::MLLOG "):])
        record["time_ms"] += 10_000
        if record["key"] == "seed":
            record["value"] = int(record["value"]) + 1
        second.append(":::MLLOG " + json.dumps(record))
    merged = sorted([*first, *second], key=lambda line: json.loads(line[len(":::MLLOG "):])["time_ms"])
    log = tmp_path / "console.log"
    log.write_text("\n".join(["+ poprun --num-instances=1 python3 train.py &"] * 2 + [f"[1,0]<stdout>:{r}" for r in merged])
                   + "\n", "utf-8")
    [result] = check_log(LogRef(str(log)), None)
    [repeated] = [f for f in result.findings if f.code == "MLC104" and f.message.startswith("run_start")]
    assert "It logs 2 seeds too (" in repeated.message and "two runs' records in one" in repeated.message
