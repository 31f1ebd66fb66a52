"""Read a log one physical line at a time: the clean fast path, raw job output (rank tags, timestamps, progress bars,
colour codes, copies printed by other ranks), and the record checks. :mod:`mlcheck.read.reader` drives it over a
file; ``mlcheck watch`` feeds it the lines it follows."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from typing import Generator, Iterator, Mapping

from mlcheck.read.fast_json import fast_event
from mlcheck.read.fast_lines import FastLines
from mlcheck.read.file_names import RESULT_FILE
from mlcheck.read.items import AnyItem as AnyItem, LogItem as LogItem, RawItem as RawItem, RecordText as RecordText, \
    RefusedRecordText  # (re-exported but the last)
from mlcheck.read.job_starts import JobStarts
from mlcheck.model import Event, Finding, Severity
from mlcheck.read.rank_copies import RankCopies
from mlcheck.read.prefixes import PrefixDecisions
from mlcheck.read.rawlog import ANSI, TAG, RawStats, Source, read_prefix, tag_job
from mlcheck.read.official_view import TOKEN, after_json, extra_data, glued_message, hidden_by_later, unseen_record
from mlcheck.read.marker_parts import mentions_marker, record_as_printed, split_at_markers
from mlcheck.read.long_lines import MAX_LINE_BYTES as MAX_LINE_BYTES, LongLine  # (re-exported)
from mlcheck.read.record_shape import decode_record, long_line_finding, undecodable_record, validate_record
from mlcheck.read import raw_findings as raw_output, reading_rules as rules

MARKER = ":::MLLOG"
MARKER_BYTES = _MARKER_BYTES = MARKER.encode()
TOKEN_BYTES = TOKEN.encode()
"""What the official parser looks for: a record after a marker without it is unseen there."""
_ANSI_BYTES = re.compile(ANSI.pattern.encode())


class LineReader(FastLines):
    """Reads a log one physical line at a time (the batch reader and ``mlcheck watch`` share it)."""

    def __init__(self, path: str, ranks: dict[int, set[int]] | None = None,
                 keep_text: bool = False, duplicates: set[tuple[int, int, str]] | None = None,
                 keep_copies: bool = False, promote: Mapping[tuple[int, bytes], int] | None = None,
                 first: Mapping[int, int] | None = None) -> None:
        self.path = path
        self.keep_text = keep_text  # (yield RecordText, the event and its text, not the bare Event)
        self.line_no = 0
        self.stats = RawStats()
        self.copies = RankCopies(path, ranks, keep_all=keep_copies, promote=promote, first=first)
        self.long_lines, self.tags_seen = 0, False
        self.job_starts = JobStarts(path)
        self.prefixes = PrefixDecisions(self.copies, duplicates)  # (bare tags of copying ranks: FastLines.drop_copy)
        self.noise_tag: bytes | None = None  # (the rank tag of the line before when it held no record: a bar)
        self.result_file = not keep_text and RESULT_FILE.match(os.path.basename(path)) is not None
        """A submitted result file, checked: read as the official parser reads it (official_view)."""

    def feed(self, raw: bytes) -> Iterator[AnyItem]:
        """Read one physical line (with its line end; without one it is the file's last line)."""
        self.line_no += 1
        self.stats.lines += 1
        if b"\x00" in raw and not self.stats.nul_lines_skipped:  # (a block a crash left unwritten: MLC031)
            self.stats.note_nul(self.line_no, raw)
        at = raw.find(_MARKER_BYTES)
        named = mentions_marker(raw, at, self.result_file) if at >= 0 else ""  # (text naming it)
        if at < 0 or named:
            if named:
                yield raw_output.marker_named(self.path, self.line_no, named == "quoted")
            self.note_noise(raw)
            if raw.strip():
                self.stats.noise_lines += 1
                boundary = self.job_starts.launcher(raw, self.line_no, self.stats.kept)
                if boundary is not None or self.prefixes.ended:  # (a new job: its logging ranks chosen again)
                    self.prefixes.job_ended(raw, boundary is not None)
                if boundary is not None:
                    yield boundary
            if raw.endswith(b"\r\n"):
                self.stats.crlf_lines += 1
            return
        noise_tag, self.noise_tag = self.noise_tag, None
        if at == 0 and noise_tag is not None:
            # A record at the line's start after a rank's progress bar (whose \r a tool made a line end).
            raw, at = noise_tag + raw, len(noise_tag)
            self.stats.spliced_records += 1
        unterminated = not raw.endswith(b"\n")
        if raw.endswith(b"\r\n"):
            self.stats.crlf_lines += 1
        line = raw.rstrip(b"\r\n")
        if at and b"\x1b" in line:  # (a line that starts with the record: _read_line does it)
            colour = line.find(b"\x1b", at)
            if colour >= 0 and line.find(b"\r", at, colour) < 0:  # (after a CR: a line of its own)
                self.stats.note_trailing_colour(self.line_no)
            line = _ANSI_BYTES.sub(b"", line)
            self.stats.colour_lines += 1
            at = line.find(_MARKER_BYTES)
        if self.repeated_print(line, at):
            return
        if not at and not self.keep_text:
            items = self.clean_line_items(line)  # (orjson: one record, well-formed or not)
            if items is not None:
                yield from items
                return
            event = self._clean_line_event(line)
            if event is not None:  # the common line of a result file: one well-formed record
                yield event
                return
        if not at or line.find(_MARKER_BYTES, at + 8) >= 0 or (self.result_file and not line.isascii()):
            yield from self._read_line(line, unterminated)
            return
        # The common line of raw output: a prefix (a rank tag, mostly) and one record.
        prefix, kept = self.prefixes.decide(line[:at], line[at:])
        self.stats.records += 1
        source = prefix.source
        if source is not None:
            self.tags_seen = True
            self.stats.tagged_records += 1
            boundary = self.job_starts.tagged(source[0], self.line_no, self.stats.kept, kept)
            if boundary is not None:
                yield boundary
        if prefix.timestamp or prefix.extra_text:
            self._count_prefix(prefix, 1, tag=False)
        if not kept and not (self.copies.promote and self.copies.is_promoted(source, line[at:])):
            assert source is not None  # untagged records are always kept
            conflict = self.copies.copy(source, line[at:], self.line_no)
            if conflict is not None:
                yield conflict
            return
        alone = not self.keep_text and not self.copies.expects_copies(source) and line.startswith(b" ", at + 8)
        # orjson first where it decodes as json does (fast_json): no decoding of the bytes in Python
        event = fast_event(line[at:], self.line_no) if alone else None
        self.stats.kept += event is not None
        try:
            segment = "" if event is not None else line[at + 8:].decode("utf-8")
        except UnicodeDecodeError:
            self.stats.records -= 1
            yield from self._read_line(line, unterminated)  # reports the bad bytes
            return
        if alone:
            event = event or self._event_of(segment)
            if event is not None:  # no copy to compare it with: only counted
                if source is not None:
                    sources = self.stats.kept_sources
                    sources[source] = sources.get(source, 0) + 1
                    self.copies.count_kept(source[0], event.key, event.time_ms)
                yield event
                return
        yield from self._record(segment, source, at + len(MARKER), unterminated)

    def skip_long_line(self, line: int | LongLine) -> list[AnyItem]:
        """A line over :data:`MAX_LINE_BYTES`: its MLC014, then its pieces holding a record read as the line."""
        long = line if isinstance(line, LongLine) else LongLine(line, None, -1)
        self.long_lines += 1
        finding = long_line_finding(self.path, self.line_no + 1, long, MAX_LINE_BYTES)
        if long.text is not None:
            return [finding, *self.feed(long.text)]
        self.line_no += 1
        self.stats.lines += 1
        return [finding]

    def finish(self) -> Iterator[Finding]:
        """The end-of-file findings: no records at all, or the summary of raw output."""
        return raw_output.end_of_file(self.path, self.copies, self.stats, self.long_lines, self.result_file)

    def _read_line(self, raw: bytes, unterminated: bool) -> Iterator[AnyItem]:
        line_no = self.line_no
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            text = "" if self.result_file else raw.decode("utf-8", errors="replace")  # (a result file's: below)
            yield rules.INVALID_UTF8.at(self.path, line_no, f"line is not valid UTF-8 (byte {error.start + 1}); " + (
                "it is read a byte a character (latin-1), as the official parser reads a result file" if self.result_file
                else "undecodable bytes were replaced with U+FFFD"))
        if self.result_file and not raw.isascii():  # (the official parser's latin-1: a byte a character)
            text = raw.decode("latin-1")
        if "\x1b" in text:
            marker = max(text.find(MARKER), 0)
            colour = text.find("\x1b", marker)
            if colour >= 0 and text.find("\r", marker, colour) < 0:
                self.stats.note_trailing_colour(self.line_no)
            text = ANSI.sub("", text)
            self.stats.colour_lines += 1
        segments = split_at_markers(text)
        count = len(segments) - 1
        self.stats.records += count
        if count == 1 and not segments[0]:
            yield from self._record(segments[1], None, len(MARKER), unterminated)
            return
        raw_line = self.tags_seen or TAG.search(text) is not None
        hides = False  # (records hidden by a later one on the line are dropped: official_view)
        later: list[bool] = []
        if count > 1:
            if raw_line and not self.result_file:  # (ranks' records glued in raw output: all read)
                self.stats.shared_lines += 1
            else:
                later = hidden_by_later(segments, count)
                hidden = sum(later[i] and (self.result_file or segments[i].rstrip().endswith("}"))
                             for i in range(1, count))  # (raw output: a record cut by the next is MLC023's)
                hides = self.result_file and hidden > 0
                if hidden:
                    yield rules.GLUED_RECORDS.at(self.path, line_no, glued_message(count, hidden, self.result_file))
        before = segments[0]
        line_source: Source | None = None
        column = len(segments[0]) + len(MARKER)
        number = 0
        while number < count:
            number += 1
            segment = segments[number]
            prefix = self.prefixes.mapped(read_prefix(before))
            source = prefix.source if prefix.source is not None else line_source
            boundary = None if source is None else self.job_starts.tagged(source[0], line_no, self.stats.kept,
                                                                           self.copies.is_kept(source))
            if boundary is not None:
                yield boundary
            if number == 1:
                line_source = source
            self._count_prefix(prefix, number)
            last = number == count
            blanks = segments.blank_run_end(number) - number if number < count else 0
            if blanks > 0 and self.copies.is_kept(source):  # (a run of markers, nothing after them)
                if not (hides and "\r" not in text):  # (else hidden by the record after them)
                    yield from self._blank_markers(segment, source, column, blanks, segments.start(number + blanks))
                number += blanks
                before, column = segments[number], segments.start(number + 1)
                continue
            encoded = segment.encode("utf-8", errors="surrogatepass")
            if self.prefixes.kept_or_new(source, encoded) or (self.copies.promote and self.copies.is_promoted(
                    source, encoded)):
                hidden = hides and not last and later[number]
                end = yield from self._record(segment, source, column, last and unterminated, hidden, not last)
                before = segment if end is None else segment[end:]
            else:
                assert source is not None  # untagged records are always kept
                tag = TAG.search(segment)  # the copy ends where the next record's tag starts
                copy = segment if tag is None else segment[:tag.start()]
                conflict = self.copies.copy(source, (MARKER + copy).encode("utf-8"), line_no)
                if conflict is not None:
                    yield conflict
                # What follows the copy's JSON is the next record's prefix (timestamp and tag).
                before = segment[segment.rfind("}", 0, len(copy)) + 1:]
            column += len(segment) + len(MARKER)

    def _blank_markers(self, segment: str, source: Source | None, column: int, others: int,
                       last_column: int) -> Iterator[AnyItem]:
        """The finding of a marker with no record after it, for it and the ``others`` like it that
        follow it, the last one's text at ``last_column`` (0-based): one finding, not a million."""
        self.stats.records -= others
        for item in self._record(segment, source, column, False):
            yield (replace(item, message=f"{item.message} (and the {others:,} markers after it, the last at "
                                         f"column {last_column - len(MARKER) + 1}, with no record either)")
                   if isinstance(item, Finding) else item)

    def _record(self, segment: str, source: Source | None, column: int, truncated: bool,
                hidden: bool = False, followed: bool = False) -> Generator[AnyItem, None, int | None]:
        """Parse one record; yields its items and returns where its JSON ends in ``segment``.
        A record ``hidden`` from the official parser by the next on its line yields nothing;
        ``followed``: another record follows on the line (a cut one of a rank of the same job was
        cut by it: two processes writing at once)."""
        body = segment.lstrip(" \t\r\n") if self.result_file else segment.lstrip()  # (json.loads skips no other)
        lead = len(segment) - len(body)
        line_no = self.line_no
        unseen = self.result_file and not hidden and not segment.startswith(" ")  # (not the parser's token)
        self.stats.unseen_records += unseen
        try:
            record, end, replaced = decode_record(body)
        except (ValueError, RecursionError) as error:
            raw = self.tags_seen or self.stats.is_raw or (followed and not self.result_file and bool(body.strip()))
            if not hidden:
                if source is not None:  # (the other ranks' copies of it are copies of it)
                    yield from self.copies.kept_unreadable(source, MARKER + segment, line_no)
                refusal = unseen_record(self.path, line_no, None) if unseen else \
                    undecodable_record(self.path, line_no, body, column + lead, error, truncated, raw, self.result_file,
                                       followed and (source is None or tag_job(segment) == source[0]))
                yield refusal
                if self.keep_text and not unseen and refusal.severity is Severity.ERROR:  # (split writes it: refused too)
                    yield RefusedRecordText(line_no, (MARKER + segment).rstrip("\r\n"))
            return None
        if hidden or unseen:
            if unseen:
                yield unseen_record(self.path, line_no, record)
            return lead + end
        if self.result_file and (extra := extra_data(self.path, line_no, segment[:lead] + body, end + lead, column)):
            yield extra
        elif not (self.result_file or followed) and after_json(body[end:]):
            self.stats.note_trailing_text(body[end:], line_no)  # (dropped; MLC020 says so)
        refused = True
        for item in validate_record(record, line_no, self.path, replaced):
            if isinstance(item, Event):
                self.stats.kept += 1
                refused = False
                if source is None and not self.keep_text:  # a clean result file: the fast path
                    yield item
                    continue
                text = record_as_printed(segment, lead, end)
                if source is not None:  # (conflicts decided now come first: run_stop ends a watch)
                    self.stats.kept_sources[source] = self.stats.kept_sources.get(source, 0) + 1
                    yield from self.copies.kept(source, item.key, text, line_no)
                yield RecordText(item, text) if self.keep_text else item
            else:
                yield item
        if refused and (source is not None or self.keep_text):  # (its copies are copies of it; split writes it)
            text = record_as_printed(segment, lead, end)
            yield from self.copies.kept_unreadable(source, text, line_no) if source is not None else ()
            yield from (RefusedRecordText(line_no, text),) if self.keep_text else ()
        return lead + end
