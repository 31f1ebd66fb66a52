"""One generated input: a small tree of files (any bytes, any name, any mode), the paths to check
and, for the command-line families, the arguments. Plain data, so a failing case can be printed,
shrunk by hypothesis and written to a folder as it was."""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import stat
from dataclasses import dataclass, field
from typing import Any

WORK = "work"
"""Folder beside the tree that the command line runs in: outputs land there, never in the tree."""
TREE = "tree"


@dataclass(frozen=True)
class Entry:
    """A file (``data``), a folder (``data`` None), a symlink (``link``) or a FIFO (``fifo``)."""

    path: bytes
    """Relative to the tree, ``/``-separated; any bytes but ``/`` and NUL in a name."""
    data: bytes | None = None
    mode: int | None = None
    link: bytes | None = None
    fifo: bool = False


@dataclass(frozen=True)
class Case:
    """What to build and how to run mlcheck on it."""

    family: str
    entries: tuple[Entry, ...]
    targets: tuple[bytes, ...] = (b".",)
    """Paths to check, relative to the tree (``-``: stdin)."""
    ruleset: str | None = None
    cli: tuple[str, ...] | None = None
    """Command and options for the command line (the targets follow); None: ``mlcheck.check``."""
    stdin: bytes = b""
    env: tuple[tuple[str, str], ...] = ()
    allowed_exits: tuple[int, ...] = (0, 1)
    """Exit 2 only where the input is a usage error (an output onto an input, an unknown round)."""

    def size(self) -> int:
        """Bytes of input, for the bounds on time and memory."""
        return len(self.stdin) + sum(len(e.data or b"") + len(e.path) for e in self.entries)


@dataclass(frozen=True)
class Raw:
    """Text put into a record as it is (``1e999``, 400 digits, ``[[[[``)."""

    text: str


@dataclass(frozen=True)
class Obj:
    """A JSON object as pairs: keys may repeat."""

    pairs: tuple[tuple[str, Any], ...] = field(default_factory=tuple)


def to_json(value: Any) -> str:
    """JSON text of ``value``, with NaN/Infinity, :class:`Raw` and :class:`Obj` as given."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, Obj):
        return "{" + ", ".join(f"{json.dumps(k)}: {to_json(v)}" for k, v in value.pairs) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {to_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(to_json(v) for v in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return json.dumps(value, ensure_ascii=False)


def encode(text: str) -> bytes:
    """UTF-8, lone surrogates kept as bytes (invalid UTF-8 is input too)."""
    return text.encode("utf-8", errors="surrogatepass")


def materialise(case: Case, folder: str) -> tuple[str, str]:
    """Build the tree under ``folder``; returns (tree folder, work folder) as bytes-safe str."""
    tree = os.path.join(folder, TREE)
    work = os.path.join(folder, WORK)
    os.makedirs(tree)
    os.makedirs(work)
    btree = os.fsencode(tree)
    modes: list[tuple[bytes, int]] = []
    for entry in case.entries:
        where = os.path.join(btree, entry.path)
        try:
            os.makedirs(os.path.dirname(where), exist_ok=True)
            if os.path.lexists(where):
                continue  # a name drawn twice: the first entry wins
            if entry.link is not None:
                os.symlink(entry.link, where)
            elif entry.fifo:
                os.mkfifo(where)
            elif entry.data is None:
                os.makedirs(where, exist_ok=True)
            else:
                with open(where, "wb") as out:
                    out.write(entry.data)
        except OSError:
            continue  # where a file, a link or a FIFO of another entry is a folder: the first one wins
        if entry.mode is not None and entry.link is None:
            modes.append((where, entry.mode))
    for where, mode in sorted(modes, key=lambda m: -m[0].count(b"/")):  # folders after their files
        os.chmod(where, mode)
    return tree, work


def scratch_root() -> str | None:
    """A memory-backed folder for the case folders when there is one (``/dev/shm``): on a disk,
    creating and removing a few folders per case costs more than checking the case."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def remove(folder: str) -> None:
    """Delete a case folder whatever modes it was given."""
    for root, dirs, _files in os.walk(folder):
        for name in dirs:
            try:
                os.chmod(os.path.join(root, name), 0o700)
            except OSError:
                pass
    shutil.rmtree(folder, ignore_errors=True)


def tree_digest(tree: str) -> dict[bytes, str]:
    """Name, type, mode and content hash of everything under ``tree`` (nothing followed)."""
    seen: dict[bytes, str] = {}
    btree = os.fsencode(tree)
    for root, dirs, files in os.walk(btree):
        for name in dirs + files:
            where = os.path.join(root, name)
            info = os.lstat(where)
            kind = stat.S_IFMT(info.st_mode)
            if stat.S_ISREG(kind):
                try:
                    with open(where, "rb") as handle:
                        what = hashlib.sha256(handle.read()).hexdigest()
                except OSError as error:
                    what = f"unreadable {error.errno}"
            elif stat.S_ISLNK(kind):
                what = os.readlink(where).hex()
            else:
                what = ""
            seen[os.path.relpath(where, btree)] = f"{kind:o} {stat.S_IMODE(info.st_mode):o} {info.st_size} {what}"
    return seen


def describe(case: Case) -> dict[str, Any]:
    """The case as JSON (bytes as ``repr``), for the reproducer folder."""
    return {
        "family": case.family,
        "targets": [repr(t) for t in case.targets],
        "ruleset": case.ruleset,
        "cli": list(case.cli) if case.cli is not None else None,
        "stdin_bytes": len(case.stdin),
        "env": dict(case.env),
        "allowed_exits": list(case.allowed_exits),
        "entries": [{"path": repr(e.path), "bytes": None if e.data is None else len(e.data),
                     "mode": None if e.mode is None else oct(e.mode),
                     "link": None if e.link is None else repr(e.link), "fifo": e.fifo}
                    for e in case.entries],
    }
