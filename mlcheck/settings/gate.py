"""The CI gate around a check: settings applied to a result, reports written, the exit code.

Pure functions of a :class:`~mlcheck.results.CheckResult` and :class:`~mlcheck.settings.config.Settings`,
used by the CLI and usable from a script::

    settings = load_settings({"strict": True})
    result = postprocess(check(paths), settings)
    sys.exit(exit_code(result, settings))
"""

from __future__ import annotations

import datetime as dt
import os
import stat
import sys
from pathlib import Path
from typing import Sequence

from mlcheck.settings.config import FORMATS, Settings
from mlcheck.settings.replaced_file import replaced_file
from mlcheck.model import Finding, Severity
from mlcheck.results import CheckResult
from mlcheck.report import ReportOptions, report_blocks
from mlcheck.report.plain import one_line, safe_stream, summary_line
from mlcheck.read.reading_rules import FILE_UNREADABLE
from mlcheck.settings.selection_filter import select_findings
from mlcheck.settings.waivers import add_findings, apply_waivers
from mlcheck.settings.input_files import input_digests as input_digests  # (re-exported)

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
UNOPENABLE_CODE = FILE_UNREADABLE.code


def postprocess(result: CheckResult, settings: Settings, today: dt.date | None = None,
                checked: Sequence[str] | None = None) -> CheckResult:
    """Waivers first (so an ignored code does not make its waiver look unused), then the
    configuration's own problems, then ``select``/``ignore``. ``checked``: the paths given (a
    waiver for none of them is not unused)."""
    result = apply_waivers(result, settings.waivers, settings.base_dir, today, checked)
    result = add_findings(result, settings.problems)
    return select_findings(result, settings.select, settings.ignore)


def reported(found: Finding, settings: Settings) -> bool:
    """Whether ``found`` stays in the report under ``settings`` (not waived, selected, not
    ignored), as :func:`postprocess` would leave it: what ``mlcheck watch`` prints as it follows."""
    alone = apply_waivers(CheckResult(runs=(), benchmarks=(), findings=(found,)), settings.waivers, settings.base_dir)
    return found in select_findings(alone, settings.select, settings.ignore).findings


def fail_level(settings: Settings) -> Severity:
    """Warnings fail under ``strict``; errors always do."""
    return Severity.WARNING if settings.strict else Severity.ERROR


def unopenable_given(result: CheckResult, paths: Sequence[str]) -> list[str]:
    """The paths named on the command line that could not be opened or listed at all (a file
    met while walking a folder is a finding like any other). Taken before any filtering."""
    from mlcheck.package.named_folders import folders_of_odd_globs

    given = set(folders_of_odd_globs(paths))  # (as the check named them: a glob of a folder with a FIFO, the folder)
    return sorted({f.path for f in result.all_findings()
                   if f.code == UNOPENABLE_CODE and f.line is None and f.path in given})


def unopenable_lines(result: CheckResult, unopenable: Sequence[str]) -> list[str]:
    """A line for stderr per path named on the command line that could not be read at all (the
    reason exit 2 has, beside the reports)."""
    reasons = {f.path: f.message for f in result.all_findings() if f.code == UNOPENABLE_CODE and f.line is None}
    return [one_line(f"mlcheck: error: {path}: {reasons.get(path, 'could not be read')}") for path in unopenable]


def exit_code(result: CheckResult, settings: Settings, unopenable: Sequence[str] = ()) -> int:
    """2 when a path given on the command line could not be opened at all (``unopenable``: mlcheck
    could not do its job for it); otherwise 0 when no finding is at or above the fail level (or
    ``exit_zero``), else 1."""
    if unopenable:
        return EXIT_ERROR
    worst = result.worst_severity()
    failing = worst is not None and worst >= fail_level(settings)
    return EXIT_FINDINGS if failing and not settings.exit_zero else EXIT_OK


_SUFFIX_FORMATS = ((".sarif.json", "sarif"), (".sarif", "sarif"), (".json", "json"), (".xml", "junit"),
                   (".md", "markdown"), (".markdown", "markdown"), (".html", "html"), (".htm", "html"), (".txt", "text"))
"""The format a report's file name says, for ``-o PATH`` without ``FORMAT:`` (the first suffix that ends it)."""
_SUFFIX_SHOWN = {"sarif": ".sarif", "json": ".json", "junit": ".xml", "markdown": ".md", "html": ".html"}
"""The suffix a usage message suggests for a format's file (text and github: ``.txt``)."""
_ALIASES = {"xml": "junit", "md": "markdown", "htm": "html", "txt": "text"}
"""Other names of formats before ``:`` (their files' suffixes)."""
_SUFFIX_NAMES = frozenset(suffix for suffix, _ in _SUFFIX_FORMATS)
"""Names that are a suffix alone (``-o .json``): no report's name."""


def format_named(path: str) -> str | None:
    """The report format a file's name says (``r.json``: json), None when it says none."""
    if os.path.basename(path) in _SUFFIX_NAMES:
        return None
    return next((form for suffix, form in _SUFFIX_FORMATS if path.lower().endswith(suffix)), None)


def parse_output(spec: str) -> tuple[str, str]:
    """``FORMAT:PATH`` -> (format, path), or ``PATH`` whose name ends in a report's suffix (``.sarif``,
    ``.json``, ``.xml`` for JUnit, ``.md``, ``.html``, ``.txt``) -> (its format, path); raises ValueError
    with what to write instead."""
    name, sep, path = spec.partition(":")
    name = _ALIASES.get(name.strip().lower(), name.strip().lower())
    # (-o report.sarif: the format its name says; C:/x.json or a/b:c/x.json: a path, whose colon names no format)
    a_path = not sep or (len(name) == 1 and name.isalpha()) or "/" in name or "\\" in name
    if a_path:
        by_suffix = format_named(spec)
        if by_suffix is not None:
            return by_suffix, spec
    if sep and not path.strip() and name in FORMATS and name != "auto" and not a_path:
        raise ValueError(f"--output {spec!r} names no file after {name + ':'!r}; e.g. -o {name}:mlcheck-report"
                         f"{_SUFFIX_SHOWN.get(name, '.txt')}, or {name}:- "
                         "for standard output")
    if not sep or not path or name not in FORMATS or name == "auto":
        choices = "|".join(f for f in FORMATS if f != "auto")
        unknown = f"unknown format {name!r}: " if sep and not a_path and name not in FORMATS else ""
        raise ValueError(f"{unknown}--output takes FORMAT:PATH with FORMAT one of {choices}, e.g. "
                         f"sarif:mlcheck.sarif, or a PATH ending in .sarif, .json, .xml (junit), .md, .html "
                         f"or .txt; got {spec!r}")
    return name, "-" if path != "-" and standard_stream(path) == 1 else path


def standard_stream(path: str) -> int | None:
    """1 or 2 when ``path`` is the file standard output or standard error writes to
    (``/dev/stdout``, ``/proc/self/fd/2``, the file the shell redirected it into), else None: such
    a report is written to that stream, never renamed over its file (which would delete the file
    the stream still writes to) nor opened anew (which would empty it)."""
    try:
        status = os.stat(path)
        if stat.S_ISCHR(status.st_mode) and os.path.samefile(path, os.devnull):
            return None  # (/dev/null: the report is dropped, whatever the streams are)
    except (OSError, ValueError):
        return None
    for descriptor in (1, 2):
        try:
            stream = os.fstat(descriptor)
        except OSError:
            continue
        if (stream.st_dev, stream.st_ino) == (status.st_dev, status.st_ino) or (  # (a terminal: its device)
                stat.S_ISCHR(status.st_mode) and stat.S_ISCHR(stream.st_mode) and stream.st_rdev == status.st_rdev):
            return descriptor
    return None


def overwritten_inputs(paths: Sequence[str], result: CheckResult,
                       also_read: Sequence[str | None] = ()) -> list[str]:
    """The output paths that name an input (writing them would destroy it): a log just read,
    one of ``also_read`` (the config file), or a file that a package check reads: anything in a
    benchmark folder (``scaling.json``, ``package_checker_params``), in ``systems/`` or in a
    system folder of a package being checked. With no report path that names an existing file
    (a new report, ``/dev/null``), no input is resolved (the real path of each file read takes a
    system call per folder level: 0.1 s for a round)."""
    paths = [path for path in paths if os.path.isfile(os.path.realpath(path))]  # (an input exists)
    if not paths:
        return []
    read = {os.path.realpath(run.path) for run in result.runs if run.path != "-"}
    read.update(os.path.realpath(path) for path in also_read if path)
    guarded: set[str] = set()
    for bench in result.benchmarks:
        folder = Path(os.path.realpath(bench.folder)) if bench.folder else None
        if folder is not None and len(folder.parts) >= 4 and folder.parts[-3] == "results":
            guarded.update({str(folder), str(folder.parent), str(folder.parents[2] / "systems")})
    # The file itself, not its spelling: a hard link to a log is the log (device and inode).
    read_ids = {file_id(path) for path in read} - {None}
    if any(run.path == "-" for run in result.runs):  # (``check - < log.txt``: stdin is that file)
        read_ids |= {stdin_file_id()} - {None}
    return [path for path in paths if os.path.realpath(path) in read or file_id(path) in read_ids
            or (os.path.isfile(path) and os.path.dirname(os.path.realpath(path)) in guarded)]


def outputs_in_checked_folders(paths: Sequence[str], result: CheckResult) -> list[tuple[str, str]]:
    """The output paths (existing or new, at any depth) that lie in a folder of a package this
    check reads, each with the deepest such folder: a checked benchmark folder, its system's
    folder, the package's ``results/`` and ``systems/``. mlcheck never writes into the folders it checks: a
    report there would be a file the next check reports (MLC508) or reads. The package's own top
    level and anywhere else stay allowed (``-o sarif:Acme/mlcheck.sarif``)."""
    paths = [path for path in paths if path != "-"]
    if not paths:
        return []
    guarded: set[Path] = set().union(*(package_folders(bench.folder) for bench in result.benchmarks))
    found = []
    for path in paths:
        real = Path(os.path.realpath(path))
        inside = sorted(folder for folder in guarded if real != folder and real.is_relative_to(folder))
        if inside:
            found.append((path, str(inside[-1])))
    return found


def package_folders(bench_folder: str | None) -> set[Path]:
    """The folders of the package a benchmark folder lies in that mlcheck never writes into: the
    benchmark folder, its system's, the package's ``results/`` and ``systems/`` (none outside one)."""
    folder = Path(os.path.realpath(bench_folder)) if bench_folder else None
    if folder is None or len(folder.parts) < 4 or folder.parts[-3] != "results":
        return set()
    return {folder, folder.parent, folder.parents[1], folder.parents[2] / "systems"}


def stdin_file_id() -> tuple[int, int] | None:
    """(device, inode) of the regular file standard input reads, else None (a pipe, a terminal)."""
    try:
        status = os.fstat(0)
    except (OSError, ValueError):
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def file_id(path: str) -> tuple[int, int] | None:
    """(device, inode) of an existing file, else None."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    return status.st_dev, status.st_ino


def utf8_standard_output() -> None:
    """Standard output written in UTF-8 whatever the locale, as a report's file is: the encoding
    its XML header and HTML charset declare, that Markdown and annotations are read in (under a
    Latin-1 locale the JUnit XML was not well-formed)."""
    try:
        sys.stdout.reconfigure(encoding="utf-8", errors="backslashreplace")  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # (not a text file of io: left as it is)
        pass


def write_outputs(specs: Sequence[str], result: CheckResult, options: ReportOptions) -> list[str]:
    """Write each ``FORMAT:PATH`` report; returns the paths written. Raises OSError/ValueError."""
    written = []
    for spec in specs:
        name, path = parse_output(spec)
        if path == "-" or standard_stream(path) == 2:  # (standard output, as - is standard input among the inputs;
            stream = sys.stdout if path == "-" else sys.stderr  # standard error's file: after what it holds)
            if path == "-":
                utf8_standard_output()
            stream.flush()
            safe = safe_stream(stream, name)
            for block in report_blocks(name, result, options):
                safe.write(block)
            stream.flush()
            written.append(path)
            continue
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        with replaced_file(path) as handle:  # (whole or not at all: a failed write keeps the old file)
            for block in report_blocks(name, result, options):  # (written as it is made)
                handle.write(block)
            if name == "text":  # (the verdict, which stderr shows: the file alone says it, and is known as a report)
                handle.write(summary_line(result, options.fail_level) + "\n")
        written.append(path)
    return written


def benchmark_folders(paths: Sequence[str]) -> list[str]:
    """Each file replaced by its folder (``result_3.txt`` -> its benchmark folder; a power log,
    ``power/result_3/node_0.txt``, too), once each.

    pre-commit passes the changed files; the run count and the score need the whole folder.
    """
    from mlcheck.package.power_paths import power_log_benchmark

    folders: list[str] = []
    for path in paths:
        folder = path if path == "-" or os.path.isdir(path) else power_log_benchmark(path) or os.path.dirname(path) or "."
        if folder not in folders:
            folders.append(folder)
    return folders
