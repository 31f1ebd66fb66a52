"""mlcheck itself (family MLC0xx): a bug of mlcheck met on one input, reported as a finding so that
the other logs and rules go on. No official tool or rules text is involved.

- MLC000 rule-crashed: a rule raised an unexpected exception on this input. The other rules still
  ran and their findings stand; the run's verdict is incomplete. Please report it with the log.
"""

from __future__ import annotations

from mlcheck.model import Finding, Severity
from mlcheck.rule import Rule

RULE_CRASHED = Rule("MLC000", "rule-crashed", Severity.ERROR,
                    "a rule failed on this input; the other rules still ran")

RULES = (RULE_CRASHED,)


def crash_finding(stage: str, path: str, error: Exception, run_index: int | None = None) -> Finding:
    """The MLC000 finding for a rule (or a stage of rules) that raised on this input."""
    return RULE_CRASHED.at(path, None, f"{stage} failed: {type(error).__name__}: {error}; the other "
                           "checks still ran. Please report it with the input", run_index=run_index)
