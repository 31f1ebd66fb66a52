"""Markdown for a pull request or ``$GITHUB_STEP_SUMMARY``: the verdict, a score card per
benchmark folder, the failing rules with where they fail, and the waived findings."""

from __future__ import annotations

from collections import defaultdict

from mlcheck.model import Finding, Severity
from mlcheck.results import BenchmarkResult, CheckResult
from mlcheck.report import ReportOptions, relative_path
from mlcheck.report.grouped import FindingGroup, context_lines, group_for_display
from mlcheck.report.plain import (counted, counted_runs, dropped_runs, failing_runs_text, format_minutes, kilojoules_text, markdown_cell,
                                  markdown_code, rcp_refusal, runs_text, valid_scores_text)
from mlcheck.rules.rcp_texts import raising_note, today_scaled_text

_ICON = {Severity.ERROR: "❌", Severity.WARNING: "⚠️", Severity.INFO: "ℹ️"}
MAX_PLACES = 10
MAX_NOTES = 50


def _place(group: FindingGroup, root: str) -> str:
    return markdown_code(group.place(lambda path: relative_path(path, root)))


def _where(found: Finding, root: str) -> str:
    return markdown_code(f"{relative_path(found.path, root)}{':' + str(found.line) if found.line else ''}", in_table=True)


def _rcp(bench: BenchmarkResult) -> str:
    rcp = bench.rcp
    if rcp is None:
        return "—"
    margin = f" ({rcp.margin_pct:+.2f} %)" if rcp.margin_pct is not None else ""
    today = ""
    if rcp.today is not None and rcp.today.verdict != rcp.verdict:
        shown = f" ({rcp.today.margin_pct:+.2f} %)" if rcp.today.margin_pct is not None else ""
        today = f"; today's mlperf-logging: {rcp.today.verdict}{shown}"
    elif (scaled := today_scaled_text(rcp, bench.score)) is not None:
        today = f"; {scaled}"
    return markdown_cell(rcp.verdict + margin + raising_note(bench) + today)


def _score_card(result: CheckResult, root: str) -> list[str]:
    several = len({bench.org for bench in result.benchmarks}) > 1  # (a round: whose system is it)
    energy = any(bench.energy is not None for bench in result.benchmarks)  # (as the HTML table)
    lines = [("| submitter " if several else "") + "| benchmark | system | division | round | score (min) | valid | "
             "runs counted | runs dropped | failing runs | RCP |" + (" energy (kJ) |" if energy else ""),
             ("|---" if several else "") + "|---|---|---|---|--:|---|--:|--:|--:|---|" + ("--:|" if energy else "")]
    for bench in result.benchmarks:
        score = bench.score
        valid = "✅ " + markdown_cell(score.reason) if score.valid else "❌ " + markdown_cell(score.reason)
        valid = valid if bench.published else "➖ " + markdown_cell(score.reason)  # (MLC508's: read by no tool)
        if score.valid and (refusal := rcp_refusal(bench)) is not None:  # (scored, but refused: its RCP test)
            valid = f"⚠️ {markdown_cell(score.reason)}; but {refusal.code}: the RCP test refuses it"
        submitter = f"| {markdown_cell(bench.org or '?')} " if several else ""
        lines.append(f"{submitter}| {markdown_cell(bench.benchmark or '?')} | {markdown_cell(bench.system or '?')} | "
                     f"{markdown_cell(bench.division or '?')} | {markdown_cell(bench.ruleset or '?')} | "
                     f"{format_minutes(score.score_min)} | {valid} | {len(counted_runs(bench))} | "
                     f"{len(dropped_runs(bench))} | {failing_runs_text(bench.runs)} | {_rcp(bench)} |"
                     + (f" {_kilojoules(bench)} |" if energy else ""))
    return lines


def _kilojoules(bench: BenchmarkResult) -> str:
    return kilojoules_text(bench.energy.joules if bench.energy is not None else None)


def render_markdown(result: CheckResult, options: ReportOptions) -> str:
    """The Markdown summary."""
    found = result.all_findings()
    failing = [f for f in found if f.severity >= options.fail_level]
    counts = {level: sum(1 for f in found if f.severity is level) for level in Severity}
    verdict = "❌ **mlcheck: fail**" if failing else "✅ **mlcheck: pass**"
    lines = ["## mlcheck report", "",
             f"{verdict}: {runs_text(result.runs)}, "
             f"{counted(len(result.benchmarks), 'benchmark folder')} ({valid_scores_text(result)}), "
             f"{counted(counts[Severity.ERROR], 'error')}, {counted(counts[Severity.WARNING], 'warning')}, "
             f"{counted(counts[Severity.INFO], 'note')}, {len(result.waived)} waived.", ""]
    if result.benchmarks:
        lines += ["### Scores", ""] + _score_card(result, options.root) + [""]
    groups = group_for_display(result, options.min_severity)
    shown = [g for g in groups if g.severity >= Severity.WARNING]
    if shown:
        lines += ["### Findings by rule", ""]
        by_rule: dict[tuple[str, str], list[FindingGroup]] = defaultdict(list)
        for group in shown:
            by_rule[(group.first.code, group.first.name)].append(group)
        order = sorted(by_rule, key=lambda k: (-max(g.severity for g in by_rule[k]), k))
        for code, name in order:
            entries = by_rule[(code, name)]
            worst = max(g.severity for g in entries)
            levels = sorted({g.severity for g in entries}, reverse=True)  # (a rule may report several)
            counts_text = ", ".join(f"{sum(len(g.members) for g in entries if g.severity is level)} × {level.label}"
                                    for level in levels)
            lines.append(f"- {_ICON[worst]} **{code} {name}** ({counts_text}):")
            for group in entries[:MAX_PLACES]:
                level = f"{group.severity.label}: " if len(levels) > 1 else ""  # (each place's own, where they differ)
                agrees = " *(official checker agrees)*" if group.first.official else ""  # (as the text report says it)
                lines.append(f"  - {level}{_place(group, options.root)}: {markdown_cell(group.message())}{agrees}")
                if len(group.members) > 1:  # (where in each run: file and line, as the text report)
                    lines.extend(f"    - {markdown_cell(line.removeprefix('- '))}" for line in context_lines(group))
            if len(entries) > MAX_PLACES:
                lines.append(f"  - … and {len(entries) - MAX_PLACES} more (the text and JSON reports list each)")
        lines.append("")
    notes = [g for g in groups if g.severity is Severity.INFO]
    if notes:  # folded: a pull-request comment stays short, nothing is hidden from the reader
        count = sum(len(g.members) for g in notes)
        per_rule: dict[str, int] = defaultdict(int)
        for group in notes:
            per_rule[f"{group.first.code} {group.first.name}"] += len(group.members)
        rules = ", ".join(f"{n} × {rule}" for rule, n in sorted(per_rule.items(), key=lambda item: (item[1], item[0])))
        lines += [f"<details><summary>{count} note{'s' if count != 1 else ''} ({rules})</summary>", ""]
        # the rarer rules first (MLC020, said of every raw log, last), each rule's places in path order
        notes.sort(key=lambda g: (per_rule[f"{g.first.code} {g.first.name}"], g.first.code))
        for group in notes[:MAX_NOTES]:
            lines.append(f"- {_place(group, options.root)} **{group.first.code} {group.first.name}**: "
                         f"{markdown_cell(group.message())}")
            if not group.same_text:  # (each run's own numbers and file, as the text report lists them)
                lines.extend(f"  - {markdown_cell(line.removeprefix('- '))}" for line in context_lines(group))
        if len(notes) > MAX_NOTES:
            lines.append(f"- … and {len(notes) - MAX_NOTES} more (the text and JSON reports list each)")
        lines += ["", "</details>", ""]
    if result.waived:
        lines += ["### Waived", "", "| code | where | reason | waiver | expires |", "|---|---|---|---|---|"]
        for waived in result.waived:
            lines.append(f"| {waived.finding.code} | {_where(waived.finding, options.root)} | "
                         f"{markdown_cell(waived.reason)} | {markdown_code(waived.waiver, in_table=True)} | {waived.expires or '—'} |")
        lines.append("")
    lines.append("<sub>`mlcheck explain CODE` documents every rule.</sub>")
    return "\n".join(lines) + "\n"
