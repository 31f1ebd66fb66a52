"""A package folder named so that the official package checker's glob finds no result file in it
(MLC502, :mod:`mlcheck.rules.package`; every round's ``package_checker.py``).

The package checker lists a benchmark folder's runs with ``glob.glob('{folder}/result_*.txt')``,
the folder's path not escaped: a ``[...]`` in the organisation's, the system's or the benchmark's
folder name is read as a set of characters, and the pattern no longer matches the folder itself
(``R750xa[1]`` matches ``R750xa1``). The checker then counts 0 result files and refuses the
folder ("Incorrect number of files"); for a closed folder its RCP checker then stops
(``KeyError``). Only the names the package holds are looked at (``<org>/results/<system>/<benchmark>``):
the folders above the package are where it was copied to, not the submission.
"""

from __future__ import annotations

import os
from fnmatch import fnmatchcase

from mlcheck.model import Finding
from mlcheck.package.layout import BENCHMARK, package_part
from mlcheck.rules.package import WRONG_RUN_COUNT


def glob_blind(folder: str) -> Finding | None:
    """MLC502 where a name of the package's benchmark folder ``folder`` (org, system, benchmark)
    does not match itself as a glob pattern; else None."""
    part = package_part(folder)
    if part is None or part.level != BENCHMARK:
        return None
    names = [os.path.basename(os.path.abspath(part.root)), part.system or "", part.benchmark or ""]
    blind = [name for name in names if name and not fnmatchcase(name, name)]
    if not blind:
        return None
    return WRONG_RUN_COUNT.at(folder, None, (
        f"the official package checker lists the runs with glob('{{folder}}/result_*.txt'), and reads the brackets of "
        f"{', '.join(map(repr, blind))} as a pattern that does not match the name itself: it finds no result file "
        "here and refuses the folder. Rename the folder without '[' and ']'"))
