"""The runs of one benchmark folder, taken together (family MLC5xx): same submission values, same
hyper-parameters, distinct seeds (:mod:`mlcheck.rules.seeds`), and compliant runs.

Rules text: training_rules.adoc §Benchmark Results (the N runs of a result use the same system
and hyper-parameters; only the random seed differs), §Division Rules (a closed run with an illegal
hyper-parameter is not a valid run).

- MLC517 submission-values-differ: runs of one folder log different ``submission_*`` values
  (org, division, platform, status, benchmark). A warning: no official tool of any round compares
  the runs of a folder (the compliance checker reads one file at a time and checks only that each
  value is non-empty or in the round's vocabulary; the package checker, seed, RCP and power
  checkers and the result summarizer read no ``submission_*`` value; the summarizer takes the
  system from ``systems/<system>.json``), and the rules text (§Benchmark Results: "the same system
  and framework must be used for a submission result set") is about the system, which the system
  JSON describes, not about the values a run logs. Published results have such folders (a run
  logging the reference code's ``SUBMISSION_ORG_PLACEHOLDER`` beside runs logging the org). Fix:
  correct the logging so the review sees one system.
- MLC520 hyperparameters-differ: ``global_batch_size`` or a hyper-parameter (``opt_*``, learning
  rate, warmup, momentum, weight decay, ...) differs between runs of a folder, or is logged in
  some runs only; or another value the runs log before ``run_start`` as their configuration
  (``lora_alpha``, ``max_steps``, ``max_sequence_length``...; not ``tracked_stats``, which a run
  measures) differs between the runs that log it. A warning: neither the package checker nor
  the summarizer of any round compares runs (results with such folders were accepted, e.g. a
  learning rate of 9.1 in one run and 9.0 in the others), and the rules text asks for N runs of
  the benchmark, not for identical logs; the review may still ask why. (The RCP checker requires
  one ``global_batch_size`` across the runs: that is MLC532.) Fix: submit runs of one configuration.
- MLC521 non-compliant-run: a run breaks the rules beyond non-convergence, so the benchmark
  result is not valid (training_rules.adoc §Benchmark Results: a result is N compliant runs;
  §Division rules for the closed hyper-parameters). Two cases: (a) an error the checker of
  record fails the file for (an illegal hyper-parameter, a missing or conflicting key, init over
  the limit, a record the official parser cannot read): the official tools drop such a run as
  non-converged and publish the others' score, the rules say the run is invalid; (b) an error
  only mlcheck reports (the target reached after run_stop, run_stop before run_start, a clock on
  the run's timing records outside any plausible date) in a run that converged, whose time the
  official tools would count. An error of a run that did not converge anyway changes no score and
  is not MLC521, but for run_stop before run_start (MLC403): the summarizer, which reads no
  status, scores its negative time as the fastest run and drops it, so another run counts. mlcheck
  reports both numbers, or that the official tools stop and publish nothing (a division, benchmark
  or ResNet optimizer that names a rule file the compliance checker does not have; an eval the
  compliance checker cannot compare with the target, MLC304; an eval the RCP checker raises on: MLC535).
  Official where more result files fail the checker of record than the package checker accepts
  (one; four for U-Net3D: "N files do not comply, directory cannot be accepted"), as it then
  refuses the folder; where it accepts them, only the rules make the result invalid. Fix: rerun, or fix the logging.
"""

from __future__ import annotations

import re

from collections import Counter
from dataclasses import replace
from functools import lru_cache
from typing import Collection, Sequence

from mlcheck.facts.checks import clipped
from mlcheck.read.official_view import as_written
from mlcheck.model import Finding, Severity
from mlcheck.results import RunResult, RunSummary
from mlcheck.rule import Rule
from mlcheck.rules.seeds import check_seeds

SUBMISSION_DIFFERS = Rule("MLC517", "submission-values-differ", Severity.WARNING,
                          "runs of one benchmark folder log different submission_* values")
HYPERPARAMETERS_DIFFER = Rule("MLC520", "hyperparameters-differ", Severity.WARNING,
                              "runs of one benchmark folder use different hyper-parameters")
NON_COMPLIANT_RUN = Rule("MLC521", "non-compliant-run", Severity.ERROR,
                         "a non-compliant run would be dropped as non-converged by the official tools",
                         official_cases=True)

RULES = (SUBMISSION_DIFFERS, HYPERPARAMETERS_DIFFER, NON_COMPLIANT_RUN)

_SUBMISSION_KEYS = ("submission_org", "submission_division", "submission_platform", "submission_status",
                    "submission_benchmark")
_HP_WORDS = ("learning_rate", "warmup", "momentum", "weight_decay", "epsilon", "beta", "decay",
             "batch_size", "accumulation", "bn_span", "optimizer")
_HP_PREFIXES = ("opt_", "lars_", "sgd_", "adam_", "lamb_")


_NOT_CONFIGURATION = frozenset({"seed", "run_start", "run_stop", "tracked_stats"})
"""Kept keys that are not the run's configuration: its seed, its clock, what it measured."""


@lru_cache(maxsize=4096)  # (the same few hundred keys in every run of a folder)
def is_hyperparameter(key: str) -> bool:
    """Keys compared across runs: global batch size, optimizer settings and schedules."""
    return key.startswith(_HP_PREFIXES) or any(word in key for word in _HP_WORDS)


NON_CONVERGENCE = frozenset({"MLC004", "MLC023", "MLC102", "MLC301", "MLC302"})
"""Errors that make a run non-converged (cut by a crash, no run_stop, target not reached,
aborted), which the round tolerates once; any other error makes the run break the rules."""


_SCORED_ANYWAY = frozenset({"MLC403"})
"""mlcheck's own errors that break the rules even in a run it counts as non-converged: run_stop
before run_start, whose negative time the summarizer scores (the fastest run, dropped by the
olympic mean, so another run counts)."""


def breaking_codes(result: RunResult) -> list[str]:
    """The error codes of a run other than non-convergence that make it break the rules: the
    official ones always, mlcheck's own when the run converged (they change its time) or when the
    summarizer scores a time the run cannot have (:data:`_SCORED_ANYWAY`)."""
    return sorted({f.code for f in result.findings
                   if f.severity is Severity.ERROR and f.code not in NON_CONVERGENCE
                   and (f.official or result.converged or f.code in _SCORED_ANYWAY)})


def non_compliant(result: RunResult) -> bool:
    """A run with an error finding beyond non-convergence (an illegal hyper-parameter, a missing
    key, init over the limit, a record the official parser cannot read...)."""
    return bool(breaking_codes(result))


def _label(run: RunSummary) -> str:
    return f"{run.path}" + (f" (run {run.index})" if run.index else "")


def check_runs(folder: str, runs: Sequence[RunSummary], closed: bool, ruleset: str | None = None, raw: bool = False) -> list[Finding]:
    """Consistency of submission values, hyper-parameters and seeds across the runs of a folder;
    ``ruleset`` (``"2.0.0"``) picks the round's seed checker (None: the one of 4.1 and later)."""
    if not runs:
        return []
    found: list[Finding] = []
    for key in _SUBMISSION_KEYS:
        asked = "which system ran" if key == "submission_platform" else "which value is right"
        found.extend(_differs(SUBMISSION_DIFFERS, key, runs, Severity.WARNING,
                              f" (no official tool compares runs; the review may ask {asked}): correct the logging"))
    found = [_placeholder_advice(f) for f in found]
    keys = sorted({key for run in runs for key in run.keys if is_hyperparameter(key)})
    for key in keys:
        found.extend(_differs(HYPERPARAMETERS_DIFFER, key, runs, Severity.WARNING))
    for key in sorted({key for run in runs for key in run.keys} - set(keys)):
        if key not in _NOT_CONFIGURATION and not key.startswith("submission_"):
            # (kept where logged before run_start: a run logging it later has none to compare)
            found.extend(_differs(HYPERPARAMETERS_DIFFER, key, [r for r in runs if r.first(key) is not None],
                                  Severity.WARNING))
    found.extend(check_seeds(folder, runs, closed, ruleset, raw))  # (raw: a raw log's runs, as split writes them)
    return found


def _placeholder_advice(found: Finding) -> Finding:
    """A run logging the reference code's ``SUBMISSION_*_PLACEHOLDER``: say what it is."""
    if "PLACEHOLDER" not in found.message.split(" here but ")[0]:
        return found
    return replace(found, message=re.sub(
        r"\(no official tool compares runs; the review may ask [^)]*\): correct the logging",
        "(no official tool compares runs): that is the reference code's placeholder, so this run's logging "
        "was not given the submission's values; set them as in the other runs", found.message, count=1))


def _differs(rule: Rule, key: str, runs: Sequence[RunSummary], severity: Severity, advice: str = "") -> list[Finding]:
    """A finding at each run whose value differs from the one most runs log (so that the odd runs
    are blamed, whichever files they are; the report shows them as one finding of the folder)."""
    events = [run.first(key) for run in runs]
    if events[0] is not None:  # (the common folder: every run logs the very same value, shared)
        value = events[0].value
        if all(event is not None and event.value is value for event in events):
            return []
    shown = ["absent" if event is None else repr(as_written(event.value)) for event in events]
    counts = Counter(shown)  # (a count and an index per run made a folder of 8,000 runs quadratic)
    first = {value: -at for at, value in reversed(list(enumerate(shown)))}
    common = max(counts, key=lambda value: (counts[value], first[value]))
    agree = next(r for r, v in zip(runs, shown) if v == common)
    return [rule.at(run.path, event.line if event else run.first_line, (
        f"{key} is {clipped(value)} here but {clipped(common)} in {_label(agree)}"
        f"{' and most other runs' if counts[common] > 1 else ''}{advice}"), severity=severity, run_index=run.index)
        for run, event, value in zip(runs, events, shown) if value != common]


def non_compliant_findings(folder: str, bad: Sequence[RunResult], official_score: float | None,
                           failing: Collection[str], tolerated: int, stopped: str = "",
                           refused: Sequence[str] = ()) -> list[Finding]:
    """MLC521 for the non-compliant runs of a folder, with what the official tools would publish
    (``stopped``: why they stop on the folder instead; ``refused``: the codes of the package rules for which
    the package checker refuses the folder whatever the summarizer computes). Official where more of the folder's
    files do not comply (``failing``: those the checker of record fails, these runs' or others', and those whose
    power logs the package checker refuses) than the package checker accepts (``tolerated``)."""
    if not bad:
        return []
    names = ", ".join(_label(r.run) if r.run else r.path for r in bad)
    codes = sorted({code for r in bad for code in breaking_codes(r)})
    official = (f"{official_score:.2f} min" if official_score is not None else "no score")
    too_many = len(failing) > tolerated
    if too_many:  # (package_checker.py: "N files do not comply, directory cannot be accepted")
        refused = [f"{len(failing)} result files do not comply, as the compliance checker or the power checker "
                   f"judges them, and it accepts {tolerated}", *refused]
    failed = {id(r) for r in bad if r.official_verdict == "fail"}  # (the others only mlcheck fails: they pass)
    kept = ", ".join(_label(r.run) if r.run else r.path for r in bad if id(r) not in failed)
    treated = ("drop{s} what fails {its} checks as non-converged" if not kept else
               "pass{es} " + ("them" if len(bad) > 1 else "it") + " (no official tool checks what mlcheck finds)" if not failed else
               f"count{{s}} the others as non-converged but pass{{es}} {kept} (no official tool checks what mlcheck finds)")
    tools = stopped or (
        f"the result summarizer {treated.format(s='s', es='es', its='its')} and computes {official}, but the "
        f"package checker refuses the folder ({', '.join(refused)})" if refused else
        f"the official tools {treated.format(s='', es='', its='their')} and publish {official}")
    return [NON_COMPLIANT_RUN.at(folder, None, (
        f"{names} break{'s' if len(bad) == 1 else ''} the rules ({', '.join(codes)}): {tools}; the rules say "
        "the benchmark result is not valid. Fix the runs or rerun them"), official=too_many)]
