"""Reference convergence points (family MLC5xx): a closed-division benchmark folder must not
converge faster than the round's RCPs allow.

Rules text: training_rules.adoc §Reference Convergence Points (v1.0+), §Score scaling (v2.0) and
the RCP normalisation of v2.1 (training_policies#503). Computed as each round's record checker did
(``mlcheck/score/rcp``, the round's policy in ``schemas/rulesets/<X.Y.Z>/rcp.json``): olympic
means, population stdev of the trimmed list (up to 4.0) or of the full list (4.1+), one-sided
Student t-test at alpha 0.05 with the round's run counts (3 for GPT-3, Llama 3.1 405B, DeepSeek-V3
and Qwen3.5), interpolation between batch sizes, pruning from 2.0 (by min epochs up to 3.1, by
mean from 4.0), convergence in epochs, samples (BERT, LoRA, the LLMs, flux1, Stable Diffusion
from 4.0) or steps (Stable Diffusion 3.1: the first step with FID <= 90 and CLIP >= 0.15), the
405B leniency of one evaluation (5.0+). Open division and MiniGo are skipped. The JSON report's
``benchmarks[].rcp`` carries the numbers.

- MLC530 rcp-failed: the submission's mean convergence (epochs; BERT: samples) is below the
  minimum acceptable mean of the RCP at its batch size (or of the interpolated RCP). The round's
  checker prints "RCP Test Failed: RCP found". Fix: converge slower (hyper-parameters closer to the
  reference), or ask the review committee: a ``package_checker_params`` file with the line
  ``rcp-bypass`` in the benchmark or system folder turns MLC530/MLC531 into warnings where the
  round's package checker honours it (else MLC546 says why, and they stay errors).
- MLC531 rcp-missing: no RCP covers the batch size (above all RCPs, or below all and faster than
  the smallest). Fix: submit an RCP with that batch size, as the rules require. An error; a
  warning when the folder's ``package_checker_params`` asks for ``rcp-bypass``, or when today's
  mlperf-logging has an RCP at that batch size that the record revision lacks, which passes it
  (supplied during the round's review: 4.1's Stable Diffusion BS 256, published).
- MLC532 rcp-undetermined: the test fails before a submission mean is compared with an RCP (the
  checker's "RCP Test Failed"): too few runs for the olympic mean (a
  folder short of runs is MLC502 too), runs log different or no ``global_batch_size`` or
  ``submission_benchmark``, too many runs did not converge, or the round has no RCP records. The
  round's checker fails the folder, or raises (KeyError: None, where the runs' values differ),
  which stops the package checker. Fix: the round's number of runs, one global batch size and
  benchmark name logged in every run.
- MLC534 rcp-verdicts-differ: the round's checker of record and today's mlperf-logging give the
  folder different RCP verdicts (a note: the verdict of record is the one the round accepted and
  the one mlcheck judges by). Since 2024 the RCP checker takes the stdev of a record's whole list
  of values, not of the olympic-trimmed list (logging commit 52245a0), prunes the RCPs of every
  round by their mean (commit 39fc7a0; 2.0-4.0 pruned by the minimum acceptable mean, 1.0 and 1.1
  did not) and reads RCP files some of which were edited after their round (1.1 ResNet). At a
  boundary the two can disagree (a fail at -0.07 % that today's checker passes by interpolating
  between other RCPs). The message gives both verdicts, the JSON report's ``benchmarks[].rcp.today``
  the numbers. Nothing to fix: know which checker you run.
- MLC535 rcp-point-unreadable: an eval of a closed run the RCP test reads would make the round's
  RCP checker raise, and with it the package checker (which calls it without a ``try``): the
  package cannot be accepted as it is. The checker (``rcp_checker.py read_submission_file``) reads
  every ``eval_accuracy`` line's metadata with ``[...]``: a metadata that is not an object or
  lacks the round's convergence key (``epoch_num``; ``samples_count`` for the LLMs and flux1;
  Stable Diffusion's step and ``metric``) raises KeyError/TypeError; ``epoch_num`` is rounded
  (``round()`` of a string or null raises TypeError); the ``samples_count`` of the last eval before
  a successful ``run_stop`` is averaged (a string or null raises); Stable Diffusion's steps are
  tested for FID and CLIP (a step without FID, or a passing FID without CLIP: KeyError) and the
  smallest passing one taken (none: ValueError, a run that says success without reaching the
  target); an eval before the run's ``submission_benchmark`` is read as epochs (no benchmark known
  yet: ``epoch_num``); a ``run_stop`` without ``status`` raises KeyError, a cut record on a line naming
  a key it reads JSONDecodeError (``judge/rcp_lines``); a successful ``run_stop`` with no eval before it leaves the point unset
  (UnboundLocalError, at the ``run_stop``). The folder then has no valid score; mlcheck's own RCP
  test counts such a run as not converged. An error, not ``official`` on the run: the file's
  compliance check passes it where its rules only ask that the key be there (where they check the
  value, as 6.1 Qwen3.5's evaluation grid does, that is MLC111). Fix: log the key as a number in
  every eval's metadata. (Known limits: a BERT folder read by ``train_samples``, MLC547's request,
  is judged here by its evals all the same; the checker finds records by their text
  (``"global_batch_size" in line``), mlcheck by their decoded key: a key written with JSON escapes
  such as ``\\u0061`` is seen by mlcheck and the compliance checker, not by the RCP checker; an
  ``eval_error`` record, HPC's, is an eval to it, while mlcheck takes the point from ``eval_accuracy``.)
- MLC536 rcp-order-dependent: a run's convergence point is NaN (its last eval's position; or, in
  1.0-2.0, the runs log different batch sizes: that checker tests the last one it reads). The RCP
  checker sorts the points (``_eval_submission_record``) in the file system's order (``glob``); a
  NaN compares false with every number, so its verdict depends on that order (one machine may pass
  the folder, another fail it). mlcheck's is for name order; its MLC530 or MLC531 is then a warning.
  Fix: log the position trained as a number.
- MLC533 rcp-normalised: in 2.1 and later a passing submission that converges faster than the RCP
  mean has its score multiplied by RCP mean / submission mean. mlcheck applies the factor to the
  score and writes nothing (the official tool writes ``scaling.json`` into your folder).
"""

from __future__ import annotations

import re

from mlcheck.facts.installed import installed_version
from mlcheck.model import Finding, Severity
from mlcheck.package.package_policy import package_policy
from mlcheck.results import RcpResult
from mlcheck.rule import Rule
from mlcheck.rules.rcp_texts import order_texts, supplied_later, today_differs, verdict_text

RCP_FAILED = Rule("MLC530", "rcp-failed", Severity.ERROR,
                  "the submission converges faster than the RCP test allows", official=True, also=(Severity.WARNING,))
RCP_MISSING = Rule("MLC531", "rcp-missing", Severity.ERROR,
                   "no reference convergence point covers the batch size", official=True, also=(Severity.WARNING,))
RCP_UNDETERMINED = Rule("MLC532", "rcp-undetermined", Severity.ERROR,
                        "the RCP test fails before any RCP is compared", official=True)
RCP_NORMALISED = Rule("MLC533", "rcp-normalised", Severity.INFO,
                      "the score was normalised to the RCP mean (2.1+)")

RCP_VERDICTS_DIFFER = Rule("MLC534", "rcp-verdicts-differ", Severity.INFO,
                           "today's mlperf-logging gives another RCP verdict than the checker of record")

RCP_POINT_UNREADABLE = Rule("MLC535", "rcp-point-unreadable", Severity.ERROR,
                            "an eval's convergence metadata makes the round's RCP checker raise")

RCP_ORDER_DEPENDENT = Rule("MLC536", "rcp-order-dependent", Severity.WARNING,
                           "the RCP verdict depends on the order the file system lists the files in")

RULES = (RCP_FAILED, RCP_MISSING, RCP_UNDETERMINED, RCP_NORMALISED, RCP_VERDICTS_DIFFER, RCP_POINT_UNREADABLE,
         RCP_ORDER_DEPENDENT)


def _number(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:,.0f}" if abs(value) >= 1e4 else f"{value:.2f}"


def rcp_findings(folder: str, result: RcpResult, normalised: bool = False,
                 bypass: str | None = None, ruleset: str | None = None) -> list[Finding]:
    """The findings that tell a folder's RCP result (none for a plain pass or a skip).

    ``bypass`` names a ``package_checker_params`` asking for ``rcp-bypass``: a failed or missing
    RCP is then a warning (the committee reviews it); "cannot be computed" is never bypassed.
    """
    found = _record_findings(folder, result, normalised, bypass, ruleset)
    found.extend(RCP_ORDER_DEPENDENT.at(folder, None, text) for text in order_texts(result))
    if today_differs(result):
        assert result.today is not None
        found.append(RCP_VERDICTS_DIFFER.at(folder, None, (
            f"RCP test: {verdict_text(result)} for the checker of record; {verdict_text(result.today)} "
            f"for today's mlperf-logging {installed_version()}; " + (
                "the RCP was supplied in the round's review, after the record revision: with it the test passes (MLC531)"
                if supplied_later(result) else "the verdict of record counts"))))
    return found


def _record_findings(folder: str, result: RcpResult, normalised: bool, bypass: str | None,
                     ruleset: str | None) -> list[Finding]:
    severity = Severity.WARNING if bypass else None
    note = (f"; rcp-bypass requested in {bypass}: be ready to have it reviewed by the submission "
            "committee") if bypass else ""
    if result.verdict == "fail" and result.reference_mean is not None:  # (NaN points: the checker may pass, MLC536)
        return [RCP_FAILED.at(folder, None, (
            f"global batch size {result.batch_size}: submission mean {_number(result.submission_mean)} "
            f"{result.unit} is below the minimum acceptable mean {_number(result.min_acceptable_mean)} "
            f"(margin {result.margin_pct:+.2f} %; reference mean {_number(result.reference_mean)} "
            f"{_reference_of(result)}){_implausible(result, ruleset)}{note}"),
            severity=Severity.WARNING if result.order_dependent() else severity,
            official=False if result.order_dependent() else None)]
    if result.verdict == "missing":  # (an RCP at the batch size today: supplied in the round's review)
        added = supplied_later(result)
        return [RCP_MISSING.at(folder, None, result.reason + note + (f"; it was supplied after the record revision "
                f"({added} in today's mlperf-logging), and with it the test passes" if added else ""),
                severity=Severity.WARNING if added or result.order_dependent() else severity,
                official=False if added or result.order_dependent() else None)]
    if result.verdict == "fail":
        return [RCP_UNDETERMINED.at(folder, None, f"the RCP test fails: {result.reason}")]
    if normalised and result.normalization_factor is not None and result.normalization_factor > 1.0:
        return [RCP_NORMALISED.at(folder, None, (
            f"submission mean {_number(result.submission_mean)} {result.unit} is below the RCP mean "
            f"{_number(result.reference_mean)}: score multiplied by {result.normalization_factor:.4f}, "
            "the factor the round's package checker writes to scaling.json (mlcheck writes no file)"))]
    return []


def _implausible(result: RcpResult, ruleset: str | None) -> str:
    """A hint when the submission mean is under 1 % of the reference's: not a slow convergence but
    evals that do not log the position trained (e.g. an ``epoch_num`` of 1 on every eval); for
    BERT, the round's option that reads ``train_samples`` instead, where its scripts have one."""
    if result.submission_mean is None or not result.reference_mean or not result.submission_mean * 100 < result.reference_mean:
        return ""
    said = (f"; a mean under 1 % of the reference's means the evals do not log the {result.unit} trained: "
            "the RCP test reads each run's convergence point from its last eval's metadata")
    if "rcps_bert" not in (result.source or ""):
        return said
    option = next((o for o in package_policy(ruleset).top_level_options if "bert" in o), None)
    if option is None:  # (1.0, 1.1: the verify script reads no package_checker_params, MLC546)
        return (f"{said} (epoch_num: training {ruleset or '?'}'s package checker has no option to read the samples "
                "from train_samples instead; log the samples trained in each eval's epoch_num)")
    return (f"{said} (where the runs log the samples trained in train_samples, the top-level "
            f"<org>/package_checker_params line {option} makes the package checker read those)")


def _reference_of(result: RcpResult) -> str:
    """``from bert_ref_3072 [BS 3072]``, or ``interpolated between BS 256 and BS 3072`` (the
    interpolated reference's name already says its batch sizes)."""
    name = result.reference or "?"
    if name.startswith("interpolated"):
        return name
    refs = " and ".join(f"BS {b}" for b in result.reference_batch_sizes)
    return f"from {name} [{refs}]" if refs else f"from {name}"


def _short(source: str | None) -> str:
    """The first clause of a data source, commit hashes cut to 8 digits (the JSON report keeps
    the whole source)."""
    head = re.split(r": |\. ", source or "", maxsplit=1)[0]
    return re.sub(r"\b([0-9a-f]{8})[0-9a-f]{32}\b", r"\1", head)
