"""Waivers: move findings a project has accepted (with a reason) out of the verdict.

A pure post-processing of a :class:`~mlcheck.results.CheckResult`: the waived findings leave the
runs, benchmark folders and top level (so verdicts and exit codes ignore them) and are listed in
``CheckResult.waived`` with the waiver's reason. Unused waivers (MLC040) and expired ones
(MLC042) become findings of the config file.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from typing import Sequence

from mlcheck.settings.waiver_table import Waiver
from mlcheck.model import Finding
from mlcheck.settings.path_glob import compiled
from mlcheck.results import CheckResult, WaivedFinding
from mlcheck.rule import Rule
from mlcheck.rules.config_rules import UNUSED_WAIVER, WAIVER_EXPIRED
from mlcheck.settings.selection_filter import partition_findings


def path_matches(glob: str, path: str, base_dir: str) -> bool:
    """Whether ``path`` (as a finding holds it) matches ``glob`` relative to ``base_dir`` (the
    config file's folder), or, for an absolute ``glob``, as an absolute path: never as the path
    was typed, so a waiver matches the same findings from whichever folder mlcheck runs in."""
    return _WaiverPath(glob).matches(_PathForms(base_dir)(path))


class _PathForms:
    """A path as waivers match it, relative to the config file's folder and absolute (each
    computed once per path: a check's findings name the same paths many times)."""

    def __init__(self, base_dir: str) -> None:
        self.base = os.path.abspath(base_dir)
        self.known: dict[str, tuple[str, str]] = {}

    def __call__(self, path: str) -> tuple[str, str]:
        forms = self.known.get(path)
        if forms is None:
            absolute = os.path.abspath(path)
            forms = self.known[path] = (os.path.relpath(absolute, self.base).replace("\\", "/"),
                                        absolute.replace("\\", "/"))
        return forms


class _WaiverPath:
    """A waiver's path: a literal one (no ``*`` or ``?``, not a folder's ``dir/``) is compared as a
    string, in the index of :func:`_literal_index`, a glob read by its automaton."""

    def __init__(self, glob: str) -> None:
        spelled = glob.replace("\\", "/").removeprefix("./")
        self.absolute = os.path.isabs(glob)
        self.literal = None if spelled.endswith("/") or "*" in spelled or "?" in spelled else spelled
        self.spelled = spelled + "**" if spelled.endswith("/") else spelled  # (a folder: it and what it holds)

    def matches(self, forms: tuple[str, str]) -> bool:
        form = forms[self.absolute]
        if not self.absolute and form.startswith("../") and not self.spelled.startswith("../"):
            return False  # (outside the config file's folder: '**' names what lies below it, not '../Beta/...')
        return form == self.literal if self.literal is not None else compiled(self.spelled).matches(form)


def _literal_index(paths: Sequence[_WaiverPath]) -> dict[tuple[bool, str], list[int]]:
    """The positions of the literal waiver paths, by (absolute, path): a finding's waivers are
    found by two lookups and the globs, not by trying every waiver (thousands of waivers, one
    per file, against thousands of findings)."""
    index: dict[tuple[bool, str], list[int]] = {}
    for position, path in enumerate(paths):
        if path.literal is not None:
            index.setdefault((path.absolute, path.literal), []).append(position)
    return index


def apply_waivers(result: CheckResult, waivers: Sequence[Waiver], base_dir: str = ".",
                  today: dt.date | None = None, checked: Sequence[str] | None = None) -> CheckResult:
    """``result`` with the findings matched by an active waiver moved to ``waived``.

    A waiver whose ``expires`` date is before ``today`` (the UTC date) does not apply (MLC042); an active waiver
    that matches nothing is reported (MLC040), unless it names only what this check did not read
    (``checked``, the paths given: a pre-commit hook checks the files changed, and the project's
    waivers for the other folders are not unused), or waives a folder's rule (MLC5xx) in a check of
    files alone (``watch job.log``: no folder rule ran).
    """
    if not waivers:
        return result
    today = today or dt.datetime.now(dt.timezone.utc).date()  # (UTC: the same verdict in every time zone)
    expired = [w for w in waivers if w.expires is not None and w.expires < today]
    active = [w for w in waivers if w.expires is None or w.expires >= today]
    used: set[int] = set()
    waived: dict[Finding, WaivedFinding] = {}
    paths = [_WaiverPath(w.path) for w in active]
    literal, globs = _literal_index(paths), [i for i, path in enumerate(paths) if path.literal is None]
    forms_of = _PathForms(base_dir)

    def keep(found: Finding) -> bool:
        forms = forms_of(found.path)
        code = found.code.upper()
        for position in sorted([*literal.get((False, forms[0]), ()), *literal.get((True, forms[1]), ()), *globs]):
            waiver = active[position]  # (the first waiver of the file that matches, as the file orders them)
            if code.startswith(waiver.code) and (paths[position].literal is not None or paths[position].matches(forms)):
                used.add(position)
                expires = waiver.expires.isoformat() if waiver.expires else None
                waived[found] = WaivedFinding(found, waiver.reason, waiver.source, expires)
                return False
        return True

    filtered, _ = partition_findings(result, keep)
    unused = [i for i in range(len(active)) if i not in used]
    if unused and checked is not None:
        read = [forms_of(path) for path in sorted(_paths_read(result))]
        read_forms = {(absolute, form[absolute]) for form in read for absolute in (False, True)}
        files_only = all(given == "-" or not os.path.isdir(given) for given in checked)
        # (a file named alone is judged without its folder's rules, MLC5xx: their waivers wait for the folder's check)
        unused = [i for i in unused if _in_scope(paths[i], read, read_forms, checked, base_dir)
                  and not (files_only and active[i].code.upper().startswith("MLC5"))]
    unused_waivers = [active[i] for i in unused]
    notes = [_note(UNUSED_WAIVER, w, f"waiver for {w.code} on {w.path!r} matched no finding; delete it if the "
                   "problem is fixed" + ("" if "[" not in w.path else " (a [ ] in a path is literal, not a set of "
                                         "characters: name each file, or use * or ?)")) for w in unused_waivers]
    notes += [_note(WAIVER_EXPIRED, w, f"waiver for {w.code} on {w.path!r} expired on "
                    f"{w.expires.isoformat() if w.expires else '?'}; its findings count again")
              for w in expired]  # (not "w not in active": a list search per waiver, quadratic)
    ordered = tuple(waived[f] for f in sorted(waived, key=Finding.sort_key))
    return dataclasses.replace(filtered, findings=filtered.findings + tuple(notes),
                               waived=result.waived + ordered)


def _paths_read(result: CheckResult) -> set[str]:
    """The files and folders this check read: its runs', its benchmark folders', its findings'."""
    read = {run.path for run in result.runs} | {b.folder for b in result.benchmarks if b.folder}
    return read | {f.path for f in result.all_findings()}


def _in_scope(waiver: _WaiverPath, read: Sequence[tuple[str, str]], read_forms: set[tuple[bool, str]],
              checked: Sequence[str], base_dir: str) -> bool:
    """Whether a waiver's path names something this check read, or lies inside a path it was given."""
    if (waiver.absolute, waiver.literal) in read_forms or (
            waiver.literal is None and any(map(waiver.matches, read))):
        return True
    spelled = waiver.spelled
    wild = min((spelled.find(c) for c in "*?" if c in spelled), default=-1)  # (none: the path itself)
    fixed = os.path.abspath(os.path.join(base_dir, (spelled if wild < 0 else spelled[:wild].rpartition("/")[0]) or "."))
    for given in checked:
        if given == "-":
            continue
        inside = os.path.abspath(given)
        if fixed == inside or fixed.startswith(inside.rstrip("/") + "/") or inside.startswith(fixed.rstrip("/") + "/"):
            return True
    return False


def _note(rule: Rule, waiver: Waiver, message: str) -> Finding:
    path, _, line = waiver.source.rpartition(":")
    if not path or not line.isdecimal():
        path, line = waiver.source, ""
    return rule.at(path, int(line) if line else None, message)


def add_findings(result: CheckResult, extra: Sequence[Finding]) -> CheckResult:
    """``result`` with more top-level findings (configuration problems)."""
    if not extra:
        return result
    return dataclasses.replace(result, findings=result.findings + tuple(extra))
