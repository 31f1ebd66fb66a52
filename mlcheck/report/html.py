"""The HTML report: one self-contained file (no script, no network), readable in any browser.

A pass/fail banner; per benchmark folder the score card, the runs, eval-accuracy curves with the
target, a strip of run times and the hyper-parameters the runs logged; findings grouped by rule
with the rule's documentation; waived findings; versions and input hashes.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from html import escape
from typing import Any

from mlcheck import __version__
from mlcheck.model import Finding, Severity
from mlcheck.results import NOT_HYPERPARAMETERS, BenchmarkResult, CheckResult, text_length
from mlcheck.report import ReportOptions, relative_path, rule_help
from mlcheck.report.grouped import FindingGroup, context_lines, group_for_display
from mlcheck.report.svg_charts import Mark, Series, accuracy_chart, run_time_strip
from mlcheck.report.html_style import STYLE
from mlcheck.report.html_scores import overview, run_label, score_card, table, td
from mlcheck.report.plain import counted, counted_runs, division_text, format_minutes, run_verdict_text, runs_text, valid_scores_text
from mlcheck.facts.installed import installed_version
from mlcheck.facts.rulesets import RulesetError, load_ruleset

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

HTML_CONTEXT_LINES = 100_000
"""The places and items of a finding the HTML report lists, folded (every one: the text report
shows eight, on a terminal)."""


def _runs_table(bench: BenchmarkResult, min_severity: Severity) -> str:
    counted = counted_runs(bench)
    rows = []
    for position, run in enumerate(bench.runs):
        minutes = run.time_to_train_min if run.converged else run.duration_min
        linked = {f.code for f in run.findings if f.severity >= min_severity}  # (those the findings section shows)
        codes = ", ".join(f'<a href="#{escape(code)}">{escape(code)}</a>' if code in linked else escape(code)
                          for code in sorted({f.code for f in run.findings}))
        verdict = run_verdict_text(run)  # (a tolerated run's fail as a warning)
        rows.append([td(run_label(run)), td(format_minutes(minutes), "num"), td(run.status or "—"),
                     td("yes" if run.converged else "no"), td("yes" if position in counted else "no"),
                     td(verdict, run.verdict if verdict == run.verdict else "sev-warning"),
                     td(run.official_verdict, run.official_verdict), f"<td>{codes}</td>"])
    return table(["run", "minutes", "status", "converged", "counted", "verdict", "official checker",
                   "findings"], rows, "runs")


_PLOTTABLE = 1e300
"""Values of this size or more are not plotted (an axis over them and the rest cannot be drawn)."""


def _curves(bench: BenchmarkResult) -> str:
    runs = [r for r in bench.runs if r.run is not None]
    evals = [e for r in runs if r.run for e in r.run.evaluations]
    axis = ("epoch_num" if evals and all(e.epoch_num is not None for e in evals) else
            "samples_count" if evals and all(e.samples_count is not None for e in evals) else "minutes")
    series, left_out = [], 0
    for result in runs:
        assert result.run is not None
        start = result.run.run_start
        points = []
        for ev in result.run.evaluations:
            if isinstance(ev.value, bool) or not isinstance(ev.value, (int, float)):
                continue
            x = (ev.epoch_num if axis == "epoch_num" else ev.samples_count if axis == "samples_count"
                 else (ev.time_ms - (start.time_ms if start else 0.0)) / 60000.0)
            if x is not None and math.isfinite(float(x)) and math.isfinite(float(ev.value)):
                if max(abs(float(x)), abs(float(ev.value))) < _PLOTTABLE:
                    points.append((float(x), float(ev.value)))
                else:  # (near a float's limit: no axis holds it beside the others)
                    left_out += 1
        series.append(Series(run_label(result), tuple(points), result.converged))
    target, text = _target(bench)
    caption = f'<p class="muted">target: {escape(text)}</p>' if text else ""
    if left_out:
        caption += (f'<p class="muted">{left_out} eval value{"s" if left_out != 1 else ""} of 1e300 or more '
                    "(in size) left out of the chart</p>")
    return caption + accuracy_chart(series, target, axis, "eval_accuracy")


def _target(bench: BenchmarkResult) -> tuple[float | None, str]:
    if bench.ruleset is None or bench.benchmark is None:
        return None, ""
    try:
        facts = load_ruleset(bench.ruleset).facts(bench.benchmark)
    except RulesetError:
        return None, ""
    simple = [c for c in facts.target.conditions if c.field is None and not c.bound]
    return (simple[0].value if len(simple) == 1 else None), facts.target.text


def _times(bench: BenchmarkResult) -> str:
    counted = counted_runs(bench)
    marks = [Mark(run_label(r), r.time_to_train_min if r.converged and r.time_to_train_min is not None
                  else r.duration_min or 0.0, r.converged, i in counted)
             for i, r in enumerate(bench.runs) if r.duration_min is not None]
    return run_time_strip(marks, bench.score.score_min)


def _value_text(value: Any) -> str:
    """A logged value as JSON text (a string as it is)."""
    return json.dumps(value, sort_keys=True) if not isinstance(value, str) else value


def _shown(text: str) -> str:
    """A value's text as the table shows it: at most :data:`_LONGEST_VALUE` characters (the runs'
    values are compared whole: two that differ further on both show, as MLC520 says they differ)."""
    return text if len(text) <= _LONGEST_VALUE else f"{text[:_LONGEST_VALUE]}… ({text_length(text):,} characters)"


_LONGEST_VALUE = 300


def _hyperparameters(bench: BenchmarkResult) -> str:
    values: dict[str, list[str]] = defaultdict(list)
    for result in bench.runs:
        run = result.run
        if run is None:
            continue
        stop_line = run.run_start.line if run.run_start else run.last_line
        seen: set[str] = set()
        for event in run.events:
            if (event.line < stop_line and event.key not in seen and event.key not in NOT_HYPERPARAMETERS
                    and not event.key.startswith("submission_")):
                seen.add(event.key)
                values[event.key].append(_value_text(event.value))
    if not values:
        return '<p class="muted">No hyper-parameters logged before run_start.</p>'
    rows = []
    for key in sorted(values):
        distinct = list(dict.fromkeys(values[key]))  # (in the runs' order: seeds as the runs logged them)
        text = _shown(distinct[0]) if len(distinct) == 1 else f"varies: {', '.join(map(_shown, distinct))}"
        rows.append([f"<td><code>{escape(_shown(key))}</code></td>", td(text), td(f"{len(values[key])}", "num")])
    return table(["key", "value", "runs logging it"], rows, "hyperparameters")


def _benchmark_section(bench: BenchmarkResult, position: int, root: str, min_severity: Severity) -> str:
    title = f"{bench.org or '?'} / {bench.system or '?'} / {bench.benchmark or '?'} ({bench.ruleset or '?'})"
    folder = relative_path(bench.folder or ".", root)
    return (f'<section class="benchmark" id="benchmark-{position}"><h2>{escape(title)}</h2>'
            f'<p class="muted">{escape(division_text(bench))}, training '
            f'{escape(bench.ruleset or "?")}, ' + (f"folder <code>{escape(folder)}</code>" if folder != "-" else
                                                   "read from standard input") + "</p>"
            f"<h3>Score</h3>{score_card(bench)}<h3>Runs</h3>{_runs_table(bench, min_severity)}"
            f"<h3>Convergence</h3>{_curves(bench)}<h3>Run times</h3>{_times(bench)}"
            f"<h3>Hyper-parameters</h3>{_hyperparameters(bench)}</section>")


def _where(found: Finding, root: str) -> str:
    return relative_path(found.path, root) + (f":{found.line}" if found.line is not None else "")


def _with_code(text: str) -> str:
    """Escaped text with `quoted` parts as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text))


def _findings_section(result: CheckResult, options: ReportOptions) -> str:
    groups = group_for_display(result, options.min_severity)
    if not groups:
        return '<section id="findings"><h2>Findings</h2><p>No findings.</p></section>'
    by_rule: dict[tuple[str, str], list[FindingGroup]] = defaultdict(list)
    for group in groups:
        by_rule[(group.first.code, group.first.name)].append(group)
    parts = ['<section id="findings"><h2>Findings by rule</h2>']
    for code, name in sorted(by_rule, key=lambda k: (-max(g.severity for g in by_rule[k]), k)):
        entries = by_rule[(code, name)]
        worst = max(g.severity for g in entries)
        count = sum(len(g.members) for g in entries)
        parts.append(f'<div class="rule" id="{escape(code)}"><h3 class="sev-{worst.label}">{escape(code)} '
                     f"{escape(name)} ({count})</h3><p class=\"muted\">{_with_code(rule_help(code))}</p><ul>")
        for group in entries:
            agrees = " <span class=\"muted\">[official checker agrees]</span>" if group.first.official else ""
            place = group.place(lambda path: relative_path(path, options.root))
            context = context_lines(group, HTML_CONTEXT_LINES)
            details = (f'<details><summary class="muted">{len(context)} more line'
                       f"{'s' if len(context) != 1 else ''}</summary><ul>"
                       + "".join(f"<li><code>{escape(line)}</code></li>" for line in context)
                       + "</ul></details>") if context else ""
            parts.append(f'<li><span class="sev-{group.severity.label}">{group.severity.label}</span> '
                         f"<code>{escape(place)}</code>: {escape(group.message())}{agrees}{details}</li>")
        parts.append("</ul></div>")
    parts.append("</section>")
    return "".join(parts)


def _waived_section(result: CheckResult, root: str) -> str:
    if not result.waived:
        return ""
    rows = [[td(w.finding.code), f"<td><code>{escape(_where(w.finding, root))}</code></td>",
             td(w.finding.message), td(w.reason), td(w.waiver), td(w.expires or "—")]
            for w in result.waived]
    return ('<section id="waived"><h2>Waived findings</h2>'
            + table(["code", "where", "message", "reason", "waiver", "expires"], rows, "waived") + "</section>")


def _footer(result: CheckResult, options: ReportOptions) -> str:
    logging_version = installed_version()
    logging_version = "not installed" if logging_version == "?" else logging_version
    rounds = sorted({r.ruleset for r in result.runs if r.ruleset})
    rows = [[td(relative_path(path, options.root)), f"<td><code>{digest}</code></td>"]
            for path, digest in sorted(options.input_digests.items(),
                                       key=lambda item: relative_path(item[0], options.root))]
    return (f'<footer><h2>Versions and inputs</h2><p>mlcheck {escape(__version__)}, mlperf-logging '
            f"{escape(logging_version)}; rounds judged: {escape(', '.join(rounds) or 'none')}.</p>"
            + (table(["input", "sha256"], rows, "inputs") if rows else "") + "</footer>")


def render_html(result: CheckResult, options: ReportOptions) -> str:
    """The whole report as one HTML document."""
    found = result.all_findings()
    failing = any(f.severity >= options.fail_level for f in found)
    errors, warnings, notes = (sum(1 for f in found if f.severity is level) for level in (Severity.ERROR, Severity.WARNING, Severity.INFO))
    verdict = "fail" if failing else "pass"
    banner = (f'<div class="banner {verdict}" id="verdict">{"FAIL" if failing else "PASS"}: '
              f"{runs_text(result.runs)}, {counted(len(result.benchmarks), 'benchmark folder')} "
              f"({valid_scores_text(result)}), {counted(errors, 'error')}, {counted(warnings, 'warning')}, "
              f"{counted(notes, 'note')}, {len(result.waived)} waived</div>")
    scores = overview(result)
    sections = "".join(_benchmark_section(b, i, options.root, options.min_severity) for i, b in enumerate(result.benchmarks))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>mlcheck report: {verdict}</title><style>{STYLE}</style></head><body>"
            f"<h1>mlcheck report</h1>{banner}<h2>Scores</h2>{scores}{sections}"
            f"{_findings_section(result, options)}{_waived_section(result, options.root)}"
            f"{_footer(result, options)}</body></html>\n")
