"""The energy score of a benchmark folder with a ``power/`` folder, as the round's result
summarizer computes it (``result_summarizer.py`` from 3.1: ``_compute_total_power``,
``_compute_power_node``, ``_compute_power_sw``, ``_index_olympic_average``).

Per run, in joules (watts x milliseconds / 1000), with ``T`` the run's time-to-train in ms:

- a node log, its records sorted by time (stable): the readings after ``power_measurement_start``
  and before ``power_measurement_stop`` summed as ``power_reading x (t - t_previous)``, times
  ``conversion_eff`` (default 1), times ``T / (stop - start)``; without a stop record the last
  reading's time is the stop (the summarizer warns);
- a switch log, in log order: ``conversion_eff`` (the last one before) x the first
  ``interconnect_power_est`` x ``T``.

The folder's energy is the mean over the runs the time score counts (the olympic set of the
performance ordering: the same runs dropped as fastest and slowest), times the same scaling
factor as the time score. Runs of equal time keep the order of their file names: the
summarizer keeps them in ``glob`` order, the directory's, which differs between file systems, so
where two runs tie at the edge of the counted set its energy may count the other one (no rule
orders ties; the time score is the same either way). Where the summarizer would raise (no node
log, no ``power_measurement_start``, a zero measurement window, a reading that is not a number) the run
has no energy and the folder's energy score is not valid. A reading of NaN or Infinity raises
nothing there: the run's energy is NaN or infinite, which the folder's energy is too where the
time score counts the run (no valid energy score), and which does not matter where it drops it.
"""

from __future__ import annotations

import math
from typing import Sequence

from mlcheck.records import dataclass
from mlcheck.model import EVENT_TIME_MS, Event
from mlcheck.score.float_sum import sequential_sum


@dataclass(frozen=True)
class LogEnergy:
    """The energy of one power log, or why it cannot be computed."""

    joules: float | None
    problem: str | None = None
    """Why the summarizer raises on this log (joules is then None)."""
    note: str | None = None
    """What the summarizer warns about (a missing stop record)."""
    readings: int = 0
    """The power readings the energy is made of (those of the measurement window)."""
    line: int | None = None
    """The line of the record the problem is about."""


def _multiplied(value: object) -> float | None:
    """A power reading, conversion efficiency or switch estimate as the summarizer multiplies it:
    a number, NaN and infinities too (they make the run's energy NaN or infinite, no exception),
    true and false as 1 and 0 (Python multiplies them so; review of session 41: a ``true``
    efficiency was said to make the summarizer raise). Anything else (a string, null) raises there."""
    if not isinstance(value, (int, float)):
        return None
    return float(value)


def node_energy(events: Sequence[Event], time_to_train_ms: float) -> LogEnergy:
    """A node log's energy as ``_compute_power_node`` computes it."""
    previous = last = start = stop = 0.0
    total, efficiency = 0.0, 1.0
    started = stopped = False
    readings = 0
    # (one test of the key per record, the readings' first: a node log is thousands of them)
    for event in sorted(events, key=EVENT_TIME_MS):
        key = event.key
        if key == "power_reading":
            if started and not stopped:
                watts = _multiplied(event.value)
                if watts is None:
                    return LogEnergy(None, f"line {event.line}: power_reading {event.value!r} is not a number", line=event.line)
                time_ms = event.time_ms
                total += watts * (time_ms - previous)
                previous = time_ms
                readings += 1
                last = max(last, time_ms)
        elif key == "power_measurement_start":
            start = previous = event.time_ms
            started = True
        elif key == "power_measurement_stop":
            stop, stopped = event.time_ms, True
        elif key == "conversion_eff":
            value = _multiplied(event.value)
            if value is None:
                return LogEnergy(None, f"line {event.line}: conversion_eff {event.value!r} is not a number", line=event.line)
            efficiency = value
    if not started:
        return LogEnergy(None, "no power_measurement_start record")
    note = None
    if not stopped:
        stop, note = last, "no power_measurement_stop record: the last reading ends the measurement"
    if stop == start:
        return LogEnergy(None, "the measurement window is empty (stop == start)")
    return LogEnergy(efficiency * total * time_to_train_ms / (stop - start) / 1000.0, None, note, readings)


def switch_energy(events: Sequence[Event], time_to_train_ms: float) -> LogEnergy:
    """A switch log's energy as ``_compute_power_sw`` computes it (0 without an estimate)."""
    efficiency, watts = 1.0, 0.0
    for event in events:
        value = _multiplied(event.value)
        if event.key == "conversion_eff":
            if value is None:
                return LogEnergy(None, f"line {event.line}: conversion_eff {event.value!r} is not a number", line=event.line)
            efficiency = value
        if event.key == "interconnect_power_est":
            if value is None:
                return LogEnergy(None, f"line {event.line}: interconnect_power_est {event.value!r} is not a number", line=event.line)
            watts = value
            break
    measured = sum(1 for event in events if event.key == "power_reading")
    note = None if watts else "no interconnect_power_est record: the switch counts 0 J" + (
        f" (its {measured} power_reading record(s) are not read: the summarizer scores a switch by its "
        "interconnect_power_est alone; log the estimate)" if measured else "")
    return LogEnergy(efficiency * watts * time_to_train_ms / 1000.0, None, note)


def olympic_energy(energies: Sequence[float | None], counted: Sequence[int],
                   scaling_factor: float | None, whose: str = "the time score") -> tuple[float | None, str]:
    """The folder's energy: the mean of the counted runs' energies (positions in ``energies``),
    scaled as the time score; None with the reason when a counted run has none. ``whose``: the
    time score that counts them, as the reason names it."""
    if not counted:
        return None, f"no run is counted by {whose}"
    missing = [i for i in counted if energies[i] is None]
    if missing:
        return None, f"{len(missing)} counted run{'s' if len(missing) > 1 else ''} without an energy"
    unreal = [i for i in counted if not math.isfinite(energies[i] or 0.0)]
    if unreal:
        return None, (f"{len(unreal)} counted run{'s' if len(unreal) > 1 else ''} whose energy is NaN or infinite "
                      "(a NaN or Infinity power reading): the summarizer's energy is no number either")
    values = [energies[i] for i in counted]
    mean = sequential_sum(v for v in values if v is not None) / len(values)
    factor = scaling_factor if scaling_factor is not None else 1.0
    scaled = f", scaled by {factor:g}" if scaling_factor is not None and factor != 1.0 else ""
    return mean * factor, (f"mean of the energy of the {len(values)} runs {whose} counts{scaled}" if len(values) != 1
                          else f"the energy of the one run {whose} counts{scaled}")
