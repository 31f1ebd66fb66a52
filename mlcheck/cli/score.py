"""The ``score``, ``rules`` and ``explain`` commands, registered on the main group by ``cli``."""

from __future__ import annotations

import os
import sys

import click

from mlcheck.cli.checking import say_settings, unwritable_folder
from mlcheck.cli.common import (EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, JOBS_OPTION, RULESET_HELP,
                                console, given_once, jobs_of, load_cli_settings, refuse_overwriting_inputs,
                                refuse_streams_into_inputs,
                                run_check)
from mlcheck.model import Finding, Severity
from mlcheck.rules.config_rules import CONFIG_INVALID
from mlcheck.settings.replaced_file import replaced_file
from mlcheck.settings.gate import (postprocess, standard_stream, unopenable_given, unopenable_lines,
                                   utf8_standard_output)
from mlcheck.report.plain import TABLE_FORMATS, one_line, rcp_refusal, summary_line
from mlcheck.rules import all_rules, find_rule
from mlcheck.rules.package import WRONG_RUN_COUNT
from mlcheck.rules.power import POWER_LOG_INVALID


@click.command("score")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--ruleset", "-r", metavar="X.Y.Z", help=RULESET_HELP)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Config file (TOML), as for `check`: its ruleset, and its waivers and "
              "select/ignore for the findings of the JSON report. Its waivers and select/ignore never "
              "change a score; its ruleset does, as --ruleset would.")
@click.option("--format", "-f", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text: the results table and each folder's score; json: the full "
              "JSON report (schemas/report.schema.json) instead.")
@click.option("--table-format", "-t", "table_format", type=click.Choice(list(TABLE_FORMATS)),
              default="text", show_default=True,
              help="Format of the results table: text (on the terminal), csv, markdown or json "
              "(mlcheck-results-table/1, schemas/results-table.schema.json). With csv/markdown/json only the "
              "table is printed.")
@click.option("--table-output", "table_output", multiple=True, callback=given_once,
              type=click.Path(dir_okay=False, writable=True),
              metavar="FILE", help="Write the results table to FILE (in --table-format; text is "
              "written without colour; its folder is created) instead of printing it; - prints it.")
@JOBS_OPTION
@click.option("--no-progress", "no_progress", is_flag=True, help="Accepted as check takes it (score draws no "
              "progress bar), so that a script can pass both commands the same options.")
@click.option("--verbose", "-v", is_flag=True, help="Say which config file was used and why, the rounds, and "
              "how many findings its waivers took out of the JSON report (on stderr).")
def score_command(paths: tuple[str, ...], ruleset: str | None, config_path: str | None,
                  output_format: str, table_format: str, table_output: str | None,
                  jobs: int | None, no_progress: bool, verbose: bool) -> None:
    """Print the results table (MLCommons style: one row per system, one column per benchmark in
    minutes with two decimals, its energy in kJ where power logs give an energy score, the RCP
    status, accelerators and framework from systems/*.json) and the official time-to-train of
    each benchmark folder.

    Exit 0 when every benchmark result is valid and passes the round's RCP test (or has a bypass),
    1 when one does not (or a benchmark folder holds no result files, or power logs that the
    round's summarizer cannot score: MLC543), 2 when mlcheck could not run or a PATH could not be
    opened at all. A bad setting (MLC041) is said on stderr and ignored: it changes no exit code.
    """
    # (the reporters are imported by the command that uses them: `check` loads none of these)
    from mlcheck.report.json_report import json_report_blocks
    from mlcheck.report.results_table import render_table_text, table_text

    if output_format == "json" and (table_output is not None or click.get_current_context().get_parameter_source(
            "table_format") is not click.core.ParameterSource.DEFAULT):
        raise click.UsageError("--format json prints the JSON report, not the results table: drop "
                               "--table-format/--table-output, or drop --format json for the table "
                               "(--table-format json gives it as JSON)")
    if table_output is not None and not table_output.strip():
        raise click.UsageError("--table-output needs a file path (or - for standard output)")
    settings = load_cli_settings(config_path, paths, ruleset=ruleset, jobs=jobs)
    checked = run_check(paths, settings.ruleset, jobs=jobs_of(settings), ruleset_source=settings.ruleset_source)
    result = postprocess(checked, settings, checked=paths)  # (the findings reported; the scores and refusals: `checked`'s)
    refuse_streams_into_inputs(result, settings.config_path, standard_output=False)  # (before -v writes on stderr)
    say_settings(settings, result, verbose, frozenset({"exit_zero", "strict", "output"}))  # (score fails on no finding)
    if table_output == "-" or (table_output is not None and standard_stream(table_output) == 1):
        table_output = None  # (standard output, or the file it writes to: printed as without the option)
    refuse_overwriting_inputs([table_output] if table_output else [], result, settings.config_path)
    if output_format == "json":
        utf8_standard_output()
        for block in json_report_blocks(result):
            click.echo(block, nl=False)
    else:
        table = table_text(result, table_format)
        if table_output is not None:
            unwritable = unwritable_folder(os.path.abspath(table_output))
            if unwritable is not None:  # (as check -o says it)
                click.echo(one_line(f"mlcheck: error: cannot write {table_output}: {unwritable}"), err=True)
                sys.exit(EXIT_ERROR)
            try:
                if os.path.dirname(table_output):  # (created, as check -o creates a report's folder)
                    os.makedirs(os.path.dirname(table_output), exist_ok=True)
                with replaced_file(table_output) as handle:
                    handle.write(table)
            except OSError as error:
                click.echo(one_line(f"mlcheck: error: cannot write {table_output}: {error}"), err=True)
                sys.exit(EXIT_ERROR)
        elif table_format == "text":
            if result.benchmarks:  # (nothing scored: no empty table, the lines below say why)
                render_table_text(result, console())
        else:
            utf8_standard_output()  # (csv, markdown, json: as their files are written)
            click.echo(table, nl=False)
        if table_format == "text" or table_output is not None:
            from mlcheck.report.text import render_text

            render_text(result, console(), scores_only=True)
    if not result.benchmarks:  # an empty table: say why (no logs, unreadable files, ...)
        for found in checked.all_findings():
            if found.severity >= Severity.ERROR:
                click.echo(f"mlcheck: nothing to score: {_where_what(found)}", err=True)
    # (a wrong run count; power logs the summarizer stops on: no table, no energy score is published)
    refused = [f for f in checked.all_findings() if f.code in (WRONG_RUN_COUNT.code, POWER_LOG_INVALID.code)
               and f.severity is Severity.ERROR]
    if result.benchmarks:  # (a folder without a run is no row of the table: its finding says why it fails)
        for found in refused:
            click.echo(f"mlcheck: invalid: {_where_what(found)}", err=True)
        named = {f.path for f in refused}
        for bench in result.benchmarks:  # (every other result without a valid score, and why)
            refusal = rcp_refusal(bench)
            if not bench.published:  # (logs in a folder inside a benchmark folder: no row, no exit status)
                why = bench.score.reason.partition("not a result: ")[2] or bench.score.reason
                click.echo(f"mlcheck: not a result (left out of the table and the exit status): "
                           f"{one_line(bench.folder or '?')}: {one_line(why)}", err=True)
            elif not bench.score.valid and bench.folder not in named:
                click.echo(f"mlcheck: invalid: {one_line(bench.folder or '?')}: {one_line(bench.score.reason)}", err=True)
            elif refusal is not None and bench.score.valid:
                click.echo(f"mlcheck: RCP test refuses: {_where_what(refusal)}", err=True)
    for found in result.findings:  # (a config the run ignored: the table is not what it asked for)
        if found.code == CONFIG_INVALID.code:
            click.echo(f"mlcheck: {_where_what(found)}", err=True)
    click.echo(summary_line(result), err=True)
    unopenable = unopenable_given(checked, paths)
    for line in unopenable_lines(checked, unopenable):  # (as check: mlcheck could not do its job for them)
        click.echo(line, err=True)
    if unopenable:
        sys.exit(EXIT_ERROR)
    published = [b for b in result.benchmarks if b.published]  # (not the logs of a folder in a benchmark folder)
    invalid = not published or any(not b.score.valid or rcp_refusal(b) is not None for b in published) or bool(refused)
    sys.exit(EXIT_FINDINGS if invalid else EXIT_OK)  # (a bad setting, said above, is no invalid result: README)


def _where_what(found: Finding) -> str:
    """``path:line: CODE message`` on one line, escaped as the text report escapes it."""
    where = found.path + (f":{found.line}" if found.line is not None else "")
    return f"{one_line(where)}: {found.code} {one_line(found.message)}"


@click.command("rules")
@click.option("--format", "-f", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="json: a list of {code, name, severities, summary, official, "
              "official_cases} (official: the checker of record flags some or all of its findings; "
              "official_cases: only some, which say so).")
def rules_command(output_format: str) -> None:
    """List every rule code with its name, the severities it reports and its summary (a rule that
    reports errors and warnings, each in its own cases, shows error/warning). Exit 0."""
    rules = all_rules()
    if output_format == "json":
        import json

        click.echo(json.dumps([{"code": rule.code, "name": rule.name, "severities": [s.label for s in rule.severities],
                                "summary": rule.summary, "official": rule.official_somewhere,
                                "official_cases": rule.official_cases} for rule in rules], indent=2))
        return
    name_width = max(len(rule.name) for rule in rules)
    severity_width = max(len(rule.severity_text) for rule in rules)
    for rule in rules:
        official = " (official checker agrees in some cases)" if rule.official_cases else \
            " (official checker agrees)" if rule.official else ""
        click.echo(f"{rule.code}  {rule.name:<{name_width}}  {rule.severity_text:<{severity_width}}  {rule.summary}{official}")
    click.echo("the round data's constraint forms (formula, AT_LEAST, OPTIONAL, cadence, ...): mlcheck explain forms",
               err=True)


@click.command("explain")
@click.argument("code")
def explain_command(code: str) -> None:
    """Print the documentation of one rule (code or name): its section of its module's
    documentation; or of one constraint form of the round data (formula, AT_LEAST, cadence, ...)
    or of all of them (forms). A code's prefix (MLC3) lists its family's rules. Exit 0, 2 for a
    code, name or form that does not exist."""
    import textwrap

    from mlcheck.facts import forms
    from mlcheck.report import plain_roles, rule_help

    found = find_rule(code)
    if found is None and code.strip().lower() == "forms":
        click.echo(plain_roles((forms.__doc__ or "").strip()) + "\n")
        click.echo(plain_roles(forms.all_forms()))
        return
    if found is None and forms.form(code) is not None:
        click.echo(plain_roles(forms.form(code) or ""))
        return
    if found is None:
        import difflib

        typed = code.strip().upper()
        digits = "MLC" + typed[3:].replace("O", "0").replace("I", "1").replace("L", "1")  # (MLC5O2: a letter for a digit)
        close = [digits] if typed.startswith("MLC") and find_rule(digits) is not None else difflib.get_close_matches(
            typed if typed.startswith("MLC") else code.strip().lower(), [n for r in all_rules() for n in (r.code, r.name)],
            n=1, cutoff=0.75)
        members = sorted((r for r in all_rules() if typed.startswith("MLC") and r.code.startswith(typed)), key=lambda r: r.code)
        if members:  # (MLC3: a family, as --select takes it: its rules, as `mlcheck rules` lists them)
            click.echo(f"{typed} is a family of {len(members)} rules; `mlcheck explain CODE` documents each:")
            for rule in members:
                click.echo(f"  {rule.code}  {rule.name}  ({rule.severity_text.replace('/', ' or ')}): {rule.summary}")
            return
        hint = f" (did you mean {close[0]}?)" if close else ""
        click.echo(one_line(f"mlcheck: error: no rule or constraint form {code!r}{hint}; `mlcheck rules` lists the rules, "
                   "`mlcheck explain forms` the forms"), err=True)
        sys.exit(EXIT_ERROR)
    rule, module = found
    official = "the official checker does not fail a log or package for it"
    if rule.official_somewhere:  # (a rule of several levels is official in some cases: its findings say which)
        official = ("the round's official checker flags it too" if rule.official and len(rule.severities) == 1 else
                    "the round's official checker flags some of its cases (those findings end in "
                    "[official checker agrees])")
    click.echo(f"{rule.code} {rule.name}: {rule.summary}")
    click.echo(f"Reports: {rule.severity_text.replace('/', ' or ')}; {official}.\n")
    section = rule_help(rule.code)
    click.echo(textwrap.fill(section[:1].upper() + section[1:], width=100, break_on_hyphens=False,
                             break_long_words=False))
    family = [" ".join(part.split()) for part in (module.__doc__ or "").split("\n- MLC")[0].split("\n\n")]
    where = module.__name__.replace(".", "/") + ".py"
    click.echo(f"\nThe family of {rule.code} ({where}), the rules and checkers it follows:")
    click.echo("\n\n".join(textwrap.fill(plain_roles(paragraph), width=100, break_on_hyphens=False,
                                         break_long_words=False) for paragraph in family if paragraph))
