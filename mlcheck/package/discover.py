"""Find the logs behind the paths a user gives: a log file, ``-``, a benchmark folder
(``results/<system>/<benchmark>/``), a submitter package (``<org>/results``) or any folder above them."""

from __future__ import annotations

import os
import sys
import re
from dataclasses import replace

from mlcheck.package.folder_walk import walk
from mlcheck.records import dataclass
from mlcheck.model import natural_order as natural_order  # (re-exported)
from mlcheck.read.file_names import LOG_FILE_NAME, RESULT_FILE, SUBMITTED_RESULT_FILE
from mlcheck.package.not_logs import not_a_log
from mlcheck.read.held_logs import is_held
from mlcheck.read.log_files import link_to_nothing
from mlcheck.package.nesting import Nesting
from mlcheck.package.power_paths import power_log_benchmark
from mlcheck.package.real_paths import RealPaths as RealPaths, absolute_parts as absolute_parts  # (re-exported)
from mlcheck.package.named_files import passed_over
from mlcheck.package.file_kinds import (holds_a_record, holds_power_records, holds_records, loops_back, named_device,
                                        own_report, special_kind, stdin_device)

NOT_LOG_FOLDERS = frozenset({"benchmarks", "systems", "power"})
"""Folders a walk does not enter, in any case (``Power/`` too: the official tools read none of its
files): they hold implementations, system descriptions, power logs."""
_RANK_DIR = re.compile(r"(?:^|[/\\])(?:rank\.(\d+)|attempt_\d+[/\\](\d+))$")
"""A rank's folder of ``mpirun --output-filename`` (``rank.N``) or torchrun ``--log-dir`` (``attempt_K/N``)."""
UNREADABLE_FOLDER = "a folder that cannot be read"
"""What :func:`discover_all` calls a folder it could not list (its error follows in brackets)."""
NO_RECORD_FILE = "a file that holds no :::MLLOG record"
"""What :func:`discover_all` calls a file met while walking a folder that looks like a log by its
name (``notes.txt``, ``MANIFEST.txt``) but holds no record anywhere: it is not read as a log."""
NAMED_NO_RECORD_FILE = "a named file that holds no :::MLLOG record"
"""A file named among other paths (``ROUND/*`` names a README.md) that holds no record and is no
log (:mod:`mlcheck.package.named_files`): not read as a log either."""
NAMED_DEVICE = "a device named to be checked"
"""A device named on the command line (``/dev/null``, ``/dev/zero``): never read, and nothing else
was asked to be checked there (MLC015, an error: a gate given it checked no log)."""
NAMED_POWER_LOG = "a power log of the benchmark folder"
"""A node or switch power log named on the command line: its benchmark folder (named after this)
is checked instead, whose energy score it is part of."""
LOOSE_POWER_LOG = "a power log outside a benchmark folder"
"""A node or switch power log named on the command line that lies in no ``<bench>/power/result_<i>/``."""
NAMED_BESIDE_RESULTS = "a named file beside result files"
"""A file named among other paths beside named ``result_<i>.txt`` files (``bench/*``): no run of
the folder, as when the folder is walked."""


class DiscoveryError(Exception):
    """A path that cannot be used at all (it does not exist); mlcheck exits 2."""


@dataclass(frozen=True)
class LogRef:
    """One log to read, with what its place in a package tells about it."""

    path: str
    """The path as given on the command line, or found under a given folder."""
    org: str | None = None
    system: str | None = None
    benchmark: str | None = None
    folder: str | None = None
    """The benchmark folder (``.../results/<system>/<benchmark>``) the log belongs to."""
    walked: bool = False
    """Found by walking a folder the user gave (not named on the command line): only then do
    folder-level checks such as the run count apply."""
    nested: bool = False
    """Inside a folder of a benchmark folder (MLC508): judged as a log, not as a benchmark result."""
    lines: int | None = None
    """Read only the first ``lines`` physical lines (a watched log the job goes on writing)."""
    special: str | None = None
    """What a walked ``result_<i>.txt`` that is no regular file is (a FIFO): a run, never read (MLC015)."""


@dataclass(frozen=True)
class EmptyFolder:
    """A folder given by the user in which no log was found."""

    path: str


def discover(paths: list[str]) -> tuple[list[LogRef], list[EmptyFolder]]:
    """Expand user paths into sorted log references; raise DiscoveryError for a missing path."""
    refs, empty, _skipped = discover_all(paths)
    return refs, empty


def discover_all(paths: list[str]) -> tuple[list[LogRef], list[EmptyFolder], list[tuple[str, str]]]:
    """:func:`discover`, plus ``(path, kind)`` of what was skipped while walking the given folders:
    FIFOs, sockets and devices (reading one could wait forever) and folders that cannot be listed
    (kind :data:`UNREADABLE_FOLDER` and the error)."""
    refs: list[LogRef] = []
    empty: list[EmptyFolder] = []
    skipped: list[tuple[str, str]] = []
    for given in paths:
        if given == "-":
            if sys.stdin is None:  # (started with ``<&-``)
                raise DiscoveryError("-: standard input is closed; give the log a path, or pipe it in")
            refs.append(LogRef("-")) if stdin_device() is None else skipped.append(("-", NAMED_DEVICE))  # (/dev/zero)
            continue
        _must_exist(given) if not is_held(given) else None  # (a watched log moved away: its bytes are held)
        bench = power_log_benchmark(given) if not is_held(given) else None
        if bench is not None:  # (a power log, power/ or power/result_<i>: scored with the runs it measures)
            refs.extend(sorted(_walk(bench, []), key=lambda r: natural_order(r.path)))
            skipped.append((given, f"{NAMED_POWER_LOG} {bench}"))
        elif os.path.isdir(given):
            special: list[tuple[str, str]] = []
            found = sorted(_walk(given, special), key=lambda r: natural_order(r.path))
            skipped.extend(sorted(special, key=lambda item: natural_order(item[0])))
            if not found:
                empty.append(EmptyFolder(given))
            refs.extend(found)
        elif named_device(given):  # /dev/zero would be read forever: skipped as when walked
            skipped.append((given, NAMED_DEVICE))
        elif (why := not_a_log(given, absolute_parts(given))) is not None:
            raise DiscoveryError(why)
        elif os.path.basename(given).startswith(("node_", "sw_")) and os.path.isfile(given) and holds_power_records(given):
            skipped.append((given, LOOSE_POWER_LOG))  # (power records, and no benchmark folder around them)
        else:
            refs.append(_ref_for_file(given))
    refs = _one_spelling(refs)
    no_logs = passed_over(refs, paths)  # (README.md beside the packages of ROUND/*)
    if no_logs:
        skipped.extend((ref.path, NAMED_BESIDE_RESULTS if no_logs[ref.path] else NAMED_NO_RECORD_FILE)
                       for ref in refs if ref.path in no_logs)
        refs = [ref for ref in refs if ref.path not in no_logs]
    return refs, empty, list(dict.fromkeys(skipped))


def _must_exist(given: str) -> None:
    """Raise DiscoveryError saying why a named path cannot be used (missing, or not allowed)."""
    if not given:
        raise DiscoveryError("an empty path was given (an unset shell variable?): name a log, a folder or -")
    try:
        os.stat(given)
    except PermissionError:
        raise DiscoveryError(f"{given}: permission denied (a folder on the way cannot be entered); "
                             "check the permissions") from None
    except FileNotFoundError:
        target = link_to_nothing(given)
        raise DiscoveryError(f"{given}: a link to {target!r}, which leads to no file" if target is not None else
                             f"{given}: no such file or folder") from None
    except OSError as error:  # (a symbolic link loop, a name too long, ...)
        raise DiscoveryError(f"{given}: {error.strerror or error}") from None
    except ValueError:  # (a NUL byte in the name)
        raise DiscoveryError(f"{given}: no such file or folder") from None


def _one_spelling(refs: list[LogRef]) -> list[LogRef]:
    """The same file under two spellings (``resnet/result_0.txt`` and ``./resnet``) is one log:
    keep the first spelling given, unless it goes through a link and a later one does not (a walk
    meets ``docs/sys -> ../results/sys`` before ``results/sys``); one folder, one spelling."""
    unique: dict[str, LogRef] = {}
    folders: dict[str, str] = {}
    real_folders: dict[str, str] = {}
    linked: set[str] = set()  # (real paths whose kept spelling goes through a link)
    real_path = RealPaths()
    for ref in refs:
        if ref.path == "-":
            unique.setdefault("-", ref)
            continue
        folder = os.path.dirname(ref.path) or "."
        real_folder = real_folders.get(folder) or real_folders.setdefault(folder, real_path(folder))
        # One realpath per folder, not per file. A link is a file of its folder under its own name
        # (result_9.txt linking to result_0.txt is a tenth run there, as the package checker's glob
        # counts it): the folder is resolved, never the file.
        real = os.path.join(real_folder, os.path.basename(ref.path))
        through_link = os.path.abspath(folder) != real_folder
        if real in linked and not through_link:  # (the spelling without a link, in the other's place)
            linked.discard(real)
            if ref.folder is not None:
                folders[real_folder] = ref.folder
            unique[real] = ref
            continue
        if ref.folder is not None:
            first = folders.setdefault(real_folder, ref.folder)
            if first != ref.folder:  # (the folder's first spelling; else the ref as it is)
                ref = replace(ref, folder=first)
        if unique.setdefault(real, ref) is ref and through_link:
            linked.add(real)
    return list(unique.values())


def _walk(top: str, skipped: list[tuple[str, str]] | None = None) -> list[LogRef]:
    """Result files under ``top``, and other log-like files (raw job output) that are not beside
    result files nor in a package. FIFOs, sockets and devices are left out (added to ``skipped``
    with what they are)."""
    results: list[LogRef] = []
    others: list[LogRef] = []
    per_rank: dict[str, list[tuple[int, int, str]]] = {}

    def unreadable(error: OSError) -> None:
        if skipped is not None and error.filename is not None:
            skipped.append((str(error.filename), f"{UNREADABLE_FOLDER} ({error.strerror or error})"))

    # Linked folders are entered, as the official tools' globs are; a link back up (a loop) is not.
    inside_benchmark_folder = Nesting(top)
    for root, dirs, files in walk(top, onerror=unreadable, followlinks=True):
        # A folder inside a benchmark folder holds no run of it (MLC508), but its logs are judged.
        nested = inside_benchmark_folder(root)
        # (a folder named result_<i>.txt is a run even where it links back up: the glob counts it)
        named_runs = sorted(d for d in dirs if SUBMITTED_RESULT_FILE.match(d)) if not nested else []
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d.lower() not in NOT_LOG_FOLDERS
                         and not loops_back(root, d))
        if named_runs and (_is_benchmark_folder(root) or any(map(SUBMITTED_RESULT_FILE.match, files))):
            # (a folder named result_<i>.txt: the package checker's glob counts it, then cannot read it)
            dirs[:] = [d for d in dirs if d not in named_runs]
            results.extend(_ref_for_file(os.path.normpath(os.path.join(root, d)), walked=True) for d in named_runs)
        rank = _RANK_DIR.search(root)
        for name in files:
            path = os.path.normpath(os.path.join(root, name))  # "./x" and "x": one spelling
            kind = special_kind(path)
            if kind is not None and SUBMITTED_RESULT_FILE.match(name) and not nested:
                results.append(replace(_ref_for_file(path, walked=True), special=kind))  # (the official glob's run)
            elif kind is not None and skipped is not None:
                skipped.append((path, kind))
            if kind is not None:
                continue
            if nested and (RESULT_FILE.match(name) or LOG_FILE_NAME.search(name)):
                if not (name.startswith(("node_", "sw_")) and holds_power_records(path)):  # (a copy of power/)
                    others.append(LogRef(path, folder=os.path.normpath(root), walked=True, nested=True))
            elif RESULT_FILE.match(name):
                if SUBMITTED_RESULT_FILE.match(name) is None and any(map(SUBMITTED_RESULT_FILE.match, files)):
                    continue  # (result_0.txt.gz beside result_0.txt: not a run, the official glob skips it; MLC507)
                results.append(_ref_for_file(path, walked=True))
            elif rank is not None and name in ("stdout", "stderr", "stdout.log", "stderr.log"):
                # mpirun --output-filename DIR: DIR/1/rank.N/stdout (torchrun: attempt_0/N/stdout.log);
                # every rank holds copies. The lowest rank with records is read (stdout before stderr).
                preference = (0 if holds_records(path) else 2) + (not name.startswith("stdout"))
                per_rank.setdefault(os.path.dirname(root), []).append((preference, int(rank.group(1) or rank.group(2)), path))
            elif LOG_FILE_NAME.search(name) and not own_report(path):  # (a report -o wrote beside the logs)
                others.append(_ref_for_file(path, walked=True))
    others.extend(_ref_for_file(min(found)[2], walked=True) for _, found in sorted(per_rank.items()))
    # Beside result files, other log-like files are not runs (the package layout rules name them);
    # elsewhere in the tree (a folder of raw job logs next to a package) they are read too.
    if results:
        result_dirs = {os.path.dirname(ref.path) for ref in results}
        others = [ref for ref in others if ref.nested or not _beside_results(ref.path, result_dirs)]
    if skipped is None or not results:
        return results + others
    # In a tree of result files, a file named like a log that holds no record, alone of its kind
    # in its folder and outside any results/ tree, is no log (a README.txt, a MANIFEST.txt beside
    # packages): passed over, and said so. Beside raw job output that holds records, and inside a
    # package's results/, every such file is a log (one without a record is the MLC002 error of
    # a job that logged nothing, or a file the package checker refuses).
    candidates = {ref.path for ref in others if not ref.nested and LOG_FILE_NAME.search(os.path.basename(ref.path))
                  and "results" not in absolute_parts(ref.path)}
    without = {path for path in candidates if not holds_a_record(path)}
    with_logs = {os.path.dirname(ref.path) for ref in others if ref.path not in without}
    passed = {path for path in without if os.path.dirname(path) not in with_logs}
    skipped.extend((path, NO_RECORD_FILE) for path in sorted(passed, key=natural_order))
    return results + [ref for ref in others if ref.path not in passed]


def _beside_results(path: str, result_dirs: set[str]) -> bool:
    """In a folder holding result files, at the root of a package, or in its ``results/`` or
    ``results/<system>/`` (a ``README.txt`` there is no run: the package checker walks only the
    benchmark folders; MLC508 names it)."""
    folder = os.path.dirname(path)
    if folder in result_dirs or "results" in absolute_parts(folder)[-2:]:
        return True
    return any(os.path.isdir(os.path.join(folder, name)) for name in ("results", "systems"))


def _is_benchmark_folder(path: str) -> bool:
    """``.../results/<system>/<benchmark>``: the official checker reads only the files in it."""
    parts = absolute_parts(path)
    return len(parts) >= 3 and parts[-3] == "results"


def _ref_for_file(path: str, walked: bool = False) -> LogRef:
    # The place in the package is read from the absolute path (``.`` inside a benchmark folder
    # still names its system); ``path`` and ``folder`` keep the spelling the user gave.
    parts = absolute_parts(path)
    folder = os.path.normpath(os.path.dirname(path) or ".")
    if len(parts) >= 5 and parts[-4] == "results":
        return LogRef(path, org=parts[-5], system=parts[-3], benchmark=parts[-2], folder=folder,
                      walked=walked)
    if RESULT_FILE.match(parts[-1]) and len(parts) >= 2:
        return LogRef(path, benchmark=parts[-2], folder=folder, walked=walked)
    return LogRef(path, walked=walked)


def systems_file(ref: LogRef) -> str | None:
    """``<org>/systems/<system>.json`` for a log inside a package, when the layout allows."""
    if ref.folder is None or ref.system is None:
        return None
    return package_path(ref.folder, "systems", f"{ref.system}.json")


def package_path(folder: str, *inside: str) -> str:
    """The path of the package of a benchmark ``folder`` (``<org>/results/<system>/<benchmark>``),
    or of ``inside`` it, spelt as the folder was given (absolute when it was, else relative to
    the working folder as it was): never the working folder's own path, so that a report does
    not depend on where mlcheck ran."""
    return os.path.normpath(os.path.join(folder, os.pardir, os.pardir, os.pardir, *inside))
