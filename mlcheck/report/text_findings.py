"""The findings part of the text report: one line per group of findings (what repeats across the
runs of a folder is one line), the context under it in the ``full`` output format, a cap with
"N more" when the report goes to a terminal, and the counts per rule (``--statistics``).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from mlcheck.records import dataclass
from mlcheck.model import Severity
from mlcheck.report.grouped import FindingGroup, codes_of, context_lines, group_for_display
from mlcheck.report.plain import OUTPUT_FORMATS as OUTPUT_FORMATS, TERMINAL_CAP as TERMINAL_CAP  # re-exported
from mlcheck.report.plain import counted, one_line
from mlcheck.results import CheckResult

if TYPE_CHECKING:  # rich is imported when text is drawn: a JSON or CI report never loads it
    from rich.console import Console
    from rich.text import Text

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def group_line(group: FindingGroup) -> Text:
    """``place: severity CODE name: message``; the place of a group is its folder and runs."""
    from rich.text import Text

    first = group.first
    text = Text(f"{one_line(group.place())}: ")  # (a file or folder name may hold a line end)
    text.append(f"{first.severity.label} {first.code} {first.name}", style=STYLE[first.severity])
    text.append(f": {one_line(group.message())}")
    if first.official:
        text.append(" [official checker agrees]", style="dim")
    return text


def _kept(groups: list[FindingGroup], cap: int | None) -> list[FindingGroup]:
    """At most ``cap`` groups, the most severe first, shown in their report order."""
    if cap is None or len(groups) <= cap:
        return groups
    ranked = sorted(range(len(groups)), key=lambda i: (-groups[i].severity, i))[:cap]
    return [groups[i] for i in sorted(ranked)]


def render_findings(result: CheckResult, console: Console, min_severity: Severity = Severity.INFO,
                    output_format: str = "full", cap: int | None = None) -> None:
    """The "Findings" section: grouped lines, context (``full``), a cap (``cap``: a terminal)."""
    from rich.text import Text

    # The errors first, then the warnings, then the notes; each in report order (by path).
    groups = sorted(group_for_display(result, min_severity), key=lambda group: -group.severity)
    if not groups:
        return
    console.print(Text("Findings", style="bold"))
    kept = _kept(groups, cap)
    for group in kept:
        console.print(group_line(group), soft_wrap=True)
        if output_format == "full":
            for line in context_lines(group):
                console.print(Text(f"    {one_line(line)}", style="dim"), soft_wrap=True)
    shown = {id(group) for group in kept}  # (by identity: comparing groups compares their findings)
    hidden = [g for g in groups if id(g) not in shown]
    if hidden:
        by_level = Counter(g.severity for g in hidden)
        kinds = ", ".join(counted(by_level[level], ("note" if level is Severity.INFO else level.label) + " line")
                          for level in sorted(by_level, reverse=True))  # (a line per group of like findings)
        console.print(Text(f"... {len(hidden)} more lines ({kinds}) not shown on the terminal; pipe the "
                           "output, or use --format json, to see every finding", style="bold"),
                      soft_wrap=True)
    console.print(Text(f"`mlcheck explain CODE` documents each rule ({', '.join(codes_of(groups))})",
                       style="dim"), soft_wrap=True)


@dataclass(frozen=True)
class RuleCount:
    """How often one rule reported, for ``--statistics``."""

    code: str
    name: str
    findings: int
    """One per run (or folder, or file) the rule found something in."""
    lines: int
    """The lines of the text report (what repeats across a folder's runs is one)."""
    folders: int
    severities: tuple[Severity, ...]


def rule_counts(result: CheckResult, min_severity: Severity = Severity.INFO) -> list[RuleCount]:
    """The count of findings per rule, the most frequent first (then by code)."""
    by_code: dict[str, list[FindingGroup]] = {}
    for group in group_for_display(result, min_severity):
        by_code.setdefault(group.first.code, []).append(group)
    rows = [RuleCount(code, groups[0].first.name, sum(len(g.members) for g in groups), len(groups),
                      len({g.folder for g in groups}),
                      tuple(sorted({g.severity for g in groups}, reverse=True)))
            for code, groups in by_code.items()]
    return sorted(rows, key=lambda r: (-r.findings, r.code))


def statistics_lines(result: CheckResult, min_severity: Severity = Severity.INFO) -> list[str]:
    """``--statistics``: one line per rule with its count, as ruff and flake8 print them."""
    rows = rule_counts(result, min_severity)
    if not rows:  # (-q shows errors alone: the warnings the summary counts are not "no findings")
        return ["Statistics: no findings" if min_severity is Severity.INFO else
                f"Statistics: no findings at {min_severity.label} level or above"]
    folders = len({group.folder for group in group_for_display(result, min_severity)})  # (each once)
    lines = ["Statistics", f"{'count':>7} {'lines':>6} {'folders':>7}  code    {'severity':<14} rule"]
    for row in rows:
        levels = "/".join(level.label for level in row.severities)
        lines.append(f"{row.findings:>7} {row.lines:>6} {row.folders:>7}  {row.code}  {levels:<14} {row.name}")
    lines.append(f"{sum(r.findings for r in rows):>7} {sum(r.lines for r in rows):>6} {folders:>7}  "
                 f"{counted(len(rows), 'rule')}")
    return lines
