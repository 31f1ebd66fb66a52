"""Session 54: reviews of rounds 6.x, reports, broken copies and namings of one package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"


def _check_json(*args: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", *args, "-f", "json", "--no-progress",
                           "--config", os.devnull], capture_output=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr.decode()
    return json.loads(done.stdout)  # type: ignore[no-any-return]


RESNET_RUN = EXAMPLE / "results" / "acme-t8" / "resnet" / "result_0.txt"


@pytest.mark.parametrize("record, codes", [
    ('{"key": ""}', ["MLC007", "MLC008", "MLC025"]),
    ('{"key": 1, "time_ms": 1, "value": 1}', ["MLC008"]),
    ('{"key": null, "time_ms": null, "value": 1, "metadata": {}}', ["MLC007"]),
    ('{"key": [1], "time_ms": "abc", "value": 1, "metadata": {}}', ["MLC007"]),
    ('{"key": "", "time_ms": 1, "metadata": {}}', ["MLC025"]),
    ('{"key": 1, "time_ms": "12", "value": 1, "metadata": {}}', []),
    ('{"key": null, "time_ms": 1, "value": 1, "metadata": {}}', []),
    ('{"key": 1, "time_ms": 1' + "0" * 400 + ', "value": 1, "metadata": {}}', ["MLC007"]),  # (rv236: OverflowError)
])
def test_a_record_without_a_key_string_fails_where_the_parser_stops_on_its_other_fields(
        tmp_path: Path, record: str, codes: list[str]) -> None:
    """rv233: the parser reads float(m['time_ms']), then m['key'], m['value'], m['metadata']: a
    record whose key is no string but which lacks time_ms (or holds null, "abc") stops it as any
    record does, and the file fails; it was the MLC006 warning 'the official parser reads the
    record', and the run passed (exit 0, a valid score). A record the parser keeps is still that
    warning alone."""
    lines = RESNET_RUN.read_text("utf-8").splitlines(keepends=True)
    log = tmp_path / "result_0.txt"
    log.write_text("".join(lines[:80] + [f":::MLLOG {record}\n"] + lines[80:]), "utf-8")
    report = _check_json(str(log))
    at_line = [(f["code"], f["severity"]) for f in report["findings"] if f.get("line") == 81]
    assert at_line == ([(code, "error") for code in codes] or [("MLC006", "warning")])
    assert report["runs"][0]["official_verdict"] == ("fail" if codes else "pass")
    official = subprocess.run([sys.executable, "-m", "mlperf_logging.compliance_checker", "--usage", "training",
                               "--ruleset", "2.0.0", str(log)], capture_output=True, timeout=120, cwd=tmp_path)  # (its log)
    assert (official.returncode != 0) == bool(codes)


def test_a_result_file_that_cannot_be_opened_is_why_the_rcp_test_stops(tmp_path: Path) -> None:
    """rv233: an unopenable result_4.txt (no permission; here a folder of that name) made the RCP
    finding say that it 'logs no submission_benchmark among runs that name resnet' and raises
    KeyError: None; the RCP checker raises opening it, as the compliance checker does before it."""
    package = tmp_path / "Acme"
    shutil.copytree(EXAMPLE, package)
    run = package / "results" / "acme-t8" / "resnet" / "result_4.txt"
    run.unlink()
    run.mkdir()
    report = _check_json(str(package))
    (bench,) = report["benchmarks"]
    assert bench["rcp"]["verdict"] == "fail" and not bench["valid"]
    assert bench["rcp"]["reason"].startswith("result_4.txt cannot be opened (MLC001): the round's RCP checker raises")
    (undetermined,) = [f for f in report["findings"] if f["code"] == "MLC532"]
    assert "submission_benchmark" not in undetermined["message"]


def test_the_html_hyper_parameters_that_vary_are_listed_in_the_runs_order(tmp_path: Path) -> None:
    """rv233: the seeds were sorted as strings ('15855, ..., 39612, 7936')."""
    out = tmp_path / "report.html"
    done = subprocess.run([sys.executable, "-m", "mlcheck", "report", str(EXAMPLE), "-o", str(out), "--no-progress",
                           "--config", os.devnull], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert "<code>seed</code></td><td>varies: 7936, 15855, 23774, 31693, 39612</td>" in out.read_text("utf-8")


def _check_in(cwd: Path, *args: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", *args, "-f", "json", "--no-progress",
                           "--config", os.devnull], capture_output=True, timeout=120, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert done.returncode in (0, 1), done.stderr.decode()
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _bench_view(report: dict) -> list[tuple[object, ...]]:  # type: ignore[type-arg]
    return [(b["ruleset"], b["valid"], (b["rcp"] or {}).get("verdict"), b["score_min"]) for b in report["benchmarks"]]


@pytest.mark.parametrize("cwd, named", [("Acme", "."), ("Acme/results", "."), ("Acme/results", "acme-t8/resnet"),
                                        ("Acme/results/acme-t8", "resnet"), ("Acme/results/acme-t8/resnet", ".")])
def test_a_relative_folder_without_results_in_its_spelling_reads_its_system_description(
        tmp_path: Path, cwd: str, named: str) -> None:
    """rv235: 'cd results && mlcheck check .' read no system description for the division the
    package checker goes by (nor the org's and system's package_checker_params): the path was
    climbed by its spelling ('.' has no 'results' above it), not from the absolute path."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    described = tmp_path / "Acme" / "systems" / "acme-t8.json"
    described.write_text(described.read_text("utf-8").replace('"division": "closed"', '"division": "open"'), "utf-8")
    whole = _bench_view(_check_in(tmp_path, "Acme"))
    assert whole[0][2] == "skipped"  # (the package checker runs no RCP test where the description says open)
    assert _bench_view(_check_in(tmp_path / cwd, named)) == whole


def test_every_result_file_of_a_folder_named_is_the_folder(tmp_path: Path) -> None:
    """rv235: 'bench/result_*.txt' gave a valid score with none of the folder's checks (run count,
    seeds, RCP, system description) where naming the folder refuses it; one file named alone is
    still a run."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    bench = tmp_path / "Acme" / "results" / "acme-t8" / "resnet"
    (bench / "result_4.txt").unlink()
    folder = _check_json(str(bench))
    globbed = _check_json(*sorted(str(path) for path in bench.glob("result_*.txt")))
    assert folder == globbed
    assert ("MLC502", "error") in {(f["code"], f["severity"]) for f in folder["findings"]}
    alone = _check_json(str(bench / "result_0.txt"))
    assert "MLC502" not in {f["code"] for f in alone["findings"]} and len(alone["runs"]) == 1


def test_a_glob_of_a_folder_also_naming_another_file_of_it_stays_runs_named_alone(tmp_path: Path) -> None:
    """rv236: 'result_*' also named a gzip copy (result_1.txt.gz), a run of its own beside the folder's
    five: read as the folder, it was a sixth run (MLC502 'official checker agrees', which it does not)."""
    import gzip
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    bench = tmp_path / "Acme" / "results" / "acme-t8" / "resnet"
    (bench / "result_1.txt.gz").write_bytes(gzip.compress((bench / "result_1.txt").read_bytes()))
    report = _check_json(*sorted(str(path) for path in bench.glob("result_*")))
    assert "MLC502" not in {f["code"] for f in report["findings"]} and report["benchmarks"][0]["rcp"] is None


def test_a_glob_of_a_folder_reads_the_named_files_alone(tmp_path: Path) -> None:
    """rv236: the glob was replaced by its folder, whose walk read a run in old/ nobody named (a
    second benchmark) and spelt './results/...' as 'results/...'."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    bench = tmp_path / "Acme" / "results" / "acme-t8" / "resnet"
    (bench / "old").mkdir()
    shutil.copy(bench / "result_0.txt", bench / "old" / "result_0.txt")
    named = [f"./{path.relative_to(tmp_path)}" for path in sorted(bench.glob("result_*.txt"))]
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", *named, "-f", "json", "--no-progress", "--config",
                           os.devnull], capture_output=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    report = json.loads(done.stdout)
    assert sorted(run["path"] for run in report["runs"]) == named and len(report["benchmarks"]) == 1
    assert report["benchmarks"][0]["rcp"]["verdict"] == "pass"  # (the folder's RCP test)


def test_a_result_file_that_opens_but_cannot_be_read_is_no_file_that_cannot_be_opened(tmp_path: Path) -> None:
    """rv236: a damaged gzip named result_4.txt (MLC001: reading stopped) was said to make the RCP
    checker raise opening it; it opens it, as latin-1 text, and finds no record."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    (tmp_path / "Acme" / "results" / "acme-t8" / "resnet" / "result_4.txt").write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 40)
    report = _check_json(str(tmp_path / "Acme"))
    assert "MLC001" in {f["code"] for f in report["findings"]}
    assert "cannot be opened" not in json.dumps(report) and "raises opening" not in json.dumps(report)


def test_files_named_half_through_a_link_to_their_folder_stay_runs_named_alone(tmp_path: Path) -> None:
    """rv237: result_0-2 named through a link to the benchmark folder, result_3-4 through the folder:
    discovery spells the folder once, and the five files were read as the linked spelling's
    folder, whose run count called the others missing (MLC502)."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    results = tmp_path / "Acme" / "results"
    (results / "link-t8").symlink_to(results / "acme-t8")
    named = [str(results / "link-t8" / "resnet" / f"result_{i}.txt") for i in range(3)] + \
        [str(results / "acme-t8" / "resnet" / f"result_{i}.txt") for i in range(3, 5)]
    report = _check_json(*named)
    assert "MLC502" not in {f["code"] for f in report["findings"]}


def _shifted(line: str, by: int) -> str:
    import re
    return re.sub(r'("time_ms": )(\d+)', lambda m: m.group(1) + str(int(m.group(2)) + by), line)


@pytest.mark.parametrize("head", ["[1,{node}]<stdout>:[default{local}]:", "[1,{node}]<stdout>:[rank{local}]: ",
                                  "[1,{node}]<stdout>:[RANK {local}] ", "[{node}]<stdout>:[default{local}]:", "[{node}]<stdout>:[RANK {local}] ", "{node}: [RANK {local}] ",
                                  "[1,mpirank:{node},algo-1]<stdout>:[default{local}]:",
                                  "[1,{node}]<stdout>:May 02 09:14:34 [default{local}]:",
                                  "[{node}]<stdout>:2024-05-02T09:14:34 [default{local}]:", "{node}: [default{local}]:"])
def test_a_local_rank_behind_an_mpi_tag_is_a_rank_of_its_own(tmp_path: Path, head: str) -> None:
    """rv238: mpirun starting a torchrun (DeepSpeed) per node, '[1,0]<stdout>:[default1]:': the label
    behind the tag was text, so both local ranks' copies were kept as one run (run_start twice,
    MLC104/MLC107; 1.5 s apart, an eval of the second copy after run_stop: MLC305)."""
    lines = RESNET_RUN.read_text("utf-8").splitlines(keepends=True)
    console = "".join(head.format(node=node, local=local) + _shifted(line, 7 * (2 * node + local))
                      for line in lines for node in range(2) for local in range(2))
    log = tmp_path / "job.log"
    log.write_text(console, "utf-8")
    report = _check_json(str(log))
    assert [f["code"] for f in report["findings"]] == ["MLC020"] and len(report["runs"]) == 1
    assert f"({len(lines)}); {3 * len(lines)} copies printed by 3 other ranks dropped" in report["findings"][0]["message"]
    done = subprocess.run([sys.executable, "-m", "mlcheck", "split", str(log), "-o", str(tmp_path / "out")],
                          capture_output=True, timeout=120)
    assert done.returncode == 0 and (tmp_path / "out" / "result_0.txt").read_text("utf-8") == "".join(lines)


@pytest.mark.parametrize("head", ["[1,0]<stdout>:{i}: ", "[1,0]<stdout>:[{i}] ", "[0]<stdout>:[{i}] ", "0: [{i}] ",
                                  "[1,0]<stdout>:{big}: "])
def test_a_programs_own_counter_behind_a_tag_is_no_rank(tmp_path: Path, head: str) -> None:
    """rv239: a bare number behind a tag ('[1,0]<stdout>:15: ', a step counter, a logger's process id
    of 65536 or more) was read as a local rank, and the logging rank's records as other ranks'
    copies (the converging eval dropped: MLC301). Only a label that names a rank is one."""
    lines = RESNET_RUN.read_text("utf-8").splitlines(keepends=True)
    log = tmp_path / "job.log"
    log.write_text("".join(head.format(i=i % 30, big=123456 + i) + line for i, line in enumerate(lines)), "utf-8")
    report = _check_json(str(log))
    (run,) = report["runs"]
    assert run["verdict"] == "pass" and [f["code"] for f in report["findings"]] == ["MLC020"]


def test_a_waiver_glob_names_nothing_outside_its_config_files_folder(tmp_path: Path) -> None:
    """rv240: Acme/.mlcheck.toml's path = "**" waived Beta's MLC502 too ('../Beta/...' matched '**'),
    and the failing check of Beta exited 0."""
    for org in ("Acme", "Beta"):
        shutil.copytree(EXAMPLE, tmp_path / org)
        (tmp_path / org / "results" / "acme-t8" / "resnet" / "result_4.txt").unlink()
    config = tmp_path / "Acme" / ".mlcheck.toml"
    config.write_text('[[waivers]]\ncode = "MLC502"\npath = "**"\nreason = "Acme only"\n', "utf-8")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", "Acme", "Beta", "-f", "json", "--no-progress",
                           "--config", str(config)], capture_output=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert [f["path"] for f in report["findings"] if f["code"] == "MLC502"] == ["Beta/results/acme-t8/resnet"]
    assert [w["path"] for w in report["waived"] if w["code"] == "MLC502"] == ["Acme/results/acme-t8/resnet"]


def test_the_output_setting_takes_what_the_output_option_takes(tmp_path: Path) -> None:
    """rv240: '-o report.json' wrote the report, 'output = ["report.json"]' (or MLCHECK_OUTPUT) was an
    MLC041 error 'is not FORMAT:PATH' and the report was not written."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    config = tmp_path / "ci.toml"
    config.write_text('output = ["report.json"]\n', "utf-8")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", "Acme", "--no-progress", "--config", str(config)],
                          capture_output=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    assert done.returncode == 0 and "MLC041" not in done.stdout.decode()
    assert json.loads((tmp_path / "report.json").read_text("utf-8"))["summary"]["verdict"] == "pass"


def test_score_says_a_setting_it_cannot_use_and_exits_by_its_scores(tmp_path: Path) -> None:
    """rv240 and rv241: MLCHECK_RULESET=7.0.0 is an MLC041 error that score says on stderr; its exit
    code stays its results' (a check-only setting, output = [...], must not fail a score job)."""
    done = subprocess.run([sys.executable, "-m", "mlcheck", "score", str(EXAMPLE), "--config", os.devnull],
                          capture_output=True, timeout=120, env={**os.environ, "MLCHECK_RULESET": "7.0.0"})
    assert done.returncode == 0 and "MLC041" in done.stderr.decode()

def test_a_pyproject_table_beside_a_dotfile_config_is_said_not_to_be_read(tmp_path: Path) -> None:
    """rv240: [tool.mlcheck] strict = true in a pyproject.toml beside a .mlcheck.toml was lost without a word."""
    shutil.copytree(EXAMPLE, tmp_path / "Acme")
    (tmp_path / ".mlcheck.toml").write_text("strict = false\n", "utf-8")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.mlcheck]\nstrict = true\n', "utf-8")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", "Acme", "-f", "json", "--no-progress"],
                          capture_output=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    (found,) = [f for f in json.loads(done.stdout)["findings"] if f["code"] == "MLC041"]
    assert found["path"] == "pyproject.toml" and found["severity"] == "warning"
    assert "[tool.mlcheck] here is not read: .mlcheck.toml beside it is the config" in found["message"]


def test_an_srun_tasks_torchrun_rank_is_no_other_task(tmp_path: Path) -> None:
    """rv241: '0: [default1]:' was task 0 * 65536 + 1, the source of task 1's '1: ': the two were one
    process, whose copies were kept twice (run_start twice, MLC104)."""
    lines = RESNET_RUN.read_text("utf-8").splitlines(keepends=True)
    log = tmp_path / "job.log"
    log.write_text("".join(head + _shifted(line, shift) for line in lines
                           for head, shift in (("0: [default1]:", 0), ("1: ", 5))), "utf-8")
    report = _check_json(str(log))
    assert [f["code"] for f in report["findings"]] == ["MLC020"] and len(report["runs"]) == 1
    assert f"({len(lines)}); {len(lines)} copies printed by 1 other rank dropped" in report["findings"][0]["message"]


def test_one_setting_spelt_two_ways_is_said(tmp_path: Path) -> None:
    """rv240: exit_zero = true and exit-zero = false in one file: the last won without a word."""
    config = tmp_path / "c.toml"
    config.write_text("exit_zero = false\nexit-zero = true\n", "utf-8")
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", str(EXAMPLE), "-f", "json", "--no-progress",
                           "--config", str(config)], capture_output=True, timeout=120)
    (found,) = [f for f in json.loads(done.stdout)["findings"] if f["code"] == "MLC041"]
    assert (found["line"], found["severity"]) == (2, "error") and "'exit_zero' is given already" in found["message"]
    assert done.returncode == 1  # (the first spelling holds: exit_zero = false)


@pytest.mark.parametrize("head", ["0: 2024-05-02T09:14:34 ", "[1,0]<stdout>:2024-05-02 09:14:34 "])
def test_a_date_behind_a_tasks_label_is_a_timestamp(tmp_path: Path, head: str) -> None:
    """rv241: '0: 2024-05-02T09:14:34 :::MLLOG' (ts piped behind srun) was counted as records cut
    out of progress-bar or other text; it is a date."""
    lines = RESNET_RUN.read_text("utf-8").splitlines(keepends=True)
    log = tmp_path / "job.log"
    log.write_text("".join(head + line for line in lines), "utf-8")
    (found,) = _check_json(str(log))["findings"]
    assert f"{len(lines)} timestamp prefixes removed" in found["message"] and "other text" not in found["message"]
