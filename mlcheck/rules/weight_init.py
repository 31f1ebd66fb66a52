"""Weight initialisation: the closed benchmark's list of initialised tensors (family MLC2xx).

Rounds 1.1-2.1 (RNN-T only in 1.0; MiniGo exempt from 2.0) require one ``weights_initialization``
event per tensor, with the tensor's name in ``metadata.tensor``, and the names must be exactly the
reference list of the round's ``training_X.Y.Z/closed_<benchmark>.yaml`` (read from the installed
mlperf-logging by ``mlcheck.constraints.tensor_list``). Facts: ``constraints.json`` ``benchmarks.<bm>.weight_init``.

In 1.1 the checker of record (tag 1.1.0-rc4) only warned ("Failed weights initialization check
(can be ignored for 1.1.0)"), so these are warnings with ``official: false`` for 1.1 (the
message ends with "a warning in 1.1"). mlperf-logging fails such 1.1 logs since 2022-03
(logging#220, still in 4.1.68): a 1.1 package checked with today's tool loses every closed
ResNet, BERT and RNN-T result this way. In the other rounds these are errors, as the checker of
record fails the file.

- MLC205 weight-init-missing: no ``weights_initialization`` event (mllog keys are case-sensitive:
  ``WEIGHTS_INITIALIZATION`` does not count), or events without ``metadata.tensor``.
  Fix: log ``mllog.constants.WEIGHTS_INITIALIZATION`` with ``metadata={'tensor': name}`` per tensor.
  An error; where no event is logged, a warning in 1.1, whose checker of record only warned. An
  event without ``metadata.tensor`` is an error in 1.1 too: the rule's POST code
  (``s['initialized_tensors'] += [v['metadata']['tensor']]``) raises on it, and the checker of
  record fails the file ("Failed executing code POST code triggered by line", logging#197 of
  2021-10-15 on a 1.1 log, answered "I did not look into this case when I turned this into a
  warning"; a review of session 42).
- MLC206 weight-init-tensors-mismatch: the logged tensor names differ from the reference list;
  the message gives the number of missing and unexpected names and the first few of each.
  Fix: log the tensors of the reference model, under the reference's names.
  An error; a warning in 1.1, whose checker of record only warned, unless a name is no string
  that Python can sort with the others (``7``, ``null``): the END check's ``sorted()`` raises,
  which the warning is taken not to cover, as it did not cover MLC205's raise (logging#197; the
  record's code is not in the shared data; every later release fails such a file).
"""

from __future__ import annotations

import math
import operator
import re
from collections import Counter
from functools import lru_cache
from itertools import repeat
from typing import Iterator

from mlcheck.facts.constraints import WeightInit, load_constraints, tensor_list
from mlcheck.model import Event, Finding, Severity
from mlcheck.rule import Rule, RunContext

WEIGHT_INIT_MISSING = Rule("MLC205", "weight-init-missing", Severity.ERROR,
                           "weights_initialization events are missing", official=True, also=(Severity.WARNING,))
WEIGHT_INIT_MISMATCH = Rule("MLC206", "weight-init-tensors-mismatch", Severity.ERROR,
                            "the initialised tensors differ from the reference list", official=True, also=(Severity.WARNING,))

RULES = (WEIGHT_INIT_MISSING, WEIGHT_INIT_MISMATCH)

_KEY = "weights_initialization"
_METADATA = operator.itemgetter(2)  # Event.metadata
_TENSOR = operator.itemgetter("tensor")
_SHOWN = 3
_NOT_AN_OBJECT = math.nan
"""What a field of metadata that is no object (a list, a string) reads as (``as_checked_metadata``)."""


def check(ctx: RunContext) -> Iterator[Finding]:
    """Findings about the weights_initialization events of a closed run."""
    run = ctx.run
    if run.division != "closed":
        return
    bench = load_constraints(ctx.ruleset.version).benchmarks.get(run.benchmark or "")
    if bench is None or bench.weight_init is None:
        return
    init = bench.weight_init
    installed = tensor_list(init.tensors_from)
    if not installed:
        return
    reference = installed + init.record_adds
    listed = init.tensors_from + (f" as its checker of record listed them, {len(init.record_adds)} more than the "
                                  "installed file" if init.record_adds else "")
    warn = init.record == "warning"
    severity, official = (Severity.WARNING, False) if warn else (Severity.ERROR, True)
    note = _note(init)
    events = run.occurrences(_KEY)
    if not events:
        other = next((e for e in run.events if e.key.lower() == _KEY), None)
        hint = f" (line {other.line} logs {other.key!r}; keys are case-sensitive)" if other else ""
        yield ctx.at(WEIGHT_INIT_MISSING, other.line if other else run.first_line,
                     f"{_KEY} is not logged{hint}; closed {bench.title} requires one event per initialised "
                     f"tensor (the {len(reference)} names of {listed}){note}", severity=severity,
                     official=official)
        return
    tagged = all(map(operator.contains, map(_METADATA, events), repeat("tensor")))  # (in C: the common run)
    untagged = [] if tagged else [e for e in events if "tensor" not in e.metadata]
    untagged += [e for e in events if e.metadata.get("tensor", 0) is _NOT_AN_OBJECT]  # (a list's or a string's)
    if untagged:  # (an error in 1.1 too: the rule's POST code raises on it, which no warning covered)
        raises = "; the checker of record fails the file: its POST code reads metadata.tensor" if warn else ""
        yield ctx.at(WEIGHT_INIT_MISSING, untagged[0].line,
                     f"{len(untagged)} {_KEY} event(s) have no metadata.tensor (first at line "
                     f"{untagged[0].line}; metadata that is no object has none to read either); each must name "
                     f"its tensor{raises or note}")
    if untagged:
        logged = Counter(str(e.metadata["tensor"]) for e in events
                         if "tensor" in e.metadata and e.metadata["tensor"] is not _NOT_AN_OBJECT)
    else:  # (every event names its tensor: counted in C)
        logged = Counter(map(str, map(_TENSOR, map(_METADATA, events))))
    expected = expected_tensors(init.tensors_from, init.record_adds)
    if dict.__eq__(logged, expected):  # (the same names, as often: compared in C; counts are >= 1)
        return
    missing = sorted((expected - logged).elements())
    extra = sorted((logged - expected).elements())
    if missing or extra:
        if warn and _unsortable(events):  # (the END check raises, which its warning did not cover)
            severity, official = Severity.ERROR, True
            note = ("; the checker of record fails the file: its END check sorts the names, and Python cannot "
                    "sort names of different types (a name that is not a string)")
        yield ctx.at(WEIGHT_INIT_MISMATCH, events[0].line,
                     f"{_KEY} names {sum(logged.values())} tensor(s); closed {bench.title} expects the "
                     f"{len(reference)} of {listed}: {_summary('missing', missing)}, "
                     f"{_summary('unexpected', extra)}{note}", severity=severity, official=official)


def _unsortable(events: tuple[Event, ...]) -> bool:
    """Whether ``sorted(s['initialized_tensors'])`` raises on the names logged (an int beside the
    strings, a null, an object): the checker's END check then fails the file, in 1.1 too."""
    try:
        sorted(e.metadata["tensor"] for e in events if "tensor" in e.metadata)
    except TypeError:
        return True
    return False


@lru_cache(maxsize=None)
def expected_tensors(tensors_from: str, record_adds: tuple[str, ...] = ()) -> Counter[str]:
    """The reference names counted (once per file: hundreds of names, every closed run), with the
    names the checker of record's list adds. Read only."""
    return Counter(tensor_list(tensors_from) + record_adds)


def _summary(label: str, names: list[str]) -> str:
    if not names:
        return f"0 {label}"
    shown = ", ".join(names[:_SHOWN]) + (", ..." if len(names) > _SHOWN else "")
    return f"{len(names)} {label} ({shown})"


def _note(init: WeightInit) -> str:
    """Why a finding is a warning, in a few words (the history is in the rule's documentation)."""
    if init.record != "warning":
        return ""
    round_name = init.tensors_from.split("/")[0].removeprefix("training_").rsplit(".", 1)[0]
    if init.latest_differs:
        today = re.search(r"(\d+\.\d+\.\d+) today", init.latest_differs)
        now = f"mlperf-logging {today.group(1)}" if today else "today's mlperf-logging"
        return f"; a warning in {round_name}, as its checker of record only warned ({now} fails it)"
    return f"; a warning in {round_name}"
