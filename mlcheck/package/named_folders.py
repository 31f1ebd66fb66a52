"""Result files named one by one that are every result file of their benchmark folder (a shell's
glob, ``results/<system>/<benchmark>/result_*.txt``): that folder, as the official tools read it."""

from __future__ import annotations

import os
from typing import Sequence

from mlcheck.package.real_paths import absolute_parts
from mlcheck.read.file_names import SUBMITTED_RESULT_FILE


def globbed_folders(paths: Sequence[str]) -> list[str]:
    """``paths`` with the result files that are every ``result_*.txt`` (two or more) of a package's
    benchmark folder replaced by that folder, where the first of them was: the folder the official
    tools read, judged as the folder named is (its run count, seeds, RCP test, system description),
    not as runs named alone. One result file named alone stays a run (a folder of one run is
    checked by naming the folder)."""
    named: dict[str, set[str]] = {}
    for path in paths:
        if path != "-" and SUBMITTED_RESULT_FILE.match(os.path.basename(path)) and os.path.isfile(path) \
                and absolute_parts(path)[-4:-3] == ("results",):
            named.setdefault(os.path.dirname(path) or ".", set()).add(os.path.basename(path))
    whole = set()
    for folder, names in named.items():
        try:
            listed = {name for name in os.listdir(folder) if SUBMITTED_RESULT_FILE.match(name)}
        except OSError:
            continue
        if len(names) > 1 and listed <= names:
            whole.add(folder)
    if not whole:
        return list(paths)
    folded: list[str] = []
    for path in paths:
        folder = os.path.dirname(path) or "."
        item = folder if folder in whole and os.path.basename(path) in named.get(folder, ()) else path
        if item not in folded:
            folded.append(item)
    return folded
