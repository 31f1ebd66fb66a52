"""Generate synthetic logs of rounds 3.0-6.1 for the rule catalogue: a compliant closed-division
base log of every benchmark of each round, and mutations that break one rule each (every checked
closed hyper-parameter, the target, required keys, order, derived values, evaluation grids,
merged Stable Diffusion records, optional disclosure keys), with the codes and physical lines
mlcheck must report. The successor of ``make_rule_cases.py`` (rounds 1.0-2.1) for the later rounds;
the cases are built from the round data, so a benchmark or a constraint added to it gets cases.

    python tools/make_later_cases.py OUT_DIR      # OUT_DIR/<round>/<benchmark>/<case>.txt + cases.json

``cases.json`` lists every case: path, ruleset, benchmark, kind and ``expected``, the sorted
[code, line] pairs of every finding whose code is in ``CATALOGUE_CODES``. The tests import
:func:`build_cases` and :func:`write_cases` and write into a temporary folder.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import math
import sys
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import make_rule_cases as first  # noqa: E402  (the 1.0-2.1 generator: records, cases, mutations)
from make_rule_cases import Case, Record, _both, _drop, _index, _move_after, _set, _shift, _swap  # noqa: E402

from mlcheck.facts.constraints import BenchmarkConstraints, Entry, holds, load_constraints  # noqa: E402
from mlcheck.facts.rulesets import load_ruleset  # noqa: E402

ROUNDS = ("3.0.0", "3.1.0", "4.0.0", "4.1.0", "5.0.0", "5.1.0", "6.0.0", "6.1.0")
CATALOGUE_CODES = first.CATALOGUE_CODES | {"MLC018", "MLC207", "MLC208"}
_MINUTE = 60_000

#: Values the automatic choice cannot make: derived ones (a formula of other keys) and keys the
#: round does not check. Everything else comes from the check itself (:func:`good_value`).
_HYPER: dict[str, dict[str, Any]] = {
    "resnet": {"global_batch_size": 3200, "opt_name": "lars", "lars_opt_base_learning_rate": 10.0,
               "lars_opt_learning_rate_decay_steps": 38, "lars_opt_learning_rate_warmup_epochs": 2,
               "lars_opt_momentum": 0.9, "lars_opt_weight_decay": 5e-05},
    "bert": {"global_batch_size": 3072, "opt_base_learning_rate": 0.002, "opt_lamb_epsilon": 1e-06,
             "opt_learning_rate_training_steps": 1141, "opt_learning_rate_warmup_steps": 0, "num_warmup_steps": 0,
             "start_warmup_step": 0, "opt_lamb_beta_1": 0.62, "opt_lamb_beta_2": 0.996,
             "opt_lamb_weight_decay_rate": 0.01},
    "maskrcnn": {"global_batch_size": 32, "opt_base_learning_rate": 0.04, "opt_learning_rate_decay_steps": [12000, 16000]},
    "unet3d": {"global_batch_size": 32, "opt_name": "sgd", "opt_learning_rate_decay_boundary_epochs": [],
               "training_input_shape": [128, 128, 128], "validation_input_shape": [128, 128, 128]},
    "gpt3": {"global_batch_size": 1536},
    "dlrm_dcnv2": {"global_batch_size": 65536, "opt_base_learning_rate": 0.004},
    "stable_diffusion": {"global_batch_size": 512},
    "flux1": {"global_batch_size": 1024},
    "llama31_405b": {"global_batch_size": 1152, "opt_base_learning_rate": 8e-05, "opt_learning_rate_warmup_steps": 8000,
                     "opt_learning_rate_decay_steps": 1192000, "opt_end_learning_rate": 8e-07},
    "llama31_8b": {"global_batch_size": 32, "opt_learning_rate_warmup_steps": 100,
                   "opt_learning_rate_decay_steps": 1199900, "opt_base_learning_rate": 0.001,
                   "opt_end_learning_rate": 0.0001},  # 6.0+ rules text (MLC204): end = base x 0.1
    "gpt_oss_20b": {"global_batch_size": 32, "opt_learning_rate_warmup_steps": 100,
                    "opt_learning_rate_decay_steps": 1199900, "opt_base_learning_rate": 0.0004,
                    "opt_end_learning_rate": 4e-05},
    "llama2_70b_lora": {"opt_gradient_clip_norm": 0.3, "opt_adamw_weight_decay": 0.0001, "lora_alpha": 32},
    "deepseekv3_671b": {"global_batch_size": 16384, "opt_base_learning_rate": 2.4e-05,
                        "opt_learning_rate_decay_steps": 11996},
    "qwen35_397b_grpo": {"global_batch_size": 256, "opt_base_learning_rate": 1e-06, "opt_gradient_clip_norm": 0.125,
                         "num_prompts_per_step": 16},
    "dlrmv4": {"global_batch_size": 8192, "opt_base_learning_rate": 1e-06, "opt_sparse_base_learning_rate": 1e-06},
}

#: 6.0+: optional disclosure keys of common.yaml, logged with valid values in the base logs.
_DISCLOSURE = {"lowest_numerical_precision_in_linear": "bfloat16", "lowest_numerical_precision_in_attn": "bfloat16",
               "lowest_numerical_precision_in_comm": "fp32", "tensor_parallelism": 8, "pipeline_parallelism": 1,
               "context_parallelism": 1, "expert_parallelism": 1, "micro_batch_size": 1,
               "config_filename": "config.yaml"}


def good_value(check: Any) -> Any:
    """A value that satisfies a check without a formula."""
    if not check:
        return 1
    if "equals" in check:
        return check["equals"]
    if "one_of" in check:
        return next(v for v in check["one_of"] if not isinstance(v, dict))
    if "any_of" in check:
        return good_value(check["any_of"][0])
    if "multiple_of" in check:
        return check["multiple_of"] * 3
    if "power_of_two_times" in check:
        return check["power_of_two_times"] * 2
    if "length" in check:
        return list(range(1, check["length"] + 1))
    if "integer" in check or "whole_number" in check:
        return 8
    if "range" in check:
        bounds = check["range"]
        low = bounds.get("min", 0)
        return low + 1 if bounds.get("min_exclusive") or "max" not in bounds else low
    raise ValueError(f"no automatic value for {check}")


def violate(check: Any, good: Any) -> Any:
    """A value that breaks ``check`` (whose passing value is ``good``)."""
    if "formula" in check:
        return good * 2 + 1 if isinstance(good, int) else good * 2
    if "whole_number" in check:
        return good + 0.5
    return first.violate(check, good)


def _period_start(ruleset: str) -> dt.datetime:
    day = load_ruleset(ruleset).first_run_date + dt.timedelta(days=30)
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc)


def _entries(bench: BenchmarkConstraints) -> list[Entry]:
    """The closed hyper-parameter entries of a base log, the LARS ones for ResNet."""
    entries = list(bench.keys)
    if bench.optimizer_key:
        entries.append(Entry(key=bench.optimizer_key, source="", req="EXACTLY_ONE",
                             check={"equals": bench.optimizers[0] if bench.name != "resnet" else "lars"}))
    entries += list((bench.per_optimizer or {}).get("lars", ()))
    return entries


def hyper_values(ruleset: str, benchmark: str) -> dict[str, Any]:
    """Valid values of every closed hyper-parameter, in the order they are logged."""
    bench = load_constraints(ruleset).benchmarks[benchmark]
    table = _HYPER.get(benchmark, {})
    values = {}
    for entry in _entries(bench):
        values[entry.key] = table[entry.key] if entry.key in table else good_value(entry.check)
    if benchmark == "qwen35_397b_grpo":
        values["num_generations_per_prompt"] = 16
    return values


def _positions(ruleset: str, benchmark: str, batch: Any) -> list[dict[str, Any]]:
    """The metadata of the three evaluations."""
    if benchmark == "qwen35_397b_grpo":  # the 6.1 grid: batch x ceil(2.5 + 3840 / batch), then every batch
        start = batch * math.ceil(2.5 + 3840 / batch)
        return [{"epoch_num": i + 1, "samples_count": start + i * batch} for i in range(3)]
    if benchmark == "deepseekv3_671b" and ruleset == "6.1.0":  # FIRST_CHECK: batch x floor(42 + 24576 / batch)
        start = batch * math.floor(42 + 24576 / batch)
        return [{"epoch_num": i + 1, "samples_count": start + i * batch} for i in range(3)]
    if benchmark == "dlrmv4":  # 6.1 (4.1.68): every max(1, ceil(0.001 x 2290835423 / batch)) batches, from
        # the first grid point at or after floor((4480 x batch + 135331840) / 3) samples (block 25 at 8192)
        step = max(1, math.ceil(0.001 * 2290835423 / batch)) * batch
        start = math.ceil(math.floor((4480 * batch + 135331840) / 3) / step) * step
        return [{"epoch_num": i + 1, "samples_count": start + i * step} for i in range(3)]
    cadence = load_ruleset(ruleset).facts(benchmark).eval_cadence  # on the rules text's schedule (MLC307)
    if cadence is not None and cadence.formula == "ceil_to_batch" and cadence.interval:
        step = cadence.interval if cadence.interval % batch == 0 else math.ceil(cadence.interval / batch) * batch
        skipped = math.floor(cadence.skip[0] * batch + cadence.skip[1]) if cadence.skip else 0
        return [{"epoch_num": i + 1, "samples_count": (skipped + i + 1) * step} for i in range(3)]
    if cadence is not None and cadence.formula == "bert":  # epoch_num counts samples
        step = math.floor(0.05 * (230.23 * batch + 3_000_000) / 25_000) * 25_000
        return [{"epoch_num": math.ceil((i + 1) * step / batch) * batch, "samples_count": 1000 * (i + 1)}
                for i in range(3)]
    if cadence is not None and cadence.every:  # ResNet: every 4 epochs from 1
        return [{"epoch_num": 1 + i * int(cadence.every), "samples_count": 1000 * (i + 1)} for i in range(3)]
    return [{"epoch_num": i + 1, "samples_count": 1000 * (i + 1)} for i in range(3)]


def _eval_values(ruleset: str, benchmark: str) -> tuple[Any, Any]:
    """(below the target, reaching it) eval values; for Stable Diffusion (FID, CLIP) pairs."""
    target = load_ruleset(ruleset).facts(benchmark).target
    if benchmark == "maskrcnn":
        return {"BBOX": 0.30, "SEGM": 0.28}, {"BBOX": 0.38, "SEGM": 0.345}
    if benchmark == "stable_diffusion":
        return (120.0, 0.10), (80.0, 0.16)
    goal = next(c.value for c in target.conditions if not c.bound)
    if target.lower_is_better:
        return round(goal + 0.2, 4), round(goal - 0.01, 4)
    return round(goal - 0.05, 4), round(goal + 0.01, 4)


def base_records(ruleset: str, benchmark: str) -> list[Record]:
    """A compliant closed-division run of ``benchmark`` under ``ruleset``."""
    data = load_constraints(ruleset)
    t = int(_period_start(ruleset).timestamp() * 1000)
    common = {e.key for e in data.common}
    rec = [Record(k, v, t) for k, v in (
        ("submission_org", "Acme"), ("submission_platform", "pod16"), ("submission_division", "closed"),
        ("submission_status", "onprem"), ("submission_benchmark", benchmark)) if k in common or
        k in ("submission_division", "submission_benchmark", "submission_org", "submission_platform")]
    rec += [Record("cache_clear", True, t), Record("init_start", None, t),
            Record("gradient_accumulation_steps", 1, t)]
    hyper = hyper_values(ruleset, benchmark)
    rec += [Record(k, v, t + 1000) for k, v in hyper.items() if k != "gradient_accumulation_steps"]
    if "lowest_numerical_precision_in_linear" in common:
        rec += [Record(k, v, t + 1000) for k, v in _DISCLOSURE.items()]
    for key, value in (("train_samples", 1000), ("eval_samples", 100)):
        if key not in hyper:
            rec.append(Record(key, value, t + 1000))
    t += 5 * _MINUTE
    rec += [Record("init_stop", None, t), Record("run_start", None, t + 1)]
    low, high = _eval_values(ruleset, benchmark)
    positions = _positions(ruleset, benchmark, hyper.get("global_batch_size", 1))
    for number, where in enumerate(positions, start=1):
        t += 10 * _MINUTE
        value = high if number == 3 else low
        rec += [Record("block_start", None, t - 9 * _MINUTE, {"first_epoch_num": number, "epoch_count": 1}),
                Record("block_stop", None, t - _MINUTE, {"first_epoch_num": number}),
                Record("eval_start", None, t - _MINUTE, {"epoch_num": number})]
        if benchmark == "stable_diffusion":
            by = {"step_num": number * 100} if ruleset == "3.1.0" else {"samples_count": where["samples_count"]}
            rec += [Record("eval_accuracy", value[0], t, {"epoch_num": number, **by, "metric": "FID"}),
                    Record("eval_accuracy", value[1], t, {"epoch_num": number, **by, "metric": "CLIP"})]
        else:
            rec.append(Record("eval_accuracy", value, t, dict(where)))
        rec.append(Record("eval_stop", None, t, {"epoch_num": number}))
    rec.append(Record("run_stop", None, t + 1000, {"status": "success"}))
    return rec


Mutation = Callable[[list[Record]], None]
Expect = list[tuple[str, str, int]]


def _set_evals(value: Any) -> Mutation:
    def apply(records: list[Record]) -> None:
        for record in records:
            if record.key == "eval_accuracy":
                record.value = value
    return apply


def _set_meta(key: str, field: str, value: Any, nth: int = 0) -> Mutation:
    def apply(records: list[Record]) -> None:
        records[_index(records, key, nth)].metadata[field] = value
    return apply


def _pop_meta(key: str, field: str, nth: int = 0) -> Mutation:
    def apply(records: list[Record]) -> None:
        records[_index(records, key, nth)].metadata.pop(field)
    return apply


def _drop_nth(key: str, nth: int) -> Mutation:
    def apply(records: list[Record]) -> None:
        del records[_index(records, key, nth)]
    return apply


def build_cases(ruleset: str, benchmark: str) -> list[tuple[Case, Expect]]:
    """Every case of one benchmark and round with its expected findings as (code, key whose line,
    nth occurrence) triples."""
    cases: list[tuple[Case, Expect]] = []
    data = load_constraints(ruleset)
    facts = load_ruleset(ruleset).facts(benchmark)
    bench = data.benchmarks[benchmark]
    common = {e.key: e for e in data.common}
    hyper = hyper_values(ruleset, benchmark)
    sd = benchmark == "stable_diffusion"
    last_eval = 5 if sd else 2  # Stable Diffusion logs FID and CLIP as two records per eval

    def add(kind: str, mutate: Mutation | None, expect: Expect, glued: str | None = None) -> None:
        records = copy.deepcopy(base_records(ruleset, benchmark))
        if mutate is not None:
            mutate(records)
        cases.append((Case(ruleset, benchmark, kind, records, _index(records, glued) if glued else None), expect))

    add("base", None, [])
    # every checked closed hyper-parameter (and the optimizer), once each
    for entry in _entries(bench):
        if entry.check is None:
            continue
        if entry.key == bench.optimizer_key:
            add("wrong_optimizer", _set(entry.key, "sgd" if "sgd" not in bench.optimizers else "adam"),
                [("MLC203", entry.key, 0)])
            continue
        add(f"invalid_{entry.key}", _set(entry.key, violate(entry.check, hyper[entry.key])),
            [("MLC202", entry.key, 0)] + DERIVED.get((benchmark, entry.key, ruleset >= "6.1"), []))
    keys = [e.key for e in bench.keys]
    first_key = keys[0]
    add(f"missing_{first_key}", _drop(first_key), [("MLC201", "submission_benchmark", 0)] +
        [("MLC112", key, 0) for key in readers_of(bench, first_key, first_eval=True)])
    candidates = [k for k in keys if k != first_key and not _reads(bench, k) and k not in _read_by_states(bench)]
    if candidates:
        other = candidates[0]
        add(f"missing_{other}", _drop(other), [("MLC201", "submission_benchmark", 0)])
    else:  # ResNet: the other hyper-parameters belong to the optimizer
        other = (bench.per_optimizer or {})["lars"][-1].key
        add(f"missing_{other}", _drop(other), [("MLC201", "opt_name", 0)])
    second = first._break_fixed(hyper[other])
    breaks = any(e.key == other and e.check is not None and not holds(e.check, second, lambda _k: None)
                 for e in _entries(bench))
    add("conflicting_duplicate", lambda r: r.insert(_index(r, other) + 1,
        Record(other, second, r[_index(r, other)].time_ms)),
        [("MLC106", other, 1)] + ([("MLC202", other, 1)] if breaks else []))
    add("identical_duplicate", lambda r: r.insert(_index(r, "submission_division") + 1,
        copy.deepcopy(r[_index(r, "submission_division")])), [("MLC107", "submission_division", 1)])
    # required keys of the round's common.yaml
    add("missing_cache_clear", _drop("cache_clear"), [("MLC105", "submission_org", 0)])
    if "submission_status" in common:
        add("submission_status_invalid", _set("submission_status", "on-prem"), [("MLC108", "submission_status", 0)])
        add("missing_submission_status", _drop("submission_status"), [("MLC105", "submission_org", 0)])
    else:  # 4.1+: the availability is in the system description; the key is not checked any more
        add("submission_status_ignored", lambda r: r.insert(_index(r, "submission_division") + 1,
            Record("submission_status", "on-prem", r[0].time_ms)), [])
    # 5.0 dropped submission_org and submission_platform from common.yaml (5.1 restored them)
    add("missing_submission_org", _drop("submission_org"),
        [("MLC105", "submission_platform", 0)] if "submission_org" in common else [])
    if "lowest_numerical_precision_in_linear" in common:  # 6.0+: OPTIONAL disclosure keys
        add("disclosure_keys_absent", lambda r: r.__setitem__(slice(None), [x for x in r if x.key not in _DISCLOSURE]), [])
        add("invalid_lowest_numerical_precision_in_linear", _set("lowest_numerical_precision_in_linear", "fp7"),
            [("MLC111", "lowest_numerical_precision_in_linear", 0)])
        add("invalid_tensor_parallelism", _set("tensor_parallelism", 1.5), [("MLC111", "tensor_parallelism", 0)])
        add("disclosure_repeated", lambda r: r.insert(_index(r, "micro_batch_size") + 1,
            Record("micro_batch_size", 2, r[_index(r, "micro_batch_size")].time_ms)), [])
    # closed_common.yaml requires > 0; a benchmark file that lists the key replaces that check
    if "gradient_accumulation_steps" not in keys:
        ga: Expect = [("MLC111", "gradient_accumulation_steps", 0)]
    else:
        ga = [("MLC202", "gradient_accumulation_steps", 0)] if _checked(bench, "gradient_accumulation_steps") else []
    add("gradient_accumulation_zero", _set("gradient_accumulation_steps", 0), ga)
    # convergence and timing
    low, _high = _eval_values(ruleset, benchmark)
    add("target_not_reached", _sd_low(low) if sd else _set_evals(low),
        [("MLC301", "run_stop", 0)])
    add("aborted_but_reached", lambda r: r[-1].metadata.__setitem__("status", "aborted"),
        [("MLC302", "run_stop", 0)])
    add("run_stop_before_run_start", _shift("run_stop", -10**8),
        [("MLC403", "run_stop", 0)] + ([] if facts.checkpoint_eval else [("MLC305", "eval_accuracy", last_eval)]))
    add("init_too_long", _shift("init_start", -31 * _MINUTE), [("MLC401", "init_stop", 0)])
    add("wrong_order", _swap("init_stop", "run_start"), [("MLC404", "run_start", 0)])
    add("init_start_after_init_stop", lambda r: r.insert(_index(r, "init_stop") + 1,
        Record("init_start", None, r[_index(r, "init_stop")].time_ms)), [("MLC404", "init_start", 1)])
    add("division_after_init_stop", _move_after("submission_division", "init_stop"),
        [("MLC109", "submission_division", 0)])
    add("block_before_run_start", _move_after("block_start", "init_stop"), [("MLC112", "block_start", 0)])
    add("glued_records", None, [("MLC010", "eval_stop", 0)], glued="eval_stop")
    # the run's boundaries and the blocks of common.yaml
    add("missing_run_start", _drop("run_start"),
        [("MLC101", "submission_org", 0)] + [("MLC112", "block_start", n) for n in range(3)])
    add("missing_run_stop", _drop("run_stop"), [("MLC102", "eval_stop", 2)])
    add("run_stop_without_status", _pop_meta("run_stop", "status"), [("MLC103", "run_stop", 0)])
    add("repeated_run_start", lambda r: r.insert(_index(r, "run_start") + 1, copy.deepcopy(r[_index(r, "run_start")])),
        [("MLC104", "run_start", 1)])
    add("missing_init_stop", _drop("init_stop"), [("MLC105", "submission_org", 0)])
    add("missing_blocks", lambda r: r.__setitem__(slice(None), [x for x in r if x.key != "block_start"]),
        [("MLC105", "submission_org", 0)])
    add("block_epoch_count_zero", _set_meta("block_start", "epoch_count", 0), [("MLC110", "block_start", 0)])
    add("block_stop_without_first_epoch_num", _pop_meta("block_stop", "first_epoch_num"),
        [("MLC110", "block_stop", 0)])
    add("eval_stop_without_epoch_num", _pop_meta("eval_stop", "epoch_num"), [("MLC110", "eval_stop", 0)])
    # where an eval says where it was taken (epoch_num / samples_count / step_num)
    _eval_metadata_cases(add, ruleset, benchmark, bench, facts)
    _derived_cases(add, ruleset, benchmark, bench)
    _open_cases(add, ruleset, benchmark, bench, facts)
    return cases


def _sd_low(low: Any) -> Mutation:
    def apply(records: list[Record]) -> None:
        for record in records:
            if record.key == "eval_accuracy":
                record.value = low[0] if record.metadata["metric"] == "FID" else low[1]
    return apply


def _checked(bench: BenchmarkConstraints, key: str) -> bool:
    return any(e.key == key and e.check is not None for e in bench.keys)


def _reads(bench: BenchmarkConstraints, key: str) -> bool:
    """Whether the key's check is a formula (its value depends on other keys)."""
    return any(e.key == key and e.check is not None and "formula" in e.check for e in bench.keys)


def _read_by_states(bench: BenchmarkConstraints) -> set[str]:
    return {d.set_by for d in bench.states}


def _eval_metadata_cases(add: Callable[..., None], ruleset: str, benchmark: str, bench: BenchmarkConstraints,
                         facts: Any) -> None:
    override = next((e for e in bench.overrides if e.key == "eval_accuracy"), None)
    if benchmark == "stable_diffusion":
        by = "step_num" if ruleset == "3.1.0" else "samples_count"
        # AT_LEAST(2) merged records: the FID and CLIP records of the first two evals dropped
        add("one_aggregated_eval", _both(*[_drop_nth("eval_accuracy", 0) for _ in range(4)]),
            [("MLC105", "eval_accuracy", 1)])
        # the CLIP record of the passing eval is missing: the merged record has FID only
        add("aggregated_eval_without_clip", _drop_nth("eval_accuracy", 5),
            [("MLC111", "eval_accuracy", 4), ("MLC304", "eval_accuracy", 4), ("MLC301", "run_stop", 0)])
        # a FID record without its position: the checker's merging code fails on it, and the
        # CLIP record of that eval is merged alone
        add("eval_metric_without_position", _pop_meta("eval_accuracy", by, 0),
            [("MLC304", "eval_accuracy", 0), ("MLC111", "eval_accuracy", 1), ("MLC304", "eval_accuracy", 1)])
        return
    field = "samples_count" if override is not None and "samples_count" in override.metadata else "epoch_num"
    expect = [("MLC110", "eval_accuracy", 0)]
    if override is not None and override.first_check is not None:  # 6.1 DeepSeek reads it too
        expect.append(("MLC111", "eval_accuracy", 0))
    if override is not None and override.cadence is not None:  # 6.1 Qwen: the grid stays at its first point
        expect += [("MLC111", "eval_accuracy", 1), ("MLC111", "eval_accuracy", 2)]
    add(f"eval_without_{field}", _pop_meta("eval_accuracy", field, 0), expect)


def readers_of(bench: BenchmarkConstraints, key: str, first_eval: bool = False) -> list[str]:
    """The keys whose check (or POST: ``after``) reads a state that ``key`` sets, directly or
    through another state; with ``first_eval``, eval_accuracy when its grid or first point does."""
    names = {d.name for d in bench.states if d.set_by == key}
    grown = True
    while grown:
        grown = False
        for d in bench.states:
            if d.name not in names and any(f'"state": "{n}"' in json.dumps(d.value) for n in names):
                names.add(d.name)
                grown = True
    if not names:
        return []
    def reads(entry: Entry) -> bool:
        text = json.dumps([entry.check, entry.first_check, entry.cadence and [entry.cadence.start, entry.cadence.step]])
        return any(f'"state": "{n}"' in text for n in names)
    found = [e.key for e in bench.keys if reads(e) or key in e.after]
    if first_eval:
        found += [e.key for e in bench.overrides if reads(e)]
    return found


#: What an invalid value of a key breaks besides its own check: the values derived from it.
#: (benchmark, key, round 6.1 or later) -> expected findings.
DERIVED: dict[tuple[str, str, bool], Expect] = {
    ("deepseekv3_671b", "global_batch_size", False): [("MLC202", "opt_base_learning_rate", 0)],
    ("deepseekv3_671b", "global_batch_size", True): [("MLC202", "opt_base_learning_rate", 0),
                                                     ("MLC111", "eval_accuracy", 0)],
    ("deepseekv3_671b", "opt_learning_rate_warmup_steps", False): [("MLC202", "opt_learning_rate_decay_steps", 0)],
    ("deepseekv3_671b", "opt_learning_rate_warmup_steps", True): [("MLC202", "opt_learning_rate_decay_steps", 0)],
    # 256.5: the learning rate derived from it moves by 1e-9 x 0.98, within the tolerance
    ("qwen35_397b_grpo", "global_batch_size", True): [("MLC202", "opt_gradient_clip_norm", 0),
        ("MLC202", "num_generations_per_prompt", 0), ("MLC111", "eval_accuracy", 0), ("MLC111", "eval_accuracy", 1),
        ("MLC111", "eval_accuracy", 2)],
    ("qwen35_397b_grpo", "num_prompts_per_step", True): [("MLC202", "num_generations_per_prompt", 0)],
    # 8192.5: the learning-rate band still holds 1e-6, the eval grid moves off every eval
    ("dlrmv4", "global_batch_size", True): [("MLC111", "eval_accuracy", n) for n in range(3)],
    # the sparse learning rate must equal the dense one
    ("dlrmv4", "opt_base_learning_rate", True): [("MLC202", "opt_sparse_base_learning_rate", 0)],
}


def _log_again_after(key: str, anchor: str, nth: int) -> Mutation:
    """A copy of the first ``key`` record right after the ``nth`` ``anchor`` (at its time)."""
    def apply(records: list[Record]) -> None:
        at = _index(records, anchor, nth)
        records.insert(at + 1, _at_time(records[_index(records, key)], records[at].time_ms))
    return apply


def _at_time(record: Record, time_ms: int) -> Record:
    moved = copy.copy(record)
    moved.time_ms = time_ms
    return moved


def _derived_cases(add: Callable[..., None], ruleset: str, benchmark: str, bench: BenchmarkConstraints) -> None:
    """Values computed from other keys: the key they derive from logged after them; a grid."""
    readers = readers_of(bench, "global_batch_size")
    if readers:  # global_batch_size logged last of the hyper-parameters, before init_stop
        add("global_batch_size_logged_late", _move_to_end_of_hyper("global_batch_size"),
            [("MLC112", key, 0) for key in readers])
    if readers_of(bench, "opt_learning_rate_warmup_steps"):
        add("decay_steps_logged_before_warmup", _move_before("opt_learning_rate_decay_steps",
            "opt_learning_rate_warmup_steps"), [("MLC112", "opt_learning_rate_decay_steps", 0)])
    for entry in bench.overrides:
        if entry.cadence is not None:  # 6.1 Qwen: the second eval off the grid, and so the third
            add("eval_off_grid", _set_meta("eval_accuracy", "samples_count", 999, 1),
                [("MLC111", "eval_accuracy", 1), ("MLC111", "eval_accuracy", 2)])
            # global_batch_size logged again after the second eval: its POST restarts the grid
            add("batch_size_logged_again_after_an_eval", _log_again_after("global_batch_size", "eval_accuracy", 1),
                [("MLC107", "global_batch_size", 1), ("MLC111", "eval_accuracy", 2)])
        if entry.check is not None and "range" in entry.check:  # 6.1 Qwen: 0 <= accuracy <= 1
            add("eval_out_of_range", _set_nth("eval_accuracy", 0, 1.5), [("MLC111", "eval_accuracy", 0)])
        if entry.first_check is not None:  # 6.1 DeepSeek: the first eval off its point
            add("first_eval_off_point", _set_meta("eval_accuracy", "samples_count", 1000, 0),
                [("MLC111", "eval_accuracy", 0)])
    if benchmark == "dlrmv4":  # 6.1 (4.1.68): the grid of multiples, the learning-rate band
        positions = _positions(ruleset, benchmark, _HYPER[benchmark]["global_batch_size"])
        add("eval_off_grid", _set_meta("eval_accuracy", "samples_count", positions[1]["samples_count"] + 8192, 1),
            [("MLC111", "eval_accuracy", 1)])
        add("learning_rate_below_band", _both(_set("opt_base_learning_rate", 4e-07),
                                              _set("opt_sparse_base_learning_rate", 4e-07)),
            [("MLC202", "opt_base_learning_rate", 0)])
        add("learning_rate_at_band_edge", _both(_set("opt_base_learning_rate", 1.5e-06 * (1 + 5e-10)),
                                                _set("opt_sparse_base_learning_rate", 1.5e-06 * (1 + 5e-10))), [])


def _set_nth(key: str, nth: int, value: Any) -> Mutation:
    def apply(records: list[Record]) -> None:
        records[_index(records, key, nth)].value = value
    return apply


def _move_to_end_of_hyper(key: str) -> Mutation:
    def apply(records: list[Record]) -> None:
        record = records.pop(_index(records, key))
        records.insert(_index(records, "init_stop"), record)
    return apply


def _move_before(key: str, anchor: str) -> Mutation:
    def apply(records: list[Record]) -> None:
        record = records.pop(_index(records, key))
        records.insert(_index(records, anchor), record)
    return apply


def _open_cases(add: Callable[..., None], ruleset: str, benchmark: str, bench: BenchmarkConstraints,
                facts: Any) -> None:
    """Open-division runs: what open_<benchmark>.yaml asks, on top of the base expectations."""
    target = facts.open_target
    extra: list[Mutation] = []
    if target is not None and target.metric != "eval_accuracy":  # 5.1+ FLUX.1: another key is judged
        extra.append(_copy_evals_as(target.metric))
    open_ = _both(_set("submission_division", "open"), *extra)
    expect = open_expect(ruleset, benchmark)
    add("open_division", open_, expect)
    add("open_init_31_min", _both(open_, _shift("init_start", -31 * _MINUTE)), expect)
    if bench.open_unavailable is not None:
        return
    if bench.open_keys:
        key = next(e.key for e in reversed(bench.open_keys) if e.req == "EXACTLY_ONE")
        add(f"open_missing_{key}", _both(open_, _drop(key)), expect + [("MLC207", "submission_benchmark", 0)])
    if target is None:
        one = {"BBOX": 1.0, "SEGM": 1.0} if benchmark == "maskrcnn" else 1.0
        if not expect:
            add("open_eval_not_below_one", _both(open_, _set_evals(one)), [("MLC306", "eval_accuracy", 2)])
    elif target.aggregate is None and target.metric == "eval_accuracy":
        fields = [c.field for c in target.conditions if c.field]  # (Mask R-CNN 3.0/3.1: each field below 1.0)
        missed = dict.fromkeys(fields, 1.0) if fields else 99.0 if target.lower_is_better else 0.5
        add("open_eval_not_meeting_open_check", _both(open_, _set_evals(missed)), [("MLC306", "eval_accuracy", 2)])


def open_expect(ruleset: str, benchmark: str) -> Expect:
    """What an open-division copy of the base log gets: the round's checker cannot judge the
    benchmark in the open division (MLC208), or its open file asks every eval to be below 1.0 and
    the metric is a loss above one (5.1+ Llama 3.1 8B: MLC306; not where the file is missing)."""
    bench = load_constraints(ruleset).benchmarks[benchmark]
    facts = load_ruleset(ruleset).facts(benchmark)
    expect: Expect = []
    if bench.open_unavailable is not None:
        expect.append(("MLC208", "submission_benchmark", 0))
    _low, high = _eval_values(ruleset, benchmark)
    if facts.open_target is None and isinstance(high, float) and high >= 1.0 and bench.open_unavailable is None:
        expect.append(("MLC306", "eval_accuracy", 2))  # (no open file: the checker stops before the evals)
    return expect


def _copy_evals_as(key: str) -> Mutation:
    def apply(records: list[Record]) -> None:
        for index in reversed([i for i, r in enumerate(records) if r.key == "eval_accuracy"]):
            records.insert(index + 1, Record(key, records[index].value, records[index].time_ms,
                                             dict(records[index].metadata)))
    return apply


def expected_lines(case: Case, expect: Expect) -> list[tuple[str, int]]:
    """The expected (code, physical line) pairs of a case, sorted."""
    return sorted((code, case.line_of(key, nth)) for code, key, nth in expect)


def write_cases(out: Path, rounds: tuple[str, ...] = ROUNDS) -> list[dict[str, Any]]:
    """Write every case under ``out`` and return the manifest entries."""
    manifest = []
    for ruleset in rounds:
        for benchmark in sorted(load_ruleset(ruleset).benchmarks):
            folder = out / ruleset / benchmark
            folder.mkdir(parents=True, exist_ok=True)
            for case, expect in build_cases(ruleset, benchmark):
                path = folder / f"{case.kind}.txt"
                path.write_text("\n".join(case.lines()) + "\n", encoding="utf-8")
                manifest.append({"path": str(path.relative_to(out)), "ruleset": ruleset, "benchmark": benchmark,
                                 "kind": case.kind, "expected": expected_lines(case, expect)})
    return manifest


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", metavar="OUT_DIR", help="where the cases and cases.json are written")
    out = Path(parser.parse_args(argv).out_dir)
    manifest = write_cases(out)
    (out / "cases.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(manifest)} cases under {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
