"""The cycle collector paused while mlcheck makes millions of acyclic objects (a collection would
traverse them again for nothing), and resumed as the caller had it, across threads: the pauses
are counted, and the collector runs again when the last one ends if it ran before the first
began (each call keeping its own ``gc.isenabled()`` left it off when two checks overlapped in
threads: a review of session 50)."""

from __future__ import annotations

import gc
import threading
from types import TracebackType

_LOCK = threading.Lock()
_STATE = {"pauses": 0, "was_on": 0}


class Pause:
    """One pause of the collector: :meth:`start` (again: nothing), :meth:`end` (not started: nothing)."""

    def __init__(self) -> None:
        self._started = False

    def start(self) -> None:
        if self._started:
            return
        with _LOCK:
            if _STATE["pauses"] == 0:
                _STATE["was_on"] = int(gc.isenabled())
            _STATE["pauses"] += 1
            gc.disable()
        self._started = True

    def end(self) -> None:
        if not self._started:
            return
        with _LOCK:
            _STATE["pauses"] -= 1
            if _STATE["pauses"] == 0 and _STATE["was_on"]:
                gc.enable()
        self._started = False

    def __enter__(self) -> Pause:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.end()
