"""Power measurements of a benchmark folder (family MLC54x): the ``power/`` folder is read and
checked as the round's power checker does it, and scored as its result summarizer does it.

Rules text: power_measurement.adoc (training), submission rules §results layout
(``results/<system>/<benchmark>/power/result_<i>/node_<j>.txt``, ``sw_<k>.txt``). Checker of
record: ``package_checker/power_checker.py`` from 5.0 (3.1-4.1 score power folders but do not
check them: there these findings are warnings), ``result_summarizer.py`` from 3.1 for the energy.

- MLC540 power-run-missing: the folder has ``power/`` but a result file has no
  ``power/<result name>/`` folder (or ``power/`` holds no run folder at all, or ``power`` is a
  file, on which the power checker crashes; ``power/<result>`` a file or a folder it cannot list
  crashes it too: refused). The run counts as non-compliant: with the round's
  one tolerated file (U-Net3D four) already used, the package checker rejects the folder; within
  it (no other run failing), MLC540-MLC542 are warnings, as the checker accepts the folder. Fix: add the run's measurements,
  or remove ``power/`` if the submission has no power result.
- MLC541 power-file-misnamed: the node (``node*``) or switch (``sw*``) logs of a run are not
  numbered ``0`` to ``n-1`` (the checker reads the index after the last ``_``; a name without
  an integer there, ``node_0.txt.bak``, makes it crash: the package is refused, no run
  tolerated). Also a warning for files the checker counts but the
  summarizer does not score (``nodes_1_to_1.png`` counts as a node), for scored logs that are
  not numbered from 0 where the checker passes them anyway, and for other files. Fix:
  name the logs ``node_0.txt`` ... ``node_<n-1>.txt``, ``sw_0.txt`` ..., and move other files out.
- MLC542 power-counts-differ: runs measure different numbers of nodes or switches (the checker
  compares each run with the most common count, and counts as non-compliant the result file at the
  run's place among the runs with a power folder: another one after a run without its folder, as
  mlcheck does too; a warning where MLC540 is). Fix: measure the same nodes in every run.
- MLC543 power-log-invalid: a power log the summarizer cannot score, or scores despite a flaw.
  Error (no energy score, or one not valid): no ``node_*.txt`` in a run (or no
  ``power/<result>/`` folder: it globs the node logs of every run), no
  ``power_measurement_start``, an empty measurement window, a reading that is not a number, a
  record the official parser raises on (no ``metadata``, ``value``, ``key`` or ``time_ms``; a
  null ``time_ms``, or an integer one too large for a float): the summarizer raises; a counted
  run's NaN or Infinity reading (the summarizer's energy is no number); a node log of fewer than
  60 ``power_reading`` records in its window (power_measurement.adoc, "Measure max(a run, 60
  power samples)", requires them; no official tool counts them: the energy the summarizer would
  publish is shown, not valid). Warning: a NaN or Infinity reading at the log, a missing
  ``power_measurement_stop`` or switch estimate, records of the wrong shape. Info: records whose
  ``metadata`` is no object (the summarizer scores them as any). A malformed log is read as that
  parser reads it (a line's last record; the lines it skips left out: text after a record's JSON,
  ``null``); a reading of ``true`` counts 1 W, as Python multiplies it. The 1 Hz the text asks
  for is not checked (the published 4.0 and 5.0 logs sample at 0.45-0.95 Hz). The logs of every
  run the round's compliance check passes are read, as the summarizer reads them: the runs the
  score drops too, and an aborted one; not a run it fails. Fix: log with the power logging
  example of mlperf-logging.
- MLC544 energy-score: the folder's energy as the summarizer scores it (info), in kJ; the formula is
  :mod:`mlcheck.score.energy`'s (node logs: efficiency x sum(watts x interval) over the window, scaled
  to the time-to-train; switches: efficiency x estimate x time-to-train; the mean over the runs the
  time score counts, times its ``scaling.json`` factor).
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Sequence

from mlcheck.model import Finding, Severity
from mlcheck.package.power import KINDS, PowerFolder, PowerRun
from mlcheck.rule import Rule
from mlcheck.rules.power_text import expected_names as _expected, format_energy, listed as _list, rename_advice as _rename

POWER_RUN_MISSING = Rule("MLC540", "power-run-missing", Severity.ERROR,
                         "a run of a folder with power/ has no power/<result>/ folder", official=True,
                         also=(Severity.WARNING,))
POWER_FILE_MISNAMED = Rule("MLC541", "power-file-misnamed", Severity.ERROR,
                           "node/switch power logs are not numbered 0..n-1", official=True,
                           also=(Severity.WARNING,))
POWER_COUNTS_DIFFER = Rule("MLC542", "power-counts-differ", Severity.ERROR,
                           "runs measure different numbers of nodes or switches", official=True,
                           also=(Severity.WARNING,))
POWER_LOG_INVALID = Rule("MLC543", "power-log-invalid", Severity.ERROR,
                         "a power log the result summarizer cannot score (error), or scores despite a flaw",
                         also=(Severity.WARNING, Severity.INFO))
ENERGY_SCORE = Rule("MLC544", "energy-score", Severity.INFO,
                    "the folder's energy, as the round's result summarizer scores it")

RUN_CODES = frozenset({"MLC540", "MLC541", "MLC542"})
"""The power problems that make a run non-compliant for the package checker."""

RULES = (POWER_RUN_MISSING, POWER_FILE_MISNAMED, POWER_COUNTS_DIFFER, POWER_LOG_INVALID, ENERGY_SCORE)

_WORD = {"node": "node", "sw": "switch"}


def check_power_folder(power: PowerFolder, checked: bool, ruleset: str) -> tuple[list[Finding], set[str]]:
    """The findings of a power folder, and the result names the round's power checker counts as
    non-compliant (empty when the round does not check power folders: ``checked`` False)."""
    found: list[Finding] = []
    bad: set[str] = set()
    severity = None if checked else Severity.WARNING
    later = "" if checked else f" from 5.0 on (the package checker of training {ruleset} checks no power folder yet)"
    present = [run for run in power.runs if run.folder is not None]
    if not present:
        found.append(POWER_RUN_MISSING.at(power.path, None, (
            f"power/ holds no folder for any of the {len(power.runs)} result files; the power checker "
            f"crashes on it (max() of an empty list){later}. Add power/<result name>/ per run or remove "
            "power/"), severity=severity, official=severity is None))
        return found, ({run.result_name for run in power.runs} if checked else set())
    for run in power.runs:
        if run.folder is None:
            why = (f"power/{run.result_name} cannot be listed ({run.unlistable}): the power checker crashes, the "
                   "package is refused" if run.unlistable else f"power/{run.result_name}/ is missing; the run counts "
                   "as non-compliant")
            found.append(POWER_RUN_MISSING.at(os.path.join(power.path, run.result_name), None, (
                f"no power measurements for {run.result_name}.txt: {why}{later}"), severity=severity,
                official=severity is None))
            bad.add(run.result_name)
            continue
        for kind in KINDS:
            if _misnumbered(run, kind, found, severity, later):
                bad.add(run.result_name)
        _other_files(run, found)
    crashed = any(f.index is None for run in present for f in run.files)  # (int() raised before the counts)
    for kind in KINDS:
        bad |= _counts_differ(present, kind, found, severity, later, [run.result_name for run in power.runs], crashed)
    for folder in power.unmatched:
        found.append(POWER_FILE_MISNAMED.at(folder, None, (
            f"power/{os.path.basename(folder)}/ belongs to no result file; the power checker and the "
            "summarizer ignore it. Rename it after its result file or remove it"), severity=Severity.WARNING, official=False))
    return found, bad if checked else set()


def _misnumbered(run: PowerRun, kind: str, found: list[Finding], severity: Severity | None,
                 later: str) -> bool:
    files = run.of_kind(kind)
    word = _WORD[kind]
    folder = run.folder or ""
    unreadable = [f for f in files if f.index is None]
    if unreadable:
        names = ", ".join(os.path.basename(f.path) for f in unreadable)
        found.append(POWER_FILE_MISNAMED.at(folder, None, (
            f"{names}: the power checker reads the {word} index after the last '_' and int() fails on it "
            f"(the checker crashes: the package is refused, whatever the other runs){later}. "
            f"{_rename(kind, len(files))}" + (f", or remove what is no {word} log (a copy)" if len(files) > 1 else "")),
            severity=severity, official=severity is None))
        return True
    indices = sorted(f.index for f in files if f.index is not None)
    if any(i < 0 or i > len(files) - 1 for i in indices):
        found.append(POWER_FILE_MISNAMED.at(folder, None, (
            f"{word} logs numbered {_list(indices)}; the power checker expects {_expected(len(files))} "
            f"for {len(files)} {word} log{'s' if len(files) != 1 else ''}: the run counts as "
            f"non-compliant{later}. {_rename(kind, len(files))}"), severity=severity,
            official=severity is None))
        return True
    scored = [f for f in files if f.scored]
    numbers = sorted(f.index for f in scored if f.index is not None)
    if numbers != list(range(len(scored))):
        found.append(POWER_FILE_MISNAMED.at(folder, None, (
            f"the {word} logs the summarizer scores ({kind}_*.txt) are numbered {_list(numbers)}; expected "
            f"{_expected(len(scored))} (the power checker{' of 5.0 on' if later else ''} passes it: it also counts "
            f"{', '.join(os.path.basename(f.path) for f in files if not f.scored) or 'the same files'}). "
            f"Rename them {kind}_0.txt ..."), severity=Severity.WARNING, official=False))
    for unscored in (f for f in files if not f.scored):
        found.append(POWER_FILE_MISNAMED.at(unscored.path, None, (
            f"the power checker{' of 5.0 on' if later else ''} counts this file as {word} log {unscored.index} but "
            f"the summarizer scores only {kind}_*.txt: move it out of the power folder"),
            severity=Severity.WARNING, official=False))
    return False


def _other_files(run: PowerRun, found: list[Finding]) -> None:
    if run.other:
        names = ", ".join(os.path.basename(p) for p in run.other)
        found.append(POWER_FILE_MISNAMED.at(run.folder or "", None, (
            f"{names}: neither node_<i> nor sw_<j> logs; the power checker warns that some files do not "
            "conform. Move them out of the power folder"), severity=Severity.WARNING, official=False))


def _counts_differ(runs: Sequence[PowerRun], kind: str, found: list[Finding], severity: Severity | None,
                   later: str, names: Sequence[str], crashed: bool) -> set[str]:
    """MLC542 at each run whose count differs; the result names the checker blames for it: the
    names at those runs' positions among the runs with a power folder, in the list of all the
    result files (``names``), as ``power_checker.py`` maps them (another run's, after a run without
    its power folder). Not ``official`` where the checker ``crashed`` on a name before it counts."""
    counts = [len(run.of_kind(kind)) for run in runs]
    usual = max(Counter(counts).items(), key=lambda item: item[1])[0]  # first most common, as the checker
    ordered, blamed = sorted(names, key=lambda name: name + ".txt"), set()  # (the checker sorts the paths)
    for position, (run, count) in enumerate(zip(runs, counts)):
        if count == usual:
            continue
        name = ordered[position] if position < len(ordered) else run.result_name
        blamed.add(name)
        files = ", ".join(sorted(os.path.basename(f.path) for f in run.of_kind(kind)))
        who = "the run counts" if name == run.result_name else (
            f"the checker counts {name}.txt (at its place among the runs with a power folder)")
        found.append(POWER_COUNTS_DIFFER.at(run.folder or "", None, (
            f"{count} {_WORD[kind]} log(s) where the other runs have {usual} (the power checker counts each file "
            f"whose name starts with {kind!r}: {files or 'none'}); " + ("it crashes on a name first (MLC541) and counts "
            "none" if crashed else f"{who} as non-compliant{later}") + f". Measure the "
            f"same {'switches' if kind == 'sw' else 'nodes'} in every run"),
            severity=severity, official=severity is None and not crashed))
    return blamed


def energy_finding(folder: str, joules: float | None, reason: str) -> Finding:
    """MLC544: the energy score, or why there is none (an error then belongs to MLC543)."""
    if joules is None:
        return ENERGY_SCORE.at(folder, None, f"no energy score: {reason}")
    return ENERGY_SCORE.at(folder, None, f"energy {format_energy(joules)}: {reason}")
