"""Constraint data of a round (``schemas/rulesets/<X.Y.Z>/constraints.json``) and its interpreter.

The official checker evaluates Python strings from YAML; mlcheck expresses the same constraints as
data (``equals``, ``one_of``, ``range``, ``multiple_of``, ``power_of_two_times``, ...) validated
with ``schemas/constraints.schema.json`` when loaded and interpreted here. Nothing is evaluated.
Arithmetic follows the official checker (``is_integer``: within 1e-5 of an integer) so verdicts agree.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import jsonschema

Values = Callable[[str], Any]
"""Looks up the first value a run logs for a key (used by ``only_when`` conditions)."""


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
    after: str | None = None


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


def _entries(raw: Sequence[Mapping[str, Any]]) -> tuple[Entry, ...]:
    return tuple(Entry(key=e["key"], source=e["source"], req=e.get("req"),
                       alternatives=tuple(e.get("or", ())), check=e.get("check"),
                       metadata=tuple(e.get("metadata", ())), metadata_check=e.get("metadata_check"),
                       after=e.get("after")) for e in raw)


def _benchmark(name: str, raw: Mapping[str, Any]) -> BenchmarkConstraints:
    optimizer = raw.get("optimizer") or {}
    per = {k: _entries(v) for k, v in optimizer.get("per_optimizer", {}).items()}
    init = raw.get("weight_init")
    return BenchmarkConstraints(
        name=name, title=raw["title"], source=raw["source"], keys=_entries(raw["keys"]),
        optimizer_key=optimizer.get("key"), optimizers=tuple(optimizer.get("allowed", ())),
        optimizer_source=optimizer.get("source", ""), per_optimizer=per or None,
        weight_init=None if init is None else WeightInit(init["record"], init["tensors_from"], init["source"],
                                                         init.get("latest_differs")),
        rules_text=tuple(RulesTextCheck(r["key"], r["check"], r["severity"], r["section"], r.get("optimizer"),
                                        r.get("applies_when")) for r in raw.get("rules_text", ())))


@lru_cache(maxsize=None)
def load_constraints(version: str) -> Constraints:
    """Load and validate the constraint data of a ruleset (``2.0.0``)."""
    base = resources.files("mlcheck.schemas")
    schema = json.loads(base.joinpath("constraints.schema.json").read_text("utf-8"))
    data = json.loads(base.joinpath("rulesets").joinpath(version).joinpath("constraints.json").read_text("utf-8"))
    # The schema itself is checked by the tests; validating it again on every load costs 0.1 s.
    jsonschema.Draft202012Validator(schema).validate(data)
    return Constraints(
        ruleset=data["ruleset"], checker_of_record=data["sources"]["checker_of_record"],
        division_sets_init_limit=data["division_sets_init_limit"], common=_entries(data["common"]),
        closed_common=_entries(data["closed_common"]), open_common=_entries(data["open_common"]),
        benchmarks={name: _benchmark(name, raw) for name, raw in data["benchmarks"].items()})


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


# --- the interpreter -------------------------------------------------------------------------


def is_integer(value: float) -> bool:
    """As the official checker: within 1e-5 of an integer. Infinity (a ratio or a logarithm of
    a value near a float's limit) and NaN are not integers (``round`` would raise)."""
    return math.isfinite(value) and abs(round(value) - value) < 0.00001


def _literal(value: Any) -> Any:
    if isinstance(value, Mapping) and "float" in value:
        return float(value["float"])
    return value


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def holds(check: Mapping[str, Any], value: Any, values: Values) -> bool:
    """Whether ``value`` satisfies every part of ``check`` (a wrong type never satisfies a numeric part)."""
    condition = check.get("only_when")
    if condition is not None and not holds(condition["check"], values(condition["key"]), values):
        return False
    for kind, expected in check.items():
        if kind in ("only_when", "text"):
            continue
        if not _PARTS[kind](expected, value, values):
            return False
    return True


def _equals(expected: Any, value: Any, _values: Values) -> bool:
    expected = _literal(expected)
    if isinstance(expected, str) != isinstance(value, str):
        return False
    return bool(value == expected)


def _range(bounds: Mapping[str, Any], value: Any, _values: Values) -> bool:
    number = _number(value)
    if number is None or math.isnan(number):
        return False
    if "min" in bounds:
        if number < bounds["min"] or (bounds.get("min_exclusive") and number == bounds["min"]):
            return False
    if "max" in bounds:
        if number > bounds["max"] or (bounds.get("max_exclusive") and number == bounds["max"]):
            return False
    return True


def _ratio_is_integer(numerator: Any, denominator: Any) -> bool:
    top, bottom = _number(numerator), _number(denominator)
    if top is None or bottom is None or bottom == 0 or not math.isfinite(top / bottom):
        return False
    return is_integer(top / bottom)


def _power_of_two_times(base: float, value: Any, _values: Values) -> bool:
    number = _number(value)
    if number is None or number <= 0 or not math.isfinite(number):
        return False
    return is_integer(math.log2(number / base))


def _length(expected: int, value: Any, _values: Values) -> bool:
    return isinstance(value, (list, str, dict)) and len(value) == expected


def _element(spec: Mapping[str, Any], value: Any, values: Values) -> bool:
    index = spec["index"]
    if not isinstance(value, list) or len(value) <= index:
        return False
    return holds(spec["check"], value[index], values)


_PARTS: Mapping[str, Callable[[Any, Any, Values], bool]] = {
    "equals": _equals,
    "not_equal": lambda expected, value, values: not _equals(expected, value, values),
    "one_of": lambda allowed, value, values: any(_equals(a, value, values) for a in allowed),
    "range": _range,
    "multiple_of": lambda step, value, _v: _ratio_is_integer(value, step),
    "divides": lambda whole, value, _v: _ratio_is_integer(whole, value),
    "power_of_two_times": _power_of_two_times,
    "integer": lambda _flag, value, _v: isinstance(value, int),
    "length": _length,
    "element": _element,
    "any_of": lambda options, value, values: any(holds(o, value, values) for o in options),
}


def describe(check: Mapping[str, Any]) -> str:
    """The expected value in words: ``0.0001 x 2^N (N integer)``, ``one of 'lars', 'sgd'``."""
    if "text" in check:
        return str(check["text"])
    parts = []
    for kind, expected in check.items():
        if kind == "only_when":
            continue
        parts.append(_describe_part(kind, expected))
    return " and ".join(parts)


def show(value: Any) -> str:
    """A logged value as a message shows it: ``3e-05``, ``'adam'``, ``[1, 2]``, ``null``."""
    value = _literal(value)
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def _describe_part(kind: str, expected: Any) -> str:
    if kind == "equals":
        return show(expected)
    if kind == "not_equal":
        return f"not {show(expected)}"
    if kind == "one_of":
        return "one of " + ", ".join(show(a) for a in expected)
    if kind == "range":
        bounds = []
        if "min" in expected:
            bounds.append(f"{'>' if expected.get('min_exclusive') else '>='} {expected['min']:g}")
        if "max" in expected:
            bounds.append(f"{'<' if expected.get('max_exclusive') else '<='} {expected['max']:g}")
        return " and ".join(bounds)
    if kind == "multiple_of":
        return f"a multiple of {expected:g}"
    if kind == "divides":
        return f"{expected:g}/k (k integer)"
    if kind == "power_of_two_times":
        return f"{expected:g} x 2^N (N integer)"
    if kind == "integer":
        return "an integer"
    if kind == "length":
        return f"a list of {expected} values"
    if kind == "element":
        return f"element {expected['index']} {describe(expected['check'])}"
    if kind == "any_of":
        return " or ".join(describe(o) for o in expected)
    return kind
