"""The static registry of rule modules. Codes are stable and never reused."""

from __future__ import annotations

from types import ModuleType
from typing import Callable, Iterable

from mlcheck.model import Finding
from mlcheck.read import concurrent_jobs, raw_output_rules as raw_output
from mlcheck.read import reading_rules as reading
from mlcheck.rules import convergence, eval_cadence, internal, package, run_boundaries
from mlcheck.rules import selection, timing
from mlcheck.rules import config_rules
from mlcheck.rules import hyperparameters, release_drift, required_keys, weight_init
from mlcheck.rules import checker_params, package_layout, package_runs, package_system, power, rcp_check
from mlcheck.rules import power_plausibility
from mlcheck.rules import seed_reading, seeds, system_logs, system_status
from mlcheck.rule import Rule, RunContext

RunCheck = Callable[[RunContext], Iterable[Finding]]

#: Every module that documents rules, in code order.
RULE_MODULES: tuple[ModuleType, ...] = (internal, reading, raw_output, concurrent_jobs, selection, config_rules,
                                        run_boundaries, required_keys, release_drift,
                                        hyperparameters, weight_init,
                                        convergence, eval_cadence, timing, package, package_layout,
                                        package_system, system_status, system_logs, package_runs, seeds, seed_reading,
                                        rcp_check, power, power_plausibility, checker_params)

#: The checks that look at one run.
RUN_CHECKS: tuple[tuple[str, RunCheck], ...] = (
    ("run_boundaries", run_boundaries.check),
    ("required_keys", required_keys.check),
    ("release_drift", release_drift.check),
    ("hyperparameters", hyperparameters.check),
    ("weight_init", weight_init.check),
    ("convergence", convergence.check),
    ("eval_cadence", eval_cadence.check),
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
