"""An uncompressed result file read by blocks of 1 MiB: the lines without a record are counted in
C, a stretch at a time, instead of one Python step per line.

Most lines of a published result file carry no record (framework output: 200,000 of the 236,000
lines of the 5.0 round); the line reader only counts them (noise unless blank, CRLF ends) and
watches them for a launcher line (:data:`mlcheck.read.job_starts.LAUNCH_LINE`). Here the markers
are found with ``bytes.find``; the stretch of whole lines before each record line is counted in
:mod:`mlcheck.read.noise_counts`, and a launcher line goes to
:meth:`~mlcheck.read.line_reader.LineReader.feed` as before. Record lines are read as :func:`mlcheck.read.result_lines.read_result_lines` reads
them: a clean one here, any other by the line reader. From a record line, records with at most two
lines of other output between them are read in bulk with that output counted
(:mod:`mlcheck.read.mixed_runs`), else runs of record lines (:mod:`mlcheck.read.record_runs`).
Line numbers, counts and findings are those
of the line-by-line path (``tests/test_lean_reading.py`` compares them), over-long lines included:
a line longer than :data:`~mlcheck.read.line_reader.MAX_LINE_BYTES` is skipped unread (MLC014),
and what is held stays below that bound plus one block.
"""

from __future__ import annotations

from typing import IO, Iterator, cast

from mlcheck.read.fast_json import fast_body_event
from mlcheck.read.job_starts import may_hold_a_launch_line
from mlcheck.read.long_lines import LongLine, LongLineScan
from mlcheck.read.line_reader import MARKER_BYTES, MAX_LINE_BYTES, AnyItem, LineReader
from mlcheck.read.mixed_runs import dense_region_end, mixed_region
from mlcheck.read.rawlog import WIDE_MARKS
from mlcheck.read.noise_counts import BLANKS, SQUEEZE, StretchCounts, counted_and_fed, launcher_lines
from mlcheck.read.record_runs import MIN_LINES, Batch, bulk_events, record_run_end
from mlcheck.read.tagged_runs import next_is_tagged, run_sources, tagged_run, tagged_run_events

_BLOCK = 1 << 20


def _lines(chunk: bytes, counts: StretchCounts, reader: LineReader) -> Iterator[AnyItem | Batch]:
    """Whole lines (the last one may lack its line end: end of file).

    A record alone on its line (no colour, not after a rank's progress bar, whose tag
    :meth:`LineReader.feed` splices in) is decoded here, in one loop over the chunk: its counts
    are held in locals and added to ``counts`` before anything else reads them (the first
    finding of a line, a stretch of noise, the end), the next marker found once per line."""
    size = len(chunk)
    find = chunk.find
    plain = b"\x1b" not in chunk  # (no colour anywhere: no line to look at for it)
    crlf_ends = b"\r" in chunk and b"\r\n" in chunk  # (memchr first: most logs hold no CR)
    done = 0
    at = find(MARKER_BYTES)
    lines = crlf = 0  # (clean record lines not yet added to counts)
    longest = MAX_LINE_BYTES
    by_line_until = 0  # (a run of record lines the bulk path refused ends here)
    mixed_until = 0  # (the mixed path refused the rest of the chunk: not tried again before this)
    last_end = chunk.rfind(b"\n") + 1  # (the end of the last whole line)
    if b"\r" in chunk and chunk.count(b"\r") != chunk.count(b"\r\n"):  # (a lone CR ends the parser's line)
        longest, by_line_until, mixed_until = 0, size, size  # (each line read alone: LineReader.feed)
    try:
        while done < size:
            start = size if at < 0 else (
                at if at == done or chunk[at - 1] == 0x0A else chunk.rfind(b"\n", done, at) + 1 or done)
            if start > done:  # (lines without a record before this one, or to the end)
                counts.add_clean(lines, crlf)
                lines = crlf = 0
                stretch = chunk[done:start] if done or start < size else chunk
                squeezed = stretch.translate(SQUEEZE, BLANKS)
                launches = launcher_lines(stretch, stretch.lower()) if reader.job_starts.may_report(
                    reader.stats.kept + counts.records) and may_hold_a_launch_line(squeezed) else None
                if launches:
                    yield from counted_and_fed(stretch, launches, counts, reader)
                else:  # (no generator for a stretch that only counts)
                    counts.squeezed_stretch(stretch, squeezed, crlf_ends)
                _note_last_line(chunk, done, start, reader)
            if at < 0:
                return
            end = find(b"\n", at) + 1 or size
            if start == at and at >= by_line_until and reader.noise_tag is None \
                    and chunk.startswith(MARKER_BYTES, end) and _run_of(chunk, end, MARKER_BYTES):
                run_end = record_run_end(chunk, at)
                events = bulk_events(chunk[at:run_end], reader.line_no + counts.lines + lines + 1)
                if events is not None:
                    lines += len(events)
                    if crlf_ends:
                        crlf += chunk.count(b"\r\n", at, run_end + 1)
                    done = min(run_end + 1, size)
                    at = find(MARKER_BYTES, done)
                    yield events  # (a list: read_result_blocks flattens it unless batches are asked for)
                    continue
                by_line_until = run_end  # (this run is read line by line)
            if start == at and at >= mixed_until and at < last_end and not reader.tags_seen \
                    and reader.noise_tag is None:
                region_end = dense_region_end(chunk, at, last_end)
                mixed = mixed_region(chunk[at:region_end], reader.line_no + counts.lines + lines + 1) \
                    if region_end else None
                if mixed is not None:
                    counts.add_clean(lines, crlf)
                    lines = crlf = 0
                    counts.add_region(mixed.lines, len(mixed.events), mixed.noise,
                                      chunk.count(b"\r\n", at, region_end) if crlf_ends else 0)
                    done = region_end
                    at = find(MARKER_BYTES, done)
                    yield mixed.events
                    continue
                mixed_until = region_end or end  # (not tried again in this region)
            done = end
            following = find(MARKER_BYTES, at + 8)
            if start == at and end - start < longest and not 0 <= following < end \
                    and (plain or find(b"\x1b", at, end) < 0) and reader.noise_tag is None \
                    and chunk.startswith(b" ", at + 8):  # (the official parser's token: official_view)
                body = chunk[at + 8:end]
                event = fast_body_event(body, reader.line_no + counts.lines + lines + 1)
                if event is not None:
                    lines += 1
                    if crlf_ends and body.endswith(b"\r\n"):
                        crlf += 1
                    at = following
                    yield event
                    continue
            counts.add_clean(lines, crlf)
            lines = crlf = 0
            counts.flush(reader)
            head = chunk[start:at + 8] if start < at and start >= by_line_until else None
            bulk = None
            if head is not None and not chunk.startswith(head, end) and next_is_tagged(chunk, end) \
                    and not reader.tag_of_unknown_job(chunk[start:at]):  # (else its line meets the job)
                bulk = _several_tags_run(chunk, start, size, reader, crlf_ends)
            elif head is not None and chunk.startswith(head, end) and _run_of(chunk, end, head):
                bulk = _one_tag_run(chunk, start, at, size, head, reader, crlf_ends)
            if bulk is not None:
                run_end, events = bulk
                if events is not None:
                    done = run_end + 1
                    at = find(MARKER_BYTES, done)
                    yield events
                    continue
                by_line_until = run_end  # (this run is read line by line)
            event = reader.kept_tagged(chunk[start:end]) if start < at else None
            at = following if following < 0 or following >= end else find(MARKER_BYTES, end)
            if event is not None:  # (a record behind a rank tag, read without feed's generator)
                yield event
                continue
            yield from reader.feed(chunk[start:end])
    finally:
        counts.add_clean(lines, crlf)


def _one_tag_run(chunk: bytes, start: int, at: int, size: int, head: bytes, reader: LineReader,
                 crlf_ends: bool) -> tuple[int, Batch | None] | None:
    """The run of record lines behind one rank tag from the line at ``start`` (its marker at
    ``at``; ``head``: the tag and the marker): its end and its events, counted by ``reader``, or
    None for events when it is read line by line; None when the tag is not one kept_tagged reads."""
    source = reader.tagged_run_source(chunk[start:at])
    if source is None:
        return None
    run_end = record_run_end(chunk, start, head)
    if run_end >= size:  # (a last line without its end is not one kept_tagged reads)
        run_end = chunk.rfind(b"\n", start, size)
    events = bulk_events(chunk[start:run_end], reader.line_no + 1, at - start)
    if events is not None:
        reader.kept_tagged_run(source, events, chunk.count(b"\r\n", start, run_end + 1) if crlf_ends else 0)
    return run_end, events


def _several_tags_run(chunk: bytes, start: int, size: int, reader: LineReader,
                      crlf_ends: bool) -> tuple[int, Batch | None] | None:
    """:func:`_one_tag_run` of a run whose lines are behind the tags of several ranks
    (:mod:`mlcheck.read.tagged_runs`); None when the line at ``start`` begins none."""
    run = tagged_run(chunk, start, size)  # (every rank's records, one after another)
    if run is None:
        return None
    run_end, tags, records = run
    sources = run_sources(reader, tags) if tags else None
    events = None if sources is None else tagged_run_events(chunk, start, run_end, records, reader.line_no + 1)
    if sources is not None and events is not None:
        reader.kept_tagged_lines(sources, events, chunk.count(b"\r\n", start, run_end + 1) if crlf_ends else 0)
    return run_end, events


def _run_of(chunk: bytes, end: int, head: bytes) -> bool:
    """Whether, after the line at ``end`` (which the caller found to start with ``head``: a rank
    tag and the marker, or the marker), enough lines start with ``head`` for the bulk path
    (:data:`~mlcheck.read.record_runs.MIN_LINES` in all, with the line before ``end``): a few
    finds, where a shorter run would cost a pattern search and a split for nothing."""
    for _ in range(MIN_LINES - 2):
        end = chunk.find(b"\n", end) + 1 or len(chunk)
        if not chunk.startswith(head, end):
            return False
    return True


def _note_last_line(chunk: bytes, start: int, end: int, reader: LineReader) -> None:
    """Tell the reader of the last line of a stretch without a record (``chunk[start:end]``)."""
    if reader.tags_seen:
        reader.note_noise(chunk[chunk.rfind(b"\n", start, end - 1) + 1 or start:end])


def read_result_blocks(stream: IO[bytes], reader: LineReader, batches: bool = False) -> Iterator[AnyItem | Batch]:
    """Feed an uncompressed result file to ``reader`` by blocks (what ``read_result_lines`` does).
    With ``batches``, the events of a run of record lines read in bulk come as one list."""
    if batches:
        return _blocks(stream, reader)
    return _flattened(_blocks(stream, reader))


def _flattened(items: Iterator[AnyItem | Batch]) -> Iterator[AnyItem]:
    for item in items:
        if type(item) is list:
            yield from item
        else:
            yield cast(AnyItem, item)


def _blocks(stream: IO[bytes], reader: LineReader) -> Iterator[AnyItem | Batch]:
    counts = StretchCounts()
    held: list[bytes] = []  # the start of a line whose end is not read yet (joined once: linear)
    size = 0
    first_nul = -1  # (the line where a block a crash left unwritten begins: MLC031)
    wide: bool | None = None
    reader.stats.nul_lines_skipped = True
    try:
        while True:
            block = stream.read(_BLOCK)
            wide = block.startswith(WIDE_MARKS) if wide is None else wide  # (UTF-16's NULs are its characters')
            if b"\x00" in block and not wide:  # (memchr, a block at a time)
                first_nul = _nuls(block, first_nul, reader, counts)
            if not block:
                if held:
                    yield from _first_line(b"".join(held), counts, reader, at_end=True)
                reader.stats.first_nul_line = max(first_nul, 0)
                return
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                held.append(block)
                size += len(block)
                if size >= MAX_LINE_BYTES:  # over-long: skipped, and not held
                    counts.flush(reader)
                    long, rest = _rest_of_line(stream, held)
                    yield from reader.skip_long_line(long)
                    if b"\x00" in rest and not wide:  # (the lines after it in the last block read)
                        first_nul = _nuls(rest, first_nul, reader, counts)
                    cut = rest.rfind(b"\n") + 1
                    if cut:
                        yield from _lines(rest[:cut], counts, reader)
                    held, size = ([rest[cut:]] if cut < len(rest) else []), len(rest) - cut
                continue
            lines = b"".join((*held, block[:cut])) if held else block[:cut]
            held, size = ([block[cut:]] if cut < len(block) else []), len(block) - cut
            yield from _first_line(lines, counts, reader, at_end=False)
    finally:
        counts.flush(reader)


def _nuls(data: bytes, first: int, reader: LineReader, counts: StretchCounts) -> int:
    """The NUL bytes of ``data``, read from a line's start or within one, counted (MLC031): the line of the first
    of the file (``first``, or -1), the lines read and those before it in ``data``."""
    reader.stats.nul_bytes += data.count(b"\x00")
    return first if first >= 0 else reader.line_no + counts.lines + 1 + data.count(b"\n", 0, data.find(b"\x00"))


def _first_line(chunk: bytes, counts: StretchCounts, reader: LineReader, at_end: bool) -> Iterator[AnyItem | Batch]:
    """Whole lines of which only the first may be over-long (it began in an earlier block)."""
    first = chunk.find(b"\n") + 1 or len(chunk)
    if first > MAX_LINE_BYTES or (at_end and first == len(chunk) >= MAX_LINE_BYTES):
        counts.flush(reader)
        scan = LongLineScan(MAX_LINE_BYTES)
        scan.add(chunk[:first])
        yield from reader.skip_long_line(scan.finish())
        chunk = chunk[first:]
    if chunk:
        yield from _lines(chunk, counts, reader)


def _rest_of_line(stream: IO[bytes], held: list[bytes]) -> tuple[LongLine, bytes]:
    """Read past the rest of an over-long line whose first blocks are ``held``, a block at a time:
    what is kept of it (:mod:`mlcheck.read.long_lines`), and what follows its line end in the
    last block read."""
    scan = LongLineScan(MAX_LINE_BYTES)
    for block in held:
        scan.add(block)
    while True:
        block = stream.read(_BLOCK)
        end = block.find(b"\n") + 1
        scan.add(block[:end] if end else block)
        if end or not block:
            return scan.finish(), block[end:] if end else b""
