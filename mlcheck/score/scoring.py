"""Time-to-train per run and the benchmark result, as the round's rules define them.

Rules text: training_rules.adoc §Benchmark Results — the result is the mean of the N runs after
dropping the fastest and the slowest (U-Net3D: 4 and 4); a non-converging run may be treated as
the slowest; more non-converging runs than that makes the result invalid. The benchmarks of 3 runs
(GPT-3, Llama 3.1 405B, DeepSeek-V3 671B, Qwen3.5 397B GRPO) score the median run, which is what
dropping the fastest and the slowest of 3 leaves (the summarizer's olympic average does the same:
with one non-converged run, the slower of the two others). §Score scaling: a committee
``scaling.json`` multiplies the score.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

from mlcheck.results import Score
from mlcheck.facts.rulesets import BenchmarkFacts
from mlcheck.score.float_sum import sequential_sum


def time_to_train_min(run_start_ms: float, run_stop_ms: float) -> float:
    """Minutes between run_start and run_stop, unrounded."""
    return (run_stop_ms - run_start_ms) / 60000.0


def published_minutes(duration_ms: float | None) -> float | None:
    """A run's minutes as the results summarizer computes them for the score (``ms / 60 / 1000``,
    every revision): the mean of these is the published score to the last digit, where
    :func:`time_to_train_min`'s may differ in it (``/ 60000`` rounds once, not twice)."""
    return None if duration_ms is None else duration_ms / 60 / 1000


def olympic_score(times: Sequence[float | None], facts: BenchmarkFacts,
                  scaling_factor: float | None = None) -> Score:
    """The benchmark result from per-run minutes (None = non-converged), indexed by position.

    Non-converged runs sort as the slowest. The result is invalid when the number of runs is not
    the round's, or when more runs failed to converge than the round tolerates.
    """
    required = facts.result_files
    failed = [i for i, t in enumerate(times) if t is None]
    ranked = sorted(range(len(times)), key=lambda i: (math.inf if times[i] is None else times[i], i))
    low, high = facts.drop_fastest, facts.drop_slowest
    if len(times) <= low + high:
        kind = "median" if required == low + high + 1 else "olympic mean"
        return Score(None, False, f"{_runs(len(times))} found; the round requires {required} for {facts.name} "
                     f"(its score is the {kind} after dropping {_edges(low, 'fastest')} and {_edges(high, 'slowest')}, "
                     f"which leaves none of {len(times)})", scaling_factor=scaling_factor)
    kept = ranked[low:len(ranked) - high]
    dropped = tuple(sorted(ranked[:low] + ranked[len(ranked) - high:]))
    reasons = []
    if len(times) != required:
        reasons.append(f"{_runs(len(times))} found; the round requires {required}")
    if len(failed) > facts.max_non_converged:
        reasons.append(f"{len(failed)} runs did not converge; at most {facts.max_non_converged} may")
    kept_times = [times[i] for i in kept]
    if any(t is None for t in kept_times):
        return Score(None, False, "; ".join(reasons) or "non-converged runs among the counted runs",
                     tuple(sorted(kept)), dropped, scaling_factor)
    mean = sequential_sum(t for t in kept_times if t is not None) / len(kept_times)
    scaled = mean * scaling_factor if scaling_factor is not None else mean
    valid = not reasons
    reason = "; ".join(reasons) if reasons else _valid_reason(len(times), len(failed), low, high)
    return Score(scaled, valid, reason, tuple(sorted(kept)), dropped, scaling_factor,
                 mean if scaling_factor is not None else None)


def _valid_reason(runs: int, failed: int, low: int, high: int) -> str:
    if runs - low - high == 1 and low == high:
        text = f"median of {runs} runs (the {_fastest(low)} and the {_fastest(high, 'slowest')} dropped)"
    else:
        text = f"mean of {runs - low - high} of {runs} runs after dropping the {low} fastest and {high} slowest"
    if failed:
        text += f" ({failed} non-converged run{'s' if failed > 1 else ''} counted as slowest)"
    return text


def folder_score(times: Sequence[float | None], compliant: Sequence[bool], facts: BenchmarkFacts,
                 committee_factor: float | None = None, rcp_factor: float | None = None,
                 official_ok: Sequence[bool] | None = None,
                 summarizer_times: Sequence[float | None] | None = None,
                 stopped: str = "") -> tuple[Score, Score | None]:
    """The benchmark result under the rules, and (when they differ) what the official tools publish.

    A run that breaks the rules (``compliant`` False) makes the result not valid; the official
    summarizer drops the runs its checker fails (``official_ok`` False; default: the
    non-compliant ones) as non-converged and times the others from ``run_start`` to ``run_stop``
    whatever their status (``summarizer_times``; default: ``times``). ``committee_factor`` (a
    ``scaling.json``) wins over ``rcp_factor`` (the 2.1+ RCP normalisation, applied only above 1).
    ``stopped``: why the official tools stop on the folder (they publish nothing), which makes
    the result not valid. Returns ``(score, official)``; ``official`` is None when both agree.
    """
    factor = committee_factor
    if factor is None and rcp_factor is not None and rcp_factor > 1.0:
        factor = rcp_factor
    kept = compliant if official_ok is None else official_ok
    timed = times if summarizer_times is None else summarizer_times
    official_times = [t if ok else None for t, ok in zip(timed, kept)]
    official = olympic_score(official_times, facts, factor)
    bad = [i for i, ok in enumerate(compliant) if not ok]
    if not bad and stopped:
        score = olympic_score(times, facts, factor)
        # (the official tools publish no time score, so no energy either: the runs they would count are kept)
        return replace(score, valid=False, reason=f"{score.reason}; {stopped}"), Score(
            None, False, stopped, official.runs_counted, official.runs_dropped, official.scaling_factor)
    if not bad:
        if official_times == list(times):
            return official, None
        score = olympic_score(times, facts, factor)
        if official.score_min is not None and official.score_min != score.score_min:
            timed_too = sum(1 for t, o in zip(times, official_times) if t is None and o is not None)
            if timed_too:
                score = replace(score, reason=(
                    f"{score.reason}; the official summarizer would publish {official.score_min:.2f} min: it "
                    f"times {_runs(timed_too)} the rules count as non-converged (its checker passes "
                    f"{'them' if timed_too > 1 else 'it'} and it reads no status)"))
        return score, official
    published = f"{official.score_min:.2f} min" if official.score_min is not None else \
        f"no score ({official.reason})" if official.reason else "no score"
    dropped = sum(1 for i in bad if not kept[i])  # (the runs the official checker fails)
    them = "them" if len(bad) > 1 else "it"
    counted = (f"count {them} as non-converged" if dropped == len(bad) else
               f"pass {them} (no official tool checks what mlcheck finds)" if not dropped else
               f"count {dropped} of them as non-converged")
    unscored = f"{official.reason}; " if stopped and official.score_min is None and official.reason else ""
    reason = (f"{unscored}{len(bad)} run{'s' if len(bad) > 1 else ''} break{'' if len(bad) > 1 else 's'} "
              f"the rules (MLC521), so the result is not valid; "
              f"{stopped or f'the official tools would {counted} and publish {published}'}")
    score = Score(official.score_min, False, reason, official.runs_counted, official.runs_dropped,
                  official.scaling_factor, official.unscaled_min)
    return score, official


def _fastest(count: int, word: str = "fastest") -> str:
    return word if count == 1 else f"{count} {word}"


def _runs(count: int) -> str:
    return f"{count} run{'s' if count != 1 else ''}"


def _edges(count: int, which: str) -> str:
    """``the fastest run``, ``the 4 slowest runs``."""
    return f"the {_fastest(count, which)} run{'s' if count != 1 else ''}"
