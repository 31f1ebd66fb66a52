"""What ``check`` does once its options are settings: run the check with its progress bar,
apply the settings, render the reports and exit with the gate's code. ``mlcheck check`` and
``mlcheck report`` use it, and ``mlcheck watch`` ends with it (reading only the lines it
watched), so it sits below every command module.
"""

from __future__ import annotations

import gc
import os
import sys
from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Mapping, Sequence

import click

from mlcheck.cli.common import (EXIT_ERROR, console, jobs_of, pass_broken_pipes, refuse_overwriting_inputs,
                                refuse_streams_into_inputs, on_standard_output,
                                run_check)
from mlcheck.cli.progress import progress_bar
from mlcheck.model import Finding, Severity
from mlcheck.report import ReportOptions, render_waived_text, report_blocks, repository_root, resolve_format
from mlcheck.report.plain import TERMINAL_CAP, CommandSafeStream, counted, one_line, safe_stream, summary_line
from mlcheck.results import CheckResult
from mlcheck.rules.config_rules import CONFIG_INVALID
from mlcheck.settings.config import Settings
from mlcheck.settings.found_outputs import refused_output
from mlcheck.settings.gate import (exit_code, fail_level, input_digests, parse_output, postprocess,
                                   overwritten_inputs, unopenable_given, unopenable_lines, utf8_standard_output, write_outputs)

if TYPE_CHECKING:
    from rich.console import Console


def color_console(color: str) -> Console:
    """stdout console: ``never`` and ``always`` beat NO_COLOR and the terminal test; ``auto`` follows them."""
    from rich.console import Console

    pass_broken_pipes()
    if color == "never":
        return Console(file=CommandSafeStream(sys.stdout), highlight=False, no_color=True,  # type: ignore[arg-type]
                       color_system=None, markup=False, emoji=False)
    if color == "always":
        return Console(file=CommandSafeStream(sys.stdout), highlight=False, force_terminal=True,  # type: ignore[arg-type]
                       no_color=False, markup=False, emoji=False)
    return console()


def checked(paths: Sequence[str], settings: Settings, quiet: bool, verbose: bool,
            line_limits: Mapping[str, int] | None = None,
            unused: frozenset[str] = frozenset()) -> tuple[CheckResult, list[str]]:
    """The post-processed result, and the given paths that could not be opened at all (``unused``:
    the settings the command does not use, left out of what it says of a found config)."""
    with progress_bar(paths, enabled=settings.progress and not quiet, color=settings.color) as progress:
        result = run_check(paths, settings.ruleset, progress, line_limits, jobs_of(settings),
                           settings.ruleset_source)
    unopenable = unopenable_given(result, paths)
    result = postprocess(result, settings, checked=paths)
    refuse_streams_into_inputs(result, settings.config_path, standard_output=False)  # (before -v writes on stderr)
    say_settings(settings, result, verbose, unused)
    return result, unopenable


def config_notice(settings: Settings, unused: frozenset[str] = frozenset()) -> str:
    """What a config found by the search decides (:attr:`Settings.config_deciding`), but the
    settings the command does not use (``score`` fails on no finding, writes no config output)."""
    files = ", ".join(parse_output(spec)[1] for spec in settings.outputs)  # (the config's own: named with it)
    writes = f"output ({files})" if settings.outputs_source.startswith("output in") else "output"
    named = [writes if name == "output" else name for name in settings.config_deciding if name not in unused]
    return (f"mlcheck: {settings.config_path} ({settings.config_reason}) sets {', '.join(named)}, which decide what "
            "is judged, what fails and what is written; --config /dev/null reads no config") if named else ""


def say_settings(settings: Settings, result: CheckResult, verbose: bool = True,
                 unused: frozenset[str] = frozenset()) -> None:
    """``-v``: the config file used and why, the rounds, the waivers (on stderr); else only a found
    config file's settings that decide what fails or what is written (:func:`config_notice`; but the
    settings ``unused`` by the command)."""
    notice = config_notice(settings, unused)
    if notice:
        click.echo(one_line(notice), err=True)
    if not verbose:
        return
    chatter = console(stderr=True)
    chatter.print(one_line(f"mlcheck: config: {settings.config_path or 'none'} ({settings.config_reason})"),
                  soft_wrap=True)
    rounds = Counter(r.ruleset or "?" for r in result.runs)
    for version, count in sorted(rounds.items()):
        source = next(r.ruleset_source for r in result.runs if (r.ruleset or "?") == version)
        chatter.print(one_line(f"mlcheck: round {version} for {counted(count, 'run')} (first: {source})"),
                      soft_wrap=True)
    if settings.waivers:
        chatter.print(f"mlcheck: {counted(len(settings.waivers), 'waiver')}, "
                      f"{counted(len(result.waived), 'finding')} waived", soft_wrap=True)


def report_options(settings: Settings, quiet: bool, digests: bool = False,
                   result: CheckResult | None = None) -> ReportOptions:
    first_log = next((run.path for run in result.runs if run.path != "-"), None) if result else None
    return ReportOptions(fail_level=fail_level(settings), root=repository_root(checked=first_log),
                         min_severity=fail_level(settings) if quiet else Severity.INFO,
                         input_digests=input_digests(result) if digests and result else {})


def check_and_report(paths: Sequence[str], settings: Settings, quiet: bool = False,
                     verbose: bool = False, line_limits: Mapping[str, int] | None = None,
                     text_format: str = "full", statistics: bool = False, said: Sequence[Finding] = ()) -> None:
    """What ``check`` does once its options are settings: check, report, exit with its code
    (``mlcheck watch`` ends with it, reading only the lines it watched; ``said``: what it said while
    following, added where the lines read do not give it again, an init overrun the wall clock
    showed). On a terminal the text report shows at most :data:`~mlcheck.report.plain.TERMINAL_CAP` findings."""
    named: dict[str, str] = {}
    kept: list[str] = []
    refused: list[Finding] = []
    for spec in settings.outputs:
        problem = _output_problem(spec, settings.format, named)
        if problem is None:
            kept.append(spec)
        elif settings.outputs_source == "--output":
            raise click.UsageError(problem)
        else:  # (a config file's or MLCHECK_OUTPUT's entry: a finding of the setting, as its other problems)
            where = settings.config_path if settings.outputs_source.startswith("output in") else None
            refused.append(CONFIG_INVALID.at(where or "environment", None, f"{settings.outputs_source}: {problem}; "
                                             "the entry is ignored"))
    if refused:
        settings = replace(settings, outputs=tuple(kept), problems=settings.problems + tuple(refused))
    _check_and_report(paths, settings, quiet, verbose, line_limits, text_format, statistics, said)


def _output_problem(spec: str, output_format: str, named: dict[str, str]) -> str | None:
    """Why an output cannot be written as asked, said before the check (None: it can); ``named``:
    the files of the outputs before it."""
    try:
        path = parse_output(spec)[1]
    except ValueError as error:
        return str(error)
    if path == "-" and output_format != "auto":  # (it takes standard output instead of the report)
        return (f"the output {spec!r} prints its report on standard output, where the {output_format} report "
                "(the format setting) goes; one would follow the other. Write one of them to a file")
    if path == "-":
        other = named.setdefault("-", spec)
        return None if other == spec else (f"the outputs {other!r} and {spec!r} both print their reports on standard "
                                           "output, one after the other; write one of them to a file")
    real = os.path.realpath(path)
    if path.endswith(("/", os.sep)) or os.path.isdir(real):
        return f"the output {spec!r} names a folder; give the report a file's path in it"
    if os.path.exists(real) and not os.path.isfile(real):
        return None  # (/dev/null, a pipe: nothing is lost)
    unwritable = unwritable_folder(real)
    if unwritable is not None:
        return f"the output {spec!r} cannot be written: {unwritable}"
    same = named.setdefault(os.path.normcase(real), spec)
    if same != spec:  # (each report is written in turn: the last would be all that is left)
        return f"the outputs {same!r} and {spec!r} name the same file; one report would replace the other. " \
               "Give each its own path"
    return None


def unwritable_folder(path: str) -> str | None:
    """Why a report cannot be written at ``path`` (its nearest folder that exists is a file, or not
    writable, and the file is not there to be written over), judged without creating anything;
    None when it may be."""
    if os.path.isfile(path) and os.access(path, os.W_OK):
        return None
    folder = os.path.dirname(path) or "."
    while not os.path.exists(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} is not writable"
    return None


def _check_and_report(paths: Sequence[str], settings: Settings, quiet: bool, verbose: bool,
                      line_limits: Mapping[str, int] | None, text_format: str, statistics: bool,
                      said: Sequence[Finding] = ()) -> None:
    result, unopenable = checked(paths, settings, quiet, verbose, line_limits)
    given = {(f.code, f.line) for f in result.all_findings()} if said else set()
    if any((f.code, f.line) not in given for f in said):
        result = replace(result, findings=tuple(sorted({*result.findings, *(f for f in said if (f.code, f.line) not in given)},
                                                       key=Finding.sort_key)))
    # The reports read every judged run, which each full collection would traverse again for
    # nothing (0.15-0.2 s on all shared rounds): the result is frozen out of the collector's
    # traversals (gc.freeze; the command ends with the reports), the reports' garbage collected.
    gc.freeze()
    refuse_overwriting_inputs([parse_output(spec)[1] for spec in settings.outputs], result, settings.config_path,
                              named_by="" if settings.outputs_source == "--output" else settings.outputs_source)
    wants_html = settings.format == "html" or any(parse_output(s)[0] == "html" for s in settings.outputs)
    options = replace(report_options(settings, quiet, wants_html, result), output_format=text_format,
                      unopenable=tuple(unopenable))
    failed = False
    found = settings.outputs_source.startswith("output in") and settings.config_reason.startswith("found")
    for spec in settings.outputs:  # (each its own, before standard output: a closed pipe or a full disk loses none)
        why = refused_output(spec, os.getcwd()) if found else None  # (again at the write: a link made since the check began)
        if why is not None:
            click.echo(one_line(f"mlcheck: error: the report {spec} of {settings.config_path} {why} now: not written"),
                       err=True)
            failed = True
            continue
        try:
            write_outputs([spec], result, options)
        except OSError as error:
            click.echo(one_line(f"mlcheck: error: cannot write the report {spec}: {error}"), err=True)
            failed = True
    chosen = resolve_format(settings.format)
    if any(map(on_standard_output, settings.outputs)):
        pass  # (-o FORMAT:- is the report on standard output)
    elif chosen == "text":
        from mlcheck.report.text import render_text

        out = color_console(settings.color)
        render_text(result, out, min_severity=options.min_severity, output_format=text_format,
                    cap=TERMINAL_CAP if out.is_terminal else None)
        render_waived_text(result, out)
    else:
        utf8_standard_output()
        stream = safe_stream(sys.stdout, chosen)
        for block in report_blocks(chosen, result, options):  # (a large report is written as it is made)
            stream.write(block)
        sys.stdout.flush()
    if statistics:
        from mlcheck.report.text_findings import statistics_lines

        click.echo("\n".join(statistics_lines(result, options.min_severity)), err=chosen != "text")
    if chosen == "github":
        from mlcheck.report.job_summary import ANNOTATIONS_SHOWN, SUMMARY_VARIABLE, annotations_not_shown, write_job_summary

        hidden = annotations_not_shown(result, options.min_severity)  # (once: the summary says it too)
        if hidden:
            click.echo(f"mlcheck: GitHub shows {ANNOTATIONS_SHOWN} annotations of each kind per step: {hidden} (one per "
                       "group of like findings) are not shown there; this log lists them all, as does a SARIF report "
                       "where one is written", err=True)

        summary = os.environ.get(SUMMARY_VARIABLE)
        try:
            if summary and overwritten_inputs([summary], result, [settings.config_path]):
                raise OSError(f"{summary} is an input of this check; mlcheck never writes into its input")
            write_job_summary(result, options, hidden=hidden)
        except OSError as error:  # (a page beside the annotations: the check's verdict stands)
            click.echo(one_line(f"mlcheck: warning: cannot write the job summary to ${SUMMARY_VARIABLE}: {error}"),
                       err=True)
    if failed:
        sys.exit(EXIT_ERROR)
    click.echo(summary_line(result, fail_level(settings)), err=True)
    for line in unopenable_lines(result, unopenable):
        click.echo(line, err=True)
    sys.exit(exit_code(result, settings, unopenable))
