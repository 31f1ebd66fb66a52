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

from typing import Sequence

from mlcheck.model import Finding
from mlcheck.package.package_policy import package_policy
from mlcheck.package.params import params_files
from mlcheck.read.cr_line_ends import cr_line_ended
from mlcheck.read.file_names import folder_of_log
from mlcheck.read.json_depth import loads as bounded_loads
from mlcheck.read.log_files import readable_path
from mlcheck.read.long_lines import MAX_LINE_BYTES
from mlcheck.results import RcpResult, RunResult
from mlcheck.rules.checker_params import honoured_request
from mlcheck.rules.rcp_check import RCP_POINT_UNREADABLE
from mlcheck.rules.seed_reading import PARSER_FAILURES
from mlcheck.score.rcp.policy import round_policy

_MARKER = b":::MLLOG "
_TOKEN = _MARKER.decode()
_BLOCK = 1 << 20
_UNDECODED = PARSER_FAILURES
"""The reader's codes of a line the official parser cannot read (the files worth reading again)."""


def undecodable_for_rcp(members: Sequence[RunResult], rcp: RcpResult | None, ruleset: str | None) -> list[Finding]:
    """At most one finding per file: its first line the RCP checker's ``json.loads`` raises on."""
    if rcp is None or rcp.verdict == "skipped" or ruleset is None:
        return []
    paths = sorted({r.path for r in members if any(f.code in _UNDECODED for f in r.findings)})
    if not paths:  # (the common case: nothing to read again, no params file to read)
        return []
    policy = round_policy(ruleset)
    needles = ("global_batch_size", "run_stop") + (("submission_benchmark",) if policy is None or policy.compares_runs
                                                  else ())
    by_samples = members[0].benchmark == "bert" and honoured_request(  # (then evals are not decoded, train_samples are)
        params_files(folder_of_log(members[0].path)), "rcp-bert-train-samples", package_policy(ruleset),
        ruleset) is not None
    needles += ("train_samples",) if by_samples else ("eval_accuracy", "eval_error")
    found = []
    for path in paths:
        line, name = _first_undecodable(path, needles)
        if line is not None:
            found.append(RCP_POINT_UNREADABLE.at(path, line, (
                f"this line names {name} but its record is no JSON the RCP checker can decode: training {ruleset}'s "
                "RCP checker calls json.loads on every line naming it (read_submission_file) and raises "
                "JSONDecodeError, and the package checker stops with it, so the package cannot be accepted as it "
                "is (even where the run would count as non-converged). Mend the line, or remove the run's file "
                "and rerun")))
    return found


def _first_undecodable(path: str, needles: tuple[str, ...]) -> tuple[int | None, str]:
    """The line (as the reader numbers it) and the name of the first record the checker would fail
    to decode. Read in blocks, only the lines holding the marker looked at; of a line over
    :data:`MAX_LINE_BYTES` only what follows its last line break or marker is kept, as the checker
    reads its last record (memory stays bounded)."""
    try:
        with open(readable_path(path), "rb") as raw:
            handle = cr_line_ended(raw)  # (a file of CR line ends: numbered by them, as the reader does)
            number, pending = 1, b""
            while block := handle.read(_BLOCK):
                pending += block
                end = pending.rfind(b"\n")
                if end < 0:
                    pending, name = _shortened(pending, needles)
                    if name:
                        return number, name
                    continue
                complete, pending = pending[:end + 1], pending[end + 1:]
                line, name = _in_lines(complete, needles)
                if name:
                    return number + line, name
                number += complete.count(b"\n")
            name = _undecodable_in(pending, needles)
            return (number, name) if name else (None, "")
    except OSError:
        return None, ""


def _in_lines(complete: bytes, needles: tuple[str, ...]) -> tuple[int, str]:
    """The 0-based line of ``complete`` (whole lines) and name of its first undecodable record."""
    at = complete.find(_MARKER)
    while at >= 0:
        start = complete.rfind(b"\n", 0, at) + 1
        end = complete.find(b"\n", at)
        name = _undecodable_in(complete[start:end], needles)
        if name:
            return complete.count(b"\n", 0, start), name
        at = complete.find(_MARKER, end)
    return 0, ""


def _shortened(pending: bytes, needles: tuple[str, ...]) -> tuple[bytes, str]:
    """A line without its end yet: past :data:`MAX_LINE_BYTES`, its CR-ended parts are judged and
    dropped, and what remains is kept from its last marker (a record longer than the cap: dropped)."""
    if len(pending) <= MAX_LINE_BYTES:
        return pending, ""
    cr = pending.rfind(b"\r")
    name = _undecodable_in(pending[:cr + 1], needles) if cr >= 0 else ""
    rest = pending[cr + 1:]
    marker = rest.rfind(_MARKER)
    if marker < 0:
        return rest[-len(_MARKER):], name  # (a marker cut by the block's end)
    return (rest[marker:] if len(rest) - marker <= MAX_LINE_BYTES else b""), name


def _undecodable_in(physical: bytes, needles: tuple[str, ...]) -> str:
    """The name of the first record of a physical line that the checker reads and cannot decode."""
    for line in physical.splitlines():  # (CR, LF, CR LF: the checker's universal newlines)
        at = line.rfind(_MARKER)
        if at < 0:
            continue
        # (the checker: re.sub(".*" + TOKEN, TOKEN, line).strip(), then the text after TOKEN)
        stripped = line[at:].decode("latin-1").strip()
        if not stripped.startswith(_TOKEN):
            continue
        text = stripped[len(_TOKEN):]
        name = next((n for n in needles if n in text), None)
        if name is not None and not _decodes(text):
            return name
    return ""


def _decodes(text: str) -> bool:
    try:
        bounded_loads(text)
    except (ValueError, RecursionError):
        return False
    return True
