"""Tasks shared between the parent and forked workers (Linux), with pipes and nothing else.

``multiprocessing``'s pool costs about 25 ms to import and start (queues, a feeder thread, a
management thread), then the parent only waits while its own CPU is one of the few the check
has. Here ``workers`` processes are forked with the tasks already in their memory: the parent
sends a task's number down a worker's pipe and reads its pickled result back from another, and
checks tasks itself meanwhile (the smallest ones, from the end of the list: it looks at its
workers' pipes between two of them). Each worker is kept :data:`AHEAD` tasks ahead so that it
never waits for the parent.

A worker that dies leaves its unfinished tasks :data:`LOST`; a task whose work raised an
exception, or whose result could not be pickled, is :data:`UNSENT` (in the parent too: the caller
does it again its own way). Ctrl-C, SIGTERM, or the caller stopping, ends the workers. The
workers ignore Ctrl-C (the parent ends them) and leave by ``os._exit`` (nothing of the parent's is
flushed or finalised twice).
"""

from __future__ import annotations

import gc
import os
import select
import signal
from collections import deque
from typing import Any, Callable, Iterator, Sequence, TypeVar

from mlcheck.read.held_signals import WAKE_MS

Task = TypeVar("Task")
Result = TypeVar("Result")


class Outcome:
    """What came back instead of a task's result."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


LOST = Outcome("LOST")
"""The task's worker ended before sending its result."""
UNSENT = Outcome("UNSENT")
"""The task's work raised an exception, or its result could not be pickled or unpickled."""
AHEAD = 2
"""Tasks sent to a worker before it needs them."""
_HEADER = 8
_PIPE_BYTES = 1 << 20


def forked_results(tasks: Sequence[Task], work: Callable[[Task], Result], workers: int,
                   parent_works: bool = True) -> Iterator[tuple[int, Result | Outcome]]:
    """(index, result) of each task as it completes, in no set order; :data:`LOST` or
    :data:`UNSENT` instead of a result that did not come back from a worker."""
    pending = deque(range(len(tasks)))
    pool: list[_Worker] = []
    ending = _end_on_signals()
    try:
        for _ in range(min(workers, len(tasks))):
            if not _fork_into(pool, tasks, work):
                break  # (no more processes or pipes: those forked, and the parent, go on)
        _fill(pool, pending, parent_works)
        while True:
            busy = [worker for worker in pool if worker.sent]
            if not busy and not parent_works:  # (no worker left: the tasks left are not run here)
                yield from ((index, LOST) for index in pending)
                return
            if not busy and not pending:
                return
            mine = parent_works and bool(pending)
            for worker in _ready(busy, 0 if mine else None):
                yield from worker.receive()
            index = pending.pop() if mine else -1  # (the smallest left: the workers take the largest)
            _fill(pool, pending, parent_works)  # (after: a worker that was quick takes no task of the parent's)
            if index >= 0:
                try:
                    done: Result | Outcome = work(tasks[index])
                except Exception:  # noqa: BLE001 - as a worker's: the caller does it again
                    done = UNSENT
                yield index, done
    finally:
        for worker in pool:
            worker.stop()
        for worker in pool:
            worker.reap()
        for number in ending:
            signal.signal(number, signal.SIG_DFL)


_ENDING = (signal.SIGTERM, *((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ()))
"""SIGTERM (a CI job's time-out, ``kill``) and SIGHUP (a closed terminal or ssh session, rv297)."""


def _end_on_signals() -> list[int]:
    """While the workers run, :data:`_ENDING` end the parent as Ctrl-C does, through the ``finally``
    that ends the workers: by default they would leave them running to the end of their chunks, the
    output pipe held open. Only those with their default action, in the main thread (where signals
    are handled); the ones set."""
    ending = []
    for number in _ENDING:
        if signal.getsignal(number) is signal.SIG_DFL:
            try:
                signal.signal(number, _terminated)
            except ValueError:  # (not the main thread)
                break
            ending.append(number)
    return ending


def _terminated(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def _fork_into(pool: list[_Worker], tasks: Sequence[Task], work: Callable[[Task], Result]) -> bool:
    """Fork one more worker into ``pool``; False when the system refuses. Ctrl-C, SIGTERM and SIGHUP
    wait meanwhile (blocked until the worker is in ``pool``, where the parent ends it), and the worker
    ignores Ctrl-C and takes the others' defaults before anything else: it never runs the caller's
    handlers."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, ())  # (the mask as it was: a handler that raises
    try:  # as the signals are blocked, after the blocking, leaves them blocked unless put back here)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, *_ENDING})
        pool.append(_Worker.fork(tasks, work, pool))
    except OSError:
        return False
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    return True


def _fill(pool: list[_Worker], pending: deque[int], parent_works: bool) -> None:
    """Keep each worker :data:`AHEAD` tasks ahead while there are more tasks than processes, one
    at the end (else a worker would hold two of the last few large tasks, the parent none)."""
    ahead = AHEAD if len(pending) > sum(worker.alive for worker in pool) + parent_works else 1
    for worker in pool:
        worker.fill(pending, ahead)


def _ready(busy: list[_Worker], timeout: float | None) -> list[_Worker]:
    if not busy:
        return []
    poll = select.poll()
    for worker in busy:
        poll.register(worker.results, select.POLLIN)
    by_fd = {worker.results: worker for worker in busy}
    events = poll.poll(WAKE_MS if timeout is None else int(timeout * 1000))
    while not events and timeout is None:  # (Python code between the waits: a signal's handler runs)
        events = poll.poll(WAKE_MS)
    return [by_fd[fd] for fd, _event in events]


class _Worker:
    """One forked process: the parent's ends of its two pipes and what it was sent."""

    def __init__(self, pid: int, tasks_fd: int, results_fd: int) -> None:
        self.pid = pid
        self.tasks = tasks_fd
        self.results = results_fd
        self.sent: deque[int] = deque()
        self.buffer = bytearray()
        self.alive = True

    @classmethod
    def fork(cls, tasks: Sequence[Task], work: Callable[[Task], Result], forked: list[_Worker]) -> _Worker:
        """A new worker; it closes the parent's ends of the pipes of those ``forked`` before it
        (else a worker would never read the end of its pipe while another holds it open)."""
        task_read, task_write = os.pipe()
        result_read, result_write = os.pipe()
        try:
            import fcntl
            fcntl.fcntl(result_write, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)  # (results: a worker writes ahead)
        except (ImportError, AttributeError, OSError):
            pass
        try:
            pid = os.fork()
        except OSError:
            for fd in (task_read, task_write, result_read, result_write):
                os.close(fd)
            raise
        if pid == 0:  # the worker (SIGINT blocked: see _fork_into); it leaves by os._exit only
            status = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                for number in _ENDING:  # (the parent's handlers are for the parent; one ignored, nohup's
                    if signal.getsignal(number) is not signal.SIG_IGN:  # SIGHUP, stays so: rv300)
                        signal.signal(number, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, *_ENDING})
                for fd in (task_write, result_read, *(end for other in forked for end in (other.tasks, other.results))):
                    os.close(fd)
                status = _serve(tasks, work, task_read, result_write)
            finally:
                os._exit(status)
        os.close(task_read)
        os.close(result_write)
        return cls(pid, task_write, result_read)

    def fill(self, pending: deque[int], ahead: int) -> None:
        """Send tasks from the front of ``pending`` until ``ahead`` are outstanding."""
        while self.alive and pending and len(self.sent) < ahead:
            index = pending.popleft()
            try:
                os.write(self.tasks, index.to_bytes(4, "little"))
            except OSError:  # (it died: the task goes back)
                pending.appendleft(index)
                self.alive = False
                return
            self.sent.append(index)

    def receive(self) -> Iterator[tuple[int, Any]]:
        """The results complete in the pipe; a dead worker's outstanding tasks as LOST."""
        import pickle

        try:
            data = os.read(self.results, _PIPE_BYTES)
        except OSError:
            data = b""
        if not data:
            self.alive = False
            lost, self.sent = list(self.sent), deque()
            yield from ((index, LOST) for index in lost)
            return
        self.buffer += data
        while len(self.buffer) >= _HEADER:
            size = int.from_bytes(self.buffer[:_HEADER], "little")
            if len(self.buffer) < _HEADER + size:
                break
            message = bytes(self.buffer[_HEADER:_HEADER + size])
            del self.buffer[:_HEADER + size]
            index = self.sent.popleft()
            try:
                result = pickle.loads(message) if message else UNSENT
            except Exception:  # noqa: BLE001 - a result that does not unpickle: the caller does it
                result = UNSENT
            yield index, result

    def stop(self) -> None:
        """No more tasks: the worker leaves when it reads the end of its pipe; one still busy
        (the parent stops early: Ctrl-C, an error) is ended."""
        os.close(self.tasks)
        if self.sent and self.alive:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
        os.close(self.results)

    def reap(self) -> None:
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _serve(tasks: Sequence[Task], work: Callable[[Task], Result], task_fd: int, result_fd: int) -> int:
    """The worker: the result of each task it is sent, pickled, until its pipe ends (exit 0)."""
    import pickle

    gc.freeze()  # (what it inherited: not traversed by its collections, its pages not copied)
    gc.enable()
    while True:
        header = _read_exactly(task_fd, 4)
        if len(header) < 4:
            return 0
        try:
            message = pickle.dumps(work(tasks[int.from_bytes(header, "little")]),
                                   protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - a bug, a value that cannot be pickled: the parent does it
            message = b""
        _write_all(result_fd, len(message).to_bytes(_HEADER, "little") + message)


def _read_exactly(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        more = os.read(fd, size - len(data))
        if not more:
            break
        data += more
    return data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
