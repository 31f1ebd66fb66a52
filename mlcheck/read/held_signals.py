"""Signals held back while a file is made and named where its removal finds it (standard input's
copy, :mod:`mlcheck.read.stdin_copy`; a report's part, :mod:`mlcheck.settings.replaced_file`), and
how long a wait lasts before a signal's handler may run (:data:`WAKE_MS`)."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

_HELD = ("SIGINT", "SIGTERM", "SIGHUP")
WAKE_MS = 200
"""How long a wait on a pipe lasts before Python code runs again. CPython runs a signal's handler only
when Python code runs: a signal that came just before a blocking wait began waited for the wait's end
(standard input's copy: for ever on a quiet job, `check -` ignored a SIGTERM 5 times in 300 under
load; the parent of ``--jobs`` workers: the end of a worker's chunk)."""


@contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP held back meanwhile (in the main thread, where they are handled),
    then delivered as it ends: their handler, or the exit, then finds what was made. Elsewhere (no
    ``pthread_sigmask``, another thread) nothing is held."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    before = mask(signal.SIG_BLOCK, ())  # (the mask as it was: a handler that raises as the signals are
    try:  # blocked, after the blocking, leaves them blocked unless put back here)
        mask(signal.SIG_BLOCK, {getattr(signal, name) for name in _HELD if hasattr(signal, name)})
        yield
    finally:
        mask(signal.SIG_SETMASK, before)
