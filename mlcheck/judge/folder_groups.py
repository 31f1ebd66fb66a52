"""The folder stage's grouping: the runs of each benchmark folder, scored together in the parent
or, under ``--jobs``, by the worker that checked the whole folder (:mod:`mlcheck.judge.jobs`); a
folder a worker scored is taken as it scored it only when the parent groups the very same runs.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import replace

from mlcheck.package.real_paths import absolute_parts
from mlcheck.judge.folders import GroupKey, benchmark_folder_log, score_folder, unscored_folder
from mlcheck.package.discover import LogRef
from mlcheck.read.file_names import RESULT_FILE, folder_of_log
from mlcheck.results import BenchmarkResult, RunResult

Scored = dict[GroupKey, tuple[tuple[tuple[str, int], ...], BenchmarkResult]]
"""Folders scored beforehand (by ``--jobs`` workers): each with the runs it was scored from."""


def score_benchmarks(runs: list[RunResult], refs: dict[str, LogRef],
                     scored: Scored | None = None) -> list[BenchmarkResult]:
    """Group runs by (org, system, benchmark, folder) and score each group. A group ``scored``
    holds from exactly the same runs is taken from it (the same function of the same runs)."""
    results = []
    for key, members in sorted(group_runs(runs, refs).items()):
        done = scored.get(key) if scored else None
        same_runs = done is not None and done[0] == run_ids(members)
        results.append(done[1] if done is not None and same_runs else score_group(key, members, refs))
    return results


def group_runs(runs: list[RunResult], refs: dict[str, LogRef]) -> dict[GroupKey, list[RunResult]]:
    """The runs of each (org, system, benchmark, folder), in the order of ``runs``. A result file
    of a benchmark folder counts, read or not (the official glob): one that could not be read
    joins the group of its folder's first read run (outside a package, the org and the system
    are what the runs log, and it logs nothing)."""
    groups: dict[GroupKey, list[RunResult]] = defaultdict(list)
    counted = []
    for result in runs:
        ref = refs.get(result.path)
        if result.run is not None or (ref is not None and benchmark_folder_log(ref)):
            counted.append((result, ref.folder if ref and ref.folder else folder_of_log(result.path)))
    first_read: dict[str, tuple[str, str, str]] = {}
    for result, folder in counted:
        if result.run is not None:
            first_read.setdefault(folder, (result.org or "", result.system or "", result.benchmark or ""))
    for result, folder in counted:
        own = (result.org or "", result.system or "", result.benchmark or "")
        org, system, benchmark = own if result.run is not None else first_read.get(folder, own)
        groups[(org, system, benchmark, folder)].append(result)
    return groups



def score_group(key: GroupKey, members: list[RunResult], refs: dict[str, LogRef]) -> BenchmarkResult:
    """One group scored. Folder-level checks (run count, non-converged runs, RCP) only judge
    benchmark folders the user gave: a result file named on its own is one run of a folder, not
    a folder with one run, and a folder of raw job logs is not a benchmark folder (`mlcheck
    split` makes one)."""
    whole_folder = any(benchmark_folder_log(refs[r.path]) for r in members if r.path in refs)
    try:
        scored = score_folder(key, members, whole_folder)
    except Exception as error:  # a crashing folder check must not stop the other folders
        return unscored_folder(key, members, error)
    if members and all(r.path in refs and refs[r.path].nested for r in members):
        # (a folder inside a benchmark folder: the package checker and the summarizer skip it, MLC508)
        org, system = _place_of(scored.folder) or (scored.org, scored.system)
        return replace(scored, published=False, org=org, system=system, score=replace(
            scored.score, valid=False, reason=(
            f"{scored.score.reason}; not a result: its logs are inside another benchmark folder, which the "
            "official tools do not read (MLC508)")))
    if not whole_folder and not scored.score.valid and scored.score.score_min is None:
        return replace(scored, score=replace(scored.score, reason=scored.score.reason + _named_of(members)))
    return scored


def _named_of(members: list[RunResult]) -> str:
    """For result files named on their own, how many of their folder's result files that is."""
    paths = {r.path for r in members}
    folder = os.path.dirname(next(iter(paths)))
    if any(os.path.dirname(path) != folder or not RESULT_FILE.match(os.path.basename(path)) for path in paths):
        return ""
    try:
        total = sum(RESULT_FILE.match(name) is not None for name in os.listdir(folder or "."))
    except OSError:
        return ""
    if total <= len(paths):
        return ""
    return (f" ({len(paths)} of the {total} result files of {folder or '.'} named: name the folder to score it; "
            "`mlcheck check --whole-folder` checks the folder of each file it is given)")


def run_ids(members: list[RunResult]) -> tuple[tuple[str, int], ...]:
    """The runs of a group, whatever their order: (path, index) sorted."""
    return tuple(sorted((r.path, r.index) for r in members))


def score_in_worker(results: list[RunResult], refs: list[LogRef]) -> Scored:
    """Every group of the runs of ``refs`` (whole benchmark folders, checked by one worker), scored."""
    by_path = {ref.path: ref for ref in refs}
    return {key: (run_ids(members), score_group(key, members, by_path))
            for key, members in group_runs(results, by_path).items()}


def _place_of(folder: str | None) -> tuple[str, str] | None:
    """The org and system of the package's benchmark folder that ``folder`` lies in
    (``<org>/results/<system>/<benchmark>/extra``), not those its logs name (a template's
    placeholders, another org's: a group would name a system the package does not have)."""
    parts = absolute_parts(folder or ".")
    deeper = [at for at in range(1, len(parts) - 3) if parts[at] == "results"]  # (a folder results/ in it: not its)
    at = next((at for at in deeper if os.path.isdir(os.path.join(*parts[:at], "systems"))), deeper[-1] if deeper else None)
    return None if at is None else (parts[at - 1], parts[at + 1])
