"""Plain-text pieces shared by every reporter (no rich import: the JSON path stays light), and
the names of the text and table formats that the commands offer (a command line that only parses
its options imports no reporter)."""

from __future__ import annotations

import re
from typing import IO, Any, Iterable, Sequence

from mlcheck.model import Finding, Severity
from mlcheck.results import BenchmarkResult, CheckResult, RunResult
from mlcheck.rules.package import MULTIPLIED, SCALING_APPLIED, SCALING_JSON_INVALID
from mlcheck.rules.rcp_check import RULES as _RCP_RULES

OUTPUT_FORMATS = ("full", "concise")
"""The text report's findings (:mod:`mlcheck.report.text_findings`): ``full``: each finding's line
and, under it, what it covers and the runs it concerns; ``concise``: one line per finding."""
TERMINAL_CAP = 40
"""The most findings the text report shows on a terminal (never in a file or a pipe)."""
TABLE_FORMATS = ("text", "csv", "markdown", "json")
"""The formats of the results table (:mod:`mlcheck.report.results_table`)."""


def format_minutes(minutes: float | None) -> str:
    """Minutes rounded to two decimals, as MLCommons publishes them (a time no run can take, from a
    clock that is no date, in four digits and an exponent: a column is no 300 digits wide)."""
    if minutes is None:
        return "—"
    return f"{minutes:.2f}" if abs(minutes) < 1e9 else f"{minutes:.4g}"


def summary_line(result: CheckResult, fail_level: Severity = Severity.ERROR) -> str:
    """One line for stderr: counts and the verdict (the findings waived, where any; what fails a
    check that fails on warnings, ``--strict``)."""
    found = result.all_findings()
    errors = sum(1 for f in found if f.severity is Severity.ERROR)
    warnings = sum(1 for f in found if f.severity is Severity.WARNING)
    waived = f", {len(result.waived)} waived" if result.waived else ""
    strict = "; strict: warnings fail this check" if not errors and warnings and fail_level <= Severity.WARNING else ""
    return (f"mlcheck: {runs_text(result.runs)}, "
            f"{counted(len(result.benchmarks), 'benchmark')} ({valid_scores_text(result)}), "
            f"{counted(errors, 'error')}, {counted(warnings, 'warning')}{waived}{strict}")


def division_text(bench: BenchmarkResult) -> str:
    """``closed division``: the division the runs log; where the system description says another,
    both, and which one the results table publishes (the description's, as the summarizer does)."""
    logged = bench.division or "unknown"
    described = bench.system_info.division if bench.system_info else None
    if not described or described == logged:
        return f"{logged} division"
    shown = described if described.strip() == described and described.isprintable() else repr(described)
    return f"{logged} division logged, {shown} in the system description (published as {shown})"


def valid_scores_text(result: CheckResult) -> str:
    """``3 with a valid score``, and how many of those the RCP test refuses (:func:`rcp_refusal`:
    failed, no reference, undetermined; the package checker refuses them unless a bypass is reviewed)."""
    valid = [b for b in result.benchmarks if b.score.valid]
    rcp = sum(1 for b in valid if rcp_refusal(b) is not None)
    return f"{len(valid)} with a valid score" + (f", {rcp} of them failing the RCP test" if rcp else "")


def run_tally(runs: Iterable[RunResult]) -> tuple[int, int]:
    """(failing, tolerated): the runs with an error finding, and the other runs whose verdict is
    nevertheless ``fail``: non-converged runs their folder tolerates, which fail no check (the
    JSON report's ``runs_failed`` is their sum, its ``runs_tolerated`` the second)."""
    failing = tolerated = 0
    for run in runs:
        if any(f.severity is Severity.ERROR for f in run.findings):
            failing += 1
        elif run.tolerated:
            tolerated += 1
    return failing, tolerated


def runs_text(runs: Sequence[RunResult]) -> str:
    """``143 runs (0 failing)``; ``143 runs (3 failing, 3 of them not converged, tolerated by their
    folders)``: every run whose verdict is ``fail`` is counted (the JSON report's ``runs_failed``),
    and the tolerated ones said apart."""
    failing, tolerated = run_tally(runs)
    if not tolerated:
        return f"{counted(len(runs), 'run')} ({failing} failing)"
    which = ":" if not failing else f", {tolerated} of them"
    folders = "its folder" if tolerated == 1 else "their folders"
    return f"{counted(len(runs), 'run')} ({failing + tolerated} failing{which} not converged, tolerated by {folders})"


def counted_runs(bench: BenchmarkResult) -> set[int]:
    """The runs counted in the folder's score, none where there is no score (the JSON lists those the olympic
    mean would take even then: a report marks none as counted in a score that is not)."""
    return set(bench.score.runs_counted) if bench.score.score_min is not None else set()


def dropped_runs(bench: BenchmarkResult) -> tuple[int, ...]:
    """The runs the folder's score dropped (fastest, slowest), none where there is no score (:func:`counted_runs`)."""
    return bench.score.runs_dropped if bench.score.score_min is not None else ()


def run_verdict_text(run: RunResult) -> str:
    """A run's verdict for a runs table: ``pass``, ``fail``, or ``fail (tolerated)`` for a
    non-converged run its folder tolerates, which fails no check (it is the olympic mean's slowest)."""
    tolerated = run.tolerated and not any(f.severity is Severity.ERROR for f in run.findings)  # (as run_tally counts it)
    return "fail (tolerated)" if tolerated else run.verdict


def failing_runs_text(runs: Sequence[RunResult]) -> str:
    """``0 of 5``, ``1 of 5 (tolerated)`` for a folder's table row."""
    failing, tolerated = run_tally(runs)
    more = "" if not tolerated else " (tolerated)" if not failing else f" ({tolerated} tolerated)"
    return f"{failing + tolerated} of {len(runs)}{more}"


def counted(number: int, noun: str) -> str:
    """``1 run``, ``2 runs``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


_SURROGATE = re.compile("[\ud800-\udfff]")
"""A file name's undecodable byte (``surrogateescape``), a lone surrogate of a log's JSON escape."""


def printable(text: str) -> str:
    """``text`` as valid Unicode: a file name's bytes that Python kept as surrogates are read as
    UTF-8 (a name in UTF-8 under a locale of another encoding, ``LC_ALL=C``), those that are not
    UTF-8 become U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:
            return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        except UnicodeEncodeError:  # (a surrogate no byte stands for, "\ud800" in a log's JSON: one U+FFFD each)
            return _SURROGATE.sub("\ufffd", text)
    return text


_CONTROLS = {**{code: f"\\x{code:02x}" for code in (*range(0x09), *range(0x0b, 0x20), 0x7f, *range(0x80, 0xa0))},
             **{code: f"\\u{code:04x}" for code in (0x2028, 0x2029, *range(0x202a, 0x202f), *range(0x2066, 0x206a),
                                                    *range(0xfdd0, 0xfdf0), 0xfffe, 0xffff)}}
"""Control characters but the tab and the line end, as ``\\x1b``: a log's value (a submitter's
platform name) must not move the cursor, colour or clear a terminal, nor make XML invalid; the
line and paragraph separators (an editor's line end) and the bidirectional overrides and
isolates (text shown in another order than it is) as ``\\u2028``; the noncharacters of the first
plane (``\\ufffe``: HTML calls them a parse error)."""
_HAS_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069\ufdd0-\ufdef\ufffe\uffff]").search


def shown(text: str) -> str:
    """:func:`printable`, control characters written as escapes: text from a log in a report."""
    text = printable(text)
    return text.translate(_CONTROLS) if _HAS_CONTROL(text) else text


def one_line(text: str) -> str:
    """:func:`shown` on one line: a line end from a log's value written as ``\\n`` (a finding
    of the text report is one line, for grep and CI logs; the older workflow command ``##[`` of a
    name or a value, which GitHub's runner looks for anywhere in a line, as ``##\\[``)."""
    return _no_legacy_command(shown(text).replace("\n", "\\n"))


_MARKDOWN = {**{ord(c): "\\" + c for c in "\\`*_[]!~&|"}, ord("<"): "&lt;", ord(">"): "&gt;"}
"""Markdown's punctuation backslash-escaped (CommonMark escapes any ASCII punctuation), ``<`` and
``>`` as entities: a log's or a system description's text is shown as it is, never as a link, an
image, emphasis, code or HTML (``![x](https://...)`` in a system name)."""


_AUTOLINK = re.compile(r"://|www\.")
"""What GitHub's Markdown links without brackets (``https://``, ``www.``): its ``:`` or ``.`` is escaped."""
_LINE_START = re.compile(r">|#{1,6}(?= |$)|[+-](?= |$)|[-=]+$|\d{1,9}[.)](?= |$)")
"""What begins a heading, a quote, a list or a setext line at the start of a line (a file name ``# a.log``)."""


def markdown_cell(text: str) -> str:
    """Text safe inside a Markdown table cell or list item: on one line, no pipes, no markup, no
    link: GitHub's autolinks (``https://``, ``www.``, ``name@host``) and mentions (``@name``)
    are broken (``\\:``, ``\\.``, a zero-width space after ``@``), as is a block marker it begins with."""
    text = _AUTOLINK.sub(lambda m: "\\" + m.group() if m.group() == "://" else "www\\.",
                         " ".join(text.split()).translate(_MARKDOWN))
    text = text.replace("@", "@&#8203;")
    start = _LINE_START.match(text)
    return text if start is None else text[:start.end() - 1] + "\\" + text[start.end() - 1:]


def markdown_code(text: str, in_table: bool = False) -> str:
    """``text`` (a file or folder name) as a Markdown code span that nothing in it can end: its
    fence is one backtick longer than its longest run of backticks, and a space pads a name that
    begins or ends with one. Inside the span ``<`` and ``&`` are literal (CommonMark: no HTML, no
    entities), line ends and control characters are written as the text report writes them (one
    list item, one table row), and in a table a ``|`` is escaped (GFM splits cells before it
    reads code spans, and removes that backslash)."""
    text = one_line(text)
    if in_table:
        text = text.replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_RCP_CODES = frozenset(rule.code for rule in _RCP_RULES)


def rcp_refusal(bench: BenchmarkResult) -> Finding | None:
    """The RCP error of a folder (failed, missing, undetermined, unreadable; not bypassed): the
    score stands as the summarizer computes it, but the round's package checker refuses the
    submission until the review committee lets it through."""
    return next((f for f in bench.all_findings() if f.code in _RCP_CODES and f.severity is Severity.ERROR), None)


def scaling_source(bench: BenchmarkResult) -> str:
    """Where the factor multiplied into a folder's score comes from: its ``scaling.json`` (a review
    committee's), else the RCP test's normalisation (2.1+, above 1; a scaling.json the package
    checker writes over does not count)."""
    if any(found.code in _SCALING_JSON_CODES and MULTIPLIED in found.message and "does not count" not in found.message
           for found in bench.all_findings()):  # (read from the folder's scaling.json)
        return "scaling.json"
    rcp = bench.rcp
    normalised = rcp is not None and rcp.normalization_factor is not None \
        and rcp.normalization_factor == bench.score.scaling_factor
    return "the RCP normalisation" if normalised else "scaling.json"


_SCALING_JSON_CODES = frozenset({SCALING_APPLIED.code, SCALING_JSON_INVALID.code})
"""scaling.json's factor multiplied into the score, or one at or below 0 (multiplied all the same)."""


def kilojoules_text(joules: float | None) -> str:
    """An energy score in a table's ``energy (kJ)`` column: ``5,671.9``, or ``—`` without one."""
    return "—" if joules is None else f"{joules / 1000:,.1f}"


_COMMAND_LINE = re.compile(r"(\n[^\S\n]*)(::)")
"""A line that a CI runner would read as a workflow command: ``::`` after its leading blanks (any
Unicode blank: the runner's ``TrimStart`` trims them all)."""


def command_safe(text: str, line_start: bool = True) -> str:
    """``text`` with no line a CI runner reads as a command: ``::`` beginning a line after blanks
    behind a ``\\``, and the older ``##[`` anywhere in a line as ``##\\[`` (GitHub's runner looks for
    it anywhere). ``line_start``: whether ``text`` begins a line."""
    text = _COMMAND_LINE.sub(r"\1\\\2", ("\n" if line_start else "") + text)[1 if line_start else 0:]
    return _no_legacy_command(text)


def _no_legacy_command(text: str) -> str:
    return text.replace("##[", "##\\[") if "##[" in text else text


class CommandSafeStream:
    """A text stream (a console's file) written through :func:`command_safe`: an org, a folder or a
    path named ``::error title=x::...`` begins no line a CI runner reads as a command (GitHub Actions'
    runner reads a line as a workflow command where it begins with ``::`` once leading blanks are
    trimmed). Everything else is the stream's."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream, self._line_start = stream, True

    def write(self, text: str) -> int:
        if text:
            self._stream.write(command_safe(text, self._line_start))
            self._line_start = text.endswith("\n")
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


RAW_FORMATS = frozenset({"github", "json", "sarif"})
"""Formats written to a standard stream as they are: workflow commands, or JSON (whose strings hold no line end)."""


def safe_stream(stream: IO[str], name: str) -> IO[str]:
    """``stream`` for a report in format ``name``: through :class:`CommandSafeStream` unless the format is
    one of :data:`RAW_FORMATS` (a CI runner reads standard output and error: a line of HTML or XML that a
    log's value begins with ``::`` is no command)."""
    return stream if name in RAW_FORMATS else CommandSafeStream(stream)  # type: ignore[return-value]
