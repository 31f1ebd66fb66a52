"""The logs of a folder inside a benchmark folder (``results/<system>/<benchmark>/old/result_0.txt``):
read and judged one by one, as any log, but not part of the submission as the official tools read
it. The package checker's and the summarizer's globs (``<benchmark>/result_*.txt``) do not enter
the folder, so nothing in it can make them refuse the package (MLC508 names the folder): its
errors are warnings here, none of them said to agree with an official checker."""

from __future__ import annotations

from dataclasses import replace

from mlcheck.model import Finding, Severity
from mlcheck.results import RunResult

NOT_READ = " (this log is inside another benchmark folder, which the official tools do not read: MLC508)"


def outside_the_submission(results: list[RunResult]) -> list[RunResult]:
    """The runs of a nested log, their errors warnings and no finding official."""
    return [replace(result, findings=tuple(map(_not_refusing, result.findings))) for result in results]


def _not_refusing(finding: Finding) -> Finding:
    if finding.severity is not Severity.ERROR and not finding.official:
        return finding
    return replace(finding, severity=Severity.WARNING if finding.severity is Severity.ERROR else finding.severity,
                   official=False, message=finding.message + NOT_READ)
