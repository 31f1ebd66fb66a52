"""Raw output, from the review of session 28: the launcher lines that run a launcher through a
wrapper (``exec``, ``timeout 7200``, ``env``, variables, ``docker exec``, a command before
``&&``), the launchers run as Python modules (``python -m torch.distributed.launch``,
``accelerate launch``, DeepSpeed's runner and torchrun's launch messages) open the relaunch of an
attempt that crashed in its initialisation (before, they were noise: the crashed attempt and its
relaunch were one passing run); a record a run logs twice after its run_stop (``status``, a key
of no rule) stays the run's (before, the repeat went to the next run, before its launcher line)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.package.discover import LogRef
from mlcheck.read.job_starts import LAUNCH_LINE, may_hold_a_launch_line, may_name_a_launcher
from mlcheck.read.noise_counts import BLANKS, SQUEEZE, launcher_lines
from mlcheck.results import RunResult

GOOD = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
_TIME = re.compile(r'"time_ms": (\d+)')

LAUNCHES = [
    "+ python -m torch.distributed.launch --nproc_per_node=8 train.py",
    "python -m torch.distributed.launch train.py",
    "+ python3 -u -m torch.distributed.run --standalone --nnodes=1 --nproc_per_node=8 train.py",
    "+ accelerate launch train.py",
    "[2024-05-01 10:00:00,123] [INFO] [runner.py:555:main] cmd = /usr/bin/python3 -u -m "
    "deepspeed.launcher.launch --world_info=eyJ= train.py",
    "INFO:torch.distributed.launcher.api:Starting elastic_operator with launch configs:",
    "+ exec mpirun -np 8 python train.py",
    "+ timeout 7200 srun --ntasks=8 python train.py",
    "+ OMPI_MCA_btl=^openib mpirun -np 8 python train.py",
    "+ env NCCL_DEBUG=INFO torchrun --nproc_per_node=8 train.py",
    "+ docker exec -t trainer mpirun -np 8 python train.py",
    "+ hl-smi && mpirun --allow-run-as-root -np 8 python train.py",
    # From the review of session 30: MPICH's hydra, MPT, OpenMPI's and PRRTE's other names, ibrun,
    # Flux, composer, containers and shells, a bracketed date before set -x's +.
    "+ mpiexec.hydra -n 8 -ppn 8 -prepend-rank python train.py",
    "mpiexec_mpt -np 8 python train.py",
    "orterun -np 8 python train.py",
    "ibrun -n 8 python train.py",
    "flux run -N 2 -n 16 python train.py",
    "composer -n 8 train.py",
    "+ apptainer exec --nv image.sif mpirun -np 8 python train.py",
    "singularity exec image.sif torchrun --nproc_per_node=8 train.py",
    "+ bash -c 'mpirun -np 8 python train.py'",
    "[2024-05-01 10:00:00] + mpirun -np 8 python train.py",
    # From the review of session 40: a launcher and the program it runs, no option between; the run script.
    "+ srun python train.py", "+ mpirun python3 train.py", "mpirun ./run.sh", "+ torchrun train.py --config llama.yaml",
    "+ deepspeed train.py --deepspeed_config ds.json", "+ ./run_and_time.sh", "bash run_and_time.sh 42",
]
NOT_LAUNCHES = [
    "+ python -m mpi4py train.py",
    "NCCL INFO Launch mode Parallel",
    "Running command: mpirun -np 8 python train.py",
    "the run is starting; srun is slow",
    "I will launch -- later",
    "cmd = echo hi",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "sh: 1: mpirun: not found",
    "composer is a framework",
    "apptainer exec image.sif python train.py --mpirun-like",
    "./run_and_time.sh: line 40: 88 Segmentation fault      (core dumped) python train.py",
    "Running ./run_and_time.sh", "srun pythonic", "torchrun train.pyc",
]


@pytest.mark.parametrize("line", LAUNCHES)
def test_a_wrapped_or_module_launcher_is_a_launch_line(line: str) -> None:
    assert LAUNCH_LINE.match(line.encode())  # (raw output: every reader asks it of every line)


@pytest.mark.parametrize("line", [line for line in LAUNCHES if "run -" in line or "run --" in line])
def test_a_wrapped_launcher_is_noted_in_a_result_file_too(line: str) -> None:
    """A result file's readers look for launcher lines by name first (``run``): a wrapped one is
    found there too (a note: a result file is one run)."""
    raw = line.encode()
    assert may_name_a_launcher(raw.lower())  # (the line reader's test before the pattern)
    assert may_hold_a_launch_line(raw.lower().translate(SQUEEZE, BLANKS))  # (the block reader's)
    assert launcher_lines(b"noise\n" + raw + b"\n", b"noise\n" + raw.lower() + b"\n") == [(6, 7 + len(raw))]


@pytest.mark.parametrize("line", NOT_LAUNCHES)
def test_prose_that_names_a_launcher_is_no_launch_line(line: str) -> None:
    assert not LAUNCH_LINE.match(line.encode())


@pytest.mark.parametrize("line", [b"docker exec -t " * 3000, b"a=b " * 5000, b"timeout 1 " * 5000, b"a;" * 50000,
                                  b"srun " + b"a/." * 100_000, b"+ " + b"a/" * 100_000 + b"run_and_time.shx",
                                  b"[launch.py:321:sigkill_handler] " * 10_000, b"HYDU_sock_write (" * 20_000])
def test_the_launch_pattern_is_linear_on_long_lines(line: bytes) -> None:
    """(Review of session 40: the launcher-and-program form took 25 minutes on a line of 1 MB.)"""
    from mlcheck.read.job_starts import JOB_END
    from mlcheck.read.noise_counts import launcher_lines

    assert not LAUNCH_LINE.match(line)  # (a catastrophic backtrack would not return)
    assert not JOB_END.search(line) and not launcher_lines(line, line.lower())


def _later(lines: list[str], minutes: int) -> list[str]:
    return [_TIME.sub(lambda m: f'"time_ms": {int(m.group(1)) + minutes * 60_000}', line) for line in lines]


def _runs(tmp_path: Path, lines: list[str]) -> list[RunResult]:
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    return check_log(LogRef(str(log)), None)


@pytest.mark.parametrize("launch", LAUNCHES[::3] + LAUNCHES[1::3])
def test_an_init_crash_relaunched_by_a_wrapped_launcher_is_two_runs(launch: str, tmp_path: Path) -> None:
    run = GOOD.read_text("utf-8").splitlines()
    cut = next(i for i, line in enumerate(run) if '"init_stop"' in line) - 1
    relaunch = _later(run, 3)  # (within INIT_COPY_WINDOW_MS of the first init_start: only the launcher tells)
    crashed, again = _runs(tmp_path, ["+ mpirun -np 8 python train.py", *run[:cut], "Traceback (most recent call last):",
                                      "RuntimeError: NCCL error", launch, *relaunch])
    [clean] = check_log(LogRef(str(GOOD)), None)
    assert crashed.verdict == "fail" and crashed.run is not None and crashed.run.last_line == cut + 1
    assert again.run is not None and again.run.first_line == cut + 5 and again.verdict == clean.verdict == "pass"
    assert again.time_to_train_min == clean.time_to_train_min
    assert [(f.code, f.line) for f in again.findings if f.code == "MLC024"] == [("MLC024", cut + 3), ("MLC024", cut + 4)]


@pytest.mark.parametrize("key", ["status", "throughput", "my_key"])
def test_a_record_repeated_after_run_stop_stays_with_its_run(key: str, tmp_path: Path) -> None:
    run = GOOD.read_text("utf-8").splitlines()
    stop = json.loads(run[-1][len(":::MLLOG "):])
    assert stop["key"] == "run_stop"
    tail = ":::MLLOG " + json.dumps({**stop, "key": key, "value": "success", "event_type": "POINT_IN_TIME"})
    first, second = _runs(tmp_path, ["+ srun --ntasks=2 python train.py", *run, tail, tail,
                                     "+ srun --ntasks=2 python train.py", *_later(run, 40)])
    assert first.run is not None and first.run.last_line == len(run) + 3  # (both copies: len(run) + 2 and + 3)
    assert second.run is not None and second.run.first_line == len(run) + 5
    assert first.verdict == second.verdict == "pass"


def test_an_init_crash_that_hydra_reports_then_a_relaunch_is_two_runs(tmp_path: Path) -> None:
    """MPICH's hydra banner ends the job (a job end, then the next attempt's launcher line)."""
    run = GOOD.read_text("utf-8").splitlines()
    cut = next(i for i, line in enumerate(run) if '"init_stop"' in line) - 1
    banner = ["=" * 40, "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES", "=   RANK 3 PID 41235 RUNNING AT node017",
              "=" * 40]
    crashed, again = _runs(tmp_path, ["+ mpiexec.hydra -n 8 python train.py", *run[:cut], *banner,
                                      "+ mpiexec.hydra -n 8 python train.py", *_later(run, 1)])
    assert crashed.verdict == "fail" and again.verdict == "pass"


def test_a_run_killed_mid_record_then_rerun_gives_no_glued_records_warning(tmp_path: Path) -> None:
    """``tee -a``: the rerun's first record follows the killed run's cut one on its line. The cut is
    MLC023 (the killed run's); MLC010 (records sharing a line) is not said of the rerun."""
    run = GOOD.read_text("utf-8").splitlines()
    cut = next(i for i, line in enumerate(run) if '"eval_accuracy"' in line)
    again = _later(run, 30)
    crashed, rerun = _runs(tmp_path, [*run[:cut], run[cut][:-40] + again[0], *again[1:]])
    assert crashed.verdict == "fail" and rerun.verdict == "pass"
    assert "MLC010" not in {f.code for f in rerun.findings}
