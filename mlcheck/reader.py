"""Stream ``:::MLLOG`` records out of a log file, line by line, turning every problem into a finding.

The reader never raises on bad input: an unreadable file, a malformed line, a record of the wrong
shape or a file that ends mid-record each become a :class:`~mlcheck.model.Finding` with the physical
1-based line, and reading goes on. Memory does not depend on the size of the file.
"""

from __future__ import annotations

import gzip
import json
import math
import sys
import zlib
from typing import IO, Iterator, Union

from mlcheck.model import Event, Finding, Severity
from mlcheck.rules import reading as rules

MARKER = ":::MLLOG"
_MARKER_BYTES = MARKER.encode()
_GZIP_MAGIC = b"\x1f\x8b"
_DECODER = json.JSONDecoder()

LogItem = Union[Event, Finding]


def open_log(path: str) -> IO[bytes]:
    """Open a log for binary reading: ``-`` is stdin, gzip is recognised by its magic bytes."""
    if path == "-":
        return sys.stdin.buffer
    handle = open(path, "rb")
    if handle.peek(2)[:2] == _GZIP_MAGIC:
        handle.close()
        return gzip.GzipFile(path, "rb")  # type: ignore[return-value]
    return handle


def read_mllog(path: str, display: str | None = None) -> Iterator[LogItem]:
    """Yield the events of a log in order, interleaved with findings about reading problems.

    ``display`` is the path written into findings (the path as the user gave it).
    """
    shown = display or path
    try:
        stream = open_log(path)
    except OSError as error:
        yield rules.FILE_UNREADABLE.at(shown, None, f"cannot open the log: {error.strerror or error}; "
                      "check the path and its permissions")
        return
    try:
        yield from _read_stream(stream, shown)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


def _read_stream(stream: IO[bytes], path: str) -> Iterator[LogItem]:
    line_no = 0
    records = 0
    try:
        for raw in stream:
            line_no += 1
            if _MARKER_BYTES not in raw:
                continue
            # A line without its newline can only be the last one: a record cut there is truncated.
            for item in _read_line(raw.rstrip(b"\r\n"), line_no, path, not raw.endswith(b"\n")):
                if isinstance(item, Event):
                    records += 1
                yield item
    except (OSError, EOFError, zlib.error) as error:
        yield rules.FILE_UNREADABLE.at(path, line_no + 1,
                      f"reading stopped after line {line_no}: {error}; the file (or its gzip archive) "
                      "is damaged or truncated")
    if line_no == 0:
        yield rules.NO_RECORDS.at(path, None, "the log is empty; expected :::MLLOG records")
    elif records == 0:
        yield rules.NO_RECORDS.at(path, None,
                      f"no :::MLLOG record found in {line_no} lines; is this an MLPerf log?")


def _read_line(raw: bytes, line_no: int, path: str, unterminated: bool) -> Iterator[LogItem]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        text = raw.decode("utf-8", errors="replace")
        yield rules.INVALID_UTF8.at(path, line_no,
                      f"line is not valid UTF-8 (byte {error.start + 1}); undecodable bytes were "
                      "replaced with U+FFFD")
    segments = text.split(MARKER)
    prefix_len = len(segments[0])
    if len(segments) > 2:
        yield rules.GLUED_RECORDS.at(path, line_no,
                      f"{len(segments) - 1} :::MLLOG records share this line; each was read, but the "
                      "official parser keeps only the last one. Write one record per line")
    column = prefix_len + len(MARKER)
    for number, segment in enumerate(segments[1:], start=1):
        is_last_segment = number == len(segments) - 1
        yield from _read_record(segment, line_no, column, path,
                                truncated=is_last_segment and unterminated)
        column += len(segment) + len(MARKER)


def _read_record(segment: str, line_no: int, column: int, path: str,
                 truncated: bool) -> Iterator[LogItem]:
    body = segment.lstrip()
    offset = column + (len(segment) - len(body)) + 1
    try:
        record, _end = _DECODER.raw_decode(body)
    except json.JSONDecodeError as error:
        if truncated:
            yield rules.TRUNCATED_RECORD.at(path, line_no,
                          "the file ends in the middle of this record (the job was probably killed "
                          "while writing); the run has no complete end")
        else:
            snippet = body[:60] + ("…" if len(body) > 60 else "")
            yield rules.INVALID_JSON.at(path, line_no,
                          f"invalid JSON at column {offset + error.pos}: {error.msg} in {snippet!r}")
        return
    yield from _validate_record(record, line_no, path)


def _validate_record(record: object, line_no: int, path: str) -> Iterator[LogItem]:
    if not isinstance(record, dict):
        yield rules.RECORD_NOT_OBJECT.at(path, line_no,
                      f"the record is a JSON {_json_type(record)}, not an object with key, value, "
                      "time_ms and metadata")
        return
    key = record.get("key")
    if not isinstance(key, str) or not key:
        shown = "missing" if "key" not in record else f"{_json_type(key)} {key!r}"
        yield rules.RECORD_KEY_INVALID.at(path, line_no, f"'key' is {shown}; expected a non-empty string")
        return
    time_ms = record.get("time_ms")
    if isinstance(time_ms, bool) or not isinstance(time_ms, (int, float)) or not math.isfinite(time_ms):
        shown = "missing" if "time_ms" not in record else f"{_json_type(time_ms)} {time_ms!r}"
        yield rules.RECORD_TIME_INVALID.at(path, line_no,
                      f"'time_ms' of {key} is {shown}; expected milliseconds since the epoch as a number")
        return
    metadata = record.get("metadata")
    if not isinstance(metadata, dict):
        shown = "missing" if "metadata" not in record else f"a JSON {_json_type(metadata)}"
        yield rules.RECORD_METADATA_INVALID.at(path, line_no,
                      f"'metadata' of {key} is {shown}; expected an object (the record is kept with "
                      "empty metadata, the official checker crashes on it)")
        metadata = {}
    event_type = record.get("event_type")
    namespace = record.get("namespace")
    yield Event(key=key, value=record.get("value"), metadata=metadata, time_ms=float(time_ms),
                line=line_no, event_type=event_type if isinstance(event_type, str) else None,
                namespace=namespace if isinstance(namespace, str) else None)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"
