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

COPY_CLOCK_MS = 1_000.0
"""How much longer or shorter than a run (run_start to run_stop) another process's copy of it may
last (its ranks log both together; a host's clock may be off, by the same for both): a twin
further off is a run of its own."""
RELAUNCH_GAP_MS = 10_000.0
"""How long after every record of a run killed in training a hyper-parameter of its initialisation
logged again is held as the next attempt's (a relaunch starts its processes and imports its
framework before its first record); sooner, it is the run's own repeat."""
_HYPER_PARAMETERS = frozenset({"seed", "global_batch_size", "gradient_accumulation_steps", "max_sequence_length",
                               "num_warmup_steps", "start_warmup_step", "lr_decay_start_steps"})
_HYPER_PARAMETER_PREFIXES = ("opt_", "sgd_opt_", "lamb_")


def is_hyper_parameter(key: str) -> bool:
    """A key of the hyper-parameters a run logs once, in its initialisation, and a relaunch may log
    before its ``cache_clear`` (the loggers of 41 published result files do): never a key a run
    logs again while it trains (``tracked_stats``, evals), which is never held as the next run's."""
    return key in _HYPER_PARAMETERS or key.startswith(_HYPER_PARAMETER_PREFIXES)


SAME_MOMENT_MS = 100.0
"""How far apart a copy whose eval values differ from the run's (ranks logging their local
accuracy) logs its run_stop and lasts: one printed with the run; any further is another run."""
MAX_EVALS = 10_000
"""The most eval values of a run kept to compare a twin's with."""

TWIN_LIMIT = 30_000
"""The most records held to tell a copy of a run from a run of its own (another run tells itself at
its first eval or once it outlasts the run; a run launched with it, as long to the second, with the
same evals or none: at its run_stop); past it they are the run's copies, as before they were held."""

INIT_COPY_WINDOW_MS = 600_000.0
"""How long after a run's init_start another process may print its own (a slow node): a later
init_start, after every record of a run still in its initialisation, is another attempt's."""

class Evals:
    """The evals a run logged (value, time), and whether those of a twin after it repeat them (a
    copy: the same values, or its own at the run's moments)."""

    def __init__(self) -> None:
        self.run: list[tuple[object, float]] = []
        self.twin, self.differ = 0, False

    def new_twin(self) -> None:
        self.twin, self.differ = 0, False

    def of_run(self, value: object, time_ms: float) -> None:
        if len(self.run) < MAX_EVALS:
            self.run.append((value, time_ms))

    def of_twin(self, value: object, time_ms: float, skew_ms: float) -> bool:
        """Note a twin's eval (its clock ``skew_ms`` from the run's); whether it shows the twin is
        another run: another value than the run's same eval, logged at another moment."""
        number, self.twin = self.twin, self.twin + 1
        if number >= MAX_EVALS:
            return False
        if number >= len(self.run):
            self.differ = True
            return False
        same, at = self.run[number]
        if _same(same, value):
            return False
        self.differ = True
        return abs(time_ms - at - skew_ms) > COPY_CLOCK_MS

    def twin_differs(self) -> bool:
        return self.differ or min(self.twin, MAX_EVALS) != len(self.run)


def _same(value: object, other: object) -> bool:
    """Whether two evals' values are one copied (NaN as NaN)."""
    return value == other or (value != value and other != other)


def own_run(run: tuple[float | None, float], twin: tuple[float | None, float], evals_differ: bool) -> str:
    """Why a twin that logged its run_stop is a run of its own ("": a copy of the run); ``run``
    and ``twin``: their run_start (None if not logged) and run_stop."""
    apart = abs(twin[1] - run[1])
    longer = (twin[1] - twin[0]) - (run[1] - run[0]) if run[0] is not None and twin[0] is not None else apart
    if abs(longer) > COPY_CLOCK_MS:
        return f"it lasts {abs(longer) / 1000:,.1f} s {'longer' if longer > 0 else 'shorter'} than the run"
    if evals_differ and max(apart, abs(longer)) > SAME_MOMENT_MS:
        return f"its evals differ from the run's, its run_stop {apart / 1000:,.1f} s from the run's"
    return ""


def earliest_known(kept: float | None, time_ms: float) -> bool:
    """Whether ``time_ms`` replaces the ``kept`` time of a run's first record (or run_start): none
    was kept, or it was no date (0) and this one is."""
    return kept is None or (not plausible_time(kept) and plausible_time(time_ms))
