"""MLC535 for a line the RCP checker cannot decode: ``rcp_checker.py read_submission_file`` (every
round) reads each ``:::MLLOG`` line of a result file (``readlines()`` in latin-1: a CR ends a line
too), keeps the text after its last marker and calls ``json.loads`` on it wherever that text
names ``global_batch_size``, ``submission_benchmark`` (from 2.1), ``eval_accuracy``,
``eval_error`` or ``run_stop``, without a ``try``: a record cut there (a truncated file's last
line, a killed job's) raises JSONDecodeError, and the package checker stops with it, even where
the compliance checker tolerates the run as one non-converged. The files are read again only
where the reader found a record it could not decode, and only for a folder the RCP checker tests.
"""

from __future__ import annotations

import json
import os
from typing import Sequence

from mlcheck.model import Finding
from mlcheck.package.package_policy import package_policy
from mlcheck.package.params import params_files
from mlcheck.read.cr_line_ends import cr_line_ended
from mlcheck.read.long_lines import MAX_LINE_BYTES
from mlcheck.results import RcpResult, RunResult
from mlcheck.rules.checker_params import honoured_request
from mlcheck.rules.rcp_check import RCP_POINT_UNREADABLE
from mlcheck.rules.seed_reading import PARSER_FAILURES
from mlcheck.score.rcp.policy import round_policy

_MARKER = b":::MLLOG "
_UNDECODED = PARSER_FAILURES
"""The reader's codes of a line the official parser cannot read (the files worth reading again)."""


def undecodable_for_rcp(members: Sequence[RunResult], rcp: RcpResult | None, ruleset: str | None) -> list[Finding]:
    """At most one finding per file: its first line the RCP checker's ``json.loads`` raises on."""
    if rcp is None or rcp.verdict == "skipped" or ruleset is None or not members:
        return []
    policy = round_policy(ruleset)
    needles = (b"global_batch_size", b"run_stop") + ((b"submission_benchmark",) if policy is None or policy.compares_runs
                                                    else ())
    folder = os.path.dirname(members[0].path)
    by_samples = members[0].benchmark == "bert" and honoured_request(  # (then evals are not decoded, train_samples are)
        params_files(folder), "rcp-bert-train-samples", package_policy(ruleset), ruleset) is not None
    needles += (b"train_samples",) if by_samples else (b"eval_accuracy", b"eval_error")
    found = []
    for path in sorted({r.path for r in members if any(f.code in _UNDECODED for f in r.findings)}):
        line, name = _first_undecodable(path, needles)
        if line is not None:
            found.append(RCP_POINT_UNREADABLE.at(path, line, (
                f"this line names {name} but its record is no JSON the RCP checker can decode: training {ruleset}'s "
                "RCP checker calls json.loads on every line naming it (read_submission_file) and raises "
                "JSONDecodeError, and the package checker stops with it, so the package cannot be accepted as it "
                "is (even where the run would count as non-converged). Mend the line, or remove the run's file "
                "and rerun")))
    return found


def _first_undecodable(path: str, needles: tuple[bytes, ...]) -> tuple[int | None, str]:
    """The line (as the reader numbers it) and the name of the first record the checker would fail
    to decode; a line over :data:`MAX_LINE_BYTES` is passed over (memory stays bounded)."""
    try:
        with open(path, "rb") as raw:
            handle = cr_line_ended(raw)  # (a file of CR line ends: numbered by them, as the reader does)
            number = 0
            while physical := handle.readline(MAX_LINE_BYTES):
                number += 1
                if not physical.endswith(b"\n") and len(physical) == MAX_LINE_BYTES:
                    while (rest := handle.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                        pass  # (the rest of an over-long line)
                    continue
                if _MARKER in physical:
                    name = _undecodable_in(physical, needles)
                    if name:
                        return number, name
    except OSError:
        return None, ""
    return None, ""


def _undecodable_in(physical: bytes, needles: tuple[bytes, ...]) -> str:
    """The name of the first record of a physical line that the checker reads and cannot decode."""
    for line in physical.splitlines():  # (CR, LF, CR LF: the checker's universal newlines)
        at = line.rfind(_MARKER)
        if at < 0:
            continue
        text = line[at + len(_MARKER):].decode("latin-1").strip()  # (str.strip: \x1c-\x1f, \x85, \xa0 too)
        name = next((n for n in needles if n.decode() in text), None)
        if name is not None and not _decodes(text):
            return name.decode()
    return ""


def _decodes(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True
