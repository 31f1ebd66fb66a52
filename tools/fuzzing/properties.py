"""Run one :class:`~fuzzing.case.Case` and say which properties it breaks.

Through the public API only (``mlcheck.check``, ``mlcheck.report.render``, ``mlcheck.cli.main``
and the JSON report schema), so that a refactor of the modules behind them changes nothing here:

- no exception escapes ``check()``, a reporter or the command line; the command line exits 0 or
  1 (2 only where the case says its input is a usage error), with no traceback and no "internal
  error";
- no MLC000 finding (a rule that crashed), located by re-running the case under a tracer;
- the JSON report validates against ``schemas/report.schema.json``;
- every finding's line lies inside its file;
- the same input gives the same bytes twice;
- no input file changes (names, modes, bytes);
- time and traced memory stay within a bound proportional to the input.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import stat
import sys
import time
import tracemalloc
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Any, Callable, Iterator

import jsonschema
from click.testing import CliRunner

from fuzzing.case import Case, materialise, remove, tree_digest
from fuzzing.values import ROOT
from mlcheck import check
from mlcheck.cli import main
from mlcheck.report import render

SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text("utf-8"))
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
FORMATS = ("json", "sarif", "junit", "github", "markdown", "html", "text")

TIME_BASE_S, TIME_PER_KB_S = 3.0, 0.02
"""Generous: a linear stage does a KB in well under a millisecond; this catches hangs and blow-ups."""
MEMORY_BASE, MEMORY_PER_BYTE = 48 * 2 ** 20, 64
TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Failure:
    """A broken property: ``key`` tells one root cause from another (property, exception type and
    where it was raised), ``detail`` says what happened."""

    key: str
    detail: str


class CaseTimeout(BaseException):
    """Raised by the alarm in whatever mlcheck was doing (a BaseException: its isolation of
    crashes must not swallow it)."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Interrupt the body after ``seconds`` (main thread, POSIX; elsewhere no limit)."""
    if not hasattr(signal, "setitimer") or seconds <= 0:
        yield
        return

    def fire(_signum: int, _frame: FrameType | None) -> None:
        raise CaseTimeout

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def where(tb: TracebackType | None) -> str:
    """``file:line in function`` of the innermost frame of mlcheck in a traceback."""
    frames = [(f.f_code.co_filename, line, f.f_code.co_name) for f, line in _walk(tb)]
    inside = [f for f in frames if f"{os.sep}mlcheck{os.sep}" in f[0]] or frames or [("?", 0, "?")]
    name, line, function = inside[-1]
    return f"{_short(name)}:{line} in {function}"


def _walk(tb: TracebackType | None) -> Iterator[tuple[FrameType, int]]:
    while tb is not None:
        yield tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next


def _short(filename: str) -> str:
    parts = filename.replace("\\", "/").split("/")
    return "/".join(parts[parts.index("mlcheck"):]) if "mlcheck" in parts else parts[-1]


def raised(what: str, error: BaseException) -> Failure:
    """The failure for an exception that escaped ``what``."""
    return Failure(f"{what} raised {type(error).__name__} at {where(error.__traceback__)}",
                   f"{type(error).__name__}: {str(error)[:300]}")


@dataclass(frozen=True)
class Checks:
    """Which of the dearer properties a case is held to (a campaign asks them of a fraction)."""

    repeat: bool = True
    """Run twice: the same bytes (and, for the library, the memory bound on the second run)."""
    measure: bool = True
    """Trace memory on the second run."""
    schema: bool = True
    """Validate the JSON report against its schema (costs more than checking a small log)."""
    formats: tuple[str, ...] = FORMATS[1:]
    """The other reporters to run on the result."""


ALL = Checks()
CHEAPEST = Checks(repeat=False, measure=False, schema=False, formats=())


def run_case(case: Case, folder: str, checks: Checks = ALL, timeout: float = TIMEOUT_S) -> list[Failure]:
    """Build ``case`` in ``folder`` (which must not exist), run it, check the properties, clean up."""
    os.makedirs(folder)
    failures: list[Failure] = []
    try:
        tree, work = materialise(case, folder)
        before = tree_digest(tree)
        with deadline(timeout):
            if case.cli is None:
                failures += _library(case, tree, checks)
            else:
                failures += _command_line(case, tree, work, checks)
        after = tree_digest(tree)
        if after != before:
            changed = sorted(set(before.items()) ^ set(after.items()))[:3]
            failures.append(Failure("an input file changed", repr(changed)))
    except CaseTimeout:
        failures.append(Failure(f"no answer within {timeout:g} s", f"{case.family} case"))
    finally:
        remove(folder)
    return failures


def _targets(case: Case, tree: str) -> list[bytes]:
    """The case's targets that exist once built, else the tree itself. Another entry may stand
    where a folder was drawn: a missing path is a usage error (exit 2), and a FIFO named on the
    command line is read as it should be (``<(zcat log.gz)``), waiting for a writer."""
    btree = os.fsencode(tree)

    def usable(target: bytes) -> bool:
        try:
            return target == b"-" or not stat.S_ISFIFO(os.stat(os.path.join(btree, target)).st_mode)
        except OSError:
            return False
    return [t for t in case.targets if usable(t)] or [b"."]


def _library(case: Case, tree: str, checks: Checks) -> list[Failure]:
    paths = [os.fsdecode(os.path.join(os.fsencode(tree), t)) for t in _targets(case, tree)]
    started = time.perf_counter()
    try:
        result = check(paths, ruleset=case.ruleset)
    except Exception as error:  # noqa: BLE001 - the property under test
        return [raised("check()", error)]
    try:
        report = render("json", result)
    except Exception as error:  # noqa: BLE001
        return [raised("the json reporter", error)]
    elapsed = time.perf_counter() - started
    failures = report_failures(report, schema=checks.schema)
    crashed = [f for f in result.all_findings() if f.code == "MLC000"]
    if crashed:
        failures.append(locate_crash(crashed[0].message, lambda: check(paths, ruleset=case.ruleset)))
    failures += _lines_outside(case, tree, result.all_findings())
    for name in checks.formats:
        try:
            render(name, result)
        except Exception as error:  # noqa: BLE001
            failures.append(raised(f"the {name} reporter", error))
    bound = TIME_BASE_S + TIME_PER_KB_S * case.size() / 1024
    if elapsed > bound:
        failures.append(Failure("time beyond the bound", f"{elapsed:.2f} s for {case.size()} bytes (bound {bound:.1f} s)"))
    if checks.repeat:
        failures += _again(case, paths, report, checks.measure)
    return failures


def _again(case: Case, paths: list[str], report: str, measure: bool) -> list[Failure]:
    if measure:
        tracemalloc.start()
    try:
        second = render("json", check(paths, ruleset=case.ruleset))
    except Exception as error:  # noqa: BLE001
        return [raised("check() the second time", error)]
    finally:
        peak = tracemalloc.get_traced_memory()[1] if measure else 0
        if measure:
            tracemalloc.stop()
    failures = []
    if second != report:
        failures.append(Failure("the same input gave different reports", _first_difference(report, second)))
    bound = MEMORY_BASE + MEMORY_PER_BYTE * case.size()
    if peak > bound:
        failures.append(Failure("memory beyond the bound", f"peak {peak / 2 ** 20:.1f} MiB for {case.size()} bytes"))
    return failures


def report_failures(report: str, schema: bool = True) -> list[Failure]:
    """Schema errors of a JSON report (one failure per kind of place); ``schema`` False: only
    whether it is JSON (validating costs more than checking a small log)."""
    try:
        document = json.loads(report)
    except ValueError as error:
        return [Failure("the JSON report is not JSON", str(error)[:200])]
    if not schema:
        return []
    error = next(iter(VALIDATOR.iter_errors(document)), None)
    if error is None:
        return []
    place = re.sub(r"\[\d+\]", "[]", error.json_path)
    return [Failure(f"the JSON report breaks its schema at {place} ({error.validator})", error.message[:300])]


def _line_count(data: bytes) -> int:
    """Lines as mlcheck numbers them: by LF, or by CR in a file whose start has a CR and no LF
    (mlcheck.read.cr_line_ends)."""
    from mlcheck.read.cr_line_ends import PROBE_BYTES

    head = data[:PROBE_BYTES]
    if b"\r" in head and b"\n" not in head:
        return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n") + 1
    return data.count(b"\n") + 1


def _lines_outside(case: Case, tree: str, findings: Any) -> list[Failure]:
    sizes: dict[str, int | None] = {}
    for entry in case.entries:  # (a path drawn twice holds its first entry)
        lines = None if entry.data is None or entry.data.startswith(b"\x1f\x8b") else _line_count(entry.data)
        sizes.setdefault(os.fsdecode(os.path.join(os.fsencode(tree), entry.path)), lines)
    for found in findings:
        lines = sizes.get(found.path)
        if found.line is not None and lines is not None and not 1 <= found.line <= lines:
            return [Failure(f"{found.code} at a line outside its file", f"line {found.line} of {lines}")]
    return []


def _first_difference(one: str, other: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(one, other)) if a != b), min(len(one), len(other)))
    return f"at {at}: {one[max(0, at - 60):at + 60]!r} vs {other[max(0, at - 60):at + 60]!r}"


def locate_crash(message: str, again: Callable[[], object]) -> Failure:
    """The MLC000 failure, keyed by where the exception it reports was raised (found by running
    the case again under a tracer: MLC000 keeps only the exception's type and text)."""
    seen: dict[int, tuple[str, str]] = {}

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "exception":
            kind, value, _tb = arg
            text = f"{kind.__name__}: {value}"
            inside = f"{os.sep}mlcheck{os.sep}" in frame.f_code.co_filename
            if id(value) not in seen or (inside and not seen[id(value)][1]):
                spot = f"{_short(frame.f_code.co_filename)}:{frame.f_lineno} in {frame.f_code.co_name}"
                seen[id(value)] = (text, spot if inside else "")
        return local

    previous = sys.gettrace()
    sys.settrace(lambda frame, event, arg: local)
    try:
        again()
    except Exception:  # noqa: BLE001 - only the trace matters here
        pass
    finally:
        sys.settrace(previous)
    spots = [spot for text, spot in seen.values() if spot and text in message]
    kind = message.split(" failed: ", 1)[-1].split(":", 1)[0]
    return Failure(f"MLC000 {kind} at {spots[-1] if spots else '?'}", message[:300])


_RUNNER = CliRunner()
_PLAIN_ENV = {"GITHUB_ACTIONS": None, "NO_COLOR": None, "COLUMNS": "120", "TERM": "dumb"}


def _invoke(case: Case, tree: str, work: str) -> tuple[Any, dict[bytes, str]]:
    targets = _targets(case, tree)
    args = [*(case.cli or ()), *(t.decode() if t == b"-" else os.fsdecode(b"../tree/" + t) for t in targets)]
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("MLCHECK_")}
    env.update(_PLAIN_ENV)
    env.update(dict(case.env))
    here = os.getcwd()
    os.chdir(work)
    try:
        done = _RUNNER.invoke(main, args, input=case.stdin, env=env, catch_exceptions=True)
    finally:
        os.chdir(here)
    return done, tree_digest(work)


def _command_line(case: Case, tree: str, work: str, checks: Checks) -> list[Failure]:
    command = (case.cli or ("?",))[0]
    done, outputs = _invoke(case, tree, work)
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        return [raised(f"mlcheck {command}", done.exception)]
    failures = []
    said = done.stdout + done.stderr
    first = next((line for line in done.stderr.splitlines() if "error" in line), "")
    # (a finding may quote a log's line "Traceback (most recent call last):", never at a line start)
    if re.search(r"^Traceback \(most recent call last\)|^mlcheck: internal error", said, re.M):
        failures.append(Failure(f"mlcheck {command}: {_generic(first or said[-200:])}", said[-600:]))
    elif done.exit_code not in case.allowed_exits:
        failures.append(Failure(f"mlcheck {command} exit {done.exit_code}: {_generic(first)}", said[-600:]))
    crash = next((line for line in said.splitlines() if "MLC000" in line and " failed: " in line), None)
    if crash is not None:  # (a rule catalogue lists MLC000 too: only its finding says "failed:")
        failures.append(Failure(f"MLC000 through mlcheck {command}: {_generic(crash)}", crash[:300]))
    if "-f" in case.cli and case.cli[case.cli.index("-f") + 1] == "json" and command in ("check", "score", "watch") \
            and done.exit_code in (0, 1):
        failures += report_failures(done.stdout, schema=checks.schema)
    if checks.repeat and command != "split":
        again, outputs_again = _invoke(case, tree, work)
        if (again.stdout, again.exit_code, outputs_again) != (done.stdout, done.exit_code, outputs):
            failures.append(Failure(f"mlcheck {command} gave different output for the same input",
                                    _first_difference(done.stdout, again.stdout)))
    return failures


def _generic(text: str) -> str:
    """A message without its paths and numbers, to tell root causes apart."""
    text = re.sub(r"(/[^\s:'\"]+)+", "PATH", text)
    return re.sub(r"\d+", "N", text)[:120]
