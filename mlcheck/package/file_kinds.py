"""What a path met by discovery is, told without reading it as a log: a regular file or one that
reading could wait on forever (a FIFO, a socket, a device), and whether a file holds a record."""

from __future__ import annotations

import os
import re
import stat
import zlib

from mlcheck.read.reader import open_log
from mlcheck.read.utf16_lines import wide_encoding


def _mode(path: str) -> int | None:
    """The path's ``st_mode`` (links followed), None where it cannot be asked (vanished, a link to nothing)."""
    try:
        return os.stat(path).st_mode
    except OSError:
        return None


def named_device(path: str) -> bool:
    """A character or block device, or a socket, named on the command line (a FIFO is read:
    ``<(zcat ...)``; a socket cannot be opened as a file)."""
    mode = _mode(path)
    return mode is not None and (stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode))


def stdin_device() -> str | None:
    """``a terminal`` or ``a device`` (``< /dev/zero``) when standard input is one, which reading
    could wait on forever, as a device named on the command line (:func:`named_device`); else None."""
    import sys

    try:
        descriptor = sys.stdin.fileno()
        mode = os.fstat(descriptor).st_mode
    except (AttributeError, OSError, ValueError):  # (closed, or no descriptor: a test's stream)
        return None
    if os.isatty(descriptor):
        return "a terminal"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else None


def special_kind(path: str) -> str | None:
    """None for a regular file (or one that vanished), else what it is (``-``: standard input's device)."""
    if path == "-":
        return stdin_device()
    mode = _mode(path)
    if mode is None or stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def cannot_open(path: str) -> bool:
    """Whether ``open(path)`` raises, as the official tools open a result file (a folder, a link to
    nothing, no permission); not for a file mlcheck could not read past its start (a damaged gzip
    named ``.txt``: the official tools read it as latin-1 text) nor for a FIFO (MLC015: they wait)."""
    mode = _mode(path)
    if mode is None or stat.S_ISDIR(mode):
        return True
    if not stat.S_ISREG(mode):
        return False
    try:
        with open(path, "rb"):
            return False
    except OSError:
        return True


def holds_records(path: str, window: int = 1 << 20) -> bool:
    """Whether the first MiB of a file holds a ``:::MLLOG`` record (gzip too)."""
    try:
        with open_log(path) as stream:
            return b":::MLLOG" in stream.read(window)
    except (OSError, EOFError, ValueError, zlib.error):
        return False


def holds_a_record(path: str, block: int = 1 << 20) -> bool:
    """Whether a file holds a ``:::MLLOG`` marker anywhere (gzip too), read a block at a time and
    ended at the first one (most logs hold one in their first block); a file that cannot be read
    counts as holding one (its reader says what is wrong)."""
    tail = b""
    try:
        with open_log(path) as stream:
            while True:
                data = stream.read(block)
                if not data:
                    return False
                if not tail and wide_encoding(data[:8]) is not None:
                    return True  # (UTF-16 or UTF-32 text: its reader says so, MLC009)
                if b":::MLLOG" in tail + data[:7] or b":::MLLOG" in data:
                    return True
                tail = data[-7:]
    except (OSError, EOFError, ValueError, zlib.error):  # (a damaged gzip archive)
        return True


_RECORD_KEY = re.compile(rb':::MLLOG[^\n]*?"key"\s*:\s*"([^"\n]*)"')
_POWER = frozenset({b"power_measurement_start", b"power_reading"})
_RUN = frozenset({b"init_start", b"init_stop", b"run_start", b"run_stop", b"eval_accuracy"})


def holds_power_records(path: str, window: int = 1 << 16) -> bool:
    """Whether the first 64 KiB of a file hold a power log's records (``power_measurement_start``,
    ``power_reading``) and none of a training run's: a copy of ``power/`` beside it
    (``power_raw/``), which no official tool reads as a run."""
    try:
        with open_log(path) as stream:
            keys = set(_RECORD_KEY.findall(stream.read(window)))
    except (OSError, EOFError, ValueError, zlib.error):
        return False
    return bool(keys & _POWER) and not keys & _RUN


def loops_back(root: str, name: str) -> bool:
    """Whether folder ``name`` of ``root`` is a link to ``root`` or to a folder above it."""
    path = os.path.join(root, name)
    target = os.path.realpath(path) if os.path.islink(path) else None
    return target is not None and (os.path.realpath(root) + os.sep).startswith(target.rstrip(os.sep) + os.sep)


def own_report(path: str) -> bool:
    """:func:`mlcheck.package.own_reports.written_by_mlcheck`, imported where a loose log is met
    (its patterns are compiled then, not at every start)."""
    from mlcheck.package.own_reports import written_by_mlcheck

    return written_by_mlcheck(path)
