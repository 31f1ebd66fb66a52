"""Evaluations against a round's quality target: the first that reaches it (where a run's clock
stops), the best of them (what a run that did not converge is told), and how one is shown in a
finding. :mod:`mlcheck.rules.convergence` judges a run by them; the checker, ``mlcheck watch``
and the reports read them too."""

from __future__ import annotations

import math
import operator
from itertools import compress, repeat
from typing import Any, Iterator, Sequence

from mlcheck.facts.checks import show_repr
from mlcheck.facts.rulesets import Target
from mlcheck.model import Evaluation


def first_reaching(evals: tuple[Evaluation, ...], target: Target) -> Evaluation | None:
    """The first eval whose value reaches the target."""
    plain = target.plain
    if plain is not None:
        values = list(map(_VALUE, evals))
        if _plain_floats(values):  # (the common run: compared in C)
            (compare, value), *others = plain
            reached: Iterator[bool] = map(compare, values, repeat(value))
            for compare, value in others:
                reached = map(operator.and_, reached, map(compare, values, repeat(value)))
            return next(compress(evals, reached), None)
    return next((e for e in evals if target.reached_by(e.value)), None)


_VALUE = operator.attrgetter("value")
_FLOAT = frozenset({float})


def all_plain_floats(evals: tuple[Evaluation, ...]) -> bool:
    """Whether every eval's value is a finite float (each compares with a plain target, and none
    is worth a word)."""
    return _plain_floats(list(map(_VALUE, evals)))


def _plain_floats(values: list[Any]) -> bool:
    """Whether every value is a finite float (each compares with a plain target)."""
    return set(map(type, values)) <= _FLOAT and all(map(math.isfinite, values))


def best_eval(evals: tuple[Evaluation, ...], target: Target) -> Evaluation | None:
    """The eval closest to the target (highest, or lowest for error rates)."""
    comparable = [e for e in evals if target.reached_by(e.value) is not None and
                  isinstance(e.value, (int, float))]
    if not comparable:
        return None
    pick = min if target.lower_is_better else max
    return pick(comparable, key=lambda e: float(e.value))


def _count(number: float) -> str:
    """A count (samples, steps) with thousands separators; one beyond a float's whole numbers
    (above 1e15) in exponent form: 1e+30, not the float's 1,000,000,000,000,000,019,884,624,838,656."""
    return f"{number:,.0f}" if abs(number) < 1e15 else f"{number:.6g}"


def describe_eval(evaluation: Evaluation, position: str = "epoch_num", bounds: Sequence[float] = ()) -> str:
    """``0.7585 at epoch 38 (line 137)``; ``FID 85.3, CLIP 0.161 at step 1000 (line 90)``;
    ``position`` is the metadata the round positions the benchmark's evals by, shown first. A value
    that four digits would show as one of ``bounds`` (the target) is shown whole: 3.600001, not 3.6."""
    where = ""
    if position == "samples_count" and evaluation.samples_count is not None:
        where = f" at {_count(evaluation.samples_count)} samples"
    elif position == "step_num" and evaluation.step_num is not None:
        where = f" at step {_count(evaluation.step_num)}"
    elif evaluation.epoch_num is not None:
        epoch = evaluation.epoch_num  # BERT logs training samples here: show them readably
        where = f" at epoch {epoch:g}" if epoch < 10000 else f" at epoch_num {_count(epoch)}"
    elif evaluation.samples_count is not None:
        where = f" at {_count(evaluation.samples_count)} samples"
    elif evaluation.step_num is not None:
        where = f" at step {_count(evaluation.step_num)}"
    value = evaluation.value
    if isinstance(value, float):
        shown = f"{value:.4g}"
        if any(shown == f"{bound:.4g}" for bound in bounds):
            shown = repr(value)
    elif isinstance(value, dict):
        shown = ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {show_repr(v)}" for k, v in value.items()
                          if k not in ("step_num", "samples_count"))
    else:
        shown = show_repr(value)
    return f"{shown}{where} (line {evaluation.line})"


def records_named(target: Target) -> str:
    """What a target is judged on, as a finding names it (``eval_accuracy values``)."""
    return f"{target.aggregate.into} records" if target.aggregate else f"{target.metric} values"


def is_nan(value: object) -> bool:
    """Whether an eval's value is a NaN (a diverged model, most often)."""
    return isinstance(value, float) and math.isnan(value)


def below_one(value: object, target: Target) -> bool:
    """Whether an eval is below 1.0 as the open division's sanity bound asks (each field of a
    target of several)."""
    fields = [c.field for c in target.conditions if c.field is not None]
    if fields:
        return isinstance(value, dict) and all(_numberbelow_one(value.get(f)) for f in set(fields))
    return _numberbelow_one(value)


def _numberbelow_one(value: object) -> bool:
    """``v['value'] < 1.0`` as the checker's Python computes it: ``false`` is 0, so below (a
    review of session 51); a NaN is not."""
    return isinstance(value, (int, float)) and value < 1.0


def target_bounds(target: Target) -> list[float]:
    """The values a target compares with (an eval shown beside them is shown whole)."""
    return [float(c.value) for c in target.conditions]
