"""Where a config file found by the search may write its reports (``output``): a checked package
may ship one, and checking it must not change anything but the reports asked for. Such a config
writes below the working folder only, a file named as a report, outside any submission package's
``results/``, ``systems/`` or ``benchmarks/`` folder, and replaces no existing file but a report
mlcheck wrote (not a ``README.md``, a result log or a system description). ``-o`` and ``--config``
name places as the user chooses."""

from __future__ import annotations

import os
import re

_PACKAGE_PARTS = ("results", "systems", "benchmarks")
_HEAD_SIGNATURES = (re.compile(rb'\A\s*\{\s*"schema":\s*"mlcheck-report/'),
                    re.compile(rb'\A\s*\{\s*"\$schema":\s*"[^"]*sarif[^"]*",[\s\S]*"name":\s*"mlcheck"'),
                    re.compile(rb'\A<\?xml[^>]*>\s*<testsuites name="mlcheck"'), re.compile(rb"\A## mlcheck report"),
                    re.compile(rb"\A<!DOCTYPE html>[\s\S]*<title>mlcheck report"))
"""How the reports mlcheck writes begin: JSON and SARIF, JUnit, Markdown, HTML."""
_TEXT_END = re.compile(rb"(?:^|\n)mlcheck: [^\n]*\d+ errors?, \d+ warnings?[^\n]*\n?\Z")
"""The last line of a text report written to a file (:func:`mlcheck.settings.gate.write_outputs`)."""
_PEEK = 4096


def refused_output(spec: str, cwd: str) -> str | None:
    """Why a found config may not write ``spec`` (``FORMAT:PATH`` or ``PATH``), None when it may."""
    from mlcheck.settings.gate import format_named, parse_output

    path = parse_output(spec)[1]
    if path == "-":
        return None
    full = os.path.join(cwd, path)
    if os.path.isabs(path) or path[1:2] == ":" or path[:1] in "/\\" or os.path.islink(full):  # (C:x: a drive's)
        return "is an absolute path, a drive or a link"
    if format_named(path) is None:
        return "is no report's name (ending in .sarif, .json, .xml, .md, .html or .txt)"
    real, below = os.path.realpath(full), os.path.realpath(cwd)
    if not real.startswith(os.path.join(below, "")):
        return "leads outside the working folder (.. or a link)"
    package = _package_folder(os.path.dirname(real))
    if package is not None:
        return f"lies in {os.path.relpath(package, below)}, a submission package's {os.path.basename(package)}/ folder"
    if os.path.lexists(full) and not written_by_mlcheck(full):
        return "names an existing file that is no report mlcheck wrote"
    return None


def _package_folder(folder: str) -> str | None:
    """The ``results``/``systems``/``benchmarks`` folder of a package that holds ``folder``, if any
    (a folder of that name beside another of them: ``<org>/results`` and ``<org>/systems``)."""
    while True:
        parent, name = os.path.split(folder)
        if name in _PACKAGE_PARTS and any(os.path.isdir(os.path.join(parent, other))
                                          for other in _PACKAGE_PARTS if other != name):
            return folder
        if not name or parent == folder:
            return None
        folder = parent


def written_by_mlcheck(path: str) -> bool:
    """Whether the file at ``path`` is empty or a report mlcheck wrote (by how its formats begin, or
    end for text; GitHub annotations: every line a workflow command)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_PEEK)
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(size - _PEEK, 0))
            tail = handle.read(_PEEK)
    except OSError:
        return False
    if not head.strip():
        return size <= len(head)
    if any(pattern.search(head) for pattern in _HEAD_SIGNATURES) or _TEXT_END.search(tail):
        return True
    lines = [line for line in head.splitlines()[:None if size <= len(head) else -1] if line.strip()]
    return bool(lines) and all(line.startswith(b"::") for line in lines)
