"""The rows of the results table (:mod:`mlcheck.report.results_table` renders them): one per
(round, division, system), with the system columns the MLCommons result summarizer publishes
(``result_summarizer.py``, mlperf-logging 4.1.68: division, availability, submitter, system,
nodes, processor and count, accelerator and count, framework, notes, details and code links) and
one cell per benchmark.
"""

from __future__ import annotations

import os
import re

from mlcheck.records import dataclass, field
from mlcheck.results import BenchmarkResult, CheckResult
from mlcheck.report.plain import rcp_refusal
from mlcheck.rules.rcp_texts import raising_note

_AVAILABILITY = {"available on premise": "Available on-premise", "available onprem": "Available on-premise",
                 "onprem": "Available on-premise", "on premise": "Available on-premise",
                 "available": "Available on-premise", "available cloud": "Available cloud",
                 "cloud": "Available cloud", "available in cloud": "Available cloud",
                 "available in the cloud": "Available cloud", "in cloud": "Available cloud",
                 "available on premises": "Available on-premise", "on premises": "Available on-premise",
                 "preview": "Preview",
                 "research, development, or internal (rdi)": "Research, Development, or Internal (RDI)",
                 "research, development, or internal": "Research, Development, or Internal (RDI)",
                 "rdi": "Research, Development, or Internal (RDI)",
                 "research": "Research, Development, or Internal (RDI)",
                 "development": "Research, Development, or Internal (RDI)",
                 "internal": "Research, Development, or Internal (RDI)"}
"""The system description's ``status`` (lower case, ``-`` and ``_`` as spaces) as the category
MLCommons publishes results under: the summarizer's ``config.yaml`` availability map, whose
spellings it also reads in any case."""
AVAILABILITY_ORDER = ("Available on-premise", "Available cloud", "Preview", "Research, Development, or Internal (RDI)")
_RESULTS_REPOSITORY = "https://github.com/mlcommons/training_results_v{round}"
"""Where MLCommons publishes a round's results (the summarizer's ``_ruleset_url_prefix``)."""


def availability(status: str | None) -> str:
    """``available on-premise``, ``onprem`` ... -> ``Available on-premise`` (unknown: as written)."""
    if not status:
        return ""
    spelled = " ".join(status.strip().lower().replace("-", " ").replace("_", " ").split())
    return _AVAILABILITY.get(spelled, status.strip())


@dataclass(frozen=True)
class Cell:
    """One benchmark result in the table: the minutes alone, its validity and RCP test apart."""

    minutes: float | None
    valid: bool
    rcp: str | None
    rcp_margin_pct: float | None
    energy_joules: float | None = None
    """The folder's energy score (a ``power/`` folder, 3.1+), as the summarizer's ``:Energy``."""
    measured: bool = False
    """The folder has power measurements (with or without an energy score)."""
    refused: bool = False
    """Its RCP test refuses it (an RCP error: :func:`mlcheck.report.plain.rcp_refusal`): the package
    checker fails it, the score stands."""
    raises: bool = False
    """The round's RCP checker raises on the folder: the verdict is mlcheck's (:func:`raising_note`)."""
    energy_valid: bool = True
    """Its energy score, where there is one, is valid (a node log under the rules' readings: not)."""

    @property
    def energy_text(self) -> str:
        return "" if self.energy_joules is None else f"{self.energy_joules / 1000:.1f}"

    @property
    def text(self) -> str:
        return "" if self.minutes is None else f"{self.minutes:.2f}"

    @property
    def status(self) -> str:
        return "invalid" if not self.valid else "rcp refused" if self.refused else "valid"


@dataclass(frozen=True)
class Row:
    """One system of one round and division."""

    round: str
    division: str
    availability: str
    submitter: str
    system: str
    nodes: int | None
    processor: str
    processors: int | None
    accelerator: str
    accelerators: int | None
    framework: str
    notes: str = ""
    """``hw_notes;sw_notes`` (the ones not empty), as the summarizer joins them."""
    details_url: str = ""
    """The system description's address in the round's published results ('' without one)."""
    code_url: str = ""
    """The submitter's code in the round's published results ('' without a system description)."""
    cells: dict[str, Cell] = field(default_factory=dict)

    def _per_benchmark(self, text: dict[str, str]) -> str:
        if len(self.cells) == 1:
            return next(iter(text.values()), "")
        return "; ".join(f"{name}: {value}" for name, value in sorted(text.items()) if value)

    @property
    def status_text(self) -> str:
        """``valid``, or which results are not (``bert: invalid``, ``resnet: rcp refused``)."""
        shown = {name: cell.status if cell.status != "valid" or cell.energy_valid else "energy not valid"
                 for name, cell in self.cells.items()}
        if all(status == "valid" for status in shown.values()):
            return "valid"
        return self._per_benchmark({name: status for name, status in shown.items()
                                    if status != "valid" or len(self.cells) == 1})

    @property
    def rcp_text(self) -> str:
        parts = {}
        for name, cell in self.cells.items():
            if cell.rcp is None:
                continue
            margin = f" {cell.rcp_margin_pct:+.2f} %" if cell.rcp_margin_pct is not None and cell.rcp != "skipped" else ""
            parts[name] = f"{cell.rcp}{margin}{' (the RCP checker raises)' if cell.raises else ''}"
        return self._per_benchmark(parts)


def _row_key(bench: BenchmarkResult) -> tuple[str | int, ...]:
    """A row's identity and place: the summarizer's order (it sorts by its columns' text: division,
    availability, submitter, system name, nodes, processor, count, accelerator, count, framework,
    notes), then the system's folder (two folders of one name are two rows)."""
    division = _division(bench)
    shown = availability(bench.system_info.status if bench.system_info else None)
    rank = AVAILABILITY_ORDER.index(shown) if shown in AVAILABILITY_ORDER else len(AVAILABILITY_ORDER)
    # (the system's results/ folder last: two copies of one package named at once are two rows, not one)
    system_folder = os.path.dirname(bench.folder) if bench.folder else ""
    if os.path.basename(os.path.dirname(system_folder)) != "results":  # (logs outside a package: by what they log)
        system_folder = ""
    info = bench.system_info
    name = (info.system_name if info and info.system_name else None) or bench.system or "?"
    described = tuple("" if value is None else str(value) for value in (
        (info.number_of_nodes, info.host_processor_model_name, info.host_processors, info.accelerator_model_name,
         info.accelerators, info.framework, info.notes) if info else ()))
    return (bench.ruleset or "?", "0" if division == "closed" else division, rank, bench.org or "?", name,
            *described, bench.system or "?", system_folder)


def _division(bench: BenchmarkResult) -> str:
    """The division the summarizer publishes a result under: its system description's, else the
    one its runs log."""
    described = bench.system_info.division if bench.system_info else None
    return (described.strip() if isinstance(described, str) and described.strip() else None) or bench.division or "?"


def build_rows(result: CheckResult) -> tuple[list[str], list[Row]]:
    """The benchmark columns (those with a result, sorted) and the rows, sorted by round,
    division (closed first), availability (as MLCommons splits its tables), submitter, system name
    and nodes, as the summarizer sorts them."""
    rows: dict[tuple[str | int, ...], Row] = {}
    for bench in result.benchmarks:
        if not bench.published:
            continue
        key = _row_key(bench)
        if key not in rows:
            rows[key] = _row(bench)
        rcp = bench.rcp
        rows[key].cells[bench.benchmark or "?"] = Cell(bench.score.score_min, bench.score.valid,
                                                      rcp.verdict if rcp else None,
                                                      rcp.margin_pct if rcp else None,
                                                      bench.energy.joules if bench.energy else None,
                                                      bench.energy is not None, rcp_refusal(bench) is not None,
                                                      bool(raising_note(bench)),
                                                      bench.energy is None or bench.energy.joules is None or bench.energy.valid)
    _add_empty_folders(result, rows)
    columns = sorted({name for row in rows.values() for name in row.cells})
    return columns, [rows[k] for k in sorted(rows)]


def _add_empty_folders(result: CheckResult, rows: dict[tuple[str | int, ...], Row]) -> None:
    """A benchmark folder of a row's system that holds no result file (MLC502 on the folder, no
    judged folder) is an invalid cell of that row, as the package checker fails it ("Incorrect
    number of files"): a table without it would call the system's results valid."""
    from mlcheck.rules.package import WRONG_RUN_COUNT

    judged = {bench.folder for bench in result.benchmarks}
    by_system = {key[-1]: key for key in rows if key[-1]}  # (the system's results/ folder: the key's last part)
    for finding in result.findings:
        folder = finding.path.rstrip("/\\") if finding.code == WRONG_RUN_COUNT.code and finding.path else ""
        key = by_system.get(os.path.dirname(folder)) if folder and folder not in judged else None
        if key is not None:
            rows[key].cells.setdefault(os.path.basename(folder), Cell(None, False, None, None))


def _row(bench: BenchmarkResult) -> Row:
    info = bench.system_info
    details, code = _links(bench)
    return Row(round=bench.ruleset or "?", division=_division(bench),
               availability=availability(info.status if info else None),
               submitter=(info.submitter if info and info.submitter else bench.org) or "?",
               system=_system_label(bench), nodes=info.number_of_nodes if info else None,
               processor=(info.host_processor_model_name if info else None) or "",
               processors=info.host_processors if info else None,
               accelerator=_pretty_accelerator((info.accelerator_model_name if info else None) or ""),
               accelerators=info.accelerators if info else None,
               framework=_pretty_framework((info.framework if info else None) or ""),
               notes=(info.notes if info else None) or "",
               details_url=details, code_url=code)


def _links(bench: BenchmarkResult) -> tuple[str, str]:
    """The summarizer's ``details_url`` and ``code_url``: the round's results repository, the
    system description's ``submitter`` and the system folder ('' when one is unknown)."""
    info = bench.system_info
    if info is None or not info.submitter or not bench.ruleset or not bench.system:
        return "", ""
    repository = _RESULTS_REPOSITORY.format(round=bench.ruleset[:3] + bench.ruleset[3:].replace(".0", ""))
    return (f"{repository}/blob/main/{info.submitter}/systems/{bench.system}.json",
            f"{repository}/blob/master/{info.submitter}/benchmarks")


def _pretty_accelerator(name: str) -> str:
    """The summarizer's accelerator name (``_pretty_accelerator_model_name``: ``tpu-v3`` is TPUv3)."""
    return "TPUv3" if name == "tpu-v3" else name


def _pretty_framework(framework: str) -> str:
    """The summarizer's framework (``_pretty_framework``): a TensorFlow build's ``commit hash = ...`` cut."""
    return re.sub(r" commit hash = .*", "", framework, count=1) if "TensorFlow" in framework else framework


def _system_label(bench: BenchmarkResult) -> str:
    info = bench.system_info
    name = info.system_name if info else None
    if name == "tpu-v3" and info and info.accelerators and info.number_of_nodes:  # (the summarizer's name)
        name = f"TPUv3.{int(info.accelerators // info.number_of_nodes) * 2}"
    if name and bench.system and name != bench.system:
        return f"{name} ({bench.system})"
    return bench.system or name or "?"
