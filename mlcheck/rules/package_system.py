"""System descriptions (family MLC5xx): ``<org>/systems/<system>.json`` must exist for every
results folder, hold the round's required fields, and agree with the logs
(:mod:`mlcheck.rules.system_logs`); its status is :mod:`mlcheck.rules.system_status`'s. Where a
whole package is checked, so is every other ``systems/*.json``: the package checker reads each
(``check_systems``) and fails the package on one its system_desc_checker refuses.

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
  table's row: not text there is an error (``system_row.py``), and so is a count the result
  summarizer cannot read with ``int()`` (``number_of_nodes``, ``accelerators_per_node``,
  ``host_processors_per_node``: ``""``, ``"2.0"``), or notes (``hw_notes``, ``sw_notes``) it
  cannot join: it stops (an error, not ``official``: the package checker passes the file). Other
  values are at most a warning: a division other than closed/open, an object, list, true/false or
  null in a field the results table shows (an empty ``submitter`` or ``system_name``: MLC514). An
  object or list in a field no tool reads (``other_software_stack``, as many submitters write it)
  is not reported: the checker accepts it and nothing reads it. Fix: write the value as text.
- MLC513 system-description-duplicate-key: a key appears twice; JSON keeps the last value, which
  may not be the one you meant. Fix: delete one.
- MLC514 system-description-placeholder: fields left "TODO" (or "TBD", "FIXME", "XXX"), or empty
  where the results table shows them (a warning: the table will show the placeholder or nothing;
  the ``*notes`` fields may stay empty). An empty field no tool reads (``accelerator_frequency``,
  ``host_processor_caches``...) is only a note: no round's system_desc_checker looks at values,
  and published descriptions leave such fields empty. Fix: fill them in or write "N/A".
"""

from __future__ import annotations

import os
import reprlib
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

from mlcheck.model import Finding, Severity
from mlcheck.package.layout import JsonDocument
from mlcheck.rules.system_row import (counted_field_findings, crashing_fields, joined_field_findings,
                                      notes_field_findings, uncountable_fields, unjoinable_notes)
from mlcheck.rule import Rule
from mlcheck.rules.near_names import near_name
from mlcheck.rules.schema_accepts import QuickValidator, quick_validator
from mlcheck.rules.system_status import status_findings, system_schema

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
                          "system description fields are empty or TODO", also=(Severity.INFO,))
RULES = (SYSTEM_MISSING, SYSTEM_UNREADABLE, SYSTEM_INVALID, SYSTEM_DUPLICATE_KEY, SYSTEM_PLACEHOLDER)

_PLACEHOLDERS = frozenset({"", "todo", "tbd", "fixme", "xxx"})
_TABLE_FIELDS = frozenset({"submitter", "division", "status", "system_name", "number_of_nodes",
                           "host_processors_per_node", "host_processor_model_name", "accelerator_model_name",
                           "accelerators_per_node", "framework", "hw_notes", "sw_notes"})
"""The fields the result summarizer puts in the results table; no tool reads the others."""
_ACCEPTED = "the round's system_desc_checker accepts it"
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxdict = _SHORT.maxlist = 3


def check_system_description(doc: JsonDocument, results_folder: str, ruleset: str | None,
                             beside: Sequence[str] = ()) -> list[Finding]:
    """Findings about one system description file (``beside``: the names of the files in its
    folder, one of which may be it misnamed)."""
    if not doc.exists:
        return [SYSTEM_MISSING.at(doc.path, None, f"{results_folder} has no system description; "
                                  f"expected {doc.path} with the round's 33 fields{_named_like(doc.path, beside)}")]
    if doc.data is None:
        return [SYSTEM_UNREADABLE.at(doc.path, doc.error_line, f"cannot read the system description: {doc.error}")]
    found = [SYSTEM_DUPLICATE_KEY.at(doc.path, line, f"key {key!r} appears more than once; JSON keeps "
                                     f"the last value {doc.data.get(key)!r}") for key, line in doc.duplicate_keys]
    found.extend(joined_field_findings(SYSTEM_INVALID, doc.path, doc.data, doc.line_of))
    found.extend(counted_field_findings(SYSTEM_INVALID, doc.path, doc.data, doc.line_of))
    found.extend(notes_field_findings(SYSTEM_INVALID, doc.path, doc.data, doc.line_of))
    status = status_findings(doc.path, doc.data, ruleset, doc.line_of("status"))
    refused = ["status"] if any(f.severity is Severity.ERROR for f in status) else []  # (MLC515 says so, rv300)
    said = crashing_fields(doc.data) + uncountable_fields(doc.data) + unjoinable_notes(doc.data) + refused
    found.extend(_schema_findings(doc.path, doc.data, line_of=doc.line_of, said=frozenset(said)))  # (said once)
    found.extend(_placeholder_findings(doc))
    return found + status


def _placeholder_findings(doc: JsonDocument) -> list[Finding]:
    """MLC514: a warning for TODO-like values and empty fields of the results table, a note for
    other empty fields; each at the first such field in the file."""
    assert doc.data is not None
    placeholders = {k: v.strip().lower() for k, v in doc.data.items()
                    if isinstance(v, str) and v.strip().lower() in _PLACEHOLDERS and not k.endswith("notes")}
    shown = sorted(k for k, v in placeholders.items() if v or k in _TABLE_FIELDS)
    quiet = sorted(k for k in placeholders if k not in shown)
    found = []
    todo, empty = any(placeholders[k] for k in shown), any(not placeholders[k] for k in shown)
    said = ("hold a placeholder (TODO, TBD)" if todo else "") + (" or, " if todo and empty else "") + (
        "are empty where the results table shows them" if empty else "")
    for fields, severity, what, why in (
            (shown, Severity.WARNING, said, ""),
            (quiet, Severity.INFO, "are empty", ": no tool reads them (the results table does not show them), but "
             "readers of the description do")):
        if fields:
            line = min((doc.line_of(k) or 0 for k in fields), default=0) or None
            named = ", ".join(f"{k} {doc.data[k].strip()!r}" if placeholders[k] else k for k in fields)
            found.append(SYSTEM_PLACEHOLDER.at(doc.path, line, f"{len(fields)} field(s) {what}: {named}{why}",
                                               severity=severity))
    return found


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
            missing.extend(f for f in error.validator_value if f not in data and f not in missing)
            continue
        if not (error.absolute_path and str(error.absolute_path[0]) in said):
            finding = _value_finding(path, error, line_of)
            if finding is not None:
                yield finding
    if missing:  # (a key of the file close to a missing one's name: said with it)
        unknown = [key for key in data if isinstance(key, str) and key not in system_schema()["properties"]]
        missing = [f"{m} ({near!r} misspelt?)" if (near := near_name(m, unknown)) else m for m in missing]
        yield SYSTEM_INVALID.at(path, None, (
            f"missing required field(s): {', '.join(missing)}; the round's system_desc_checker "
            "refuses the file. Add them (an empty string is accepted but for status from 4.1)"))


def _value_finding(path: str, error: Any, line_of: Callable[[str], int | None]) -> Finding | None:
    """A present field whose value is not what the results table expects: the official checker
    never reads values, so this is a warning; None for an object or a list in a field that no
    tool reads (``other_software_stack``: nothing to fix)."""
    where = [str(p) for p in error.absolute_path]
    field = ".".join(where) or "(top level)"
    value = error.instance
    described = (f"an object {_SHORT.repr(value)}" if isinstance(value, dict)
                 else f"a list {_SHORT.repr(value)}" if isinstance(value, list)
                 else "null" if value is None else _SHORT.repr(value))
    shown_in_table = bool(where) and where[0] in _TABLE_FIELDS
    line = line_of(where[0]) if where else None
    if isinstance(value, (dict, list)) and not shown_in_table or isinstance(value, str) and not value.strip():
        return None  # (nothing to fix; an empty field: MLC514 says it)
    expected = _expected(error)
    then = "the results table shows this field" if shown_in_table else f"mlcheck expects {expected} here"
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


def _named_like(path: str, beside: Sequence[str]) -> str:
    """``; systems/pod16-closd.json is there: a typo of the name?`` for a description named like it."""
    folder, name = os.path.split(path)
    stem = name.removesuffix(".json")
    same = sorted(n for n in beside if n != name and (n.lower() == name.lower() or n == stem or n.startswith(name)))
    if same:  # (systems/X, X.JSON, X.json.txt: the official tools read systems/<system>.json alone)
        return f"; {os.path.join(folder, same[0])} is there: name it {name}"
    near = near_name(name, (n for n in beside if n.endswith(".json")), cutoff=0.75)
    return f"; {os.path.join(folder, near)} is there: a typo of the system's name?" if near else ""
