"""Renderers of a :class:`~mlcheck.results.CheckResult`; none of them looks at raw events.

Every format is a function ``(result, options) -> str`` in :data:`REPORTERS`, so the CLI can write
several formats from one check (``--output sarif:out.sarif --output junit:out.xml``).
"""

from __future__ import annotations

import io
import os
import re
from typing import TYPE_CHECKING, Callable, Iterator, Mapping

from mlcheck.records import dataclass, field
from mlcheck.model import Severity
from mlcheck.results import CheckResult

if TYPE_CHECKING:
    from rich.console import Console


@dataclass(frozen=True)
class ReportOptions:
    """What a reporter may take besides the result."""

    fail_level: Severity = Severity.ERROR
    """Findings at or above it fail (``--strict``: warnings)."""
    min_severity: Severity = Severity.INFO
    """The least severe finding a human-facing list shows (``-q``: errors only)."""
    color: bool = False
    root: str = "."
    """Paths in SARIF, JUnit and annotations are made relative to this folder."""
    input_digests: Mapping[str, str] = field(default_factory=dict)
    """sha256 of each input file (the HTML report lists them)."""
    width: int = 120
    output_format: str = "full"
    """Text only: ``full`` (context under each finding) or ``concise`` (one line each)."""
    unopenable: tuple[str, ...] = ()
    """The paths named on the command line that could not be opened at all (exit 2): SARIF says
    the run did not succeed."""


Renderer = Callable[[CheckResult, ReportOptions], str]


def _text(result: CheckResult, options: ReportOptions) -> str:
    from rich.console import Console

    from mlcheck.report.plain import CommandSafeStream
    from mlcheck.report.text import render_text
    buffer = io.StringIO()
    console = Console(file=CommandSafeStream(buffer), width=options.width, force_terminal=options.color,  # type: ignore[arg-type]
                      color_system="standard" if options.color else None, highlight=False,
                      markup=False, emoji=False)  # (a log's "[/]" or ":smile:" is shown as written)
    render_text(result, console, min_severity=options.min_severity, output_format=options.output_format)
    render_waived_text(result, console)
    return buffer.getvalue()


def render_waived_text(result: CheckResult, console: Console) -> None:
    """The "Waived" section of the text report (nothing when no finding was waived)."""
    from rich.text import Text

    from mlcheck.report.plain import one_line
    if not result.waived:
        return
    console.print(Text("Waived", style="bold"))
    for waived in result.waived:  # (escaped as a finding's line: the log's value, the config's reason)
        found = waived.finding
        where = found.path + (f":{found.line}" if found.line is not None else "")
        line = Text(f"{one_line(where)}: ")
        line.append(f"waived {found.code} {found.name}", style="dim")
        line.append(one_line(f": {found.message} (reason: {waived.reason}; {waived.waiver}"
                             + (f", expires {waived.expires})" if waived.expires else ")")))
        console.print(line, soft_wrap=True)


def _json(result: CheckResult, options: ReportOptions) -> str:
    from mlcheck.report.json_report import render_json
    return render_json(result, options.fail_level)


def _lazy(module: str, function: str) -> Renderer:
    def render(result: CheckResult, options: ReportOptions) -> str:
        import importlib
        rendered: str = getattr(importlib.import_module(module), function)(result, options)
        return rendered
    return render


REPORTERS: dict[str, Renderer] = {
    "text": _text,
    "json": _json,
    "sarif": _lazy("mlcheck.report.sarif", "render_sarif"),
    "junit": _lazy("mlcheck.report.junit", "render_junit"),
    "github": _lazy("mlcheck.report.github", "render_github"),
    "markdown": _lazy("mlcheck.report.markdown", "render_markdown"),
    "html": _lazy("mlcheck.report.html", "render_html"),
}


STREAMED: dict[str, tuple[str, str]] = {
    "json": ("mlcheck.report.json_report", "json_report_blocks"),
    "sarif": ("mlcheck.report.sarif", "sarif_blocks"),
    "junit": ("mlcheck.report.junit", "junit_blocks"),
}
"""The formats whose text is made as it is written (a function ``(result, options) -> blocks``):
the large ones, whose document is never held whole."""


def resolve_format(name: str, environ: Mapping[str, str] | None = None) -> str:
    """``auto`` is ``github`` inside GitHub Actions (``GITHUB_ACTIONS=true``), else ``text``."""
    environ = os.environ if environ is None else environ
    if name == "auto":
        return "github" if environ.get("GITHUB_ACTIONS") == "true" else "text"
    return name


def render(name: str, result: CheckResult, options: ReportOptions | None = None) -> str:
    """The report in format ``name`` (one of :data:`REPORTERS`, or ``auto``), as valid Unicode:
    a file name with bytes that are not UTF-8 (kept as surrogates by Python) shows U+FFFD."""
    return "".join(report_blocks(name, result, options))


def report_blocks(name: str, result: CheckResult, options: ReportOptions | None = None) -> Iterator[str]:
    """The text of :func:`render` in blocks to write one after the other; a format of
    :data:`STREAMED` makes each block as it is asked for."""
    import importlib

    from mlcheck.report.plain import printable, shown

    name, options = resolve_format(name), options or ReportOptions()
    if name not in STREAMED:
        yield shown(REPORTERS[name](result, options))
        return
    # (JSON escapes every control character itself; in XML most are not allowed: written as escapes)
    valid = printable if name in ("json", "sarif") else shown
    module, function = STREAMED[name]
    if name == "json":  # (the JSON report takes the fail level alone)
        blocks = getattr(importlib.import_module(module), function)(result, options.fail_level)
    else:
        blocks = getattr(importlib.import_module(module), function)(result, options)
    for block in blocks:  # (a character is never split across blocks: the same text)
        yield valid(block)


def repository_root(start: str = ".", checked: str | None = None) -> str:
    """The root code scanning and annotations resolve paths against: the nearest folder holding
    ``.git`` at or above ``start`` (the working folder: one root whatever is checked), else at or
    above the ``checked`` file (a repository checked out in a folder of the workspace, ``path:
    repo``); else ``$GITHUB_WORKSPACE`` in GitHub Actions (its checkout); else ``start``."""
    for origin in [_logical(start)] + ([checked] if checked and checked not in NOT_FILES else []):
        here = os.path.abspath(origin)
        while True:
            if os.path.exists(os.path.join(here, ".git")):
                return here
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    workspace = os.environ.get("GITHUB_WORKSPACE", "") if os.environ.get("GITHUB_ACTIONS") == "true" else ""
    return os.path.abspath(workspace if workspace.strip() and os.path.isdir(workspace) else start)


def _logical(start: str) -> str:
    """``start``, the working folder as the shell spells it (``$PWD``: a workspace reached through a
    link keeps the link's name, as the checked paths do) where ``start`` is ``.``."""
    pwd = os.environ.get("PWD", "")
    try:
        return pwd if start == "." and os.path.isabs(pwd) and os.path.samefile(pwd, ".") else start
    except OSError:
        return start


def is_inside(path: str, root: str) -> bool:
    """Whether ``path`` lies in ``root`` (so a relative path to it has no ``..``)."""
    return _relative(path, root) is not None


NOT_FILES = {"-": "standard input", "": "no file", "environment": "the MLCHECK_* environment variables"}
"""Finding paths that name no file: what each stands for."""


def names_no_file(path: str) -> bool:
    """Whether a finding's path is one of :data:`NOT_FILES`, and no file or folder of that name
    exists here (a log named ``environment`` is a file)."""
    return path in NOT_FILES and not (path and os.path.lexists(path))


def slashed(path: str) -> str:
    """``path`` with ``/`` separators: on Windows its ``\\`` become ``/``; on POSIX a ``\\`` is a
    character of a name (a folder ``pod\\16``) and stays."""
    return path.replace(os.sep, "/") if os.sep != "/" else path


def up_to_benchmark_folder(folder: str) -> list[str]:
    """``folder`` (no trailing separator), and for a benchmark folder's ``power/`` or
    ``power/result_<i>/`` the folders above it up to the benchmark folder (``.`` where the path
    names none): where a finding about the power logs finds its benchmark folder's result files."""
    found = [folder.rstrip("/" + os.sep) or folder]
    names = slashed(found[0]).split("/")
    levels = 1 if names[-1] == "power" else 2 if len(names) > 1 and names[-2] == "power" else 0
    for _ in range(levels):
        found.append(os.path.dirname(found[-1]) or os.curdir)
    return found


def relative_path(path: str, root: str) -> str:
    """``path`` relative to ``root`` with ``/`` separators; a path outside ``root`` absolute
    (``/data/run/result_0.txt``, not ``../../data/run/result_0.txt``), and as given when it is not
    a file path."""
    if path in NOT_FILES:
        return path
    inside = _relative(path, root)
    return inside if inside is not None else slashed(os.path.abspath(path))


def _relative(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` (``/`` separators), or None where it lies outside."""
    try:
        shown = slashed(os.path.relpath(os.path.abspath(path), os.path.abspath(root)))
    except ValueError:  # (another drive)
        return None
    return None if shown == ".." or shown.startswith("../") else shown


def rule_help(code: str) -> str:
    """The paragraph of a rule module's docstring that documents ``code`` (or its summary)."""
    from mlcheck.rules import find_rule
    found = find_rule(code)
    if found is None:
        return ""
    rule, module = found
    doc = module.__doc__ or ""
    end = r"(?=^- MLC\d{3} |^\S|\Z)"
    match = re.search(rf"^- {re.escape(rule.code)} [a-z0-9-]+(?: \([a-z/ ]+\))?: (.*?)" + end, doc, re.M | re.S)
    if match is None:
        return rule.summary
    also = re.findall(rf"^- {re.escape(rule.code)} (also .*?)" + end, doc, re.M | re.S)  # "- MLC003 also covers ..."
    return plain_roles(" ".join(" ".join([match.group(1), *(f"It {text}" for text in also)]).split()))


def plain_roles(text: str) -> str:
    """Docstring text as a user reads it: ``:mod:`x```, ``:data:`X``` and ````x```` written `x`."""
    return re.sub(r":(?:data|mod|func|class|meth|attr|obj):`~?([^`]+)`", r"`\1`", text).replace("``", "`")
