"""Where the official tools stop on a benchmark folder instead of judging it, so that they publish
no score (MLC521 and the folder's score say so instead of a published time):

- the compliance checker loads a rule file named after a logged value, and a file that does not
  exist ends it with FileNotFoundError after its "Could not find config file" message
  (official-tooling.md §1.2: ``common.yaml``'s ``submission_division`` POST enqueues
  ``<division>_common.yaml``, ``closed_common.yaml``/``open_common.yaml``'s ``submission_benchmark``
  POST ``<division>_<benchmark>.yaml``, closed ResNet's ``opt_name`` POST
  ``closed_resnet_<opt>.yaml``, each even when the value's own check failed); the package checker
  and the result summarizer call it without a ``try``;
- the RCP checker raises on a run of a closed folder (MLC535, :mod:`mlcheck.score.rcp.unreadable`,
  and a line it decodes that is cut, :mod:`mlcheck.judge.rcp_lines`);
- a ``result_<i>.txt`` is a FIFO (MLC015): every official tool that opens it waits forever; one
  that cannot be opened (MLC001: a folder, no permission) makes the checker raise;
- the compliance checker compares an evaluation with the target and raises (a string, a null, a
  missing field: :mod:`mlcheck.rules.target_comparison`, MLC304);
- the official parser (``mlp_parser``'s ``string_to_logline``, the same from 0.7 to 6.1) raises
  something other than the ValueError its ``parse_generator`` catches on a line (a record without
  ``key``: KeyError; ``time_ms`` null: TypeError), and neither the package checker nor the summarizer
  catches it.
"""

from __future__ import annotations

import functools
import os
from typing import Sequence

from mlcheck.facts.checks import clipped
from mlcheck.facts.rule_files import RULE_FILES
from mlcheck.model import Event, Finding
from mlcheck.results import RcpResult, RunResult, RunSummary
from mlcheck.package.file_kinds import cannot_open, special_kind
from mlcheck.package.power import official_parse
from mlcheck.read.file_names import SUBMITTED_RESULT_FILE
from mlcheck.read.official_view import shown_name
from mlcheck.read.reading_rules import COMPRESSED_RESULT_FILE, FILE_UNREADABLE, NOT_A_REGULAR_FILE
from mlcheck.rules.convergence import EVAL_VALUE_INVALID
from mlcheck.rules.rcp_check import RCP_POINT_UNREADABLE
from mlcheck.rules.target_comparison import CHECKER_RAISES


_MAY_RAISE = frozenset({"MLC003", "MLC005", "MLC006", "MLC007", "MLC008", "MLC025"})
"""Records the official parser may raise on rather than skip: nested too deeply (RecursionError),
not an object (TypeError), without ``key``, ``value`` or ``metadata`` (KeyError), a ``time_ms``
null or a list (TypeError)."""


@functools.lru_cache(maxsize=64)  # (the folder's stop and its seed check ask alike)
def _parsed(path: str, _size: int, _mtime_ns: int) -> tuple[int, str] | None:
    """Where the official parser raises on the file (its size and modification time are in the key: a file
    changed since is read again)."""
    return official_parse(path)[0]


def _identity(path: str) -> tuple[int, int]:
    try:
        status = os.stat(path)
    except OSError:
        return -1, -1
    return status.st_size, status.st_mtime_ns


def stopping_files(members: Sequence[RunResult]) -> dict[str, str]:
    """The result files of ``members`` that the compliance checker raises on or waits on forever
    (so that the package checker and the summarizer stop before any other check of the folder,
    the seed checker's included), each with what it does."""
    stops: dict[str, str] = {}
    by_path: dict[str, list[Finding]] = {}
    for member in members:  # (one pass: a folder may hold thousands of runs)
        by_path.setdefault(member.path, []).extend(member.findings)
    for path, found in sorted(by_path.items()):
        name = os.path.basename(path)
        codes = {f.code for f in found if f.official and f.line is None}
        kind = special_kind(path) if NOT_A_REGULAR_FILE.code in {f.code for f in found} else None
        if FILE_UNREADABLE.code in codes and SUBMITTED_RESULT_FILE.match(name) and cannot_open(path):
            stops[path] = f"raises opening {name} (an OSError it does not catch)"
        elif kind is not None and "FIFO" in kind:
            stops[path] = f"waits forever reading {name} ({kind}, MLC015)"
        elif kind == "a socket":
            stops[path] = f"raises opening {name} (a socket: an OSError it does not catch)"
        elif raising := sorted(f.line for f in found if f.code == EVAL_VALUE_INVALID.code and f.official
                               and f.line is not None and CHECKER_RAISES in f.message):
            stops[path] = (f"raises comparing the evaluation on line {raising[0]} of {name} with the target (its "
                           "ATLEAST_ONE_CHECK, evaluated outside any try: MLC304)")
        elif any(f.code in _MAY_RAISE and f.official for f in found):
            crash = _parsed(path, *_identity(path))  # (read again as the parser reads it: only such rare files)
            if crash is not None:
                lines = sorted(f.line for f in found if f.code in _MAY_RAISE and f.line is not None and f.line <= crash[0])
                stops[path] = (f"raises {crash[1]} on line {lines[-1] if lines else crash[0]} of {name} (its parser "
                               "catches only ValueError)")
    return stops


def official_stops(members: Sequence[RunResult], rcp: RcpResult | None, ruleset: str | None) -> tuple[str, list[Finding]]:
    """Why the official tools stop on a whole folder (``""``: they do not), and the MLC535 findings
    of the lines its RCP checker decodes and cannot (:func:`undecodable_for_rcp`, read first)."""
    from mlcheck.judge.rcp_lines import undecodable_for_rcp

    cut = undecodable_for_rcp(members, rcp, ruleset) if rcp is not None else []
    return folder_stops(members, ruleset, cut) or rcp_stops(rcp), cut


def folder_stops(members: Sequence[RunResult], ruleset: str | None, more: Sequence[Finding] = ()) -> str:
    """Why the official tools stop on the folder of ``members`` (``""``: they do not); ``more``:
    the folder's findings beside its runs'."""
    why = summarizer_stops(members, ruleset)
    if why:
        return why
    raising = sorted({os.path.basename(f.path) for f in [*(f for r in members for f in r.findings), *more]
                      if f.code == RCP_POINT_UNREADABLE.code})
    if raising:
        return (f"the RCP checker raises on {', '.join(raising)} and the package checker stops with it "
                "(MLC535): a package it does not pass is not published")
    return ""


def summarizer_stops(members: Sequence[RunResult], ruleset: str | None) -> str:
    """Why the compliance checker stops on the folder of ``members``, and the package checker and
    the result summarizer with it, which then publishes nothing of the package (``""``: it does not)."""
    for member in members:
        missing = _missing_rule_file(member.run, ruleset) if member.run is not None and ruleset else ""
        if missing:
            return (f"the official checker stops on {os.path.basename(member.path)}: it loads "
                    f"training_{ruleset}/{shown_name(clipped(missing))}, which does not exist (FileNotFoundError), and the package "
                    "checker and the summarizer stop with it: the official tools publish no score")
    stops = stopping_files(members)
    if stops:
        path, why = min(stops.items())
        return (f"the official checker {why}, and the package checker and the summarizer stop with it: the official "
                "tools publish no score")
    return ""


def _missing_rule_file(run: RunSummary, ruleset: str) -> str:
    """The rule file the round's compliance checker loads for ``run`` and does not have."""
    files = RULE_FILES.get(ruleset)
    division = _logged(run.first("submission_division"))
    if files is None or division is None:
        return ""
    if f"{division}_common" not in files:
        return f"{division}_common.yaml"
    benchmark = _logged(run.first("submission_benchmark"))
    if benchmark is None:
        return ""
    if f"{division}_{benchmark}" not in files:
        return f"{division}_{benchmark}.yaml"
    optimizer = _logged(run.first("opt_name"))
    if division == "closed" and benchmark == "resnet" and optimizer is not None \
            and f"closed_resnet_{optimizer}" not in files:  # (the only rule file that loads another by a value)
        return f"closed_{benchmark}_{optimizer}.yaml"
    return ""


def _logged(event: Event | None) -> str | None:
    """The value as the checker's ``'{}'.format(v['value'])`` writes it into a file name."""
    if event is None:
        return None
    value = event.value
    if isinstance(value, bool):
        return str(value)
    if value is None:
        return "None"
    return str(value) if isinstance(value, (str, int, float)) else None


def rcp_stops(rcp: RcpResult | None) -> str:
    """Why the official tools stop on the folder's RCP test (``""``: they do not)."""
    if rcp is None or not rcp.stops:
        return ""
    return ("the RCP checker raises on the runs' benchmark names or batch sizes (MLC532), and the package "
            "checker stops with it: a package it does not pass is not published")


def read_as_text(member: RunResult) -> bool:
    """Whether ``member`` is a gzip file named ``result_<i>.txt`` (MLC026), which mlcheck reads through
    and the RCP checker reads as text (``read_submission_file``): a file of no record to it."""
    return any(f.code == COMPRESSED_RESULT_FILE.code for f in member.findings)


def unopened_rcp(members: Sequence[RunResult], rcp: RcpResult) -> RcpResult:
    """``rcp``, unless a result file of the folder cannot be opened (MLC001): the round's RCP checker
    (``read_submission_file``) raises opening it, as the compliance checker does before it, and
    tests nothing; mlcheck's test would read it as a run without records (no benchmark name, no
    batch size) and blame what it does not log."""
    unopened = sorted(os.path.basename(m.path) for m in members if m.run is None and SUBMITTED_RESULT_FILE.match(
        os.path.basename(m.path)) and any(f.code == FILE_UNREADABLE.code and f.line is None for f in m.findings)
        and cannot_open(m.path))
    if not unopened or rcp.verdict == "skipped":
        return rcp
    return RcpResult("fail", f"{', '.join(unopened)} cannot be opened (MLC001): the round's RCP checker raises opening "
                     "it (an OSError it does not catch), as the compliance checker does before it, so the package "
                     "checker stops", unit=rcp.unit, source=rcp.source, stops=True)
