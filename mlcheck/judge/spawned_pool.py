"""Workers spawned by ``multiprocessing`` (macOS, Windows: where a process cannot be forked
safely), each of which imports mlcheck again: :func:`mlcheck.judge.jobs._in_workers` uses them
only for large checks. Outcomes as :mod:`mlcheck.judge.fork_pool` gives them."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Iterator, Sequence

from mlcheck.judge.fork_pool import LOST, UNSENT
from mlcheck.judge.job_chunks import Chunk
from mlcheck.package.discover import LogRef

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

_Forced = tuple[str, str]


def spawned_results(chunks: Sequence[Chunk], refs: Sequence[LogRef], version: _Forced | None,
                    workers: int) -> Iterator[tuple[int, object]]:
    """(chunk number, its result, :data:`LOST` or :data:`UNSENT`) as each chunk completes."""
    from concurrent.futures import FIRST_COMPLETED, Future, wait
    from concurrent.futures.process import BrokenProcessPool

    from mlcheck.judge.jobs import _check_chunk

    pool = _pool(workers)
    try:
        pending: dict[Future[object], int] = {
            pool.submit(_check_chunk, [refs[i] for i in chunk.indices], version, chunk.scores_folders): number
            for number, chunk in enumerate(chunks)}
        while pending:
            finished, _running = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                number = pending.pop(future)
                try:
                    yield number, future.result()
                except BrokenProcessPool:
                    yield number, LOST
                except Exception:  # noqa: BLE001 - e.g. a result that cannot be pickled
                    yield number, UNSENT
    except BaseException:  # Ctrl-C: the chunks not begun are dropped, not run to the end
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def spawned_alone(ref: LogRef, version: _Forced | None) -> object:
    """The result of one log checked in a spawned process of its own, or LOST or UNSENT."""
    from concurrent.futures.process import BrokenProcessPool

    from mlcheck.judge.jobs import _check_chunk

    with _pool(1) as pool:
        try:
            return pool.submit(_check_chunk, [ref], version, False).result()
        except BrokenProcessPool:
            return LOST
        except Exception:  # noqa: BLE001 - e.g. a result that cannot be pickled
            return UNSENT


def _pool(workers: int) -> ProcessPoolExecutor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_start_worker)


def _start_worker() -> None:
    """Ctrl-C stops the parent, which ends the workers: they do not each print a traceback. The
    collector runs between logs, as in the parent (:func:`mlcheck.judge.jobs.check_one`)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()
    gc.enable()
