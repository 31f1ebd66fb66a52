"""The logs against their system description (family MLC5xx): what a run's ``submission_*``
records say of the system, compared with ``<org>/systems/<system>.json``.

Rules text: policies submission_rules.adoc (system description fields); no round's checker of
record compares them (:mod:`mlcheck.rules.package_system` checks the description itself).

- MLC516 logs-disagree-with-system: a run's ``submission_org`` or ``submission_division``
  differs from the system description's ``submitter`` or ``division``; its ``submission_status``
  (rounds up to 4.0, whose common.yaml requires it; 4.1 dropped it from the logs) says another
  availability than ``status``; or its ``submission_platform`` is the reference code's placeholder
  (``SUBMISSION_PLATFORM_PLACEHOLDER``: the run's logging was not given the submission's values)
  or starts with a count (``8xAcme T8``) that is neither the description's
  ``number_of_nodes``, its ``accelerators_per_node``, nor their product (logs of another system
  size). The platform is free text otherwise (``1xAcme T8`` in a folder
  ``acmet8_fw23.04_tensorflow``): it is not compared with the folder or ``system_name``. A
  warning: no round's checker of record compares them; the runs are judged under the division
  their logs name, and the folder's seeds and RCP test under the description's (the package
  checker runs its seed and RCP checkers where the description says ``closed``), as the results
  table is. A description whose division is not ``closed`` for runs that log ``closed`` is the
  folder's MLC512 (what the package checker then skips), not one MLC516 per run. The log and the
  system description spell the availability in two vocabularies (the log's ``cloud``,
  ``onprem``, ``preview``, ``research`` of common.yaml up to 4.0; the system's ``Available
  on-premise``, ``Available cloud``, ``Research, Development, or Internal (RDI)``, ``Preview``
  that the 4.0+ system_desc_checker asks for, and the earlier spellings): ``onprem`` agrees with
  'Available on-premise', the 1.x ``available`` with both on-premise and cloud. Fix: make them
  agree.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from mlcheck.model import Finding, Severity
from mlcheck.package.layout import JsonDocument
from mlcheck.results import RunSummary
from mlcheck.facts.checks import show_repr
from mlcheck.read.official_view import as_written
from mlcheck.facts.rulesets import SUPPORTED_RULESETS
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


def _same_orgs(a: str, b: str) -> bool:
    """A joint submission's submitters in another order or spacing ('Acme+Beta+Gamma' and
    'Beta + Acme + Gamma')."""
    def names(text: str) -> set[str]:
        return {"".join(part.split()).lower() for part in re.split(r"[+,&/]", text) if part.strip()}
    return "+" in a + b and names(a) == names(b)


_COUNT = re.compile(r"^\s*(\d+)\s*x", re.IGNORECASE)
_STATUS_LOGGED_UNTIL = "4.0.0"
"""The last round whose common.yaml requires ``submission_status`` in the logs."""


def _sizes(data: dict[str, Any]) -> tuple[int, int] | None:
    """The description's ``number_of_nodes`` and ``accelerators_per_node``; None unless both are
    integers."""
    try:
        return int(str(data.get("number_of_nodes")).strip()), int(str(data.get("accelerators_per_node")).strip())
    except ValueError:
        return None


def _platform_problem(platform: str, sizes: tuple[int, int] | None, where: str) -> str | None:
    """Why a logged platform disagrees with the description, or None (free text otherwise)."""
    if "PLACEHOLDER" in platform.upper():
        return (", the placeholder of the reference code: the run's logging was not given the "
                f"submission's values (the system is described in {where})")
    count = _COUNT.match(platform)
    if count is None or sizes is None or int(count.group(1)) in (sizes[0], sizes[1], sizes[0] * sizes[1]):
        return None
    return (f", a count of {count.group(1)} that is neither number_of_nodes ({sizes[0]}), accelerators_per_node "
            f"({sizes[1]}) nor their product in {where}: logs of a system of another size?")


def check_logs_against_system(runs: Iterable[RunSummary], doc: JsonDocument, ruleset: str | None = None) -> list[Finding]:
    """Compare each run's ``submission_*`` values with the system description: a finding per run
    and key that differs, at the run's line (the report shows the folder's as one, with its runs).
    ``ruleset``: the folder's round (``submission_status`` is compared up to 4.0 only)."""
    data = doc.data
    if not isinstance(data, dict):
        return []
    described = {"submission_division": data.get("division"), "submission_org": data.get("submitter")}
    if ruleset is None or ruleset not in SUPPORTED_RULESETS or \
            SUPPORTED_RULESETS.index(ruleset) <= SUPPORTED_RULESETS.index(_STATUS_LOGGED_UNTIL):
        described["submission_status"] = data.get("status")
    sizes = _sizes(data)
    found: list[Finding] = []
    problems: dict[tuple[str, str], str | None] = {}  # (the runs of a folder log the same values: compared once)
    for run in runs:
        for key in (*described, "submission_platform"):
            event = run.first(key)
            if event is None or not isinstance(event.value, str):
                continue
            logged = as_written(event.value)  # (the description is UTF-8 JSON: compared as UTF-8)
            if (key, logged) not in problems:
                problems[(key, logged)] = _problem(key, logged, described.get(key), sizes, doc.path)
            problem = problems[(key, logged)]
            if problem is None:
                continue
            found.append(LOGS_DISAGREE.at(run.path, event.line, f"{key} is {show_repr(logged)}{problem}",
                                          severity=Severity.WARNING, run_index=run.index))
    return found


def _problem(key: str, logged: str, wanted: object, sizes: tuple[int, int] | None, where: str) -> str | None:
    """What is wrong with one logged ``submission_*`` value, as the rest of MLC516's message."""
    if key == "submission_platform":
        return _platform_problem(logged, sizes, where)
    if "PLACEHOLDER" in logged.upper() and isinstance(wanted, str) and wanted.strip():
        return (f", the placeholder of the reference code (the run's logging was not given the submission's "
                f"values), but {where} says {wanted!r}")
    if not isinstance(wanted, str) or not wanted.strip() or _same(logged, wanted) or _same_orgs(logged, wanted):
        return None  # (blank or missing in the description: MLC514, MLC512)
    if key == "submission_status":
        return None if _same_availability(logged, wanted) else (
            f" but {where} says {wanted!r}; the results table shows the description's")
    if key == "submission_division":
        if wanted != "closed" and _same(logged, "closed"):
            return None  # (the folder's MLC512 says it, with what the package checker then skips)
        return (f" but {where} says {wanted!r}; the run is judged under the division its "
                "logs name, the folder's seeds and RCP test under the description's (as the package checker runs them)")
    return f" but {where} says {wanted!r}"
