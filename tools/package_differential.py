#!/usr/bin/env python3
"""Broken copies of accepted packages, judged by mlcheck and by the installed package checker.

    python tools/package_differential.py [--rounds 4.1,5.0,5.1] [--folders 2] [--seed 1] [--show 30]
    python tools/package_differential.py --folder .../training-6.0/<org>/results/<system>/<benchmark> [...]

For ``--folders`` closed benchmark folders of each round (picked at random among those the round's
checker accepted, ``../shared/oracle``), a package is made of that one folder and its system
description (copied into a temporary folder: the official package checker writes scaling.json),
then changed one way at a time: a result file deleted, one more, two runs with the same seed,
one or two result files cut, a field of the system description deleted or of the wrong type,
the description deleted, its status or submitter wrong, a seed deleted, an unknown file added,
a node power log or a run's power folder deleted (``--power``: only folders with power logs),
the benchmark folder misnamed. mlcheck's verdict
on the package (an error the round's checker shares of the package, a folder, a system
description, or a package rule about a run such as a duplicate seed: the package checker fails
the package) is compared with the installed
``mlperf_logging.package_checker``'s last word ("FOUND NO ERRORS"). The installed release is not
the checker of record of old rounds (seeds became mandatory, the RCP statistics changed): a folder
whose unchanged package it does not pass is left out, and a disagreement is a lead, not a verdict;
the two documented ones (:func:`documented`) are printed as KNOWN.
``--folder`` names benchmark folders of packages that are not in ``../shared`` (published results
of another round, say), in a ``training-X.Y`` folder that gives the round; they are copied and
changed in the same way.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterator

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from mlcheck import check  # noqa: E402
from mlcheck.facts.rulesets import ruleset_from_path  # noqa: E402
from mlcheck.model import Severity  # noqa: E402

Change = tuple[str, Callable[[Path, Path], None]]
_SEED = re.compile(r'("key": "seed", "value": )(-?\d+)')


def official_passes(org: Path, ruleset: str) -> bool:
    done = subprocess.run([sys.executable, "-m", "mlperf_logging.package_checker", str(org), "training", ruleset,
                           "--log_output", str(org.parent / "package_checker.log")],
                          capture_output=True, text=True, cwd=org.parent, timeout=600)
    return "FOUND NO ERRORS" in done.stdout + done.stderr


def mlcheck_passes(org: Path) -> tuple[bool, list[str]]:
    result = check([str(org)])
    runs = {r.path for r in result.runs}
    failing = sorted({f.code for f in result.all_findings()  # (a run's own errors: dropped, 1 is tolerated)
                      if f.official and f.severity is Severity.ERROR and (f.path not in runs or f.code[3] == "5")})
    return not failing, failing


def _results(folder: Path) -> list[Path]:
    return sorted(folder.glob("result_*.txt"))


def _cut(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


def _same_seed(folder: Path) -> None:
    first, second = _results(folder)[:2]
    seed = _SEED.search(first.read_text("utf-8", "replace"))
    if seed is not None:
        text = second.read_text("utf-8", "replace")
        second.write_text(_SEED.sub(lambda m: m.group(1) + seed.group(2), text, count=1), "utf-8")


def _drop_seed(path: Path) -> None:
    lines = path.read_text("utf-8", "replace").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if '"key": "seed"' not in line), "utf-8")


def _system_edit(system: Path, field: str, value: object) -> None:
    data = json.loads(system.read_text("utf-8"))
    if value is None:
        data.pop(field, None)
    else:
        data[field] = value
    system.write_text(json.dumps(data, indent=2), "utf-8")


def changes() -> Iterator[Change]:
    yield "unchanged", lambda folder, system: None
    yield "a result file deleted", lambda folder, system: _results(folder)[-1].unlink()
    yield "one result file more", lambda folder, system: shutil.copy(
        _results(folder)[0], folder / f"result_{len(_results(folder))}.txt")
    yield "two runs with one seed", lambda folder, system: _same_seed(folder)
    yield "one result file cut", lambda folder, system: _cut(_results(folder)[0])
    yield "two result files cut", lambda folder, system: [_cut(p) for p in _results(folder)[:2]] and None
    for field in ("number_of_nodes", "accelerator_model_name", "framework", "status", "division"):
        yield f"system {field} deleted", lambda folder, system, f=field: _system_edit(system, f, None)
    yield "system number_of_nodes a word", lambda folder, system: _system_edit(system, "number_of_nodes", "two")
    yield "system division unknown", lambda folder, system: _system_edit(system, "division", "closd")
    yield "system description deleted", lambda folder, system: system.unlink()
    yield "a run's seed deleted", lambda folder, system: _drop_seed(_results(folder)[0])
    yield "system status unknown", lambda folder, system: _system_edit(system, "status", "soon")
    yield "system submitter empty", lambda folder, system: _system_edit(system, "submitter", "")
    yield "an unknown file", lambda folder, system: (folder / "notes.txt").write_text("x\n", "utf-8")
    yield "a node power log deleted", lambda folder, system: [p.unlink() for p in sorted(
        folder.glob("power/result_0/node_*.txt"))[-1:]] and None
    yield "a run's power folder deleted", lambda folder, system: [shutil.rmtree(p) for p in sorted(
        folder.glob("power/result_1"))] and None
    yield "folder misnamed", lambda folder, system: folder.rename(folder.with_name(folder.name + "x"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", default=str(HERE.parent / "shared"))
    parser.add_argument("--rounds", default="4.1,5.0,5.1")
    parser.add_argument("--folders", type=int, default=2, help="closed benchmark folders per round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--power", action="store_true", help="only folders with power logs")
    parser.add_argument("--show", type=int, default=30)
    parser.add_argument("--folder", type=Path, action="append", default=[],
                        help="a benchmark folder to use instead of the shared sample (repeatable)")
    args = parser.parse_args()
    tried, diffs, skipped = 0, [], 0
    by_change: collections.Counter[str] = collections.Counter()
    for source, rel, ruleset in _folders(args):
        org_name, _results_dir, system_name, bench = Path(rel).parts[1:5]
        for label, change in changes():
            with tempfile.TemporaryDirectory() as temp:
                org = Path(temp) / Path(rel).parts[0] / org_name  # (training-X.Y: the round, as published)
                folder = org / "results" / system_name / bench
                shutil.copytree(source, folder, ignore=shutil.ignore_patterns("scaling.json"))
                system = org / "systems" / f"{system_name}.json"
                system.parent.mkdir(parents=True)
                shutil.copy(source.parents[2] / "systems" / f"{system_name}.json", system)
                for path in [org, *org.rglob("*")]:
                    path.chmod(0o755 if path.is_dir() else 0o644)
                change(folder, system)
                ours, codes = mlcheck_passes(org)
                theirs = official_passes(org, ruleset)
            tried += 1
            if label == "unchanged" and not theirs:
                skipped += 1
                break  # (the installed checker refuses the folder as it is: not comparable)
            if ours != theirs:
                diffs.append((rel, label, ours, theirs, codes, documented(label, ruleset, ours, codes)))
                by_change[label] += 1
    known = [diff for diff in diffs if diff[5]]
    print(f"{tried} packages, {skipped} folders left out, {len(diffs)} disagreements {dict(by_change)}, "
          f"{len(known)} of them documented, {len(diffs) - len(known)} not")
    for rel, label, ours, theirs, codes, why in diffs[: args.show]:
        print("  KNOWN" if why else "  DIFF", rel, "|", label, "| mlcheck", "pass" if ours else "fail", "| official",
              "pass" if theirs else "fail", codes, f"({why})" if why else "")
    return 0


def documented(label: str, ruleset: str, ours: bool, codes: list[str]) -> str | None:
    """Why a disagreement with the installed package checker is by design (README, the rule's
    documentation), or None: the result summarizer stops on a count ``int()`` refuses, which the
    package checker lets through (MLC512: the official tools publish no result); before 4.1 the
    round's seed checker passes a folder whose first result file logs no seed, where the installed
    release makes seeds mandatory in every round."""
    if label == "system number_of_nodes a word" and not ours and "MLC512" in codes:
        return "the result summarizer stops on it: MLC512"
    if label == "a run's seed deleted" and ours and tuple(map(int, ruleset.split(".")[:2])) < (4, 1):
        return "seeds mandatory from 4.1; the round's seed checker passes a first file without one"
    return None


def _folders(args: argparse.Namespace) -> Iterator[tuple[Path, str, str]]:
    """(folder, its path from the round's folder, ruleset) of each benchmark folder to change."""
    for folder in args.folder:
        parts = folder.resolve().parts
        named = ruleset_from_path(str(folder.resolve().parents[3]))  # (the training-X.Y folder's round)
        if len(parts) < 5 or named is None:
            raise SystemExit(f"{folder}: not training-X.Y/<org>/results/<system>/<benchmark>")
        yield folder.resolve(), "/".join(parts[-5:]), named.version
    if args.folder:
        return
    shared = Path(args.shared)
    rows = [json.loads(line) for line in (shared / "oracle" / "other-submitters.jsonl").open()]
    rng = random.Random(args.seed)
    for round_name in args.rounds.split(","):
        folders = sorted({os.path.dirname(r["path"]) for r in rows if r["path"].startswith(f"training-{round_name}/")
                          and r["division"] == "closed" and r["record_verdict"] == "pass"})
        if args.power:
            folders = [f for f in folders if (shared / "other-submitters" / f / "power").is_dir()]
        for rel in rng.sample(folders, min(args.folders, len(folders))):
            ruleset = next(r["ruleset"] for r in rows if r["path"].startswith(rel + "/"))
            yield shared / "other-submitters" / rel, rel, ruleset


if __name__ == "__main__":
    sys.exit(main())
