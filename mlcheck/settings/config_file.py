"""Reading one config file: TOML (``tomllib``, or ``tomli`` on Python 3.10), its size and nesting
bounded (a larger or deeper file is an MLC041 finding, never a crash), the ``[tool.mlcheck]`` table."""

from __future__ import annotations

import importlib
import os
import re
import stat
from functools import cache
from pathlib import Path
from typing import Any, Callable

from mlcheck.model import Finding, Severity
from mlcheck.read.log_files import link_to_nothing
from mlcheck.rules.config_rules import CONFIG_INVALID
from mlcheck.rules.near_names import near_name
from mlcheck.settings.waiver_table import line_of


@cache
def _toml_reader() -> tuple[Callable[[str], dict[str, Any]] | None, type[Exception]]:
    # tomllib is standard from Python 3.11; on 3.10 the same parser is the tomli package. Imported
    # when a config file is read (2-3 ms: most checks have none).
    for name in ("tomllib", "tomli"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        return module.loads, module.TOMLDecodeError
    return None, ValueError


def read_text(path: Path) -> str:
    """The text of a file (bytes that are no UTF-8 replaced), or an empty string when it cannot be read."""
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_CONFIG_BYTES + 1).decode("utf-8-sig", errors="replace")
    except OSError:
        return ""


MAX_CONFIG_BYTES = 1024 * 1024
"""A larger config file is not read (MLC041): its size and nesting are bounded here."""


SETTING_NAMES = frozenset({"ruleset", "format", "outputs", "output", "color", "strict", "exit_zero", "exit-zero",
                           "select", "ignore", "progress", "jobs", "waivers"})
"""The names a config file's mlcheck table may hold (a test holds them to :mod:`mlcheck.settings.config`'s)."""
_TOP_LEVEL_WAIVERS = re.compile(r"^[ \t]*\[\[[ \t]*waivers[ \t]*\]\]", re.M)
"""``[[waivers]]``: mlcheck's alone of the names a .mlcheck.toml holds (``format``, ``select`` are
other tools' too), so a pyproject.toml that holds it at its top level is found as a config."""


def load_table(path: Path, shown: str) -> tuple[dict[str, Any], str, Finding | None]:
    """The ``[tool.mlcheck]`` table of a config file, its text, and the MLC041 finding that
    says why it could not be used (then the table is empty), or, in a pyproject.toml, that names
    the settings (:data:`SETTING_NAMES`) written at its top level instead (``[[waivers]]``: TOML reserves that level
    for ``build-system``, ``project`` and ``tool``; mlcheck does not read them there)."""
    toml_loads, toml_error = _toml_reader()
    if toml_loads is None:
        return {}, "", CONFIG_INVALID.at(shown, None, "reading a config file on Python 3.10 needs "
                                         "the tomli package (pip install tomli); the file is ignored")
    try:
        kind = _not_a_file(path)
        if kind:  # (a FIFO would wait for a writer; a folder cannot be read)
            beside = path.with_name("pyproject.toml")
            hidden = path.name != beside.name and beside.is_file() and names_mlcheck_table(read_text(beside))
            return {}, "", CONFIG_INVALID.at(shown, None, f"the config file is {kind}, not a file: it is ignored" + (
                ", and the pyproject.toml beside it, which holds [tool.mlcheck], is not read while it is there: "
                "remove it" if hidden else ""))
        if path.stat().st_size > MAX_CONFIG_BYTES:
            return {}, "", CONFIG_INVALID.at(shown, None, (
                f"the config file is over {MAX_CONFIG_BYTES // 1024} KiB; a config of mlcheck is a few "
                "lines: the file is ignored"))
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")  # (a byte order mark, as Notepad writes: not a TOML error)
        data = toml_loads(text)
    except RecursionError:  # the TOML parser recurses once per level of nesting
        return {}, "", CONFIG_INVALID.at(shown, None, "the config file nests arrays or tables too "
                                         "deeply to be read; the file is ignored")
    except UnicodeDecodeError as error:
        at = error.start + 3 * raw.startswith(b"\xef\xbb\xbf")  # (counted after the byte order mark)
        return {}, "", CONFIG_INVALID.at(shown, raw.count(b"\n", 0, at) + 1,
                                         f"cannot read the config file: {error}")
    except OSError as error:
        return {}, "", CONFIG_INVALID.at(shown, None, f"cannot read the config file: {error}")
    except toml_error as error:
        match = re.search(r"line (\d+)", str(error))
        return {}, "", CONFIG_INVALID.at(shown, int(match.group(1)) if match else None,
                                         f"not valid TOML: {error}; the file is ignored")
    if path.name == "pyproject.toml" or set(data) == {"tool"}:  # a .mlcheck.toml may use [tool.mlcheck] too
        tool = data.get("tool", {})
        stray = sorted(key for key in data if key in SETTING_NAMES) if path.name == "pyproject.toml" else []
        if stray:  # (TOML reserves the top level of a pyproject.toml for build-system, project and tool)
            misplaced = ", ".join(f"[[{key}]]" if key == "waivers" and isinstance(data[key], list) else key for key in stray)
            problem = CONFIG_INVALID.at(shown, line_of(text, stray[0]), (
                f"{misplaced} at the top level of pyproject.toml is not read: only [tool.mlcheck] is "
                f"mlcheck's (write [[tool.mlcheck.waivers]], or move the settings under [tool.mlcheck])"),
                severity=Severity.WARNING)  # (mlcheck's guess: another tool's key of the same name is not mlcheck's)
            mlcheck = tool.get("mlcheck") if isinstance(tool, dict) else None
            return (mlcheck if isinstance(mlcheck, dict) else {}), text, problem
        if not isinstance(tool, dict) or "mlcheck" not in tool:  # (found by search: it has one; named: say so)
            names = sorted(tool) if isinstance(tool, dict) else []
            tables = ", ".join(f"tool.{name}" for name in names)
            close = near_name("mlcheck", names, cutoff=0.6)  # (difflib only for this hint)
            hint = f"; [tool.{close}] is spelt [tool.mlcheck]" if close else ""
            return {}, text, CONFIG_INVALID.at(shown, None, (
                f"the config file holds no [tool.mlcheck] table{f' (its tables: {tables})' if tables else ''}: "
                f"none of it applies{hint}"))
        data = tool["mlcheck"]
    if not isinstance(data, dict):
        return {}, text, CONFIG_INVALID.at(shown, None, "[tool.mlcheck] must be a table")
    return data, text, None


def _not_a_file(path: Path) -> str:
    """What ``path`` is when it is no regular file (``a folder``, ``a pipe``, ``a link to nothing (X)``),
    else ''. Raises OSError when it cannot be asked."""
    target = link_to_nothing(str(path))
    if target is not None:
        return f"a link to nothing ({target})"
    mode = path.stat().st_mode
    if stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and os.path.samefile(path, os.devnull)):  # (/dev/null: no settings)
        return ""
    return ("a folder" if stat.S_ISDIR(mode) else "a pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device")


def names_mlcheck_table(text: str) -> bool:
    """Whether a pyproject.toml's text holds a ``tool.mlcheck`` table however TOML spells it
    (``[tool.mlcheck]``, ``[tool]`` with ``mlcheck.x = ...``, a dotted key, blanks around the
    dot), or ``[[waivers]]`` at its top level (pasted from a .mlcheck.toml: found, so that MLC041
    says they are not read); a file that is no valid TOML does when it has the header."""
    if "mlcheck" not in text and _TOP_LEVEL_WAIVERS.search(text) is None:
        return False
    header = re.search(r"^\s*\[\s*tool\s*\.\s*mlcheck\s*[\].]", text, re.M) is not None
    toml_loads, toml_error = _toml_reader()
    if toml_loads is None:
        return header
    try:  # (parsed: the header's line may be inside a string, a project's description)
        data = toml_loads(text)
    except (toml_error, RecursionError):
        return header  # (not TOML: chosen when it has the header, so that its error is said)
    tool = data.get("tool")
    return (isinstance(tool, dict) and "mlcheck" in tool) or isinstance(data.get("waivers"), list)
