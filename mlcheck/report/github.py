"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` per finding.

Annotations are grouped per file (``::group::``), the files with errors first and, inside a file,
errors before warnings before notices. Values are escaped as the runner expects: ``%``, CR and LF
in the message; additionally ``:`` and ``,`` in the properties (``file``, ``title``).
"""

from __future__ import annotations

from collections import defaultdict

from mlcheck.model import Finding, Severity
from mlcheck.results import CheckResult
from mlcheck.report import ReportOptions, relative_path
from mlcheck.report.plain import summary_line

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """Escape a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(found: Finding, path: str) -> str:
    """One workflow command for a finding at ``path``."""
    properties = [f"file={escape_property(path)}"]
    if found.line is not None:
        properties.append(f"line={found.line}")
    properties.append(f"title={escape_property(f'{found.code} {found.name}')}")
    return f"::{_COMMAND[found.severity]} {','.join(properties)}::{escape_data(found.message)}"


def render_github(result: CheckResult, options: ReportOptions) -> str:
    """Grouped annotations, then the summary line."""
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for found in result.all_findings():
        if found.severity >= options.min_severity:
            by_file[relative_path(found.path, options.root)].append(found)
    lines: list[str] = []
    order = sorted(by_file, key=lambda p: (-max(f.severity for f in by_file[p]), p))
    for path in order:
        lines.append(f"::group::{escape_data(path)}")
        for found in sorted(by_file[path], key=lambda f: (-f.severity, f.line or 0, f.code, f.message)):
            lines.append(annotation(found, path))
        lines.append("::endgroup::")
    for waived in result.waived:
        lines.append(f"waived {waived.finding.code} {relative_path(waived.finding.path, options.root)}"
                     f"{':' + str(waived.finding.line) if waived.finding.line else ''}: "
                     f"{' '.join(waived.reason.split())}")
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"
