"""The versioned JSON report (``mlcheck-report/1``); its schema is ``schemas/report.schema.json``."""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

from mlcheck import __version__
from mlcheck.model import Finding, Severity
from mlcheck.report.json_text import BLOCK as BLOCK, Items as Items, json_blocks as json_blocks  # (re-exported)
from mlcheck.report.plain import run_tally
from mlcheck.results import BenchmarkResult, CheckResult, RcpResult, RunResult

SCHEMA_ID = "mlcheck-report/1"


def finding_dict(found: Finding) -> dict[str, Any]:
    """A finding as a JSON object; a grouped finding lists what it covers (``items``, at most
    50) and how many there are (``item_count``)."""
    data: dict[str, Any] = {"code": found.code, "name": found.name, "severity": found.severity.label,
                            "message": found.message, "path": found.path, "line": found.line,
                            "official": found.official, "run_index": found.run_index}
    if found.items or found.item_count:
        data["items"] = list(found.items)
        data["item_count"] = max(found.item_count, len(found.items))
    return data


def run_dict(run: RunResult) -> dict[str, Any]:
    """A run as a JSON object."""
    return {"path": run.path, "index": run.index, "org": run.org, "system": run.system,
            "benchmark": run.benchmark, "division": run.division, "ruleset": run.ruleset,
            "ruleset_source": run.ruleset_source, "status": run.status, "converged": run.converged,
            "time_to_train_min": run.time_to_train_min, "duration_min": run.duration_min,
            "verdict": run.verdict,
            "official_verdict": run.official_verdict,
            "lines": [run.run.first_line, run.run.last_line] if run.run is not None else None,
            "findings": [finding_dict(f) for f in run.findings]}


def benchmark_dict(bench: BenchmarkResult) -> dict[str, Any]:
    """A benchmark folder and its score as a JSON object."""
    return _benchmark(bench, _made)


Array = Callable[[Sequence[Any], Callable[[Any], Any]], Any]
"""How a report's arrays are made: as lists (:func:`_made`) or as :class:`Items` to stream."""


def _made(items: Sequence[Any], make: Callable[[Any], Any]) -> list[Any]:
    return [make(item) for item in items]


def _streamed_benchmark(bench: BenchmarkResult) -> dict[str, Any]:
    return _benchmark(bench, Items)  # (a folder of thousands of runs has thousands of findings)


def _benchmark(bench: BenchmarkResult, array: Array) -> dict[str, Any]:
    score = bench.score
    found = {"org": bench.org, "system": bench.system, "benchmark": bench.benchmark,
            "division": bench.division, "ruleset": bench.ruleset, "folder": bench.folder,
            "score_min": score.score_min, "valid": score.valid, "reason": score.reason,
            "runs_counted": [_run_label(bench, i) for i in score.runs_counted],
            "runs_dropped": [_run_label(bench, i) for i in score.runs_dropped],
            "scaling_factor": score.scaling_factor, "unscaled_score_min": score.unscaled_min,
            "rcp": rcp_dict(bench.rcp),
            "findings": array(bench.findings, finding_dict)}
    if bench.energy is not None:  # only folders with power/ measurements
        energy = bench.energy
        found["energy"] = {"joules": energy.joules, "valid": energy.valid, "reason": energy.reason,
                           "run_joules": list(energy.run_joules), "scaling_factor": energy.scaling_factor}
    return found


def rcp_dict(rcp: RcpResult | None) -> dict[str, Any] | None:
    """The RCP test of a benchmark folder as a JSON object (None when it was not computed), with
    ``today``: the same test as today's mlperf-logging computes it, when it was computed."""
    if rcp is None:
        return None
    data = _rcp_fields(rcp)
    if rcp.today is not None:
        data["today"] = _rcp_fields(rcp.today)
    return data


def _rcp_fields(rcp: RcpResult) -> dict[str, Any]:
    return {"verdict": rcp.verdict, "reason": rcp.reason, "unit": rcp.unit, "batch_size": rcp.batch_size,
            "reference": rcp.reference, "reference_batch_sizes": list(rcp.reference_batch_sizes),
            "reference_mean": rcp.reference_mean, "min_acceptable_mean": rcp.min_acceptable_mean,
            "submission_mean": rcp.submission_mean, "margin_pct": rcp.margin_pct,
            "normalization_factor": rcp.normalization_factor, "source": rcp.source}


def _run_label(bench: BenchmarkResult, position: int) -> dict[str, Any]:
    run = bench.runs[position]
    return {"path": run.path, "index": run.index, "time_to_train_min": run.time_to_train_min,
            "converged": run.converged}


def summary_dict(result: CheckResult, fail_level: Severity = Severity.ERROR) -> dict[str, Any]:
    """Counts and the overall verdict."""
    found = result.all_findings()
    counts = {level.label: sum(1 for f in found if f.severity is level) for level in Severity}
    failing = any(f.severity >= fail_level for f in found)
    return {"files": len({r.path for r in result.runs}), "runs": len(result.runs),
            "runs_failed": sum(1 for r in result.runs if r.verdict == "fail"),
            "runs_tolerated": run_tally(result.runs)[1],
            "runs_official_failed": sum(1 for r in result.runs if r.official_verdict == "fail"),
            "benchmarks": len(result.benchmarks),
            "benchmarks_valid": sum(1 for b in result.benchmarks if b.score.valid),
            "findings": counts, "verdict": "fail" if failing else "pass"}


def report_dict(result: CheckResult, fail_level: Severity = Severity.ERROR) -> dict[str, Any]:
    """The whole report as plain JSON-ready data."""
    return _report(result, fail_level, _made)


def _report(result: CheckResult, fail_level: Severity, array: Array) -> dict[str, Any]:
    return {"schema": SCHEMA_ID, "tool": {"name": "mlcheck", "version": __version__},
            "runs": array(result.runs, run_dict),
            "benchmarks": array(result.benchmarks, _streamed_benchmark if array is Items else benchmark_dict),
            "findings": array(result.all_findings(), finding_dict),
            "waived": [dict(finding_dict(w.finding), reason=w.reason, waiver=w.waiver, expires=w.expires)
                       for w in result.waived],
            "summary": summary_dict(result, fail_level)}


def json_report_blocks(result: CheckResult, fail_level: Severity = Severity.ERROR) -> Iterator[str]:
    """The text of :func:`render_json` in blocks, each run, folder and finding made as it is
    written (a report of thousands of runs is never held whole, as data or as text)."""
    return json_blocks(_report(result, fail_level, Items))


def render_json(result: CheckResult, fail_level: Severity = Severity.ERROR) -> str:
    """The report as deterministic JSON text."""
    return "".join(json_report_blocks(result, fail_level))
