"""A submitter's package as read from disk (``<org>/{systems,results,benchmarks}``) and the
system descriptions in it. The checker reads; the rules in ``mlcheck/rules/package_*.py`` judge
these plain records and never touch the file system.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Sequence

from mlcheck.package.folder_walk import walk
from mlcheck.records import dataclass
from mlcheck.package.discover import NOT_LOG_FOLDERS
from mlcheck.package.json_document import JsonDocument as JsonDocument, read_json_document as read_json_document  # re-exported
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
    listed: bool = True
    """False when the folder could not be listed (discovery reports it, MLC001): nothing is
    known of what it holds."""


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
    empty_systems: tuple[str, ...] = ()
    """``results/<system>/`` folders (paths) that hold no benchmark folder."""
    folders: tuple[str, ...] = ()
    """The top-level entries that are folders (``results`` as a file is no package's results/)."""

    def has(self, name: str) -> bool:
        return name in self.entries

    def has_folder(self, name: str) -> bool:
        return name in self.folders


def is_package(path: str) -> bool:
    """A folder holding ``results/`` or ``systems/``."""
    return os.path.isdir(os.path.join(path, "results")) or os.path.isdir(os.path.join(path, "systems"))


PACKAGE, RESULTS, SYSTEM, BENCHMARK = "package", "results", "system", "benchmark"


@dataclass(frozen=True)
class PackagePart:
    """What a folder named on the command line covers of a package: the whole package (the
    ``<org>`` folder, or one found below the named folder), its ``results/``, one
    ``results/<system>/`` or one benchmark folder. The package checks of a part are those the
    whole package gives for the folders in it (and for the system descriptions of its systems)."""

    root: str
    """The package, spelled from the given folder (``../../..`` for ``.`` in a benchmark folder)."""
    folder: str
    """The folder as given, normalised (``./x`` and ``x`` are one spelling)."""
    level: str
    """:data:`PACKAGE`, :data:`RESULTS`, :data:`SYSTEM` or :data:`BENCHMARK`."""
    system: str | None = None
    benchmark: str | None = None


def package_part(folder: str) -> PackagePart | None:
    """The part of a package a folder is, read from its absolute path (``.`` inside a
    benchmark folder too); None for a folder that is not one (nor below ``results/``)."""
    folder = os.path.normpath(folder)
    if is_package(folder):
        return PackagePart(folder, folder, PACKAGE)
    names = Path(os.path.abspath(folder)).parts
    for depth, level in ((1, RESULTS), (2, SYSTEM), (3, BENCHMARK)):
        if len(names) > depth and names[-depth] == "results":
            root = os.path.normpath(os.path.join(folder, *[os.pardir] * depth))
            below = names[len(names) - depth + 1:]
            return PackagePart(root, folder, level, system=below[0] if below else None,
                               benchmark=below[1] if len(below) > 1 else None)
    return None


def package_parts(paths: Sequence[str], real_path: Callable[[str], str] = os.path.realpath) -> list[list[PackagePart]]:
    """The package parts among the given folders and the packages anywhere below them, grouped
    by package (its real path, from ``real_path``), in the order given. A package named as a
    whole covers every part of it named too, so each finding comes once."""
    groups: dict[str, list[PackagePart]] = {}
    for given in paths:
        if given == "-" or not os.path.isdir(given):
            continue
        part = package_part(given)
        found = [part] if part is not None else [PackagePart(root, root, PACKAGE)
                                                 for root in _packages_below(given)]
        for item in found:
            group = groups.setdefault(real_path(item.root), [])
            folders = {real_path(p.folder) for p in group}
            if real_path(item.folder) not in folders:
                group.append(item)
    merged = []
    for group in groups.values():
        whole = [p for p in group if p.level == PACKAGE]
        merged.append(whole[:1] or group)
    return merged


def _packages_below(top: str) -> list[str]:
    """The packages below a folder that is none, as a walk of discovery meets them: not inside a
    package, nor in hidden folders or in folders discovery does not enter."""
    found: list[str] = []
    for root, dirs, _files in walk(top):  # (a folder that cannot be listed: discovery says so)
        if root != top and ("results" in dirs or "systems" in dirs):
            found.append(os.path.normpath(root))
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d.lower() not in NOT_LOG_FOLDERS)
    return found


def join_path(*parts: str) -> str:
    """``os.path.join``, normalised: ``./results`` is spelled ``results``, as discovery spells it."""
    return os.path.normpath(os.path.join(*parts))


def _listing(path: str) -> tuple[list[str], list[str]]:
    """The files and the folders in a folder; none when it cannot be listed."""
    return _try_listing(path) or ([], [])


def _try_listing(path: str) -> tuple[list[str], list[str]] | None:
    files: list[str] = []
    folders: list[str] = []
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return None
    for name in names:
        (folders if os.path.isdir(os.path.join(path, name)) else files).append(name)
    return files, folders


def scan_package(root: str) -> PackageLayout:
    """List a package: top-level entries, system files, benchmark folders and stray files."""
    return scan_part(PackagePart(root, root, PACKAGE))


def scan_part(part: PackagePart) -> PackageLayout:
    """List what a part of a package covers: the package's top-level entries, system files and
    implementations, and the benchmark folders and stray files inside the part (spelled from
    the folder as given)."""
    root = part.root
    files, folders = _listing(root)
    system_files, system_folders = _listing(join_path(root, "systems"))
    system_files = sorted(system_files + [n for n in system_folders if n.endswith(".json")])  # (globbed as files)
    stray: list[str] = [join_path(root, "systems", name) for name in system_files  # (README.md: no tool reads it)
                        if part.level == PACKAGE and not name.endswith(".json") and not name.startswith(".")]
    benchmark_folders: list[BenchmarkFolder] = []
    empty: list[str] = []

    def add_system(system_path: str, system: str) -> None:
        loose, benchmarks = _listing(system_path)
        stray.extend(join_path(system_path, f) for f in loose if f != "package_checker_params")
        if not benchmarks and not system.startswith((".", "__")) and _try_listing(system_path) is not None:
            # (a hidden or cache folder is no system; an unlistable one is MLC001)
            empty.append(system_path)
        for name in benchmarks:
            add_benchmark(join_path(system_path, name), system, name)

    def add_benchmark(path: str, system: str, name: str) -> None:
        listed = _try_listing(path)
        inner_files, inner_folders = listed or ([], [])
        benchmark_folders.append(BenchmarkFolder(path, system, name, tuple(inner_files),
                                                 tuple(inner_folders), listed=listed is not None))

    if part.level in (PACKAGE, RESULTS):
        results = join_path(root, "results") if part.level == PACKAGE else part.folder
        top_files, systems = _listing(results)
        stray.extend(join_path(results, f) for f in top_files)
        for system in systems:
            add_system(join_path(results, system), system)
    elif part.level == SYSTEM and part.system is not None:
        add_system(part.folder, part.system)
    elif part.level == BENCHMARK and part.system is not None and part.benchmark is not None:
        add_benchmark(part.folder, part.system, part.benchmark)
    _, implementations = _listing(join_path(root, "benchmarks"))
    return PackageLayout(root=root, org=os.path.basename(os.path.abspath(root)),
                         entries=tuple(sorted(files + folders)), system_files=tuple(system_files),
                         stray_result_files=tuple(stray), benchmark_folders=tuple(benchmark_folders),
                         implementations=tuple(implementations), empty_systems=tuple(empty),
                         folders=tuple(sorted(folders)))


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
    hosts = _count(data, "host_processors_per_node")
    return SystemInfo(path=doc.path, system_name=_text(data, "system_name"),
                      submitter=_text(data, "submitter"), division=_text(data, "division"),
                      status=_text(data, "status"),
                      accelerator_model_name=_text(data, "accelerator_model_name"),
                      accelerators=nodes * per_node if nodes is not None and per_node is not None else None,
                      host_processor_model_name=_text(data, "host_processor_model_name"),
                      framework=_text(data, "framework"), number_of_nodes=nodes,
                      host_processors=nodes * hosts if nodes is not None and hosts is not None else None,
                      notes=";".join(n for n in (_text(data, "hw_notes"), _text(data, "sw_notes")) if n) or None)

