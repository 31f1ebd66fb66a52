"""What the latest mlperf-logging release's rules of the round refuse that its checker of record
passes (family MLC1xx). A warning: the verdict of record stands.

A round being prepared is judged by the rule files of its checker of record (6.1: logging master
7bbf792, ``../reference/record-rules``), while submitters run the latest release, whose rule files
of the round may be newer. Facts: ``constraints.json`` ``release`` (the entries of the release's
files that are stricter, in the form of the record's; nothing in them is run).

- MLC113 later-release-refuses (warning): 6.0 and 6.1, against mlperf-logging 4.1.68. 6.0: its
  open LLM files (``open_<benchmark>.yaml``) require ``samples_count`` in each ``eval_accuracy``'s
  metadata where the record (6.0.0-rc6) requires ``epoch_num`` (logging commit 3d71f7e, after the
  rc). 6.1: its ``common.yaml`` requires the disclosure keys once each (``lowest_numerical_precision_in_linear``,
  ``_attn``, ``_comm``; ``tensor_``, ``pipeline_``, ``context_``, ``expert_parallelism`` and
  ``micro_batch_size`` whole numbers of at least 1; ``config_filename`` not empty), which the
  record only checks when logged (``OPTIONAL``), and fails one logged twice with different values;
  its Qwen3.5 GRPO (closed and open) asks ``eval_samples`` 251
  where the record asks 256. Where the record refuses the value too, its own finding says so and
  this one is not given. Fix: log what both accept where one value does (the disclosure keys);
  where they disagree (Qwen's ``eval_samples``) the round's final checker decides: ask the results
  chair which one the round is judged by. FLUX.1's 6.1 ``evaluation_frequency``, where the
  release asks the rules text's CEIL(262144 / batch) x batch and the record 262144, is MLC204's
  (the rules text's constraint), not this one's.
- MLC114 later-release-accepts (info): the other way: a value the record refuses (its MLC111 or
  MLC202 error stands) that the release's rules of the round accept (6.1: ``mxfp6`` in the
  disclosure keys' vocabulary, added after 7bbf792). (6.0's open LLM evals with ``samples_count``
  and no ``epoch_num``, which the release accepts, are said in MLC110's own message.) Said so
  that a submitter of a round being prepared knows the final checker may accept it; the verdict
  follows the record.
"""

from __future__ import annotations

from typing import Iterator

from mlcheck.facts.constraints import Constraints, Entry, describe, holds, load_constraints, show
from mlcheck.model import Event, Finding, Severity
from mlcheck.rule import Rule, RunContext

LATER_RELEASE_REFUSES = Rule("MLC113", "later-release-refuses", Severity.WARNING,
                             "the latest mlperf-logging release's rules of the round refuse what the checker of "
                             "record passes")

LATER_RELEASE_ACCEPTS = Rule("MLC114", "later-release-accepts", Severity.INFO,
                             "the latest mlperf-logging release's rules of the round accept a value the checker of "
                             "record refuses")

RULES = (LATER_RELEASE_REFUSES, LATER_RELEASE_ACCEPTS)


def check(ctx: RunContext) -> Iterator[Finding]:
    """The release's stricter entries, where the record passes the run's records."""
    constraints = load_constraints(ctx.ruleset.version)
    release = constraints.release
    if release is None:
        return
    run = ctx.run
    by_benchmark = {"closed": release.benchmarks, "open": release.open_benchmarks}.get(run.division or "", {})
    entries = release.common + by_benchmark.get(run.benchmark or "", ())  # (another division: its own finding)
    anchor = run.first("submission_benchmark")
    missing: list[Entry] = []
    for entry in entries:
        record = _record_entry(constraints, run.benchmark or "", run.division, entry.key)
        events = run.occurrences(entry.key)
        once = entry.req == "EXACTLY_ONE" and (record is None or record.req == "OPTIONAL")
        if once and not events:
            missing.append(entry)
            continue
        if once and len({show(event.value) for event in events}) > 1:  # (equal repeats: the checker warns)
            yield ctx.at(LATER_RELEASE_REFUSES, events[1].line,
                         f"{entry.key} is logged {len(events)} times with different values ("
                         f"{', '.join(show(event.value) for event in events[:4])}); "
                         f"{_why(ctx, release.version, entry.source)}: it requires one")
        lacking = [e for e in events if entry.metadata and not _has(e, entry.metadata)
                   and (record is None or _has(e, record.metadata))]  # (else the record's finding says so)
        if lacking:
            yield ctx.at(LATER_RELEASE_REFUSES, lacking[0].line,
                         f"{entry.key} has no {' or '.join(m for m in entry.metadata if not _has(lacking[0], (m,)))} "
                         f"in its metadata ({len(lacking)} of {len(events)} records); "
                         f"{_why(ctx, release.version, entry.source)}: it requires {', '.join(entry.metadata)}. "
                         "Log both, as each asks its own")
        for event in events:
            refused = record is not None and record.check is not None and not holds(record.check, event.value,
                                                                                     run.value_of)
            if entry.check is None or holds(entry.check, event.value, run.value_of):
                if refused and entry.check is not None:
                    yield ctx.at(LATER_RELEASE_ACCEPTS, event.line,
                                 f"{entry.key} is {show(event.value)}, which the checker of record of training "
                                 f"{ctx.ruleset.version} refuses (its error stands), but mlperf-logging {release.version}, "
                                 f"the latest release, accepts ({entry.source}): the round's final checker may")
                continue
            if refused:
                continue  # (the record refuses it too: its finding says so)
            yield ctx.at(LATER_RELEASE_REFUSES, event.line,
                         f"{entry.key} is {show(event.value)}; {_why(ctx, release.version, entry.source)}: it "
                         f"requires {describe(entry.check)}")
    if missing:
        names = ", ".join(entry.key for entry in missing)
        yield ctx.at(LATER_RELEASE_REFUSES, anchor.line if anchor is not None else run.first_line,
                     f"{_count(len(missing))} not logged ({names}); {_why(ctx, release.version, missing[0].source)}"
                     f": log {'each' if len(missing) > 1 else 'it'} once")


def _has(event: Event, names: tuple[str, ...]) -> bool:
    return isinstance(event.metadata, dict) and all(name in event.metadata for name in names)


def _why(ctx: RunContext, version: str, source: str) -> str:
    return (f"the checker of record of training {ctx.ruleset.version} lets that pass, but mlperf-logging {version}, "
            f"the latest release, fails the log ({source})")


def _count(keys: int) -> str:
    return "1 key is" if keys == 1 else f"{keys} keys are"


def _record_entry(constraints: Constraints, benchmark: str, division: str | None, key: str) -> Entry | None:
    """The record's entry for ``key`` that a run of ``benchmark`` in ``division`` is judged by."""
    bench = constraints.benchmarks.get(benchmark)
    own = () if bench is None else (bench.keys + bench.overrides if division == "closed"
                                    else bench.open_keys + bench.open_overrides)
    shared = constraints.closed_common if division == "closed" else constraints.open_common
    return next((e for e in own + shared + constraints.common if e.key == key), None)
