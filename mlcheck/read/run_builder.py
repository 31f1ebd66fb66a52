"""The run being read from a file: its events (at most ``Run.KEEP_PER_KEY`` of each key, every key
counted), its evaluations, and its first and last line; :mod:`mlcheck.read.runs` decides where a
run begins and ends and hands it each event, or each list of events read in bulk."""

from __future__ import annotations

import math
from collections import Counter
from collections import _count_elements  # type: ignore[attr-defined]  # (Counter's counting loop, in C)
from itertools import compress
from typing import Callable, Iterable, cast

from mlcheck.records import dataclass, field
from mlcheck.model import EVENT_KEY, EVENT_LINE, Evaluation, Event, Finding, Run
from mlcheck.read.reader import Batch, LogItem

_EVALUATION = "eval_accuracy"

_PLAIN_NUMBERS = frozenset({int, float})
"""The number types JSON gives (a bool is not one of them)."""


def _number(value: object) -> float | None:
    if type(value) in _PLAIN_NUMBERS:  # (the commonest: no isinstance)
        return float(value)  # type: ignore[arg-type]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def position_number(value: object) -> float | None:
    """An eval's position (``epoch_num``, ``samples_count``, ``step_num``) as a number: true and
    false count as 1 and 0, as the RCP checker's ``round(epoch_num, 3)`` and comparisons read them
    (``rcp_checker.py read_submission_file``, every round); anything else that is not a number, None."""
    if type(value) in _PLAIN_NUMBERS or isinstance(value, (int, float)):
        return float(value)  # type: ignore[arg-type]
    return None


EXTREMES_KEPT = 50_000
"""Evaluations kept past ``Run.KEEP_PER_KEY`` for passing every earlier value of their metric."""
BEYOND_VALUES = 100
"""Events of new values kept past a key's keep (``Run.KEEP_PER_KEY``), a key."""


def _value_key(value: object) -> object:
    """What tells two values apart (a list or an object by its text)."""
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return (type(value), value)


def _passes(extremes: dict[str | None, tuple[float, float]], metric: str | None, value: float | None) -> bool:
    """Whether ``value`` is above or below every earlier value of ``metric`` (then it is the new extreme)."""
    high, low = extremes.get(metric, (-math.inf, math.inf))
    if value is None or not (value > high or value < low):  # (NaN passes neither)
        return False
    extremes[metric] = (max(high, value), min(low, value))
    return True


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


@dataclass
class RunBuilder:
    """Collects the events of one run (at most ``Run.KEEP_PER_KEY`` of each key) and builds it."""

    path: str
    index: int
    events: list[Event] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    evaluations: list[Evaluation] = field(default_factory=list)
    first_line: int = 0
    last_line: int = 0
    extremes: dict[str | None, tuple[float, float]] | None = None
    """Past the evaluations' keep, the highest and lowest value of each metric so far (None: the
    keep is not full yet)."""
    beyond: dict[str, list[Event]] = field(default_factory=dict)
    """Past a key's keep, the events whose value no event of the key before holds (at most
    :data:`BEYOND_VALUES` a key)."""
    last_beyond: dict[str, Event] = field(default_factory=dict)
    """Past a key's keep, its last event: a check of every record's value, or of the last one's
    place (every rank's ``init_start`` after ``init_stop``), sees what thousands of copies hold."""
    _values: dict[str, set[object]] = field(default_factory=dict)

    def add(self, event: Event) -> None:
        counts, key = self.counts, event.key  # (once per record of every log: locals, one lookup)
        if not counts:
            self.first_line = event.line
        self.last_line = event.line
        seen = counts.get(key, 0) + 1
        counts[key] = seen
        if seen <= Run.KEEP_PER_KEY:
            self.events.append(event)
        else:
            self.keep_beyond(event)
        if key == "eval_accuracy":
            self.add_evaluation(event)

    def keep_beyond(self, event: Event) -> None:
        """An event past its key's keep: kept when its value is new, and as the key's last."""
        key = event[0]
        values = self._values.get(key)
        if values is None:
            values = self._values[key] = {_value_key(e[1]) for e in self.events if e[0] == key}
            self.beyond[key] = []
        self.last_beyond[key] = event
        value = _value_key(event[1])
        if value not in values and len(self.beyond[key]) < BEYOND_VALUES:
            values.add(value)
            self.beyond[key].append(event)

    def add_evaluation(self, event: Event) -> None:
        if len(self.evaluations) < Run.KEEP_PER_KEY or self._extreme(event):
            get = event[2].get  # (the metadata; the fields by position: once per evaluation)
            self.evaluations.append(Evaluation(
                event[3], event[1], event[4], position_number(get("epoch_num")), position_number(get("samples_count")),
                _text(get("metric")), position_number(get("step_num"))))

    def _extreme(self, event: Event) -> bool:
        """Past the keep, whether an evaluation is kept: one whose value is above or below every
        earlier one of its metric (the first to reach any target, above or below, is one of them:
        a long run's convergence is judged on all its evaluations), up to :data:`EXTREMES_KEPT`."""
        if self.extremes is None:  # (the keep just filled: its extremes, once, even when no value is a number)
            self.extremes = {}
            for kept in self.evaluations:
                _passes(self.extremes, kept.metric, _number(kept.value))
        return _passes(self.extremes, _text(event[2].get("metric")), _number(event[1])) and \
            len(self.evaluations) < Run.KEEP_PER_KEY + EXTREMES_KEPT

    def add_all(self, items: Iterable[LogItem | Batch], found: Callable[[Finding], None]) -> None:
        """On an empty builder, :meth:`add` every event of ``items`` (the whole file is this run)
        and pass every finding to ``found``: the same, in one loop without a call per record,
        and a list of events (a run of record lines read in bulk) without a step per record."""
        assert not self.counts
        counts, events, keep = self.counts, self.events, Run.KEEP_PER_KEY
        last: Event | None = None
        for item in items:
            kind = type(item)
            if kind is list:
                batch = cast(Batch, item)
                if self._add_batch(batch):
                    last = batch[-1]
                    continue
                for event in batch:  # (a key past its keep: one at a time)
                    self.add(event)
                last = batch[-1]
                continue
            if kind is not Event:
                found(cast(Finding, item))
                continue
            event = cast(Event, item)
            key = event[0]
            seen = counts.get(key, 0) + 1
            counts[key] = seen
            if seen <= keep:
                events.append(event)
            else:
                self.keep_beyond(event)
            if key == "eval_accuracy":
                self.add_evaluation(event)
            last = event
        if last is not None:  # (the builder was empty: its first event is the first kept)
            self.first_line = events[0].line
            self.last_line = last.line

    def _add_batch(self, batch: Batch) -> bool:
        """Add a list of events when no key of it passes :attr:`Run.KEEP_PER_KEY` (else False,
        nothing added): counted in C, kept with one ``extend``, its evaluations picked in C.
        While the run holds all its events and fewer than the keep with this batch, no key can
        pass it: the batch is counted straight into the run's counts (a batch holds ~20 events,
        where making a Counter of them and merging it cost three times as much)."""
        counts, keep = self.counts, Run.KEEP_PER_KEY
        held = len(self.events)
        evaluations = counts.get(_EVALUATION, 0)
        if held + len(batch) <= keep and sum(counts.values()) == held:
            _count_elements(counts, map(EVENT_KEY, batch))
        else:
            added = Counter(map(EVENT_KEY, batch))
            if any(counts.get(key, 0) + count > keep for key, count in added.items()):
                return False
            counts.update(added)
        self.events.extend(batch)
        if counts.get(_EVALUATION, 0) != evaluations:
            for event in compress(batch, map(_EVALUATION.__eq__, map(EVENT_KEY, batch))):
                self.add_evaluation(event)
        return True

    def build(self) -> Run:
        events = self.events
        if self.last_beyond:  # (in log order among the kept ones)
            extra = [e for kept in self.beyond.values() for e in kept]
            extra.extend(e for key, e in self.last_beyond.items() if not self.beyond[key] or self.beyond[key][-1] is not e)
            events = sorted(events + extra, key=EVENT_LINE)
        return Run(path=self.path, index=self.index, events=tuple(events),
                   key_counts=dict(self.counts), evaluations=tuple(self.evaluations),
                   first_line=self.first_line, last_line=self.last_line)
