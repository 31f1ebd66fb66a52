"""Session 57: what watch --fail-fast stops at, and the reviews of this session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"
RESNET = sorted((EXAMPLE / "results").glob("*/resnet"))[0]


def _mlcheck(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mlcheck", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env={**os.environ, "COLUMNS": "200"})


def _not_converged(text: str) -> str:
    """The run with its last two evals cut and its run_stop ``aborted``."""
    lines = text.splitlines()
    stop = next(i for i, line in enumerate(lines) if '"run_stop"' in line)
    evals = [i for i, line in enumerate(lines[:stop]) if '"eval_accuracy"' in line]
    cut = lines[:evals[-2]] + [lines[stop].replace('"success"', '"aborted"')]
    return "\n".join(cut + lines[stop + 1:]) + "\n"


def _console(tmp_path: Path, broken: dict[int, str]) -> Path:
    runs = [path.read_text("utf-8") for path in sorted(RESNET.glob("result_*.txt"))]
    log = tmp_path / "console.log"
    log.write_text("".join(_not_converged(text) if broken.get(i) == "aborted" else text
                           for i, text in enumerate(runs)), "utf-8")
    return log


def _watch(log: Path, runs: int) -> subprocess.CompletedProcess[str]:
    return _mlcheck("watch", str(log), "--runs", str(runs), "--fail-fast", "--poll", "0.05", "--idle-timeout", "5",
                    "--no-progress", "--config", os.devnull)


def test_watch_fail_fast_goes_on_past_a_non_converged_run_the_benchmark_result_may_drop(tmp_path: Path) -> None:
    """A resnet result of 5 runs counts one non-converged run as its slowest: ``check`` of the
    console passes (exit 0, MLC301 a warning), so ``watch --runs 5 --fail-fast`` went on to the same
    verdict instead of stopping at the run with exit 1."""
    log = _console(tmp_path, {0: "aborted"})
    assert _mlcheck("check", str(log), "--config", os.devnull).returncode == 0
    done = _watch(log, 5)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "MLC301 target" in line]
    assert len(said) == 1 and ": warning MLC301 " in said[0] and "tolerated so far" in said[0], done.stderr
    assert "--fail-fast: stopped" not in done.stderr


def test_watch_fail_fast_stops_where_the_benchmark_result_can_no_longer_tolerate(tmp_path: Path) -> None:
    """Two non-converged runs of five: the second is more than the round tolerates (an error, the
    watch stops there), as ``check`` fails the console; with ``--runs`` other than the round's
    number of runs nothing is tolerated (the score would be invalid anyway)."""
    log = _console(tmp_path, {0: "aborted", 2: "aborted"})
    assert _mlcheck("check", str(log), "--config", os.devnull).returncode == 1
    done = _watch(log, 5)
    assert done.returncode == 1
    first, second = [line for line in done.stderr.splitlines() if "MLC301 target" in line]
    assert ": warning MLC301 " in first and ": error MLC301 " in second, done.stderr
    stop_line = int(second.split(":")[1])
    assert f"stopped on the first error (MLC301 at line {stop_line})" in done.stderr
    done = _watch(_console(tmp_path, {0: "aborted"}), 3)
    assert done.returncode == 1 and ": error MLC301 " in done.stderr


def test_watch_fail_fast_goes_on_past_a_converged_run_that_says_aborted(tmp_path: Path) -> None:
    """A run that reached its target but logged ``aborted`` (MLC302): the folder's score counts it
    as converged and ``check`` makes it a warning; the watch said an error and stopped."""
    text = sorted(RESNET.glob("result_*.txt"))[1].read_text("utf-8")
    stop = next(line for line in text.splitlines() if '"run_stop"' in line)
    log = _console(tmp_path, {})
    log.write_text(log.read_text("utf-8").replace(stop, stop.replace('"success"', '"aborted"')), "utf-8")
    assert _mlcheck("check", str(log), "--config", os.devnull).returncode == 0
    done = _watch(log, 5)
    assert done.returncode == 0 and ": warning MLC302 " in done.stderr, done.stderr
