"""The lean path of a result file (``mlcheck.read.result_lines``, ``mlcheck.read.fast_json``) reads what
the line reader reads: the same events (values and their types), findings and line numbers.

The reference is the line reader fed one physical line at a time, as a result file was read
before the lean path. orjson is optional: without it the lean path decodes with ``json`` and the
orjson cases are skipped.
"""

from __future__ import annotations

import gzip
import json
import math
import random
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from mlcheck.read import fast_json, job_starts
from mlcheck.read.fast_json import fast_event
from mlcheck.read.line_reader import MAX_LINE_BYTES, LineReader
from mlcheck.read.long_lines import LongLineScan
from mlcheck.read.reader import read_mllog
from mlcheck.read.record_shape import decode_record, well_formed_event
from mlcheck.read.result_lines import _may_launch

needs_orjson = pytest.mark.skipif(fast_json.LOADS is None, reason="orjson is not installed")


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types all the way down (NaN equals NaN, -0.0 is not 0.0). Without
    recursion: a record may nest deeper than the interpreter's limit (1,200 levels, which
    ``json`` reads on Python 3.12)."""
    pairs = [(a, b)]
    while pairs:
        a, b = pairs.pop()
        if type(a) is not type(b):
            return False
        if isinstance(a, dict):
            if list(a) != list(b):
                return False
            pairs.extend((a[k], b[k]) for k in a)
        elif isinstance(a, (list, tuple)):
            if len(a) != len(b):
                return False
            pairs.extend(zip(a, b))
        elif isinstance(a, float):
            if not ((math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))):
                return False
        elif not a == b:
            return False
    return True


def stdlib_event(raw: bytes) -> object:
    """The event the line reader's own fast path makes of a clean record line, else None."""
    try:
        text = raw.rstrip(b"\r\n")[8:].decode("utf-8")
        record, _end, replaced = decode_record(text.lstrip())
    except (ValueError, RecursionError):
        return None
    return None if replaced else well_formed_event(record, 1)


def record_line(value: str, time_ms: str = "1650000000000", metadata: str = '{"file": "x.py", "lineno": 3}',
                key: str = '"eval_accuracy"', tail: str = "\n") -> bytes:
    return (f':::MLLOG {{"namespace": "", "time_ms": {time_ms}, "event_type": "POINT_IN_TIME", '
            f'"key": {key}, "value": {value}, "metadata": {metadata}}}{tail}').encode("utf-8", "surrogatepass")


TRICKY_VALUES = [
    "1", "-0", "-0.0", "0.1", "1e400", "-1e400", "1e-400", "1E2", "1e+2", "4.9e-324", "2.2250738585072011e-308",
    "1.7976931348623157e308", "1.7976931348623159e308", "9007199254740993", "9007199254740993.0",
    "18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
    "123456789012345678901234567890", "-123456789012345678901234567890", "1" * 309, "1" * 5000,
    "0.0027435221793027523", "1.0000000000000000000000000001", "12345678901234567890.5", "1e1234567890123456789",
    "1e-1234567890123456789", "-1.5E+1234567890123456789", "[0.00012345678901234567890, 99999999999999999999]",
    "[0.5, -12345678901234567890123]", '{"k": 0.0003551136363636364, "n": 18446744073709551616}',
    "NaN", "Infinity", "-Infinity", '"\\ud800"', '"\\udc00x"', '"a\tb"', '"\\u0000"', '"é"', '"\\u00e9"',
    '{"a": 1, "a": 2}', "[1, [2, [3]]]", "[" * 200 + "]" * 200, "[" * 150 + "]" * 150, "[" * 2000 + "]" * 2000, "null", "true",
    '"12345678901234567890"', "[1,]", "01", "1.", ".5", "+1", "- 1", '"\\x"', '"\\/"', "{}", "[]",
]


@needs_orjson
@pytest.mark.parametrize("value", TRICKY_VALUES)
def test_orjson_decodes_a_record_as_json_does_or_not_at_all(value: str) -> None:
    for raw in (record_line(value), record_line(value, tail="\r\n"), record_line(value, tail=" \t\n"),
                record_line(value, tail="  garbage\n"), record_line(value, time_ms=value),
                record_line("1", metadata=f'{{"epoch_num": {value}}}')):
        fast = fast_event(raw, 1)
        assert fast is None or same(tuple(fast), tuple(stdlib_event(raw))), raw  # type: ignore[arg-type]
        clean = fast_json.fast_body_event(raw[8:], 1)  # (it takes bodies of 100-512 levels too)
        assert clean is None or same(tuple(clean), tuple(stdlib_event(raw))), raw  # type: ignore[arg-type]
        assert fast is None or same(clean, fast), raw


CLEAN_BODY_SHAPES = [b'[1, 2]', b'"text"', b'12', b'null', b'{"key": "a", "time_ms": 1, "metadata": {}}',
                     b'{"key": "a", "time_ms": 1.5, "metadata": {}, "value": 2}',
                     b'{"key": "", "time_ms": 1, "metadata": {}, "value": 2, "event_type": "x", "namespace": ""}',
                     b'{"key": "a", "time_ms": true, "metadata": {}, "value": 2, "event_type": 1, "namespace": 2}',
                     b'{"key": "a", "time_ms": 1, "metadata": [], "value": 2, "event_type": null, "namespace": ""}',
                     b'{"key": 3, "time_ms": 1, "metadata": {}, "value": 2, "event_type": "x", "namespace": ""}',
                     b'{"key": "a", "time_ms": 1e308, "metadata": {"a": 1}, "value": [2], "event_type": "x", '
                     b'"namespace": null}\r\n']


@needs_orjson
@pytest.mark.parametrize("body", CLEAN_BODY_SHAPES)
def test_the_block_readers_decoder_makes_the_fast_paths_event(body: bytes) -> None:
    """``fast_body_event`` reads fields by subscript, falling back to ``get``: the same event (or
    None) as ``well_formed_event`` of the record ``json`` reads, for records lacking fields or not
    objects at all."""
    assert same(fast_json.fast_body_event(body, 7), well_formed_event(json.loads(body), 7)), body


@needs_orjson
def test_orjson_takes_the_common_records() -> None:
    assert fast_event(record_line("0.7541"), 1) is not None
    assert fast_event(record_line('{"loss": 1.5, "step": 12}'), 1) is not None
    assert fast_event(record_line("0.0027435221793027523"), 1) is not None  # 19 digits of a fraction
    assert fast_event(record_line("18446744073709551616"), 1) is None  # orjson would make it a float


def test_nineteen_digits_are_an_integer_unless_a_fraction_or_an_exponent() -> None:
    def long_integer(text: bytes) -> bool:
        return fast_json.has_long_integer(text, text.translate(fast_json.DIGITS_AS_ZERO))

    for integer in (b" 12345678901234567890", b"[-12345678901234567890]", b'"id1234567890123456789"',
                    b"[0.1234567890123456789, 12345678901234567890]", b"1234567890123456789012"):
        assert long_integer(integer), integer
    for number in (b"0.1234567890123456789", b"1e-1234567890123456789", b"2.5E+00000000000000000001",
                   b"[0.0003551136363636364, 0.00012345678901234567890]", b"123456789012345678"):
        assert not long_integer(number), number


def _random_json(rng: random.Random, depth: int = 0) -> str:
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return str(rng.randint(-10**rng.randrange(1, 40), 10**rng.randrange(1, 40)))
    if kind == 1:
        return repr(rng.uniform(-1e6, 1e6) * 10 ** rng.randrange(-320, 300))
    if kind == 2:
        return f"{rng.random():.{rng.randrange(1, 30)}f}"
    if kind == 3:
        return f"{rng.randrange(1, 10)}.{rng.randrange(10**5)}e{rng.choice('+-')}{rng.randrange(400)}"
    if kind == 4:
        return json.dumps("".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0x80, 0x3000),
                                                 rng.randrange(0x10000, 0x10FFFF)])) for _ in range(rng.randrange(8))),
                          ensure_ascii=rng.random() < 0.5)
    if kind == 5:
        return rng.choice(["null", "true", "false", "NaN", "-Infinity", '"\\ud83d\\ude00"', '"\\ud83d"'])
    if kind in (6, 7):
        return "[" + ", ".join(_random_json(rng, depth + 1) for _ in range(rng.randrange(4))) + "]"
    items = (f"{json.dumps(rng.choice(['a', 'b', 'lr', 'epoch_num']))}: {_random_json(rng, depth + 1)}"
             for _ in range(rng.randrange(4)))
    return "{" + ", ".join(items) + "}"


@needs_orjson
def test_orjson_agrees_with_json_on_random_records() -> None:
    rng = random.Random(12)
    taken = 0
    for _ in range(4000):
        raw = record_line(_random_json(rng), metadata=rng.choice(['{"lineno": 1}', _random_json(rng)]))
        fast = fast_event(raw, 1)
        clean = fast_json.fast_body_event(raw[8:], 1)
        assert clean is None or same(tuple(clean), tuple(stdlib_event(raw))), raw  # type: ignore[arg-type]
        if fast is not None:
            taken += 1
            assert same(tuple(fast), tuple(stdlib_event(raw))), raw  # type: ignore[arg-type]
    assert taken > 1000  # (the lean path is not simply refusing everything)


def test_every_launcher_passes_the_cheap_filter() -> None:
    for name in (n.encode() for n in job_starts.LAUNCHER_NAMES):
        assert _may_launch(b"+ " + name.upper() + b" --nodes 2 python train.py\n"), name
        assert _may_launch(name + b": launching\n"), name
    assert not _may_launch(b"epoch 3: loss 1.2, throughput 1234 samples/s\n")


MIXED_LINES = [
    record_line('"resnet"', key='"submission_benchmark"'),
    b"\n", b"   \r\n", b"framework says hello\n", b"Running the epoch loop\n",
    record_line("0.5", tail="\r\n"),
    record_line("NaN"), record_line("1" * 400), record_line("18446744073709551616"),
    b"0: " + record_line("0.6"), b"[1,0]<stdout>:" + record_line("0.7"),
    record_line("0.8").rstrip(b"\n") + record_line("0.9"),
    b":::MLLOG {\"key\": \"x\", broken\n", b":::MLLOG [1, 2]\n", record_line("1", metadata="[]"),
    record_line("1", key="3"), b":::MLLOG " + json.dumps({"key": "k", "time_ms": 1.0, "metadata": {}}).encode() + b"\n",
    record_line("\x1b[31m1\x1b[0m"), b"\x1b[32m" + record_line("2"),
    b"+ srun --ntasks=8 python train.py\n", b"mpirun -np 8 ./run.sh\n", b"poprun: launching 4 instances\n",
    record_line('"\\ud800"'), record_line("2").replace(b"2,", b"\xff,"), b"\xff\xfe not utf-8\n",
    record_line("[" * 1200 + "]" * 1200), b"trailing text with :::MLLOG inside\n",
]


def reference_items(path: Path) -> list[Any]:
    """What the line reader gives when fed each physical line (the path before the lean one)."""
    reader = LineReader(str(path), keep_copies=True)
    items: list[Any] = []
    with open(path, "rb") as stream:
        for raw in iter(partial(stream.readline, MAX_LINE_BYTES), b""):
            items.extend(reader.feed(raw))
    items.extend(reader.finish())
    return items


def _assert_read_as_the_line_reader_reads(path: Path) -> list[Any]:
    """The reader's items of ``path`` equal the line reader's, which are returned."""
    lean = list(read_mllog(str(path), keep_copies=True))
    reference = reference_items(path)
    assert len(lean) == len(reference)
    for got, expected in zip(lean, reference):
        assert same(tuple(got), tuple(expected)) if isinstance(got, tuple) else got == expected
    return reference


@pytest.mark.parametrize("seed", range(12))
def test_lean_path_reads_a_result_file_as_the_line_reader_does(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    lines = [rng.choice(MIXED_LINES) for _ in range(rng.randrange(1, 300))]
    if rng.random() < 0.3:
        lines[-1] = lines[-1].rstrip(b"\n")  # a last line without its end
    path = tmp_path / "result_0.txt"
    path.write_bytes(b"".join(lines))
    _assert_read_as_the_line_reader_reads(path)


def _block_and_line_readers(path: Path) -> tuple[tuple[list[Any], Any], tuple[list[Any], Any]]:
    """Items and statistics of the block reader and of the line reader fed line by line."""
    from mlcheck.read.result_blocks import read_result_blocks

    block_reader = LineReader(str(path), keep_copies=True)
    with open(path, "rb") as stream:
        blocks = list(read_result_blocks(stream, block_reader))
    blocks.extend(block_reader.finish())
    line_reader = LineReader(str(path), keep_copies=True)
    lines: list[Any] = []
    with open(path, "rb") as stream:
        for raw in iter(partial(stream.readline, MAX_LINE_BYTES), b""):
            if len(raw) >= MAX_LINE_BYTES and not raw.endswith(b"\n"):
                scan = LongLineScan(MAX_LINE_BYTES)
                scan.add(raw)
                while True:
                    chunk = stream.readline(1 << 20)
                    scan.add(chunk)
                    if not chunk or chunk.endswith(b"\n"):
                        break
                lines.extend(line_reader.skip_long_line(scan.finish()))
            else:
                lines.extend(line_reader.feed(raw))
    lines.extend(line_reader.finish())
    return (blocks, block_reader.stats), (lines, line_reader.stats)


@pytest.mark.parametrize("seed", range(6))
def test_the_block_reader_counts_as_the_line_reader(tmp_path: Path, seed: int) -> None:
    """Blocks of 1 MiB: lines that straddle two blocks, over-long lines (MLC014) with and
    without a record, a line of exactly the limit, blank and CRLF lines, launcher lines."""
    rng = random.Random(seed)
    noise = [b"\n", b" \t\r\n", b"\x0c\n", b"framework says hello\r\n", b"+ srun --ntasks=8 python train.py\n",
             b"running the loop\n", b"x" * 70_000 + b"\n", b"0: " + record_line("0.6")]
    parts: list[bytes] = []
    for _ in range(rng.randrange(20, 120)):
        parts.append(rng.choice(MIXED_LINES + noise * 3))
    where = rng.randrange(len(parts))
    huge = [b"y" * (MAX_LINE_BYTES + 5) + b"\n", b"z" * (MAX_LINE_BYTES - 1) + b"\n",
            record_line("1").rstrip(b"\n") + b" " * MAX_LINE_BYTES + b"\n", b"w" * MAX_LINE_BYTES + b"\n"]
    parts.insert(where, huge[seed % len(huge)])
    if seed % 3 == 0:
        parts.append(b"q" * (MAX_LINE_BYTES + 7))  # an over-long last line without its end
    elif seed % 3 == 1:
        parts[-1] = parts[-1].rstrip(b"\n")
    path = tmp_path / "result_0.txt"
    path.write_bytes(b"".join(parts))
    (blocks, block_stats), (lines, line_stats) = _block_and_line_readers(path)
    assert block_stats == line_stats
    assert len(blocks) == len(lines)
    for got, expected in zip(blocks, lines):
        assert same(tuple(got), tuple(expected)) if isinstance(got, tuple) else got == expected


def test_the_lines_after_an_over_long_line_are_read(tmp_path: Path) -> None:
    """What follows an over-long line in the block read last: whole lines, then another
    over-long line, and a line that spans many blocks without reaching the limit."""
    path = tmp_path / "result_0.txt"
    path.write_bytes(b"y" * (MAX_LINE_BYTES + 5) + b"\n" + record_line("1") + b"n" * 3000 + b"\n\n"
                     + b"v" * (MAX_LINE_BYTES + 9) + b"\n" + record_line("2")
                     + b"z" * (MAX_LINE_BYTES - 1000) + b"\n" + record_line("3") + b"w" * (MAX_LINE_BYTES + 3))
    (blocks, block_stats), (lines, line_stats) = _block_and_line_readers(path)
    assert block_stats == line_stats
    assert len(blocks) == len(lines) and sum(type(item).__name__ == "Event" for item in blocks) == 3
    for got, expected in zip(blocks, lines):
        assert same(tuple(got), tuple(expected)) if isinstance(got, tuple) else got == expected


TAGGED_LINES = [
    b"0: " + record_line("0.6"), b"3: " + record_line("0.61"), b"0: " + record_line("0.62", tail="\r\n"),
    b"[1,0]<stdout>:" + record_line("0.7"), b"[2,1]<stderr>:" + record_line("0.71"),
    b"[1,0]<stdout>:" + record_line("0.72", tail="\r\r\n"), b"[1,0]<stdout>:progress 10%\n",
    b"2023-01-01 10:00:00 0: " + record_line("0.8"), b"0: \x1b[31m" + record_line("0.81"),
    b"0: " + record_line("NaN"), b"0: " + record_line("18446744073709551616"),
    b"0: " + record_line("0.9").rstrip(b"\n") + b"0: " + record_line("0.91"),
    b"0: :::MLLOG {\"key\": broken\n", b"7: " + record_line("1", metadata="[]"),
    b"+ srun --ntasks=8 python train.py\n", b"0: noise of rank 0\n", record_line("0.5"),
]


@pytest.mark.parametrize("seed", range(8))
def test_records_behind_rank_tags_are_read_as_the_line_reader_does(tmp_path: Path, seed: int) -> None:
    """LineReader.kept_tagged (a tagged record read without feed's generator) against feed:
    tags of several jobs and ranks, a job met for the first time (MLC024), CRLF, timestamps,
    colour, records orjson does not take, glued records, a progress bar before a record."""
    rng = random.Random(seed)
    lines = [rng.choice(TAGGED_LINES) for _ in range(rng.randrange(1, 400))]
    if seed % 2:
        lines[-1] = lines[-1].rstrip(b"\n")
    path = tmp_path / "result_0.txt"
    path.write_bytes(b"".join(lines))
    reference = _assert_read_as_the_line_reader_reads(path)
    (blocks, block_stats), (fed, fed_stats) = _block_and_line_readers(path)
    assert block_stats == fed_stats
    assert len(blocks) == len(fed)
    with gzip.open(tmp_path / "result_1.txt.gz", "wb") as packed:  # the line-by-line reader
        packed.write(path.read_bytes())
    zipped = list(read_mllog(str(tmp_path / "result_1.txt.gz"), keep_copies=True))
    assert len(zipped) == len(reference)
    for got, expected in zip(zipped, reference):
        if isinstance(got, tuple):
            assert same(tuple(got), tuple(expected))
        else:
            assert (got.code, got.line) == (expected.code, expected.line)


CLEAN_RUN = [record_line(f"0.{i}", key=rng_key) for i, rng_key in
             enumerate(['"eval_accuracy"', '"block_start"', '"tracked_stats"', '"epoch_stop"'] * 3)]
BULK_SPOILERS = [
    b":::MLLOG {\"key\": \"x\", broken\n", b":::MLLOG [1, 2]\n", b":::MLLOG 12\n", b":::MLLOG\n",
    record_line("1", metadata="[]"), record_line("1", key="3"), record_line("1", key='""'),
    record_line("1", time_ms="true"), record_line("1", time_ms='"1"'), record_line("1", time_ms="1.5e300"),
    b":::MLLOG " + json.dumps({"key": "k", "time_ms": 1.0, "metadata": {}}).encode() + b"\n",  # no value
    b':::MLLOG {"key": "k", "time_ms": 1, "metadata": {}, "value": 1, "event_type": null, "namespace": 3}\n',
    record_line("18446744073709551616"), record_line("0.00012345678901234567890"), record_line("1" * 400),
    record_line("[" * 150 + "]" * 150), record_line("[" * 300 + "]" * 300), record_line("NaN"),
    record_line("\x1b[31m1\x1b[0m"), record_line("0.8").rstrip(b"\n") + record_line("0.9"),
    record_line("0.5", tail="\r\n"), record_line('"\\ud800"'), record_line("2").replace(b"2,", b"\xff,"),
    b"0: " + record_line("0.6"), b"framework says hello\n", b"\n", record_line("1", tail=" \t\n"),
]


@pytest.mark.parametrize("spoiler", BULK_SPOILERS)
def test_a_run_of_record_lines_read_in_bulk_is_read_as_line_by_line(tmp_path: Path, spoiler: bytes) -> None:
    """A run of clean record lines is decoded in bulk (mlcheck.read.record_runs); one line that
    the bulk path refuses leaves the run to the line-by-line path: the same items, line numbers
    and counts as the line reader either way, before, inside or after the run, with CRLF ends
    and with the last line lacking its end."""
    for where in (0, 5, len(CLEAN_RUN)):
        for crlf, last_end in ((False, True), (True, False)):
            lines = [line.replace(b"\n", b"\r\n") if crlf else line for line in CLEAN_RUN]
            lines.insert(where, spoiler)
            _assert_both_readers_read(tmp_path / "result_0.txt", lines, last_end, spoiler)


def _assert_both_readers_read(path: Path, lines: list[bytes], last_end: bool, spoiler: bytes) -> None:
    """The block reader and the line reader give the same items and statistics for ``lines``
    written to ``path`` (the last one without its end unless ``last_end``)."""
    text = b"".join(lines)
    path.write_bytes(text if last_end else text.rstrip(b"\r\n"))
    (blocks, block_stats), (expected, line_stats) = _block_and_line_readers(path)
    assert block_stats == line_stats, spoiler
    assert len(blocks) == len(expected), spoiler
    for got, want in zip(blocks, expected):
        assert same(tuple(got), tuple(want)) if isinstance(got, tuple) else got == want, (spoiler, got, want)


def test_the_bulk_path_reads_clean_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runs of clean lines around a bad one are still read in bulk (not only line by line)."""
    from mlcheck.read import record_runs, result_blocks

    taken: list[int] = []

    def counted(run: bytes, first_line: int) -> Any:
        events = record_runs.bulk_events(run, first_line)
        if events is not None:
            taken.append(first_line)
        return events

    monkeypatch.setattr(result_blocks, "bulk_events", counted)
    path = tmp_path / "result_0.txt"
    path.write_bytes(b"".join([*CLEAN_RUN, b"noise between\n", *CLEAN_RUN]))
    events = [item for item in read_mllog(str(path), keep_copies=True) if isinstance(item, tuple)]
    assert [event.line for event in events] == [*range(1, 13), *range(14, 26)]
    assert taken == [1, 14]
    taken.clear()  # records without event_type and namespace (TPU logs)
    bare = [b":::MLLOG " + json.dumps({"key": f"k{i % 3}", "time_ms": 1650000000000 + i, "metadata": {"lineno": i},
                                       "value": i if i % 2 else None}).encode() + b"\n" for i in range(8)]
    path.write_bytes(b"".join(bare))
    (blocks, block_stats), (expected, line_stats) = _block_and_line_readers(path)
    assert block_stats == line_stats and len(blocks) == len(expected) == 8
    assert all(same(tuple(got), tuple(want)) for got, want in zip(blocks, expected))
    assert taken == [1] and blocks[0].value is None and blocks[1].value == 1 and blocks[1].event_type is None
    taken.clear()  # without a value: the line path's MLC025 (the official parser crashes on it)
    path.write_bytes(b"".join(line.replace(b', "value": null', b"") for line in bare))
    (blocks, block_stats), (expected, line_stats) = _block_and_line_readers(path)
    assert block_stats == line_stats and [getattr(item, "code", None) for item in blocks].count("MLC025") == 4
    assert taken == [] and len(blocks) == len(expected) == 12


@pytest.mark.parametrize("keep", [2000, 2])
def test_a_run_made_from_batches_is_the_run_made_event_by_event(tmp_path: Path, keep: int,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """``check_log`` takes the events of bulk-read runs of lines as lists (``read_result_batches``):
    the run is the one made event by event, keys kept past ``Run.KEEP_PER_KEY`` included."""
    from mlcheck.model import Run
    from mlcheck.read.reader import read_result_batches
    from mlcheck.read.runs import iter_runs

    monkeypatch.setattr(Run, "KEEP_PER_KEY", keep)
    path = tmp_path / "result_0.txt"
    path.write_bytes(b"".join([b"noise first\n", *CLEAN_RUN, b":::MLLOG broken\n", *CLEAN_RUN, b"\n", *CLEAN_RUN]))
    batched: list[Any] = []
    one_by_one: list[Any] = []
    (from_batches,) = iter_runs(read_result_batches(str(path)), str(path), batched, True)
    (from_events,) = iter_runs(read_mllog(str(path), keep_copies=True), str(path), one_by_one, True)
    assert any(type(item) is list for item in read_result_batches(str(path)))  # (batches were read)
    assert batched == one_by_one and batched
    assert from_batches.key_counts == from_events.key_counts
    assert from_batches.evaluations == from_events.evaluations
    values = [e.value for e in from_events.evaluations]  # (past the keep: those above or below all before)
    assert values == ([0.0, 0.4, 0.8] * 3 if keep > 9 else [0.0, 0.4, 0.8])
    assert (from_batches.first_line, from_batches.last_line) == (from_events.first_line, from_events.last_line)
    assert [tuple(e) for e in from_batches.events] == [tuple(e) for e in from_events.events]


TAGGED_SPOILERS = [b"0: " + spoiler for spoiler in BULK_SPOILERS[:12]] + [
    b"1: " + record_line("0.6"), b"0: 0: " + record_line("0.6"), b"0:" + record_line("0.6"),
    b"[1,1]<stdout>:" + record_line("0.6"), b"2023-01-01 10:00:00 0: " + record_line("0.8"),
    b"0: \x1b[31m" + record_line("0.81"), b"0: " + record_line("18446744073709551616"),
    b"0: progress 10%\n", b"framework says hello\n", record_line("0.5"), b"+ srun --ntasks=8 python train.py\n",
]


@pytest.mark.parametrize("tag", [b"0: ", b"  3: ", b"[1,0]<stdout>:"])
@pytest.mark.parametrize("spoiler", TAGGED_SPOILERS)
def test_a_run_of_tagged_record_lines_read_in_bulk_is_read_as_line_by_line(
        tmp_path: Path, spoiler: bytes, tag: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of record lines behind the same rank tag (``  0: :::MLLOG ...``, srun's labels,
    mpirun's tags) is decoded in bulk once the tag and its job are known; another rank's line,
    a timestamp, colour or a record the bulk path refuses leave the lines to kept_tagged and
    feed: the same items, line numbers and counts as the line reader either way."""
    from mlcheck.read import record_runs, result_blocks

    tagged: list[int] = []

    def counted(run: bytes, first_line: int, skip: int = 0) -> Any:
        events = record_runs.bulk_events(run, first_line, skip)
        if events is not None and skip:
            tagged.append(first_line)
        return events

    monkeypatch.setattr(result_blocks, "bulk_events", counted)
    clean = [tag + line for line in CLEAN_RUN]
    for where in (1, 7, len(clean)):
        for crlf, last_end in ((False, True), (True, False), (False, False)):
            tagged.clear()
            lines = [line.replace(b"\n", b"\r\n") if crlf else line for line in clean]
            odd = spoiler.replace(b"0: ", tag, 1) if spoiler.startswith(b"0: ") else spoiler
            lines.insert(where, odd)
            _assert_both_readers_read(tmp_path / "result_0.txt", lines, last_end, spoiler)
            if where == 7 and not odd.startswith(tag + b":::MLLOG"):  # (a line of the run itself refuses it all)
                assert tagged[0] == 2  # (the first line makes the tag known: the lines after it are a run)


def test_a_stretch_counts_its_lines_that_are_not_blank_as_strip_decides() -> None:
    """StretchCounts.stretch (and squeezed_stretch, from the text in lower case without blanks) counts the lines that are not blank with one translate and one count:
    the number of lines whose ``strip()`` leaves something (bytes' whitespace: no \\x1c-\\x1f)."""
    from mlcheck.read.noise_counts import BLANKS, SQUEEZE, StretchCounts

    rng = random.Random(7)
    alphabet = [b" ", b"\t", b"\r", b"\x0b", b"\x0c", b"\n", b"\n", b"a", b"R", b"\x1c", b"\xff", b"\x00"]
    for _ in range(5000):
        text = b"".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 30)))
        lines = text.split(b"\n")[:-1] if text.endswith(b"\n") else text.split(b"\n")
        expected = (len(lines), sum(1 for line in lines if line.strip()), text.count(b"\r\n"))
        counts, squeezed = StretchCounts(), StretchCounts()
        counts.stretch(text)
        squeezed.squeezed_stretch(text, text.translate(SQUEEZE, BLANKS), True)
        assert (counts.lines, counts.noise, counts.crlf) == expected, text
        assert (squeezed.lines, squeezed.noise, squeezed.crlf) == expected, text


def test_the_launcher_lines_of_a_stretch_are_those_the_pattern_matches() -> None:
    """launcher_lines looks at an occurrence of a launcher's name only where a blank or a colon
    follows it (as LAUNCH_LINE needs): on random lines of launcher names, paths, prompts,
    timestamps, options and look-alikes (running, run_and_time.sh), the lines it gives are the
    lines LAUNCH_LINE matches."""
    from mlcheck.read.job_starts import LAUNCH_LINE
    from mlcheck.read.noise_counts import launcher_lines

    rng = random.Random(3)
    words = [b"mpirun", b"MPIRUN", b"srun", b"SRun", b"poprun", b"torchrun", b"horovodrun", b"deepspeed",
             b"jsrun", b"aprun", b"mpiexec", b"running", b"run_and_time.sh", b"/usr/bin/", b"+ ", b"$ ",
             b"12:00:01 ", b" ", b"\t", b"-np", b" -", b":", b" : launch", b"launching", b"x", b"rUn", b"\r"]
    launchers = 0
    for _ in range(20_000):
        lines = [b"".join(rng.choice(words) for _ in range(rng.randrange(1, 6))) + b"\n" for _ in range(3)]
        text = b"".join(lines)
        expected, start = [], 0
        for line in lines:
            if LAUNCH_LINE.match(line):
                expected.append((start, start + len(line)))
            start += len(line)
        assert launcher_lines(text, text.lower()) == expected, text
        launchers += len(expected)
    assert launchers > 1000


def test_a_stretch_with_a_launch_line_passes_the_squeezed_prefilter() -> None:
    """may_hold_a_launch_line, the block reader's test of a squeezed stretch (lower case, blanks
    deleted) before it looks for launcher lines one by one, is true for every stretch that holds
    a line LAUNCH_LINE matches (random lines as above), and false for framework output that only
    names ``run`` (``running``, ``run_and_time.sh``, ``srun_output``)."""
    from mlcheck.read.job_starts import LAUNCH_LINE, may_hold_a_launch_line
    from mlcheck.read.noise_counts import BLANKS, SQUEEZE

    rng = random.Random(5)
    words = [b"mpirun", b"MPIRUN", b"srun", b"SRun", b"poprun", b"torchrun", b"deepspeed", b"DeepSpeed",
             b"mpiexec", b"MPIEXEC", b"running", b"run_and_time.sh", b"/usr/bin/", b"+ ", b"12:00:01 ",
             b" ", b"\t", b"\x0b", b"-np", b" -", b":", b" : launch", b"\t:\tLAUNCH", b"x", b"\r"]
    launchers = 0
    for _ in range(20_000):
        text = b"".join(b"".join(rng.choice(words) for _ in range(rng.randrange(1, 6))) + b"\n" for _ in range(3))
        found = [m for m in map(LAUNCH_LINE.match, text.splitlines(keepends=True)) if m is not None]
        if any(not m.group(0).rstrip().lower().endswith(b"run_and_time.sh") for m in found):
            launchers += 1  # (the run script run as a command is looked for in raw output only)
            assert may_hold_a_launch_line(text.translate(SQUEEZE, BLANKS)), text
    assert launchers > 1000
    for quiet in (b"running step 5\n", b"see run_and_time.sh\n", b"srun_output: done\n", b"mpiexec.hydra\n"):
        assert not may_hold_a_launch_line(quiet.translate(SQUEEZE, BLANKS))


def test_a_bare_rank_tag_or_label_is_read_as_any_prefix_is() -> None:
    """read_prefix reads a bare srun label (`` 12: ``) or mpirun tag (``[1,0]<stdout>:``) by one
    match: the same Prefix as read_parts, which reads any text, on random texts of tags, labels,
    timestamps, digits (Unicode ones too) and leftovers."""
    from mlcheck.read.rawlog import read_parts, read_prefix

    rng = random.Random(5)
    parts = [" ", "  ", "1", "12", "\u0663", ":", ": ", "[", "]", ",", "<stdout>", "<stderr>", "[1,0]<stdout>:",
             "[2,3]<stderr>:", "2023-01-01 10:00:00 ", "10:00:00 ", "x", "\t"]
    bare = 0
    for _ in range(30_000):
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(1, 5)))
        assert read_prefix(text) == read_parts(text), text
        bare += read_prefix(text).source is not None and not read_prefix(text).extra_text
    assert read_prefix(" 12: ") == read_parts(" 12: ") and read_prefix("[1,0]<stdout>:").stream == "stdout"
    assert bare > 1000
