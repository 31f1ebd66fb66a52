"""What ``--jobs`` loads in the parent before it forks its workers (split from :mod:`mlcheck.checker`)."""

from __future__ import annotations

import os
from typing import Sequence

from mlcheck.facts.constraints import load_constraints
from mlcheck.facts.rulesets import load_ruleset, ruleset_from_path
from mlcheck.package.discover import LogRef
from mlcheck.records import compile_pending
from mlcheck.rules.weight_init import expected_tensors


def warm_caches(refs: Sequence[LogRef]) -> None:
    """Load in the parent, before ``--jobs`` forks its workers, what each worker would otherwise
    load again on its first log (the lazily imported modules, the rulesets the paths name, their
    constraints, the official tensor lists, dataclasses' ``__init__``): the workers inherit it.
    Only caches are filled: what is checked does not change."""
    from mlcheck.read import runs  # noqa: F401 - imported by check_log on its first call
    from mlperf_logging import benchmark_meta  # noqa: F401 - read by every ruleset

    folders = {os.path.dirname(os.path.dirname(ref.path)) for ref in refs if ref.path != "-"}
    versions = {found.version for found in map(ruleset_from_path, sorted(folders)) if found is not None}
    for version in sorted(versions):
        load_ruleset(version)
        for bench in load_constraints(version).benchmarks.values():
            if bench.weight_init is not None:
                expected_tensors(bench.weight_init.tensors_from, bench.weight_init.record_adds)
    compile_pending()  # (mlcheck.records: else each worker compiles them on its first instances)
