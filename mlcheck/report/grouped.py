"""Findings as a reader takes them in: what repeats across the runs of a benchmark folder is one
entry with the runs it concerns, not one line per run.

Within a benchmark folder (and, outside any, within the folder of the files concerned) the
findings of one rule with the same severity, the same ``official`` flag and the same message once
numbers are set aside (line numbers, counts) form a :class:`FindingGroup`. The human formats
(text, Markdown, HTML, GitHub annotations) show one entry per group; the machine formats (JSON,
SARIF, JUnit) keep every finding.
"""

from __future__ import annotations

import itertools
import os
import re
from typing import Callable, Iterable

from mlcheck.records import dataclass
from mlcheck.model import Finding, Severity, natural_order
from mlcheck.results import CheckResult
from mlcheck.report import slashed

_NUMBER = re.compile(r"(?<![A-Za-z_\d])\d+(?:[.,:]\d+)*|(?<=_)\d+(?=\.[A-Za-z])")
"""A number of a message: not the digits of a name (``opt_lamb_beta_1``, ``fp16``), but the
index of a file name (``result_3.txt``); a time of day is one (``07:48:16``)."""
PLACES_SHOWN = 3
CONTEXT_LINES = 8


def text_key(message: str) -> str:
    """A message with its numbers set aside: runs that differ only in them say the same thing."""
    return _NUMBER.sub("#", message)


@dataclass(frozen=True)
class FindingGroup:
    """Findings of one rule that say the same about several runs of a folder (or one finding)."""

    members: tuple[Finding, ...]
    folder: str | None
    """The benchmark folder (or the folder of the files) the members belong to."""
    folder_runs: int = 0
    """How many runs the folder holds (0 outside a benchmark folder)."""

    @property
    def first(self) -> Finding:
        return self.members[0]

    @property
    def severity(self) -> Severity:
        return self.first.severity

    @property
    def same_text(self) -> bool:
        """Whether every member has the same message (else they differ in numbers only)."""
        return all(m.message == self.first.message for m in self.members)

    @property
    def places(self) -> int:
        """How many runs (or files) the group concerns."""
        return len({(m.path, m.run_index) for m in self.members})

    def place(self, shown: Callable[[str], str] = lambda path: path) -> str:
        """``path:line`` for one finding; for several, the folder and the runs it concerns:
        ``.../bert (all 10 runs)``, ``.../resnet (2 of 5 runs: result_0.txt, result_3.txt)``."""
        if len(self.members) == 1 or self.folder is None:
            found = self.first
            return shown(found.path) + (f":{found.line}" if found.line is not None else "")
        count = self.places
        if len({m.path for m in self.members}) == 1:  # (the runs of one raw log: the file, each run's line)
            each = [f"#{m.run_index or 0}" + (f":{m.line}" if m.line is not None else "") for m in self.members]
            more = ", ..." if len(each) > PLACES_SHOWN else ""
            return f"{shown(self.first.path)} (runs {', '.join(dict.fromkeys(each[:PLACES_SHOWN]))}{more})"
        runs = bool(self.folder_runs) and count <= self.folder_runs  # (power logs: more files than runs)
        noun = "runs" if runs else "files"
        if runs and count == self.folder_runs:
            return f"{shown(self.folder)} (all {count} {noun})"
        names = distinct_places(self.members, lines=False)
        listed = ", ".join(dict.fromkeys(names[:PLACES_SHOWN])) + (", ..." if count > PLACES_SHOWN else "")
        total = f" of {self.folder_runs}" if runs else ""
        return f"{shown(self.folder)} ({count}{total} {noun}: {listed})"

    def message(self) -> str:
        """The shared message; when the members differ in numbers, the first one's, saying so."""
        if self.same_text or len(self.members) == 1:
            return self.first.message
        return f"{self.first.message} [{member_label(self.first)}; the others differ in numbers]"


def member_label(found: Finding) -> str:
    """The file name of a finding (with ``#run`` for a later run of a raw log)."""
    name = slashed(found.path).rstrip("/").rsplit("/", 1)[-1]
    return name if not found.run_index else f"{name} #{found.run_index}"


def member_place(found: Finding) -> str:
    """``result_3.txt:147``: a member within its group's folder."""
    return member_label(found) + (f":{found.line}" if found.line is not None else "")


def distinct_places(members: tuple[Finding, ...], lines: bool = True) -> list[str]:
    """Each member's place (without its line: ``lines`` False); with its folder where file names
    repeat (power/result_3/node_0.txt)."""
    places = [member_place(m) if lines else member_label(m) for m in members]
    if len(set(places)) == len(places) or len({(m.path, m.run_index) for m in members}) == 1:
        return places
    return ["/".join(slashed(m.path).rstrip("/").rsplit("/", 2)[-2:])
            + (f" #{m.run_index}" if m.run_index else "") + (f":{m.line}" if m.line is not None and lines else "")
            for m in members]


def context_lines(group: FindingGroup, limit: int = CONTEXT_LINES) -> list[str]:
    """What the ``full`` format prints under a group's line: the runs it concerns (each with its
    own message when they differ) and what a grouped finding covers, ``limit`` of each (the HTML
    report, folded, shows more: every place of a finding of thousands of runs)."""
    lines: list[str] = []
    members = group.members
    if len(members) > 1:
        places = distinct_places(members)
        if group.same_text:
            more = f", ... ({len(places) - limit} more)" if len(places) > limit else ""
            lines.append(", ".join(places[:limit]) + more)
        else:
            lines.extend(f"{place}: {numbers}" for place, numbers in zip(places[:limit], numbers_that_differ(members, limit)))
            if len(members) > limit:
                lines.append(f"... {len(members) - limit} more")
    first = group.first
    items = list(first.items)
    total = max(first.item_count, len(items))
    if items and first.message.startswith(_item_text(items[0])):  # a merged finding's first: the line above
        items, total = items[1:], total - 1
    if items and total == len(items) and all(item in first.message for item in items):
        items = []  # the message lists them all already
    if items:
        lines.extend(f"- {item}" for item in items[:limit])
        if total > limit:
            lines.append(f"... {total - limit} more (the JSON report lists {len(first.items)})")
    return lines


def numbers_that_differ(members: tuple[Finding, ...], shown: int | None = None) -> list[str]:
    """For members whose messages differ in numbers only: each member's numbers where they are
    not all the same, in the order of the message (``1,099; 583``), not the whole message again;
    of the first ``shown`` members only (the numbers that vary are those of all)."""
    numbers = [_NUMBER.findall(m.message) for m in members]
    if any(len(n) != len(numbers[0]) for n in numbers):
        return [m.message for m in members[:shown]]
    varying = {i for i in range(len(numbers[0])) if any(n[i] != numbers[0][i] for n in numbers)}
    return ["; ".join(label.replace(_SLOT, n[i]) for i, label in enumerate(_labels(m.message)) if i in varying)
            for m, n in zip(members[:shown], numbers)]  # (each member's own words: "of job 2 (29)", not the first's)


_AFTER = re.compile(r"\s?(?::::MLLOG\s)?([A-Za-z][A-Za-z_]*(?:\(s\))?(?:[ -][A-Za-z][A-Za-z_]*(?:\(s\))?){0,3})")
_LINKING = frozenset(("here", "but", "and", "or", "in", "of", "than", "at", "to", "from", "for", "on",
                      "by", "with", "not", "as", "while", "where", "when", "which", "that", "it", "its", "this",
                      "there", "so", "if", "after", "before", "into"))
"""Words that name nothing after a number (``1000 here but``): the words before it do."""
_SLOT = "\x00"
"""Where a label takes its number (no character of a message: a brace of the log's text stays text)."""
_LINE_LIST = re.compile(r"\blines?\s+(?:\d+(?:,\s*|\s+and\s+|-|\s+to\s+))*\Z")
_OWNER = re.compile(r"([A-Za-z_][\w.]*)\s*\([^()]*\Z")
_CLAUSE = re.compile(r"[^;,:()\[\]]*\(?$")
_NAME_END = re.compile(r"[^\s:;,()\[\]]*")


def _labels(message: str) -> list[str]:
    """For each number of ``message``, a template that names it as the message does: ``{} rank
    tags removed`` (up to four words after it), ``submission_platform at line {}`` or ``srun task
    0 ({})`` (up to three words of its clause before it, when no word follows), or ``{}``."""
    labels = []
    for match in _NUMBER.finditer(message):
        if match.start() and message[match.start() - 1] == "_":  # (a file's index: the file's name, result_{}.txt)
            name_end = _NAME_END.match(message, match.end())
            start, end = message.rfind(" ", 0, match.start()) + 1, name_end.end() if name_end else match.end()
            labels.append((message[start:match.start()] + _SLOT + message[match.end():end]).rsplit("/", 1)[-1])
            continue
        after = _AFTER.match(message, match.end())
        named = after.group(1).split() if after else []
        if named and named[0].lower() not in _LINKING:  # (up to the first linking word: "{} record(s)" of the wrong shape)
            labels.append(" ".join([_SLOT, *itertools.takewhile(lambda word: word.lower() not in _LINKING, named)]))
            continue
        clause = _CLAUSE.search(message, 0, match.start())
        text = clause.group(0) if clause else ""
        said = text.rstrip("(").split()
        take = 3  # (back to a word that names: "rank 0 of job {}", not "0 of job {}")
        while take < min(len(said), 6) and said[-take] != "at" and (said[-take][:1].isdigit() or said[-take].lower() in _LINKING):
            take += 1
        words = said[-take:]
        if words and words[0] == "at" and message[:match.start()].rfind(" more of this rule here") >= 0:
            words.insert(0, "another" if words[-1] == "line" else "others")  # ("(and 1 more ..., at line 141)")
        labels.append(" ".join(words) + (f" ({_SLOT})" if text.endswith("(") else f" {_SLOT}") if words else
                      _owner_label(message[:match.start()]))
    return labels


def _owner_label(before: str) -> str:
    """A number of a list in parentheses (``submission_org (2 times, lines 8, 30)``): named by the
    name before the parenthesis, and as a line where it is one (``submission_org line {}``)."""
    owner = _OWNER.search(before)
    words = [owner.group(1)] if owner else []
    words += ["line"] if _LINE_LIST.search(before) else []
    return " ".join(words + [_SLOT])


def _item_text(item: str) -> str:
    """An item's message without its ``line N: `` prefix."""
    head, _, rest = item.partition(": ")
    return rest if head.startswith("line ") and head[5:].isdigit() else item


def group_for_display(result: CheckResult, min_severity: Severity = Severity.INFO) -> list[FindingGroup]:
    """The findings at or above ``min_severity`` in groups, in the order of the first finding of
    each group (findings sorted by path, run, line and code; a folder's files in natural order)."""
    scope: dict[Finding, tuple[str, int]] = {}
    for bench in result.benchmarks:
        folder = bench.folder or "."
        runs = len({(r.path, r.index) for r in bench.runs})
        for found in bench.findings:
            scope[found] = (folder, runs)
        for run in bench.runs:
            for found in run.findings:
                scope[found] = (folder, runs)
    buckets: dict[tuple[str, str, int, bool, str], list[Finding]] = {}
    where: dict[tuple[str, str, int, bool, str], tuple[str, int]] = {}
    for found in result.all_findings():
        if found.severity < min_severity:
            continue
        folder, runs = scope.get(found, (_folder_of(found.path), 0))
        key = (folder, found.code, int(found.severity), found.official, text_key(found.message))
        buckets.setdefault(key, []).append(found)
        where[key] = (folder, runs)
    groups = []
    for key, members in buckets.items():
        members.sort(key=_natural)
        alone = len(members) > 1 and len({(m.path, m.run_index) for m in members}) == 1
        for part in ([m] for m in members) if alone else (members,):  # (one place's findings: each its own)
            groups.append(FindingGroup(tuple(part), where[key][0], where[key][1]))
    groups.sort(key=_display_order)  # (stable: result_2's before result_10's)
    return groups


def _display_order(group: FindingGroup) -> tuple[tuple[str, ...], list[object]]:
    """Folders in the order of their paths' parts, as the benchmarks are (``tpu`` before
    ``tpu-b``: the whole paths would put ``/`` after ``-``); in a folder, its own findings first,
    then its files' in natural order (result_2 before result_10), as its runs are."""
    parts = tuple(_SEPARATORS.split(group.first.path))
    if group.first.path == group.folder:
        return parts, []
    return parts[:-1], natural_order(parts[-1])


_SEPARATORS = re.compile(r"[/\\]" if os.sep == "\\" else "/")


def _natural(found: Finding) -> tuple[object, ...]:
    """A group's members in the order of their runs (result_2 before result_10)."""
    return (natural_order(found.path), found.run_index if found.run_index is not None else -1,
            found.line if found.line is not None else 0)


def _folder_of(path: str) -> str:
    return os.path.dirname(path.rstrip("/\\")) or "."


def codes_of(groups: Iterable[FindingGroup]) -> list[str]:
    """The rule codes of the groups, once each, sorted."""
    return sorted({g.first.code for g in groups})


def said_once(findings: Iterable[Finding], shown: int = 5) -> list[tuple[Finding, str]]:
    """Findings of one rule, severity and message but for its numbers, said once (``split``'s stderr,
    as the text report groups them): the first of each kind, in their order, and what to add of the
    others (how many, at which lines)."""
    alike: dict[tuple[str, int, str], list[Finding]] = {}
    for found in findings:
        alike.setdefault((found.code, int(found.severity), text_key(found.message)), []).append(found)
    said = []
    for first, *others in alike.values():
        lines = [str(found.line) for found in others if found.line is not None]
        at = (f", at line{'s' if len(lines) > 1 else ''} {', '.join(lines[:shown])}{', ...' if len(lines) > shown else ''}"
              if lines else "")
        said.append((first, f" ({len(others)} more like it{at})" if others else ""))
    return said
