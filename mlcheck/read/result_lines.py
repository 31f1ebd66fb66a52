"""The lean path of a submitted result file: its lines read in one loop, without a generator or
a method call per line for the two lines it is made of.

A result file is read with every rank's records kept (``keep_copies``), so no lookahead for the
logging rank is needed and every line can be handled as it comes. Nearly every line is either a
clean record (``:::MLLOG {...}`` alone on the line, decoded by :func:`mlcheck.fast_json.fast_event`)
or a line without a record (framework output, counted as noise unless it is blank). Both are
handled here, keeping the line reader's counts; any other line (a prefix before the marker, two
records, colour codes, a record that does not decode cleanly, an over-long line, a launcher line)
goes to :meth:`mlcheck.line_reader.LineReader.feed`, which reads it exactly as before and reports
what is wrong with it. The counts the line reader consults are brought up to date before each
such call, so its findings and line numbers are those of the full path.
"""

from __future__ import annotations

import zlib
from typing import IO, Callable, Iterator

from mlcheck.read.fast_json import fast_event
from mlcheck.read.record_runs import Batch
from mlcheck.read.result_blocks import read_result_blocks
from mlcheck.read.job_starts import LAUNCH_LINE, may_name_a_launcher
from mlcheck.read.long_lines import LongLine
from mlcheck.read.line_reader import MARKER_BYTES, MAX_LINE_BYTES, TOKEN_BYTES, AnyItem, LineReader
from mlcheck.read import reading_rules as rules


def _may_launch(raw: bytes) -> bool:
    """Whether ``raw`` may be a launcher line (:data:`mlcheck.job_starts.LAUNCH_LINE`): it must
    name a launcher (:func:`mlcheck.read.job_starts.may_name_a_launcher`; the pattern ignores
    ASCII case, as ``bytes.lower`` does): substring searches in C instead of the pattern's match
    on every line without a record."""
    return may_name_a_launcher(raw.lower()) and LAUNCH_LINE.match(raw) is not None


def read_result_lines(lines: Iterator[bytes], reader: LineReader,
                      skip_line: Callable[[bytes], LongLine]) -> Iterator[AnyItem]:
    """Feed ``lines`` to ``reader``, handling clean record lines and noise lines inline.
    ``skip_line(first)`` reads past the rest of an over-long line whose first bytes were read and
    returns what is kept of it."""
    stats = reader.stats
    line_no = reader.line_no
    # Counts not yet added to ``stats`` (added before the reader is called, and at the end).
    lines_read = records = noise = crlf = 0
    try:
        for raw in lines:
            if len(raw) < MAX_LINE_BYTES:
                if raw.startswith(TOKEN_BYTES):  # (the parser's token: ':::MLLOG{' is MLC027, the reader's)
                    if raw.find(MARKER_BYTES, 8) < 0 and b"\x1b" not in raw and reader.noise_tag is None:
                        event = fast_event(raw, line_no + 1)
                        if event is not None:
                            line_no += 1
                            lines_read += 1
                            records += 1
                            if raw.endswith(b"\r\n"):
                                crlf += 1
                            yield event
                            continue
                elif MARKER_BYTES not in raw and not _may_launch(raw):
                    line_no += 1
                    lines_read += 1
                    if raw.endswith(b"\r\n"):
                        crlf += 1
                    if not raw.isspace():  # (as ``raw.strip()``: the same ASCII blanks)
                        noise += 1
                    if reader.tags_seen:  # (a progress bar's tag goes to a record after it)
                        reader.note_noise(raw)
                    if b"\x00" in raw and not stats.nul_lines_skipped:  # (a block a crash left unwritten: MLC031)
                        stats.note_nul(line_no, raw)
                    continue
            stats.lines += lines_read
            stats.records += records
            stats.kept += records
            stats.noise_lines += noise
            stats.crlf_lines += crlf
            lines_read = records = noise = crlf = 0
            reader.line_no = line_no
            if len(raw) >= MAX_LINE_BYTES and not raw.endswith(b"\n"):
                yield from reader.skip_long_line(skip_line(raw))
            else:
                event = reader.kept_tagged(raw)  # (a record behind a rank tag: no generator)
                if event is not None:
                    yield event
                else:
                    yield from reader.feed(raw)
            line_no = reader.line_no
    finally:
        stats.lines += lines_read
        stats.records += records
        stats.kept += records
        stats.noise_lines += noise
        stats.crlf_lines += crlf
        reader.line_no = line_no


def read_result_file(lines: Iterator[bytes], path: str, skip_line: Callable[[bytes], LongLine],
                     plain: IO[bytes] | None = None, batches: bool = False) -> Iterator[AnyItem | Batch]:
    """Every item of a result file read with all ranks' records kept (``read_mllog(...,
    keep_copies=True)``): as the full path reads it, damage to the file included. ``plain``, an
    uncompressed file, is read by blocks (:func:`mlcheck.read.result_blocks.read_result_blocks`;
    ``batches``: the events of its runs of record lines read in bulk as lists)."""
    reader = LineReader(path, keep_copies=True)
    try:
        if plain is not None:
            yield from read_result_blocks(plain, reader, batches)
        else:
            yield from read_result_lines(lines, reader, skip_line)
    except (OSError, EOFError, zlib.error) as error:
        yield rules.reading_stopped(path, reader.line_no, error)
    yield from reader.finish()
