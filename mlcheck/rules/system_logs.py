"""The logs against their system description (family MLC5xx): what a run's ``submission_*``
records say of the system, compared with ``<org>/systems/<system>.json``.

Rules text: policies submission_rules.adoc (system description fields); no round's checker of
record compares them (:mod:`mlcheck.rules.package_system` checks the description itself).

- MLC516 logs-disagree-with-system: a run's ``submission_org``, ``submission_division``,
  ``submission_status`` or ``submission_platform`` differs from the system description
  (``submitter``, ``division``, ``status``, folder or ``system_name``). A warning: no round's
  checker of record compares them (accepted 1.0 packages spell the division ``close`` in the system
  description and ``closed`` in the logs); the runs are judged under the division their logs name, and the
  folder's seeds and RCP test under the description's (the package checker runs its seed and RCP
  checkers where the description says ``closed``), as the results table is. The log and the system
  description spell the availability in two vocabularies (the log's ``cloud``, ``onprem``,
  ``preview``, ``research`` of common.yaml up to 4.0; the system's ``Available on-premise``,
  ``Available cloud``, ``Research, Development, or Internal (RDI)``, ``Preview`` that the 4.0+
  system_desc_checker asks for, and the earlier spellings): ``onprem`` agrees with 'Available
  on-premise', the 1.x ``available`` with both on-premise and cloud. Fix: make them agree.
"""

from __future__ import annotations

import re
from typing import Iterable

from mlcheck.model import Finding, Severity
from mlcheck.package.layout import JsonDocument
from mlcheck.results import RunSummary
from mlcheck.facts.checks import show_repr
from mlcheck.rule import Rule
from mlcheck.rules.system_status import status_spelling

LOGS_DISAGREE = Rule("MLC516", "logs-disagree-with-system", Severity.WARNING,
                     "the logs' submission_* values differ from the system description")

RULES = (LOGS_DISAGREE,)


_AVAILABILITY = (("preview", ("preview",)), ("research", ("research", "rdi")), ("cloud", ("cloud",)),
                 ("onprem", ("prem",)))
"""The log's submission_status vocabulary (common.yaml up to 4.0: cloud, onprem, preview, research)
and the words of the system description's status that mean each (4.0+: Available on-premise,
Available cloud, Research, Development, or Internal (RDI), Preview; earlier spellings too)."""


def _availability(status: str) -> frozenset[str]:
    """What a status means in the log's vocabulary: ``{"onprem"}`` for 'Available on-premise',
    both on-premise and cloud for the 1.x 'available', nothing for a word it does not know."""
    text = status_spelling(status)
    for meaning, words in _AVAILABILITY:
        if any(word in text.split() or word in text.replace(" ", "") for word in words):
            return frozenset({meaning})
    return frozenset({"onprem", "cloud"}) if text == "available" else frozenset()


def _same_availability(logged: str, described: str) -> bool:
    """Whether the log's submission_status and the system's status say the same availability
    (``onprem`` and 'Available on-premise' do: the two files use two vocabularies)."""
    return bool(_availability(logged) & _availability(described))


def _same(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


_NODES = re.compile(r"^\s*\d+\s*x\s*", re.IGNORECASE)


def _nodes_off(platform: str) -> str:
    """A logged platform without the node count the reference code puts first ('1344xND_H100_v5')."""
    return _NODES.sub("", platform) or platform


def _within(a: str, b: str) -> bool:
    a, b = a.strip().lower(), b.strip().lower()
    return bool(a) and bool(b) and (a in b or b in a)


def check_logs_against_system(folder: str, system: str, runs: Iterable[RunSummary], doc: JsonDocument) -> list[Finding]:
    """Compare each run's ``submission_*`` values with the system description: a finding per run
    and key that differs, at the run's line (the report shows the folder's as one, with its runs)."""
    data = doc.data
    if data is None:
        return []
    found: list[Finding] = []
    checks = []
    for key, expected, severity in (
            ("submission_division", [data.get("division")], Severity.WARNING),
            ("submission_org", [data.get("submitter")], Severity.WARNING),
            ("submission_status", [data.get("status")], Severity.WARNING),
            ("submission_platform", [system, data.get("system_name")], Severity.WARNING)):
        # (blank: MLC514); a system named as its folder is one alternative, not two
        checks.append((key, list(dict.fromkeys(e for e in expected if isinstance(e, str) and e.strip())), severity))
    agrees: dict[tuple[str, str], bool] = {}  # (the runs of a folder log the same values: compared once)
    for run in runs:
        for key, wanted, severity in checks:
            event = run.first(key)
            if event is None or not isinstance(event.value, str) or not wanted:
                continue
            same = agrees.get((key, event.value))
            if same is None:
                same = agrees[(key, event.value)] = any(
                    _same(event.value, w) or (key == "submission_platform" and _within(_nodes_off(event.value), w))
                    or (key == "submission_status" and _same_availability(event.value, w)) for w in wanted)
            if same:
                continue
            placeholder = (", the placeholder of the reference code (the run's logging was not given the "
                           "submission's values)" if "PLACEHOLDER" in event.value.upper() else "")
            found.append(LOGS_DISAGREE.at(run.path, event.line, (
                f"{key} is {show_repr(event.value)}{placeholder} but {doc.path} says {' or '.join(repr(w) for w in wanted)}"
                + ("; the results table shows the system description's" if key == "submission_status" else "")
                + ("; the run is judged under the division its logs name, the folder's seeds and RCP test "
                   "under the description's (as the package checker runs them)" if key == "submission_division" else "")),
                severity=severity, run_index=run.index))
    return found
