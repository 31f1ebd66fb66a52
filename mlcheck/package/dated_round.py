"""The round of a package read from the date of one of its runs, for the parts of it that hold
no run of their own: a benchmark folder named alone that holds no result file (or none that can
be read) is judged under the round its package's runs are dated in, as checking the whole package
judges it, not under the newest round (MLC525)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re

from mlcheck.facts.rulesets import Ruleset, ruleset_for_date

_TIME = re.compile(rb'"time_ms"\s*:\s*(\d{10,16}(?:\.\d*)?)')
_LINES = 200
"""The lines of one result file read for a date: every run's first records are dated."""
_FILES = 8
"""The result files tried (in sorted order), so that a package of unreadable files costs little."""


def dated_package_round(root: str) -> Ruleset | None:
    """The round whose period holds the first dated record of the first result files of the
    package at ``root`` (``results/<system>/<benchmark>/result_*.txt``, sorted); None if none is
    dated in a known round's period."""
    for path in _result_files(os.path.join(root, "results")):
        when = _first_date(path)
        if when is not None:
            return ruleset_for_date(when)
    return None


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
