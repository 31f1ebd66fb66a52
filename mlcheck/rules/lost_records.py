"""A key a rule says is not logged (``gradient_accumulation_steps is not logged; ...``: MLC105,
MLC2xx) whose record is on a line that could not be read, the key named there (MLC003, MLC004,
MLC023: ``(a record of KEY, lost)``): the finding says that line too, so that the record is
mended rather than logged a second time. The reading findings follow the checker of record's
parser, which loses such a line; this is wording, every verdict stays."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Sequence

from mlcheck.model import Finding
from mlcheck.results import RunSummary

_LOST = re.compile(r"\(a record of (\S+), lost\)")
_READING = frozenset({"MLC003", "MLC004", "MLC023"})


def pointed_to_lost_records(findings: Sequence[Finding], run: RunSummary | None = None) -> Sequence[Finding]:
    """``findings`` with each "KEY is not logged" one naming the first unreadable line of KEY
    within the lines of the run (``run``: the next run's first line may be its own, cut)."""
    lost: dict[str, tuple[int, str]] = {}
    first, last = (run.first_line, run.last_line) if run is not None else (1, None)
    for found in findings:
        if found.code in _READING and found.line is not None and first <= found.line and (
                last is None or found.line <= last) and (named := _LOST.search(found.message)):
            lost.setdefault(named.group(1), (found.line, found.code))
    if not lost:
        return findings
    out = []
    for found in findings:
        key = found.message.split(" ", 1)[0]
        if key in lost and found.message.startswith(f"{key} is not logged"):
            line, code = lost[key]
            found = replace(found, message=f"{found.message}; line {line} holds a record of it that cannot be "
                                           f"read ({code})")
        out.append(found)
    return out
