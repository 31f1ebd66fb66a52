"""Where a new run begins in one file of raw output: at the record after a new job's start or end
(an MLC024 note of :mod:`mlcheck.read.job_starts`), when that record begins a run
(:class:`RunBoundaries`; :mod:`mlcheck.read.runs` builds the runs)."""

from __future__ import annotations

import dataclasses
from typing import Mapping

from mlcheck.model import Finding
from mlcheck.read import raw_output_rules as raw_output
from mlcheck.read.job_starts import ANOTHER_RUN, JOB_ENDS, SAME_RUN, TRACEBACK_ENDS
from mlcheck.read.run_windows import INIT_PROGRESS, RELAUNCH_GAP_MS, is_hyper_parameter

JOB_STARTED = "MLC024"


def _preamble(key: str) -> bool:
    """A key a run script logs in steps of its own before it launches the training of the run:
    ``cache_clear``, and the ``submission_*`` keys (a script may log the submission in one ``srun``
    step, clear the caches in another, then launch the training)."""
    return key == "cache_clear" or key.startswith("submission_")


RUN_BEGUN = frozenset({"init_start", "init_stop", "run_start", "run_stop"})
"""Keys of a run that has begun: a job start before any of them opens a new run only at a record
that repeats one of the run's once it logged weights_initialization (the records so far may only
have prepared the run that job trains: its submission block, settings, caches cleared):
:meth:`RunBoundaries.opens_new_run`."""


class RunBoundaries:
    """Decides where a new run begins in one file: at the first record after a new job's start
    (MLC024), unless the file is read as exactly one run (a submitted result file)."""

    def __init__(self, one_run: bool = False) -> None:
        self.one_run = one_run
        self._pending = False
        self._ended = False
        self._traceback = False  # (the job's end noted is a Python traceback's: weaker evidence)
        self._open = self._launched = False
        """The run had started and not stopped at the job start noted: another process of the run may
        go on with it (an evaluation launched after the training), as after a job's end; ``_launched``:
        the boundary waiting is such a launch (a key of the run's initialisation logged again opens a run)."""
        self._unbegun = False
        self._before: frozenset[str] | None = None
        """The keys a run not begun had logged at the first job start (or end) in it."""
        self._fresh = False
        """The run logged a key of a training process initialising (weights_initialization)."""
        self._before_line: int | None = None  # (the line of that first job start or end)
        self._reopened: int | None = None  # (the line of the job start or end before the run a repeat opened)

    def note(self, finding: Finding, counts: Mapping[str, int] | None = None) -> bool:
        """Take a reading finding; a new job's start (or end) makes the next record open a run.
        False for a job start that opens none, which the caller drops: in a file read as one run,
        one met before the run has begun (``counts`` holds no key of :data:`RUN_BEGUN`)."""
        if finding.code != JOB_STARTED:
            return True
        unbegun = bool(counts) and RUN_BEGUN.isdisjoint(counts or {})
        if self.one_run:
            return not unbegun
        self._pending, self._unbegun = True, unbegun
        self._open = counts is not None and bool(counts.get("run_start")) and not counts.get("run_stop")
        if not unbegun:
            self._before = None
        elif self._before is None:
            self._before, self._before_line = frozenset(counts or {}), finding.line
            self._fresh = not INIT_PROGRESS.isdisjoint(self._before)
        return True

    def said(self, finding: Finding, counts: Mapping[str, int] | None) -> Finding | None:
        """A reading finding as it is said (``check`` and ``watch`` alike), after :meth:`note`:
        None for a job start that opens no run; in a file read as one run, None for a job's end
        too (a result file's reader looks for launcher lines alone: the official parser reads on),
        and MLC024 at a launcher line says the records after it stay in this run."""
        if not self.note(finding, counts):
            return None
        if not self.one_run or finding.code != JOB_STARTED:
            return finding
        if finding.message.startswith(JOB_ENDS):
            return None
        return dataclasses.replace(finding, message=finding.message.replace(ANOTHER_RUN, SAME_RUN))

    def opens_new_run(self, counts: Mapping[str, int], key: str = "", setting_again: bool = False,
                      gap_ms: float = float("inf"), init_again: bool = False) -> bool:
        """Whether the next record (of ``key``) begins a new run, given the key counts of the current
        run. After a job's end, or a launch in a run that started and did not stop (another process of
        the run: an evaluation launched after the training), only a record that begins a run again does (a
        cache_clear, submission_* or init_start key the run logged already; after a launcher's word, not a
        traceback's, a hyper-parameter it logged: a requeue's logger that prints one first): a rank's last records
        after mpirun's word that a rank died, records after a helper step's cancellation, the block
        a rank logs in its initialisation after srun said another task failed, stay in the run; a
        hyper-parameter of its initialisation logged again once it trains begins one
        (``setting_again``: a relaunch whose first record it is, its clock behind; after a launch, any
        key of its initialisation logged again once it trains, ``init_again``). Before the run
        has begun (no key of :data:`RUN_BEGUN`: a run script's ``srun`` steps log the submission,
        settings and a cache_clear, then launch the training), a record that repeats a cache_clear
        or submission_* key logged before the first job start (or end) in it does, up to its begin
        (:attr:`lingering`), once the run logged weights_initialization (a training process
        initialising): another attempt's preparation (its cache_clear or block again, after an
        attempt died before its init_start, as HugeCTR logs its block, settings and weights before
        it). A run script's block and settings, or its cache_clear step, then the training's own,
        stay one run; so does an attempt that died before its weights. After a Python traceback's
        end (a handled exception prints one too: every rank of an all-ranks console, in its
        initialisation), only a record more than :data:`RELAUNCH_GAP_MS` after every record of the run
        (``gap_ms``: after :attr:`NextRunStart.latest`) does: a relaunch, not another rank's copy."""
        if self._before is not None:
            self._pending = self._ended = False
            opens = self._fresh and _preamble(key) and key in self._before and bool(counts)
            if opens or key in RUN_BEGUN:
                self._before, self._reopened = None, self._before_line if opens else None
            elif key in INIT_PROGRESS:
                self._fresh = True
            return opens
        if not self._pending:
            return False
        self._pending, ended, self._ended = False, self._ended, False
        if ended and self._traceback and not gap_ms > RELAUNCH_GAP_MS:
            return False
        return bool(counts) and (not ended or setting_again or (self._launched and init_again) or (
            _preamble(key) or key == "init_start" or not self._traceback and is_hyper_parameter(key)) and bool(counts.get(key)))

    def waits(self, finding: Finding) -> bool:
        """Whether ``finding`` is to be said only if the next record begins a run: a job's end, or
        a job's start before the run has begun."""
        if finding.code != JOB_STARTED:
            return False
        # (a launch after a job's end that was noted: a relaunch, whose first record opens a run)
        self._ended = self._pending and (finding.message.startswith(JOB_ENDS) or self._open and not self._ended)
        self._launched = self._ended and not finding.message.startswith(JOB_ENDS)
        self._traceback = self._ended and TRACEBACK_ENDS in finding.message
        return self._ended or self.tentative

    def attempt_note(self, path: str, line: int, key: str) -> Finding | None:
        """MLC024 at the record that :meth:`opens_new_run` opened a run at by repeating a key of
        a run not begun (the job start or end before it was not said then): None otherwise."""
        at, self._reopened = self._reopened, None
        if at is None:
            return None
        return raw_output.JOB_STARTED.at(path, line, (
            f"another attempt begins here ({key} again after the job's start or end at line {at}, before the "
            f"run had begun): {ANOTHER_RUN}"))

    def reset(self) -> None:
        """Forget every boundary noted (a run ended by other means: watch's cut record)."""
        self._pending = self._ended = self._unbegun = False
        self._before = self._reopened = None

    @property
    def tentative(self) -> bool:
        """Whether the job start (or end) noted last came before the run had begun."""
        return self._pending and self._unbegun

    @property
    def lingering(self) -> bool:
        """Whether any record may open a new run (before the current run has begun, after a job's
        start or end in it): records must then come one at a time to :meth:`opens_new_run`."""
        return self._before is not None
