"""The event of one clean record line, decoded in C by orjson when it is installed.

orjson decodes a record about three times faster than the standard library's ``raw_decode``, and
takes the line's bytes as they are (no UTF-8 decoding in Python first). It is only used where its
result is the standard library's, value for value and type for type; anywhere else this returns
None and the line reader decodes the line as before (and reports what is wrong with it):

- NaN, Infinity, a float beyond a double (``1e400``), a lone surrogate (``"\\ud800"``), text
  after the JSON, whitespace JSON does not know (``\\x0c``, a BOM): orjson refuses them;
- an integer beyond 64 bits, which orjson turns into a float where ``json`` keeps it exact (and
  reads one of more than 308 digits as infinite, MLC017): a run of 19 digits anywhere in the line
  sends it to ``json`` unless the digits are a float's fraction or exponent (found by one
  ``bytes.translate`` and one substring search, in C);
- nesting the standard library refuses (``RecursionError``, about 1,000 levels) while orjson
  accepts it up to 1,024: a record of more than 512 bytes with more than 100 brackets goes to
  ``json``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from mlcheck.model import Event
from mlcheck.read.record_shape import well_formed_event

_Loads = Callable[[bytes], Any]


def _orjson() -> tuple[_Loads | None, type[Exception]]:
    try:
        import orjson
    except ImportError:  # an optional speed-up: the standard library reads every record too
        return None, ValueError
    return orjson.loads, orjson.JSONDecodeError


LOADS, DECODE_ERROR = _orjson()
"""orjson's ``loads`` (None when orjson is not installed) and its error."""

DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
NINETEEN_DIGITS = b"0" * 19
"""Every integer orjson would turn into a float has 19 digits or more (2**63 has 19)."""
_FRACTION_OR_EXPONENT = frozenset(b".eE+")


def has_long_integer(body: bytes, digits: bytes) -> bool:
    """Whether a run of 19 digits or more in ``body`` (``digits``: its digits made ``0``) may be
    an integer: it does not follow the point of a fraction or the ``e`` of an exponent (digits
    in a string count too; they take the slower path for nothing). Most such runs are fractions
    printed with all their digits (``0.0003551136363636364``)."""
    at = digits.find(NINETEEN_DIGITS)
    while at >= 0:
        before = body[at - 1] if at else 0
        if before not in _FRACTION_OR_EXPONENT and not (
                before == 0x2D and at > 1 and body[at - 2] in b"eE"):  # (a minus after e: exponent)
            return True
        end = at + len(NINETEEN_DIGITS)
        while end < len(digits) and digits[end] == 0x30:
            end += 1
        at = digits.find(NINETEEN_DIGITS, end)
    return False


BRACKETS_ANY_DEPTH = 512
"""A body of up to this many bytes nests at most 256 levels deep, which ``json`` reads (it reads
``1000 - d`` levels when called ``d`` frames deep: over 900 where mlcheck reads a log), so
orjson's result is its result; a longer one with more than :data:`MAX_BRACKETS` brackets is
left to ``json``."""
MAX_BRACKETS = 100


def fast_event(raw: bytes, line_no: int) -> Event | None:
    """The event of ``raw``, a physical line that starts with ``:::MLLOG`` and holds one record,
    when orjson decodes it to what ``json`` would and the record is well formed; else None."""
    return fast_body_event(raw[8:], line_no)


_new_event = tuple.__new__
_isfinite = math.isfinite


UNREAD = object()
"""What :func:`fast_record` returns for a body it leaves to ``json``."""


def fast_record(body: bytes) -> Any:
    """The JSON value of ``body`` (the bytes after a marker) decoded by orjson where that is what
    ``json`` decodes, value for value and type for type, else :data:`UNREAD`. A body of fewer than
    :data:`BRACKETS_ANY_DEPTH` bytes is not searched for brackets: it cannot nest deeper than half
    its length, which ``json`` reads."""
    if LOADS is None or not body.isascii() or (len(body) > BRACKETS_ANY_DEPTH
                                               and body.count(b"[") + body.count(b"{") > MAX_BRACKETS):
        return UNREAD  # (not ASCII: a result file's text is read as latin-1, a console's as UTF-8)
    digits = body.translate(DIGITS_AS_ZERO)
    if NINETEEN_DIGITS in digits and has_long_integer(body, digits):
        return UNREAD
    try:
        return LOADS(body)
    except DECODE_ERROR:
        return UNREAD


def fast_body_event(body: bytes, line_no: int) -> Event | None:
    """:func:`fast_event` of the bytes after the marker, :func:`well_formed_event` inlined (this
    runs once per clean record of every log). The fields are read by subscript (a record lacking
    one takes :func:`well_formed_event`'s ``get``)."""
    record = fast_record(body)
    if record is UNREAD:
        return None
    try:
        key, time_ms, metadata = record["key"], record["time_ms"], record["metadata"]
        value, event_type, namespace = record["value"], record["event_type"], record["namespace"]
    except (KeyError, TypeError):  # (a field missing, or not an object: a list, a number)
        return well_formed_event(record, line_no)
    if type(record) is not dict or type(key) is not str or not key or type(metadata) is not dict:
        return None
    if type(time_ms) is not int and not (type(time_ms) is float and _isfinite(time_ms)):
        return None
    return _new_event(Event, (key, value, metadata, float(time_ms), line_no,
                              event_type if type(event_type) is str else None,
                              namespace if type(namespace) is str else None))
