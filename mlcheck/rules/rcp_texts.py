"""How an RCP result is told: its verdict with margin and reference, and what today's
mlperf-logging would do otherwise (MLC534, the text, Markdown and HTML reports' RCP lines)."""

from __future__ import annotations

from mlcheck.results import BenchmarkResult, RcpResult, Score


def raising_note(bench: BenchmarkResult) -> str:
    """``; computed by mlcheck: the round's RCP checker raises on this folder (MLC535)`` where the
    folder's score says so (a line it decodes and cannot, MLC535; runs it cannot compare, MLC532),
    else ``""``: the verdict shown is then no verdict of the official tools."""
    reason = bench.score.reason if bench.rcp is not None and "the RCP checker raises" in bench.score.reason else ""
    codes = [code for code in ("MLC532", "MLC535") if f"({code})" in reason]
    return f"; computed by mlcheck: the round's RCP checker raises on this folder ({', '.join(codes)})" if codes else ""


def verdict_text(result: RcpResult) -> str:
    """``fail (margin -0.07 %, bert_ref_3072)``: a verdict with its margin and reference."""
    details = [f"margin {result.margin_pct:+.2f} %"] if result.margin_pct is not None else []
    if result.reference:
        details.append(result.reference)
    elif result.verdict == "fail" and result.reason and result.submission_mean is None:
        details.append(result.reason)  # (no test made: why, e.g. today's checker raises)
    return result.verdict + (f" ({', '.join(details)})" if details else "")


def today_differs(result: RcpResult) -> bool:
    """Whether today's mlperf-logging gives another verdict than the checker of record."""
    return result.today is not None and result.today.verdict != result.verdict


def today_scaled_text(result: RcpResult, score: Score) -> str | None:
    """``today's mlperf-logging would normalise by 1.0217 (gpt3_ref_2048): 452.20 min`` when its
    RCP normalisation factor differs from the record's that scaled the score (same verdict), or
    scales a score of a round before 2.1, which normalised none (its package checker writes
    ``scaling.json`` into the folder, its summarizer multiplies it in)."""
    today, record = result.today, result.normalization_factor
    now = today if today is not None and today.normalization_factor is not None else result
    if score.scaling_factor is None and score.score_min is not None and (now.normalization_factor or 0.0) > 1.0:
        factor = now.normalization_factor or 1.0  # (a round before 2.1's normalisation: the score is not scaled)
        return (f"today's mlperf-logging would write scaling.json ({factor:.4f}{f', {now.reference}' if now.reference else ''})"
                f" and publish {score.score_min * factor:.2f} min; this round scored without RCP normalisation")
    if today is None or today.normalization_factor is None or record is None or score.score_min is None \
            or score.scaling_factor is None or abs(score.scaling_factor - record) > 1e-9 \
            or abs(today.normalization_factor - record) < 1e-9:  # (scaled by the record's factor alone)
        return None
    other = score.score_min / record * today.normalization_factor
    return (f"today's mlperf-logging would normalise by {today.normalization_factor:.4f}"
            f"{f' ({today.reference})' if today.reference else ''}: {other:.2f} min")


def supplied_later(result: RcpResult) -> str | None:
    """The RCP of today's mlperf-logging that covers a batch size the record revision had none
    for, with which today's test passes (supplied during the round's review: 4.1's Stable
    Diffusion BS 256, published); None otherwise."""
    today = result.today
    if result.verdict != "missing" or today is None or today.verdict != "pass":
        return None
    return today.reference if result.batch_size in today.reference_batch_sizes else None


def order_texts(result: RcpResult) -> list[str]:
    """MLC536's messages: why the checker's verdict depends on the order its file system lists the
    files in (different batch sizes in 1.0-2.0, NaN convergence points)."""
    texts = [f"{result.order_note}, {result.verdict}: the verdict may differ elsewhere. Log one batch size in "
             "every run"] if result.order_note else []
    if result.unordered:
        texts.append(f"the convergence point of {', '.join(result.unordered)} is NaN: the RCP checker sorts the runs' "
                     "points in the order its file system lists the files, and a NaN compares false with every number, "
                     "so its verdict depends on that order (it may pass here and fail elsewhere); mlcheck's verdict, "
                     f"{result.verdict}, is for the files in name order. Log the position trained as a number")
    return texts
