"""Records that stderr cut inside a block-buffered stdout, joined again (mlcheck.read.cut_records)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.package.discover import LogRef
from mlcheck.read.cut_records import CutRecords, rejoined_cut_records
from mlcheck.read.live_reader import LiveReader
from mlcheck.model import Event

EXAMPLE = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
GLOG = b"W0501 12:00:00.123456 140230 gpu_timer.cc:114] Skipping the delay kernel\n"
RECORD = (b':::MLLOG {"namespace": "", "time_ms": 1652083200123, "event_type": "POINT_IN_TIME", '
          b'"key": "eval_accuracy", "value": 0.7512, "metadata": {"file": "train.py", "lineno": 7}}\n')


def _joined(*lines: bytes) -> list[bytes]:
    count = [0]
    return list(rejoined_cut_records(list(lines), count)) + [b"joined %d" % count[0]]


def _cut(record: bytes, at: bytes, other: bytes) -> tuple[bytes, bytes]:
    """``record`` cut after the first ``at``: its first part with ``other`` after it, and its rest."""
    where = record.index(at) + len(at)
    return record[:where] + other, record[where:]


def test_a_record_cut_inside_a_number_by_a_glog_line_is_joined_where_it_starts() -> None:
    first, rest = _cut(RECORD, b'"time_ms": 16520', GLOG)
    assert _joined(b"noise\n", first, rest) == [b"noise\n", RECORD, GLOG, b"joined 1"]


@pytest.mark.parametrize("other", [b"2024-05-01 12:00:01,234 WARNING something\n", b"[rank3]: NCCL INFO Channel 00/02\n",
                                   b"100%|#####| 10/10 [00:01<00:00]\n", b"  3%|#     | 10/300 [00:01<00:29]\n",
                                   b"Traceback (most recent call last):\n"])
@pytest.mark.parametrize("at", [b'"time_ms": 1652', b'"key": "eval_', b'"lineno":', b'"lineno": ', b":::MLLOG",
                                b":::MLLOG ", b'"value": 0.75'])
def test_a_line_that_begins_as_a_log_line_begins_cuts_where_it_begins(other: bytes, at: bytes) -> None:
    """Inside a string or a number, after a colon or before its blank: the record as printed."""
    first, rest = _cut(RECORD, at, other)
    assert _joined(first, rest) == [RECORD, other, b"joined 1"]


def test_a_warning_of_lines_of_its_own_between_the_parts_is_kept_in_between() -> None:
    """A launcher that ends each chunk with a line end: the record is cut inside a number."""
    first, rest = _cut(RECORD, b'"time_ms": 16520', b"\n")
    warning = [b"/usr/lib/python3/site-packages/torch/x.py:12: UserWarning: deprecated\n", b"  warnings.warn(\n"]
    assert _joined(first, *warning, rest) == [RECORD, *warning, b"\n", b"joined 1"]


def test_a_string_a_record_before_printed_tells_where_a_word_began() -> None:
    """A Python warning (a path, words) inside the file name: the name other records gave."""
    other = b"/usr/lib/python3/site-packages/torch/x.py:12: UserWarning: deprecated\n"
    first, rest = _cut(RECORD, b'"file": "tra', other)
    before = RECORD.replace(b"0.7512", b"0.70")
    assert _joined(before, first, rest) == [before, RECORD, other, b"joined 1"]


def test_a_cut_no_line_before_tells_is_left_to_the_reader() -> None:
    """The same warning inside a string no record printed before: several records would join,
    so the lines stay as they are (the reader's MLC023)."""
    other = b"/usr/lib/python3/site-packages/torch/x.py:12: UserWarning: deprecated\n"
    first, rest = _cut(RECORD, b'"file": "tra', other)
    assert _joined(first, rest) == [first, rest, b"joined 0"]


def test_a_marker_cut_in_its_first_characters_is_joined_at_its_rests_line() -> None:
    first, rest = _cut(RECORD, b":::M", GLOG)
    assert _joined(b"noise\n", first, rest) == [b"noise\n", first, RECORD, b"joined 1"]


def test_a_killed_process_and_a_traceback_with_a_brace_stay_as_they_were() -> None:
    first = RECORD[:60] + b"\n"
    lines = [first, b"Traceback (most recent call last):\n", b'    d = {"a": 1}\n', b"KeyError: 'x'\n"]
    assert _joined(*lines) == [*lines, b"joined 0"]


def test_the_line_by_line_joiner_gives_the_lines_of_the_generator() -> None:
    lines = EXAMPLE.read_bytes().splitlines(keepends=True)
    text = b"".join(lines)
    mixed = b"".join(text[i:i + 4096] + GLOG for i in range(0, len(text), 4096)).splitlines(keepends=True)
    cuts = CutRecords()
    one_by_one = [out for line in mixed for out in cuts.line(line)] + cuts.release()
    assert one_by_one == _joined(*mixed)[:-1] and len(one_by_one) == len(mixed)
    assert cuts.joined == len(text) // 4096


@pytest.mark.parametrize("size,other", [(4096, GLOG), (8192, b"2024-05-01 12:00:01,234 WARNING x\n"),
                                        (1024, b"[1,3]<stderr>: NCCL WARN\n")])
def test_block_buffered_output_reads_as_the_clean_run(tmp_path: Path, size: int, other: bytes) -> None:
    """``python train.py > log 2>&1``: stdout in blocks, a stderr line between two (was: MLC023,
    MLC003, records lost, a failing run); ``split`` writes the clean file."""
    text = EXAMPLE.read_bytes()
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(text[i:i + size] + other for i in range(0, len(text), size)))
    [clean] = check_log(LogRef(str(EXAMPLE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert [f.code for f in result.findings] == ["MLC020"]
    cuts = sum(text[end - 1:end] != b"\n" for end in range(size, len(text), size))
    assert f"{cuts} records cut by another stream's line" in result.findings[0].message
    outcome = CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "out")])
    assert outcome.exit_code == 0 and (tmp_path / "out" / "result_0.txt").read_bytes() == text


def test_a_result_file_is_read_as_the_official_parser_reads_it(tmp_path: Path) -> None:
    """A submitted result_<i>.txt is never repaired: the cut record is its error."""
    first, rest = _cut(RECORD, b'"time_ms": 16520', GLOG)
    lines = EXAMPLE.read_bytes().splitlines(keepends=True)
    path = tmp_path / "result_0.txt"
    path.write_bytes(b"".join(lines[:150] + [first, rest] + lines[150:]))
    [result] = check_log(LogRef(str(path)), None)
    assert result.verdict == "fail"
    assert [(f.code, f.line) for f in result.findings if f.code != "MLC020"] == [("MLC003", 151)]


def test_a_finding_after_a_joined_record_names_its_physical_line(tmp_path: Path) -> None:
    """The lines after a join keep their numbers: an eval beyond the target is told at its line."""
    lines = EXAMPLE.read_bytes().splitlines(keepends=True)
    first, rest = _cut(lines[10], b'"time_ms": 16520', GLOG)
    bad = lines[20].replace(b'"value": 0.1', b'"value": "x"') if b'"value": 0.1' in lines[20] else lines[20][:20] + b"{\n"
    log = tmp_path / "job.log"
    log.write_bytes(b"".join(lines[:10] + [first, rest] + lines[11:20] + [bad] + lines[21:]))
    [result] = check_log(LogRef(str(log)), None)
    lines_of = {f.line for f in result.findings if f.code not in ("MLC020",)}
    assert 22 in lines_of and 11 not in lines_of and 12 not in lines_of


def test_watch_joins_as_check_does() -> None:
    text = EXAMPLE.read_bytes()
    mixed = b"".join(text[i:i + 4096] + GLOG for i in range(0, len(text), 4096)).splitlines(keepends=True)
    live = LiveReader("job.log")
    events = [item for line in mixed for item in live.add(line)] + list(live.finish())
    keys = [item.key for item in events if isinstance(item, Event)]
    assert len(keys) == len(text.splitlines()) and keys[-1] == json.loads(text.splitlines()[-1][9:])["key"]
    assert live.reader is not None and live.reader.stats.rejoined_records == len(text) // 4096
