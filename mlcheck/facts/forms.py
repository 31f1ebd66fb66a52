"""The constraint forms of the round data, each with the Python of the official YAML it replaces.

``mlcheck explain forms`` prints them all, ``mlcheck explain <form>`` one (``mlcheck explain
formula``). The data is ``schemas/rulesets/<X.Y.Z>/constraints.json`` (and ``ruleset.json`` for
targets), validated with ``schemas/constraints.schema.json``; the interpreter is
:mod:`mlcheck.facts.constraints`, :mod:`mlcheck.facts.formulas` and the rules that read them.
Nothing in the data is ever evaluated as code.
"""

from __future__ import annotations

FORMS: tuple[tuple[str, str], ...] = (
    # occurrences (an entry's req)
    ("EXACTLY_ONE", "req: the key is logged once (REQ: EXACTLY_ONE). Missing: MLC105/MLC201; several copies "
     "with different values: MLC106; identical copies only warn (MLC107), as the checker does."),
    ("AT_LEAST_ONE", "req: the key is logged at least once (REQ: AT_LEAST_ONE); every copy is checked."),
    ("AT_LEAST_ONE_OR", "req + or: at least one of the key and its alternatives (REQ: AT_LEAST_ONE_OR(epoch_start))."),
    ("AT_LEAST", "req + min_count: at least n copies (REQ: AT_LEAST(2), 3.1+: two merged Stable Diffusion "
     "evaluations)."),
    ("OPTIONAL", "req: the key may be absent; when logged, every copy is checked (REQ: OPTIONAL, 6.0+: the "
     "precision and parallelism disclosure keys)."),
    # values (the parts of a check; all parts must hold)
    ("equals", "the value is this literal: v['value'] == 0.9 (a string never equals a number; {\"float\": \"inf\"} "
     "spells infinity)."),
    ("not_equal", "v['value'] != '' (a non-empty name)."),
    ("one_of", "v['value'] in ['closed', 'open'], or v == 2e-5 or v == 3e-5."),
    ("range", "min / max, each inclusive unless min_exclusive / max_exclusive: v['value'] > 0, 0.0 <= v <= 1.0."),
    ("multiple_of", "is_integer(v['value'] / 0.001): within 1e-5 of a whole multiple."),
    ("divides", "is_integer(0.02 / v['value'])."),
    ("power_of_two_times", "is_integer(math.log2(v['value'] / 0.0001))."),
    ("integer", "isinstance(v['value'], int)."),
    ("whole_number", "is_integer(v['value']): a number within 1e-5 of an integer (6.0+ parallelism keys)."),
    ("length", "len(v['value']) == 2."),
    ("element", "one element of a list value satisfies a check."),
    ("any_of", "one of several checks holds (an 'or' of checks)."),
    ("all_of", "every one of several checks holds (an 'and' of checks: 6.1 dlrmv4's learning rate, "
     "s['lr_min'] * (1 - 1e-9) <= v['value'] <= s['lr_max'] * (1 + 1e-9), is two formulas)."),
    ("only_when", "the check applies only when another key's first value satisfies a condition "
     "(s['global_batch_size'] < 16 and ...)."),
    ("has_fields", "an object value holds these fields: 'FID' in v['value'] (the merged Stable Diffusion records)."),
    ("formula", "a value derived from other keys: left cmp right, each side an expression of numbers, the "
     "record's value or metadata ({\"this\": \"value\"}, {\"this\": \"metadata.samples_count\"}), states "
     "({\"state\": \"global_batch_size\"}) and the operators add, sub, mul, div, pow, mod, max, ceil, floor, "
     "sqrt, log2, abs, int, neg, computed with Python's arithmetic; cmp is ==, !=, <, <=, > or >=, and tolerance t makes it "
     "abs(left - right) < t. 5.0 Llama 3.1 405B: v * 1152 == s['global_batch_size'] * 8e-5 (exact); 6.0 "
     "DeepSeek-V3: abs(v - 2.4e-05 * (s['global_batch_size'] / 16384) ** 0.5) < 1e-9. A formula that reads a "
     "state its key has not set yet fails the record (MLC112: log the key it derives from first)."),
    ("states", "benchmark states: a value the checker keeps (POST: s['name'] = expression) each time set_by is "
     "logged; formulas of later records read it. 5.1 Llama 3.1 405B: warmup steps become "
     "ceil(8000 * 1152 / global_batch_size) when they are logged, and the decay steps must be "
     "ceil(1200000 * 1152 / global_batch_size) - that. An open file may keep its own (open.states, 6.1 dlrmv4's "
     "learning-rate band); a state its BEGIN block sets to a number no POST changes is written as that number "
     "(dlrmv4's train_samples 2290835423)."),
    ("first_check", "a check of the first occurrence only (FIRST_CHECK, 6.1 DeepSeek-V3: the first evaluation at "
     "global_batch_size * floor(42 + 24576 / global_batch_size) samples)."),
    ("cadence", "an evaluation grid: each record's field must be the next point of start, start + step, ...; a "
     "record on the point advances it, one off it is a failure and leaves it (6.1 Qwen3.5 GRPO: "
     "samples_count == s['next_validation_samples'], advanced by the POST)."),
    # metadata and order
    ("metadata", "every occurrence carries these metadata fields: 'epoch_num' in v['metadata']."),
    ("metadata_one_of", "at least one of these fields: ('epoch_num' in m) | ('samples_count' in m) (3.1 step_num, "
     "4.0+ samples_count)."),
    ("metadata_requires", "when one field is present others are required: 'first_epoch_num' in m if "
     "'epoch_count' in m else True."),
    ("metadata_check", "a check of a metadata field when present: m['epoch_count'] > 0 if 'epoch_count' in m else True."),
    ("after", "every occurrence comes after the first occurrence of these keys: s['run_started'] in block_start, "
     "or a POST that reads another key's state."),
    ("overrides", "a benchmark file's own entry for a common key (eval_accuracy with the metadata it must carry, "
     "the merged aggregated_eval_accuracy records): it replaces the common entry, reported as MLC1xx."),
    ("open", "what open_<benchmark>.yaml requires of an open-division run (keys, overrides), or why the round's "
     "checker cannot pass any (unavailable: the benchmark is not listed, or the file is missing)."),
    # targets (ruleset.json)
    ("target", "ruleset.json: the conditions one eval must meet (ATLEAST_ONE_CHECK), on a field of the value for "
     "records of several metrics (BBOX / SEGM, FID / CLIP); bound conditions are sanity bounds, not the target."),
    ("aggregate", "ruleset.json target: the records the target is judged on are merged from the metric's records "
     "that name their metric (metadata.metric), one per position (by: step_num in 3.1, samples_count from 4.0), "
     "into the virtual key aggregated_eval_accuracy, as the Stable Diffusion BEGIN code builds them."),
    ("open_target", "ruleset.json: the open file's ATLEAST_ONE_CHECK where it is not 'an eval below 1.0' (GPT-3, "
     "Llama 3.1 405B, DeepSeek-V3 keep the closed target; 5.1+ FLUX.1 judges averaged_validation_loss; Mask R-CNN "
     "compares BBOX, then SEGM, below 1.0, in its order: a null SEGM raises only where BBOX is below)."),
    ("eval_position", "ruleset.json: the metadata field that says where an eval was taken (epoch_num, "
     "samples_count, step_num)."),
    ("checkpoint_eval", "ruleset.json: the reference evaluates timestamped checkpoints after the clock stops "
     "(Stable Diffusion): passing evals may follow run_stop."),
    # the rules text beyond the checker of record (warnings unless said)
    ("rules_text", "constraints.json: a value the rules text fixes and the checker of record does not check "
     "(MLC204): key, check (any form above, formulas reading the run's first values of other keys in any "
     "order), severity, section; optimizer / applies_when narrow it. 2.1 ResNet momentum 0.9; 6.0 Llama 3.1 8B "
     "opt_end_learning_rate = opt_base_learning_rate * 0.1."),
    ("eval_cadence", "ruleset.json: how often the rules text makes a closed run evaluate (MLC307, not checked by "
     "the official checker): every N epochs (ResNet 4, RNN-T 1), formula bert (FLOOR(0.05*(230.23*GBS+3000000), "
     "25000) samples), or formula ceil_to_batch (6.0+)."),
    ("ceil_to_batch", "eval_cadence formula of the 6.0 text: every `interval` samples, CEIL(interval / GBS) * GBS "
     "when the batch does not divide it, the first FLOOR(skip.scale * GBS + skip.offset) evals skipped; eval n is "
     "due at (skipped + n) x that, within a batch either way (a log may count the samples before the step). "
     "spacing_only checks the distance between evals only (DeepSeek-V3: every step)."),
)


def form(name: str) -> str | None:
    """The documentation of one form (case-insensitive), or None."""
    wanted = name.strip().lower()
    return next((f"{n}: {text}" for n, text in FORMS if n.lower() == wanted), None)


def all_forms() -> str:
    """Every form, one paragraph each."""
    return "\n".join(f"{name}: {text}" for name, text in FORMS)
