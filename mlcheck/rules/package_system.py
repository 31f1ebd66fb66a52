"""System descriptions (family MLC5xx): ``<org>/systems/<system>.json`` must exist for every
results folder, hold the round's required fields, and agree with the logs.

Rules text: policies submission_rules.adoc (directory layout, system description fields); the
round's ``system_desc_checker`` requires 33 fields. Schema: ``schemas/system-description.schema.json``.

- MLC510 system-description-missing: ``results/<system>/`` has no ``systems/<system>.json``. The
  official package checker crashes with FileNotFoundError. Fix: add the file, named exactly as the
  results folder.
- MLC511 system-description-unreadable: the file is not valid JSON or not a JSON object. Fix: the
  message gives the line of the syntax error.
- MLC512 system-description-invalid: a required field is missing or has the wrong type (counts such
  as ``number_of_nodes`` must be whole numbers). The official checker reports missing fields.
- MLC513 system-description-duplicate-key: a key appears twice; JSON keeps the last value, which
  may not be the one you meant. Fix: delete one.
- MLC514 system-description-placeholder: fields left empty or "TODO" (warning; the results table
  will show them empty; the ``*notes`` fields may stay empty). Fix: fill them in or write "N/A".
- MLC515 system-status-unknown: ``status`` is not one of the round's availability values (warning
  before 4.0, where the official checker does not check it).
- MLC516 logs-disagree-with-system: a run's ``submission_org``, ``submission_division``,
  ``submission_status`` or ``submission_platform`` differs from the system description
  (``submitter``, ``division``, ``status``, folder or ``system_name``). A different division is an
  error (it decides which rules apply); the others are warnings. Fix: make them agree.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable

from mlcheck.model import Finding, Run, Severity
from mlcheck.package import JsonDocument
from mlcheck.rules.base import Rule

SYSTEM_MISSING = Rule("MLC510", "system-description-missing", Severity.ERROR,
                      "a results folder has no systems/<system>.json")
SYSTEM_UNREADABLE = Rule("MLC511", "system-description-unreadable", Severity.ERROR,
                         "the system description is not a readable JSON object", official=True)
SYSTEM_INVALID = Rule("MLC512", "system-description-invalid", Severity.ERROR,
                      "the system description lacks a required field or has a wrong type", official=True)
SYSTEM_DUPLICATE_KEY = Rule("MLC513", "system-description-duplicate-key", Severity.WARNING,
                            "a key appears twice in the system description")
SYSTEM_PLACEHOLDER = Rule("MLC514", "system-description-placeholder", Severity.WARNING,
                          "system description fields are empty or TODO")
SYSTEM_STATUS_UNKNOWN = Rule("MLC515", "system-status-unknown", Severity.WARNING,
                             "the system status is not one of the round's values")
LOGS_DISAGREE = Rule("MLC516", "logs-disagree-with-system", Severity.ERROR,
                     "the logs' submission_* values differ from the system description")

RULES = (SYSTEM_MISSING, SYSTEM_UNREADABLE, SYSTEM_INVALID, SYSTEM_DUPLICATE_KEY, SYSTEM_PLACEHOLDER,
         SYSTEM_STATUS_UNKNOWN, LOGS_DISAGREE)

_PLACEHOLDERS = frozenset({"", "todo", "tbd", "fixme", "xxx"})


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
        return [SYSTEM_UNREADABLE.at(doc.path, None, f"cannot read the system description: {doc.error}")]
    found = [SYSTEM_DUPLICATE_KEY.at(doc.path, line, f"key {key!r} appears more than once; JSON keeps "
                                     f"the last value {doc.data.get(key)!r}") for key, line in doc.duplicate_keys]
    found.extend(_schema_findings(doc.path, doc.data))
    empty = sorted(k for k, v in doc.data.items()
                   if isinstance(v, str) and v.strip().lower() in _PLACEHOLDERS and not k.endswith("notes"))
    if empty:
        found.append(SYSTEM_PLACEHOLDER.at(doc.path, None, f"{len(empty)} field(s) empty or TODO: "
                                           f"{', '.join(empty)}"))
    status = doc.data.get("status")
    vocabulary = system_schema()["$defs"]["status_by_round"].get(ruleset or "")
    if vocabulary and isinstance(status, str) and status.strip() and status not in vocabulary:
        found.append(SYSTEM_STATUS_UNKNOWN.at(doc.path, None, f"status {status!r} is not one of "
                                              f"{', '.join(vocabulary)} (training {ruleset})"))
    return found


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema  # the checker already loaded it for the rulesets

    return jsonschema.Draft202012Validator(system_schema())


def _schema_findings(path: str, data: dict[str, Any]) -> Iterable[Finding]:
    missing: list[str] = []
    errors = _validator().iter_errors(data)
    for error in sorted(errors, key=lambda e: (list(e.absolute_path), e.message)):
        if error.validator == "required":
            missing.extend(f for f in error.validator_value if f not in data)
            continue
        field = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        yield SYSTEM_INVALID.at(path, None, f"field {field!r} has value {error.instance!r}: "
                                f"{_type_hint(error.validator)}")
    if missing:
        yield SYSTEM_INVALID.at(path, None, f"missing required field(s): {', '.join(missing)}")


def _type_hint(validator: object) -> str:
    if validator == "enum":
        return "expected closed or open"
    if validator in ("anyOf", "pattern"):
        return "expected a whole number"
    return "expected a non-empty string"


def _same(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


def _within(a: str, b: str) -> bool:
    a, b = a.strip().lower(), b.strip().lower()
    return bool(a) and bool(b) and (a in b or b in a)


def check_logs_against_system(folder: str, system: str, runs: Iterable[Run], doc: JsonDocument) -> list[Finding]:
    """Compare each run's ``submission_*`` values with the system description (first mismatch per
    key, with the run's line)."""
    data = doc.data
    if data is None:
        return []
    found: list[Finding] = []
    reported: set[str] = set()
    for run in runs:
        for key, expected, severity in (
                ("submission_division", [data.get("division")], Severity.ERROR),
                ("submission_org", [data.get("submitter")], Severity.WARNING),
                ("submission_status", [data.get("status")], Severity.WARNING),
                ("submission_platform", [system, data.get("system_name")], Severity.WARNING)):
            event = run.first(key)
            wanted = [e for e in expected if isinstance(e, str) and e]
            if key in reported or event is None or not isinstance(event.value, str) or not wanted:
                continue
            if any(_same(event.value, w) or (key == "submission_platform" and _within(event.value, w))
                   for w in wanted):
                continue
            if key == "submission_org" and any(_same(event.value.split()[0], w.split()[0]) for w in wanted):
                severity = Severity.WARNING
            reported.add(key)
            found.append(LOGS_DISAGREE.at(run.path, event.line, (
                f"{key} is {event.value!r} but {doc.path} says {' or '.join(repr(w) for w in wanted)}"),
                severity=severity, run_index=run.index))
    return found
