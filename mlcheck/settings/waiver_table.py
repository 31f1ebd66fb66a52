"""The ``[[waivers]]`` tables of a config file: each becomes a :class:`Waiver`, or an MLC041
finding at its line that says what is wrong with it. (:mod:`mlcheck.settings.waivers` applies them.)"""

from __future__ import annotations

import bisect
import datetime as dt
import functools
import re
from typing import Any

from mlcheck.records import dataclass
from mlcheck.model import Finding
from mlcheck.rules.config_rules import CONFIG_INVALID


@dataclass(frozen=True)
class Waiver:
    """Findings of ``code`` (a code or prefix) under paths matching ``path`` are waived."""

    code: str
    path: str
    reason: str
    source: str
    """``config-file:line`` where the waiver is written."""
    expires: dt.date | None = None


def line_of(text: str, key: str, nth: int = 0) -> int | None:
    """The line of the ``nth`` ``key = ...`` or ``[[key]]`` of a config file's text."""
    lines = _key_lines(text).get(key)
    return lines[min(nth, len(lines) - 1)] if lines else None


_ASSIGNMENT = r"^[ \t]*([^=\n]*)="  # (compiled by re on first use: most checks have no config)
_TABLE = r"^[ \t]*\[\[?([^\]\n]*)\]"
_OURS = re.compile(r"tool\s*\.\s*mlcheck\b")


@functools.lru_cache(maxsize=4)
def _key_lines(text: str) -> dict[str, list[int]]:
    """Each key of the text -> the lines where it is assigned or heads an array of tables, in
    one pass over the text (a search per key made a config of 10,000 keys quadratic: minutes)."""
    found: dict[str, list[tuple[int, int]]] = {}
    for match in re.finditer(_TABLE, text, re.M):  # ([[waivers]], and [waivers] written for it)
        name = match.group(1).strip()
        found.setdefault(name.removeprefix("tool.mlcheck."), []).append((match.start(), 0))
    # In a pyproject.toml only mlcheck's tables count: [tool.ruff]'s select is not ours.
    tables = [(m.start(), bool(_OURS.match(m.group(1).strip()))) for m in re.finditer(_TABLE, text, re.M)]
    only_ours = any(ours for _, ours in tables)
    starts = [start for start, _ in tables]
    for match in re.finditer(_ASSIGNMENT, text, re.M):
        table = bisect.bisect_right(starts, match.start()) - 1
        if only_ours and (table < 0 or not tables[table][1]):
            continue
        found.setdefault(match.group(1).rstrip(), []).append((match.start(), 1))
    ends = [at for at, char in enumerate(text) if char == "\n"]
    return {key: [bisect.bisect_right(ends, start - 1) + 1 for start, _ in sorted(places)]
            for key, places in found.items()}


def read_waivers(raw: Any, where: str, text: str, problems: list[Finding]) -> list[Waiver]:
    """The valid waivers of a ``waivers`` array; each invalid one is a finding in ``problems``."""
    if not isinstance(raw, list):
        problems.append(CONFIG_INVALID.at(where, line_of(text, "waivers"),
                                          "waivers must be an array of tables (each headed [[tool.mlcheck.waivers]] "
                                          "in a pyproject.toml, [[waivers]] elsewhere)"))
        return []
    found: list[Waiver] = []
    for position, entry in enumerate(raw):
        line = line_of(text, "waivers", position)
        source = f"{where}:{line}" if line else where
        problem = _waiver_problem(entry)
        if problem:
            problems.append(CONFIG_INVALID.at(where, line, f"waiver {position + 1}: {problem}; it is "
                                              "ignored"))
            continue
        expires, error = _date(entry.get("expires"))
        if error:
            problems.append(CONFIG_INVALID.at(where, line, f"waiver {position + 1}: {error}; it is ignored"))
            continue
        code = entry["code"].strip().upper()
        if not _names_a_rule(code):
            problems.append(CONFIG_INVALID.at(where, line, (
                f"waiver {position + 1}: code {entry['code'].strip()!r} matches no rule code (a code "
                "such as MLC519 or a prefix such as MLC5; `mlcheck rules` lists them); it is ignored")))
            continue
        found.append(Waiver(code=entry["code"].strip().upper(), path=entry["path"].strip(),
                            reason=entry["reason"].strip(), source=source, expires=expires))
    return found


def _names_a_rule(code: str) -> bool:
    """Whether some rule code starts with ``code``."""
    from mlcheck.rules import all_rules  # (the registry imports the config rules)

    return any(rule.code.startswith(code) for rule in all_rules())


def _waiver_problem(entry: Any) -> str | None:
    """What is wrong with a waiver table: a field missing, empty or not a string."""
    if not isinstance(entry, dict):
        return f"is a {type(entry).__name__}, not a table"
    unknown = sorted(str(k) for k in entry if k not in _FIELDS)
    if unknown:  # (a misspelt ``expires`` would never expire: the waiver is not applied, and says why)
        return (f"has the unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} "
                f"(a waiver's fields: {', '.join(_FIELDS)})")
    missing = [k for k in ("code", "path", "reason") if k not in entry or entry[k] == ""]
    if missing:
        return f"lacks {', '.join(missing)} (code, path glob and a reason are required)"
    wrong = [f"{k} {entry[k]!r} is not a string (write it like {_EXAMPLES[k]!r})"
             for k in ("code", "path", "reason") if not isinstance(entry[k], str) or not entry[k].strip()]
    if not wrong and len(entry["path"]) > MAX_GLOB:
        wrong.append(f"path is a glob of {len(entry['path']):,} characters; a path is at most {MAX_GLOB:,}")
    return "; ".join(wrong) or None


MAX_GLOB = 4096
"""The longest waiver path (a path's own limit, PATH_MAX): matching costs the path's length times
the glob's, and the automaton takes memory in proportion (``mlcheck.path_glob``)."""


_FIELDS = ("code", "path", "reason", "expires")
_EXAMPLES = {"code": "MLC519", "path": "results/**", "reason": "rerun scheduled"}


def _date(raw: Any) -> tuple[dt.date | None, str | None]:
    if raw is None:
        return None, None
    if isinstance(raw, dt.datetime):
        return raw.date(), None
    if isinstance(raw, dt.date):
        return raw, None
    if isinstance(raw, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw.strip()):  # (3.11+ also reads 20261231)
        try:
            return dt.date.fromisoformat(raw.strip()), None
        except ValueError:
            pass
    return None, f"expires must be a date (2026-12-31), got {raw!r}"
