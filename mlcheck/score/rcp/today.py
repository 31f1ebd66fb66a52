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

from functools import lru_cache

from mlcheck.facts.installed import dist_info_version as dist_info_version  # (re-exported)
from mlcheck.facts.installed import installed_version
from mlcheck.score.rcp.reference import ReferenceSet, RoundPolicy, build_reference_set, installed_rcp_records


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
