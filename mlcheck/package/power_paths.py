"""Power logs by their place and bytes: the benchmark folder a named power log belongs to, the
node logs each run holds, node logs that are copies of one another (:mod:`mlcheck.package.power`)."""

from __future__ import annotations

import filecmp
import os
from typing import Sequence

from mlcheck.package.power import KINDS, POWER_FOLDER, scan_power


def twin_node_logs(paths: Sequence[str]) -> list[tuple[str, str]]:
    """(log, the earlier log it is byte for byte) for each of ``paths`` (a run's node logs, sorted)
    that repeats an earlier one."""
    twins = []
    sizes: dict[int, list[str]] = {}
    for path in paths:
        try:
            size = os.path.getsize(path)
        except OSError:
            continue
        twin = next((other for other in sizes.get(size, ()) if _same_bytes(other, path)), None)
        if twin is not None:
            twins.append((path, twin))
        sizes.setdefault(size, []).append(path)
    return twins


def _same_bytes(one: str, other: str) -> bool:
    try:
        return filecmp.cmp(one, other, shallow=False)
    except OSError:
        return False


def power_log_benchmark(path: str) -> str | None:
    """The benchmark folder whose power measurements ``path`` is, or is in: a node or switch log
    (``<bench>/power/result_<i>/node_<j>.txt``, ``sw_<k>.txt``), a run's power folder
    (``power/result_<i>``) or ``power/`` itself, when that folder holds result files; else None.
    Spelt from ``path`` (``../..``), or the real folder where ``path`` reaches it through a link."""
    is_folder = os.path.isdir(path)
    name = os.path.basename(os.path.normpath(path))
    if not is_folder and not (name.startswith(KINDS) and name.endswith(".txt")):
        return None
    given = os.path.abspath(path)
    for spelling in dict.fromkeys((given, os.path.realpath(path))):
        ups = (1 if os.path.basename(spelling) == POWER_FOLDER else 2) if is_folder else 3
        power = spelling
        for _ in range(ups - 1):
            power = os.path.dirname(power)
        bench = os.path.dirname(power)
        if os.path.basename(power) == POWER_FOLDER and _holds_results(bench):
            return os.path.normpath(os.path.join(path, *[os.pardir] * ups)) if spelling == given else bench
    return None


def _holds_results(folder: str) -> bool:
    try:
        return any(entry.startswith("result_") and entry.endswith(".txt") for entry in os.listdir(folder))
    except OSError:
        return False


def node_log_counts(benchmark_folder: str, result_files: Sequence[str]) -> dict[str, int]:
    """Per result name, the node logs the summarizer scores in its ``power/<result>/`` folder (runs
    without one left out); empty without a power folder."""
    power = scan_power(benchmark_folder, result_files)
    if power is None:
        return {}
    return {run.result_name: sum(f.scored for f in run.of_kind("node")) for run in power.runs if run.folder is not None}
