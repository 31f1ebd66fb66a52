"""The scores of the HTML report (:mod:`mlcheck.report.html`): the overview table, each folder's
score card and RCP test, and the table primitives both use."""

from __future__ import annotations

from html import escape

from mlcheck.results import BenchmarkResult, CheckResult, RunResult
from mlcheck.report import slashed
from mlcheck.report.plain import counted_runs, dropped_runs, format_minutes, kilojoules_text, rcp_refusal, scaling_source
from mlcheck.rules.rcp_texts import raising_note, today_scaled_text


def table(headers: list[str], rows: list[list[str]], css_class: str) -> str:
    """An HTML table of ``headers`` and ``rows`` (cells already rendered)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(cells) + "</tr>" for cells in rows)
    return f'<table class="{css_class}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def td(text: str, css: str = "") -> str:
    """A table cell of ``text`` (escaped), of ``css`` class."""
    return f'<td class="{css}">{escape(text)}</td>' if css else f"<td>{escape(text)}</td>"


def run_label(run: RunResult) -> str:
    """A run as a table names it: its file, and its index where the file holds several runs."""
    name = slashed(run.path).rsplit("/", 1)[-1]
    return name if run.index == 0 else f"{name} #{run.index}"


def _dropped_reason(bench: BenchmarkResult, position: int) -> str:
    """Why the score drops a run: not converged, breaks the rules, the fastest or the slowest."""
    run = bench.runs[position]
    if not run.converged:
        return "not converged: counted as slowest"
    if run.verdict == "fail":  # (the official tools drop a run their checker fails as non-converged)
        return "breaks the rules: counted as slowest"
    kept = [bench.runs[i].time_to_train_min for i in bench.score.runs_counted]
    fastest = min((t for t in kept if t is not None), default=None)
    if fastest is not None and run.time_to_train_min is not None and run.time_to_train_min <= fastest:
        return "fastest"
    return "slowest"


def score_card(bench: BenchmarkResult) -> str:
    """A folder's score, its validity, the runs counted and dropped, its scaling and RCP test."""
    score = bench.score
    rows = [["score", f"{format_minutes(score.score_min)} min"],
            ["valid", ("yes: " if score.valid else "NO: " if bench.published else "not a result: ") + score.reason
             + _refused_text(bench)],
            ["runs counted", ", ".join(run_label(bench.runs[i]) for i in sorted(counted_runs(bench))) or "none"],
            ["runs dropped", "; ".join(f"{run_label(bench.runs[i])} ({_dropped_reason(bench, i)})"
                                       for i in dropped_runs(bench)) or "none"]]
    if score.scaling_factor is not None:
        rows.append(["scaled",  # (by a scaling.json, or by the RCP normalisation where none is written)
                     f"× {score.scaling_factor:g}, {scaling_source(bench)}'s factor "
                     f"(unscaled {format_minutes(score.unscaled_min)} min)"])
    rows.extend(_rcp_rows(bench))
    if bench.energy is not None:
        from mlcheck.rules.power_text import format_energy

        energy = bench.energy
        shown = format_energy(energy.joules) if energy.joules is not None else "no score"
        rows.append(["energy", f"{shown} ({'valid' if energy.valid else 'not valid'}: {energy.reason})"])
    accepted = score.valid and rcp_refusal(bench) is None
    body = "".join(f"<tr><th>{escape(k)}</th>{td(v, 'pass' if k == 'valid' and accepted else '')}</tr>"
                   for k, v in rows)
    return f'<table class="score-card">{body}</table>'


def _refused_text(bench: BenchmarkResult) -> str:
    """What the score card adds to a valid score that the RCP test refuses."""
    refusal = rcp_refusal(bench) if bench.score.valid else None
    return "" if refusal is None else f"; but the RCP test refuses it ({refusal.code}: the package checker fails it)"


def _rcp_rows(bench: BenchmarkResult) -> list[list[str]]:
    """The score card's rows of the RCP test: its verdict, numbers, and today's verdict where it differs."""
    rcp = bench.rcp
    if rcp is None:
        return [["RCP test", "not run"]]
    rows = [["RCP test", f"{rcp.verdict}: {rcp.reason}{raising_note(bench)}"]]
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


def overview(result: CheckResult) -> str:
    """The scores table: a row per folder (its submitter where the report holds several, its
    energy where one has power measurements)."""
    several = len({bench.org for bench in result.benchmarks}) > 1
    energy = any(bench.energy is not None for bench in result.benchmarks)
    head = ["submitter"] * several + ["benchmark", "system", "division", "round", "score (min)", "valid", "RCP"]
    rows = []
    for i, b in enumerate(result.benchmarks):
        valid, refusal = b.score.valid, rcp_refusal(b)
        unread = "MLC509" if b.score.reason.endswith("(MLC509)") else "MLC508"  # (stray copies; a nested folder)
        shown = ("no" if b.published else f"not a result ({unread})") if not valid else "yes" if refusal is None \
            else f"yes, but the RCP test refuses it ({refusal.code})"
        row = [td(b.org or "?")] * several + [
            f'<td><a href="#benchmark-{i}">{escape(b.benchmark or "?")}</a></td>', td(b.system or "?"),
            td(b.division or "?"), td(b.ruleset or "?"), td(format_minutes(b.score.score_min), "num"),
            td(shown, "pass" if valid and refusal is None else "fail"), _rcp_cell(b)]
        if energy:
            row.append(td(kilojoules_text(b.energy.joules if b.energy is not None else None), "num"))
        rows.append(row)
    return table(head + ["energy (kJ)"] * energy, rows, "score-table")


def _rcp_cell(bench: BenchmarkResult) -> str:
    """The overview's RCP cell: the verdict and margin, styled as it passes or fails."""
    rcp = bench.rcp
    if rcp is None:
        return td("—")
    margin = f" ({rcp.margin_pct:+.2f} %)" if rcp.margin_pct is not None else ""
    margin += " (the RCP checker raises)" if raising_note(bench) else ""
    css = {"pass": "pass", "fail": "fail"}.get(rcp.verdict, "")
    return td(rcp.verdict + margin, css) if css else td(rcp.verdict + margin)
