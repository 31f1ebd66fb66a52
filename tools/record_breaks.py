"""Damage to the text and the fields of single records, for ``tools/differential.py``.

The changes of ``differential.changes`` work key by key (delete, repeat, null, move...); these
work on the first, the middle and the last record of a file, whatever its key: the marker written
otherwise (no space after it, two spaces, lower case, a tab or spaces before it), the JSON broken
(single quotes, a trailing comma, the record split over two lines), a field missing, mistyped or
renamed (``key``, ``time_ms``, ``event_type``, ``namespace``, ``metadata``, an extra field, a key
with a letter outside ASCII, a key spelled wrong), the value made ``true``, a list, an object or
NaN, the time one millisecond before the record before; and on the file, two middle records
swapped, every line in reverse order, ``run_stop``'s status written otherwise.
"""

from __future__ import annotations

import json
from typing import Callable, Iterator

MARKER = ":::MLLOG "
Edit = Callable[[list[str]], "list[str] | None"]
Change = tuple[str, Edit]


def read_record(line: str) -> dict | None:
    at = line.find(MARKER)
    if at < 0:
        return None
    try:
        record = json.loads(line[at + len(MARKER):])
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def with_record(line: str, record: dict) -> str:
    return line[: line.find(MARKER)] + MARKER + json.dumps(record) + "\n"


def _line_edit(index: int, edit: Callable[[str], str]) -> Edit:
    return lambda ls: ls[:index] + [edit(ls[index])] + ls[index + 1:]


def _record_edit(index: int, edit: Callable[[dict], dict]) -> Edit:
    def changed(ls: list[str]) -> list[str] | None:
        record = read_record(ls[index])
        if record is None:
            return None
        return ls[:index] + [with_record(ls[index], edit(dict(record)))] + ls[index + 1:]
    return changed


def _without(field: str) -> Callable[[dict], dict]:
    return lambda r: {k: v for k, v in r.items() if k != field}


def _text_changes(index: int) -> Iterator[Change]:
    yield "no space after the marker", _line_edit(index, lambda l: l.replace(MARKER, ":::MLLOG", 1))
    yield "two spaces after the marker", _line_edit(index, lambda l: l.replace(MARKER, ":::MLLOG  ", 1))
    yield "the marker in lower case", _line_edit(index, lambda l: l.replace(":::MLLOG", ":::mllog", 1))
    yield "a tab before the marker", _line_edit(index, lambda l: "\t" + l)
    yield "spaces before the marker", _line_edit(index, lambda l: "   " + l)
    yield "single quotes", _line_edit(index, lambda l: l.replace('"', "'"))
    yield "a trailing comma", _line_edit(index, lambda l: l.rstrip("\r\n").rstrip("}") + ",}\n")
    yield "split over two lines", _line_edit(index, lambda l: l[: len(l) // 2] + "\n" + l[len(l) // 2:])


def _field_changes(index: int) -> Iterator[Change]:
    yield "the key spelled wrong", _record_edit(index, lambda r: {**r, "key": f"{r.get('key')}x"})
    yield "a key outside ASCII", _record_edit(index, lambda r: {**r, "key": f"{r.get('key')}\u00e9"})
    yield "the key null", _record_edit(index, lambda r: {**r, "key": None})
    yield "time_ms a string", _record_edit(index, lambda r: {**r, "time_ms": str(r.get("time_ms"))})
    yield "time_ms with a fraction", _record_edit(
        index, lambda r: {**r, "time_ms": r["time_ms"] + 0.5 if isinstance(r.get("time_ms"), (int, float)) else 0.5})
    yield "the value true", _record_edit(index, lambda r: {**r, "value": True})
    yield "the value in a list", _record_edit(index, lambda r: {**r, "value": [r.get("value")]})
    yield "the value in an object", _record_edit(index, lambda r: {**r, "value": {"v": r.get("value")}})
    yield "the value NaN", _record_edit(index, lambda r: {**r, "value": float("nan")})
    yield "another event_type", _record_edit(index, lambda r: {
        **r, "event_type": "POINT_IN_TIME" if r.get("event_type") == "INTERVAL_START" else "INTERVAL_START"})
    yield "metadata a list", _record_edit(index, lambda r: {**r, "metadata": [r.get("metadata")]})
    yield "metadata null", _record_edit(index, lambda r: {**r, "metadata": None})
    yield "namespace x", _record_edit(index, lambda r: {**r, "namespace": "x"})
    yield "an extra field", _record_edit(index, lambda r: {**r, "extra": 1})
    for field in ("event_type", "namespace", "metadata", "time_ms"):
        yield f"no {field}", _record_edit(index, _without(field))


def _earlier_than(index: int, before: int) -> Edit:
    def changed(ls: list[str]) -> list[str] | None:
        previous = read_record(ls[before]) or {}
        if not isinstance(previous.get("time_ms"), (int, float)) or isinstance(previous.get("time_ms"), bool):
            return None
        return _record_edit(index, lambda r: {**r, "time_ms": previous["time_ms"] - 1})(ls)
    return changed


def _status(status: str) -> Edit:
    def changed(ls: list[str]) -> list[str] | None:
        for index in range(len(ls) - 1, -1, -1):
            record = read_record(ls[index])
            if record is not None and record.get("key") == "run_stop":
                metadata = record.get("metadata")
                metadata = {**metadata, "status": status} if isinstance(metadata, dict) else {"status": status}
                return ls[:index] + [with_record(ls[index], {**record, "metadata": metadata})] + ls[index + 1:]
        return None
    return changed


def record_changes(lines: list[str]) -> Iterator[Change]:
    """The changes of the first, the middle and the last record of ``lines``, and of the file."""
    records = [i for i, line in enumerate(lines) if read_record(line) is not None]
    if len(records) < 6:
        return
    middle = len(records) // 2
    for place, at in (("first", 0), ("middle", middle), ("last", len(records) - 1)):
        index = records[at]
        for label, change in (*_text_changes(index), *_field_changes(index)):
            yield f"{place} record: {label}", change
        if at:
            yield f"{place} record: a millisecond before the record before", _earlier_than(index, records[at - 1])
    first, second = records[middle], records[middle + 1]
    yield "two middle records swapped", lambda ls: (ls[:first] + [ls[second]] + ls[first + 1: second] + [ls[first]]
                                                    + ls[second + 1:])
    yield "every line in reverse order", lambda ls: list(reversed(ls))
    for status in ("aborted", "SUCCESS", "", "success "):
        yield f"run_stop status {status!r}", _status(status)
