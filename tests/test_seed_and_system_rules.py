"""Seeds (MLC518, MLC519) as each round's official seed checker decides them, and system
descriptions (MLC512, MLC515) as the round's system_desc_checker does: constructed packages
derived from the bundled example ``fixtures/example/Acme`` (a training 2.0 package)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Callable

import pytest
from click.testing import CliRunner

from conftest import SHARED
from mlcheck import check
from mlcheck.cli import main
from mlcheck.model import Finding, Run, Severity
from mlcheck.package.layout import read_json_document
from mlcheck.rules.package_runs import check_runs
from mlcheck.rules.seeds import seeds_mandatory
from mlcheck.rules.package_system import check_system_description

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "example" / "Acme"
RESNET = Path("results") / "acme-t8" / "resnet"
SYSTEM = Path("systems") / "acme-t8.json"
SHARED_PACKAGES = SHARED / "other-submitters"


def make_package(tmp_path: Path) -> Path:
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    return package


def drop_seed(log: Path) -> None:
    log.write_text("".join(line for line in log.read_text().splitlines(keepends=True)
                           if '"key": "seed"' not in line))


def set_seed_source(log: Path, lineno: int) -> None:
    text = log.read_text()
    row = next(line for line in text.splitlines() if '"key": "seed"' in line)
    log.write_text(text.replace(row, re.sub(r'"lineno": \d+', f'"lineno": {lineno}', row)))


def edit_system(package: Path, change: Callable[[dict[str, object]], object]) -> None:
    data = json.loads((package / SYSTEM).read_text())
    change(data)
    (package / SYSTEM).write_text(json.dumps(data, indent=2))


def found(package: Path, code: str, ruleset: str | None = None) -> list[Finding]:
    return [f for f in check([str(package)], ruleset=ruleset).all_findings() if f.code == code]


def cli(*args: str) -> int:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and "internal error" not in result.output
    return result.exit_code


def runs_of(folder: Path) -> list[Run]:
    runs = [r.run for r in check([str(folder)]).runs if r.run is not None]
    assert len(runs) == 5
    return runs


# -- MLC518: seeds ----------------------------------------------------------------------------

@pytest.mark.parametrize("ruleset", ["1.0.0", "1.1.0", "2.0.0", "2.1.0"])
def test_a_folder_where_no_run_logs_a_seed_is_one_warning_before_4_1(tmp_path: Path, ruleset: str) -> None:
    package = make_package(tmp_path)
    for log in (package / RESNET).glob("result_*.txt"):
        drop_seed(log)
    [warning] = found(package, "MLC518", ruleset)
    assert (warning.severity, warning.official, warning.path, warning.line) == (
        Severity.WARNING, False, str(package / RESNET), None)
    assert "no run of the folder logs a seed (5 files)" in warning.message
    assert "(mandatory from training 4.1; today's package checker" in warning.message
    assert f"the training {ruleset} seed checker did not require them" in warning.message
    assert cli("check", str(package), "--ruleset", ruleset) == 0
    (bench,) = check([str(package)], ruleset=ruleset).benchmarks
    assert bench.score.valid


def test_seeds_in_some_runs_only_fail_a_2_0_folder_on_the_runs_without(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    drop_seed(package / RESNET / "result_1.txt")
    drop_seed(package / RESNET / "result_3.txt")
    errors = found(package, "MLC518")
    assert [(Path(f.path).name, f.line, f.severity, f.official) for f in errors] == [
        ("result_1.txt", 1, Severity.ERROR, True), ("result_3.txt", 1, Severity.ERROR, True)]
    assert errors[0].message.startswith("result_1.txt logs no seed but result_0.txt, before it in sorted order, "
                                        "logs one: the training 2.0.0 seed checker fails the folder")
    assert cli("check", str(package)) == 1
    (bench,) = check([str(package)]).benchmarks
    assert not bench.score.valid and "MLC518" in bench.score.reason


def test_a_2_0_run_without_a_seed_before_every_run_with_one_is_a_warning(tmp_path: Path) -> None:
    """The 2.0 seed checker reads the files in sorted order (the package checker sorts them) and
    fails a file without a seed only after one with a seed: result_0.txt and result_1.txt pass
    it, result_3.txt (after result_2.txt) fails the folder."""
    package = make_package(tmp_path)
    for name in ("result_0.txt", "result_1.txt", "result_3.txt"):
        drop_seed(package / RESNET / name)
    got = [(Path(f.path).name, f.severity, f.official) for f in found(package, "MLC518")]
    assert got == [("result_0.txt", Severity.WARNING, False), ("result_1.txt", Severity.WARNING, False),
                   ("result_3.txt", Severity.ERROR, True)]
    for name in ("result_2.txt", "result_3.txt", "result_4.txt"):
        (package / RESNET / name).unlink()
    assert cli("check", str(package)) == 1  # (now 2 runs of 5; the seeds alone are warnings)
    assert {(f.severity, f.official) for f in found(package, "MLC518")} == {(Severity.WARNING, False)}


def test_the_2_0_seed_order_is_the_file_names_whatever_the_paths_given(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker sorts the paths of one folder: an absolute spelling of result_4.txt given first
    (kept as given) still comes after result_0.txt."""
    package = make_package(tmp_path)
    drop_seed(package / RESNET / "result_4.txt")
    monkeypatch.chdir(tmp_path)
    for paths in ([str(package / RESNET / "result_4.txt"), f"Acme/{RESNET}"],
                  [f"Acme/{RESNET}", str(package / RESNET / "result_4.txt")]):
        got = [(Path(f.path).name, f.severity) for f in check(paths).all_findings() if f.code == "MLC518"]
        assert got == [("result_4.txt", Severity.ERROR)], paths


@pytest.mark.parametrize("empty, fails", [("result_0.txt", False), ("result_4.txt", True)])
def test_a_2_0_empty_result_file_fails_the_seed_check_after_a_seeded_file(tmp_path: Path, empty: str,
                                                                        fails: bool) -> None:
    package = make_package(tmp_path)
    (package / RESNET / empty).write_text("")
    got = [(Path(f.path).name, f.severity) for f in found(package, "MLC518")]
    assert got == ([(empty, Severity.ERROR)] if fails else [])


@pytest.mark.parametrize("ruleset", ["4.1.0", "5.0.0", "5.1.0", "6.1.0", "10.0.0"])
def test_from_4_1_every_closed_run_without_a_seed_is_an_error(tmp_path: Path, ruleset: str) -> None:
    # mlcheck's rulesets stop before 4.1: the rule is called with the round's version string.
    package = make_package(tmp_path)
    for log in (package / RESNET).glob("result_*.txt"):
        drop_seed(log)
    folder = package / RESNET
    errors = check_runs(str(folder), runs_of(folder), closed=True, ruleset=ruleset)
    assert [(Path(f.path).name, f.code, f.severity, f.official) for f in errors] == [
        (f"result_{i}.txt", "MLC518", Severity.ERROR, True) for i in range(5)]
    assert all("(seeds are mandatory from training 4.1)" in f.message for f in errors)
    assert check_runs(str(folder), runs_of(folder), closed=False, ruleset=ruleset) == []


def test_a_4_1_folder_missing_one_seed_is_one_error(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    drop_seed(package / RESNET / "result_2.txt")
    folder = package / RESNET
    errors = check_runs(str(folder), runs_of(folder), closed=True, ruleset="4.1.0")
    assert [(Path(f.path).name, f.severity, f.official) for f in errors] == [("result_2.txt", Severity.ERROR, True)]
    assert errors[0].message.startswith("result_2.txt logs no seed (seeds are mandatory from training 4.1)")


def test_4_0_still_follows_the_old_seed_checker(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    for log in (package / RESNET).glob("result_*.txt"):
        drop_seed(log)
    folder = package / RESNET
    [warning] = check_runs(str(folder), runs_of(folder), closed=True, ruleset="4.0.0")
    assert (warning.code, warning.severity, warning.official) == ("MLC518", Severity.WARNING, False)
    assert "the training 4.0.0 seed checker did not require them" in warning.message


@pytest.mark.parametrize(("ruleset", "mandatory"), [
    ("1.0.0", False), ("2.1.0", False), ("3.1.0", False), ("4.0.0", False), ("4.0", False),
    ("4.1.0", True), ("4.1", True), ("v5.0.0", True), ("4.10.0", True), ("10.0.0", True), ("6.1.0", True),
    (None, True), ("", True), ("latest", True)])
def test_seed_rounds_compare_numerically(ruleset: str | None, mandatory: bool) -> None:
    assert seeds_mandatory(ruleset) is mandatory


# -- MLC519: duplicate seeds ------------------------------------------------------------------

def _duplicate_seed(package: Path) -> None:
    seed = re.search(r'"key": "seed", "value": (\d+)', (package / RESNET / "result_0.txt").read_text())
    assert seed
    log = package / RESNET / "result_3.txt"
    log.write_text(re.sub(r'("key": "seed", "value": )\d+', lambda m: m.group(1) + seed.group(1),
                          log.read_text(), count=1))


def test_a_seed_repeated_from_the_same_source_line_is_an_official_error(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    _duplicate_seed(package)
    [error] = found(package, "MLC519")
    assert (Path(error.path).name, error.severity, error.official) == ("result_3.txt", Severity.ERROR, True)
    assert "is also the seed of" in error.message and "another source line" not in error.message


def test_a_seed_repeated_from_another_source_line_is_a_warning(tmp_path: Path) -> None:
    """training_rules.adoc (v4.1 on): no other run can log the same seed on the same line in the
    same source file; the seed checker compares (file, lineno, seed) and passes the folder."""
    package = make_package(tmp_path)
    _duplicate_seed(package)
    set_seed_source(package / RESNET / "result_3.txt", 9999)
    [warning] = found(package, "MLC519")
    assert (warning.severity, warning.official) == (Severity.WARNING, False)
    assert "logged from another source line: the rules and the seed checker refuse the same seed only" in warning.message
    assert check([str(package)]).benchmarks[0].score.valid


def test_the_example_package_has_no_seed_or_system_findings(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    assert [f.code for f in check([str(package)]).all_findings()] == []


# -- MLC512 / MLC515: system descriptions -----------------------------------------------------

def test_objects_and_lists_in_system_fields_are_no_error(tmp_path: Path) -> None:
    """Except in the seven fields system_desc_checker joins into the table's row (','.join raises
    TypeError on a list or a number there: tests of mlcheck.rules.system_row)."""
    package = make_package(tmp_path)

    def change(data: dict[str, object]) -> None:
        data["other_software_stack"] = {"cuda_version": "11.6", "nccl_version": "2.12.10"}
        data["host_networking"] = ["InfiniBand HDR", "100 GbE"]
        data["number_of_nodes"] = 1.0
    edit_system(package, change)
    # An object or a list in a field no tool reads (other_software_stack, host_networking) is not
    # reported: the checker accepts it and nothing reads it (half of the published descriptions).
    assert found(package, "MLC512") == []
    assert cli("check", str(package)) == 0


@pytest.mark.parametrize("value,refused", [(["2"], True), (5, True), ({"a": "b"}, True), (True, True),
                                           ("", False), (None, False), (0, False), ("n/a", False)])
def test_notes_the_summarizer_cannot_join_are_an_error(tmp_path: Path, value: object, refused: bool) -> None:
    """The result summarizer joins hw_notes and sw_notes with ';'.join(s for s in ... if s): a
    value that is not text and not empty raises TypeError, and no results are published. The
    package checker passes the file, so the error is not `official` (as MLC506's and MLC543's
    stops of the summarizer are not)."""
    package = make_package(tmp_path)

    def change(data: dict[str, object]) -> None:
        data["sw_notes"] = value
    edit_system(package, change)
    errors = [f for f in found(package, "MLC512") if f.severity is Severity.ERROR]
    assert [f.official for f in errors] == ([False] if refused else [])
    assert all(f.message.startswith(f"field 'sw_notes' is {value}: the result summarizer joins") for f in errors)


def test_a_missing_required_field_stays_an_official_error(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    edit_system(package, lambda d: d.pop("other_software_stack"))
    [error] = found(package, "MLC512")
    assert (error.severity, error.official) == (Severity.ERROR, True)
    assert error.message.startswith("missing required field(s): other_software_stack; the round's "
                                    "system_desc_checker refuses the file")
    assert cli("check", str(package)) == 1
    edit_system(package, lambda d: [d.pop(k) for k in ("host_processor_vcpu_count", "cooling")])
    [error] = found(package, "MLC512")  # (each field named once, however many are missing)
    named = error.message.split(";")[0].removeprefix("missing required field(s): ").split(", ")
    assert sorted(named) == ["cooling", "host_processor_vcpu_count", "other_software_stack"], error.message


@pytest.mark.parametrize("value", ['""', '"   "', "null", "17", "1e999", "-1e999", '["Acme"]', '{"a": 1}', "true"])
def test_odd_submitter_system_name_and_counts_never_raise(tmp_path: Path, value: str) -> None:
    package = make_package(tmp_path)
    text = (package / SYSTEM).read_text()
    for key in ("submitter", "system_name", "number_of_nodes", "accelerators_per_node", "division"):
        text = re.sub(rf'("{key}": )("[^"]*"|\d+)', lambda m: m.group(1) + value, text, count=1)
    (package / SYSTEM).write_text(text)
    doc = read_json_document(str(package / SYSTEM))
    assert doc.data is not None
    assert {key: doc.data[key] for key in ("submitter", "system_name", "number_of_nodes", "division")} == {
        key: json.loads(value) for key in ("submitter", "system_name", "number_of_nodes", "division")}
    result = check([str(package)])
    findings = list(result.all_findings())
    assert not [f for f in findings if f.code == "MLC000"]
    errors = sorted(re.sub(r"^line \d+: ", "", text).split(" is ")[0] for f in findings
                    if f.code in ("MLC512", "MLC515") and f.severity is Severity.ERROR
                    for text in (f.items or (f.message,)))
    # Not text in a field of the table's row: the system_desc_checker's ','.join raises TypeError;
    # a count int() refuses: the result summarizer's int(...) * int(...) raises ValueError.
    joined = [] if value.startswith('"') else ["field 'accelerators_per_node'", "field 'submitter'",
                                               "field 'system_name'"]
    counted = [] if value in ("17", "true") else ["field 'number_of_nodes'"] + (
        ["field 'accelerators_per_node'"] if value.startswith('"') else [])
    assert errors == sorted(joined + counted)
    assert cli("check", str(package)) in (0, 1)  # (MLC516: a division the logs do not log)
    assert cli("score", str(package)) == 1
    assert cli("report", str(package), "-o", str(tmp_path / "report.html")) in (0, 1)
    for fmt in ("json", "html", "markdown", "sarif", "junit"):
        assert cli("check", str(package), "-f", fmt) in (0, 1)


@pytest.mark.parametrize(("ruleset", "status", "expected"), [
    ("2.0.0", "onprem", None),
    ("2.0.0", "Available on-premise", None),  # the later official spelling is known before 4.1 too
    ("2.1.0", "Available on premise", None),
    ("2.0.0", "soon", (Severity.WARNING, False)),
    ("4.0.0", "cloud", (Severity.INFO, False)),  # (accepted by the record checker; today's refuses it)
    ("4.0.0", "Available cloud", None),
    ("4.0.0", "soon", (Severity.ERROR, True)),  # (no spelling of any: the record's list refuses it, rv298)
    ("4.0.0", None, (Severity.ERROR, True)),
    ("4.0.0", ["Preview"], (Severity.ERROR, True)),
    ("4.0.0", "Available On-Premise", (Severity.INFO, False)),  # (a spelling: the record accepted spellings)
    ("4.1.0", "Available on-premise", None),
    ("5.0.0", "Available cloud", None),
    ("4.1.0", "onprem", (Severity.ERROR, True)),
    ("6.1.0", "available on-premise", (Severity.ERROR, True)),
    ("5.1.0", ["Preview"], (Severity.ERROR, True)),
])
def test_status_follows_the_round(tmp_path: Path, ruleset: str, status: object,
                                  expected: tuple[Severity, bool] | None) -> None:
    package = make_package(tmp_path)
    edit_system(package, lambda d: d.update(status=status))
    findings = [f for f in check_system_description(read_json_document(str(package / SYSTEM)), "r", ruleset)
                if f.code == "MLC515"]
    assert [(f.severity, f.official) for f in findings] == ([expected] if expected else [])
    if expected == (Severity.ERROR, True):
        assert f"the training {ruleset} system_desc_checker refuses the file" in findings[0].message


def _round_of(path: Path) -> str:
    return path.parts[-4].removeprefix("training-") + ".0"


def test_no_published_system_description_is_an_error() -> None:
    """Every system JSON the rounds published passed their system_desc_checker: none may be an
    MLC512/MLC515 error here (status checked exactly from 4.1)."""
    files = sorted(SHARED_PACKAGES.glob("training-*/*/systems/*.json"))
    if not files:
        pytest.skip("../shared/other-submitters is not present")
    errors = [(str(path), f.code, f.message) for path in files
              for f in check_system_description(read_json_document(str(path)), "r", _round_of(path))
              if f.severity is Severity.ERROR]
    assert errors == []


def test_system_findings_name_the_line_of_their_field(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    edit_system(package, lambda d: d.update(status="Soon", framework=["PyTorch", "Apex"], cooling="TODO",
                                            host_networking=""))
    lines = (package / SYSTEM).read_text().splitlines()

    def line(key: str) -> int:
        return 1 + next(i for i, text in enumerate(lines) if text.startswith(f'  "{key}":'))
    findings = check_system_description(read_json_document(str(package / SYSTEM)), "r", "4.1.0")
    by_code = {f.code: f for f in findings}
    assert by_code["MLC515"].line == line("status")
    assert by_code["MLC512"].line == line("framework")
    # "TODO" is a warning, an empty field no tool reads a note: each at its (first) field
    assert sorted((f.severity.name, f.line) for f in findings if f.code == "MLC514") == [
        ("INFO", line("host_networking")), ("WARNING", line("cooling"))]


def test_top_level_keys_are_found_past_nested_ones_and_quoted_text() -> None:
    from mlcheck.package.json_lines import top_level_key_lines

    text = '{\n "a": 1,\n "b": {"a": 2,\n  "c": "x:\\" \\"d\\": y"},\n "c" : ["{", "d:"],\n"e\\u00e9":""}'
    assert json.loads(text)["c"] == ["{", "d:"]
    assert top_level_key_lines(text) == {"a": 2, "b": 3, "c": 5, "eé": 6}


@pytest.mark.parametrize("breakage", ["missing", "not json", "a folder", "missing field"])
def test_a_refused_system_description_leaves_no_valid_score(tmp_path: Path, breakage: str) -> None:
    """The package checker refuses the package (the summarizer cannot read its system): the
    folders of that system get no valid score, and ``score`` exits 1 as ``check`` does."""
    package = make_package(tmp_path)
    system = package / SYSTEM
    if breakage == "missing":
        system.unlink()
    elif breakage == "not json":
        system.write_text('{\n  "submitter": "Acme",\n  "division": closed\n}\n', encoding="utf-8")
    elif breakage == "a folder":
        system.unlink()
        system.mkdir()
    else:
        edit_system(package, lambda d: d.pop("framework"))
    result = check([str(package)])
    (bench,) = result.benchmarks
    assert not bench.score.valid and "its system description" in bench.score.reason
    assert bench.score.score_min is not None  # (the number is still shown, as the summarizer computes it)
    outcome = CliRunner().invoke(main, ["score", str(package)])
    assert outcome.exit_code == 1, outcome.output
    if breakage == "not json":
        (unreadable,) = [f for f in result.all_findings() if f.code == "MLC511"]
        assert unreadable.line == 3


def test_a_number_in_a_field_the_table_row_joins_fails_as_the_checker_crashes_on_it(tmp_path: Path) -> None:
    """system_desc_checker joins seven fields with ','.join(): a number or a list there raises
    TypeError in every round's release. Other fields may hold any value (a warning at most)."""
    import json as json_module
    import shutil

    from conftest import FIXTURES
    from mlcheck import check

    package = tmp_path / "Acme"
    shutil.copytree(FIXTURES / "example" / "Acme", package)
    path = package / "systems" / "acme-t8.json"
    data = json_module.loads(path.read_text("utf-8"))
    data["accelerators_per_node"], data["host_processor_core_count"], data["number_of_nodes"] = [8], 32, 1
    path.write_text(json_module.dumps(data, indent=2), "utf-8")
    result = check([str(package)])
    errors = sorted((f.code, re.sub(r"^line \d+: ", "", text).split(":")[0]) for f in result.all_findings()
                    if f.severity.name == "ERROR" for text in (f.items or (f.message,)))
    assert errors == [("MLC512", "field 'accelerators_per_node' is the array [8]"),
                      ("MLC512", "field 'host_processor_core_count' is the number 32")]
    assert all(f.official for f in result.all_findings() if f.severity.name == "ERROR")
    assert not result.benchmarks[0].score.valid


def test_an_empty_field_of_the_results_table_is_a_warning_and_others_a_note(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    edit_system(package, lambda d: d.update(accelerator_model_name="", accelerator_frequency="",
                                            host_processor_caches=" "))
    findings = [f for f in check_system_description(read_json_document(str(package / SYSTEM)), "r", "4.1.0")
                if f.code == "MLC514"]
    assert [(f.severity, f.message.split(": ")[1].split(":")[0]) for f in findings] == [
        (Severity.WARNING, "accelerator_model_name"),
        (Severity.INFO, "accelerator_frequency, host_processor_caches")]


@pytest.mark.parametrize("added,code,severity,where", [
    ('"value": 7936, "metadata": {"file": "train.py", "lineno": 124}', "MLC519", "error", "result_0.txt:8"),
    ('"value": 15855, "metadata": {"file": "train.py", "lineno": 124}', "MLC519", "error", "as at line 8 (this run)"),
    ('"value": 15855, "metadata": {"file": "other.py", "lineno": 9}', None, None, None),  # (its own, elsewhere)
    ('"value": "abc", "metadata": {"file": "train.py", "lineno": 130}', "MLC522", "error", None),
])
def test_every_seed_record_of_a_run_is_read_as_the_seed_checker_reads_them(
        tmp_path: Path, added: str, code: str | None, severity: str | None, where: str | None) -> None:
    """A second seed record of result_1.txt (another rank's, or a repeat): the seed checker keeps
    every (file, lineno, int(seed)) of every run and fails the folder on a repeat or a non-integer."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    log = package / RESNET / "result_1.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    lines.insert(8, ':::MLLOG {"namespace": "", "time_ms": 1652094000004, "event_type": "POINT_IN_TIME", '
                 f'"key": "seed", {added}}}\n')
    log.write_text("".join(lines), "utf-8")
    (bench,) = check([str(package)]).benchmarks
    seeds = [f for f in bench.findings if f.code in ("MLC519", "MLC522")]
    if code is None:
        assert seeds == [] and bench.score.valid
        return
    assert [(f.code, f.severity.label, f.path.endswith("result_1.txt"), f.line) for f in seeds] == [
        (code, severity, True, 9)]
    assert where is None or where in seeds[0].message
    assert not bench.score.valid


@pytest.mark.parametrize("field,value,refused", [
    ("host_processors_per_node", "", True), ("accelerators_per_node", "2.0", True),
    ("number_of_nodes", "two", True), ("number_of_nodes", "2", False), ("number_of_nodes", 2, False),
    ("number_of_nodes", None, True)])
def test_a_count_the_summarizer_cannot_read_with_int_is_an_error(tmp_path: Path, field: str, value: object,
                                                                 refused: bool) -> None:
    """The result summarizer multiplies int(accelerators_per_node) * int(number_of_nodes): a value
    int() refuses stops it (ValueError), and no results are published for the package."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    path = package / SYSTEM
    data = json.loads(path.read_text("utf-8"))
    data[field] = value
    path.write_text(json.dumps(data, indent=2), "utf-8")
    (bench,) = check([str(package)]).benchmarks
    errors = [f for f in check([str(package)]).findings if f.code == "MLC512" and f.severity is Severity.ERROR]
    assert [f.message.split(":")[0] for f in errors] == ([f"field {field!r} is {value!r}"] if refused else [])
    assert bench.score.valid is not refused
    raised = "TypeError" if value is None else "ValueError"  # (int(None): a review, session 35)
    assert all(f"which raises {raised} here" in f.message for f in errors)
    assert not any(f.official for f in errors)  # (the package checker passes it; the summarizer stops)


def test_an_unreadable_system_description_is_named_in_an_already_invalid_score(tmp_path: Path) -> None:
    """A folder invalid for a run of its own (no record: MLC521, MLC518) whose system description
    cannot be read either: the score's reason names both (was: the run's alone, and "the official
    tools would ... publish N min", where the summarizer stops on the description)."""
    package = make_package(tmp_path)
    (package / SYSTEM).write_text("")
    run = package / "results" / "acme-t8" / "resnet" / "result_3.txt"
    run.write_text("\n\n\n")
    (bench,) = check([str(package)]).benchmarks
    assert not bench.score.valid and "MLC521" in bench.score.reason
    assert bench.score.reason.endswith(f"its system description {package / SYSTEM} is refused (MLC511)"), \
        bench.score.reason


def test_a_missing_description_names_a_file_named_like_it(tmp_path: Path) -> None:
    """systems/acme-t8.json renamed with a typo: MLC510 says the file named like it is there."""
    package = make_package(tmp_path)
    typo = package / "systems" / "acme-t8x.json"
    (package / SYSTEM).rename(typo)
    [missing] = found(package, "MLC510")
    assert missing.message.endswith(f"; {typo} is there: a typo of the system's name?"), missing.message
    for other in ("acme-t8", "acme-t8.JSON", "acme-t8.json.txt"):  # (a review, session 35: nothing named them)
        renamed = package / "systems" / other
        typo.rename(renamed)
        [missing] = found(package, "MLC510")
        assert missing.message.endswith(f"; {renamed} is there: name it acme-t8.json"), missing.message
        typo = renamed


def test_a_file_in_systems_that_is_no_description_is_said(tmp_path: Path) -> None:
    """systems/README.md: no tool reads it, and nothing said so (a review, session 35)."""
    package = make_package(tmp_path)
    (package / "systems" / "README.md").write_text("notes\n", "utf-8")
    (package / "systems" / ".hidden").write_text("x\n", "utf-8")
    [stray] = found(package, "MLC508")
    assert stray.path == str(package / "systems" / "README.md") and stray.severity is Severity.WARNING
    assert stray.message.startswith("systems/ holds <system>.json files")


def test_a_missing_field_names_the_misspelt_key_that_holds_it(tmp_path: Path) -> None:
    """``accelerator_memory_capacitty``: the error names the key the value is under (review of
    session 40: it asked to add the field, the misspelt key unnamed); a known field is no typo."""
    package = make_package(tmp_path)
    edit_system(package, lambda d: d.update(accelerator_memory_capacitty=d.pop("accelerator_memory_capacity")))
    [error] = found(package, "MLC512")
    assert error.message.startswith("missing required field(s): accelerator_memory_capacity "
                                    "('accelerator_memory_capacitty' misspelt?); ")


def test_a_name_written_in_utf8_agrees_with_the_system_and_the_other_runs(tmp_path: Path) -> None:
    """A result file is read as latin-1, as the official parser reads it; the comparisons no official
    tool makes take the UTF-8 text back: ``Zürich`` in the logs (raw, or ``\\u00fc`` in one run)
    is the system description's ``Zürich`` (review of session 41: MLC516 said 'ZÃ¼rich')."""
    package = make_package(tmp_path)
    edit_system(package, lambda data: data.update(submitter="Zürich"))
    for index, log in enumerate(sorted((package / RESNET).glob("result_*.txt"))):
        name = "Z\\u00fcrich" if index == 1 else "Zürich"
        log.write_bytes(log.read_bytes().replace(b'"key": "submission_org", "value": "Acme"',
                                                 f'"key": "submission_org", "value": "{name}"'.encode("utf-8")))
    findings = check([str(package)]).all_findings()
    assert not [f for f in findings if f.code in ("MLC516", "MLC517")], [f.message for f in findings]
    edit_system(package, lambda data: data.update(submitter="Zurich AG"))
    [shown, *_] = [f.message for f in check([str(package)]).all_findings() if f.code == "MLC516"]
    assert shown.startswith("submission_org is 'Zürich'"), shown
