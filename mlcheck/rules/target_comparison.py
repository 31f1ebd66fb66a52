"""How the round's checker compares an evaluation with the quality target (MLC304 asks it of each
value that is no plain number): its ``ATLEAST_ONE_CHECK`` on ``eval_accuracy`` (and on Stable
Diffusion's merged ``aggregated_eval_accuracy``) is evaluated for every such record outside any
``try`` (``mlp_compliance.py``'s ``check_loglines``, the same from 0.7 to 6.1), so a comparison that
raises ends the compliance checker, and the package checker and the result summarizer that call it
without a ``try`` stop with it (:mod:`mlcheck.judge.official_stops`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from mlcheck.facts.rulesets import Target

CHECKER_RAISES = "the official checker raises comparing it with the target"
"""What MLC304's message says of an evaluation the checker raises on (:func:`comparison_raises`):
:func:`mlcheck.judge.official_stops.stopping_files` reads a folder's stop from it."""


def comparison_raises(target: Target, value: object) -> bool:
    """Whether the checker's ``ATLEAST_ONE_CHECK`` raises on an evaluation ``value`` (and ends the
    checker, outside any ``try``): Python compares its conditions in order (a field's bounds, then the next field's:
    ``(0.0 <= v['value']['FID'] <= 90.0) and (0.15 <= v['value']['CLIP'] <= 1.0)``) and stops at
    the first that does not hold, so a value it never reaches is never compared (a null CLIP
    where FID is above 90). A missing field, or one that is not a number, raises; NaN compares
    false."""
    for condition in target.conditions:
        observed = value
        if condition.field is not None:
            if not isinstance(value, Mapping) or condition.field not in value:
                return True
            observed = value[condition.field]
        if not isinstance(observed, (int, float)):
            return True
        if not condition.holds(value):  # (None for NaN: it compares false)
            return False
    return False


def nan_compared(target: Target, value: object) -> str | None:
    """The field whose NaN the checker's conditions, compared in order, stop at (a NaN compares
    false), or None (they stop elsewhere first, or no field is NaN)."""
    for condition in target.conditions:
        if condition.field is None or not isinstance(value, Mapping):
            return None
        observed = value.get(condition.field)
        if isinstance(observed, float) and math.isnan(observed):
            return condition.field
        if condition.holds(value) is not True:
            return None
    return None


def fields_absent(target: Target, value: object) -> list[str]:
    """The fields of ``target`` that the round's ``CHECK: "'<field>' in v['value']"`` lines do not
    find in an evaluation ``value`` (every Mask R-CNN and Stable Diffusion eval must hold each;
    Python's ``in`` reads a string as text, a list as items, and raises on a number: none found)."""
    fields = list(dict.fromkeys(c.field for c in target.conditions if c.field is not None))
    if isinstance(value, (Mapping, str, list, tuple)):
        return [f for f in fields if f not in value]
    return fields
