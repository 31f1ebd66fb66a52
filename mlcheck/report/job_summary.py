"""The Markdown job summary of a GitHub Actions step (``$GITHUB_STEP_SUMMARY``): the verdict and
counts, the results table and the findings per rule. Written by ``mlcheck check`` in the github
format when the variable is set (appended, as GitHub expects several steps to write to it)."""

from __future__ import annotations

import os
from collections import Counter
from typing import Mapping

from mlcheck.model import Severity
from mlcheck.report import ReportOptions
from mlcheck.report.plain import counted, markdown_cell, runs_text, shown, valid_scores_text
from mlcheck.report.results_table import render_markdown as results_table_markdown
from mlcheck.report.text_findings import rule_counts
from mlcheck.results import CheckResult

SUMMARY_VARIABLE = "GITHUB_STEP_SUMMARY"
RULES_SHOWN = 15
"""Rules listed beside those that fail the check (which are all listed, first)."""
ANNOTATIONS_SHOWN = 10
"""GitHub shows this many annotations of each kind (error, warning, notice) per step."""
SUMMARY_BYTES = 1_000_000
"""GitHub drops a step summary over 1 MiB whole: the results table is cut to keep under this."""


def render_job_summary(result: CheckResult, options: ReportOptions, hidden: str | None = None) -> str:
    """The summary as Markdown."""
    found = result.all_findings()
    counts = {level: sum(1 for f in found if f.severity is level) for level in Severity}
    failing = any(f.severity >= options.fail_level for f in found)
    lines = ["## mlcheck", "",
             f"{'❌ **fail**' if failing else '✅ **pass**'}: {runs_text(result.runs)}, "
             f"{counted(len(result.benchmarks), 'benchmark folder')} ({valid_scores_text(result)}), "
             f"{counted(counts[Severity.ERROR], 'error')}, {counted(counts[Severity.WARNING], 'warning')}, "
             f"{counted(counts[Severity.INFO], 'note')}, {len(result.waived)} waived.", ""]
    rows = rule_counts(result, options.min_severity)
    tail: list[str] = []
    if rows:
        failing_rows = [row for row in rows if row.severities[0] >= options.fail_level]  # (never cut: they fail the job)
        shown_rows = failing_rows + [row for row in rows if row not in failing_rows][:RULES_SHOWN]
        tail += ["### Findings per rule", "", "| rule | severity | findings | folders |", "|---|---|--:|--:|"]
        for row in shown_rows:
            levels = "/".join(level.label for level in row.severities)
            tail.append(f"| `{row.code}` {markdown_cell(row.name)} | {levels} | {row.findings} | {row.folders} |")
        if len(rows) > len(shown_rows):
            tail.append(f"| … {len(rows) - len(shown_rows)} more rules | | | |")
        tail += ["", "<sub>The annotations show where; `mlcheck explain CODE` documents each rule.</sub>", ""]
        if hidden is None:  # (the caller's, where it counted them already: one grouping of the findings)
            hidden = annotations_not_shown(result, options.min_severity)
        if hidden:
            tail += [f"<sub>GitHub shows {ANNOTATIONS_SHOWN} annotations of each kind per step: {hidden} (one per group "
                     "of like findings) are not shown there; the step's log lists them all, as does a SARIF report where "
                     "one is written.</sub>", ""]
    if result.benchmarks:
        budget = SUMMARY_BYTES - len("\n".join(lines + tail).encode("utf-8", "backslashreplace")) - 200
        lines += ["### Results (minutes)", "", _within(results_table_markdown(result).rstrip("\n"), budget), ""]
    return "\n".join(lines + tail) + "\n"


def annotations_not_shown(result: CheckResult, min_severity: Severity) -> str:
    """``3 of 13 error annotations, 208 of 218 warning annotations``: the annotations of a kind beyond what
    GitHub shows per step ('' when none is), as :func:`mlcheck.report.github.render_github` writes one per
    group of like findings (so fewer than the findings the summary line counts)."""
    from mlcheck.report.grouped import group_for_display

    kinds = Counter(group.severity for group in group_for_display(result, min_severity))
    kind = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}  # (the commands' names)
    return ", ".join(f"{count - ANNOTATIONS_SHOWN} of {counted(count, kind[level] + ' annotation')}" for level, count in
                     sorted(kinds.items(), reverse=True) if count > ANNOTATIONS_SHOWN)


def _within(table: str, budget: int) -> str:
    """The Markdown table cut after the rows that fit in ``budget`` bytes (its header always)."""
    if len(table.encode("utf-8", "backslashreplace")) <= budget:
        return table
    rows, used = table.split("\n"), 0
    kept = rows[:2]
    for row in rows[2:]:
        used += len(row.encode("utf-8", "backslashreplace")) + 1
        if used > budget - 300:
            break
        kept.append(row)
    more = len(rows) - len(kept)
    return "\n".join(kept) + f"\n\n… {more} more row{'s' if more != 1 else ''} (GitHub keeps a step summary under 1 MiB): " \
        "`mlcheck score -t markdown` prints the whole table"


def write_job_summary(result: CheckResult, options: ReportOptions,
                      environ: Mapping[str, str] | None = None, hidden: str | None = None) -> str | None:
    """Append the summary to ``$GITHUB_STEP_SUMMARY`` when it is set; the path written, or None
    (``hidden``: :func:`annotations_not_shown`, where the caller has it)."""
    path = (os.environ if environ is None else environ).get(SUMMARY_VARIABLE)
    if not path:
        return None
    with open(path, "a", encoding="utf-8", errors="backslashreplace") as handle:
        handle.write(shown(render_job_summary(result, options, hidden)))
    return path
