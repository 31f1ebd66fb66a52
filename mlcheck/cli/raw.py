"""The ``split`` and ``watch`` commands (raw job output), registered on the main group by ``cli``.

Thin wrappers: options to arguments, call :mod:`mlcheck.raw.split` / :mod:`mlcheck.raw.watch`, print,
pick the exit code (0 clean, 1 findings that fail, 2 mlcheck could not do its job).
"""

from __future__ import annotations

import os
import re
import signal
import sys
from dataclasses import replace

import click

from mlcheck.cli.checking import check_and_report, config_notice
from mlcheck.cli.common import (EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, given_once, load_cli_settings, on_standard_output,
                                refuse_streams_into_folder, refuse_streams_into_log)
from mlcheck.model import Finding, Severity
from mlcheck.raw.watch_paths import compressed, unwatchable
from mlcheck.read.reading_rules import GLUED_RECORDS
from mlcheck.report.plain import OUTPUT_FORMATS as TEXT_FORMATS, command_safe, one_line
from mlcheck.settings.config import FORMATS
from mlcheck.settings.gate import fail_level, reported
from mlcheck.facts.rulesets import RulesetError, load_ruleset, normalise_version
from mlcheck.cli.seconds import Seconds
from mlcheck.cli.watch_end import (Terminated, end_interrupted, hold_early_term, hold_read, judge_compressed,
                                   read_otherwise, report_limits, take_term, terminated)


def _line(found: Finding) -> str:
    """A finding on stderr as the text report's line: the log's text escaped (no terminal
    control sequence, no CR or line end from a value)."""
    where = f"{found.path}:{found.line}" if found.line is not None else found.path
    return command_safe(f"{one_line(where)}: {found.severity.label} {found.code} {found.name}: {one_line(found.message)}")


@click.command("split")
@click.argument("raw", metavar="RAW")
@click.option("--output-dir", "-o", "out_dir", required=True, multiple=True, callback=given_once,
              type=click.Path(file_okay=False), metavar="DIR", help="Folder to write result_<i>.txt into (created if needed).")
@click.option("--start-index", type=click.IntRange(min=0), default=0, show_default=True,
              help="Number of the first file written (result_<start>.txt).")
@click.option("--force", is_flag=True, help="Overwrite result files that exist (those numbered after the files "
              "written are left, and named on stderr).")
def split_command(raw: str, out_dir: str, start_index: int, force: bool) -> None:
    """Write the runs of raw job output (poprun/MPI console, gzip, - for stdin) as result files.

    Each result_<i>.txt holds exactly the :::MLLOG lines of one run, as the logging rank printed
    them, without rank tags, timestamps or colour codes. What was dropped is reported on stderr.
    Exit 0 when written, 1 when a record was damaged (a cut run) or records only another rank
    printed were left out (MLC028), 2 when nothing could be written.
    """
    from mlcheck.package.file_kinds import named_device, special_kind
    from mlcheck.raw.split import SplitError, split_log  # imported per command: `check` stays light
    from mlcheck.report.grouped import said_once

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:  # (a time-out's SIGTERM: unwound as Ctrl-C is,
        signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))  # no partial file left)
    if raw != "-" and not os.path.lexists(raw):  # (as check says it)
        click.echo(one_line(f"mlcheck: error: {raw}: no such file or folder"), err=True)
        sys.exit(EXIT_ERROR)
    if special_kind("-") if raw == "-" else named_device(raw):  # (/dev/zero, < /dev/zero: read forever)
        click.echo(one_line(f"mlcheck: error: {raw}: this is {special_kind(raw) or 'a device'}, not a log (reading it "
                            "could wait forever); name the log file, or pipe it in"), err=True)
        sys.exit(EXIT_ERROR)
    raw = _one_log(raw)
    refuse_streams_into_log(raw, "split")
    refuse_streams_into_folder(out_dir, "split")
    try:
        result = split_log(raw, out_dir, start_index, force)
    except SplitError as error:
        click.echo(one_line(f"mlcheck: error: {error}"), err=True)
        sys.exit(EXIT_ERROR)
    for found, others in said_once(result.findings):  # (one line per kind of finding, as the text report)
        fixed = " (the files written hold one record per line)" if found.code in _FIXED_BY_SPLIT else ""
        click.echo(_line(found) + fixed + others, err=True)
    for path, count, lacking, refused in zip(result.written, result.records, result.lacking, result.refused):
        note = (f" (no {' and no '.join(lacking)}: the run crashed or was cut; the official checker fails "
                "it, and the rules count it as a failed run among the runs of its benchmark)") if lacking else ""
        bad = f" and {refused} refused line{'' if refused == 1 else 's'} written as printed" if refused else ""
        click.echo(one_line(f"{path}: {count} record{'' if count == 1 else 's'}{bad}{note}"))
    if force and result.written and (older := _older_results(out_dir, start_index + len(result.written))):
        click.echo(one_line(f"mlcheck: warning: {out_dir} also holds {', '.join(older)}, written before and not "
                            "overwritten: the folder mixes the runs of two splits; remove them if they are not "
                            "runs of this benchmark"), err=True)
    if not result.written:
        if not any(f.code == "MLC001" for f in result.findings):  # else the finding said why
            click.echo(one_line(f"mlcheck: error: no :::MLLOG record in {raw}; nothing written"), err=True)
        sys.exit(EXIT_ERROR)
    damaged = any((f.severity is Severity.ERROR and f.code not in _FIXED_BY_SPLIT)
                  or (f.code == "MLC028" and f.severity is Severity.WARNING) for f in result.findings)
    sys.exit(EXIT_FINDINGS if damaged else EXIT_OK)


def _older_results(out_dir: str, after: int) -> list[str]:
    """The ``result_<i>.txt`` files of ``out_dir`` numbered ``after`` or more (in their order)."""
    try:
        numbered = [(int(name[7:-4]), name) for name in os.listdir(out_dir) if re.fullmatch(r"result_[0-9]{1,9}\.txt", name)]
    except OSError:
        return []
    return [name for number, name in sorted(numbered) if number >= after]


def _one_log(raw: str) -> str:
    """The log ``split`` reads: ``raw``, or the logging rank's file of a per-rank output folder
    (``DIR/1/rank.N/stdout``, as ``check`` reads it); exit 2 for any other folder."""
    if raw == "-" or not os.path.isdir(raw):
        return raw
    from mlcheck.package.discover import discover
    refs, _empty = discover([raw])
    if len(refs) == 1 and refs[0].folder is None:  # (one log found, not a benchmark folder's file)
        click.echo(one_line(f"mlcheck: splitting {refs[0].path}, the lowest rank's output in {raw}"), err=True)
        return refs[0].path
    found = f"it holds {len(refs)} logs" if refs else "no log was found in it"
    click.echo(one_line(f"mlcheck: error: {raw} is a folder ({found}); split takes one raw log: a file, - for "
               "stdin, or a per-rank output folder (DIR/1/rank.N/stdout)"), err=True)
    sys.exit(EXIT_ERROR)


_FIXED_BY_SPLIT = frozenset({GLUED_RECORDS.code})
"""Errors of the input that the written files no longer have."""


_MACHINE = {"json": "JSON", "sarif": "SARIF", "junit": "JUnit", "github": "annotations"}  # (--fail-fast writes these)


@click.command("watch")
@click.argument("log", metavar="LOG")
@click.option("--ruleset", "-r", metavar="X.Y.Z", help="Round to judge under. Default: inferred.")
@click.option("--fail-fast", is_flag=True, help="Exit 1 at the first error, without waiting for run_stop.")
@click.option("--runs", type=click.IntRange(min=1), default=1, show_default=True,
              help="End after this many runs have ended: logged their run_stop, or died (the job ended) with no "
                   "relaunch within --relaunch-wait; an attempt the job launched again is not counted.")
@click.option("--format", "-f", "output_format", type=click.Choice(FORMATS[1:]), default=None,
              help="Format of the final report on stdout, as check's. Default: the config's or MLCHECK_FORMAT's, else text.")
@click.option("--output", "-o", "outputs", multiple=True, metavar="FORMAT:PATH",
              help="Also write the final report to a file, as check's -o (repeatable): also on SIGTERM (a CI "
              "job's time-out), of what was written.")
@click.option("--poll", type=Seconds(0.01, 3600.0), default=0.1, show_default=True,
              metavar="SECONDS", help="How often to look for new lines.")
@click.option("--relaunch-wait", type=Seconds(0.0, 1e9), default=120.0, show_default=True, metavar="SECONDS",
              help="How long after a run died (the job ended) a relaunch may come and make it an attempt, not a run.")
@click.option("--idle-timeout", type=Seconds(0.0, 1e9), default=None, metavar="SECONDS",
              help="End (with the report so far) when the log did not grow for this long. Default: wait.")
@click.option("--no-progress", is_flag=True, help="Do not print progress lines on stderr.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Config file (TOML), as for `check`. Default: found from LOG upwards; /dev/null: none.")
@click.option("--output-format", "text_format", type=click.Choice(list(TEXT_FORMATS)), default="full",
              show_default=True, help="The final text report's form, as check's: full or concise (one line per finding).")
@click.option("--strict/--no-strict", default=None, help="Warnings fail the final report too (exit 1), as "
              "`check --strict`.")
def watch_command(log: str, ruleset: str | None, fail_fast: bool, runs: int, output_format: str | None,
                  outputs: tuple[str, ...], poll: float, relaunch_wait: float, idle_timeout: float | None,
                  no_progress: bool, config_path: str | None, text_format: str, strict: bool | None) -> None:
    """Follow a log while the job writes it; report each problem as soon as it is certain.

    Findings and progress (elapsed, last eval, projected time-to-train) go to stderr as they
    come; after the run_stop of the last run (--runs), once the log has been quiet for 20 polls
    (records may follow run_stop; 20 s at least while the run's submission_* block is
    incomplete, as TPU loggers print its rest after run_stop), the report `check` gives for the
    lines watched goes to stdout and the exit code is check's. With --fail-fast the first error
    ends the watch with exit 1 (with --format json, after the report of the lines read). A run that
    logged run_stop without converging is a warning while the benchmark result may still drop it
    as its slowest (--runs is the round's number of runs, within its non-converged allowance), as
    the final report tolerates it. LOG may not exist yet (not there by --idle-timeout: exit 2); a folder or an unreadable file exits 2.

    A gzip LOG is not followed: it is checked whole once its end is written (--idle-timeout: exit 2 before).

    The config check uses (--config, MLCHECK_CONFIG, else .mlcheck.toml or [tool.mlcheck] in
    pyproject.toml found from LOG upwards) applies throughout: its ruleset, select/ignore and waivers decide
    what is printed while following and what stops --fail-fast, as in the final report.
    """
    from mlcheck.raw.watch import watch
    from mlcheck.raw.watch_state import StopWatching

    if log == "-":
        click.echo("mlcheck: error: watch follows a file; to read stdin once use `mlcheck check -`",
                   err=True)
        sys.exit(EXIT_ERROR)
    hold_early_term()
    # The config (.mlcheck.toml, [tool.mlcheck]) applies while following too: its ruleset judges
    # the partial runs, and what it waives or leaves out is neither printed nor stops --fail-fast.
    settings = load_cli_settings(config_path, [log], ruleset=ruleset, format=output_format, no_progress=True,
                                 strict=strict, outputs=outputs)
    if settings.format == "auto" and not any(map(on_standard_output, settings.outputs)):  # (watch's default: text)
        settings = replace(settings, format="text")
    output_format = settings.format
    try:
        forced = load_ruleset(normalise_version(settings.ruleset)) if settings.ruleset else None
    except RulesetError as error:
        click.echo(one_line(f"mlcheck: error: {error}"), err=True)
        sys.exit(EXIT_ERROR)
    problem = unwatchable(log)
    if problem is not None:
        click.echo(one_line(f"mlcheck: error: {log}: {problem}"), err=True)
        sys.exit(EXIT_ERROR)
    refuse_streams_into_log(log, "watch", settings.config_path)  # (now, not after the run)
    if notice := config_notice(settings):  # (a found config's deciding settings: said now, not in the final report)
        click.echo(one_line(notice), err=True)
        settings = replace(settings, config_deciding=())
    if compressed(log):
        judge_compressed(log, settings, poll, idle_timeout, text_format, bool(settings.outputs or output_format in _MACHINE))

    stopped_by: list[Finding] = []
    said: list[Finding] = []  # (the findings said while following: decided)

    def on_finding(found: Finding) -> None:
        if not reported(found, settings):
            return
        said.append(found)
        click.echo(_line(found), err=True)
        if fail_fast and found.severity is Severity.ERROR:
            stopped_by.append(found)
            raise StopWatching

    def on_progress(text: str) -> None:
        if not no_progress:
            click.echo(one_line(f"mlcheck: {text}"), err=True)

    try:
        take_term()  # (a time-out's or a CI cancel's SIGTERM: as Ctrl-C, one since the start too)
        outcome = watch(log, on_finding, on_progress, forced, runs, poll, idle_timeout, settings.ruleset_source,
                        relaunch_wait)
    except KeyboardInterrupt as stop:
        failing = sorted({found.code for found in said if found.severity >= fail_level(settings)})
        timed_out = isinstance(stop, Terminated) and bool(settings.outputs or output_format in _MACHINE)
        end_interrupted(stop, "; " + (f"failing findings were said above ({', '.join(failing)}): the run fails" if failing
                                      else "no failing finding so far") + ("; the report covers what was written, as "
                        "check judges it (a run not ended fails there; a second SIGTERM ends mlcheck)" if timed_out else ""),
                        log, settings, text_format, timed_out)
    finally:  # (the final report's own: a SIGTERM there ends mlcheck as the signal does, 143; Ctrl-C 130)
        if signal.getsignal(signal.SIGTERM) is terminated:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if outcome.reason == "compressed":  # (the file appeared, or was replaced, as gzip)
        judge_compressed(log, settings, poll, idle_timeout, text_format, bool(settings.outputs or output_format in _MACHINE))
    if outcome.reason == "stopped":
        first = stopped_by[-1] if stopped_by else None  # (the error it stopped at: one said at a rotation stops none)
        about = f" ({first.code} at line {first.line})" if first is not None and first.line is not None else ""
        if outcome.restarts:  # (the findings of the lines a rotation took were said above: not the file's now)
            said = [found for found in said if found not in outcome.earlier_findings]
            click.echo(one_line(f"mlcheck: {log} was truncated or rotated while watched (after line "
                                f"{outcome.restarts[-1]}); the lines counted below are of the file as it is now"), err=True)
        reports = (f"the {_MACHINE[output_format]} report covers" if output_format in _MACHINE else
                   "the -o reports cover" if settings.outputs else "")  # (-o FILE: written, as for a machine format)
        click.echo(f"mlcheck: --fail-fast: stopped on the first error{about}, {outcome.lines} lines read"
                   + (f"; {reports} them, with the findings said above" if reports else ""), err=True)
        failed = EXIT_OK if settings.exit_zero else EXIT_FINDINGS  # (exit_zero: always 0, as for check)
        if not reports:  # (the error is on the terminal; the cut run's other findings would be noise)
            sys.exit(failed)
        if outcome.held is not None:  # (the error is in the file read: rotated or moved away since)
            hold_read(log, outcome.held, f"after line {outcome.lines} was read")
        # (a CI job reading --format json gets its report: check's of the lines read, with the rules of the
        # findings said while following alone: the cut run's missing run_stop or keys are no finding of the job)
        decided = replace(settings, select=tuple(sorted({found.code for found in said})))
        try:
            check_and_report([log], decided, line_limits=None if read_otherwise(log, outcome.cr_ends) else {log: outcome.lines},
                             text_format=text_format, said=said)
        except SystemExit as reported_exit:
            sys.exit(reported_exit.code if reported_exit.code not in (0, None) else failed)
    # (the failing findings printed on lines a truncation or a rotation took: they fail the watch too)
    earlier = [f for f in outcome.earlier_findings if f.severity >= fail_level(settings) and reported(f, settings)]
    if outcome.reason == "replaced":  # (no report of the file as it is now: it holds none of the runs watched)
        click.echo(one_line(
            f"mlcheck: {log} was truncated or rotated after the {outcome.earlier_runs} run"
            f"{'s' if outcome.earlier_runs != 1 else ''} watched had stopped; what it holds now is not judged "
            f"(`mlcheck check` judges it); the findings above are the runs'; {len(earlier)} failing"
            + ("; the report covers the lines read of the file rotated away" if outcome.held is not None else "")), err=True)
        if outcome.held is None:  # (truncated: the lines read are gone)
            sys.exit(EXIT_FINDINGS if earlier and not settings.exit_zero else EXIT_OK)
    if outcome.reason == "missing":
        click.echo(one_line(f"mlcheck: error: {log} did not appear within --idle-timeout"), err=True)
        sys.exit(EXIT_ERROR)
    if outcome.reason == "idle":
        ended = f"{outcome.runs_done} of {runs} run{'s' if runs != 1 else ''} stopped"
        click.echo(one_line(f"mlcheck: {log} did not grow for {idle_timeout:g} s (--idle-timeout) after "
                   f"line {outcome.lines}; {ended}; the report covers what was written"), err=True)
    if outcome.held is not None:  # (the job removed or moved the log: what was read is judged)
        hold_read(log, outcome.held, None if outcome.reason == "replaced" else f"after line {outcome.lines} was read")
    # The report covers the lines watched: a later run the job has begun is not judged half-way.
    limits = report_limits(log, outcome, runs) if outcome.reason != "replaced" else {log: outcome.restarts[-1]}
    if outcome.reason != "replaced" and (outcome.restarts or outcome.earlier_runs or outcome.earlier_findings):
        after = ", ".join(map(str, outcome.restarts))
        click.echo(one_line(
            f"mlcheck: {log} was truncated or rotated while watched (after line {after or '?'}); the report covers "
            f"what it holds now, not the lines read before ({outcome.earlier_runs} run"
            f"{'s' if outcome.earlier_runs != 1 else ''} stopped in them, {len(earlier)} failing finding"
            f"{'s' if len(earlier) != 1 else ''} reported on them above): a run begun before it is judged without "
            "its first lines (check it with the rotated file: cat job.log.1 job.log | mlcheck check -)"), err=True)
    try:
        check_and_report([log], settings, line_limits=limits, text_format=text_format)
    except SystemExit as reported_exit:  # (an error reported on the lines a truncation took fails the watch too)
        sys.exit(EXIT_FINDINGS if earlier and not settings.exit_zero and reported_exit.code in (0, None) else reported_exit.code)
