"""The data model shared by every stage: events read from a log, findings and runs (what checking
produces from them is in :mod:`mlcheck.results`)."""

from __future__ import annotations

import enum
import operator
import re
from collections import defaultdict
from itertools import chain
from typing import Any, Callable, Generic, Iterator, Mapping, NamedTuple, TypeVar, overload

from mlcheck.records import dataclass


PLAUSIBLE_MS = (1_420_070_400_000, 4_102_444_800_000)
"""2015-01-01 and 2100-01-01 in milliseconds since the Unix epoch: a ``time_ms`` outside never
reaches date arithmetic (MLC405 reports it)."""


def plausible_time(time_ms: float) -> bool:
    """Whether ``time_ms`` is a date between 2015 and 2100 (False for NaN and infinities)."""
    return PLAUSIBLE_MS[0] <= time_ms < PLAUSIBLE_MS[1]


class Severity(enum.IntEnum):
    """How bad a finding is; ordered so that ``max()`` gives the worst."""

    INFO = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        try:
            return cls[text.upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r}; use one of info, warning, error") from None


class Event(NamedTuple):
    """One ``:::MLLOG`` record, with the physical 1-based line it was read from.

    A named tuple rather than a frozen dataclass: as immutable, and about three times cheaper to
    create, which matters for the reader (one per record of every log).
    """

    key: str
    value: Any
    metadata: Mapping[str, Any]
    time_ms: float
    line: int
    event_type: str | None = None
    namespace: str | None = None


EVENT_KEY, EVENT_TIME_MS, EVENT_LINE = (operator.itemgetter(Event._fields.index(name))
                                        for name in ("key", "time_ms", "line"))
"""An event's field read in C (``map(EVENT_KEY, events)``: no Python step per event)."""


MAX_ITEMS = 50
"""The most items a grouped finding keeps (the count says how many there were)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """A problem (or a note) about a log, a run, a benchmark folder or a package.

    ``official`` says whether the round's official compliance checker of record flags the same
    problem; ``run_index`` is the run's position in its file when the finding belongs to one run.
    A finding that stands for several problems of its rule in one run (17 keys not logged) lists
    what it covers in ``items`` (at most :data:`MAX_ITEMS` of them) and their number in
    ``item_count`` (0 for a finding about one thing). A finding with ``item_count`` but no
    ``items`` stands for that many findings of its rule that were counted, not listed (the reading
    stage's cap on one file: :class:`mlcheck.read.finding_cap.FindingCap`).
    """

    code: str
    name: str
    severity: Severity
    message: str
    path: str
    line: int | None = None
    official: bool = False
    run_index: int | None = None
    items: tuple[str, ...] = ()
    item_count: int = 0

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.run_index if self.run_index is not None else -1,
                self.line if self.line is not None else 0, self.code, self.message)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One ``eval_accuracy`` event, reduced to what convergence and reports need."""

    time_ms: float
    value: Any
    line: int
    epoch_num: float | None
    samples_count: float | None
    metric: str | None = None
    """``metadata.metric`` where one eval logs several metrics (Stable Diffusion FID and CLIP)."""
    step_num: float | None = None


class FirstRecords:
    """What is read from the first record of a key, shared by a :class:`Run` and the summary a
    judged run leaves (:class:`mlcheck.results.RunSummary`); a subclass gives :meth:`first`."""

    __slots__ = ()

    def first(self, key: str) -> Event | None:
        """The first event with this key, or None."""
        raise NotImplementedError

    def value_of(self, key: str) -> Any:
        """The value of the first event with this key, or None."""
        event = self.first(key)
        return None if event is None else event.value

    def text_of(self, key: str) -> str | None:
        """The first value of a key when it is a non-empty string (``submission_*`` keys)."""
        value = self.value_of(key)
        return value if isinstance(value, str) and value else None

    @property
    def benchmark(self) -> str | None:
        return self.text_of("submission_benchmark")

    @property
    def division(self) -> str | None:
        return self.text_of("submission_division")

    @property
    def org(self) -> str | None:
        return self.text_of("submission_org")

    @property
    def platform(self) -> str | None:
        return self.text_of("submission_platform")

    @property
    def run_start(self) -> Event | None:
        return self.first("run_start")

    @property
    def run_stop(self) -> Event | None:
        return self.first("run_stop")

    @property
    def status(self) -> str | None:
        """``run_stop`` metadata status (``success`` / ``aborted``), or None when absent."""
        stop = self.run_stop
        if stop is None:
            return None
        status = stop.metadata.get("status")
        return status if isinstance(status, str) else None

    @property
    def timed_start(self) -> Event | None:
        """The ``run_start`` the run is timed from (a :class:`Run` knows every one)."""
        return self.run_start

    @property
    def duration_ms(self) -> float | None:
        start, stop = self.timed_start, self.run_stop
        if start is None or stop is None:
            return None
        return stop.time_ms - start.time_ms


_FIRST = operator.itemgetter(0)
NO_INIT_START = 9e99
"""The first init_start before any (the official checker's ``first_init_start``)."""
_T = TypeVar("_T")


class once(Generic[_T]):
    """``functools.cached_property`` without its lock (Python 3.11 takes one the first time
    each run reads each value: a few microseconds, for the values every run reads once)."""

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> once[_T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> once[_T] | _T:
        if instance is None:
            return self
        value = self.compute(instance)
        instance.__dict__[self.name] = value  # (read from there from now on: no descriptor call)
        return value


@dataclass(frozen=True)
class Run(FirstRecords):
    """One training run read from a log: the events kept for rules plus what is derived once.

    To keep memory flat on very long logs, at most ``Run.KEEP_PER_KEY`` events of each key are
    kept in ``events``, and past that only the key's last event and up to 100 events with values
    none before holds (every rank's copies: :mod:`mlcheck.read.run_builder`); ``key_counts``
    holds the true number of occurrences of every key. Once
    judged, a run is kept as its summary (:func:`mlcheck.results.summarise`).
    """

    path: str
    index: int
    events: tuple[Event, ...]
    key_counts: Mapping[str, int]
    evaluations: tuple[Evaluation, ...]
    first_line: int
    last_line: int

    KEEP_PER_KEY = 2000

    @once
    def _by_key(self) -> Mapping[str, tuple[Event, ...]]:
        # Built once per run: rules ask for keys many times, a scan each time was quadratic.
        grouped: defaultdict[str, list[Event]] = defaultdict(list)
        for event in self.events:  # (no list made per event, as setdefault would)
            grouped[event[0]].append(event)
        return {key: tuple(events) for key, events in grouped.items()}

    def occurrences(self, key: str) -> tuple[Event, ...]:
        """The kept events with this key, in log order."""
        return self._by_key.get(key, ())

    def firsts(self) -> Iterator[Event]:
        """The first event of each key, in log order (of their first events)."""
        return map(_FIRST, self._by_key.values())

    def first(self, key: str) -> Event | None:
        """The first event with this key, or None."""
        events = self._by_key.get(key)
        return events[0] if events else None

    def count(self, key: str) -> int:
        return self.key_counts.get(key, 0)

    # (asked by most rules of every run: read once)
    @once
    def division(self) -> str | None:
        return self.text_of("submission_division")

    @once
    def benchmark(self) -> str | None:
        return self.text_of("submission_benchmark")

    @once
    def run_start(self) -> Event | None:
        return self.first("run_start")

    @once
    def run_stop(self) -> Event | None:
        return self.first("run_stop")

    @once
    def timed_start(self) -> Event | None:
        """The ``run_start`` the results summarizer times from (``_query_run_start_stop``): the
        last one before the first ``run_stop``, else the first (a job restarted in one file)."""
        starts = self.occurrences("run_start")
        stop = self.run_stop
        if len(starts) < 2 or stop is None:
            return self.run_start
        before = [s for s in starts if s.line < stop.line]
        return before[-1] if before else starts[0]

    @property
    def init_duration_ms(self) -> float | None:
        """``init_stop`` minus the first ``init_start``, as the official checker measures init."""
        starts = self.occurrences("init_start")
        stop = self.first("init_stop")
        if not starts or stop is None:
            return None
        # (from 9e99, as the checker's BEGIN sets it: a start timed NaN never lowers it, in C)
        earliest: float = min(chain((NO_INIT_START,), map(EVENT_TIME_MS, starts)))
        return stop.time_ms - earliest


def natural_order(path: str) -> list[object]:
    """Sort key that puts result_2 before result_10 (the digits ``\\d`` splits out are decimal
    digits, of any script; not superscripts, which ``str.isdigit`` also accepts and ``int`` refuses)."""
    return [int(part) if part.isdecimal() else part for part in re.split(r"(\d+)", path)]
