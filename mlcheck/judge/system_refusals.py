"""Which benchmark folders' scores a refused system description makes not valid.

The round's package checker reads every ``systems/*.json`` of a package (used by a results folder or
not) with its system description checker, and fails the whole package when one is refused; the
result summarizer stops on a description it cannot read or that lacks a field it publishes, and
writes no results for the package. So a refused description (MLC510, MLC511, MLC512, MLC515
errors) makes every score of its package not valid: its own system's, and the others' (said so).
"""

from __future__ import annotations

import os
from typing import Iterable

from mlcheck.model import Finding, Severity

SYSTEM_REFUSED = frozenset({"MLC510", "MLC511", "MLC512", "MLC515"})
"""The system-description rules whose errors the round's package checker or summarizer refuse."""


class SystemRefusals:
    """The refused system descriptions of the checked packages, by path and by package."""

    def __init__(self, findings: Iterable[Finding]) -> None:
        self.by_path: dict[str, set[str]] = {}
        for found in findings:
            if found.severity is Severity.ERROR and found.code in SYSTEM_REFUSED:
                self.by_path.setdefault(os.path.abspath(found.path), set()).add(found.code)
        self.by_package: dict[str, str] = {}  # (the package's first refused description, by path order)
        for path in sorted(self.by_path):
            folder = os.path.dirname(path)
            if os.path.basename(folder) == "systems":
                self.by_package.setdefault(os.path.dirname(folder), path)

    def reason(self, system_path: str, package: str) -> str | None:
        """Why a benchmark folder of the system described at ``system_path``, in ``package``, has
        no valid score; None when no description of its package is refused."""
        codes = sorted(self.by_path.get(os.path.abspath(system_path), ()))
        if codes:
            return f"its system description {system_path} is {_state(system_path)} ({', '.join(codes)})"
        other = self.by_package.get(os.path.abspath(package))
        if other is None:
            return None
        shown = os.path.join(package, "systems", os.path.basename(other))
        return (f"the package checker refuses its package: the system description {shown} is {_state(other)} "
                f"({', '.join(sorted(self.by_path[other]))}), and the result summarizer publishes nothing of it")


def _state(path: str) -> str:
    return "refused" if os.path.lexists(path) else "missing"
