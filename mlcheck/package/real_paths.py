"""Real paths of the many files of one tree, each folder resolved once."""

from __future__ import annotations

import os
from pathlib import Path


class RealPaths:
    """``os.path.realpath`` of the many paths of one tree, each folder resolved once (a call
    lstat's every part of a path): an absolute normalised POSIX path is its folder's real path
    joined with its name, unless that names a link (then the path is resolved as a whole, as
    ``os.path.realpath`` resolves it). Other paths are asked of ``os.path.realpath``. Held for
    one stage of one check."""

    def __init__(self) -> None:
        self._known: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        known = self._known.get(path)
        if known is None:
            known = self._known[path] = self._resolve(path)
        return known

    def _resolve(self, path: str) -> str:
        if (os.sep != "/" or os.altsep is not None or not path.startswith("/") or path.startswith("//")
                or path == "/" or os.path.normpath(path) != path):
            return os.path.realpath(path)
        folder, _sep, name = path.rpartition("/")
        real_folder = self(folder or "/")
        candidate = real_folder + name if real_folder.endswith("/") else f"{real_folder}/{name}"
        return os.path.realpath(path) if os.path.islink(candidate) else candidate


def absolute_parts(path: str) -> tuple[str, ...]:
    """``Path(os.path.abspath(path)).parts``, split as a string where that is the same (a POSIX
    absolute path other than ``//...``: normalised, it has no empty part), without pathlib."""
    absolute = os.path.abspath(path)
    if os.sep == "/" and os.altsep is None and absolute.startswith("/") and not absolute.startswith("//"):
        return ("/", *absolute[1:].split("/")) if len(absolute) > 1 else ("/",)
    return Path(absolute).parts
