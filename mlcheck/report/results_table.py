"""The MLCommons-style results table: one row per (round, division, system), the columns
MLCommons publishes (availability, submitter, system, nodes, processor and count, accelerator
and count, framework, notes, from ``systems/<system>.json``), one column per benchmark holding
the minutes alone (two decimals), an energy column (kJ, one decimal) per benchmark with an energy
score (a ``power/`` folder), then the status of the results (valid or invalid), the RCP test and
the summarizer's details and code links. Rendered as text (rich), CSV, Markdown or JSON, with the
same values in each; the terminal's table leaves out the notes and the links.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

from mlcheck.report.plain import TABLE_FORMATS as TABLE_FORMATS, CommandSafeStream, markdown_cell, one_line, shown  # (re-exported)
from mlcheck.report.table_rows import AVAILABILITY_ORDER as AVAILABILITY_ORDER, Row, availability as availability
from mlcheck.report.table_rows import build_rows
from mlcheck.results import CheckResult

TABLE_SCHEMA = "mlcheck-results-table/1"
_FIXED = ("round", "division", "availability", "submitter", "system", "nodes", "processor", "processors",
          "accelerator", "accelerators", "framework", "notes")
_NUMERIC = frozenset({"nodes", "processors", "accelerators"})
_LINKS = ("details_url", "code_url")
_NOT_DRAWN = frozenset({"notes", *_LINKS})
"""Columns of the CSV, Markdown and JSON tables that the terminal's table leaves out (long texts)."""


def _energies(columns: list[str], rows: list[Row]) -> list[str]:
    """The benchmarks with power measurements in some row (an energy score or not: the empty cell
    says it has none): each gets an energy column (kJ)."""
    return [c for c in columns if any(c in row.cells and row.cells[c].measured for row in rows)]


def _energy_header(energies: list[str]) -> list[str]:
    return [f"{name} energy (kJ)" for name in energies]


def _header(columns: list[str], energies: list[str]) -> list[str]:
    return [*_FIXED, *columns, *_energy_header(energies), "status", "rcp", *_LINKS]


def _number(value: int | None) -> str:
    return "" if value is None else str(value)


def _values(row: Row, columns: list[str], energies: list[str]) -> list[str]:
    fixed = [row.round, row.division, row.availability, row.submitter, row.system, _number(row.nodes),
             row.processor, _number(row.processors), row.accelerator, _number(row.accelerators), row.framework,
             row.notes]
    return [*fixed, *(row.cells[c].text if c in row.cells else "" for c in columns),
            *(row.cells[c].energy_text if c in row.cells else "" for c in energies), row.status_text, row.rcp_text,
            row.details_url, row.code_url]


def render_csv(result: CheckResult) -> str:
    """The table as CSV (header line first). A cell (from a system description, a log or a folder's name) that
    a spreadsheet would take for a formula (``=HYPERLINK(...)``: its first character one of
    ``= + - @``, a tab or CR; not a number, nor ``-`` alone) is written behind a ``'``, as OWASP's
    CSV-injection advice has it."""
    columns, rows = build_rows(result)
    energies = _energies(columns, rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    # (every cell: a benchmark folder's name heads a column and begins the status and rcp cells; numbers pass)
    writer.writerow([_not_a_formula(name) for name in _header(columns, energies)])
    for row in rows:
        writer.writerow([_not_a_formula(v) for v in _values(row, columns, energies)])
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

    def line(cells: list[str]) -> str:  # (only the links mlcheck makes are links: a description's text never is one)
        return "| " + " | ".join(_markdown_link(c) if name in _LINKS and c.startswith("https://") else markdown_cell(c)
                                 for name, c in zip(header, cells)) + " |"

    numeric = {*columns, *_NUMERIC, *_energy_header(energies)}
    lines = [line(header), "|" + "|".join("---:" if h in numeric else "---" for h in header) + "|"]
    lines.extend(line(_values(row, columns, energies)) for row in rows)
    return "\n".join(lines) + "\n"


def _markdown_link(url: str) -> str:
    """A link cell as an autolink: its path percent-encoded (a space, a ``%`` or a ``|`` of a
    system name, a line end as ``%0A``, bytes not UTF-8 as they are, a JSON ``\\ud800`` as U+FFFD), no Markdown escapes (inside ``<...>`` a backslash would stay in the link)."""
    from urllib.parse import quote

    scheme, _, rest = url.partition("://")
    host, _, path = rest.partition("/")
    path = "".join(c if not "\ud800" <= c <= "\udfff" or "\udc80" <= c <= "\udcff" else "\ufffd" for c in path)
    return f"<{scheme}://{host}/{quote(path, safe='/', errors='surrogateescape')}>"  # (a name's bytes, each)


def table_dict(result: CheckResult) -> dict[str, Any]:
    """The table as JSON-ready data (``mlcheck-results-table/1``)."""
    columns, rows = build_rows(result)
    return {"schema": TABLE_SCHEMA, "benchmarks": columns, "rows": [
        {"round": r.round, "division": r.division, "availability": r.availability, "submitter": r.submitter,
         "system": r.system, "nodes": r.nodes, "processor": r.processor, "processors": r.processors,
         "accelerator": r.accelerator, "accelerators": r.accelerators, "framework": r.framework,
         "notes": r.notes, "status": r.status_text, "details_url": r.details_url, "code_url": r.code_url,
         "results": {name: {"minutes": _json_number(c.minutes), "valid": c.valid, "status": c.status, "rcp": c.rcp,
                            "rcp_margin_pct": _json_number(c.rcp_margin_pct), "energy_joules": _json_number(c.energy_joules),
                            "energy_valid": c.energy_valid,
                            "power_measured": c.measured}
                     for name, c in sorted(r.cells.items())}}
        for r in rows]}


def _json_number(value: float | None) -> float | None:
    """A JSON number, or null for none, NaN or an infinity (a margin over a mean that overflowed)."""
    return value if value is None or math.isfinite(value) else None


def render_table_json(result: CheckResult) -> str:
    """The table as deterministic JSON text (valid for strict parsers: no lone surrogate)."""
    from mlcheck.report.json_text import without_lone_surrogates

    return without_lone_surrogates(json.dumps(table_dict(result), indent=2, allow_nan=False) + "\n")


def render_table_text(result: CheckResult, console: Console) -> None:
    """The table on a rich console; columns that hold one value for every row (round, submitter)
    move to the title. Off a terminal the table is drawn at least 160 columns wide."""
    from rich.table import Table

    from mlcheck.report.text import print_whole

    columns, rows = build_rows(result)
    energies = _energies(columns, rows)
    header = _header(columns, energies)
    shared = [i for i, name in enumerate(header) if name in ("round", "submitter", "availability", "processor")
              and len({_values(r, columns, energies)[i] for r in rows}) == 1 and rows]
    left_out = {*shared, *(i for i, name in enumerate(header) if name in _NOT_DRAWN)}
    title = "Results in minutes; rcp = reference convergence test (margin to the minimum acceptable mean)"
    said = [f"{header[i]} {_values(rows[0], columns, energies)[i]}" for i in shared
            if _values(rows[0], columns, energies)[i].strip()]  # (an empty value: no system description)
    if said:
        title = ", ".join(said) + ". " + title
    table = Table(title=one_line(title), title_justify="left")  # (a name's line end splits no row)
    cells = [[one_line(v) for i, v in enumerate(_values(row, columns, energies)) if i not in left_out] for row in rows]
    names = [name for i, name in enumerate(header) if i not in left_out]
    for name in names:
        # a number is never cut in two (``2.3`` over ``3``); a text folds (never "…": the system names a row)
        numeric = name in columns or name in _NUMERIC or name.endswith(" energy (kJ)") or name == "rcp"
        table.add_column(name, justify="right" if numeric else "left", overflow="fold", no_wrap=numeric)
    for values in cells:
        table.add_row(*values)
    if console.is_terminal and _least_width(names, cells, table) > console.width:  # (a narrow terminal: a
        console.print(table.title, style="italic")
        for values in cells:  # (headed by the system, its name and its folder)
            pairs = sorted(((n, v) for n, v in zip(names, values) if v.strip()), key=lambda pair: pair[0] != "system")
            console.print("\n".join(f"  {name}: {value}" if at or name != "system" else value
                                     for at, (name, value) in enumerate(pairs)))
        return
    print_whole(console, table, least=160)  # (a file, a CI log: as wide as the table, no cell folded)


def _least_width(names: list[str], cells: list[list[str]], table: Any) -> int:
    """The width the drawn table needs to cut no number and no name of a column in two (a text
    column at least its longest word, up to 12 characters)."""
    widths = [max([len(name), *(len(row[at]) for row in cells)]) if column.no_wrap
              else min(12, max([len(name), *(len(word) for row in cells for word in row[at].split())]))
              for at, (name, column) in enumerate(zip(names, table.columns))]
    return sum(widths) + 3 * len(widths) + 1


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
    render_table_text(result, RichConsole(file=CommandSafeStream(buffer), width=160, no_color=True,  # type: ignore[arg-type]
                                          color_system=None,
                                      highlight=False, markup=False, emoji=False))
    return buffer.getvalue()
