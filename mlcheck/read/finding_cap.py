"""How many reading findings of one code a file lists (split from :mod:`mlcheck.read.runs`)."""

from __future__ import annotations

import dataclasses

from mlcheck.model import Finding
from mlcheck.records import dataclass


MAX_FINDINGS_PER_CODE = 100
"""Reading findings of one code listed per file; the rest are counted in one summary finding (a
line of 100,000 broken records gives 101 findings, not 100,000: memory and reports stay bounded)."""


@dataclass
class _Capped:
    listed: int = 0
    skipped: int = 0
    first: Finding | None = None
    last: Finding | None = None


class FindingCap:
    """Counts the reading findings of each code past :data:`MAX_FINDINGS_PER_CODE`."""

    def __init__(self) -> None:
        self.codes: dict[str, _Capped] = {}

    def keep(self, found: Finding) -> bool:
        """Whether ``found`` is listed; past the cap it is only counted."""
        entry = self.codes.setdefault(found.code, _Capped())
        if entry.listed < MAX_FINDINGS_PER_CODE:
            entry.listed += 1
            return True
        entry.skipped += 1
        entry.first = entry.first or found
        entry.last = found
        return False

    def summaries(self) -> list[Finding]:
        """One finding per capped code: how many more, and between which lines."""
        out = []
        for entry in self.codes.values():
            if entry.first is None or entry.last is None:
                continue
            first, last = entry.first.line, entry.last.line
            lines = "" if not first else f" (line {first})" if first == last else f" (lines {first} to {last})"
            out.append(dataclasses.replace(entry.first, message=(
                f"{entry.skipped:,} more {entry.first.code} findings in this file{lines} are counted, not "
                f"listed (only the first {MAX_FINDINGS_PER_CODE} are); the first of them: {entry.first.message}"),
                items=(), item_count=entry.skipped))  # (the number the merged finding adds up: Finding)
        return out
