"""``--select`` / ``--ignore``: keep or drop findings by code prefix, after the check.

Both are post-processing of a :class:`~mlcheck.results.CheckResult` (the checker always runs every
rule), so the library and the CLI share them and a rule never looks at the command line.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterable, Sequence

from mlcheck.model import Finding
from mlcheck.results import BenchmarkResult, CheckResult, RunResult

FindingTest = Callable[[Finding], bool]

ALWAYS_SHOWN = frozenset({"MLC041"})
"""A setting that could not be read changes what is checked: it shows whatever ``select`` says."""


def partition_findings(result: CheckResult, keep: FindingTest) -> tuple[CheckResult, tuple[Finding, ...]]:
    """A copy of ``result`` holding only the findings for which ``keep`` is true, and the others.

    Runs, benchmark folders and top-level findings are filtered alike, so run verdicts (derived
    from a run's findings) follow. Scores are left as computed, and what the official tools say
    (a run's ``official_verdict``, a folder's RCP refusal) too: the findings taken out of a run or
    a folder are kept in its ``withheld``.
    """
    removed: list[Finding] = []

    def split(found: Iterable[Finding]) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
        kept: list[Finding] = []
        taken: list[Finding] = []
        for item in found:
            (kept if keep(item) else taken).append(item)
        removed.extend(taken)
        return tuple(kept), tuple(taken)

    def filtered_run(run: RunResult) -> RunResult:
        kept, taken = split(run.findings)
        return dataclasses.replace(run, findings=kept, withheld=run.withheld + taken)

    def filtered_bench(bench: BenchmarkResult) -> BenchmarkResult:
        kept, taken = split(bench.findings)
        return dataclasses.replace(bench, findings=kept, withheld=bench.withheld + taken,
                                   runs=tuple(by_identity.get((r.path, r.index), r) for r in bench.runs))

    runs = tuple(filtered_run(run) for run in result.runs)
    by_identity = {(run.path, run.index): run for run in runs}
    benchmarks = tuple(filtered_bench(bench) for bench in result.benchmarks)
    top = split(result.findings)[0]
    unique = tuple(sorted(set(removed), key=Finding.sort_key))
    return dataclasses.replace(result, runs=runs, benchmarks=benchmarks, findings=top), unique


def normalise_prefixes(prefixes: Iterable[str]) -> tuple[str, ...]:
    """Upper-cased, comma-split, stripped code prefixes (``mlc3, MLC401`` -> ``MLC3``, ``MLC401``);
    a rule's name is its code (``target-not-reached`` -> ``MLC301``, as ``explain`` reads it)."""
    from mlcheck.rules import find_rule

    found: list[str] = []
    for item in prefixes:
        for part in (part.strip() for part in item.split(",") if part.strip()):
            named = find_rule(part) if not part.upper().startswith("MLC") else None
            found.append(named[0].code if named is not None else part.upper() if part.upper().startswith("MLC")
                         else part.lower())  # (an unknown name, as it is written: it matches no code)
    return tuple(dict.fromkeys(found))


def code_matches(code: str, prefixes: Sequence[str]) -> bool:
    """Whether ``code`` starts with one of the (normalised) prefixes."""
    return any(code.upper().startswith(prefix) for prefix in prefixes)


def select_findings(result: CheckResult, select: Sequence[str] = (),
                    ignore: Sequence[str] = ()) -> CheckResult:
    """Keep the findings whose code starts with a ``select`` prefix (all when empty) and with
    no ``ignore`` prefix. ``ignore`` wins over ``select`` for the same code."""
    chosen, dropped = normalise_prefixes(select), normalise_prefixes(ignore)
    if not chosen and not dropped:
        return result

    def keep(found: Finding) -> bool:
        if found.code in ALWAYS_SHOWN:
            return found.code not in dropped  # only dropped when named in full
        if chosen and not code_matches(found.code, chosen):
            return False
        return not code_matches(found.code, dropped)

    kept = partition_findings(result, keep)[0]  # (and the waived ones: an ignored code is not listed as waived)
    return dataclasses.replace(kept, waived=tuple(item for item in kept.waived if keep(item.finding)))
