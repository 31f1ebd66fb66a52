"""The shape of one ``:::MLLOG`` record: the JSON object must carry a key, a time and metadata.

Each problem becomes a finding at the record's physical line (MLC005-MLC008); a record that passes
becomes an :class:`~mlcheck.model.Event`.
"""

from __future__ import annotations

import json
import math
from typing import Iterator, Union

from mlcheck.model import Event, Finding
from mlcheck.read.rawlog import TAG
from mlcheck.read import raw_output_rules as raw_output
from mlcheck.read import reading_rules as rules

_MARKER = ":::MLLOG"
_DECODER = json.JSONDecoder()


_new_event = tuple.__new__


def well_formed_event(record: object, line_no: int) -> Event | None:
    """The event of a record that has every field of the right type, else None (then
    :func:`validate_record` says what is wrong). The reader's fast path for clean logs."""
    if type(record) is not dict:
        return None
    key, time_ms, metadata = record.get("key"), record.get("time_ms"), record.get("metadata")
    if type(key) is not str or not key or type(metadata) is not dict:
        return None
    if type(time_ms) is not int and not (type(time_ms) is float and math.isfinite(time_ms)):
        return None
    event_type, namespace = record.get("event_type"), record.get("namespace")
    # Positional and through tuple.__new__: this runs once per record of every log.
    return _new_event(Event, (key, record.get("value"), metadata, float(time_ms), line_no,
                              event_type if type(event_type) is str else None,
                              namespace if type(namespace) is str else None))


def validate_record(record: object, line_no: int, path: str) -> Iterator[Union[Event, Finding]]:
    """The event of a decoded record, or the findings that say why it is not one."""
    if not isinstance(record, dict):
        yield rules.RECORD_NOT_OBJECT.at(path, line_no,
                      f"the record is a JSON {_json_type(record)}, not an object with key, value, "
                      "time_ms and metadata")
        return
    key = record.get("key")
    if not isinstance(key, str) or not key:
        shown = "missing" if "key" not in record else _described(key)
        yield rules.RECORD_KEY_INVALID.at(path, line_no, f"'key' is {shown}; expected a non-empty string")
        return
    time_ms = record.get("time_ms")
    if isinstance(time_ms, bool) or not isinstance(time_ms, (int, float)) or not math.isfinite(time_ms):
        shown = "missing" if "time_ms" not in record else _described(time_ms)
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


def undecodable_record(path: str, line_no: int, body: str, column: int,
                       error: ValueError | RecursionError, truncated: bool,
                       raw: bool) -> Finding:
    """Why the JSON of a record (``body``, starting at 0-based ``column`` of its line) could not
    be decoded: nested too deeply, a number too long, cut by the end of the file, cut in raw
    output (``raw``: the output goes on after it), or malformed."""
    if isinstance(error, RecursionError):
        return rules.INVALID_JSON.at(path, line_no,
                      "invalid JSON: the record nests arrays or objects too deeply to be read "
                      f"(column {column + 1}); a record holds a flat value")
    if not isinstance(error, json.JSONDecodeError):  # Python's limit on the digits of an integer
        return rules.INVALID_JSON.at(path, line_no,
                      f"unreadable JSON (column {column + 1}): {str(error).split(';')[0]}; a "
                      "record holds numbers of ordinary size")
    if truncated:
        return rules.TRUNCATED_RECORD.at(path, line_no,
                      "the file ends in the middle of this record (the job was probably killed "
                      "while writing); the run has no complete end")
    if raw and _looks_cut(body, error):
        return raw_output.RECORD_CUT.at(path, line_no,
                      "this record is cut (the process stopped while writing it) and the output "
                      "goes on after it; look at the launcher's lines that follow")
    snippet = body[:60] + ("…" if len(body) > 60 else "")
    where = f"column {column + 1 + error.pos}"
    what = f"{error.msg} {where}" if error.msg.endswith(" at") else f"{error.msg} at {where}"
    return rules.INVALID_JSON.at(path, line_no, f"invalid JSON: {what} in {snippet!r}")


def _looks_cut(body: str, error: json.JSONDecodeError) -> bool:
    """A record that stops before its JSON is complete (rather than one that is malformed)."""
    return (error.pos >= len(body.rstrip()) or error.msg.startswith("Unterminated string")
            or TAG.search(body) is not None)


def long_line_finding(path: str, line_no: int, length: int, limit: int) -> Finding:
    """MLC014 for a physical line of ``length`` bytes that was skipped (over ``limit``)."""
    return rules.LINE_TOO_LONG.at(
        path, line_no,
        f"this line is {length:,} bytes long ({length / 2**20:.1f} MiB; mlcheck reads lines of "
        f"up to {limit // 2**20} MiB); it was skipped and any :::MLLOG record on it was "
        "not read. A log line this long is not a record: look for output written without "
        "line ends")


def _described(value: object) -> str:
    """``null``, ``string '12'``, ``number nan``: the JSON type of a value, and the value."""
    return "null" if value is None else f"{_json_type(value)} {value!r}"


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


def split_at_markers(text: str) -> list[str]:
    """``text.split(":::MLLOG")``, except at a marker inside the JSON of the record before it (a
    value that quotes ``:::MLLOG``): the text before the first record, then one part per record."""
    start = text.find(_MARKER)
    if start < 0:
        return [text]
    parts = [text[:start]]
    while True:
        body = start + len(_MARKER)
        following = text.find(_MARKER, body)
        if following >= 0:
            stripped = text[body:].lstrip()
            try:
                _record, end = _DECODER.raw_decode(stripped)
            except (ValueError, RecursionError):
                end = -1
            json_end = len(text) - len(stripped) + end
            if end >= 0 and json_end > following:
                following = text.find(_MARKER, json_end)
        if following < 0:
            parts.append(text[body:])
            return parts
        parts.append(text[body:following])
        start = following
