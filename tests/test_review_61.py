"""Session 61: defects found by CI and by the reviewers of session 61."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_TERMINATED_BEFORE_A_READ = textwrap.dedent("""
    import os, signal, threading, time
    from mlcheck.read import stdin_copy

    def terminate_once_copying() -> None:
        while not stdin_copy._copies:
            time.sleep(0.01)
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)
        while True:  # (alive: the signal the handler sends again ends the process here)
            time.sleep(1)

    threading.Thread(target=terminate_once_copying, daemon=True).start()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    stdin_copy.stdin_copy()
""")


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask") or sys.platform == "win32", reason="POSIX signals")
def test_a_sigterm_that_comes_just_before_a_read_of_standard_input_ends_mlcheck() -> None:
    """CI (session 61): `job | mlcheck check -` ignored a CI time-out's SIGTERM that came just before
    a read of the pipe began (5 times in 300 under load): its handler waits for Python code to run,
    and the read waited for the job. Here the signal comes so (the main thread blocks it; another
    thread's handler only marks it): the copy's wait for the pipe lets the handler run."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, "-c", _TERMINATED_BEFORE_A_READ], stdin=subprocess.PIPE, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stdin is not None
    process.stdin.write(b":::MLLOG {}\n")
    process.stdin.flush()
    try:
        code = process.wait(timeout=30)
    finally:
        process.kill()
        process.stdin.close()
    assert code == -signal.SIGTERM
