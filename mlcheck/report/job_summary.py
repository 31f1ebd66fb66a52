"""The Markdown job summary of a GitHub Actions step (``$GITHUB_STEP_SUMMARY``): the verdict and
counts, the results table and the findings per rule. Written by ``mlcheck check`` in the github
format when the variable is set (appended, as GitHub expects several steps to write to it)."""

from __future__ import annotations

import os
from typing import Mapping

from mlcheck.model import Severity
from mlcheck.report import ReportOptions
from mlcheck.report.plain import counted, markdown_cell, runs_text, shown, valid_scores_text
from mlcheck.report.results_table import render_markdown as results_table_markdown
from mlcheck.report.text_findings import rule_counts
from mlcheck.results import CheckResult

SUMMARY_VARIABLE = "GITHUB_STEP_SUMMARY"
RULES_SHOWN = 15


def render_job_summary(result: CheckResult, options: ReportOptions) -> str:
    """The summary as Markdown."""
    found = result.all_findings()
    counts = {level: sum(1 for f in found if f.severity is level) for level in Severity}
    failing = any(f.severity >= options.fail_level for f in found)
    lines = ["## mlcheck", "",
             f"{'❌ **fail**' if failing else '✅ **pass**'}: {runs_text(result.runs)}, "
             f"{counted(len(result.benchmarks), 'benchmark folder')} ({valid_scores_text(result)}), "
             f"{counted(counts[Severity.ERROR], 'error')}, {counted(counts[Severity.WARNING], 'warning')}, "
             f"{counted(counts[Severity.INFO], 'note')}, {len(result.waived)} waived.", ""]
    if result.benchmarks:
        lines += ["### Results (minutes)", "", results_table_markdown(result).rstrip("\n"), ""]
    rows = rule_counts(result, options.min_severity)
    if rows:
        lines += ["### Findings per rule", "", "| rule | severity | findings | folders |", "|---|---|--:|--:|"]
        for row in rows[:RULES_SHOWN]:
            levels = "/".join(level.label for level in row.severities)
            lines.append(f"| `{row.code}` {markdown_cell(row.name)} | {levels} | {row.findings} | {row.folders} |")
        if len(rows) > RULES_SHOWN:
            lines.append(f"| … {len(rows) - RULES_SHOWN} more rules | | | |")
        lines += ["", "<sub>The annotations show where; `mlcheck explain CODE` documents each rule.</sub>", ""]
    return "\n".join(lines) + "\n"


def write_job_summary(result: CheckResult, options: ReportOptions,
                      environ: Mapping[str, str] | None = None) -> str | None:
    """Append the summary to ``$GITHUB_STEP_SUMMARY`` when it is set; the path written, or None."""
    path = (os.environ if environ is None else environ).get(SUMMARY_VARIABLE)
    if not path:
        return None
    with open(path, "a", encoding="utf-8", errors="backslashreplace") as handle:
        handle.write(shown(render_job_summary(result, options)))
    return path
