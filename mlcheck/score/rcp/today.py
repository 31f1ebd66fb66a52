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

import os
import re
from functools import lru_cache

from mlcheck.facts.installed import dist_info_version as dist_info_version  # (re-exported)
from mlcheck.facts.installed import installed_version
from mlcheck.score.rcp.reference import (ReferenceSet, RoundPolicy, build_reference_set, installed_rcp_records,
                                        official_rcp_checker_folder)


@lru_cache(maxsize=1)
def today_policy() -> RoundPolicy:
    """How the installed mlperf-logging computes the RCP test, whatever the round."""
    return RoundPolicy(prune=True, prune_by="mean", stdev_over="full",
                       source=f"mlperf-logging {installed_version()} (installed): full-list stdev, "
                       "pruning by RCP mean, its RCP files")


@lru_cache(maxsize=None)
def load_today_references(benchmark: str, ruleset: str, submission_runs: int) -> ReferenceSet | None:
    """The installed package's RCPs of a benchmark in a round, with today's statistics."""
    name = f"rcps_{benchmark}.json"
    records = installed_rcp_records(ruleset, name)
    if records is None:
        return None
    return build_reference_set(benchmark, ruleset, records,
                               f"mlperf-logging {installed_version()} rcp_checker/training_{ruleset}/{name}",
                               submission_runs, policy=today_policy())


def today_raises(benchmark: str) -> str | None:
    """Why today's RCP checker raises on a folder of ``benchmark`` (``RCP_Checker.__init__`` reads
    ``submission_runs['training'][benchmark]``: a benchmark its table lost, 1.0-2.1's dlrm, is a
    KeyError that stops the package checker), or None."""
    known = _today_benchmarks()
    if known is None or benchmark in known:
        return None
    return (f"its RCP checker raises KeyError: '{benchmark}' (its table of run counts, submission_runs, "
            f"has no {benchmark}): the package checker stops there")


@lru_cache(maxsize=1)
def _today_benchmarks() -> frozenset[str] | None:
    """The benchmarks of the installed ``rcp_checker.submission_runs['training']``, read from its
    source text (importing it imports scipy: a second; parsing it, 10 ms); None when the table is
    not found so."""
    folder = official_rcp_checker_folder()
    if folder is None:
        return None
    try:
        with open(os.path.join(folder, "rcp_checker.py"), encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None
    table = _TRAINING_RUNS.search(text)
    if table is None:
        return None
    keys = frozenset(_RUN_COUNT.findall(table.group(1)))
    return keys or None


_TRAINING_RUNS = re.compile(r"^submission_runs\s*=\s*\{\s*[\"']training[\"']\s*:\s*\{([^{}]*)\}", re.MULTILINE)
_RUN_COUNT = re.compile(r"[\"']([\w.-]+)[\"']\s*:\s*\d+")
