"""The availability a system description gives (family MLC5xx): its ``status``, in the round's
vocabulary. Part of the system description checks of :mod:`mlcheck.rules.package_system`.

Rules text: policies submission_rules.adoc (system description fields); checker: the round's
``system_desc_checker``.

- MLC515 system-status-unknown: ``status`` is not one of the round's availability values. Before
  training 4.0 the official checker does not look at it (warning); from 4.1 it must be exactly one
  of ``Available on-premise``, ``Available cloud``, ``Research, Development, or Internal (RDI)``,
  ``Preview`` (error, the checker refuses the file); 4.0's checker checked a wider list of spellings
  of them (``cloud``, ``onprem``...): a status that is no spelling of any round's (``soon``, null, a
  list) is an error there too. That list itself is not at hand (the 4.0 tag's
  system_desc_checker; from 4.1.1 the package holds the exact list), so a 4.0 status is
  compared as the spellings of every round are, without case, hyphens or spaces: an error only
  where no such spelling matches. Today's system_desc_checker (mlperf-logging 4.1.68) applies the
  exact list to 4.0 as well (its test is ``ruleset major >= 4``); mlcheck follows the round's
  checker of record, and notes (info) a 4.0 status that today's checker refuses, as MLC534 notes
  today's RCP verdict. Where the package's round is only assumed (MLC525: no run read, no round in
  its path) its error is a warning, as MLC506's is.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from mlcheck.facts import resources
from mlcheck.model import Finding, Severity
from mlcheck.rule import Rule
from mlcheck.rules.seeds import version_key

SYSTEM_STATUS_UNKNOWN = Rule("MLC515", "system-status-unknown", Severity.WARNING,
                             "the system status is not one of the round's values",
                             also=(Severity.ERROR, Severity.INFO), official_cases=True)

RULES = (SYSTEM_STATUS_UNKNOWN,)

OFFICIAL_STATUS = ("Available on-premise", "Available cloud", "Research, Development, or Internal (RDI)",
                   "Preview")
"""The availability values system_desc_checker requires from training 4.1 (exactly)."""


def status_findings(path: str, data: dict[str, Any], ruleset: str | None, line: int | None = None) -> list[Finding]:
    """MLC515 as the round's system_desc_checker decides it (a missing status is MLC512)."""
    if "status" not in data:
        return []
    status, key = data["status"], version_key(ruleset)
    listed = ", ".join(repr(s) for s in OFFICIAL_STATUS)
    if key is not None and key >= (4, 1, 0):
        if isinstance(status, str) and status in OFFICIAL_STATUS:
            return []
        return [SYSTEM_STATUS_UNKNOWN.at(path, line, (
            f"status {_shown(status)} is not one of {listed}: the training {ruleset} "
            "system_desc_checker refuses the file. Write one of them exactly"),
            severity=Severity.ERROR, official=True)]
    spelt = isinstance(status, str) and bool(status.strip())
    if key is None or (not spelt and key < (4, 0, 0)):
        return []  # (an empty status is MLC514)
    by_round: dict[str, list[str]] = system_schema()["$defs"]["status_by_round"]
    vocabulary = by_round.get(ruleset or "")
    if vocabulary is None:  # a round the schema does not list yet: any spelling used before 4.1
        vocabulary = sorted({value for values in by_round.values() for value in values})
    known = {status_spelling(value) for value in (*vocabulary, *OFFICIAL_STATUS)}
    if spelt and status_spelling(status) in known:
        if key < (4, 0, 0) or status in OFFICIAL_STATUS:
            return []
        return [SYSTEM_STATUS_UNKNOWN.at(path, line, (
            f"status {status!r} is one of the training {ruleset} checker of record's spellings, but "
            "today's system_desc_checker (mlperf-logging 4.1.68) applies the 4.1 list to 4.0 too and "
            f"refuses it: write one of {listed} exactly to pass both"), severity=Severity.INFO)]
    later = ("; from training 4.1 the system_desc_checker requires one of "
             f"{listed} exactly (4.0 accepted other spellings of them)")
    if key >= (4, 0, 0):  # (the record's list is of spellings of these: none matches)
        return [SYSTEM_STATUS_UNKNOWN.at(path, line, (
            f"status {_shown(status)} is no spelling of {', '.join(vocabulary)}: the training {ruleset} "
            f"system_desc_checker refuses the file{later}"), severity=Severity.ERROR, official=True)]
    return [SYSTEM_STATUS_UNKNOWN.at(path, line, (
        f"status {status!r} is not one of {', '.join(vocabulary)} (the training {ruleset} system_desc_checker does "
        f"not read it and accepts the file){later}"))]


def _shown(status: object) -> str:
    """``status`` as the file writes it (JSON: null, a list in brackets), cut at 60 characters."""
    text = json.dumps(status, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def status_spelling(status: str) -> str:
    """A status as compared before 4.1: case, hyphens and spaces do not matter."""
    return " ".join(status.lower().replace("-", " ").split())


@lru_cache(maxsize=1)
def system_schema() -> dict[str, Any]:
    """``schemas/system-description.schema.json``."""
    text = resources.files("mlcheck.schemas").joinpath("system-description.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded
