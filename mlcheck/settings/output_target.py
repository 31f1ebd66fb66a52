"""Where standard output writes, when the shell redirected it into a file (``>``, ``>>``): a check
never writes its report into one of its inputs, as ``-o`` never does (:mod:`mlcheck.settings.gate`)."""

from __future__ import annotations

import os
import stat
from typing import Sequence

from mlcheck.results import CheckResult
from mlcheck.settings.gate import _file_id, _stdin_id, outputs_in_checked_folders


def _standard_output_id() -> tuple[int, int] | None:
    """(device, inode) of the regular file standard output writes to, else None (a pipe, a
    terminal, ``/dev/null``, closed)."""
    try:
        status = os.fstat(1)
    except (OSError, ValueError):
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def writes_into(path: str) -> bool:
    """Whether standard output is the file ``path`` (``mlcheck watch job.log >> job.log``)."""
    target = _standard_output_id()
    return target is not None and _file_id(path) == target


def standard_output_input(result: CheckResult, also_read: Sequence[str | None] = ()) -> str | None:
    """The input of this check that standard output writes into (the shell opened it: ``>>
    pkg/results/s/b/result_0.txt``), else None: the file's identity against the logs read, the
    config and stdin's file; its name (``/proc/self/fd/1``) against the folders checked, as ``-o``'s."""
    target = _standard_output_id()
    if target is None:
        return None
    if _stdin_id() == target and any(run.path == "-" for run in result.runs):
        return "-"
    named = dict.fromkeys([run.path for run in result.runs if run.path != "-"] + [path for path in also_read if path])
    found = next((path for path in named if _file_id(path) == target), None)
    if found is not None:
        return found
    try:
        name = os.readlink("/proc/self/fd/1")
    except (OSError, ValueError):
        return None
    if not os.path.isabs(name) or name.endswith(" (deleted)"):  # (a temporary file whose name is gone)
        return None
    return name if outputs_in_checked_folders([name], result) else None
