"""Round-specific facts (targets, limits, scoring) loaded from ``schemas/rulesets/<X.Y.Z>/`` (data
shipped with mlcheck, valid against its JSON Schema: ``tests/test_bundled_data.py`` checks every
file); run counts come from ``mlperf_logging.benchmark_meta``."""

from __future__ import annotations

import datetime as dt
import json
import math
import operator
from functools import cached_property, lru_cache
from typing import Any, Callable, Mapping

from mlcheck.facts import resources
from mlcheck.facts.path_round import round_part as round_part, ruleset_from_path as ruleset_from_path  # re-exported
from mlcheck.records import dataclass

SUPPORTED_RULESETS = ("1.0.0", "1.1.0", "2.0.0", "2.1.0", "3.0.0", "3.1.0", "4.0.0", "4.1.0", "5.0.0",
                      "5.1.0", "6.0.0", "6.1.0")

_OPERATORS: Mapping[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt,
}


class RulesetError(ValueError):
    """An unknown ruleset or benchmark, with a message that lists the valid ones."""


@dataclass(frozen=True)
class Condition:
    """One comparison on an eval value (or on one field of it, e.g. Mask R-CNN ``BBOX``)."""

    op: str
    value: float
    field: str | None = None
    bound: bool = False

    def holds(self, observed: Any) -> bool | None:
        """True/False, or None when the observed value has the wrong shape to compare."""
        if type(observed) is float and self.field is None:  # the common eval value
            return None if observed != observed else _OPERATORS[self.op](observed, self.value)
        if self.field is not None:
            if type(observed) is not dict and not isinstance(observed, Mapping) or self.field not in observed:
                return None
            observed = observed[self.field]
        if not isinstance(observed, (int, float)) or math.isnan(observed):
            return None
        return _OPERATORS[self.op](float(observed), self.value)  # (true is 1, as the checker's Python compares it)


@dataclass(frozen=True)
class Aggregate:
    """Evaluation records merged into one record per position, as the checker's BEGIN code does
    for Stable Diffusion: every ``key`` record that names its metric in ``metadata[name_from]``
    joins the record of its ``metadata[by]`` (its value becomes ``{by: position, metric: value,
    ...}``, timed at the latest of them) under the virtual key ``into``."""

    key: str
    by: str
    name_from: str
    into: str
    source: str


@dataclass(frozen=True)
class Target:
    """The quality target of a benchmark: every condition must hold on one eval (of ``metric``,
    or of the records aggregated from it)."""

    metric: str
    text: str
    conditions: tuple[Condition, ...]
    aggregate: Aggregate | None = None

    def reached_by(self, observed: Any) -> bool | None:
        """Whether an eval value reaches the target; None when it cannot be compared."""
        if len(self.conditions) == 1:  # (the common target: its one comparison)
            return self.conditions[0].holds(observed)
        reached = True
        for condition in self.conditions:  # (every condition is compared: one may be None)
            result = condition.holds(observed)
            if result is None:
                return None
            reached = reached and result
        return reached

    @cached_property
    def plain(self) -> tuple[tuple[Callable[[float, float], bool], float], ...] | None:
        """``(compare, value)`` of each condition when every one compares the eval value itself:
        a float that is not NaN then reaches the target when ``compare(observed, value)`` holds
        for each; else (conditions on fields, or none) None."""
        if not self.conditions or any(c.field is not None for c in self.conditions):
            return None
        return tuple((_OPERATORS[c.op], c.value) for c in self.conditions)

    @property
    def lower_is_better(self) -> bool:
        return any(c.op in ("<=", "<") and not c.bound for c in self.conditions)


@dataclass(frozen=True)
class EvalCadence:
    """How often a closed run must evaluate: a fixed interval (``every``, in ``unit``) or a
    formula of the global batch size (``bert``)."""

    unit: str
    every: float | None
    formula: str | None
    text: str
    source: str
    interval: float | None = None
    """``ceil_to_batch``: the samples between evals, rounded up to a multiple of the batch."""
    skip: tuple[float, float] | None = None
    """``ceil_to_batch``: (scale, offset): FLOOR(scale * global_batch_size + offset) evals skipped."""
    spacing_only: bool = False
    """``ceil_to_batch``: only the spacing is checked, not where the first eval is."""


@dataclass(frozen=True)
class BenchmarkFacts:
    """What a round says about one benchmark."""

    name: str
    model: str
    target: Target
    result_files: int
    drop_fastest: int
    drop_slowest: int
    max_non_converged: int
    source: str
    eval_cadence: EvalCadence | None = None
    checkpoint_eval: bool = False
    """The reference evaluates checkpoints after the clock stopped (evals after run_stop are legal)."""
    eval_position: str = "epoch_num"
    """The metadata that says where an eval was taken: ``epoch_num``, ``samples_count`` or ``step_num``."""
    open_target: Target | None = None
    """What an open-division run must reach (``open_<benchmark>.yaml``); None: an eval below 1.0."""
    not_in_record: str | None = None
    """Why the checker of record refuses the benchmark's logs while mlcheck judges them by another
    checker's rules (6.1 dlrmv4): MLC011, an error, as the record fails the log."""


@dataclass(frozen=True)
class Ruleset:
    """The facts of one MLPerf Training round."""

    version: str
    round: str
    first_run_date: dt.date
    results_published: dt.date
    init_limit_checker: Mapping[str, float]
    init_limit_rules: Mapping[str, float]
    init_limit_source: str
    normalise_to_rcp: bool
    scaling_json: bool
    benchmarks: Mapping[str, BenchmarkFacts]
    checker_of_record: str
    period_estimated: bool = False
    """The end of the period is an estimate (no results publication in the shared data)."""

    def facts(self, benchmark: str) -> BenchmarkFacts:
        try:
            return self.benchmarks[benchmark]
        except KeyError:
            valid = ", ".join(sorted(self.benchmarks))
            raise RulesetError(f"{benchmark!r} is not a benchmark of training {self.version}; "
                               f"valid benchmarks: {valid}") from None


def _target(raw: Mapping[str, Any]) -> Target:
    agg = raw.get("aggregate")
    return Target(raw["metric"], raw["text"],
                  tuple(Condition(c["op"], float(c["value"]), c.get("field"), c.get("bound", False))
                        for c in raw["conditions"]),
                  None if agg is None else Aggregate(raw["metric"], agg["by"], agg["name_from"], agg["into"],
                                                     agg["source"]))


def _cadence(raw: dict[str, Any] | None) -> EvalCadence | None:
    if raw is None:
        return None
    skip = raw.get("skip")
    return EvalCadence(unit=raw["unit"], every=raw.get("every"), formula=raw.get("formula"),
                       text=raw["text"], source=raw["source"], interval=raw.get("interval"),
                       skip=None if skip is None else (skip["scale"], skip["offset"]),
                       spacing_only=bool(raw.get("spacing_only", False)))


@lru_cache(maxsize=None)
def load_ruleset(version: str) -> Ruleset:
    """Load the facts of a ruleset such as ``2.0.0`` (``2.0`` is accepted too)."""
    version = normalise_version(version)
    if version not in SUPPORTED_RULESETS:
        raise RulesetError(f"unknown ruleset {version!r}; valid rulesets: {', '.join(SUPPORTED_RULESETS)} "
                           "(2.0, v2.0 and training-2.0 also name 2.0.0)")
    path = resources.files("mlcheck.schemas").joinpath("rulesets").joinpath(version).joinpath("ruleset.json")
    data = json.loads(path.read_text("utf-8"))
    # Valid against schemas/ruleset.schema.json: the tests check the shipped files (tests/
    # test_bundled_data.py); validating them again at every start cost 60 ms of jsonschema.
    return _build(data)


def normalise_version(version: str) -> str:
    """``2.0`` → ``2.0.0``; ``v1.1`` → ``1.1.0``; ``training-2.0`` (the folder's spelling) → ``2.0.0``."""
    text = version.strip()
    text = (text[9:] if text[:9].lower() in ("training-", "training_") else text).lstrip("vV")
    parts = text.split(".")
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        return f"{text}.0"
    return text


def _build(data: Mapping[str, Any]) -> Ruleset:
    from mlperf_logging import benchmark_meta  # imported late: it is slow to import

    counts = benchmark_meta.get_result_file_counts("training")
    scoring = data["scoring"]
    benchmarks = {}
    for name, raw in data["benchmarks"].items():
        own = raw.get("scoring", {})
        benchmarks[name] = BenchmarkFacts(
            name=name, model=raw["model"], target=_target(raw["target"]),
            result_files=int(counts[name]),
            drop_fastest=own.get("drop_fastest", scoring["drop_fastest"]),
            drop_slowest=own.get("drop_slowest", scoring["drop_slowest"]),
            max_non_converged=own.get("max_non_converged", scoring["max_non_converged"]),
            source=raw["source"], eval_cadence=_cadence(raw.get("eval_cadence")),
            checkpoint_eval="checkpoint_eval" in raw, eval_position=raw.get("eval_position", "epoch_num"),
            open_target=_target(raw["open_target"]) if "open_target" in raw else None,
            not_in_record=raw.get("not_in_record"))
    return Ruleset(
        version=data["ruleset"], round=data["round"],
        first_run_date=dt.date.fromisoformat(data["period"]["first_run_date"]),
        results_published=dt.date.fromisoformat(data["period"]["results_published"]),
        init_limit_checker=data["init_limit_min"]["checker"],
        init_limit_rules=data["init_limit_min"]["rules"],
        init_limit_source=data["init_limit_min"]["source"],
        normalise_to_rcp=bool(scoring.get("normalise_to_rcp", False)),
        scaling_json=bool(scoring.get("scaling_json", True)),
        benchmarks=benchmarks, checker_of_record=data["sources"]["checker_of_record"],
        period_estimated=bool(data["period"].get("estimated", False)))


def ruleset_for_date(when: dt.date) -> Ruleset | None:
    """The supported round whose submission period contains ``when``, or None. Only the round
    found is loaded: a check of one round does not pay for the others."""
    for version, (first, published) in _periods().items():
        if first <= when < published:
            return load_ruleset(version)
    return None


def newest_period_end() -> tuple[str, dt.date]:
    """The newest round mlcheck knows and the end of its period: a run dated on or after it is
    newer than every round mlcheck has rules for."""
    version = SUPPORTED_RULESETS[-1]
    return version, _periods()[version][1]


@lru_cache(maxsize=None)
def _periods() -> dict[str, tuple[dt.date, dt.date]]:
    periods = {}
    for version in SUPPORTED_RULESETS:
        path = resources.files("mlcheck.schemas").joinpath("rulesets").joinpath(version).joinpath("ruleset.json")
        period = json.loads(path.read_text("utf-8"))["period"]
        periods[version] = (dt.date.fromisoformat(period["first_run_date"]),
                            dt.date.fromisoformat(period["results_published"]))
    return periods
