"""The results table of `mlcheck score` (issue 4 §5): text, CSV, Markdown and JSON, with the
published minutes and the RCP column."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlcheck import check
from mlcheck.cli import main
from mlcheck.report.plain import markdown_cell
from mlcheck.report.results_table import build_rows, render_csv, render_markdown, table_dict

from test_corpus_scores import EXPECTED

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "example" / "Acme"
RCP_FAILING = {("1.1.0", "ipu-pod16-POPART-closed"), ("1.1.0", "ipu-pod64-POPART-closed"),
               ("2.0.0", "ipu-pod128-POPART-closed"), ("2.0.0", "ipu-pod256-POPART-closed")}


def score(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["score", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout


def test_example_table_in_every_format(tmp_path: Path) -> None:
    result = check([str(EXAMPLE)])
    columns, rows = build_rows(result)
    assert columns == ["resnet"] and len(rows) == 1
    row = rows[0]
    assert (row.division, row.submitter, row.accelerators, row.framework) == ("closed", "Acme", 8, "PyTorch 1.11")
    assert row.cells["resnet"].text == "15.29" and row.rcp_text.startswith("pass +")
    lines = list(csv.reader(io.StringIO(render_csv(result))))
    assert lines[0] == ["round", "division", "availability", "submitter", "system", "nodes", "processor",
                        "processors", "accelerator", "accelerators", "framework", "notes", "resnet", "status", "rcp",
                        "details_url", "code_url"]
    assert lines[1][:14] == ["2.0.0", "closed", "Available on-premise", "Acme", "Acme T8 (acme-t8)", "1",
                             "AMD EPYC 7763", "2", "Acme T1", "8", "PyTorch 1.11", "", "15.29", "valid"]
    # (the summarizer's links: the round's results repository, the description's submitter, the folder)
    assert lines[1][-2:] == ["https://github.com/mlcommons/training_results_v2.0/blob/main/Acme/systems/acme-t8.json",
                             "https://github.com/mlcommons/training_results_v2.0/blob/master/Acme/benchmarks"]
    markdown = render_markdown(result).splitlines()
    assert markdown[0].startswith("| round | division |") and markdown[1].startswith("|---|")
    assert "| 15.29 |" in markdown[2]
    data = table_dict(result)
    assert data["schema"] == "mlcheck-results-table/1"
    assert data["rows"][0]["results"]["resnet"]["minutes"] == pytest.approx(15.29, abs=0.005)
    assert data["rows"][0]["results"]["resnet"]["rcp"] == "pass"


def test_cli_table_options(tmp_path: Path) -> None:
    code, out = score(str(EXAMPLE))
    assert code == 0 and "Acme T8 (acme-t8)" in out and "15.29" in out and "pass +" in out
    code, out = score(str(EXAMPLE), "--table-format", "csv")
    assert code == 0 and out.startswith("round,division,") and "Acme / acme-t8" not in out
    code, out = score(str(EXAMPLE), "-t", "json")
    assert json.loads(out)["benchmarks"] == ["resnet"]
    target = tmp_path / "table.md"
    code, out = score(str(EXAMPLE), "-t", "markdown", "--table-output", str(target))
    assert code == 0 and target.read_text().startswith("| round |") and "15.29 min" in out
    code, _ = score(str(EXAMPLE), "-t", "markdown", "--table-output", str(tmp_path / "missing" / "t.md"))
    assert code == 0 and (tmp_path / "missing" / "t.md").read_text().startswith("| round |")  # (created, as check -o)
    with pytest.MonkeyPatch.context() as patched:  # (a relative path: review of session 41)
        patched.chdir(tmp_path)
        code, _ = score(str(EXAMPLE), "-t", "markdown", "--table-output", "tables/t.md")
        assert code == 0 and (tmp_path / "tables" / "t.md").read_text().startswith("| round |")
    (tmp_path / "a-file").write_text("")
    result = CliRunner().invoke(main, ["score", str(EXAMPLE), "-t", "markdown", "--table-output",
                                       str(tmp_path / "a-file" / "t.md")])
    assert result.exit_code == 2 and f"{tmp_path / 'a-file'} is not a folder" in result.stderr, result.stderr


@pytest.mark.parametrize("round_name,ruleset", [("training-1.1", "1.1.0"), ("training-2.0", "2.0.0")])
def test_corpus_tables_show_the_published_minutes_and_rcp(corpus: Path, round_name: str, ruleset: str) -> None:
    code, out = score(str(corpus / round_name / "Graphcore"), "--ruleset", ruleset, "-t", "json")
    assert code == 1  # (the scores stand, but the round's RCP checker refuses two folders without a bypass)
    table = json.loads(out)
    seen = {}
    for row in table["rows"]:
        system = row["system"].rsplit("(", 1)[-1].rstrip(")")
        assert row["accelerators"] and row["framework"]
        for benchmark, cell in row["results"].items():
            seen[(ruleset, system, benchmark)] = cell
            expected_rcp = "skipped" if row["division"] == "open" else (
                "fail" if (ruleset, system) in RCP_FAILING else "pass")
            assert cell["rcp"] == expected_rcp, system
    expected = {k: v for k, v in EXPECTED.items() if k[0] == ruleset}
    assert set(seen) == set(expected)
    for key, minutes in expected.items():
        assert round(seen[key]["minutes"], 2) == pytest.approx(minutes), key
    code, text = score(str(corpus / round_name / "Graphcore"), "--ruleset", ruleset)
    assert "fail -" in text and "skipped" in text


# -- issue 14: numbers alone in numeric cells, a status column, availability, formats agree ---

def _table_values(result: object) -> tuple[list[str], list[list[str]]]:
    lines = list(csv.reader(io.StringIO(render_csv(result))))  # type: ignore[arg-type]
    return lines[0], lines[1:]


def test_numeric_cells_hold_numbers_and_the_status_column_says_invalid(tmp_path: Path) -> None:
    import shutil
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    (package / "results" / "acme-t8" / "resnet" / "result_4.txt").unlink()  # 4 runs: invalid
    result = check([str(package)])
    header, rows = _table_values(result)
    (row,) = rows
    cells = dict(zip(header, row))
    assert cells["status"] == "invalid" and float(cells["resnet"]) > 0  # the number alone
    for name in ("nodes", "processors", "accelerators", "resnet"):
        float(cells[name])
    data = table_dict(result)["rows"][0]
    assert data["status"] == "invalid" and data["results"]["resnet"]["status"] == "invalid"
    assert data["results"]["resnet"]["valid"] is False


@pytest.mark.parametrize("status,expected", [("onprem", "Available on-premise"), ("Available on-premise", "Available on-premise"),
                                             ("available", "Available on-premise"), ("cloud", "Available cloud"),
                                             ("Available cloud", "Available cloud"), ("preview", "Preview"),
                                             ("Available onprem", "Available on-premise"),
                                             ("research", "Research, Development, or Internal (RDI)"),
                                             ("internal", "Research, Development, or Internal (RDI)"),
                                             ("development", "Research, Development, or Internal (RDI)"),
                                             ("Research, Development, or Internal (RDI)",
                                              "Research, Development, or Internal (RDI)"),
                                             ("beta", "beta"), (None, "")])
def test_availability_is_the_category_mlcommons_publishes(status: str | None, expected: str) -> None:
    from mlcheck.report.results_table import availability
    assert availability(status) == expected


def _unlinked(cell: str) -> str:
    from urllib.parse import unquote

    return unquote(cell[1:-1]) if cell.startswith("<https://") and cell.endswith(">") else cell


def test_csv_markdown_json_and_text_agree(corpus: Path) -> None:
    from mlcheck.report.results_table import table_text
    result = check([str(corpus / "training-2.0" / "Graphcore")], ruleset="2.0.0")
    header, rows = _table_values(result)
    markdown = [[_unlinked(re.sub(r"\\(.)", r"\1", cell.strip())) for cell in line.strip("|").split(" | ")]
                for line in render_markdown(result).splitlines()]  # (a link cell is an autolink, percent-encoded)
    assert markdown[0] == header and [line for line in markdown[2:]] == rows
    data = table_dict(result)
    for row, entry in zip(rows, data["rows"]):
        cells = dict(zip(header, row))
        for name in ("round", "division", "availability", "submitter", "system", "processor", "accelerator",
                     "framework", "notes", "status", "details_url", "code_url"):
            assert cells[name] == entry[name]
        for name in ("nodes", "processors", "accelerators"):
            assert cells[name] == ("" if entry[name] is None else str(entry[name]))
        for bench in data["benchmarks"]:
            value = entry["results"].get(bench)
            assert cells[bench] == ("" if value is None or value["minutes"] is None else f"{value['minutes']:.2f}")
    text = table_text(result, "text")
    for row in rows:
        for value in row:
            if value and len(value) < 12:  # (long values wrap in the drawn table)
                assert value in text, value
    assert len(rows) == len(data["rows"]) and header[-4:] == ["status", "rcp", "details_url", "code_url"]


def test_markdown_shows_a_values_markup_as_text() -> None:
    """A system name or a logged value with links, images, emphasis or entities is shown as it is
    in the Markdown report, the results table and the job summary (was: rendered, a tracking image
    in the results chair's summary)."""
    cell = markdown_cell("![pixel](https://evil.example/t.png) [x](https://e.example) **b** ~~s~~ `t` &amp; a|b <i>")
    for escaped in ("\\!\\[pixel\\]", "\\[x\\]", "\\*\\*b\\*\\*", "\\~\\~s\\~\\~", "\\`t\\`", "\\&amp;", "a\\|b", "&lt;i&gt;"):
        assert escaped in cell, escaped
    assert re.sub(r"\\(.)", r"\1", cell).replace("&lt;", "<").replace("&gt;", ">") == \
        "![pixel](https://evil.example/t.png) [x](https://e.example) **b** ~~s~~ `t` &amp; a|b <i>"


# -- the table's JSON has a schema (schemas/results-table.schema.json) --------------------------

TABLE_SCHEMA = json.loads((ROOT / "schemas" / "results-table.schema.json").read_text("utf-8"))


def _valid_table(out: str) -> dict[str, object]:
    import jsonschema
    table = json.loads(out)
    jsonschema.validate(table, TABLE_SCHEMA)
    return table


def test_table_json_follows_its_schema_on_the_example_and_on_broken_packages(tmp_path: Path) -> None:
    import shutil
    table = _valid_table(score(str(EXAMPLE), "-t", "json")[1])
    assert table["rows"][0]["results"]["resnet"]["rcp"] == "pass"
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    (package / "systems" / "acme-t8.json").write_text('{"number_of_nodes": "two"}')  # counts unreadable
    (package / "results" / "acme-t8" / "resnet" / "result_4.txt").unlink()
    table = _valid_table(score(str(package), "-t", "json")[1])
    row = table["rows"][0]
    assert (row["nodes"], row["accelerators"], row["framework"], row["status"]) == (None, None, "", "invalid")
    assert row["results"]["resnet"]["valid"] is False


def test_table_json_follows_its_schema_on_every_shared_round() -> None:
    from conftest import SHARED
    rounds = sorted((SHARED / "other-submitters").glob("training-*"))
    if not rounds:
        pytest.skip("../shared/other-submitters is not present")
    for round_folder in rounds:
        orgs = sorted(p for p in round_folder.iterdir() if p.is_dir())[:4]  # (a sample: the whole set is in test_oracle)
        table = _valid_table(score(*map(str, orgs), "-t", "json")[1])
        assert table["rows"] and all(row["results"] for row in table["rows"]), round_folder.name


def test_a_benchmark_with_an_energy_score_gets_an_energy_column() -> None:
    """The summarizer publishes ``<benchmark>:Energy`` beside the minutes of a folder with power
    logs: the table has ``<benchmark> energy (kJ)`` (one decimal) and the JSON ``energy_joules``;
    a table without any energy score has no such column."""
    from conftest import SHARED
    header = list(csv.reader(io.StringIO(render_csv(check([str(EXAMPLE)])))))[0]
    assert not [name for name in header if "energy" in name]
    assert table_dict(check([str(EXAMPLE)]))["rows"][0]["results"]["resnet"]["energy_joules"] is None
    powered = sorted({p.parents[3] for p in (SHARED / "other-submitters").glob("training-*/*/results/*/*/power")})
    for org in powered:
        result = check([str(org)])
        scored = [b for b in result.benchmarks if b.energy is not None and b.energy.joules is not None]
        if not scored:
            continue
        bench = scored[0]
        lines = list(csv.reader(io.StringIO(render_csv(result))))
        column = lines[0].index(f"{bench.benchmark} energy (kJ)")
        assert f"{bench.energy.joules / 1000:.1f}" in [line[column] for line in lines[1:]]
        _valid_table(json.dumps(table_dict(result)))
        energies = [row["results"][bench.benchmark]["energy_joules"] for row in table_dict(result)["rows"]
                    if bench.benchmark in row["results"]]
        assert bench.energy.joules in energies
        return
    pytest.skip("no package of ../shared/other-submitters has power logs that score (or it is not present)")


def test_tpu_names_and_tensorflow_builds_are_shown_as_the_summarizer_shows_them(tmp_path: Path) -> None:
    """The summarizer's display names (``_pretty_system_name``, ``_pretty_accelerator_model_name``,
    ``_pretty_framework``): system ``tpu-v3`` is TPUv3.<2 x accelerators per node>, accelerator
    ``tpu-v3`` TPUv3, a TensorFlow framework's `` commit hash = ...`` cut (a review, session 34)."""
    import shutil

    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    (system,) = (package / "systems").glob("*.json")
    data = json.loads(system.read_text("utf-8"))
    data.update(system_name="tpu-v3", accelerator_model_name="tpu-v3",
                framework="TensorFlow 2.4 commit hash = 0123abcd", number_of_nodes=4, accelerators_per_node=4)
    system.write_text(json.dumps(data), "utf-8")
    (row,) = build_rows(check([str(package)]))[1]
    assert (row.system, row.accelerator, row.framework) == (f"TPUv3.8 ({system.stem})", "TPUv3", "TensorFlow 2.4")


@pytest.mark.parametrize("width", [60, 80, 300])
def test_a_narrow_terminal_gets_a_block_per_system_and_no_number_cut(width: int) -> None:
    """At 80 columns the table cut 15.29 into '15.2' over '9' (session 36): a terminal narrower
    than the table needs gets a block per system; a wide one the table."""
    from rich.console import Console

    from mlcheck.report.results_table import render_table_text

    out = io.StringIO()
    render_table_text(check([str(EXAMPLE)]), Console(file=out, width=width, force_terminal=True, color_system=None))
    text = out.getvalue()
    assert "15.29" in text
    if width < 300:
        assert "\n  resnet: 15.29\n" in text and "┃" not in text
    else:
        assert "┃" in text and "resnet: 15.29" not in text


def test_score_says_the_config_it_ignored(tmp_path: Path) -> None:
    """A config file that is no TOML is ignored; score says so on stderr (review of session 41: only
    the summary's '1 error' showed it)."""
    bad = tmp_path / "bad.toml"
    bad.write_text("select = [\n")
    result = CliRunner().invoke(main, ["score", str(EXAMPLE), "--config", str(bad)])
    assert result.exit_code == 0 and f"mlcheck: {bad}: MLC041 not valid TOML" in result.stderr, result.stderr


def test_two_copies_of_one_package_are_two_rows(tmp_path: Path) -> None:
    """Named at once, each copy's results are its own row (review of session 41: the second one's
    cells replaced the first's without a word)."""
    import shutil

    for copy in ("a", "b"):
        shutil.copytree(EXAMPLE, tmp_path / copy / "Acme")
    _columns, rows = build_rows(check([str(tmp_path / "a" / "Acme"), str(tmp_path / "b" / "Acme")]))
    assert len(rows) == 2 and all(row.cells["resnet"].text == "15.29" for row in rows)
