"""Values derived from other keys, as data: the formulas of the later rounds' checkers.

From training 3.0 the official checker stores values in its state (``POST: s['global_batch_size']
= v['value']``) and later CHECKs compute with them: Llama 3.1 405B's learning rate from the
global batch size (``v * 1152 == s['global_batch_size'] * 8e-5``), decay steps from warmup steps
(``v == 1_200_000 - s['opt_learning_rate_warmup_steps']``), DeepSeek-V3's learning rate within a
tolerance (``abs(v - 2.4e-05 * (s['global_batch_size'] / 16384) ** 0.5) < 1e-9``). mlcheck writes
the same arithmetic as a tree of operands and operators, never as Python text:

- an operand is a number, ``{"this": "value"}`` (the checked record's value), ``{"this":
  "metadata.samples_count"}`` (one of its metadata fields) or ``{"state": "global_batch_size"}``
  (a value the checker's state holds when the record is read: see :class:`StateDef`);
- an operation is ``{"op": NAME, "args": [operand, ...]}`` with ``add``, ``sub``, ``mul``,
  ``div``, ``pow``, ``mod`` (Python's ``%``), ``max`` (two operands) or ``ceil``, ``floor``, ``sqrt``, ``log2``, ``abs``, ``int``,
  ``neg`` (one), computed with Python's own arithmetic (``int`` stays ``int`` where Python keeps
  it), so exact comparisons agree with the checker's to the last bit;
- a formula compares two operands: ``{"left": ..., "cmp": "==", "right": ...}``, or with
  ``"tolerance": 1e-9`` the checker's ``abs(left - right) < tolerance``.

A state the record needs but the log has not set yet (the key that sets it comes later, or not at
all) makes the formula unanswerable: the checker's ``eval`` raises and it fails the record.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Callable, Iterator, Mapping

from mlcheck.records import dataclass, field

_BINARY: Mapping[str, Callable[[Any, Any], Any]] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "pow": operator.pow, "mod": operator.mod, "max": max,
}
_UNARY: Mapping[str, Callable[[Any], Any]] = {
    "ceil": math.ceil, "floor": math.floor, "sqrt": math.sqrt, "log2": math.log2, "abs": abs, "int": int,
    "neg": operator.neg,
}
_COMPARE: Mapping[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge,
}
_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "^", "mod": "%"}


class StateUnset(LookupError):
    """A formula reads a state the log has not set before the record (``name``)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class FormulaError(ValueError):
    """The arithmetic cannot be done on the logged values (a string, a division by zero, ...)."""


@dataclass(frozen=True)
class Scope:
    """What a formula may read: the checked record and the states set before it."""

    value: Any
    metadata: Mapping[str, Any] = field(default_factory=dict)
    states: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StateDef:
    """A value the checker keeps in its state: set to ``value`` (an expression, usually
    ``{"this": "value"}``) every time ``set_by`` is logged (its ``POST`` code)."""

    name: str
    set_by: str
    value: Any
    source: str


def _number(value: Any) -> Any:
    """A logged value the arithmetic takes: a number, or a boolean, which Python's arithmetic (the
    checker's ``eval``) reads as 1 or 0 (``1_200_000 - True``)."""
    if not isinstance(value, (int, float)):
        raise FormulaError(f"{value!r} is not a number")
    return value


def _as_is(value: Any) -> Any:
    return value


def evaluate(expr: Any, scope: Scope, as_logged: bool = False) -> Any:
    """The value of an operand or operation; raises :class:`StateUnset` or :class:`FormulaError`.
    ``as_logged``: an operand's value as logged, not held to be a number (the argument of
    ``int``, which Python's ``int()`` reads from a string of digits too: ``int("704512")``)."""
    if isinstance(expr, bool) or expr is None:
        raise FormulaError(f"{expr!r} is not an operand")
    if isinstance(expr, (int, float)):
        return expr
    logged: Callable[[Any], Any] = _as_is if as_logged else _number
    if "this" in expr:
        where = expr["this"]
        if where == "value":
            return logged(scope.value)
        name = where.removeprefix("metadata.")
        if name not in scope.metadata:
            raise FormulaError(f"no {name} in the metadata")
        return logged(scope.metadata[name])
    if "state" in expr:
        if expr["state"] not in scope.states:
            raise StateUnset(expr["state"])
        return logged(scope.states[expr["state"]])
    args = [evaluate(a, scope, as_logged=expr["op"] == "int") for a in expr["args"]]
    try:
        if expr["op"] in _BINARY:
            result = _BINARY[expr["op"]](args[0], args[1])
        else:
            result = _UNARY[expr["op"]](args[0])
    except (ArithmeticError, ValueError, TypeError) as error:
        if expr["op"] == "int" and isinstance(args[0], str):  # (not Python's "invalid literal for int() ...")
            raise FormulaError(f"int({args[0]!r}) fails: the checker's int() reads a whole number or digits alone") from None
        raise FormulaError(str(error)) from None
    if isinstance(result, complex):
        raise FormulaError("the result is not a real number")
    return result


def formula_holds(spec: Mapping[str, Any], scope: Scope) -> bool:
    """Whether the comparison holds; raises :class:`StateUnset` when a state it reads is not set.
    Arithmetic on values that are not numbers never holds (the checker's ``eval`` fails)."""
    try:
        left, right = evaluate(spec["left"], scope), evaluate(spec["right"], scope)
        if "tolerance" in spec:
            return bool(abs(left - right) < spec["tolerance"])
        return bool(_COMPARE[spec["cmp"]](left, right))
    except FormulaError:
        return False


def is_number_text(value: str) -> bool:
    """Whether Python's ``float()`` reads ``value`` (``"0.1"``, ``" 1e3 "``, ``"nan"``)."""
    try:
        float(value)
    except ValueError:
        return False
    return True


def formula_reads_value(expr: Any) -> bool:
    """Whether an expression or formula reads the checked record's value (``{"this": "value"}``)."""
    return any(node.get("this") == "value" for node in _nodes(expr))


def _nodes(expr: Any) -> Iterator[Mapping[str, Any]]:
    """The operands and operations of an expression or formula, itself first."""
    if isinstance(expr, Mapping):
        yield expr
        for part in (expr.get("left"), expr.get("right"), *expr.get("args", ())):
            yield from _nodes(part)


def states_read(expr: Any) -> list[str]:
    """The states an expression or formula reads, in order of appearance."""
    if not isinstance(expr, Mapping):
        return []
    if "state" in expr:
        return [expr["state"]]
    found: list[str] = []
    for part in (expr.get("left"), expr.get("right"), *expr.get("args", ())):
        found += [name for name in states_read(part) if name not in found]
    return found


def render(expr: Any, top: bool = True) -> str:
    """An expression in words: ``ceil(1200000 * 1152 / global_batch_size)``."""
    if isinstance(expr, (int, float)) and not isinstance(expr, bool):
        return f"{expr:,}" if isinstance(expr, int) and abs(expr) >= 10_000 else repr(expr)
    if not isinstance(expr, Mapping):
        return repr(expr)
    if "this" in expr:
        return "the value" if expr["this"] == "value" else expr["this"].removeprefix("metadata.")
    if "state" in expr:
        return str(expr["state"])
    op, args = expr["op"], expr["args"]
    if op in _SYMBOL:
        text = f"{render(args[0], False)} {_SYMBOL[op]} {render(args[1], False)}"
        return text if top else f"({text})"
    if op == "neg":
        return f"-{render(args[0], False)}"
    return f"{op}({', '.join(render(a) for a in args)})"


def render_formula(spec: Mapping[str, Any]) -> str:
    """A formula in words: ``|the value - 2.4e-05 * (global_batch_size / 16384) ^ 0.5| < 1e-09``."""
    left, right = render(spec["left"]), render(spec["right"])
    if "tolerance" in spec:
        return f"|{left} - ({right})| < {spec['tolerance']:g}"
    return f"{left} {spec['cmp']} {right}"


def sides(spec: Mapping[str, Any], scope: Scope, given: str = "") -> str:
    """The computed sides of a formula for a message: ``the formula gives 0.09216, the value is
    0.1152`` (its left side a logged value: the value or a metadata field), ``the value * 1152 is
    0.18432 and global_batch_size * 8e-05 is 0.09216`` (both sides computed), after ``with
    <given>`` (what they were computed with), or why they cannot be computed."""
    values = []
    for part in (spec["left"], spec["right"]):
        try:
            values.append(evaluate(part, scope))
        except (FormulaError, StateUnset) as error:
            return f"the formula cannot be computed: {error}"
    near = _near_miss(*values) if spec.get("cmp") == "==" and "tolerance" not in spec else ""
    left, right = map(repr, values)
    given = f"with {given} " if given else ""
    if not states_read(spec["left"]) and not isinstance(spec["left"], (int, float)) and \
            not any(node.get("op") in _SYMBOL for node in _nodes(spec["left"])):  # (a logged value, or int() of it)
        return f"{given}the formula gives {right}, {render(spec['left'])} is {left}{near}"
    return f"{given}{render(spec['left'])} is {left} and {render(spec['right'])} is {right}{near}"



def _near_miss(left: Any, right: Any) -> str:
    """What to say of an exact comparison that misses by less than 0.1 %: a value rounded as the
    rules text writes it (6.0 Llama 3.1 405B's learning rate "rounded to the 8th decimal"), which
    the checker of record's ``==`` refuses."""
    try:
        left, right = float(left), float(right)
    except (TypeError, ValueError, OverflowError):
        return ""
    if not (math.isfinite(left) and math.isfinite(right)) or left == right or abs(left - right) > 1e-3 * abs(right):
        return ""
    return (f" (apart by {abs(left - right) / abs(right):.1e} of it: the checker of record compares exactly, so a "
            "rounded value fails; log the value the formula gives, unrounded)")
