"""The keys and time windows by which :mod:`mlcheck.read.next_run` tells where raw output begins
the job's next run, and how it compares a run's first time and its evals with another's."""

from __future__ import annotations

from mlcheck.model import plausible_time

NEXT_RUN_KEYS = frozenset({"cache_clear", "init_start"})
"""Keys that, after a run_stop, may begin the job's next run."""
WATCHED_KEYS = frozenset({"cache_clear", "init_start", "init_stop", "run_start", "run_stop"})
"""Keys that pass :meth:`NextRunStart.take` (each record after an init_start does: where a run
may end; a cache_clear before it is noted)."""
EDGES = frozenset({"init_stop", "run_start", "run_stop"})
"""Keys never held back in a killed initialisation: the run's own, which release what was held."""
INIT_PROGRESS = frozenset({"weights_initialization"})
"""Keys a run logs while it initialises (one record per tensor, for up to half an hour on some
systems): the run's own, held only after a record that is (an attempt's block, then its tensors)."""
COPY_WINDOW_MS = 60_000.0
"""How far before a run's first record another process's copy of its start may be logged (clocks
of several hosts); a run concatenated out of order began minutes before, a run takes minutes."""

COPY_CLOCK_MS = 5_000.0
"""How far from a run's run_start and run_stop another process's copies of them may be logged (the
ranks of one job pass them together, clocks of hosts a little apart); a twin's further off is a
run of its own, and so is one whose last eval_accuracy before its run_stop differs from the run's."""

TWIN_LIMIT = 20_000
"""The most records held to tell a copy of a run from a run of its own (its run_start comes within
a few hundred records of its start); past it they are the run's copies, as before they were held."""

INIT_COPY_WINDOW_MS = 600_000.0
"""How long after a run's init_start another process may print its own (a slow node): a later
init_start, after every record of a run still in its initialisation, is another attempt's."""

NO_EVAL = object()


def same_eval(value: object, other: object) -> bool:
    """Whether two evals' values are one copied (NaN as NaN)."""
    return value == other or (value != value and other != other)


def earliest_known(kept: float | None, time_ms: float) -> bool:
    """Whether ``time_ms`` replaces the ``kept`` time of a run's first record (or run_start): none
    was kept, or it was no date (0) and this one is."""
    return kept is None or (not plausible_time(kept) and plausible_time(time_ms))
