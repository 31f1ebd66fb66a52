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
from mlcheck.results import NOT_HYPERPARAMETERS, BenchmarkResult, CheckResult, RunResult
from mlcheck.report import ReportOptions, relative_path, rule_help
from mlcheck.report.grouped import FindingGroup, context_lines, group_for_display
from mlcheck.report.svg_charts import Mark, Series, accuracy_chart, run_time_strip
from mlcheck.report.html_style import STYLE
from mlcheck.report.plain import counted, division_text, format_minutes
from mlcheck.rules.rcp_check import today_scaled_text
from mlcheck.facts.installed import installed_version
from mlcheck.facts.rulesets import RulesetError, load_ruleset

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


def _table(headers: list[str], rows: list[list[str]], css_class: str) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(cells) + "</tr>" for cells in rows)
    return f'<table class="{css_class}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _td(text: str, css: str = "") -> str:
    return f'<td class="{css}">{escape(text)}</td>' if css else f"<td>{escape(text)}</td>"


def _run_label(run: RunResult) -> str:
    name = run.path.replace("\\", "/").rsplit("/", 1)[-1]
    return name if run.index == 0 else f"{name} #{run.index}"


def _dropped_reason(bench: BenchmarkResult, position: int) -> str:
    run = bench.runs[position]
    if not run.converged:
        return "not converged (counted as slowest)"
    kept = [bench.runs[i].time_to_train_min for i in bench.score.runs_counted]
    fastest = min((t for t in kept if t is not None), default=None)
    if fastest is not None and run.time_to_train_min is not None and run.time_to_train_min <= fastest:
        return "fastest"
    return "slowest"


def _score_card(bench: BenchmarkResult) -> str:
    score = bench.score
    rows = [["score", f"{format_minutes(score.score_min)} min"],
            ["valid", ("yes: " if score.valid else "NO: ") + score.reason],
            ["runs counted", ", ".join(_run_label(bench.runs[i]) for i in score.runs_counted) or "none"],
            ["runs dropped", "; ".join(f"{_run_label(bench.runs[i])} ({_dropped_reason(bench, i)})"
                                       for i in score.runs_dropped) or "none"]]
    if score.scaling_factor is not None:
        rows.append(["scaled",  # (by a scaling.json, or by the RCP normalisation where none is written)
                     f"× {score.scaling_factor:g} (unscaled {format_minutes(score.unscaled_min)} min)"])
    rows.extend(_rcp_rows(bench))
    if bench.energy is not None:
        from mlcheck.rules.power_text import format_energy

        energy = bench.energy
        shown = format_energy(energy.joules) if energy.joules is not None else "no score"
        rows.append(["energy", f"{shown} ({'valid' if energy.valid else 'not valid'}: {energy.reason})"])
    body = "".join(f"<tr><th>{escape(k)}</th>{_td(v, 'pass' if k == 'valid' and score.valid else '')}</tr>"
                   for k, v in rows)
    return f'<table class="score-card">{body}</table>'


def _rcp_rows(bench: BenchmarkResult) -> list[list[str]]:
    rcp = bench.rcp
    if rcp is None:
        return [["RCP test", "not run"]]
    rows = [["RCP test", f"{rcp.verdict}: {rcp.reason}"]]
    numbers = [("reference mean", rcp.reference_mean), ("minimum acceptable mean", rcp.min_acceptable_mean),
               ("submission mean", rcp.submission_mean)]
    shown = [f"{label} {value:,.0f} {rcp.unit}" if abs(value) >= 1000 else f"{label} {value:.4g} {rcp.unit}"
             for label, value in numbers if value is not None]
    if rcp.margin_pct is not None:
        shown.append(f"margin {rcp.margin_pct:+.2f} %")
    if rcp.normalization_factor is not None:
        shown.append(f"normalisation factor {rcp.normalization_factor:.4f}")
    if shown:
        batch = f" (batch size {rcp.batch_size})" if rcp.batch_size else ""
        rows.append(["RCP numbers", "; ".join(shown) + batch])
    if rcp.today is not None and rcp.today.verdict != rcp.verdict:
        margin = f" (margin {rcp.today.margin_pct:+.2f} %)" if rcp.today.margin_pct is not None else ""
        rows.append(["RCP today", f"today's mlperf-logging: {rcp.today.verdict}{margin}: {rcp.today.reason}; "
                     "the verdict of record above is the one that counts"])
    elif (scaled := today_scaled_text(rcp, bench.score)) is not None:
        rows.append(["RCP today", f"{scaled}; the normalisation of record above is the one that counts"])
    return rows


def _runs_table(bench: BenchmarkResult) -> str:
    counted = set(bench.score.runs_counted)
    rows = []
    for position, run in enumerate(bench.runs):
        minutes = run.time_to_train_min if run.converged else run.duration_min
        codes = ", ".join(sorted({f.code for f in run.findings}))
        rows.append([_td(_run_label(run)), _td(format_minutes(minutes), "num"), _td(run.status or "—"),
                     _td("yes" if run.converged else "no"), _td("yes" if position in counted else "no"),
                     _td(run.verdict, run.verdict), _td(run.official_verdict, run.official_verdict), _td(codes)])
    return _table(["run", "minutes", "status", "converged", "counted", "verdict", "official checker",
                   "findings"], rows, "runs")


def _curves(bench: BenchmarkResult) -> str:
    runs = [r for r in bench.runs if r.run is not None]
    evals = [e for r in runs if r.run for e in r.run.evaluations]
    axis = ("epoch_num" if evals and all(e.epoch_num is not None for e in evals) else
            "samples_count" if evals and all(e.samples_count is not None for e in evals) else "minutes")
    series = []
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
                points.append((float(x), float(ev.value)))
        series.append(Series(_run_label(result), tuple(points), result.converged))
    target, text = _target(bench)
    caption = f'<p class="muted">target: {escape(text)}</p>' if text else ""
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
    counted = set(bench.score.runs_counted)
    marks = [Mark(_run_label(r), r.time_to_train_min if r.converged and r.time_to_train_min is not None
                  else r.duration_min or 0.0, r.converged, i in counted)
             for i, r in enumerate(bench.runs) if r.duration_min is not None]
    return run_time_strip(marks, bench.score.score_min)


def _value_text(value: Any) -> str:
    """A logged value as the table shows it: at most :data:`_LONGEST_VALUE` characters."""
    text = json.dumps(value, sort_keys=True) if not isinstance(value, str) else value
    return text if len(text) <= _LONGEST_VALUE else f"{text[:_LONGEST_VALUE]}… ({len(text):,} characters)"


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
        distinct = sorted(set(values[key]))
        text = distinct[0] if len(distinct) == 1 else f"varies: {', '.join(distinct)}"
        rows.append([f"<td><code>{escape(key)}</code></td>", _td(text), _td(f"{len(values[key])}", "num")])
    return _table(["key", "value", "runs logging it"], rows, "hyperparameters")


def _benchmark_section(bench: BenchmarkResult, position: int, root: str) -> str:
    title = f"{bench.org or '?'} / {bench.system or '?'} / {bench.benchmark or '?'}"
    folder = relative_path(bench.folder or ".", root)
    return (f'<section class="benchmark" id="benchmark-{position}"><h2>{escape(title)}</h2>'
            f'<p class="muted">{escape(division_text(bench))}, training '
            f'{escape(bench.ruleset or "?")}, folder <code>{escape(folder)}</code></p>'
            f"<h3>Score</h3>{_score_card(bench)}<h3>Runs</h3>{_runs_table(bench)}"
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
            context = context_lines(group)
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
    rows = [[_td(w.finding.code), f"<td><code>{escape(_where(w.finding, root))}</code></td>",
             _td(w.finding.message), _td(w.reason), _td(w.waiver), _td(w.expires or "—")]
            for w in result.waived]
    return ('<section id="waived"><h2>Waived findings</h2>'
            + _table(["code", "where", "message", "reason", "waiver", "expires"], rows, "waived") + "</section>")


def _footer(result: CheckResult, options: ReportOptions) -> str:
    logging_version = installed_version()
    logging_version = "not installed" if logging_version == "?" else logging_version
    rounds = sorted({r.ruleset for r in result.runs if r.ruleset})
    rows = [[_td(relative_path(path, options.root)), f"<td><code>{digest}</code></td>"]
            for path, digest in sorted(options.input_digests.items(),
                                       key=lambda item: relative_path(item[0], options.root))]
    return (f'<footer><h2>Versions and inputs</h2><p>mlcheck {escape(__version__)}, mlperf-logging '
            f"{escape(logging_version)}; rounds judged: {escape(', '.join(rounds) or 'none')}.</p>"
            + (_table(["input", "sha256"], rows, "inputs") if rows else "") + "</footer>")


def _rcp_cell(bench: BenchmarkResult) -> str:
    rcp = bench.rcp
    if rcp is None:
        return _td("—")
    margin = f" ({rcp.margin_pct:+.2f} %)" if rcp.margin_pct is not None else ""
    css = {"pass": "pass", "fail": "fail"}.get(rcp.verdict, "")
    return _td(rcp.verdict + margin, css) if css else _td(rcp.verdict + margin)


def render_html(result: CheckResult, options: ReportOptions) -> str:
    """The whole report as one HTML document."""
    found = result.all_findings()
    failing = any(f.severity >= options.fail_level for f in found)
    errors, warnings = (sum(1 for f in found if f.severity is level) for level in (Severity.ERROR, Severity.WARNING))
    verdict = "fail" if failing else "pass"
    banner = (f'<div class="banner {verdict}" id="verdict">{"FAIL" if failing else "PASS"}: '
              f"{counted(len(result.runs), 'run')}, {counted(len(result.benchmarks), 'benchmark folder')}, "
              f"{counted(errors, 'error')}, {counted(warnings, 'warning')}, {len(result.waived)} waived</div>")
    overview = _table(["benchmark", "system", "division", "round", "score (min)", "valid", "RCP"],
                      [[f'<td><a href="#benchmark-{i}">{escape(b.benchmark or "?")}</a></td>',
                        _td(b.system or "?"), _td(b.division or "?"), _td(b.ruleset or "?"),
                        _td(format_minutes(b.score.score_min), "num"),
                        _td("yes" if b.score.valid else "no", "pass" if b.score.valid else "fail"),
                        _rcp_cell(b)]
                       for i, b in enumerate(result.benchmarks)], "score-table")
    sections = "".join(_benchmark_section(b, i, options.root) for i, b in enumerate(result.benchmarks))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>mlcheck report: {verdict}</title><style>{STYLE}</style></head><body>"
            f"<h1>mlcheck report</h1>{banner}<h2>Scores</h2>{overview}{sections}"
            f"{_findings_section(result, options)}{_waived_section(result, options.root)}"
            f"{_footer(result, options)}</body></html>\n")
