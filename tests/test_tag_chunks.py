"""Raw output of ``mpirun --tag-output`` whose ranks' lines its chunks cut (mlcheck.read.tag_chunks)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef
from mlcheck.read.tag_chunks import HOLD_LINES, joined_tag_chunks

EXAMPLE = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
_TIME = re.compile(r'"time_ms": (\d+)')


def _joined(*lines: bytes) -> list[bytes]:
    return list(joined_tag_chunks(list(lines), [0]))


def test_a_ranks_own_tag_inside_its_line_is_removed() -> None:
    assert _joined(b'[1,0]<stdout>::::MLLOG {"a": "P[1,0]<stdout>:OINT"}\n', b"[1,0]<stdout>:x\n") == \
        [b'[1,0]<stdout>::::MLLOG {"a": "POINT"}\n', b"[1,0]<stdout>:x\n"]


def test_a_line_cut_by_another_rank_is_given_where_the_rank_ends_it() -> None:
    """One line out per line in: rank 3's line at the cut, rank 0's joined at its line end."""
    assert _joined(b"[1,0]<stdout>:abc[1,3]<stdout>:noise\n", b"[1,2]<stdout>:other\n", b"[1,0]<stdout>:def\n") == \
        [b"[1,3]<stdout>:noise\n", b"[1,2]<stdout>:other\n", b"[1,0]<stdout>:abcdef\n"]


def test_pieces_of_one_rank_on_one_line_are_joined_around_another_ranks() -> None:
    assert _joined(b"[1,0]<stdout>:ab[1,3]<stdout>:x[1,0]<stdout>:c\n", b"[1,3]<stdout>:y\n") == \
        [b"[1,0]<stdout>:abc\n", b"[1,3]<stdout>:xy\n"]


@pytest.mark.parametrize("after", [b"mpirun noticed that process rank 0 with PID 42 on node n1 exited on signal 9\n",
                                   b"[2,0]<stdout>:next job\n"])
def test_a_rank_that_died_mid_line_is_given_up_before_another_jobs_line(after: bytes) -> None:
    """Its piece goes in front of the line before (the line as it was, where it was cut)."""
    cut = b"[1,0]<stdout>:abc[1,3]<stdout>:noise\n"
    assert _joined(cut, after) == [cut, after]


def test_a_line_of_two_jobs_and_a_piece_held_too_long_stay_as_they_were() -> None:
    two_jobs = b"[1,0]<stdout>:abc[2,0]<stdout>:new\n"
    assert _joined(two_jobs) == [two_jobs]
    lines = [b"[1,0]<stdout>:abc[1,3]<stdout>:x\n"] + [b"[1,3]<stdout>:y\n"] * (HOLD_LINES + 2)
    out = _joined(*lines)
    assert len(out) == len(lines) and out.count(b"[1,0]<stdout>:abc[1,3]<stdout>:y\n") == 1


def _rank_writes(lines: list[str], ranks: int, size: int, rng: random.Random) -> list[list[str]]:
    """Each rank's text (every record, its clock a millisecond apart) in pieces of ``size`` bytes at
    most, as a pipe or a block-buffered file receives it."""
    streams = []
    for rank in range(ranks):
        text = "".join(_TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + rank}', line) for line in lines)
        cuts = [0]
        while cuts[-1] < len(text):
            cuts.append(cuts[-1] + rng.randint(size // 2, size))
        streams.append([text[a:b] for a, b in zip(cuts, cuts[1:])])
    return streams


def _chunked(lines: list[str], ranks: int, size: int, seed: int, dated: bool = False) -> str:
    """What ``mpirun --tag-output`` prints when every rank prints every record (its clock a
    millisecond apart) and the chunks it reads (``size`` bytes at most) interleave at random:
    each chunk begins with its rank's tag, wherever the chunk begins."""
    rng = random.Random(seed)
    streams = _rank_writes(lines, ranks, size, rng)
    out = ["mpirun -np %d --tag-output python train.py\n" % ranks]
    while any(streams):
        rank = rng.choice([r for r, chunks in enumerate(streams) if chunks])
        chunk = streams[rank].pop(0)
        tag = ("Tue Apr 30 16:30:12 2024" if dated else "") + f"[1,{rank}]<stdout>:"  # (--timestamp-output)
        out.append(tag + chunk[:-1].replace("\n", "\n" + tag) + chunk[-1:])
    return "".join(out)


@pytest.mark.parametrize("seed,dated", [(1, False), (2, False), (3, False), (4, True)])
def test_every_rank_printing_in_chunks_reads_as_the_clean_run(tmp_path: Path, seed: int, dated: bool) -> None:
    """Four ranks, chunks of 150-300 bytes (most records cut, often by another rank's chunk):
    one run with the clean file's verdict and time, and ``split`` writes the clean file
    (was: records with tags inside them, MLC006/MLC008/MLC025 errors, a failing run)."""
    clean_text = EXAMPLE.read_text("utf-8")
    log = tmp_path / "job.log"
    log.write_text(_chunked(clean_text.splitlines(keepends=True), 4, 300, seed, dated), "utf-8")
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings] == ["MLC020"]
    assert "joined again" in result.findings[0].message
    outcome = CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "out")])
    assert outcome.exit_code == 0 and (tmp_path / "out" / "result_0.txt").read_text("utf-8") == clean_text


def test_whole_records_of_ranks_on_one_line_stay_behind_their_tags() -> None:
    """Unflushed writes of two ranks on one line are whole records: nothing is held or joined."""
    line = (b'[1,0]<stdout>::::MLLOG {"key": "a"}\x1b[0m[1,3]<stdout>::::MLLOG {"key": "a"}'
            b'[1,3]<stdout>::::MLLOG {"key": "b"}\n')
    joined = [0]
    assert list(joined_tag_chunks([line, b"[1,0]<stdout>:x\n"], joined)) == [line, b"[1,0]<stdout>:x\n"]
    assert joined == [0]


def test_mpiruns_own_notes_between_two_chunks_end_nothing() -> None:
    """mpirun's help aggregation (untagged) between two chunks of rank 0's line: still joined."""
    lines = [b"[1,0]<stdout>:abc[1,3]<stdout>:x\n",
             b"[node000:01234] 7 more processes have sent help message help-mpi-btl-openib.txt\n",
             b"[1,0]<stdout>:def\n"]
    assert _joined(*lines) == [b"[1,3]<stdout>:x\n", lines[1], b"[1,0]<stdout>:abcdef\n"]


@pytest.mark.parametrize("seed", [5, 6])
def test_watch_joins_the_chunks_as_check_does(tmp_path: Path, seed: int) -> None:
    """``watch`` on a finished console whose lines mpirun's chunks cut: the verdict, time and
    findings of ``check`` (was: the watch ended at the first cut record, MLC023, a failing run)."""
    import json

    log = tmp_path / "job.log"
    log.write_text(_chunked(EXAMPLE.read_text("utf-8").splitlines(keepends=True), 2, 300, seed), "utf-8")
    watched = CliRunner().invoke(main, ["watch", str(log), "--format", "json", "--no-progress", "--idle-timeout", "3"])
    checked = CliRunner().invoke(main, ["check", str(log), "--format", "json"])
    runs = [[(r["verdict"], r["time_to_train_min"]) for r in json.loads(out.stdout)["runs"]] for out in (watched, checked)]
    assert runs[0] == runs[1] and runs[0][0][0] == "pass"
    codes = [sorted({f["code"] for f in json.loads(out.stdout)["findings"]}) for out in (watched, checked)]
    assert codes == [["MLC020"], ["MLC020"]]


def test_the_line_by_line_joiner_gives_the_lines_of_the_generator() -> None:
    """:class:`TagChunks` fed one line at a time, as ``watch`` feeds it, gives what the generator
    ``check`` reads through gives, line for line."""
    from mlcheck.read.tag_chunks import TagChunks

    lines = _chunked(EXAMPLE.read_text("utf-8").splitlines(keepends=True), 4, 200, 7).encode().splitlines(keepends=True)
    chunks = TagChunks()
    one_by_one = [out for line in lines for out in chunks.line(line)] + chunks.release()
    assert one_by_one == _joined(*lines) and len(one_by_one) == len(lines)


def test_watch_ends_at_run_stop_while_a_ranks_piece_waits_for_its_rest(tmp_path: Path) -> None:
    """A rank's progress text cut by rank 0's tag never goes on: the lines after it are held one
    late, and an idle poll hands the held line over, so the watch sees run_stop and ends (was: it
    waited for ever for the line behind the piece)."""
    import json

    lines = (FIXTURES / "raw" / "base.txt").read_text("utf-8").splitlines()
    log = tmp_path / "job.log"
    log.write_text("\n".join(("[1,1]<stdout>:Loading shards 3/8" if i == 2 else "") + "[1,0]<stdout>:" + line
                             for i, line in enumerate(lines)) + "\n", "utf-8")
    watched = CliRunner().invoke(main, ["watch", str(log), "--format", "json", "--no-progress", "--idle-timeout", "30"])
    [run] = json.loads(watched.stdout)["runs"]
    assert (run["verdict"], watched.exit_code) == ("pass", 0)
    assert "idle" not in watched.stderr


def test_a_torchrun_workers_label_inside_its_line_is_removed() -> None:
    """torchrun's tail of a worker's log file writes a line cut at a flush behind the label, and
    its rest behind the label again (session 48's review: a failing run, MLC003 and MLC102)."""
    assert _joined(b'[default0]::::MLLOG {"namespace":[default0]: "", "key": "run_stop"}\n', b"[default0]:x\n") == \
        [b'[default0]::::MLLOG {"namespace": "", "key": "run_stop"}\n', b"[default0]:x\n"]
    assert _joined(b'[default0]::::MLLOG {"a":[default1]:noise\n', b"[default1]:other\n", b"[default0]: 1}\n") == \
        [b"[default1]:noise\n", b"[default1]:other\n", b'[default0]::::MLLOG {"a": 1}\n']


def test_a_torchrun_workers_piece_of_no_record_is_left_out_not_held() -> None:
    """Its rest may come minutes later (a block-buffered progress line): held, every line would take
    the slow path meanwhile (attack review: 4-11 times slower, no join gained); none of it is read."""
    lines = [b"[default0]:step 10 loss[default1]:noise\n", *[b"[default1]:x\n"] * 5, b"[default0]: 2.5\n"]
    assert _joined(*lines) == [b"[default1]:noise\n", *lines[1:]]


@pytest.mark.parametrize("line", [b"[default0]:[rank0]: warning [default1] said\n", b"[default0]:[1,0]<stdout>:x\n",
                                  b"[default0]:text [trainer1]: more\n"])
def test_a_loggers_label_after_torchruns_is_no_cut(line: bytes) -> None:
    joined = [0]
    assert list(joined_tag_chunks([line, b"[default0]:x\n"], joined)) == [line, b"[default0]:x\n"]
    assert joined == [0]


def _tailed(lines: list[str], ranks: int, size: int, seed: int) -> str:
    """What torchrun prints of workers whose stdout is block-buffered into their log files: each
    flush (``size`` bytes at most) cuts a line, torchrun reads each file a line at a time (its rest
    so far at the end of the file) and writes it behind the worker's label, the workers' tails
    interleaving at random."""
    rng = random.Random(seed)
    streams = [[piece for write in writes for piece in write.splitlines(keepends=True)]
               for writes in _rank_writes(lines, ranks, size, rng)]
    out = []
    while any(streams):
        rank = rng.choice([r for r, pieces in enumerate(streams) if pieces])
        out.append(f"[default{rank}]:" + streams[rank].pop(0))
    return "".join(out)


@pytest.mark.parametrize("seed", [1, 2])
def test_torchrun_tailing_block_buffered_workers_reads_as_the_clean_run(tmp_path: Path, seed: int) -> None:
    clean_text = EXAMPLE.read_text("utf-8")
    log = tmp_path / "torchrun.log"
    log.write_text(_tailed(clean_text.splitlines(keepends=True), 4, 300, seed), "utf-8")
    assert sum(bool(re.search(r".\[default\d\]:", line)) for line in log.read_text("utf-8").splitlines()) > 10  # (cut)
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings] == ["MLC020"]
    outcome = CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "out")])
    assert outcome.exit_code == 0 and (tmp_path / "out" / "result_0.txt").read_text("utf-8") == clean_text
