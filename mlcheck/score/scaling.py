"""Which factor multiplies a folder's score: a ``scaling.json`` in the folder or the RCP
normalisation, in the order the round's official tools apply them.

From 2.1 the package checker runs the RCP test with ``set_scaling=True`` before the summarizer
reads ``scaling.json``: a passing test whose submission converges faster than the RCP mean
*writes* ``scaling.json`` with ``max(1, RCP mean / submission mean)``, replacing the file the
folder held; from 5.1 (``_reset_results_scaling``) it first deletes the file whenever it evaluates
a reference, so a passing test at factor 1 leaves none. Otherwise the folder's ``scaling.json``
(the review committee's) is what the summarizer applies. mlcheck writes nothing: it computes the
factor the official sequence would leave.
"""

from __future__ import annotations

from dataclasses import replace

from mlcheck.records import dataclass
from mlcheck.results import RcpResult


@dataclass(frozen=True)
class Scaling:
    """The factors to pass to :func:`mlcheck.score.scoring.folder_score`, and why."""

    committee: float | None
    """The folder's ``scaling.json`` factor, when the official sequence keeps it."""
    rcp: float | None
    """The RCP normalisation factor, when it is the one applied."""
    note: str | None = None
    """What the official tools do to the folder's ``scaling.json`` (None: nothing)."""
    suspect: bool = False
    """The folder's ``scaling.json`` is applied although the RCP test gives another factor (a file
    left by an earlier run of the checker?): a warning."""
    replaced: bool = False
    """The round's package checker writes or deletes ``scaling.json`` before the summarizer reads
    it: what the folder's own file holds does not count (an unusable one neither)."""
    writes: bool = False
    """The round's package checker opens ``scaling.json`` to write the RCP factor (``open(path, "w")``)."""
    deletes: bool = False
    """The round's package checker removes ``scaling.json`` where it exists (``os.remove``: 5.1+)."""


def published_scaling(committee: float | None, rcp: RcpResult | None, normalise: bool,
                      resets: bool) -> Scaling:
    """The factor the round's tools apply: ``normalise`` (2.1+: the package checker writes the
    RCP factor), ``resets`` (5.1+: it deletes an existing ``scaling.json`` first); and what the
    package checker does to the file."""
    evaluated = rcp is not None and rcp.reference_mean is not None  # a reference was compared
    factor = rcp.normalization_factor if normalise and rcp is not None and rcp.verdict == "pass" else None
    decided = _published(committee, rcp, normalise, resets, evaluated, factor)
    return replace(decided, writes=factor is not None and factor > 1.0, deletes=normalise and resets and evaluated)


def _published(committee: float | None, rcp: RcpResult | None, normalise: bool, resets: bool, evaluated: bool,
               factor: float | None) -> Scaling:
    if factor is not None and factor > 1.0:
        if committee is not None and abs(committee - factor) > 1e-12:
            return Scaling(None, factor, (
                f"scaling.json holds {committee:g}, but the round's package checker overwrites it with the "
                f"RCP normalisation factor {factor:.6g} before the summarizer reads it: the score uses "
                f"{factor:.6g}"), replaced=True)
        return Scaling(committee, None if committee is not None else factor, replaced=True)
    if normalise and resets and evaluated:
        if committee is None:
            return Scaling(None, None, replaced=True)
        return Scaling(None, None, (
            f"the round's RCP checker deletes scaling.json ({committee:g}) before it evaluates the RCP and "
            "writes none at a factor of 1: the score is not scaled"), replaced=True)
    if normalise and not resets and evaluated and rcp is not None and rcp.verdict in ("pass", "fail") \
            and committee is not None and abs(committee - 1.0) > 1e-12:
        why = ("the RCP test gives a factor of 1 (the submission converges no faster than the reference mean)"
               if rcp.verdict == "pass" else "the RCP test fails")
        return Scaling(committee, None, (
            f"scaling.json holds {committee:g}, but {why}: the round's package checker writes no "
            "scaling.json then and leaves this one, so the summarizer multiplies the score by "
            f"{committee:g}. Delete it unless the review committee set it (a file left by an "
            "earlier run of the checker?)"), suspect=True)
    if normalise and rcp is not None and rcp.verdict == "skipped" and committee is not None \
            and abs(committee - 1.0) > 1e-12:
        return Scaling(committee, None, (
            f"scaling.json holds {committee:g}, but no RCP test runs for this folder ({rcp.reason or 'skipped'}): "
            "no checker wrote this file, and the summarizer multiplies the score by "
            f"{committee:g}. Delete it unless the review committee set it (a file left by an earlier run "
            "of the checker, or copied with the folder?)"), suspect=True)
    return Scaling(committee, None)
