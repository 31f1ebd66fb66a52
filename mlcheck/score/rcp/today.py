"""The RCP test as today's mlperf-logging computes it, next to the round's record checker's.

Since 2024 the RCP checker takes the population stdev of the whole list of a record's values, not
of the olympic-trimmed list (logging commit 52245a0), prunes the RCPs of every round by their mean
(commit 39fc7a0; the record checkers of 2.0-4.0 pruned by the minimum acceptable mean, those of
1.0 and 1.1 did not prune), and reads the RCP files of the installed package, some edited after
their round (1.1 ResNet). A submitter who runs today's checker on an old package can then get
another verdict at a boundary; mlcheck reports both where they differ, and the verdict of record
stays the one the round accepted (``official`` and ``official_verdict`` follow it).
"""

from __future__ import annotations

import json
import os
import sys
from functools import lru_cache

from mlcheck.score.rcp.reference import ReferenceSet, RoundPolicy, _official_rcp_folder, build_reference_set


@lru_cache(maxsize=1)
def installed_version() -> str:
    """The installed mlperf-logging's version (``?`` when it cannot be told)."""
    found = dist_info_version()
    if found is not None:
        return found
    from importlib import metadata  # (it imports the email package: 20 ms)

    try:
        return metadata.version("mlperf-logging")
    except metadata.PackageNotFoundError:
        return "?"


def dist_info_version() -> str | None:
    """The ``Version`` of the first ``mlperf_logging-*.dist-info`` on ``sys.path``, as
    ``importlib.metadata`` finds it, or None where that is not plain (no such folder, two of them,
    an egg)."""
    for folder in sys.path:
        try:
            names = [n for n in os.listdir(folder or ".")
                     if n.lower().startswith(("mlperf_logging-", "mlperf-logging-"))]
        except OSError:
            continue
        if len(names) != 1 or not names[0].endswith(".dist-info"):
            if names:
                return None
            continue
        try:
            with open(os.path.join(folder or ".", names[0], "METADATA"), encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
                    if not line.strip():
                        return None  # (the headers end at the first blank line)
        except (OSError, UnicodeDecodeError):
            return None
        return None
    return None


@lru_cache(maxsize=1)
def today_policy() -> RoundPolicy:
    """How the installed mlperf-logging computes the RCP test, whatever the round."""
    return RoundPolicy(prune=True, prune_by="mean", stdev_over="full",
                       source=f"mlperf-logging {installed_version()} (installed): full-list stdev, "
                       "pruning by RCP mean, its RCP files")


@lru_cache(maxsize=None)
def load_today_references(benchmark: str, ruleset: str, submission_runs: int) -> ReferenceSet | None:
    """The installed package's RCPs of a benchmark in a round, with today's statistics."""
    folder = _official_rcp_folder(ruleset)
    name = f"rcps_{benchmark}.json"
    if folder is None or not os.path.isfile(os.path.join(folder, name)):
        return None
    with open(os.path.join(folder, name), encoding="utf-8") as handle:
        records = json.load(handle)
    return build_reference_set(benchmark, ruleset, records,
                               f"mlperf-logging {installed_version()} rcp_checker/training_{ruleset}/{name}",
                               submission_runs, policy=today_policy())
