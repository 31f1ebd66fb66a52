"""Which folders of a walk lie inside a benchmark folder of a package (MLC508: judged one by one,
their errors warnings, :mod:`mlcheck.judge.nested_logs`)."""

from __future__ import annotations

import os

from mlcheck.package.real_paths import absolute_parts
from mlcheck.read.file_names import SUBMITTED_RESULT_FILE


class Nesting:
    """Which walked folders lie inside a benchmark folder of a package, ``.../results/<system>/
    <benchmark>/...`` (not the folder itself), where the official glob does not go. The package is
    the one at or above the folder the user gave (the innermost holding results/ and systems/):
    only its own ``results/`` counts, whatever lies above it or below its benchmark folders. Under a
    folder of packages, or of raw logs, each folder's innermost ``results/`` of a package (beside
    ``systems/``), else of a benchmark folder holding a ``result_<i>.txt``, decides (raw logs kept
    as ``results/<date>/<benchmark>/<job>/`` are not nested). Answers are cached per folder."""

    def __init__(self, top: str) -> None:
        self._top = absolute_parts(top)
        self._packages: dict[tuple[str, ...], bool] = {}
        self._package = next((self._top[:end] for end in range(len(self._top), 0, -1)
                              if self._is_package(self._top[:end])), None)
        self._holds: dict[tuple[str, ...], bool] = {}

    def __call__(self, root: str) -> bool:
        parts = absolute_parts(root)
        if self._package is not None:
            at = len(self._package)
            return parts[:at + 1] == (*self._package, "results") and len(parts) > at + 3
        candidates = [at for at in range(max(len(self._top) - 1, 1), len(parts) - 3) if parts[at] == "results"]
        return any(self._is_package(parts[:at]) for at in candidates) or \
            any(self._holds_result_file(parts[:at + 3]) for at in candidates)

    def _is_package(self, parts: tuple[str, ...]) -> bool:
        package = self._packages.get(parts)
        if package is None:
            folder = os.path.join(*parts)
            package = self._packages[parts] = os.path.isdir(os.path.join(folder, "results")) and \
                os.path.isdir(os.path.join(folder, "systems"))
        return package

    def _holds_result_file(self, parts: tuple[str, ...]) -> bool:
        held = self._holds.get(parts)
        if held is None:
            try:
                held = any(SUBMITTED_RESULT_FILE.match(name) for name in os.listdir(os.path.join(*parts)))
            except OSError:
                held = False
            self._holds[parts] = held
        return held


def enclosing_package(root: str) -> tuple[str, str, str] | None:
    """The package whose ``results/`` holds the package ``root`` as a system folder or a benchmark
    folder (a copy of a package kept inside another's), as ``root`` is written (relative where it
    is), with what that package reads ``root`` as and the codes it refuses it by; else None
    (deeper, its logs are nested logs)."""
    folder = os.path.abspath(root)
    for read_as, codes in (("a system folder", "MLC506, MLC510"), ("a benchmark folder", "MLC506")):
        above = os.path.dirname(folder)
        if os.path.basename(above) == "results" and os.path.isdir(os.path.join(os.path.dirname(above), "systems")):
            package = os.path.dirname(above)
            return (package if os.path.isabs(root) else os.path.relpath(package)), read_as, codes
        folder = above
    return None
