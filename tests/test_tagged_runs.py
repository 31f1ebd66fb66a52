"""Record lines behind the bare tags of several ranks, read in bulk (``mlcheck.read.tagged_runs``):
the same items, line numbers and statistics as the line reader fed one physical line at a time,
whatever breaks a run; and the run is taken where it should be (every rank's ``init_start``, one
line each, as ``srun --label`` consoles of jobs in which every rank logs print them), once its job is met.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from test_lean_reading import (BULK_SPOILERS, CLEAN_RUN, _assert_both_readers_read, _block_and_line_readers,
                               needs_orjson, record_line)

from mlcheck.model import Event
from mlcheck.read import result_blocks, tagged_runs

pytestmark = needs_orjson

TAGS = [b"0: ", b"  7: ", b"511: ", b"[3] ", b"[1,0]<stdout>:", b"[1,5]<stderr>:"]
BREAKERS = [
    b"2023-01-01 10:00:00 4: " + record_line("0.8"), b"4: progress 10%\n", b"framework says hello\n",
    b"4: \x1b[31m" + record_line("0.81"), b"4: 4: " + record_line("0.6"), b"4:" + record_line("0.6"),
    record_line("0.5"), b"[2,0]<stdout>:" + record_line("0.7"), b"+ srun --ntasks=8 python train.py\n",
    b"4: " + record_line("0.8").rstrip(b"\n") + record_line("0.9"), b"\n",
    *(b"4: " + spoiler for spoiler in BULK_SPOILERS[:12]),
]
"""Lines that end a run, or that the bulk path refuses: another job, a timestamp, colour, a
record behind the marker without its space, another marker, a record it cannot decode."""


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """(first line, events) of each run of several tags read in bulk."""
    taken: list[tuple[int, int]] = []

    def spied(chunk: bytes, start: int, end: int, records: list[bytes], first_line: int) -> Any:
        events = tagged_runs.tagged_run_events(chunk, start, end, records, first_line)
        if events is not None:
            taken.append((first_line, len(events)))
        return events

    monkeypatch.setattr(result_blocks, "tagged_run_events", spied)
    return taken


def _every_rank(tag_form: bytes, ranks: int, key: str = '"init_start"') -> list[bytes]:
    return [tag_form.replace(b"N", str(rank).encode()) + record_line("null", key=key) for rank in range(ranks)]


@pytest.mark.parametrize("seed", range(24))
def test_runs_of_several_tags_are_read_as_the_line_reader_reads_them(tmp_path: Path, seed: int,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    form = rng.choice([b"N: ", b"  N: ", b"[N] ", b"[1,N]<stdout>:"])
    lines = [b"+ srun -l --ntasks=64 python train.py\n", b"0: starting\n"]
    lines += _every_rank(form, rng.randrange(2, 70))
    lines += [form.replace(b"N", b"0") + line for line in CLEAN_RUN]
    lines += _every_rank(form, rng.randrange(2, 20), key='"cache_clear"')
    for _ in range(seed % 4):  # (a line that ends a run, or that the bulk path refuses)
        lines.insert(rng.randrange(2, len(lines) + 1), rng.choice(BREAKERS))
    if seed % 5 == 0:
        lines = [line.replace(b"\n", b"\r\n") for line in lines]
    taken = _spy(monkeypatch)
    _assert_both_readers_read(tmp_path / "result_0.txt", lines, seed % 3 != 2, lines[-1])
    if seed % 4 == 0:  # (nothing breaks the runs: the first rank's line meets the job, the rest is bulk)
        assert taken and taken[0][0] == 4


def test_every_ranks_init_start_after_the_preamble_is_one_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A job of 512 ranks, each logging its own init_start behind its srun label."""
    lines = [b"+ srun -l --ntasks=512 ./run.sh\n", b"  0: STARTING TIMING RUN\n",
             *_every_rank(b"  N: ", 512), b"  0: [NeMo I] setup\n", *_every_rank(b"  N: ", 3, key='"cache_clear"')]
    taken = _spy(monkeypatch)
    _assert_both_readers_read(tmp_path / "result_0.txt", lines, True, b"")
    assert taken == [(4, 511)]  # (line 3, the first record, met the job: the rest in one run)
    (blocks, stats), _ = _block_and_line_readers(tmp_path / "result_0.txt")
    assert [e.line for e in blocks if isinstance(e, Event)][:3] == [3, 4, 5]
    assert (stats.records, stats.tagged_records, len(stats.kept_sources)) == (515, 515, 512)
    assert list(stats.kept_sources)[:3] == [(-1, 0), (-1, 1), (-1, 2)]  # (in the order the ranks come)


@pytest.mark.parametrize("breaker", BREAKERS)
def test_a_line_that_breaks_a_run_leaves_it_to_the_line_path(tmp_path: Path, breaker: bytes) -> None:
    lines = [*_every_rank(b"N: ", 9), breaker, *_every_rank(b"N: ", 9)]
    _assert_both_readers_read(tmp_path / "result_0.txt", lines, True, breaker)


def test_tags_of_two_jobs_are_not_one_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [*_every_rank(b"[1,N]<stdout>:", 8), *_every_rank(b"[2,N]<stdout>:", 8)]
    taken = _spy(monkeypatch)
    _assert_both_readers_read(tmp_path / "result_0.txt", lines, True, b"")
    (blocks, _stats), _ = _block_and_line_readers(tmp_path / "result_0.txt")
    assert any(getattr(item, "code", None) == "MLC024" for item in blocks)  # (a new job, as the line path says)
    assert all(first <= 9 for first, _count in taken)  # (job 2's lines were not taken with job 1's)


def test_a_refused_run_is_tried_once_not_at_each_of_its_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of several ranks' lines with one glued line (two markers) is read line by line to its
    end after one try: trying again at every line re-split the rest of the run each time, which
    made a 44 MB console of such runs take a minute (quadratic)."""
    calls: list[int] = []

    def counted(chunk: bytes, start: int, size: int) -> Any:
        calls.append(start)
        return tagged_runs.tagged_run(chunk, start, size)

    monkeypatch.setattr(result_blocks, "tagged_run", counted)
    glued = b"4: " + record_line("0.8").rstrip(b"\n") + b"  5: " + record_line("0.9")
    lines = [*_every_rank(b"N: ", 3), *_every_rank(b"N: ", 400)[:200], glued, *_every_rank(b"N: ", 400)[200:]]
    _assert_both_readers_read(tmp_path / "result_0.txt", lines, True, b"")
    assert len(calls) <= 3, calls
