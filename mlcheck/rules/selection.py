"""Ruleset and benchmark selection (family MLC0xx): which round and which benchmark a run is
judged under.

- MLC011 unknown-benchmark: ``submission_benchmark`` names a benchmark that is not part of the
  round (or the log has none and the folder name is not one either). Benchmark rules (targets,
  hyper-parameters) are skipped for the run. Fix: log the round's benchmark name (for example
  ``resnet``, not ``resnet50``) or pick the right round with ``--ruleset``. The official checker
  fails such a log (``submission_benchmark`` check) or crashes looking for a missing rule file.
- MLC016 benchmark-not-its-folder: inside a package, a log's ``submission_benchmark`` differs
  from the benchmark folder it is in (``bert`` logged in ``results/<system>/resnet/``). The run is
  judged by the rules of the benchmark it logs, and counted, scored and RCP-tested with its
  folder (as the official package checker does). Fix: move the file to its folder, or correct
  the logged name.
- MLC012 ruleset-not-inferred: without ``--ruleset``, mlcheck infers the round from the run date
  (the periods between MLCommons result publications) and then from the path (``training-1.1``,
  ``v2.0``). When neither tells, it uses the newest supported round and says so (a run dated
  after that round's results were published belongs to a round mlcheck does not know yet, which
  the message says). Fix: pass ``--ruleset X.Y.Z``.
- MLC017 ruleset-contradicts-date: the round forced with ``--ruleset`` (or ``ruleset`` in the
  config, ``MLCHECK_RULESET``) is not the round whose submission period holds the run's date. A
  warning: a resubmitted log or a wrong clock can be the reason, but a log judged under another
  round's rules gets that round's targets, hyper-parameter ranges and run counts. Fix: pass the
  round the log was submitted to, or drop ``--ruleset`` to infer it.
"""

from __future__ import annotations

from mlcheck.model import Severity
from mlcheck.rule import Rule

UNKNOWN_BENCHMARK = Rule("MLC011", "unknown-benchmark", Severity.ERROR,
                         "the benchmark is not part of the round", official=True)
RULESET_NOT_INFERRED = Rule("MLC012", "ruleset-not-inferred", Severity.WARNING,
                            "the round could not be inferred from the log; a default was used")

RULESET_CONTRADICTS_DATE = Rule("MLC017", "ruleset-contradicts-date", Severity.WARNING,
                                "the forced round is not the one of the run's date")

BENCHMARK_NOT_ITS_FOLDER = Rule("MLC016", "benchmark-not-its-folder", Severity.ERROR,
                                "the log names another benchmark than its benchmark folder")

RULES = (UNKNOWN_BENCHMARK, BENCHMARK_NOT_ITS_FOLDER, RULESET_NOT_INFERRED, RULESET_CONTRADICTS_DATE)
