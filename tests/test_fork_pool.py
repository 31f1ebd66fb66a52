"""The forked workers of ``--jobs`` (Linux): every task's result comes back once, the parent
checks tasks too, a dead worker's tasks are LOST, an unpicklable result is UNSENT, and no worker
is left behind, whatever happens to the parent. No test here asserts a time."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

import pytest

from mlcheck.judge.fork_pool import LOST, UNSENT, forked_results

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is not available on this platform")
PARENT = os.getpid()


FORKED: list[int] = []


@pytest.fixture(autouse=True)
def _recorded_forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers' process ids, to see that each was waited for."""
    fork = os.fork
    FORKED.clear()

    def recorded() -> int:
        pid = fork()
        if pid:
            FORKED.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recorded)


def _no_children_left() -> bool:
    """Every worker forked by the test was waited for (none is left running or a zombie)."""
    for pid in FORKED:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return True


def _square_where(task: int) -> tuple[int, int]:
    return task * task, os.getpid()


@pytest.mark.parametrize("workers,parent_works", [(1, True), (3, True), (2, False), (0, True)])
def test_every_result_comes_back_once(workers: int, parent_works: bool) -> None:
    tasks = list(range(40))
    got = dict(forked_results(tasks, _square_where, workers, parent_works))
    assert sorted(got) == tasks
    assert all(value[0] == task * task for task, value in got.items())
    in_parent = [task for task, value in got.items() if value[1] == PARENT]
    assert len(FORKED) == workers
    if workers == 0:
        assert len(in_parent) == 40
    elif not parent_works:
        assert in_parent == []
    assert _no_children_left()


def test_the_parent_checks_the_smallest_tasks_while_the_worker_takes_the_largest() -> None:
    tasks = list(range(30))  # (in the order jobs gives them: the largest first)
    got = dict(forked_results(tasks, _square_where, 1))
    in_parent = sorted(task for task, value in got.items() if value[1] == PARENT)
    assert in_parent and in_parent[-1] == 29 and 0 not in in_parent


def test_the_last_few_tasks_are_shared_one_at_a_time() -> None:
    """Two large tasks, one worker: the worker is not sent both ahead; the parent checks one."""
    got = dict(forked_results([0, 1], _square_where, 1))
    assert sorted(task for task, value in got.items() if value[1] == PARENT) == [1]
    assert _no_children_left()


def _dies_on_seven(task: int) -> int:
    if task == 7 and os.getpid() != PARENT:
        os._exit(3)
    return task


def test_a_dead_workers_tasks_are_lost_and_the_others_come_back() -> None:
    got = dict(forked_results(list(range(20)), _dies_on_seven, 2, parent_works=False))
    assert sorted(got) == list(range(20))
    lost = sorted(task for task, value in got.items() if value is LOST)
    assert 7 in lost and len(lost) <= 2  # (7, and the task sent ahead to the same worker)
    assert len(FORKED) == 2
    alone = dict(forked_results(list(range(20)), _dies_on_seven, 1, parent_works=False))
    assert [task for task in range(20) if alone[task] is not LOST] == list(range(7))  # (none left to run the rest)
    assert all(got[task] == task for task in got if task not in lost)
    assert _no_children_left()


def _unpicklable(task: int) -> Any:
    return (lambda: task) if task == 3 else task


def test_a_result_that_cannot_be_pickled_is_unsent() -> None:
    got = dict(forked_results(list(range(8)), _unpicklable, 2, parent_works=False))
    assert got[3] is UNSENT
    assert [got[task] for task in range(8) if task != 3] == [0, 1, 2, 4, 5, 6, 7]


def _large(task: int) -> bytes:
    return bytes([task]) * (3 << 20)  # (three times the pipe)


def test_results_larger_than_the_pipe_come_back_whole() -> None:
    got = dict(forked_results(list(range(4)), _large, 2, parent_works=False))
    assert all(got[task] == bytes([task]) * (3 << 20) for task in range(4))


def _fails_on_five(task: int) -> int:
    if task == 5:
        raise RuntimeError("a bug")
    return task


@pytest.mark.parametrize("parent_works", [True, False])
def test_a_task_whose_work_raises_is_unsent(parent_works: bool) -> None:
    """Wherever it ran: the caller does it again (jobs checks its logs one by one, in the parent)."""
    got = dict(forked_results(list(range(12)), _fails_on_five, 1, parent_works))
    assert got[5] is UNSENT
    assert [got[task] for task in range(12) if task != 5] == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11]


def _interrupted_in_the_parent(task: int) -> int:
    if os.getpid() == PARENT:
        raise KeyboardInterrupt
    return task


def test_ctrl_c_in_the_parent_ends_the_workers() -> None:
    with pytest.raises(KeyboardInterrupt):
        list(forked_results(list(range(50)), _interrupted_in_the_parent, 2))
    assert _no_children_left()


def test_a_parent_that_stops_reading_ends_the_workers() -> None:
    results = forked_results(list(range(50)), _square_where, 2, parent_works=False)
    next(results)
    results.close()
    assert _no_children_left()


def test_the_workers_print_nothing_the_parent_had_not_flushed(capfd: pytest.CaptureFixture[str]) -> None:
    sys.stdout.write("written once")  # (in the buffer when the workers are forked)
    dict(forked_results(list(range(6)), _square_where, 2, parent_works=False))
    sys.stdout.flush()
    assert capfd.readouterr().out.count("written once") == 1


def test_without_a_worker_the_parent_does_not_run_what_only_a_worker_may() -> None:
    """The log that killed a worker is checked again alone in a new process: when the system
    refuses the fork, it is LOST again (an MLC000 finding), never checked in the parent."""
    def refused() -> int:
        raise OSError(12, "Cannot allocate memory")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "fork", refused)
        assert dict(forked_results([3], _square_where, 1, parent_works=False)) == {0: LOST}
        got = dict(forked_results(list(range(5)), _square_where, 2))  # (the parent may: it does all)
    assert all(got[task] == (task * task, PARENT) for task in range(5))


def _interrupts_itself(task: int) -> int:
    os.kill(os.getpid(), signal.SIGINT)
    return task


def test_a_worker_ignores_ctrl_c() -> None:
    """Ctrl-C reaches every process of the group; the parent ends the workers, which ignore it."""
    assert dict(forked_results(list(range(4)), _interrupts_itself, 2, parent_works=False)) == {
        0: 0, 1: 1, 2: 2, 3: 3}


def _terminated_in_the_parent(task: int) -> int:
    if os.getpid() == PARENT:
        os.kill(PARENT, signal.SIGTERM)
    return task


@pytest.mark.skipif(signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL,
                    reason="SIGTERM has a handler of its own here: the pool leaves it alone")
def test_sigterm_in_the_parent_ends_the_workers_and_the_parent() -> None:
    """A CI job's time-out: the parent exits with 143 and takes its workers with it (by default
    they would go on to the end of their chunks, holding the output open)."""
    # (an earlier test of this process may have copied standard input, whose copy's SIGTERM handler stays)
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with pytest.raises(SystemExit) as ended:
            list(forked_results(list(range(50)), _terminated_in_the_parent, 2))
        assert ended.value.code == 128 + signal.SIGTERM
        assert _no_children_left()
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # (put back)
    finally:
        signal.signal(signal.SIGTERM, previous)
