"""A package folder named so that the official package checker's glob finds no result file in it
(MLC502, :mod:`mlcheck.rules.package`; every round's ``package_checker.py``).

The package checker lists a benchmark folder's runs with ``glob.glob('{folder}/result_*.txt')``,
the folder's path not escaped: a ``[...]`` in the organisation's, the system's or the benchmark's
folder name is read as a set of characters, and the pattern no longer matches the folder itself
(``R750xa[1]`` matches ``R750xa1``), and a ``*`` or ``?`` may match other folders beside it, whose
files it counts too. The checker then counts 0 (or too many) result files and refuses the
folder ("Incorrect number of files"); for a closed folder its RCP checker then stops
(``KeyError``). Only the names the package holds are looked at (``<org>/results/<system>/<benchmark>``):
the folders above the package are where it was copied to, not the submission.
"""

from __future__ import annotations

import os
from fnmatch import fnmatchcase
from glob import has_magic

from mlcheck.model import Finding
from mlcheck.package.layout import BENCHMARK, package_part
from mlcheck.rules.package import WRONG_RUN_COUNT


def glob_blind(folder: str) -> Finding | None:
    """MLC502 where a name of the package's benchmark folder ``folder`` (org, system, benchmark)
    does not match itself as a glob pattern, or matches another folder beside it too
    (``HLS?`` and ``HLSx``: the checker counts the other's files as well); else None."""
    part = package_part(folder)
    if part is None or part.level != BENCHMARK:
        return None
    org = os.path.abspath(part.root)
    places = [(os.path.basename(org), os.path.dirname(org)), (part.system or "", os.path.join(org, "results")),
              (part.benchmark or "", os.path.join(org, "results", part.system or ""))]
    said = []
    for name, parent in places:
        if not has_magic(name):
            continue
        if not fnmatchcase(name, name):
            said.append(f"{name!r}, a pattern that does not match the name itself")
        elif others := sorted(other for other in _listed(parent) if other != name and fnmatchcase(other, name)):
            said.append(f"{name!r}, a pattern that also matches {', '.join(map(repr, others[:3]))}")
    if not said:
        return None
    return WRONG_RUN_COUNT.at(folder, None, (
        "the official package checker lists the runs with glob('{folder}/result_*.txt'), the folder's path "
        f"unescaped, and reads {'; '.join(said)}: it does not count this folder's result files and refuses it. "
        "Rename the folder without '[', '*' and '?'"))


def _listed(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []
