"""Findings do not depend on which level of a tree is named, nor on the working directory.

Layout and system-description checks (MLC5xx) give a benchmark folder the same findings whether
its package, ``results/``, ``results/<system>/`` or the folder itself is named (through the library
and the CLI), a package named with one of its folders reports each finding once, a package
without its ``results/`` level is reported at every level, and the config file is found from the
checked path, not from the working directory. Small trees built from ``fixtures/example/Acme``;
the real packages of ``../shared/other-submitters`` when present.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Iterable

import pytest
from click.testing import CliRunner

from conftest import FIXTURES, SHARED
from mlcheck import check
from mlcheck.cli import main
from mlcheck.model import Finding, Severity

EXAMPLE = FIXTURES / "example" / "Acme"
SYSTEM = "acme-t8"
Key = tuple[str, str, "int | None"]


def make_package(tmp_path: Path) -> Path:
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    return package


def bench_of(package: Path, name: str = "resnet") -> Path:
    return package / "results" / SYSTEM / name


def levels(package: Path, bench: Path) -> list[Path]:
    """The folders one can name to check ``bench``: package, results/, system folder, itself."""
    return [package, package / "results", bench.parent, bench]


def keys(findings: Iterable[Finding]) -> set[Key]:
    return {(f.code, f.path, f.line) for f in findings}


def belongs_to(package: Path, bench: Path) -> Callable[[Key], bool]:
    """A finding about ``bench``: inside the folder, its system description, its implementation."""
    own = {str(package / "systems" / f"{bench.parent.name}.json"), str(package / "benchmarks" / bench.name)}
    return lambda key: key[1] in own or key[1] == str(bench) or key[1].startswith(str(bench) + os.sep)


def assert_same_at_every_level(package: Path, bench: Path) -> set[Key]:
    """What checking the whole package says of ``bench`` is what every level says of it, and the
    benchmark folder named alone says nothing more. Returns that set."""
    mine = belongs_to(package, bench)
    expected = {k for k in keys(check([str(package)]).all_findings()) if mine(k)}
    for level in levels(package, bench):
        found = keys(check([str(level)]).all_findings())
        assert {k for k in found if mine(k)} == expected, level
    assert keys(check([str(bench)]).all_findings()) == expected
    return expected


def cli_keys(*args: str) -> set[Key]:
    result = CliRunner().invoke(main, ["check", "-f", "json", "--no-progress", *args],
                                env={"GITHUB_ACTIONS": ""})
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    found = [*report["findings"], *(f for r in report["runs"] for f in r["findings"]),
             *(f for b in report["benchmarks"] for f in b["findings"])]
    return {(f["code"], f["path"], f["line"]) for f in found}


def _renumber(bench: Path) -> None:
    for i in reversed(range(5)):
        (bench / f"result_{i}.txt").rename(bench / f"result_{i + 1}.txt")


def _unknown_files(bench: Path) -> None:
    (bench / "notes.md").write_text("draft\n")
    (bench / "old").mkdir()
    shutil.copy(min(bench.glob("result_*.txt")), bench / "result_0.log")


def _no_system_file(bench: Path) -> None:
    (bench.parents[2] / "systems" / f"{SYSTEM}.json").unlink()


def _system_field_missing(bench: Path) -> None:
    path = bench.parents[2] / "systems" / f"{SYSTEM}.json"
    data = json.loads(path.read_text())
    data.pop("accelerator_model_name")
    data["cooling"] = "TODO"
    path.write_text(json.dumps(data, indent=2))


def _implementation_missing(bench: Path) -> None:
    (bench.parents[2] / "benchmarks" / "bert").mkdir(parents=True)


DEFECTS: dict[str, tuple[Callable[[Path], None], set[str]]] = {
    "result files numbered 1..5": (_renumber, {"MLC507"}),
    "unknown files in the folder": (_unknown_files, {"MLC507", "MLC508"}),
    "no systems/<system>.json": (_no_system_file, {"MLC510"}),
    "system description fields": (_system_field_missing, {"MLC512", "MLC514"}),
    "no benchmarks/<benchmark>": (_implementation_missing, {"MLC509"}),
}


@pytest.mark.parametrize("defect", list(DEFECTS))
def test_a_layout_finding_is_the_same_whichever_level_is_named(tmp_path: Path, defect: str) -> None:
    package = make_package(tmp_path)
    bench = bench_of(package)
    mutate, codes = DEFECTS[defect]
    mutate(bench)
    found = assert_same_at_every_level(package, bench)
    assert codes <= {code for code, _, _ in found}


def test_the_cli_gives_the_same_findings_at_every_level(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    bench = bench_of(package)
    _renumber(bench)
    _unknown_files(bench)
    _no_system_file(bench)
    mine = belongs_to(package, bench)
    expected = {k for k in cli_keys(str(package)) if mine(k)}
    assert {"MLC507", "MLC508", "MLC510"} <= {code for code, _, _ in expected}
    for level in levels(package, bench):
        assert {k for k in cli_keys(str(level)) if mine(k)} == expected, level
    assert cli_keys(str(bench)) == expected


def test_relative_spellings_and_the_working_directory(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    package = make_package(tmp_path)
    bench = bench_of(package)
    _renumber(bench)
    _no_system_file(bench)
    monkeypatch.chdir(tmp_path)
    named = ["Acme", "Acme/results", f"Acme/results/{SYSTEM}", f"Acme/results/{SYSTEM}/resnet",
             f"./Acme/results/{SYSTEM}/resnet/"]
    spelled = [keys(check([name]).all_findings()) for name in named]
    assert all(found == spelled[0] for found in spelled), spelled
    assert ("MLC507", f"Acme/results/{SYSTEM}/resnet", None) in spelled[0]
    assert ("MLC510", f"Acme/systems/{SYSTEM}.json", None) in spelled[0]
    # From inside the folder, `.`: the same findings, spelled from there.
    monkeypatch.chdir(bench)
    inside = {(code, os.path.normpath(os.path.join(str(bench), path)), line)
              for code, path, line in keys(check(["."]).all_findings())}
    assert inside == {(code, str(tmp_path / path), line) for code, path, line in spelled[0]}


def test_stray_files_belong_to_the_level_that_holds_them(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    bench = bench_of(package)
    (bench.parent / "README").write_text("x")  # results/<system>/README
    (package / "results" / "notes.txt").write_text("x")  # results/notes.txt
    stray = {str(bench.parent / "README"): [package, package / "results", bench.parent],
             str(package / "results" / "notes.txt"): [package, package / "results"]}
    for path, reported_by in stray.items():
        for level in levels(package, bench):
            paths = {f.path for f in check([str(level)]).findings if f.code == "MLC508"}
            assert (path in paths) == (level in reported_by), (path, level)


def test_a_package_named_with_its_folders_reports_each_finding_once(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    bench = bench_of(package)
    _renumber(bench)
    _unknown_files(bench)
    _no_system_file(bench)
    alone = check([str(package)])
    for together in ([str(package), str(bench)], [str(bench), str(package)],
                     [str(bench), str(bench.parent), str(package / "results")]):
        result = check(together)
        assert len(result.findings) == len(set(result.findings)), together
        assert keys(result.all_findings()) >= keys(f for f in alone.all_findings()
                                                    if f.path != str(package))
        assert len(result.runs) == 5
    assert sorted(keys(check([str(package), str(bench)]).findings)) == sorted(keys(alone.findings))


def test_a_benchmark_folder_with_a_misnamed_benchmark(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    wrong = bench_of(package).rename(bench_of(package, "resnet50"))
    for level in levels(package, wrong):
        found = [f for f in check([str(level)]).findings if f.code == "MLC506"]
        assert [f.path for f in found] == [str(wrong)], level
        assert "rename it to 'resnet'" in found[0].message


def test_an_empty_benchmark_folder_is_reported_at_every_level(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    empty = bench_of(package, "bert")
    empty.mkdir()
    for level in levels(package, empty):
        found = [(f.code, f.path) for f in check([str(level)], ruleset="2.0.0").findings
                 if f.code == "MLC502"]
        assert found == [("MLC502", str(empty))], level
    # Named alone, the folder is also one in which no log was found (MLC501).
    assert {f.code for f in check([str(empty)], ruleset="2.0.0").findings} == {"MLC501", "MLC502"}


def test_a_package_without_its_results_level(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    shutil.move(str(package / "results" / SYSTEM), str(package / SYSTEM))
    (package / "results").rmdir()
    bench = package / SYSTEM / "resnet"
    expected = str(package / "results" / SYSTEM / "resnet")
    for level in (package, bench.parent, bench):
        found = [f for f in check([str(level)]).findings if f.code == "MLC509" and f.path == str(bench)]
        assert len(found) == 1, level
        assert f"Move them to {expected}/" in found[0].message
        assert "it holds systems/" in found[0].message
    top = [f for f in check([str(package)]).findings if f.path == str(package)]
    assert [f.code for f in top] == ["MLC509"] and "no results/ folder" in top[0].message
    assert check([str(tmp_path)]).findings == check([str(package)]).findings
    # A file named results: the package checker cannot list it (NotADirectoryError), as for no results/.
    (package / "results").write_text("x")
    top = [f for f in check([str(package)]).findings if f.path == str(package) and f.code == "MLC509"]
    assert len(top) == 1 and top[0].official and "no results/ folder (something else of that name)" in top[0].message


@pytest.mark.parametrize("misplaced", ["beside-results", "no-system-level"])
def test_a_benchmark_folder_beside_results_or_without_its_system_is_refused(misplaced: str, tmp_path: Path) -> None:
    """``<org>/<benchmark>/`` and ``<org>/results/<benchmark>/``: the official package checker never
    reads them and the summarizer publishes nothing: one MLC509 error at the folder, its score not
    valid (was: a valid score under the logs' platform, the package passing), no stray-file
    warning for each result file."""
    package = make_package(tmp_path)
    source = package / "results" / SYSTEM / "resnet"
    bench = package / "resnet" if misplaced == "beside-results" else package / "results" / "resnet"
    shutil.move(str(source), str(bench))
    (package / "results" / SYSTEM).rmdir()
    expected = str(package / "results" / "<system>" / "resnet")
    for level in (package, bench):
        result = check([str(level)])
        found = [f for f in result.all_findings() if f.code in ("MLC508", "MLC509")]
        assert [(f.code, f.path, f.severity) for f in found if f.path == str(bench)] == [
            ("MLC509", str(bench), Severity.ERROR)], level
        assert f"Move them to {expected}/" in found[0].message
        assert not [f for f in found if f.code == "MLC508"]
        [score] = [b.score for b in result.benchmarks]
        assert not score.valid and "outside results/<system>/" in score.reason
        assert result.worst_severity() is Severity.ERROR


def test_a_folder_of_logs_beside_a_run_scripts_results_folder_is_no_package(tmp_path: Path) -> None:
    """``work/resnet/`` beside ``work/results/`` (where run scripts write their logs): no package
    (review of session 40: an MLC509 error and no valid score)."""
    work = tmp_path / "work"
    shutil.copytree(bench_of(EXAMPLE), work / "resnet")
    (work / "results").mkdir()
    for level in (work, work / "resnet"):  # (work/ named alone is a package without systems/: said of it)
        assert not [f for f in check([str(level)]).all_findings() if f.code == "MLC509" and f.path != str(work)], level
    [bench] = check([str(work / "resnet")]).benchmarks
    assert bench.score.valid


def test_an_org_folder_without_results_or_systems(tmp_path: Path) -> None:
    """``<org>/<system>/<benchmark>/result_0.txt``: the logs name the org (submission_org)."""
    org = tmp_path / "Acme"
    shutil.copytree(EXAMPLE / "results", org)
    bench = org / SYSTEM / "resnet"
    for level in (tmp_path, org, bench.parent, bench):
        found = [f for f in check([str(level)]).findings if f.code == "MLC509"]
        assert [f.path for f in found] == [str(bench)], level
        assert "the logs name 'Acme' as submission_org" in found[0].message
    # A file named alone is one run, not a folder: no layout finding.
    assert not [f for f in check([str(bench / "result_0.txt")]).findings if f.code == "MLC509"]


def test_a_plain_folder_of_logs_is_not_a_package(tmp_path: Path) -> None:
    logs = tmp_path / "logs" / "week1" / "resnet"
    shutil.copytree(bench_of(EXAMPLE), logs)
    for level in (tmp_path, tmp_path / "logs", logs):
        assert not [f for f in check([str(level)]).all_findings() if f.code.startswith("MLC5")], level


# --- configuration: found from the checked path, not from the working directory -----------------

WAIVER = ('[[waivers]]\ncode = "MLC507"\npath = "Acme/results/**"\n'
          'reason = "renumbered on purpose (ticket 7)"\n')


def _cli(args: list[str], env: dict[str, str] | None = None) -> tuple[int, dict[str, Any], str]:
    result = CliRunner().invoke(main, ["check", "-f", "json", "--no-progress", *args],
                                env={"GITHUB_ACTIONS": "", "MLCHECK_CONFIG": "", **(env or {})})
    return result.exit_code, json.loads(result.stdout), result.stderr


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp/project/{.mlcheck.toml, Acme}`` with numbering the waiver excuses; the working
    directory is an unrelated folder with a config of its own."""
    project = tmp_path / "project"
    project.mkdir()
    _renumber(bench_of(make_package(project)))
    (project / ".mlcheck.toml").write_text(WAIVER, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".mlcheck.toml").write_text("strict = true\n", encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    return project


def test_config_is_found_from_the_checked_path(project: Path) -> None:
    for level in levels(project / "Acme", bench_of(project / "Acme")):
        code, report, _ = _cli([str(level)])
        assert [w["code"] for w in report["waived"]] == ["MLC507"], level
        assert code == 0  # the working directory's strict = true plays no part


def test_verbose_says_which_config_and_why(project: Path) -> None:
    _, _, err = _cli([str(bench_of(project / "Acme")), "-v"])  # (an absolute path: the config's too)
    assert f"mlcheck: config: {project / '.mlcheck.toml'} (found from " in err
    assert "the search starts at the checked folder" in err
    _, _, err = _cli([os.path.relpath(bench_of(project / "Acme")), "-v"])  # (a relative one: relative)
    assert f"mlcheck: config: {os.path.relpath(project / '.mlcheck.toml')} (found from " in err
    _, _, err = _cli([str(bench_of(project / "Acme") / "result_1.txt"), "-v"])
    assert "the search starts at the folder of the checked file" in err
    _, _, err = _cli([str(project / "Acme"), "--config", ".mlcheck.toml", "-v"])
    assert "mlcheck: config: .mlcheck.toml (given by --config)" in err


def test_explicit_config_overrides_the_search(project: Path) -> None:
    bench = str(bench_of(project / "Acme"))
    code, report, _ = _cli([bench, "--config", ".mlcheck.toml"])  # the working directory's
    assert code == 1 and report["waived"] == []  # strict: the MLC507 warning fails
    code, report, err = _cli([bench, "-v"], env={"MLCHECK_CONFIG": ".mlcheck.toml"})
    assert code == 1 and "named by MLCHECK_CONFIG" in err


def test_several_paths_use_the_config_of_their_common_folder(project: Path, tmp_path: Path) -> None:
    other = make_package(tmp_path / "other")
    # Common folder tmp_path: no config there or above (the project's is below it).
    _, report, err = _cli([str(project / "Acme"), str(other), "-v"])
    assert report["waived"] == [] and "mlcheck: config: none" in err
    assert "the search starts at the folder common to the checked paths" in err
    # Both in the project: its config, whose waiver paths are relative to it.
    code, report, _ = _cli([str(bench_of(project / "Acme")), str(project / "Acme" / "results")])
    assert [w["code"] for w in report["waived"]] == ["MLC507"]
    assert code == 0
    # The nearest config wins: one in Acme/ (strict, no waiver) hides the project's.
    (project / "Acme" / ".mlcheck.toml").write_text("strict = true\n", encoding="utf-8")
    code, report, _ = _cli([str(bench_of(project / "Acme")), str(project / "Acme" / "results")])
    assert code == 1 and report["waived"] == []


def test_library_settings_follow_the_paths(project: Path) -> None:
    from mlcheck.settings.config import load_settings

    found = load_settings({}, environ={}, paths=[str(bench_of(project / "Acme"))])
    assert found.base_dir == str(project) and len(found.waivers) == 1
    assert load_settings({}, environ={}).strict is True  # no paths: the working directory's
    assert load_settings({}, environ={}, paths=["-"]).strict is True


# --- the real packages ---------------------------------------------------------------------------

OTHERS = SHARED / "other-submitters"


def _real_folders(per_round: int = 2) -> list[tuple[Path, Path]]:
    picked: list[tuple[Path, Path]] = []
    for round_dir in sorted(OTHERS.glob("training-*")):
        orgs = [org for org in sorted(round_dir.iterdir()) if (org / "results").is_dir()]
        if orgs:
            folders = sorted(p for p in (orgs[0] / "results").glob("*/*") if p.is_dir())
            picked.extend((orgs[0], folder) for folder in folders[:per_round])
    return picked


def test_real_benchmark_folders_match_their_package() -> None:
    if not OTHERS.is_dir():
        pytest.skip("../shared/other-submitters is not present")
    picked = _real_folders()
    assert picked, "no benchmark folder found under ../shared/other-submitters"
    by_org: dict[Path, set[Key]] = {}
    layout_codes: set[str] = set()
    for org, folder in picked:
        if org not in by_org:
            by_org[org] = keys(check([str(org)]).all_findings())
        mine = belongs_to(org, folder)
        expected = {k for k in by_org[org] if mine(k)}
        assert keys(check([str(folder)]).all_findings()) == expected, folder
        assert {k for k in keys(check([str(folder.parent)]).all_findings()) if mine(k)} == expected
        layout_codes |= {code for code, _, _ in expected if "MLC506" <= code <= "MLC515"}
    assert layout_codes  # the real packages do hold layout and system-description findings


def test_a_package_whose_results_folder_is_capitalised_is_refused(tmp_path: Path) -> None:
    """``Results/``: every round's package checker lists ``<org>/results/`` (case-sensitive) and
    crashes without it, so the missing folder is an official error at the package."""
    package = make_package(tmp_path)
    shutil.move(str(package / "results"), str(package / "Results"))
    top = [f for f in check([str(package)]).findings if f.path == str(package)]
    assert [(f.code, f.official, f.severity.name) for f in top] == [("MLC509", True, "ERROR")]
    assert "case-sensitive" in top[0].message
