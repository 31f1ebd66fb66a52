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

Where the cut lies is found from the JSON: where it stops being valid (or nearby, where a log
line's first text begins: the ``[`` of ``"key":[W`` opens an array, ``0.`` is no number, a date's
digits go on a number), or, when a string is left open, at the first place in it where a log
line's first text begins (``[``, a capitalised word, glog's ``W1203``, a date, a warning's
``path:line:``, NCCL's ``host:pid:tid``). Of the places whose join is a JSON object with
``time_ms``, ``key`` and ``value``, the first is taken whose field names, metadata names, key and
event type are all names of mlperf-logging's constants and whose ``time_ms`` is a date of
2015-2100 (else the one with the fewest such flaws: ``"firs" + "node17:..."`` is joined at
``node17``, where ``first_epoch_num`` is whole again). Inside a string value the text of the
other stream can begin like the string's own (``"tra" + "node17:..."``: ``train.py`` or
``in.py``?): the first place is taken. Otherwise the lines stay as they were and the reader
reports the cut record (MLC023). A cut within the marker leaves its beginning (``:::``) on the
other stream's line and the rest (``MLLOG {...}``) at the start of the next: such a line holding
a whole record is read with the whole marker.
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
"""Places at which a cut is tried (the first texts that begin a line)."""
_NEAR = 8
_LONGEST = 1 << 16
"""The longest cut record joined (a record is a few hundred bytes)."""
_BUDGET = 5_000_000
"""Characters of cut records searched for the cut in a file (a few seconds at most; the cut
records of 100 MB of block-buffered output): past them, cut records are reported as they are."""
"""Characters on either side of where the JSON stops being valid in which a cut is tried first."""
_RECORD_FIELDS = frozenset({"time_ms", "key", "value"})
"""Fields a joined record must have (a join at the wrong place mangles a field's name)."""
_PLAUSIBLE_MS = (1.42e12, 4.1e12)
"""Milliseconds of 2015 to 2100 (a record's time, as MLC405 reads it)."""
_MARKER = b":::MLLOG"
_MARKER_END = re.compile(rb"(?:::MLLOG|:MLLOG|MLLOG|LLOG|LOG|OG|G)(?= ?\{\")")
"""The end of a marker cut in two (``LLOG {"``, ``G {"``), at a line's start."""
_DECODER = json.JSONDecoder()
_STRONG_START = r"\[|  |[A-Z][a-z]{1,24}[:\s,]|[A-Z]{2,24}[ :]|[A-Z]\d{4} |\d{4}-\d\d-\d\d"
_WEAK_START = r"/[^\s\"]{1,255}:\d{1,9}: |[\w.-]{1,64}:\d{1,9}:\d{1,9} |[a-z]\w{0,64}\.(?:py|cc|cpp|h):\d"
_LINE_START = re.compile(f"(?={_STRONG_START}|{_WEAK_START})")
"""Where another stream's line may begin (every such place, overlapping: ``timnode17:...``): a
bracketed level or date, two blanks, a capitalised word or one in capitals, glog's ``W1203 ``, a
date; a Python warning's ``path:line:``, NCCL's ``host:pid:tid ``, a source file's ``name.py:line``
(each of bounded length: the search stays linear in the record)."""
_STRONG = re.compile(_STRONG_START)
"""The beginnings that no number or name of a record continues (a date's digits do: ``1172026``)."""


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
    for raw in lines:
        if not held and raw.endswith(b"}\n") and _MARKER in raw:  # (the common line: whole records)
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
                parts = _joined(held[0], raw, budget)
                if parts is not None:
                    joined[0] += 1
                    yield parts[0]
                    yield from held[1:]
                    yield parts[1]
                    held.clear()
                    continue
                held.append(raw)
                if len(held) > WINDOW:
                    yield from held
                    held.clear()
                continue
        if _MARKER in raw and not raw.rstrip().endswith(b"}") and raw.endswith(b"\n") and _cut(raw):
            held.append(raw)
            continue
        yield raw


def _marker_joined(raw: bytes) -> bytes | None:
    """A line that begins with the end of a cut marker (``MLLOG {...}``) and holds a whole record:
    with the whole marker (the other stream's line holds the marker's beginning); else None."""
    rest = raw[_MARKER_END.match(raw).end():]  # type: ignore[union-attr]
    try:
        value, end = _DECODER.raw_decode(rest.decode("utf-8", errors="surrogateescape").lstrip())
    except (ValueError, RecursionError):
        return None
    return _MARKER + rest if isinstance(value, dict) and "key" in value and "event_type" in value else None


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


def _joined(cut: bytes, rest: bytes, budget: list[int]) -> tuple[bytes, bytes] | None:
    """(the other stream's text, the whole record's line) of a line whose last record was cut and
    the line where that record ends; None when ``rest`` does not end it."""
    at = cut.rindex(_MARKER) + len(_MARKER)
    head = cut[at:].rstrip(b"\r\n").decode("utf-8", errors="surrogateescape")
    body_at = len(head) - len(head.lstrip())
    body, tail = head[body_at:], rest.rstrip(b"\r\n").decode("utf-8", errors="surrogateescape")
    budget[0] -= len(body)  # (the places searched)
    if not tail or len(body) > _LONGEST or len(tail) > _LONGEST or budget[0] < 0:
        return None
    invalid, in_string = _invalid_from(body)
    if invalid is None:
        return None
    if in_string:
        found = [*islice((m.start() for m in _LINE_START.finditer(body, invalid + 1)), _TRIES), len(body)]
    else:  # (there, else nearby: the text after the cut may begin validly, ``[``, or the cut token not, ``0.``)
        starts = [m.start() for m in islice(_LINE_START.finditer(body, max(0, invalid - _NEAR)), _TRIES)]
        near = sorted((at for at in starts if abs(at - invalid) <= _NEAR), key=lambda at: abs(at - invalid))
        strong = [at for at in near if _STRONG.match(body, at)]  # (before the place: ``117`` + ``2026-...``)
        found = [*strong, invalid, *near, *(at for at in starts if at > invalid + _NEAR), len(body)]
    best: tuple[int, int, str] | None = None  # (unknown field names, place, record)
    for split in found:
        record = (body[:split] + tail).lstrip()
        budget[0] -= len(record) // 8  # (the JSON decoder is C: a character costs an eighth of a search's)
        if budget[0] < 0:  # (a file of cut records and lines that end none: the work stays linear)
            return None
        try:
            value, end = _DECODER.raw_decode(record)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and _RECORD_FIELDS <= value.keys() and not record[end:].strip():
            unknown = _unknown_names(value)
            if best is None or unknown < best[0]:
                best = (unknown, split, record)
            if not unknown:
                break
    if best is None:
        return None
    _, split, record = best
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


def _unknown_names(record: dict[str, object]) -> int:
    """How many of a joined record's field names, metadata names, key and event type are no names of
    mlperf-logging's constants (a join at the wrong place mangles one: ``t_epoch_num``), plus one
    for each field of mllog's records it lacks, and one when its ``time_ms`` is no date of
    2015-2100 (digits after the cut glued on: ``162026-12-03``)."""
    metadata = record.get("metadata")
    names = [*record, *(metadata if isinstance(metadata, dict) else ()), record["key"], record.get("event_type", "")]
    known = _known_names()
    time_ms = record["time_ms"]
    plausible = isinstance(time_ms, (int, float)) and _PLAUSIBLE_MS[0] <= time_ms <= _PLAUSIBLE_MS[1]
    missing = sum(1 for name in ("namespace", "event_type", "metadata") if name not in record)
    return sum(1 for name in names if name not in known) + missing + (not plausible)


@lru_cache(maxsize=1)
def _known_names() -> frozenset[object]:
    """The names of mlperf-logging's constants (keys, metadata), and the fields of a record."""
    from mlperf_logging.mllog import constants

    return frozenset({value for name, value in vars(constants).items() if name.isupper() and isinstance(value, str)
                      and value}
                     | {"namespace", "time_ms", "event_type", "key", "value", "metadata", "file", "lineno", "tensor",
                        "step", "metric"})
