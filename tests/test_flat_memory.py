"""Memory independent of how much is checked (issue 12): a judged run is kept as a summary of
what the later stages read, a file of many runs is judged one run at a time, and the large
reports are written as they are made, with the text of the whole document. No test here
measures memory or time: they check what is kept and that the text is the same."""

from __future__ import annotations

import json
import pickle
import weakref
from pathlib import Path
from typing import Any

import jsonschema

import mlcheck.checker
from mlcheck import check
from mlcheck.checker import check_log
from mlcheck.judge import jobs  # noqa: F401 (registers how a summary is pickled)
from mlcheck.judge.summary import REDUCED_EVALS, summarise
from mlcheck.model import Run
from mlcheck.package.discover import LogRef
from mlcheck.read.reader import read_mllog
from mlcheck.read.runs import assign_findings, split_runs
from mlcheck.report import ReportOptions, render, report_blocks
from mlcheck.report.json_report import BLOCK, Items, json_blocks, report_dict

from conftest import FIXTURES

BASE = (FIXTURES / "bad" / "base_open.txt").read_text("utf-8")
SCHEMA = json.loads((FIXTURES.parent / "schemas" / "report.schema.json").read_text("utf-8"))


def _record(key: str, value: object, time_ms: int, **metadata: object) -> str:
    return ":::MLLOG " + json.dumps({"namespace": "", "time_ms": time_ms, "event_type": "POINT_IN_TIME",
                                     "key": key, "value": value, "metadata": {"file": "t.py", "lineno": 3, **metadata}})


def _judged(path: Path) -> Any:
    (result,) = check_log(LogRef(str(path)), None)
    assert result.run is not None
    return result.run


def test_a_summary_keeps_what_later_stages_read_and_drops_the_rest(tmp_path: Path) -> None:
    lines = BASE.splitlines()
    start = next(i for i, line in enumerate(lines) if '"run_start"' in line)
    extra = [_record("global_batch_size", 4096, 1652083800003), _record("train_loss", 0.5, 1652083800004),
             _record("opt_base_learning_rate", 0.1, 1652083800005)]
    path = tmp_path / "result_0.txt"
    path.write_text("\n".join(lines[:start + 1] + extra + lines[start + 1:]) + "\n", "utf-8")
    summary = _judged(path)
    kept = set(summary.keys)
    assert {"submission_org", "submission_division", "seed", "global_batch_size", "train_samples",
            "run_start", "run_stop", "opt_base_learning_rate"} <= kept
    assert not kept & {"train_loss", "block_start", "eval_accuracy", "cache_clear", "init_start"}
    assert summary.value_of("global_batch_size") == 3264 and summary.batch_size == 4096  # first, last
    assert summary.org == "Acme" and summary.status == "success" and summary.duration_ms == 196005.0
    assert dict(summary.first("seed").metadata) == {"file": "train.py", "lineno": 1}
    assert dict(summary.first("run_stop").metadata) == {"status": "success"}
    assert all(not e.metadata for e in summary.events if e.key not in ("seed", "run_stop"))
    assert [e.value for e in summary.evaluations] == [0.6123, 0.7612]


def test_runs_share_equal_values_and_keys(tmp_path: Path) -> None:
    (tmp_path / "result_0.txt").write_text(BASE, "utf-8")
    (tmp_path / "result_1.txt").write_text(BASE.replace("4242", "4343"), "utf-8")
    one, two = _judged(tmp_path / "result_0.txt"), _judged(tmp_path / "result_1.txt")
    assert one.value_of("submission_platform") is two.value_of("submission_platform")
    assert one.first("seed").metadata is two.first("seed").metadata
    assert one.positions is two.positions and one.first("seed").value != two.first("seed").value


def test_negative_zero_is_not_shared_with_zero(tmp_path: Path) -> None:
    for name, value in (("result_0.txt", "0.0"), ("result_1.txt", "-0.0")):
        (tmp_path / name).write_text(BASE.replace('"value": 3264', f'"value": {value}'), "utf-8")
    assert repr(_judged(tmp_path / "result_1.txt").value_of("global_batch_size")) == "-0.0"


def test_evaluations_are_bounded_to_the_first_and_the_last() -> None:
    from mlcheck.model import Evaluation
    evals = tuple(Evaluation(float(i), i / 1000, i, float(i), None) for i in range(1, 1001))
    run = Run("x", 0, (), {}, evals, 1, 1000)
    kept = summarise(run).evaluations
    assert len(kept) == REDUCED_EVALS and kept[0].line == 1 and kept[-1].line == 1000


def test_a_summary_pickled_by_a_worker_is_the_same_and_shares_again(tmp_path: Path) -> None:
    (tmp_path / "result_0.txt").write_text(BASE, "utf-8")
    summary = _judged(tmp_path / "result_0.txt")
    again = pickle.loads(pickle.dumps(summary))
    assert again == summary and again.positions is summary.positions
    assert again.first("seed").metadata is summary.first("seed").metadata


def test_a_file_of_many_runs_is_judged_one_run_at_a_time(tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / "job.log"
    path.write_text(("mpirun -np 8 python train.py\n" + BASE) * 30, "utf-8")
    alive: list[weakref.ref[Run]] = []
    most = [0]
    judge = mlcheck.checker.judge_run

    def counting(run: Run, *args: Any) -> Any:
        alive.append(weakref.ref(run))
        most[0] = max(most[0], sum(1 for ref in alive if ref() is not None))
        return judge(run, *args)

    monkeypatch.setattr(mlcheck.checker, "judge_run", counting)
    results = check_log(LogRef(str(path)), None)
    assert len(results) == 30 and most[0] == 1  # only the run being judged is held
    # the reading findings reach their runs as when the whole file was split first, then judged
    runs, reading = split_runs(read_mllog(str(path)), str(path))
    by_run = assign_findings(runs, reading)
    whole = [judge(run, LogRef(str(path)), None, by_run[run.index]) for run in runs]
    assert [r.findings for r in results] == [r.findings for r in whole]
    assert [f.line for f in results[1].findings if f.code == "MLC024"] == [26]


def test_json_blocks_write_the_text_of_the_standard_encoder() -> None:
    def plain(value: Any) -> Any:
        if isinstance(value, Items):
            return [plain(value.make(item)) for item in value.items]
        if isinstance(value, dict):
            return {key: plain(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(item) for item in value]
        return value

    documents: list[Any] = [
        {}, [], {"a": []}, {"a": Items([], str)}, {1: Items([1], str), None: [Items([2], str)], True: 1.5},
        {"a": Items(range(3), lambda x: {"k": [x, {}], "s": "line\nbreak", "u": "é\udcff"})},
        [{"x": Items((1,), lambda x: [x, [], {}, Items([x], lambda y: {"y": y})])}],
        {"runs": [{"tool": {"rules": [{"id": 1}]}, "results": Items(range(5000), lambda x: {"n": x * 0.1})}]},
    ]
    for document in documents:
        blocks = list(json_blocks(document))
        # (but for a lone surrogate, which strict parsers refuse: U+FFFD, as the text report shows it)
        expected = json.dumps(plain(document), indent=2, allow_nan=False) + "\n"
        assert "".join(blocks) == expected.replace("\\udcff", "\\ufffd")
    assert len(blocks) > 1 and all(len(block) < 2 * BLOCK for block in blocks)


def test_large_reports_come_in_blocks_with_the_rendered_text(tmp_path: Path) -> None:
    folder = tmp_path / "resnet"
    folder.mkdir()
    for index in range(60):
        (folder / f"result_{index}.txt").write_text(BASE, "utf-8")  # the same seed: a finding per run
    result = check([str(folder)])
    for name in ("json", "sarif", "junit", "text"):
        blocks = list(report_blocks(name, result, ReportOptions()))
        assert "".join(blocks) == render(name, result, ReportOptions())
        assert len(blocks) > 1 or name == "text"
    jsonschema.Draft202012Validator(SCHEMA).validate(json.loads(render("json", result)))
    assert json.loads(render("json", result)) == json.loads(json.dumps(report_dict(result)))
