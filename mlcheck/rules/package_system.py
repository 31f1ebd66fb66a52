"""System descriptions (family MLC5xx): ``<org>/systems/<system>.json`` must exist for every
results folder, hold the round's required fields, and agree with the logs.

Rules text: policies submission_rules.adoc (directory layout, system description fields); the
round's ``system_desc_checker`` requires 33 fields. Schema: ``schemas/system-description.schema.json``.

- MLC510 system-description-missing: ``results/<system>/`` has no ``systems/<system>.json``. The
  official package checker crashes with FileNotFoundError. Fix: add the file, named exactly as the
  results folder.
- MLC511 system-description-unreadable: the file is not valid JSON or not a JSON object. Fix: the
  message gives the line of the syntax error.
- MLC512 system-description-invalid: a required field is missing (error: the round's
  ``system_desc_checker`` refuses the file), or a present field does not hold what the results
  table expects. The checker checks that the 33 fields are present and joins seven into the
  table's row: not text there is an error (``system_row.py``). Other values are at most a warning:
  a count that is not a whole number (``number_of_nodes``: the summarizer multiplies it), a division
  other than closed/open, an empty ``submitter``, an object, list, true/false or null in a field the
  results table shows; an object or list in a field no tool reads (``other_software_stack``, as many
  submitters write it) is only a note. Fix: write the value as text.
- MLC513 system-description-duplicate-key: a key appears twice; JSON keeps the last value, which
  may not be the one you meant. Fix: delete one.
- MLC514 system-description-placeholder: fields left empty or "TODO" (warning; the results table
  will show them empty; the ``*notes`` fields may stay empty). Fix: fill them in or write "N/A".
- MLC515 system-status-unknown: ``status`` is not one of the round's availability values. Before
  training 4.0 the official checker does not look at it (warning); from 4.1 it must be exactly one
  of ``Available on-premise``, ``Available cloud``, ``Research, Development, or Internal (RDI)``,
  ``Preview`` (error, the checker refuses the file); 4.0 checked a wider list of spellings (``cloud``,
  ``onprem``...: a warning when it is none of them). Today's system_desc_checker (mlperf-logging
  4.1.68) applies the exact list to 4.0 as well (its test is ``ruleset major >= 4``); mlcheck
  follows the round's checker of record.
- MLC516 logs-disagree-with-system: a run's ``submission_org``, ``submission_division``,
  ``submission_status`` or ``submission_platform`` differs from the system description
  (``submitter``, ``division``, ``status``, folder or ``system_name``). A warning: no round's
  checker of record compares them (accepted 1.0 packages spell the division ``close`` in the system
  description and ``closed`` in the logs); the runs are judged under the division their logs name. The log and the system
  description spell the availability in two vocabularies (the log's ``cloud``, ``onprem``,
  ``preview``, ``research`` of common.yaml up to 4.0; the system's ``Available on-premise``,
  ``Available cloud``, ``Research, Development, or Internal (RDI)``, ``Preview`` that the 4.0+
  system_desc_checker asks for, and the earlier spellings): ``onprem`` agrees with 'Available
  on-premise', the 1.x ``available`` with both on-premise and cloud. Fix: make them agree.
"""

from __future__ import annotations

import json
import re
import reprlib
from functools import lru_cache
from typing import Any, Callable, Iterable

from mlcheck.facts import resources
from mlcheck.model import Finding, Severity
from mlcheck.package.layout import JsonDocument
from mlcheck.results import RunSummary
from mlcheck.rules.system_row import crashing_fields, joined_field_findings
from mlcheck.rule import Rule
from mlcheck.rules.package_runs import version_key
from mlcheck.rules.schema_accepts import QuickValidator, quick_validator

SYSTEM_MISSING = Rule("MLC510", "system-description-missing", Severity.ERROR,
                      "a results folder has no systems/<system>.json", official=True)
SYSTEM_UNREADABLE = Rule("MLC511", "system-description-unreadable", Severity.ERROR,
                         "the system description is not a readable JSON object", official=True)
SYSTEM_INVALID = Rule("MLC512", "system-description-invalid", Severity.ERROR,
                      "the system description lacks a required field (or a value is not as expected)",
                      official=True, also=(Severity.WARNING, Severity.INFO))
SYSTEM_DUPLICATE_KEY = Rule("MLC513", "system-description-duplicate-key", Severity.WARNING,
                            "a key appears twice in the system description")
SYSTEM_PLACEHOLDER = Rule("MLC514", "system-description-placeholder", Severity.WARNING,
                          "system description fields are empty or TODO")
SYSTEM_STATUS_UNKNOWN = Rule("MLC515", "system-status-unknown", Severity.WARNING,
                             "the system status is not one of the round's values", also=(Severity.ERROR,))
LOGS_DISAGREE = Rule("MLC516", "logs-disagree-with-system", Severity.WARNING,
                     "the logs' submission_* values differ from the system description")

RULES = (SYSTEM_MISSING, SYSTEM_UNREADABLE, SYSTEM_INVALID, SYSTEM_DUPLICATE_KEY, SYSTEM_PLACEHOLDER,
         SYSTEM_STATUS_UNKNOWN, LOGS_DISAGREE)

_PLACEHOLDERS = frozenset({"", "todo", "tbd", "fixme", "xxx"})
_TABLE_FIELDS = frozenset({"submitter", "division", "status", "system_name", "number_of_nodes",
                           "host_processors_per_node", "host_processor_model_name", "accelerator_model_name",
                           "accelerators_per_node", "framework", "hw_notes", "sw_notes"})
"""The fields the result summarizer puts in the results table; no tool reads the others."""
OFFICIAL_STATUS = ("Available on-premise", "Available cloud", "Research, Development, or Internal (RDI)",
                   "Preview")
"""The availability values system_desc_checker requires from training 4.1 (exactly)."""
_ACCEPTED = "the round's system_desc_checker accepts it"
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxdict = _SHORT.maxlist = 3


@lru_cache(maxsize=1)
def system_schema() -> dict[str, Any]:
    """``schemas/system-description.schema.json``."""
    text = resources.files("mlcheck.schemas").joinpath("system-description.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def check_system_description(doc: JsonDocument, results_folder: str, ruleset: str | None) -> list[Finding]:
    """Findings about one system description file."""
    if not doc.exists:
        return [SYSTEM_MISSING.at(doc.path, None, f"{results_folder} has no system description; "
                                  f"expected {doc.path} with the round's 33 fields")]
    if doc.data is None:
        return [SYSTEM_UNREADABLE.at(doc.path, doc.error_line, f"cannot read the system description: {doc.error}")]
    found = [SYSTEM_DUPLICATE_KEY.at(doc.path, line, f"key {key!r} appears more than once; JSON keeps "
                                     f"the last value {doc.data.get(key)!r}") for key, line in doc.duplicate_keys]
    found.extend(joined_field_findings(SYSTEM_INVALID, doc.path, doc.data, doc.line_of))
    found.extend(_schema_findings(doc.path, doc.data, line_of=doc.line_of,
                                  said=frozenset(crashing_fields(doc.data))))  # (said once: the error)
    empty = sorted(k for k, v in doc.data.items()
                   if isinstance(v, str) and v.strip().lower() in _PLACEHOLDERS and not k.endswith("notes"))
    if empty:  # (at the first of them in the file)
        found.append(SYSTEM_PLACEHOLDER.at(doc.path, min((doc.line_of(k) or 0 for k in empty), default=0) or None,
                                           f"{len(empty)} field(s) empty or TODO: {', '.join(empty)}"))
    found.extend(_status_findings(doc.path, doc.data, ruleset, doc.line_of("status")))
    return found


def _status_findings(path: str, data: dict[str, Any], ruleset: str | None, line: int | None = None) -> list[Finding]:
    """MLC515 as the round's system_desc_checker decides it (a missing status is MLC512)."""
    if "status" not in data:
        return []
    status, key = data["status"], version_key(ruleset)
    listed = ", ".join(repr(s) for s in OFFICIAL_STATUS)
    if key is not None and key >= (4, 1, 0):
        if isinstance(status, str) and status in OFFICIAL_STATUS:
            return []
        return [SYSTEM_STATUS_UNKNOWN.at(path, line, (
            f"status {_SHORT.repr(status)} is not one of {listed}: the training {ruleset} "
            "system_desc_checker refuses the file. Write one of them exactly"),
            severity=Severity.ERROR, official=True)]
    if key is None or not isinstance(status, str) or not status.strip():
        return []  # (an empty status is MLC514)
    by_round: dict[str, list[str]] = system_schema()["$defs"]["status_by_round"]
    vocabulary = by_round.get(ruleset or "")
    if vocabulary is None:  # a round the schema does not list yet: any spelling used before 4.1
        vocabulary = sorted({value for values in by_round.values() for value in values})
    known = {_spelling(value) for value in (*vocabulary, *OFFICIAL_STATUS)}
    if _spelling(status) in known:
        return []
    later = ("; from training 4.1 the system_desc_checker requires one of "
             f"{listed} exactly (4.0 accepted other spellings of them)")
    return [SYSTEM_STATUS_UNKNOWN.at(path, line, (
        f"status {status!r} is not one of {', '.join(vocabulary)} (training {ruleset}){later}"))]


def _spelling(status: str) -> str:
    """A status as compared before 4.1: case, hyphens and spaces do not matter."""
    return " ".join(status.lower().replace("-", " ").split())


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema  # the checker already loaded it for the rulesets

    return jsonschema.Draft202012Validator(system_schema())


@lru_cache(maxsize=1)
def _quick() -> QuickValidator | None:
    return quick_validator(system_schema())


def _schema_findings(path: str, data: dict[str, Any], quick: bool = True,
                     line_of: Callable[[str], int | None] = lambda key: None,
                     said: frozenset[str] = frozenset()) -> Iterable[Finding]:
    """The findings of the schema's errors (found without jsonschema where that is sure), each
    at the line of its field (``line_of``), but for the fields ``said`` (an error names them)."""
    missing: list[str] = []
    validate = _quick() if quick else None
    errors: Iterable[Any] | None = validate(data) if validate is not None else None
    if errors is None:
        errors = _validator().iter_errors(data)
    for error in sorted(errors, key=lambda e: ([str(p) for p in e.absolute_path], e.message)):
        if error.validator == "required":
            missing.extend(f for f in error.validator_value if f not in data)
            continue
        if not (error.absolute_path and str(error.absolute_path[0]) in said):
            yield _value_finding(path, error, line_of)
    if missing:
        yield SYSTEM_INVALID.at(path, None, (
            f"missing required field(s): {', '.join(missing)}; the round's system_desc_checker "
            "refuses the file. Add them (an empty string is accepted but for status from 4.1)"))


def _value_finding(path: str, error: Any, line_of: Callable[[str], int | None]) -> Finding:
    """A present field whose value is not what the results table expects: the official checker
    never reads values, so this is a warning, or a note for an object or a list in a field that
    no tool reads (``other_software_stack``)."""
    where = [str(p) for p in error.absolute_path]
    field = ".".join(where) or "(top level)"
    value = error.instance
    described = (f"an object {_SHORT.repr(value)}" if isinstance(value, dict)
                 else f"a list {_SHORT.repr(value)}" if isinstance(value, list)
                 else "null" if value is None else _SHORT.repr(value))
    shown_in_table = bool(where) and where[0] in _TABLE_FIELDS
    line = line_of(where[0]) if where else None
    if isinstance(value, (dict, list)) and not shown_in_table:
        return SYSTEM_INVALID.at(path, line, (
            f"field {field!r} is {described}, not text: {_ACCEPTED}, and no tool reads this field"),
            severity=Severity.INFO, official=False)
    then = "the results table shows this field" if shown_in_table else "mlcheck expects text here"
    expected = _expected(error)
    return SYSTEM_INVALID.at(path, line, (
        f"field {field!r} is {described}, expected {expected}. {_ACCEPTED[0].upper()}{_ACCEPTED[1:]}, "
        f"but {then}: write {expected}"), severity=Severity.WARNING, official=False)


def _expected(error: Any) -> str:
    if error.validator == "enum":
        return "closed or open"
    if error.validator in ("anyOf", "pattern"):
        return "a whole number"
    if error.validator == "minLength" or error.validator_value == "string":
        return "a non-empty string"
    return "text"


_AVAILABILITY = (("preview", ("preview",)), ("research", ("research", "rdi")), ("cloud", ("cloud",)),
                 ("onprem", ("prem",)))
"""The log's submission_status vocabulary (common.yaml up to 4.0: cloud, onprem, preview, research)
and the words of the system description's status that mean each (4.0+: Available on-premise,
Available cloud, Research, Development, or Internal (RDI), Preview; earlier spellings too)."""


def _availability(status: str) -> frozenset[str]:
    """What a status means in the log's vocabulary: ``{"onprem"}`` for 'Available on-premise',
    both on-premise and cloud for the 1.x 'available', nothing for a word it does not know."""
    text = _spelling(status)
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
    """Compare each run's ``submission_*`` values with the system description (first mismatch per
    key, with the run's line)."""
    data = doc.data
    if data is None:
        return []
    found: list[Finding] = []
    reported: set[str] = set()
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
            if key in reported or event is None or not isinstance(event.value, str) or not wanted:
                continue
            same = agrees.get((key, event.value))
            if same is None:
                same = agrees[(key, event.value)] = any(
                    _same(event.value, w) or (key == "submission_platform" and _within(_nodes_off(event.value), w))
                    or (key == "submission_status" and _same_availability(event.value, w)) for w in wanted)
            if same:
                continue
            reported.add(key)
            placeholder = (", the placeholder of the reference code (the run's logging was not given the "
                           "submission's values)" if "PLACEHOLDER" in event.value.upper() else "")
            found.append(LOGS_DISAGREE.at(run.path, event.line, (
                f"{key} is {event.value!r}{placeholder} but {doc.path} says {' or '.join(repr(w) for w in wanted)}"
                + ("; the results table shows the system description's" if key == "submission_status" else "")
                + ("; the run is judged under the division its logs name" if key == "submission_division" else "")),
                severity=severity, run_index=run.index))
    return found
