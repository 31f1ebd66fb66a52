"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One ``reportingDescriptor`` per mlcheck rule (with its documentation), one result per finding with
a repository-relative path and the physical line (a finding about a folder is placed in its first
result file, as ``--format github`` places it: code scanning places results in files), and a
stable fingerprint that does not move when unrelated lines do. Waived findings are kept as results with an accepted external suppression.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import os
import re
from typing import Any, Iterable, Iterator
from urllib.parse import quote

from mlcheck import __version__
from mlcheck.model import Finding, Severity
from mlcheck.results import CheckResult
from mlcheck.report import NOT_FILES, ReportOptions, up_to_benchmark_folder, is_inside, names_no_file, relative_path, rule_help
from mlcheck.report.json_report import Items, json_blocks
from mlcheck.rules import all_rules

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/mlcommons/training_policies"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def fingerprint(found: Finding, uri: str) -> str:
    """A hash of what identifies a finding: code, file (its URI), run and message without line
    numbers (``line 7``, ``lines 210, 223``), and with each path in it (``../x/result_0.txt``, as typed on the command line) cut to
    its last name: the same finding has the same fingerprint however its paths were typed."""
    message = _PATH.sub(_last_name, _LINES.sub("line", _spaced_folders_cut(found.message, found.path)))
    key = f"{found.code}|{uri}|{found.run_index}|{message}"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


_LINES = re.compile(r"\blines \d+(?:(?:, | and |-| to |, and )\d+)*|\bline \d+")
"""Line numbers in a message (``line 7``, ``lines 210, 223``, ``lines 5-9``, ``lines 40 to 900``):
they move when unrelated lines do (``line 7, 3 records`` keeps its count)."""
_PATH = re.compile(r"(?<![^\s,;'\"()\[\]])[^\s,;'\"()\[\]/\\]*[/\\][^\s,;'\"()\[\]]*")
"""A word of a message with a path separator in it, tried from the word's start alone (up to its
first separator, then the rest): a long word without one is passed over once, not again from each
of its letters (a 200,000-letter value in a message took four minutes)."""


def _spaced_folders_cut(message: str, path: str) -> str:
    """``message`` without the folders of ``path`` as typed that hold a blank (``fp sp/Ac me/``),
    where a path of the message begins with them: :data:`_PATH` takes a path at its blanks apart,
    and ``fp sp/Ac me/systems/x.json`` and ``../systems/x.json`` must both end as ``x.json``."""
    folder = os.path.dirname(path.replace("\\", "/").rstrip("/")) if path else ""
    while folder and any(c.isspace() for c in folder):
        message = re.sub(r"(?<![^\s,;'\"()\[\]])" + re.escape(folder) + r"/", "", message)
        folder = os.path.dirname(folder)
    return message


def _last_name(match: re.Match[str]) -> str:
    return match.group().replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def _rules() -> list[dict[str, Any]]:
    described = []
    for rule in all_rules():
        text = rule_help(rule.code)
        described.append({
            "id": rule.code, "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": text},
            "help": {"text": f"{rule.summary}. {text} (mlcheck explain {rule.code})"},
            "defaultConfiguration": {"level": _LEVEL[rule.severity]},
            "properties": {"official": rule.official_somewhere, "tags": ["mlperf", f"family-{rule.code[3]}xx"]},
        })
    return described


class _Anchors:
    """Where a finding about a folder is placed: the folder's first result file (code scanning
    places a result in a file; ``--format github`` attaches it there too), or a file of the folder
    when it holds no result file. A finding about no file (stdin, the environment's settings), or
    about a folder holding no file, is placed in the first result file of the report: code
    scanning refuses the whole upload for one result without a file's URI."""

    def __init__(self, result: CheckResult) -> None:
        self._paths = sorted({run.path for run in result.runs  # (a folder named result_0.txt is no file to point at)
                              if not names_no_file(run.path) and not os.path.isdir(run.path)})
        self._first_in: dict[str, str] = {}  # (a folder's own first result file, before those of its folders)
        for path in self._paths:
            self._first_in.setdefault(os.path.dirname(path), path)

    def file_of(self, path: str) -> str | None:
        """The first result file under the folder ``path``, or for a benchmark folder's ``power/``
        or ``power/result_<i>/`` under its benchmark folder; for a folder without one (a benchmark
        folder of no result file), its first file, else the report's first result file; None when
        ``path`` is no folder."""
        if names_no_file(path):
            return self._paths[0] if self._paths else None
        if not os.path.lexists(path):  # (a file the finding says is missing: the first result file above it)
            return self._under_a_parent(path)
        if os.path.isfile(path) or not os.path.isdir(path):
            return None
        for folder in up_to_benchmark_folder(path):
            found = self._first_in.get(folder) or self._first_under(folder)
            if found is not None or folder == os.curdir:
                return found
        try:
            inside = sorted(entry.path for entry in os.scandir(path) if entry.is_file())
        except OSError:
            inside = []
        return inside[0] if inside else (self._paths[0] if self._paths else None)

    def _first_under(self, folder: str) -> str | None:
        """The first result file under ``folder`` (``.``: a run's path names no folder, those of the
        current one)."""
        if folder == os.curdir:
            return next((p for p in self._paths if not os.path.isabs(p) and not p.startswith(os.pardir)), None)
        prefix = folder + os.sep
        at = bisect.bisect_left(self._paths, prefix)
        return self._paths[at] if at < len(self._paths) and self._paths[at].startswith(prefix) else None

    def _under_a_parent(self, path: str) -> str | None:
        """The first result file under the nearest folder above ``path`` that holds one, else the
        report's first."""
        folder = os.path.dirname(path) or os.curdir
        while True:
            found, parent = self._first_under(folder), os.path.dirname(folder) or os.curdir
            if found is not None or parent == folder:
                return found or (self._paths[0] if self._paths else None)
            folder = parent


def _artifact(path: str, options: ReportOptions) -> dict[str, str]:
    if path in ("-", "") or is_inside(path, options.root):
        # (a file name that is not UTF-8 keeps its bytes, percent-encoded)
        uri = quote(os.fsencode(relative_path(path, options.root)), safe="/:")
        return {"uri": _no_scheme(uri), "uriBaseId": "%SRCROOT%"}
    # outside the repository: an absolute URI rather than a "../" path code scanning rejects
    return {"uri": "file://" + quote(os.fsencode(os.path.abspath(path)), safe="/:")}


@functools.lru_cache(maxsize=8)
def _in_checkout(root: str) -> bool:
    """Whether the report's root holds ``.git`` (asked once, not once per finding)."""
    return os.path.exists(os.path.join(root, ".git"))


def _package_parts(path: str) -> tuple[list[str], int] | None:
    """A path's absolute parts and the index of its package's folder (the one above ``results/``
    or ``systems/``), or None outside a package."""
    if path in ("-", ""):
        return None
    parts = os.path.abspath(path).replace(os.sep, "/").split("/")
    at = max((i for i, part in enumerate(parts) if part in ("results", "systems") and i > 0), default=None)
    return (parts, at - 1) if at is not None else None


class _PackageNames:
    """Where no ``.git`` gives paths a root (the report's root is then the working folder), a
    finding's path from its package's folder on (``Acme/results/...``), so that it has the same
    fingerprint from whatever folder mlcheck ran; two packages of one name in one report
    (``training-1.0/Acme``, ``training-1.1/Acme``) each with as many folders above it as tell
    them apart. None inside a checkout or outside a package."""

    def __init__(self, paths: Iterable[str], root: str) -> None:
        self._shown: dict[str, str] = {}
        if _in_checkout(root):
            return
        by_name: dict[str, set[tuple[str, ...]]] = {}
        for path in set(paths):
            placed = _package_parts(path)
            if placed is not None:
                parts, at = placed
                by_name.setdefault(parts[at], set()).add(tuple(parts[:at + 1]))
        for folders in by_name.values():
            depth = 1
            while len({folder[-depth:] for folder in folders}) < len(folders):
                depth += 1
            self._shown.update(("/".join(folder), "/".join(folder[-depth:])) for folder in folders)

    def relative(self, path: str) -> str | None:
        placed = _package_parts(path) if self._shown else None
        if placed is None:
            return None
        parts, at = placed
        return "/".join([self._shown["/".join(parts[:at + 1])], *parts[at + 1:]])


def _about(found: Finding) -> str:
    """What a finding placed in another file is about."""
    if not names_no_file(found.path):
        return f"the folder {found.path}" if os.path.lexists(found.path) else f"{found.path}, which does not exist"
    return NOT_FILES[found.path] + ("" if found.line is None else f", line {found.line}")


def _no_scheme(uri: str) -> str:
    """A relative reference whose first segment holds a ``:`` (``Ac:me,x/results/...``) would
    read as an absolute URI of the scheme ``ac`` (RFC 3986, 4.2): that colon is percent-encoded.
    Every other colon stays as it was (the same URIs as before for every other path)."""
    first, slash, rest = uri.partition("/")
    return first.replace(":", "%3A") + slash + rest if ":" in first else uri


def _result(found: Finding, rule_index: dict[str, int], options: ReportOptions,
            reason: str | None = None, anchors: _Anchors | None = None,
            packages: _PackageNames | None = None) -> dict[str, Any]:
    anchor = anchors.file_of(found.path) if anchors is not None else None
    about = anchor is not None or (found.path == "-" and names_no_file("-"))  # (stdin alone: uri "-", its line said)
    message = f"{found.message} (about {_about(found)})" if about else found.message
    # (the fingerprint's: the folder's, not its anchor's; outside a git checkout, from the package's folder on)
    shown = packages.relative(found.path) if packages is not None else None
    uri = shown or _artifact(found.path, options)["uri"]
    location: dict[str, Any] = {"artifactLocation": _artifact(found.path if anchor is None else anchor, options)}
    if found.line is not None and anchor is None:
        location["region"] = {"startLine": found.line}
    result: dict[str, Any] = {
        "ruleId": found.code, "level": _LEVEL[found.severity], "message": {"text": message},
        "locations": [{"physicalLocation": location}],
        "partialFingerprints": {"mlcheck/v1": fingerprint(found, uri)},
        "properties": {"official": found.official, "runIndex": found.run_index},
    }
    if found.items:  # what a finding that stands for several problems covers
        result["properties"].update(items=list(found.items), itemCount=max(found.item_count, len(found.items)))
    if found.code in rule_index:
        result["ruleIndex"] = rule_index[found.code]
    if reason is not None:
        result["suppressions"] = [{"kind": "external", "status": "accepted", "justification": reason}]
    return result


def sarif_dict(result: CheckResult, options: ReportOptions) -> dict[str, Any]:
    """The SARIF log as plain data."""
    log = _sarif(result, options)
    results: Items = log["runs"][0]["results"]
    log["runs"][0]["results"] = [results.make(item) for item in results.items]
    return log


def _sarif(result: CheckResult, options: ReportOptions) -> dict[str, Any]:
    """The SARIF log, its results as :class:`~mlcheck.report.json_report.Items` (made as they are
    written)."""
    rules = _rules()
    index = {rule["id"]: position for position, rule in enumerate(rules)}
    found = result.all_findings()
    listed = [(f, None) for f in found] + [(w.finding, w.reason) for w in result.waived]
    anchors, packages = _Anchors(result), _PackageNames((f.path for f, _reason in listed), options.root)
    results = Items(listed, lambda item: _result(item[0], index, options, item[1], anchors, packages))
    failing = any(f.severity >= options.fail_level for f in found)
    return {
        "$schema": SARIF_SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "mlcheck", "version": __version__, "semanticVersion": __version__,
                                "informationUri": INFORMATION_URI, "rules": rules}},
            "invocations": [_invocation(failing, options, index.get("MLC001"))],
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def _invocation(failing: bool, options: ReportOptions, unreadable_rule: int | None) -> dict[str, Any]:
    """The run's invocation: not successful where a path named on the command line could not be
    opened at all (mlcheck exits 2), each such path a notification of rule MLC001 (its
    ``associatedRule``: a ``descriptor`` would name one of the tool's notification descriptors)."""
    invocation: dict[str, Any] = {"executionSuccessful": not options.unopenable,
                                  "properties": {"verdict": "fail" if failing else "pass"}}
    if options.unopenable:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": f"{path}: could not be opened; it was not checked"},
             "associatedRule": {"id": "MLC001", **({} if unreadable_rule is None else {"index": unreadable_rule})}}
            for path in options.unopenable]
    return invocation


def sarif_blocks(result: CheckResult, options: ReportOptions) -> Iterator[str]:
    """The text of :func:`render_sarif` in blocks, each result made as it is written."""
    return json_blocks(_sarif(result, options))


def render_sarif(result: CheckResult, options: ReportOptions) -> str:
    """The SARIF log as deterministic JSON text."""
    return "".join(sarif_blocks(result, options))
