"""How ``mlcheck watch`` ends (:mod:`mlcheck.cli.raw`): SIGTERM unwound as Ctrl-C is, a gzip log
checked once it is whole, and whether the file holds records or runs after the lines watched."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from typing import IO, TYPE_CHECKING, NoReturn

from mlcheck.read.utf16_lines import Utf16Lines, wide_encoding

if TYPE_CHECKING:
    from mlcheck.raw.watch_state import WatchOutcome
    from mlcheck.settings.config import Settings


class Terminated(KeyboardInterrupt):
    """SIGTERM, unwound as Ctrl-C is (exit 143)."""


def terminated(_signum: int, _frame: object) -> None:
    raise Terminated


_EARLY: list[int] = []
"""The SIGTERMs that came before the watch began (:func:`hold_early_term`)."""


def _held_term(signum: int, _frame: object) -> None:
    _EARLY.append(signum)


def hold_early_term() -> None:
    """A SIGTERM from now until :func:`take_term` is kept for then (a CI job's time-out in watch's first
    second, its settings read: it ended mlcheck, without the -o report --help promises, rv297); as the
    command ends (an error before the watch began too), SIGTERM has its default again."""
    import click

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _held_term)
        click.get_current_context().call_on_close(_release_early_term)


def _release_early_term() -> None:
    if signal.getsignal(signal.SIGTERM) is _held_term:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _EARLY.clear()


def take_term() -> None:
    """SIGTERM unwound as Ctrl-C is (:class:`Terminated`) from now, where it has its default action
    or was held (:func:`hold_early_term`); one held is raised now."""
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, _held_term):
        signal.signal(signal.SIGTERM, terminated)
    if _EARLY:
        _EARLY.clear()
        raise Terminated


def report_limits(log: str, outcome: WatchOutcome, runs: int) -> dict[str, int] | None:
    """The lines of ``log`` the final report covers after a watch that ended: those watched (a later
    run the job has begun is not judged half-way), unless no record follows them but the last run's
    (a rank's copies) or ``check`` reads the file's line ends otherwise than the watch did (its start
    was decided before it was all written: :mod:`mlcheck.read.follow`): then all of it, as ``check``
    judges it."""
    import click

    from mlcheck.report.plain import one_line

    if outcome.reason != "complete":
        return None
    if read_otherwise(log, outcome.cr_ends):  # (a held file too: the report reads it, held_logs)
        return None
    if outcome.held is not None:  # (the job removed or moved the log: the file that was read, as watched)
        return {log: outcome.lines}
    if records_after(log, outcome.lines):
        if runs_after(log, outcome.lines) <= 0:  # (the records after it are the last run's: a rank's copies)
            return None  # (the report is check's of the whole file, as for the runs before)
        stops = f"{outcome.runs_done} run{'s' if outcome.runs_done != 1 else ''} ended"  # (a run_stop, or a cut run's end)
        click.echo(one_line(f"mlcheck: the watch ended at line {outcome.lines}, after {stops} (--runs {runs}); "
                            f"{log} holds records after it, not judged here: `mlcheck check` judges every "
                            "run of the file, or watch with --runs N"), err=True)
    return {log: outcome.lines}


def read_otherwise(log: str, cr_ends: bool | None) -> bool:
    """Whether ``check`` reads the line ends of ``log`` as it is now otherwise than the watch did
    (``cr_ends``: a CR alone ends a line, or not; None: not known), which the user is told: the line
    numbers of the lines watched are not ``check``'s."""
    import click

    from mlcheck.report.plain import one_line

    if cr_ends is None:
        return False
    try:
        with contextlib.closing(_lines_of(log)) as handle:
            translated = bool(getattr(getattr(handle, "raw", None), "translate", False) or getattr(handle, "cr_ends", False))
    except (OSError, ValueError):
        return False
    if translated == cr_ends:
        return False
    read = "a CR alone ends a line" if translated else "a CR alone ends no line"
    click.echo(one_line(f"mlcheck: {log}: `mlcheck check` reads it as a file in which {read}, as its first MiB "
                        "says now; the watch had read its start otherwise, before it was all written: the report "
                        "covers all of the file, as check judges it"), err=True)
    return True


def records_after(log: str, lines: int, scanned: int = 1 << 26) -> bool:
    """Whether the plain file ``log`` holds a ``:::MLLOG`` record after its first ``lines`` lines
    (within the next ``scanned`` bytes; lines as ``check`` reads them: a file of CR line ends too)."""
    try:
        with contextlib.closing(_lines_of(log)) as handle:
            for _ in range(lines):
                if not handle.readline(1 << 24):
                    return False
            if not isinstance(handle, Utf16Lines):
                return b":::MLLOG" in handle.read(scanned)
            while scanned > 0 and (line := handle.readline(1 << 24)):
                if b":::MLLOG" in line:
                    return True
                scanned -= len(line)
            return False
    except OSError:
        return False


def _lines_of(log: str) -> IO[bytes] | Utf16Lines:
    """The lines of ``log`` as ``check`` reads them (a UTF-16 or UTF-32 console as UTF-8 text), to be closed."""
    from mlcheck.read.log_files import open_log

    handle = open_log(log)
    translated = getattr(getattr(handle, "raw", None), "translate", False)
    wide = None if translated or not hasattr(handle, "peek") else wide_encoding(handle.peek(8)[:8])
    return handle if wide is None else Utf16Lines(handle, wide)


def runs_after(log: str, line: int) -> int:
    """How many runs ``check`` reads in the file that begin after ``line`` (-1 when it cannot be read)."""
    from mlcheck.read.reader import read_mllog
    from mlcheck.read.runs import iter_runs

    try:
        return sum(1 for run in iter_runs(read_mllog(log), log, []) if run.first_line > line)
    except OSError:
        return -1


def judge_compressed(log: str, settings: Settings, poll: float, idle_timeout: float | None,
                     text_format: str = "full", report_on_term: bool = False) -> None:
    """Check a gzip log whole once its stream is complete (its end written, exit as check); exit 2
    when it is still incomplete after ``idle_timeout`` without growing. SIGTERM while it waits (a CI
    job's time-out) is said, and with ``report_on_term`` (outputs or a machine format asked for) the
    report of what its stream holds so far is written, as for a plain log; exit 143 (Ctrl-C: 130)."""
    import click

    from mlcheck.cli.checking import check_and_report
    from mlcheck.report.plain import one_line

    click.echo(one_line(f"mlcheck: {log} is gzip-compressed: a compressed stream cannot be followed line by line; "
                        "it is checked whole, as `mlcheck check` does, once its end is written"), err=True)
    size, changed = -1, time.monotonic()
    try:
        take_term()
        while True:
            now_size = os.stat(log).st_size if os.path.exists(log) else -1
            if now_size != size:
                size, changed = now_size, time.monotonic()
                if gzip_complete(log):
                    break
            elif idle_timeout is not None and time.monotonic() - changed > idle_timeout:
                click.echo(one_line(f"mlcheck: error: {log}: its gzip stream was still incomplete after {idle_timeout:g} s "
                                    "without growing (--idle-timeout); run `mlcheck check` on it once it is written"),
                           err=True)
                sys.exit(2)
            time.sleep(poll)
    except KeyboardInterrupt as stop:
        covered = "; the report covers what its stream holds so far" if isinstance(stop, Terminated) and report_on_term else ""
        end_interrupted(stop, f" while {log}'s gzip stream was incomplete{covered}", log, settings, text_format,
                        report_on_term)
    if signal.getsignal(signal.SIGTERM) is terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # (the report's own: as the signal ends it)
    check_and_report([log], settings, text_format=text_format)


def end_interrupted(stop: KeyboardInterrupt, said: str, log: str, settings: Settings, text_format: str,
                    report: bool) -> NoReturn:
    """Say that the watch was interrupted (``said`` after it), write the reports asked for of what
    was read where SIGTERM (a CI job's time-out) ended it and ``report``, and exit 143 (Ctrl-C: 130)."""
    import click

    from mlcheck.cli.checking import check_and_report
    from mlcheck.cli.streams import drop_if_stalled

    term = isinstance(stop, Terminated)
    drop_if_stalled(sys.stderr)  # (a reader that stopped reading: the reports are written, the note dropped)
    click.echo(f"mlcheck: interrupted{' (SIGTERM)' if term else ''}{said}", err=True)
    if term and report:  # (its SARIF or JSON still uploads what was read; a second SIGTERM ends mlcheck)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        held = getattr(stop, "held", None)  # (the file read, where its path no longer names it)
        if held is not None:  # (moved or removed; or replaced by a file not read yet: the runs are in this one, rv300)
            hold_read(log, held, "while watched")
        with contextlib.suppress(SystemExit):
            check_and_report([log], settings, text_format=text_format)
    sys.exit(143 if term else 130)


def hold_read(log: str, held: int, when: str | None) -> None:
    """The reports read ``held``, the file that was read, for ``log`` (its path no longer names it: the
    job removed, moved or replaced it); said so ``when`` (None: said otherwise)."""
    import click

    from mlcheck.read.held_logs import hold

    hold(log, held)
    if when is not None:
        click.echo(f"mlcheck: {log} went away (removed, moved or replaced) {when}; the report covers the file "
                   "that was read", err=True)


def gzip_complete(path: str) -> bool:
    """Whether ``path`` holds whole gzip members, the end of the last one written (a stream cut
    or still being written: False). A damaged stream counts as complete: ``check`` reports it."""
    import zlib

    decompressor = zlib.decompressobj(31)
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 16), b""):
                while chunk:
                    decompressor.decompress(chunk, 1 << 20)
                    chunk = decompressor.unconsumed_tail or decompressor.unused_data
                    if decompressor.eof and decompressor.unused_data:  # (the next member)
                        decompressor = zlib.decompressobj(31)
    except zlib.error:
        return True
    except OSError:
        return False
    return decompressor.eof
