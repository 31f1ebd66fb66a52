"""Find the logs behind the paths a user gives: a log file, ``-``, a benchmark folder
(``results/<system>/<benchmark>/``), a submitter package (``<org>/results``) or any folder above them."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

_RESULT_FILE = re.compile(r"^result_\d+\.txt(\.gz)?$")
_LOG_FILE = re.compile(r"\.(log|out|txt)(\.gz)?$")
_NOT_LOGS = frozenset({"benchmarks", "systems", "power"})
_RANK_DIR = re.compile(r"^rank\.(\d+)$")


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


@dataclass(frozen=True)
class EmptyFolder:
    """A folder given by the user in which no log was found."""

    path: str


def discover(paths: list[str]) -> tuple[list[LogRef], list[EmptyFolder]]:
    """Expand user paths into sorted log references; raise DiscoveryError for a missing path."""
    refs: list[LogRef] = []
    empty: list[EmptyFolder] = []
    for given in paths:
        if given == "-":
            refs.append(LogRef("-"))
            continue
        if not os.path.exists(given):
            raise DiscoveryError(f"{given}: no such file or folder")
        if os.path.isdir(given):
            found = sorted(_walk(given), key=lambda r: _natural(r.path))
            if not found:
                empty.append(EmptyFolder(given))
            refs.extend(found)
        else:
            refs.append(_ref_for_file(given))
    unique = {ref.path: ref for ref in refs}
    return list(unique.values()), empty


def _natural(path: str) -> list[object]:
    """Sort key that puts result_2 before result_10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path)]


def _walk(top: str) -> list[LogRef]:
    """Result files under ``top``; when there are none, any other log-like file (raw job output)."""
    results: list[LogRef] = []
    others: list[LogRef] = []
    per_rank: dict[str, list[tuple[int, int, str]]] = {}
    for root, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_LOGS)
        rank = _RANK_DIR.match(os.path.basename(root))
        for name in files:
            path = os.path.join(root, name)
            if _RESULT_FILE.match(name):
                results.append(_ref_for_file(path, walked=True))
            elif _LOG_FILE.search(name):
                others.append(_ref_for_file(path, walked=True))
            elif rank is not None and name in ("stdout", "stderr"):
                # mpirun --output-filename DIR: DIR/1/rank.N/stdout; every rank holds copies
                preference = 0 if name == "stdout" and _size(path) else 1
                per_rank.setdefault(os.path.dirname(root), []).append(
                    (int(rank.group(1)), preference, path))
    others.extend(_ref_for_file(min(found)[2], walked=True) for _, found in sorted(per_rank.items()))
    return results or others


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _ref_for_file(path: str, walked: bool = False) -> LogRef:
    parts = Path(path).parts
    if len(parts) >= 4 and parts[-4] == "results":
        org = parts[-5] if len(parts) >= 5 else None
        folder = str(Path(*parts[:-1]))
        return LogRef(path, org=org, system=parts[-3], benchmark=parts[-2], folder=folder,
                      walked=walked)
    if _RESULT_FILE.match(parts[-1]) and len(parts) >= 2:
        return LogRef(path, benchmark=parts[-2], folder=str(Path(*parts[:-1])), walked=walked)
    return LogRef(path, walked=walked)


def systems_file(ref: LogRef) -> str | None:
    """``<org>/systems/<system>.json`` for a log inside a package, when the layout allows."""
    if ref.folder is None or ref.system is None:
        return None
    package = Path(ref.folder).parent.parent.parent
    return str(package / "systems" / f"{ref.system}.json")
