"""Log structure: the run's boundaries (family MLC1xx).

A run is scored from ``run_start`` to ``run_stop``; each must appear exactly once, and
``run_stop`` must say in its metadata whether the run succeeded.

Follows the round's checker of record, ``training_X.Y.Z/common.yaml`` (``run_start`` and
``run_stop`` EXACTLY_ONE, ``run_stop`` after ``run_start`` with ``status`` in its metadata) and training_rules.adoc §Run Results (the clock starts at
``run_start`` and stops at ``run_stop``); the result summarizer scores ``run_stop`` minus
``run_start`` of a successful run.

- MLC101 run-start-missing: no ``run_start``; the run cannot be timed. Official checker: "Required
  EXACTLY_ONE occurrence of 'run_start'".
  Fix: log ``run_start`` once, when the timed part begins (after ``init_stop``).
- MLC102 run-stop-missing: no ``run_stop`` (the job crashed or the log was cut); the run cannot be
  timed and counts as non-converged.
  Fix: rerun, or submit the complete log; a run that crashed is a non-converged run of its folder.
  An error; a warning when its folder tolerates it as the one non-converged run the round allows (counted as the slowest).
- MLC103 run-stop-status-missing: ``run_stop`` has no ``status`` in its metadata (an error: the
  official checker of every round fails it too, for each ``run_stop`` logged), or a status other than ``success`` / ``aborted``
  (a warning, ``official: false``: that checker only asks for the key; the RCP checker counts
  only ``success`` as converged, and so does mlcheck's RCP test; the results summarizer reads no
  status and times the run anyway, and so does mlcheck's score where the target is reached).
  Fix: log ``run_stop`` with ``metadata={'status': 'success'}`` or ``'aborted'``.
- MLC104 run-boundary-repeated: ``run_start`` or ``run_stop`` appears more than once; the official
  checker requires exactly one. The results summarizer (``_query_run_start_stop``) times the run
  from the last ``run_start`` before the first ``run_stop`` (a job restarted in one file is timed
  from its restart), and so does mlcheck's time-to-train. An error (``official: true``) when the
  copies differ; a warning when all copies have the same value, as the checker of record of
  every round 1.0-2.1 only warns then (every rank of a multi-node job logging its own copy).

Rules text: training_rules.adoc §Run results ("wall-clock timing measurement for a contiguous
period"); checker: training_X.Y.Z/common.yaml (``run_start``/``run_stop`` EXACTLY_ONE, status in
metadata).
"""

from __future__ import annotations

from typing import Iterator, Sequence

from mlcheck.model import Event, Finding, Run, Severity
from mlcheck.rule import Rule, RunContext
from mlcheck.rules.key_checks import same_value

RUN_START_MISSING = Rule("MLC101", "run-start-missing", Severity.ERROR,
                         "the run has no run_start", official=True)
RUN_STOP_MISSING = Rule("MLC102", "run-stop-missing", Severity.ERROR,
                        "the run has no run_stop", official=True, also=(Severity.WARNING,))
RUN_STOP_STATUS_MISSING = Rule("MLC103", "run-stop-status-missing", Severity.ERROR,
                               "run_stop has no success/aborted status", official=True, also=(Severity.WARNING,))
RUN_BOUNDARY_REPEATED = Rule("MLC104", "run-boundary-repeated", Severity.ERROR,
                             "run_start or run_stop appears more than once", official=True, also=(Severity.WARNING,))

RULES = (RUN_START_MISSING, RUN_STOP_MISSING, RUN_STOP_STATUS_MISSING, RUN_BOUNDARY_REPEATED)

_STATUSES = ("success", "aborted")


def check(ctx: RunContext) -> Iterator[Finding]:
    """Findings about the presence and shape of run_start / run_stop."""
    run = ctx.run
    if run.run_start is None:
        yield ctx.at(RUN_START_MISSING, run.first_line,
                     "the run has no run_start; it cannot be timed (log run_start when the clock starts)")
    stop = run.run_stop
    if stop is None:
        yield ctx.at(RUN_STOP_MISSING, run.last_line,
                     f"the run has no run_stop (last record at line {run.last_line}); the job may have "
                     "crashed or the log was cut, so the run counts as non-converged")
    elif "status" not in stop.metadata:
        yield ctx.at(RUN_STOP_STATUS_MISSING, stop.line,
                     "run_stop has no 'status' in its metadata; expected 'success' or 'aborted'")
    elif stop.metadata["status"] not in _STATUSES:
        yield ctx.at(RUN_STOP_STATUS_MISSING, stop.line,
                     f"run_stop status is {_shown_status(stop.metadata['status'])}; expected 'success' or 'aborted' "
                     "(the RCP checker counts only 'success' as converged; the results summarizer reads no "
                     "status and times the run anyway, as mlcheck's score does where the target is reached)",
                     severity=Severity.WARNING, official=False)
    if stop is not None:  # (common.yaml checks each run_stop: a repeat without status fails the file too)
        for again in run.occurrences("run_stop")[1:]:
            if "status" not in again.metadata:
                yield ctx.at(RUN_STOP_STATUS_MISSING, again.line,
                             f"the run_stop at line {again.line} (logged again after line {stop.line}) has no "
                             "'status' in its metadata; the checker checks each run_stop: log it once, with "
                             "its status")
    for key in ("run_start", "run_stop"):
        events = run.occurrences(key)
        if len(events) > 1:
            lines = ", ".join(str(e.line) for e in events)
            # The official checker only warns when every copy has the same value (NaN twice too).
            same = all(same_value(e.value, events[0].value) for e in events)
            yield ctx.at(RUN_BOUNDARY_REPEATED, events[1].line,
                         f"{key} appears {run.count(key)} times (lines {lines}); exactly one is allowed; "
                         f"{_timed_from(run)}{_two_seeds(run) or _rank_copies(events) if key == 'run_start' else ''}",
                         official=not same,
                         severity=Severity.WARNING if same else Severity.ERROR)


def _two_seeds(run: Run) -> str:
    """What a run of two run_starts and two seeds is, most likely: two runs' records in one (two jobs
    launched at once whose output carries one rank tag, ``poprun ... &`` twice)."""
    seeds = sorted({repr(e.value) for e in run.occurrences("seed")})
    if len(seeds) < 2:
        return ""
    return (f". It logs {len(seeds)} seeds too ({', '.join(seeds[:4])}{', ...' if len(seeds) > 4 else ''}): two runs' "
            "records in one, as two jobs launched at once print them under one rank tag? Write each job's "
            "output to its own file")


def _rank_copies(events: Sequence[Event]) -> str:
    """What run_starts logged within a second of one another are, most likely: every rank's copy of one
    record, printed without a rank tag (which mlcheck would read to keep the logging rank's)."""
    times = [e.time_ms for e in events]
    spread = max(times) - min(times)
    if spread > 1_000:
        return ""
    return (f". They were logged {f'within {spread:g} ms of one another' if spread else 'at the same millisecond'}: every "
            "rank's copy of one record, printed without a rank tag (or under a label mlcheck does not read as one)? Log "
            "from one rank, or tag each rank's lines (mpirun --tag-output, srun --label): mlcheck then keeps the lowest "
            "rank's, as `mlcheck split` writes them")


def _timed_from(run: Run) -> str:
    start, stop = run.timed_start, run.run_stop
    if start is None or stop is None:
        return "the run cannot be timed"
    return (f"the results summarizer times the run from the run_start at line {start.line} to the first "
            f"run_stop (line {stop.line}), and so does mlcheck")


def _shown_status(status: object) -> str:
    """The status as logged; NaN is what stands for a name found in metadata logged as a string
    or a list (:func:`mlcheck.read.record_shape.as_checked_metadata`)."""
    if isinstance(status, float) and status != status:
        return "not readable (its metadata is not an object)"
    return repr(status)
