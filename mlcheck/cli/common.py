"""What the command modules share: the exit codes, the consoles, running the check with its
errors mapped to exit 2, the settings from options and config, and the refusal to overwrite an input."""

from __future__ import annotations

import errno

import os
import sys
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import click

from mlcheck.checker import Progress, check
from mlcheck.settings.config import Settings, load_settings, replace
from mlcheck.package.discover import DiscoveryError
from mlcheck.settings.gate import outputs_in_checked_folders, overwritten_inputs
from mlcheck.settings.output_target import STREAM_NAMES, stream_input, streams_into, streams_into_folder
from mlcheck.judge.jobs import usable_cpus
from mlcheck.report.plain import CommandSafeStream, one_line
from mlcheck.results import CheckResult
from mlcheck.rules import all_rules
from mlcheck.facts.rulesets import SUPPORTED_RULESETS, RulesetError
from mlcheck.settings.selection_filter import normalise_prefixes

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

RULESET_HELP = (f"Round to judge under ({', '.join(SUPPORTED_RULESETS)}; also written 2.0, v2.0 or "
                "training-2.0). Default: the round a training-X.Y folder of the path names, else the round "
                "of each run's date, one round per package (README, 'Use'); reported in the output.")


def console(stderr: bool = False) -> Console:
    from rich.console import Console  # imported when text is drawn: JSON and CI formats skip it

    pass_broken_pipes()
    return Console(file=CommandSafeStream(sys.stderr if stderr else sys.stdout),  # type: ignore[arg-type]
                   highlight=False, markup=False, emoji=False)  # (log text is shown as written; no line a command)


def pass_broken_pipes() -> None:
    """Rich turns a closed pipe into exit 1 (the "findings" code); let the error reach
    :func:`mlcheck.cli.run`, which exits 2."""
    from rich.console import Console

    Console.on_broken_pipe = _raise_broken_pipe  # type: ignore[method-assign]


def _raise_broken_pipe(self: object) -> None:
    raise BrokenPipeError(32, "the reader of the pipe is gone")


def refuse_overwriting_inputs(paths: Sequence[str], result: CheckResult,
                              config_path: str | None = None, standard_output: bool = True,
                              named_by: str = "") -> None:
    """Exit 2 before writing a report over one of the files that were checked, or into a folder
    of a package that was checked: ``paths``, and standard output where the command writes to it.
    ``named_by``: where the paths were set, when not on the command line (``output in .mlcheck.toml``)."""
    refuse_streams_into_inputs(result, config_path, standard_output)  # (first: its errors go to stderr)
    clobbered = overwritten_inputs(paths, result, [config_path])
    named = f" ({named_by})" if named_by else ""
    if clobbered:
        click.echo(one_line(f"mlcheck: error: {clobbered[0]}{named} is an input of this check (a log, the config, or "
                   "a file of a package being checked); mlcheck never overwrites its input. Choose "
                   "another output path"), err=True)
        sys.exit(EXIT_ERROR)
    for path, folder in outputs_in_checked_folders(paths, result):
        click.echo(one_line(f"mlcheck: error: {path}{named} lies in {folder}, a folder this check reads; mlcheck never "
                   "writes into the folders it checks. Choose an output path outside the package's "
                   "results/ and systems/ folders"), err=True)
        sys.exit(EXIT_ERROR)


def refuse_streams_into_inputs(result: CheckResult, config_path: str | None, standard_output: bool) -> None:
    """Exit 2 where the shell redirected standard output (when the command writes to it) or
    standard error into an input of the check, before writing anything more. The error is said on
    the other stream, if that one is no input (``>> log 2>&1``: nothing is said, the exit code
    tells)."""
    into = {2: stream_input(2, result, [config_path])}  # (standard output only where it matters: a stat per log)
    into[1] = stream_input(1, result, [config_path]) if standard_output or into[2] is not None else None
    refused = [descriptor for descriptor in (1, 2) if into[descriptor] is not None and (standard_output or descriptor == 2)]
    if not refused:
        return
    where = "the file standard input reads" if into[refused[0]] == "-" else into[refused[0]]
    message = one_line(f"mlcheck: error: {STREAM_NAMES[refused[0]]} is redirected into {where}, an input of this check "
                       "(a log, the config, or a file in a folder of a package being checked); mlcheck never writes into "
                       "its input, so it writes nothing more. Redirect it to a file outside the package, or use -o FORMAT:FILE")
    if into[2] is None:
        click.echo(message, err=True)
    elif into[1] is None:
        click.echo(message)
    sys.exit(EXIT_ERROR)


def refuse_streams_into_log(log: str, command: str, config_path: str | None = None) -> None:
    """Exit 2 at the start of ``watch`` or ``split`` where a standard stream writes into the log
    (or stdin's file), the config, or a file in the folders of the log's package: what they say
    as they go would be appended to an input. Said on the other stream, if that one is no input."""
    _refuse_streams(streams_into(log, [config_path]), f"an input of this {command} (the log, the config, or a file "
                    "in a folder of the log's package); mlcheck never writes into its input")


def refuse_streams_into_folder(folder: str, command: str) -> None:
    """Exit 2 at the start of ``split`` where a standard stream writes into a result file of the
    folder it writes (``-o DIR > DIR/result_0.txt``): said on the other stream, if that one is free."""
    _refuse_streams(streams_into_folder(folder), f"a result file of the folder this {command} writes ({folder}): it "
                    "would be replaced, or counted as a run")


def _refuse_streams(into: list[tuple[int, str]], why: str) -> None:
    """Exit 2 where ``into`` names a stream (descriptor, the file it writes into); said on the
    other stream when only one is redirected there (both: the exit code tells)."""
    if not into:
        return
    descriptor, where = into[0]
    if {stream for stream, _where in into} != {1, 2}:
        click.echo(one_line(f"mlcheck: error: {STREAM_NAMES[descriptor]} is redirected into {where}, {why}. "
                            "Redirect it to another file"), err=descriptor == 1)
    sys.exit(EXIT_ERROR)


JOBS_OPTION = click.option(
    "--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N",
    help="Processes that read and judge the logs (default: the usable CPUs; 1: all in this "
    "process). The output is the same whatever N.")


def jobs_of(settings: Settings) -> int:
    """The processes a check uses: the setting (``--jobs``, ``MLCHECK_JOBS``, ``jobs`` in the
    config), else one per usable CPU."""
    return settings.jobs if settings.jobs is not None else usable_cpus()


def run_check(paths: Sequence[str], ruleset: str | None, progress: Progress | None = None,
              line_limits: Mapping[str, int] | None = None, jobs: int = 1,
              ruleset_source: str = "--ruleset") -> CheckResult:
    """:func:`mlcheck.check`; a bad ruleset or path, or an internal error, exits 2 with one line.
    ``ruleset_source`` says where ``ruleset`` was set (the reports and ``-v`` name it)."""
    try:
        return check(list(paths), ruleset=ruleset, progress=progress, line_limits=line_limits,
                     jobs=jobs, ruleset_source=ruleset_source)
    except (RulesetError, DiscoveryError) as error:
        click.echo(one_line(f"mlcheck: error: {error}"), err=True)
        sys.exit(EXIT_ERROR)
    except OSError as error:
        if error.errno not in (errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.EAGAIN):
            raise  # (a path that cannot be read names itself: mlcheck.cli.run says so)
        limit = _open_files_limit() if error.errno == errno.EMFILE else None
        click.echo(one_line(f"mlcheck: error: the system refused mlcheck a resource: {error.strerror or error}"
                            + (f" (this shell allows {limit} open files: ulimit -n)" if limit is not None else "")
                            + f"; check with fewer jobs (--jobs 1{'' if jobs <= 1 else f', not {jobs}'}) or raise the "
                            "limit"), err=True)
        sys.exit(EXIT_ERROR)
    except Exception as error:  # noqa: BLE001 - last resort: say so and exit 2, no traceback
        click.echo(one_line(f"mlcheck: internal error: {type(error).__name__}: {error}. Please report it "
                   "with the command line and the input."), err=True)
        sys.exit(EXIT_ERROR)


def _open_files_limit() -> int | None:
    try:
        import resource  # (not on Windows)
    except ImportError:
        return None
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def load_cli_settings(config_path: str | None, paths: Sequence[str] | None = None,
                      **given: Any) -> Settings:
    """Settings from the given options and the config file (``--config``, ``MLCHECK_CONFIG``, or
    the first found from the checked ``paths`` upwards); exit 2 for a missing config file, a
    usage error for a --select/--ignore prefix that matches no rule."""
    named = (f"--config {config_path}" if config_path is not None
             else f"MLCHECK_CONFIG={os.environ['MLCHECK_CONFIG']}" if os.environ.get("MLCHECK_CONFIG", "").strip() else None)
    given_path = config_path or (os.environ.get("MLCHECK_CONFIG", "") if named else "")
    if named is not None and not os.path.isfile(given_path) and given_path != os.devnull:  # (no config)
        why = ("not a regular file" if os.path.exists(given_path) else "a symbolic link that leads to no file"
               if os.path.islink(given_path) else "no such file")
        click.echo(one_line(f"mlcheck: error: {named}: {why}"), err=True)
        sys.exit(EXIT_ERROR)
    if given.pop("no_progress", False):
        given["progress"] = False
    for option in ("select", "ignore"):
        unknown = [p for p in normalise_prefixes(given.get(option) or ()) if not matches_a_rule(p)]
        if unknown:
            import difflib

            shown = unknown[0]
            close = [] if shown.startswith("MLC") else difflib.get_close_matches(shown, [r.name for r in all_rules()], n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise click.UsageError(f"--{option} {shown!r} matches no rule code or name{hint}; `mlcheck rules` "
                                   "lists them (e.g. MLC3, MLC301 or target-not-reached)")
    settings = load_settings(given, config=config_path, paths=list(paths) if paths is not None else None)
    if given.get("format") is None and settings.format != "auto" and settings.outputs_source == "--output" and \
            any(on_standard_output(spec) for spec in settings.outputs):  # (the command line's -o json:- wins over
        settings = replace(settings, format="auto")  # a config's or MLCHECK_FORMAT's format: its report is stdout's)
    return settings


def on_standard_output(spec: str) -> bool:
    from mlcheck.settings.gate import parse_output

    try:
        return parse_output(spec)[1] == "-"
    except ValueError:
        return False


def matches_a_rule(prefix: str) -> bool:
    """Whether some rule code starts with ``prefix``."""
    return any(rule.code.startswith(prefix) for rule in all_rules())


def given_once(context: click.Context, option: click.Parameter, values: tuple[Any, ...]) -> Any:
    """The value of a ``multiple`` option that takes one file (``report -o``): a usage error when it
    is given twice (click would keep the last alone, and the first file would silently not be written)."""
    if len(values) > 1:
        name = max(option.opts, key=len)
        raise click.BadParameter(f"given {len(values)} times ({', '.join(map(repr, values))}); {name} takes one: "
                                 "run the command once for each", context, option)
    return values[0] if values else None

