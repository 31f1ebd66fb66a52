"""Read and judge the logs of one check in several processes (``--jobs N``).

Each log is read and its runs judged on their own (:func:`mlcheck.checker.check_log`), so the
logs are shared out among worker processes in small chunks, largest first, and their results put
back in the order of the logs: what the folder and package checks of the parent see, and so every
report, is what one process gives. The progress callback is called for each log as its chunk
completes.

A log is checked in the parent when there are too few of them to repay starting processes
(:data:`PARALLEL_FROM` logs, :data:`PARALLEL_FROM_BYTES` bytes) and when it is stdin. On Linux
``jobs - 1`` workers are forked (they start in milliseconds, with mlcheck and the logs' list in
their memory: :mod:`mlcheck.judge.fork_pool`) and the parent checks chunks beside them, unless the
process runs other threads (a child inherits their locks held); elsewhere
(macOS, where forking a process that used system frameworks may crash it, and Windows) ``jobs``
workers are spawned (:mod:`mlcheck.judge.spawned_pool`), which imports mlcheck again in each:
only for :data:`SPAWN_FROM_BYTES` or more. Spawned workers need
the main module to be importable without side effects (``if __name__ == "__main__"``), as for
any ``multiprocessing`` program; the ``mlcheck`` command is. A bug met on one log is an MLC000
finding of that log wherever it is checked; a worker that dies (the interpreter crashed, the OOM killer)
makes each log of its unfinished chunks be checked again alone in a new process, and a log whose
process dies again gets an MLC000 finding.
"""

from __future__ import annotations

import copyreg
import dataclasses
import operator
import os
import stat
import sys
import threading
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, SupportsIndex, cast

from mlcheck.package.discover import LogRef
from mlcheck.model import Evaluation, Finding
from mlcheck.judge.summary import reduce_summary
from mlcheck.results import RunResult, RunSummary
from mlcheck.rules.internal import RULE_CRASHED, crash_finding
from mlcheck.judge.nested_logs import outside_the_submission
from mlcheck.read.reading_rules import not_a_regular_file
from mlcheck.facts.rulesets import Ruleset, load_ruleset
from mlcheck.judge.job_chunks import Chunk, plan_chunks
from mlcheck.judge.collector import Pause

if TYPE_CHECKING:
    from mlcheck.judge.folder_groups import Scored

_CHECKER: list[Any] = []


_Forced = tuple[str, str]  # (version, source) of a forced ruleset, as the workers receive it


def register_checker(module: Any) -> None:
    """The module that holds ``check_log`` and ``_unread_log`` (:mod:`mlcheck.checker` registers
    itself when imported, in the parent and in every worker: this stage does not import the
    checker above it). Its functions are looked up at each call (tests may replace them)."""
    _CHECKER[:] = [module]


def _checker() -> tuple[Callable[..., list[RunResult]], Callable[..., RunResult]]:
    # (importing any part of mlcheck imports the package first, whose checker registers itself)
    module = _CHECKER[0]
    return module.check_log, module._unread_log


PARALLEL_FROM = 8
"""Fewer logs than this are checked in one process."""
PARALLEL_FROM_BYTES = 4 * 1024 * 1024
"""Logs of fewer bytes than this, all told, are checked in one process (a few milliseconds of
work, less than starting the workers)."""
SPAWN_FROM_BYTES = 64 * 1024 * 1024
"""Where workers cannot be forked, logs of fewer bytes than this are checked in one process (a
spawned worker takes about 0.2 s to import mlcheck)."""


PARENT_CHECKS = True
"""Forked, the parent checks chunks too, beside ``jobs - 1`` workers (it would only wait for
them, while its CPU is one of those the check has)."""


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask), else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def job_count(jobs: object) -> int:
    """``jobs`` as the library's :func:`mlcheck.check` takes it: a whole number of processes from 1 (else ValueError or
    TypeError; ``--jobs`` on the command line is checked by click)."""
    try:  # (an int, or what stands for one: numpy.int64)
        count = operator.index(cast("SupportsIndex", jobs)) if not isinstance(jobs, bool) else None
    except TypeError:
        count = None
    if count is None:
        raise TypeError(f"jobs must be a whole number of processes (1 or more), not {type(jobs).__name__}")
    if count < 1:
        raise ValueError(f"jobs must be 1 or more processes, not {count} (mlcheck.judge.jobs.usable_cpus() gives the CPUs)")
    return count


def check_logs(refs: Sequence[LogRef], forced: Ruleset | None, jobs: int = 1,
               progress: Callable[[str], None] | None = None,
               forced_source: str = "--ruleset", scored: Scored | None = None) -> list[RunResult]:
    """The results of every log, in the order of ``refs``, checked by up to ``jobs`` processes
    (``forced_source``: where ``forced`` was set, which the reports name). The benchmark folders
    a worker checked whole and scored are added to ``scored`` (:mod:`mlcheck.judge.job_chunks`).
    The cycle collector pauses meanwhile (see :func:`check_one`; the parent receives the results)."""
    with Pause():
        return _check_logs(refs, forced, jobs, progress, forced_source, {} if scored is None else scored)


def _check_logs(refs: Sequence[LogRef], forced: Ruleset | None, jobs: int,
                progress: Callable[[str], None] | None, forced_source: str, scored: Scored) -> list[RunResult]:
    done: list[list[RunResult] | None] = [None] * len(refs)
    version = (forced.version, forced_source) if forced is not None else None
    sizes = {i: size for i, ref in enumerate(refs) if ref.path != "-" and (size := _size(ref)) >= 0} if jobs > 1 else {}
    method = _start_method(sum(sizes.values())) if len(sizes) >= PARALLEL_FROM else None
    if method is not None:
        for index, results in _in_workers(refs, sizes, version, jobs, method, scored):
            done[index] = results
            if progress is not None:
                progress(refs[index].path)
    for index, ref in enumerate(refs):  # (all of them in one process; else stdin, lost chunks)
        if done[index] is None:
            if progress is not None:
                progress(ref.path)
            done[index] = check_one(ref, forced, forced_source)
    return [result for results in done if results is not None for result in results]


def check_one(ref: LogRef, forced: Ruleset | None, forced_source: str = "--ruleset") -> list[RunResult]:
    """:func:`mlcheck.checker.check_log`, with a bug met on the log as its MLC000 finding.

    The cycle collector pauses while the log is read: a log is millions of small acyclic objects
    (each record's dicts), which it would otherwise traverse again and again, for nothing (a check
    leaves no garbage cycle: none on the 1,740 shared result files)."""
    check_log, _unread_log = _checker()
    if ref.special is not None:  # (a FIFO named result_<i>.txt: a run of its folder, never opened)
        return [_unread_log(ref, forced, [not_a_regular_file(ref.path, ref.special)], forced_source)]
    with Pause():
        try:
            results = check_log(ref, forced, forced_source)
            return outside_the_submission(results) if ref.nested else results
        except Exception as error:  # a bug met on one file must not stop the other files
            return [_unread_log(ref, forced, [crash_finding("reading this log", ref.path, error)], forced_source)]


def _start_method(total_bytes: int) -> str | None:
    """How workers start for logs of ``total_bytes``: ``fork``, ``spawn``, or None (one process)."""
    if total_bytes < PARALLEL_FROM_BYTES:
        return None
    # (os.fork: fork_pool, without importing multiprocessing; not beside another thread, whose locks a child
    # inherits held: an import's, or another check's pool pipes, which its workers then wait on for ever)
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return "fork"
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return "spawn" if total_bytes >= SPAWN_FROM_BYTES and "spawn" in methods else None


def _size(ref: LogRef) -> int:
    """The size of a log file; -1 for a pipe or a device (checked in this process: the copy of a
    pipe that its reading makes is made and removed here, :mod:`mlcheck.read.log_files`)."""
    try:
        status = os.stat(ref.path)
    except OSError:
        return 0
    return status.st_size if stat.S_ISREG(status.st_mode) else -1


def _in_workers(refs: Sequence[LogRef], sizes: dict[int, int], version: _Forced | None,
                jobs: int, method: str, scored: Scored) -> Iterator[tuple[int, list[RunResult]]]:
    """(index, results) of each log as its chunk completes. Forked, the parent checks chunks
    too, beside ``jobs - 1`` workers (:mod:`mlcheck.judge.fork_pool`); spawned, ``jobs`` workers
    do (:mod:`mlcheck.judge.spawned_pool`). A log of a chunk lost with its worker is checked
    again alone; one whose results could not be sent is left to the parent."""
    from mlcheck.judge.fork_pool import LOST, UNSENT, forked_results

    chunks = plan_chunks(refs, sizes, jobs)
    workers = min(jobs, 4 * usable_cpus())  # (more would share the same CPUs)
    if method == "fork":
        warm = getattr(_CHECKER[0], "warm_caches", None)
        if warm is not None:  # (what each worker would load first, loaded once)
            warm(refs)
        outcomes: Iterator[tuple[int, object]] = forked_results(
            chunks, partial(_check_planned, refs, version), workers - PARENT_CHECKS, PARENT_CHECKS)
    else:
        from mlcheck.judge.spawned_pool import spawned_results

        outcomes = spawned_results(chunks, refs, version, min(workers, len(chunks)))
    lost: list[int] = []
    for number, outcome in outcomes:
        if outcome is LOST:
            lost.extend(chunks[number].indices)
        elif outcome is not UNSENT:
            results, folders = cast(_ChunkResult, outcome)
            scored.update(folders)
            yield from zip(chunks[number].indices, results)
    for index in sorted(lost):
        alone = _alone(refs[index], version, method)
        if alone is not None:
            yield index, alone


def _alone(ref: LogRef, version: _Forced | None, method: str) -> list[RunResult] | None:
    """One log checked in a process of its own; an MLC000 finding when that process dies too;
    None when its results could not be sent (the parent checks it)."""
    from mlcheck.judge.fork_pool import LOST, UNSENT, forked_results

    outcome: object
    if method == "fork":
        outcome = next(forked_results([Chunk([0], False)], partial(_check_planned, [ref], version), 1,
                                      parent_works=False))[1]
    else:
        from mlcheck.judge.spawned_pool import spawned_alone

        outcome = spawned_alone(ref, version)
    if outcome is UNSENT:
        return None
    if outcome is not LOST:
        return cast(_ChunkResult, outcome)[0][0]
    _check_log, _unread_log = _checker()
    forced = load_ruleset(version[0]) if version else None
    return [_unread_log(ref, forced, [_died(ref)], version[1] if version else "--ruleset")]


def _died(ref: LogRef) -> Finding:
    return RULE_CRASHED.at(ref.path, None, "the process checking this log ended abruptly (the "
                           "interpreter crashed or the system ended it, e.g. out of memory); the log "
                           "was not judged. Please report it with the input")


_ChunkResult = tuple[list[list[RunResult]], "Scored"]


def _check_chunk(chunk: list[LogRef], version: _Forced | None, scores_folders: bool) -> _ChunkResult:
    """The worker's task: the results of each log of a chunk, and when the chunk is whole benchmark
    folders, their scores (the folder stage, done here instead of in the parent)."""
    from mlcheck.judge.folder_groups import score_in_worker

    forced = load_ruleset(version[0]) if version else None
    results = [check_one(ref, forced, version[1] if version else "--ruleset") for ref in chunk]
    if not scores_folders:
        return results, {}
    return results, score_in_worker([result for of_log in results for result in of_log], chunk)


def _check_planned(refs: Sequence[LogRef], version: _Forced | None, chunk: Chunk) -> _ChunkResult:
    """:func:`_check_chunk` of a chunk of ``refs`` (a forked worker has them in its memory)."""
    return _check_chunk([refs[i] for i in chunk.indices], version, chunk.scores_folders)


def _fields_reducer(cls: type) -> Callable[[Any], tuple[type, tuple[Any, ...]]]:
    """Pickle instances of a frozen dataclass with slots from their fields, read in C. Its own
    ``__getstate__`` calls ``dataclasses.fields`` for each object: about 5 µs each, and a check
    sends thousands of findings and evaluations from the workers."""
    names = [field.name for field in dataclasses.fields(cls)]
    if not all(field.init for field in dataclasses.fields(cls)) or len(names) < 2:
        raise TypeError(f"{cls.__name__}: every field must be an argument of __init__")
    values = operator.attrgetter(*names)

    def reduce(obj: Any) -> tuple[type, tuple[Any, ...]]:
        return cls, values(obj)
    return reduce


for _class in (Finding, Evaluation, RunResult):
    copyreg.pickle(_class, _fields_reducer(_class))
copyreg.pickle(RunSummary, reduce_summary)  # (its shared values are shared again in the parent)
