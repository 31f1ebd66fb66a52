"""What ``mlcheck watch`` does with MPI jobs that print into one console (split from
:mod:`mlcheck.raw.watch_state`): jobs that run at once, a job that begins beside an open run,
and a job that died beside others."""

from __future__ import annotations

from dataclasses import replace

from mlcheck.model import Finding
from mlcheck.raw.watch_state import FindingSink, ProgressSink, StopWatching, WatchOutcome
from mlcheck.read.concurrent_jobs import JobOrder, tagged_record
from mlcheck.read.job_starts import JOB_END, JOB_END_HINT

_BLOCK_LINES = 32
"""Lines within which a launcher's words that a job ended are one block (mpirun's is 5 to 10 lines,
other jobs' records printed between them)."""


class MixedJobs:
    """Watch's view of MPI jobs whose records interleave (:mod:`mlcheck.read.concurrent_jobs`):
    followed as one stream, their runs would mix, so from the line where they are found to run
    at once (within the first records) the watch judges nothing more as it reads: it counts each
    job's run_stops (of the job's lowest rank that prints one) and ends once ``runs`` stopped,
    and its report then reads each job apart, as ``check`` does.

    A job that begins while the job before it has an open run (its lowest logging rank began one
    and logged no run_stop) and no launcher said that job ended may run beside it: what the watch
    finds from then on (the open run judged as ended, and the new job's own findings) is held until
    the job before prints nothing for ``hold_s`` seconds (it died: the findings are said), the
    watch ends or the file is replaced (:meth:`release`: said then), or the jobs are found to run
    at once (dropped: the final report judges each job). A job that died beside others (its run
    open, no record of it after a launcher's word that a job ended, and no job begun after that
    word: a relaunch makes it an attempt) counts for ``runs`` once the log was quiet for ``hold_s``."""

    def __init__(self, path: str, on_finding: FindingSink, on_progress: ProgressSink, hold_s: float = 0.0) -> None:
        self.path = path
        self.order = JobOrder()
        self.mixed = False
        self.lines = 0
        self._inits: dict[int, dict[int, int]] = {}
        self._starts: dict[int, dict[int, int]] = {}
        self._stops: dict[int, dict[int, int]] = {}
        """job -> rank -> the init_start (run_start, run_stop) records it printed."""
        self._first_line: dict[int, int] = {}
        self._last_line: dict[int, int] = {}
        self._blocks: list[tuple[int, set[bytes]]] = []
        """Launchers' blocks of words that a job ended: each its first line and its OpenMPI lines on a
        process that ended (one a mpirun: a block says that many jobs ended, one at least)."""
        self._last_end = 0
        self._held: list[Finding] | None = None
        self._held_for, self._held_since, self._hold_s = -1, 0.0, hold_s
        self._on_finding, self._on_progress = on_finding, on_progress

    @property
    def stopped(self) -> int:
        """The runs stopped: each job's run_stops, as its lowest rank that prints them counts them."""
        return sum(ranks[min(ranks)] for ranks in self._stops.values())

    def died(self) -> int:
        """The jobs that died: those whose run is open and that printed no record after the last
        launcher's word that a job ended, at most as many as the words' blocks say ended (the jobs
        after them are the ones that go on), less the jobs begun since (relaunches: attempts)."""
        silent = [line for job, line in self._last_line.items() if line < self._last_end and self._open(job)]
        after = [(first, noticed) for first, noticed in self._blocks if silent and first > min(silent)]
        if not after:
            return 0
        relaunched = sum(1 for first in self._first_line.values() if first > after[0][0])
        return max(0, min(len(silent), sum(max(1, len(noticed)) for _first, noticed in after) - relaunched))

    def _open(self, job: int) -> bool:
        """Whether the lowest rank of ``job`` that began a run (init_start or run_start) has not stopped it."""
        begun = self._inits.get(job, {}) | self._starts.get(job, {})
        if not begun:
            return False
        rank = min(begun)
        return max(self._inits.get(job, {}).get(rank, 0), self._starts.get(job, {}).get(rank, 0)) > \
            self._stops.get(job, {}).get(rank, 0)

    def line(self, line: object, now: float = 0.0) -> bool:
        """Take the next line; whether the jobs run at once (the watch then judges no line)."""
        self.lines += 1
        if not isinstance(line, bytes):
            return self.mixed
        if self.order.first and JOB_END_HINT(line) and (said := JOB_END.search(line)):  # (MPI consoles alone)
            if not self._blocks or self.lines - self._last_end > _BLOCK_LINES:  # (a launcher's lines on one end,
                self._blocks.append((self.lines, set()))  # the other jobs' records between them: one block)
            self._last_end = self.lines
            if b"noticed that process rank" in said.group(0):  # (one a mpirun: a block printed twice is still one)
                self._blocks[-1][1].add(line.strip())
        if b"]<std" not in line or (source := tagged_record(line)) is None:
            return self.mixed
        job, rank = source
        self._last_line[job] = self.lines
        self._first_line.setdefault(job, self.lines)
        for key, counts in ((b'"init_start"', self._inits), (b'"run_start"', self._starts), (b'"run_stop"', self._stops)):
            if key in line:
                ranks = counts.setdefault(job, {})
                ranks[rank] = ranks.get(rank, 0) + 1
        if self.mixed:
            return True
        before, known = self.order.last, len(self.order.first)
        self.order.add(line, self.lines)
        if job == self._held_for:
            self._held_since = now  # (the job held for prints on: alive)
        elif len(self.order.first) > known and before is not None and self._open(before) \
                and not (self._blocks and self._blocks[-1][0] > self.order.first[before]) and self._held is None:
            self._held, self._held_for, self._held_since = [], before, now
        if self.order.concurrent():
            self.mixed, self._held = True, None
            self._on_finding(self.order.finding(self.path, live=True))
            return False
        self.tick(now)
        return False

    def tick(self, now: float) -> None:
        """Say what was held once the job it was held for printed nothing for the hold time."""
        if self._held is not None and now - self._held_since >= self._hold_s:
            self.release()

    def release(self, quietly: bool = False) -> None:
        """Say what is held now (the watch ends, or the file was truncated: the lines it concerns were read);
        ``quietly``: a sink's stop (``--fail-fast``) ends nothing more (the watch is interrupted)."""
        held, self._held, self._held_for = self._held or [], None, -1
        for found in held:
            try:
                self._on_finding(found)
            except StopWatching:
                if not quietly:
                    raise

    def release_stops(self) -> bool:
        """Say what is held now; whether a sink stopped at it (``--fail-fast``)."""
        try:
            self.release()
        except StopWatching:
            return True
        return False

    def after(self, outcome: WatchOutcome) -> WatchOutcome:
        """``outcome``, once what was held is said (``stopped`` where a sink stops at it: ``--fail-fast``)."""
        return replace(outcome, reason="stopped") if self.release_stops() else outcome

    def finding(self, found: Finding) -> None:
        if self.mixed:
            return
        if self._held is not None:
            self._held.append(found)
        else:
            self._on_finding(found)

    def progress(self, text: str) -> None:
        if not self.mixed:
            self._on_progress(text)
