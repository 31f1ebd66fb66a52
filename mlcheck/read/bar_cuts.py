"""A record that a progress bar's redraws cut on its own line, joined again (:mod:`mlcheck.read.cut_records`).

tqdm (and any bar like it) writes to stderr a carriage return and the bar, again and again, with
no line end; where stdout is block-buffered (``python train.py > log 2>&1``), a block may end
inside a record, the bar's redraws land there, and the record's rest follows them on the same
physical line::

    :::MLLOG {"namespace": "", "time_ms": 17592<CR> 10%|█   | 1/10 [00:01<00:09,  1.00it/s]13292069, ...}

The bar begins at the line's first carriage return, surely; it ends where the record's rest
begins, which is certain where one ``]`` alone (tqdm's times, ``[00:01<00:09, 1.00it/s]``) makes a
record of the text before the first CR and the text after the last, and the blanks after it (tqdm
pads a shorter redraw) make the same record wherever the bar ends among them (not inside a
string); or, where the bar cut the marker itself (``:::ML`` + the bar + ``LOG {...}``), before the
marker's last characters. Else the line is given as it is (the reader's MLC023).
"""

from __future__ import annotations

import json

from mlcheck.read.json_depth import within_limit

_MARKER = b":::MLLOG"
_LONGEST = 64 * 1024
_MOST_ENDS = 64
"""The places after the last CR weighed at most (each a decode of the record)."""


def may_hold_a_bar(raw: bytes) -> bool:
    """The cheap test before :func:`bar_joined`: a CR inside the line (not a CRLF line end) and a ``{``."""
    return -1 < raw.find(b"\r") < len(raw) - 2 and b"{" in raw and len(raw) < _LONGEST


def bar_joined(raw: bytes) -> bytes | None:
    """The line ``raw`` with the bar's redraws taken out of the record they cut, with its line end;
    None where no record was cut or the place is not certain."""
    text = raw.rstrip(b"\r\n")
    first, last = raw.find(b"\r"), text.rfind(b"\r")
    if last < 0:
        return None
    head, end = raw[:first], raw[len(text):]
    at = head.rfind(_MARKER)
    if at < 0 or not head[at + len(_MARKER):].strip():  # (the marker cut: its first characters end the head)
        marker = _MARKER + b" {"  # (as json.dumps and the loggers write it)
        for cut_after in range(len(marker) - 1, 0, -1):
            rest = text.find(marker[cut_after:], last) if head.endswith(marker[:cut_after]) else -1
            if rest >= 0 and is_record(text[rest + len(marker) - cut_after - 1:]) is not None:
                return head + text[rest:] + end
        return None
    begun = head[at + len(_MARKER):]
    if is_record(begun) is not None:
        return None  # (a whole record before the bar)
    joins = [_joins(begun, text, place) for place in _closing_brackets(text, last)]
    found = [made for made in joins if made]
    if len(found) != 1 or any(record != found[0][0][1] for _place, record in found[0]):
        return None  # (no place, or places that make other records: the bar's blanks or words inside a string)
    return head + text[found[0][0][0]:] + end  # (the first: a blank of the record kept, not padding)


def _joins(begun: bytes, text: bytes, after: int) -> list[tuple[int, dict[str, object]]]:
    """The places from ``after`` (a ``]``) on, over the blanks the bar may have been padded with
    (tqdm pads a shorter redraw), that make a record of ``begun`` and the rest, with it."""
    blanks = len(text) - after - len(text[after:].lstrip(b" "))
    return [(place, record) for place in range(after, after + blanks + 1)
            if (record := is_record(begun + text[place:])) is not None]


def _closing_brackets(text: bytes, start: int) -> list[int]:
    found: list[int] = []
    place = text.find(b"]", start)
    while place >= 0 and len(found) < _MOST_ENDS:
        found.append(place + 1)
        place = text.find(b"]", place + 1)
    return found


def is_record(text: bytes) -> dict[str, object] | None:
    """``text`` decoded, where it is one record: an object with ``key``, ``value`` and ``time_ms``."""
    try:
        record = within_limit(json.loads, text.decode("utf-8"), True)  # (within the depth mlcheck reads records to)
    except (ValueError, RecursionError):
        return None
    if type(record) is dict and isinstance(record.get("key"), str) and "value" in record and "time_ms" in record:
        return record
    return None
