"""Raw job output of several MPI jobs that ran at once (family MLC02x).

A run script may start two trials side by side (``mpirun ... &`` twice, each on half of the
machine) with both consoles going to one file: the records of ``[1,0]<stdout>:`` and
``[2,0]<stdout>:`` then interleave line by line. Read as one stream, the two trials would mix into
one run (two run_starts, two of every required key) or, past the first job start, into runs cut in
the wrong places. Where the records of two MPI jobs alternate (:data:`MIN_SWITCHES` returns to a
job after another job's record, which a job's late straggler never gives), each job is read on its
own: the file is read once per job, the lines tagged with another job's number taken as blank
lines (physical line numbers stay those of the file), and each job's runs follow the runs of the
jobs before it. ``check`` and ``split`` read so; ``watch`` follows one stream and says so.
No official tool reads raw job output: this note is mlcheck's own.

- MLC030 concurrent-jobs (info): records of several MPI jobs interleave in raw job output (jobs
  that ran at the same time): each job's records are read apart, as runs of their own. At the line
  of the first record of a job that came back after another job's record. Nothing to fix; writing
  each job's console to a file of its own (``mpirun --output-filename``) keeps them apart, and
  ``mlcheck split`` writes each job's runs as result files.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import replace
from functools import partial
from itertools import islice
from typing import Iterable, Iterator, TypeVar

from mlcheck.model import Finding, Severity
from mlcheck.results import RunResult
from mlcheck.read.line_reader import MARKER_BYTES, MAX_LINE_BYTES
from mlcheck.read.rank_labels import number
from mlcheck.read.rawlog import TAG
from mlcheck.rule import Rule

CONCURRENT_JOBS = Rule("MLC030", "concurrent-jobs", Severity.INFO,
                       "records of several MPI jobs interleave: each job is read apart, as runs of its own")
RULES = (CONCURRENT_JOBS,)

_Item = TypeVar("_Item")
MIN_SWITCHES = 4
"""Returns to a job already left (``A B A B A``: 3) that make jobs concurrent: a job's last copies
flushed after the next job began give one. Rank 0's first ``run_stop`` of a job after a later job's
record makes them concurrent alone: its run had not ended when the later job began."""
_JOB_TAG = re.compile(TAG.pattern.encode())
"""An OpenMPI/poprun rank tag (:data:`mlcheck.read.rawlog.TAG`) in bytes: job, rank."""
_TAG_REACH = 400
"""How far into a line without a record its rank tag is looked for (after a timestamp or a host)."""


def _record_tag(line: bytes) -> re.Match[bytes] | None:
    """The MPI rank tag of a record line (before its first marker), else None."""
    at = line.find(MARKER_BYTES)
    return _JOB_TAG.search(line, 0, at) if at >= 0 else None


def tagged_record(line: bytes) -> tuple[int, int] | None:
    """(job, rank) of a record line behind an MPI rank tag, else None."""
    tag = _record_tag(line)
    return None if tag is None else (number(tag.group(1)), number(tag.group(2)))


def tagged_stop(line: bytes) -> tuple[int, int] | None:
    """(job, rank) of a line's run_stop record behind an MPI rank tag, else None."""
    tag = _record_tag(line)
    if tag is None or b'"run_stop"' not in line[tag.end():]:
        return None
    return number(tag.group(1)), number(tag.group(2))


class JobOrder:
    """Follows the MPI job numbers of the record lines of one file: which jobs ran at once."""

    def __init__(self) -> None:
        self.first: dict[int, int] = {}
        """Each job's first record line, in the order the jobs came."""
        self._last: int | None = None
        self._switches = 0
        self._line_back: int | None = None
        """The line of the first record of a job that came back after another job's record."""
        self._back = False  # (the records read now are of a job that came back)
        self._stopped: set[int] = set()  # (the jobs whose rank 0 logged a run_stop: a job of that number after
        # a later job may be a new one, run after it)

    def add(self, line: bytes, line_no: int) -> None:
        tag = _record_tag(line)
        job = number(tag.group(1)) if tag is not None else None
        if job is None:
            return
        if job != self._last:
            self._back = job in self.first
            if self._back:
                self._switches += 1
                self._line_back = line_no if self._line_back is None else self._line_back
            else:
                self.first[job] = line_no
            self._last = job
        if b'"run_stop"' in line and (stop := tagged_stop(line)) is not None and stop[1] == 0:  # (rank 0's)
            if self._back and job != next(reversed(self.first)) and job not in self._stopped:
                self._switches = max(self._switches, MIN_SWITCHES)  # (its run was open when a later job began)
            self._stopped.add(job)

    @property
    def last(self) -> int | None:
        """The job of the last record line added."""
        return self._last

    def concurrent(self) -> tuple[int, ...]:
        """The jobs in the order they began, when their records interleave; else ()."""
        return tuple(self.first) if self._switches >= MIN_SWITCHES and len(self.first) > 1 else ()

    def finding(self, path: str, live: bool = False) -> Finding:
        """MLC030; ``live``: as ``watch`` says it, which follows one stream and so stops reporting."""
        numbers = [str(job) for job in self.first]
        jobs = f"{', '.join(numbers[:-1])} and {numbers[-1]}"
        done = ("watch follows the output as one stream, so it reports nothing more while it reads; its "
                "report at the end reads each job apart, as runs of its own" if live else
                "each job's records are read apart, as runs of their own, the other jobs' lines left out; "
                "`mlcheck split` writes each job's runs as result files")
        return CONCURRENT_JOBS.at(path, self._line_back, f"the records of MPI jobs {jobs} interleave here (the "
                                  f"jobs ran at the same time and printed into this output): {done}")


def concurrent_jobs(lines: Iterable[bytes]) -> JobOrder:
    """The order of the MPI jobs of a file's lines (:meth:`JobOrder.concurrent` says whether they ran
    at once). Only lines that hold a rank tag and the marker are looked at."""
    order = JobOrder()
    for line_no, line in enumerate(lines, 1):
        if b"]<std" in line:
            order.add(line, line_no)
    return order


def interleaved_jobs(path: str, limit: int | None = None) -> JobOrder | None:
    """The order of the MPI jobs of raw output (its first ``limit`` lines) whose records
    interleave, else None (and where the file cannot be read again: its reading said why)."""
    from mlcheck.read.reader import MAX_LINE_BYTES, open_log

    try:
        stream = open_log(path)
    except OSError:
        return None
    try:
        order = concurrent_jobs(islice(iter(partial(stream.readline, MAX_LINE_BYTES), b""), limit))
    except (OSError, EOFError, zlib.error):
        return None
    finally:
        stream.close()
    return order if order.concurrent() else None


def noting_job_starts(items: Iterable[_Item], found: list[Finding]) -> Iterator[_Item]:
    """``items``, their notes of another job's start (MLC024) also added to ``found``: where the
    reader found one, the jobs may have run at once (:func:`interleaved_jobs` tells)."""
    for item in items:
        if isinstance(item, Finding) and item.code == "MLC024":
            found.append(item)
        yield item


def one_job_lines(lines: Iterable[bytes], job: int) -> Iterator[bytes]:
    """``lines`` with each line of another MPI job (a rank tag of another job number before its
    first marker, or in its first :data:`_TAG_REACH` bytes) taken as a blank line: its number is
    kept. A part of an over-long line (as long as the reader reads at once, no line end) is kept: the
    reader skips the rest itself; the file's last line, whose end no LF wrote, is not."""
    for line in lines:
        if b"]<std" in line and (line.endswith(b"\n") or len(line) < MAX_LINE_BYTES):
            at = line.find(MARKER_BYTES)
            tag = _JOB_TAG.search(line, 0, at if at >= 0 else _TAG_REACH)
            if tag is not None and number(tag.group(1)) != job:
                yield b"\n"
                continue
        yield line


def unwritten_once(runs: list[RunResult]) -> list[RunResult]:
    """The runs of MPI jobs read apart with one MLC031, the one at the first line (its job's reading counts that
    job's NUL bytes and those of lines of no rank, which each reads): the file has it once."""
    said = sorted(((f.line or 0, i) for i, run in enumerate(runs) for f in run.findings if f.code == "MLC031"))
    if len(said) < 2:
        return runs
    line, keep = said[0]
    return [replace(run, findings=tuple(f for f in run.findings if f.code != "MLC031" or (i, f.line or 0) == (keep, line)))
            if any(f.code == "MLC031" for f in run.findings) else run for i, run in enumerate(runs)]
