"""Closed-division hyper-parameters per benchmark and optimizer (family MLC2xx).

Facts: ``schemas/rulesets/<X.Y.Z>/constraints.json`` (``benchmarks``), from the round's checker of
record ``training_X.Y.Z/closed_<benchmark>.yaml`` (and ``closed_resnet_{lars,sgd}.yaml``) and the
hyper-parameter table of ``training_rules.adoc`` §Hyperparameters. Open-division runs get what
``open_<benchmark>.yaml`` asks of them (MLC207, MLC208).

- MLC201 closed-hyperparameter-missing: a hyper-parameter the closed benchmark requires is not
  logged (e.g. ``lars_opt_weight_decay`` for ResNet with LARS, ``opt_lamb_beta_1`` for BERT).
  Fix: log it with mllog exactly once.
- MLC202 closed-hyperparameter-invalid: a fixed value, allowed set or formula of the closed rules
  is not met, e.g. "lars_opt_weight_decay is 3e-05; closed ResNet requires 0.0001 x 2^N (N
  integer)", RNN-T ``opt_lamb_epsilon`` 1e-9, SGD base LR a multiple of 0.001. From 5.0 some values
  derive from others, and the message shows both sides as computed: Llama 3.1 405B
  ``opt_base_learning_rate * 1152 == global_batch_size * 8e-5`` (exact, as the checker compares)
  and, from 5.1, its decay steps ``ceil(1200000 * 1152 / GBS) - ceil(8000 * 1152 / GBS)``; Llama 3.1
  8B and GPT-OSS 20B decay steps ``1200000 - warmup``; DeepSeek-V3 ``|lr - 2.4e-5 * (GBS /
  16384)^0.5| < 1e-9`` and decay ``12000 - warmup``; Qwen3.5 GRPO learning rate and clip norm from
  the batch size's square root and ``global_batch_size == num_prompts_per_step *
  num_generations_per_prompt``. A derived value logged before the key it derives from is MLC112
  (key-out-of-order): the checker reads the value from its state, finds nothing and fails.
- MLC203 closed-optimizer-not-allowed: ``opt_name`` is not an optimizer the closed benchmark allows
  (ResNet: lars or sgd; RNN-T: lamb; RetinaNet: adam). For ResNet the official checker crashes
  looking for ``closed_resnet_<name>.yaml`` (a "missing file"); the true cause is the optimizer.
  Fix: use an optimizer the closed benchmark allows, or submit to the open division.
- MLC204 closed-rules-text-constraint: the rules text is stricter than the checker of record:
  ResNet ``lars_opt_momentum`` 0.9 below a batch of 32k, SGD momentum 0.9 and poly power 2
  (warnings: the rules name the verifier the source of truth), closed BERT must use LAMB (an
  error: the checker lets a non-LAMB optimizer through). ``official`` is false: the round's
  results were accepted under the checker. For 6.0 and 6.1 the table of the latest rules text
  (v6.0, §Hyperparameters) fixes values the checkers only require: Llama 3.1 8B and GPT-OSS 20B
  ``opt_end_learning_rate`` = ``opt_base_learning_rate`` x 0.1 (GPT-OSS may log 4e-5 in 6.0,
  §Appendix: v6.0 Specific Rules), Llama 3.1 405B ``opt_end_learning_rate`` 8e-7, Llama 2 70B
  LoRA ``opt_gradient_clip_norm`` 0.3, ``opt_adamw_weight_decay`` 0.0001, ``lora_alpha`` 32, and
  ``dropout`` 0.0 / ``lora_dropout`` 0.1 when logged, FLUX.1 ``evaluation_frequency`` CEIL(262144 /
  batch) x batch where the checker of record asks 262144 (mlperf-logging 4.1.68's 6.1 file asks
  the rules text's value; a value both fail is MLC202 alone) (warnings). Not for 3.0-5.1: their rules
  snapshots are not in the shared data, and the latest text describes the benchmarks as of v6.0.
- MLC207 open-benchmark-key-missing: from 3.0 some open benchmark files require keys too (GPT-3,
  Llama 3.1 405B, DeepSeek-V3, GPT-OSS 20B, Qwen3.5 GRPO: the model's shape, ``eval_samples``,
  ``gradient_accumulation_steps``, ...); one is not logged.
  Fix: log the key, with the value the run used.
- MLC208 open-benchmark-key-invalid: a value breaks a check of the open benchmark file
  (``max_sequence_length``, ``opt_name``, ``eval_samples``), or the round's checker cannot pass any
  open-division log of the benchmark: 3.0-3.1 list open GPT-3 but have no ``open_gpt3.yaml`` (the
  checker stops with "Could not find config file"), 4.0-4.1 have ``open_llama2_70b_lora.yaml`` but
  do not list the benchmark in ``open_common.yaml``.
  Fix: log a value the open benchmark file accepts; where the round's checker cannot pass any open log of the benchmark, ask the results chair.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator, Mapping

from mlcheck.facts.constraints import BenchmarkConstraints, Entry, RulesTextCheck, describe, holds, load_constraints, show
from mlcheck.facts.checks import clipped
from mlcheck.facts.formulas import Scope, sides
from mlcheck.model import Finding, Severity
from mlcheck.rule import Rule, RunContext
from mlcheck.rules.checker_state import EMPTY, replay
from mlcheck.rules.key_checks import EntryCodes, evaluate
from mlcheck.rules.required_keys import KEY_OUT_OF_ORDER, KEY_REPEATED, KEY_VALUES_CONFLICT, METADATA_MISSING

HYPERPARAMETER_MISSING = Rule("MLC201", "closed-hyperparameter-missing", Severity.ERROR,
                              "a closed-division hyper-parameter is not logged", official=True)
HYPERPARAMETER_INVALID = Rule("MLC202", "closed-hyperparameter-invalid", Severity.ERROR,
                              "a closed-division hyper-parameter breaks a fixed value or formula", official=True)
OPTIMIZER_NOT_ALLOWED = Rule("MLC203", "closed-optimizer-not-allowed", Severity.ERROR,
                             "the optimizer is not allowed for the closed benchmark", official=True)
RULES_TEXT_CONSTRAINT = Rule("MLC204", "closed-rules-text-constraint", Severity.WARNING,
                             "a hyper-parameter breaks the rules text, which the checker does not enforce", also=(Severity.ERROR,))

OPEN_KEY_MISSING = Rule("MLC207", "open-benchmark-key-missing", Severity.ERROR,
                        "a key the open benchmark's rules require is not logged", official=True)
OPEN_KEY_INVALID = Rule("MLC208", "open-benchmark-key-invalid", Severity.ERROR,
                        "a value breaks a check of the open benchmark's rules", official=True)

RULES = (HYPERPARAMETER_MISSING, HYPERPARAMETER_INVALID, OPTIMIZER_NOT_ALLOWED, RULES_TEXT_CONSTRAINT,
         OPEN_KEY_MISSING, OPEN_KEY_INVALID)

_CODES = EntryCodes(missing=HYPERPARAMETER_MISSING, invalid=HYPERPARAMETER_INVALID, conflict=KEY_VALUES_CONFLICT,
                    repeated=KEY_REPEATED, metadata=METADATA_MISSING, order=KEY_OUT_OF_ORDER)
_OPEN_CODES = EntryCodes(missing=OPEN_KEY_MISSING, invalid=OPEN_KEY_INVALID, conflict=KEY_VALUES_CONFLICT,
                         repeated=KEY_REPEATED, metadata=METADATA_MISSING, order=KEY_OUT_OF_ORDER)


def check(ctx: RunContext) -> Iterator[Finding]:
    """Findings about the closed hyper-parameters of the run's benchmark (and what the open
    benchmark file requires of an open-division run)."""
    run = ctx.run
    if run.division not in ("closed", "open"):
        return
    bench = load_constraints(ctx.ruleset.version).benchmarks.get(run.benchmark or "")
    if bench is None:
        return
    marker = run.first("submission_benchmark")
    anchor = marker.line if marker is not None else run.first_line
    defs = bench.states if run.division == "closed" else bench.open_states
    states = replay(run, defs) if defs else EMPTY
    if run.division == "open":
        if bench.open_unavailable is not None:
            yield ctx.at(OPEN_KEY_INVALID, anchor, f"an open-division {bench.title} log cannot pass the "
                         f"{ctx.ruleset.round} checker: {bench.open_unavailable} ({bench.open_source})")
        yield from evaluate(ctx, bench.open_keys, _OPEN_CODES, f"open {bench.title}", anchor, states)
        return
    scope = f"closed {bench.title}"
    yield from evaluate(ctx, bench.keys, _CODES, scope, anchor, states)
    yield from _optimizer(ctx, bench, scope, anchor)
    optimizer = run.value_of(bench.optimizer_key) if bench.optimizer_key else None
    if isinstance(optimizer, str) and bench.per_optimizer and optimizer in bench.per_optimizer:
        opt_event = run.first(bench.optimizer_key or "")
        yield from evaluate(ctx, bench.per_optimizer[optimizer], _CODES, f"{scope} with {optimizer}",
                            opt_event.line if opt_event is not None else anchor)
    for rule in bench.rules_text:
        yield from _rules_text(ctx, bench, rule)


def _optimizer(ctx: RunContext, bench: BenchmarkConstraints, scope: str, anchor: int) -> Iterator[Finding]:
    key = bench.optimizer_key
    if key is None:
        return
    yield from evaluate(ctx, _optimizer_entry(key, bench.optimizer_source), _CODES, scope, anchor)
    allowed = " or ".join(show(a) for a in bench.optimizers)
    for event in ctx.run.occurrences(key):
        if event.value in bench.optimizers:
            continue
        hint = ""
        if bench.per_optimizer:
            hint = (f"; the official checker looks for closed_{bench.name}_{clipped(str(event.value))}.yaml and crashes "
                    "with a missing-file error instead of saying so")
        yield ctx.at(OPTIMIZER_NOT_ALLOWED, event.line,
                     f"{key} is {show(event.value)}; {scope} allows {allowed}{hint}")


@lru_cache(maxsize=256)
def _optimizer_entry(key: str, source: str) -> tuple[Entry]:
    """The optimizer key, required once (one entry per benchmark: its checks are planned once)."""
    return (Entry(key=key, source=source, req="EXACTLY_ONE"),)


def _states_in(check: Any) -> list[str]:
    """The values a check's formulas read (``{"state": "opt_base_learning_rate"}``), nested too."""
    if isinstance(check, Mapping):
        if isinstance(check.get("state"), str):
            return [check["state"]]
        return [name for part in check.values() for name in _states_in(part)]
    if isinstance(check, list):
        return [name for part in check for name in _states_in(part)]
    return []


def _rules_text(ctx: RunContext, bench: BenchmarkConstraints, rule: RulesTextCheck) -> Iterator[Finding]:
    run = ctx.run
    if rule.optimizer is not None and run.value_of(bench.optimizer_key or "opt_name") != rule.optimizer:
        return
    when = ""
    if rule.applies_when is not None:
        condition_key = rule.applies_when["key"]
        if not holds(rule.applies_when["check"], run.value_of(condition_key), run.value_of):
            return
        when = f" when {condition_key} is {describe(rule.applies_when['check'])}"
    read = set(_states_in(rule.check))  # a formula of the rules text reads the run's values, in any order
    states = {name: run.value_of(name) for name in read if run.value_of(name) is not None}
    if len(states) < len(read):
        return  # the key it derives from is not logged (the key checks report it)
    record = next((e.check for e in bench.keys if e.key == rule.key and e.check is not None
                   and "formula" not in e.check), None)
    for event in run.occurrences(rule.key):
        scope = Scope(event.value, event.metadata, states)
        if holds(rule.check, event.value, run.value_of, scope):
            continue
        if record is not None and not holds(record, event.value, run.value_of):
            continue  # (the checker of record fails it too: MLC202 says so, once)
        given = ", ".join(f"{name} {show(value)}" for name, value in sorted(states.items()))
        computed = "" if "formula" not in rule.check else (  # (the rules text's value for the logged ones)
            f" ({sides(rule.check['formula'], scope, given)})")
        yield ctx.at(RULES_TEXT_CONSTRAINT, event.line,
                     f"{rule.key} is {show(event.value)}; the rules text requires {describe(rule.check)}{computed}{when} "
                     f"for closed {bench.title} ({rule.section}); the checker of record does not enforce it",
                     severity=Severity.parse(rule.severity))
