"""Where the config file is: the first ``.mlcheck.toml``, or ``pyproject.toml`` with a
``[tool.mlcheck]`` table, from the checked paths upwards (:mod:`mlcheck.settings.config`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from mlcheck.settings.config_file import names_mlcheck_table, read_text as _read


def find_config(start: str | os.PathLike[str]) -> Path | None:
    """The first ``.mlcheck.toml``, or ``pyproject.toml`` with a ``[tool.mlcheck]`` table, from
    ``start`` upwards (read as spelled: ``..`` is the folder above, as for the checked paths)."""
    folder = Path(os.path.abspath(start))
    return next((config for config in map(_config_in, (folder, *folder.parents)) if config is not None), None)


def _is_file(path: Path) -> bool:
    """``path.is_file()``, False where the path cannot be asked (a name too long for the system,
    a folder that may not be searched): no config there; the checked path says what is wrong."""
    try:
        return path.is_file()
    except OSError:
        return False


def search_start(paths: Sequence[str], cwd: str) -> tuple[str, str]:
    """The folder the config search starts from, and what it is: the checked path's folder, the
    deepest folder common to the checked paths, or (no path but ``-``) the working directory."""
    folders = []
    named_folder = False
    for given in paths:
        if given == "-":
            continue
        absolute = os.path.normpath(os.path.join(cwd, given))
        named_folder = named_folder or os.path.isdir(absolute)
        folders.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
    if not folders:
        return cwd, "the working directory, as no path is checked"
    if len(set(folders)) == 1:
        return folders[0], "the checked folder" if named_folder else "the folder of the checked file"
    try:
        return os.path.commonpath(folders), "the folder common to the checked paths"
    except ValueError:  # paths on two drives (Windows): the first one's
        return folders[0], "the first checked path, as the paths share no folder"


def nearer_configs(paths: Sequence[str], cwd: str, start: str, limit: int = 10_000) -> list[Path]:
    """The config files nearer to some checked paths than the folder the search starts at (the
    folder common to them): each path's own package config, which a check of paths that span
    packages does not use (a pre-commit hook passing the files of two packages). At most
    ``limit`` folders are looked at."""
    top = os.path.abspath(start)
    seen: set[str] = set()
    found: set[Path] = set()
    for given in paths:
        if given == "-":
            continue
        folder = os.path.normpath(os.path.join(cwd, given))
        folder = folder if os.path.isdir(folder) else os.path.dirname(folder)
        while folder not in seen and folder != top and len(seen) < limit:
            seen.add(folder)
            if (config := _config_in(Path(folder))) is not None:
                found.add(config)
                break
            parent = os.path.dirname(folder)
            if parent == folder or not folder.startswith(top):
                break
            folder = parent
    return sorted(found)


def _config_in(folder: Path) -> Path | None:
    """The folder's ``.mlcheck.toml``, else its ``pyproject.toml`` that holds mlcheck's settings."""
    dotfile = folder / ".mlcheck.toml"
    if _is_file(dotfile) or os.path.lexists(dotfile):  # (a folder, a pipe, a link to nothing: found, so that MLC041 says so)
        return dotfile
    return _mlcheck_pyproject(folder)


def _mlcheck_pyproject(folder: Path) -> Path | None:
    """The folder's ``pyproject.toml`` when it holds mlcheck's settings."""
    pyproject = folder / "pyproject.toml"
    if not _is_file(pyproject):
        return None
    # (not UTF-8: found where it names the table, so that MLC041 says where its text is no UTF-8; one that
    # cannot be read is passed over: nothing says it holds mlcheck's settings)
    return pyproject if names_mlcheck_table(_read(pyproject)) else None


def shadowed_pyproject(config: Path) -> Path | None:
    """The ``pyproject.toml`` beside a found ``.mlcheck.toml`` whose ``[tool.mlcheck]`` is therefore
    not read (the search stops at the first config of a folder, the dotfile first), or None."""
    return _mlcheck_pyproject(config.parent) if config.name == ".mlcheck.toml" else None
