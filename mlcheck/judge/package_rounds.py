"""One round per package: the official tools judge a whole package under the one round they are
given (``package_checker FOLDER training 6.1.0``), while mlcheck takes a run's round from its date
where neither ``--ruleset`` nor the path (``training-6.1/``) names one. A package whose benchmark
folders' runs are dated in the periods of different rounds (one benchmark run early, before the
previous round's publication) was submitted to the newest of them: no run can be submitted to a
round whose results were published before it ran. The runs judged under an older round are
judged again under that one (MLC019 says so at each), so that a benchmark the newest round
retired is refused there (MLC506, MLC011) as the package checker refuses it, and a run is held
to the rules of the round it is submitted to.

Only the dates inside a known round's period decide: a clock past the newest period (MLC018) or
no date at all (MLC012) says nothing of the package's round.
"""

from __future__ import annotations

import os
from typing import Callable, Sequence

from mlcheck.facts.round_choice import DATED_IN_A_PERIOD
from mlcheck.facts.rulesets import SUPPORTED_RULESETS, Ruleset, load_ruleset, ruleset_from_path
from mlcheck.judge.folder_groups import Scored
from mlcheck.package.discover import LogRef
from mlcheck.results import RunResult

Check = Callable[[LogRef, Ruleset, str], list[RunResult]]


def package_root(ref: LogRef) -> str | None:
    """The package (``<org>``) of a log in ``<org>/results/<system>/<benchmark>/``, else None."""
    if ref.folder is None or ref.nested:
        return None
    results = os.path.dirname(os.path.dirname(os.path.abspath(ref.folder)))
    return os.path.dirname(results) if os.path.basename(results) == "results" else None


def one_round_per_package(runs: Sequence[RunResult], refs: dict[str, LogRef], check: Check,
                          scored: Scored, forced: Ruleset | None = None) -> tuple[list[RunResult], Scored]:
    """``runs`` with those of each package judged under an older round than its newest dated one
    judged again (by ``check``), and ``scored`` without the folders of the logs judged again;
    as they are where the user forced a round (``forced``: ``--ruleset``)."""
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
    newest: dict[str, int] = {}
    rounds: dict[str, set[str]] = {}
    for result, root in placed:
        rounds.setdefault(root, set()).add(str(result.ruleset))
        source = result.ruleset_source or ""
        if source.startswith(DATED_IN_A_PERIOD[0]) and DATED_IN_A_PERIOD[1] in source:
            newest[root] = max(newest.get(root, -1), SUPPORTED_RULESETS.index(str(result.ruleset)))
    again = {result.path: load_ruleset(SUPPORTED_RULESETS[newest[root]]) for result, root in placed
             if root in newest and len(rounds[root]) > 1 and result.ruleset != SUPPORTED_RULESETS[newest[root]]}
    if not again:
        return list(runs), scored
    judged = {path: check(refs[path], ruleset, (
        f"the package's round (training {ruleset.round}: its newest runs are dated in that period, "
        "and a package is submitted to one round)")) for path, ruleset in sorted(again.items())}
    out: list[RunResult] = []
    for result in runs:
        if result.path not in again:
            out.append(result)
        elif result.path in judged:
            out.extend(judged.pop(result.path))
    return out, {key: done for key, done in scored.items() if not any(path in again for path, _ in done[0])}
