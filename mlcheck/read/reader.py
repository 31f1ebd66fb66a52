"""Stream ``:::MLLOG`` records out of a log file, line by line, turning every problem into a finding.

The reader never raises on bad input: an unreadable file, a malformed line, a record of the wrong
shape or a file that ends mid-record each become a :class:`~mlcheck.model.Finding` with the physical
1-based line, and reading goes on. Memory does not depend on the size of the file, nor on the
length of a line: at most ``MAX_LINE_BYTES`` of one physical line is held, a longer line is skipped
(MLC014), and the lookahead that finds the logging rank stops at 4000 lines with a record, 100,000
lines or 16 MiB.

Raw job output is read here too (see ``mlcheck.read.raw_output_rules`` for the rules): rank tags,
timestamps, progress-bar text and colour codes in front of a record are removed, copies printed by
other ranks are dropped (``mlcheck.read.rank_copies``), lines without a record are skipped, and one
MLC020 finding accounts for all of it. A clean result file takes the fast path: a line that starts
with ``:::MLLOG`` and holds one record is parsed exactly as before.
"""

from __future__ import annotations

import io
import os
import sys
import zlib
from functools import partial
from itertools import islice
from typing import IO, Iterator, Mapping, cast

from mlcheck.read.long_lines import LongLine, LongLineScan
from mlcheck.read.line_reader import (MARKER, MARKER_BYTES, MAX_LINE_BYTES, AnyItem, LineReader,
                                      LogItem, RawItem, RecordText)
from mlcheck.read.concurrent_jobs import one_job_lines
from mlcheck.read.file_names import SUBMITTED_RESULT_FILE
from mlcheck.read.log_files import link_to_nothing, open_log
from mlcheck.read.rank_processes import first_of_sequential_ranks, this_jobs_lines
from mlcheck.read.rank_files import per_rank_note
from mlcheck.read.rawlog import duplicate_streams, logging_ranks
from mlcheck.read.record_runs import Batch
from mlcheck.read.result_lines import read_result_file
from mlcheck.read.json_envelopes import unwrapped_json_lines
from mlcheck.read.file_headers import FileHeaders, headed_file_lines
from mlcheck.read.tag_chunks import joined_tag_chunks
from mlcheck.read.cut_records import rejoined_cut_records
from mlcheck.read.utf16_lines import Utf16Lines, wide_encoding
from mlcheck.read import reading_rules as rules

__all__ = ["MARKER", "MARKER_BYTES", "MAX_LINE_BYTES", "AnyItem", "Batch", "LineReader", "LogItem", "RawItem",
           "Promotions", "RecordText", "feed_line", "open_log", "read_mllog", "read_records", "read_result_batches"]

Promotions = Mapping[tuple[int, bytes], int]
"""(job, key as written) -> the rank whose records of that key a second reading keeps (MLC028)."""

_LOOKAHEAD_RECORDS = 4000
"""Lines with a record held back to find the logging rank (launcher noise does not count)."""
_LOOKAHEAD_LINES = 100_000
_LOOKAHEAD_BYTES = 16 * 1024 * 1024
_SKIP_CHUNK = 1024 * 1024


def read_mllog(path: str, display: str | None = None, lines: int | None = None,
               keep_copies: bool = False, promote: Promotions | None = None,
               elsewhere: dict[tuple[int, bytes], int] | None = None, only_job: int | None = None) -> Iterator[LogItem]:
    """Yield the events of a log in order, interleaved with findings about reading problems.

    ``display`` is the path written into findings (the path as the user gave it); ``lines``
    stops after that many physical lines (a log that is still being written). ``keep_copies``
    keeps the records every rank printed, as the official parser sees a submitted result file
    (their duplicates are then judged by the rules of the round, not dropped as copies).
    ``elsewhere`` is filled at the end with the keys of raw output only ranks other than the
    logging rank printed (MLC028): given as ``promote`` to a second reading, they are kept.
    ``only_job`` reads the lines of that MPI job alone (:mod:`mlcheck.read.concurrent_jobs`).
    """
    return cast(Iterator[LogItem], _read(path, display, keep_text=False, lines=lines, keep_copies=keep_copies,
                                         promote=promote, elsewhere=elsewhere, only_job=only_job))


def read_result_batches(path: str, lines: int | None = None) -> Iterator[LogItem | Batch]:
    """:func:`read_mllog` of a result file (``keep_copies``), the events of each run of record
    lines read in bulk (:mod:`mlcheck.read.record_runs`) as one list: what
    :func:`mlcheck.read.runs.iter_runs` takes without a step per record."""
    return cast(Iterator["LogItem | Batch"], _read(path, None, keep_text=False, lines=lines,
                                                   keep_copies=True, batches=True))


def read_records(path: str, display: str | None = None, promote: Promotions | None = None,
                 elsewhere: dict[tuple[int, bytes], int] | None = None, only_job: int | None = None) -> Iterator[RawItem]:
    """Like :func:`read_mllog`, with the text of each kept record (what ``mlcheck split`` writes)."""
    return cast(Iterator[RawItem], _read(path, display, keep_text=True, promote=promote, elsewhere=elsewhere,
                                         only_job=only_job))


def _read(path: str, display: str | None, keep_text: bool, lines: int | None = None,
          keep_copies: bool = False, batches: bool = False, promote: Promotions | None = None,
          elsewhere: dict[tuple[int, bytes], int] | None = None, only_job: int | None = None) -> Iterator[AnyItem | Batch]:
    shown = display or path
    try:
        stream = open_log(path)
    except IsADirectoryError:
        yield rules.FILE_UNREADABLE.at(shown, None, "a folder named like a log: the official package checker's "
                      "glob counts a result_*.txt folder as a result file and crashes reading it; remove it"
                      if SUBMITTED_RESULT_FILE.match(os.path.basename(os.path.normpath(path))) else
                      "a folder, not a log file: name a log, or give the folder to `mlcheck check`")
        return
    except OSError as error:
        from mlcheck.read.stdin_copy import StdinCopyError

        if isinstance(error, StdinCopyError):  # (mlcheck's own temporary copy: no verdict of the checker's)
            yield rules.FILE_UNREADABLE.at(shown, None, str(error.strerror), official=False)
            return
        yield rules.FILE_UNREADABLE.at(shown, None, f"cannot open the log: {error.strerror or error}; " + (
            f"it is a link to {target!r}, which leads to no file" if path != "-" and (target := link_to_nothing(path)) else
            "check the path and its permissions"))
        return
    try:
        if type(stream) is not io.BufferedReader and path != "-" and \
                SUBMITTED_RESULT_FILE.match(os.path.basename(path)):  # (gzip behind a result file's name)
            yield rules.COMPRESSED_RESULT_FILE.at(shown, None, (
                "this result file is gzip-compressed: mlcheck reads it, but the official checker reads "
                "its bytes as text, finds no record and fails it; submit it uncompressed"))
        head = _head(stream)
        if isinstance(head, BaseException):  # (a damaged gzip header: a read after it would find nothing)
            yield from (rules.reading_stopped(shown, 0, head), rules.no_records(shown, 0, 0, 0, stopped=True))
            return
        wide = wide_encoding(head)
        if wide:
            if SUBMITTED_RESULT_FILE.match(os.path.basename(path)) or keep_copies:
                yield rules.INVALID_UTF8.at(shown, 1, (
                    f"the file is {wide} (it begins with a {wide} byte order mark): mlcheck and the official "
                    f"parser read UTF-8 and find no record in it. Convert it: iconv -f {wide} -t UTF-8"))
            else:  # (a console saved by a Windows shell: read as it is written)
                stream = Utf16Lines(stream, wide)  # type: ignore[assignment]
                yield rules.INVALID_UTF8.at(shown, 1, (
                    f"the file is {wide} (it begins with a {wide} byte order mark): mlcheck reads it so, but "
                    "the official parser reads UTF-8: `mlcheck split` writes UTF-8 result files of it"))
        yield from filter(None, (per_rank_note(path, shown),))
        yield from _read_stream(stream, shown, keep_text, lines, keep_copies, batches, promote, elsewhere, only_job)
    finally:
        stream.close()


def _head(stream: IO[bytes]) -> bytes | BaseException:
    """The first bytes of a log opened (inside its gzip: a console may be UTF-16 there too), or
    the error reading them raised (a damaged gzip header, a gzip cut within its first bytes)."""
    gzip_file = getattr(sys.modules.get("gzip"), "GzipFile", None)  # (imported where a gzip log is opened; None
    if type(stream) is io.BufferedReader or gzip_file is not None and isinstance(stream, gzip_file):  # half imported)
        try:
            return cast("io.BufferedReader", stream).peek(8)[:8]
        except (OSError, EOFError, zlib.error) as error:
            return error
    return b""


def _read_stream(stream: IO[bytes], path: str, keep_text: bool, limit: int | None = None,
                 keep_copies: bool = False, batches: bool = False, promote: Promotions | None = None,
                 elsewhere: dict[tuple[int, bytes], int] | None = None,
                 only_job: int | None = None) -> Iterator[AnyItem | Batch]:
    # The first lines are held back (4000 with a record, 100,000 or 16 MiB) to find the logging
    # rank of raw output before any record is judged, and so are the lines from the first record
    # of a job met later (another mpirun); over-long lines are held as their length only.
    ahead: list[bytes | LongLine] = []
    ahead_bytes = ahead_records = 0
    reader: LineReader | None = None
    # readline(limit) keeps what is held of one physical line bounded; iter(partial) stays in C.
    lines: Iterator[bytes] = iter(partial(stream.readline, MAX_LINE_BYTES), b"")
    if limit is not None:
        lines = islice(lines, limit)
    if only_job is not None:  # (raw output of MPI jobs that ran at once: this job's lines alone)
        lines = one_job_lines(lines, only_job)
    if keep_copies and not keep_text:  # a result file: every rank kept, no rank to look ahead for
        plain = stream if limit is None and type(stream) is io.BufferedReader else None
        yield from read_result_file(lines, path, partial(_skip_line, stream), plain, batches)
        return
    joined, unwrapped, rejoined = [0], [0], [0]
    lines = unwrapped_json_lines(lines, unwrapped)  # (raw output: Docker's json-file lines, logging exports)
    lines = headed_file_lines(lines, FileHeaders())  # (raw output: tail -v's files, each a rank's)
    lines = joined_tag_chunks(lines, joined, MAX_LINE_BYTES)  # (raw output: a rank's line cut by mpirun's chunks, joined)
    lines = rejoined_cut_records(lines, rejoined)  # (raw output: a record cut by stderr into block-buffered stdout)
    try:
        for raw in lines:
            line: bytes | LongLine = raw
            if len(raw) >= MAX_LINE_BYTES and not raw.endswith(b"\n"):
                line = _skip_line(stream, raw)
            if reader is not None and not ahead:
                if raw == b"\n":  # (a blank line, as feed reads it: counted, no rank's progress bar before a record)
                    reader.line_no += 1
                    reader.stats.lines += 1
                    reader.noise_tag = None
                    continue
                if line is raw and raw.startswith(MARKER_BYTES) and raw.find(MARKER_BYTES, 8) < 0:
                    yield from reader.feed(raw)  # a clean record line: no tag, no copy, no job
                    continue
                dropped = reader.drop_copy(raw)
                if dropped is True:
                    continue
                if dropped is not False:
                    yield dropped
                    continue
                if not (isinstance(line, bytes) and reader.prefixes.starts_a_job(line)):
                    yield from feed_line(reader, line)
                    continue
            ahead.append(line)  # the first lines, or those after a new job's first record
            if isinstance(line, bytes):
                ahead_bytes += len(line)
                ahead_records += MARKER_BYTES in line
            if ahead_records >= _LOOKAHEAD_RECORDS or len(ahead) >= _LOOKAHEAD_LINES \
                    or ahead_bytes >= _LOOKAHEAD_BYTES:
                reader = looked_ahead(reader, path, ahead, keep_text, keep_copies, promote)
                yield from replay_lookahead(reader, ahead, path, keep_text, keep_copies, promote)
                ahead, ahead_bytes, ahead_records = [], 0, 0
    except (OSError, EOFError, zlib.error) as error:
        if reader is None or ahead:  # the damage came within a lookahead: read what came before it
            reader = looked_ahead(reader, path, ahead, keep_text, keep_copies, promote)
            yield from replay_lookahead(reader, ahead, path, keep_text, keep_copies, promote)
        yield rules.reading_stopped(path, reader.line_no, error)
        reader.stats.stopped = True
        reader.stats.note_joins(joined[0], unwrapped[0], rejoined[0])
        yield from reader.finish()
        return
    if reader is None or ahead:
        reader = looked_ahead(reader, path, ahead, keep_text, keep_copies, promote)
        yield from replay_lookahead(reader, ahead, path, keep_text, keep_copies, promote)
    reader.stats.note_joins(joined[0], unwrapped[0], rejoined[0])
    yield from reader.finish()
    if elsewhere is not None:
        elsewhere.update(reader.copies.elsewhere())


def looked_ahead(reader: LineReader | None, path: str, ahead: list[bytes | LongLine],
                  keep_text: bool, keep_copies: bool = False, promote: Promotions | None = None) -> LineReader:
    """The reader once the lines held back tell the logging rank of each job in them: a new
    reader after the first lines, the same one told of the new jobs after a later lookahead."""
    if keep_copies:  # every record is kept: no logging rank to find
        if reader is not None:
            reader.prefixes.relaunched = False
        return reader or LineReader(path, keep_text=keep_text, keep_copies=True)
    texts = this_jobs_lines(_texts(ahead))  # (the next job of a seed loop: its own lookahead)
    ranks = logging_ranks(texts)
    first = first_of_sequential_ranks(texts, ranks)
    duplicates = duplicate_streams(texts, ranks)
    if reader is None:
        return LineReader(path, ranks, keep_text, duplicates, promote=promote, first=first)
    reader.copies.add_jobs(ranks, first)
    reader.prefixes.relaunched = False
    reader.prefixes.duplicates |= {d for d in duplicates if d[0] in ranks}
    return reader


def feed_line(reader: LineReader, line: bytes | int | LongLine) -> Iterator[AnyItem]:
    """One physical line: its bytes, or what is kept of an over-long line (its length alone
    from a followed file)."""
    return reader.feed(line) if isinstance(line, bytes) else iter(reader.skip_long_line(line))


def replay_lookahead(reader: LineReader, ahead: list[bytes | LongLine], path: str, keep_text: bool, keep_copies: bool,
            promote: Promotions | None) -> Iterator[AnyItem]:
    """Feed the lines held back; after a launcher line among them (a new job: its logging ranks
    forgotten), the lines left tell them again before the next record is fed."""
    for at, line in enumerate(ahead):
        if reader.prefixes.relaunched and isinstance(line, bytes) and reader.prefixes.starts_a_job(line):
            looked_ahead(reader, path, ahead[at:], keep_text, keep_copies, promote)
        yield from feed_line(reader, line)


def _texts(lines: list[bytes | LongLine]) -> list[bytes]:
    return [line for line in lines if isinstance(line, bytes)]


def _skip_line(stream: IO[bytes], first: bytes) -> LongLine:
    """Read past the rest of an over-long physical line whose first ``first`` bytes were read,
    holding at most the limit of it (:mod:`mlcheck.read.long_lines`)."""
    scan = LongLineScan(MAX_LINE_BYTES)
    scan.add(first)
    while True:
        chunk = stream.readline(_SKIP_CHUNK)
        scan.add(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return scan.finish()


