"""Shared test helpers: where the fixtures and the (optional) shared corpus live."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHARED = Path(os.environ.get("MLCHECK_TEST_SHARED") or ROOT.parent / "shared")  # (the public MLCommons data)
CORPUS = SHARED / "corpus"
ORACLE = SHARED / "oracle" / "graphcore-compliance.jsonl"


_INHERITED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> object:
    """A signal a test left ignored is put back (the command line, run in this process, ignores
    Ctrl-C once it has said everything; a process this test process starts later would inherit it)."""
    import signal

    numbers = [getattr(signal, name) for name in _INHERITED_SIGNALS if hasattr(signal, name)]
    before = {number: signal.getsignal(number) for number in numbers}
    yield
    for number, handler in before.items():
        if handler is not signal.SIG_IGN and signal.getsignal(number) is signal.SIG_IGN:
            signal.signal(number, handler)


@pytest.fixture
def corpus() -> Path:
    """The shared Graphcore corpus; tests using it are skipped when ../shared is absent."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    return CORPUS


def time_shifted(lines: list[bytes], ms: float) -> list[bytes]:
    """Record lines (``:::MLLOG {...}``, each with its LF) with ``ms`` added to every ``time_ms``: a later run."""
    import json

    shifted = []
    for line in lines:
        record = json.loads(line[len(b":::MLLOG "):])
        record["time_ms"] += ms
        shifted.append(b":::MLLOG " + json.dumps(record).encode() + b"\n")
    return shifted


def watch_until_run_stop(log: Path) -> subprocess.Popen[bytes]:
    """``mlcheck watch LOG --format json --poll 0.1`` in a process of its own, once it has said the run's
    run_stop (it then waits 20 polls for records after it: time to move or rotate the log)."""
    watcher = subprocess.Popen([sys.executable, "-c", "from mlcheck.cli import main; main()", "watch", str(log),
                                "--format", "json", "--poll", "0.1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert watcher.stderr is not None
    said = watcher.stderr.readline()
    while b"run_stop" not in said and said:
        said = watcher.stderr.readline()
    return watcher
