"""A run of clean record lines decoded in bulk: the block reader's path for the bulk of a result file.

Most lines of most result files are records, one per line, one after the other. Such a run of
lines is found with one pattern search, split with ``bytes.split``, and each record decoded by
orjson and made an :class:`~mlcheck.model.Event` through ``map`` and ``zip``: no Python step per
record. It is only taken where it gives, event for event, what the block reader's line-by-line path
(:func:`mlcheck.read.fast_json.fast_body_event` on each line) gives: every line starts with the
marker and a space (the official parser's token) and holds no other marker, no colour code, no
integer orjson would turn into a float, no record longer than 512 bytes with more than 100
brackets, every record an object with ``key``, ``time_ms`` and ``metadata`` of the right types
and a ``value`` (``event_type`` and ``namespace`` may be missing: None, as the line path reads
them).
Anything else (one bad record is enough) leaves the run to the line-by-line path, which reads it
as before and says what is wrong (``tests/test_lean_reading.py`` holds the two to the same items).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache, partial
from operator import itemgetter, methodcaller
from typing import Callable, Iterable, Iterator, Sequence

from mlcheck.model import Event
from mlcheck.read.fast_json import (BRACKETS_ANY_DEPTH, DECODE_ERROR, DIGITS_AS_ZERO, LOADS, MAX_BRACKETS,
                                    NINETEEN_DIGITS, has_long_integer)
from mlcheck.read.line_reader import MARKER_BYTES, MAX_LINE_BYTES, TOKEN_BYTES
from mlcheck.read.record_shape import as_checked_metadata

_KEY, _VALUE, _METADATA, _TIME, _EVENT_TYPE, _NAMESPACE = (
    itemgetter(field) for field in ("key", "value", "metadata", "time_ms", "event_type", "namespace"))
_EVENT_TYPE_OR_NONE, _NAMESPACE_OR_NONE = (methodcaller("get", field) for field in ("event_type", "namespace"))
_EVENT = partial(tuple.__new__, Event)
_NUMBER_TYPES = frozenset({int, float})
_JOIN = "".join
Batch = list[Event]
"""The events of one run of record lines read in bulk, in order."""
MIN_LINES = 6
"""Fewer record lines in a row are read line by line: the bulk path's fixed cost (about 30 calls
in C) makes it the slower below about six lines (measured on runs of 2-20 lines between noise)."""


def record_run_end(chunk: bytes, at: int, head: bytes = MARKER_BYTES) -> int:
    """Where the run of lines that start with ``head`` (the marker, or a rank tag and the marker),
    from the line starting at ``at``, ends: the index of its last line end (the chunk's size when
    the last line has none)."""
    found = _line_end_before_another(head).search(chunk, at)
    return len(chunk) if found is None else found.start()


@lru_cache(maxsize=256)
def _line_end_before_another(head: bytes) -> re.Pattern[bytes]:
    """The line end after which the next line does not start with ``head`` (or the file ends)."""
    return re.compile(rb"\n(?!" + re.escape(head) + rb")")


def bulk_events(run: bytes, first_line: int, tag: int = 0) -> list[Event] | None:
    """The events of ``run`` (whole record lines without the last line end), the first on
    physical line ``first_line``; None when the run must be read line by line. With ``tag``, each
    line starts with the same rank tag of that many bytes before the marker."""
    if LOADS is None:
        return None
    lines = run.split(b"\n")
    if len(lines) < MIN_LINES or run.count(TOKEN_BYTES) != len(lines) or b"\x1b" in run:
        return None
    return events_of_lines(lines, run, range(first_line, first_line + len(lines)), tag)


def events_of_lines(lines: list[bytes], text: bytes, numbers: Iterable[int], tag: int = 0) -> list[Event] | None:
    """The events of record ``lines`` (each the marker, after a rank tag of ``tag`` bytes, and
    one record; no colour code, no other marker: the caller has seen to it), on physical lines
    ``numbers``; ``text``: the lines, joined or with lines without a marker between them (where
    a long integer is looked for). None when they must be read line by line."""
    fields = _fields(lines, text, tag)
    if fields is None or not _all_of(fields[2], dict):
        return None
    return _events(fields, numbers)


def events_without_metadata(lines: list[bytes], text: bytes,
                            numbers: Sequence[int]) -> tuple[list[Event], int, int | None] | None:
    """:func:`events_of_lines` of record lines whose ``metadata`` may be anything but an object
    (``""`` in some power logs), how many records are so and the line of the first: the line
    path makes each such record an MLC008 finding and its event with the metadata the official
    checks see in it (:func:`~mlcheck.read.record_shape.as_checked_metadata`), which this gives, and
    the findings' count instead of the findings (what a power log's reader keeps)."""
    fields = _fields(lines, text, 0)
    if fields is None:
        return None
    metadata = fields[2]
    if _all_of(metadata, dict):
        return _events(fields, numbers), 0, None
    objects: list[object] = [item if type(item) is dict else as_checked_metadata(item) for item in metadata]
    replaced = [number for item, kept, number in zip(metadata, objects, numbers) if item is not kept]
    return _events(fields[:2] + (objects,) + fields[3:], numbers), len(replaced), replaced[0]


_Fields = tuple[list[object], list[object], list[object], list[object], list[object], list[object]]


def _fields(lines: list[bytes], text: bytes, tag: int) -> _Fields | None:
    """The keys, values, metadata, times, event types and namespaces of record ``lines``, each
    field checked as the line path checks it (metadata aside); None when they must be read line
    by line."""
    if LOADS is None:
        return None
    longest = max(map(len, lines))
    if longest + 1 >= MAX_LINE_BYTES or (longest > BRACKETS_ANY_DEPTH and _deep(lines)) or not text.isascii():
        return None  # (not ASCII: a result file's text is read as latin-1, a console's as UTF-8)
    digits = text.translate(DIGITS_AS_ZERO)
    if NINETEEN_DIGITS in digits and has_long_integer(text, digits):
        return None
    try:
        records = list(map(LOADS, map(_body_after(tag), lines)))
        keys, metadata, times = list(map(_KEY, records)), list(map(_METADATA, records)), list(map(_TIME, records))
    except (DECODE_ERROR, KeyError, TypeError):  # (TypeError: a record that is not an object)
        return None
    try:
        values = list(map(_VALUE, records))
    except KeyError:  # (no value: the line path's MLC025)
        return None
    try:
        event_types, namespaces = list(map(_EVENT_TYPE, records)), list(map(_NAMESPACE, records))
    except KeyError:  # (a field a record may lack, None then as well_formed_event reads it: TPU logs)
        event_types, namespaces = list(map(_EVENT_TYPE_OR_NONE, records)), list(map(_NAMESPACE_OR_NONE, records))
    if not _all_text(keys) or not all(keys):
        return None
    time_types = set(map(type, times))
    if not time_types <= _NUMBER_TYPES or (float in time_types and not all(map(math.isfinite, times))):
        return None
    return keys, values, metadata, times, event_types, namespaces


def _events(fields: _Fields, numbers: Iterable[int]) -> list[Event]:
    keys, values, metadata, times, event_types, namespaces = fields
    return list(map(_EVENT, zip(keys, values, metadata, map(float, times), numbers,  # type: ignore[arg-type]
                                _texts(event_types), _texts(namespaces))))


@lru_cache(maxsize=256)
def _body_after(tag: int) -> Callable[[bytes], bytes]:
    """The record of a line after a rank tag of ``tag`` bytes and the marker."""
    return itemgetter(slice(tag + len(MARKER_BYTES), None))


def _all_of(values: Sequence[object], kind: type) -> bool:
    return set(map(type, values)) == {kind}


def _all_text(values: Sequence[object]) -> bool:
    """Whether every value is a string (orjson makes no subclass of str): ``join`` refuses any
    other in C, four times as fast as the set of their types."""
    try:
        _JOIN(values)  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


def _texts(values: Sequence[object]) -> Iterator[str | None] | Sequence[object]:
    """The values that are strings, None for the others (as the line path keeps them)."""
    if _all_text(values):
        return values
    return map(_text_or_none, values)


def _text_or_none(value: object) -> str | None:
    return value if type(value) is str else None


def _deep(lines: list[bytes]) -> bool:
    """Whether a line longer than :data:`BRACKETS_ANY_DEPTH` holds more than
    :data:`MAX_BRACKETS` brackets (``json`` may refuse its nesting where orjson reads it)."""
    return any(line.count(b"[") + line.count(b"{") > MAX_BRACKETS
               for line in lines if len(line) > BRACKETS_ANY_DEPTH)

