"""Raw console output: recognise what surrounds a ``:::MLLOG`` record and count what was repaired.

The reader asks this module two things about the text in front of a record: which process printed
it (an OpenMPI/poprun ``[job,rank]<stdout>:`` tag, an ``srun --label`` or ``mpiexec -prepend-rank``
``[rank]`` prefix, or nothing), and
whether anything besides the tag had to be removed (a ``ts``/``srun`` timestamp, progress-bar text
ending in ``\\r``, colour codes). :class:`RawStats` counts every such repair and every dropped line
so that the reader can account for them in one MLC020 finding.
"""

from __future__ import annotations

import re
from typing import Iterable

from mlcheck.read.lazy_patterns import lazy_pattern
from mlcheck.records import dataclass, field
from mlcheck.read.host_labels import bare_host, host_label, host_source_name, lone_service, within_host
from mlcheck.read.rank_labels import (LOCAL_RANKS, LOGGER_RANK, RANK_LABEL, TASK_LOG_RANK, inner_rank, label_source,
                                      number, srun_task_name)
from mlcheck.read.rank_labels import TAG as TAG  # (an MPI rank tag: mlcheck.read.rawlog.TAG, as the readers name it)
from mlcheck.read.rank_labels import TIMESTAMP
from mlcheck.read.utf16_lines import WIDE_MARKS as WIDE_MARKS  # (re-exported: the readers' name for them)
from mlcheck.read.rank_labels import Source as Source  # (the readers' name for it: mlcheck.read.rawlog.Source)

_MARKER = ":::MLLOG"
_MARKER_BYTES = _MARKER.encode()
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
TIMESTAMP_BYTES = lazy_pattern(TIMESTAMP.pattern.encode())
_TIME_MS = re.compile(rb'"time_ms"\s*:\s*[-0-9.eE+]+')


@dataclass(frozen=True, slots=True)
class Prefix:
    """What was found in front of a record: its source and whether other text was removed."""

    source: Source | None
    timestamp: bool
    extra_text: bool
    """Text that is neither a tag, a label nor a timestamp (a progress bar, a ``\\r`` splice)."""
    stream: str | None = None
    """``stdout`` or ``stderr`` for a rank tag."""


def read_prefix(text: str) -> Prefix:
    """Classify the text in front of a record (line start or the end of the previous record).
    NUL bytes before it (a file's block a crashed client of a network file system left unwritten)
    are no text of the process."""
    if text[:1] == "\x00":
        text = text.lstrip("\x00")
    if not text:
        return Prefix(None, False, False)
    bare = RANK_LABEL.fullmatch(text)  # (the commonest, as read_parts reads them)
    if bare is not None:
        return Prefix(label_source(bare), False, False)
    tag = TAG.fullmatch(text)
    if tag is not None:
        return Prefix((number(tag.group(1)), number(tag.group(2))), False, False, tag.group(3))
    return read_parts(text)


def read_parts(text: str, depth: int = 0) -> Prefix:
    """:func:`read_prefix` of any text: a timestamp, rank tags or a label, and what is left."""
    position = 0
    stamp = TIMESTAMP.match(text)
    if stamp is not None:
        position = stamp.end()
    task_log = TASK_LOG_RANK.search(text, position)
    if task_log is not None:  # (Determined: a rank of the trial whatever container printed it)
        return Prefix((-3, number(task_log.group(1))), stamp is not None, False)
    host = host_label(text, position) or bare_host(text, position, RANK_LABEL, stamp is not None)
    if host is not None and host[1] < len(text) and depth < 4 and \
            (within := read_parts(text[host[1]:], depth + 1)).source is not None:
        return Prefix(within_host(host[0], within.source), stamp is not None or within.timestamp,  # (a launcher per host)
                      within.extra_text, within.stream)
    tags = list(TAG.finditer(text, position))
    if tags:
        last = tags[-1]
        source: Source | None = (number(last.group(1)), number(last.group(2)))
        after = TIMESTAMP.match(text, last.end())  # (``[1,0]<stdout>:May 02 09:14:34 [default1]:``: ts behind mpirun)
        inner = inner_rank(text, after.end() if after is not None else last.end())  # (a torchrun per mpirun rank)
        if inner is not None and source is not None:
            source = (source[0], (source[1] + 1) * LOCAL_RANKS + inner[0])
        rest_at = inner[1] if inner is not None else after.end() if after is not None else last.end()
        dated = after is not None and (inner is not None or not text[rest_at:].strip())  # (a date alone behind the tag too)
        leftover = text[position:tags[0].start()] + text[rest_at if dated or inner is not None else last.end():]
        if len(tags) > 1:
            leftover += "".join(text[a.end():b.start()] for a, b in zip(tags, tags[1:]))
        return Prefix(source, stamp is not None or dated, bool(leftover.strip()), last.group(3))
    # After a CR, the record is on the line the CR began: its label is the one after the CR
    # (``1: text\r0: :::MLLOG``: task 0's record), and the text the CR ended is spliced.
    cr = text.rfind("\r")
    label = RANK_LABEL.match(text, cr + 1) if cr >= position else None
    spliced = text[position:cr] if label is not None else ""
    if label is None:
        label = RANK_LABEL.match(text, position)
    if label is not None:
        source, end = label_source(label), label.end()
        after = TIMESTAMP.match(text, end) if source[0] in (-1, -2) else None  # (a date between the two: ts)
        inner = inner_rank(text, after.end() if after is not None else end) if source[0] in (-1, -2) else None
        if inner is not None:  # (``0: [default1]:``, ``[0]<stdout>:[RANK 1] ``: torchrun's (DeepSpeed's) local rank in a task)
            source, end = (source[0], (source[1] + 1) * LOCAL_RANKS + inner[0]), inner[1]
        dated = after is not None and (inner is not None or not text[after.end():].strip())  # (``0: 2024-05-02T09:14:34 ``)
        end = after.end() if dated and inner is None and after is not None else end
        return Prefix(source, stamp is not None or dated, bool(text[end:].strip()) or bool(spliced.strip()))
    logger = LOGGER_RANK.search(text, position)
    if logger is not None:  # (``[ts] [INFO] [logging.py:96:log_dist] [Rank 3] ``: a logger's head first)
        return Prefix((-3, number(logger.group(1))), stamp is not None, bool(text[position:logger.start()].strip()))
    if host is not None and not lone_service(text, position):  # (``node017: ``, ``[pod/NAME/CONTAINER] ``: one process per host)
        source, end = host
        stamp_after = TIMESTAMP.match(text, end)
        rest = text[stamp_after.end() if stamp_after is not None else end:]
        return Prefix(source, stamp is not None or stamp_after is not None, bool(rest.strip()))
    return Prefix(None, stamp is not None, bool(text[position:].strip()))


_SOURCES_NAMED = 8
"""Ranks named in MLC020 with the records kept from each; the others are counted."""


@dataclass
class RawStats:
    """Counts of everything the reader repaired or dropped in one file."""

    lines: int = 0
    records: int = 0
    noise_lines: int = 0
    tagged_records: int = 0
    colour_lines: int = 0
    crlf_lines: int = 0
    timestamp_records: int = 0
    spliced_records: int = 0
    shared_lines: int = 0
    trailing_texts: int = 0
    """Records with text after their JSON on their line (dropped), and the line of the first."""
    first_trailing: int = 0
    deduplicated: tuple[int, int] = (0, 0)
    """Records Ray's deduplication printed for several workers, and the line of the first (MLC029)."""
    repeated_prints: int = 0
    """Untagged records printed again on the next line, byte for byte (two log handlers): read once."""
    joined_lines: int = 0
    """Lines of a rank that mpirun's output chunks cut (its tag inside them), joined (tag_chunks)."""
    unwrapped_lines: int = 0
    """Lines taken out of a log driver's JSON object or a runtime's prefix (json_envelopes)."""
    rejoined_records: int = 0  # (records another stream's line cut, joined: cut_records)
    trailing_colour_lines: int = 0
    """Lines with colour codes after the marker (the official parser fails on them)."""
    first_trailing_colour: int | None = None  # (the first of them: MLC013 names it)
    kept: int = 0
    kept_sources: dict[Source, int] = field(default_factory=dict)
    unseen_records: int = 0  # (records the official parser does not see, no space after the marker: MLC027; not read)
    stopped: bool = False  # (reading raised, MLC001: MLC002 says so rather than "empty")
    nul_bytes: int = 0  # (NUL bytes, a block a crash left unwritten: MLC031 at the line of the first)
    first_nul_line: int = 0
    nul_lines_skipped: bool = field(default=False, compare=False)  # (the block reader counts NULs, or UTF-16/32's)

    def note_joins(self, chunks: int, unwrapped: int, cut: int = 0) -> None:
        """What the line stages before the reader repaired (tag_chunks, json_envelopes, cut_records)."""
        self.joined_lines, self.unwrapped_lines, self.rejoined_records = chunks, unwrapped, cut

    def note_trailing_text(self, text: str, line_no: int) -> None:
        self.trailing_texts += 1
        self.first_trailing = self.first_trailing or line_no
        if "x across cluster]" in text:
            self.deduplicated = (self.deduplicated[0] + 1, self.deduplicated[1] or line_no)

    def note_nul(self, line_no: int, raw: bytes) -> None:
        """NUL bytes in line ``line_no`` (``raw``): MLC031's, but a UTF-16 or UTF-32 file's (its characters')."""
        if line_no == 1 and raw.startswith(WIDE_MARKS):
            self.nul_lines_skipped = True  # (none counted: MLC009 says what the file is)
            return
        self.nul_bytes += raw.count(b"\x00")
        self.first_nul_line = self.first_nul_line or line_no

    def note_trailing_colour(self, line_no: int) -> None:
        self.trailing_colour_lines += 1
        if self.first_trailing_colour is None:
            self.first_trailing_colour = line_no

    @property
    def is_raw(self) -> bool:
        """True when the file is console output rather than a clean result file."""
        return bool(self.noise_lines or self.tagged_records or self.joined_lines or self.colour_lines or self.rejoined_records
                    or self.unwrapped_lines or
                    self.timestamp_records or self.spliced_records or self.shared_lines or self.trailing_texts
                    or self.repeated_prints)

    def describe(self, copies: str) -> str:
        """The MLC020 message: one sentence per kind of repair that happened."""
        parts = [f"raw job output: {_counted(self.lines, 'line')}, {_counted(self.records, ':::MLLOG record')} read"]
        if self.kept_sources:
            kept = sorted(self.kept_sources.items())
            ranks = ", ".join(source_name(s) + f" ({n})" for s, n in kept[:_SOURCES_NAMED])
            if len(kept) > _SOURCES_NAMED:  # (a result file keeps every rank's records)
                ranks += f", {len(kept) - _SOURCES_NAMED} more ranks ({sum(n for _, n in kept[_SOURCES_NAMED:])})"
            untagged = self.kept - sum(self.kept_sources.values())
            if untagged:
                ranks += f", untagged output ({untagged})"
            parts.append(f"records kept from {ranks}")
        if copies:
            parts.append(copies)
        counted = ((self.unwrapped_lines, "line{s} taken out of a log driver's envelope (Docker json-file, a "
                                       "container runtime's prefix, a logging export)"),
                   (self.noise_lines, "line{s} without a record dropped (launcher, warnings, progress)"),
                   (self.tagged_records, "rank tag{s} removed"),
                   (self.joined_lines, "line{s} of a rank that mpirun's output chunks cut (its tag inside the "
                                       "line) joined again"),
                   (self.rejoined_records, "record{s} cut by another stream's line (stderr in block-buffered stdout) joined"),
                   (self.colour_lines, "line{s} stripped of colour codes"),
                   (self.crlf_lines, "CRLF line end{s}"),
                   (self.timestamp_records, "timestamp prefix{es} removed"),
                   (self.spliced_records, "record{s} cut out of progress-bar or other text"),
                   (self.shared_lines, "line{s} holding several records split into one record each"),
                   (self.repeated_prints, "record{s} printed again, byte for byte, on the next line behind another "
                                          "prefix (a logger with two handlers) read once"),
                   (self.trailing_texts, f"record{{s}} with text after the JSON (the first at line {self.first_trailing}), "
                    "dropped (as it is, the official parser fails the file on it: `mlcheck split` writes it without)"))
        parts.extend(f"{count} " + what.format(s="" if count == 1 else "s", es="" if count == 1 else "es")
                     for count, what in counted if count)
        return "; ".join(parts)


def _counted(number: int, noun: str) -> str:  # (``1 line``, ``2 lines``)
    return f"{number} {noun}{'' if number == 1 else 's'}"


def source_name(source: Source | None) -> str:
    """``rank 3 of job 1``, ``srun task 0`` or ``untagged output``."""
    if source is None:
        return "untagged output"
    job, rank = source
    if rank < 0:
        return f"the second stream of rank {-1 - rank} of job {job}"
    named = srun_task_name(job, rank) or host_source_name(job, rank)
    if named is not None:
        return named
    if (job >= 0 or job == -2) and rank >= LOCAL_RANKS:  # (a rank label behind an MPI or Gloo tag: read_parts)
        return f"rank {rank // LOCAL_RANKS - 1}{f' of job {job}' if job >= 0 else ''} (rank {rank % LOCAL_RANKS} of its own label)"
    return f"rank {rank}" if job in (-2, -3) else f"rank {rank} of job {job}"


def second_stream(source: Source) -> Source:  # (where the copies a rank prints on a second stream are compared)
    return source[0], -1 - source[1]


def logging_ranks(lines: Iterable[bytes]) -> dict[int, set[int]]:
    """The ranks of each job (rank tags, and ``srun --label`` tasks as job -1) that print records
    in these lines (a lookahead); the lowest is the logging rank."""
    ranks: dict[int, set[int]] = {}
    sources: dict[str, Source | None] = {}  # tags repeat: each prefix is read once
    for raw in lines:
        at = raw.find(_MARKER_BYTES)
        if at <= 0:  # no record, or a clean record at the start of the line
            continue
        text = raw.decode("utf-8", errors="replace")
        start = 0
        for _ in range(text.count(_MARKER)):
            marker = text.index(_MARKER, start)
            before = text[start:marker]
            if before not in sources:
                sources[before] = read_prefix(ANSI.sub("", before)).source if len(sources) < 4096 else None  # (colour: as fed)
            source = sources[before]
            if source is not None:
                ranks.setdefault(source[0], set()).add(source[1])
            start = marker + len(_MARKER)
    return ranks


def duplicate_streams(lines: list[bytes], ranks: dict[int, set[int]]) -> set[tuple[int, int, str]]:
    """``(job, rank, stream)`` of the logging ranks (the lowest of ``ranks``) that print the same
    records on both stdout and stderr (a logger with two handlers): the stream with fewer
    records is read as copies. Two streams holding different records are both kept."""
    found = set()
    for job, seen in ranks.items():
        rank = min(seen)
        tags = {stream: f"[{job},{rank}]<{stream}>:".encode() for stream in ("stdout", "stderr")}
        if not all(any(tag + _MARKER_BYTES in raw for raw in lines) for tag in tags.values()):
            continue  # the usual case: one stream only (a cheap scan in C)
        texts: dict[str, set[bytes]] = {"stdout": set(), "stderr": set()}
        for raw in lines:
            for stream, tag in tags.items():
                at = raw.find(tag + _MARKER_BYTES)
                if at >= 0 and raw.find(_MARKER_BYTES, at + len(tag) + 8) < 0:
                    texts[stream].add(_TIME_MS.sub(b"", raw[at + len(tag):].rstrip()))
        fewer, more = sorted((texts["stderr"], texts["stdout"]), key=len)
        if fewer and len(fewer & more) >= 0.8 * len(fewer):
            found.add((job, rank, "stderr" if fewer is texts["stderr"] else "stdout"))
    return found


def tag_job(text: str) -> int | None:
    """The job number of the first rank tag in ``text`` (after a record: the next record's)."""
    tag = TAG.search(text)
    return number(tag.group(1)) if tag is not None else None
