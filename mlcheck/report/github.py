"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` per finding, or
per group of findings that say the same about several runs of a folder.

GitHub attaches an annotation to a file (and a line) of the repository, and shows only the first
ten of each kind per step, so: the most severe come first; what repeats across the runs of a
folder is one annotation on its first run's file; a finding about a folder is attached to the
folder's first result file; a finding about a missing file, to the first result file of the folder
it is missing from (of ``results/<system>`` for ``systems/<system>.json``); a finding about no file
(a package, the environment) is a command without ``file``. Annotations are grouped per file (``::group::``). The summary line goes to
stderr (the CLI prints it), and :mod:`mlcheck.report.job_summary` writes the Markdown job summary.
Values are escaped as the runner expects: ``%``, CR and LF in the message; additionally ``:`` and
``,`` in the properties (``file``, ``title``); in the plain lines of waived findings a file name's
CR and LF are ``%0D`` and ``%0A`` (a newline begins no workflow command).
"""

from __future__ import annotations

import os
from dataclasses import replace

from mlcheck.model import Finding, Severity
from mlcheck.results import CheckResult
from mlcheck.report import ReportOptions, relative_path
from mlcheck.report.grouped import FindingGroup, distinct_places, group_for_display, numbers_that_differ

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
NO_FILE = ""


def escape_data(text: str) -> str:
    """Escape a workflow command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(found: Finding, path: str, message: str | None = None) -> str:
    """One workflow command for a finding at ``path`` (a file; ``""``: no file), at its line.

    A path holding a control character (ESC) or bytes that are not UTF-8 has no correct form
    here: a workflow command is a line of UTF-8 text and the runner decodes only ``%25``,
    ``%0D``, ``%0A``, ``%3A`` and ``%2C`` in a property, so such a file cannot be named. The
    report is written as every report is (:func:`mlcheck.report.render`: ``\\x1b``, U+FFFD): that
    annotation names no existing file and is not attached to one (never to a wrong one), which
    is the best there is; left so on purpose."""
    properties = []
    if path:
        properties.append(f"file={escape_property(path)}")
        if found.line is not None:
            properties.append(f"line={found.line}")
    properties.append(f"title={escape_property(f'{found.code} {found.name}')}")
    text = found.message if message is None else message
    return f"::{_COMMAND[found.severity]} {','.join(properties)}::{escape_data(text)}"


def _one_line(text: str) -> str:
    """A plain line of the log (not a workflow command: the runner decodes nothing in it) that no
    line end of a name splits into a line beginning ``::``."""
    return text.replace("\r", "%0D").replace("\n", "%0A")


def _first_result_files(result: CheckResult) -> dict[str, str]:
    """Each benchmark folder's first result file (where its folder findings are attached)."""
    firsts = {bench.folder: min((r.path for r in bench.runs if r.path != "-" and not os.path.isdir(r.path)), default=None)
              for bench in result.benchmarks if bench.folder}  # (a folder named result_0.txt, stdin: no file to annotate)
    return {folder: path for folder, path in firsts.items() if path is not None}


def _target(group: FindingGroup, first_files: dict[str, str]) -> tuple[str, int | None, str]:
    """(file, line, message) of a group's annotation."""
    found = group.first
    message = group.message()
    if len(group.members) > 1:
        others = distinct_places(group.members, lines=False)[1:]  # (power/result_3/x.png where names repeat)
        if not group.same_text:  # (each with its own numbers: "result_8.txt: opt_..._steps is 1200")
            said = numbers_that_differ(group.members, 6)[1:]  # (of the five shown)
            others = [f"{place}: {numbers}" for place, numbers in zip(others, said)] + others[len(said):]
        shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
        kind = ("run" if group.folder_runs else "file") + ("s" if len(others) != 1 else "")
        message += f" (also {len(others)} other {kind}: {shown})"
    if os.path.isfile(found.path):
        return found.path, found.line, message
    folder_file = first_files.get(_benchmark_folder(found.path, first_files))
    if folder_file is not None:
        return folder_file, None, f"{message} (about the folder {found.path})"
    missing_file = (_own_result_file(found.path) or _first_file_under(_folder_of_missing(found.path), first_files)
                    if found.path not in ("", "-") else None)
    if missing_file is not None:
        named = found.path in message  # (MLC510: "expected systems/x.json")
        return missing_file, None, message if named else f"{message} (about {found.path}, which does not exist)"
    if found.path == "":
        return NO_FILE, None, message
    where = ("standard input" if found.path == "-" else found.path) + (f", line {found.line}" if found.line else "")
    return NO_FILE, None, f"{where}: {message}"


def _folder_of_missing(path: str) -> str | None:
    """The folder whose runs a finding about a missing file concerns: for ``systems/<system>.json``
    the system's results folder (``results/<system>``), else the folder the file is missing from;
    None when ``path`` exists or names no folder."""
    if os.path.lexists(path):
        return None
    folder, name = os.path.split(path.rstrip("/" + os.sep))
    if os.path.basename(folder) == "systems" and name.endswith(".json"):
        return os.path.join(os.path.dirname(folder), "results", name[:-len(".json")])
    return folder or None


def _first_file_under(folder: str | None, first_files: dict[str, str]) -> str | None:
    """The first result file of the benchmark folders in ``folder`` (at any depth), or else in the
    folder above it or the one above that (a missing ``power/result_3/``: its benchmark's), from
    the nearest folder that exists."""
    top = os.path.normpath(folder) if folder else ""
    while top and not os.path.isdir(top) and os.path.dirname(top) != top:
        top = os.path.dirname(top)
    for _ in range(3):
        found = min((path for bench, path in first_files.items()
                     if os.path.normpath(bench) == top or os.path.normpath(bench).startswith(top + os.sep)), default=None)
        if found is not None or not top or os.path.dirname(top) == top:
            return found
        top = os.path.dirname(top)
    return None


def _own_result_file(path: str) -> str | None:
    """For a missing ``<bench>/power/result_3`` (its run's power logs), ``<bench>/result_3.txt``."""
    power, name = os.path.split(path.rstrip("/" + os.sep))
    result = os.path.join(os.path.dirname(power), f"{name}.txt")
    return result if os.path.basename(power) == "power" and not os.path.lexists(path) and os.path.isfile(result) else None


def _benchmark_folder(path: str, first_files: dict[str, str]) -> str:
    """The benchmark folder a folder is, or is in (``power/``, ``power/result_<i>/``, a stray
    folder at any depth below it); ``path`` when none."""
    if not os.path.isdir(path):
        return path
    folder = path.rstrip("/" + os.sep) or path
    while folder not in first_files:
        above = os.path.dirname(folder) or os.curdir  # (a relative path ends at ., as its run paths name it)
        if above == folder:
            return path
        folder = above
    return folder


def render_github(result: CheckResult, options: ReportOptions) -> str:
    """Annotations grouped per file, errors first; waived findings as plain lines."""
    first_files = _first_result_files(result)
    by_file: dict[str, list[tuple[FindingGroup, int | None, str]]] = {}
    for group in group_for_display(result, options.min_severity):
        path, line, message = _target(group, first_files)
        shown = relative_path(path, options.root) if path else NO_FILE
        by_file.setdefault(shown, []).append((group, line, message))
    lines: list[str] = []
    order = sorted(by_file, key=lambda p: (-max(g.severity for g, _, _ in by_file[p]), p == NO_FILE, p))
    for path in order:
        entries = sorted(by_file[path], key=lambda e: (-e[0].severity, e[1] or 0, e[0].first.code, e[2]))
        lines.append(f"::group::{escape_data(path or 'mlcheck')}")
        lines.extend(annotation(replace(group.first, line=line), path, message) for group, line, message in entries)
        lines.append("::endgroup::")
    for waived in result.waived:
        lines.append(_one_line(f"waived {waived.finding.code} {relative_path(waived.finding.path, options.root)}"
                               f"{':' + str(waived.finding.line) if waived.finding.line else ''}: "
                               f"{' '.join(waived.reason.split())}"))  # (a name's newline begins no command)
    return "\n".join(lines) + ("\n" if lines else "")
