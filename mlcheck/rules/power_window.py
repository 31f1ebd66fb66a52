"""The measurement window of a node power log against its run (a helper of MLC545,
:mod:`mlcheck.rules.power_plausibility`): the summarizer's window is the last
``power_measurement_start`` to the last ``power_measurement_stop`` (without one, the last reading),
whose mean power it scales to the run's time-to-train; power_measurement.adoc asks that the
measurement include all timed operations, from before ``run_start`` to after ``run_stop``."""

from __future__ import annotations

import statistics
from typing import Sequence

from mlcheck.model import Event

_DAY_MS = 86_400_000.0
_PLAUSIBLE_MS = (1.42e12, 4.1e12)
"""Milliseconds of 2015 to 2100 (as MLC405 reads a record's time)."""
SLACK_MS = 10_000.0
"""How much of the run a window may leave out at either end (or two readings' interval, if more):
the clocks of the power analyzer and of the node (published windows begin up to 1.4 s late)."""


def window_problems(begin: Event, end: Event, run_start_ms: float | None, duration_ms: float,
                    readings_ms: Sequence[float], stopped: bool = True) -> list[tuple[int | None, str]]:
    """What is unlikely in the window from ``begin`` to ``end`` (the stop, or the last reading where
    none is logged: ``stopped`` False) against the run's, each at the line of the record it is about
    (``readings_ms``: the readings' times, in order)."""
    start, stop = begin.time_ms, end.time_ms
    if not _PLAUSIBLE_MS[0] <= start <= _PLAUSIBLE_MS[1]:
        return [(begin.line, f"the measurement begins at time {start:g}, no date in milliseconds (seconds logged?)")]
    if stop < start:
        return [(end.line, f"power_measurement_stop is {(start - stop) / 1000:,.0f} s before "
                 "power_measurement_start: no reading lies in the window, and the summarizer counts 0 J for "
                 "this log (mlcheck too, as it does)")]
    step = statistics.median(b - a for a, b in zip(readings_ms, readings_ms[1:])) if len(readings_ms) > 1 else 0.0
    slack = max(SLACK_MS, 2 * step)
    inside = [t for t in readings_ms if start <= t <= stop]
    found: list[tuple[int | None, str]] = []
    if stopped and inside and stop - inside[-1] > slack:
        found.append((end.line, f"the readings end {_offset(inside[-1] - stop)} power_measurement_stop: the summarizer "
                      "adds them up to the last and divides by the window up to the stop, so the energy comes out low"))
    if duration_ms > 0 and stop - start < duration_ms / 2:
        return found + [(begin.line, f"the measurement window lasts {(stop - start) / 1000:,.0f} s, "
                         f"{100 * (stop - start) / duration_ms:.0f}% of the run's {duration_ms / 1000:,.0f} s: "
                         "the summarizer scales it to the run's time, so most of the energy is extrapolated")]
    if run_start_ms is None or duration_ms <= 0:
        return found
    if abs(start - run_start_ms) > _DAY_MS:
        return found + [(begin.line, f"the measurement begins {abs(start - run_start_ms) / 3_600_000:,.0f} hours "
                         f"{'before' if start < run_start_ms else 'after'} the run's run_start: the log of another run?")]
    overlap = max(0.0, min(stop, run_start_ms + duration_ms) - max(start, run_start_ms))
    where = f"it begins {_offset(start - run_start_ms)} run_start, ends {_offset(stop - run_start_ms - duration_ms)} run_stop"
    if overlap < duration_ms / 2:
        return found + [(begin.line, f"the measurement window covers {100 * overlap / duration_ms:.0f}% of the run "
                         f"({where}): the energy of another time is scored; is the power analyzer's clock set, or is "
                         "it the log of another run?")]
    if start - run_start_ms > slack or run_start_ms + duration_ms - stop > slack:
        found.append((begin.line if start - run_start_ms > slack else end.line, (
            f"the measurement window leaves out {100 * (1 - overlap / duration_ms):.0f}% of the run ({where}): "
            "power_measurement.adoc asks that the measurement include all timed operations, from before run_start "
            "to after run_stop; the summarizer scales the window's mean power to the run's time")))
    return found


def _offset(ms: float) -> str:
    """``12 min after`` / ``10.4 s before`` (a time against another)."""
    size = abs(ms) / 1000
    amount = f"{size / 60:,.0f} min" if size >= 120 else f"{size:.1f} s" if size < 100 else f"{size:,.0f} s"
    return f"{amount} {'after' if ms >= 0 else 'before'}"
