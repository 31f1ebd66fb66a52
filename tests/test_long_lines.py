"""A physical line over 16 MiB: the records between its carriage returns are read (as the
official checkers read them, in universal-newline mode), and of a piece over the limit the record
after its last marker (as their parser reads a line); MLC014 is an error only when a record was
on the part skipped."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest

from mlcheck.checker import check
from mlcheck.read.line_reader import MAX_LINE_BYTES
from mlcheck.read.long_lines import LongLineScan

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
BASE = FIXTURES / "bad" / "base_open.txt"
RECORD = b':::MLLOG {"key": "eval_start", "value": null, "time_ms": 1, "metadata": {}}'


def _scan(line: bytes, limit: int, seed: int) -> tuple[int, bytes | None, int]:
    scan = LongLineScan(limit)
    rng = random.Random(seed)
    at = 0
    while at < len(line):
        size = rng.randrange(1, 12)
        scan.add(line[at:at + size])
        at += size
    return tuple(scan.finish())  # type: ignore[return-value]


@pytest.mark.parametrize("seed", range(6))
def test_the_scan_keeps_the_pieces_with_a_record_whatever_the_pieces(seed: int) -> None:
    bar = b"".join(b"%d%%|###\r" % i for i in range(20))
    line = bar + RECORD + b"\r" + bar + RECORD + b"\r\n"
    assert _scan(line, 200, seed) == (len(line), b"\r" + RECORD + b"\r" + RECORD + b"\n", 0)
    glued = bar + RECORD + b"\n"  # (the record after the last \r)
    assert _scan(glued, 200, seed) == (len(glued), b"\r" + RECORD + b"\n", 0)
    no_return = b"x" * 300 + RECORD + b"\n"  # (no \r: the record after the last marker, as the parser reads it)
    assert _scan(no_return, 200, seed) == (len(no_return), b"\r" + RECORD + b"\n", 0)
    two = b"x" * 300 + RECORD + RECORD  # (the parser reads the last; no line end)
    assert _scan(two, 200, seed) == (len(two), b"\r" + RECORD, 1)
    long_piece = bar + b"y" * 300 + RECORD + b"\r" + RECORD + b"\n"  # (a piece over the limit: its last record)
    assert _scan(long_piece, 200, seed) == (len(long_piece), b"\r" + RECORD + b"\r" + RECORD + b"\n", 0)
    named = b':::MLLOG {"key": "x", "value": ":::MLLOGger", "time_ms": 1, "metadata": {}}'
    inner = b"x" * 300 + named + b"\n"  # (the parser's token has its space: the marker in the string is none)
    assert _scan(inner, 200, seed) == (len(inner), b"\r" + named + b"\n", 0)
    too_long = bar + RECORD + b"w" * 300 + b"\n"  # (the record itself over the limit is lost)
    assert _scan(too_long, 200, seed) == (len(too_long), None, 1)
    noise = bar + b"z" * 300 + b"\n"
    assert _scan(noise, 200, seed) == (len(noise), None, 0)


def _with_long_line(tmp_path: Path, name: str, line: bytes, compress: bool = False) -> Path:
    lines = BASE.read_bytes().splitlines(keepends=True)
    data = b"".join(lines[:13]) + line + b"".join(lines[14:])
    path = tmp_path / name
    path.write_bytes(gzip.compress(data, 1) if compress else data)
    return path


def _bar(size: int) -> bytes:
    step = b"Epoch 1:  42%|#####     | 1234/300000 [00:12<00:13, 37.1it/s]\r"
    return step * (size // len(step) + 1)


def test_a_progress_bar_over_the_limit_loses_no_record(tmp_path: Path) -> None:
    record = BASE.read_bytes().splitlines(keepends=True)[13]
    assert len(_bar(MAX_LINE_BYTES)) > MAX_LINE_BYTES
    paths = [_with_long_line(tmp_path, "result_0.txt", _bar(MAX_LINE_BYTES) + record),
             _with_long_line(tmp_path, "job.log.gz", _bar(MAX_LINE_BYTES // 2) + record.rstrip(b"\n") + b"\r"
                             + _bar(MAX_LINE_BYTES // 2) + b"\n", compress=True)]
    result = check([str(path) for path in paths])
    clean = check([str(BASE)]).runs[0]
    for run in result.runs:
        long = [(f.code, f.severity.label, f.line) for f in run.findings if f.code == "MLC014"]
        assert long == [("MLC014", "warning", 14)], run.path
        assert run.verdict == clean.verdict == "pass" and run.time_to_train_min == clean.time_to_train_min


def test_a_record_after_an_over_long_line_without_a_carriage_return_is_read(tmp_path: Path) -> None:
    """16 MiB of text without a carriage return, a record glued after it: the official parser reads
    the line from its last marker, so it reads the record; mlcheck reads it too and the run passes as
    the clean file does (was: MLC014 error and MLC105 "not logged [official checker agrees]" where
    the checker of record passes; a review, session 44). Two records glued after it: the parser
    reads the last; the other is lost (MLC014, an error, mlcheck's own)."""
    lines = BASE.read_bytes().splitlines(keepends=True)
    record = lines[13]
    path = _with_long_line(tmp_path, "result_0.txt", b"y" * MAX_LINE_BYTES + record)
    run = check([str(path)]).runs[0]
    clean = check([str(BASE)]).runs[0]
    long = [f for f in run.findings if f.code == "MLC014"]
    assert [(f.severity.label, f.line, f.official) for f in long] == [("warning", 14, False)]
    assert (run.verdict, run.official_verdict, run.time_to_train_min) == ("pass", "pass", clean.time_to_train_min)
    glued = _with_long_line(tmp_path, "job.log", b"y" * MAX_LINE_BYTES + lines[12].rstrip(b"\n") + record)
    long = [f for f in check([str(glued)]).runs[0].findings if f.code == "MLC014"]
    assert [(f.severity.label, f.line) for f in long] == [("error", 14)]
    assert "1 :::MLLOG record on the part skipped was not read" in long[0].message
