"""Console forms a review found read wrongly (session 46): log exports pretty-printed as one JSON
document (``gcloud logging read --format=json``, ``aws logs get-log-events``), Cloud Logging's
structured ``jsonPayload.message``, and TorchX's/NeMo-Run's role and replica before torchrun's
label with every rank printing every record. Each console reads as the clean file it was made of."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES
from mlcheck import check

CLEAN = FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
LINES = [line for line in CLEAN.read_text("utf-8").splitlines() if line.startswith(":::MLLOG")]


def _gcloud(path: Path) -> None:
    entries = [{"insertId": str(i), "logName": "projects/p/logs/stdout", "textPayload": line + "\n",
                "resource": {"type": "k8s_container"}} for i, line in enumerate(LINES)]
    path.write_text(json.dumps(entries, indent=2) + "\n", "utf-8")


def _aws(path: Path) -> None:
    events = {"events": [{"timestamp": i, "message": line, "ingestionTime": i} for i, line in enumerate(LINES)],
              "nextForwardToken": "f/1"}
    path.write_text(json.dumps(events, indent=4) + "\n", "utf-8")


def _json_payload(path: Path) -> None:
    path.write_text("".join(json.dumps({"jsonPayload": {"message": line, "levelname": "INFO"},
                                        "severity": "INFO"}) + "\n" for line in LINES), "utf-8")


def _nemo_run(path: Path) -> None:
    def at(line: str, late: int) -> str:  # (each rank's clock a few milliseconds after rank 0's)
        record = json.loads(line[len(":::MLLOG "):])
        return ":::MLLOG " + json.dumps({**record, "time_ms": record["time_ms"] + late})

    path.write_text("".join(f"nemo.collections.llm.api.finetune/{node} [default{rank}]:[NeMo I mllog:1] "
                            f"{at(line, 4 * node + rank)}\n" for line in LINES for node in (0, 1) for rank in range(4)),
                    "utf-8")


def _two_fields(path: Path) -> None:  # (an attack review: both fields of an entry read, every record twice)
    entries = [{"jsonPayload": {"log": line + "\n", "message": line}, "labels": {"msg": line}} for line in LINES]
    path.write_text(json.dumps(entries, indent=2) + "\n", "utf-8")


def _dotted_role(path: Path) -> None:  # (an attack review: llama3.1.pretrain/0 and /1 read as one host, 3)
    _nemo_run(path)
    path.write_text(path.read_text("utf-8").replace("nemo.collections.llm.api.finetune/", "llama3.1.pretrain/"),
                    "utf-8")


@pytest.mark.parametrize("make", [_gcloud, _aws, _json_payload, _nemo_run, _two_fields, _dotted_role])
def test_the_console_reads_as_its_clean_file(tmp_path: Path, make: object) -> None:
    console = tmp_path / "job.log"
    make(console)  # type: ignore[operator]
    (clean,) = check(str(CLEAN)).runs
    (run,) = check(str(console)).runs
    assert (run.verdict, run.status, run.time_to_train_min) == (clean.verdict, clean.status, clean.time_to_train_min)
    assert {f.code for f in run.findings} == {"MLC020"}
