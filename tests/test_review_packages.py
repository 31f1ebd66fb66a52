"""Package checks of rounds 3.0-5.1 found wrong by a review against the official tools (session 25)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from mlcheck import check
from mlcheck.model import Severity

from conftest import SHARED

_SD = ("training-5.0", "Lenovo", "results", "SR780aV3-8xB200_SXM_180GB", "stable_diffusion")


def _stable_diffusion(tmp_path: Path) -> Path:
    source = SHARED.joinpath("other-submitters", *_SD)
    if not source.is_dir():
        pytest.skip(f"{source} is not present (../shared/other-submitters)")
    folder = tmp_path / "training-5.0" / "stable_diffusion"
    shutil.copytree(source, folder)
    return folder


def _official_rcp_raises(log: Path) -> type[BaseException] | None:
    rcp_checker = pytest.importorskip("mlperf_logging.rcp_checker.rcp_checker")
    try:
        rcp_checker.read_submission_file(str(log), "5.0.0", False)
    except Exception as error:  # noqa: BLE001 (what the package checker stops with)
        return type(error)
    return None


def test_a_successful_stable_diffusion_run_that_never_meets_the_target_stops_the_rcp_checker(tmp_path: Path) -> None:
    """``run_stop`` says success, no eval step meets FID <= 90 and CLIP >= 0.15: the RCP checker's
    ``min(passing_epochs)`` raises ValueError and the package checker stops. MLC535 at the
    run_stop, the folder has no valid score, and MLC301 is no longer tolerated (was: valid score,
    one warning)."""
    folder = _stable_diffusion(tmp_path)
    log = folder / "result_3.txt"
    text = re.sub(r'("key": "eval_accuracy", "value": )(\d{2,3}\.\d+)', r"\g<1>95.5", log.read_text("utf-8"))
    log.write_text(text, "utf-8")
    assert _official_rcp_raises(log) is ValueError
    (bench,) = check([str(folder)]).benchmarks
    run = next(r for r in bench.runs if r.path.endswith("result_3.txt"))
    (raised,) = [f for f in run.findings if f.code == "MLC535"]
    stop_line = next(i for i, line in enumerate(text.splitlines(), 1) if '"key": "run_stop"' in line)
    assert (raised.line, raised.severity) == (stop_line, Severity.ERROR) and "ValueError" in raised.message
    assert not bench.score.valid and "a package it does not pass is not published" in bench.score.reason
    assert [f.severity for f in run.findings if f.code == "MLC301"] == [Severity.ERROR]


def test_a_stable_diffusion_step_whose_fid_passes_without_clip_stops_the_rcp_checker(tmp_path: Path) -> None:
    """A step with FID <= 90 and no CLIP: KeyError in the RCP checker (MLC535 at the step's first
    eval), and MLC521 no longer says what the official tools would publish: they stop. The
    compliance checker stops first, on the same merged eval (its ATLEAST_ONE_CHECK reads
    ``v['value']['CLIP']`` outside any try: KeyError; session 56)."""
    folder = _stable_diffusion(tmp_path)
    log = folder / "result_3.txt"
    lines = log.read_text("utf-8").splitlines(keepends=True)
    clip = max(i for i, line in enumerate(lines) if '"metric": "CLIP"' in line)
    fid = max(i for i, line in enumerate(lines) if '"metric": "FID"' in line)
    del lines[clip]
    log.write_text("".join(lines), "utf-8")
    assert _official_rcp_raises(log) is KeyError
    (bench,) = check([str(folder)]).benchmarks
    run = next(r for r in bench.runs if r.path.endswith("result_3.txt"))
    (raised,) = [f for f in run.findings if f.code == "MLC535"]
    assert raised.line == fid + 1 and "logs no CLIP" in raised.message
    (dropped,) = [f for f in bench.findings if f.code == "MLC521"]
    assert "publish 1" not in dropped.message and "the official checker raises comparing the evaluation on line " \
        f"{fid + 1} of result_3.txt with the target" in dropped.message and "summarizer stop with it" in dropped.message
    assert not bench.score.valid and "the official tools publish no score" in bench.score.reason


def test_the_published_stable_diffusion_folder_has_no_rcp_raise(tmp_path: Path) -> None:
    folder = _stable_diffusion(tmp_path)
    (bench,) = check([str(folder)]).benchmarks
    assert bench.score.valid and not [f for r in bench.runs for f in r.findings if f.code == "MLC535"]


ACME = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"


def test_a_successful_run_without_an_eval_stops_the_rcp_checker(tmp_path: Path) -> None:
    """run_stop says success and no eval_accuracy comes before it: the RCP checker's convergence
    point (``conv_epoch``) is never set, UnboundLocalError stops the package checker (a review,
    session 34: mlcheck's RCP test counted the run as not converged and said nothing)."""
    package = tmp_path / "Acme"
    shutil.copytree(ACME, package)
    log = package / "results" / "acme-t8" / "resnet" / "result_1.txt"
    lines = [line for line in log.read_text("utf-8").splitlines(keepends=True) if '"eval_accuracy"' not in line]
    log.write_text("".join(lines), "utf-8")
    stop = 1 + next(i for i, line in enumerate(lines) if '"key": "run_stop"' in line)
    assert _official_rcp_raises(log) is UnboundLocalError
    (bench,) = check([str(package)]).benchmarks
    run = next(r for r in bench.runs if r.path == str(log))
    (raised,) = [f for f in run.findings if f.code == "MLC535"]
    assert (raised.line, raised.severity) == (stop, Severity.ERROR) and "conv_epoch" in raised.message
    assert not bench.score.valid


@pytest.mark.parametrize("key, value, loaded", [
    ("submission_division", "closed_", "closed__common.yaml"),
    ("submission_benchmark", "resnet50", "closed_resnet50.yaml"),
    ("opt_name", "adam", "closed_resnet_adam.yaml"),
])
def test_a_value_that_names_a_missing_rule_file_stops_the_official_tools(tmp_path: Path, key: str, value: str,
                                                                           loaded: str) -> None:
    """The compliance checker loads a rule file named after the logged division, benchmark or
    ResNet optimizer; one that does not exist ends it with FileNotFoundError, and the package
    checker with it: MLC521 and the score say the official tools publish no score (was: "publish
    N min")."""
    mlp_compliance = pytest.importorskip("mlperf_logging.compliance_checker.mlp_compliance")
    package = tmp_path / "Acme"
    shutil.copytree(ACME, package)
    log = next(package.glob("results/*/resnet/result_0.txt"))
    text = log.read_text("utf-8")
    changed = re.sub(rf'("key": "{key}", "value": )"[a-z]+"', rf'\g<1>"{value}"', text, count=1)
    assert changed != text
    log.write_text(changed, "utf-8")
    (bench,) = check([str(package)]).benchmarks
    mlp_compliance.enqueued_configs.clear()
    checker = mlp_compliance.make_checker("training", bench.ruleset, True, False)
    with pytest.raises(FileNotFoundError):
        checker.check_file(str(log), f"training_{bench.ruleset}/common.yaml")
    mlp_compliance.enqueued_configs.clear()
    (dropped,) = [f for f in bench.findings if f.code == "MLC521"]
    assert f"stops on result_0.txt: it loads training_{bench.ruleset}/{loaded}" in dropped.message
    assert not bench.score.valid and "the official tools publish no score" in bench.score.reason


def test_mlc521_says_the_package_checker_refuses_a_folder_the_seed_checker_fails(tmp_path: Path) -> None:
    """A record the official parser cannot read: the summarizer drops the run (MLC521 gives its
    number) but the seed checker fails the whole folder (MLC526); MLC521 and the score say the
    package checker refuses the folder (was: only "publish N min", beside MLC526)."""
    package = tmp_path / "Acme"
    shutil.copytree(ACME, package)
    log = next(package.glob("results/*/resnet/result_1.txt"))
    lines = log.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"key": "global_batch_size"' in line)
    lines[at] = lines[at].replace('"key": "global_batch_size"', '"key: "global_batch_size"')
    log.write_text("".join(lines), "utf-8")
    (bench,) = check([str(package)]).benchmarks
    codes = {f.code for f in bench.findings}
    assert {"MLC521", "MLC526"} <= codes
    (dropped,) = [f for f in bench.findings if f.code == "MLC521"]
    # (the cut line names global_batch_size, which the RCP checker decodes: it raises, MLC535, and the
    # package checker stops there; session 46: MLC521 said it refuses the folder on the seeds alone)
    assert "the RCP checker raises on result_1.txt and the package checker stops with it (MLC535)" in dropped.message
    assert not bench.score.valid and "(MLC526): the package checker refuses it" in bench.score.reason


def test_the_rule_file_names_are_those_of_each_round_checker_of_record() -> None:
    from mlcheck.facts.rule_files import RULE_FILES

    reference = SHARED / "reference" / "record-rules"
    if not reference.is_dir():
        pytest.skip(f"{reference} is not present (../shared/reference)")
    for folder in sorted(reference.glob("training-*/compliance")):
        version = folder.parent.name.split("-")[1] + ".0"
        assert RULE_FILES[version] == {p.stem for p in folder.glob("*.yaml")}, version
    checker = pytest.importorskip("mlperf_logging.compliance_checker")
    installed = Path(checker.__file__).parent / "training_1.0.0"
    assert RULE_FILES["1.0.0"] == {p.stem for p in installed.glob("*.yaml")}


def test_a_benchmark_whose_rule_file_exists_does_not_stop_the_checker(tmp_path: Path) -> None:
    """3.0 still has closed_dlrm.yaml: a run logging dlrm in a dlrm_dcnv2 folder fails (MLC011,
    MLC521) and the official tools publish the others' score, not "no score"."""
    from mlcheck.judge.official_stops import _missing_rule_file
    from mlcheck.results import RunSummary
    from mlcheck.model import Event

    def run(**logged: str) -> RunSummary:
        events = tuple(Event(f"submission_{k}", v, {}, 0.0, i + 1) for i, (k, v) in enumerate(logged.items()))
        return RunSummary("r", 0, 1, 2, events, (), None, {e.key: i for i, e in enumerate(events)})

    assert _missing_rule_file(run(division="closed", benchmark="dlrm"), "3.0.0") == ""
    assert _missing_rule_file(run(division="closed", benchmark="dlrm"), "3.1.0") == ""
    assert _missing_rule_file(run(division="closed", benchmark="dlrm"), "4.0.0") == "closed_dlrm.yaml"
    assert _missing_rule_file(run(division="open", benchmark="gpt3"), "3.0.0") == "open_gpt3.yaml"
    assert _missing_rule_file(run(division="Closed", benchmark="bert"), "2.0.0") == "Closed_common.yaml"


def test_a_run_stopped_before_it_started_breaks_the_folder(tmp_path: Path) -> None:
    """run_stop before run_start: mlcheck counts the run as not converged, but the summarizer
    scores its negative time (the fastest run, dropped), so another run counts: MLC521, the
    folder is not valid, and the official number is said (was: a valid score)."""
    package = tmp_path / "Acme"
    shutil.copytree(ACME, package)
    log = next(package.glob("results/*/resnet/result_2.txt"))
    text = log.read_text("utf-8")
    start = int(re.search(r'"time_ms": (\d+), "event_type": "[A-Z_]+", "key": "run_start"', text).group(1))
    text = re.sub(r'("time_ms": )\d+(, "event_type": "[A-Z_]+", "key": "run_stop")', rf"\g<1>{start - 60000}\g<2>", text)
    log.write_text(text, "utf-8")
    (bench,) = check([str(package)]).benchmarks
    (dropped,) = [f for f in bench.findings if f.code == "MLC521"]
    assert "MLC403" in dropped.message and not bench.score.valid


_POWER = ("training-4.0", "smc-ac-power")


def _power_package(tmp_path: Path) -> Path:
    source = SHARED.joinpath("other-submitters", *_POWER)
    if not source.is_dir():
        pytest.skip(f"{source} is not present (../shared/other-submitters)")
    shutil.copytree(source, tmp_path / "pkg")
    return tmp_path / "pkg"


def test_the_energy_of_the_summarizers_runs_says_so(tmp_path: Path) -> None:
    """A run aborted after reaching its target: it converged, both time scores count it (the
    summarizer reads no status); the energy is the summarizer's (published), of the same runs."""
    package = _power_package(tmp_path)
    (log,) = package.glob("results/*/resnet/result_5797-*_1.txt")  # (a run both time scores count)
    log.write_text(log.read_text("utf-8").replace('"status": "success"', '"status": "aborted"'), "utf-8")
    (bench,) = check([str(package)]).benchmarks
    (energy,) = [f for f in bench.findings if f.code == "MLC544"]
    assert "runs the time score counts" in energy.message and "counts other runs" not in energy.message
    assert energy.message.startswith("energy 5,671.9 kJ")  # (the summarizer's 5,671,887.21 J)


@pytest.mark.parametrize("broken", [1, 2])
def test_more_files_failing_the_checker_than_the_package_checker_accepts_is_its_refusal(
        tmp_path: Path, broken: int) -> None:
    """package_checker.py accepts one file that fails the compliance checker (four for U-Net3D)
    and refuses the folder for more ("2 files do not comply, directory cannot be accepted"):
    MLC521 is then official (a review of session 42 against the package checkers of 3.0-5.1; it
    was official: false in every round)."""
    package = tmp_path / "Acme"
    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme", package)
    (folder,) = list((package / "results").glob("*/*"))
    for number in range(broken):
        log = folder / f"result_{number}.txt"
        log.write_text("".join(line for line in log.read_text("utf-8").splitlines(keepends=True)
                               if '"cache_clear"' not in line), "utf-8")
    (bench,) = check([str(package)]).benchmarks
    (dropped,) = [f for f in bench.findings if f.code == "MLC521"]
    assert dropped.severity is Severity.ERROR and dropped.official is (broken == 2)
    assert ("the package checker refuses the folder (2 result files do not comply"
            in dropped.message) is (broken == 2)
    assert not bench.score.valid


def test_power_logs_the_package_checker_refuses_count_with_the_files_it_fails(tmp_path: Path) -> None:
    """package_checker.py counts a result whose power logs fail the power checker with those the
    compliance checker fails (``error_set | power_errors``): one of each refuses the folder, and
    MLC521 says so as an official error (an attack review of session 42)."""
    folder = _stable_diffusion(tmp_path)
    log = folder / "result_3.txt"
    log.write_text("".join(line for line in log.read_text("latin-1").splitlines(keepends=True)  # (a key the RCP
                           if '"init_stop"' not in line), "latin-1")  # checker does not read: no stop of its own)
    nodes = sorted((folder / "power" / "result_5").glob("node_*.txt"))
    nodes[0].rename(nodes[0].with_name("node_7.txt"))
    (bench,) = check([str(folder)]).benchmarks
    (dropped,) = [f for f in bench.findings if f.code == "MLC521"]
    assert dropped.official and "2 result files do not comply" in dropped.message
    assert not bench.score.valid and "the package checker refuses it" in (bench.score.reason or "")
