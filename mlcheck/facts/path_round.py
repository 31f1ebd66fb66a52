"""The round a path names (``training-1.1``, ``training_results_v2.0``, ``v6.0_final``): its
checker is run on the files of its folder, so a path naming a round wins over the runs' dates."""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mlcheck.facts.rulesets import Ruleset


_PATH_ROUND = re.compile(r"(?:training[-_](?:results[-_])?v?|^mlperf[-_]v?|^v)(\d+\.\d+)(?:\.\d+)?"
                         r"(?:[-_](?:final|published|submission|rc\d*))?$", re.IGNORECASE)  # (mlperf-6.1, v6.0_final)


def ruleset_from_path(path: str) -> Ruleset | None:
    """The round a path names (``training-1.1``, ``v2.0``), or None."""
    part = round_part(path)
    return None if part is None else _named_round(part)


def round_part(path: str) -> str | None:
    """The innermost part of ``path`` that names a round (``training-1.1``, ``v2.0``), or None. The
    path as spelt, made absolute: a link is not resolved (a package named through a link to a
    ``training-5.0/`` folder names no round; ``.`` inside it, a real path, does: README, Limits)."""
    folder, _sep, name = os.path.abspath(path).rpartition(os.sep)
    return name if _named_round(name) is not None else _folder_part(folder)


@lru_cache(maxsize=256)
def _named_round(part: str) -> Ruleset | None:
    from mlcheck.facts.rulesets import RulesetError, load_ruleset, normalise_version  # (rulesets imports this module)

    match = _PATH_ROUND.search(part)
    try:
        return None if match is None else load_ruleset(normalise_version(match.group(1)))
    except RulesetError:
        return None


@lru_cache(maxsize=4096)
def _folder_part(folder: str) -> str | None:
    """:func:`round_part` of an absolute folder (the result files of a folder share it: asked once)."""
    return next((part for part in reversed(folder.split(os.sep)) if _named_round(part) is not None), None)  # (mlperf-0.7: none)
