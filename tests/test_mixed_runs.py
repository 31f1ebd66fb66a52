"""Record lines with a line or two of other output between them, read in bulk
(``mlcheck.read.mixed_runs``): the same items, line numbers and statistics as the line reader fed
one physical line at a time, whatever lies between the records; and the region is taken where it
should be (interleaved output) and refused where it must be (a launcher line, a rank tag, a bad
record).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from test_lean_reading import (BULK_SPOILERS, CLEAN_RUN, MIXED_LINES, _assert_both_readers_read,
                               _block_and_line_readers, needs_orjson, record_line)

from mlcheck.model import Event
from mlcheck.read import mixed_runs, result_blocks
from mlcheck.read.mixed_runs import MAX_GAP, dense_region_end, mixed_region
from mlcheck.read.record_runs import MIN_LINES

pytestmark = needs_orjson

OUTPUT_LINES = [
    b"DLL 2021-06-02 20:23:52.621649 - epoch    5 | avg train utts/s  4976 | took 55.97 s\n",
    b"\n", b"   \t\n", b"\r\n", b"\x0b\x0c\n", b"running the loop\n", b"Traceback (most recent call last):\n",
    b"  File \"train.py\", line 3, in <module>\n", b"step 12345678901234567890 done\n", b"prune run: 3\n",
    b"trailing blanks   \n", b"\xff\xfe not utf-8\n", b"deepspeed_config = x\n", b"mpiexec_version 4\n",
]
"""Lines without a record that a region may hold and count: blank as ``strip`` decides, words
that hold a launcher's name without being its line, long digit runs, bytes that are not UTF-8."""
BREAKERS = [
    b"+ srun --ntasks=8 python train.py\n", b"mpirun -np 8 ./run.sh\n", b"poprun: launching 4 instances\n",
    b"[1,0]<stdout>:" + record_line("0.7"), b"0: " + record_line("0.6"), b"\x1b[32mgreen\x1b[0m\n",
    b"trailing text with :::MLLOG inside\n", record_line("0.8").rstrip(b"\n") + record_line("0.9"),
]
"""Lines a region must not hold: the block reader's line-by-line path reads them as before."""


def _interleaved(rng: random.Random, records: int, crlf: bool) -> list[bytes]:
    lines: list[bytes] = []
    for number in range(records):
        lines.append(record_line(f"0.{number}", key=rng.choice(['"eval_accuracy"', '"epoch_stop"', '"throughput"'])))
        lines.extend(rng.choice(OUTPUT_LINES) for _ in range(rng.choice([0, 0, 1, 1, 2, 3, 5])))
    return [line.replace(b"\n", b"\r\n") if crlf and line.endswith(b"\n") and not line.endswith(b"\r\n")
            else line for line in lines]


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(first line, events) of each region the block reader read in bulk."""
    taken: list[tuple[int, int]] = []

    def spied(region: bytes, first_line: int) -> Any:
        mixed = mixed_region(region, first_line)
        if mixed is not None:
            taken.append((first_line, len(mixed.events)))
        return mixed

    monkeypatch.setattr(result_blocks, "mixed_region", spied)
    return taken


@pytest.mark.parametrize("seed", range(16))
def test_interleaved_output_is_read_as_the_line_reader_reads_it(tmp_path: Path, seed: int,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    lines = _interleaved(rng, rng.randrange(8, 200), crlf=seed % 4 == 3)
    for _ in range(seed % 3):  # (a line no region holds, or a record the bulk path refuses)
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(BREAKERS + BULK_SPOILERS + MIXED_LINES))
    taken = _spy(monkeypatch)
    _assert_both_readers_read(tmp_path / "result_0.txt", lines, seed % 5 != 4, lines[0])
    if seed % 3 == 0:  # (nothing but records and counted output: read in regions, where the output is short)
        assert taken and all(events >= MIN_LINES for _, events in taken)


def test_a_result_file_of_interleaved_records_is_one_region(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The RNN-T logs of round 1.0: three to five records, then a line of the framework's own."""
    lines = []
    for epoch in range(40):
        lines += [record_line(f"0.{epoch}", key='"epoch_stop"'), b"DLL 2021-06-02 - epoch %d | took 55 s\n" % epoch,
                  record_line("4976.1", key='"throughput"'), record_line("0.97", key='"eval_accuracy"'),
                  b"DLL 2021-06-02 - epoch %d | dev wer 97.7\n" % epoch]
    taken = _spy(monkeypatch)
    _assert_both_readers_read(tmp_path / "result_0.txt", lines, True, b"")
    assert taken == [(1, 120)]
    (blocks, stats), _ = _block_and_line_readers(tmp_path / "result_0.txt")
    assert [e.line for e in blocks if isinstance(e, Event)][:4] == [1, 3, 4, 6]
    assert (stats.lines, stats.records, stats.noise_lines) == (200, 120, 80)


@pytest.mark.parametrize("breaker", BREAKERS)
def test_a_line_no_region_holds_leaves_it_to_the_line_path(tmp_path: Path, breaker: bytes,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [*CLEAN_RUN[:4], b"DLL epoch 1\n", *CLEAN_RUN[4:8], breaker, b"DLL epoch 2\n", *CLEAN_RUN[8:]]
    taken = _spy(monkeypatch)
    _assert_both_readers_read(tmp_path / "result_0.txt", lines, True, breaker)
    assert all(first > 10 for first, _ in taken)  # (the region with the breaker was refused)


def test_a_launcher_line_between_records_is_a_boundary_as_before(tmp_path: Path) -> None:
    lines = [*CLEAN_RUN, b"+ srun --nodes 2 python train.py\n", *CLEAN_RUN]
    path = tmp_path / "result_0.txt"
    path.write_bytes(b"".join(lines))
    (blocks, _), (expected, _) = _block_and_line_readers(path)
    found = [(f.code, f.line) for f in blocks if not isinstance(f, Event)]
    assert found == [(f.code, f.line) for f in expected if not isinstance(f, Event)] and ("MLC024", 13) in found


def test_a_region_ends_before_a_longer_stretch_of_output() -> None:
    record = record_line("1")
    chunk = record * 6 + b"out\n" * MAX_GAP + record * 2 + b"out\n" * (MAX_GAP + 1) + record * 7
    end = dense_region_end(chunk, 0, len(chunk))
    assert end == len(record) * 8 + len(b"out\n") * MAX_GAP  # (the short stretch is in, the long one out)
    assert dense_region_end(chunk, end + len(b"out\n") * (MAX_GAP + 1), len(chunk)) == len(chunk)
    assert dense_region_end(record * (MIN_LINES - 1) + b"out\n" * 9, 0, len(record) * 5 + 36) == 0


def test_a_region_counts_its_lines_as_the_line_reader() -> None:
    region = record_line("1") * 3 + b"\n \t\r\nsome output\n" + record_line("2") * 3
    mixed = mixed_runs.mixed_region(region, 10)
    assert mixed is not None
    assert [e.line for e in mixed.events] == [10, 11, 12, 16, 17, 18]
    assert (mixed.lines, mixed.noise) == (9, 1)
    assert mixed_runs.mixed_region(region.replace(b"some output", b"mpirun -np 2 x"), 10) is None
