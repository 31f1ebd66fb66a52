"""Every rank label mlcheck reads, in the layouts jobs print them: a rank's copy that differs is
MLC021 and the run reads as the clean one, whatever the label (OpenMPI and PRRTE tags, srun,
Hydra, Gloo, torchrun, DeepSpeed, Lightning, a job's own, host labels of pdsh, kubectl, Compose,
Ray, syslog (and RFC 5424 headers), Determined's task logs, ``stern``, ``clush -bL``'s node sets, ``parallel --tag``, a torchrun ``--log-line-prefix-template``,
a heterogeneous Slurm job, a label behind a timestamp, a host label or colour) and whatever the order (ranks
interleaved, rank 1 first, each rank's output in one block, rank 1's block first, eight ranks
with framework output between). A label read as other text would keep every rank's records (MLC106, a failing run)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck.checker import check_log
from mlcheck.package.discover import LogRef

BASE = FIXTURES / "raw" / "base.txt"
LABELS = {
    "ompi": "[1,{r}]<stdout>:", "prrte": "[prterun-node1-4242@1,{r}]<stdout>:", "ompi-host": "[1,{r}][node1:4242]<stdout>:",
    "sagemaker": "[1,mpirank:{r},algo-1]<stdout>:", "srun": "{r}: ", "srun-padded": " {r}: ", "mpiexec": "[{r}] ",
    "hydra": "[{r}@node017] ", "gloo": "[{r}]<stdout>:", "torchrun": "[default{r}]:", "torchrun-rank": "[rank{r}]: ",
    "deepspeed": "[Rank {r}] ", "lightning": "[rank: {r}] ", "job-rank": "rank {r}: ", "gpu": "[GPU{r}] ",
    "pdsh": "node0{r}: ", "kubectl": "[pod/bert-worker-{r}/main] ", "compose": "trainer-{r}  | ",
    "compose-service": "ray-training  | [{r}] ", "ray": "(RayTrainWorker pid={r}, ip=10.0.0.7) ",
    "syslog": "gpu-node python3[{r}]: ", "iso-ompi": "2024-05-01T10:00:00Z [1,{r}]<stdout>:",
    "date-ompi": "Tue Oct 07 12:00:00 2025 [1,{r}]<stdout>:", "srun-torchrun": "0: [default{r}]:",
    "kubectl-torchrun": "2024-05-01T10:00:00.123456789Z [pod/w-0/main] [default{r}]:",
    "log-dist": "[2024-05-01 10:00:00,123] [INFO] [logging.py:96:log_dist] [Rank {r}] ",
    "parallel-tag-label": "node01\t{r}: ", "colour-ompi": "\x1b[32m[1,{r}]<stdout>:\x1b[0m",
    "determined": "[2022-05-09T08:00:00.000007Z] adbf083{r} [rank={r}] || INFO:  ",
    "determined-trial": "[2022-05-09T08:00:00.000007Z] [{r}dbf0834] [rank={r}] || INFO:  ",
    "colour-srun": "\x1b[32m{r}: \x1b[0m", "colour-kubectl": "\x1b[36m[pod/bert-worker-{r}/main]\x1b[0m ",
    "torchrun-template": "[{r}]:", "torchrun-template-space": "[{r}]: ", "hyperpod": "[rank{r}-group_rank0-attempt0]:",
    "slurm-heterogeneous": "P0 {r}: ", "slurm-heterogeneous-padded": "P1  {r}: ", "parallel-tag": "node0{r}\t",
    "parallel-tag-address": "10.0.0.{r}\t", "clush-nodeset": "node[0{r},03-05]: ", "stern": "train-worker-{r} trainer ",
    "grep-files": "rank{r}.log:", "grep-files-numbered": "out/1/rank.{r}/stdout:12:", "grep-srun": "rank{r}.out:0: ",
    "rfc5424-srun": "<14>1 2024-05-01T10:00:00.148+02:00 gpu-node017 slurmstepd - - [meta x=\"1\"] {r}: ",
}
LAYOUTS = ("interleaved", "rank-1-first", "blocks", "rank-1-block-first", "eight-ranks-and-output")


def _line(line: str, rank: int, differing: int) -> str:
    """The record as ``rank`` prints it: the ``differing`` rank's global_batch_size is another value."""
    if rank == differing and '"key": "global_batch_size"' in line:
        return re.sub(r'"value": \d+', '"value": 7', line)
    return line


def _console(label: str, layout: str) -> list[str]:
    lines = BASE.read_text("utf-8").splitlines()
    if layout == "interleaved":
        return [label.format(r=r) + _line(line, r, 1) for line in lines for r in (0, 1)]
    if layout == "rank-1-first":
        return [label.format(r=r) + _line(line, r, 1) for line in lines for r in (1, 0)]
    if layout in ("blocks", "rank-1-block-first"):
        order = (0, 1) if layout == "blocks" else (1, 0)
        return [label.format(r=r) + _line(line, r, 1) for r in order for line in lines]
    out = []
    for number, line in enumerate(lines):
        for rank in range(8):
            out.append(label.format(r=rank) + _line(line, rank, 5))
            if number % 3 == 0:
                out.append(label.format(r=rank) + f"step {number} loss 0.{rank}")
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("style", sorted(LABELS))
def test_a_differing_copy_is_mlc021_and_the_run_reads_as_the_clean_one(style: str, layout: str, tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("\n".join(_console(LABELS[style], layout)) + "\n", "utf-8")
    [clean] = check_log(LogRef(str(BASE)), None)
    [result] = check_log(LogRef(str(log)), None)
    assert (result.verdict, result.time_to_train_min) == (clean.verdict, clean.time_to_train_min)
    assert sorted({f.code for f in result.findings}) == ["MLC020", "MLC021"]
