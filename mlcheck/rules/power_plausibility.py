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
from typing import Sequence

from mlcheck.model import Event, Finding, Severity
from mlcheck.rule import Rule
from mlcheck.rules.power_window import window_problems
from mlcheck.rules.clock_values import shown_name

POWER_LOG_IMPLAUSIBLE = Rule("MLC545", "power-log-implausible", Severity.WARNING,
                             "a node power log's readings or window are unlikely for its run")
RULES = (POWER_LOG_IMPLAUSIBLE,)

LOW_WATTS = 20.0
"""Below the idle draw of any training node: a mean this low is kilowatts logged as watts."""
HIGH_WATTS = 100_000.0
"""Above the draw of any one node: a mean this high is milliwatts."""


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
        problems.append((earlier.line, f"the records are not in time order ({shown_name(earlier.key)} here is earlier than the "
                         "record before it): the summarizer sorts them by time, so a reading logged after "
                         "power_measurement_stop at the same time is not counted. Log them as they are measured"))
    for repeated, kept, effect in ((starts, "from the first", "by the window from the last: the energy comes out high"),
                                   (stops, "up to the first", "by the window up to the last: the energy comes out low")):
        if not _at_one_time(repeated):  # (copies at one time change nothing)
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
    timed = sorted((e for e in events if e.key == "power_reading"), key=lambda e: e.time_ms)
    if starts and _at_one_time(starts) and _at_one_time(stops) and (stops or timed):
        # (one window: from the start to the stop, or to the last reading where no stop is logged, as the summarizer)
        problems.extend(window_problems(starts[-1], stops[-1] if stops else timed[-1], run_start_ms, duration_ms,
                                        [e.time_ms for e in timed], bool(stops)))
    return [POWER_LOG_IMPLAUSIBLE.at(path, line, what) for line, what in problems]


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


def _at_one_time(records: Sequence[Event]) -> bool:
    """Whether the records (none, one, or copies) are logged at one time."""
    return len({e.time_ms for e in records}) <= 1


def _watts(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)
