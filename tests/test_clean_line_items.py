"""The line reader's orjson path for a line that is one record (``clean_line_items``) gives what
its full path gives: the same findings (a record of the wrong shape: the power logs'
``"metadata": ""``), the same event and the same statistics, or leaves the line to it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mlcheck.read import fast_json
from mlcheck.read.line_reader import LineReader

from test_lean_reading import TRICKY_VALUES, record_line, same

needs_orjson = pytest.mark.skipif(fast_json.LOADS is None, reason="orjson is not installed")

SHAPES = [
    record_line("1", metadata='""'), record_line("1", metadata="[]"), record_line("1", metadata="null"),
    record_line("1", metadata="7"), record_line("1", metadata='"x"', tail="\r\n"),
    record_line("1", key="3"), record_line("1", key='""'), record_line("1", key="null"),
    record_line("1", time_ms='"now"'), record_line("1", time_ms="true"), record_line("1", time_ms="1e400"),
    record_line("1", time_ms="NaN"), record_line("1", metadata='""', time_ms="1" * 400),
    b':::MLLOG {"key": "a", "time_ms": 1}\n', b':::MLLOG {"key": "a", "metadata": {}}\n',
    b':::MLLOG {"time_ms": 1, "metadata": {}}\n', b":::MLLOG [1, 2]\n", b":::MLLOG 3\n", b":::MLLOG null\n",
    b':::MLLOG "text"\n', b":::MLLOG {}\n", b':::MLLOG   {"key": "a", "time_ms": 1, "metadata": ""}  \n',
    b':::MLLOG \x1f{"key": "a", "time_ms": 1, "metadata": ""}\n',
    b':::MLLOG {"key": "a", "time_ms": 1, "metadata": ""} trailing\n',
    b':::MLLOG {"key": "a", "time_ms": 1, "metadata": ""}',  # (the last line, without its end)
    b':::MLLOG {"key": "a", "time_ms": 1, "metadata": "", "value": ":::MLLOG"}\n',
    b':::MLLOG {"key": "\xe9", "time_ms": 1, "metadata": ""}\n', b':::MLLOG {"key": "a\x1b[0m", "time_ms": 1}\n',
    *(record_line(value, metadata='""') for value in TRICKY_VALUES),
    *(record_line(value) for value in TRICKY_VALUES),
]


def _fed(path: str, lines: list[bytes], orjson_path: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[object], object]:
    reader = LineReader(path, keep_copies=True)
    with monkeypatch.context() as patch:
        if not orjson_path:
            patch.setattr(reader, "clean_line_items", lambda line: None)
        items = [item for raw in lines for item in reader.feed(raw)]
    items.extend(reader.finish())
    return items, reader.stats


@needs_orjson
@pytest.mark.parametrize("line", SHAPES)
def test_a_record_line_gives_the_full_paths_items(line: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, fast_stats = _fed("result_0.txt", [line], True, monkeypatch)
    full, full_stats = _fed("result_0.txt", [line], False, monkeypatch)
    assert fast_stats == full_stats
    assert len(fast) == len(full)
    for got, expected in zip(fast, full):
        assert same(tuple(got), tuple(expected)) if isinstance(got, tuple) else got == expected


@needs_orjson
def test_a_power_log_of_records_without_metadata_reads_each_as_before(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A node log whose records carry ``"metadata": ""`` (as some 4.0 power logs do): one MLC008
    and one event (empty metadata) per line, at its line; mixed with other lines at random."""
    rng = random.Random(5)
    lines = [rng.choice(SHAPES[:3] + [record_line("0.5"), b"noise\n", b"\n"]) for _ in range(300)]
    fast, fast_stats = _fed(str(tmp_path / "node_0.txt"), lines, True, monkeypatch)
    full, full_stats = _fed(str(tmp_path / "node_0.txt"), lines, False, monkeypatch)
    assert fast_stats == full_stats
    assert [(type(i).__name__, getattr(i, "code", None), getattr(i, "line", None)) for i in fast] == \
        [(type(i).__name__, getattr(i, "code", None), getattr(i, "line", None)) for i in full]
    assert sum(getattr(i, "code", None) == "MLC008" for i in fast) == sum(
        line.endswith(b'"metadata": ""}\n') or line.endswith(b'"metadata": []}\n')
        or line.endswith(b'"metadata": null}\n') for line in lines)
