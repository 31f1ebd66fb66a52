"""What every rule module shares: the :class:`Rule` description and the contexts rules look at."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from mlcheck.records import dataclass
from mlcheck.model import MAX_ITEMS, Finding, Severity

if TYPE_CHECKING:
    from mlcheck.model import Run
    from mlcheck.facts.rulesets import BenchmarkFacts, Ruleset


@dataclass(frozen=True)
class Rule:
    """A stable code, a kebab-case name and a one-line summary; ``official`` tells whether the
    round's official checker of record flags the same problem (as a failure)."""

    code: str
    name: str
    severity: Severity
    summary: str
    official: bool = False
    also: tuple[Severity, ...] = ()
    """The other severities the rule reports in some cases (a tolerated non-convergence is a
    warning, a field no tool reads a note): ``mlcheck rules`` shows them all."""
    official_cases: bool = False
    """Its findings are not official by default, but some are (they say so: ``[official checker
    agrees]``): ``rules``, ``explain`` and SARIF's rule list say the checker flags some cases."""

    @property
    def official_somewhere(self) -> bool:
        """Whether the official checker of record flags some (or all) of the rule's findings."""
        return self.official or self.official_cases

    @property
    def severities(self) -> tuple[Severity, ...]:
        """Every severity the rule may report, the worst first."""
        return tuple(sorted({self.severity, *self.also}, reverse=True))

    @property
    def severity_text(self) -> str:
        """``error``, or ``error/warning`` for a rule that reports both."""
        return "/".join(level.label for level in self.severities)

    def at(self, path: str, line: int | None, message: str, *, severity: Severity | None = None,
           official: bool | None = None, run_index: int | None = None,
           items: Sequence[str] = ()) -> Finding:
        """A finding of this rule at ``path:line``; ``items`` lists what it covers when it stands
        for several problems (the finding keeps the first :data:`~mlcheck.model.MAX_ITEMS`)."""
        return Finding(code=self.code, name=self.name,
                       severity=self.severity if severity is None else severity,
                       message=clipped_message(message), path=path, line=line,
                       official=self.official if official is None else official,
                       run_index=run_index, items=tuple(items[:MAX_ITEMS]), item_count=len(items))


MAX_MESSAGE = 4000
"""The most of a finding's message kept: a message that quotes a log's value whole could hold
megabytes (a 200,000-character submission_benchmark), which every report would copy and scan.
The longest message on the shared rounds is about 640 characters."""


def clipped_message(message: str) -> str:
    """``message``, or its first :data:`MAX_MESSAGE` characters and how long it was."""
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[:MAX_MESSAGE]}… (a message of {len(message):,} characters, cut)"


def as_warnings(findings: Sequence[Finding], codes: frozenset[str] | tuple[str, ...], note: str) -> tuple[Finding, ...]:
    """``findings`` with the errors of ``codes`` as warnings that say why (``note``): what a
    benchmark result tolerates (:mod:`mlcheck.judge.folders`, :mod:`mlcheck.raw.watch_tolerance`)."""
    from dataclasses import replace

    return tuple(replace(f, severity=Severity.WARNING, message=f"{f.message} ({note})")
                 if f.code in codes and f.severity is Severity.ERROR else f for f in findings)


@dataclass(frozen=True)
class RunContext:
    """What a run rule may look at: the run, the ruleset it is judged under and the benchmark's
    facts in that ruleset (None when the benchmark is unknown to the round)."""

    run: Run
    ruleset: Ruleset
    facts: BenchmarkFacts | None

    @property
    def path(self) -> str:
        return self.run.path

    @property
    def closed(self) -> bool:
        return self.run.division != "open"

    def at(self, rule: Rule, line: int | None, message: str, *, severity: Severity | None = None,
           official: bool | None = None, items: Sequence[str] = ()) -> Finding:
        """A finding of ``rule`` about this run."""
        return rule.at(self.run.path, line, message, severity=severity, official=official,
                       run_index=self.run.index, items=items)
