"""Discovery defects found by the user review: FIFOs in walked folders (MLC015), one file under two
spellings, package identity from relative paths, empty benchmark folders (MLC502) and system folders (MLC509)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck import check
from mlcheck.package.discover import discover, discover_all
from mlcheck.model import Severity

ACME = FIXTURES / "example" / "Acme"
BENCH = ACME / "results" / "acme-t8" / "resnet"

fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")


def _package(tmp_path: Path) -> Path:
    root = tmp_path / "Acme"
    shutil.copytree(ACME, root)
    return root


@fifo_only
def test_fifo_named_as_a_result_file_is_a_failing_run_of_its_folder_never_read(tmp_path: Path) -> None:
    bench = _package(tmp_path) / "results" / "acme-t8" / "resnet"
    (bench / "result_0.txt").unlink()
    os.mkfifo(bench / "result_0.txt")
    os.mkfifo(bench / "result_5.txt")  # (the package checker's glob counts it: 6 runs)
    os.mkfifo(bench / "notes.log")  # (no run: skipped, said at the top)
    # In a child process with a timeout: a regression would hang, not fail.
    scored = subprocess.run([str(Path(sys.executable).with_name("mlcheck")), "score", str(bench)],
                            capture_output=True, text=True, timeout=60)
    assert scored.returncode == 1 and "INVALID" in scored.stdout, scored.stderr
    done = subprocess.run([str(Path(sys.executable).with_name("mlcheck")), "check", str(bench), "-f", "json",
                           "--no-progress"], capture_output=True, text=True, timeout=60)
    report = json.loads(done.stdout)
    fifos = {r["path"]: (r["verdict"], r["official_verdict"], [(f["code"], f["severity"], f["line"]) for f in r["findings"]])
             for r in report["runs"] if "FIFO" in json.dumps(r)}
    assert fifos == {str(bench / name): ("fail", "fail", [("MLC015", "error", None)])
                     for name in ("result_0.txt", "result_5.txt")}
    assert report["summary"]["runs"] == 6
    top = {(f["code"], f["path"], f["severity"]) for f in report["findings"]}
    # (a name no official tool reads: a warning; the package checker passes it, session 35)
    assert ("MLC502", str(bench), "error") in top and ("MLC015", str(bench / "notes.log"), "warning") in top
    assert not report["benchmarks"][0]["valid"]
    # The official tools wait on the FIFOs: they publish no score, and no seed finding adds to MLC015
    # (MLC518 said the seed checker "fails the folder"; it never returns, session 36).
    folder = [f for f in report["benchmarks"][0]["findings"] if f["code"] == "MLC521"]
    assert len(folder) == 1 and "waits forever reading result_0.txt (a FIFO (named pipe), MLC015)" in folder[0]["message"]
    assert "publish no score" in folder[0]["message"]
    assert not [f for f in json.dumps(report).split('"code": ') if f.startswith('"MLC518"')]


@fifo_only
def test_fifo_given_on_the_command_line_is_read(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)

    def feed() -> None:
        with open(pipe, "wb") as handle:
            handle.write((BENCH / "result_0.txt").read_bytes())

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    result = check([str(pipe)])
    writer.join(timeout=10)
    assert len(result.runs) == 1 and result.runs[0].converged
    assert discover_all([str(pipe)])[2] == []


def test_same_file_under_two_spellings_counts_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BENCH.parent)
    refs, _ = discover(["resnet/result_0.txt", "./resnet"])
    assert [r.path for r in refs] == [f"resnet/result_{i}.txt" for i in range(5)]  # one spelling
    result = check(["resnet/result_0.txt", "./resnet"])
    assert len(result.runs) == 5
    codes = {f.code for f in result.all_findings()}
    assert "MLC502" not in codes and "MLC519" not in codes
    assert len(result.benchmarks) == 1 and result.benchmarks[0].score.valid


def test_dot_in_a_benchmark_folder_keeps_the_package_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BENCH)
    result = check(["."])
    (bench,) = result.benchmarks
    assert (bench.org, bench.system, bench.benchmark) == ("Acme", "acme-t8", "resnet")
    assert bench.system_info is not None
    assert bench.system_info.path == os.path.join("..", "..", "..", "systems", "acme-t8.json")
    assert sorted(r.path for r in result.runs) == [f"result_{i}.txt" for i in range(5)]
    assert {(r.org, r.system) for r in result.runs} == {("Acme", "acme-t8")}


def test_single_file_by_its_bare_name_keeps_the_package_identity(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(BENCH)
    (run,) = check(["result_2.txt"]).runs
    assert (run.path, run.org, run.system, run.benchmark) == ("result_2.txt", "Acme", "acme-t8", "resnet")


def test_dot_at_the_package_root_names_the_org(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ACME)
    result = check(["."])
    assert {(b.org, b.system) for b in result.benchmarks} == {("Acme", "acme-t8")}
    assert result.benchmarks[0].system_info is not None
    assert not [f for f in result.all_findings() if f.code.startswith("MLC51")]


def test_empty_benchmark_folder_fails_the_run_count(tmp_path: Path) -> None:
    root = _package(tmp_path)
    ghost = root / "results" / "ghost-system" / "bert"
    ghost.mkdir(parents=True)
    result = check([str(root)], ruleset="2.0.0")
    found = [f for f in result.findings if f.code == "MLC502"]
    assert [(f.path, f.severity, f.official) for f in found] == [(str(ghost), Severity.ERROR, True)]
    assert "no result_<i>.txt file" in found[0].message and "requires 10" in found[0].message
    assert result.worst_severity() is Severity.ERROR


def test_full_benchmark_folder_has_no_layout_run_count(tmp_path: Path) -> None:
    result = check([str(_package(tmp_path))], ruleset="2.0.0")
    assert not [f for f in result.all_findings() if f.code == "MLC502"]


def _deny_listing(monkeypatch: pytest.MonkeyPatch, denied: Path) -> None:
    """Listing ``denied`` fails as it does for a folder without read permission (tests run as root,
    for whom ``chmod 000`` changes nothing)."""
    real_scandir, real_listdir = os.scandir, os.listdir

    def refuse(path: object) -> None:
        if os.path.abspath(os.fspath(path)) == str(denied):  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", os.fspath(path))  # type: ignore[arg-type]

    def scandir(path: object = ".") -> object:
        refuse(path)
        return real_scandir(path)  # type: ignore[arg-type]

    def listdir(path: object = ".") -> list[str]:
        refuse(path)
        return real_listdir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)


def test_unreadable_sub_folder_is_an_error_and_the_rest_is_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _package(tmp_path)
    other = root / "results" / "acme-t16"
    shutil.copytree(root / "results" / "acme-t8", other)
    _deny_listing(monkeypatch, other)
    result = check([str(root)])
    found = [f for f in result.findings if f.code == "MLC001"]
    assert [(f.path, f.line, f.severity) for f in found] == [(str(other), None, Severity.ERROR)]
    assert "cannot be read (Permission denied)" in found[0].message
    assert "not checked" in found[0].message
    assert len(result.runs) == 5  # acme-t8's five runs are still read and scored
    assert [b.system for b in result.benchmarks] == ["acme-t8"]


def test_unreadable_folder_given_on_the_command_line(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _package(tmp_path) / "results" / "acme-t8" / "resnet"
    _deny_listing(monkeypatch, bench)
    # Without a readable run nothing tells the round, and the default is the newest (6.1, which
    # has no resnet): name the round of this 2.x package.
    result = check([str(bench)], ruleset="2.1.0")
    assert sorted(f.code for f in result.findings) == ["MLC001", "MLC501"]
    assert result.runs == ()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root can list a folder without read permission")
def test_folder_without_read_permission_exits_1(tmp_path: Path) -> None:
    root = _package(tmp_path)
    denied = root / "results" / "acme-t8" / "resnet"
    denied.chmod(0)
    try:
        done = subprocess.run([str(Path(sys.executable).with_name("mlcheck")), "check", str(root),
                               "-f", "json", "--no-progress"], capture_output=True, text=True,
                              timeout=60)
    finally:
        denied.chmod(0o755)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    codes = {f["code"] for f in json.loads(done.stdout)["findings"]}
    assert "MLC001" in codes


def test_folder_inside_a_benchmark_folder_is_not_a_benchmark(tmp_path: Path) -> None:
    root = _package(tmp_path)
    bench = root / "results" / "acme-t8" / "resnet"
    shutil.copytree(bench, tmp_path / "old")
    shutil.move(str(tmp_path / "old"), str(bench / "old"))
    result = check([str(root)])
    # Its logs are judged one by one (each is one run), not as a folder of the package.
    assert [(b.system, b.benchmark, len(b.runs)) for b in result.benchmarks] == [
        ("acme-t8", "resnet", 5), ("acme-t8", "resnet", 5)]
    nested = result.benchmarks[1]
    assert nested.folder == str(bench / "old") and nested.rcp is None
    assert not [f for f in nested.findings if f.code.startswith("MLC5")]
    stray = [f for f in result.findings if f.code == "MLC508"]
    assert [f.path for f in stray] == [str(bench / "old")]
    assert "unexpected folder" in stray[0].message


def test_a_result_file_linking_to_a_folder_above_is_a_run_the_checker_cannot_read(tmp_path: Path) -> None:
    """The package checker's glob counts a result_<i>.txt link to a folder and crashes reading it:
    MLC001 on it, the folder's run count whole (was: left out as a loop, "4 runs found" alone)."""
    root = _package(tmp_path)
    bench = root / "results" / "acme-t8" / "resnet"
    (bench / "result_0.txt").unlink()
    (bench / "result_0.txt").symlink_to(tmp_path)
    result = check([str(root)])
    codes = {(f.code, f.path) for r in result.runs for f in r.findings}
    assert ("MLC001", str(bench / "result_0.txt")) in codes
    assert not [f for b in result.benchmarks for f in b.findings if f.code == "MLC502"]


def test_a_folder_whose_one_result_file_is_a_folder_has_one_run_count_finding(tmp_path: Path) -> None:
    """'1 run found' (the glob's count), not also 'holds no result_<i>.txt file'."""
    (tmp_path / "training-2.0").mkdir()
    root = _package(tmp_path / "training-2.0")
    bench = root / "results" / "acme-t8" / "resnet"
    for log in bench.glob("result_*.txt"):
        log.unlink()
    (bench / "result_0.txt").mkdir()
    counts = [f.message for b in check([str(root)]).benchmarks for f in b.findings if f.code == "MLC502"]
    counts += [f.message for f in check([str(root)]).findings if f.code == "MLC502"]
    assert len(counts) == 1 and counts[0].startswith("1 run found"), counts


def test_a_package_or_raw_logs_kept_under_a_folder_named_results_are_not_nested(tmp_path: Path) -> None:
    """Only a folder inside a package's benchmark folder (its results/ the path's last, the folder
    holding result files) is nested: a package under ~/results/ and raw logs kept as
    results/<date>/<benchmark>/<job>/ keep their errors (a review: they were warnings)."""
    from mlcheck.model import Severity

    keep = tmp_path / "results" / "mlperf"
    keep.mkdir(parents=True)
    root = _package(keep)
    broken = root / "results" / "acme-t8" / "resnet" / "result_1.txt"
    broken.write_bytes(b"".join(broken.read_bytes().splitlines(True)[:3]))
    job = tmp_path / "results" / "2024-10" / "resnet" / "job17"
    job.mkdir(parents=True)
    (job / "result_0.txt").write_bytes(broken.read_bytes())
    for given in (root, job.parent.parent):
        errors = [f for r in check([str(given)]).runs for f in r.findings if f.severity is Severity.ERROR]
        assert {f.code for f in errors} >= {"MLC101"} and all("do not read" not in f.message for f in errors), given


def test_a_folder_named_results_inside_a_benchmark_folder_is_nested(tmp_path: Path) -> None:
    """<benchmark>/results/ and <benchmark>/run0/ of a package (it holds systems/) are inside its
    benchmark folder, which the official glob reads alone: their logs refuse nothing."""
    from mlcheck.model import Severity

    root = _package(tmp_path)
    bench = root / "results" / "acme-t8" / "resnet"
    for inner in ("results", "run0"):
        (bench / inner).mkdir()
        (bench / inner / "result_0.txt").write_bytes(b"".join((bench / "result_0.txt").read_bytes().splitlines(True)[:3]))
    inside = [r for r in check([str(root)]).runs if "/results/result_0" in r.path or "/run0/" in r.path]
    assert len(inside) == 2 and all(f.severity is not Severity.ERROR for r in inside for f in r.findings)


def test_a_broken_log_inside_a_benchmark_folder_refuses_nothing(tmp_path: Path) -> None:
    """The official tools' globs do not enter it: its errors are warnings, none official (was:
    MLC101 and others as errors said to agree with the checker, exit 1 on a package it accepts)."""
    from mlcheck.model import Severity

    root = _package(tmp_path)
    bench = root / "results" / "acme-t8" / "resnet"
    (bench / "old").mkdir()
    (bench / "old" / "result_0.txt").write_bytes(b"".join((bench / "result_0.txt").read_bytes().splitlines(True)[:3]))
    result = check([str(root)])
    inside = [r for r in result.runs if "/old/" in r.path]
    assert len(inside) == 1 and {f.code for f in inside[0].findings} >= {"MLC101", "MLC102"}
    assert all(f.severity is not Severity.ERROR and not f.official for f in inside[0].findings)
    assert inside[0].official_verdict == "pass" and "which the official tools do not read" in inside[0].findings[0].message
    assert not [f for r in result.runs for f in r.findings if f.severity is Severity.ERROR]


def test_broken_symlink_met_while_walking_is_a_finding_not_exit_2(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mlcheck.cli import main
    bench = _package(tmp_path) / "results" / "acme-t8" / "resnet"
    (bench / "result_4.txt").unlink()
    (bench / "result_4.txt").symlink_to(tmp_path / "nowhere.txt")
    runner = CliRunner()
    walked = runner.invoke(main, ["check", str(bench), "-f", "json", "--no-progress"])
    assert walked.exit_code == 1, walked.output
    codes = {(f["code"], f["path"]) for f in json.loads(walked.stdout)["findings"]}
    assert ("MLC001", str(bench / "result_4.txt")) in codes
    assert runner.invoke(main, ["check", str(bench), "--exit-zero", "--no-progress"]).exit_code == 0
    assert runner.invoke(main, ["check", str(bench), "--ignore", "MLC001", "--no-progress"]).exit_code == 1
    named = runner.invoke(main, ["check", str(bench / "result_4.txt"), "--no-progress"])
    assert named.exit_code == 2  # a file named on the command line that cannot be opened
    assert runner.invoke(main, ["check", str(bench / "result_4.txt"), "--ignore", "MLC001",
                                "--no-progress"]).exit_code == 2


def test_a_tree_with_a_package_and_loose_logs_reads_both(tmp_path: Path) -> None:
    _package(tmp_path)
    loose = tmp_path / "jobs"
    loose.mkdir()
    (loose / "broken.txt").write_text(":::MLLOG {not json\n", "utf-8")
    (tmp_path / "Acme" / "notes.txt").write_text("a note\n", "utf-8")  # package root: not a log
    result = check([str(tmp_path)])
    assert len(result.runs) == 6
    assert {f.code for f in result.all_findings() if f.path == str(loose / "broken.txt")} >= {"MLC003"}
    assert not [f for f in result.all_findings() if f.path.endswith("notes.txt") and f.code == "MLC002"]


@pytest.mark.parametrize("path", ["/", "/a", "/a/b/c.txt", "//a/b", "///a//b/", "a/../b", ".", "results/x/y/result_0.txt",
                                  "/a/./b/../c", "é/ü.txt"])
def test_absolute_parts_are_pathlibs(path: str) -> None:
    from mlcheck.package.discover import absolute_parts

    assert absolute_parts(path) == Path(os.path.abspath(path)).parts


def test_real_paths_are_os_realpaths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Real paths resolved folder by folder are those of os.path.realpath, through links to
    folders and files, links to links, loops, missing parts, ``..`` and relative spellings."""
    from mlcheck.package.discover import RealPaths

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f.txt").write_text("x")
    (tmp_path / "up").symlink_to(tmp_path / "a")
    (tmp_path / "a" / "b" / "g.txt").symlink_to("f.txt")
    (tmp_path / "a" / "rel").symlink_to("b")
    (tmp_path / "a" / "chain").symlink_to("rel")
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    (tmp_path / "a" / "dotdot").symlink_to("../a/b")
    names = ["", "a", "a/b", "a/b/f.txt", "up", "up/b", "up/b/f.txt", "up/b/g.txt", "a/rel", "a/rel/f.txt",
             "a/chain/g.txt", "loop1", "loop1/x", "a/missing", "a/missing/deeper", "a/dotdot/f.txt", "up/../a",
             "a/./b", "a//b"]
    real = RealPaths()
    for name in names * 2:
        path = str(tmp_path / name) if name else str(tmp_path)
        for spelling in (path, path.replace(str(tmp_path), str(tmp_path) + "/")):
            assert real(spelling) == os.path.realpath(spelling), spelling
    monkeypatch.chdir(tmp_path)
    for name in ("a", "up/b", "a/../up", "."):
        assert real(name) == os.path.realpath(name)


def test_a_system_folder_without_benchmark_folders_is_a_warning(tmp_path: Path) -> None:
    root = _package(tmp_path)
    ghost = root / "results" / "ghost-system"
    ghost.mkdir()
    result = check([str(root)], ruleset="2.0.0")
    found = [f for f in result.all_findings() if f.path == str(ghost)]
    assert [(f.code, f.severity, f.official) for f in found] == [("MLC509", Severity.WARNING, False)]
    assert "nothing in it is checked or scored" in found[0].message
    assert result.worst_severity() is Severity.WARNING
    ghost.rmdir()
    for hidden in (".ipynb_checkpoints", "__pycache__"):  # (no system folders: discovery skips them too)
        (root / "results" / hidden).mkdir()
    assert check([str(root)], ruleset="2.0.0").worst_severity() is None


def test_folder_named_result_file_outside_the_indices_gets_mlc507(tmp_path: Path) -> None:
    bench = _package(tmp_path) / "results" / "acme-t8" / "resnet"
    (bench / "result_5.txt").mkdir()  # (the official glob counts it as a sixth run, as a file of that name)
    result = check([str(tmp_path / "Acme")])
    named = [(f.code, f.path, f.message) for f in result.all_findings() if f.code == "MLC507"]
    assert [(code, path) for code, path, _ in named] == [("MLC507", str(bench))]
    assert "indices 5 fall outside 0..4" in named[0][2]


def test_files_of_no_log_named_by_a_glob_beside_packages_are_passed_over(tmp_path: Path) -> None:
    """``mlcheck check ROUND/*`` names the README beside the packages: not a failing run."""
    round_folder = tmp_path / "R"
    shutil.copytree(ACME, round_folder / "Acme")
    for name, text in (("README.md", "# round\n"), ("LICENSE", "MIT\n"), ("MANIFEST.txt", "Acme\n")):
        (round_folder / name).write_text(text, encoding="utf-8")
    named = sorted(str(p) for p in round_folder.iterdir())
    result = check(named)
    assert len(result.runs) == 5 and not [f for f in result.all_findings() if f.severity is Severity.ERROR]
    infos = sorted(f.path for f in result.all_findings() if f.code == "MLC002")
    assert infos == [str(round_folder / n) for n in ("LICENSE", "MANIFEST.txt", "README.md")]
    # Named alone, a file is a question about that file: MLC002 answers it (an error).
    alone = check([str(round_folder / "README.md")])
    assert [(f.code, f.severity) for f in alone.all_findings() if f.code == "MLC002"] == [("MLC002", Severity.ERROR)]


def test_a_named_log_without_records_beside_named_logs_is_a_failing_run(tmp_path: Path) -> None:
    """A job that logged nothing, named with the other jobs' logs (``logs/*.log``), is a log."""
    (tmp_path / "job1.log").write_bytes((BENCH / "result_0.txt").read_bytes())
    (tmp_path / "job2.log").write_text("Segmentation fault\n", encoding="utf-8")
    result = check([str(tmp_path / "job1.log"), str(tmp_path / "job2.log")])
    assert [(r.path, r.verdict) for r in result.runs] == [(str(tmp_path / "job1.log"), "pass"),
                                                          (str(tmp_path / "job2.log"), "fail")]


@pytest.mark.parametrize("layout", ["one folder per job", "logs only", "no log at all", "gzip result", "twice"])
def test_a_glob_never_hides_a_log_that_logged_nothing(tmp_path: Path, layout: str) -> None:
    """Passing over is for files of no log beside packages: a crashed job's log, a result file
    (gzip too), or files that would leave nothing to check stay failing runs (MLC002 errors)."""
    import gzip

    good, empty = (BENCH / "result_0.txt").read_bytes(), b"Killed\n"
    files, failing = {
        "one folder per job": ({"job1/train.log": good, "job2/train.log": empty}, ["job2/train.log"]),
        "logs only": ({"run_0.log": empty, "run_1.log": empty}, ["run_0.log", "run_1.log"]),
        "no log at all": ({"README.md": b"# notes\n", "LICENSE": b"MIT\n"}, ["LICENSE", "README.md"]),
        "gzip result": ({"a/result_0.txt.gz": gzip.compress(b""), "b/result_0.txt.gz": gzip.compress(good)},
                        ["a/result_0.txt.gz"]),
        "twice": ({"run_0.log": empty}, ["run_0.log"]),
    }[layout]
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    named = [str(tmp_path / name) for name in files] * (2 if layout == "twice" else 1)
    result = check(named)
    errors = {f.path for f in result.all_findings() if f.code == "MLC002" and f.severity is Severity.ERROR}
    assert errors == {str(tmp_path / name) for name in failing}


def test_a_folder_named_as_a_result_file_stops_the_official_tools(tmp_path: Path) -> None:
    """``result_5.txt/`` a folder: the package checker's compliance run raises opening it
    (IsADirectoryError, not caught) before its seed checker runs: MLC521 says the official tools
    publish no score, and no MLC526 says the seed checker fails the folder (session 36)."""
    bench = _package(tmp_path) / "results" / "acme-t8" / "resnet"
    (bench / "result_5.txt").mkdir()
    (result,) = check([str(bench.parent.parent.parent)]).benchmarks
    codes = {f.code for r in result.runs for f in r.findings} | {f.code for f in result.findings}
    assert "MLC001" in codes and "MLC526" not in codes
    (dropped,) = [f for f in result.findings if f.code == "MLC521"]
    assert "the official checker raises opening result_5.txt" in dropped.message and "publish no score" in dropped.message
    assert not result.score.valid


def test_a_result_file_that_is_dev_null_is_read_empty_by_the_official_tools(tmp_path: Path) -> None:
    """``result_4.txt`` -> /dev/null: the official parser reads it empty (no wait, no raise): the
    summarizer publishes the others' mean and the seed checker fails the folder (MLC518); MLC521 no
    longer says the tools wait on it and publish no score (session 36)."""
    if not os.path.exists(os.devnull) or os.devnull != "/dev/null":
        pytest.skip("needs /dev/null")
    bench = _package(tmp_path) / "results" / "acme-t8" / "resnet"
    (bench / "result_4.txt").unlink()
    (bench / "result_4.txt").symlink_to(os.devnull)
    (result,) = check([str(bench.parent.parent.parent)]).benchmarks
    codes = {f.code for f in result.findings} | {f.code for r in result.runs for f in r.findings}
    assert {"MLC015", "MLC518"} <= codes
    (dropped,) = [f for f in result.findings if f.code == "MLC521"]
    assert "publish no score" not in dropped.message and "waits forever" not in dropped.message
