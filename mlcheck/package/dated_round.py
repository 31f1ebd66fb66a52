"""The round of a package read from the dates of its runs, for the parts of it that hold no run
of their own: a benchmark folder named alone that holds no result file (or none that can be read)
is judged under the round its package's runs are dated in, as checking the whole package judges
it (the newest of the rounds its folders' runs are dated in: a package is submitted to one round,
``mlcheck.judge.package_rounds``), not under the newest round mlcheck knows (MLC525)."""

from __future__ import annotations

import datetime as dt
import os

from mlcheck.facts.rulesets import SUPPORTED_RULESETS, Ruleset, ruleset_for_date
from mlcheck.model import plausible_time
from mlcheck.package.layout import scan_package
from mlcheck.read.file_names import SUBMITTED_RESULT_FILE
from mlcheck.read.rank_processes import record_time

_LINES = 200
"""The lines of one result file read for a date: every run's first records are dated."""


def dated_package_round(root: str) -> Ruleset | None:
    """The newest round whose period holds the first dated record of the first result file of a
    benchmark folder of the package at ``root``; None if none is dated in a known round's period."""
    rounds = []
    for folder in scan_package(root).benchmark_folders:
        names = sorted(name for name in folder.files if SUBMITTED_RESULT_FILE.match(name))
        when = _first_date(os.path.join(folder.path, names[0])) if names else None
        ruleset = ruleset_for_date(when) if when is not None else None
        if ruleset is not None:
            rounds.append(ruleset)
    return max(rounds, key=lambda ruleset: SUPPORTED_RULESETS.index(ruleset.version)) if rounds else None


def _first_date(path: str) -> dt.date | None:
    try:
        with open(path, "rb") as handle:
            for _ in range(_LINES):
                line = handle.readline(1 << 16)
                if not line:
                    return None
                millis = record_time(line) if b":::MLLOG" in line else None
                if millis is not None and plausible_time(millis):
                    return dt.datetime.fromtimestamp(millis / 1000, dt.timezone.utc).date()
    except OSError:
        return None
    return None
