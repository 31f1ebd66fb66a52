"""grep (zgrep, rg) over several files names each line's file: ``grep -H :::MLLOG rank*.log`` is
a console whose every line says which rank's file it came from (``rank3.log::::MLLOG``). Files of
other names may be a job's each (``grep :::MLLOG slurm-*.out``): their lines stay one stream, split
into runs as any console's (a crashed job's file is no logging rank of the next job's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.package.discover import LogRef
from mlcheck.read.host_labels import FILE_JOB, IN_HOST, NAMES
from mlcheck.read.rawlog import read_prefix

BASE = FIXTURES / "raw" / "base.txt"


def _records(later_ms: int = 0, rank: int = 0) -> list[str]:
    """The base run's records, ``later_ms`` later; a rank's copy a few ms apart (its own clock)."""
    out = []
    for line in BASE.read_text("utf-8").splitlines():
        record = json.loads(line[len(":::MLLOG "):])
        record["time_ms"] += later_ms + rank
        out.append(":::MLLOG " + json.dumps(record))
    return out


def _check(tmp_path: Path, lines: list[str]) -> list:
    log = tmp_path / "grepped.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    return check_log(LogRef(str(log)), None)


@pytest.mark.parametrize("prefix, rank, dated", [
    ("rank3.log:", 3, False), ("logs/rank.3/stdout:", 3, False), ("out/1/rank.3/stdout:12:", 3, False),
    ("logs/rank3_pid4242.log:", 3, False), ("node017_rank-3.txt:908:", 3, False),
    ("rank3.log:2024-05-01 10:00:00 ", 3, True), ("rank3.log:Tue Oct 07 12:00:00 2025 ", 3, True),
    ("rank3.log\x00", 3, False), ("rank3.log\x0012:", 3, False), ("rank3.log:12:3456:", 3, False)])
def test_the_file_grep_names_is_a_rank_of_its_job(prefix: str, rank: int, dated: bool) -> None:
    read = read_prefix(prefix)
    assert read.source is not None and read.source[0] == FILE_JOB and read.source[1] // NAMES == rank
    assert (read.extra_text, read.timestamp) == (False, dated)


@pytest.mark.parametrize("head", ["rank0.out:", "rank0.out:12:", "rank0.out:12:3456:"])
def test_a_task_label_after_the_file_is_a_rank_of_the_file(head: str) -> None:
    """``grep -H :::MLLOG rank0.out`` (``-n``, ``-nb``): the file, then the task's ``srun --label``."""
    first, second = read_prefix(head + "0: ").source, read_prefix(head + "1: ").source
    assert first is not None and second is not None and first[0] == second[0] == FILE_JOB - IN_HOST
    assert first[1] + 1 == second[1]


@pytest.mark.parametrize("prefix", ["INFO:", "12:", "train.py:42: ", "mllog2.py:42:x", "a1:b2:", "[1,0]<stdout>:",
                                    "step12 0: ", "slurm-4242.out:", "run_3/output.log:", "attempt_1/0/stdout.log:",
                                    "/workspace/rank0_utils.py:106: ", "ranking2.log:", "myrank2.log:"])
def test_text_that_names_no_file_is_no_label(prefix: str) -> None:
    """A word without a digit (a logger's level), a number alone (``grep -n`` of one file), a logger's
    ``file:line: `` with its blank, more text after the colon, a file not named for a rank (a job's,
    perhaps), a Python file (a logger's call site): none is a rank file of grep's."""
    source = read_prefix(prefix).source
    assert source is None or source[0] != FILE_JOB


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_every_rank_file_grepped_reads_as_the_one_run(order: tuple[int, int], tmp_path: Path) -> None:
    """Each rank logs the run; grep prints one file after the other (either order): one run, the
    copies of the other rank's file dropped (were read as one run logging everything twice:
    run_start twice, MLC104, MLC404, a failed run)."""
    lines = [f"rank{rank}.log:{record}" for rank in order for record in _records(rank=rank)]
    [result] = _check(tmp_path, lines)
    [clean] = check_log(LogRef(str(BASE)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert sorted({f.code for f in result.findings}) == ["MLC020"]
    [read] = [f.message for f in result.findings if f.code == "MLC020"]
    assert "rank file 0" in read


def test_rank_files_of_dated_lines_grepped_read_as_the_one_run(tmp_path: Path) -> None:
    """``mpirun --timestamp-output --output-filename``'s files, grepped: a date after the file's name."""
    lines = [f"out/1/rank.{rank}/stdout:Tue Oct 07 12:00:00 2025 [1,{rank}]<stdout>:{record}"
             for rank in (1, 0) for record in _records(rank=rank)]
    [result] = _check(tmp_path, lines)
    assert result.verdict == "pass" and sorted({f.code for f in result.findings}) == ["MLC020"]


@pytest.mark.parametrize("later_ms", [120_000, 7_200_000])
def test_a_crashed_jobs_file_grepped_before_the_next_jobs_reads_as_without_names(later_ms: int, tmp_path: Path) -> None:
    """The first job crashed (no run_stop); the next began 2 minutes or 2 hours after its last
    record: read as the two files' records alone are (2 hours apart: two runs, the first failing),
    never the next job as copies of the crashed one (a run lost)."""
    first = [record for record in _records() if '"run_stop"' not in record and '"eval_accuracy"' not in record]
    named = _check(tmp_path, [f"slurm-100.out:{record}" for record in first]
                   + [f"slurm-101.out:{record}" for record in _records(later_ms=later_ms)])
    alone = _check(tmp_path, first + _records(later_ms=later_ms))
    assert [r.verdict for r in named] == [r.verdict for r in alone]
    if later_ms > 600_000:
        assert [r.verdict for r in named] == ["fail", "pass"]


def test_runs_of_jobs_that_overlap_in_time_stay_runs(tmp_path: Path) -> None:
    """``run_<i>/output.log`` of jobs each begun 20 minutes after the one before (a run takes 25),
    grepped: each run is kept (a job's file is no copy of another's)."""
    lines = [f"run_{i}/output.log:{record}" for i in range(3) for record in _records(later_ms=i * 1_200_000)]
    assert len(_check(tmp_path, lines)) == 3


def test_a_loggers_call_site_is_other_text(tmp_path: Path) -> None:
    """``%(pathname)s:%(lineno)d: `` of a logger, with a digit in the path: one process, as before."""
    lines = [f"/usr/lib/python3.10/site-packages/mllog.py:{100 + n}: {record}" for n, record in enumerate(_records())]
    [result] = _check(tmp_path, lines)
    [clean] = check_log(LogRef(str(BASE)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_the_files_of_two_jobs_grepped_are_two_runs(tmp_path: Path) -> None:
    lines = [f"slurm-100.out:{record}" for record in _records()]
    lines += [f"slurm-101.out:{record}" for record in _records(later_ms=7_200_000)]
    results = _check(tmp_path, lines)
    assert [r.verdict for r in results] == ["pass", "pass"]


def test_a_rank_file_of_labelled_tasks_grepped_keeps_task_0(tmp_path: Path) -> None:
    lines = [f"rank0.out:{task}: {record}" for pair in zip(_records(), _records(rank=1))
             for task, record in enumerate(pair)]
    [result] = _check(tmp_path, lines)
    assert result.verdict == "pass" and sorted({f.code for f in result.findings}) == ["MLC020"]


def test_records_only_another_rank_file_prints_are_named_by_its_file(tmp_path: Path) -> None:
    """MLC028 names the sources as MLC020 does (``rank file 1``, not the number that encodes it)."""
    rank1 = _records(rank=1)
    lines = [f"rank0.log:{record}" for record in _records() if '"eval_accuracy"' not in record]
    lines += [f"rank1.log:{record}" for record in rank1]
    [result] = _check(tmp_path, lines)
    [note] = [f.message for f in result.findings if f.code == "MLC028"]
    assert note.startswith("rank file 1 printed") and "rank file 0 never printed" in note


@pytest.mark.parametrize("between", ["W0501 10:00:00.1 nccl.cc:42] NCCL warning ", "Epoch 3:  45%|####5     | 450/1000\r"])
def test_a_rank_files_line_with_other_text_before_the_record_keeps_its_file(between: str, tmp_path: Path) -> None:
    """Other text between the file's name and the record (a warning another write glued to the
    line, a progress bar ended by ``\\r``): still that rank's line (its copies were kept as another
    process's records: a false MLC307)."""
    lines = [f"rank{rank}.log:{between if n % 7 == 3 else ''}{record}"
             for rank in (0, 1) for n, record in enumerate(_records(rank=rank))]
    [result] = _check(tmp_path, lines)
    assert result.verdict == "pass" and sorted({f.code for f in result.findings}) == ["MLC020"]
