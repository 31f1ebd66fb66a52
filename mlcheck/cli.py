"""Command line: map options to settings, call the library, render, pick the exit code.

Exit codes: 0 no finding at or above the fail level, 1 findings at or above it (``score``: an
invalid benchmark result), 2 mlcheck could not do its job (bad usage, missing path, unknown
ruleset, internal error).
"""

from __future__ import annotations

import sys
from typing import Sequence

import click
from rich.console import Console

from mlcheck import __version__
from mlcheck.checker import check
from mlcheck.discover import DiscoveryError
from mlcheck.model import CheckResult, Severity
from mlcheck.reporters.json_report import render_json
from mlcheck.reporters.text import render_text, summary_line
from mlcheck.rules import all_rules, find_rule
from mlcheck.rulesets import SUPPORTED_RULESETS, RulesetError

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

_RULESET_HELP = (f"Round to judge under ({', '.join(SUPPORTED_RULESETS)}). Default: inferred per run "
                 "from its date (then from the path), and reported in the output.")


def _console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False)


def _run_check(paths: Sequence[str], ruleset: str | None) -> CheckResult:
    try:
        return check(list(paths), ruleset=ruleset)
    except (RulesetError, DiscoveryError) as error:
        click.echo(f"mlcheck: error: {error}", err=True)
        sys.exit(EXIT_ERROR)
    except Exception as error:  # noqa: BLE001 - last resort: say so and exit 2, no traceback
        click.echo(f"mlcheck: internal error: {type(error).__name__}: {error}. Please report it "
                   "with the command line and the input.", err=True)
        sys.exit(EXIT_ERROR)


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
      mlcheck score Graphcore/
      mlcheck explain MLC301
    """


@main.command("check")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--ruleset", "-r", metavar="X.Y.Z", help=_RULESET_HELP)
@click.option("--format", "-f", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Report format on stdout.")
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings fail (still 2 on usage errors).")
@click.option("--quiet", "-q", is_flag=True, help="Text format: show only errors in the findings list.")
def check_command(paths: tuple[str, ...], ruleset: str | None, output_format: str, strict: bool,
                  exit_zero: bool, quiet: bool) -> None:
    """Check logs: structure, round rules, convergence, timing; and score them.

    Exit 0 when no error is found, 1 when one is (with --strict: or a warning), 2 when mlcheck
    could not run.
    """
    result = _run_check(paths, ruleset)
    fail_level = Severity.WARNING if strict else Severity.ERROR
    if output_format == "json":
        click.echo(render_json(result, fail_level), nl=False)
    else:
        render_text(result, _console(), min_severity=Severity.ERROR if quiet else Severity.INFO)
    _console(stderr=True).print(summary_line(result), soft_wrap=True)
    worst = result.worst_severity()
    failing = worst is not None and worst >= fail_level
    sys.exit(EXIT_FINDINGS if failing and not exit_zero else EXIT_OK)


@main.command("score")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--ruleset", "-r", metavar="X.Y.Z", help=_RULESET_HELP)
@click.option("--format", "-f", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Output format on stdout.")
def score_command(paths: tuple[str, ...], ruleset: str | None, output_format: str) -> None:
    """Print the official time-to-train of each benchmark folder (minutes, two decimals).

    Exit 0 when every benchmark result is valid, 1 when one is not, 2 when mlcheck could not run.
    """
    result = _run_check(paths, ruleset)
    if output_format == "json":
        click.echo(render_json(result), nl=False)
    else:
        render_text(result, _console(), scores_only=True)
    _console(stderr=True).print(summary_line(result), soft_wrap=True)
    invalid = not result.benchmarks or any(not b.score.valid for b in result.benchmarks)
    sys.exit(EXIT_FINDINGS if invalid else EXIT_OK)


@main.command("rules")
def rules_command() -> None:
    """List every rule code with its name, default severity and summary."""
    for rule in all_rules():
        official = " (official checker agrees)" if rule.official else ""
        click.echo(f"{rule.code}  {rule.name:<34} {rule.severity.label:<8} {rule.summary}{official}")


@main.command("explain")
@click.argument("code")
def explain_command(code: str) -> None:
    """Print the documentation of a rule (by code, e.g. MLC301, or by name)."""
    found = find_rule(code)
    if found is None:
        click.echo(f"mlcheck: error: no rule {code!r}; `mlcheck rules` lists them", err=True)
        sys.exit(EXIT_ERROR)
    rule, module = found
    click.echo(f"{rule.code} {rule.name} ({rule.severity.label}): {rule.summary}\n")
    click.echo((module.__doc__ or "").strip())
