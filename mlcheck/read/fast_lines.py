"""The line reader's paths for the commonest lines of raw output, read without the generator of
:meth:`mlcheck.read.line_reader.LineReader.feed` and exactly as it reads them: a copy printed by
a rank that is not the logging rank, and a kept record behind a rank tag (every rank's are kept in
a result file). Each says when a line is not such a line, having read nothing; ``feed`` reads it
then.
"""

from __future__ import annotations

import re
from collections import Counter

from mlcheck.model import Event, Finding
from mlcheck.read.fast_json import UNREAD, fast_body_event, fast_record
from mlcheck.read.job_starts import JobStarts
from mlcheck.read.prefixes import PrefixDecisions
from mlcheck.read.rank_copies import RankCopies
from mlcheck.read.rawlog import TIMESTAMP_BYTES, Prefix, RawStats, Source, read_prefix
from mlcheck.read.official_view import after_json
from mlcheck.read.record_shape import decode_record, validate_record, well_formed_event

_MARKER_BYTES = b":::MLLOG"
LEADING_TAG = re.compile(rb"\[(?:[^\[\]\s,@]*@)?\d+,(?:mpirank:)?\d+(?:,[^\[\]\s,]+)?\](?:\[[^\[\]\s]*\])?"
                         rb"<(?:stdout|stderr)>:")  # (rawlog.TAG)


class FastLines:
    """What :class:`~mlcheck.read.line_reader.LineReader` reads of a line without ``feed``."""

    path: str
    line_no: int
    stats: RawStats
    copies: RankCopies
    prefixes: PrefixDecisions
    job_starts: JobStarts
    keep_text: bool
    tags_seen: bool
    result_file: bool
    previous_print: tuple[int, bytes, int] | None = None
    """The line number, line and marker position of the last untagged record of raw output
    (:meth:`repeated_print`; kept as the line, not copied: most lines repeat nothing)."""
    noise_tag: bytes | None
    """The rank tag of the line before when it held no record (a progress bar): a record at the
    start of the next line is that rank's (:meth:`LineReader.feed` splices the tag to it)."""

    def drop_copy(self, raw: bytes) -> Finding | bool:
        """Read the commonest line of output in which every rank prints: a bare tag of a rank that
        is not the logging rank, then one record. Such a line is only compared with the kept
        record, so it is read here without the generator of :meth:`LineReader.feed`. True when the line was
        read, a :class:`Finding` when it was read and conflicts with the kept record, False when
        it is not such a line (then :meth:`LineReader.feed` reads it)."""
        at = raw.find(_MARKER_BYTES)
        source = self.prefixes.copy_sources.get(raw[:at]) if at > 0 else None
        if (source is None or raw[-1:] != b"\n" or raw.find(_MARKER_BYTES, at + 8) >= 0
                or b"\x1b" in raw or self.copies.promote):  # (a second reading: feed looks at each key)
            return False
        self.line_no += 1
        stats = self.stats
        stats.lines += 1
        stats.records += 1
        stats.tagged_records += 1
        end = -1
        if raw[-2:-1] == b"\r":
            stats.crlf_lines += 1
            end = -2
        return self.copies.copy(source, raw[at:end], self.line_no) or True

    def clean_line_items(self, line: bytes) -> list[Event | Finding] | None:
        """What :meth:`LineReader.feed` yields for ``line`` (a physical line without its end,
        already counted, that starts with the marker; not kept as text) when it holds one
        record that orjson decodes as ``json`` does: the record's findings (a field missing or
        of the wrong type, e.g. the power logs' ``"metadata": ""``) and its event, exactly as
        the full path gives them, without its three decodes; None for any other line. The full
        path decodes the same JSON (``raw_decode`` of the text after the marker, leading blanks
        stripped), and orjson accepts only JSON blanks around it."""
        if line.find(_MARKER_BYTES, 8) >= 0 or b"\x1b" in line or not line.startswith(b" ", 8) or b"\r" in line:
            return None
        record = fast_record(line[8:])
        if record is UNREAD:
            return None
        items = list(validate_record(record, self.line_no, self.path))
        self.stats.records += 1
        self.stats.kept += type(items[-1]) is Event
        return items

    def repeated_print(self, line: bytes, at: int) -> bool:
        """Whether the one untagged record of ``line`` (raw output, its marker at ``at``) repeats
        the record of the line before byte for byte, ``time_ms`` included, behind another prefix:
        a logger with two handlers (mllog's own and the root logger's ``INFO:mllog:``) prints each
        record twice, and the repeat is read as no record (counted in MLC020). Prefixes that both
        begin with a timestamp and differ in it alone (``ts``, ``docker logs -t``) are not two
        handlers: ranks printing the same record one after the other (each rank's ``init_start``)
        are all read; nor is a progress bar's text in front of one of them (a CR ended it, or it
        is tqdm's ``%|`` bar that the record was glued to)."""
        previous, self.previous_print = self.previous_print, None
        if self.result_file or line.find(_MARKER_BYTES, at + 8) >= 0:
            return False
        head = line[:at]
        if at:
            known = self.prefixes.known.get(head)  # (not decided here: feed decides with the record)
            if (known[0] if known is not None else read_prefix(head.decode("utf-8", errors="replace"))).source is not None:
                return False  # (a rank's copies are compared, not dropped)
        self.previous_print = (self.line_no, line, at)
        if previous is None or previous[0] != self.line_no - 1 or previous[1][:previous[2]] == head \
                or len(previous[1]) - previous[2] != len(line) - at or previous[1][previous[2]:] != line[at:] \
                or _same_but_the_time(previous[1][:previous[2]], head) or b"\r" in head or b"\r" in previous[1][:previous[2]] \
                or b"%|" in head or b"%|" in previous[1][:previous[2]]:  # (a progress bar's text is no handler's prefix)
            return False  # (the line before, whatever read it, under another prefix: the same line twice is read twice)
        self.stats.repeated_prints += 1
        self.stats.records += 1
        return True

    def note_noise(self, raw: bytes) -> None:
        """Note a line without a record (the last of a stretch the caller counted): its rank tag,
        once rank tags were met, is that of a record at the start of the next line."""
        leading = LEADING_TAG.match(raw) if self.tags_seen else None
        self.noise_tag = leading.group(0) if leading is not None else None

    def kept_tagged(self, raw: bytes) -> Event | None:
        """Read the commonest line of raw output in a result file: a bare rank tag of a job
        already met, whose records are kept with no copy to compare (every rank's are,
        in a result file), then one well-formed record that orjson reads as ``json`` does. Such
        a line is read here as :meth:`LineReader.feed` reads it (the same statistics, counts and event),
        without its generator; None when it is not such a line (then :meth:`LineReader.feed`
        reads it: only the decision on its tag may be remembered, the one feed makes of it)."""
        at = raw.find(_MARKER_BYTES)
        if at <= 0 or raw[-1:] != b"\n" or b"\x1b" in raw or raw.find(_MARKER_BYTES, at + 8) >= 0 or self.keep_text \
                or not raw.startswith(b" ", at + 8):
            return None
        source = self._kept_source(self.prefixes.decide(raw[:at]))  # (as feed decides a tag met first)
        if source is None:
            return None
        crlf = raw[-2:-1] == b"\r"
        event = fast_body_event(raw[at + 8:], self.line_no + 1)  # (the line end is JSON whitespace)
        if event is None:
            return None
        self._count_kept(source, 1, crlf)
        self.copies.count_kept(source[0], event.key)
        return event

    def tagged_run_source(self, tag: bytes) -> Source | None:
        """The source of the records behind ``tag`` when :meth:`kept_tagged` would read each line
        of a run of them (a tag already met, of a job already met, its records kept with no copy
        to compare), so that :meth:`kept_tagged_run` may count them at once; else None. What
        it decides does not change along such a run (only another source's lines change it)."""
        return None if self.keep_text else self._kept_source(self.prefixes.known.get(tag))

    def kept_tagged_run(self, source: Source, events: list[Event], crlf: int) -> None:
        """Count a run of lines, each of which :meth:`kept_tagged` would have read (``crlf`` of
        them with CRLF ends), as it counts them."""
        self._count_kept(source, len(events), crlf)
        self.copies.count_all_kept(source[0], events)

    def kept_tag_source(self, tag: bytes) -> Source | None:
        """The source of a bare ``tag`` whose lines :meth:`kept_tagged` reads (decided as it
        decides it), else None."""
        return None if self.keep_text else self._kept_source(self.prefixes.decide(tag))

    def tag_of_unknown_job(self, tag: bytes) -> bool:
        """Whether ``tag`` is a bare tag of a job not met yet (its first line meets it)."""
        prefix = self.prefixes.decide(tag)[0]
        return (prefix.source is not None and not prefix.timestamp and not prefix.extra_text
                and prefix.source[0] not in self.job_starts.jobs)

    def kept_tagged_lines(self, sources: list[Source], events: list[Event], crlf: int) -> None:
        """Count lines of several sources (one job), each of which :meth:`kept_tagged` would
        have read (``crlf`` of them with CRLF ends), as it counts them."""
        for source, lines in Counter(sources).items():  # (in the order the sources first come)
            self._count_kept(source, lines, 0)
        self.stats.crlf_lines += crlf
        self.copies.count_all_kept(sources[0][0], events)

    def _kept_source(self, found: tuple[Prefix, bool] | None) -> Source | None:
        """The source of a tag that :meth:`kept_tagged` reads the records of: decided kept, a bare
        tag (no timestamp, no other text) of a job already met, with no copy to compare."""
        if found is None or not found[1]:
            return None
        prefix = found[0]
        source = prefix.source
        if (source is None or prefix.timestamp or prefix.extra_text or source[0] not in self.job_starts.jobs
                or self.copies.expects_copies(source)):
            return None
        return source

    def _count_kept(self, source: Source, count: int, crlf: int) -> None:
        """The statistics of ``count`` lines that :meth:`kept_tagged` read (``crlf`` with CRLF)."""
        self.line_no += count
        stats = self.stats
        stats.lines += count
        stats.crlf_lines += crlf
        self.noise_tag = None
        stats.records += count
        self.tags_seen = True
        stats.tagged_records += count
        stats.kept += count
        sources = stats.kept_sources
        sources[source] = sources.get(source, 0) + count

    def _clean_line_event(self, line: bytes) -> Event | None:
        """The event of a line that is exactly one valid record, or None to take the full path."""
        if line.find(_MARKER_BYTES, 8) >= 0 or b"\x1b" in line or not line.startswith(b" ", 8) or (
                self.result_file and not line.isascii()):  # (read as latin-1: LineReader._read_line)
            return None
        try:
            text = line[8:].decode("utf-8")
        except UnicodeDecodeError:
            return None
        event = self._event_of(text)
        if event is not None:
            self.stats.records += 1
        return event

    def _event_of(self, text: str) -> Event | None:
        """The event of the JSON after a marker when it is a well-formed record, else None (then
        :meth:`_record` reads it again and says what is wrong)."""
        body = text.lstrip(" \t\r\n")  # (JSON's blanks: a result file's parser skips no other)
        try:
            record, end, replaced = decode_record(body)
        except (ValueError, RecursionError):  # (JSONDecodeError is a ValueError)
            return None
        if replaced or (end < len(body) and after_json(body[end:])) or "\r" in text:
            return None  # the full path reports the numbers read as infinite, text after the JSON, a CR
        event = well_formed_event(record, self.line_no)
        if event is not None:
            self.stats.kept += 1
        return event

    def _count_prefix(self, prefix: Prefix, number: int, tag: bool = True) -> None:
        """Count what the prefix of a record (the ``number``-th of its line) holds."""
        if tag and prefix.source is not None:
            self.tags_seen = True
            self.stats.tagged_records += 1
        if prefix.timestamp:
            self.stats.timestamp_records += 1
        if prefix.extra_text and number == 1:
            self.stats.spliced_records += 1


def _same_but_the_time(first: bytes, then: bytes) -> bool:
    """Whether two records' prefixes both begin with a timestamp and differ in it alone (``ts``,
    ``docker logs -t``: every line dated; a handler that dates its lines and one that does not
    are two handlers)."""
    one, two = TIMESTAMP_BYTES.match(first) or _GLOG_TIME(first), TIMESTAMP_BYTES.match(then) or _GLOG_TIME(then)
    return one is not None and two is not None and first[one.end():] == then[two.end():]


_GLOG_TIME = re.compile(rb"[IWEF]\d{4}[ \t]+\d\d:\d\d:\d\d(?:\.\d+)?").match
"""The date of an absl/glog line (``I0428 00:19:25.736012 140234 mllog.py:42] ``, TPU and JAX logs)."""
