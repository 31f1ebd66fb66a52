#!/usr/bin/env python3
"""Writes mlcheck's copies of the RCP files of each round's checker of record that the installed
mlperf-logging no longer holds as they were (records added, removed or changed after the round).

    python tools/ship_record_rcps.py --reference ../shared/reference/record-rules [--check]

For every ``training-X.Y/rcp/rcps_<benchmark>.json`` of the record rule files whose records differ
from the installed ``rcp_checker/training_X.Y.0/`` file, ``schemas/rulesets/X.Y.0/rcps_<benchmark>.json``
is written: a ``source`` that names the record revision and what changed, and the records without
the fields no computation reads (``Creator``, ``Platform``). mlcheck's RCP test reads such a copy
before the installed file (:func:`mlcheck.score.rcp.reference.load_references`). Copies already
written are left as they are. ``--check`` writes nothing and exits 1 when a copy is missing or
holds other records than the record file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import mlperf_logging

ROOT = Path(__file__).resolve().parent.parent
RECORD_REVISIONS = {"1.0": "tag 1.0.0", "1.1": "tag 1.1.0-rc4", "2.0": "tag 2.0.0-rc4", "2.1": "tag 2.1.0",
                    "3.0": "tag 3.0.0-rc2", "3.1": "master cacda4a (the 3.1 checker of record)",
                    "4.0": "tag 4.0.0-rc3-rcp-prunning", "4.1": "tag 4.1.0-rc4", "5.0": "tag 5.0.0-rc3",
                    "5.1": "tag 5.1.0-rc4"}
"""The mlperf-logging revision whose checker each round's results were accepted under
(``../shared/oracle/README.md``)."""
UNREAD_FIELDS = ("Creator", "Platform")
"""Fields no computation reads that may name a submitter or a system."""


def kept_fields(records: dict[str, dict[str, object]]) -> dict[str, dict[str, object]]:
    return {name: {k: v for k, v in record.items() if k not in UNREAD_FIELDS} for name, record in records.items()}


def holds_the_record(copied: dict[str, dict[str, object]], record: dict[str, dict[str, object]]) -> bool:
    """The same records, each field a computation reads equal to the record's (a copy may keep fewer
    fields; ``Hyperparams`` is documentation)."""
    return copied.keys() == record.keys() and all(
        all(record[name].get(k) == v for k, v in fields.items() if k != "Hyperparams")
        for name, fields in copied.items())


def _sizes(names: list[str], records: dict[str, dict[str, object]]) -> str:
    sizes = sorted({int(str(records[n]["BS"])) for n in names})
    return ", ".join(str(s) for s in sizes)


def what_changed(record: dict[str, dict[str, object]], installed: dict[str, dict[str, object]]) -> str:
    kept, now = kept_fields(record), kept_fields(installed)
    parts = []
    added = [n for n in now if n not in kept]
    removed = [n for n in kept if n not in now]
    changed = [n for n in kept if n in now and kept[n] != now[n]]
    if added:
        parts.append(f"adds BS {_sizes(added, installed)}")
    if removed:
        parts.append(f"drops BS {_sizes(removed, record)}")
    if changed:
        parts.append(f"changes the values of BS {_sizes(changed, record)}")
    return " and ".join(parts) or "changes fields no computation reads"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reference", type=Path, required=True, help="the record rule files (record-rules/)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a copy is missing")
    args = parser.parse_args()
    installed_root = Path(mlperf_logging.__file__).parent / "rcp_checker"
    missing = 0
    for folder in sorted(args.reference.glob("training-*/rcp")):
        short = folder.parent.name.removeprefix("training-")
        ruleset = f"{short}.0"
        for path in sorted(folder.glob("rcps_*.json")):
            record = json.loads(path.read_text("utf-8"))
            installed_path = installed_root / f"training_{ruleset}" / path.name
            installed = json.loads(installed_path.read_text("utf-8")) if installed_path.is_file() else {}
            if kept_fields(record) == kept_fields(installed):
                continue
            copy = ROOT / "schemas" / "rulesets" / ruleset / path.name
            if copy.is_file():
                if not holds_the_record(json.loads(copy.read_text("utf-8"))["records"], record):
                    print(f"{copy.relative_to(ROOT)}: holds other records than the record file", file=sys.stderr)
                    missing += 1
                continue
            if args.check:
                print(f"{copy.relative_to(ROOT)}: missing", file=sys.stderr)
                missing += 1
                continue
            benchmark = path.stem.removeprefix("rcps_")
            source = (f"mlcommons/logging {RECORD_REVISIONS.get(short, 'of the round')}, the {benchmark} RCPs of the "
                      f"{short} record checker (rcp_checker, {path.name}). The installed mlperf-logging copy was "
                      f"edited after the round: it {what_changed(record, installed)}, which moves the interpolation "
                      f"and pruning of the round's submissions; this copy reproduces the record checker's references.")
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(json.dumps({"source": source, "records": kept_fields(record)}, indent=2) + "\n", "utf-8")
            print(f"wrote {copy.relative_to(ROOT)}: {source}")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
