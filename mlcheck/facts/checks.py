"""The interpreter of a constraint's check (``equals``, ``one_of``, ``range``, ``multiple_of``,
``power_of_two_times``, ``formula``, ...): whether a logged value satisfies it, and its wording.

Nothing is evaluated. Arithmetic follows the official checker (``is_integer``: within 1e-5 of an
integer) so verdicts agree. Split from :mod:`mlcheck.facts.constraints`, which loads the data.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable, Mapping

from mlcheck.facts.formulas import Scope, formula_holds, render_formula

Values = Callable[[str], Any]
"""Looks up the first value a run logs for a key (used by ``only_when`` conditions)."""



def is_integer(value: float) -> bool:
    """As the official checker: within 1e-5 of an integer. Infinity (a ratio or a logarithm of
    a value near a float's limit) and NaN are not integers (``round`` would raise)."""
    return math.isfinite(value) and abs(round(value) - value) < 0.00001


def _literal(value: Any) -> Any:
    # (a number or a string is never a Mapping: typing's isinstance test is slow, this runs per value)
    if not isinstance(value, (int, float, str)) and isinstance(value, Mapping) and "float" in value:
        return float(value["float"])
    return value


def _number(value: Any) -> float | None:
    """A value a numeric part compares, as the official checker's Python does: a number, or a
    boolean as the integer it is (``true > 0`` holds there: logged ``true`` passes ``> 0``)."""
    if not isinstance(value, (int, float)):
        return None
    return float(value)


def holds(check: Mapping[str, Any], value: Any, values: Values, scope: Scope | None = None) -> bool:
    """Whether ``value`` satisfies every part of ``check`` (a boolean is compared as the integer it
    is, as by the official checker's Python; another value that is not a number never satisfies a numeric
    part). A ``formula`` part reads ``scope`` (the record and the states set before it) and raises
    :class:`~mlcheck.facts.formulas.StateUnset` when a state it needs is not set yet."""
    condition = check.get("only_when")
    if condition is not None and not holds(condition["check"], values(condition["key"]), values):
        return False
    for kind, expected in check.items():
        if kind in ("only_when", "text"):
            continue
        if kind == "formula":
            if not formula_holds(expected, scope if scope is not None else Scope(value)):
                return False
        elif kind == "any_of":  # (Python's ``or``: in order, the first that holds ends it; one that raises fails it)
            for option in expected:
                if _raises(option, value, values):
                    return False
                if holds(option, value, values, scope):
                    break
            else:
                return False
        elif kind == "all_of":
            if not all(holds(o, value, values, scope) for o in expected):
                return False
        elif not _PARTS[kind](expected, value, values):
            return False
    return True


def value_test(check: Mapping[str, Any]) -> Callable[[Any], bool] | None:
    """A function of a value that is :func:`holds` of ``check`` for it, whatever the run's values
    (it returns, and raises, as :func:`holds` does), for a check made only of parts that read
    neither the run's other values nor a formula's states (``range``, ``equals``, ``one_of``, ...);
    else None. Built once per check, it spares a loop over the check's parts for every record."""
    parts = []
    for kind, expected in check.items():
        if kind == "text":
            continue
        if kind not in _PARTS or kind == "element":  # (only_when, formula, any_of, all_of, element)
            return None
        parts.append((_PARTS[kind], expected))
    if len(parts) == 1:
        part, expected = parts[0]
        if part is _PARTS["one_of"] and all(type(a) is str for a in expected):
            return _one_of_strings(frozenset(expected), expected)
        if part is _range and set(expected) <= {"min", "max", "min_exclusive", "max_exclusive"}:
            return _range_test(expected)
        return lambda value: part(expected, value, _no_values)
    return lambda value: all(part(expected, value, _no_values) for part, expected in parts)


def _one_of_strings(allowed: frozenset[str], listed: Any) -> Callable[[Any], bool]:
    """``one_of`` a list of strings: a string is looked up (another value is compared with each)."""
    one_of = _PARTS["one_of"]
    return lambda value: value in allowed if type(value) is str else one_of(listed, value, _no_values)


def _range_test(bounds: Mapping[str, Any]) -> Callable[[Any], bool]:
    """:func:`_range` of ``bounds`` with its bounds read once; an int or a float is compared here
    (as a float, as there), another value there."""
    has_min, has_max = "min" in bounds, "max" in bounds
    low: Any = bounds.get("min")
    high: Any = bounds.get("max")
    low_open, high_open = bool(bounds.get("min_exclusive")), bool(bounds.get("max_exclusive"))

    def test(value: Any) -> bool:
        kind = type(value)
        if kind is not float and kind is not int:
            return _range(bounds, value, _no_values)
        number = float(value)
        if number != number:
            return False
        if has_min and (number < low or (low_open and number == low)):
            return False
        if has_max and (number > high or (high_open and number == high)):
            return False
        return True
    return test


def _no_values(key: str) -> Any:
    raise AssertionError(f"value_test checks do not read other values ({key})")  # pragma: no cover


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


def _ratio(numerator: Any, denominator: Any) -> float | None:
    """``numerator / denominator`` as the checker's Python computes it; None where it raises there
    (a value not a number, a zero divisor) or where ``round`` of it would (not a finite number)."""
    top, bottom = _number(numerator), _number(denominator)
    if top is None or bottom is None or bottom == 0 or not math.isfinite(top / bottom):
        return None
    return top / bottom


def _ratio_is_integer(numerator: Any, denominator: Any) -> bool:
    ratio = _ratio(numerator, denominator)
    return ratio is not None and is_integer(ratio)


def _raises(check: Mapping[str, Any], value: Any, values: Values) -> bool:
    """Whether the official checker's Python raises evaluating an alternative of an ``or``, which
    fails the whole check (2.0-3.1 closed Mask R-CNN: ``is_integer(v / 0.02) or (...)``, with a
    learning rate of 1e307 or infinity: ``round(inf)`` raises before the ``or`` goes on): a ratio
    that is not a finite number (a value not a number, a zero divisor), once its ``only_when``
    holds."""
    condition = check.get("only_when")
    if condition is not None and not holds(condition["check"], values(condition["key"]), values):
        return False
    return ("multiple_of" in check and _ratio(value, check["multiple_of"]) is None) or (
        "divides" in check and _ratio(check["divides"], value) is None)


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
    "whole_number": lambda _flag, value, _v: (_number(value) is not None and math.isfinite(float(value))
                                               and is_integer(float(value))),
    "has_fields": lambda fields, value, _v: isinstance(value, Mapping) and all(f in value for f in fields),
}


def describe(check: Mapping[str, Any]) -> str:
    """The expected value in words: ``0.0001 x 2^N (N integer)``, ``one of 'lars', 'sgd'``."""
    if "text" in check:
        return str(check["text"])
    parts = []
    # (a formula names its own quantity, ``samples_count a multiple of ...``: next to one, the value is named too)
    named = "formula" in check or any("formula" in o for o in check.get("all_of", ()))
    for kind, expected in check.items():
        if kind == "only_when":
            continue
        part = _describe_part(kind, expected)
        parts.append(f"the value {part}" if named and kind not in ("formula", "all_of", "any_of") else part)
    return " and ".join(parts)


MAX_SHOWN = 200
"""The most characters of a logged value a message echoes (a 5 MB ``opt_name`` would make every
report line, annotation and table cell 5 MB): the rest is cut with an ellipsis, as the MLC003
snippet of a broken line is."""


def clipped(text: str, limit: int = MAX_SHOWN) -> str:
    """``text``, or its first ``limit`` characters and ``…``."""
    return text if len(text) <= limit else text[:limit] + "…"


def show(value: Any) -> str:
    """A logged value as a message shows it: ``3e-05``, ``'adam'``, ``[1, 2]``, ``null``; at most
    :data:`MAX_SHOWN` characters of it (``'aaaa…'``)."""
    value = _literal(value)
    if isinstance(value, str):
        return repr(clipped(value))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return clipped(repr(value))
    try:
        return clipped(json.dumps(value, sort_keys=True))
    except (TypeError, ValueError):
        return clipped(repr(value))


def show_repr(value: Any) -> str:
    """``repr(value)`` (``None``, ``'adam'``), at most :data:`MAX_SHOWN` characters of it."""
    return repr(clipped(value)) if isinstance(value, str) else clipped(repr(value))


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
    if kind == "all_of":  # (next to a formula, which names its own quantity, the value is named too)
        named = any("formula" in o for o in expected)
        return " and ".join(describe(o) if not named or "formula" in o or "text" in o else f"the value {describe(o)}"
                            for o in expected)
    if kind == "whole_number":
        return "a whole number"
    if kind == "has_fields":
        return "a record with " + ", ".join(expected)
    if kind == "formula":
        return render_formula(expected)
    return kind
