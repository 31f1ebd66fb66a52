"""The findings of raw job output (the rules of :mod:`mlcheck.read.raw_output_rules`): what the
line reader says at a line it passes over and at the end of a console log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from mlcheck.model import Finding, Severity
from mlcheck.read.rawlog import source_name
from mlcheck.read.raw_output_rules import (OUTPUT_DEDUPLICATED, RAW_OUTPUT_READ, RAW_RESULT_FILE, RECORD_CUT,
                                           RECORDS_OF_ANOTHER_RANK)

if TYPE_CHECKING:
    from mlcheck.read.rank_copies import RankCopies
    from mlcheck.read.rawlog import RawStats


def output_deduplicated(path: str, records: int, line: int) -> Iterator[Finding]:
    """MLC029 at the first record that Ray's deduplication says it printed for several workers."""
    if not records:
        return
    more = f" (so do the lines of {records - 1} more record{'s' if records > 2 else ''})" if records > 1 else ""
    yield OUTPUT_DEDUPLICATED.at(path, line, (
        f"this record's line ends in Ray's `[repeated Nx across cluster]`{more}: Ray printed one of several "
        "workers' similar lines (their numbers may differ) and dropped the others, so the logging rank's "
        "records may be missing or stand in another worker's copy. Run with RAY_DEDUP_LOGS=0, or read "
        "the logging worker's own log file"))


def records_of_another_rank(path: str, source: tuple[int, int], logging_rank: int | None,
                            keys: dict[str, int], line: int) -> Finding:
    """MLC028 (a warning) for the records of one rank left out as copies that no record of the
    logging rank matches, of keys that rank never printed."""
    rank, logging, what = _ranks_and_keys(source, logging_rank, keys)
    return RECORDS_OF_ANOTHER_RANK.at(path, line, (
        f"{rank} printed {what} {logging} never printed; read as copies of {logging}'s records, they "
        f"were left out of the run. Where that rank alone logs them (as a last pipeline stage may log "
        f"the evaluation), log them from {logging}: the run read here, and what `mlcheck split` "
        "writes, lack them"), severity=Severity.WARNING)


def records_of_another_rank_kept(path: str, source: tuple[int, int], logging_rank: int | None,
                                 keys: dict[str, int]) -> Finding:
    """MLC028 (a note) for the records of keys only ``source`` printed, kept in their place."""
    rank, logging, what = _ranks_and_keys(source, logging_rank, keys)
    return RECORDS_OF_ANOTHER_RANK.at(path, None, (
        f"{rank} printed {what} {logging} never printed (as a last pipeline stage may log the "
        f"evaluation); they are kept in their place among {logging}'s records, as the official "
        "parser reads every record of a result file"))


def _ranks_and_keys(source: tuple[int, int], logging_rank: int | None, keys: dict[str, int]) -> tuple[str, str, str]:
    """``rank 3``, ``rank 0`` (``host 3``, ``srun task 3``...: the source's name in MLC020 too),
    ``5 records of a key (5 eval_accuracy)``."""
    shown = ", ".join(f"{count} {key}" for key, count in sorted(keys.items()))
    total = sum(keys.values())
    rank = source_name(source) if source[1] >= 0 else "another stream"
    logging = source_name((source[0], logging_rank)) if logging_rank is not None else "the logging rank"
    return rank, logging, (f"{total} record{'s' if total != 1 else ''} of {'keys' if len(keys) > 1 else 'a key'} "
                           f"({shown}) that")


def raw_output_read(path: str, summary: str, result_file: bool, copies: int, colour_lines: int,
                    colour_line: int | None, copy_line: int | None) -> Iterator[Finding]:
    """MLC020 (``summary``: what was read, removed and dropped) and, for a ``result_<i>.txt``
    file the official parser would refuse, MLC013; a result file it accepts gets the note in
    MLC020 instead (one finding says that the file is raw output)."""
    refused = raw_result_file(path, copies, colour_lines, colour_line, copy_line) if result_file else None
    note = RESULT_FILE_NOTE if result_file and refused is None else ""
    yield RAW_OUTPUT_READ.at(path, None, summary + note)
    if refused is not None:  # (split is the fix)
        yield refused


def raw_result_file(path: str, copies: int, colour_lines: int = 0, colour_line: int | None = None,
                    copy_line: int | None = None) -> Finding | None:
    """MLC013 for a ``result_<i>.txt`` file that holds raw job output: an error when the official
    parser would see rank copies or fail on colour codes after a record, else None (MLC020 says
    it is raw output, with :data:`RESULT_FILE_NOTE`; records that share a line are read as it reads
    them: MLC010). At the line of the first copy, else of the first record with colour codes after it."""
    advice = "run `mlcheck split` on it and submit the result_<i>.txt files it writes"
    problems = [(copies, ("copy of a record printed by another rank", "copies of records printed by other ranks"),
                 "reads every copy (its EXACTLY_ONE checks fail)"),
                (colour_lines, ("line with colour codes after the record", "lines with colour codes after the record"),
                 "cannot parse those lines")]
    found = [(count, what[count > 1], effect) for count, what, effect in problems if count]
    if found:
        what = ", ".join(f"{count:,} {text}" for count, text, _ in found)
        effect = " and ".join(effect for _, _, effect in found)
        return RAW_RESULT_FILE.at(path, copy_line if copies else colour_line,
                                  f"this result file is raw job output with {what}: the "
                                  f"official parser {effect}; {advice}")
    return None


RESULT_FILE_NOTE = ("; a result file: the official parser reads it as mlcheck does (the text around the records "
                    "ignored, every rank's records counted), so the other findings say whether it passes; "
                    "`mlcheck split` writes files of records alone if you want them")
"""The end of MLC020's message for a ``result_<i>.txt`` file the official parser does not refuse
for being raw output (no MLC013 then: one finding says that it is raw output)."""


def marker_named(path: str, line: int, quoted: bool) -> Finding:
    """MLC023, a warning, for a line of raw output that names the marker without a record of the run."""
    what = ("quotes a record in single quotes (a traced echo, a message quoting a line)" if quoted else
            "names :::MLLOG with no record after it (a shell trace, a message or source quoting the marker)")
    return RECORD_CUT.at(path, line, (
        f"this line {what}: it is not read as a record of the run, and `mlcheck split` leaves it out; if a "
        "record was cut here by other output, it is lost"), severity=Severity.WARNING, official=False)


def end_of_file(path: str, copies: RankCopies, stats: RawStats, long_lines: int, result_file: bool) -> Iterator[Finding]:
    """A read log's end-of-file findings (:meth:`mlcheck.read.line_reader.LineReader.finish`): no
    records at all, or the summary of raw output."""
    from mlcheck.read import reading_rules as rules

    yield from copies.finish()
    logging_rank = copies.logging_rank.get
    for source, (keys, first) in sorted(copies.only_elsewhere().items()):
        yield records_of_another_rank(path, source, logging_rank(source[0]), keys, first)
    for source, kept in sorted(copies.promoted.items()):
        yield records_of_another_rank_kept(path, source, logging_rank(source[0]), kept)
    if stats.nul_bytes:
        yield unwritten_block(path, stats.first_nul_line or None, stats.nul_bytes)
    if stats.records == stats.unseen_records:  # (none, or none the official parser reads: MLC027)
        yield rules.no_records(path, stats.lines, long_lines, stats.unseen_records, stats.stopped)
    if stats.is_raw or copies.copies:
        yield from raw_output_read(path, stats.describe(copies.describe()), result_file, copies.copies,
                                   stats.trailing_colour_lines, stats.first_trailing_colour, copies.first_copy_line)
    yield from output_deduplicated(path, *stats.deduplicated)


def unwritten_block(path: str, line: int | None, count: int) -> Finding:
    """MLC031, a warning: ``count`` NUL bytes in the log, the first at ``line``."""
    from mlcheck.read.reading_rules import UNWRITTEN_BLOCK

    return UNWRITTEN_BLOCK.at(path, line, (
        f"{count:,} NUL byte{'s' if count != 1 else ''} in the log, the first at this line: a block of the file that "
        "was never written (a network file system's client that crashed, a preallocated file); what the job wrote "
        "there is lost, records included. The official parser reads around them, as mlcheck does, so the run is "
        "judged on the records left: check that none is missing, or take the log from a copy written whole"),
        official=False)
