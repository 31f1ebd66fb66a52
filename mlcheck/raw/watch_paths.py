"""What ``mlcheck watch`` asks of the path it is to follow before it follows it: whether it can
ever be followed (:func:`unwatchable`), and whether it is gzip (:func:`compressed`: judged whole)."""

from __future__ import annotations

import os
import stat


def unwatchable(log: str) -> str | None:
    """Why an existing path cannot be followed (a folder, no permission); None when it can, or
    when it does not exist yet (the job has not started)."""
    try:
        mode = os.stat(log).st_mode
    except FileNotFoundError:  # (not yet: the job has not started)
        return None
    except OSError as error:  # (a folder on the way that cannot be searched, or a file: it never will be)
        return f"cannot be reached: {error.strerror or error}"
    if stat.S_ISDIR(mode):
        return "is a folder; watch follows one log file (mlcheck check reads folders)"
    if not stat.S_ISREG(mode):  # (opening a FIFO waits for its writer)
        return ("is not a regular file (a FIFO, socket or device): watch follows a file that grows; "
                "to read a pipe once use `mlcheck check -`")
    try:
        with open(log, "rb"):
            return None
    except OSError as error:
        return f"cannot be opened: {error.strerror or error}"


def compressed(log: str) -> bool:
    """Whether ``log`` is gzip (a compressed stream is not followed line by line)."""
    try:
        with open(log, "rb") as handle:
            return handle.read(2) == b"\x1f\x8b"
    except OSError:
        return False
