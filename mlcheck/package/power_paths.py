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
    """The benchmark folder whose power measurements ``path`` is one of (``<bench>/power/result_<i>/
    node_<j>.txt``, ``sw_<k>.txt``), spelt from ``path``, when that folder holds result files; else None."""
    name = os.path.basename(path)
    power = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    if not name.startswith(KINDS) or not name.endswith(".txt") or os.path.basename(power) != POWER_FOLDER:
        return None
    try:
        entries = os.listdir(os.path.dirname(power))
    except OSError:
        return None
    if not any(entry.startswith("result_") and entry.endswith(".txt") for entry in entries):
        return None
    return os.path.normpath(os.path.join(path, os.pardir, os.pardir, os.pardir))


def node_log_counts(benchmark_folder: str, result_files: Sequence[str]) -> dict[str, int]:
    """Per result name, the node logs the summarizer scores in its ``power/<result>/`` folder (runs
    without one left out); empty without a power folder."""
    power = scan_power(benchmark_folder, result_files)
    if power is None:
        return {}
    return {run.result_name: sum(f.scored for f in run.of_kind("node")) for run in power.runs if run.folder is not None}
