"""The result files of a closed benchmark folder that the seed checker cannot read (family MLC5xx).

Checker: the package checker's seed checker (``package_checker/seed_checker.py``, the same in this
respect at every round's tag from 1.0 to 6.1) reads each result file of a closed folder with the
official parser and fails the folder when that raises or reports a parsing error
(``Error found when querying seeds from <file>: Found parsing errors``), or when the file logs no
seed where the round asks one (:mod:`mlcheck.rules.seeds`, MLC518). So a file whose lines the
parser cannot read fails the whole folder, although the olympic mean would tolerate it as its
non-converged run: the package is refused unless ``seed-checker-bypass`` is requested.

- MLC526 seed-checker-cannot-read: a result file of a closed folder holds a
  line the official parser cannot read (MLC003, MLC004, MLC023: invalid or cut JSON; MLC006,
  MLC007, MLC008, MLC025: a record without its key, a readable time, its metadata or its value),
  or a ``seed`` record whose metadata has no ``file`` or no ``lineno`` (the seed checker reads
  both of every seed record, and raises without them), so the seed checker fails the folder
  (``Error found when querying seeds from <file>``). An empty file logs no seed: MLC518 where the round's
  seed checker asks one. Fix: repair or rerun the run (or request ``seed-checker-bypass`` in
  ``package_checker_params`` for the review committee). A result file the package checker stops
  on before its seed checker runs gets neither (it cannot be opened, MLC001; it is a FIFO, MLC015;
  the official parser raises on a record of it): MLC521 says so.
"""

from __future__ import annotations

import os
from typing import Collection, Sequence

from mlcheck.model import Event, Finding, Severity
from mlcheck.results import RunResult
from mlcheck.rule import Rule
from mlcheck.rules.seeds import SEED_MISSING, seeds_mandatory

SEED_CHECKER_CANNOT_READ = Rule("MLC526", "seed-checker-cannot-read", Severity.ERROR,
                                "the seed checker cannot read a result file of a closed folder", official=True)

RULES = (SEED_CHECKER_CANNOT_READ,)


PARSER_FAILURES = frozenset({"MLC001", "MLC003", "MLC004", "MLC006", "MLC007", "MLC008", "MLC023", "MLC025"})
"""Codes of the official errors of a line (or a file) the official parser cannot read."""


def unreadable_for_seeds(members: Sequence[RunResult], ruleset: str | None,
                         stopping: Collection[str] = ()) -> list[Finding]:
    """MLC526 for each result file of a closed folder the seed checker cannot read, and MLC518
    for an empty one (no run read) where the round's seed checker asks a seed of it; none for the
    files the package checker stops on before its seed checker runs (``stopping``)."""
    found: list[Finding] = []
    seeded = sorted(os.path.basename(r.path) for r in members if r.run is not None and r.run.first("seed") is not None)
    files: dict[str, list[RunResult]] = {}
    for result in members:
        files.setdefault(result.path, []).append(result)
    for path, runs in sorted(files.items()):
        if path in stopping:
            continue  # (the package checker stops on it before its seed checker runs: MLC521 says so)
        failure = next((f for r in runs for f in r.findings
                        if f.code in PARSER_FAILURES and f.official and f.severity is Severity.ERROR), None)
        unplaced = None if failure is not None else _unplaced_seed(runs)
        if unplaced is not None:
            lacking = " and ".join(f"`{name}`" for name in ("file", "lineno") if name not in unplaced.metadata)
            found.append(SEED_CHECKER_CANNOT_READ.at(path, unplaced.line, (
                f"this seed record's metadata has no {lacking}: the package checker's seed checker reads the "
                "source file and line of every seed record and fails the whole folder on this file "
                "(log the seed with mllog, which adds both)")))
        elif failure is not None:
            found.append(SEED_CHECKER_CANNOT_READ.at(path, failure.line, (
                f"the package checker's seed checker reads this file with the official parser, which "
                f"cannot read {'it' if failure.line is None else f'line {failure.line}'} ({failure.code}): "
                "it fails the whole folder, although the score would count this run as non-converged")))
        elif all(r.run is None for r in runs) and (seeds_mandatory(ruleset) or (
                seeded and seeded[0] < os.path.basename(path))):  # (before 4.1: after a seeded file, sorted)
            found.append(SEED_MISSING.at(path, None, (
                f"{os.path.basename(path)} holds no record, so no seed: the package checker's seed "
                "checker fails the folder")))
    return found


def _unplaced_seed(runs: Sequence[RunResult]) -> Event | None:
    """The first seed record of a file whose metadata lacks ``file`` or ``lineno`` (what a run's
    summary keeps of a seed's metadata: both when they are there)."""
    for run in (result.run for result in runs if result.run is not None):
        first = run.first("seed")
        for seed in (first, *run.more_seeds) if first is not None else ():
            if "file" not in seed.metadata or "lineno" not in seed.metadata:
                return seed
    return None
