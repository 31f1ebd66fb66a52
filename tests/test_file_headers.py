"""``tail -v``/``head -v`` of the files of a job's ranks: each file's lines are its rank's
(:mod:`mlcheck.read.file_headers`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.model import Event
from mlcheck.package.discover import LogRef
from mlcheck.read.file_headers import FileHeaders, headed_file_lines
from mlcheck.read.live_reader import LiveReader
from mlcheck.read.reader import read_mllog

BASE = FIXTURES / "raw" / "base.txt"


def _records(rank: int = 0) -> list[str]:
    """The base run's records as ``rank`` prints them (its own clock, a few ms apart)."""
    out = []
    for line in BASE.read_text("utf-8").splitlines():
        record = json.loads(line[len(":::MLLOG "):])
        record["time_ms"] += rank
        out.append(":::MLLOG " + json.dumps(record))
    return out


def _shifted(line: str, ms: int) -> str:
    record = json.loads(line[len(":::MLLOG "):])
    record["time_ms"] += ms
    return ":::MLLOG " + json.dumps(record)


def _check(tmp_path: Path, lines: list[str]) -> list:
    log = tmp_path / "tailed.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    return check_log(LogRef(str(log)), None)


@pytest.mark.parametrize("name", ["out/1/rank.{r}/stdout", "logs/rank{r}.log"])
@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
def test_every_rank_file_tailed_reads_as_the_one_run(name: str, order: tuple[int, int], tmp_path: Path) -> None:
    """``tail -n +1 -v``: a header, the file, a blank line, the next header. One run, the other
    rank's copies dropped (was every record twice: init_stop after run_start, MLC404, a fail)."""
    lines: list[str] = []
    for rank in order:
        lines += ([""] if lines else []) + [f"==> {name.format(r=rank)} <=="] + ["some framework output"] + _records(rank)
    [result] = _check(tmp_path, lines)
    [clean] = check_log(LogRef(str(BASE)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert sorted({f.code for f in result.findings}) == ["MLC020"]
    [read] = [f.message for f in result.findings if f.code == "MLC020"]
    assert "records kept from rank 0 of job 1" in read


def test_tail_f_headers_wherever_the_file_changes(tmp_path: Path) -> None:
    """``tail -f`` of two rank files prints a header each time the other file grew."""
    zero, one = _records(0), _records(1)
    lines: list[str] = []
    for at in range(0, len(zero), 3):
        lines += ["", "==> rank0.log <==", *zero[at:at + 3], "", "==> rank1.log <==", *one[at:at + 3]]
    [result] = _check(tmp_path, lines[1:])
    [clean] = check_log(LogRef(str(BASE)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert sorted({f.code for f in result.findings}) == ["MLC020"]


def test_lines_below_a_file_not_named_for_a_rank_are_as_they_were() -> None:
    """A job's console (``slurm-4242.out``), and text that only looks like a header, stay as they are."""
    lines = [b"==> slurm-4242.out <==\n", b":::MLLOG {}\n", b"==> rank3.log <==\n", b"x\n", b"\n",
             b"==> train.py <==\n", b"y\n", b"z ==> rank2.log <==\n"]
    headers = FileHeaders()
    assert list(headed_file_lines(lines, headers)) == [
        lines[0], lines[1], lines[2], b"[1,3]<stdout>:x\n", b"\n", lines[5], b"y\n", lines[7]]
    assert headers.labelled == 1


def test_the_rest_of_a_long_line_is_not_labelled_again() -> None:
    """readline(limit) gives a long line in pieces: only its first is a line's start."""
    pieces = [b"==> rank3.log <==\n", b":::MLLOG {\"a\": ", b"==> rank2.log <==\n", b"w\n"]
    assert list(headed_file_lines(pieces, FileHeaders())) == [
        pieces[0], b"[1,3]<stdout>::::MLLOG {\"a\": ", pieces[2], b"[1,3]<stdout>:w\n"]


def test_watch_reads_the_headers_as_check_does(tmp_path: Path) -> None:
    lines = ["==> rank1.log <==", *_records(1), "", "==> rank0.log <==", *_records(0)]
    log = tmp_path / "tailed.log"
    text = ("\n".join(lines) + "\n").encode()
    log.write_bytes(text)
    live = LiveReader(str(log))
    watched = [item for line in text.splitlines(keepends=True) for item in live.add(line)] + list(live.finish())
    checked = list(read_mllog(str(log)))
    events = [e for e in checked if isinstance(e, Event)]
    assert [e for e in watched if isinstance(e, Event)] == events and len(events) == len(_records())


@pytest.mark.parametrize("names", [("out/1/rank.0/stdout", "out/2/rank.0/stdout"),
                                   ("logs/trial1_rank0.log", "logs/trial2_rank0.log")])
def test_the_rank_files_of_two_jobs_are_two_jobs(names: tuple[str, str], tmp_path: Path) -> None:
    """A crashed attempt's rank 0 file, then the relaunch's (review of session 40: both read as
    ranks of one job, the relaunch's records dropped as copies of the crashed one's, one passing
    run of both lengths): the crashed run, then the clean one."""
    records = _records(0)
    crashed = records[:len(records) * 2 // 3]
    later = [_shifted(line, 3_600_000) for line in records]  # (an hour later)
    lines = [f"==> {names[0]} <==", *crashed, "", f"==> {names[1]} <==", *later]
    first, second = _check(tmp_path, lines)
    [clean] = check_log(LogRef(str(BASE)), None)
    assert first.verdict == "fail" and (second.verdict, second.time_to_train_min) == (clean.verdict, clean.time_to_train_min)


def test_rank_files_that_end_with_the_run_script_s_end_line_are_one_run(tmp_path: Path) -> None:
    """Each rank's file ends with ``ENDING TIMING RUN AT``: rank 0's end is not the job's, the next
    file's records are still rank 1's copies (review of session 40: read as a second run)."""
    end = "ENDING TIMING RUN AT 2023-04-28 12:22:50 AM"
    lines = ["==> logs/rank0.log <==", *_records(0), end, "", "==> logs/rank1.log <==", *_records(1), end]
    [result] = _check(tmp_path, lines)
    [clean] = check_log(LogRef(str(BASE)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
