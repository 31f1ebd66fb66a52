"""Text from a log, a config file or a file name reaches every report and every stderr line
escaped (a reviewer's hostile inputs): no terminal control sequence, no line end that splits a
finding's line, no live HTML or broken code span in Markdown, valid JSON and URIs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlcheck.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
HOSTILE = "x\x1b]0;pwn\x07\x1b[2J\rCR"
"""An OSC title sequence, a screen clear and a carriage return."""


def _log_with_opt_name(folder: Path, value: str, name: str = "result_0.txt") -> Path:
    """The example run with ``opt_name`` set to ``value`` (MLC203 in the closed division)."""
    lines = []
    for line in EXAMPLE.read_text("utf-8").splitlines(keepends=True):
        if '"key": "opt_name"' in line:
            record = json.loads(line[len(":::MLLOG "):])
            record["value"] = value
            line = ":::MLLOG " + json.dumps(record) + "\n"
        lines.append(line)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(lines), "utf-8")
    return path


def _no_control(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text, repr(text[:2000])


def test_waived_findings_are_escaped_in_the_text_report(tmp_path: Path) -> None:
    log = _log_with_opt_name(tmp_path / "logs", HOSTILE)
    (tmp_path / ".mlcheck.toml").write_text(
        '[[waivers]]\ncode = "MLC203"\npath = "logs/**"\nreason = "approved \\u001b[31m\\nnext line"\n', "utf-8")
    done = CliRunner().invoke(main, ["check", str(log), "--color", "never"])
    waived = done.stdout.split("\nWaived\n", 1)[1]
    _no_control(waived)
    assert "waived MLC203" in waived and "\\x1b]0;pwn\\x07" in waived
    assert "approved \\x1b[31m\\nnext line" in waived  # (the reason on the finding's one line)
    assert len([line for line in waived.splitlines() if "MLC203" in line]) == 1


def test_watch_prints_live_findings_escaped(tmp_path: Path) -> None:
    log = _log_with_opt_name(tmp_path, HOSTILE)
    done = CliRunner().invoke(main, ["watch", str(log), "--no-progress", "--poll", "0.01", "--idle-timeout", "5"])
    live = [line for line in done.stderr.splitlines() if "MLC203" in line]
    assert live, done.stderr
    for line in live:
        _no_control(line)
        assert "\\x1b]0;pwn\\x07\\x1b[2J\\rCR" in line


def _package_named(tmp_path: Path, name: str, runs: int = 4, org: str | None = None) -> Path:
    """A copy of the example package under the folder ``name`` with ``runs`` of its 5 runs (4:
    MLC502), its logs' ``submission_org`` set to ``org``."""
    import shutil

    package = tmp_path / name
    shutil.copytree(EXAMPLE.parents[3], package)
    folder = package / "results" / "acme-t8" / "resnet"
    for index in range(runs, 5):
        (folder / f"result_{index}.txt").unlink()
    if org is not None:
        for log in folder.glob("result_*.txt"):
            log.write_text(log.read_text("utf-8").replace('"value": "Acme"', json.dumps({"value": org})[1:-1], 1), "utf-8")
    return package


def test_text_report_escapes_locations_and_headings(tmp_path: Path) -> None:
    package = _package_named(tmp_path, "Ac\nme")
    done = CliRunner().invoke(main, ["check", str(package), "--color", "never"])
    lines = done.stdout.splitlines()
    finding = [line for line in lines if "MLC502" in line and "error" in line]
    assert len(finding) == 1 and finding[0].startswith(str(tmp_path / "Ac\\nme") + "/results/acme-t8/resnet: error MLC502")
    assert any(line.startswith("Ac\\nme / acme-t8 / resnet") for line in lines), done.stdout  # (the table's title)
    assert not any(line.startswith("me") for line in lines)
    scores = CliRunner().invoke(main, ["score", str(package)])
    assert "Ac\\nme / acme-t8 / resnet" in scores.stdout and not any(
        line.startswith("me") for line in scores.stdout.splitlines())


HOSTILE_NAME = "A`c``<img src=x onerror=alert(1)>|\nme"
"""A package folder whose name ends a single-backtick code span, holds HTML, a pipe and a line end."""


def _markdown_html(text: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(text)


def test_markdown_code_spans_hold_any_name(tmp_path: Path) -> None:
    from mlcheck.report.plain import markdown_code

    for name in (HOSTILE_NAME, "`", "a``b", " x ", "a|b"):
        for in_table in (False, True):
            cell = markdown_code(name, in_table)
            source = f"| h |\n|---|\n| {cell} |\n" if in_table else f"- {cell}: x\n"
            html = _markdown_html(source)
            assert html.count("<code>") == 1 and "<img" not in html, (name, html)
            import html as html_module
            inside = html_module.unescape(html.split("<code>", 1)[1].split("</code>", 1)[0])
            assert inside == name.replace("\n", "\\n"), (name, inside)


def test_markdown_report_escapes_folder_names(tmp_path: Path) -> None:
    package = _package_named(tmp_path, HOSTILE_NAME)
    done = CliRunner().invoke(main, ["check", str(package), "--format", "markdown"])
    html = _markdown_html(done.stdout)
    assert "<img" not in html
    folder = str(package).replace("\n", "\\n") + "/results/acme-t8/resnet"
    import html as html_module
    assert f"<li><code>{html_module.escape(folder, quote=False)}</code>: " in html  # (one item, the whole name)
    (tmp_path / ".mlcheck.toml").write_text('[[waivers]]\ncode = "MLC502"\npath = "**"\nreason = "r"\n', "utf-8")
    waived = CliRunner().invoke(main, ["check", str(package), "--format", "markdown"])
    html = _markdown_html(waived.stdout)
    assert "<img" not in html and f"<td><code>{html_module.escape(folder, quote=False)}</code></td>" in html


def test_split_never_overwrites_its_input(tmp_path: Path) -> None:
    import shutil

    log = tmp_path / "result_0.txt"
    shutil.copy(EXAMPLE, log)
    before = log.read_bytes()
    for extra in (["--force"], []):
        done = CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path), *extra])
        assert done.exit_code == 2, done.stderr
        assert f"{log} is an input of this split" in done.stderr
        assert log.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["result_0.txt"]
    written = CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path), "--start-index", "1"])
    assert written.exit_code == 0 and (tmp_path / "result_1.txt").read_bytes() == before


def test_outputs_inside_a_checked_package_folder_are_refused(tmp_path: Path) -> None:
    package = _package_named(tmp_path, "Acme", runs=5)
    folder = package / "results" / "acme-t8" / "resnet"
    refused = [folder / "result_5.txt", folder / "new" / "r.json", package / "systems" / "r.json",
               package / "results" / "acme-t8" / "r.json", package / "results" / "r.json"]
    for path in refused:
        for args in (["check", str(package), "-o", f"json:{path}"], ["check", str(folder / "result_0.txt"), "-o", f"json:{path}"],
                     ["report", str(package), "-o", str(path)], ["score", str(package), "-t", "csv", "--table-output", str(path)]):
            done = CliRunner().invoke(main, args)
            assert done.exit_code == 2 and "a folder this check reads" in done.stderr, (args, done.stderr)
            assert not path.exists() and not (folder / "new").exists(), args
    allowed = package / "mlcheck.json"  # (the package's top level: the README's example)
    done = CliRunner().invoke(main, ["check", str(package), "-o", f"json:{allowed}"])
    assert done.exit_code == 0 and json.loads(allowed.read_text("utf-8"))["runs"]


def test_sarif_relative_uris_never_read_as_a_scheme(tmp_path: Path) -> None:
    from urllib.parse import urlsplit

    from mlcheck import check
    from mlcheck.report import ReportOptions, render

    package = _package_named(tmp_path, "Ac:me,x")
    sarif = json.loads(render("sarif", check([str(package)]), ReportOptions(root=str(tmp_path))))
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]]
    assert uris and all(uri.startswith("Ac%3Ame%2Cx/results/acme-t8/resnet/") for uri in uris), uris
    assert all(urlsplit(uri).scheme == "" for uri in uris)


def test_sarif_fingerprints_do_not_depend_on_how_the_path_was_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mlcheck import check
    from mlcheck.report import ReportOptions, render

    package = _package_named(tmp_path, "Acme", runs=5)
    folder = package / "results" / "acme-t8" / "resnet"
    for index in range(5):  # (every run breaks a closed rule: MLC521 lists the files, as typed)
        _log_with_opt_name(folder, "adamw", f"result_{index}.txt")
    monkeypatch.chdir(tmp_path)
    prints = []
    for typed in ("Acme", "./Acme/", f"../{tmp_path.name}/Acme", str(package)):
        sarif = json.loads(render("sarif", check([typed]), ReportOptions(root=str(tmp_path))))
        results = sarif["runs"][0]["results"]
        assert any(r["ruleId"] == "MLC521" for r in results)
        prints.append(sorted((r["ruleId"], r["partialFingerprints"]["mlcheck/v1"]) for r in results))
    assert prints[0] == prints[1] == prints[2] == prints[3]


def test_echoed_log_values_are_cut_in_messages(tmp_path: Path) -> None:
    from mlcheck.facts.checks import MAX_SHOWN

    log = _log_with_opt_name(tmp_path, "a" * 1_000_000)
    for form in ("text", "github", "json"):
        out = CliRunner().invoke(main, ["check", str(log), "-f", form]).stdout
        assert len(out) < 100_000, (form, len(out))
        if form == "json":  # (… is written as \u2026)
            out = json.dumps(json.loads(out), ensure_ascii=False)
        assert "a" * MAX_SHOWN + "…" in out and "a" * (MAX_SHOWN + 1) not in out, form


def test_report_takes_html_colon_path_and_refuses_other_formats(tmp_path: Path) -> None:
    package = _package_named(tmp_path, "Acme", runs=5)
    out = tmp_path / "new" / "r.html"
    done = CliRunner().invoke(main, ["report", str(package), "-o", f"html:{out}"])
    assert done.exit_code == 0 and out.read_text("utf-8").startswith("<!DOCTYPE html>")
    assert not list(tmp_path.glob("html:*"))
    refused = CliRunner().invoke(main, ["report", str(package), "-o", f"json:{tmp_path / 'r.json'}"])
    assert refused.exit_code == 2 and "report writes one HTML file" in refused.stderr
    assert not (tmp_path / "r.json").exists()


def test_score_table_output_creates_its_folder(tmp_path: Path) -> None:
    package = _package_named(tmp_path, "Acme", runs=5)
    table = tmp_path / "newdir" / "x.csv"
    done = CliRunner().invoke(main, ["score", str(package), "-t", "csv", "--table-output", str(table)])
    assert done.exit_code == 0 and table.read_text("utf-8").startswith("round,division")


@pytest.mark.parametrize("command", [["check"], ["score"], ["report", "-o", "r.html"], ["split", "-o", "out"],
                                     ["watch", "--idle-timeout", "0.05", "--poll", "0.01"]])
def test_a_missing_path_is_named_escaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    missing = "no\x1b]0;title\x07such\nfile"
    done = CliRunner().invoke(main, [command[0], missing, *command[1:]])
    assert done.exit_code in (1, 2), done.stderr
    _no_control(done.stderr)
    assert "no\\x1b]0;title\\x07such\\nfile" in done.stderr, done.stderr


def test_json_reports_hold_no_lone_surrogate_for_a_non_utf8_name(tmp_path: Path) -> None:
    import os

    raw = os.fsencode(str(tmp_path)) + b"/Ac\xffme"
    os.makedirs(raw)
    package = _package_named(tmp_path, "plain", runs=4)
    os.rename(package, raw)
    path = os.fsdecode(raw)
    for args in (["check", path, "-f", "json"], ["check", path, "-f", "sarif"], ["score", path, "-f", "json"],
                 ["score", path, "-t", "json"]):
        out = CliRunner().invoke(main, args).stdout
        assert "\\udcff" not in out, args
        json.loads(out)  # (a strict parser: Python's accepts a lone surrogate, so the test above says it)
        assert "\\ufffd" in out or "%FF" in out or "-t" in args, args  # (the table names no path)
    for fmt in ("text", "markdown", "github", "html"):  # (one U+FFFD for the byte, as the JSON report: were three)
        out = CliRunner().invoke(main, ["check", path, "-f", fmt]).stdout
        assert "Ac\ufffdme" in out and "\ufffd\ufffd" not in out, fmt


def test_a_closed_standard_input_is_a_usage_error_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    """``mlcheck check - <&-``: exit 2 saying so (no MLC000 from the reader)."""
    import sys

    from mlcheck.package.discover import DiscoveryError, discover_all

    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(DiscoveryError, match="standard input is closed"):
        discover_all(["-"])


@pytest.mark.parametrize("output", ["", "  "])
def test_report_with_an_empty_output_path_is_a_usage_error_before_checking(output: str) -> None:
    from cli_helpers import run_cli

    done = run_cli("report", str(Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"), "-o", output)
    assert done.exit_code == 2 and "empty path" in done.stderr and "Traceback" not in done.stdout + done.stderr


def test_a_saved_json_report_given_as_a_log_says_what_it_is(tmp_path: Path) -> None:
    from cli_helpers import run_cli

    saved = tmp_path / "saved.json"
    done = run_cli("check", str(EXAMPLE), "-f", "json")
    saved.write_text(done.stdout, "utf-8")
    for command in (("check", str(saved)), ("report", str(saved), "-o", str(tmp_path / "r.html"))):
        refused = run_cli(*command)
        assert refused.exit_code == 2 and "this is an mlcheck JSON report, not a log" in refused.stderr
    assert not (tmp_path / "r.html").exists()


def test_rich_markup_in_log_values_and_names_is_shown_as_written(tmp_path: Path) -> None:
    """``[/]`` in a division or a run_stop status crashed the text report (rich read it as markup);
    ``[bold]`` in a folder name was dropped, ``:smile:`` drawn as an emoji (a review, session 35)."""
    package = _package_named(tmp_path, "Ac[bold]me:smile:")
    log = package / "results" / "acme-t8" / "resnet" / "result_0.txt"
    log.write_text(log.read_text("utf-8").replace('"status": "success"', '"status": "[/]ok[link=https://x]"'), "utf-8")
    renamed = log.with_name("result_[blink]0.txt")
    log.rename(renamed)
    for command in (["check", str(package), "--color", "always"], ["check", str(package), "-q"],
                    ["score", str(package)]):
        done = CliRunner().invoke(main, command)
        assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
        assert done.exit_code == 1, (command, done.output)
        assert "Ac[bold]me:smile:" in done.stdout and "\x1b]8;" not in done.stdout, (command, done.stdout)
    done = CliRunner().invoke(main, ["check", str(package), "--color", "never"])
    assert "result_[blink]0.txt" in done.stdout and "[/]ok[link=https://x]" in done.stdout


def test_verbose_names_a_config_found_in_a_hostile_folder_on_one_line(tmp_path: Path) -> None:
    """``-v`` wrote the config's path raw: a folder named with a line end and ``::error`` forged a
    GitHub annotation on stderr (a review, session 35)."""
    folder = tmp_path / "x\n::error file=README.md::forged"
    package = _package_named(folder, "Acme")
    (folder / ".mlcheck.toml").write_text('strict = false\n', "utf-8")
    done = CliRunner().invoke(main, ["check", str(package), "-v", "--no-progress"], env={"GITHUB_ACTIONS": "true"})
    assert not any(line.startswith("::error file=README.md") for line in done.stderr.splitlines()), done.stderr
    assert "x\\n::error file=README.md::forged/.mlcheck.toml" in done.stderr


def test_noncharacters_are_escaped_in_the_html_report(tmp_path: Path) -> None:
    log = _log_with_opt_name(tmp_path / "Ac\ufffeme", "lamb\uffff\ufdd0")
    done = CliRunner().invoke(main, ["check", str(log), "-f", "html"])
    assert "\ufffe" not in done.stdout and "\uffff" not in done.stdout and "\ufdd0" not in done.stdout
    assert "lamb\\uffff\\ufdd0" in done.stdout


def test_an_internal_error_exits_2_with_one_line_not_1(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A defect of mlcheck is not "findings": exit 2 even under --exit-zero, one line saying where."""
    from mlcheck.cli import app

    def broken(**_: object) -> None:
        raise ValueError("closing tag '[/]' has nothing to close")

    monkeypatch.setattr(app.main, "main", broken)
    monkeypatch.setattr("sys.argv", ["mlcheck", "check", "x", "--exit-zero"])
    with pytest.raises(SystemExit) as done:
        app.run()
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.startswith("mlcheck: internal error: ValueError: closing tag '[/]'")
    assert "test_hostile_output.py:" in err and "Traceback" not in err
