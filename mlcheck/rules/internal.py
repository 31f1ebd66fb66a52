"""mlcheck itself (family MLC0xx).

- MLC000 rule-crashed: a rule raised an unexpected exception on this input. The other rules still
  ran and their findings stand; the run's verdict is incomplete. Please report it with the log.
"""

from __future__ import annotations

from mlcheck.model import Severity
from mlcheck.rules.base import Rule

RULE_CRASHED = Rule("MLC000", "rule-crashed", Severity.ERROR,
                    "a rule failed on this input; the other rules still ran")

RULES = (RULE_CRASHED,)
