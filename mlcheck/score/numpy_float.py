"""The float arithmetic of the RCP checker, which computes with numpy, reproduced to the last bit.

``numpy.mean`` and ``numpy.std`` add float64 values pairwise (eight running sums over blocks of
up to 128 values, halves above that), not left to right as Python's ``sum``; ``numpy.interp``
computes ``slope * (x - x0) + y0``. The RCP test compares a submission's mean with a bound made
from these and writes the normalisation factor into ``scaling.json``: with another order of
additions the factor (and the score it multiplies) may differ in its last digit, and a mean at
the bound may be judged the other way. No numpy here: it takes longer to import than a round's
RCP tests take with this (``tests/test_numpy_float.py`` holds the two to the same bits).
"""

from __future__ import annotations

import math
from typing import Sequence

_BLOCK = 128
"""numpy's ``PW_BLOCKSIZE``: up to this many values are added with eight running sums."""


def numpy_sum(values: Sequence[float]) -> float:
    """``numpy.sum`` of ``values`` as float64."""
    return _pairwise([float(value) for value in values], 0, len(values))


def _pairwise(values: list[float], start: int, count: int) -> float:
    if count < 8:
        total = -0.0
        for value in values[start:start + count]:
            total += value
        return total
    if count <= _BLOCK:
        sums = values[start:start + 8]
        end = start + count - count % 8
        for at in range(start + 8, end, 8):
            for lane in range(8):
                sums[lane] += values[at + lane]
        total = ((sums[0] + sums[1]) + (sums[2] + sums[3])) + ((sums[4] + sums[5]) + (sums[6] + sums[7]))
        for value in values[end:start + count]:
            total += value
        return total
    half = count // 2
    half -= half % 8
    return _pairwise(values, start, half) + _pairwise(values, start + half, count - half)


def numpy_mean(values: Sequence[float]) -> float:
    """``numpy.mean(values)`` (not empty)."""
    return numpy_sum(values) / len(values)


def numpy_std(values: Sequence[float]) -> float:
    """``numpy.std(values)``: the population standard deviation (ddof 0), in the values' order."""
    mean = numpy_mean(values)
    return math.sqrt(numpy_sum([(value - mean) * (value - mean) for value in values]) / len(values))


def numpy_interp(x: float, x0: float, x1: float, y0: float, y1: float) -> float:
    """``numpy.interp(x, [x0, x1], [y0, y1])`` for ``x0 <= x <= x1`` (``x0 < x1``)."""
    if x == x1 or x == x0:  # (numpy gives the point itself)
        return y1 if x == x1 else y0
    slope = (y1 - y0) / (x1 - x0)
    return slope * (x - x0) + y0
