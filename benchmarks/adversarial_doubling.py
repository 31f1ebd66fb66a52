"""Time and peak memory of mlcheck on adversarial input shapes at doubling sizes.

    python benchmarks/adversarial_doubling.py [--scale 1.0] [--steps 4] [--repeat 2] [--only glued,markers]

For each shape the input is built at sizes s, 2s, 4s, 8s (about 50 MB at the largest for the big
ones) and checked by one fresh Python process per measurement (``mlcheck check PATH -f json``, or
the command the shape names), which times the command alone, after its imports and a warm-up
check of a small log; its peak RSS comes from ``os.wait4``. The ratio of one size's time to the
previous size's is about 2 for a linear stage. A shape fails when a ratio is above 2.5 or the
peak RSS is above 150 MB; the exit code is 1 when one fails.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
BASE = (ROOT / "fixtures" / "bad" / "base_open.txt").read_text("utf-8").splitlines()
"""24 records of an open-division ResNet run (4.3 KB)."""
MAX_RATIO, MAX_RSS_MB = 2.5, 150.0

_CHILD = r"""
import json, os, sys, time
sys.argv = ["mlcheck", *json.loads(sys.argv[1])]
from mlcheck import check
from mlcheck.cli import main
check([os.environ["WARM_UP"]])
devnull = open(os.devnull, "w")
sys.stdout = devnull
start = time.perf_counter()
try:
    main.main(args=sys.argv[1:], standalone_mode=False)
except SystemExit as done:
    code = done.code
else:
    code = 0
sys.stderr.write(f"\nELAPSED {time.perf_counter() - start} {code}\n")
"""


def run_child(args: list[str], cwd: Path) -> tuple[float, float, str]:
    """(seconds of the command, peak RSS in MB, exit code) of one process."""
    env = dict(os.environ, WARM_UP=str(ROOT / "fixtures" / "bad" / "base_open.txt"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen([sys.executable, "-c", _CHILD, json.dumps(args)], cwd=cwd, env=env,
                                   stdout=subprocess.DEVNULL, stderr=errors)
        _pid, _status, usage = os.wait4(process.pid, 0)
        errors.seek(0)
        tail = errors.read().decode("utf-8", "replace").strip().splitlines()
    last = tail[-1].split() if tail else []
    if len(last) != 3 or last[0] != "ELAPSED":
        raise RuntimeError(f"mlcheck {' '.join(args[:1])} failed: {' '.join(tail[-5:])}")
    return float(last[1]), usage.ru_maxrss / 1024, last[2]


def _record(key: str, value: object, time_ms: int, **metadata: object) -> str:
    return ":::MLLOG " + json.dumps({"namespace": "", "time_ms": time_ms, "event_type": "POINT_IN_TIME",
                                     "key": key, "value": value, "metadata": {"file": "train.py", "lineno": 1, **metadata}})


def _write(folder: Path, name: str, data: bytes | str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def glued(folder: Path, n: int) -> list[str]:
    """One line of ``n`` records glued together (a crash of the line ends)."""
    line = "".join(BASE[i % len(BASE)] for i in range(n))
    return ["check", str(_write(folder, "job.log", "\n".join(BASE[:12]) + "\n" + line + "\n")), "-f", "json"]


def markers(folder: Path, n: int) -> list[str]:
    """``n`` markers of broken JSON on one line."""
    return ["check", str(_write(folder, "job.log", ':::MLLOG {"key": ' * n + "\n")), "-f", "json"]


def runs(folder: Path, n: int) -> list[str]:
    """``n`` runs in one raw file, each after a launcher line."""
    block = "mpirun -np 8 python train.py\n" + "\n".join(BASE) + "\n"
    return ["check", str(_write(folder, "job.log", block * n)), "-f", "json"]


def waiver_glob(folder: Path, n: int) -> list[str]:
    """``n`` waivers of glob ``*a`` x 200 + ``b`` against the findings of a file with a
    240-character name (a regex backtracks forever; the run has no run_stop, so it has findings)."""
    _write(folder, "resnet/" + "a" * 240 + ".txt", "\n".join(BASE[:-1]) + "\n")
    waiver = '[[waivers]]\ncode = "MLC"\npath = "resnet/%s"\nreason = "benchmark"\n' % ("*a" * 200 + "b")
    _write(folder, ".mlcheck.toml", waiver * n)
    return ["check", str(folder / "resnet"), "-f", "json"]


def config_keys(folder: Path, n: int) -> list[str]:
    """A config of ``n`` unknown keys and ``n`` waivers (each an MLC041 or MLC040 at its line)."""
    _write(folder, "resnet/result_0.txt", "\n".join(BASE) + "\n")
    keys = "".join(f"unknown_{i} = 1\n" for i in range(n))
    waivers = "".join(f'[[waivers]]\ncode = "MLC3"\npath = "x{i}/**"\nreason = "r"\n' for i in range(n))
    _write(folder, ".mlcheck.toml", keys + waivers)
    return ["check", str(folder / "resnet"), "-f", "json"]


def digits(folder: Path, n: int) -> list[str]:
    """A value of ``n`` digits (valid JSON; no float holds it)."""
    lines = list(BASE)
    lines[8] = lines[8].replace('"value": 3264', '"value": ' + "7" * n)
    return ["check", str(_write(folder, "result_0.txt", "\n".join(lines) + "\n")), "-f", "json"]


def nested_config(folder: Path, n: int) -> list[str]:
    """A config value nested ``n`` arrays deep."""
    _write(folder, "resnet/result_0.txt", "\n".join(BASE) + "\n")
    _write(folder, ".mlcheck.toml", "x = " + "[" * n + "]" * n + "\n")
    return ["check", str(folder / "resnet"), "-f", "json"]


def _long_run(epochs: int) -> str:
    lines = BASE[:13]
    time_ms = 1652083800002
    for epoch in range(1, epochs + 1):
        lines.append(_record("epoch_start", None, time_ms, epoch_num=epoch).replace("POINT_IN_TIME", "INTERVAL_START"))
        lines += [_record("tracked_stats", {"step": s, "loss": 1.0 / (s + 1)}, time_ms + s, step=s) for s in range(20)]
        lines.append(_record("epoch_stop", None, time_ms + 30, epoch_num=epoch).replace("POINT_IN_TIME", "INTERVAL_END"))
        if epoch % 4 == 0:
            lines.append(_record("eval_accuracy", min(0.76, 0.4 + epoch / 1000), time_ms + 40, epoch_num=epoch))
        time_ms += 50
    lines.append(_record("run_stop", None, time_ms, epoch_num=epochs, status="success")
                 .replace("POINT_IN_TIME", "INTERVAL_END"))
    return "\n".join(lines) + "\n"


def watch_log(folder: Path, epochs: int) -> list[str]:
    """A long run followed by ``watch`` (the log is complete: it reads to run_stop)."""
    log = _write(folder, "job.log", _long_run(epochs))
    return ["watch", str(log), "--idle-timeout", "0", "--poll", "0.01", "--no-progress", "-f", "json"]


def long_run(folder: Path, epochs: int) -> list[str]:
    """A clean result file of a long run (the baseline every other shape is compared with)."""
    return ["check", str(_write(folder, "result_0.txt", _long_run(epochs))), "-f", "json"]


def rank_copies(folder: Path, ranks: int) -> list[str]:
    """Every record of a 0.8 MB run printed by ``ranks`` ranks under poprun/MPI tags."""
    lines = _long_run(190).splitlines()
    out = [f"[1,{rank}]<stdout>:{line}" for line in lines for rank in range(ranks)]
    return ["check", str(_write(folder, "job.log", "\n".join(out) + "\n")), "-f", "json"]


def broken_lines(folder: Path, n: int) -> list[str]:
    """``n`` lines of broken records (findings are capped per code)."""
    return ["check", str(_write(folder, "job.log", ":::MLLOG {bad\n" * n)), "-f", "json"]


def result_files(folder: Path, n: int) -> list[str]:
    """``n`` result files in one benchmark folder (checks across the runs of a folder)."""
    text = "\n".join(BASE) + "\n"
    first = _write(folder, "resnet/result_0.txt", text)
    for index in range(1, n):
        os.link(first, folder / "resnet" / f"result_{index}.txt")
    return ["check", str(folder / "resnet"), "-f", "json"]


def one_long_line(folder: Path, n: int) -> list[str]:
    """``n`` bytes without a line end or a marker (a binary dumped into the log)."""
    return ["check", str(_write(folder, "job.log", b"x" * n)), "-f", "json"]


def gzip_members(folder: Path, n: int) -> list[str]:
    """``n`` gzip members, one run's records each, concatenated in one ``.gz``."""
    member = gzip.compress(("\n".join(BASE) + "\n").encode(), mtime=0)
    return ["check", str(_write(folder, "result_0.txt.gz", member * n)), "-f", "json"]


@dataclass(frozen=True)
class Shape:
    name: str
    build: Callable[[Path, int], list[str]]
    first: int
    """Size at the first step (scaled by --scale)."""


SHAPES = (
    Shape("long_run", long_run, 1_500),
    Shape("glued", glued, 10_000),
    Shape("markers", markers, 100_000),
    Shape("runs", runs, 1_000),
    Shape("waiver_glob", waiver_glob, 10),
    Shape("config_keys", config_keys, 1_000),
    Shape("digits", digits, 1_750_000),
    Shape("nested_config", nested_config, 50_000),
    Shape("watch", watch_log, 1_500),
    Shape("rank_copies", rank_copies, 8),
    Shape("broken_lines", broken_lines, 250_000),
    Shape("result_files", result_files, 1_000),
    Shape("one_long_line", one_long_line, 6_000_000),
    Shape("gzip_members", gzip_members, 1_500),
)


def input_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def build_elsewhere(shape: Shape, size: int, folder: Path) -> list[str]:
    """Build the input in another process: a child's peak RSS counts its parent's at the fork
    (Linux keeps the high-water mark across exec), so this process must never hold 50 MB."""
    done = subprocess.run([sys.executable, __file__, "--build", shape.name, str(size), str(folder)],
                          check=True, capture_output=True, text=True)
    args: list[str] = json.loads(done.stdout)
    return args


def measure(shape: Shape, scale: float, steps: int, repeat: int) -> list[tuple[int, float, float, float]]:
    """(size, MB of input, seconds, peak RSS MB) per step."""
    rows = []
    for step in range(steps):
        size = max(1, round(shape.first * scale)) * 2 ** step
        folder = Path(tempfile.mkdtemp(prefix=f"mlcheck-{shape.name}-"))
        try:
            args = build_elsewhere(shape, size, folder)
            megabytes = input_bytes(folder) / 1e6
            runs_of = [run_child(args, folder) for _ in range(repeat)]
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        rows.append((size, megabytes, min(r[0] for r in runs_of), max(r[1] for r in runs_of)))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="Multiply every first size (0.1: a quick look).")
    parser.add_argument("--steps", type=int, default=4, help="Sizes per shape (each twice the one before).")
    parser.add_argument("--repeat", type=int, default=3, help="Processes per size; the fastest counts.")
    parser.add_argument("--only", default="", help="Comma-separated shapes to run (default: all).")
    parser.add_argument("--build", nargs=3, metavar=("SHAPE", "SIZE", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build:  # (in a child: see build_elsewhere)
        name, size, folder = args.build
        print(json.dumps(next(s for s in SHAPES if s.name == name).build(Path(folder), int(size))))
        return 0
    chosen = [s for s in SHAPES if not args.only or s.name in args.only.split(",")]
    failed = []
    print(f"{'shape':14} {'size':>10} {'input MB':>9} {'seconds':>8} {'ratio':>6} {'RSS MB':>7}")
    for shape in chosen:
        rows = measure(shape, args.scale, args.steps, args.repeat)
        worst_ratio, worst_rss = 0.0, 0.0
        for index, (size, megabytes, seconds, rss) in enumerate(rows):
            ratio = seconds / rows[index - 1][2] if index and rows[index - 1][2] > 0 else None
            worst_ratio = max(worst_ratio, ratio or 0.0)
            worst_rss = max(worst_rss, rss)
            shown = f"{ratio:6.2f}" if ratio is not None else "      "
            print(f"{shape.name:14} {size:>10} {megabytes:9.1f} {seconds:8.3f} {shown} {rss:7.0f}", flush=True)
        verdict = "ok" if worst_ratio <= MAX_RATIO and worst_rss <= MAX_RSS_MB else "FAIL"
        if verdict == "FAIL":
            failed.append(shape.name)
        print(f"{'':14} worst ratio {worst_ratio:.2f}, peak RSS {worst_rss:.0f} MB: {verdict}", flush=True)
    print(f"\n{len(chosen) - len(failed)} of {len(chosen)} shapes within {MAX_RATIO}x per doubling and "
          f"{MAX_RSS_MB:.0f} MB" + (f"; over: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
