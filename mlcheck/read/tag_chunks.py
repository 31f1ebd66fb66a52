"""Rank tags that OpenMPI (and poprun, which launches through it) wrote inside a line.

``mpirun --tag-output`` forwards a rank's output in the chunks it reads from the rank's pipe and
starts every chunk with the rank's tag, also a chunk that begins in the middle of a line: when
more than one read's worth was waiting (a burst of records at init, block-buffered ``print``),
the console shows ``..."event_type": "P[1,0]<stdout>:OINT_IN_TIME"...``. Between the two chunks
another rank's chunk may come (``[1,0]<stdout>::::MLLOG {"key": "ini[1,3]<stdout>:NCCL INFO
...``), and rank 0's line goes on at its next chunk, lines later.

Raw output (never a submitted result file, read as the official parser reads it) is given to the
reader with each rank's lines joined again, one output line per physical line so that line
numbers stay those of the file: a physical line gives the line of the rank whose text ends it
(its line end is that rank's), joined with what that rank printed of it before, on this line or
earlier ones; a piece of a rank's line that another rank's tag cuts is held until that rank's
line ends, unless it is a whole record (two ranks' records on one line, as a terminal shows
unflushed writes: they stay where they are, behind their tags). A line that does not begin with
a tag, or holds one tag only and no rank's line is held, or holds tags of two jobs (the first
job ended there), is given as it is. A piece whose rank did not go on (it died mid-line) is
given up at the first line of another job (another job's tag; a launcher's line or its word that
the job ended, such as mpirun's abort messages; mpirun's other notes end nothing), after
:data:`HOLD_LINES` lines without a piece of its rank, at an over-long line or at the end of the
file: it is put in front of the line before, where the reader finds a cut record, followed by
another (the line as it was, when that is where it was cut).

torchrun (``--tee``, or its console) writes each line a worker wrote to its log file behind the
worker's ``[<role><local rank>]:`` label, reading the file a line at a time: a worker whose output
is block-buffered leaves a line cut at a flush, which torchrun writes as it is and the rest behind
the label again (``[default0]::::MLLOG {"namespace":[default0]: "", ...``; another worker's line
may come between). Those lines are joined the same way: the labels of the role that begins the line
(``[default3]:`` and ``[default0]:``, not a logger's ``[rank0]:`` after it) are its ranks' tags. A
worker's piece that holds no record (a line of its progress) is left out rather than held: its rest
may come minutes later, and none of it is read.
"""

from __future__ import annotations

import json
import re
from typing import Callable, Iterable, Iterator, NamedTuple

from mlcheck.read.json_depth import within_limit
from mlcheck.read.job_starts import JOB_END, LAUNCH_LINE
from mlcheck.read.lazy_patterns import lazy_pattern
from mlcheck.read.long_lines import MAX_LINE_BYTES

_TAG = lazy_pattern(rb"(?:(?:[A-Z][a-z]{2} ){1,2}[ \d]\d \d\d:\d\d:\d\d(?: \d{4})?)?"
                  rb"(?P<tag>\[(?:[^\[\]\s,@]*@)?(?P<job>\d+),(?:mpirank:)?\d+(?:,[^\[\]\s,]+)?\]"
                  rb"(?:\[[^\[\]\s]*\])?<std(?:out|err)>:|\[(?P<role>[a-z][a-z_-]*?)\d+\]:)")
"""An OpenMPI/poprun rank tag (as :data:`mlcheck.read.rawlog.TAG`, in bytes), after the date that
``mpirun --timestamp-output`` writes in front of it (``Tue Apr 30 16:30:12 2024[1,0]<stdout>:``), or a
torchrun worker's label (``[default3]:``, :data:`mlcheck.read.rank_labels.LOCAL_RANK`: its ``role``)."""
_LABEL_DIGITS = b"0123456789"
_TAG_END = b"]<std"
_MARKER = b":::MLLOG"
_MARKER_STARTS = tuple(_MARKER[:end] for end in range(1, len(_MARKER)))
"""How a piece ends that a marker may go on from (``:::ML``)."""
_RECORD_START = re.compile(rb"(?:\x1b\[[0-9;]*m|[ \t])*:::MLLOG")
"""A rank's text that begins a record (after colour codes and blanks)."""
_DECODER = json.JSONDecoder()
HOLD_LINES = 100_000
"""Lines after which a piece of a rank's line that did not go on is given up (the rank died while
the others printed on: every rank's NCCL lines between two chunks of rank 0 are thousands)."""


class _Piece(NamedTuple):
    tag: bytes
    """The rank's tag (without a date)."""
    head: bytes
    """The tag as written (with its date, if any)."""
    text: bytes


class _Held(NamedTuple):
    head: bytes
    texts: list[bytes]
    """The pieces of the rank's unfinished line, in order."""
    cut_at: int
    """The line of its last piece."""


def joined_tag_chunks(lines: Iterable[bytes], joined: list[int], longest: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    """``lines`` with the chunks of each rank's line joined again (see the module docstring);
    ``joined[0]`` counts the lines given otherwise than they were; a line of ``longest`` bytes
    without its end is over-long."""
    chunks = TagChunks(longest)
    try:
        for raw in lines:
            if chunks.previous is None and not chunks.held and not _may_be_cut(raw):
                chunks.number += 1  # (the common line; nothing held back)
                yield raw
                continue
            yield from chunks.line(raw)
            joined[0] = chunks.joined
    except Exception:  # (reading failed, a damaged gzip: the line held back is given before the error)
        yield from chunks.release()
        raise
    yield from chunks.release()


class TagChunks:
    """One file's lines, a rank's chunks joined, one line at a time (``watch`` feeds them so)."""

    def __init__(self, longest: int = MAX_LINE_BYTES) -> None:
        self.longest = longest
        self.held: dict[bytes, _Held] = {}  # tag -> its rank's unfinished line
        self.previous: bytes | None = None  # (while a piece is held, lines are given one late: one given up goes before)
        self.number = 0
        self.joined = 0
        """The lines given otherwise than they were."""

    def line(self, raw: bytes) -> list[bytes]:
        """The lines that physical line ``raw`` lets go (none, one or two)."""
        self.number += 1
        held, previous = self.held, self.previous
        if not held and not _may_be_cut(raw):
            self.previous = None
            return [raw] if previous is None else [previous, raw]
        if len(raw) >= self.longest and not raw.endswith(b"\n"):  # (the reader reads on from the stream)
            self.previous = None
            return [raw] if previous is None else [_given_up(held, lambda tag, cut_at: True) + previous, raw]
        line = raw
        if held and previous is not None:
            first = _TAG.match(raw)
            job = first.group("job") if first is not None else None
            ended = job is None and _ends_a_job(raw)
            number = self.number
            previous = _given_up(held, lambda tag, cut_at: ended or (job is not None and _job(tag) != job)
                                 or cut_at < number - HOLD_LINES) + previous
        pieces = _pieces(raw)
        if pieces is not None:
            line, went_on = _line_of(pieces, held, self.number)
            self.joined += went_on or len(pieces) < _tag_count(raw, pieces)  # (a rank's line went on, or held its tag)
        self.previous = line
        return [] if previous is None else [previous]

    def hand_over(self) -> list[bytes]:
        """The line held back, the pieces still held (``watch`` at an idle poll: the job may write
        nothing more for a while, and the line held back may be the run's last)."""
        previous, self.previous = self.previous, None
        return [] if previous is None else [previous]

    def release(self) -> list[bytes]:
        """Every piece held given up, in front of the line held back (at the end of the file, or
        before an over-long line)."""
        rest = _given_up(self.held, lambda tag, cut_at: True)
        previous, self.previous = self.previous, None
        return [rest + (previous or b"")] if previous is not None or rest else []


def _line_of(pieces: list[_Piece], held: dict[bytes, _Held], number: int) -> tuple[bytes, bool]:
    """The line that physical line ``number`` of ``pieces`` gives: the pieces that stay (whole
    records of other ranks), then the last rank's line joined with what it held; the pieces of
    unfinished lines go to ``held``. And whether held text was joined."""
    *cut, (tag, head, text) = pieces
    stay = []
    for other, other_head, piece in cut:
        if other in held:
            held[other] = _Held(held[other].head, held[other].texts + [piece], number)  # (waited for again)
        elif other.endswith(b"]:") and _MARKER not in piece and not piece.endswith(_MARKER_STARTS):
            continue  # (a torchrun worker's text that holds no record: left out, not held for its rest)
        elif _unfinished(piece):
            held[other] = _Held(other_head, [piece], number)
        else:
            stay.append(other_head + piece)
    before = held.pop(tag, None)
    if before is None:
        return b"".join(stay) + head + text, False
    return b"".join(stay) + before.head + b"".join(before.texts) + text, True


def _unfinished(piece: bytes) -> bool:
    """Whether a rank's text cut by another rank's tag is not a whole record (its rank's line
    goes on later: a record cut short, text before a record, a marker cut short)."""
    at = piece.rfind(_MARKER)
    if at < 0:
        return True
    try:  # (a whole record, whatever follows it: a colour code's end, a blank)
        within_limit(_DECODER.raw_decode, piece[at + len(_MARKER):].decode("utf-8", errors="replace").lstrip(), True)
    except (ValueError, RecursionError):  # (too deep: no whole record here, as the reader refuses it)
        return True
    return False


def _ends_a_job(raw: bytes) -> bool:
    """An untagged line that launches a job or says it ended (mpirun's own notes in between, such
    as its help aggregation, end nothing)."""
    return LAUNCH_LINE.match(raw) is not None or JOB_END.search(raw) is not None


def _job(tag: bytes) -> bytes:
    """The job number of a rank tag (a torchrun label's: none)."""
    comma = tag.find(b",")
    return tag[1:comma].rpartition(b"@")[2] if comma > 0 else b""


def _may_be_cut(raw: bytes) -> bool:
    """Whether a line holds two rank tags (a cheap test before :func:`_pieces`): OpenMPI's, or the
    label of the torchrun role that begins it again further on (``[default0]:...[default1]:``)."""
    if raw.count(_TAG_END) >= 2:
        return True
    if not raw.startswith(b"["):
        return False
    end = raw.find(b"]:", 2, 64)
    role = raw[1:end].rstrip(_LABEL_DIGITS) if end > 0 else b""
    return 0 < len(role) < end - 1 and raw.find(b"[" + role, end) > 0


def _tag_count(raw: bytes, pieces: list[_Piece]) -> int:
    """The tags of the line's kind on it (a torchrun line's: of its role)."""
    first = pieces[0].tag
    if first.endswith(b">:"):
        return raw.count(_TAG_END)
    role = first[1:-2].rstrip(_LABEL_DIGITS)
    return sum(1 for tag in _TAG.finditer(raw) if tag.group("role") == role)


def _given_up(held: dict[bytes, _Held], stale: Callable[[bytes, int], bool]) -> bytes:
    """The pieces held that are ``stale`` (given their tag and line), each behind its tag,
    removed from ``held``."""
    old = [tag for tag, kept in held.items() if stale(tag, kept.cut_at)]
    return b"".join(held[tag].head + b"".join(held.pop(tag).texts) for tag in old)


def _pieces(raw: bytes) -> list[_Piece] | None:
    """Each rank's text on the line, in order (a rank's piece joined with its next when that
    comes next, unless that begins a record: a rank's whole records glued on a line keep their
    tags), or None when the line does not begin with a tag or holds tags of several jobs."""
    tags = list(_TAG.finditer(raw))
    if not tags or tags[0].start() != 0:
        return None
    role = tags[0].group("role")  # (a torchrun line: its role's labels are its tags, any other text)
    tags = [t for t in tags if t.group("role") == role] if role is not None else [t for t in tags if t.group("job")]
    if any(t.group("job") != tags[0].group("job") for t in tags):
        return None  # (a tag of another job: this one ended there, as the line shows)
    pieces: list[tuple[bytes, bytes, list[bytes]]] = []  # (joined once: a line of many tags stays linear)
    for tag, after in zip(tags, tags[1:] + [None]):
        text = raw[tag.end():after.start() if after is not None else len(raw)]
        if pieces and pieces[-1][0] == tag.group("tag") and not _RECORD_START.match(text):
            pieces[-1][2].append(text)  # (a cut of one rank's line)
        else:
            pieces.append((tag.group("tag"), tag.group(), [text]))
    return [_Piece(tag, head, b"".join(texts)) for tag, head, texts in pieces]
