"""Reference convergence points (RCPs) of a round, with the statistics the round's record checker
derived from them: olympic mean, population stdev, minimum acceptable mean, pruning, interpolation.

Rules text: training_rules.adoc §Reference Convergence Points. Engine: mlperf-logging
``rcp_checker/rcp_checker.py``; the per-round differences (``schemas/rulesets/<X.Y.Z>/rcp.json``)
are those of the checker at each round's release tag (official-tooling.md §1.6, §1.10). Alpha
0.05 and the bisection tolerance 1e-4 are the same in every round.

Data: ``mlperf_logging/rcp_checker/training_<X.Y.Z>/rcps_<benchmark>.json`` of the installed
mlperf-logging, except where the file was edited after the round so that it no longer reproduces
the round's verdicts or numbers: then ``schemas/rulesets/<X.Y.Z>/rcps_<benchmark>.json`` holds the
record data with its source, each record with the fields the RCP test reads (who made the
reference and on which platform are left to the source).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any, Mapping, Sequence

from mlcheck.facts import resources
from mlcheck.facts.installed import installed_folder
from mlcheck.records import dataclass
from mlcheck.score.rcp.policy import RoundPolicy, round_policy
from mlcheck.score.rcp.tdist import one_sided_p_above
from mlcheck.score.numpy_float import numpy_interp, numpy_mean, numpy_std

__all__ = ["ALPHA", "TOLERANCE", "Reference", "ReferenceSet", "RoundPolicy", "build_reference_set",
           "interpolate", "load_references", "min_acceptable_mean", "population_stdev", "prune",
           "round_policy", "trimmed"]

ALPHA = 0.05
TOLERANCE = 1e-4

@dataclass(frozen=True)
class Reference:
    """One RCP record (or an interpolated one) with its statistics."""

    name: str
    batch_size: int
    mean: float
    stdev: float
    samples: int
    """How many reference values enter the t-test (trimmed count; 2N when interpolated)."""
    submission_runs: int
    precision: str | None = None
    """The numerical precision of the reference runs (records of 5.1 and later)."""

    @property
    def min_mean(self) -> float:
        """The smallest submission mean the one-sided t-test accepts (computed on first use)."""
        return min_acceptable_mean(self.mean, self.stdev, self.samples, self.submission_runs)


@dataclass(frozen=True)
class ReferenceSet:
    """The RCPs of one benchmark in one round, sorted by batch size, before and after pruning."""

    benchmark: str
    ruleset: str
    all: tuple[Reference, ...]
    used: tuple[Reference, ...]
    source: str
    policy: RoundPolicy


def trimmed(values: Sequence[float], drop: int) -> list[float]:
    """The sorted values without the ``drop`` smallest and ``drop`` largest."""
    ordered = sorted(values)
    return ordered[drop:len(ordered) - drop]


def population_stdev(values: Sequence[float]) -> float:
    """``numpy.std`` (ddof 0) of the values sorted, as the checker sorts a record's list first."""
    return numpy_std(sorted(values))


@lru_cache(maxsize=4096)
def min_acceptable_mean(mean: float, stdev: float, reference_samples: int, submission_runs: int) -> float:
    """Bisection on [0, mean] (tolerance 1e-4) for the smallest submission mean that the one-sided
    t-test at alpha 0.05 does not reject, the submission counting ``submission_runs - 2`` runs."""
    if stdev == 0:
        return mean
    submission_samples = submission_runs - 2
    low, high = 0.0, mean
    middle = (low + high) / 2
    while high - low > TOLERANCE:
        if one_sided_p_above(ALPHA, middle, stdev, reference_samples, mean, stdev, submission_samples):
            high = middle
        else:
            low = middle
        middle = (low + high) / 2
    return middle


def interpolate(batch_size: float, low: Reference, high: Reference, submission_runs: int) -> Reference:
    """A reference at ``batch_size`` between two others: mean and stdev linear in batch size
    (``numpy.interp``, as the checker interpolates)."""
    mean = numpy_interp(batch_size, low.batch_size, high.batch_size, low.mean, high.mean)
    stdev = numpy_interp(batch_size, low.batch_size, high.batch_size, low.stdev, high.stdev)
    samples = 2 * submission_runs
    return Reference(name=f"interpolated between BS {low.batch_size} and BS {high.batch_size}",
                     batch_size=int(batch_size), mean=mean, stdev=stdev, samples=samples,
                     submission_runs=submission_runs)


def prune(references: Sequence[Reference], by: str, submission_runs: int) -> tuple[Reference, ...]:
    """Drop the RCPs with a batch size below the fastest-converging one, then every middle point
    that converges slower than the interpolation of its neighbours (the record algorithm, with
    its known off-by-one: logging#368)."""
    if not references:
        return ()

    def key(ref: Reference) -> float:
        return ref.min_mean if by == "min_epochs" else ref.mean

    fastest = min(references, key=key)
    kept = [r for r in references if r.batch_size >= fastest.batch_size]
    i = 1
    while i < len(kept) - 1:
        between = interpolate(kept[i].batch_size, kept[i - 1], kept[i + 1], submission_runs)
        if key(kept[i]) > key(between):
            del kept[i]
            i -= 1
        i += 1
    return tuple(kept)


def _record_values(record: Mapping[str, Any], key: str) -> list[float]:
    """The reference runs of a record: the member the round's checker reads (``key``), else the
    other spelling (the checker would raise KeyError; mlcheck reads what is there)."""
    values = record.get(key)
    if values is None:
        values = record.get("Epochs to converge", record.get("samples to converge", []))
    return [float(v) for v in values]


def build_reference_set(benchmark: str, ruleset: str, records: Mapping[str, Any], source: str,
                        submission_runs: int, policy: RoundPolicy | None = None) -> ReferenceSet:
    """Statistics of every record, then pruning as the round's policy says (``policy``: another
    computation, e.g. today's mlperf-logging's, :mod:`mlcheck.score.rcp.today`)."""
    policy = policy or round_policy(ruleset)
    if policy is None:
        raise ValueError(f"no RCP policy for training {ruleset}")
    drop = 4 if benchmark == "unet3d" else 1
    built = []
    for name, record in records.items():
        values = _record_values(record, policy.values_key_of(benchmark))
        kept = trimmed(values, drop)
        if not kept:
            continue
        mean = numpy_mean(kept)
        stdev = population_stdev(kept if policy.stdev_over == "trimmed" else values)
        precision = record.get("Precision") if policy.record_precision else None
        built.append(Reference(name=name, batch_size=int(record["BS"]), mean=mean, stdev=stdev,
                               samples=len(kept), submission_runs=submission_runs,
                               precision=precision if isinstance(precision, str) else None))
    ordered = tuple(sorted(built, key=lambda r: r.batch_size))
    used = prune(ordered, policy.prune_by, submission_runs) if policy.prune else ordered
    return ReferenceSet(benchmark, ruleset, ordered, used, source, policy)


def official_rcp_checker_folder() -> str | None:
    """The installed mlperf-logging's ``rcp_checker`` folder (None: not installed)."""
    folder = installed_folder()
    return None if folder is None else os.path.join(folder, "rcp_checker")


def _official_rcp_folder(ruleset: str) -> str | None:
    folder = official_rcp_checker_folder()
    return None if folder is None else os.path.join(folder, f"training_{ruleset}")


def installed_rcp_records(ruleset: str, name: str) -> Any:
    """The records of the installed mlperf-logging's ``rcp_checker/training_<ruleset>/<name>``,
    or None when it has no such file."""
    folder = _official_rcp_folder(ruleset)
    if folder is None or not os.path.isfile(os.path.join(folder, name)):
        return None
    with open(os.path.join(folder, name), encoding="utf-8") as handle:
        return json.load(handle)


@lru_cache(maxsize=None)
def load_references(benchmark: str, ruleset: str, submission_runs: int) -> ReferenceSet | None:
    """The RCPs of a benchmark in a round, or None when the round has none for it."""
    if round_policy(ruleset) is None:
        return None
    name = f"rcps_{benchmark}.json"
    record_copy = resources.files("mlcheck.schemas").joinpath("rulesets").joinpath(ruleset).joinpath(name)
    if record_copy.is_file():
        data = json.loads(record_copy.read_text("utf-8"))
        return build_reference_set(benchmark, ruleset, data["records"], data["source"], submission_runs)
    records = installed_rcp_records(ruleset, name)
    if records is None:
        return None
    return build_reference_set(benchmark, ruleset, records,
                               f"mlperf-logging rcp_checker/training_{ruleset}/{name} (installed)",
                               submission_runs)
