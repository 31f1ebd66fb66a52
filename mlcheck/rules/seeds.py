"""The seeds of the runs of one benchmark folder (family MLC5xx): logged, integers, distinct.

Rules text: training_rules.adoc §Random numbers (seeds logged and distinct); checker: the package checker's seed
checker (``package_checker/seed_checker.py`` at the round's tag), run by :mod:`mlcheck.rules.package_runs`.

- MLC518 seed-missing: a closed-division run logs no ``seed``. Follows the seed checker of the round's checker of
  record (``package_checker/seed_checker.py`` at the round's tag): before training 4.1 (rounds 1.0-4.0) it failed a
  folder only when its runs disagree, and then as it reads them: in the sorted order of their paths (the package
  checker sorts them), it fails a file without a seed that comes after a file with one. So a run without a seed is
  an error when a file before it logs one, a warning when it comes before every file that logs one (the checker
  passes it), and a folder where no run logs a seed gets one warning (the rules make seeds mandatory from 4.1,
  training_rules.adoc §Random numbers; that round's checker did not require them). From 4.1 on (and for a round
  mlcheck cannot tell) every closed run without a seed is an error; today's mlperf-logging applies that to every
  round retroactively, the round's own checker did not. A result file counts as one run, as the seed checker reads
  it. Fix: log the seed with mllog.
- MLC519 seed-duplicate: two runs of a folder log the same seed. Every round's seed checker fails the folder when
  the same seed is logged from the same source file and line (``metadata`` file and lineno), in a folder the package
  checker takes as closed (the system description's division); a same seed from another place, or in another folder,
  is a warning (training_rules.adoc from v4.1, §Random numbers: "no other run can log the same seed on the same line
  in the same source file", and the checker compares no more). Every seed record of a run is compared (runs that log
  one seed per rank), as the checker reads them all: the same seed logged twice from the same line of one run fails
  it too. Fix: seed each run differently.
- MLC522 seed-invalid: a closed-division run logs a seed that ``int()`` cannot read (``"abc"``, a list, null). Every
  round's seed checker fails the folder on it. Fix: log the seed as an integer.
"""

from __future__ import annotations

import os
import re
from typing import Mapping, Sequence

from mlcheck.model import Event, Finding, Severity
from mlcheck.results import RunSummary
from mlcheck.facts.checks import show
from mlcheck.rule import Rule

SEED_MISSING = Rule("MLC518", "seed-missing", Severity.ERROR, "a closed-division run logs no seed "
                    "(from training 4.1, or after a file of its folder that logs one)", official=True, also=(Severity.WARNING,))
SEED_DUPLICATE = Rule("MLC519", "seed-duplicate", Severity.ERROR, "two runs of a benchmark folder log the same seed",
                      official=True, also=(Severity.WARNING,))
SEED_INVALID = Rule("MLC522", "seed-invalid", Severity.ERROR, "a closed-division run logs a seed that is "
                    "not an integer", official=True)

RULES = (SEED_MISSING, SEED_DUPLICATE, SEED_INVALID)


SEEDS_MANDATORY_FROM = (4, 1, 0)
"""The round from which the seed checker fails every run without a seed (training_policies#546)."""


def version_key(version: str | None) -> tuple[int, int, int] | None:
    """``"4.1.0"`` -> ``(4, 1, 0)`` (also ``"4.1"``, ``"v5.0.0"``); None when it is not a version."""
    match = re.fullmatch(r"v?(\d{1,6})(?:\.(\d{1,6}))?(?:\.(\d{1,6}))?", (version or "").strip())
    if match is None:
        return None
    major, minor, patch = (int(part or 0) for part in match.groups())
    return major, minor, patch


def seeds_mandatory(ruleset: str | None) -> bool:
    """Whether the round's seed checker fails a run only because it logs no seed: from training
    4.1 on, and for a round that cannot be told (today's checker does it for every round). Before
    4.1 it failed a folder only when some runs log a seed and others do not."""
    key = version_key(ruleset)
    return key is None or key >= SEEDS_MANDATORY_FROM


def check_seeds(folder: str, runs: Sequence[RunSummary], closed: bool, ruleset: str | None, raw: bool = False) -> list[Finding]:
    """MLC518, MLC519 and MLC522 for the runs of a folder (``closed``: of the closed division;
    ``ruleset``: the round, which picks its seed checker; None: the one of 4.1 and later; ``raw``: runs of
    raw logs, each judged as the file `mlcheck split` writes of it)."""
    found: list[Finding] = []
    if closed:
        found.extend(_missing_seeds(folder, runs, ruleset, raw))
    seen: dict[object, list[tuple[RunSummary, Event]]] = {}
    for run in runs:
        first = run.first("seed")
        if first is None:
            continue
        for seed in (first, *run.more_seeds):  # (the seed checker reads every seed record)
            if closed and not _reads_as_int(seed.value):
                found.append(SEED_INVALID.at(run.path, seed.line, (
                    f"seed {show(seed.value)} is not an integer: the package checker's seed checker fails "
                    "on it. Log the seed as an integer"), run_index=run.index))
            # The seed checker compares int(value): 7 and "7" are the same seed.
            same = int(seed.value) if _reads_as_int(seed.value) else repr(seed.value)
            before = seen.setdefault(same, [])
            other = next((entry for entry in before if _source(entry[1]) == _source(seed)), None) or next(
                (entry for entry in before if entry[0] is not run), None)  # (same place first; in-run from elsewhere: fine)
            if other is not None:
                found.append(_duplicate(run, seed, other[0], closed, other[1]))
            before.append((run, seed))
    return found


def _missing_seeds(folder: str, runs: Sequence[RunSummary], ruleset: str | None, raw: bool = False) -> list[Finding]:
    """MLC518 as the round's seed checker decides it (see the module documentation). The seed
    checker reads a result file as one run: a file logs a seed when any of its runs does."""
    files: dict[str, list[RunSummary]] = {}
    for run in runs:
        files.setdefault(_file_key(run, raw), []).append(run)
    seeded = {path for path, members in files.items() if any(r.first("seed") is not None for r in members)}
    without = [members[0] for path, members in files.items() if path not in seeded]
    if not without:
        return []
    if seeds_mandatory(ruleset):
        return [SEED_MISSING.at(run.path, run.first_line, (
            f"{_label(_file_key(run, raw))} logs no seed (seeds are mandatory from training 4.1): the "
            "package checker's seed checker fails the folder. Log the seed with mllog"),
            run_index=run.index) for run in without]
    round_name = f"training {ruleset}"
    if not seeded:
        return [SEED_MISSING.at(folder, None, (
            f"no run of the folder logs a seed ({len(without)} file{'s' if len(without) != 1 else ''}); "
            f"the {round_name} seed checker did not require them (mandatory from training 4.1; today's "
            "package checker, mlperf-logging 4.1.68, requires them in every round)"),
            severity=Severity.WARNING, official=False)]
    # (the package checker sorts the paths; its seed checker fails a file without a seed only after one with a seed)
    order = sorted(files, key=lambda path: (os.path.basename(path), path))  # (however the paths are spelled)
    first = next(path for path in order if path in seeded)
    before = set(order[:order.index(first)])
    return [_seedless(run, _label(first), round_name, _file_key(run, raw) in before, _label(_file_key(run, raw)))
            for run in without]


def _file_key(run: RunSummary, raw: bool) -> str:
    """The file a run is to the seed checker: its own, or for a raw log's run the one split writes (sorted so)."""
    return f"{run.path}\0result_{run.index}.txt" if raw else run.path


def _label(key: str) -> str:  # (result_3.txt; job.log (run 2))
    name, _, split = str.partition(os.path.basename(key), "\0")
    return f"{name} (run {split[7:-4]})" if split else name


def _seedless(run: RunSummary, seeded: str, round_name: str, passed: bool, name: str) -> Finding:
    """MLC518 before 4.1 for a file without a seed in a folder where ``seeded`` logs one: a
    warning where the seed checker ``passed`` it (it came first), else the error it fails on."""
    if passed:
        return SEED_MISSING.at(run.path, run.first_line, (
            f"{name} logs no seed, and {seeded} does: the {round_name} seed checker reads the files in sorted "
            "order and fails one without a seed only after one with a seed, so it passes this one, which comes "
            "first; the rules of the round do not ask for the seed to be logged. Log the seed in every run"),
            severity=Severity.WARNING, official=False, run_index=run.index)
    return SEED_MISSING.at(run.path, run.first_line, (
        f"{name} logs no seed but {seeded}, before it in sorted order, logs one: the {round_name} seed checker "
        "fails the folder (it fails a file without a seed after one with a seed). Log the seed in every run"),
        run_index=run.index)


def _duplicate(run: RunSummary, seed: Event, other: RunSummary, closed: bool = True,
               other_seed: Event | None = None) -> Finding:
    """MLC519 for ``run``, whose seed ``other`` logged first (``other_seed``: that record, else its
    first seed); official when both come from the same source file and line, which is what the
    seed checker compares, in a folder it checks (``closed``: the package checker runs no seed
    checker on the others). ``other`` may be ``run``: a seed logged again from the same line."""
    other_seed = other_seed or other.first("seed")
    where = f"{other.path}:{other_seed.line}" if other_seed is not None else other.path
    run_no = f" (run {other.index} of that file)" if other.index or other.path == run.path else ""
    same_place = other_seed is not None and _source(other_seed) == _source(seed) and closed
    note = "" if same_place else (" (logged from another source line: the rules and the seed checker "
                                  "refuse the same seed only from the same file and line)") if closed else (
        " (the package checker runs its seed checker on closed folders only)")
    if other_seed is not None and other.path != run.path and _copies(run, seed, other, other_seed):
        note += (" - logged within a second of it too: the two files hold one run's output (a file per task of one "
                 "job, as srun --output=%t writes them?); check the lowest task's file alone")
    said = f"is logged again, as at line {other_seed.line if other_seed else '?'} (this run): the seed checker fails " \
        "a folder where two seed records come from one source line, even in one run (every rank printing the records? " \
        "keep the logging rank's); log it once" if other is run else f"is also the seed of {where}{run_no}; each run needs its own"
    return SEED_DUPLICATE.at(run.path, seed.line, f"seed {show(seed.value)} {said}{note}", run_index=run.index,
                             official=same_place, severity=None if same_place else Severity.WARNING)


_SAME_MOMENT_MS = 1_000.0
"""How close one run's copies log a record in two files (the ranks' clocks differ by milliseconds)."""


def _copies(run: RunSummary, seed: Event, other: RunSummary, other_seed: Event) -> bool:
    """Whether two files' runs are one run's copies, most likely: their seeds, and their last evals,
    logged within a second of each other (runs of a job array that start together with one seed
    end apart)."""
    last, other_last = run.evaluations[-1:], other.evaluations[-1:]
    return abs(other_seed.time_ms - seed.time_ms) <= _SAME_MOMENT_MS and len(last) == len(other_last) and all(
        abs(a.time_ms - b.time_ms) <= _SAME_MOMENT_MS for a, b in zip(last, other_last))


def _source(seed: Event) -> tuple[object, object]:
    metadata = seed.metadata if isinstance(seed.metadata, Mapping) else {}
    return metadata.get("file"), metadata.get("lineno")


def _reads_as_int(value: object) -> bool:
    """Whether the seed checker's ``int(value)`` succeeds."""
    try:
        int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return False
    return True
