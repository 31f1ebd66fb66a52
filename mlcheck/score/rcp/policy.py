"""A round's RCP policy as data: ``schemas/rulesets/<X.Y.Z>/rcp.json`` (schema
``schemas/rcp-policy.schema.json``) says how that round's record RCP checker computed the test:
pruning (by ``Min Epochs`` up to 3.1, by ``RCP Mean`` from 4.0), the reference stdev (of the
olympic-trimmed list up to 4.0, of the full list from 4.1), how a run's convergence point is read
(the last eval's ``epoch_num``; ``samples_count`` for the LLM benchmarks and flux1; the first step
where Stable Diffusion's FID and CLIP both meet the target), the ``submission_runs`` table of the
t-test (3 for the median-scored benchmarks), the Llama 3.1 405B leniency (5.0+) and whether records
carry their precision (5.1+)."""

from __future__ import annotations

import json
import math
import operator
from functools import lru_cache
from typing import Any, Callable, Mapping

from mlcheck.facts import resources
from mlcheck.records import dataclass, field

_OPERATORS: Mapping[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt,
}


@dataclass(frozen=True)
class MetricCondition:
    """One comparison on the eval of one metric (Stable Diffusion: FID <= 90)."""

    metric: str
    op: str
    value: float

    def holds(self, observed: object) -> bool:
        """Whether the eval's value meets it, as the RCP checker's Python compares it: ``true`` is
        1 there (``True >= 0.15``), NaN meets nothing, and other values fail."""
        if not isinstance(observed, (int, float)) or math.isnan(observed):
            return False
        return _OPERATORS[self.op](float(observed), self.value)

    @property
    def text(self) -> str:
        return f"{self.metric} {self.op} {self.value:g}"


@dataclass(frozen=True)
class ConvergenceRule:
    """How the round's RCP checker reads a run's convergence point."""

    point: str
    """``last_eval``: the metadata value of the last eval before a successful ``run_stop``;
    ``first_passing_step``: the smallest step whose evals meet every condition."""
    metadata: str
    """``epoch_num``, ``samples_count`` or ``step_num``."""
    round_to: int | None = None
    conditions: tuple[MetricCondition, ...] = ()
    source: str = "rcp_checker.py read_submission_file"


DEFAULT_CONVERGENCE = ConvergenceRule("last_eval", "epoch_num", 3)


@dataclass(frozen=True)
class RoundPolicy:
    """How a round's record checker computed the RCP test."""

    prune: bool
    prune_by: str
    """``min_epochs`` (record checkers up to 3.1) or ``mean`` (since logging commit 39fc7a0, 4.0)."""
    stdev_over: str
    """``trimmed`` (record checkers up to 4.0) or ``full`` (since logging commit 52245a0, 4.1)."""
    source: str
    submission_runs: Mapping[str, int] = field(default_factory=dict)
    values_key: Mapping[str, str] = field(default_factory=dict)
    convergence: Mapping[str, ConvergenceRule] = field(default_factory=dict)
    units: Mapping[str, str] = field(default_factory=dict)
    min_mean_offset: Mapping[str, float] = field(default_factory=dict)
    record_precision: bool = False
    resets_scaling_json: bool = False
    """The checker deletes an existing scaling.json before it evaluates a reference (5.1+)."""
    compares_runs: bool = False
    """It compares the files' batch sizes and benchmark names (:mod:`mlcheck.score.rcp.across_runs`);
    the 1.0-2.0 checkers take the folder's name and the last batch size they read."""

    def convergence_of(self, benchmark: str) -> ConvergenceRule:
        """The convergence rule of a benchmark (the last eval's ``epoch_num`` unless the round says)."""
        return self.convergence.get(benchmark, self.convergence.get("default", DEFAULT_CONVERGENCE))

    def unit_of(self, benchmark: str) -> str:
        """What the convergence numbers count: epochs, samples (BERT logs samples in epoch_num),
        tokens (GPT-3) or steps (Stable Diffusion 3.1)."""
        return self.units.get(benchmark, "epochs")

    def runs_of(self, benchmark: str, default: int) -> int:
        """N of the RCP checker's t-test for a benchmark (its ``submission_runs`` table)."""
        return self.submission_runs.get(benchmark, default)

    def values_key_of(self, benchmark: str) -> str:
        return self.values_key.get(benchmark, "Epochs to converge")


def _convergence(raw: Mapping[str, Any]) -> ConvergenceRule:
    metadata = raw["metadata"]
    return ConvergenceRule(
        point=raw["point"], metadata=metadata,
        round_to=raw.get("round_to", 3 if metadata == "epoch_num" else None),
        conditions=tuple(MetricCondition(c["metric"], c["op"], float(c["value"]))
                         for c in raw.get("conditions", ())),
        source=raw.get("source", "rcp_checker.py read_submission_file"))


@lru_cache(maxsize=None)
def round_policy(ruleset: str) -> RoundPolicy | None:
    """``schemas/rulesets/<X.Y.Z>/rcp.json`` (the shipped files are valid against
    ``schemas/rcp-policy.schema.json``: ``tests/test_bundled_data.py``), or None for a round
    mlcheck has no RCP policy for."""
    base = resources.files("mlcheck.schemas")
    path = base.joinpath("rulesets").joinpath(ruleset).joinpath("rcp.json")
    if not path.is_file():
        return None
    data = json.loads(path.read_text("utf-8"))
    return RoundPolicy(prune=data["prune"], prune_by=data["prune_by"], stdev_over=data["stdev_over"],
                       source=data["source"], submission_runs=dict(data.get("submission_runs", {})),
                       values_key=dict(data.get("values_key", {})),
                       convergence={name: _convergence(raw) for name, raw in data.get("convergence", {}).items()},
                       units=dict(data.get("units", {})),
                       min_mean_offset={k: float(v) for k, v in data.get("min_mean_offset", {}).items()},
                       record_precision=bool(data.get("record_precision", False)),
                       resets_scaling_json=bool(data.get("resets_scaling_json", False)),
                       compares_runs=bool(data.get("compares_runs", False)))
