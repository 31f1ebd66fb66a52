"""Logs whose path no longer names the file that was read: ``mlcheck watch`` holds the file it
followed open, and when the job removed or moved it (``mv job.log results/.../result_0.txt`` at the
end of a job script) its final report reads the same bytes, under the path as it was given.
"""

from __future__ import annotations

import io
import os

_HELD: dict[str, int] = {}


def hold(path: str, descriptor: int) -> None:
    """Read ``path`` from ``descriptor`` (an open file, rewound at each read) from now on."""
    _HELD[path] = descriptor


def is_held(path: str) -> bool:
    """Whether ``path`` is read from a held file, not opened by its name."""
    return path in _HELD


def open_held(path: str) -> io.BufferedReader | None:
    """A new reader of the held file of ``path`` from its first byte; None when it is not held."""
    descriptor = _HELD.get(path)
    if descriptor is None:
        return None
    handle = io.open(os.dup(descriptor), "rb")
    handle.seek(0)
    return handle
