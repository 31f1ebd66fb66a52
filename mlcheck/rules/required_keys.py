"""Log structure: the keys every run must log, their counts, values, metadata and order (MLC1xx).

Facts: ``schemas/rulesets/<X.Y.Z>/constraints.json`` (``common``, ``closed_common``, ``open_common``),
taken from the round's checker of record, ``training_X.Y.Z/{common,closed_common,open_common}.yaml``.
``run_start``/``run_stop`` are covered by MLC101-MLC104, the closed hyper-parameters by MLC2xx.

- MLC105 required-key-missing: a key the round requires is not logged (``submission_*``,
  ``cache_clear``, ``init_start``, ``init_stop``, ``train_samples``, ``eval_samples``,
  ``gradient_accumulation_steps`` in the closed division, ``epoch_start`` or ``block_start``, ...),
  or fewer copies than ``AT_LEAST(n)`` asks (3.1-5.0 Stable Diffusion: at least two merged FID +
  CLIP evaluations). Which keys: ``submission_status`` until 4.0, ``submission_org`` and
  ``submission_platform`` in every round but 5.0; the 6.0+ disclosure keys
  (``lowest_numerical_precision_in_*``, ``*_parallelism``, ``micro_batch_size``, ``config_filename``)
  are OPTIONAL: checked when logged. Fix: log it with mllog (``mllog.constants``) once, before
  ``run_start`` for configuration keys.
- MLC106 key-values-conflict: a key required exactly once is logged several times with different
  values (e.g. two ranks with different configurations). The official checker fails the file.
  Fix: log the key once, from one rank, with the value the run used.
- MLC107 key-repeated: a key required exactly once is logged several times with the same value
  (typically every rank logs it). The official checker only warns; log it from rank 0 only.
- MLC108 submission-value-invalid: a ``submission_*`` value is empty or not allowed
  (``submission_division`` closed/open; ``submission_status`` cloud/onprem/preview/research;
  ``submission_benchmark`` a benchmark of the round).
  Fix: log the values the message lists.
- MLC109 division-logged-late: ``submission_division`` is logged after ``init_stop``. From 2.0 the
  checker of record sets the init-time limit when it reads the division, so it reports the
  run's ``init_stop`` as an init-time violation with a limit of 0 min; the true cause is the late
  division. Fix: log the ``submission_*`` keys at the start of init.
- MLC110 metadata-missing: an event lacks metadata the checker requires (``epoch_num`` on
  ``eval_accuracy``, ``eval_start``/``eval_stop``, ``epoch_start``/``epoch_stop``; ``epoch_count``
  > 0 and ``first_epoch_num`` on ``block_start``; ``first_epoch_num`` on ``block_stop``). From 3.1
  a position in samples or steps may replace the epoch (``step_num`` in 3.1, ``samples_count``
  from 4.0: one of them is required, ``first_epoch_num`` only with ``epoch_count``); the benchmark's
  own file says which one its ``eval_accuracy`` carries (``samples_count`` for the LLMs, LoRA and
  FLUX.1, ``epoch_num`` for BERT, DLRM, RetinaNet, R-GAT).
  Fix: log the metadata the message names on each such event.
- MLC111 key-value-invalid: another value check of the round fails (``train_samples``/``eval_samples``
  empty, ``gradient_accumulation_steps`` not > 0, a 6.0+ disclosure value not in the list or not a
  whole number), or a benchmark's check of its evaluations: a merged Stable Diffusion record
  without FID or CLIP; 6.1 Qwen3.5 GRPO accuracies outside 0-1 or off the evaluation grid (first
  at ``global_batch_size * ceil(2.5 + 3840 / global_batch_size)`` samples, then every batch: a
  record off the grid leaves the next point where it was); 6.1 DeepSeek-V3's first evaluation not
  at ``global_batch_size * floor(42 + 24576 / global_batch_size)`` samples (``FIRST_CHECK``).
  Fix: log the value the check asks for (the message gives the check).
- MLC112 key-out-of-order: ``block_start`` is logged before ``run_start`` (common.yaml requires
  blocks inside the timed run), or a record is checked against a value the checker derives from a
  key logged after it (the checker's state does not hold it yet, so it fails the record): an
  evaluation grid before ``global_batch_size``; for the hyper-parameters see MLC202. Fix: log the
  key it derives from first.

The constraint forms behind these rules (``AT_LEAST``, ``OPTIONAL``, ``metadata_one_of``,
``cadence``, ``first_check``, ...) are documented by ``mlcheck explain forms``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Iterator, NamedTuple

from mlcheck.facts.constraints import Entry, load_constraints
from mlcheck.facts.formulas import StateDef
from mlcheck.model import Event, Finding, Severity
from mlcheck.rule import Rule, RunContext
from mlcheck.rules.checker_state import EMPTY, replay
from mlcheck.rules.key_checks import EntryCodes, Gathered, evaluate, merged

REQUIRED_KEY_MISSING = Rule("MLC105", "required-key-missing", Severity.ERROR,
                            "a key the round requires is not logged", official=True)
KEY_VALUES_CONFLICT = Rule("MLC106", "key-values-conflict", Severity.ERROR,
                           "a key required once is logged several times with different values", official=True)
KEY_REPEATED = Rule("MLC107", "key-repeated", Severity.WARNING,
                    "a key required once is logged several times with the same value")
SUBMISSION_VALUE_INVALID = Rule("MLC108", "submission-value-invalid", Severity.ERROR,
                                "a submission_* value is empty or not allowed", official=True)
DIVISION_LOGGED_LATE = Rule("MLC109", "division-logged-late", Severity.ERROR,
                            "submission_division is logged after init_stop", official=True)
METADATA_MISSING = Rule("MLC110", "metadata-missing", Severity.ERROR,
                        "an event lacks metadata the round requires (epoch_num, ...)", official=True)
KEY_VALUE_INVALID = Rule("MLC111", "key-value-invalid", Severity.ERROR,
                         "a logged value fails a check of the round", official=True)
KEY_OUT_OF_ORDER = Rule("MLC112", "key-out-of-order", Severity.ERROR,
                        "an event is logged before the event it must follow", official=True)

RULES = (REQUIRED_KEY_MISSING, KEY_VALUES_CONFLICT, KEY_REPEATED, SUBMISSION_VALUE_INVALID,
         DIVISION_LOGGED_LATE, METADATA_MISSING, KEY_VALUE_INVALID, KEY_OUT_OF_ORDER)

_CODES = EntryCodes(missing=REQUIRED_KEY_MISSING, invalid=KEY_VALUE_INVALID, conflict=KEY_VALUES_CONFLICT,
                    repeated=KEY_REPEATED, metadata=METADATA_MISSING, order=KEY_OUT_OF_ORDER)
_SUBMISSION_CODES = EntryCodes(missing=REQUIRED_KEY_MISSING, invalid=SUBMISSION_VALUE_INVALID,
                               conflict=KEY_VALUES_CONFLICT, repeated=KEY_REPEATED,
                               metadata=METADATA_MISSING, order=KEY_OUT_OF_ORDER)


def check(ctx: RunContext) -> Iterator[Finding]:
    """Findings about the keys of common / closed_common / open_common."""
    run = ctx.run
    division = run.division
    benchmark = run.benchmark
    logged = run.count("submission_benchmark")
    # (unlogged, a benchmark known from the run's folder is judged: its missing record is MLC105)
    plan = _plan(ctx.ruleset.version, division if division in ("closed", "open") else None,
                 benchmark or "", logged > 1 or (logged == 0 and ctx.facts is not None))
    states = replay(run, plan.state_defs) if plan.state_defs else EMPTY
    gathered = Gathered()
    yield from evaluate(ctx, plan.submission, _SUBMISSION_CODES, plan.scope, run.first_line, gathered=gathered)
    yield from evaluate(ctx, plan.others, _CODES, plan.scope, run.first_line, states, gathered)
    if plan.overrides:
        yield from evaluate(ctx, plan.overrides, _CODES, plan.bench_scope, run.first_line, states, gathered)
    yield from gathered.findings(ctx, _CODES, plan.scope, run.first_line)
    if plan.division_sets_init_limit:
        yield from _division_late(ctx)


class _Plan(NamedTuple):
    """The entries a run of one division and benchmark of a round is checked against, in the
    order they are checked (the same for every such run: made once, see :func:`_plan`)."""

    scope: str
    submission: tuple[Entry, ...]
    others: tuple[Entry, ...]
    overrides: tuple[Entry, ...]
    """The benchmark file's entries for common keys (reported in its name, :attr:`bench_scope`)."""
    bench_scope: str
    state_defs: tuple[StateDef, ...]
    division_sets_init_limit: bool


@lru_cache(maxsize=1024)
def _plan(version: str, division: str | None, benchmark: str, count_benchmark: bool) -> _Plan:
    """The entries of ``division`` (closed, open or neither) and ``benchmark`` in ``version``;
    ``count_benchmark``: ``submission_benchmark``'s count is checked (the run logs it more than
    once, or not at all while its folder names the benchmark it is judged as)."""
    data = load_constraints(version)
    groups = [data.common]
    scope = "every run"
    if division == "closed":
        groups.append(data.closed_common)
        scope = "the closed division"
    elif division == "open":
        groups.append(data.open_common)
        scope = "the open division"
    bench = data.benchmarks.get(benchmark) if division is not None else None
    defs: tuple[StateDef, ...] = ()
    overrides: frozenset[int] = frozenset()
    if bench is not None:
        # The benchmark file's entries for common keys replace them (reported here, in its name);
        # its own hyper-parameter entries replace them too, and are reported as MLC2xx.
        closed = division == "closed"
        groups.append(bench.overrides if closed else bench.open_overrides)
        overrides = frozenset(id(e) for e in groups[-1])
        own = {e.key for e in (bench.keys if closed else bench.open_keys)}
        defs = bench.states if closed else bench.open_states
    entries = merged(*groups)
    if bench is not None:
        entries = [e for e in entries if e.key not in own]
    # MLC011 (unknown-benchmark) already reports an unknown submission_benchmark, and a missing
    # one where nothing else names the benchmark.
    entries = [replace(e, check=None) if e.key == "submission_benchmark" else e for e in entries
               if e.key != "submission_benchmark" or count_benchmark]
    others = [e for e in entries if not e.key.startswith("submission_")]
    return _Plan(scope=scope, submission=tuple(e for e in entries if e.key.startswith("submission_")),
                 others=tuple(e for e in others if id(e) not in overrides),
                 overrides=tuple(e for e in others if id(e) in overrides) if bench is not None else (),
                 bench_scope=f"{division} {bench.title}" if bench is not None else "",
                 state_defs=tuple(defs), division_sets_init_limit=data.division_sets_init_limit)


def _division_late(ctx: RunContext) -> Iterator[Finding]:
    division, init_stop = ctx.run.first("submission_division"), ctx.run.first("init_stop")
    if division is None or init_stop is None or division.line < init_stop.line:
        return
    if division.line == init_stop.line and _logged_before(ctx.run.events, division, init_stop):
        return  # (one physical line, records split by CRs: the official parser reads them in order)
    yield ctx.at(DIVISION_LOGGED_LATE, division.line,
                 f"submission_division is logged at line {division.line}, after init_stop (line "
                 f"{init_stop.line}); the {ctx.ruleset.round} checker reads the init-time limit from the "
                 "division, so it reports init_stop as exceeding a limit of 0 min. Log the submission_* "
                 "keys before init_stop")


def _logged_before(events: tuple[Event, ...], first: Event, then: Event) -> bool:
    """Whether ``first`` comes before ``then`` among the run's events (in log order)."""
    for event in events:
        if event is first:
            return True
        if event is then:
            return False
    return False
