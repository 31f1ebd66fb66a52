"""A log whose lines end in a carriage return alone (classic Mac OS line ends, or a file re-saved by
a tool that writes them), read as the official parser reads it.

The official parser (``mlp_parser``, every round) opens a result file as text with universal
newlines: a CR alone ends a line, as LF and CRLF do. mlcheck reads lines by their LF, so such a file
would be one line: every record at line 1, and the order of records (a value logged before the
key it depends on, MLC112; ``init_stop`` before ``run_start``) judged wrongly. A file whose first
MiB holds a CR and no LF, and no LF after it either, or whose records there end their lines with
a CR alone more often than with an LF (an LF-ended line or a few among CR-ended ones), is read here with
each CR, or CRLF, turned into one LF: its line numbers are those of the parser's lines (and of an
editor that shows them).
Any other file is read as it is: a CR inside a line of LF-ended output (a progress bar) keeps its
physical line, a first line of progress bar longer than a MiB too (the rest of the file is looked
through, without keeping it, then read from where it was: most of its records begin lines after an
LF, not after a CR), and a file whose first :data:`HEAD_BYTES` hold an LF and no more CRs alone than LFs
(the cheap test, made on that many bytes whatever the file system's block size: the same file is read
the same way everywhere, and by ``watch``, :mod:`mlcheck.read.follow`).
"""

from __future__ import annotations

import io
import re
from typing import Iterable

PROBE_BYTES = 1 << 20
"""How much of the start of a file must hold a CR and no LF for the file to be read this way."""


HEAD_BYTES = 4096
"""The start the cheap test reads (:func:`lf_start`)."""


def cr_line_ended(handle: io.BufferedReader) -> io.BufferedReader:
    """``handle``, or a reader of it with CR line ends turned into LF when its start has a CR and
    no LF (the cheap test first: most logs hold an LF in their first buffer)."""
    head = handle.peek(1)
    if not head or len(head) >= HEAD_BYTES and lf_start(head[:HEAD_BYTES]):
        return handle
    at = handle.tell() if handle.seekable() else None
    probe = handle.read(PROBE_BYTES)  # (a first line longer than the buffer: its bytes replayed)
    translate = cr_ends_in(probe)
    if translate and len(probe) == PROBE_BYTES and _lf_later(handle):
        translate = False  # (a progress bar's first MiB, then LF-ended lines)
    if not translate and at is not None:  # (read as it is, from where it was: a short file, most often)
        handle.seek(at)
        return handle
    return io.BufferedReader(_Replayed(handle, probe, translate=translate))


def lf_start(head: bytes) -> bool:
    """The cheap test of a file's first :data:`HEAD_BYTES` (``head``): an LF, and no more CRs alone
    than LFs (LF line ends, whatever the rest of the file holds)."""
    return b"\n" in head and (b"\r" not in head or not _more_lone_crs(head))


def cr_ends_in(probe: bytes) -> bool:
    """Whether a file whose first MiB (or whole text, when shorter) is ``probe`` is read with CR line
    ends: not after the cheap test (:func:`lf_start`); a CR and no LF, or records that end their lines
    with a CR alone more often than not. (``check`` also looks past a whole MiB, :func:`lf_after`.)"""
    return bool(probe) and not lf_start(probe[:HEAD_BYTES]) and crs_end_lines(probe)


def crs_end_lines(probe: bytes) -> bool:
    """The test of a start past the cheap one (a UTF-16 console's whole test, :mod:`mlcheck.read.utf16_lines`):
    a CR, and no LF or records that end their lines with a CR alone more often than not."""
    return b"\r" in probe and (b"\n" not in probe or records_end_in_crs(probe))


def _more_lone_crs(data: bytes) -> bool:
    """Whether ``data`` holds more CRs alone than LFs (the cheap test, in C, before a look at its
    records: a file of CR line ends with an LF-ended line first or last)."""
    return data.count(b"\r") - data.count(b"\r\n") > data.count(b"\n")


def records_end_in_crs(data: bytes) -> bool:
    """Whether more of the records in ``data`` end their lines with a CR alone than with an LF or
    CRLF (CR line ends, an LF-ended line or a few among them; not LF-ended output whose records a
    progress bar's CRs come before: ``tqdm.write`` clears the bar with a CR, the record ends in an LF)."""
    ends = {b"\r": 0, b"\r\n": 0, b"\n": 0}
    for found in _RECORD_END.finditer(data):
        ends[found.group(1)] += 1
    return ends[b"\r"] > ends[b"\r\n"] + ends[b"\n"]


_RECORD_END = re.compile(rb":::MLLOG[^\r\n]*(\r\n|\r|\n)")
"""A record and the end of its line."""


def _lf_later(handle: io.BufferedReader) -> bool:
    """Whether the records after ``handle``'s position begin LF-ended lines more often than lines a
    CR ends before them (a progress bar's first MiB, then LF-ended output; not a file of CR line
    ends with an LF-ended line last): read to the end and put back where it was (a stream that
    cannot seek: False, its first MiB decides)."""
    try:
        if not handle.seekable():
            return False
        at = handle.tell()
        try:
            return lf_after(iter(lambda: handle.read(PROBE_BYTES), b""))
        finally:
            handle.seek(at)
    except OSError:  # (a device, a pipe posing as a file: its first MiB decides)
        return False


def lf_after(chunks: Iterable[bytes]) -> bool:
    """Whether the records in ``chunks`` (a file's bytes after its first MiB) begin LF-ended lines more
    often than lines a CR ends before them."""
    after = {b"\r": 0, b"\n": 0}
    for chunk in chunks:
        for found in _RECORD_LINE.finditer(chunk):
            after[found.group(1)] += 1
    return after[b"\n"] > after[b"\r"]


_RECORD_LINE = re.compile(rb"([\r\n])[^\r\n]{0,4096}?:::MLLOG")
"""A record on a line, and the line end before it (a tag or a timestamp may come first)."""


class _Replayed(io.RawIOBase):
    """The bytes already read (``head``), then the rest of ``handle``; with ``translate``, CRLF
    and CR become LF (a CRLF cut between two reads included)."""

    def __init__(self, handle: io.BufferedReader, head: bytes, translate: bool) -> None:
        super().__init__()
        self._handle = handle
        self._head = memoryview(head)
        self.translate = translate
        """Whether CR line ends are read as LF (what ``watch`` compares its own reading with)."""
        self._after_cr = False  # (the last byte given was a CR: an LF first in the next is its pair)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        wanted = len(buffer)
        if self._head.nbytes:
            data = bytes(self._head[:wanted])
            self._head = self._head[wanted:]
        else:
            data = self._handle.read(wanted)
        if self.translate and data:
            if self._after_cr and data.startswith(b"\n"):
                data = data[1:]
            self._after_cr = data.endswith(b"\r")
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            if not data:  # (only the LF of a CRLF cut between reads: read on)
                return self.readinto(buffer)
        buffer[:len(data)] = data
        return len(data)

    def close(self) -> None:
        self._handle.close()
        super().close()
