"""How MLC405 (:mod:`mlcheck.rules.timing`) reads and shows a record's ``time_ms``: as logged,
the unit it would be a date in, and whether a run's times all lie in a range (found in C)."""

from __future__ import annotations

from mlcheck.model import PLAUSIBLE_MS
from mlcheck.read.official_view import shown_name as shown_name  # (re-exported: a key as a message names it)


def shown_time(value: float) -> str:
    """A time as logged: ``1700000000`` (not ``1.7e+09``), a fraction or a huge value as Python
    writes it."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e18:
        return str(int(value))
    return repr(value)


def unit_hint(value: float) -> str:
    """`` (a date in seconds: ...)`` where the value is a plausible date in another unit."""
    low, high = PLAUSIBLE_MS
    for unit, factor in (("seconds", 1000.0), ("microseconds", 1e-3), ("nanoseconds", 1e-6)):
        if low <= value * factor < high:
            return f" (it is a date in {unit})"
    return ""


def within(times: list[float], low: float, high: float) -> bool:
    """``low <= min(times) and max(times) < high`` over the times that are not NaN (MLC007 says
    those; ``min`` would keep a NaN met first and skip one met later): the times sorted (in C, with
    float compares; a log's times are nearly in order), which leaves the least first and the
    greatest last."""
    try:
        total = sum(times)
    except Exception:  # noqa: BLE001 - min and max meet the same values below
        total = None
    if total is not None and total != total:  # (a NaN among them, or infinities of both signs)
        times = [time for time in times if time == time]
        if not times:
            return True
    elif total is None:  # (values that are not numbers: as they come)
        return low <= min(times) and max(times) < high
    times.sort()
    return low <= times[0] and times[-1] < high
