"""Ruleset and benchmark selection (family MLC0xx): which round and which benchmark a run is
judged under.

Follows the round's checker of record, which picks its rule files from ``submission_benchmark``
(``training_X.Y.Z/closed_<benchmark>.yaml``, ``open_<benchmark>.yaml``) and fails a log whose
benchmark it has none for, and the benchmark table of each round's rules text (training_rules.adoc
§Benchmarks). The round of a run (MLC012, MLC016, MLC018, MLC019) is mlcheck's own inference from
the MLCommons publication dates; the official tools take it from the command line.

- MLC011 unknown-benchmark: ``submission_benchmark`` names a benchmark that is not part of the
  round (or the log has none and the folder name is not one either). Benchmark rules (targets,
  hyper-parameters) are skipped for the run. Fix: log the round's benchmark name (for example
  ``resnet``, not ``resnet50``) or pick the right round with ``--ruleset``. The official checker
  fails such a log (``submission_benchmark`` check) or crashes looking for a missing rule file.
  Also an error on a benchmark the round's checker of record does not know but a later release
  of its tools does (6.1 ``dlrmv4``, only in mlperf-logging 4.1.68): the record fails the log
  (``official_verdict`` fail), and mlcheck's other findings on it are those of the later
  release's rules, so that a submitter whose round accepts the benchmark under that release
  (waive MLC011 then) knows what else it says.
- MLC016 benchmark-not-its-folder: inside a package, a log's ``submission_benchmark`` differs
  from the benchmark folder it is in (``bert`` logged in ``results/<system>/resnet/``). The run is
  judged by the rules of the benchmark it logs, and counted and scored with its folder (as the
  official package checker and summarizer do); the RCP test reads the benchmark the folder's
  runs log, where they all log one of the round (as the RCP checker reads submission_benchmark).
  Fix: move the file to its folder, or correct the logged name.
- MLC012 ruleset-not-inferred: without ``--ruleset``, mlcheck infers the round from the run date
  (the periods between MLCommons result publications) and then from the path (``training-1.1``,
  ``v2.0``). When neither tells (no date, or a clock in seconds: MLC405), it uses the newest
  supported round that has the run's benchmark (the newest round when none has it) and says so. Fix: pass
  ``--ruleset X.Y.Z``. A path that names a round wins over the date when the run is dated before
  that round's publication (runs are submitted to a later round than their date, never to an
  earlier one), and so does a path naming a round not published yet (its end is an estimate);
  the ruleset source in every report says which evidence decided.
- MLC018 log-newer-than-rulesets: the run is dated after the period of the newest round mlcheck
  knows (6.1, whose period ends at the estimated publication of its results); it is judged under
  that round, whose rules the next round may change. Fix: update mlcheck, or pass ``--ruleset``.
- MLC019 ruleset-contradicts-date: the round forced with ``--ruleset`` (or ``ruleset`` in the
  config, ``MLCHECK_RULESET``) is not the round whose submission period holds the run's date. A
  warning: a resubmitted log or a wrong clock can be the reason, but a log judged under another
  round's rules gets that round's targets, hyper-parameter ranges and run counts. Fix: pass the
  round the log was submitted to, or drop ``--ruleset`` to infer it. Also when a path names a
  round (``training-5.1/``) whose results were published before the run's date: the run is
  judged under the path's round, as the round's checker is run on the files of its folder (a
  clock set wrong, one record's time changed, or a package in the wrong round's folder: a run is
  never submitted to an earlier round than its date's); but when the path's round lacks the
  benchmark the run logs, or the folder is a bare ``v5.1`` (a user's own numbering as often as a
  round), the round of its date (or the first later one with the benchmark) judges it. And
  when the runs of one package are dated in the periods of several rounds: a package is
  submitted to one round (the package checker is given one), so each is judged under the newest
  of them (:mod:`mlcheck.judge.package_rounds`), the older ones with this warning.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import TYPE_CHECKING

from mlcheck.facts.round_choice import RulesetChoice, names_training_round
from mlcheck.facts.checks import show, show_repr
from mlcheck.facts.rulesets import SUPPORTED_RULESETS, load_ruleset, ruleset_for_date
from mlcheck.model import Event, Finding, Run, Severity, plausible_time
from mlcheck.rule import Rule

if TYPE_CHECKING:
    from mlcheck.facts.rulesets import Ruleset

UNKNOWN_BENCHMARK = Rule("MLC011", "unknown-benchmark", Severity.ERROR,
                         "the benchmark is not part of the round", official=True)
RULESET_NOT_INFERRED = Rule("MLC012", "ruleset-not-inferred", Severity.WARNING,
                            "the round could not be inferred from the log; a default was used")

LOG_NEWER_THAN_RULESETS = Rule("MLC018", "log-newer-than-rulesets", Severity.WARNING,
                               "the run is dated after the newest round mlcheck knows")

RULESET_CONTRADICTS_DATE = Rule("MLC019", "ruleset-contradicts-date", Severity.WARNING,
                                "the forced (or path's) round is not the one of the run's date")

BENCHMARK_NOT_ITS_FOLDER = Rule("MLC016", "benchmark-not-its-folder", Severity.ERROR,
                                "the log names another benchmark than its benchmark folder")

RULES = (UNKNOWN_BENCHMARK, BENCHMARK_NOT_ITS_FOLDER, RULESET_NOT_INFERRED, LOG_NEWER_THAN_RULESETS,
         RULESET_CONTRADICTS_DATE)


PACKAGE_ROUND = "the package's round"
"""How the source of a round :mod:`mlcheck.judge.package_rounds` forces begins."""


def forced_against_date(run: Run, anchor: Event | None, when: dt.date | None, forced: Ruleset,
                        source: str) -> Finding | None:
    """MLC019 when the run's date falls in the period of another round than the forced one, or
    (the package's round forced it) in no round's period."""
    by_date = ruleset_for_date(when) if when is not None else None
    if anchor is not None and when is not None and by_date is None and source.startswith(PACKAGE_ROUND):
        first = load_ruleset(SUPPORTED_RULESETS[0]).first_run_date
        return RULESET_CONTRADICTS_DATE.at(run.path, anchor.line, (
            f"{source} judges this run under {forced.version}, but its date {when.isoformat()} falls in no round's "
            f"period ({'before the first, ' + SUPPORTED_RULESETS[0] if when < first else 'after the newest mlcheck knows'}"
            "): check the clock of the system"), run_index=run.index)
    if anchor is None or when is None or by_date is None or by_date.version == forced.version:
        return None
    return RULESET_CONTRADICTS_DATE.at(run.path, anchor.line, (
        f"{source} judges this run under {forced.version}, but its date {when.isoformat()} falls in "
        f"the training {by_date.round} period ({by_date.first_run_date} to {by_date.results_published}); "
        f"check that {forced.version} is the round it was submitted to"), run_index=run.index)


def path_round_passed(run: Run, anchor: Event | None, when: dt.date, named: Ruleset, dated: Ruleset,
                      benchmark: str | None = None, kept: bool = True) -> Finding:
    """MLC019 for a run whose path names a round whose results were published before its date:
    the path's round is kept (``benchmark``: one the round of its date and the later ones lack),
    unless it lacks the run's benchmark (``kept`` False: judged under the round of its date)."""
    passed = (f"the path names round {named.round}, but the run is dated {when.isoformat()}, after that "
              f"round's results were published ({named.results_published}); ")
    if benchmark is not None:
        return RULESET_CONTRADICTS_DATE.at(run.path, anchor.line if anchor else None, passed + (
            f"{dated.round}, the round of its date, and the later rounds have no {benchmark}, so it is judged "
            f"under {named.round}: check the clock of the system, or pass --ruleset"), run_index=run.index)
    if not kept:
        why = (f"{named.round} has no {run.benchmark}" if run.benchmark and run.benchmark not in named.benchmarks
               else f"a folder named v{named.round} (not training-{named.round}) does not overrule the date")
        return RULESET_CONTRADICTS_DATE.at(run.path, anchor.line if anchor else None, passed + (
            f"{why}, so it is judged under {dated.round} (the round of its date, or the first later one with "
            f"{run.benchmark or 'its benchmark'}). "
            "Move the package to its round's folder, or pass --ruleset"), run_index=run.index)
    return RULESET_CONTRADICTS_DATE.at(run.path, anchor.line if anchor else None, passed + (
        f"it is judged under {named.round}, the round its path names, as that round's checker is run on it "
        f"(its date {'falls in' if when <= dated.results_published else 'is after'} the {dated.round} period, "
        "and a run is never submitted to an earlier round): "
        "check the clock of the system, or move the package to its round's folder, or pass --ruleset"),
        run_index=run.index)


def path_or_date(run: Run, anchor: Event | None, when: dt.date, named: Ruleset, dated: RulesetChoice,
                 benchmark: str | None) -> RulesetChoice:
    """A run dated after the publication of the round its path names: judged under that round, as
    its checker is run on the files of its folder (``training-X.Y``, ``training_results_vX.Y``; any
    folder when the round of its date and the later ones lack the benchmark: the clock is wrong),
    unless it lacks the run's benchmark or the folder is a bare ``vX.Y`` (a user's own numbering as
    often as a round: then under the round of its date); MLC019 says which, either way."""
    lacks = bool(benchmark) and benchmark not in dated.ruleset.benchmarks and benchmark in named.benchmarks
    kept = lacks or (names_training_round(run.path) and (not benchmark or benchmark in named.benchmarks))
    told = path_round_passed(run, anchor, when, named, dated.ruleset, benchmark if lacks else None, kept=kept)
    return RulesetChoice(named, f"path names round {named.round}", told) if kept else replace(dated, finding=told)


def unknown_benchmark(run: Run, benchmark: object, ruleset: Ruleset) -> Finding:
    """MLC011 for ``benchmark``: what the run logs (None: nothing), else its folder's name."""
    valid = ", ".join(sorted(name for name, facts in ruleset.benchmarks.items() if facts.not_in_record is None))
    event = run.first("submission_benchmark")
    line = event.line if event is not None else run.first_line
    if benchmark is None and event is None:
        message = f"the run logs no submission_benchmark; valid benchmarks of {ruleset.version}: {valid}"
    elif not isinstance(benchmark, str):
        message = (f"submission_benchmark is {show(benchmark)}, not the name of a benchmark (the official "
                   f"checker fails the file); valid benchmarks of {ruleset.version}: {valid}")
    else:
        message = f"{show_repr(benchmark)} is not a benchmark of training {ruleset.version}; valid: {valid}"
        others = [v for v in SUPPORTED_RULESETS if v != ruleset.version and (facts := load_ruleset(v).benchmarks.get(
            benchmark)) is not None and facts.not_in_record is None]
        start = run.run_start
        when = dt.datetime.fromtimestamp(start.time_ms / 1000, tz=dt.timezone.utc).date() \
            if start is not None and plausible_time(start.time_ms) else None
        if others and when is not None and others[-1] != SUPPORTED_RULESETS[-1] \
                and load_ruleset(others[-1]).results_published < when \
                and not load_ruleset(others[-1]).period_estimated:  # (a later round known to lack it; a published one)
            message += (f". It is a benchmark of training {others[-1]}{' and earlier rounds' if len(others) > 1 else ''}, "
                        f"published before the run's date ({when}): a run is never submitted to an earlier round, "
                        f"and the later rounds have no {benchmark}")
        elif others:  # (a round the run's date did not pick: a clock off, a resubmitted log, an estimated period)
            nearest = min(others, key=lambda v: abs(SUPPORTED_RULESETS.index(v) - SUPPORTED_RULESETS.index(ruleset.version)))
            more = f" (and of {len(others) - 1} other round{'s' if len(others) > 2 else ''})" if len(others) > 1 else ""
            message += f". It is a benchmark of training {nearest}{more}: pass --ruleset {nearest} if the run is for it"
    return UNKNOWN_BENCHMARK.at(run.path, line, message, run_index=run.index)
