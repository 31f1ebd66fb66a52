"""Sums of floats added left to right, each addition rounded, as Python adds them up to 3.11.

Python 3.12's ``sum`` compensates the rounding of floats (Neumaier's summation), so the mean of
the same run times may differ in its last digit between Python versions, and with it a score
that a report prints in full (``32.69675624999999`` on 3.11, ``32.69675625`` on 3.12). mlcheck
supports Python 3.10 and later and gives the same bytes for the same input on each: every mean
that reaches a report or a verdict (scores, energies) is made here, but the RCP test's, which the
checker computes with numpy (:mod:`mlcheck.score.numpy_float`).
"""

from __future__ import annotations

from functools import reduce
from operator import add
from typing import Iterable


def sequential_sum(values: Iterable[float]) -> float:
    """``sum(values)`` as Python 3.10 and 3.11 compute it, on every version."""
    return reduce(add, values, 0)
