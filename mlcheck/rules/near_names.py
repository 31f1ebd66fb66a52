"""The "did you mean" of the rules: the name a misspelt one was meant to be."""

from __future__ import annotations

from typing import Iterable


def near_name(name: str, names: Iterable[str], cutoff: float = 0.8) -> str | None:
    """The one of ``names`` closest to ``name`` (difflib's ratio at least ``cutoff``), or None;
    difflib is imported here only, when a name is missing (about 1.5 ms)."""
    import difflib

    close = difflib.get_close_matches(name, sorted(set(names)), n=1, cutoff=cutoff)
    return close[0] if close else None
