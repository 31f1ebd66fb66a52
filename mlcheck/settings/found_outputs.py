"""Where a config file found by the search may write its reports (``output``): a checked package
may ship one, and checking it must not change anything but the reports asked for. Such a config
writes below the working folder only, a file named as a report, outside any submission package's
``results/``, ``systems/`` or ``benchmarks/`` folder, and replaces no existing file but a report
mlcheck wrote (not a ``README.md``, a result log or a system description). ``-o`` and ``--config``
name places as the user chooses."""

from __future__ import annotations

import os
import stat

_PACKAGE_PARTS = ("results", "systems", "benchmarks")
"""A package's folders (any case): ``results`` alone is one (as :func:`mlcheck.package.layout.package_part`
reads it), ``systems`` and ``benchmarks`` beside another of them."""


def refused_output(spec: str, cwd: str) -> str | None:
    """Why a found config may not write ``spec`` (``FORMAT:PATH`` or ``PATH``), None when it may."""
    from mlcheck.package.own_reports import written_by_mlcheck
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
    package = _package_folder(os.path.dirname(real), below)
    if package is not None:
        return f"lies in {os.path.relpath(package, below)}, a submission package's {os.path.basename(package)}/ folder"
    if os.path.lexists(full) and not stat.S_ISREG(os.lstat(full).st_mode):  # (a FIFO would block its reading)
        return "names something that is no regular file"
    if os.path.lexists(full) and os.path.getsize(full) and not written_by_mlcheck(full):  # (an empty file: nothing lost)
        return "names an existing file that is no report mlcheck wrote"
    return None


def _package_folder(folder: str, cwd: str) -> str | None:
    """The ``results``/``systems``/``benchmarks`` folder of a package that holds ``folder``, if any
    (above the working folder ``cwd``, a ``results`` folder only beside another of them: a user's
    repository may lie in a folder named so)."""
    while True:
        parent, name = os.path.split(folder)
        alone = name.lower() == "results" and folder.startswith(os.path.join(cwd, ""))
        if alone or name.lower() in _PACKAGE_PARTS and any(
                entry.lower() in _PACKAGE_PARTS and entry != name and os.path.isdir(os.path.join(parent, entry))
                for entry in _listing(parent)):
            return folder
        if not name or parent == folder:
            return None
        folder = parent


def _listing(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []
