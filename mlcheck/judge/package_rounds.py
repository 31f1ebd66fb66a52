"""One round per package: the official tools judge a whole package under the one round they are
given (``package_checker FOLDER training 6.1.0``), while mlcheck takes a run's round from its date
where neither ``--ruleset`` nor the path (``training-6.1/``) names one. A package whose benchmark
folders' runs are dated in the periods of different rounds (one benchmark run early, before the
previous round's publication) was submitted to the newest of them: no run can be submitted to a
round whose results were published before it ran. The runs judged under an older round are
judged again under that one (MLC019 says so at each), so that a benchmark the newest round
retired is refused there (MLC506, MLC011) as the package checker refuses it, and a run is held
to the rules of the round it is submitted to.

Only the dates inside a known round's period decide, and a benchmark that only a later round has
(an ``rgat`` run dated in the 4.1 period is a 5.0 run: the package is 5.0 or later); a clock past
the newest period (MLC018), before the first or no date at all (MLC012) says nothing of the
package's round, but its runs are judged under it too (MLC019 says their date is in no period).
"""

from __future__ import annotations

import os
from typing import Sequence

from mlcheck.facts.round_choice import DATED_IN_A_PERIOD, LATER_ROUND_WITH
from mlcheck.facts.rulesets import SUPPORTED_RULESETS, Ruleset, load_ruleset, ruleset_from_path
from mlcheck.judge.folder_groups import Scored
from mlcheck.judge.jobs import check_logs
from mlcheck.package.discover import LogRef
from mlcheck.results import RunResult
from mlcheck.rules.selection import PACKAGE_ROUND


def package_root(ref: LogRef) -> str | None:
    """The package (``<org>``, its real path) of a log in ``<org>/results/<system>/<benchmark>/``, else None."""
    if ref.folder is None or ref.nested:
        return None
    results = os.path.dirname(os.path.dirname(os.path.realpath(ref.folder)))
    return os.path.dirname(results) if os.path.basename(results) == "results" else None


def one_round_per_package(runs: Sequence[RunResult], refs: dict[str, LogRef], scored: Scored,
                          forced: Ruleset | None = None, jobs: int = 1) -> tuple[list[RunResult], Scored]:
    """``runs`` with those of each package judged under another round than the package's judged
    again (in up to ``jobs`` processes), and ``scored`` without the folders of the logs judged
    again; as they are where the user forced a round (``forced``: ``--ruleset``)."""
    if forced is not None:
        return list(runs), scored
    roots: dict[str | None, str | None] = {}  # (benchmark folder -> its package; once per folder)
    placed: list[tuple[RunResult, str]] = []
    for result in runs:
        ref = refs.get(result.path)
        if ref is not None and result.ruleset in SUPPORTED_RULESETS:
            if ref.folder not in roots:
                roots[ref.folder] = package_root(ref)
            root = roots[ref.folder] if ruleset_from_path(ref.path) is None else None
            if root is not None:
                placed.append((result, root))
    newest: dict[str, tuple[int, str]] = {}  # (package -> its round's index, and why)
    rounds: dict[str, set[str]] = {}
    for result, root in placed:
        rounds.setdefault(root, set()).add(str(result.ruleset))
        reason = _evidence(result)
        at = SUPPORTED_RULESETS.index(str(result.ruleset))
        if reason is not None and at > newest.get(root, (-1, ""))[0]:
            newest[root] = (at, reason)
    again: dict[tuple[str, str], set[str]] = {}  # ((round, why) -> the paths judged again under it)
    for result, root in placed:
        if root in newest and len(rounds[root]) > 1 and result.ruleset != SUPPORTED_RULESETS[newest[root][0]]:
            again.setdefault((SUPPORTED_RULESETS[newest[root][0]], newest[root][1]), set()).add(result.path)
    if not again:
        return list(runs), scored
    judged: dict[str, list[RunResult]] = {}
    for (version, reason), paths in sorted(again.items()):
        ruleset = load_ruleset(version)
        for result in check_logs([refs[path] for path in sorted(paths)], ruleset, jobs, None, (
                f"{PACKAGE_ROUND} (training {ruleset.round}: {reason}, and a package is submitted to one round)")):
            judged.setdefault(result.path, []).append(result)
    out: list[RunResult] = []
    for result in runs:
        if result.path not in judged:
            out.append(result)
        elif judged[result.path]:
            out.extend(judged.pop(result.path))
            judged[result.path] = []
    return out, {key: done for key, done in scored.items() if not any(path in judged for path, _ in done[0])}


def _evidence(result: RunResult) -> str | None:
    """Why a run's round says which round its package is at least (its date in the round's
    period, or a benchmark only this round has of those after its date's); None when it says
    nothing (no date, one past the newest period, a path's round)."""
    source = result.ruleset_source or ""
    if not (source.startswith(DATED_IN_A_PERIOD[0]) and DATED_IN_A_PERIOD[1] in source):
        return None
    if LATER_ROUND_WITH in source:
        return (f"its {result.benchmark or 'benchmark'} runs are dated in a round without {result.benchmark or 'it'}, "
                "and it is the first round with it")
    return "its newest runs are dated in that period"
