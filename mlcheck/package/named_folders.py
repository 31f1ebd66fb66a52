"""Result files named one by one that are every result file of their benchmark folder (a shell's
glob, ``results/<system>/<benchmark>/result_*.txt``): judged as that folder named is."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, Sequence

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
