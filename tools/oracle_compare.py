"""Compare mlcheck with the checker of record on ../shared/other-submitters (the oracle).

    python tools/oracle_compare.py [--rounds 1.0,1.1] [--forced] [--show N]

Prints, per round: files, files read as exactly one run, official_verdict == record_verdict,
accepted files mlcheck's own verdict fails (with the failing codes); folder scores against the
olympic mean (median of 3) of the accepted runs times the factor the round's record RCP checker
gives (tools/record_rcp.py: the installed rcp_checker on the round's record RCP data), and the
RCP verdicts of the closed folders against it.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from mlcheck import check  # noqa: E402
from record_rcp import published_factor  # noqa: E402 (tools/, beside this script)
from mlcheck.model import Severity  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", default=str(HERE.parent / "shared"))
    parser.add_argument("--rounds", default="1.0,1.1,2.0,2.1")
    parser.add_argument("--forced", action="store_true", help="pass the oracle's ruleset")
    parser.add_argument("--show", type=int, default=15)
    args = parser.parse_args()
    shared = Path(args.shared)
    rows = [json.loads(line) for line in (shared / "oracle" / "other-submitters.jsonl").open()]
    rounds = [f"training-{r}" for r in args.rounds.split(",")]
    base = shared / "other-submitters"
    for round_name in rounds:
        mine = [r for r in rows if r["path"].startswith(round_name + "/")]
        orgs = sorted({r["path"].split("/")[1] for r in mine})
        by_path: dict[str, list] = collections.defaultdict(list)
        start = time.perf_counter()
        benches = {}
        for org in orgs:
            ruleset = mine[0]["ruleset"] if args.forced else None
            result = check([str(base / round_name / org)], ruleset=ruleset)
            for run in result.runs:
                rel = os.path.relpath(run.path, base)
                by_path[rel].append(run)
            for bench in result.benchmarks:
                if bench.folder:
                    benches[os.path.relpath(bench.folder, base)] = bench
        took = time.perf_counter() - start
        one = sum(1 for r in mine if len(by_path.get(r["path"], [])) == 1)
        agree, disagree, own = 0, [], []
        for row in mine:
            runs = by_path.get(row["path"], [])
            if len(runs) != 1:
                disagree.append((row["path"], f"{len(runs)} runs", row["record_verdict"], []))
                continue
            run = runs[0]
            if run.official_verdict == row["record_verdict"]:
                agree += 1
            else:
                codes = sorted({f.code for f in run.findings if f.official and f.severity is Severity.ERROR})
                disagree.append((row["path"], run.official_verdict, row["record_verdict"], codes or row["record_failures"][:2]))
            if row["record_verdict"] == "pass" and run.verdict == "fail":
                own.append((row["path"], sorted({f.code for f in run.findings if f.severity is Severity.ERROR})))
        print(f"{round_name}: {len(mine)} files, one run {one}, agree {agree} "
              f"({100 * agree / max(1, len(mine)):.1f} %), accepted but mlcheck fails {len(own)}  [{took:.1f}s]")
        for item in disagree[: args.show]:
            print("   DIFF", *item)
        folders: dict[str, list] = collections.defaultdict(list)
        for row in mine:
            folders[os.path.dirname(row["path"])].append(row)
        score_ok, score_diff, rcp_ok, rcp_diff = 0, [], 0, []
        for folder, members in sorted(folders.items()):
            bench = benches.get(folder)
            if bench is None:
                score_diff.append((folder, "no benchmark result"))
                continue
            first = members[0]
            # The factor and the RCP verdict of the round's record checker (record_rcp.py), not
            # mlcheck's: an independent measure of the normalisation.
            factor, record = published_factor(base / folder, first["ruleset"], first["benchmark"],
                                              first["division"], shared / "reference" / "record-rules")
            times = [r["time_to_train_min"] if r["record_verdict"] == "pass" else None for r in members]
            # (a folder inside a benchmark folder is no result: the official tools skip it)
            want = expected_score(times, first["benchmark"], factor) if bench.published else None
            got = bench.score.score_min if bench.score.valid else None
            if (want is None and got is None) or (want is not None and got is not None and abs(want - got) <= 0.005):
                score_ok += 1
            else:
                score_diff.append((folder, f"want {want}, got {got} ({bench.score.reason})"))
            if record is not None:
                mine_rcp = bench.rcp.verdict if bench.rcp else None
                if (mine_rcp == "pass") == record[0]:
                    rcp_ok += 1
                else:
                    rcp_diff.append((folder, f"record {record[:2]}, mlcheck {mine_rcp}"))
        print(f"   scores: {score_ok} of {len(folders)} folders agree; RCP verdicts: {rcp_ok} of "
              f"{rcp_ok + len(rcp_diff)} closed folders agree with the record checker")
        for item in score_diff[: args.show]:
            print("   SCORE", *item)
        for item in rcp_diff[: args.show]:
            print("   RCP", *item)
        codes = collections.Counter(c for _, cs in own for c in cs)
        print("   own-fail codes:", dict(codes.most_common()))
        for item in own[: args.show]:
            print("   OWN", *item)
    return 0


def expected_score(times: list[float | None], benchmark: str, factor: float | None) -> float | None:
    """The olympic mean (median of 3) of the accepted runs' minutes, as the oracle README defines
    it: a run the checker failed counts as the slowest; None when too many failed."""
    k = 4 if benchmark == "unet3d" else 1
    failed = sum(1 for t in times if t is None)
    if failed > k or len(times) <= 2 * k:
        return None
    ranked = sorted(t if t is not None else float("inf") for t in times)
    kept = ranked[k:len(ranked) - k]
    if any(t == float("inf") for t in kept):
        return None
    mean = sum(kept) / len(kept)
    return mean * factor if factor and factor > 1.0 else mean


if __name__ == "__main__":
    raise SystemExit(main())
