"""Records that another stream's line cut in two (``python train.py > log 2>&1``).

A process whose standard output goes to a file or a pipe writes it in blocks (8 KiB), while its
standard error, and the C libraries behind it (NCCL, PyTorch's ``[W ProcessGroupNCCL.cpp:...]``),
write whole lines as they come. A block can end in the middle of a record; a warning line then
lands right after the cut, and the record goes on at the start of the next line:

    :::MLLOG {"namespace": "", "time_ms": 1682641169[W ProcessGroupNCCL.cpp:1569] Warning: ...
    995, "event_type": "POINT_IN_TIME", "key": ...}}

Raw output (never a submitted result file, read as the official parser reads it) is given to the
reader with such a record joined again: where the cut record's line ends in a line of its own
(up to :data:`WINDOW` lines later, with no record between), the physical line gives the record,
and the line it was cut on gives the other stream's text that followed the cut (one line out
per line in: line numbers stay those of the file).

Where the cut lies is found from the JSON and from the other stream's other lines. The places
tried: where the JSON stops being valid, unless that is inside a string (``0.`` is no number);
where a log line's first text begins (``[``, a capitalised word, glog's ``W1203``, a date, a
warning's ``path:line:``, NCCL's ``host:pid:tid``), from a few characters before that place on,
or from the start of the string left open; and where text begins that a line without a record
began with earlier in the file (warnings repeat: their first :data:`_SEEN_BYTES` bytes, for the
first :data:`_SEEN_LINES` such lines). A place counts when its join is a JSON object with
``time_ms``, ``key`` and ``value``; its flaws are its field names, metadata names, key and event
type that are no names of mlperf-logging's constants, and a ``time_ms`` that is no date of
2015-2100. The join is made at the first place, of those with the fewest flaws, whose text was
seen before (a later one lies in the other stream's line: its date after its ``[``); where none
was, and the cut lies outside strings, at the place where the JSON stops if a log line's first
text begins there, when the places with the fewest flaws all give the same record. Otherwise
(``"lineno": 117`` + ``2026-12-03 ...`` reads as 117 or 1172026; a cut inside a string, whose
text the other stream's may go on, by a line not seen before) the lines stay as they were and
the reader reports the cut record (MLC023): no record is read with a value it did not have (a
sweep of every cut place of six records by eleven kinds of line: none). A cut within the marker
leaves its beginning (``:::``) on the other stream's line and the rest (``MLLOG {...}``) at the
start of the next: such a line holding a whole record is read with the whole marker.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from itertools import islice
from typing import Iterable, Iterator

from mlcheck.read.long_lines import MAX_LINE_BYTES

WINDOW = 4
"""Lines after a cut record in which its end is looked for (other lines of the other stream)."""
_TRIES = 64
"""Places at which a cut is tried, of each kind (the first ones)."""
_NEAR = 8
"""Characters before where the JSON stops being valid from which places are tried (``"key":[W``)."""
_SEEN_BYTES = 12
_SEEN_LINES = 4096
"""How lines without a record begin (their first :data:`_SEEN_BYTES`), for this many of them."""
_LONGEST = 1 << 16
"""The longest cut record joined (a record is a few hundred bytes)."""
_BUDGET = 5_000_000
"""Characters of cut records searched for the cut in a file (a few seconds at most; the cut
records of 100 MB of block-buffered output): past them, cut records are reported as they are."""
_RECORD_FIELDS = frozenset({"time_ms", "key", "value"})
"""Fields a joined record must have (a join at the wrong place mangles a field's name)."""
_PLAUSIBLE_MS = (1.42e12, 4.1e12)
"""Milliseconds of 2015 to 2100 (a record's time, as MLC405 reads it)."""
_MARKER = b":::MLLOG"
_RECORD_ENDS = (b"}\n", b"}\r\n")
_COLOUR = re.compile(rb"\x1b\[[0-9;]*[A-Za-z]")
_MARKER_END = re.compile(rb"(?:::MLLOG|:MLLOG|MLLOG|LLOG|LOG|OG|G)(?= ?\{\")")
"""The end of a marker cut in two (``LLOG {"``, ``G {"``), at a line's start."""
_DECODER = json.JSONDecoder()
_WORD_START = r"\[|  |[A-Z][a-z]{1,24}[:\s,]|[A-Z]{2,24}[ :]|[A-Z]\d{4} |\d{4}-\d\d-\d\d"
_PLACE_START = r"/[^\s\"]{1,255}:\d{1,9}: |[\w.-]{1,64}:\d{1,9}:\d{1,9} |[a-z]\w{0,64}\.(?:py|cc|cpp|h):\d"
_LINE_START = re.compile(f"(?={_WORD_START}|{_PLACE_START})")
"""Where another stream's line may begin (every such place, overlapping: ``timnode17:...``): a
bracketed level or date, two blanks, a capitalised word or one in capitals, glog's ``W1203 ``, a
date; a Python warning's ``path:line:``, NCCL's ``host:pid:tid ``, a source file's ``name.py:line``
(each of bounded length: the search stays linear in the record)."""


def joined_cut_records(lines: Iterable[bytes], joined: list[int]) -> Iterator[bytes]:
    """``lines`` with each record cut by another stream's line joined again (see the module
    docstring); ``joined[0]`` counts them."""
    held: list[bytes] = []  # (a cut record's line, then the lines after it)
    try:
        yield from _joined_lines(lines, joined, held)
    except Exception:  # (reading failed, a damaged gzip: the lines held are given before the error)
        yield from held
        raise
    yield from held


def _joined_lines(lines: Iterable[bytes], joined: list[int], held: list[bytes]) -> Iterator[bytes]:
    budget = [_BUDGET]
    seen: set[bytes] = set()  # (how lines without a record begin: another stream's lines repeat)
    for raw in lines:
        if not held and raw.endswith(_RECORD_ENDS) and _MARKER in raw:  # (the common line: whole records)
            yield raw
            continue
        if len(raw) >= MAX_LINE_BYTES and not raw.endswith(b"\n"):  # (the reader reads on from the stream)
            yield from held
            held.clear()
            yield raw
            continue
        if raw[:1] in b":MLOG" and _MARKER_END.match(raw) is not None and _MARKER not in raw:
            whole = _marker_joined(raw)
            if whole is not None:  # (the cut fell in the marker: the line goes on with the rest of it)
                yield from held
                held.clear()
                joined[0] += 1
                yield whole
                continue
        if held:
            if _MARKER in raw:
                yield from held
                held.clear()
            else:
                parts = _joined(held[0], raw, budget, seen)
                if parts is not None:
                    joined[0] += 1
                    _note(seen, parts[0])  # (the other stream's line, as it began)
                    yield parts[0]
                    yield from held[1:]
                    yield parts[1]
                    held.clear()
                    continue
                held.append(raw)
                _note(seen, raw)  # (after the join was tried: the end of the cut record confirms nothing)
                if len(held) > WINDOW:
                    yield from held
                    held.clear()
                continue
        if _MARKER in raw and raw.endswith(b"\n") and not _ends_a_record(raw) and _cut(raw):
            held.append(raw)
            continue
        if _MARKER not in raw:
            _note(seen, raw)
        yield raw


def _seen_at(body: str, at: int, seen: set[bytes]) -> bool:
    """Whether a line without a record began as the text of ``body`` at ``at`` does."""
    return body[at:at + _SEEN_BYTES].encode("utf-8", "surrogateescape") in seen


def _note(seen: set[bytes], raw: bytes) -> None:
    """Remember how a line without a record begins (for the first :data:`_SEEN_LINES` of them)."""
    if len(seen) < _SEEN_LINES:
        seen.add(raw[:_SEEN_BYTES].rstrip(b"\r\n"))


def _marker_joined(raw: bytes) -> bytes | None:
    """A line that begins with the end of a cut marker (``MLLOG {...}``) and holds a whole record:
    with the whole marker (the other stream's line holds the marker's beginning); else None."""
    rest = raw[_MARKER_END.match(raw).end():]  # type: ignore[union-attr]
    try:
        value, end = _DECODER.raw_decode(rest.decode("utf-8", errors="surrogateescape").lstrip())
    except (ValueError, RecursionError):
        return None
    return _MARKER + rest if isinstance(value, dict) and "key" in value and "event_type" in value else None


def _ends_a_record(raw: bytes) -> bool:
    """Whether a line ends as a whole record does: ``}``, then blanks or colour codes."""
    tail = raw[-64:].rstrip()
    return tail.endswith(b"}") or (b"\x1b" in tail and _COLOUR.sub(b"", tail).rstrip().endswith(b"}"))


def _cut(raw: bytes) -> bool:
    """Whether the last record of a line is not whole JSON (cut, or text glued to its end)."""
    text = raw[raw.rindex(_MARKER) + len(_MARKER):].decode("utf-8", errors="surrogateescape").lstrip()
    try:
        value, _ = _DECODER.raw_decode(text)
    except ValueError:
        return True
    except RecursionError:
        return False
    return not isinstance(value, dict)  # (``2026-...``: a date after the marker)


def _joined(cut: bytes, rest: bytes, budget: list[int], seen: set[bytes]) -> tuple[bytes, bytes] | None:
    """(the other stream's text, the whole record's line) of a line whose last record was cut and
    the line where that record ends; None when ``rest`` does not end it."""
    at = cut.rindex(_MARKER) + len(_MARKER)
    head = cut[at:].rstrip(b"\r\n").decode("utf-8", errors="surrogateescape")
    body_at = len(head) - len(head.lstrip()) if head.lstrip().startswith("{") else 0  # (else the cut is before it)
    body, tail = head[body_at:], rest.rstrip(b"\r\n").decode("utf-8", errors="surrogateescape")
    budget[0] -= len(body)  # (the places searched)
    if not tail or len(body) > _LONGEST or len(tail) > _LONGEST or budget[0] < 0:
        return None
    invalid, in_string = _invalid_from(body)
    if invalid is None:
        return None
    first = invalid + 1 if in_string else max(0, invalid - _NEAR)  # (not before: the text there is the record's)
    starts = [m.start() for m in islice(_LINE_START.finditer(body, first), _TRIES)]
    starts += islice((at for at in range(first, len(body)) if _seen_at(body, at, seen)), _TRIES)
    found = starts if in_string else [invalid, *starts]
    joins: list[tuple[int, str, object, int]] = []  # (place, record, value, flaws) of the joins that give a record
    for split in dict.fromkeys(found):  # (each place once, in order)
        record = (body[:split] + tail).lstrip()
        budget[0] -= len(record) // 8  # (the JSON decoder is C: a character costs an eighth of a search's)
        if budget[0] < 0:  # (a file of cut records and lines that end none: the work stays linear)
            return None
        try:
            value, end = _DECODER.raw_decode(record)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and _RECORD_FIELDS <= value.keys() and not record[end:].strip():
            joins.append((split, record, value, _flaws(value)))
    seen_joins = [join for join in joins if _seen_at(body, join[0], seen)]
    if seen_joins:  # (the first place whose text began a line before: later ones lie in that line's text)
        fewest = min(join[3] for join in seen_joins)
        chosen = [min((join for join in seen_joins if join[3] == fewest), key=lambda join: join[0])]
    elif not in_string and joins and joins[0][0] in starts:  # (where the JSON stops, a line begins)
        chosen = [join for join in joins if join[3] == min(j[3] for j in joins)]
    else:
        return None
    if any(value != chosen[0][2] for _, _, value, _ in chosen):
        return None  # (joins that give different records: which is right cannot be told)
    split, record, _, _ = chosen[0]
    other = body[split:].encode("utf-8", errors="surrogateescape")
    line = cut[:at] + head[:body_at].encode("utf-8", errors="surrogateescape") + record.encode("utf-8", errors="surrogateescape")
    return other + b"\n", line + rest[len(rest.rstrip(b"\r\n")):]


def _invalid_from(body: str) -> tuple[int | None, bool]:
    """Where a cut record's JSON stops being valid (None: it does not) and whether that is the
    start of a string left open (the cut lies in the string)."""
    try:
        value, _ = _DECODER.raw_decode(body)
    except RecursionError:
        return None, False
    except json.JSONDecodeError as error:
        return error.pos, error.msg.startswith("Unterminated string")
    return (None if isinstance(value, dict) else 0), False


def _flaws(record: dict[str, object]) -> int:
    """How many of a joined record's field names, metadata names, key and event type are no names of
    mlperf-logging's constants (a join at the wrong place mangles one: ``t_epoch_num``, or empties
    it: ``"": {...}``), plus one when its ``time_ms`` is no date of 2015-2100 (digits after the
    cut glued on: ``162026-12-03``)."""
    metadata = record.get("metadata")
    names = [*record, *(metadata if isinstance(metadata, dict) else ()), record["key"]]
    if "event_type" in record:
        names.append(record["event_type"])
    known = _known_names()
    time_ms = record["time_ms"]
    plausible = isinstance(time_ms, (int, float)) and _PLAUSIBLE_MS[0] <= time_ms <= _PLAUSIBLE_MS[1]
    return sum(1 for name in names if name not in known) + (not plausible)


@lru_cache(maxsize=1)
def _known_names() -> frozenset[object]:
    """The names of mlperf-logging's constants (keys, metadata), and the fields of a record."""
    from mlperf_logging.mllog import constants

    return frozenset({value for name, value in vars(constants).items() if name.isupper() and isinstance(value, str)
                      and value}
                     | {"namespace", "time_ms", "event_type", "key", "value", "metadata", "file", "lineno", "tensor",
                        "step", "metric"})
