"""The lines of a console a Windows shell saved as UTF-16 (or UTF-32), for the reader (raw output
only: a result file in either is MLC009, as the official parser finds no record in it)."""

from __future__ import annotations

import io
from typing import IO

_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")
_UTF32_MARKS = (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")


def wide_encoding(head: bytes) -> str | None:
    """``UTF-32`` or ``UTF-16`` for a file that begins with that byte order mark (UTF-32's little-
    endian mark begins with UTF-16's), then the NUL bytes of such text (``\\xff\\xfe`` alone may be
    two bytes of damage); None for any other."""
    if head[:4] in _UTF32_MARKS:
        return "UTF-32"
    return "UTF-16" if head[:2] in _UTF16_MARKS and b"\x00" in head[2:] else None


class Utf16Lines:
    """The lines of a UTF-16 (or UTF-32) file as UTF-8 bytes (``readline`` and ``close``, as the
    reader uses a stream); a character the file cannot hold is U+FFFD. A line ends at LF, as a
    UTF-8 console's does (a CRLF's CR kept): a progress bar's CR inside a line stays there, for
    :mod:`mlcheck.read.bar_cuts` (a CR read as a line end lost a record a bar cut)."""

    def __init__(self, stream: IO[bytes], encoding: str = "UTF-16") -> None:
        self.text = io.TextIOWrapper(stream, encoding=encoding.lower(), errors="replace", newline="\n")

    def readline(self, size: int = -1) -> bytes:
        return self.text.readline(size).encode("utf-8", errors="replace")

    def close(self) -> None:
        self.text.close()
