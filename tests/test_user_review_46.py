"""Defects a new user's review found (session 46): what MLC521 says of runs only mlcheck fails,
the cause of a result without a score, a package kept inside another's results/, the key of a
record that cannot be read, and the Python API given no path."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck import check

ACME = FIXTURES / "example" / "Acme"
SYSTEM = Path("results") / "acme-t8"


def _package(tmp_path: Path) -> Path:
    root = tmp_path / "Acme"
    shutil.copytree(ACME, root)
    return root


def test_a_run_only_mlcheck_fails_is_said_to_pass_the_official_tools_and_the_missing_runs_are_named(
        tmp_path: Path) -> None:
    root = _package(tmp_path)
    (root / SYSTEM / "bert").mkdir()
    shutil.copy(root / SYSTEM / "resnet" / "result_0.txt", root / SYSTEM / "bert")
    bench = next(b for b in check([str(root)]).benchmarks if b.benchmark == "bert")
    (found,) = [f for f in bench.findings if f.code == "MLC521"]
    assert "(MLC016): the official tools pass it (no official tool checks what mlcheck finds) and publish no score;" in found.message
    assert bench.score.reason.endswith("publish no score (1 run found; the round requires 10 for bert (its score "
                                       "is the olympic mean after dropping the fastest run and the slowest run, "
                                       "which leaves none of 1))")


def test_a_package_inside_another_packages_results_is_checked_as_itself_and_said_to_be_there(
        tmp_path: Path) -> None:
    outer = _package(tmp_path)
    inner = outer / "results" / "Inner"
    shutil.copytree(ACME, inner)
    alone = check([str(inner)]).all_findings()
    (warning,) = [f for f in alone if f.code == "MLC508"]
    assert warning.path == str(inner) and warning.severity.name == "WARNING" and \
        f"lies in the results/ folder of the package {outer}" in warning.message
    assert [f for f in alone if f.severity.name == "ERROR"] == []
    around = [f for f in check([str(outer)]).all_findings() if f.code == "MLC506"]
    assert sorted(Path(f.path).name for f in around) == ["results", "systems"]
    assert all("'results' is not" in f.message or "'systems' is not" in f.message for f in around)
    assert all("is a folder of a package's top level" in f.message and "rename" not in f.message for f in around)
    assert "MLC508" not in {f.code for f in check([str(_package(tmp_path / "plain"))]).all_findings()}


def test_a_record_that_cannot_be_read_names_its_key(tmp_path: Path) -> None:
    lines = (ACME / SYSTEM / "resnet" / "result_0.txt").read_text("utf-8").splitlines(keepends=True)
    assert '"key": "gradient_accumulation_steps"' in lines[9]
    lines[9] = lines[9][:130] + "\n"
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines), "utf-8")
    found = {f.code: f for f in check(str(log)).all_findings()}
    assert found["MLC003"].line == 10 and found["MLC003"].message.endswith(
        "(a record of gradient_accumulation_steps, lost)")
    assert found["MLC105"].message.startswith("gradient_accumulation_steps is not logged") and \
        found["MLC105"].message.endswith("; line 10 holds a record of it that cannot be read (MLC003)")


def test_the_api_given_no_path_says_what_it_takes() -> None:
    with pytest.raises(TypeError, match=r"^paths must be str or os.PathLike \(or a list of them\), not int$"):
        check(5)  # type: ignore[arg-type]


def test_a_system_description_with_a_byte_order_mark_is_refused_and_said_why(tmp_path: Path) -> None:
    """The official tools read it with open() and json.load, which raises 'Unexpected UTF-8 BOM':
    an error, as before, now saying what to do (was: 'cannot read the system description')."""
    root = _package(tmp_path)
    system = root / "systems" / "acme-t8.json"
    system.write_bytes(b"\xef\xbb\xbf" + system.read_bytes())
    (found,) = [f for f in check([str(root)]).all_findings() if f.code == "MLC511"]
    assert (found.line, found.severity.name) == (1, "ERROR") and found.message.endswith(
        "a UTF-8 byte order mark begins the file, which Python's json.load refuses ('Unexpected "
        "UTF-8 BOM'); save it without one")


def test_a_config_file_with_a_byte_order_mark_applies(tmp_path: Path) -> None:
    from mlcheck.settings.config_file import load_table

    config = tmp_path / ".mlcheck.toml"
    config.write_bytes(b'\xef\xbb\xbfignore = ["MLC516"]\n')
    assert load_table(config, str(config))[0] == {"ignore": ["MLC516"]} and \
        load_table(config, str(config))[2] is None
    config.write_bytes(b'ignore = ["MLC516"]\nformat = "\xff"\n')
    problem = load_table(config, str(config))[2]
    assert problem is not None and problem.line == 2 and problem.message.startswith("cannot read the config file")


def test_a_gzip_log_damaged_after_its_last_line_is_said_at_that_line(tmp_path: Path) -> None:
    import gzip

    text = (ACME / SYSTEM / "resnet" / "result_0.txt").read_bytes()
    packed = bytearray(gzip.compress(text))
    packed[-6] ^= 1  # (the CRC: every line is read, then the check fails)
    log = tmp_path / "job.log.gz"
    log.write_bytes(bytes(packed))
    (found,) = [f for f in check(str(log)).all_findings() if f.code == "MLC001"]
    assert found.line == text.count(b"\n") and f"reading stopped after line {found.line}: CRC check failed" in \
        found.message


def test_a_package_deeper_in_another_is_said_at_the_depth_the_outer_checks_read_it(tmp_path: Path) -> None:
    outer = _package(tmp_path)
    as_benchmark, nested = outer / SYSTEM / "Inner", outer / SYSTEM / "resnet" / "Inner"
    shutil.copytree(ACME, as_benchmark)
    shutil.copytree(ACME, nested)
    (warning,) = [f for f in check([str(as_benchmark)]).all_findings() if f.code == "MLC508"]
    assert "whose checks read it as a benchmark folder and refuse it (MLC506: `mlcheck check" in warning.message
    assert "MLC508" not in {f.code for f in check([str(nested)]).all_findings()}  # (its logs: nested, warnings)


def test_mlc521_names_the_runs_the_official_tools_pass_when_others_fail_there(tmp_path: Path) -> None:
    """Runs of another benchmark's folder (MLC016, mlcheck's own) and one without cache_clear (MLC105,
    which the checker of record fails too); the copies share seeds (MLC519: the package checker refuses
    the folder). Was: 'count 1 of them as non-converged', and 'passs' in the summarizer's branch."""
    root = _package(tmp_path)
    resnet, bert = root / SYSTEM / "resnet", root / SYSTEM / "bert"
    shutil.copytree(resnet, bert)
    for index in range(5, 10):
        shutil.copy(resnet / f"result_{index - 5}.txt", bert / f"result_{index}.txt")
    text = (bert / "result_1.txt").read_text("utf-8")
    (bert / "result_1.txt").write_text("".join(line for line in text.splitlines(keepends=True)
                                               if '"key": "cache_clear"' not in line), "utf-8")
    bench = next(b for b in check([str(root)]).benchmarks if b.benchmark == "bert")
    (found,) = [f for f in bench.findings if f.code == "MLC521"]
    said = found.message.split(": the result summarizer ")[1]
    assert said.startswith(f"counts the others as non-converged but passes {bert / 'result_0.txt'}, "
                           f"{bert / 'result_2.txt'}, ") and str(bert / "result_1.txt") not in said.split(" and ")[0]
    assert "(no official tool checks what mlcheck finds) and computes" in said and "package checker refuses the folder (MLC519)" in said


def test_a_config_with_a_byte_order_mark_that_is_not_utf8_later_is_said_at_its_line(tmp_path: Path) -> None:
    from mlcheck.settings.config_file import load_table

    config = tmp_path / ".mlcheck.toml"
    config.write_bytes(b"\xef\xbb\xbf# a comment\n\n\n\xff = 1\n")
    problem = load_table(config, str(config))[2]
    assert problem is not None and problem.line == 4


def test_a_training_packages_benchmarks_folder_in_a_system_folder_is_no_misspelt_benchmark(tmp_path: Path) -> None:
    root = _package(tmp_path)
    (root / SYSTEM / "benchmarks").mkdir()
    (root / SYSTEM / "benchmarks" / "x").write_text("x")
    (found,) = [f for f in check([str(root)]).all_findings() if f.code == "MLC506"]
    assert "benchmarks/ is a folder of a package's top level" in found.message


def test_a_run_start_at_an_infinite_time_is_not_said_to_be_inf_seconds_after_run_stop(tmp_path: Path) -> None:
    text = (ACME / SYSTEM / "resnet" / "result_0.txt").read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(text) if '"key": "run_start"' in line)
    text[at] = text[at].replace('"time_ms": 1', '"time_ms": 1e400, "x": 1', 1)
    log = tmp_path / "result_0.txt"
    log.write_text("".join(text), "utf-8")
    messages = {f.code: f.message for f in check(str(log)).all_findings()}
    stop = next(i for i, line in enumerate(text) if '"key": "run_stop"' in line) + 1
    assert messages["MLC403"].startswith(f"run_stop (line {stop}) is before run_start (line {at + 1});")


def test_a_cut_line_the_rcp_checker_decodes_stops_the_official_tools_and_the_rcp_line_says_so(tmp_path: Path) -> None:
    """A review of the reports (session 46): the score said the official tools would publish a time
    and the RCP line said pass, beside MLC535 saying the RCP checker raises and the package checker stops."""
    root = _package(tmp_path)
    log = root / SYSTEM / "resnet" / "result_2.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"key": "eval_accuracy"' in line)
    lines[at] = lines[at].replace(', "metadata"', ' "metadata"', 1)
    log.write_text("".join(lines), "utf-8")
    (bench,) = check([str(root)]).benchmarks
    assert "the RCP checker raises on result_2.txt and the package checker stops with it (MLC535): a package " \
        "it does not pass is not published" in bench.score.reason and "would count it as non-converged" not in bench.score.reason
    from mlcheck.rules.rcp_texts import raising_note

    assert bench.rcp is not None and bench.rcp.verdict == "pass" and raising_note(bench) == (
        "; computed by mlcheck: the round's RCP checker raises on this folder (MLC535)")
    clean = check([str(_package(tmp_path / "clean"))]).benchmarks[0]
    assert raising_note(clean) == ""


def test_more_result_files_than_the_round_takes_are_named_in_an_invalid_score(tmp_path: Path) -> None:
    root = _package(tmp_path)
    (root / SYSTEM / "resnet" / "result_5.txt").write_text("")
    (bench,) = check([str(root)]).benchmarks
    assert not bench.score.valid and bench.score.reason.endswith(
        "; the folder does not hold the round's result files (MLC502)")


def test_a_lost_record_after_the_runs_last_line_is_not_pointed_to() -> None:
    """An attack review (session 46): the cut first record of the next run, read before the run's
    boundary, was named in this run's MLC105."""
    from types import SimpleNamespace

    from mlcheck.read.reading_rules import INVALID_JSON
    from mlcheck.rules.lost_records import pointed_to_lost_records
    from mlcheck.rules.required_keys import REQUIRED_KEY_MISSING

    lost = INVALID_JSON.at("x.log", 162, "invalid JSON: ... (a record of submission_org, lost)")
    missing = REQUIRED_KEY_MISSING.at("x.log", 1, "submission_org is not logged; every run requires exactly one")
    run = SimpleNamespace(first_line=1, last_line=161)
    assert pointed_to_lost_records([lost, missing], run)[1].message == missing.message  # type: ignore[arg-type]
    inside = SimpleNamespace(first_line=1, last_line=170)
    assert pointed_to_lost_records([lost, missing], inside)[1].message.endswith(  # type: ignore[arg-type]
        "; line 162 holds a record of it that cannot be read (MLC003)")


def test_an_eval_cadence_gap_after_a_lost_eval_says_so(tmp_path: Path) -> None:
    """A review of the reports (session 46): MLC307 said an eval came 8 epochs after the one before,
    where the one between was on a line that could not be read."""
    log = tmp_path / "result_2.txt"
    lines = (ACME / SYSTEM / "resnet" / "result_2.txt").read_text("utf-8").splitlines(keepends=True)
    evals = [i for i, line in enumerate(lines) if '"key": "eval_accuracy"' in line]
    lines[evals[2]] = lines[evals[2]].replace(', "metadata"', ' "metadata"', 1)
    log.write_text("".join(lines), "utf-8")
    (gap,) = [f for f in check(str(log)).all_findings() if f.code == "MLC307"]
    assert gap.line == evals[3] + 1 and gap.message.endswith(
        f"; the eval record at line {evals[2] + 1} before it could not be read (MLC003)")
