"""Where standard output and standard error write, when the shell redirected them into a file
(``>``, ``>>``, ``2>>``): a command never writes into one of its inputs, as ``-o`` never does
(:mod:`mlcheck.settings.gate`); and whether an ``-o`` path is one, before the check
(:func:`output_in_inputs`)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Sequence

from mlcheck.read.file_names import RESULT_FILE
from mlcheck.results import CheckResult
from mlcheck.settings.gate import file_id, outputs_in_checked_folders, package_folders, stdin_file_id

STREAM_NAMES = {1: "standard output", 2: "standard error"}


def _stream_id(descriptor: int) -> tuple[int, int] | None:
    """(device, inode) of the regular file ``descriptor`` writes to, else None (a pipe, a
    terminal, ``/dev/null``, closed)."""
    try:
        status = os.fstat(descriptor)
    except (OSError, ValueError):
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def streams_into(log: str, also_read: Sequence[str | None] = ()) -> list[tuple[int, str]]:
    """(descriptor, the input) of each standard stream that writes into ``log`` (``-``: the file
    standard input reads), one of ``also_read`` (the config) or a file in the folders of the
    package ``log`` lies in, as :func:`outputs_in_checked_folders` guards them (``mlcheck watch
    job.log >> job.log``: said before the log is read, not after)."""
    found = []
    for descriptor in (1, 2):
        target = _stream_id(descriptor)
        if target is None:
            continue
        if log == "-" and stdin_file_id() == target:
            found.append((descriptor, "the file standard input reads"))
            continue
        same = next((path for path in (log, *also_read) if path and path != "-" and file_id(path) == target), None)
        same = same if same is not None else _in_package_folders(descriptor, log)
        if same is not None:
            found.append((descriptor, same))
    return found


def _in_package_folders(descriptor: int, log: str) -> str | None:
    """The name of the file ``descriptor`` writes to when it lies in a folder of the package that
    holds ``log`` (``results/<system>/<benchmark>/``, the system's, ``results/``, ``systems/``)."""
    name = _stream_name(descriptor)
    if name is None or log == "-":
        return None
    guarded = package_folders(os.path.dirname(os.path.abspath(log)))  # (as a check's folder: a link's own)
    real = Path(os.path.realpath(name))
    return name if any(real != place and real.is_relative_to(place) for place in guarded) else None


def streams_into_folder(folder: str) -> list[tuple[int, str]]:
    """(descriptor, the file's name) of each standard stream that writes into a result file
    (``result_*.txt``) of ``folder`` (``mlcheck split raw -o DIR > DIR/result_0.txt``: its lines
    would go into a file the split then replaces, or be counted as a run beside the ones written)."""
    place = os.path.realpath(folder)
    found = []
    for descriptor in (1, 2):
        name = _stream_name(descriptor) if _stream_id(descriptor) is not None else None
        real = os.path.realpath(name) if name is not None else ""
        if name is not None and os.path.dirname(real) == place and RESULT_FILE.match(os.path.basename(real)):
            found.append((descriptor, name))
    return found


def _stream_name(descriptor: int) -> str | None:
    """The path of the file ``descriptor`` writes to (``/proc/self/fd/N``), else None (no such
    view, or a file whose name is gone)."""
    try:
        name = os.readlink(f"/proc/self/fd/{descriptor}")
    except (OSError, ValueError):
        return None
    return name if os.path.isabs(name) and not name.endswith(" (deleted)") else None


def stream_input(descriptor: int, result: CheckResult, also_read: Sequence[str | None] = ()) -> str | None:
    """The input of this check that standard stream ``descriptor`` writes into (the shell opened
    it: ``>> pkg/results/s/b/result_0.txt``; ``-`` for stdin's file), else None: the file's
    identity against the logs read, the config and stdin's file; its name (``/proc/self/fd/N``)
    against the folders checked, as ``-o``'s."""
    target = _stream_id(descriptor)
    if target is None:
        return None
    if stdin_file_id() == target and any(run.path == "-" for run in result.runs):
        return "-"
    named = dict.fromkeys([run.path for run in result.runs if run.path != "-"] + [path for path in also_read if path])
    found = next((path for path in named if file_id(path) == target), None)
    if found is not None:
        return found
    name = _stream_name(descriptor)
    return name if name is not None and outputs_in_checked_folders([name], result) else None


def output_in_inputs(output: str, paths: Sequence[str]) -> bool:
    """Whether ``output`` is one of the paths checked or lies in a package's ``results/`` or
    ``systems/`` folder among them: where the refusal of writing into an input says why."""
    real = os.path.realpath(output)
    for given in map(os.path.realpath, paths):
        inside = os.path.relpath(real, given).split(os.sep)
        if inside == ["."] or inside[0] != os.pardir and ({"results", "systems"} & {*inside[:-1]}
                                                            or _in_a_packages_folder(given)):
            return True
    return False


def _in_a_packages_folder(folder: str) -> bool:
    """Whether ``folder`` is a package's ``results/`` or ``systems/``, or a system's or benchmark's
    folder in its ``results/``; not a package inside a folder that happens to be named so
    (``data/results/Acme``, whose own ``results/`` says what it is)."""
    if os.path.isdir(os.path.join(folder, "results")):
        return False
    parts = folder.split(os.sep)
    return parts[-1] in ("results", "systems") or "results" in parts[-3:-1]
