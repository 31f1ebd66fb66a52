"""One spelling per log: the same file named twice (``resnet/result_0.txt`` and ``./resnet``, a
relative and an absolute path, two links to one folder) is one log, under a spelling that does not
depend on the order the paths were given in (the same input, the same bytes)."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from mlcheck.package.real_paths import RealPaths

if TYPE_CHECKING:
    from mlcheck.package.discover import LogRef


def one_spelling(refs: list[LogRef]) -> list[LogRef]:
    """The refs of distinct files, in the order each file was first met; each under its spelling
    without a link if it has one (a walk meets ``docs/sys -> ../results/sys`` before
    ``results/sys``), else the least (a review of session 50: the first given was kept, so
    ``check a /abs/a`` and ``check /abs/a a`` differed); one folder, one spelling (the least of
    its files' kept ones). A link is a file of its folder under its own name (``result_9.txt``
    linking to ``result_0.txt`` is a tenth run there, as the package checker's glob counts it):
    the folder is resolved, never the file."""
    spellings: dict[str, list[tuple[bool, str, LogRef]]] = {}
    real_folder_of: dict[str, str] = {}
    real_path = RealPaths()
    for ref in refs:
        if ref.path == "-":
            spellings.setdefault("-", []).append((False, "-", ref))
            continue
        folder = os.path.dirname(ref.path) or "."
        real_folder = real_folder_of.get(folder) or real_folder_of.setdefault(folder, real_path(folder))  # (once a folder)
        through_link = os.path.abspath(folder) != real_folder
        spellings.setdefault(os.path.join(real_folder, os.path.basename(ref.path)), []).append(
            (through_link, real_folder, ref))
    kept = [min(found, key=lambda item: (item[0], item[2].path)) for found in spellings.values()]
    folders: dict[str, str] = {}
    for through_link, real_folder, ref in sorted(kept, key=lambda item: (item[0], item[2].folder or "")):
        if ref.folder is not None:
            folders.setdefault(real_folder, ref.folder)
    return [ref if ref.folder is None or folders[real_folder] == ref.folder else replace(ref, folder=folders[real_folder])
            for _through, real_folder, ref in kept]
