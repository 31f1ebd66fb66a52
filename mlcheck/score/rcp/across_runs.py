"""What the RCP checker reads across a folder's runs before any test: one batch size and one
benchmark name (``rcp_checker.py get_submission_epochs``, from 2.1: ``compares_runs`` of the
round's policy; the 1.0-2.0 checkers take the folder's name and the last batch size read).

It reads the files in ``glob``'s order, the file system's, each file's last ``global_batch_size``
and ``submission_benchmark`` (-1 and None where a file logs none). A value that differs from the
one read so far (a file without one after a file with one included) makes it return no benchmark,
and ``RCP_Checker(usage, ruleset, None)`` raises KeyError: None there: the package checker stops,
whatever ``--rcp-bypass`` says. Where every file lacks a batch size it fails the folder ('Could
not detect global_batch_size'); where every file lacks a benchmark name it raises the same KeyError.
"""

from __future__ import annotations

import math
import reprlib
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from mlcheck.score.rcp import RunConvergence

class _LoggedNull:
    """A ``global_batch_size`` logged as null (not absent): the checker compares None with the
    RCPs' batch sizes and raises TypeError."""

    def __repr__(self) -> str:
        return "null"


LOGGED_NULL = _LoggedNull()
NOT_READ = "\0not read"
"""A run whose benchmark name was not read (a test's points): its name is not compared."""
STOPS = "so the package checker stops, whatever --rcp-bypass says"


NOT_FOUND_BATCH = -1
"""The RCP checker's batch size before it reads one (``get_submission_epochs``: ``bs = -1``): a
run logging -1 reads as a run logging none, and a folder where none is found is "Could not detect
global_batch_size"."""


_SHORT = reprlib.Repr()
_SHORT.maxlist = _SHORT.maxdict = 4
_SHORT.maxstring = _SHORT.maxother = 40


def shown_value(value: object) -> str:
    """A logged value as a reason quotes it: cut where it is long (a list of a million numbers)."""
    return _SHORT.repr(value)


def why_no_batch_size(runs: Sequence[RunConvergence], sizes: set[float | None]) -> str:
    """What the RCP checker makes of runs without one readable batch size (``get_submission_epochs``
    reads the files in ``glob``'s order, the file system's: a batch size that differs from the one
    read so far makes it return no benchmark, and ``RCP_Checker`` then raises KeyError: None)."""
    if any(isinstance(r.batch_size, str) for r in runs):
        return "some runs log it as a string, not a number"
    missing = [r for r in runs if r.batch_size is None or r.batch_size == NOT_FOUND_BATCH]
    if sizes == {None} and len(missing) == len(runs):
        return ("none is logged" + (" (-1 is the RCP checker's value for none found)" if any(
            r.batch_size == NOT_FOUND_BATCH for r in missing) else "") + ": the round's RCP checker fails the folder "
                "('Could not detect global_batch_size'), whatever --rcp-bypass says")
    if missing and len(sizes) == 2:
        named = ", ".join(r.name for r in missing if r.name) or f"{len(missing)} runs"
        return (f"{named} {'logs' if len(missing) == 1 else 'log'} none among runs that log one: the round's RCP checker reads the files in the order its "
                f"file system lists them and raises KeyError: None where one without comes after one with, {STOPS} "
                "(only where every run without one comes first does it test the others' batch size)")
    if sizes == {None} and not missing:  # (every run logs one, none a number: null, a list, an object)
        return ("no run logs it as a number: the round's RCP checker compares it with the RCPs' batch sizes and "
                f"raises TypeError, {STOPS}")
    if any(isinstance(r.batch_size, float) and math.isnan(r.batch_size) for r in runs):
        return f"NaN equals no value, not even itself: the round's RCP checker then raises KeyError: None, {STOPS}"
    if None in sizes:
        return "some runs log none, or not a number"
    return f"the runs log different values: the RCP checker then looks up no benchmark and raises KeyError: None, {STOPS}"


def batch_size_of(value: object) -> float | None:
    """The batch size as the record checker compares it: a number, not truncated (4096.5 is
    interpolated, not read as 4096); an integral float reads as the integer; true and false are
    1 and 0, as its comparisons read them; -1 (its "not found") is None."""
    if not isinstance(value, (int, float)) or math.isnan(value) or value == NOT_FOUND_BATCH:
        return None  # (NaN: never equal to itself, so to no file's, nor to any RCP's)
    return int(value) if abs(value) < 1e15 and float(value).is_integer() else float(value)  # (inf: above every RCP)


def why_no_benchmark(runs: Sequence[RunConvergence], folder_benchmark: str) -> str:
    """Why the checker raises on the runs' benchmark names, or tests another benchmark than the
    folder's (``""``: it reads the folder's)."""
    names = [r.benchmark for r in runs if r.benchmark != NOT_READ]
    named: list[object] = []
    for name in names:
        if name is not None and name not in named:
            named.append(name)
    if not names or (named == [folder_benchmark] and None not in names):
        return ""
    if len(named) == 1 and None not in names:
        return (f"the runs name {named[0]!r}, not the folder's {folder_benchmark!r}: the round's RCP checker looks up "
                f"the name the files log (and raises where its tables have none), {STOPS}")
    if not named:
        return (f"no run logs submission_benchmark: the round's RCP checker looks up benchmark None and raises "
                f"KeyError: None, {STOPS}")
    if len(named) > 1:
        return (f"the runs name different benchmarks ({', '.join(sorted(map(repr, named)))}): the round's RCP checker "
                f"then looks up no benchmark and raises KeyError: None, {STOPS}")
    lacking = [r.name for r in runs if r.benchmark is None]
    missing = ", ".join(name for name in lacking if name) or "some runs"
    return (f"{missing} {'logs' if len(lacking) == 1 else 'log'} no submission_benchmark among runs that name {named[0]!r}: the round's RCP checker reads the "
            "files in the order its file system lists them and raises KeyError: None where one without comes after one "
            f"with, {STOPS} (only where every run without one comes first does it go on)")


def last_batch_size(runs: Sequence[RunConvergence], sizes: set[float | None],
                    ruleset: str) -> tuple[set[float | None], str]:
    """The batch size a 1.0-2.0 checker tests: the last one it reads, none compared (runs without
    one do not count); where the runs' differ, which it is depends on the file system's order:
    mlcheck takes the last in name order and says so."""
    if any(isinstance(r.batch_size, str) for r in runs):
        return sizes, ""
    logged = [size for r in runs if (size := batch_size_of(r.batch_size)) is not None]
    if not logged or len(set(logged)) == 1:
        return (set(logged) or sizes), ""
    shown = ", ".join(sorted({shown_value(r.batch_size) for r in runs}))
    return {logged[-1]}, (f"the runs log different batch sizes ({shown}): training {ruleset}'s RCP checker tests the "
                          f"last one it reads, in the order its file system lists the files; mlcheck's verdict is for "
                          f"the last in name order ({logged[-1]})")
