"""Records that another stream's line cut in two (stderr into a block-buffered stdout), joined again.

A program whose stdout goes to a pipe or a file (``python train.py > log 2>&1``, nohup, a
container, a batch job without ``python -u``) writes it in blocks of 4 or 8 KiB, while stderr goes
out a line at a time: a warning printed between two blocks lands inside a record's line. The
console shows the record's first part, the warning (on the same physical line, or on lines of its
own where a launcher ends each chunk with a line end), then the record's rest at a line's start::

    :::MLLOG {"namespace": "", "time_ms": 168W0501 12:00:00.123456 gpu_timer.cc:114] Skipping ...
    2024000, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.75, ...}

Raw output (never a submitted result file: the official parser reads those as they are) is given
to the reader with such a record joined again, one output line per physical line so that line
numbers stay those of the file: the record's line gives the joined record (where it starts), the
lines between are given as they are, and the line of the record's rest gives the warning's text
(noise, counted as such). A cut record's line holds the marker and does not end with ``}``; its
rest holds no marker and ends with ``}`` (after the cut line's prefix, a rank tag, when it starts
with it), within :data:`LOOKAHEAD` lines. Where the marker itself was cut (the line before the
rest holds its first characters, then the warning; the rest begins with its last ones), the
record is given at the rest's line, and the line before as it is. A record that a progress bar's
redraws cut on its own line is joined by :mod:`mlcheck.read.bar_cuts`.

The first part ends where the joined text decodes as a record (an object with ``key``, ``value``
and ``time_ms``). Where the cut is inside a string or a number, more than one place does; the
record must then be certain, else the lines are given as they are and the reader's MLC023 says
that the record is cut (a refusal is a finding; a wrong join would be silently wrong data):

- the places whose record has the most fields (a place inside a string may swallow whole fields);
- inside a string any place joins, whatever the other text: only a field that the lines before
  printed, name and value (``"key": "eval_accuracy"``, an event type, a file name other records
  give), tells the place;
- inside a number, the place after which the other text begins as another stream's line begins
  with no digit (:data:`OTHER_LINE_START`): a warning that begins with digits (a date, ``0it [``,
  ``5%|``, ``0:00:05``, ``0``) is not told from the number.

A line that holds a whole record (with text after it: the reader's trailing text) is no cut one;
a record and its rest of over :data:`LONGEST_JOIN` bytes are not joined, and a file's joins stop
after :data:`TRIES` bytes of work. The blanks where the two parts meet are those json.dumps writes.
"""

from __future__ import annotations

import json
import re
from collections import deque
from typing import Any, Callable, Iterable, Iterator

from mlcheck.read.bar_cuts import bar_joined, is_record, may_hold_a_bar
from mlcheck.read.json_depth import within_limit
from mlcheck.read.cut_strings import LOGGER_LINE_STARTS, known_strings_place
from mlcheck.read.lazy_patterns import lazy_pattern

LOOKAHEAD = 4
"""Lines after a cut record within which its rest is looked for (a warning of a few lines)."""
RECENT = 64
"""Lines before a cut record where the strings of its record are looked for."""
_LONGEST = 64 * 1024
"""A line is not held past this length."""
LONGEST_JOIN = 4096
"""A cut record and its rest are not joined past this length (records are a few hundred bytes;
the joins tried grow with the square of it)."""
TRIES = 1 << 31
"""Bytes the joins tried in one file may decode, at most (then its cut records are left to the reader)."""
_DECODER = json.JSONDecoder()
_MARKER = b":::MLLOG"
_MARKER_ENDS = tuple(_MARKER[cut:] for cut in range(1, len(_MARKER)))
"""How a line begins that holds the rest of a marker the line before holds the start of."""
OTHER_LINE_START = lazy_pattern(LOGGER_LINE_STARTS + rb"|\[[\w ,.:/|-]*\][ :<\[]"
                              rb"|(?:[^\s:\d][^\s:]*\.py|<[^>\n]*>):\d+: [A-Z]\w*(?:Warning|Error)\b")
"""How another stream's line begins where no digit before it can be its own: a glog letter and
date, a progress bar's carriage return, Python ``logging``'s date (``2024-05-10 12:00:01,234 - ``:
a year's four digits then a hyphen, which no number goes on with; the milliseconds come only with
its default four-digit year, never a two-digit one whose ``20`` the number's digits could be),
ssh's ``Warning: Permanently added``
(neither of the two after a colon or a bracket and a blank: behind a host's label, ``node01: ``,
a line began before them), a bracketed tag (``[WARNING|trainer.py:123]`` too), a log level,
Python's ``warnings`` line (``/usr/lib/.../functional.py:504: UserWarning: ...``, ``<frozen
importlib._bootstrap>:241: RuntimeWarning: ...``: the commonest stderr line of PyTorch jobs). (Not
a line that begins with digits: ``0:00:05``, ``5%|``, ``0it [``, a date of a two-digit year after
the number's ``20``, NCCL's line of a host named ``4f93b2a1c0d4``, may begin with the digits the
number ends with, which would be dropped.)"""
_ESCAPE = re.compile(rb"\\.")
_NUMBER_GOES_ON = re.compile(rb"\.\d|e[-+]\d")
"""Text that goes on with a number as json.dumps writes it (``.75``, ``e-05``): a place before it is
inside the number, whatever line the text after may look like (``0|.75/opt/.../functional.py:504:
UserWarning``: Python's ``warnings`` line begins with any character but a digit)."""
_NUMBER_CHARS = (b".", b"e", b"+", b"-")
"""How a number as json.dumps writes it may go on: another line that begins with one of them after a
number's digits (``36|./opt/...py:504: UserWarning``, or ``36.|/opt/...``) leaves its place uncertain."""


def rejoined_cut_records(lines: Iterable[bytes], joined: list[int]) -> Iterator[bytes]:
    """``lines`` with each record cut by another stream's line joined again (see the module
    docstring); ``joined[0]`` counts the records joined."""
    cuts = CutRecords()
    recent = cuts.recent
    try:
        for raw in lines:
            if (cuts.held or raw.startswith(_MARKER_ENDS) or (_MARKER in raw and _is_cut(raw))
                    or (b"\r" in raw and may_hold_a_bar(raw))):
                yield from cuts.line(raw)
                joined[0] = cuts.joined
            else:
                recent.append(raw)
                yield raw
    except Exception:  # (reading failed, a damaged gzip: the lines held back are given before the error)
        yield from cuts.release()
        raise
    yield from cuts.release()


class CutRecords:
    """One file's lines, cut records joined, one line at a time (``watch`` feeds them so)."""

    def __init__(self) -> None:
        self.held: list[bytes] = []
        """A cut record's line and the lines after it, while its rest may come."""
        self.recent: deque[bytes] = deque(maxlen=RECENT)
        """The last lines given: the line before one that begins with the marker's last
        characters, and where the strings of a record cut inside a string are looked for."""
        self.joined = 0
        self.tried = 0

    def line(self, raw: bytes) -> list[bytes]:
        """The lines that physical line ``raw`` lets go (none, or those held and it)."""
        if not self.held:
            bar_cut = bar_joined(raw) if may_hold_a_bar(raw) else None
            if bar_cut is not None:  # (a progress bar's redraws inside the record or its marker, on its line)
                self.joined += 1
                self.recent.append(bar_cut)
                return [bar_cut]
            if raw.startswith(_MARKER_ENDS) and self.recent:  # (the line before holds the marker's start)
                record = _safely(_marker_joined, self.recent[-1], raw)
                if record is not None:
                    self.joined += 1
                    raw = record[0] + _line_end(raw)
            elif _MARKER in raw and _is_cut(raw):
                self.held = [raw]
                return []
            self.recent.append(raw)
            return [raw]
        rest = _rest(self.held[0], raw)
        if rest is not None and self.tried < TRIES and len(self.held[0]) + len(rest) <= 2 * LONGEST_JOIN:
            self.tried += len(self.held[0]) * (len(self.held[0]) + len(rest) + sum(map(len, self.recent)) // 8)
            record = _safely(_joined, self.held[0], rest, self.recent)
            if record is not None:
                given = [record[0] + _line_end(raw), *self.held[1:], record[1] + _line_end(self.held[0])]
                self.held = []
                self.joined += 1
                self.recent.extend(given)
                return given
        if _MARKER in raw or len(self.held) > LOOKAHEAD or not raw.endswith(b"\n"):
            given, self.held = self.held, []
            self.recent.extend(given)
            return given + self.line(raw) if raw.endswith(b"\n") else given + [raw]
        self.held.append(raw)
        return []

    def release(self) -> list[bytes]:
        """The lines held back, as they are (at the end of the file)."""
        given, self.held = self.held, []
        return given


def _safely(join: Callable[..., tuple[bytes, bytes] | None], *lines: Any) -> tuple[bytes, bytes] | None:
    """A join, or None when it met a bug: the lines are then given as they are (the reader
    reads them as it would without this stage)."""
    try:
        return join(*lines)
    except Exception:  # noqa: BLE001 - a bug here must not lose the file
        return None


def _is_cut(raw: bytes) -> bool:
    if raw.endswith(b"}\n"):  # (the common whole record: no copy made)
        return False
    return len(raw) < _LONGEST and raw.endswith(b"\n") and not raw.rstrip().endswith(b"}")


def _line_end(raw: bytes) -> bytes:
    return b"\r\n" if raw.endswith(b"\r\n") else b"\n" if raw.endswith(b"\n") else b""


def _rest(cut: bytes, raw: bytes) -> bytes | None:
    """The text of ``raw`` that may end the record of ``cut``: without its line end, and without
    the cut line's prefix (a rank tag) when it starts with it."""
    if _MARKER in raw or len(raw) >= _LONGEST:
        return None
    text = raw.rstrip(b"\r\n")
    if not text.rstrip().endswith(b"}"):
        return None
    prefix = cut[:cut.rfind(_MARKER)]
    return text[len(prefix):] if prefix and text.startswith(prefix) else text


def _marker_joined(cut: bytes, raw: bytes) -> tuple[bytes, bytes] | None:
    """The record's line (without a line end), given at the line of its rest ``raw``, which
    begins with the marker's last characters and holds a whole record after them, when ``cut``
    (the line before, no record's) holds the marker's first characters: at its start, then
    another stream's text (any: a block of stdout ended there, at a line's start), or at its end,
    or before a text that begins as another stream's line does; and that text."""
    text = raw.rstrip(b"\r\n")
    line = cut.rstrip(b"\r\n")
    if not text.rstrip().endswith(b"}") or _MARKER in text or _MARKER in line or len(raw) >= _LONGEST:
        return None
    for cut_after in range(1, len(_MARKER)):
        if not text.startswith(_MARKER[cut_after:]) or is_record(text[len(_MARKER) - cut_after:]) is None:
            continue  # (the rest decoded once, whatever place of the head in the line before is weighed)
        head = _MARKER[:cut_after]
        at = line.find(head)
        while at >= 0:
            other = line[at + cut_after:]
            if at == 0 or not other or OTHER_LINE_START.match(other):
                return head + text, other
            at = line.find(head, at + 1)
    return None


def _joined(cut: bytes, rest: bytes, recent: Iterable[bytes] = ()) -> tuple[bytes, bytes] | None:
    """The record's line joined (without a line end: the rest's is added) and the other stream's
    text that was inside it; None when no place, or more than one, joins a record, when the
    line holds a whole record (with text after it: the reader's), or when it is too long."""
    line = cut.rstrip(b"\r\n")
    start = line.rfind(_MARKER) + len(_MARKER)
    body = line[start:]
    if len(body) + len(rest) > LONGEST_JOIN or _whole_record(body):
        return None
    records = {}
    for place in range(len(body), -1, -1):
        text = body[:place] + rest
        if text.lstrip().startswith(b"{") and (record := is_record(text)) is not None:
            records[place] = record
    end = _chosen(body, rest, records, recent) if records else None
    return None if end is None else (line[:start] + body[:end] + rest, body[end:])


def _whole_record(body: bytes) -> bool:
    try:
        found, _end = within_limit(_DECODER.raw_decode, body.decode("utf-8", errors="replace").lstrip(), True)
    except (ValueError, RecursionError):
        return False
    return isinstance(found, dict)


def _chosen(body: bytes, rest: bytes, records: dict[int, dict[str, object]], recent: Iterable[bytes]) -> int | None:
    """Where the record's first part ends, of the places ``records`` names; None when that is
    not certain (see the module docstring)."""
    most = max(map(_fields, records.values()))  # (a place inside a string may swallow whole fields)
    found = {end: repr(record) for end, record in records.items() if _fields(record) == most}
    if len(set(found.values())) > 1 and any(_in_string(body[:end]) for end in found):
        found = known_strings_place(found, records, recent, body)  # (inside a string any place joins: only a known string tells)
    elif len(set(found.values())) > 1:  # (inside a number: the earliest place another line begins)
        begins = [end for end in found if OTHER_LINE_START.match(body, end) and not _NUMBER_GOES_ON.match(body, end)]
        if any(body[end:end + 1] in _NUMBER_CHARS for end in begins):
            begins = []  # (a path "./x.py", "eval.py" after a number may begin with its point or exponent)
        first = found[min(begins)] if begins else None
        found = {end: text for end, text in found.items() if end in begins and text == first}
    if not found or len(set(found.values())) > 1:
        return None
    tidy = [end for end in found if _blanks_as_written(body[:end], rest)]
    return max(tidy or found)


def _in_string(text: bytes) -> bool:
    """Whether JSON ``text`` ends inside a string."""
    return _ESCAPE.sub(b"", text).count(b'"') % 2 == 1


def _fields(record: dict[str, object]) -> int:
    metadata = record.get("metadata")
    return len(record) + (len(metadata) if isinstance(metadata, dict) else 0)


def _blanks_as_written(first: bytes, rest: bytes) -> bool:
    """Whether the blanks where ``first`` and ``rest`` meet are those json.dumps writes: one after
    the marker, a colon or a comma, none elsewhere."""
    before = first.rstrip()
    blanks = len(first) - len(before) + len(rest) - len(rest.lstrip())
    return blanks == (1 if before[-1:] in (b"", b":", b",") else 0)
