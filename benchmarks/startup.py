"""What starting mlcheck costs: whole processes of the commands, interleaved, min and median of
wall and CPU seconds (user + system, workers included), and with ``--imports`` where the import
time goes (``python -X importtime``: each module's own time, the least of the runs).

    python benchmarks/startup.py                        # one shared round (or the example package)
    python benchmarks/startup.py --repeat 30 --imports  # steadier figures, and the top modules
    python benchmarks/startup.py --python A/bin/python --python B/bin/python   # two installs, interleaved

Bytecode is cached for the measured processes (``PYTHONDONTWRITEBYTECODE`` is dropped: a warm-up
run writes it), as for an installed mlcheck. An editable install (``pip install -e``) starts
about 10 ms later than a plain one: its import hook loads pathlib and importlib.util at start.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROUND = ROOT.parent / "shared" / "other-submitters" / "training-2.0"


def commands(python: str, target: str) -> dict[str, list[str]]:
    mlcheck = [python, "-m", "mlcheck"]
    check = [*mlcheck, "check", target, "--no-progress"]
    return {
        "python -c pass": [python, "-c", "pass"],
        "import mlcheck.cli": [python, "-c", "import mlcheck.cli"],
        "mlcheck --help": [*mlcheck, "--help"],
        "check --format json --jobs 1": [*check, "--format", "json", "--jobs", "1"],
        "check (text) --jobs 1": [*check, "--jobs", "1"],
        "check --format json --jobs 2": [*check, "--format", "json", "--jobs", "2"],
    }


# The processes run in an empty folder: ``python -m mlcheck`` in the repository would import its
# source instead of the install measured.
CWD = tempfile.mkdtemp(prefix="mlcheck-startup-")


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one whole process (its children included)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=CWD)
    _, _, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime


def import_times(command: list[str], env: dict[str, str], repeat: int) -> dict[str, int]:
    """Each module's own import time in µs, the least of ``repeat`` runs of ``-X importtime``."""
    least: dict[str, int] = {}
    for _ in range(repeat):
        done = subprocess.run([command[0], "-X", "importtime", *command[1:]], env=env, check=False, cwd=CWD,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for match in re.finditer(r"^import time:\s+(\d+) \|\s+\d+ \| *(\S+)$", done.stderr, re.M):
            name, own = match.group(2), int(match.group(1))
            least[name] = min(least.get(name, own), own)
    return least


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("target", nargs="?", help="what `check` reads (default: a shared round, else the example)")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--python", action="append", help="an interpreter whose mlcheck is measured "
                        "(repeatable: their runs are interleaved; default: this one)")
    parser.add_argument("--imports", action="store_true", help="also the import time of `check --format json`")
    args = parser.parse_args()
    pythons = args.python or [sys.executable]
    target = os.path.abspath(args.target or (ROUND if ROUND.is_dir() else ROOT / "fixtures" / "example" / "Acme"))
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    measured = {python: commands(python, target) for python in pythons}
    for python in pythons:  # warm-up: bytecode written, files in the page cache
        for command in measured[python].values():
            timed(command, env)
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.repeat):
        for name in measured[pythons[0]]:
            for python in pythons:
                runs.setdefault((name, python), []).append(timed(measured[python][name], env))
    print(f"{target}, {args.repeat} runs each, load average {os.getloadavg()[0]:.2f}; wall min / median, "
          "CPU min, in ms")
    print("| command | " + " | ".join(pythons) + " |\n|---|" + "---:|" * len(pythons))
    for name in measured[pythons[0]]:
        cells = []
        for python in pythons:
            walls, cpus = [w * 1000 for w, _ in runs[name, python]], [c * 1000 for _, c in runs[name, python]]
            cells.append(f"{min(walls):.0f} / {statistics.median(walls):.0f}, CPU {min(cpus):.0f}")
        print(f"| `{name}` | " + " | ".join(cells) + " |")
    if args.imports:
        for python in pythons:
            least = import_times(measured[python]["check --format json --jobs 1"], env, max(3, args.repeat // 3))
            own = sum(least.values()) / 1000
            ours = sum(t for name, t in least.items() if name.startswith("mlcheck")) / 1000
            print(f"\n{python}: {len(least)} modules imported by `check --format json`, {own:.1f} ms of their "
                  f"own import time ({ours:.1f} ms in mlcheck's {sum(n.startswith('mlcheck') for n in least)}); "
                  "the top 15:")
            for name, microseconds in sorted(least.items(), key=lambda item: -item[1])[:15]:
                print(f"  {microseconds / 1000:5.2f} ms  {name}")


if __name__ == "__main__":
    main()
