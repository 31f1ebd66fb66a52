"""``os.walk`` without recursion: on Python 3.10 and 3.11 ``os.walk`` calls itself once per
level, so a folder tree about a thousand levels deep raised RecursionError out of discovery (one
folder took the whole check down). This walks the same folders in the same order (top-down,
depth first, each folder's ``dirs`` as the caller leaves them), its depth bounded only by the
longest path the system opens (deeper: ``onerror``, as for any folder that cannot be listed)."""

from __future__ import annotations

import os
from typing import Callable, Iterator


def walk(top: str, onerror: Callable[[OSError], None] | None = None,
         followlinks: bool = False) -> Iterator[tuple[str, list[str], list[str]]]:
    """``(root, dirs, files)`` of ``top`` and of each folder below it, as :func:`os.walk` gives
    them top-down: a folder left out of ``dirs`` is not entered; a link to a folder is listed in
    ``dirs`` and entered only with ``followlinks``."""
    pending = [top]
    while pending:
        root = pending.pop()
        dirs: list[str] = []
        files: list[str] = []
        links: set[str] = set()
        try:
            with os.scandir(root) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    (dirs if is_dir else files).append(entry.name)
                    if is_dir and not followlinks and _is_link(entry):
                        links.add(entry.name)
        except OSError as error:
            if onerror is not None:
                onerror(error)
            continue
        yield root, dirs, files
        pending.extend(os.path.join(root, name) for name in reversed(dirs) if name not in links)


def _is_link(entry: os.DirEntry[str]) -> bool:
    """Whether an entry is a symbolic link (one that cannot be told: not, as ``os.walk`` reads it)."""
    try:
        return entry.is_symlink()
    except OSError:
        return False
