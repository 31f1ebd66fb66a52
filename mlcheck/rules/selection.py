"""Ruleset and benchmark selection (family MLC0xx): which round and which benchmark a run is
judged under.

- MLC011 unknown-benchmark: ``submission_benchmark`` names a benchmark that is not part of the
  round (or the log has none and the folder name is not one either). Benchmark rules (targets,
  hyper-parameters) are skipped for the run. Fix: log the round's benchmark name (for example
  ``resnet``, not ``resnet50``) or pick the right round with ``--ruleset``. The official checker
  fails such a log (``submission_benchmark`` check) or crashes looking for a missing rule file.
- MLC012 ruleset-not-inferred: without ``--ruleset``, mlcheck infers the round from the run date
  (the periods between MLCommons result publications) and then from the path (``training-1.1``,
  ``v2.0``). When neither tells, it uses the newest supported round and says so. Fix: pass
  ``--ruleset X.Y.Z``.
"""

from __future__ import annotations

from mlcheck.model import Severity
from mlcheck.rules.base import Rule

UNKNOWN_BENCHMARK = Rule("MLC011", "unknown-benchmark", Severity.ERROR,
                         "the benchmark is not part of the round", official=True)
RULESET_NOT_INFERRED = Rule("MLC012", "ruleset-not-inferred", Severity.WARNING,
                            "the round could not be inferred from the log; a default was used")

RULES = (UNKNOWN_BENCHMARK, RULESET_NOT_INFERRED)
