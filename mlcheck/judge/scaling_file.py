"""A benchmark folder's ``scaling.json`` as the round's summarizer reads it (rules §Score scaling,
from v2.0): its factor and what is wrong with it (MLC504, MLC523; :mod:`mlcheck.rules.package`)."""

from __future__ import annotations

import os
import stat

from mlcheck.facts.rulesets import Ruleset
from mlcheck.model import Finding
from mlcheck.package.layout import read_json_document
from mlcheck.read.file_names import STDIN_FOLDER
from mlcheck.rules import package as package_rules


def read_scaling_file(folder: str, ruleset: Ruleset | None) -> tuple[str, float | None, list[Finding]]:
    """(the path of ``folder``'s scaling.json, its factor or None, its findings). Standard input's
    runs lie in no folder: the working folder's scaling.json is not theirs."""
    scaling_path = os.path.join(folder, "scaling.json")
    if folder == STDIN_FOLDER or not os.path.exists(scaling_path):
        return scaling_path, None, []
    if ruleset is not None and not ruleset.scaling_json:
        return scaling_path, None, [package_rules.SCALING_NOT_IN_ROUND.at(scaling_path, None, (
            f"training {ruleset.version} has no score scaling (it came with v2.0): scaling.json is "
            "ignored. Remove it, or check the round"))]
    document = read_json_document(scaling_path)
    error = document.error if document.exists else (
        "it is a folder, not a JSON file" if os.path.isdir(scaling_path) else "it is not a regular file")
    factor, findings = package_rules.scaling_factor(scaling_path, document.data, error, document.error_line,
                                                    document.line_of)
    return scaling_path, factor, findings


def checker_stops_on(scaling_path: str, writes: bool, deletes: bool) -> str | None:
    """Why the round's package checker stops on the folder's ``scaling.json`` (a traceback: the
    package refused) where its RCP checker deletes it (``os.remove`` where ``os.path.exists``,
    5.1+) or writes the RCP factor into it (``open(path, "w")``, 2.1+); None when it does not."""
    if not os.path.lexists(scaling_path):
        return None
    if deletes and os.path.exists(scaling_path):
        if os.path.isdir(scaling_path) and not os.path.islink(scaling_path):
            return ("it is a folder, and the round's RCP checker removes scaling.json before it evaluates the RCP "
                    "(os.remove raises IsADirectoryError)")
        return None  # (removed, a link too: what it then writes is a new file)
    return _unwritable(scaling_path) if writes else None


def _unwritable(path: str) -> str | None:
    """What ``open(path, "w")`` would raise, as far as the path's kind tells (nothing is opened)."""
    written = "the round's RCP checker writes the RCP factor into it"
    try:
        status = os.stat(path)
    except FileNotFoundError:  # (a link to nothing: open creates its target, if its folder exists)
        target = os.readlink(path) if os.path.islink(path) else ""
        if target.endswith("/"):
            return f"it is a link to a folder that does not exist, and {written} (IsADirectoryError)"
        if not os.path.isdir(os.path.dirname(os.path.realpath(path))):
            return f"it is a link to a path in no folder, and {written} through it (FileNotFoundError)"
        return None
    except OSError as error:  # (a loop of links: ELOOP)
        return f"it cannot be opened ({error.strerror or error}), and {written}"
    if stat.S_ISDIR(status.st_mode):
        return f"it is a folder, and {written} (IsADirectoryError)"
    return None
