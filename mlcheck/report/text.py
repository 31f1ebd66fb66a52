"""The human report: a rich table per benchmark folder, its score, then the findings."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mlcheck.model import Severity
from mlcheck.results import BenchmarkResult, CheckResult, RunResult
from mlcheck.score.rcp import format_amount
from mlcheck.facts.rulesets import SUPPORTED_RULESETS
from mlcheck.report.plain import counted_runs, run_verdict_text
from mlcheck.report.plain import division_text, format_minutes, one_line, printable, scaling_source, shown, summary_line  # noqa: F401 (re-exported)
from mlcheck.report import slashed
from mlcheck.report.text_findings import render_findings
from mlcheck.rules.rcp_texts import raising_note, supplied_later, today_differs, today_scaled_text, verdict_text


def score_text(bench: BenchmarkResult) -> Text:
    """``28.33 min (valid: mean of 3 of 5 runs ...)``."""
    score = bench.score
    text = Text()
    # (runs that pass, too few for a score: a file or a job checked alone, not a failure)
    short = score.score_min is None and "found; the round requires" in score.reason and \
        all(r.verdict == "pass" for r in bench.runs)
    if score.score_min is not None:
        text.append(f"{format_minutes(score.score_min)} min", style="bold green" if score.valid else "bold red")
    else:
        text.append("no score", style="bold yellow" if short else "bold red")
    if not bench.published:  # (a folder inside a benchmark folder, MLC508: no result the tools read, nothing refused)
        text.append("  NOT A RESULT", style="yellow")
    else:
        text.append("  valid" if score.valid else "  INVALID", style="green" if score.valid else "yellow" if short else "red")
    text.append(f": {one_line(score.reason)}")
    if score.scaling_factor is not None and score.unscaled_min is not None:  # (no score: nothing was scaled)
        text.append(f"; scaled by {score.scaling_factor:g}, {scaling_source(bench)}'s factor, from "
                    f"{format_minutes(score.unscaled_min)} min")
    if score.valid and bench.rcp is not None and bench.rcp.verdict in ("fail", "missing"):
        text.append(f"; but {rcp_caveat(bench)}", style="yellow")
    return text


RCP_CAVEAT = {
    "fail": "the RCP test failed: the result uploads only with {bypass}, the results chair "
            "must be told, and it is audited",
    "missing": "no reference convergence point fits its batch size: the submitter must provide "
               "the missing RCPs",
    "undetermined": "the RCP test fails before any RCP is compared (MLC532), which no bypass changes",
}
"""What a valid score still lacks when the RCP test did not pass (training rules, RCPs)."""


def rcp_caveat(bench: BenchmarkResult) -> str:
    """:data:`RCP_CAVEAT` for the folder's RCP verdict: a test that could not be computed (no
    submission mean: runs of different batch sizes, too few converged) is no failure a bypass
    lets through; the package checker's option is ``--rcp_bypass`` up to 4.0, ``--rcp-bypass`` from 4.1."""
    rcp = bench.rcp
    assert rcp is not None
    if rcp.verdict == "fail" and rcp.submission_mean is None:
        return RCP_CAVEAT["undetermined"]
    if (supplied := supplied_later(rcp)) is not None:
        return (f"the record revision has no RCP at its batch size; it was supplied in the round's review ({supplied} "
                "in today's mlperf-logging), and with it the test passes (MLC531)")
    late = bench.ruleset in SUPPORTED_RULESETS and SUPPORTED_RULESETS.index(bench.ruleset) >= SUPPORTED_RULESETS.index("4.1.0")
    return RCP_CAVEAT[rcp.verdict].format(bypass="--rcp-bypass" if late else "--rcp_bypass")


def _run_table(bench: BenchmarkResult, min_severity: Severity = Severity.INFO) -> Table:
    # (its caption on one line, as a finding's place: a folder named with a line end splits none)
    counted = counted_runs(bench)
    legend = "; * = counted in the score" if counted else ""  # (no run counted: no star to explain)
    caption = one_line(f"{division_text(bench)}, training {bench.ruleset or '?'}{legend}")
    table = Table(caption=caption, caption_justify="left")
    labels = [_run_label(run) + (" *" if position in counted else "") for position, run in enumerate(bench.runs)]
    for column, justify in (("run", "left"), ("minutes", "right"), ("status", "left"),
                            ("converged", "left"), ("verdict", "left"), ("findings", "left")):
        # a long name (result_5800-240517143744812449396_3.txt) folds onto a second line, whole
        # (and a terminal too narrow for a code folds it: every code stays whole, none cut to ``MLC30…``)
        table.add_column(column, justify=justify, overflow="fold" if column in ("run", "findings") else "ellipsis")  # type: ignore[arg-type]
    for label, run in zip(labels, bench.runs):
        minutes = run.time_to_train_min if run.converged else run.duration_min
        table.add_row(label, format_minutes(minutes), one_line(run.status) if run.status else "—",
                      "yes" if run.converged else "no",
                      Text(verdict := run_verdict_text(run), style={"pass": "green", "fail": "red"}.get(verdict, "yellow")),
                      ", ".join(sorted({f.code for f in run.findings if f.severity >= min_severity})))
    return table


def _run_label(run: RunResult) -> str:
    name = slashed(run.path).rsplit("/", 1)[-1]
    return one_line(name if run.index == 0 else f"{name} #{run.index}")


def rcp_text(bench: BenchmarkResult) -> Text | None:
    """``RCP pass: submission mean 37.3 epochs >= minimum 34.31 (reference 36.1, +8.72 %)``."""
    rcp = bench.rcp
    if rcp is None:
        return None
    style = {"pass": "green", "fail": "bold red", "missing": "yellow"}.get(rcp.verdict, "dim")
    text = Text("RCP ")
    text.append(rcp.verdict, style=style)
    if rcp.submission_mean is not None and rcp.min_acceptable_mean is not None:
        text.append(f": submission mean {format_amount(rcp.submission_mean)} {rcp.unit}, minimum acceptable "
                    f"{format_amount(rcp.min_acceptable_mean)}")
        if rcp.reference_mean is not None:
            text.append(f", reference mean {format_amount(rcp.reference_mean)}")
        if rcp.margin_pct is not None:
            text.append(f" (margin {rcp.margin_pct:+.2f} %)")
        if rcp.reason.startswith("no RCP at this batch size"):  # (the checker's fallback: said, not implied)
            text.append(f"; no RCP at batch size {rcp.batch_size}: compared with the smallest-batch RCP "
                        f"({rcp.reference})")
    else:
        text.append(f": {one_line(rcp.reason)}")
    if raising := raising_note(bench):
        text.append(raising, style="yellow")
    if today_differs(rcp) and rcp.today is not None:
        text.append(f"; today's mlperf-logging: {verdict_text(rcp.today)}", style="yellow")
    elif (scaled := today_scaled_text(rcp, bench.score)) is not None:
        text.append(f"; {scaled}", style="yellow")
    return text


def energy_text(bench: BenchmarkResult) -> Text | None:
    """``energy 8,071.2 kJ (valid: mean of ...)`` for a folder with power measurements."""
    energy = bench.energy
    if energy is None:
        return None
    from mlcheck.rules.power_text import format_energy

    text = Text("energy ")
    if energy.joules is None:
        text.append("no score", style="bold red")
    else:
        text.append(format_energy(energy.joules), style="bold green" if energy.valid else "bold red")
    text.append(f": {one_line(energy.reason)}")
    return text


def render_text(result: CheckResult, console: Console, min_severity: Severity = Severity.INFO,
                scores_only: bool = False, output_format: str = "full", cap: int | None = None) -> None:
    """Print the report to ``console``: per folder its runs, score and RCP test, then the
    findings (:mod:`mlcheck.report.text_findings`; ``cap``: at most that many, on a terminal)."""
    brief = False  # (the last folder was a score line: a blank line before a table or the findings)
    for bench in result.benchmarks:
        after_brief, brief = brief, scores_only or (min_severity > Severity.INFO and _clean(bench, min_severity))  # (-q: a
        if not brief:  # clean folder's score line; the heading on a line of its own, however narrow the table)
            if after_brief:
                console.print()
            console.print(Text(one_line(f"{bench.org or '?'} / {bench.system or '?'} / {bench.benchmark or '?'} "
                                        f"({bench.ruleset or '?'})"), style="italic"), soft_wrap=True)
            print_whole(console, _run_table(bench, min_severity))  # (-q: the codes of what it shows)
        else:
            console.print(Text(one_line(f"{bench.org or '?'} / {bench.system or '?'} / {bench.benchmark or '?'} "
                                     f"({bench.division or '?'}, {bench.ruleset or '?'}): "), style="bold"),
                          end="", soft_wrap=True)  # (one line a folder, however narrow: grep reads it)
        console.print(score_text(bench), soft_wrap=True)
        energy = energy_text(bench)
        if energy is not None:
            console.print(energy, soft_wrap=True)
        if not brief or _today_differs(bench):  # (a score line alone: the RCP line when today's tools differ)
            rcp = rcp_text(bench)
            if rcp is not None:
                console.print(rcp, soft_wrap=True)
        if not brief:
            console.print()
    if scores_only:
        return
    if brief:  # (a blank line after the last score line, as after a table)
        console.print()
    render_findings(result, console, min_severity, output_format, cap)


def _today_differs(bench: BenchmarkResult) -> bool:
    """Whether today's mlperf-logging would judge or publish the folder otherwise (its RCP line says how)."""
    rcp = bench.rcp
    return rcp is not None and ((today_differs(rcp) and rcp.today is not None)
                                or today_scaled_text(rcp, bench.score) is not None)


def _clean(bench: BenchmarkResult, least: Severity) -> bool:
    """Whether neither the folder nor any of its runs has a finding at or above ``least``."""
    return not any(f.severity >= least for f in bench.findings) and not any(
        f.severity >= least for run in bench.runs for f in run.findings)


def print_whole(console: Console, table: Table, least: int = 0) -> None:
    """A table on a terminal as wide as the terminal; written to a pipe or a file (a CI log, grep),
    as wide as its widest row (``least`` columns at least), so that no cell is folded."""
    if not console.is_terminal:
        natural = _natural_width(table)
        if natural is None:
            natural = console.measure(table, options=console.options.update_width(100_000)).maximum
        wide = max(least, natural)
        if console.width < wide:
            console = Console(file=console.file, width=wide, no_color=console.no_color, highlight=False,
                              color_system=None, markup=False, emoji=False)
    elif (natural := _natural_width(table)) is not None and natural > console.width:
        _print_listed(console, table)  # (a terminal too narrow for the table: a name or a code cut in two reads wrong)
        return
    title, caption = table.title, table.caption
    if console.is_terminal or not (title or caption):
        console.print(table)
        return
    # (a pipe, a file: the title and caption each a line of its own, neither padded nor folded to the table's width)
    table.title = table.caption = None
    if title:
        console.print(Text(str(title), style="italic"), soft_wrap=True)
    console.print(table)
    if caption:
        console.print(Text(str(caption), style="dim"), soft_wrap=True)


def _print_listed(console: Console, table: Table) -> None:
    """``table`` as a list: each row its first cell, then the others a line each as ``header: value``,
    indented (as ``score`` lists its results table on a narrow terminal)."""
    columns = table.columns
    by_column = [list(column.cells) for column in columns]
    for at in range(table.row_count):
        cells = [column_cells[at] for column_cells in by_column]
        console.print(cells[0] if isinstance(cells[0], Text) else Text(str(cells[0])))
        for column, cell in zip(columns[1:], cells[1:]):  # (a cell a line, indented: a folded one stays under its run)
            text = cell if isinstance(cell, Text) else Text(str(cell))
            if text.plain.strip():
                console.print(Text(f"  {column.header}: ").append_text(text))
    if table.caption:
        console.print(Text(str(table.caption), style="dim"))


def _natural_width(table: Table) -> int | None:
    """At least the width rich measures ``table`` at unfolded (a table of plain one-line cells: the
    longest cell of each column and its padding, the borders), without rich's measure of every
    cell, a pass as long as drawing the table (a quarter of the text report's time on a round); a
    wider console draws the table the same (it is not expanded). None where a cell is no plain
    line or a width is set: then rich measures it."""
    if table.expand or table.width is not None or table.min_width is not None:
        return None
    top, right, bottom, left = table.padding
    total = (2 if table.box and table.show_edge else 0) + (len(table.columns) - 1 if table.box else 0)
    for column in table.columns:
        if column.width is not None or column.min_width is not None:
            return None
        longest = 0
        for cell in (column.header, *column.cells):
            text = cell.plain if isinstance(cell, Text) else cell if isinstance(cell, str) else None
            if text is None or "\t" in text or "\n" in text:
                return None
            longest = max(longest, cell_len(text))
        total += longest + left + right
    return total
