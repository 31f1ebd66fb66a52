"""A log of no record beside the file of another task of its job: Slurm's ``srun
--output=job-%j-%t.out`` writes a file per task, and only the logging rank's holds records."""

from __future__ import annotations

import os
import re
from functools import lru_cache

from mlcheck.read.file_names import RESULT_FILE

_NUMBER = re.compile(r"\d+")
_LISTED = 10_000
"""Names of a folder looked at, at most (a folder of a million files is not listed whole for a hint)."""
_TRIED = 8
"""Files of the other tasks opened for a record, at most, the lowest tasks first (the logging
rank's is task 0's, mostly): a folder of thousands of files of no record stays linear."""
_HEAD = 1 << 20
"""Bytes of a sibling read for a record (as the discovery's test of a file)."""


def other_task_hint(path: str) -> str | None:
    """What MLC002 says of ``path`` (a log of no record) where a file beside it is named alike but
    for its last number (``job-4242-3.out``, ``job-4242-0.out``: the job's id, then the task's) and
    holds records: the file of the job's logging rank, which holds the run. None otherwise."""
    name = os.path.basename(path)
    shape = _shape(name)
    if shape is None or RESULT_FILE.match(name):
        return None
    folder = os.path.dirname(path) or "."  # (a pipe's too: not its copy's)
    try:
        changed = os.stat(folder).st_mtime_ns
    except OSError:
        return None
    siblings = _tasks(folder, changed).get(shape[0], ())
    for other in [n for n in siblings if n != name][:_TRIED]:
        if _holds_a_record(os.path.join(folder, other)):
            return (f"the output of another task of the job whose records {other} holds, maybe (srun --output="
                    "...%t writes a file per task, and only the logging rank's holds records): check that file alone")
    return None


@lru_cache(maxsize=8)
def _tasks(folder: str, changed: int) -> dict[tuple[str, str], tuple[str, ...]]:
    """The names of a folder (as it was at ``changed``) grouped by what surrounds their last number,
    each group by that number (listed once for all its files of no record)."""
    groups: dict[tuple[str, str], list[tuple[int, str]]] = {}
    try:
        with os.scandir(folder) as entries:
            for _, entry in zip(range(_LISTED), entries):
                shape = _shape(entry.name)
                if shape is not None:
                    groups.setdefault(shape[0], []).append((shape[1], entry.name))
    except OSError:
        return {}
    return {key: tuple(name for _, name in sorted(names)) for key, names in groups.items()}


def _shape(name: str) -> tuple[tuple[str, str], int] | None:
    """What surrounds the last number of a name of two numbers at least, and that number (its last
    twelve digits); None for another name."""
    numbers = list(_NUMBER.finditer(name))
    if len(numbers) < 2:
        return None
    last = numbers[-1]
    return (name[:last.start()], name[last.end():]), int(last.group()[-12:])


def _holds_a_record(path: str) -> bool:
    """Whether a regular file's first MiB holds the marker (a FIFO or a device is never opened: it may wait)."""
    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as handle:
            return b":::MLLOG" in handle.read(_HEAD)
    except OSError:
        return False
