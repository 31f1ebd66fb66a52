"""mlcheck ``--jobs 1`` against the stdlib-json floor in instructions, per round: a measure the
machine's load does not move.

On a shared machine the wall times of ``whole_round.py`` move by a fifth to a half from one run
to the next (other processes on the same cores, their caches), most of all on the rounds of the
shared sample, which take half a second. The instructions a process executes do not move: each
set is measured once, with ``valgrind --tool=callgrind`` (``PYTHONHASHSEED=0``, bytecode
cached), for the whole process (start, imports, reading, judging, the JSON report) and for the
floor (``whole_round.FLOOR``: every ``:::MLLOG`` record of the same result files and power logs
decoded with ``json.loads``). Instructions are not time: a process with more code (mlcheck's)
runs fewer of them per cycle than a tight loop (the floor's), so the wall ratio of a quiet
machine sits above this one (see ``benchmarks/README.md``).

    python benchmarks/round_instructions.py --shared ../shared        # each shared round (~8 min)
    python benchmarks/round_instructions.py ROUND_FOLDER ...          # folders of packages of your own
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from whole_round import ENV, FLOOR, ROOT, mlcheck_argv, packages_in, power_logs  # noqa: E402

from mlcheck.package.discover import discover  # noqa: E402

_COLLECTED = re.compile(rb"Collected : (\d+)")


def instructions(argv: list[str], env: dict[str, str]) -> int:
    """The instructions ``argv`` executes (its forked children aside), by callgrind."""
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    found = _COLLECTED.search(done.stderr)
    if found is None:
        raise SystemExit(f"callgrind gave no count for {argv[:4]}: {done.stderr[-300:]!r}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="*", type=Path, help="folders of packages (default: each round "
                        "of ../shared/other-submitters)")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing measured", file=sys.stderr)
        return 2
    folders = args.folders or sorted(p for p in (args.shared / "other-submitters").glob("training-*") if p.is_dir())
    print(f"python {sys.version.split()[0]}; instructions (millions) of whole processes, callgrind")
    print("| set | files | records | mlcheck -j1 | json floor | -j1 / floor |\n|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as temp_name:
        temp = Path(temp_name)
        env = dict(ENV, PYTHONHASHSEED="0", PYTHONPYCACHEPREFIX=str(temp / "pycache"),
                   PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), ENV.get("PYTHONPATH")])))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(mlcheck_argv([str(ROOT / "fixtures" / "example" / "Acme")], 1), env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # (writes the bytecode)
        for folder in folders:
            packages = packages_in([folder])
            refs, _empty = discover(packages)
            files = [ref.path for ref in refs]
            listing = temp / "files.json"
            listing.write_text(json.dumps(files + power_logs(files)), "utf-8")
            records = subprocess.run([sys.executable, "-c", FLOOR, str(listing)], env=env, capture_output=True,
                                     text=True).stdout.strip()
            mine = instructions(mlcheck_argv(packages, 1), env)
            floor = instructions([sys.executable, "-c", FLOOR, str(listing)], env)
            print(f"| {folder.name} | {len(files)} | {int(records or 0):,} | {mine / 1e6:,.0f} | {floor / 1e6:,.0f} "
                  f"| **{mine / floor:.2f}** |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
