"""Where raw job output begins the job's next run without a launcher line between the two (runs of one
job one after the other, a console of several runs): after a run's ``run_stop``, a ``cache_clear``
or ``init_start`` logged outside the run's time (after its run_stop, or more than
:data:`COPY_WINDOW_MS` before its first record: runs concatenated out of order) begins the next
run, and the ``submission_*`` records logged between the two are the next run's (the run's own
where it had not logged the key: TPU consoles print the block, or its rest, after run_stop; so at a
launcher line too), and so are the settings it logged before its run_start (a console whose runs
log the block and hyper-parameters before ``cache_clear``), and after such a repeat any setting it
logged. One logged within the run's time is held with what follows (a twin): a run of its own from
there (runs launched together, their output joined) once it logs an eval the run did not log at
that moment, outlasts the run, logs its ``run_start`` more than :data:`COPY_WINDOW_MS` off, or at
its ``run_stop`` lasts longer or shorter than the run (:func:`~mlcheck.read.run_windows.own_run`);
else a copy of the run (another process printing it again: the run's, with what was held before
it), and so where a later start, a launcher line or the end comes first. Any other record after
``run_stop`` (a final eval) is the run's own. A run that never logged its ``run_stop`` (killed,
then run again in the same console) ends at a ``cache_clear`` or ``init_start`` logged after its
``init_stop`` (or a record after its ``run_start``) and later than every record of it: the ranks of
one run initialise together, so such a record is no copy; the ``submission_*`` records that come so
before it (or before a launcher line), and the settings of its initialisation logged again in its
training, are held: the next run's (the run script's block, or a hyper-parameter the next attempt
logs before its ``cache_clear``), and so, in its training, at a ``cache_clear`` or ``init_start``
dated more than :data:`INIT_COPY_WINDOW_MS` before its first record (a relaunch on a host whose
clock is behind; a rank whose clock is off by so much is not met). So does a run killed in its
initialisation, at an ``init_start`` (or a second ``cache_clear``) logged later than every record
of it and more than :data:`INIT_COPY_WINDOW_MS` after its own ``init_start``; the records logged so
before it (any but ``init_stop``, ``run_start``, ``run_stop``) are held until it is known whose
they are: the next attempt's when it begins or at a launcher line, else the run's with the next
record; ``weights_initialization`` records are held only after a held record. Sooner, the two
cannot be told apart: the processes of a large job start their initialisation up to minutes apart,
each printing its init block (one run then, its repeats reported: MLC107). ``check``, ``split`` and
``watch`` read it alike. A submitted result file is one run whatever it holds
(:mod:`mlcheck.read.runs`)."""

from __future__ import annotations

import math
from typing import Callable, Generic, TypeVar, cast

from mlcheck.model import plausible_time
from mlcheck.read.run_windows import (EDGES, COPY_CLOCK_MS, COPY_WINDOW_MS, INIT_COPY_WINDOW_MS, INIT_PROGRESS, NEXT_RUN_KEYS,
                                     RELAUNCH_GAP_MS, TWIN_LIMIT, WATCHED_KEYS, Evals, earliest_known, is_hyper_parameter, own_run)

Item = TypeVar("Item")


class NextRunStart(Generic[Item]):
    """Follows one file's records; :meth:`take` says where the next run begins.

    The time a run's start is compared with is that of its first record of :data:`WATCHED_KEYS`
    (or any record once it is :attr:`watching`): what ``check``, which passes only those, and
    ``split`` and ``watch``, which pass every record, both see. A time that is no date
    (:func:`~mlcheck.model.plausible_time`: 0, a clock not yet set) gives way to a later one that
    is; a run whose clock is relative (every time small, negative in its initialisation) keeps its own."""

    def __init__(self, logged: Callable[[str], bool] | None = None, value_of: Callable[[Item], object] | None = None) -> None:
        self.stopped = False
        """The current run logged its run_stop."""
        self.held: list[Item] = []
        self.held_until: float | None = None
        """The time of the last record held in a run's initialisation (``watch`` times init by it)."""
        self._first: float | None = None
        self._stop, self._run_start = 0.0, cast("float | None", None)  # (when the run logged its run_stop, run_start)
        self.started = False
        """The current run logged its run_start (every record then passes :meth:`take`)."""
        self._training = False  # (a record after run_start)
        self.initialised = False
        """The current run logged its init_stop (every record then passes :meth:`take`)."""
        self.latest = float("-inf")  # (the time of the current run's last record: RunBoundaries compares a relaunch's)
        self._init_start: float | None = None  # (when the current run logged its init_start)
        self._cleared = False  # (the current run logged a cache_clear)
        self._logged_of, self._logged = logged, cast("set[str]", set())  # (without ``logged``: the keys the run logged)
        self._held_keys: list[str] = []  # (the keys of the records held)
        self._in_run: set[str] = set()  # (the keys the current run logged after its run_start)
        self._held_gap = 0.0  # (how long after every record of the run the first record held came)
        self._after_stop: set[str] = set()  # (the keys the current run logged after its run_stop, as its own)
        self.why = ""
        """Why the record :meth:`take` last said begins the next run does (MLC024 says it)."""
        self._twin: list[tuple[str, float, Item]] | None = None  # (a start within the run's time, after its
        self._twin_start: float | None = None  # run_stop, and what followed: a copy or a run of its own)
        self._for_current: list[Item] = []  # (a twin settled as copies by a later start: the run's)
        self._value_of, self._evals = value_of, Evals()

    def take(self, key: str, time_ms: float, item: Item) -> tuple[bool, list[Item]]:
        """Whether the next run begins at this record, and the records to add now (the held ones
        first: the next run's when it begins here, else the current run's; where it begins, those
        of :meth:`before_open` are the current run's)."""
        if self._twin is not None:
            return self._take_twin(key, time_ms, item)
        if self.stopped:
            if key in NEXT_RUN_KEYS and not self._within(time_ms):
                self.why = f"{key} after the run's run_stop, outside the run's time: the job's next run"
                self._begin(time_ms, key)
                return True, self._released(item, key)
            if key in NEXT_RUN_KEYS:  # (within its time: a copy, or a run of its own)
                self._twin, self._twin_start = [(key, time_ms, item)], None
                self._evals.new_twin()
                return False, []
            if (key.startswith("submission_") or (self.held or key not in self._in_run and key not in self._after_stop)
                    and key not in EDGES) and self._has_logged(key):  # (a repeat of its block or settings, or a
                return self._hold(item, key, time_ms)  # setting it logged in training after such a repeat: the next run's)
            self._after_stop.add(key)  # (its own: a key of its block it had not logged (TPU), a status it logs twice)
            return False, self._released(item, key)
        if (key in WATCHED_KEYS or self.watching) and earliest_known(self._first, time_ms):
            self._first = time_ms
        if (self._training or self.initialised) and time_ms > self.latest:  # (after every record of a run under way)
            if key in NEXT_RUN_KEYS:  # (it was killed, and run again)
                self.why = (f"{key} later than every record of a run that logged its run_start and no run_stop: "
                            "it was stopped in training and run again" if self.started else f"{key} after the run's "
                            "init_stop, later than every record of it, before any run_start: another attempt")
                self._begin(time_ms, key)
                return True, self._released(item, key)
            if key.startswith("submission_") or self.held and key not in self._in_run and key not in EDGES and \
                    self._has_logged(key) or time_ms - self.latest > RELAUNCH_GAP_MS and self.repeats_a_setting(key):
                return self._hold(item, key, time_ms)  # (a block, settings or a hyper-parameter again: the next attempt's)
        elif self._training and self._first is not None and plausible_time(time_ms) \
                and time_ms < self._first - INIT_COPY_WINDOW_MS:  # (long before the run began: a relaunch, clock behind)
            if key in NEXT_RUN_KEYS:
                self.why = (f"{key} dated {(self._first - time_ms) / 60_000:,.0f} min before the run's first record, "
                            "in its training: a relaunch on a host whose clock is behind")
                self._begin(time_ms, key)
                return True, self._released(item, key)
            if key.startswith("submission_") or self.held and key not in EDGES:  # (its block: held, as above)
                return self._hold(item, key, time_ms)
        elif self._late_in_init(time_ms):  # (after every record, minutes after its init_start)
            if key == "init_start" or (key == "cache_clear" and self._cleared):  # (killed, run again)
                self.why = (f"{key} more than {INIT_COPY_WINDOW_MS / 60_000:.0f} minutes after the run's init_start, "
                            "later than every record of it: the attempt was stopped in its initialisation and run again")
                self._begin(time_ms, key)
                return True, self._released(item, key)
            if key not in EDGES and (key not in INIT_PROGRESS or self.held):  # (the next attempt's, if one begins)
                self.held_until = time_ms  # (later than every record: the latest held)
                return self._hold(item, key, time_ms)
        if key == "eval_accuracy" and self._value_of is not None:
            self._evals.of_run(self._value_of(item), time_ms)
        if key == "run_stop":
            self.stopped, self._stop = True, time_ms
        elif key == "init_stop":
            self.initialised = True
        elif key == "run_start":
            self.started = True
            if earliest_known(self._run_start, time_ms):
                self._run_start = time_ms
        elif self.started:
            self._training = True
            self._in_run.add(key)
        elif key == "init_start" and self._init_start is None:
            self._init_start = time_ms
        if key == "cache_clear":
            self._cleared = True
        if time_ms > self.latest:  # (an if, not max(): once per record)
            self.latest = time_ms
        return False, self._released(item, key)

    def repeats_a_setting(self, key: str, any_key: bool = False) -> bool:
        """Whether ``key`` logs a hyper-parameter (``any_key``: a key) of the run's initialisation again while it
        trains (a relaunch's first record, after a gap or a job's end: ``run_boundaries.RunBoundaries``)."""
        return self._training and key not in self._in_run and (any_key or is_hyper_parameter(key)) and self._has_logged(key)

    def _has_logged(self, key: str) -> bool:
        """Whether the current run logged a record of ``key`` before."""
        return self._logged_of(key) if self._logged_of is not None else key in self._logged

    def _hold(self, item: Item, key: str, time_ms: float) -> tuple[bool, list[Item]]:
        self._held_gap = self._held_gap if self.held else time_ms - self.latest
        self.held.append(item)
        self._held_keys.append(key)
        return False, []

    @property
    def watching(self) -> bool:
        """Whether the next run may begin at any record (the current run logged its init_start):
        before it, only at a record of :data:`WATCHED_KEYS`."""
        return self._init_start is not None or self.started or self.initialised or self.stopped

    def _late_in_init(self, time_ms: float) -> bool:
        """Whether a record of the current run's initialisation is logged later than every record
        of it and more than :data:`INIT_COPY_WINDOW_MS` after its init_start."""
        return self._init_start is not None and not self.started and time_ms > self.latest \
            and time_ms - self._init_start > INIT_COPY_WINDOW_MS

    def _begin(self, time_ms: float | None, key: str = "") -> None:
        """The state of a run that begins (at a record of ``time_ms`` and ``key``, or at a
        launcher line); the records held are its own."""
        self._logged, self._in_run, self._after_stop = set(), set(), set()
        self.stopped, self._first, self.started, self._training = False, time_ms, False, False
        self._evals, self._run_start, self.initialised = Evals(), None, False
        self._init_start = time_ms if key == "init_start" else None
        self._cleared = key == "cache_clear"
        self.latest = float("-inf") if time_ms is None else time_ms

    def _take_twin(self, key: str, time_ms: float, item: Item) -> tuple[bool, list[Item]]:
        """A record after a start within the run's time that followed its run_stop: held until an
        eval, the twin's length, its run_start or its run_stop says whether it copies the run (the
        run's) or is a run of its own (begun at its first record); a start outside the run's time
        first settles it as copies."""
        twin = self._twin or []
        if key in NEXT_RUN_KEYS and not self._within(time_ms):
            self._for_current = self._settle()
            return self.take(key, time_ms, item)
        twin.append((key, time_ms, item))
        if len(twin) > TWIN_LIMIT:  # (memory: a long copy, or a run launched with it to the second: copies, as before)
            return False, self._settle()
        if key == "eval_accuracy" and self._value_of is not None:
            skew = twin[0][1] - self._first if self._first is not None else 0.0  # (a copy's clock, off the run's)
            if self._evals.of_twin(self._value_of(item), time_ms, skew):
                return self._twin_run("its evals differ from the run's, logged at other moments")
        if self._twin_start is not None and self._run_start is not None \
                and time_ms - self._twin_start > self._stop - self._run_start + COPY_CLOCK_MS:
            return self._twin_run("it outlasts the run")
        if key == "run_start" and self._twin_start is None:
            self._twin_start = time_ms
            if self._run_start is not None and abs(time_ms - self._run_start) > COPY_WINDOW_MS:
                return self._twin_run(f"its run_start is {abs(time_ms - self._run_start) / 1000:,.0f} s from the run's")
        elif key == "run_stop":
            why = own_run((self._run_start, self._stop), (self._twin_start, time_ms), self._evals.twin_differs())
            return self._twin_run(why) if why else (False, self._settle())
        return False, []

    def _settle(self) -> list[Item]:
        """The twin's records, and those held before it, as copies of the run: the run's."""
        twin, self._twin = self._twin or [], None
        keys = {key for key, _time, _item in twin if key}
        self._after_stop |= keys  # (its own from now on, as any record of it after run_stop)
        if self._logged_of is None:
            self._logged |= keys
        return self._released(None) + [item for _key, _time, item in twin]

    def _twin_run(self, why: str) -> tuple[bool, list[Item]]:
        """The twin as a run of its own, begun at its first record: its records taken anew."""
        twin, self._twin = self._twin or [], None
        first_key, first_time, _first = twin[0]
        self.why = (f"{first_key} after the run's run_stop, within the run's time but no copy of it: {why} (another "
                    "run, its output joined to this one's)")
        self._begin(first_time, first_key)
        taken = self._released(None) + [kept for record_key, time_ms, item in twin
                                        for kept in (self.take(record_key, time_ms, item)[1] if record_key else [item])]
        return True, taken

    def before_open(self) -> list[Item]:
        """Where :meth:`take` said the next run begins: the records the current run takes first
        (a twin settled as its copies by the start of a later run)."""
        taken, self._for_current = self._for_current, []
        return taken

    def hold_with(self, item: Item) -> bool:
        """Hold ``item`` beside the records held, to go where they go (a record the reader refused:
        ``split`` writes it in its place); False when none is held."""
        if self._twin is not None:
            self._twin.append(("", math.nan, item))
            return True
        if not self.held:
            return False
        self.held.append(item)
        self._held_keys.append("")
        return True

    def before_restart(self) -> list[Item]:
        """At a launcher line: the records held between the run's init_stop and its run_start
        within :data:`COPY_WINDOW_MS` of its last record (a process printing its block late), which
        are the run's; none held later, in its initialisation minutes after its init_start, in its
        training or after its run_stop, which are the next run's (:meth:`restart`: the block and
        settings a run script logs before it launches the next attempt)."""
        twin = self._settle() if self._twin is not None else []  # (a job's end: the twin copied the run)
        copies = self.initialised and not self.started and self._held_gap <= COPY_WINDOW_MS
        return twin + self._released(None) if copies else twin

    def restart(self) -> list[Item]:
        """A run opened at a launcher line: the records held (logged after the run before it
        stopped, before the job's start: the new run's), and no run_stop yet."""
        twin = self._settle() if self._twin is not None else []  # (none after before_restart)
        self._begin(None)
        return twin + self._released(None)

    def rest(self) -> list[Item]:
        """The records still held where the file ends: the current run's."""
        return (self._settle() if self._twin is not None else []) + self._released(None)

    def _within(self, time_ms: float) -> bool:
        """Whether a ``cache_clear`` or ``init_start`` after the run's run_stop may be another
        process's copy of its start: logged from :data:`COPY_WINDOW_MS` before the run's first
        record to as long after its run_start (the ranks of a run all initialise before it) or its
        run_stop, whichever is sooner (the times of its first record and run_start as the class
        says)."""
        first = self._first
        if first is None:
            return False
        last = self._stop if self._run_start is None else min(self._stop, self._run_start + COPY_WINDOW_MS)
        return first - COPY_WINDOW_MS <= time_ms <= last

    def _released(self, item: Item | None, key: str = "") -> list[Item]:
        """The records held and ``item`` (of ``key``), given to the current run (noted as its)."""
        released = [*self.held] if item is None else [*self.held, item]
        if self._logged_of is None:  # (else the caller knows: every record of raw output comes here)
            self._logged.update(self._held_keys)
            if key:
                self._logged.add(key)
        if self.held:
            self.held, self._held_keys, self.held_until = [], [], None
        return released
