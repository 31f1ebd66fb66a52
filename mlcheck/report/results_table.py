"""The MLCommons-style results table: one row per (round, division, system), the columns
MLCommons publishes (availability, submitter, system, nodes, processor and count, accelerator
and count, framework, from ``systems/<system>.json``), one column per benchmark holding the
minutes alone (two decimals), an energy column (kJ, one decimal) per benchmark with an energy
score (a ``power/`` folder), then the status of the results (valid or invalid) and the RCP test.
Rendered as text (rich), CSV, Markdown or JSON, with the same values in each.
"""

from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

from mlcheck.records import dataclass, field
from mlcheck.report.plain import TABLE_FORMATS as TABLE_FORMATS, markdown_cell, one_line, shown  # (re-exported)
from mlcheck.results import BenchmarkResult, CheckResult

TABLE_SCHEMA = "mlcheck-results-table/1"
_FIXED = ("round", "division", "availability", "submitter", "system", "nodes", "processor", "processors",
          "accelerator", "accelerators", "framework")
_NUMERIC = frozenset({"nodes", "processors", "accelerators"})
_AVAILABILITY = {"available": "available on-premise", "onprem": "available on-premise",
                 "on premise": "available on-premise", "available on premise": "available on-premise",
                 "cloud": "available cloud", "available cloud": "available cloud", "preview": "preview",
                 "research": "research, development, or internal", "rdi": "research, development, or internal",
                 "research, development, or internal (rdi)": "research, development, or internal"}
"""The system description's ``status`` as the category MLCommons publishes results under."""
AVAILABILITY_ORDER = ("available on-premise", "available cloud", "preview", "research, development, or internal")


def availability(status: str | None) -> str:
    """``Available on-premise``, ``onprem`` ... -> ``available on-premise`` (unknown: as written)."""
    if not status:
        return ""
    spelled = " ".join(status.strip().lower().replace("-", " ").replace("_", " ").split())
    return _AVAILABILITY.get(spelled, status.strip())


@dataclass(frozen=True)
class Cell:
    """One benchmark result in the table: the minutes alone, its validity and RCP test apart."""

    minutes: float | None
    valid: bool
    rcp: str | None
    rcp_margin_pct: float | None
    energy_joules: float | None = None
    """The folder's energy score (a ``power/`` folder, 3.1+), as the summarizer's ``:Energy``."""
    measured: bool = False
    """The folder has power measurements (with or without an energy score)."""

    @property
    def energy_text(self) -> str:
        return "" if self.energy_joules is None else f"{self.energy_joules / 1000:.1f}"

    @property
    def text(self) -> str:
        return "" if self.minutes is None else f"{self.minutes:.2f}"

    @property
    def status(self) -> str:
        return "valid" if self.valid else "invalid"


@dataclass(frozen=True)
class Row:
    """One system of one round and division."""

    round: str
    division: str
    availability: str
    submitter: str
    system: str
    nodes: int | None
    processor: str
    processors: int | None
    accelerator: str
    accelerators: int | None
    framework: str
    cells: dict[str, Cell] = field(default_factory=dict)

    def _per_benchmark(self, text: dict[str, str]) -> str:
        if len(self.cells) == 1:
            return next(iter(text.values()), "")
        return "; ".join(f"{name}: {value}" for name, value in sorted(text.items()) if value)

    @property
    def status_text(self) -> str:
        """``valid``, or which results are invalid (``bert: invalid``)."""
        if all(cell.valid for cell in self.cells.values()):
            return "valid"
        return self._per_benchmark({name: cell.status for name, cell in self.cells.items()
                                    if not cell.valid or len(self.cells) == 1})

    @property
    def rcp_text(self) -> str:
        parts = {}
        for name, cell in self.cells.items():
            if cell.rcp is None:
                continue
            margin = f" {cell.rcp_margin_pct:+.2f} %" if cell.rcp_margin_pct is not None and cell.rcp != "skipped" else ""
            parts[name] = f"{cell.rcp}{margin}"
        return self._per_benchmark(parts)


def _row_key(bench: BenchmarkResult) -> tuple[str, str, int, str, str]:
    division = _division(bench)
    shown = availability(bench.system_info.status if bench.system_info else None)
    rank = AVAILABILITY_ORDER.index(shown) if shown in AVAILABILITY_ORDER else len(AVAILABILITY_ORDER)
    return (bench.ruleset or "?", "0" if division == "closed" else division, rank, bench.org or "?", bench.system or "?")


def _division(bench: BenchmarkResult) -> str:
    """The division the summarizer publishes a result under: its system description's, else the
    one its runs log."""
    described = bench.system_info.division if bench.system_info else None
    return (described.strip() if isinstance(described, str) and described.strip() else None) or bench.division or "?"


def build_rows(result: CheckResult) -> tuple[list[str], list[Row]]:
    """The benchmark columns (those with a result, sorted) and the rows, sorted by round,
    division (closed first), availability (as MLCommons splits its tables), submitter and system."""
    rows: dict[tuple[str, str, int, str, str], Row] = {}
    for bench in result.benchmarks:
        if not bench.published:
            continue
        key = _row_key(bench)
        if key not in rows:
            info = bench.system_info
            rows[key] = Row(round=bench.ruleset or "?", division=_division(bench),
                            availability=availability(info.status if info else None),
                            submitter=(info.submitter if info and info.submitter else bench.org) or "?",
                            system=_system_label(bench), nodes=info.number_of_nodes if info else None,
                            processor=(info.host_processor_model_name if info else None) or "",
                            processors=info.host_processors if info else None,
                            accelerator=(info.accelerator_model_name if info else None) or "",
                            accelerators=info.accelerators if info else None,
                            framework=(info.framework if info else None) or "")
        rcp = bench.rcp
        rows[key].cells[bench.benchmark or "?"] = Cell(bench.score.score_min, bench.score.valid,
                                                      rcp.verdict if rcp else None,
                                                      rcp.margin_pct if rcp else None,
                                                      bench.energy.joules if bench.energy else None,
                                                      bench.energy is not None)
    columns = sorted({name for row in rows.values() for name in row.cells})
    return columns, [rows[k] for k in sorted(rows)]


def _system_label(bench: BenchmarkResult) -> str:
    name = bench.system_info.system_name if bench.system_info else None
    if name and bench.system and name != bench.system:
        return f"{name} ({bench.system})"
    return bench.system or name or "?"


def _energies(columns: list[str], rows: list[Row]) -> list[str]:
    """The benchmarks with power measurements in some row (an energy score or not: the empty cell
    says it has none): each gets an energy column (kJ)."""
    return [c for c in columns if any(c in row.cells and row.cells[c].measured for row in rows)]


def _header(columns: list[str], energies: list[str]) -> list[str]:
    return [*_FIXED, *columns, *(f"{name} energy (kJ)" for name in energies), "status", "rcp"]


def _number(value: int | None) -> str:
    return "" if value is None else str(value)


def _values(row: Row, columns: list[str], energies: list[str]) -> list[str]:
    fixed = [row.round, row.division, row.availability, row.submitter, row.system, _number(row.nodes),
             row.processor, _number(row.processors), row.accelerator, _number(row.accelerators), row.framework]
    return [*fixed, *(row.cells[c].text if c in row.cells else "" for c in columns),
            *(row.cells[c].energy_text if c in row.cells else "" for c in energies), row.status_text, row.rcp_text]


def render_csv(result: CheckResult) -> str:
    """The table as CSV (header line first). A text cell from a system description or a log that
    a spreadsheet would take for a formula (``=HYPERLINK(...)``: its first character one of
    ``= + - @``, a tab or CR; not a number, nor ``-`` alone) is written behind a ``'``, as OWASP's
    CSV-injection advice has it."""
    columns, rows = build_rows(result)
    energies = _energies(columns, rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_header(columns, energies))
    texts = len(_FIXED)  # (the fixed columns: round ... framework; the rest are mlcheck's numbers)
    for row in rows:
        values = _values(row, columns, energies)
        writer.writerow([_not_a_formula(v) for v in values[:texts]] + values[texts:])
    return out.getvalue()


def _not_a_formula(cell: str) -> str:
    if cell[:1] not in ("=", "+", "-", "@", "\t", "\r") or cell == "-":
        return cell
    try:
        float(cell)  # (a number, -1: what the spreadsheet shows)
    except ValueError:
        return "'" + cell
    return cell


def render_markdown(result: CheckResult) -> str:
    """The table as a GitHub-flavoured Markdown table."""
    columns, rows = build_rows(result)
    energies = _energies(columns, rows)
    header = _header(columns, energies)

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(markdown_cell(c) for c in cells) + " |"

    numeric = {*columns, *_NUMERIC, *header[len(_FIXED) + len(columns):-2]}
    lines = [line(header), "|" + "|".join("---:" if h in numeric else "---" for h in header) + "|"]
    lines.extend(line(_values(row, columns, energies)) for row in rows)
    return "\n".join(lines) + "\n"


def table_dict(result: CheckResult) -> dict[str, Any]:
    """The table as JSON-ready data (``mlcheck-results-table/1``)."""
    columns, rows = build_rows(result)
    return {"schema": TABLE_SCHEMA, "benchmarks": columns, "rows": [
        {"round": r.round, "division": r.division, "availability": r.availability, "submitter": r.submitter,
         "system": r.system, "nodes": r.nodes, "processor": r.processor, "processors": r.processors,
         "accelerator": r.accelerator, "accelerators": r.accelerators, "framework": r.framework,
         "status": r.status_text,
         "results": {name: {"minutes": c.minutes, "valid": c.valid, "status": c.status, "rcp": c.rcp,
                            "rcp_margin_pct": c.rcp_margin_pct, "energy_joules": c.energy_joules,
                            "power_measured": c.measured}
                     for name, c in sorted(r.cells.items())}}
        for r in rows]}


def render_table_json(result: CheckResult) -> str:
    """The table as deterministic JSON text (valid for strict parsers: no lone surrogate)."""
    from mlcheck.report.json_text import without_lone_surrogates

    return without_lone_surrogates(json.dumps(table_dict(result), indent=2, allow_nan=False) + "\n")


def render_table_text(result: CheckResult, console: Console) -> None:
    """The table on a rich console; columns that hold one value for every row (round, submitter)
    move to the title. Off a terminal the table is drawn at least 160 columns wide."""
    from rich.console import Console as RichConsole
    from rich.table import Table

    columns, rows = build_rows(result)
    energies = _energies(columns, rows)
    header = _header(columns, energies)
    shared = [i for i, name in enumerate(header) if name in ("round", "submitter", "availability", "processor")
              and len({_values(r, columns, energies)[i] for r in rows}) == 1 and rows]
    title = "Results in minutes; rcp = reference convergence test (margin to the minimum acceptable mean)"
    if shared:
        title = ", ".join(f"{header[i]} {_values(rows[0], columns, energies)[i]}" for i in shared) + ". " + title
    table = Table(title=one_line(title), title_justify="left")  # (a name's line end splits no row)
    for i, name in enumerate(header):
        if i not in shared:
            numeric = name in columns or name in _NUMERIC or name.endswith(" energy (kJ)")
            table.add_column(name, justify="right" if numeric else "left", overflow="fold")  # never "…": the system names a row
    for row in rows:
        values = _values(row, columns, energies)
        table.add_row(*(one_line(v) for i, v in enumerate(values) if i not in shared))
    if not console.is_terminal:  # (a file, a CI log: as wide as the table, no cell folded)
        wide = max(160, console.measure(table, options=console.options.update_width(100_000)).maximum)
        if console.width < wide:
            console = RichConsole(file=console.file, width=wide, no_color=console.no_color, highlight=False,
                                  color_system=None)
    console.print(table)


def render_table(result: CheckResult, table_format: str) -> str:
    """CSV, Markdown or JSON text of the table (text goes through :func:`render_table_text`)."""
    if table_format == "csv":
        return shown(render_csv(result))
    if table_format == "markdown":
        return shown(render_markdown(result))
    if table_format == "json":
        return render_table_json(result)
    raise ValueError(f"unknown table format {table_format!r}; use one of {', '.join(TABLE_FORMATS)}")


def table_text(result: CheckResult, table_format: str) -> str:
    """The table in any of :data:`TABLE_FORMATS` as text (``text``: plain, no colour, 160 columns)."""
    if table_format != "text":
        return render_table(result, table_format)
    from rich.console import Console as RichConsole

    buffer = io.StringIO()
    render_table_text(result, RichConsole(file=buffer, width=160, no_color=True, color_system=None,
                                      highlight=False))
    return buffer.getvalue()
