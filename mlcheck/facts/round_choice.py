"""The round of a run from its date and its path: the periods between MLCommons result
publications, a path naming a later round, and a benchmark the date's round lacks (see
:func:`mlcheck.checker.choose_ruleset`, which adds the forced round and the findings)."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

from mlcheck.facts.rulesets import (SUPPORTED_RULESETS, Ruleset, load_ruleset, newest_period_end, round_part,
                                    ruleset_for_date)
from mlcheck.model import Finding
from mlcheck.records import dataclass


@dataclass(frozen=True)
class RulesetChoice:
    """The round a run is judged under, what decided it, and a finding about the choice."""

    ruleset: Ruleset
    source: str
    finding: Finding | None = None


@lru_cache(maxsize=256)
def later_round_with(version: str, benchmark: str) -> Ruleset | None:
    """The first round after ``version`` that has ``benchmark``, if any (a run is submitted to
    its date's round or a later one: an rgat run dated in the 4.1 period belongs to 5.0 or later)."""
    for later in SUPPORTED_RULESETS[SUPPORTED_RULESETS.index(version) + 1:]:
        ruleset = load_ruleset(later)
        if benchmark in ruleset.benchmarks:
            return ruleset
    return None


NOT_INFERRED = "default (not inferred)"
DATED_IN_A_PERIOD = ("run date ", " falls in the ")
"""How the source of a round a run's date falls in the period of begins, and what it says
(:func:`dated_choice`; :mod:`mlcheck.judge.package_rounds` reads it)."""
LATER_ROUND_WITH = ", a round without "
"""What the source of a later round chosen for a benchmark the date's round lacks says after the
date's (:func:`mlcheck.checker.choose_ruleset`)."""
"""The source of a round neither the date nor the path gave (MLC012): a folder takes the round
of its runs that tell one (:func:`mlcheck.judge.folders.score_folder`)."""


@lru_cache(maxsize=64)
def newest_round_with(benchmark: str | None) -> Ruleset:
    """The newest round that has ``benchmark`` (a run neither its date nor its path places, the
    clock in seconds: a resnet run is not judged under a round without resnet); the newest
    round when none has it."""
    for version in reversed(SUPPORTED_RULESETS):
        ruleset = load_ruleset(version)
        if benchmark is not None and benchmark in ruleset.benchmarks and ruleset.benchmarks[benchmark].not_in_record is None:
            return ruleset
    return load_ruleset(SUPPORTED_RULESETS[-1])


@lru_cache(maxsize=4096)
def dated_choice(when: dt.date, hinted_version: str | None) -> RulesetChoice | None:
    """The round of a run dated ``when`` whose path names ``hinted_version`` (None: no round);
    None after the newest period (the caller says so, with a finding of the run) and when
    neither the date nor the path tells (the runs of a day share it: made once)."""
    by_date = ruleset_for_date(when)
    hinted = load_ruleset(hinted_version) if hinted_version is not None else None
    if hinted is not None and (by_date is None or hinted.version != by_date.version):
        if when < hinted.results_published:
            dated = f"; its date falls in the {by_date.round} period" if by_date is not None else ""
            return RulesetChoice(hinted, f"path names round {hinted.round} and the run date "
                                 f"{when.isoformat()} is before its publication ({hinted.results_published}){dated}")
        if hinted.period_estimated:  # (a round not published yet: its end is a guess, the path is not)
            return RulesetChoice(hinted, f"path names round {hinted.round}, not published yet: the run date "
                                 f"{when.isoformat()} is after the estimated end of its period "
                                 f"({hinted.results_published}), which does not overrule the path")
    if by_date is None and when >= newest_period_end()[1]:
        return None
    if by_date is not None:
        estimated = ", estimated" if by_date.period_estimated else ""
        return RulesetChoice(by_date, f"{DATED_IN_A_PERIOD[0]}{when.isoformat()}{DATED_IN_A_PERIOD[1]}{by_date.round} "
                             f"period ({by_date.first_run_date} to {by_date.results_published}{estimated})")
    return None


def names_training_round(path: str) -> bool:
    """Whether the part of ``path`` that names its round says ``training`` (``training-2.0``,
    ``training_results_v2.0``, ``mlperf-6.1``), not a bare ``v2.0``."""
    part = round_part(path)
    return part is not None and part.lower().startswith(("training", "mlperf"))
