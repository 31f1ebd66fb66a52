"""A key a rule says is not logged (``gradient_accumulation_steps is not logged; ...``: MLC105,
MLC2xx) whose record is on a line that could not be read, the key named there (MLC003, MLC004,
MLC023: ``(a record of KEY, lost)``): the finding says that line too, so that the record is
mended rather than logged a second time; so does an eval-cadence gap (MLC307) after a lost eval
record. The reading findings follow the checker of record's
parser, which loses such a line; this is wording, every verdict stays."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Sequence

from mlcheck.model import Finding
from mlcheck.results import RunSummary

_LOST = re.compile(r"\(a record of (\S+), lost\)")
_READING = frozenset({"MLC003", "MLC004", "MLC023"})
_EVAL_KEYS = frozenset({"eval_accuracy", "eval_error"})
_CADENCE = "MLC307"


def pointed_to_lost_records(findings: Sequence[Finding], run: RunSummary | None = None) -> Sequence[Finding]:
    """``findings`` with each "KEY is not logged" one naming the first unreadable line of KEY
    within the lines of the run (``run``: the next run's first line may be its own, cut)."""
    lost: dict[str, tuple[int, str]] = {}
    evals: list[tuple[int, str]] = []  # (lost evals: an eval-cadence gap, MLC307, after one says so)
    first, last = (run.first_line, run.last_line) if run is not None else (1, None)
    for found in findings:
        if found.code in _READING and found.line is not None and first <= found.line and (
                last is None or found.line <= last) and (named := _LOST.search(found.message)):
            lost.setdefault(named.group(1), (found.line, found.code))
            evals += [(found.line, found.code)] if named.group(1) in _EVAL_KEYS else []
    if not lost:
        return findings
    gaps: dict[int, tuple[int, str]] = {}  # (id of an MLC307 finding -> the lost eval before it)
    for found in sorted((f for f in findings if f.code == _CADENCE and f.line is not None), key=lambda f: f.line or 0):
        before = [item for item in evals if item[0] < (found.line or 0)]
        if before:
            gaps[id(found)] = before[-1]
            evals.remove(before[-1])
    out = []
    for found in findings:
        key = found.message.split(" ", 1)[0]
        if key in lost and found.message.startswith(f"{key} is not logged"):
            line, code = lost[key]
            found = replace(found, message=f"{found.message}; line {line} holds a record of it that cannot be "
                                           f"read ({code})")
        elif id(found) in gaps:
            line, code = gaps[id(found)]
            found = replace(found, message=f"{found.message}; the eval record at line {line} before it could not "
                                           f"be read ({code})")
        out.append(found)
    return out
