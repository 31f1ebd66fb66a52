"""Result files named one by one that are every result file of their benchmark folder (a shell's
glob, ``results/<system>/<benchmark>/result_*.txt``): judged as that folder named is."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Sequence

from mlcheck.package.real_paths import absolute_parts
from mlcheck.read.file_names import SUBMITTED_RESULT_FILE

if TYPE_CHECKING:
    from mlcheck.package.discover import LogRef


def as_globbed_folders(refs: Sequence[LogRef], paths: Sequence[str]) -> tuple[list[LogRef], list[str]]:
    """``refs`` with the named result files that are every ``result_*.txt`` (two or more) of a
    package's benchmark folder, and nothing else of it, read as that folder's walk reads them
    (its run count, seeds, RCP test, a tolerated non-converged run), and ``paths`` with the folder
    added for its package checks (its system description, its layout). Only the named files are
    read, with their spelling; one result file named alone stays a run."""
    named: dict[str, list[LogRef]] = {}
    for ref in refs:
        if not ref.walked and ref.folder is not None and ref.path != "-":
            named.setdefault(ref.folder, []).append(ref)
    whole: list[str] = []  # (in the order named: the package checks' paths stay in order)
    for folder, members in named.items():
        names = {os.path.basename(ref.path) for ref in members}
        if len(names) < 2 or any(ref.system is None or ref.nested or ref.special is not None
                                 or not SUBMITTED_RESULT_FILE.match(os.path.basename(ref.path))
                                 or os.path.normpath(os.path.dirname(ref.path) or ".") != folder for ref in members):
            continue  # (one spelling of the folder: files named through a link to it and through it are two)
        try:
            listed = {name for name in os.listdir(folder) if SUBMITTED_RESULT_FILE.match(name)}
        except OSError:
            continue
        if listed <= names:
            whole.append(folder)
    if not whole:
        return list(refs), list(paths)
    return ([replace(ref, walked=True) if not ref.walked and ref.folder in whole else ref for ref in refs],
            [*paths, *(folder for folder in whole if folder not in paths)])


def folders_of_odd_globs(paths: Sequence[str]) -> list[str]:
    """``paths`` with the result files named that are every ``result_*.txt`` (two or more) of a benchmark
    folder, one of them no regular file (a FIFO, a socket, a device, a folder, a link to nothing),
    replaced by that folder where the first of them was: named one by one, such a file would be read
    as a named pipe, skipped as a device, walked as a folder or refused as a missing path; the folder's
    walk judges it as the official glob meets it (MLC015, MLC001), as it does when the folder is named. So
    are the files of such a folder named through a link that hides its ``results/`` (the folder's walk
    finds its package; the files alone would not be read as its runs). Others are left to
    :func:`as_globbed_folders`."""
    named: dict[str, set[str]] = {}
    for given in paths:  # (a name that is not there stays named: "no such file")
        if given != "-" and SUBMITTED_RESULT_FILE.match(os.path.basename(given)) and _there(given):
            named.setdefault(os.path.normpath(os.path.dirname(given) or "."), set()).add(os.path.basename(given))
    odd: set[str] = set()
    for folder, names in named.items():
        try:
            listed = {name for name in os.listdir(folder) if SUBMITTED_RESULT_FILE.match(name)}
            places = (absolute_parts(folder), absolute_parts(os.path.realpath(folder)))  # (a link to it too)
        except (OSError, ValueError):
            continue
        spelt, real = (len(parts) >= 3 and parts[-3] == "results" for parts in places)
        if len(names) >= 2 and listed <= names and (spelt or real) and (not spelt or not all(
                os.path.isfile(os.path.join(folder, name)) for name in names)):  # (through a link: as the folder too)
            odd.add(folder)
    if not odd:
        return list(paths)
    kept: list[str] = []
    for given in paths:
        folder = os.path.normpath(os.path.dirname(given) or ".")
        whole = given != "-" and folder in odd and SUBMITTED_RESULT_FILE.match(os.path.basename(given)) and _there(given)
        if not whole:
            kept.append(given)
        elif folder not in kept:
            kept.append(folder)
    return kept


def _there(path: str) -> bool:
    try:
        return os.path.lexists(path)
    except ValueError:  # (a NUL in the name)
        return False
