"""The shape of one ``:::MLLOG`` record: the JSON object must carry a key, a time and metadata.

Each problem becomes a finding at the record's physical line (MLC005-MLC008); a record that passes
becomes an :class:`~mlcheck.model.Event`.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Iterator, Union

from mlcheck.model import Event, Finding, Severity
from mlcheck.read.cut_records import OTHER_LINE_START
from mlcheck.read.job_starts import JOB_END
from mlcheck.read.json_depth import within_limit
from mlcheck.read.long_lines import LongLine
from mlcheck.read.official_view import float_time_finding, keyless_refusals, official_float, shown_name
from mlcheck.read.rawlog import TAG
from mlcheck.read import raw_output_rules as raw_output
from mlcheck.read import reading_rules as rules

_MARKER = ":::MLLOG"
_DECODER = json.JSONDecoder()

FLOAT_DIGITS = 308
"""The most digits of an integer that a float holds (1.8e308): a longer one is not a number here."""
_KEY_NAMED = re.compile(r'"key"\s*:\s*"([^"\\\n]{1,120})"')
_LONG_DIGITS = re.compile(r"\d{%d}" % (FLOAT_DIGITS + 1))
_PYTHON_DIGITS = 4300
"""Python's own limit on the digits of an int (a longer one is MLC003, as for json.loads)."""
_replaced = [0]


def _bounded_int(text: str) -> int | float:
    digits = len(text) - (text[0] == "-")
    if digits <= FLOAT_DIGITS or digits > _PYTHON_DIGITS:
        return int(text)  # (over Python's limit this raises the ValueError json.loads raises)
    _replaced[0] += 1
    return -math.inf if text[0] == "-" else math.inf


_BOUNDED_DECODER = json.JSONDecoder(parse_int=_bounded_int)


def decode_record(text: str) -> tuple[Any, int, int]:
    """``raw_decode`` of a record's JSON, in the bounded numeric model: an integer of more than
    :data:`FLOAT_DIGITS` digits (which no float holds) is read as infinite, with its sign: it compares
    with every number as Python compares the integer (the official checker's ``>=``, ``>``).
    Returns the record, where its JSON ends, and how many integers were replaced. The bound is
    enforced here, once, so that no later stage meets such a number. Only a text holding such a
    run of digits takes the slower decoder."""
    if len(text) <= FLOAT_DIGITS or _LONG_DIGITS.search(text) is None:
        record, end = within_limit(_DECODER.raw_decode, text)  # (as json on Python 3.10 and 3.11, on any)
        return record, end, 0
    before = _replaced[0]
    record, end = within_limit(_BOUNDED_DECODER.raw_decode, text)
    return record, end, _replaced[0] - before


def out_of_range_finding(path: str, line_no: int, record: object, count: int) -> Finding:
    """MLC017 for a record some of whose integers were read as infinite."""
    key = record.get("key") if isinstance(record, dict) else None
    what = f"{count} integer{'s' if count > 1 else ''} of more than {FLOAT_DIGITS} digits"
    return rules.NUMBER_OUT_OF_RANGE.at(path, line_no, (
        f"{what} in this record{f' ({shown_name(key)})' if isinstance(key, str) else ''}: no float holds "
        "such a number, so it is read as infinite. An order comparison (>=, >) on it gives what the "
        "official checker's gives; an equality, a list of allowed values, a formula or a duplicate's "
        "comparison may not (the checker keeps the exact integer), so the verdict given for this record's "
        "rules may differ from the checker's; log ordinary numbers"))


_new_event = tuple.__new__


def well_formed_event(record: object, line_no: int) -> Event | None:
    """The event of a record that has every field of the right type, else None (then
    :func:`validate_record` says what is wrong). The reader's fast path for clean logs."""
    if type(record) is not dict:
        return None
    key, time_ms, metadata = record.get("key"), record.get("time_ms"), record.get("metadata")
    if type(key) is not str or not key or type(metadata) is not dict or "value" not in record:
        return None
    if type(time_ms) is not int and not (type(time_ms) is float and math.isfinite(time_ms)):
        return None
    event_type, namespace = record.get("event_type"), record.get("namespace")
    # Positional and through tuple.__new__: this runs once per record of every log.
    return _new_event(Event, (key, record.get("value"), metadata, float(time_ms), line_no,
                              event_type if type(event_type) is str else None,
                              namespace if type(namespace) is str else None))


def validate_record(record: object, line_no: int, path: str,
                    replaced: int = 0) -> Iterator[Union[Event, Finding]]:
    """The event of a decoded record, or the findings that say why it is not one (``replaced``:
    integers that :func:`decode_record` read as infinite)."""
    if not isinstance(record, dict):
        yield rules.RECORD_NOT_OBJECT.at(path, line_no,
                      f"the record is a JSON {_json_type(record)}, not an object with key, value, "
                      "time_ms and metadata")
        return
    key = record.get("key")
    if not isinstance(key, str) or not key:
        if "key" not in record:  # (the official parser's KeyError: the file fails)
            yield rules.RECORD_KEY_INVALID.at(path, line_no, "'key' is missing; expected a non-empty string")
        elif refused := keyless_refusals(path, line_no, record, _described(key), replaced):  # (the parser stops first)
            yield from refused
        else:  # (the official parser keeps it, and no rule names it: ignored, unless it was required)
            yield rules.RECORD_KEY_INVALID.at(path, line_no, (
                f"'key' is {_described(key)}; expected a non-empty string. The official parser reads the "
                "record and no rule names it, so it is ignored there, and here"),
                severity=Severity.WARNING, official=False)
        return
    time_ms = record.get("time_ms")
    read = None if replaced else official_float(time_ms)  # (an integer read as infinite: below)
    if read is not None:  # (what the official parser's float() reads and mlcheck's decoding does not)
        yield float_time_finding(path, line_no, key, _described(time_ms), read)
        time_ms = read
    elif isinstance(time_ms, bool) or not isinstance(time_ms, (int, float)) or not math.isfinite(time_ms):
        shown = "missing" if "time_ms" not in record else _described(time_ms)
        if shown in ("number inf", "number -inf") and replaced:
            shown = f"an integer of more than {FLOAT_DIGITS} digits"
        yield rules.RECORD_TIME_INVALID.at(path, line_no,
                      f"'time_ms' of {shown_name(key)} is {shown}; expected milliseconds since the epoch as a number")
        return
    metadata = record.get("metadata")
    if "metadata" not in record:  # (the official parser's KeyError: the file fails)
        yield rules.RECORD_METADATA_INVALID.at(path, line_no,
                      f"'metadata' of {shown_name(key)} is missing; expected an object (the record is kept with "
                      "empty metadata, the official checker crashes on it: KeyError)")
        metadata = {}
    elif not isinstance(metadata, dict):  # (kept there: its checks ask `'status' in v['metadata']`)
        yield rules.RECORD_METADATA_INVALID.at(path, line_no, (
            f"'metadata' of {shown_name(key)} is a JSON {_json_type(metadata)}; expected an object. The official parser "
            "keeps it: its checks that a field is there (`'status' in v['metadata']`) find a name in a "
            "string or a list, those that read a field's value fail; mlcheck reads it so"),
            severity=Severity.WARNING, official=False)
        metadata = as_checked_metadata(metadata)
    if "value" not in record:
        yield rules.RECORD_VALUE_MISSING.at(path, line_no,
                      f"{shown_name(key)} has no 'value' field; the official parser crashes on it (KeyError: "
                      "'value'), so the file fails. The record is read with no value; log \"value\": null")
    if replaced:
        yield out_of_range_finding(path, line_no, record, replaced)
    event_type = record.get("event_type")
    namespace = record.get("namespace")
    yield Event(key=key, value=record.get("value"), metadata=metadata, time_ms=float(time_ms),
                line=line_no, event_type=event_type if isinstance(event_type, str) else None,
                namespace=namespace if isinstance(namespace, str) else None)


CHECKED_FIELDS = ("epoch_count", "epoch_num", "first_epoch_num", "metric", "samples_count", "status", "step_num",
                  "tensor")
"""The metadata fields whose presence the official checkers test (``'epoch_num' in v['metadata']``)."""


def as_checked_metadata(metadata: object) -> dict[str, float]:
    """Metadata that is not an object, as the official checkers' tests see it: a field is there
    when Python's ``in`` finds its name in it (in a string, among a list's items), with a value no
    check accepts (NaN: a check that reads the value fails there on the string or list)."""
    found = {}
    for name in CHECKED_FIELDS:
        try:
            if name in metadata:  # type: ignore[operator]
                found[name] = math.nan
        except TypeError:  # (a number, true/false, null: `in` raises, and the check fails)
            return {}
    return found


def undecodable_record(path: str, line_no: int, body: str, column: int,
                       error: ValueError | RecursionError, truncated: bool,
                       raw: bool, result_file: bool = False, followed: bool = False) -> Finding:
    """Why the JSON of a record (``body``, starting at 0-based ``column`` of its line) could not
    be decoded: nested too deeply, a number too long, cut by the end of the file, cut in raw
    output (``raw``: the output goes on after it), or malformed. A marker with nothing after it
    in raw output that is not a ``result_<i>.txt`` file is only a warning: the files ``split``
    writes from it do not hold the line, and the official parser passes them."""
    if isinstance(error, RecursionError):
        return rules.INVALID_JSON.at(path, line_no,
                      "invalid JSON: the record nests arrays or objects too deeply to be read "
                      f"(column {column + 1}); a record holds a flat value")
    if not isinstance(error, json.JSONDecodeError):  # Python's limit on the digits of an integer
        return rules.INVALID_JSON.at(path, line_no,  # (in mlcheck's words: Python's differ from 3.10 to 3.11)
                      f"unreadable JSON (column {column + 1}): an integer of more than {_PYTHON_DIGITS} digits, "
                      "which Python's json refuses; a record holds numbers of ordinary size")
    raw = raw or (not result_file and (cut_by_other_text(body, error)  # (a bar's \r: raw output, noise or not;
                                       or _job_end_glued(body, error)  # a launcher's word glued to it;
                                       or OTHER_LINE_START.search(body[error.pos:].encode("utf-8", "replace")) is not None))
    # (a warning in it, where the join was not certain: stderr into block-buffered stdout, mlcheck.read.cut_records)
    if truncated and _looks_cut(body, error):  # (a whole record that is malformed is MLC003 there too)
        return rules.TRUNCATED_RECORD.at(path, line_no,
                      "the file ends in the middle of this record (the job was probably killed "
                      f"while writing){_named(body)}; the run has no complete end")
    if raw and not body.strip() and not result_file:  # (split leaves the line out: its files pass)
        return raw_output.RECORD_CUT.at(path, line_no,
                      "a :::MLLOG marker with no record after it: nothing was read from it, and "
                      "`mlcheck split` leaves the line out (a lost record is a finding of the "
                      "round's rules)", severity=Severity.WARNING, official=False)
    if raw and followed and not result_file and _looks_cut(body, error):  # (interleaved writes)
        return raw_output.RECORD_CUT.at(path, line_no,
                      "this record is cut by another record printed on the same line (two processes "
                      "wrote to the output at once, without line buffering); it is not read. The "
                      "official parser reads the last record of a line only, and passes it; make each "
                      "process write whole lines (python -u, PYTHONUNBUFFERED=1)",
                      severity=Severity.WARNING, official=False)
    if raw and _looks_cut(body, error):
        return raw_output.RECORD_CUT.at(path, line_no,
                      f"this record is cut{_named(body)}: its line ends before the record does (the process stopped "
                      "while writing it, or another stream, stderr into stdout or a block-buffered "
                      "write, broke the line; a launcher's lines after a kill tell which); make the "
                      "process write whole lines (python -u, PYTHONUNBUFFERED=1)")
    snippet = body[:60] + ("…" if len(body) > 60 else "")
    where = f"column {column + 1 + error.pos}"
    what = f"{error.msg} {where}" if error.msg.endswith(" at") else f"{error.msg} at {where}"
    if body[error.pos:error.pos + 1] == "\r":  # (the official parser reads universal newlines: a line end)
        what += " (a carriage return, CR: the official parser ends the line there, cutting the record)"
    return rules.INVALID_JSON.at(path, line_no, f"invalid JSON: {what} in {snippet!r}{_named(body)}")


def _named(body: str) -> str:
    """The key of a record that cannot be read (where a rule says that key is not logged)."""
    found = _KEY_NAMED.search(body)
    return f" (a record of {found.group(1)}, lost)" if found else ""


_NUMBER_CUTS = frozenset({".", "e", "E", "e-", "e+", "E-", "E+"})


def _looks_cut(body: str, error: json.JSONDecodeError) -> bool:
    """A record that stops before its JSON is complete (rather than one that is malformed)."""
    rest = body[error.pos:].rstrip()
    return (error.pos >= len(body.rstrip()) or error.msg.startswith("Unterminated string")
            or rest in _NUMBER_CUTS  # (cut inside a number after its point or exponent: 0., 1e-)
            or cut_by_other_text(body, error)
            or any(word.startswith(rest) for word in _LITERALS)  # (cut inside null, true, ...)
            or TAG.search(body) is not None or _job_end_glued(body, error))


def _job_end_glued(body: str, error: json.JSONDecodeError) -> bool:
    """A launcher's word that the job ended glued where the record stops (``"time_ms": 16srun:
    error: node3: task 0: Exited ...``): the process was killed while it wrote the record."""
    return JOB_END.search(body[error.pos:].encode("utf-8", errors="replace")) is not None


def cut_by_other_text(body: str, error: ValueError) -> bool:
    """A record whose line a progress bar broke, in any log not named ``result_<i>.txt`` (MLC023
    there, noise seen before it or not): the bar's carriage return in it (in a string, in a
    number, or where JSON skips it as a blank and reads the bar's percentage: tqdm on stderr into
    block-buffered stdout). Other text after a record begun (``"value": + python ...``, a
    relaunch's trace glued to a killed record) is not told from a malformed record
    (``"key": "x", bad``): MLC003 until the log has shown itself raw output."""
    if not isinstance(error, json.JSONDecodeError):
        return False
    bar = body.rfind("\r", 0, error.pos + 1)  # (a CR between members, then JSON that is wrong, is no bar)
    return (bar >= 0 and '"' not in body[bar:error.pos]) or body[error.pos:].lstrip(".eE+-").startswith("\r")


_LITERALS = ("null", "true", "false", "NaN", "Infinity", "-Infinity")
"""The JSON words (and Python's) a cut may fall inside: ``"value": nul`` ends the file."""


def long_line_finding(path: str, line_no: int, long: LongLine, limit: int) -> Finding:
    """MLC014 for an over-long physical line (over ``limit``), skipped but for the pieces that
    hold a record (:mod:`mlcheck.read.long_lines`): an error when records were on the part
    skipped (or it is not known), else a warning."""
    length, lost, kept = long.length, long.lost, long.text is not None
    size = (f"this line is {length:,} bytes long ({length / 2**20:.1f} MiB; mlcheck reads lines of "
            f"up to {limit // 2**20} MiB)")
    read = ("; the records the official parser reads on it (on each piece between carriage returns, or after "
            "the last marker of a piece over the limit) were read, the rest skipped" if kept else "; it was skipped")
    if lost == 0:
        return rules.LINE_TOO_LONG.at(path, line_no, f"{size}{read}; no :::MLLOG record was on the "
                                      f"{'part skipped' if kept else 'line'} (output written without line "
                                      "ends, a progress bar?)", severity=Severity.WARNING)
    what = ("any :::MLLOG record on it was not read" if lost < 0 else
            f"{lost} :::MLLOG record{'' if lost == 1 else 's'} on the {'part skipped' if kept else 'line'} "
            f"{'was' if lost == 1 else 'were'} not read")
    return rules.LINE_TOO_LONG.at(path, line_no, f"{size}{read} and {what}. A log line this long is "
                                  "not a record: look for output written without line ends")


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
