"""The round of a package read from the dates of its runs, for the parts of it that hold no run
of their own: a benchmark folder named alone that holds no result file (or none that can be read)
is judged under the round its package's runs are dated in, as checking the whole package judges
it (the newest of the rounds its folders' runs are dated in: a package is submitted to one round,
``mlcheck.judge.package_rounds``), not under the newest round mlcheck knows (MLC525)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re

from mlcheck.facts.rulesets import SUPPORTED_RULESETS, Ruleset, ruleset_for_date

_TIME = re.compile(rb'"time_ms"\s*:\s*(\d{10,16}(?:\.\d*)?)')
_LINES = 200
"""The lines of one result file read for a date: every run's first records are dated."""
_FILES = 400
"""The benchmark folders read at most (one result file each), so that a package costs little."""


def dated_package_round(root: str) -> Ruleset | None:
    """The newest round whose period holds the first dated record of the first result file of a
    benchmark folder of the package at ``root`` (``results/<system>/<benchmark>/result_*.txt``);
    None if none is dated in a known round's period."""
    found = [ruleset_for_date(when) for path in _result_files(os.path.join(root, "results"))
             for when in (_first_date(path),) if when is not None]
    rounds = [ruleset for ruleset in found if ruleset is not None]
    return max(rounds, key=lambda ruleset: SUPPORTED_RULESETS.index(ruleset.version)) if rounds else None


def _result_files(results: str) -> list[str]:
    found: list[str] = []
    for system in _sorted_dirs(results):
        for benchmark in _sorted_dirs(os.path.join(results, system)):
            folder = os.path.join(results, system, benchmark)
            try:
                names = sorted(n for n in os.listdir(folder) if n.startswith("result_") and n.endswith(".txt"))
            except OSError:
                continue
            found.extend(os.path.join(folder, name) for name in names[:1])
            if len(found) >= _FILES:
                return found
    return found


def _sorted_dirs(path: str) -> list[str]:
    try:
        return sorted(n for n in os.listdir(path) if not n.startswith(".") and os.path.isdir(os.path.join(path, n)))
    except OSError:
        return []


def _first_date(path: str) -> dt.date | None:
    try:
        with open(path, "rb") as handle:
            for _ in range(_LINES):
                line = handle.readline(1 << 16)
                if not line:
                    return None
                found = _TIME.search(line) if b":::MLLOG" in line else None
                if found is not None:
                    millis = json.loads(found.group(1))
                    return dt.datetime.fromtimestamp(millis / 1000, dt.timezone.utc).date()
    except (OSError, ValueError, OverflowError):
        return None
    return None
