"""What the official parser reads of a physical line of a submitted result file.

The compliance checker's parser (``mlp_parser``, the same code in every round from 0.7 to 6.1)
opens the file as text with universal newlines, keeps the lines holding ``":::MLLOG "``, cuts
each at the last one (``re.sub(".*" + TOKEN, TOKEN, line)``), strips it and decodes the rest with
``json.loads``. So, in a ``result_<i>.txt`` file:

- a lone CR ends a line as a line feed does: records, or other text, after a CR are a line of
  their own;
- of the records that share a line (no CR between them), only the last after a token (the
  marker and a space) is read: mlcheck, as it, drops the others (MLC010, a warning), and the rules
  judge the run without them (a lost ``submission_benchmark`` is then missing, as for the official
  checker); a later marker without its space cuts nothing: it is text after the record (MLC003);
- text after the record's JSON, other than blanks, up to the line's end or a CR, is "Extra data":
  the line does not parse, and the checker fails the file ("Log lines had parsing errors"):
  MLC003, an error; so is the token inside a string of the record (the cut falls inside it);
- a record after ``:::MLLOG`` without a space (``:::MLLOG{``, a tab) is not read: the parser's
  token is ``":::MLLOG "`` (MLC027, a warning; a lost required key is MLC105);
- ``time_ms`` is read with ``float()``: a string of a number or a boolean is a time (MLC007, a
  warning), as it is there; NaN or infinite, the record is kept with no usable time (MLC007,
  mlcheck's own error: no time-to-train can be computed; the checker's init check fails on it);
- ``m['key']``, ``m['value']`` and ``m['metadata']``: a record without one is a KeyError that
  fails the file (MLC006, MLC025, MLC008); a key that is not a string is kept and named by no
  rule (MLC006, a warning), unless its record lacks ``time_ms``, ``value`` or ``metadata`` or holds
  a ``time_ms`` ``float()`` refuses: the parser stops there first, whatever the key
  (:func:`keyless_refusals`: MLC007, MLC025, MLC008, errors). The decoding itself is :mod:`mlcheck.read.record_shape`'s;
- the file is read as latin-1, a byte a character: a line holding a byte that is not ASCII is
  read so here too (``"é"`` written in UTF-8 is the two characters ``Ã©`` there and here; NEL and
  NBSP are blanks to ``strip()`` at the line's ends but fail the record between its members).

Raw output not named ``result_<i>.txt`` is not read by the official checker (``mlcheck split``
writes one record per line): there every record is read, and MLC010 only says so.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from mlcheck.model import Finding, Severity
from mlcheck.read import reading_rules as rules

if TYPE_CHECKING:
    from mlcheck.read.marker_parts import MarkerParts

_SHOWN = 40
"""Characters of the extra text a finding quotes."""
TOKEN = ":::MLLOG "
"""What the parser looks for (``mlp_parser.TOKEN``)."""


def hidden_by_later(segments: MarkerParts, count: int) -> list[bool]:
    """For each record ``1..count`` of a physical line (``segments[i]``: the text after its
    marker, up to the next marker), whether the official parser does not read it: it cuts the
    line at its last token (the marker and a space: ``:::MLLOG `` but not ``:::MLLOG{``), and a
    later token with no CR between them (a CR ends the parser's line) is such a cut. Index 0 is
    unused."""
    hidden = [False] * (count + 1)
    later = False  # (the next marker is a token, or the next record is hidden: a token after it)
    for i in range(count, 0, -1):
        hidden[i] = later and "\r" not in segments[i]
        later = segments[i].startswith(" ") or hidden[i]
    return hidden


def extra_data(path: str, line_no: int, body: str, end: int, column: int) -> Finding | None:
    """MLC003 when the official parser cannot decode the record of ``body`` (the text after the
    marker; its JSON ends at ``end``; ``body`` starts at 0-based ``column``): a CR before the
    JSON's end ends the parser's line inside it; text other than blanks follows the JSON
    before the official line's end (the physical line's, or a CR), or the JSON holds the token
    in a string (the parser cuts the line at the last one, inside the string)."""
    cut = body.find("\r", 0, end)
    if cut >= 0:
        return rules.INVALID_JSON.at(path, line_no, (
            f"a carriage return inside the record (column {column + cut + 1}) ends the official parser's "
            "line there (it reads the file with universal newlines): it reads a cut record, not this "
            "one, and fails the file; write the record on one line"))
    inside = body.find(TOKEN, 0, end)
    if inside >= 0:
        return rules.INVALID_JSON.at(path, line_no, (
            f"the record holds {TOKEN!r} in a string (column {column + inside + 1}): the "
            "official parser cuts the line at its last one, cannot decode the rest and fails the file; "
            "log the text without the marker"))
    tail = body[end:].split("\r", 1)[0].strip()  # (a result file's line: read as latin-1 already)
    if not tail:
        return None
    shown = tail if len(tail) <= _SHOWN else tail[:_SHOWN] + "..."
    return rules.INVALID_JSON.at(path, line_no, (
        f"text after the record's JSON (column {column + end + 1}): {shown!r}; the official parser decodes "
        "the whole rest of the line and fails the file on it (\"Extra data\"): one record per line, "
        "nothing after it"))


def after_json(rest: str) -> str:
    """What the parser would find after a record's JSON in ``rest`` (the text after it up to
    the physical line's end): up to a CR, read as latin-1, stripped. Empty when nothing is."""
    return _as_latin1(rest.split("\r", 1)[0]).strip()


def _as_latin1(text: str) -> str:
    """``text`` (decoded as UTF-8) as the parser would read its bytes: latin-1, whose ``strip()``
    takes NBSP and NEL as blanks and leaves the first byte of a UTF-8 NBSP. (A result file's lines
    are read as latin-1 from the start: :meth:`mlcheck.read.line_reader.LineReader._read_line`.)"""
    return text if text.isascii() else text.encode("utf-8", errors="surrogatepass").decode("latin-1")


def as_written(value: Any) -> Any:
    """A string value as its file spells it: a result file is read as latin-1, as the official
    parser reads it (a byte a character), so ``Zürich`` written in UTF-8 is read ``ZÃ¼rich``; the
    comparisons no official tool makes (a folder's runs, the logs against their system description)
    and their messages take the UTF-8 text back. Any other value (ASCII, not UTF-8) is itself."""
    if type(value) is not str or value.isascii():
        return value
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:  # (a character above U+00FF: decoded as UTF-8 already; or latin-1 bytes)
        return value


def glued_message(count: int, hidden: int, result_file: bool) -> str:
    """MLC010's message for a line of ``count`` records, ``hidden`` of them before another."""
    shared = f"{count:,} :::MLLOG markers share this line"
    if not result_file:
        return (f"{shared}; each record was read, but in a result file the official parser keeps only "
                "the last record of a line (`mlcheck split` writes one per line)")
    return (f"{shared}: the official parser keeps only the last record of a line, so it does not read "
            f"{'one of them' if hidden == 1 else f'{hidden} of them'} (a record with another after it), "
            "and neither does mlcheck: the rules judge the run as the official checker sees it. Write one "
            "record per line")


def official_float(value: object) -> float | None:
    """``float(value)`` where the official parser's ``float(m['time_ms'])`` reads ``value`` and
    mlcheck's own reading does not: a string or a boolean (``"1683739283351"``, ``true``), or a
    number that is not finite (NaN, Infinity, ``1e400``); else None."""
    if isinstance(value, float) and not math.isfinite(value):
        return value
    if not isinstance(value, (str, bool)):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def unseen_record(path: str, line_no: int, record: object) -> Finding:
    """MLC027 for a record whose marker has no space after it (dropped, as the parser drops it)."""
    key = record.get("key") if isinstance(record, dict) else None
    return rules.MARKER_WITHOUT_SPACE.at(path, line_no, (
        f"no space after :::MLLOG{f' (record {shown_name(key)})' if isinstance(key, str) else ''}: the official "
        "parser looks for ':::MLLOG ' and does not read this record, and neither does mlcheck (the rules "
        "judge the run without it). Write ':::MLLOG ' before the JSON"))


_PLAIN_NAME = re.compile(r"[\w.:/+-]{1,200}", re.ASCII)


def shown_name(name: str) -> str:
    """A logged key as a message names it: as logged where it is plain (``eval_accuracy``), else quoted
    with its escapes (``'k\\x1b[31m\\r\\n'``): no control character or line end of a log in a message."""
    return name if _PLAIN_NAME.fullmatch(name) else repr(name[:200] + ("…" if len(name) > 200 else ""))


def float_time_finding(path: str, line_no: int, key: str, shown: str, read: float) -> Finding:
    """MLC007 for a ``time_ms`` the official parser's ``float()`` reads as ``read`` (``shown``:
    what it is): a warning when that is a time, mlcheck's own error when it is not finite."""
    if math.isfinite(read):
        return rules.RECORD_TIME_INVALID.at(path, line_no, (
            f"'time_ms' of {shown_name(key)} is {shown}; the official parser reads it with float(), as {read!r}, and so "
            "does mlcheck: log milliseconds since the epoch as a number"), severity=Severity.WARNING, official=False)
    timed = key in _TIMED_BY_SCORE  # (the run's time-to-train cannot be computed: an error of mlcheck's own)
    return rules.RECORD_TIME_INVALID.at(path, line_no, (
        f"'time_ms' of {shown_name(key)} is {shown}; the official parser reads it with float() and compares the times of "
        "few records, but no time can be computed from it: the record is kept, with no usable time"
        f"{' (the run has no time-to-train)' if timed else ''}; log milliseconds since the epoch"),
        severity=None if timed else Severity.WARNING, official=False)


_TIMED_BY_SCORE = frozenset({"run_start", "run_stop"})
"""The keys the run's time-to-train is computed from (a time that is no number there is an error of
mlcheck's own, as MLC405 on a time outside any plausible date; init's times are compared by the
official checker, MLC401, and a warning of either where it passes them)."""


def keyless_refusals(path: str, line_no: int, record: dict[str, object], shown_key: str, replaced: int = 0) -> list[Finding]:
    """Why the official parser stops on a record whose key is not a non-empty string (``shown_key``:
    what it is), as it stops on any record: ``float(m['time_ms'])`` comes first (a KeyError, a
    TypeError of null or a list, a ValueError of a string that is no number, an OverflowError of
    an integer no float holds, which the decoding read as infinite, ``replaced``: the file fails),
    then ``m['value']`` and ``m['metadata']``. Empty when the parser keeps the record."""
    found = []
    whose = f"the record whose key is {shown_key}"
    if "time_ms" not in record:
        found.append(rules.RECORD_TIME_INVALID.at(path, line_no, (
            f"'time_ms' of {whose} is missing; the official parser reads float(m['time_ms']) before the key and "
            "crashes on it (KeyError), so the file fails; log milliseconds since the epoch as a number")))
    else:
        time_ms = record["time_ms"]
        if replaced and isinstance(time_ms, float) and math.isinf(time_ms):
            found.append(rules.RECORD_TIME_INVALID.at(path, line_no, (
                f"'time_ms' of {whose} is an integer too large for a float; the official parser's "
                "float(m['time_ms']) raises OverflowError before it reads the key, so the file fails; log "
                "milliseconds since the epoch as a number")))
        elif not isinstance(time_ms, (bool, int, float)) and official_float(time_ms) is None:
            found.append(rules.RECORD_TIME_INVALID.at(path, line_no, (
                f"'time_ms' of {whose} is {'null' if time_ms is None else repr(time_ms)}; the official parser's "
                "float(m['time_ms']) refuses it before it reads the key, so the file fails; log milliseconds since "
                "the epoch as a number")))
    for field, rule in (("value", rules.RECORD_VALUE_MISSING), ("metadata", rules.RECORD_METADATA_INVALID)):
        if field not in record:
            found.append(rule.at(path, line_no, (
                f"{whose} has no '{field}' field; the official parser crashes on it (KeyError: '{field}'), so the "
                f"file fails, whatever the key; log \"{field}\": {'null' if field == 'value' else '{}'}")))
    return found
