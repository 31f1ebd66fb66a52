"""A log of no record beside the file of another task of its job: Slurm's ``srun
--output=job-%j-%t.out`` writes a file per task, and only the logging rank's holds records."""

from __future__ import annotations

import os
import re

from mlcheck.read.file_names import RESULT_FILE
from mlcheck.read.log_files import readable_path

_NUMBER = re.compile(r"\d+")
_LISTED = 10_000
"""Names of a folder looked at, at most (a folder of a million files is not listed whole for a hint)."""
_HEAD = 1 << 20
"""Bytes of a sibling read for a record (as the discovery's test of a file)."""


def other_task_hint(path: str) -> str | None:
    """What MLC002 says of ``path`` (a log of no record) where a file beside it is named alike but
    for its last number (``job-4242-3.out``, ``job-4242-0.out``: the job's id, then the task's) and
    holds records: the file of the job's logging rank, which holds the run. None otherwise."""
    name = os.path.basename(path)
    numbers = list(_NUMBER.finditer(name))
    if len(numbers) < 2 or RESULT_FILE.match(name):
        return None
    last = numbers[-1]
    head, tail = name[:last.start()], name[last.end():]
    folder = os.path.dirname(readable_path(path))
    try:
        with os.scandir(folder or ".") as entries:
            names = sorted(entry.name for _, entry in zip(range(_LISTED), entries))
    except OSError:
        return None
    for other in names:
        if other != name and other.startswith(head) and other.endswith(tail) \
                and other[len(head):len(other) - len(tail)].isdigit() and _holds_a_record(os.path.join(folder, other)):
            return (f"the output of another task of the job whose records {other} holds, maybe (srun --output="
                    "...%t writes a file per task, and only the logging rank's holds records): check that file alone")
    return None


def _holds_a_record(path: str) -> bool:
    """Whether a regular file's first MiB holds the marker (a FIFO or a device is never opened: it may wait)."""
    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as handle:
            return b":::MLLOG" in handle.read(_HEAD)
    except OSError:
        return False
