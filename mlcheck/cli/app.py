"""Command line: map options to settings, call the library, render, pick the exit code.

Exit codes: 0 no finding at or above the fail level, 1 findings at or above it (``score``: an
invalid benchmark result), 2 mlcheck could not do its job (bad usage, missing path, unknown
ruleset, internal error).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import signal
import sys
from typing import Callable, Sequence

import click

from mlcheck import __version__
from mlcheck.cli.checking import check_and_report, checked, report_options, unwritable_folder
from mlcheck.cli.common import (EXIT_ERROR, JOBS_OPTION, RULESET_HELP, console, given_once, load_cli_settings,
                                refuse_overwriting_inputs)
from mlcheck.settings.config import COLORS, FORMATS
from mlcheck.settings.gate import (benchmark_folders, exit_code, fail_level, format_named, standard_stream, unopenable_lines,
                                   write_outputs)
from mlcheck.settings.output_target import output_in_inputs
from mlcheck.report.plain import OUTPUT_FORMATS as TEXT_FORMATS, one_line, summary_line


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="mlcheck")
def main() -> None:
    """Validate and score MLPerf Training logs (:::MLLOG format).

    PATH may be a result file (result_3.txt, run.log.gz, - for stdin), a benchmark folder
    (results/<system>/<benchmark>/) or a submitter's package (<org>/ with results/ and systems/).

    \b
    Examples:
      mlcheck check results/ipu-pod16-TF1/resnet
      mlcheck check Graphcore/ --ruleset 2.0.0 --format json > report.json
      mlcheck check Graphcore/ -o sarif:mlcheck.sarif -o junit:junit.xml
      mlcheck report Graphcore/ -o report.html
      mlcheck score Graphcore/
      mlcheck explain MLC301
    """


_FORMAT_CHOICE = click.Choice(list(FORMATS))


def _gate_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options shared by ``check`` and ``report``: configuration, strictness, selection."""
    options = [
        click.option("--ruleset", "-r", metavar="X.Y.Z", help=RULESET_HELP),
        click.option("--config", "config_path", type=click.Path(dir_okay=False), metavar="FILE",
                     help="Config file (TOML). Default: .mlcheck.toml or [tool.mlcheck] in pyproject.toml, "
                     "searched from the checked paths (their common folder) upwards, wherever mlcheck "
                     "runs from; MLCHECK_* variables override it. /dev/null: no config file."),
        click.option("--strict/--no-strict", default=None, help="Warnings fail too (exit 1). Default: off, unless the config's strict "
                     "or MLCHECK_STRICT sets it."),
        click.option("--exit-zero/--no-exit-zero", "exit_zero", default=None,
                     help="Exit 0 even when findings fail (still 2 on usage errors); --no-exit-zero turns off "
                     "an exit_zero of the config or the environment. Default: off, unless the config or "
                     "MLCHECK_EXIT_ZERO sets it."),
        click.option("--select", multiple=True, metavar="PREFIX",
                     help="Report only codes starting with PREFIX, or a rule's name (repeatable, or "
                     "comma-separated). A config's own problems (MLC041) are always shown."),
        click.option("--ignore", multiple=True, metavar="PREFIX",
                     help="Drop codes starting with PREFIX, or a rule's name (repeatable, or "
                     "comma-separated)."),
        click.option("--no-progress", "no_progress", is_flag=True,
                     help="No progress bar (it is only drawn when stderr is a terminal)."),
        JOBS_OPTION,
        click.option("--quiet", "-q", is_flag=True,
                     help="Only the findings that fail the check (errors; with --strict warnings too) in the "
                     "human formats (text, markdown, html, github), printed or written with -o (in text, a "
                     "folder without one is its score line); json, sarif "
                     "and junit keep every finding. No progress bar."),
        click.option("--verbose", "-v", is_flag=True,
                     help="Say on stderr which config file, waivers and rounds were used."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@main.command("check")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@_gate_options
@click.option("--format", "-f", "output_format", type=_FORMAT_CHOICE, default=None,
              help="Report format on stdout. Default: auto (github inside GitHub Actions, else text).")
@click.option("--output", "-o", "outputs", multiple=True, metavar="FORMAT:PATH",
              help="Also write a report to a file (repeatable; missing folders of PATH are made), e.g. "
              "-o sarif:mlcheck.sarif -o junit:junit.xml; without FORMAT: the format the file's name ends in "
              "(.sarif, .json, .xml for junit, .md, .html, .txt: -o mlcheck.sarif). PATH - prints it on stdout instead of the terminal "
              "report (with an explicit --format, refused: both would go to stdout).")
@click.option("--color", type=click.Choice(list(COLORS)), default=None,
              help="Colour in the text report: auto (the default: on a terminal, honours NO_COLOR), always, "
              "never.")
@click.option("--whole-folder", is_flag=True,
              help="Check the whole folder of each given file (pre-commit passes changed result files).")
@click.option("--output-format", "text_format", type=click.Choice(list(TEXT_FORMATS)), default="full",
              show_default=True, help="Text report: full (what each finding covers and the runs it "
              "concerns, under its line) or concise (one line per finding).")
@click.option("--statistics", is_flag=True,
              help="Also print the number of findings per rule (on stderr for machine formats).")
def check_command(paths: tuple[str, ...], ruleset: str | None, config_path: str | None,
                  strict: bool | None, exit_zero: bool | None, select: tuple[str, ...],
                  ignore: tuple[str, ...], no_progress: bool, jobs: int | None, quiet: bool,
                  verbose: bool, output_format: str | None, outputs: tuple[str, ...],
                  color: str | None, whole_folder: bool, text_format: str, statistics: bool) -> None:
    """Check logs: structure, round rules, convergence, timing; and score them.

    Exit 0 when no error is found, 1 when one is (with --strict: or a warning), 2 when mlcheck
    could not run. Machine output goes to stdout, the summary and progress to stderr.
    """
    settings = load_cli_settings(config_path, paths, ruleset=ruleset, strict=strict, exit_zero=exit_zero,
                                 select=select, ignore=ignore, no_progress=no_progress, jobs=jobs,
                                 format=output_format, outputs=outputs, color=color)
    check_and_report(benchmark_folders(paths) if whole_folder else paths, settings, quiet, verbose,
                     text_format=text_format, statistics=statistics)


@main.command("report")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@_gate_options
@click.option("--output", "-o", "output_path", required=True, multiple=True, callback=given_once,
              type=click.Path(dir_okay=False),
              metavar="FILE", help="The HTML file to write (one self-contained file; FILE or html:FILE, as "
              "check -o takes it; its folder is created); - prints it. A FILE named as another report "
              "(.json, .sarif, .xml, .md, .txt) is refused: html:FILE writes HTML under that name.")
def report_command(paths: tuple[str, ...], ruleset: str | None, config_path: str | None,
                   strict: bool | None, exit_zero: bool | None, select: tuple[str, ...],
                   ignore: tuple[str, ...], no_progress: bool, jobs: int | None, quiet: bool,
                   verbose: bool, output_path: str) -> None:
    """Write a self-contained HTML report: scores, runs, convergence curves, findings.

    Exit codes as for `check` (0 pass, 1 failing findings, 2 mlcheck could not run).
    """
    output_path = _html_path(output_path, paths)
    if output_path != "-" and output_path.endswith(("/", os.sep)):  # (said before the check, not after)
        raise click.UsageError(f"--output {output_path!r} names a folder; give the report a file's path in it")
    unwritable = unwritable_folder(os.path.realpath(output_path)) if output_path != "-" else None
    if unwritable is not None:
        raise click.UsageError(f"--output {output_path!r} cannot be written: {unwritable}")
    settings = load_cli_settings(config_path, paths, ruleset=ruleset, strict=strict, exit_zero=exit_zero,
                                 select=select, ignore=ignore, no_progress=no_progress, jobs=jobs)
    result, unopenable = checked(paths, settings, quiet, verbose, unused=frozenset({"output"}))  # (it writes its -o alone)
    to_stdout = output_path == "-" or standard_stream(output_path) == 1  # (-o /dev/stdout: said as standard output)
    refuse_overwriting_inputs([output_path], result, settings.config_path, standard_output=to_stdout)
    try:
        write_outputs([f"html:{output_path}"], result, report_options(settings, quiet, True, result))
    except OSError as error:
        if to_stdout:  # (a closed pipe, a full disk behind stdout: said as every command says it)
            raise
        click.echo(one_line(f"mlcheck: error: cannot write {output_path}: {error}"), err=True)
        sys.exit(EXIT_ERROR)
    chatter = console(stderr=True)
    chatter.print(summary_line(result, fail_level(settings)), soft_wrap=True)
    if not quiet and output_path != "-":
        chatter.print(one_line(f"mlcheck: report written to {output_path}"), soft_wrap=True, markup=False)
    for line in unopenable_lines(result, unopenable):
        click.echo(line, err=True)
    sys.exit(exit_code(result, settings, unopenable))


def _html_path(output: str, paths: Sequence[str] = ()) -> str:
    """``report -o`` takes ``FILE`` or, as ``check -o`` does, ``html:FILE``; another format's
    ``FORMAT:FILE`` is a usage error (``report`` writes HTML: ``check -o FORMAT:FILE`` the others)."""
    if not output.strip():
        raise click.UsageError("report writes one HTML file: -o FILE or -o html:FILE; got an empty path")
    name, sep, path = output.partition(":")
    if not sep or name.strip().lower() not in FORMATS or name.strip().lower() == "auto":
        named = format_named(output)  # (a file name with a colon that names no format: C:\\report.html, a:b.html)
        if named not in (None, "html") and not output_in_inputs(output, paths):  # (there: refused as an input's, below)
            raise click.UsageError(f"report writes one HTML file, and {output!r} names a {named} report: mlcheck check "
                                   f"-o {shlex.quote(output)} writes that; -o {shlex.quote('html:' + output)} writes the HTML file under "
                                   "that name")
        return output
    if name.strip().lower() != "html" or not path:
        raise click.UsageError(f"report writes one HTML file: -o FILE or -o html:FILE; got {output!r}. "
                               f"For other formats use mlcheck check -o FORMAT:FILE")
    return path


# The other commands live in their own modules to keep this one small.
from mlcheck.cli.raw import split_command, watch_command  # noqa: E402
from mlcheck.cli.score import explain_command, rules_command, score_command  # noqa: E402
from mlcheck.cli.streams import drop_if_stalled, to_devnull, tolerant_streams, usable_columns  # noqa: E402

for _command in (score_command, rules_command, explain_command, split_command, watch_command):
    main.add_command(_command)


_SIGNALLED = (128 + 1, 130, 128 + 15)
"""The exit codes of SIGHUP, Ctrl-C and SIGTERM."""


def run() -> None:
    """Console entry point: :func:`main`, plus exit 2 (not a traceback, not 1) when stdout cannot
    be written (a full disk, a pipe closed by ``head``, a closed descriptor): a CI job must not
    read that as "findings". Click's own handling of a closed pipe would exit 1, so click runs in
    non-standalone mode and its usage errors are shown here."""
    if sys.stdout is None:  # started with stdout closed (``>&-``)
        _say("mlcheck: error: cannot write the output: standard output is closed")
        sys.exit(EXIT_ERROR)
    if sys.stderr is None:  # started with stderr closed (``2>&-``): its lines are dropped, the rest as ever
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
    tolerant_streams()
    try:
        os.getcwd()
    except OSError as error:  # (its folder deleted under it: every relative path, and the config search, need it)
        _say(f"mlcheck: error: the working folder cannot be found ({error.strerror or error}): it was removed "
             "or moved; change to a folder that exists and run mlcheck again")
        sys.exit(EXIT_ERROR)
    usable_columns()
    code: int | str | None = 0
    try:
        main.main(standalone_mode=False)
    except SystemExit as done:
        code = done.code
        if "PacifyFlushWrapper" in type(sys.stdout).__name__:  # click met a closed pipe: exit 1
            code = _output_failed(BrokenPipeError(errno.EPIPE, "the reader of the pipe is gone"))
    except click.ClickException as error:
        error.show()
        code = error.exit_code
    except click.Abort:
        drop_if_stalled(sys.stderr)  # (interrupted with stderr held up by its reader: not said)
        _say("Aborted!")
        code = 130
    except OSError as error:  # (a file that could not be read names itself; the output does not)
        code = _output_failed(error) if error.filename is None else _input_failed(error)
    except Exception as error:  # noqa: BLE001 - mlcheck's own defect: exit 2 (it could not do its job), never 1
        code = _internal_error(error)
    if code in _SIGNALLED:  # (interrupted with output its reader holds up: dropped, not waited for)
        drop_if_stalled(sys.stdout)
    try:
        sys.stdout.flush()
    except OSError as error:
        code = _output_failed(error)
    except KeyboardInterrupt:  # (Ctrl-C while the output drains into a slow reader)
        code = 130
    else:  # everything is said: a Ctrl-C while Python shuts down does not replace the command's exit code
        with contextlib.suppress(ValueError):  # (run from a thread that is not the main one: left as it is)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)


def _say(text: str) -> None:
    try:
        click.echo(text, err=True)
    except (OSError, AttributeError):  # stderr closed too: the exit code says it
        pass


def _internal_error(error: Exception) -> int:
    """One line naming the defect and where it is (``MLCHECK_DEBUG=1``: the whole traceback), exit 2:
    a report that could not be made is not "findings" (1), even under ``--exit-zero``."""
    import traceback

    if os.environ.get("MLCHECK_DEBUG"):
        traceback.print_exception(error)
    frame = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
    where = f" ({os.path.basename(frame[0].filename)}:{frame[0].lineno})" if frame else ""
    _say(one_line(f"mlcheck: internal error: {type(error).__name__}: {error}{where}; please report it with the "
                  "command that gave it (MLCHECK_DEBUG=1 prints the traceback)"))
    return EXIT_ERROR


def _input_failed(error: OSError) -> int:
    _say(one_line(f"mlcheck: error: {error.filename}: {error.strerror or error}"))
    return EXIT_ERROR


def _output_failed(error: OSError) -> int:
    to_devnull(sys.stdout)
    if error.errno == errno.EPIPE and _documentation_asked():
        return 0  # (`mlcheck rules | head`: the reader took what it wanted, as with any listing)
    reason = "the reader of the pipe is gone" if error.errno == errno.EPIPE else error.strerror or error
    _say(f"mlcheck: error: cannot write the output: {reason}")
    return EXIT_ERROR


def _documentation_asked() -> bool:
    """Whether the command prints documentation (``rules``, ``explain``, ``--help``), not a report:
    a pipe its reader closed early is no failure there."""
    words = sys.argv[1:]
    command = next((word for word in words if not word.startswith("-")), None)
    return command in ("rules", "explain") or any(word in ("-h", "--help") for word in words)
