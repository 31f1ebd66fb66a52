"""Raw job output: what mlcheck repaired or dropped while reading a console log (family MLC02x).

An IPU-POD job writes a console log, not a result file: poprun/OpenMPI tags every line with
``[job,rank]<stdout>:``, every instance may print the same ``:::MLLOG`` records, the launcher,
Poplar and the framework print their own lines, progress bars end in ``\\r`` and the record follows
on the same line, a ``ts``/``srun`` prefix or ANSI colour codes may wrap the lines. The reader takes
such output as it comes: it keeps the records of the *logging rank* (the lowest rank of each job
that prints records; untagged records are always kept), drops the copies printed by the other
ranks and every line that carries no record, and keeps the physical line numbers of the raw file.
``mlcheck split RAW -o DIR`` writes the runs it finds as ``result_<i>.txt`` files for the package.

Records glued on one line: in a result file this is MLC010 (an error: the official parser keeps
only the last record of the line). In raw output (a file that carries rank tags) the records of
several ranks or of a progress bar sharing a line are a normal artefact of the console; each is
read and attributed to the rank whose tag precedes it, ``split`` writes each on its own line, and
the line is counted as repaired in MLC020 instead.

- MLC020 raw-output-read (info): the summary of every line dropped or repaired in raw job output:
  lines read, records kept and from which rank, copies from other ranks dropped, launcher/noise
  lines dropped, lines whose colour codes, timestamp, progress-bar text or CRLF were removed,
  records separated from a shared line. Nothing to fix; run ``mlcheck split`` to get result files.
- MLC021 rank-copies-conflict (warning): a rank printed a record that differs (value, metadata or
  event type; ``time_ms`` is not compared) from the same occurrence of that key printed by the
  logging rank. The logging rank's copy is kept. Ranks disagreeing on what they log usually means
  that each logs its local state; log from one rank only, or make sure the values are reduced
  across ranks before logging (mlcommons/logging#242).
- MLC022 per-rank-output (info): the log is one rank's file of a per-rank output folder
  (``mpirun --output-filename DIR`` writes ``DIR/1/rank.N/stdout``, torchrun ``--log-dir DIR``
  ``DIR/<run id>/attempt_K/N/stdout.log``); the lowest rank's file was read
  and the other ranks' files, which hold copies, were not.
- MLC023 record-cut (error): a record of raw output is cut (the process died while writing it) and
  the output goes on after it, so the run loses its end. Reported at the line of the cut. Fix:
  find out why the job stopped (the launcher's lines around the cut tell) and re-run. A marker
  with nothing at all after it, in raw output not named ``result_<i>.txt``, is a warning: the files
  ``mlcheck split`` writes leave the line out, and the official parser passes them. So is a
  record cut by another record printed on its line (two processes writing at once, without line
  buffering; the rest may follow on a later line): the official parser reads the last record of
  a line only and passes it, and another rank's copy may stand for it (MLC028). So, last, is a
  line that only names the marker with no record after it (no ``{``: a shell trace ``grep
  ':::MLLOG'``, a log message, a line of source in a traceback) or quotes a whole record in single
  quotes (a traced ``echo``, an exception message): not read as a record, and left out by ``split``.
- MLC024 new-job-started (info): raw job output holds another job from this line on (a launcher
  command or launch message; a launcher's word that the job ended: Slurm's ``*** JOB ... CANCELLED
  AT``, torchelastic's restart of the worker group, OpenMPI's dead rank; records tagged with
  another MPI job number), so the records
  after it are read as another run. This is the only thing that makes several runs of one file;
  a file named ``result_<i>.txt`` is always one run, as the official checker reads it (a
  second job's records in it are then duplicates, reported by the rules of the round). See
  ``mlcheck.job_starts``. A launcher line met when the run so far holds only ``cache_clear``
  and ``submission_*`` records is not one: a run script logs the submission and clears the caches
  in ``srun`` steps of its own, then launches the training, and all belong to the run. A job's
  end opens a run only where the next record begins one (``cache_clear``, ``init_start``,
  ``submission_*``): a rank's last record after mpirun's word that a rank died stays in the run.
  After a launcher line the logging rank of each label is chosen again from what follows (consoles of
  several jobs joined in name order: the next run may be printed by another task, and dated
  before the last). Nothing to fix in raw output; ``mlcheck split`` writes one file per run.
- MLC028 records-of-another-rank: in raw output, a rank other than the logging rank (the lowest
  that prints records) printed records of a key the logging rank never printed (a last pipeline
  stage that alone logs ``eval_accuracy``). mlcheck reads the file again and keeps them, from the
  lowest rank that prints them, in their place among the logging rank's records (``mlcheck
  split`` writes them too), as the official parser reads every record of a result file: a note.
  Where the file cannot be read twice (standard input) they are left out of the run: a warning,
  and ``split`` exits 1. Fix: none needed; logging every record from one rank avoids it.
- MLC029 output-deduplicated (warning): Ray's log deduplication was on where the console was
  printed: a record's line ends in ``[repeated Nx across cluster]``. Ray prints one of the lines of
  several workers that differ only in their numbers and drops the others, so the records of the
  logging rank may be missing, or stand in another worker's copy (the suffix itself is dropped,
  as any text after a record's JSON: MLC020). At the line of the first such record. Fix: run with
  ``RAY_DEDUP_LOGS=0``, or read the logging worker's own log file.
- MLC013 raw-output-in-result-file: a submitted result file (``result_<i>.txt``) holds raw job
  output. An error (the official checker fails too) when other ranks' copies of records were
  dropped or a record is followed by colour codes: the official parser sees every copy
  ("EXACTLY_ONE occurrence of 'submission_org' but found 4") and cannot parse a record followed
  by colour codes ("Log lines had parsing errors"). Records of several ranks on one line are read
  as it reads them, the last only (MLC010; mlcheck/read/official_view.py). When only rank tags,
  timestamps, colour codes or launcher lines were removed, there is no MLC013: the official parser
  tolerates text around the records and such files are published every round (16 of a sample of
  38 of 6.0's), so nothing needs fixing; MLC020 says the file is raw output and that ``mlcheck split
  RAW -o DIR`` writes files of records alone for a submitter who wants them.
"""

from __future__ import annotations

from typing import Iterator

from mlcheck.model import Finding, Severity
from mlcheck.rule import Rule

RAW_OUTPUT_READ = Rule("MLC020", "raw-output-read", Severity.INFO,
                       "raw job output was read: what was kept, repaired and dropped")
RANK_COPIES_CONFLICT = Rule("MLC021", "rank-copies-conflict", Severity.WARNING,
                            "two ranks printed different copies of the same record")
PER_RANK_OUTPUT = Rule("MLC022", "per-rank-output", Severity.INFO,
                       "the log is one rank's file of a per-rank output folder")
RECORD_CUT = Rule("MLC023", "record-cut", Severity.ERROR,
                  "a record of raw output is cut and the output goes on after it", official=True, also=(Severity.WARNING,))

JOB_STARTED = Rule("MLC024", "new-job-started", Severity.INFO,
                   "raw job output holds another job from this line on (read as another run)")

RAW_RESULT_FILE = Rule("MLC013", "raw-output-in-result-file", Severity.ERROR,
                       "a result_<i>.txt file holds raw job output instead of clean records",
                       official=True)

RECORDS_OF_ANOTHER_RANK = Rule("MLC028", "records-of-another-rank", Severity.INFO,
                               "another rank printed records of a key the logging rank never printed",
                               also=(Severity.WARNING,))

OUTPUT_DEDUPLICATED = Rule("MLC029", "output-deduplicated", Severity.WARNING,
                           "the launcher deduplicated the workers' lines: records may be missing")

RULES = (RAW_RESULT_FILE, RAW_OUTPUT_READ, RANK_COPIES_CONFLICT, PER_RANK_OUTPUT, RECORD_CUT,
         JOB_STARTED, RECORDS_OF_ANOTHER_RANK, OUTPUT_DEDUPLICATED)


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
    """``rank 3``, ``rank 0``, ``5 records of a key (5 eval_accuracy)``."""
    shown = ", ".join(f"{count} {key}" for key, count in sorted(keys.items()))
    total = sum(keys.values())
    rank = f"rank {source[1]}" if source[1] >= 0 else "another stream"
    logging = f"rank {logging_rank}" if logging_rank is not None else "the logging rank"
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


RESULT_FILE_NOTE = ("; in a result file the official parser tolerates this and such files are accepted "
                    "(`mlcheck split` writes files of records alone if you want them)")
"""The end of MLC020's message for a ``result_<i>.txt`` file that only rank tags, timestamps,
colour codes or launcher lines make raw output (no MLC013 then: one finding says it)."""


def marker_named(path: str, line: int, quoted: bool) -> Finding:
    """MLC023, a warning, for a line of raw output that names the marker without a record of the run."""
    what = ("quotes a record in single quotes (a traced echo, a message quoting a line)" if quoted else
            "names :::MLLOG with no record after it (a shell trace, a message or source quoting the marker)")
    return RECORD_CUT.at(path, line, (
        f"this line {what}: it is not read as a record of the run, and `mlcheck split` leaves it out; if a "
        "record was cut here by other output, it is lost"), severity=Severity.WARNING, official=False)
