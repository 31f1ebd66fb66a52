"""The Markdown report (a pull-request comment, a job summary) as a reviewer of session 37 used it:
a rule that reports errors and warnings counts each, and log text never becomes a link, a mention
or a heading; the text report of thousands of finding groups stays linear."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.cli import main
from mlcheck.report.plain import markdown_cell

ACME = FIXTURES / "example" / "Acme"


def _markdown(*paths: Path) -> str:
    done = CliRunner().invoke(main, ["check", *map(str, paths), "-f", "markdown", "--no-progress"])
    assert done.exit_code in (0, 1), done.output
    return done.stdout


def test_a_rule_of_errors_and_warnings_counts_each_and_marks_each_place(tmp_path: Path) -> None:
    for name, change in (("A", lambda d: d.pop("host_memory_capacity")), ("B", lambda d: d.update(cooling=None))):
        shutil.copytree(ACME, tmp_path / name)
        description = tmp_path / name / "systems" / "acme-t8.json"
        data = json.loads(description.read_text("utf-8"))
        change(data)
        description.write_text(json.dumps(data, indent=1), "utf-8")
    text = _markdown(tmp_path / "A", tmp_path / "B")
    heading = next(line for line in text.splitlines() if "**MLC512" in line)
    assert heading.endswith("(1 × error, 1 × warning):")
    block = text.split(heading, 1)[1].split("\n- ", 1)[0]  # (the rule's places, up to the next rule)
    places = [line for line in block.splitlines() if line.startswith("  - ")]
    assert [line.split(":", 1)[0] for line in places] == ["  - error", "  - warning"]
    assert "A/systems" in places[0] and "B/systems" in places[1]


def test_log_text_is_no_autolink_mention_or_block_markup() -> None:
    text = "see https://evil.example/x or www.evil.example, mail admin@evil.example, cc @octocat"
    cell = markdown_cell(text)
    assert "https\\://evil.example/x" in cell and "www\\.evil" in cell
    assert "@octocat" not in cell and "@&#8203;octocat" in cell and "admin@&#8203;evil" in cell
    assert not re.search(r"(?<!\\)://", cell) and "www." not in cell.replace("www\\.", "")
    assert markdown_cell("x_www.example.com") == "x\\_www\\.example.com"  # (GFM links a www. after _ too)
    assert markdown_cell("# a.log:13, # b.log:13").startswith("\\# a.log")
    assert markdown_cell("1. c.log") == "1\\. c.log" and markdown_cell("1.5 min") == "1.5 min"
    assert markdown_cell("- a") == "\\- a" and markdown_cell("-5") == "-5"


def test_a_log_named_like_a_heading_stays_text_in_the_context_lines(tmp_path: Path) -> None:
    run = (ACME / "results" / "acme-t8" / "resnet" / "result_0.txt").read_text("utf-8")
    duplicate = next(line for line in run.splitlines(keepends=True) if '"key": "global_batch_size"' in line)
    for name in ("# a.log", "# b.log"):
        (tmp_path / name).write_text(run + duplicate, "utf-8")
    text = _markdown(tmp_path / "# a.log", tmp_path / "# b.log")
    context = [line for line in text.splitlines() if line.startswith("    - ") and "a.log" in line]
    assert context and all(line.startswith("    - \\# a.log") for line in context)


def test_the_text_report_of_many_finding_groups_hides_by_identity(tmp_path: Path) -> None:
    """Findings past the terminal's cap are counted by the groups' identity (comparing groups
    compared their findings: quadratic in the groups, minutes for thousands of runs)."""
    from rich.console import Console

    from mlcheck import check
    from mlcheck.report.text_findings import render_findings

    root = tmp_path / "Acme"
    shutil.copytree(ACME, root)
    folder = root / "results" / "acme-t8" / "resnet"
    source = (folder / "result_0.txt").read_text("utf-8")
    for index in range(5, 40):  # (each its own org name: a group each)
        (folder / f"result_{index}.txt").write_text(
            source.replace('"value": "Acme"', f'"value": "Acme{index}"'), "utf-8")
    console = Console(record=True, width=200)
    render_findings(check([str(root)]), console, cap=5)
    shown = console.export_text()
    assert re.search(r"\.\.\. \d+ more lines \(\d+ warning lines?(, \d+ note lines?)?\) not shown", shown), shown[-400:]


def test_the_html_report_lists_every_place_of_a_finding(tmp_path: Path) -> None:
    """The text report shows eight places of a finding of many runs; the HTML report, folded,
    showed no more, so a run whose line differed was only in the JSON."""
    from mlcheck import check
    from mlcheck.report import ReportOptions
    from mlcheck.report.html import render_html

    folder = tmp_path / "Acme" / "results" / "acme-t8" / "resnet"
    shutil.copytree(ACME, tmp_path / "Acme")
    run = (folder / "result_0.txt").read_text("utf-8")
    duplicate = next(line for line in run.splitlines(keepends=True) if '"key": "global_batch_size"' in line)
    for index in range(12):
        (folder / f"result_{index}.txt").write_text(run + duplicate, "utf-8")
    page = render_html(check([str(tmp_path / "Acme")]), ReportOptions(root=str(tmp_path)))
    assert all(f"result_{index}.txt:" in page for index in range(12))
    assert not re.search(r"\.\.\. \(\d+ more\)", page.split('id="findings"', 1)[1])


def test_the_html_runs_table_links_each_code_to_its_rule(tmp_path: Path) -> None:
    """A run's finding codes link to their rule's entry in the findings section; every link lands."""
    from mlcheck import check
    from mlcheck.report import ReportOptions
    from mlcheck.report.html import render_html

    shutil.copytree(ACME, tmp_path / "Acme")
    run = tmp_path / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    text = run.read_text("utf-8")
    duplicate = next(line for line in text.splitlines(keepends=True) if '"key": "global_batch_size"' in line)
    run.write_text(text + duplicate, "utf-8")
    page = render_html(check([str(tmp_path / "Acme")]), ReportOptions(root=str(tmp_path)))
    links = set(re.findall(r'<a href="#(MLC\d+)">', page))
    assert links and all(f'id="{code}"' in page for code in links)


def test_finding_groups_follow_the_benchmarks_folder_order(tmp_path: Path) -> None:
    """Systems tpu, tpu-b, tpu.c: the benchmarks are in that order; the groups were not (a whole
    path puts ``/`` after ``-`` and ``.``)."""
    from mlcheck import check
    from mlcheck.report.grouped import group_for_display

    for system in ("tpu.c", "tpu", "tpu-b"):
        shutil.copytree(ACME / "results" / "acme-t8", tmp_path / "Acme" / "results" / system)
        (tmp_path / "Acme" / "results" / system / "resnet" / "result_4.txt").unlink()  # (a folder finding each)
    result = check([str(tmp_path / "Acme")])
    benchmarks = [bench.system for bench in result.benchmarks]
    assert benchmarks == ["tpu", "tpu-b", "tpu.c"]
    systems = [Path(g.folder).parent.name for g in group_for_display(result) if "/results/" in g.folder]
    assert systems and [s for i, s in enumerate(systems) if s not in systems[:i]] == benchmarks
