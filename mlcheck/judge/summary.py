"""What a judged run leaves: its :class:`~mlcheck.results.RunSummary`, built once its run rules
have run, so that memory grows by a few kilobytes per run, not by its records (issue 12).

What is kept is what the stages after the run rules read, and nothing else:

- the first record of ``submission_*`` (folder and system-description checks, MLC516, MLC517),
  ``seed`` (MLC518, MLC519, MLC522; with the metadata ``file`` and ``lineno`` the seed checker
  compares), every hyper-parameter (MLC520), ``run_start`` and ``run_stop`` (the run's time and
  ``status``, the energy score) and of every other key first logged before ``run_start`` (the
  HTML report's hyper-parameter table; not ``cache_clear``, ``init_start``...); other metadata is
  dropped;
- the value of the last ``global_batch_size`` (the RCP checker reads every one, keeps the last),
  and of the last ``train_samples`` before ``run_stop`` (its BERT point with
  ``--rcp-bert-train-samples``);
- every ``seed`` record (the seed checker reads every one), with its ``file`` and ``lineno``;
- at most :data:`REDUCED_EVALS` evaluations, the first and the last half (the RCP test and the
  HTML curves);
- each value cut where it is large (:mod:`mlcheck.judge.bounded_values`).

Equal keys, short strings and numbers are one object per process (the runs of a folder log the
same submission values and hyper-parameters), and so are equal kept metadata and the mapping of
keys to places when runs keep the same keys; each cache holds at most :data:`MAX_SHARED` entries.
"""

from __future__ import annotations

import operator
import sys
from dataclasses import replace
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from mlcheck.judge.bounded_values import bounded
from mlcheck.model import Evaluation, Event, Run
from mlcheck.results import NOT_HYPERPARAMETERS, RunSummary
from mlcheck.rules.package_runs import is_hyperparameter

REDUCED_EVALS = 200
MAX_SEEDS = 1 << 16
"""The ``seed`` records of a run kept, at most (one per rank of the largest jobs)."""
MAX_SHARED = 1 << 16
"""Distinct values, metadata and lists of keys shared between the summaries of one process, at
most (each of them small: a few megabytes in all)."""

_NO_METADATA: Mapping[str, Any] = MappingProxyType({})
_KEY = operator.itemgetter(0)  # Event.key
_METADATA_KEPT = {"seed": ("file", "lineno"), "run_stop": ("status",)}
_ALWAYS_KEPT = frozenset({"seed", "run_start", "run_stop"})
_SHARED_FLOATS: dict[float, float] = {}
_SHARED_INTS: dict[int, int] = {}
_SHARED_KEYS: dict[tuple[str, ...], Mapping[str, int]] = {}
_SHARED_METADATA: dict[tuple[tuple[str, str | int], ...], Mapping[str, Any]] = {}
_ALWAYS, _WITH_METADATA, _BEFORE_START, _NEVER = "always", "with metadata", "before run_start", "never"
_KEY_KINDS: dict[str, tuple[str, str]] = {}
"""Which first records of a key are kept, decided once per key: wherever it is logged (a
submission value, a hyper-parameter, ``seed``, ``run_start``, ``run_stop``; ``seed`` and
``run_stop`` with some metadata), when logged before ``run_start``, or never; with the key's
interned string (what a summary holds)."""


def _key_kind(key: str) -> tuple[str, str]:
    if key in _ALWAYS_KEPT or key.startswith("submission_") or is_hyperparameter(key):
        kind = _WITH_METADATA if key in _METADATA_KEPT else _ALWAYS
    else:
        kind = _NEVER if key in NOT_HYPERPARAMETERS else _BEFORE_START
    found = (kind, sys.intern(key))
    if len(_KEY_KINDS) < MAX_SHARED:
        _KEY_KINDS[key] = found
    return found


def shared(value: Any) -> Any:
    """An equal value another summary holds already, else ``value`` (kept for the next ones):
    strings of up to 256 characters, 64-bit integers and floats other than 0.0 and NaN (so that
    -0.0 is never read as 0.0)."""
    kind = type(value)
    if kind is str:
        return sys.intern(value) if len(value) <= 256 else value
    if kind is float:
        if value != value or value == 0.0:
            return value
        table: dict[Any, Any] = _SHARED_FLOATS
    elif kind is int and -(1 << 63) <= value < (1 << 63):
        table = _SHARED_INTS
    else:
        return value
    held = table.get(value)
    if held is not None:
        return held
    if len(_SHARED_FLOATS) + len(_SHARED_INTS) < MAX_SHARED:
        table[value] = value
    return value


def _small(value: Any) -> bool:
    kind = type(value)
    return (kind is str and len(value) <= 256) or (kind is int and -(1 << 63) <= value < (1 << 63))


def summarise(run: Run) -> RunSummary:
    """The summary of a run (see the module documentation for what it keeps)."""
    start = run.run_start
    before = start.line if start is not None else run.last_line
    kept: list[Event] = []
    intern, new, kinds, floats, ints = sys.intern, tuple.__new__, _KEY_KINDS, _SHARED_FLOATS, _SHARED_INTS
    for event in run.firsts():
        kind, key = kinds.get(event[0]) or _key_kind(event[0])
        if kind is _BEFORE_START:
            if event[4] >= before:  # (Event.line)
                continue
        elif kind is _NEVER:
            continue
        elif kind is _WITH_METADATA:
            kept.append(_compact(event))
            continue
        value = event[1]  # (what _compact makes of the others, without a call per value)
        value_kind = type(value)
        if value_kind is str:
            value = intern(value) if len(value) <= 256 else bounded(value)
        elif value_kind is list or value_kind is dict:
            value = bounded(value)
        elif value_kind is float:
            value = floats.get(value) or shared(value)
        elif value_kind is int:
            value = ints.get(value) or shared(value)
        kept.append(new(Event, (key, value, _NO_METADATA, event[3], event[4], None, None)))
    sizes = run.occurrences("global_batch_size")
    seeds = run.occurrences("seed")
    stops = run.occurrences("run_stop")
    return _summary(run.path, run.index, run.first_line, run.last_line, tuple(kept),
                    _bounded(run.evaluations), shared(bounded(sizes[-1].value)) if sizes else None,
                    tuple(map(_compact, seeds[1:MAX_SEEDS])) if len(seeds) > 1 else (), _train_samples(run, stops),
                    _last_stop(stops), _last_named(run.occurrences("submission_benchmark")))


def _last_named(names: Sequence[Event]) -> tuple[Any] | None:
    """The value of the last of a run's ``submission_benchmark`` records when it logs more than one."""
    return (shared(bounded(names[-1].value)),) if len(names) > 1 else None


def _last_stop(stops: Sequence[Event]) -> tuple[int, Any] | None:
    """The line and status of the last of a run's ``run_stop`` records when it logs more than one."""
    if len(stops) < 2:
        return None
    metadata = stops[-1].metadata
    return stops[-1].line, shared(metadata.get("status")) if isinstance(metadata, Mapping) else None


def _train_samples(run: Run, stops: Sequence[Event]) -> Any:
    """The last ``train_samples`` before the last ``run_stop`` (the RCP checker's reading with
    ``--rcp-bert-train-samples``: each such line read overwrites the point, the last run_stop
    takes it)."""
    samples = run.occurrences("train_samples")
    if not samples:
        return None
    before = [e for e in samples if not stops or e.line < stops[-1].line]
    return shared(bounded(before[-1].value)) if before else None


def _compact(event: Event) -> Event:
    metadata = _NO_METADATA
    wanted = _METADATA_KEPT.get(event.key)
    found = event.metadata
    if wanted is not None and (type(found) is dict or isinstance(found, Mapping)):
        kept = {}
        for name in wanted:  # (a loop, not a comprehension: a frame less for one or two fields)
            if name in found:
                kept[name] = found[name]
        metadata = _metadata(kept)
    return Event(sys.intern(event.key), shared(bounded(event.value)), metadata, event.time_ms, event.line)


def _metadata(kept: dict[str, Any]) -> Mapping[str, Any]:
    """``kept`` as a read-only mapping, one per process for equal ones of values :func:`shared`
    would share (strings and integers)."""
    if not kept:
        return _NO_METADATA
    for value in kept.values():  # (no generator for one or two values)
        if not _small(value):
            return MappingProxyType(kept)
    key = tuple(kept.items())
    held = _SHARED_METADATA.get(key)
    if held is None:
        held = MappingProxyType({name: shared(value) for name, value in kept.items()})
        if len(_SHARED_METADATA) < MAX_SHARED:
            _SHARED_METADATA[key] = held
    return held


def _bounded(evals: tuple[Evaluation, ...]) -> tuple[Evaluation, ...]:
    if len(evals) > REDUCED_EVALS:
        evals = evals[:REDUCED_EVALS // 2] + evals[-(REDUCED_EVALS // 2):]
    if any(type(e.value) in (list, dict, str) for e in evals):  # (a value no eval should have: kept cut)
        evals = tuple(replace(e, value=bounded(e.value)) for e in evals)
    return evals


def _summary(path: str, index: int, first_line: int, last_line: int, events: tuple[Event, ...],
             evaluations: tuple[Evaluation, ...], batch_size: Any, more_seeds: tuple[Event, ...] = (),
             train_samples: Any = None, last_stop: tuple[int, Any] | None = None,
             last_named: tuple[Any] | None = None) -> RunSummary:
    keys = tuple(map(_KEY, events))
    positions = _SHARED_KEYS.get(keys)
    if positions is None:
        positions = MappingProxyType({key: at for at, key in enumerate(keys)})
        if len(_SHARED_KEYS) < MAX_SHARED and len(keys) <= 1024 and all(len(key) <= 256 for key in keys):
            _SHARED_KEYS[keys] = positions
    return RunSummary(path=sys.intern(path), index=index, first_line=first_line, last_line=last_line,
                      events=events, evaluations=evaluations, batch_size=batch_size, positions=positions,
                      more_seeds=more_seeds, train_samples=train_samples, last_stop=last_stop, last_named=last_named)


def reduce_summary(summary: RunSummary) -> tuple[Any, tuple[Any, ...]]:
    """How a summary is pickled (sent by a worker of ``--jobs``): its records as plain tuples,
    shared again where it is unpickled."""
    events, seeds = ((tuple((e.key, e.value, dict(e.metadata) if e.metadata else None, e.time_ms, e.line)
                            for e in kept)) for kept in (summary.events, summary.more_seeds))
    return rebuilt_summary, (summary.path, summary.index, summary.first_line, summary.last_line, events,
                             summary.evaluations, summary.batch_size, seeds, summary.train_samples, summary.last_stop,
                             summary.last_named)


def rebuilt_summary(path: str, index: int, first_line: int, last_line: int,
                    events: tuple[tuple[Any, ...], ...], evaluations: tuple[Evaluation, ...],
                    batch_size: Any, seeds: tuple[tuple[Any, ...], ...] = (), train_samples: Any = None,
                    last_stop: tuple[int, Any] | None = None, last_named: tuple[Any] | None = None) -> RunSummary:
    """The summary :func:`reduce_summary` sent."""
    kept, more_seeds = (tuple(Event(sys.intern(key), shared(value), _metadata(metadata or {}), time_ms, line)
                              for key, value, metadata, time_ms, line in records) for records in (events, seeds))
    return _summary(path, index, first_line, last_line, kept, evaluations, shared(batch_size), more_seeds,
                    shared(train_samples), last_stop, last_named)
