"""How ``mlcheck watch`` ends (:mod:`mlcheck.cli.raw`): SIGTERM unwound as Ctrl-C is, and whether
the file holds records or runs after the lines watched."""

from __future__ import annotations


class Terminated(KeyboardInterrupt):
    """SIGTERM, unwound as Ctrl-C is (exit 143)."""


def terminated(_signum: int, _frame: object) -> None:
    raise Terminated


def records_after(log: str, lines: int, scanned: int = 1 << 26) -> bool:
    """Whether the plain file ``log`` holds a ``:::MLLOG`` record after its first ``lines`` lines
    (within the next ``scanned`` bytes)."""
    try:
        with open(log, "rb") as handle:
            for _ in range(lines):
                if not handle.readline(1 << 24):
                    return False
            return b":::MLLOG" in handle.read(scanned)
    except OSError:
        return False


def runs_after(log: str, line: int) -> int:
    """How many runs ``check`` reads in the file that begin after ``line`` (-1 when it cannot be read)."""
    from mlcheck.read.reader import read_mllog
    from mlcheck.read.runs import iter_runs

    try:
        return sum(1 for run in iter_runs(read_mllog(log), log, []) if run.first_line > line)
    except OSError:
        return -1
