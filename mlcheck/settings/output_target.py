"""Where standard output and standard error write, when the shell redirected them into a file
(``>``, ``>>``, ``2>>``): a command never writes into one of its inputs, as ``-o`` never does
(:mod:`mlcheck.settings.gate`)."""

from __future__ import annotations

import os
import stat
from typing import Sequence

from mlcheck.results import CheckResult
from mlcheck.settings.gate import _file_id, _stdin_id, outputs_in_checked_folders

STREAM_NAMES = {1: "standard output", 2: "standard error"}


def _stream_id(descriptor: int) -> tuple[int, int] | None:
    """(device, inode) of the regular file ``descriptor`` writes to, else None (a pipe, a
    terminal, ``/dev/null``, closed)."""
    try:
        status = os.fstat(descriptor)
    except (OSError, ValueError):
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def streams_into(path: str) -> list[int]:
    """The standard streams (1, 2) that write into the file ``path`` (``mlcheck watch job.log >>
    job.log``)."""
    found = _file_id(path)
    return [descriptor for descriptor in (1, 2) if found is not None and _stream_id(descriptor) == found]


def stream_input(descriptor: int, result: CheckResult, also_read: Sequence[str | None] = ()) -> str | None:
    """The input of this check that standard stream ``descriptor`` writes into (the shell opened
    it: ``>> pkg/results/s/b/result_0.txt``; ``-`` for stdin's file), else None: the file's
    identity against the logs read, the config and stdin's file; its name (``/proc/self/fd/N``)
    against the folders checked, as ``-o``'s."""
    target = _stream_id(descriptor)
    if target is None:
        return None
    if _stdin_id() == target and any(run.path == "-" for run in result.runs):
        return "-"
    named = dict.fromkeys([run.path for run in result.runs if run.path != "-"] + [path for path in also_read if path])
    found = next((path for path in named if _file_id(path) == target), None)
    if found is not None:
        return found
    try:
        name = os.readlink(f"/proc/self/fd/{descriptor}")
    except (OSError, ValueError):
        return None
    if not os.path.isabs(name) or name.endswith(" (deleted)"):  # (a temporary file whose name is gone)
        return None
    return name if outputs_in_checked_folders([name], result) else None
