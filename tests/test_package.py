"""Package-level checks (issue 4 §1, §2, §4, §7): constructed packages derived from the bundled
example ``fixtures/example/Acme``, each with one defect, through the library and the CLI."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Callable

import pytest
from click.testing import CliRunner

from mlcheck import check
from mlcheck.cli import main
from mlcheck.model import Severity
from mlcheck.package.layout import read_json_document, scan_package
from mlcheck.rules.benchmark_names import suggest_benchmark
from mlcheck.rules.package_layout import check_layout
from mlcheck.rules.package_system import check_system_description

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "example" / "Acme"
RESNET = Path("results") / "acme-t8" / "resnet"
SYSTEM = Path("systems") / "acme-t8.json"


def make_package(tmp_path: Path) -> Path:
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    return package


def edit_log(path: Path, key: str, value: str) -> None:
    """Replace the value of the first record of ``key`` (JSON text of the new value)."""
    text = path.read_text()
    pattern = re.compile(r'("key": "' + re.escape(key) + r'", "value": )([^,]+)')
    assert pattern.search(text), key
    path.write_text(pattern.sub(lambda m: m.group(1) + value, text, count=1))


def edit_system(package: Path, change: Callable[[dict[str, object]], None]) -> None:
    data = json.loads((package / SYSTEM).read_text())
    change(data)
    (package / SYSTEM).write_text(json.dumps(data, indent=2))


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout


def codes(package: Path) -> dict[str, list[tuple[str, int | None, Severity]]]:
    found: dict[str, list[tuple[str, int | None, Severity]]] = {}
    for f in check([str(package)]).all_findings():
        found.setdefault(f.code, []).append((f.path, f.line, f.severity))
    return found


def test_example_package_is_clean(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    assert codes(package) == {}
    assert cli("check", str(package))[0] == 0


def test_a_system_description_no_results_folder_uses_is_checked_too(tmp_path: Path) -> None:
    """The package checker reads every systems/*.json (check_systems) and fails the package on
    one it refuses, whether or not a results folder uses it; a valid one changes nothing."""
    package = make_package(tmp_path)
    shutil.copy(package / SYSTEM, package / "systems" / "spare.json")
    assert codes(package) == {}
    (package / "systems" / "draft.json").write_text('{\n  "submitter": "Acme",\n', "utf-8")
    (package / "systems" / ".hidden.json").write_text("{", "utf-8")  # (the checker's glob skips it)
    (package / "systems" / "notes.txt").write_text("{", "utf-8")
    found = codes(package)
    assert found == {"MLC511": [(str(package / "systems" / "draft.json"), 3, Severity.ERROR)],
                     "MLC508": [(str(package / "systems" / "notes.txt"), None, Severity.WARNING)]}  # (read by none)
    assert cli("check", str(package))[0] == 1
    assert codes(package / "results" / "acme-t8") == {}  # (a results folder named alone: its system only)


def test_a_system_description_that_cannot_be_reached_is_unreadable_not_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A systems/ folder that cannot be searched (permissions) or a description that is a folder:
    MLC511 says why, not MLC510 "has no system description"."""
    package = make_package(tmp_path)
    (package / SYSTEM).unlink()
    (package / SYSTEM).mkdir()
    assert [(f.code, "it is a folder" in f.message) for f in check([str(package)]).findings
            if f.code in ("MLC510", "MLC511")] == [("MLC511", True)]
    (package / SYSTEM).rmdir()
    shutil.copy(EXAMPLE / SYSTEM, package / SYSTEM)
    real_stat = os.stat

    def refused(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if str(path).endswith("acme-t8.json"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", refused)
    found = [(f.code, f.message) for f in check([str(package)]).findings if f.code in ("MLC510", "MLC511")]
    assert len(found) == 1 and found[0][0] == "MLC511" and "Permission denied" in found[0][1]


def test_misnamed_benchmark_folder_is_an_error_with_a_suggestion(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    (package / RESNET).rename(package / "results" / "acme-t8" / "resnet50")
    exit_code, out = cli("check", str(package))
    assert exit_code == 1
    assert "MLC506" in out and "rename it to 'resnet'" in out
    assert codes(package)["MLC506"] == [(str(package / "results" / "acme-t8" / "resnet50"), None, Severity.ERROR)]


def test_missing_run(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    (package / RESNET / "result_4.txt").unlink()
    found = codes(package)
    assert "MLC502" in found
    assert cli("check", str(package))[0] == 1


def test_extra_files(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    (package / RESNET / "notes.md").write_text("draft")
    shutil.copy(package / RESNET / "result_0.txt", package / RESNET / "result_0.log")
    (package / "results" / "README").write_text("x")
    found = codes(package)
    # The package checker warns about unknown files ("Unknown files in result directory").
    assert (str(package / RESNET / "notes.md"), None, Severity.WARNING) in found["MLC508"]
    assert (str(package / "results" / "README"), None, Severity.WARNING) in found["MLC508"]
    assert found["MLC507"] == [(str(package / RESNET / "result_0.log"), None, Severity.WARNING)]
    (message,) = [f.message for f in check([str(package)]).findings if f.code == "MLC507"]
    assert message.endswith("If it holds a run of this folder, rename it result_<i>.txt with an index not taken; "
                            "else (checker output, notes) remove it")  # (not "rename it": a 6th run, MLC502)
    assert cli("check", str(package))[0] == 0
    assert cli("check", str(package), "--strict")[0] == 1


def test_result_index_out_of_range_is_a_warning(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    (package / RESNET / "result_4.txt").rename(package / RESNET / "result_7.txt")
    assert codes(package)["MLC507"] == [(str(package / RESNET), None, Severity.WARNING)]


def test_a_result_file_in_upper_case_is_told_its_name(tmp_path: Path) -> None:
    """``Result_4.TXT``: the official glob (case-sensitive) skips it, 4 runs of 5 (MLC502); its
    MLC507 names the file to rename it to (was: MLC508 "remove it", as for a stray file)."""
    from mlcheck import check
    package = make_package(tmp_path)
    (package / RESNET / "result_4.txt").rename(package / RESNET / "Result_4.TXT")
    found = codes(package)
    assert found["MLC507"] == [(str(package / RESNET / "Result_4.TXT"), None, Severity.WARNING)]
    assert "MLC508" not in found and "MLC502" in found
    (message,) = [f.message for f in check([str(package)]).findings if f.code == "MLC507"]
    assert message.endswith("If it is a run of the folder, rename it 'result_4.txt'; else remove it")
    shutil.copy(package / RESNET / "Result_4.TXT", package / RESNET / "result_4.txt")  # (the name is taken)
    (message,) = [f.message for f in check([str(package)]).findings if f.code == "MLC507"]
    assert "rename it 'result_4.txt' (result_4.txt exists: remove one of the two); else remove it" in message


def test_a_result_file_counted_but_not_numbered_is_a_warning(tmp_path: Path) -> None:
    """``result_4 (1).txt`` (a copy a file manager made): the glob counts it, its name gives no index."""
    package = make_package(tmp_path)
    (package / RESNET / "result_4.txt").rename(package / RESNET / "result_4 (1).txt")
    [(path, line, severity)] = codes(package)["MLC507"]
    assert (path, line, severity) == (str(package / RESNET / "result_4 (1).txt"), None, Severity.WARNING)
    # (the tools read the index after the last "_": result_<job id>_4.txt is numbered)
    (package / RESNET / "result_4 (1).txt").rename(package / RESNET / "result_220520100725_4.txt")
    assert "MLC507" not in codes(package)


def test_duplicate_seed(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    seed = re.search(r'"key": "seed", "value": (\d+)', (package / RESNET / "result_0.txt").read_text())
    assert seed
    edit_log(package / RESNET / "result_3.txt", "seed", seed.group(1))
    found = codes(package)
    assert found["MLC519"] == [(str(package / RESNET / "result_3.txt"), 8, Severity.ERROR)]
    assert cli("check", str(package))[0] == 1


def test_missing_seed(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    log = package / RESNET / "result_2.txt"
    log.write_text("".join(line for line in log.read_text().splitlines(keepends=True)
                           if '"key": "seed"' not in line))
    assert [code for code in codes(package)] == ["MLC518"]


def test_missing_system_file(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    (package / SYSTEM).unlink()
    found = codes(package)
    assert found["MLC510"] == [(str(package / SYSTEM), None, Severity.ERROR)]
    exit_code, out = cli("check", str(package))
    assert exit_code == 1 and "MLC510" in out


def test_system_json_with_a_missing_field(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    edit_system(package, lambda d: d.pop("accelerator_model_name"))
    found = codes(package)
    assert found["MLC512"] == [(str(package / SYSTEM), None, Severity.ERROR)]
    exit_code, out = cli("check", str(package))
    assert exit_code == 1 and "missing required field(s): accelerator_model_name" in out


def test_system_json_values(tmp_path: Path) -> None:
    package = make_package(tmp_path)

    def change(data: dict[str, object]) -> None:
        data["number_of_nodes"] = "two"
        data["cooling"] = "TODO"
        data["host_storage_type"] = ""
        data["status"] = "soon"
    edit_system(package, change)
    found = codes(package)
    # the official checker accepts any value, but the result summarizer's int(number_of_nodes) stops on "two"
    assert [s for _, _, s in found["MLC512"]] == [Severity.ERROR]
    # cooling "TODO" is a placeholder; host_storage_type "" is empty where no tool reads it: a note
    assert sorted(s for _, _, s in found["MLC514"]) == [Severity.INFO, Severity.WARNING]
    assert [s for _, _, s in found["MLC515"]] == [Severity.WARNING]


def test_duplicate_key_and_unreadable_json(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    text = (package / SYSTEM).read_text().replace('"cooling": "air",', '"cooling": "air",\n  "cooling": "liquid",')
    (package / SYSTEM).write_text(text)
    doc = read_json_document(str(package / SYSTEM))
    assert doc.duplicate_keys == (("cooling", 30),)  # the line of the second one
    assert [f.code for f in check_system_description(doc, "results/acme-t8", "2.0.0")] == ["MLC513"]
    (package / SYSTEM).write_text('{"submitter": "Acme",\n  "division": }')
    broken = check_system_description(read_json_document(str(package / SYSTEM)), "r", "2.0.0")
    assert [(f.code, "line 2" in f.message) for f in broken] == [("MLC511", True)]
    assert cli("check", str(package))[0] == 1


def test_logs_disagreeing_with_the_system_json(tmp_path: Path) -> None:
    """A warning: no checker of record compares them (accepted 1.0 packages write 'close' in the
    system description and 'closed' in the logs); the logs' division decides the rules."""
    package = make_package(tmp_path)
    edit_log(package / RESNET / "result_0.txt", "submission_division", '"open"')
    found = codes(package)
    assert (str(package / RESNET / "result_0.txt"), 4, Severity.WARNING) in found["MLC516"]
    assert cli("check", str(package))[0] == 0


def test_a_description_that_is_not_closed_for_closed_runs_is_said_once_for_the_folder(tmp_path: Path) -> None:
    """The folder's MLC512 names what the package checker then skips; no MLC516 on each run."""
    package = make_package(tmp_path)
    edit_system(package, lambda d: d.update(division="open"))
    found = codes(package)
    assert "MLC516" not in found
    assert found["MLC512"] == [(str(package / RESNET), None, Severity.WARNING)]


@pytest.mark.parametrize("platform, disagrees", [
    ('"8xacme-t8"', True), ('"1xacme-t8"', False), ('"acme-t8"', False), ('"Acme T8 (8 accelerators)"', False),
    ('"SUBMISSION_PLATFORM_PLACEHOLDER"', True)])
def test_the_logged_platform_is_compared_by_its_count_only(tmp_path: Path, platform: str, disagrees: bool) -> None:
    """submission_platform is free text (no tool compares it with the folder or system_name); a
    leading count that fits no size of the description, or the reference code's placeholder, is said."""
    package = make_package(tmp_path)
    edit_system(package, lambda d: d.update(number_of_nodes="1", accelerators_per_node="4"))
    edit_log(package / RESNET / "result_0.txt", "submission_platform", platform)
    assert bool([m for m in codes(package).get("MLC516", []) if m[1] == 7]) == disagrees


@pytest.mark.parametrize("status, disagrees", [
    ("Available on-premise", False), ("on-premise", False), ("available", False),  # the log says onprem
    ("Available cloud", True), ("Research, Development, or Internal (RDI)", True), ("Preview", True)])
def test_the_logs_availability_is_compared_by_meaning(tmp_path: Path, status: str, disagrees: bool) -> None:
    """The log's submission_status (cloud, onprem, preview, research) and the system description's
    status (4.0+: 'Available on-premise', ...) are two vocabularies for one availability."""
    package = make_package(tmp_path)
    edit_system(package, lambda d: d.update(status=status))
    found = codes(package)
    mine = [m for m in found.get("MLC516", []) if m[0] == str(package / RESNET / "result_0.txt") and m[1] == 6]
    assert bool(mine) == disagrees and all(severity is Severity.WARNING for _, _, severity in mine)


def test_submission_values_and_batch_size_differ_across_runs(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    edit_log(package / RESNET / "result_2.txt", "submission_platform", '"acme-t16"')
    edit_log(package / RESNET / "result_3.txt", "global_batch_size", "3200")
    found = codes(package)
    assert found["MLC517"] == [(str(package / RESNET / "result_2.txt"), 7, Severity.WARNING)]  # no tool compares runs
    assert (str(package / RESNET / "result_3.txt"), 9, Severity.WARNING) in found["MLC520"]  # the tools do not compare runs
    assert "MLC536" in found and "MLC532" not in found  # 2.0's RCP checker tests the last one it reads (2.1 on: MLC532)
    edit_log(package / RESNET / "result_4.txt", "submission_division", '"open"')
    said = {f.path.rsplit("/", 1)[-1]: f.message for f in check([str(package)]).all_findings()
            if f.code == "MLC517"}
    assert "the review may ask which system ran" in said["result_2.txt"]  # (the platform)
    assert "the review may ask which value is right" in said["result_4.txt"]  # (the division: not a system)


def test_run_with_an_illegal_hyperparameter_is_not_a_non_converged_run(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    edit_log(package / RESNET / "result_1.txt", "lars_opt_weight_decay", "3e-05")
    result = check([str(package)])
    found = {f.code for f in result.all_findings()}
    assert {"MLC202", "MLC521"} <= found
    bench = result.benchmarks[0]
    assert not bench.score.valid and bench.score.score_min is not None
    assert "official tools would count it as non-converged" in bench.score.reason
    assert 1 in bench.score.runs_dropped
    exit_code, out = cli("score", str(package))
    assert exit_code == 1 and "INVALID" in out


def test_layout_rule_is_pure() -> None:
    layout = scan_package(str(EXAMPLE))
    assert check_layout(layout, "2.0.0", {"resnet": 5}) == []
    assert [f.code for f in check_layout(layout, "2.0.0", {"bert": 10})] == ["MLC506"]


@pytest.mark.parametrize("name,expected", [("resnet50", "resnet"), ("BERT", "bert"), ("maskrcn", "maskrcnn"),
                                           ("unet-3d", "unet3d"), ("gpt3", None), ("language_model", "bert"),
                                           ("recommendation", "dlrm"), ("single_stage_detector", "ssd"),
                                           ("boot", None), ("etc", None), ("farm", None)])
def test_suggest_benchmark(name: str, expected: str | None) -> None:
    valid = {"bert", "dlrm", "maskrcnn", "minigo", "resnet", "rnnt", "ssd", "unet3d"}
    assert suggest_benchmark(name, valid) == expected


def test_no_results_folder(tmp_path: Path) -> None:
    package = tmp_path / "Empty"
    (package / "systems").mkdir(parents=True)
    layout = scan_package(str(package))
    assert [f.code for f in check_layout(layout, "2.0.0", {"resnet": 5})] == ["MLC509"]


def test_a_platform_logged_with_its_node_count_agrees_with_the_system(tmp_path: Path) -> None:
    """The reference code logs submission_platform as '<nodes>x<platform>' (1344xND_H100_v5)."""
    package = make_package(tmp_path)
    edit_system(package, lambda d: d.update(system_name="ND_H100_v5 x1344", number_of_nodes="1344"))
    edit_log(package / RESNET / "result_0.txt", "submission_platform", '"1344xND_H100_v5"')
    assert not [m for m in codes(package).get("MLC516", []) if m[1] == 7]


def test_a_placeholder_submission_value_is_said_to_be_one(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    edit_log(package / RESNET / "result_2.txt", "submission_org", '"SUBMISSION_ORG_PLACEHOLDER"')
    found = [f for f in check([str(package)]).all_findings() if f.code in ("MLC516", "MLC517")]
    assert {f.code for f in found} == {"MLC516", "MLC517"}
    assert all("placeholder of the reference code" in f.message or "the reference code's placeholder" in f.message
               for f in found)
    assert all(f.severity is Severity.WARNING for f in found)


def test_a_compressed_copy_beside_the_result_files_is_not_a_run(tmp_path: Path) -> None:
    """The official glob result_*.txt skips result_0.txt.gz: beside the result files it is
    named (MLC507) but neither counted (MLC502) nor a second run with the same seed (MLC519)."""
    import gzip

    package = make_package(tmp_path)
    folder = package / RESNET
    (folder / "result_0.txt.gz").write_bytes(gzip.compress((folder / "result_0.txt").read_bytes()))
    result = check([str(package)])
    found = {f.code for f in result.all_findings()}
    assert "MLC507" in found and not found & {"MLC502", "MLC519"}
    assert not [r for r in result.runs if r.path.endswith(".gz")]
    alone = tmp_path / "archive" / "resnet"  # (only compressed logs: they are the runs)
    alone.mkdir(parents=True)
    (alone / "result_0.txt.gz").write_bytes((folder / "result_0.txt.gz").read_bytes())
    assert [r.path.endswith(".gz") for r in check([str(alone)]).runs] == [True]


@pytest.mark.parametrize("content", [b"", b"\x7fELF\x02\x01\x01\x00 not a log\n"])
@pytest.mark.parametrize("name", ["result_0.txt", "result_4.txt"])
def test_an_unreadable_result_file_is_a_run_of_its_folder(tmp_path: Path, content: bytes, name: str) -> None:
    """The package checker counts result files by name (its glob), and a file that fails its
    checks is the folder's one failing run: an empty or binary result_<i>.txt is one of the
    folder's runs, a run that breaks the rules (MLC521), not a missing run (MLC502)."""
    package = make_package(tmp_path)
    (package / RESNET / name).write_bytes(content)
    result = check([str(package)])
    (bench,) = result.benchmarks
    codes = {f.code for f in result.all_findings()}
    assert len(bench.runs) == 5 and "MLC502" not in codes and {"MLC002", "MLC521"} <= codes
    assert bench.ruleset == "2.0.0" and bench.score.score_min is not None  # (the round of the runs read)
    assert not bench.score.valid and "non-converged" in bench.score.reason


def test_a_linked_copy_of_a_run_is_a_run_of_its_folder(tmp_path: Path) -> None:
    """``result_4.txt`` a link to ``result_0.txt``: the package checker's glob counts it, and its
    seed checker fails the folder on the seed logged twice; so does mlcheck (MLC519), naming it."""
    package = make_package(tmp_path)
    (package / RESNET / "result_4.txt").unlink()
    (package / RESNET / "result_4.txt").symlink_to("result_0.txt")
    result = check([str(package)])
    (bench,) = result.benchmarks
    codes = {f.code for f in result.all_findings()}
    assert len(bench.runs) == 5 and "MLC502" not in codes
    (duplicate,) = [f for f in result.all_findings() if f.code == "MLC519"]
    assert duplicate.path.endswith("result_4.txt") and "result_0.txt:8" in duplicate.message
    assert not bench.score.valid


def test_runs_of_one_folder_judged_under_two_rounds_are_said_so(tmp_path: Path) -> None:
    """Outside a training-X.Y/ path each run's round comes from its date: a run dated in another
    round's period is MLC524, a warning naming it (the official tools are given one round)."""
    package = make_package(tmp_path)
    later = package / RESNET / "result_4.txt"
    later.write_text(re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + 120 * 86_400_000}',
                            later.read_text(encoding="utf-8")), encoding="utf-8")
    alone = tmp_path / "copied" / "resnet"  # (a benchmark folder outside any package)
    shutil.copytree(package / RESNET, alone)
    result = check([str(alone)])
    (bench,) = result.benchmarks
    assert sorted({r.ruleset for r in bench.runs}) == ["2.0.0", "2.1.0"]
    (mixed,) = [f for f in result.all_findings() if f.code == "MLC524"]
    assert mixed.severity is Severity.WARNING and mixed.path == bench.folder
    assert "training 2.0.0: 4 runs, training 2.1.0: 1 run; not under 2.0.0: result_4.txt" in mixed.message
    assert not [f for f in check([str(alone)], ruleset="2.0.0").all_findings() if f.code == "MLC524"]
    # In its package, every run is judged under the package's newest round (mlcheck.judge.package_rounds).
    in_package = check([str(package)])
    assert {r.ruleset for r in in_package.runs} == {"2.1.0"} and not [
        f for f in in_package.all_findings() if f.code == "MLC524"]
    assert len([f for f in in_package.all_findings() if f.code == "MLC019"]) == 4


def test_a_scaling_json_that_is_a_folder_says_so(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    (package / RESNET / "scaling.json").mkdir()
    (unusable,) = [f for f in check([str(package)]).all_findings() if f.code == "MLC504"]
    assert "cannot read scaling.json: it is a folder, not a JSON file" in unusable.message


def test_a_broken_scaling_json_is_reported_at_its_line(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    (package / RESNET / "scaling.json").write_text('{\n  "scaling_factor": 1.05,\n  oops\n}\n')
    (broken,) = [f for f in check([str(package)]).all_findings() if f.code == "MLC504"]
    assert broken.line == 3 and "line 3" in broken.message
    (package / RESNET / "scaling.json").write_text('{\n  "note": "x",\n  "scaling_factor": "1.05"\n}\n')
    (wrong,) = [f for f in check([str(package)]).all_findings() if f.code == "MLC504"]
    assert wrong.line == 3 and "scaling_factor '1.05'" in wrong.message


def test_a_package_without_runs_says_it_is_judged_under_the_newest_round(tmp_path: Path) -> None:
    """No run read and no ``training-X.Y`` in the path: MLC525 (info) says which round the layout
    is judged under; a run read, the path's round or ``--ruleset`` says it instead."""
    from mlcheck.facts.rulesets import SUPPORTED_RULESETS

    def without_runs(where: Path) -> Path:
        package = make_package(where)
        for log in (package / RESNET).glob("result_*.txt"):
            log.unlink()
        return package

    package = without_runs(tmp_path)
    found = codes(package)
    assert found["MLC525"] == [(str(package), None, Severity.INFO)]
    # resnet is not a 6.x benchmark, 'onprem' no 4.1+ status: warnings where the round is assumed (an
    # unreadable folder of an older round is no folder to remove; a review, session 43), errors under 6.1
    assert (str(package / RESNET), None, Severity.WARNING) in found["MLC506"]
    assert [s for _, _, s in found["MLC515"]] == [Severity.WARNING]
    forced = check([str(package)], ruleset=SUPPORTED_RULESETS[-1]).all_findings()
    assert {(f.code, f.severity) for f in forced if f.code in ("MLC506", "MLC515")} == {
        ("MLC506", Severity.ERROR), ("MLC515", Severity.ERROR)}
    message = next(f.message for f in check([str(package)]).all_findings() if f.code == "MLC525")
    assert f"judged under training {SUPPORTED_RULESETS[-1]}" in message
    assert "MLC525" not in {f.code for f in check([str(package)], ruleset="2.0.0").all_findings()}
    assert "MLC525" not in codes(without_runs(tmp_path / "training-2.0"))
    assert "MLC525" not in codes(make_package(tmp_path / "with-runs"))


def test_a_misnamed_copy_beside_its_benchmark_folder_is_not_told_to_take_its_name(tmp_path: Path) -> None:
    package = make_package(tmp_path)
    shutil.copytree(package / RESNET, package / "results" / "acme-t8" / "resnet50")
    (misnamed,) = [f for f in check([str(package)]).all_findings() if f.code == "MLC506"]
    assert "a resnet/ folder exists beside it: merge the two or remove this one" in misnamed.message


def test_a_linked_folder_is_entered_and_a_link_back_up_is_not(tmp_path: Path) -> None:
    """A system folder that links to one outside the package is walked, as the official tools'
    globs walk it (was: its runs silently left out, exit 0 where the package checker fails); a
    link back to a folder above it is no loop; a benchmark folder that is the package's only
    link is read too (was: MLC501, no log found)."""
    package = make_package(tmp_path / "pkg")
    outside = tmp_path / "elsewhere" / "acme-t9"
    (outside / "resnet").mkdir(parents=True)
    for run in sorted((package / RESNET).glob("result_*.txt"))[:3]:
        (outside / "resnet" / run.name).write_bytes(run.read_bytes())
    (package / "results" / "acme-t9").symlink_to(outside)
    (package / "systems" / "acme-t9.json").write_bytes((package / "systems" / "acme-t8.json").read_bytes())
    (package / RESNET / "up").symlink_to("..")
    result = check([str(package)])
    by_system = {bench.system: bench for bench in result.benchmarks}
    assert len(by_system["acme-t9"].runs) == 3 and len(by_system["acme-t8"].runs) == 5
    assert [f.path for f in result.all_findings() if f.code == "MLC502"] == [str(package / "results" / "acme-t9" / "resnet")]
    linked = tmp_path / "linked" / "Acme"
    (linked / "results" / "acme-t8").mkdir(parents=True)
    (linked / "systems").symlink_to(package / "systems")
    (linked / "results" / "acme-t8" / "resnet").symlink_to(package / RESNET)
    (only,) = check([str(linked)]).benchmarks
    assert len(only.runs) == 5 and only.score.valid


def test_a_result_file_with_a_line_end_in_its_name_is_a_run(tmp_path: Path) -> None:
    """The package checker's glob ``result_*.txt`` takes any character, a line end too (was: the
    run left out, MLC502 and a score of four runs)."""
    package = make_package(tmp_path)
    (package / RESNET / "result_3.txt").rename(package / RESNET / "result_3\n.txt")
    result = check([str(package)])
    (bench,) = result.benchmarks
    assert len(bench.runs) == 5 and bench.score.valid
    assert not [f for f in result.all_findings() if f.severity.label == "error"]


def test_a_folder_met_first_through_a_link_is_judged_where_it_lies(tmp_path: Path) -> None:
    """``docs/notes/sys -> ../../results/acme-t8`` is walked before ``results/``: the runs are
    those of ``results/acme-t8/resnet`` all the same (was: judged under the link's path, out of
    the package, its seed and RCP checks gone)."""
    package = make_package(tmp_path)
    (package / "docs" / "notes").mkdir(parents=True)
    (package / "docs" / "notes" / "sys_link").symlink_to("../../results/acme-t8")
    (package / "results" / "a-alias").symlink_to("acme-t8")
    result = check([str(package)])
    by_folder = {bench.folder: bench for bench in result.benchmarks}
    assert str(package / RESNET) in by_folder and len(by_folder[str(package / RESNET)].runs) == 5
    assert all(run.path.startswith(str(package / RESNET)) for run in by_folder[str(package / RESNET)].runs)
    # (results/a-alias has no systems/a-alias.json: the package checker crashes there, refusing the package)
    assert not by_folder[str(package / RESNET)].score.valid
    assert "a-alias.json is missing (MLC510)" in by_folder[str(package / RESNET)].score.reason


def test_every_run_whose_hyperparameter_differs_is_named(tmp_path: Path) -> None:
    """Two odd runs of five: both are said (MLC520), not only the first."""
    package = make_package(tmp_path)
    for name in ("result_1.txt", "result_3.txt"):
        edit_log(package / RESNET / name, "global_batch_size", "3200")
    found = sorted(path for path, _, _ in codes(package)["MLC520"])
    assert found == [str(package / RESNET / "result_1.txt"), str(package / RESNET / "result_3.txt")]


def test_a_joint_submissions_submitters_in_another_order_agree(tmp_path: Path) -> None:
    """'IBM+CoreWeave+NVIDIA' in the logs and 'CoreWeave + IBM + NVIDIA' in the description."""
    package = make_package(tmp_path)
    edit_system(package, lambda d: d.update(submitter="Beta + Acme"))
    for index in range(5):
        edit_log(package / RESNET / f"result_{index}.txt", "submission_org", '"Acme+Beta"')
    assert "MLC516" not in codes(package)


def test_a_retired_benchmark_folder_is_told_to_go_and_no_rename_names_one_the_record_refuses() -> None:
    """MLC506 in a 6.1 package: a benchmark of earlier rounds is said to be retired (was: told to
    merge llama31_405b/ into llama31_8b/, and dlrm_dcnv2/ to be renamed dlrmv4, which 6.1's
    checker of record does not know either); a misnamed folder's rename is a benchmark the record
    knows; a later round's benchmark in an earlier round asks whether the round is right."""
    from mlcheck.rules.benchmark_names import folder_advice
    from mlcheck.facts.rulesets import load_ruleset

    facts = load_ruleset("6.1.0").benchmarks
    accepted = {name for name, item in facts.items() if item.not_in_record is None}
    assert "dlrmv4" in facts and "dlrmv4" not in accepted
    assert folder_advice("llama31_405b", "6.1.0", accepted, {"llama31_8b"}) == (
        "; llama31_405b is a benchmark of training 5.0.0 to 6.0.0, retired after 6.0.0: remove this folder")
    assert "retired after 6.0.0" in folder_advice("dlrm_dcnv2", "6.1.0", accepted, set())
    assert "dlrmv4" not in folder_advice("recommendation", "6.1.0", accepted, set())
    assert folder_advice("llama31_8bb", "6.1.0", accepted, set()) == "; rename it to 'llama31_8b'"
    assert folder_advice("BERT", "4.1.0", set(load_ruleset("4.1.0").benchmarks), set()) == (
        "; rename it to 'bert' (benchmark names are case-sensitive)")
    assert folder_advice("BERT", "4.1.0", set(load_ruleset("4.1.0").benchmarks), {"bert"}).startswith(
        "; a bert/ folder exists beside it (benchmark names are case-sensitive): merge the two")
    assert folder_advice("gnn", "5.0.0", set(load_ruleset("5.0.0").benchmarks), set()) == (
        "; gnn is a benchmark of training 4.0.0 to 4.1.0; in 5.0.0 its task is rgat's: rename the folder to "
        "'rgat' if its runs are rgat runs, else remove it")
    assert folder_advice("llama31_8b", "4.0.0", set(load_ruleset("4.0.0").benchmarks), set()) == (
        "; llama31_8b is a benchmark of training 5.1.0 to 6.1.0, not of 4.0.0: is this the package's round? "
        "(the path's training-X.Y, or --ruleset)")


def test_an_assumed_round_s_unknown_folder_is_not_told_to_be_removed(tmp_path: Path) -> None:
    """No run read and no round in the path: MLC506 under the assumed round says what it is not,
    and to give --ruleset, not "remove this folder" (a review, session 43)."""
    package = make_package(tmp_path)
    for log in (package / RESNET).glob("result_*.txt"):
        log.unlink()
    [folder] = [f for f in check([str(package)]).all_findings() if f.code == "MLC506"]
    assert folder.severity is Severity.WARNING and "remove" not in folder.message
    assert folder.message.endswith("(if the package is of that round: it is only assumed, as no run was read, "
                                   "MLC525; give --ruleset X.Y.Z to judge it under its own)")


def test_an_empty_benchmark_folder_named_alone_is_judged_under_its_packages_round(tmp_path: Path) -> None:
    """A benchmark folder without result files, named alone: judged under the round its package's
    other runs are dated in, as naming the package judges it (was: the newest round assumed, with
    MLC525, MLC506 "not a benchmark of 6.1" and the system's status under 6.1; a review, session 44)."""
    package = make_package(tmp_path)
    empty = package / "results" / "acme-t8" / "bert"
    empty.mkdir()
    whole = {(f.code, f.path, f.severity) for f in check([str(package)]).all_findings()}
    alone = {(f.code, f.path, f.severity) for f in check([str(empty)]).all_findings()}
    wanted = {f for f in whole if f[1] == str(empty)}
    assert [code for code, _, _ in wanted] == ["MLC502"]
    assert alone - {("MLC501", str(empty), Severity.ERROR)} == wanted
    [count] = [f for f in check([str(empty)]).all_findings() if f.code == "MLC502"]
    assert "training 2.0.0 bert requires" in count.message


def test_an_empty_folder_named_alone_takes_the_newest_round_its_packages_runs_are_dated_in(tmp_path: Path) -> None:
    """A package whose first system's runs are dated in 2.0 and another's in 2.1: the package is of
    2.1 (submitted to the newest), so is its empty folder named alone (was: the first file's date,
    2.0; a review, session 44)."""
    package = make_package(tmp_path)
    later = package / "results" / "zz-later" / "resnet"
    later.mkdir(parents=True)
    for log in sorted((package / RESNET).glob("result_*.txt")):
        text = re.sub(r'"time_ms": (\d+)', lambda m: f'"time_ms": {int(m.group(1)) + 120 * 86_400_000}',
                      log.read_text("utf-8"))
        (later / log.name).write_text(text, "utf-8")
    shutil.copy(package / "systems" / "acme-t8.json", package / "systems" / "zz-later.json")
    empty = package / "results" / "acme-t8" / "bert"
    empty.mkdir()
    [whole] = [f for f in check([str(package)]).all_findings() if f.code == "MLC502" and f.path == str(empty)]
    [alone] = [f for f in check([str(empty)]).all_findings() if f.code == "MLC502"]
    assert "training 2.1.0 bert requires" in whole.message and alone.message == whole.message
