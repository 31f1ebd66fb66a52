"""A submitter's package as read from disk (``<org>/{systems,results,benchmarks}``) and the
system descriptions in it. The checker reads; the rules in ``mlcheck/rules/package_*.py`` judge
these plain records and never touch the file system.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from mlcheck.results import SystemInfo

PACKAGE_FOLDERS = ("systems", "results", "benchmarks")


@dataclass(frozen=True)
class BenchmarkFolder:
    """``results/<system>/<benchmark>/`` and what it holds."""

    path: str
    system: str
    name: str
    files: tuple[str, ...]
    folders: tuple[str, ...]


@dataclass(frozen=True)
class PackageLayout:
    """The names found in a package, sorted; nothing is read inside the files."""

    root: str
    org: str
    entries: tuple[str, ...]
    system_files: tuple[str, ...]
    stray_result_files: tuple[str, ...]
    """Files directly under ``results/`` or ``results/<system>/`` (paths)."""
    benchmark_folders: tuple[BenchmarkFolder, ...]
    implementations: tuple[str, ...]
    """Folder names under ``benchmarks/``."""

    def has(self, name: str) -> bool:
        return name in self.entries


@dataclass(frozen=True)
class JsonDocument:
    """A JSON file read with duplicate-key detection. ``data`` is None when it could not be read."""

    path: str
    exists: bool
    data: dict[str, Any] | None = None
    error: str | None = None
    duplicate_keys: tuple[tuple[str, int | None], ...] = ()


def is_package(path: str) -> bool:
    """A folder holding ``results/`` or ``systems/``."""
    return os.path.isdir(os.path.join(path, "results")) or os.path.isdir(os.path.join(path, "systems"))


def package_roots(paths: list[str]) -> list[str]:
    """The packages among the given folders and their direct sub-folders (``training-2.0/``)."""
    roots: list[str] = []
    for given in paths:
        if not os.path.isdir(given):
            continue
        if is_package(given):
            roots.append(given)
            continue
        try:
            names = sorted(os.listdir(given))
        except OSError:  # discovery reports the folder (MLC001)
            continue
        for name in names:
            child = os.path.join(given, name)
            if not name.startswith(".") and os.path.isdir(child) and is_package(child):
                roots.append(child)
    return roots


def _listing(path: str) -> tuple[list[str], list[str]]:
    files: list[str] = []
    folders: list[str] = []
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return [], []
    for name in names:
        (folders if os.path.isdir(os.path.join(path, name)) else files).append(name)
    return files, folders


def scan_package(root: str) -> PackageLayout:
    """List a package: top-level entries, system files, benchmark folders and stray files."""
    files, folders = _listing(root)
    system_files, _ = _listing(os.path.join(root, "systems"))
    results = os.path.join(root, "results")
    stray: list[str] = []
    benchmark_folders: list[BenchmarkFolder] = []
    top_files, systems = _listing(results)
    stray.extend(os.path.join(results, f) for f in top_files)
    for system in systems:
        system_path = os.path.join(results, system)
        loose, benchmarks = _listing(system_path)
        stray.extend(os.path.join(system_path, f) for f in loose if f != "package_checker_params")
        for name in benchmarks:
            path = os.path.join(system_path, name)
            inner_files, inner_folders = _listing(path)
            benchmark_folders.append(BenchmarkFolder(path, system, name, tuple(inner_files),
                                                     tuple(inner_folders)))
    _, implementations = _listing(os.path.join(root, "benchmarks"))
    return PackageLayout(root=root, org=os.path.basename(os.path.abspath(root)),
                         entries=tuple(sorted(files + folders)), system_files=tuple(system_files),
                         stray_result_files=tuple(stray), benchmark_folders=tuple(benchmark_folders),
                         implementations=tuple(implementations))


def read_json_document(path: str) -> JsonDocument:
    """Read a JSON object, noting duplicate keys (JSON keeps the last) with their line."""
    if not os.path.isfile(path):
        return JsonDocument(path, exists=False)
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in items:
            if key in seen:
                duplicates.append(key)
            seen[key] = value
        return seen

    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        data = json.loads(text, object_pairs_hook=pairs)
    except (OSError, UnicodeDecodeError) as error:
        return JsonDocument(path, True, error=str(error))
    except json.JSONDecodeError as error:
        return JsonDocument(path, True, error=f"line {error.lineno}: {error.msg}")
    except (ValueError, RecursionError) as error:  # a number of over 4300 digits, deep nesting
        return JsonDocument(path, True, error=str(error) or "nested too deeply")
    if not isinstance(data, dict):
        return JsonDocument(path, True, error=f"expected a JSON object, found {type(data).__name__}")
    return JsonDocument(path, True, data, duplicate_keys=tuple(
        (key, _second_line(text, key)) for key in dict.fromkeys(duplicates)))


def _second_line(text: str, key: str) -> int | None:
    needle = json.dumps(key)
    first = text.find(needle)
    second = text.find(needle, first + 1) if first >= 0 else -1
    return text.count("\n", 0, second) + 1 if second >= 0 else None


def _text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _count(data: dict[str, Any], key: str) -> int | None:
    text = _text(data, key)
    try:
        return int(float(text)) if text is not None else None
    except (ValueError, OverflowError):  # "two", 1e999
        return None


def system_info(doc: JsonDocument) -> SystemInfo | None:
    """The table fields of a system description (accelerators = nodes x accelerators per node)."""
    if doc.data is None:
        return None
    data = doc.data
    nodes, per_node = _count(data, "number_of_nodes"), _count(data, "accelerators_per_node")
    return SystemInfo(path=doc.path, system_name=_text(data, "system_name"),
                      submitter=_text(data, "submitter"), division=_text(data, "division"),
                      status=_text(data, "status"),
                      accelerator_model_name=_text(data, "accelerator_model_name"),
                      accelerators=nodes * per_node if nodes is not None and per_node is not None else None,
                      host_processor_model_name=_text(data, "host_processor_model_name"),
                      framework=_text(data, "framework"))


def rcp_bypass_file(folder: str) -> str | None:
    """The ``package_checker_params`` file (benchmark folder, then system folder) that asks for
    ``rcp-bypass``. Read tolerantly: the official checker ignores the line when it ends with a
    newline, and newer CLIs reject the old ``rcp_bypass`` spelling; mlcheck accepts both."""
    for place in (folder, os.path.dirname(os.path.normpath(folder))):
        path = os.path.join(place, "package_checker_params")
        try:
            with open(path, encoding="utf-8") as handle:
                words = {line.strip().lstrip("-").replace("_", "-") for line in handle}
        except (OSError, UnicodeDecodeError):
            continue
        if "rcp-bypass" in words:
            return path
    return None
