"""Where raw job output begins the job's next run without a launcher line between the two (runs
of one job one after the other, a console of several runs): after a run's ``run_stop``, a
``cache_clear`` or ``init_start`` that is no copy of the run's own (the same key at the same
time: the same records twice are copies, not two runs) begins the next run, and the
``submission_*`` records logged between the two are the next run's; any other record after
``run_stop`` (a final eval) is the run's own. ``check``, ``split`` and ``watch`` read it alike.
A submitted result file is one run whatever it holds (:mod:`mlcheck.read.runs`)."""

from __future__ import annotations

from typing import Callable, Generic, TypeVar

NEXT_RUN_KEYS = frozenset({"cache_clear", "init_start"})
"""Keys that, after a run_stop, may begin the job's next run."""

Item = TypeVar("Item")


class NextRunStart(Generic[Item]):
    """Follows one file's records; :meth:`take` says where the next run begins.

    ``copied(key, time_ms)``: whether the current run already holds that record (a copy). Without
    it, the starts this object saw are compared (every record of the file passes :meth:`take`)."""

    def __init__(self, copied: Callable[[str, float], bool] | None = None) -> None:
        self.stopped = False
        """The current run logged its run_stop."""
        self.held: list[Item] = []
        self._copied = copied
        self._starts: set[tuple[str, float]] = set()

    def take(self, key: str, time_ms: float, item: Item) -> tuple[bool, list[Item]]:
        """Whether the next run begins at this record, and the records to add now (the held ones
        first: the next run's when it begins here, else the current run's)."""
        if self.stopped:
            if key in NEXT_RUN_KEYS and not self._is_copy(key, time_ms):
                self.stopped = False
                self._starts = {(key, time_ms)}
                return True, self._released(item)
            if key.startswith("submission_"):
                self.held.append(item)
                return False, []
            return False, self._released(item)
        if key in NEXT_RUN_KEYS and self._copied is None:
            self._starts.add((key, time_ms))
        self.stopped = key == "run_stop"
        return False, [item]

    def restart(self) -> list[Item]:
        """A run opened at a launcher line: the records held (logged after the run before it
        stopped, before the job's start: the new run's), and no run_stop yet."""
        self.stopped = False
        self._starts = set()
        return self._released()

    def rest(self) -> list[Item]:
        """The records still held where the file ends: the current run's."""
        return self._released()

    def _is_copy(self, key: str, time_ms: float) -> bool:
        if self._copied is not None:
            return self._copied(key, time_ms)
        return (key, time_ms) in self._starts

    def _released(self, *items: Item) -> list[Item]:
        released = [*self.held, *items]
        self.held = []
        return released
