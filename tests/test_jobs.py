"""``--jobs N``: the logs read and judged in worker processes give the reports of one process,
byte for byte, with the same exit code; the progress callback hears of every log; a bug or a dead
worker is an MLC000 finding of its log. No test here asserts a time."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest

import mlcheck.checker
from mlcheck import check
from mlcheck.judge import jobs
from mlcheck.settings.config import load_settings
from mlcheck.report.json_report import render_json
from cli_helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small tree: the example package, a folder of broken logs, one of raw job output."""
    root = tmp_path_factory.mktemp("jobs")
    shutil.copytree(FIXTURES / "example" / "Acme", root / "Acme")
    shutil.copytree(FIXTURES / "bad", root / "bad", ignore=shutil.ignore_patterns("*.py"))
    shutil.copytree(FIXTURES / "raw", root / "raw")
    return root


@pytest.fixture
def always_parallel(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Workers even for a small tree; the list counts the checks that used them."""
    monkeypatch.setattr(jobs, "PARALLEL_FROM", 1)
    monkeypatch.setattr(jobs, "PARALLEL_FROM_BYTES", 0)
    used: list[int] = []
    in_workers = jobs._in_workers

    def counting(*args: Any) -> Any:
        used.append(1)
        return in_workers(*args)

    monkeypatch.setattr(jobs, "_in_workers", counting)
    return used


def _reports(tree: Path, out: Path, *extra: str) -> tuple[int, bytes, bytes, bytes, bytes]:
    out.mkdir()
    given = [str(tree / name) for name in ("Acme", "bad", "raw")] if (tree / "Acme").is_dir() else [str(tree)]
    result = run_cli("check", *given, "--color", "never",
                     "--no-progress", "-f", "text", "-o", f"json:{out / 'report.json'}",
                     "-o", f"sarif:{out / 'report.sarif'}", "-o", f"junit:{out / 'report.xml'}", *extra)
    return (result.exit_code, result.stdout_bytes, (out / "report.json").read_bytes(),
            (out / "report.sarif").read_bytes(), (out / "report.xml").read_bytes())


def test_jobs_1_and_2_give_identical_reports(tree: Path, tmp_path: Path, always_parallel: list[int]) -> None:
    one = _reports(tree, tmp_path / "one", "--jobs", "1")
    assert not always_parallel
    two = _reports(tree, tmp_path / "two", "--jobs", "2")
    assert always_parallel  # the workers did read the logs
    assert one[0] == two[0] == 1  # the broken logs fail
    assert one[1] == two[1] and b"MLC" in one[1]  # text
    assert one[2] == two[2]  # JSON
    assert one[3] == two[3]  # SARIF
    assert one[4] == two[4] and b"<testcase" in one[4]  # JUnit


def test_score_and_report_take_jobs(tree: Path, tmp_path: Path, always_parallel: list[int]) -> None:
    scores = [run_cli("score", str(tree / "Acme"), "-t", "csv", "--jobs", n) for n in ("1", "2")]
    assert scores[0].exit_code == scores[1].exit_code and scores[0].stdout_bytes == scores[1].stdout_bytes
    pages = []
    for n in ("1", "2"):
        page = tmp_path / f"report{n}.html"
        assert run_cli("report", str(tree / "Acme"), "-o", str(page), "--jobs", n).exit_code == 0
        pages.append(page.read_bytes())
    assert pages[0] == pages[1] and always_parallel


def test_progress_hears_of_every_log_as_it_completes(tree: Path, always_parallel: list[int]) -> None:
    heard: list[str] = []
    result = check([str(tree / "Acme"), str(tree / "bad")], progress=heard.append, jobs=2)
    assert sorted(heard) == sorted({r.path for r in result.runs}) and len(heard) == len(set(heard))
    assert always_parallel


def _fail_on(name: str, failure: Callable[[], None]) -> Callable[..., Any]:
    real = mlcheck.checker.check_log

    def flaky(ref: Any, forced: Any, source: str = "--ruleset") -> Any:
        if os.path.basename(ref.path) == name:
            failure()
        return real(ref, forced, source)
    return flaky


def _boom() -> None:
    raise RuntimeError("boom")


def test_a_bug_in_a_worker_is_the_mlc000_of_its_log(tree: Path, monkeypatch: pytest.MonkeyPatch,
                                                     always_parallel: list[int]) -> None:
    monkeypatch.setattr(mlcheck.checker, "check_log", _fail_on("result_1.txt", _boom))
    paths = [str(tree / "Acme")]
    one, two = check(paths, jobs=1), check(paths, jobs=2)
    assert one == two and always_parallel
    crashed = [r for r in two.runs if any(f.code == "MLC000" for f in r.findings)]
    assert [os.path.basename(r.path) for r in crashed] == ["result_1.txt"]


def test_a_worker_that_dies_leaves_an_mlc000_and_the_other_logs(tree: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 always_parallel: list[int]) -> None:
    parent = os.getpid()

    def die() -> None:
        if os.getpid() != parent:  # only ever in a worker
            os._exit(3)

    monkeypatch.setattr(mlcheck.checker, "check_log", _fail_on("result_2.txt", die))
    monkeypatch.setattr(jobs, "PARENT_CHECKS", False)  # (else the parent may check result_2.txt)
    paths = [str(tree / "Acme")]
    result = check(paths, jobs=2)
    clean = check(paths, jobs=1)
    died = [r for r in result.runs if any(f.code == "MLC000" for f in r.findings)]
    assert [os.path.basename(r.path) for r in died] == ["result_2.txt"]
    assert "ended abruptly" in died[0].findings[0].message
    others = [r for r in result.runs if r not in died]
    assert others == [r for r in clean.runs if os.path.basename(r.path) != "result_2.txt"]


def test_stdin_is_read_by_the_parent(tree: Path, always_parallel: list[int]) -> None:
    log = (tree / "bad" / "run_stop_missing.txt").read_bytes()
    outs = [run_cli("check", "-", str(tree / "Acme"), "-f", "json", "--jobs", n, stdin=log) for n in ("1", "2")]
    assert outs[0].exit_code == outs[1].exit_code == 1
    assert outs[0].stdout_bytes == outs[1].stdout_bytes and b"MLC102" in outs[0].stdout_bytes


def test_jobs_setting_from_config_and_environment(tmp_path: Path) -> None:
    assert load_settings({}, cwd=str(tmp_path), environ={}).jobs is None
    assert load_settings({}, cwd=str(tmp_path), environ={"MLCHECK_JOBS": "3"}).jobs == 3
    assert load_settings({"jobs": 1}, cwd=str(tmp_path), environ={"MLCHECK_JOBS": "3"}).jobs == 1
    for bad in ("0", "two", "-1", "²"):
        settings = load_settings({}, cwd=str(tmp_path), environ={"MLCHECK_JOBS": bad})
        assert settings.jobs is None and [p.code for p in settings.problems] == ["MLC041"]
    (tmp_path / ".mlcheck.toml").write_text("jobs = 4\n", encoding="utf-8")
    assert load_settings({}, cwd=str(tmp_path), environ={}).jobs == 4
    (tmp_path / ".mlcheck.toml").write_text('jobs = "many"\n', encoding="utf-8")
    assert [p.code for p in load_settings({}, cwd=str(tmp_path), environ={}).problems] == ["MLC041"]


def test_usable_cpus_is_at_least_one() -> None:
    assert jobs.usable_cpus() >= 1


def test_a_bad_jobs_option_is_a_usage_error(tree: Path) -> None:
    assert run_cli("check", str(tree / "Acme"), "--jobs", "0").exit_code == 2


def test_spawned_workers_give_the_same_result(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where processes cannot be forked (macOS, Windows) the workers are spawned."""
    monkeypatch.setattr(jobs, "_start_method", lambda total: "spawn")
    paths = [str(tree / "Acme"), str(tree / "bad")]
    # (compared as reports: a NaN read from a log does not equal itself once it was pickled)
    assert render_json(check(paths, jobs=2)) == render_json(check(paths, jobs=1))


def test_start_method_follows_the_platform_and_the_size(monkeypatch: pytest.MonkeyPatch) -> None:
    assert jobs._start_method(jobs.PARALLEL_FROM_BYTES - 1) is None
    monkeypatch.setattr(jobs.sys, "platform", "linux")
    assert jobs._start_method(jobs.PARALLEL_FROM_BYTES) == "fork"
    monkeypatch.setattr(jobs.sys, "platform", "darwin")
    assert jobs._start_method(jobs.PARALLEL_FROM_BYTES) is None
    assert jobs._start_method(jobs.SPAWN_FROM_BYTES) == "spawn"


def test_workers_score_the_folders_they_check_whole(tmp_path: Path, always_parallel: list[int],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """With enough folders for every worker, each folder is a chunk and whoever checks it (a
    worker, or the parent, which checks chunks too) scores it with it: the folder stage after the
    logs scores none of them, and the reports are those of one process."""
    from mlcheck.judge import folder_groups

    tree = tmp_path / "round"
    for org in range(8):  # (8 packages of the example: 4 folders per worker)
        shutil.copytree(FIXTURES / "example" / "Acme", tree / f"Org{org}")
    one = _reports(tree, tmp_path / "one", "--jobs", "1")
    after_the_logs: list[str] = []
    with_the_logs: list[str] = []
    checking = [False]
    score_group, check_logs = folder_groups.score_group, mlcheck.checker.check_logs

    def counted(key: Any, *args: Any) -> Any:
        (with_the_logs if checking[0] else after_the_logs).append(key[3])
        return score_group(key, *args)

    def checked(*args: Any, **kwargs: Any) -> Any:
        checking[0] = True
        try:
            return check_logs(*args, **kwargs)
        finally:
            checking[0] = False

    monkeypatch.setattr(folder_groups, "score_group", counted)
    monkeypatch.setattr(mlcheck.checker, "check_logs", checked)
    two = _reports(tree, tmp_path / "two", "--jobs", "2")
    assert always_parallel
    assert one == two
    assert after_the_logs == []  # (the workers, forked after the counter was put in, count their own)
    assert 0 < len(with_the_logs) < 8  # (the parent scored the folders it checked, the worker the others)
    assert one[2].count(b'"benchmark": "resnet"') >= 8


def test_folders_are_chunks_of_their_own_only_when_there_are_enough() -> None:
    from mlcheck.judge.job_chunks import plan_chunks
    from mlcheck.package.discover import LogRef

    refs = [LogRef(f"p/results/s/b{i // 3}/result_{i % 3}.txt", folder=f"p/results/s/b{i // 3}") for i in range(30)]
    refs.append(LogRef("loose.txt"))
    sizes = {i: 100 for i in range(31)}
    chunks = plan_chunks(refs, sizes, 2)
    whole = [c.indices for c in chunks if c.scores_folders]
    assert sorted(whole) == [[i, i + 1, i + 2] for i in range(0, 30, 3)]  # each folder, all of it
    assert [c.indices for c in chunks if not c.scores_folders] == [[30]]
    assert not any(c.scores_folders for c in plan_chunks(refs, sizes, 3))  # 10 folders: too few for 3
    sizes[0] = 10_000  # a folder larger than a share of the work is split by size
    big = plan_chunks(refs, sizes, 2)
    assert big[0].indices == [0] and not big[0].scores_folders
    assert sorted(i for c in big for i in c.indices) == list(range(31))
