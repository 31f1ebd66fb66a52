"""mlcheck's own reports, told from logs by their bytes: a report a config wrote (and may write
again: :mod:`mlcheck.settings.found_outputs`) or one written beside console logs, which discovery
passes over (:mod:`mlcheck.package.discover`). JSON, SARIF, JUnit, Markdown and HTML reports and the
results table's CSV and Markdown begin in ways no log does; a text report is known by its first line (a benchmark folder's title,
``Findings``, ``Waived``) together with its last line (the verdict a report written with ``-o``
ends with, or the pointer to ``explain``); a results table by its caption and table; GitHub
annotations by every line being one. A file holding a record is never a report (a job's console
that ends with mlcheck's output), nor one whose last lines are not a report's (a job's console
that begins with mlcheck's output and ends with a crash)."""

from __future__ import annotations

import os
import re
import stat

_HEAD_SIGNATURES = (re.compile(rb'\A\s*\{\s*"schema":\s*"mlcheck-(?:report|results-table)/'),
                    re.compile(rb'\A\s*\{\s*"\$schema":\s*"[^"]*sarif[^"]*",[\s\S]*"name":\s*"mlcheck"'),
                    re.compile(rb'\A<\?xml[^>]*>\s*<testsuites name="mlcheck"'),
                    re.compile(rb"\A## mlcheck report\n\n(?:\xe2\x9c\x85|\xe2\x9d\x8c) \*\*mlcheck: (?:pass|fail)\*\*"),
                    re.compile(rb"\A<!DOCTYPE html>[\s\S]{0,400}<title>mlcheck report: (?:pass|fail)</title>"))
"""How the reports mlcheck writes begin: JSON and SARIF, JUnit, Markdown, HTML."""
_TABLE_HEADS = (re.compile(rb"\Around,division,availability,submitter,system,nodes,processor,processors,accelerator,"
                           rb"accelerators,framework,notes[,\r\n]"),
                re.compile(rb"\A\| round \| division \| availability \| submitter \| system \| nodes \| processor \|"))
"""How a results table's CSV and Markdown begin (``score -t csv|markdown``: the header of its fixed columns):
a job's console may print one before its records (then it is a log)."""
_TITLE = re.compile(rb"\A(?:[^\n]+ / [^\n]+ / [^\n]+ \((?:[a-z]+, )?\d+\.\d+\.\d+\)(?:\n|: (?:[0-9.]+ min|no score)  "
                    rb"(?:valid|INVALID)[^\n]*\n)|Findings\n|Waived\n|round \d+\.\d+\.\d+, [^\n]*Results in minutes[^\n]*\n)")
"""A text report's first line: a benchmark folder's title (``Acme / t8 / resnet (2.0.0)``), or its
line of ``-q`` (``... (closed, 2.0.0): 15.29 min  valid: ...``), or the findings' heading; or the
caption of a results table (``score --table-output``)."""
_TABLE = re.compile(rb"\A[^\n]*\n(?:\xe2\x94\x8f\xe2\x94\x81|\+-)")
"""A table drawn under the first line (``┏━``, or ``+-`` in ASCII): a results table's."""
_VERDICT_ONLY = re.compile(rb"\Amlcheck: [^\n]*\d+ errors?, \d+ warnings?[^\n]*\n?\Z")
"""A text report of nothing but its verdict (every finding ignored)."""
_TEXT_END = re.compile(rb"(?:\A|\n)(?:mlcheck: [^\n]*\d+ errors?, \d+ warnings?[^\n]*|`mlcheck explain CODE` documents "
                       rb"each rule \([^\n]*\)|(?:[0-9.]+ min|no score)  (?:valid|INVALID)[^\n]*|RCP (?:pass|fail|missing|skipped): [^\n]*|energy [0-9,.]+ kJ[^\n]*"
                       rb"|Statistics: no findings[^\n]*|[ \d]{7} [ \d]{6} [ \d]{7}  \d+ rules?)\n*\Z")
"""A text report's last line: the verdict a file's ends with (:func:`mlcheck.settings.gate.write_outputs`),
else (a report of standard output, or an older one) the pointer to ``explain`` where it has findings,
a folder's score or RCP line where it has none, or the ``--statistics`` table's last line."""
_QUIET = re.compile(rb"\A(?:[^\n]+ \((?:[a-z]+, )?\d+\.\d+\.\d+\): (?:[0-9.]+ min|no score)  (?:valid|INVALID)[^\n]*\n\n?)+\Z")
"""A text report of ``-q`` on a passing check: a score line per benchmark folder, and nothing else."""
_ANNOTATION = re.compile(rb"::(?:error|warning|notice|group|endgroup)\b|waived ")
"""A line of mlcheck's GitHub annotations (a waived finding's: a plain line)."""
_COLOUR = re.compile(rb"\x1b\[[0-9;]*m")
_PEEK = 4096
_RECORD = re.compile(rb':::MLLOG[ \t]*\{[ \t]*"[A-Za-z_]+"[ \t]*:')
"""A record: the marker, then a JSON object's first key (a report may quote the marker, not this)."""


def written_by_mlcheck(path: str) -> bool:
    """Whether the file at ``path`` is a report mlcheck wrote, and no log (no record in it)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):  # (a FIFO would wait for a writer)
            return False
        with open(path, "rb") as handle:
            head = handle.read(_PEEK)
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(size - _PEEK, 0))
            tail = handle.read(_PEEK)
    except OSError:
        return False
    if not head.strip():  # (empty or blank: no report, a log that logged nothing)
        return False
    if any(pattern.search(head) for pattern in _HEAD_SIGNATURES):  # (no log begins so)
        return True
    if any(pattern.search(head) for pattern in _TABLE_HEADS):
        return not _holds_record(path)
    whole = size <= len(head)  # (else the head's last line may be cut)
    head, tail = _COLOUR.sub(b"", head), _COLOUR.sub(b"", tail)  # (one of --color always)
    lines = [line for line in head.splitlines()[:None if whole else -1] if line.strip()]
    table = head.startswith(b"round ") and bool(_TABLE.search(head))  # (score's results table: its caption, a table)
    text = bool(_TITLE.search(head)) and bool(table or _TEXT_END.search(tail)) or \
        whole and bool(_QUIET.search(head) or _VERDICT_ONLY.search(head))
    looks = text or bool(lines) and all(map(_ANNOTATION.match, lines))
    return looks and not _holds_record(path)  # (a job's console that ends with mlcheck's report is a log)


def _holds_record(path: str, block: int = 1 << 20) -> bool:
    """Whether a plain file holds a ``:::MLLOG`` record (not a report's mention of the marker)."""
    tail = b""
    try:
        with open(path, "rb") as handle:
            while data := handle.read(block):
                if _RECORD.search(tail + data):
                    return True
                tail = data[-64:]
    except OSError:
        return True
    return False
