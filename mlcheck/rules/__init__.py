"""The static registry of rule modules. Codes are stable and never reused."""

from __future__ import annotations

from types import ModuleType
from typing import Callable, Iterable

from mlcheck.model import Finding
from mlcheck.rules import convergence, internal, package, reading, run_boundaries, selection, timing
from mlcheck.rules.base import Rule, RunContext

RunCheck = Callable[[RunContext], Iterable[Finding]]

#: Every module that documents rules, in code order.
RULE_MODULES: tuple[ModuleType, ...] = (internal, reading, selection, run_boundaries, convergence,
                                        timing, package)

#: The checks that look at one run.
RUN_CHECKS: tuple[tuple[str, RunCheck], ...] = (
    ("run_boundaries", run_boundaries.check),
    ("convergence", convergence.check),
    ("timing", timing.check),
)


def all_rules() -> tuple[Rule, ...]:
    """Every rule, sorted by code."""
    rules = [rule for module in RULE_MODULES for rule in module.RULES]
    return tuple(sorted(rules, key=lambda r: r.code))


def find_rule(code_or_name: str) -> tuple[Rule, ModuleType] | None:
    """The rule with this code (``MLC301``, case-insensitive) or name, and its module."""
    wanted = code_or_name.strip().lower()
    for module in RULE_MODULES:
        for rule in module.RULES:
            if wanted in (rule.code.lower(), rule.name):
                return rule, module
    return None
