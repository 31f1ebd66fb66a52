"""Reading defects found by the second user review: integers of over 4300 digits and lone
surrogates in keys (tracebacks in split/watch, MLC000 in check), the logging rank of srun labels
and of jobs first met after the lookahead, one extra copy shifting every later comparison."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.cli import main
from mlcheck.discover import LogRef
from mlcheck.model import Finding

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
HUGE_INT = ':::MLLOG {"key": "x", "value": ' + "9" * 5000 + ', "time_ms": 1652172957700, "metadata": {}}'


def _codes_and_lines(path: Path) -> tuple[list[tuple[str, int | None]], int]:
    results = check_log(LogRef(str(path)), None)
    found: list[Finding] = [f for r in results for f in r.findings]
    return sorted((f.code, f.line) for f in found if f.severity.label == "error"), len(results)


def test_integer_of_5000_digits_is_invalid_json_at_its_line_and_reading_goes_on(tmp_path: Path) -> None:
    lines = GOOD.read_text(encoding="utf-8").splitlines()
    log = tmp_path / "result_0.txt"
    log.write_text("\n".join(lines[:5] + [HUGE_INT] + lines[5:]) + "\n", encoding="utf-8")
    errors, runs = _codes_and_lines(log)
    assert errors == [("MLC003", 6)]
    assert runs == 1
    result = check_log(LogRef(str(log)), None)[0]
    assert result.converged and result.time_to_train_min is not None
    message = next(f.message for f in result.findings if f.code == "MLC003")
    assert "4300 digits" in message and "sys.set_int_max_str_digits" not in message


def test_integer_of_5000_digits_in_split_and_raw_output(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("[1,0]<stdout>:" + HUGE_INT + "\n", encoding="utf-8")
    outcome = CliRunner().invoke(main, ["split", str(log), "-o", str(tmp_path / "out")])
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit), outcome.exception
    assert "MLC003" in outcome.stderr and "job.log:1" in outcome.stderr


def test_lone_surrogate_in_a_key_of_raw_output_is_read(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    record = '{"key": "a\\ud800", "value": 1, "time_ms": 16521729577%02d, "metadata": {}}'
    log.write_text("".join(f"[1,{rank}]<stdout>::::MLLOG " + record % rank + "\n" for rank in (0, 1)),
                   encoding="utf-8")
    for args in (["split", str(log), "-o", str(tmp_path / "out")],
                 ["check", str(log), "-f", "json"], ["check", str(log), "-f", "sarif"],
                 ["check", str(log)]):
        outcome = CliRunner().invoke(main, args)
        assert outcome.exception is None or isinstance(outcome.exception, SystemExit), (args, outcome.exception)
        assert outcome.exit_code in (0, 1), (args, outcome.output)
    assert (tmp_path / "out" / "result_0.txt").read_text(encoding="utf-8") == \
        ":::MLLOG " + record % 0 + "\n"
