"""Generate synthetic MLPerf Training logs for the rule catalogue: a compliant closed-division base
log for each of the 8 benchmarks in each of rounds 1.0.0, 1.1.0, 2.0.0 and 2.1.0, and mutations of it
that break one rule each, with the codes and physical lines mlcheck must report.

    python tools/make_rule_cases.py OUT_DIR      # writes OUT_DIR/<round>/<benchmark>/<case>.txt + cases.json

``cases.json`` lists every case: path, ruleset, benchmark, kind, and ``expected``: the sorted
[code, line] pairs of every finding whose code is in ``CATALOGUE_CODES``. The tests import
:func:`build_cases` directly and write into a temporary folder.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from mlcheck.facts.constraints import load_constraints
from mlcheck.facts.constraints import tensor_list
from mlcheck.facts.rulesets import load_ruleset

ROUNDS = ("1.0.0", "1.1.0", "2.0.0", "2.1.0")
BENCHMARKS = ("resnet", "bert", "rnnt", "ssd", "maskrcnn", "unet3d", "dlrm", "minigo")
#: The codes the catalogue tests compare exactly (other engineers' codes are left out).
CATALOGUE_CODES = frozenset(
    ["MLC010"] + [f"MLC{n}" for n in range(101, 113)] + [f"MLC{n}" for n in range(201, 207)]
    + [f"MLC{n}" for n in range(301, 307)] + [f"MLC{n}" for n in range(401, 405)])
_START = {"1.0.0": dt.datetime(2021, 4, 1), "1.1.0": dt.datetime(2021, 9, 1),
          "2.0.0": dt.datetime(2022, 4, 1), "2.1.0": dt.datetime(2022, 9, 15)}
_MINUTE = 60_000

_HYPER: dict[str, dict[str, Any]] = {
    "resnet": {"global_batch_size": 3200, "opt_name": "lars", "lars_opt_base_learning_rate": 10.0,
               "lars_opt_end_learning_rate": 0.0001, "lars_opt_learning_rate_decay_poly_power": 2,
               "lars_opt_learning_rate_decay_steps": 38, "lars_epsilon": 0.0,
               "lars_opt_learning_rate_warmup_epochs": 2, "lars_opt_momentum": 0.9, "lars_opt_weight_decay": 5e-05},
    "resnet_sgd": {"global_batch_size": 1024, "opt_name": "sgd", "sgd_opt_base_learning_rate": 2.048,
                   "sgd_opt_end_learning_rate": 0.0001, "sgd_opt_learning_rate_decay_poly_power": 2,
                   "sgd_opt_learning_rate_decay_steps": 1000, "sgd_opt_weight_decay": 0.0001,
                   "sgd_opt_momentum": 0.9, "model_bn_span": 32, "opt_learning_rate_warmup_epochs": 2},
    "bert": {"global_batch_size": 3072, "opt_base_learning_rate": 0.002, "opt_epsilon": 1e-06,
             "opt_learning_rate_training_steps": 1141, "opt_learning_rate_warmup_steps": 0, "num_warmup_steps": 0,
             "start_warmup_step": 0, "opt_lamb_beta_1": 0.62, "opt_lamb_beta_2": 0.996,
             "opt_lamb_weight_decay_rate": 0.01},
    "rnnt": {"model_weights_initialization_scale": 0.45, "global_batch_size": 1024, "opt_name": "lamb",
             "opt_base_learning_rate": 0.004, "opt_lamb_epsilon": 1e-09,
             "opt_lamb_learning_rate_decay_poly_power": 0.935,
             "opt_lamb_learning_rate_hold_epochs": 40, "opt_learning_rate_warmup_epochs": 6,
             "opt_weight_decay": 0.001, "opt_lamb_beta_1": 0.9, "opt_lamb_beta_2": 0.999, "opt_gradient_clip_norm": 1,
             "opt_learning_rate_alt_decay_func": True, "opt_learning_rate_alt_warmup_func": True,
             "opt_lamb_learning_rate_min": 1e-05, "train_samples": 279512, "eval_samples": 2703,
             "data_train_max_duration": 16.7, "data_train_num_buckets": 6, "data_speed_perturbaton_min": 0.85,
             "data_speed_perturbaton_max": 1.15, "data_spec_augment_freq_n": 2, "data_spec_augment_freq_min": 0,
             "data_spec_augment_freq_max": 20, "data_spec_augment_time_n": 10, "data_spec_augment_time_min": 0,
             "data_spec_augment_time_max": 0.03, "model_eval_ema_factor": 0.999, "eval_max_prediction_symbols": 300},
    "ssd_1": {"global_batch_size": 512, "model_bn_span": 32, "opt_learning_rate_warmup_factor": 0,
              "opt_learning_rate_warmup_steps": 100, "opt_weight_decay": 0.0005, "opt_base_learning_rate": 0.003,
              "max_samples": 50, "opt_learning_rate_decay_boundary_epochs": [40, 50]},
    "ssd": {"global_batch_size": 256, "opt_name": "adam", "opt_base_learning_rate": 0.0001, "opt_weight_decay": 0.0,
            "opt_learning_rate_warmup_epochs": 1, "opt_learning_rate_warmup_factor": 0.001},
    "maskrcnn": {"global_batch_size": 32, "opt_base_learning_rate": 0.04, "opt_learning_rate_warmup_steps": 1000,
                 "opt_learning_rate_warmup_factor": 0.001, "num_image_candidates": 6000,
                 "opt_learning_rate_decay_factor": 0.1, "opt_learning_rate_decay_steps": [12000, 16000],
                 "min_image_size": 800, "max_image_size": 1333},
    "unet3d": {"global_batch_size": 32, "opt_name": "sgd", "opt_base_learning_rate": 2.0,
               "opt_learning_rate_warmup_epochs": 200, "opt_learning_rate_decay_boundary_epochs": [],
               "opt_learning_rate_decay_factor": 1.0, "opt_weight_decay": 0.0, "train_samples": 168,
               "eval_samples": 42, "seed": 1, "opt_momentum": 0.9, "oversampling": 0.4,
               "training_input_shape": [128, 128, 128], "validation_input_shape": [128, 128, 128],
               "validation_overlap": 0.5},
    "dlrm": {"global_batch_size": 65536, "opt_base_learning_rate": 24, "opt_learning_rate_warmup_steps": 8000,
             "lr_decay_start_steps": 48000, "sgd_opt_base_learning_rate": 24,
             "sgd_opt_learning_rate_decay_poly_power": 2, "sgd_opt_learning_rate_decay_steps": 27000},
    "minigo": {"train_batch_size": 8192, "lr_boundaries": [100], "lr_rates": [0.1, 0.01],
               "actual_selfplay_games_per_generation": 8192, "min_selfplay_games_per_generation": 8192},
}

@dataclass
class Record:
    key: str
    value: Any
    time_ms: int
    metadata: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        kind = "INTERVAL_START" if self.key.endswith("_start") else (
            "INTERVAL_END" if self.key.endswith("_stop") else "POINT_IN_TIME")
        meta = {"file": "train.py", "lineno": 1, **self.metadata}
        body = {"namespace": "", "time_ms": self.time_ms, "event_type": kind, "key": self.key,
                "value": self.value, "metadata": meta}
        return ":::MLLOG " + json.dumps(body)


@dataclass
class Case:
    ruleset: str
    benchmark: str
    kind: str
    records: list[Record]
    glued_at: int | None = None  # records[glued_at] shares a line with records[glued_at + 1]

    def lines(self) -> list[str]:
        out: list[str] = []
        index = 0
        while index < len(self.records):
            if index == self.glued_at:
                out.append(self.records[index].text() + " " + self.records[index + 1].text())
                index += 2
                continue
            out.append(self.records[index].text())
            index += 1
        return out

    def line_of(self, key: str, nth: int = 0) -> int:
        """The physical line of the nth record with this key."""
        seen = -1
        for number, text in enumerate(self.lines(), start=1):
            seen += text.count(f'"key": "{key}"')
            if seen >= nth:
                return number
        raise KeyError(key)


def _hyper(ruleset: str, benchmark: str) -> dict[str, Any]:
    name = "ssd_1" if benchmark == "ssd" and ruleset.startswith("1.") else benchmark
    values = dict(_HYPER[name])
    if benchmark == "rnnt" and ruleset != "1.0.0":
        values["data_train_num_buckets"] = 8
    return values


def _eval_values(ruleset: str, benchmark: str) -> tuple[Any, Any]:
    """(below target, reaching the target) eval_accuracy values."""
    target = load_ruleset(ruleset).facts(benchmark).target
    if benchmark == "maskrcnn":
        return {"BBOX": 0.30, "SEGM": 0.28}, {"BBOX": 0.38, "SEGM": 0.345}
    goal = next(c.value for c in target.conditions if not c.bound)
    if target.lower_is_better:
        return round(goal + 0.02, 4), round(goal - 0.002, 4)
    return round(goal - 0.02, 4), round(goal + 0.004, 4)


def base_records(ruleset: str, benchmark: str, hyper: dict[str, Any] | None = None) -> list[Record]:
    """A compliant closed-division run of ``benchmark`` under ``ruleset``."""
    t = int(_START[ruleset].replace(tzinfo=dt.timezone.utc).timestamp() * 1000)
    hyper = _hyper(ruleset, benchmark) if hyper is None else hyper
    rec: list[Record] = [Record(k, v, t) for k, v in (
        ("submission_org", "Acme"), ("submission_platform", "pod16"), ("submission_division", "closed"),
        ("submission_status", "onprem"), ("submission_benchmark", benchmark), ("cache_clear", True),
        ("init_start", None), ("gradient_accumulation_steps", 1))]
    rec += [Record(k, v, t + 1000) for k, v in hyper.items()]
    for key, value in (("train_samples", 1000), ("eval_samples", 100)):
        if key not in hyper:
            rec.append(Record(key, value, t + 1000))
    bench = load_constraints(ruleset).benchmarks[benchmark]
    if bench.weight_init is not None:
        rec += [Record("weights_initialization", None, t + 2000, {"tensor": name})
                for name in tensor_list(bench.weight_init.tensors_from) + bench.weight_init.record_adds]
    t += 5 * _MINUTE
    rec += [Record("init_stop", None, t), Record("run_start", None, t + 1)]
    low, high = _eval_values(ruleset, benchmark)
    for epoch in (1, 2, 3):
        t += 10 * _MINUTE
        rec += [Record("block_start", None, t - 9 * _MINUTE, {"first_epoch_num": epoch, "epoch_count": 1}),
                Record("block_stop", None, t - _MINUTE, {"first_epoch_num": epoch}),
                Record("eval_start", None, t - _MINUTE, {"epoch_num": epoch}),
                Record("eval_accuracy", high if epoch == 3 else low, t, {"epoch_num": epoch}),
                Record("eval_stop", None, t, {"epoch_num": epoch})]
    rec.append(Record("run_stop", None, t + 1000, {"status": "success"}))
    return rec


def _index(records: list[Record], key: str, nth: int = 0) -> int:
    return [i for i, r in enumerate(records) if r.key == key][nth]


Mutation = Callable[[list[Record]], None]


def _set(key: str, value: Any) -> Mutation:
    def apply(records: list[Record]) -> None:
        records[_index(records, key)].value = value
    return apply


def _drop(key: str) -> Mutation:
    def apply(records: list[Record]) -> None:
        del records[_index(records, key)]
    return apply


def build_cases(ruleset: str, benchmark: str) -> list[tuple[Case, list[tuple[str, str, int]]]]:
    """Every case of one benchmark and round, each with its expected findings as
    (code, key-whose-line, nth occurrence) triples resolved to lines by :func:`expected_lines`."""
    cases: list[tuple[Case, list[tuple[str, str, int]]]] = []
    data = load_constraints(ruleset)
    bench = data.benchmarks[benchmark]
    late_division = data.division_sets_init_limit

    def add(kind: str, mutate: Mutation | None, expect: list[tuple[str, str, int]],
            hyper: dict[str, Any] | None = None, glued: str | None = None) -> None:
        records = copy.deepcopy(base_records(ruleset, benchmark, hyper))
        if mutate is not None:
            mutate(records)
        case = Case(ruleset, benchmark, kind, records, _index(records, glued) if glued else None)
        cases.append((case, expect))

    add("base", None, [])
    if benchmark == "resnet":
        add("base_sgd", None, [], hyper=dict(_HYPER["resnet_sgd"]))
    # every fixed / allowed / formula constraint of the benchmark, once each
    hyper = _hyper(ruleset, benchmark)
    checked = [e for e in bench.keys if e.check is not None]
    for opt, entries in (bench.per_optimizer or {}).items():
        checked += [e for e in entries if e.check is not None]
    for entry in checked:
        source = dict(_HYPER["resnet_sgd"]) if entry.key.startswith("sgd_") and benchmark == "resnet" else None
        values = source or hyper
        bad = violate(entry.check or {}, values[entry.key])
        add(f"invalid_{entry.key}", _set(entry.key, bad), [("MLC202", entry.key, 0)], hyper=source)
    first_key = bench.keys[0].key
    add(f"missing_{first_key}", _drop(first_key), [("MLC201", "submission_benchmark", 0)])
    add("missing_cache_clear", _drop("cache_clear"), [("MLC105", "submission_org", 0)])
    add("conflicting_duplicate", lambda r: r.insert(_index(r, first_key) + 1,
        Record(first_key, _break_fixed(hyper[first_key]), r[_index(r, first_key)].time_ms)),
        [("MLC106", first_key, 1)])
    add("identical_duplicate", lambda r: r.insert(1, copy.deepcopy(r[0])), [("MLC107", "submission_org", 1)])
    if bench.optimizer_key:
        add("wrong_optimizer", _set("opt_name", "sgd" if "sgd" not in bench.optimizers else "adam"),
            [("MLC203", "opt_name", 0)])
    if benchmark == "bert":
        add("wrong_optimizer", lambda r: r.insert(_index(r, "opt_epsilon"), Record("opt_name", "sgd", r[0].time_ms)),
            [("MLC204", "opt_name", 0)])
    if benchmark == "resnet":
        add("rules_text_lars_momentum", _set("lars_opt_momentum", 0.95), [("MLC204", "lars_opt_momentum", 0)])
        add("rules_text_sgd_momentum", _set("sgd_opt_momentum", 0.8), [("MLC204", "sgd_opt_momentum", 0)],
            hyper=dict(_HYPER["resnet_sgd"]))
        add("rules_text_sgd_poly_power", _set("sgd_opt_learning_rate_decay_poly_power", 1),
            [("MLC204", "sgd_opt_learning_rate_decay_poly_power", 0)], hyper=dict(_HYPER["resnet_sgd"]))
    if bench.weight_init is not None:
        code = "MLC206"
        add("weight_init_tensor_missing", _drop("weights_initialization"), [(code, "weights_initialization", 0)])
        add("weight_init_untagged", lambda r: r[_index(r, "weights_initialization")].metadata.pop("tensor"),
            [("MLC205", "weights_initialization", 0), (code, "weights_initialization", 0)])
        add("weight_init_absent",
            lambda r: r.__setitem__(slice(None), [x for x in r if x.key != "weights_initialization"]),
            [("MLC205", "submission_org", 0)])
    low, _high = _eval_values(ruleset, benchmark)
    add("target_not_reached", _set_last_eval(low), [("MLC301", "run_stop", 0)])
    add("init_too_long", _shift("init_start", -31 * _MINUTE), [("MLC401", "init_stop", 0)])
    if ruleset == "1.1.0":
        add("init_over_rules_limit", _shift("init_start", -21 * _MINUTE), [("MLC402", "init_stop", 0)])
    add("wrong_order", _swap("init_stop", "run_start"), [("MLC404", "run_start", 0)])
    add("aborted_but_reached", lambda r: r[-1].metadata.__setitem__("status", "aborted"),
        [("MLC302", "run_stop", 0)])
    # MiniGo evaluates its checkpoints after the clock stops (evals after run_stop are legal).
    add("run_stop_before_run_start", _shift("run_stop", -10**8),
        [("MLC403", "run_stop", 0)] + ([] if benchmark == "minigo" else [("MLC305", "eval_accuracy", 2)]))
    add("eval_without_epoch_num", lambda r: r[_index(r, "eval_accuracy")].metadata.pop("epoch_num"),
        [("MLC110", "eval_accuracy", 0)])
    add("division_after_init_stop", _move_after("submission_division", "init_stop"),
        [("MLC109", "submission_division", 0)] if late_division else [])
    add("open_division", _both(_set("submission_division", "open"), _drop(first_key)), [])
    one = {"BBOX": 1.0, "SEGM": 1.0} if benchmark == "maskrcnn" else 1.0
    add("open_eval_not_below_one", _both(_set("submission_division", "open"), _set_last_eval(one)),
        [("MLC306", "eval_accuracy", 2)])
    # open division: 4 h of init from 2.0, the same 30 min as closed in 1.x
    add("open_init_31_min", _both(_set("submission_division", "open"), _shift("init_start", -31 * _MINUTE)),
        [] if late_division else [("MLC401", "init_stop", 0)])
    add("init_start_after_init_stop", lambda r: r.insert(_index(r, "init_stop") + 1,
        Record("init_start", None, r[_index(r, "init_stop")].time_ms)), [("MLC404", "init_start", 1)])
    add("submission_status_invalid", _set("submission_status", "on-prem"), [("MLC108", "submission_status", 0)])
    add("gradient_accumulation_zero", _set("gradient_accumulation_steps", 0),
        [("MLC111", "gradient_accumulation_steps", 0)])
    if benchmark != "minigo":  # closed MiniGo lifts common.yaml's checks on block_start
        add("block_before_run_start", _move_after("block_start", "init_stop"), [("MLC112", "block_start", 0)])
    add("glued_records", None, [("MLC010", "eval_stop", 0)], glued="eval_stop")
    return cases


def violate(check: dict[str, Any] | Any, good: Any) -> Any:
    """A value that breaks ``check`` (whose passing value is ``good``)."""
    if "equals" in check:
        return _break_fixed(check["equals"])
    if "one_of" in check:
        numbers = [v for v in check["one_of"] if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return max(numbers) + 1 if numbers else str(good) + "x"
    if "range" in check:
        bounds = check["range"]
        return bounds["min"] - 1 if "min" in bounds else bounds["max"] + 1
    if "multiple_of" in check:
        return round(good + check["multiple_of"] / 2, 12)
    if "power_of_two_times" in check:
        return round(check["power_of_two_times"] * 0.3, 12)
    if "integer" in check:
        return good + 0.5
    if "length" in check:
        return list(good) + [1]
    if "element" in check:
        index = check["element"]["index"]
        return [*good[:index], violate(check["element"]["check"], good[index]), *good[index + 1:]]
    if "any_of" in check:
        return violate(check["any_of"][0], good)
    return _break_fixed(good)


def _break_fixed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, (int, float)):
        return value * 2 + 1
    if isinstance(value, list):
        return value + [1]
    return "broken"


def _set_last_eval(value: Any) -> Mutation:
    def apply(records: list[Record]) -> None:
        for record in records:
            if record.key == "eval_accuracy":
                record.value = value
    return apply


def _shift(key: str, delta_ms: int) -> Mutation:
    def apply(records: list[Record]) -> None:
        records[_index(records, key)].time_ms += delta_ms
    return apply


def _swap(first: str, second: str) -> Mutation:
    def apply(records: list[Record]) -> None:
        a, b = _index(records, first), _index(records, second)
        records[a], records[b] = records[b], records[a]
    return apply


def _move_after(key: str, anchor: str) -> Mutation:
    def apply(records: list[Record]) -> None:
        record = records.pop(_index(records, key))
        records.insert(_index(records, anchor) + 1, record)
    return apply


def _both(*mutations: Mutation) -> Mutation:
    def apply(records: list[Record]) -> None:
        for mutate in mutations:
            mutate(records)
    return apply


def expected_lines(case: Case, expect: list[tuple[str, str, int]]) -> list[tuple[str, int]]:
    """The expected (code, physical line) pairs of a case, sorted."""
    return sorted((code, case.line_of(key, nth)) for code, key, nth in expect)


def write_cases(out: Path) -> list[dict[str, Any]]:
    """Write every case under ``out`` and return the manifest entries."""
    manifest = []
    for ruleset in ROUNDS:
        for benchmark in BENCHMARKS:
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
