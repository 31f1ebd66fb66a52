"""Means are the same on every supported Python: floats added left to right, as up to 3.11
(3.12's ``sum`` compensates the rounding, which changes the last digit of some scores)."""

from __future__ import annotations

from mlcheck.score.float_sum import sequential_sum


def test_floats_are_added_left_to_right_on_every_python() -> None:
    assert sequential_sum([0.1] * 10) == 0.9999999999999999  # (1.0 with 3.12's sum, and fsum's)
    assert sequential_sum([1e16, 1.0, -1e16]) == 0.0  # (1.0 with compensation)
    assert sequential_sum([]) == 0 and sequential_sum([3, 4]) == 7
    assert sequential_sum(x for x in (0.5, 0.25)) == 0.75

