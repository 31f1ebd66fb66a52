"""One finding per rule and run: what a rule reports several times about one run (one file, one
folder) becomes one finding that lists what it covers.

The rules that often meet many problems of one kind in a run say so themselves in one finding
("17 required keys are not logged: ..."); this stage is the net under the others, so that no
report shows a rule's lines by the dozen for one run. Findings are merged only when they agree in
everything a verdict reads (code, place, run, severity, ``official``): the verdicts of the runs,
their official verdicts and the exit code do not change.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from mlcheck.model import MAX_ITEMS, Finding
from mlcheck.results import BenchmarkResult, CheckResult, RunResult

_LINES_SHOWN = 5

GroupKey = tuple[str, str, "int | None", int, bool]


def group_findings(found: Iterable[Finding]) -> tuple[Finding, ...]:
    """The findings with each (rule, place, run, severity, official) once, sorted."""
    buckets: dict[GroupKey, list[Finding]] = {}
    for item in found:
        key = (item.code, item.path, item.run_index, int(item.severity), item.official)
        buckets.setdefault(key, []).append(item)
    merged = [members[0] if len(members) == 1 else merge(members) for members in buckets.values()]
    return tuple(sorted(merged, key=Finding.sort_key))


def merge(members: list[Finding]) -> Finding:
    """One finding for several findings of one rule about one run: the first one's message with
    the number of the others and their lines; every message kept as an item (once: a hundred
    records cut on one line are a hundred findings and one item). The count of findings past the
    reading cap comes after the findings it follows, never first."""
    ordered = sorted(members, key=lambda m: (_is_cap_count(m), m.sort_key()))
    first = ordered[0]
    if len(ordered) == 1:
        return first
    items: dict[str, None] = {}
    caps: list[str] = []  # (listed whatever the cap on items: they say how many are not)
    count = 0
    for member in ordered:
        if member.items:
            items.update(dict.fromkeys(member.items))
            count += max(member.item_count, len(member.items))
        else:  # (one finding, or the count of findings past the reading cap: item_count of them)
            text = member.message if member.line is None else f"line {member.line}: {member.message}"
            if _is_cap_count(member):
                caps.append(text)
            else:
                items[text] = None
            count += max(member.item_count, 1)
    lines = sorted({m.line for m in ordered[1:] if m.line is not None})
    where = ""
    if lines:
        shown = ", ".join(str(n) for n in lines[:_LINES_SHOWN]) + (", ..." if len(lines) > _LINES_SHOWN else "")
        where = f", at line{'s' if len(lines) > 1 else ''} {shown}"
    others = sum(_findings_in(member) for member in ordered[1:])
    message = f"{first.message} (and {others:,} more of this rule here{where})"
    listed = list(items)[:max(MAX_ITEMS - len(caps), 0)] + caps[:MAX_ITEMS]
    return replace(first, message=message, items=tuple(listed), item_count=count)


def _is_cap_count(member: Finding) -> bool:
    """A finding that stands for the findings past the reading cap (their count, no items)."""
    return not member.items and member.item_count > 1


def _findings_in(member: Finding) -> int:
    """1, or for a count of findings past the reading cap (no items), how many it stands for."""
    return 1 if member.items else max(member.item_count, 1)


def group_result(result: CheckResult) -> CheckResult:
    """The result with :func:`group_findings` applied to every run, folder and the top level."""
    regrouped: dict[tuple[str, int], RunResult] = {}

    def run_of(run: RunResult) -> RunResult:
        key = (run.path, run.index)
        if key not in regrouped:
            findings = group_findings(run.findings)
            regrouped[key] = run if findings == run.findings else replace(run, findings=findings)
        return regrouped[key]

    def bench_of(bench: BenchmarkResult) -> BenchmarkResult:
        return replace(bench, runs=tuple(run_of(r) for r in bench.runs),
                       findings=group_findings(bench.findings))

    benchmarks = tuple(bench_of(b) for b in result.benchmarks)
    return replace(result, runs=tuple(run_of(r) for r in result.runs), benchmarks=benchmarks,
                   findings=group_findings(result.findings))
