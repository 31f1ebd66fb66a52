"""The lines of a console a Windows shell saved as UTF-16 (or UTF-32), for the reader (raw output
only: a result file in either is MLC009, as the official parser finds no record in it)."""

from __future__ import annotations

import io
import re
from collections import deque
from typing import IO

from mlcheck.read.cr_line_ends import PROBE_BYTES, crs_end_lines

_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")
_UTF32_MARKS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
WIDE_MARKS = (*_UTF16_MARKS, _UTF32_MARKS[1])
"""The byte order marks of UTF-16 and UTF-32 (whose little-endian mark begins with UTF-16's): characters of NULs."""


def wide_encoding(head: bytes) -> str | None:
    """``UTF-32`` or ``UTF-16`` for a file that begins with that byte order mark (UTF-32's little-
    endian mark begins with UTF-16's), then the NUL bytes of such text (``\\xff\\xfe`` alone may be
    two bytes of damage); None for any other."""
    if head[:4] in _UTF32_MARKS:
        return "UTF-32"
    return "UTF-16" if head[:2] in _UTF16_MARKS and b"\x00" in head[2:] else None


def wide_undecided(head: bytes) -> bool:
    """Whether more bytes after a file's first ``head`` (fewer than the 8 ``check`` peeks) may make it
    UTF-16 or UTF-32 (:func:`wide_encoding`): a start of a byte order mark, or UTF-16's mark with no NUL yet."""
    if len(head) >= 8:
        return False
    if len(head) < 4:
        return any(mark[:len(head)] == head[:len(mark)] for mark in WIDE_MARKS)
    return head[:2] in _UTF16_MARKS and wide_encoding(head) is None


class Utf16Lines:
    """The lines of a UTF-16 (or UTF-32) file as UTF-8 bytes (``readline`` and ``close``, as the
    reader uses a stream); a character the file cannot hold is U+FFFD. Lines end as a UTF-8
    console's do (:mod:`mlcheck.read.cr_line_ends`): at LF (a CRLF's CR kept), so that a progress
    bar's CR stays inside its line, for :mod:`mlcheck.read.bar_cuts` (a CR read as a line end lost
    a record a bar cut); at a CR too where the first MiB holds no LF, or more of its records end
    in a CR alone than in an LF (a file of CR line ends, an LF-ended line or a few among them)."""

    def __init__(self, stream: IO[bytes], encoding: str = "UTF-16") -> None:
        self.text = io.TextIOWrapper(stream, encoding=encoding.lower(), errors="replace", newline="\n")
        head = self.text.read(PROBE_BYTES // 2)
        self.cr_ends = crs_end_lines(head.encode("utf-8", "replace"))
        pieces = head.split("\n")
        self.partial = pieces[-1]  # (the first MiB's last line, cut: its rest follows)
        whole = head[:len(head) - len(self.partial)]
        self.ahead: deque[str] = deque(_CR_PIECES.findall(whole) if self.cr_ends else (p + "\n" for p in pieces[:-1]))

    def readline(self, size: int = -1) -> bytes:
        if not self.ahead:
            line, self.partial = self.partial + self.text.readline(size), ""
            if not self.cr_ends or "\r" not in line:
                return line.encode("utf-8", errors="replace")
            self.ahead.extend(_CR_PIECES.findall(line))
        return self.ahead.popleft().encode("utf-8", errors="replace") if self.ahead else b""

    def close(self) -> None:
        self.text.close()


_CR_PIECES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
"""A line cut at each CR that ends one alone (a file of CR line ends)."""
