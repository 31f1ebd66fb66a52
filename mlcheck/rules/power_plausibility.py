"""Power logs that the round's summarizer scores but whose numbers are unlikely (family MLC5xx).

Rules text: power_measurement.adoc (one measurement of each node, from "just before a run starts"
to "just afterwards", that "must include all timed operations"). The power checker
(``package_checker/power_checker.py``) reads file names only and the result summarizer
(``result_summarizer.py``, ``_compute_power_node``) multiplies whatever readings and window it
finds, so only mlcheck says this, as warnings.

- MLC545 power-log-implausible (warning): a node log whose readings or measurement window are
  unlikely for the run it measures: readings below 0 W; readings whose mean, in the measurement
  window, is below 0 W (a negative energy), below 20 W per node (``LOW_WATTS``) (kilowatts logged
  as watts: the energy comes out a thousand times low) or above 100,000 W (``HIGH_WATTS``:
  milliwatts); a ``conversion_eff`` that is no factor between 0 and 1 (94 for 94 %: the energy 94
  times high); ``power_measurement_start`` or ``_stop`` logged more than once (the summarizer adds
  the readings from the first start up to the first stop and divides by the window from the last
  start to the last stop: the energy is wrong); a window that covers less than half of the run
  (the summarizer scales the energy of the window to the run's time-to-train, so the score
  extrapolates what was not measured); a window that begins at no date in milliseconds (seconds
  logged), or more than a day from the run's ``run_start`` (the log of another run), or that
  overlaps less than half of the run from ``run_start`` to ``run_stop`` (the power analyzer's
  clock not set, or another run's log: the energy of another time is scored), or that begins
  after ``run_start`` or ends before ``run_stop`` by more than 10 s (or two readings' interval);
  a ``power_measurement_stop`` before the start (0 J); a node log that is byte for byte another
  of its run (one node's log copied: counted twice); records out of time order (sorted by the
  summarizer); runs whose node logs are not one per node of the system description's
  ``number_of_nodes``. Each at the line of the record it is about. Fix: log watts, and measure
  from before the run's start to after its stop, with the power logging example of mlperf-logging.
"""

from __future__ import annotations

import math
import os
import statistics
from typing import Sequence

from mlcheck.model import Event, Finding, Severity
from mlcheck.rule import Rule

POWER_LOG_IMPLAUSIBLE = Rule("MLC545", "power-log-implausible", Severity.WARNING,
                             "a node power log's readings or window are unlikely for its run")
RULES = (POWER_LOG_IMPLAUSIBLE,)

LOW_WATTS = 20.0
"""Below the idle draw of any training node: a mean this low is kilowatts logged as watts."""
HIGH_WATTS = 100_000.0
"""Above the draw of any one node: a mean this high is milliwatts."""
_DAY_MS = 86_400_000.0
_PLAUSIBLE_MS = (1.42e12, 4.1e12)
"""Milliseconds of 2015 to 2100 (as MLC405 reads a record's time)."""
_SLACK_MS = 10_000.0
"""How much of the run a window may leave out at either end (or two readings' interval, if more):
the clocks of the power analyzer and of the node (published windows begin up to 1.4 s late)."""


def implausible_node_log(path: str, events: Sequence[Event], run_start_ms: float | None,
                         duration_ms: float) -> list[Finding]:
    """MLC545 findings of one node log of a run (``events`` in log order)."""
    starts = sorted((e for e in events if e.key == "power_measurement_start"), key=lambda e: e.time_ms)
    stops = sorted((e for e in events if e.key == "power_measurement_stop"), key=lambda e: e.time_ms)
    # (the summarizer, its records sorted by time: readings from the first start up to the first
    # stop, divided by the window from the last start to the last stop)
    first, until = (starts[0].time_ms if starts else None), (stops[0].time_ms if stops else None)
    readings = [(e.line, watts) for e in events if e.key == "power_reading"
                and (first is None or e.time_ms >= first) and (until is None or e.time_ms <= until)
                for watts in (_watts(e.value),) if watts is not None]
    problems: list[tuple[int | None, str]] = []
    earlier = next((b for a, b in zip(events, events[1:]) if b.time_ms < a.time_ms), None)
    if earlier is not None:  # (the summarizer sorts the records by time; a reading at the stop's time after it is lost)
        problems.append((earlier.line, f"the records are not in time order ({earlier.key} here is earlier than the "
                         "record before it): the summarizer sorts them by time, so a reading logged after "
                         "power_measurement_stop at the same time is not counted. Log them as they are measured"))
    for repeated, kept, effect in ((starts, "from the first", "by the window from the last: the energy comes out high"),
                                   (stops, "up to the first", "by the window up to the last: the energy comes out low")):
        if len(repeated) > 1:
            problems.append((repeated[1].line, (
                f"{repeated[0].key} is logged {len(repeated)} times (lines "
                f"{', '.join(str(e.line) for e in repeated[:4])}{', ...' if len(repeated) > 4 else ''}): the summarizer "
                f"adds the readings {kept} and divides {effect}. Measure once, from before run_start to after "
                "run_stop (power_measurement.adoc)")))
    negative = [line for line, value in readings if value < 0]
    if negative:
        problems.append((negative[0], f"{len(negative)} power_reading value(s) below 0 W"))
    if readings:
        mean = sum(value for _, value in readings) / len(readings)
        if mean < LOW_WATTS or mean > HIGH_WATTS:
            unit = ("a negative power: the energy score comes out negative" if mean < 0 else
                    "kilowatts logged as watts? (the energy score takes them as watts)" if mean < LOW_WATTS else
                    "milliwatts logged as watts? (the energy score takes them as watts)")
            problems.append((readings[0][0], f"the readings average {mean:,.3g} W for a node: {unit}"))
    efficiency = [(e.line, value) for e in events if e.key == "conversion_eff"
                  for value in (_watts(e.value),) if value is not None and not 0 < value <= 1]
    if efficiency:  # (a factor: 94 for 94 %, the energy 94 times high)
        problems.append((efficiency[0][0], f"conversion_eff is {efficiency[0][1]:g}, no efficiency between 0 and 1 "
                         "(a percentage?): the summarizer multiplies the energy by it"))
    if starts and stops and len(starts) == len(stops) == 1:  # (else the window is not one: said above)
        times = sorted(e.time_ms for e in events if e.key == "power_reading")
        step = statistics.median(b - a for a, b in zip(times, times[1:])) if len(times) > 1 else 0.0
        problems.extend(_window_problems(starts[-1], stops[-1], run_start_ms, duration_ms, step))
    elif starts and not stops and not _PLAUSIBLE_MS[0] <= starts[-1].time_ms <= _PLAUSIBLE_MS[1]:
        problems.append((starts[-1].line, f"the measurement begins at time {starts[-1].time_ms:g}, no date in "
                         "milliseconds (seconds logged?)"))
    return [POWER_LOG_IMPLAUSIBLE.at(path, line, what) for line, what in problems]


def _window_problems(begin: Event, end: Event, run_start_ms: float | None, duration_ms: float,
                     step_ms: float) -> list[tuple[int | None, str]]:
    """What is unlikely in the measurement window (``begin`` and ``end``: the start and stop the
    summarizer's window has) against the run's, at the line of the record that says it
    (``step_ms``: the readings' median interval)."""
    start, stop = begin.time_ms, end.time_ms
    if stop < start:
        return [(end.line, f"power_measurement_stop is {(start - stop) / 1000:,.0f} s before "
                 "power_measurement_start: no reading lies in the window, and the summarizer counts 0 J for "
                 "this log (mlcheck too, as it does)")]
    if duration_ms > 0 and stop - start < duration_ms / 2:
        return [(begin.line, f"the measurement window lasts {(stop - start) / 1000:,.0f} s, "
                 f"{100 * (stop - start) / duration_ms:.0f}% of the run's {duration_ms / 1000:,.0f} s: "
                 "the summarizer scales it to the run's time, so most of the energy is extrapolated")]
    if not _PLAUSIBLE_MS[0] <= start <= _PLAUSIBLE_MS[1]:
        return [(begin.line, f"the measurement begins at time {start:g}, no date in milliseconds (seconds logged?)")]
    if run_start_ms is None or duration_ms <= 0:
        return []
    if abs(start - run_start_ms) > _DAY_MS:
        return [(begin.line, f"the measurement begins {abs(start - run_start_ms) / 3_600_000:,.0f} hours "
                 f"{'before' if start < run_start_ms else 'after'} the run's run_start: the log of another run?")]
    overlap = max(0.0, min(stop, run_start_ms + duration_ms) - max(start, run_start_ms))
    where = f"it begins {_offset(start - run_start_ms)} run_start, ends {_offset(stop - run_start_ms - duration_ms)} run_stop"
    if overlap < duration_ms / 2:
        return [(begin.line, f"the measurement window covers {100 * overlap / duration_ms:.0f}% of the run ({where}): "
                 "the energy of another time is scored; is the power analyzer's clock set, or is it the log of "
                 "another run?")]
    slack = max(_SLACK_MS, 2 * step_ms)
    if start - run_start_ms > slack or run_start_ms + duration_ms - stop > slack:
        return [(begin.line if start - run_start_ms > slack else end.line, (
            f"the measurement window leaves out {100 * (1 - overlap / duration_ms):.0f}% of the run ({where}): "
            "power_measurement.adoc asks that the measurement include all timed operations, from before run_start "
            "to after run_stop; the summarizer scales the window's mean power to the run's time"))]
    return []


def twin_logs(twins: Sequence[tuple[str, str]]) -> list[Finding]:
    """MLC545 at each node log of a run that is byte for byte an earlier one of the run (``twins``:
    (log, the earlier one), :func:`mlcheck.package.power_paths.twin_node_logs`): the same node's log
    copied, which the summarizer counts once per copy."""
    return [POWER_LOG_IMPLAUSIBLE.at(path, None, (
        f"this node log is byte for byte {os.path.basename(twin)}: one node's log copied? The summarizer "
        "adds the energy of each node log, so a copy counts that node twice (power_measurement.adoc: "
        "measure all nodes, each once)")) for path, twin in twins]


def nodes_not_measured(power_path: str, node_logs: dict[str, int], nodes: int, system_path: str) -> list[Finding]:
    """MLC545 at the power folder where a run's node logs (``node_logs``: result name -> count) are
    not one per node of the system description (``nodes``): power_measurement.adoc, "All nodes
    participating in the performance runs must be measured"."""
    other = {name: count for name, count in sorted(node_logs.items()) if count != nodes}
    if not other:
        return []
    listed = ", ".join(f"{name} {count}" for name, count in list(other.items())[:5]) + (", ..." if len(other) > 5 else "")
    return [POWER_LOG_IMPLAUSIBLE.at(power_path, None, (
        f"{len(other)} run(s) hold another number of node logs than the {nodes} node(s) of {system_path} "
        f"(number_of_nodes): {listed}; power_measurement.adoc asks that all nodes of the run be measured, each "
        "once, and the summarizer adds the node logs it finds"))]


def _offset(ms: float) -> str:
    """``12 min after`` / ``3 s before`` (the window's end against the run's)."""
    size = abs(ms) / 1000
    amount = f"{size / 60:,.0f} min" if size >= 120 else f"{size:,.0f} s"
    return f"{amount} {'after' if ms >= 0 else 'before'}"


def _watts(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)
