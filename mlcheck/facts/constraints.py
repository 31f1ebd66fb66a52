"""Constraint data of a round (``schemas/rulesets/<X.Y.Z>/constraints.json``) and its interpreter.

The official checker evaluates Python strings from YAML; mlcheck expresses the same constraints as
data (``equals``, ``one_of``, ``range``, ``multiple_of``, ``power_of_two_times``, ...), valid against
``schemas/constraints.schema.json`` (the tests check every shipped file), interpreted here. Nothing
is evaluated.
Arithmetic follows the official checker (``is_integer``: within 1e-5 of an integer) so verdicts agree.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from mlcheck.facts import resources
from mlcheck.records import dataclass, field
from mlcheck.facts.formulas import StateDef

from mlcheck.facts.checks import Values as Values, describe as describe, holds as holds  # re-exported
from mlcheck.facts.checks import is_integer as is_integer, show as show  # re-exported


@dataclass(frozen=True)
class Cadence:
    """An evaluation grid (6.1 Qwen3.5 GRPO): each record's ``field`` must be the next point of
    ``start``, ``start + step``, ... (expressions of :mod:`mlcheck.facts.formulas`); a point is
    used up only by a record that lands on it, as the checker's POST code advances it."""

    field: str
    start: Any
    step: Any
    text: str


@dataclass(frozen=True)
class Entry:
    """What a key must satisfy: occurrences, value, metadata and order."""

    key: str
    source: str
    req: str | None = None
    alternatives: tuple[str, ...] = ()
    check: Mapping[str, Any] | None = None
    metadata: tuple[str, ...] = ()
    metadata_check: Mapping[str, Mapping[str, Any]] | None = None
    after: tuple[str, ...] = ()
    min_count: int = 1
    """``AT_LEAST``: how many occurrences at least (the checker's ``AT_LEAST(n)``)."""
    first_check: Mapping[str, Any] | None = None
    """Checked on the first occurrence only (the checker's ``FIRST_CHECK``, 6.1)."""
    metadata_one_of: tuple[str, ...] = ()
    """At least one of these metadata fields (``('epoch_num' in m) | ('samples_count' in m)``)."""
    metadata_requires: Mapping[str, tuple[str, ...]] | None = None
    """When the first field is present, the others are required (``A in m if B in m else True``)."""
    cadence: Cadence | None = None


@dataclass(frozen=True)
class RulesTextCheck:
    """A constraint of the rules text that the checker of record does not enforce."""

    key: str
    check: Mapping[str, Any]
    severity: str
    section: str
    optimizer: str | None = None
    applies_when: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class WeightInit:
    """Where the round's reference tensor list lives and how its checker of record treated it."""

    record: str
    tensors_from: str
    source: str
    latest_differs: str | None = None
    record_adds: tuple[str, ...] = ()
    """Names the checker of record's list holds and the installed one lacks (1.1 BERT's
    ``cls/predictions/decoder/kernel``, taken out of the list after the round)."""


@dataclass(frozen=True)
class BenchmarkConstraints:
    """The closed-division constraints of one benchmark."""

    name: str
    title: str
    source: str
    keys: tuple[Entry, ...]
    optimizer_key: str | None = None
    optimizers: tuple[str, ...] = ()
    optimizer_source: str = ""
    per_optimizer: Mapping[str, tuple[Entry, ...]] | None = None
    weight_init: WeightInit | None = None
    rules_text: tuple[RulesTextCheck, ...] = ()
    overrides: tuple[Entry, ...] = ()
    """The benchmark file's own entries for keys of ``common`` (``eval_accuracy`` with the metadata
    it must carry): they replace the common ones and are reported as log structure (MLC1xx)."""
    states: tuple[StateDef, ...] = ()
    open_source: str = ""
    open_keys: tuple[Entry, ...] = ()
    """What ``open_<benchmark>.yaml`` requires of an open-division run (from 3.0 some hold
    hyper-parameters: GPT-3, Llama 3.1 405B, DeepSeek-V3, ...)."""
    open_overrides: tuple[Entry, ...] = ()
    open_states: tuple[StateDef, ...] = ()
    """The open file's own states (6.1 dlrmv4: its learning-rate band from global_batch_size)."""
    open_unavailable: str | None = None
    """Why the checker fails every open-division log of the benchmark (it is not listed, or has no file)."""


@dataclass(frozen=True)
class Release:
    """The latest mlperf-logging release's rules of a round where they are stricter than its
    checker of record (6.1: the disclosure keys required, Qwen's ``eval_samples``)."""

    version: str
    common: tuple[Entry, ...]
    benchmarks: Mapping[str, tuple[Entry, ...]]
    open_benchmarks: Mapping[str, tuple[Entry, ...]] = field(default_factory=dict)
    """The open division's files where they differ (6.0: the open LLMs' ``samples_count``)."""


@dataclass(frozen=True)
class Constraints:
    """All constraint data of one round."""

    ruleset: str
    checker_of_record: str
    division_sets_init_limit: bool
    common: tuple[Entry, ...]
    closed_common: tuple[Entry, ...]
    open_common: tuple[Entry, ...]
    benchmarks: Mapping[str, BenchmarkConstraints]
    release: Release | None = None


def _entry(e: Mapping[str, Any]) -> Entry:
    after = e.get("after", ())
    cadence = e.get("cadence")
    return Entry(key=e["key"], source=e["source"], req=e.get("req"), alternatives=tuple(e.get("or", ())),
                 check=e.get("check"), metadata=tuple(e.get("metadata", ())), metadata_check=e.get("metadata_check"),
                 after=(after,) if isinstance(after, str) else tuple(after), min_count=e.get("min_count", 1),
                 first_check=e.get("first_check"), metadata_one_of=tuple(e.get("metadata_one_of", ())),
                 metadata_requires={k: tuple(v) for k, v in e["metadata_requires"].items()}
                 if "metadata_requires" in e else None,
                 cadence=None if cadence is None else Cadence(cadence["field"], cadence["start"], cadence["step"],
                                                              cadence["text"]))


def _entries(raw: Sequence[Mapping[str, Any]]) -> tuple[Entry, ...]:
    return tuple(_entry(e) for e in raw)


def _states(raw: Sequence[Mapping[str, Any]]) -> tuple[StateDef, ...]:
    return tuple(StateDef(d["name"], d["set_by"], d["value"], d["source"]) for d in raw)


def _benchmark(name: str, raw: Mapping[str, Any]) -> BenchmarkConstraints:
    optimizer = raw.get("optimizer") or {}
    per = {k: _entries(v) for k, v in optimizer.get("per_optimizer", {}).items()}
    init = raw.get("weight_init")
    return BenchmarkConstraints(
        name=name, title=raw["title"], source=raw["source"], keys=_entries(raw["keys"]),
        optimizer_key=optimizer.get("key"), optimizers=tuple(optimizer.get("allowed", ())),
        optimizer_source=optimizer.get("source", ""), per_optimizer=per or None,
        weight_init=None if init is None else WeightInit(init["record"], init["tensors_from"], init["source"],
                                                         init.get("latest_differs"),
                                                         tuple(init.get("record_adds", ()))),
        rules_text=tuple(RulesTextCheck(r["key"], r["check"], r["severity"], r["section"], r.get("optimizer"),
                                        r.get("applies_when")) for r in raw.get("rules_text", ())),
        overrides=_entries(raw.get("overrides", ())),
        states=_states(raw.get("states", ())), open_states=_states(raw.get("open", {}).get("states", ())),
        open_source=raw.get("open", {}).get("source", ""), open_keys=_entries(raw.get("open", {}).get("keys", ())),
        open_overrides=_entries(raw.get("open", {}).get("overrides", ())),
        open_unavailable=raw.get("open", {}).get("unavailable"))


@lru_cache(maxsize=None)
def load_constraints(version: str) -> Constraints:
    """Load the constraint data of a ruleset (``2.0.0``)."""
    base = resources.files("mlcheck.schemas")
    data = json.loads(base.joinpath("rulesets").joinpath(version).joinpath("constraints.json").read_text("utf-8"))
    # Valid against schemas/constraints.schema.json: the tests check the shipped files
    # (tests/test_bundled_data.py); validating them at every start cost 9 ms a round.
    return Constraints(
        ruleset=data["ruleset"], checker_of_record=data["sources"]["checker_of_record"],
        division_sets_init_limit=data["division_sets_init_limit"], common=_entries(data["common"]),
        closed_common=_entries(data["closed_common"]), open_common=_entries(data["open_common"]),
        benchmarks={name: _benchmark(name, raw) for name, raw in data["benchmarks"].items()},
        release=None if "release" not in data else Release(
            data["release"]["version"], _entries(data["release"]["common"]),
            {name: _entries(raw) for name, raw in data["release"]["benchmarks"].items()},
            {name: _entries(raw) for name, raw in data["release"].get("open_benchmarks", {}).items()}))


_QUOTED = re.compile(r"[\"']([^\"'\n]+)[\"']")


@lru_cache(maxsize=None)
def tensor_list(relative: str) -> tuple[str, ...]:
    """The reference tensor names of an installed official YAML file's END check.

    The names are the quoted strings of the ``sorted([ ... ])`` list in the file's ``- END:``
    record. The file is scanned as text (no YAML parser to import, nothing is ever run); the
    tests compare the result with a YAML parse of every file.
    """
    from mlperf_logging import compliance_checker

    path = Path(compliance_checker.__file__).parent / relative
    if not path.is_file():  # a later mlperf-logging without this round: nothing to compare with
        return ()
    text = path.read_text("utf-8")
    at = text.find("- END:")
    if at < 0:
        return ()
    _, _, reference = text[at:].partition("== sorted(")
    return tuple(_QUOTED.findall(reference.split("])", 1)[0]))
