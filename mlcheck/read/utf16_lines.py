"""The lines of a console a Windows shell saved as UTF-16, for the reader (raw output only: a
result file in UTF-16 is MLC009, as the official parser finds no record in it)."""

from __future__ import annotations

import io
from typing import IO

_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


def is_utf16(head: bytes) -> bool:
    """A UTF-16 byte order mark, then the NUL bytes of UTF-16 text (``\\xff\\xfe`` alone may be
    two bytes of damage)."""
    return head[:2] in _UTF16_MARKS and b"\x00" in head[2:]


class Utf16Lines:
    """The lines of a UTF-16 file as UTF-8 bytes (``readline`` and ``close``, as the reader uses a
    stream); a character the file cannot hold is U+FFFD."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.text = io.TextIOWrapper(stream, encoding="utf-16", errors="replace", newline="")

    def readline(self, size: int = -1) -> bytes:
        return self.text.readline(size).encode("utf-8", errors="replace")

    def close(self) -> None:
        self.text.close()
