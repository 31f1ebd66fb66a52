"""A run that logs ``submission_benchmark`` after some of its evals, as the RCP checker reads it.

``rcp_checker.py read_submission_file`` (every round) reads a file's lines in order and picks the
reader of each eval by the benchmark named *so far*: before the ``submission_benchmark`` line it
knows none, and reads the eval as an epoch-counting benchmark's (``round(metadata["epoch_num"], 3)``,
KeyError where the eval has none: Stable Diffusion's and the LLMs' evals log samples). At a
successful ``run_stop`` it takes Stable Diffusion's first passing step only when it knows the
benchmark by then, from the evals it read as Stable Diffusion's. Only the first
``submission_benchmark`` record is placed (a run naming two is refused by the compliance checker).
"""

from __future__ import annotations

from typing import Sequence

from mlcheck.model import Evaluation
from mlcheck.score.rcp.policy import DEFAULT_CONVERGENCE, ConvergenceRule

NEVER_NAMED = 1 << 62
"""The line of the benchmark's name in a run that logs none: every record comes before it."""
LATE_ADVICE = "; log submission_benchmark before the evals (the checker reads an eval before it as epochs)"


def rule_at(rule: ConvergenceRule, line: int, named: int | None) -> ConvergenceRule:
    """The reader the checker uses for a record at ``line`` when the benchmark is named at line
    ``named`` (:data:`NEVER_NAMED` where the run names none; None: the folder's rule everywhere)."""
    return DEFAULT_CONVERGENCE if named is not None and line < named else rule


def point_reading(evals: Sequence[Evaluation], rule: ConvergenceRule, named: int | None,
                  stop_line: int | None) -> tuple[Sequence[Evaluation], ConvergenceRule]:
    """The evals and the rule that give the run's point: the epoch reader's where the benchmark is
    named after the last eval (or after ``run_stop``), Stable Diffusion's steps from the evals read
    after it was named."""
    if named is None or not evals:
        return evals, rule
    at_stop = rule if stop_line is None else rule_at(rule, stop_line, named)
    if at_stop.point == "first_passing_step":
        return [e for e in evals if e.line > named], rule
    return evals, rule_at(at_stop, evals[-1].line, named)
