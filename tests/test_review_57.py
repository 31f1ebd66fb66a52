"""Session 57: what watch --fail-fast stops at, and the reviews of this session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme"
RESNET = sorted((EXAMPLE / "results").glob("*/resnet"))[0]


def _mlcheck(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mlcheck", *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env={**os.environ, "COLUMNS": "200"})


def _not_converged(text: str) -> str:
    """The run with its last two evals cut and its run_stop ``aborted``."""
    lines = text.splitlines()
    stop = next(i for i, line in enumerate(lines) if '"run_stop"' in line)
    evals = [i for i, line in enumerate(lines[:stop]) if '"eval_accuracy"' in line]
    cut = lines[:evals[-2]] + [lines[stop].replace('"success"', '"aborted"')]
    return "\n".join(cut + lines[stop + 1:]) + "\n"


def _console(tmp_path: Path, broken: dict[int, str]) -> Path:
    runs = [path.read_text("utf-8") for path in sorted(RESNET.glob("result_*.txt"))]
    log = tmp_path / "console.log"
    log.write_text("".join(_not_converged(text) if broken.get(i) == "aborted" else text
                           for i, text in enumerate(runs)), "utf-8")
    return log


def _watch(log: Path, runs: int) -> subprocess.CompletedProcess[str]:
    return _mlcheck("watch", str(log), "--runs", str(runs), "--fail-fast", "--poll", "0.05", "--idle-timeout", "5",
                    "--no-progress", "--config", os.devnull)


def test_watch_fail_fast_goes_on_past_a_non_converged_run_the_benchmark_result_may_drop(tmp_path: Path) -> None:
    """A resnet result of 5 runs counts one non-converged run as its slowest: ``check`` of the
    console passes (exit 0, MLC301 a warning), so ``watch --runs 5 --fail-fast`` went on to the same
    verdict instead of stopping at the run with exit 1."""
    log = _console(tmp_path, {0: "aborted"})
    assert _mlcheck("check", str(log), "--config", os.devnull).returncode == 0
    done = _watch(log, 5)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "MLC301 target" in line]
    assert len(said) == 1 and ": warning MLC301 " in said[0] and "tolerated so far" in said[0], done.stderr
    assert "--fail-fast: stopped" not in done.stderr


def test_watch_fail_fast_stops_where_the_benchmark_result_can_no_longer_tolerate(tmp_path: Path) -> None:
    """Two non-converged runs of five: the second is more than the round tolerates (an error, the
    watch stops there), as ``check`` fails the console; with ``--runs`` other than the round's
    number of runs nothing is tolerated (the score would be invalid anyway)."""
    log = _console(tmp_path, {0: "aborted", 2: "aborted"})
    assert _mlcheck("check", str(log), "--config", os.devnull).returncode == 1
    done = _watch(log, 5)
    assert done.returncode == 1
    first, second = [line for line in done.stderr.splitlines() if "MLC301 target" in line]
    assert ": warning MLC301 " in first and ": error MLC301 " in second, done.stderr
    stop_line = int(second.split(":")[1])
    assert f"stopped on the first error (MLC301 at line {stop_line})" in done.stderr
    done = _watch(_console(tmp_path, {0: "aborted"}), 3)
    assert done.returncode == 1 and ": error MLC301 " in done.stderr


def test_watch_fail_fast_goes_on_past_a_converged_run_that_says_aborted(tmp_path: Path) -> None:
    """A run that reached its target but logged ``aborted`` (MLC302): the folder's score counts it
    as converged and ``check`` makes it a warning; the watch said an error and stopped."""
    text = sorted(RESNET.glob("result_*.txt"))[1].read_text("utf-8")
    stop = next(line for line in text.splitlines() if '"run_stop"' in line)
    log = _console(tmp_path, {})
    log.write_text(log.read_text("utf-8").replace(stop, stop.replace('"success"', '"aborted"')), "utf-8")
    assert _mlcheck("check", str(log), "--config", os.devnull).returncode == 0
    done = _watch(log, 5)
    assert done.returncode == 0 and ": warning MLC302 " in done.stderr, done.stderr


def _package(root: Path, name: str = "Acme") -> Path:
    import shutil

    package = root / name
    shutil.copytree(EXAMPLE, package)
    return package


def test_a_found_config_replaces_no_file_but_its_own_reports_and_writes_into_no_package(tmp_path: Path) -> None:
    """rv260: a package's .mlcheck.toml named README.md and another package's result log and system
    description as its outputs; checking the package replaced all three with reports (exit 0)."""
    package, other = _package(tmp_path), _package(tmp_path, "Beta")
    (tmp_path / "README.md").write_text("# round notes\n", "utf-8")
    beta_log = other / "results" / "acme-t8" / "resnet" / "result_0.txt"
    before = beta_log.read_bytes()
    outputs = ["README.md", "Beta/results/acme-t8/resnet/result_0.txt", "Beta/systems/acme-t8.json",
               "Beta/results/acme-t8/resnet/new.md", "r.json", "r.sarif", "r.xml", "r.md", "r.html", "text:t.txt",
               "github:a.txt"]
    (package / ".mlcheck.toml").write_text(f"output = {outputs!r}\n".replace("'", '"'), "utf-8")
    for _ in range(2):  # (the second check replaces the reports the first wrote, and only those)
        done = _mlcheck("check", "Acme", "-q", cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        refused = [line for line in done.stdout.splitlines() if "MLC041" in line and "error" in line]
        assert len(refused) == 4, done.stdout
        assert any("'README.md' names an existing file that is no report mlcheck wrote" in line for line in refused)
        assert sum("a submission package's results/ folder" in line for line in refused) == 2
        assert any("'Beta/systems/acme-t8.json' lies in Beta/systems" in line for line in refused)
        assert (tmp_path / "README.md").read_text("utf-8") == "# round notes\n" and beta_log.read_bytes() == before
        assert not (other / "results" / "acme-t8" / "resnet" / "new.md").exists()
        for name in ("r.json", "r.sarif", "r.xml", "r.md", "r.html", "t.txt", "a.txt"):
            assert (tmp_path / name).is_file(), name
        assert "sets output (r.json, r.sarif, r.xml, r.md, r.html, t.txt, a.txt)" in done.stderr
    assert (tmp_path / "t.txt").read_text("utf-8").splitlines()[-1].startswith("mlcheck: 5 runs (0 failing)")


def test_a_pyproject_that_is_no_utf8_but_holds_the_table_is_said_not_skipped(tmp_path: Path) -> None:
    """rv260: the search read it as empty: no config, ``strict`` silently lost (exit 0, not 1)."""
    (tmp_path / "pyproject.toml").write_bytes(b'[project]\nname = "x"\ndescription = "J\xfcrgen"\n'
                                              b"[tool.mlcheck]\nstrict = true\n")
    log = tmp_path / "run.txt"
    log.write_bytes(sorted(RESNET.glob("result_*.txt"))[0].read_bytes())
    done = _mlcheck("check", "run.txt", "-q", cwd=tmp_path)
    assert done.returncode == 1
    assert "pyproject.toml:3: error MLC041 config-invalid: cannot read the config file" in done.stdout


def test_standard_input_that_is_a_device_is_not_read(tmp_path: Path) -> None:
    """rv260: ``check - < /dev/zero`` copied the device to a temporary file until the disk was full,
    where ``check /dev/zero`` is MLC015 at once; ``split`` read it forever too."""
    with open(os.devnull if not os.path.exists("/dev/zero") else "/dev/zero", "rb") as device:
        done = subprocess.run([sys.executable, "-m", "mlcheck", "check", "-", "--config", os.devnull], stdin=device,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 1 and "-: error MLC015 not-a-regular-file: standard input is a device" in done.stdout
        device.seek(0) if device.seekable() else None
        split = subprocess.run([sys.executable, "-m", "mlcheck", "split", "-", "-o", str(tmp_path / "out")],
                               stdin=device, capture_output=True, text=True, timeout=60)
    assert split.returncode == 2 and "-: this is a device, not a log" in split.stderr
    assert not (tmp_path / "out").exists()


def test_the_command_lines_report_on_standard_output_wins_over_a_configs_format(tmp_path: Path) -> None:
    """rv260: a config's ``format`` (or MLCHECK_FORMAT) made ``-o json:-`` a usage error (exit 2),
    where the command line overrides the file and the environment."""
    package = _package(tmp_path)
    (package / ".mlcheck.toml").write_text('format = "text"\n', "utf-8")
    done = _mlcheck("check", "Acme", "-o", "json:-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("{") and '"schema": "mlcheck-report/1"' in done.stdout
    explicit = _mlcheck("check", "Acme", "-o", "json:-", "-f", "text", cwd=tmp_path)
    assert explicit.returncode == 2 and "where the text report" in explicit.stderr


def test_a_gzip_file_cut_before_its_first_line_is_a_damaged_file_not_an_unopened_one(tmp_path: Path) -> None:
    """rv260: its first 10 bytes exited 2 ("could not run"), its first 3,000 exited 1, and either
    inside a package 1: a damaged file is a finding at its first line, exit 1."""
    import gzip

    whole = gzip.compress(sorted(RESNET.glob("result_*.txt"))[0].read_bytes())
    log = tmp_path / "cut.txt.gz"
    log.write_bytes(whole[:10])
    done = _mlcheck("check", str(log), "--config", os.devnull)
    assert done.returncode == 1, done.stderr
    assert f"{log}:1: error MLC001 file-unreadable: reading stopped before the first line" in done.stdout


def test_an_option_that_takes_one_file_given_twice_is_refused(tmp_path: Path) -> None:
    """rv260: ``report -o a.html -o b.html`` wrote b.html alone, silently; ``score --table-output``
    and ``split -o`` kept the last too."""
    package = _package(tmp_path)
    for args in (("report", str(package), "-o", "a.html", "-o", "b.html"),
                 ("score", str(package), "--table-output", "a.md", "--table-output", "b.md"),
                 ("split", str(RESNET / "result_0.txt"), "-o", "a", "-o", "b")):
        done = _mlcheck(*args, "--config", os.devnull, cwd=tmp_path) if args[0] != "split" else _mlcheck(*args, cwd=tmp_path)
        assert done.returncode == 2 and "given 2 times" in done.stderr, (args, done.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Acme"]


def test_a_configs_output_into_the_checked_folder_names_the_config(tmp_path: Path) -> None:
    """rv260: exit 2 said "report.md lies in ..., a folder this check reads" without saying that a
    config file named it."""
    package = _package(tmp_path)
    config = tmp_path / "c.toml"
    config.write_text('output = ["report.md"]\n', "utf-8")
    done = _mlcheck("check", ".", "--config", str(config), cwd=package / "results" / "acme-t8" / "resnet")
    assert done.returncode == 2 and f"report.md (output in {config}) lies in" in done.stderr, done.stderr


def _power_package(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of a shared 5.0 package with power logs, and its benchmark folder."""
    import shutil

    import pytest

    from conftest import SHARED

    source = SHARED / "other-submitters" / "training-5.0" / "Lenovo"
    if not (source / "results").is_dir():
        pytest.skip("../shared/other-submitters/training-5.0/Lenovo (a package with power logs) is not present")
    package = tmp_path / "training-5.0" / "Lenovo"
    shutil.copytree(source, package)
    [folder] = [power.parent for power in (package / "results").glob("*/*/power")]
    return package, folder


def _score_rows(package: Path) -> list[dict]:  # type: ignore[type-arg]
    import json

    done = _mlcheck("score", str(package), "-t", "json", "--config", os.devnull)
    return json.loads(done.stdout)["rows"]  # type: ignore[no-any-return]


def test_a_power_log_the_summarizer_raises_on_leaves_no_result_of_the_package_valid(tmp_path: Path) -> None:
    """rv261: a run without its power/<result>/ folder: the summarizer's AssertionError is outside any
    ``try`` (3.1-6.1) and it publishes nothing of the package, but mlcheck's table called the folder's
    time, and the other systems' results, valid (MLC543 said no energy alone)."""
    import shutil

    package, folder = _power_package(tmp_path)
    system = folder.parent.name
    twin = package / "results" / f"{system}-b"
    shutil.copytree(folder.parent, twin)
    shutil.rmtree(twin / folder.name / "power")
    shutil.copy(package / "systems" / f"{system}.json", package / "systems" / f"{system}-b.json")
    assert [row["status"] for row in _score_rows(package)] == ["valid", "valid"]
    shutil.rmtree(folder / "power" / "result_3")
    rows = _score_rows(package)
    assert [row["status"] for row in rows] == ["invalid", "invalid"]
    done = _mlcheck("score", str(package), "--config", os.devnull)
    assert "the result summarizer stops on its power logs (MLC543) and publishes no result of its package" in done.stderr
    assert f"the result summarizer stops on the power logs of {folder}" in done.stderr


def test_the_summarizer_finds_a_runs_power_logs_by_the_file_name_to_its_first_dot(tmp_path: Path) -> None:
    """rv261: the summarizer globs ``power/<name before the first dot>/``; mlcheck used the package
    checker's name (to the last dot): ``result_4.1.txt`` beside ``power/result_4/`` was MLC543 and no
    energy, where the summarizer publishes the energy; beside ``power/result_4.1/``, an energy where
    the summarizer stops."""
    package, folder = _power_package(tmp_path)
    energy = _score_rows(package)[0]["results"][folder.name]["energy_joules"]
    (folder / "result_4.txt").rename(folder / "result_4.1.txt")
    row = _score_rows(package)[0]
    assert row["results"][folder.name]["energy_joules"] == energy and row["status"] == "valid"
    (folder / "power" / "result_4").rename(folder / "power" / "result_4.1")
    row = _score_rows(package)[0]
    assert row["results"][folder.name]["energy_joules"] is None and row["status"] == "invalid"


def test_no_csv_cell_of_the_results_table_is_a_formula(tmp_path: Path) -> None:
    """rv259: a benchmark folder named ``=HYPERLINK(...)`` headed a column and began the status cell
    as a working formula: only the system description's columns were guarded."""
    import csv
    import io
    import shutil

    package = _package(tmp_path)
    hostile = '=HYPERLINK("https:"&CHAR(47)&CHAR(47)&"evil.example";"x")'
    shutil.copytree(package / "results" / "acme-t8" / "resnet", package / "results" / "acme-t8" / hostile)
    done = _mlcheck("score", str(package), "-t", "csv", "--config", os.devnull)
    header, *rows = list(csv.reader(io.StringIO(done.stdout)))
    cells = header + [cell for row in rows for cell in row]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "@")], cells
    assert "'" + hostile in header and rows[0][header.index("resnet")] == "15.29"


def test_no_line_of_a_text_report_is_a_ci_workflow_command(tmp_path: Path) -> None:
    """rv259: an org folder named ``::error title=x::pwned`` began the text report's and score's
    heading lines, which a GitHub Actions runner reads as a command (``score`` has no github format)."""
    import shutil

    shutil.copytree(EXAMPLE, tmp_path / "::error title=INJ::pwned")
    for args in (("check", "::error title=INJ::pwned", "-f", "text"), ("score", "::error title=INJ::pwned"),
                 ("check", "::error title=INJ::pwned", "--color", "always"),
                 ("check", "::error title=INJ::pwned", "-o", "text:t.txt")):
        done = _mlcheck(*args, "--config", os.devnull, cwd=tmp_path)
        text = done.stdout + ((tmp_path / "t.txt").read_text("utf-8") if "text:t.txt" in args else "")
        assert "INJ" in text and not [line for line in text.splitlines() if line.lstrip().startswith("::")], (args, text)
        assert "::error title=INJ::pwned / acme-t8 / resnet" in text
        assert "--color" in args or "\\::error title=INJ::pwned / acme-t8 / resnet" in text


def test_sarif_fingerprints_do_not_depend_on_how_a_path_with_blanks_was_typed(tmp_path: Path) -> None:
    """rv259: messages' paths were cut to their last name at blanks, so ``fp sp/Ac me/systems/x.json``
    and ``../systems/x.json`` gave different fingerprints for one finding."""
    import json
    import shutil

    root = tmp_path / "fp sp"
    shutil.copytree(EXAMPLE, root / "Ac me")
    for log in (root / "Ac me" / "results").glob("*/*/result_*.txt"):
        log.write_text(log.read_text("utf-8").replace('"submission_division", "value": "closed"',
                                                      '"submission_division", "value": "Xclosed"'), "utf-8")

    def prints(done: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
        return sorted((r["ruleId"], r["partialFingerprints"]["mlcheck/v1"]) for r in json.loads(done.stdout)["runs"][0]["results"])

    typed = prints(_mlcheck("check", "fp sp/Ac me", "-f", "sarif", "--config", os.devnull, cwd=tmp_path))
    relative = prints(_mlcheck("check", "..", "-f", "sarif", "--config", os.devnull, cwd=root / "Ac me" / "results"))
    assert typed == relative and any(rule == "MLC516" for rule, _ in typed)


def test_a_switch_log_of_measured_readings_says_they_are_not_read(tmp_path: Path) -> None:
    """rv261: a switch log with power_reading records (measured, as the rules allow) scores 0 J, as the
    summarizer reads interconnect_power_est alone; the note did not say its readings were dropped."""
    from mlcheck.model import Event
    from mlcheck.score.energy import switch_energy

    events = [Event("power_reading", 300.0, {}, 1000.0 * i, i) for i in range(1, 4)]
    energy = switch_energy(events, 60_000)
    assert energy.joules == 0.0 and energy.note is not None
    assert "its 3 power_reading record(s) are not read" in energy.note


def _action_step(tmp_path: Path, paths: str, sarif: str = "mlcheck.sarif", code: int = 1) -> tuple[list[str], str, str]:
    """The action's check step run as GitHub runs it, with a stand-in mlcheck exiting ``code``:
    its arguments, $GITHUB_OUTPUT and its standard output."""
    import yaml

    action = yaml.safe_load((Path(__file__).resolve().parent.parent / "action.yml").read_text("utf-8"))
    (step,) = [step for step in action["runs"]["steps"] if step.get("id") == "check"]
    bin_dir, recorded = tmp_path / "bin", tmp_path / "argv"
    bin_dir.mkdir()
    (bin_dir / "mlcheck").write_text(f"#!{sys.executable}\nimport sys\nopen({str(recorded)!r}, 'w').write("
                                     f"'\\0'.join(sys.argv[1:]))\nsys.exit({code})\n", "utf-8")
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', "utf-8")
    for name in ("mlcheck", "python"):
        (bin_dir / name).chmod(0o755)
    output, summary = tmp_path / "github_output", tmp_path / "summary.md"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "RUNNER_TEMP": str(tmp_path),
           "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary), "MLCHECK_PATHS": paths,
           "MLCHECK_ACTION_ARGS": "", "MLCHECK_ACTION_RULESET": "", "MLCHECK_ACTION_STRICT": "", "MLCHECK_ACTION_SARIF": sarif}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                          env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    said = done.stdout + (summary.read_text("utf-8") if summary.exists() else "")
    return recorded.read_text("utf-8").split("\0") if recorded.exists() else [], output.read_text("utf-8"), said


def test_the_actions_paths_and_sarif_inputs_as_templates_leave_them(tmp_path: Path) -> None:
    """rv264: ``paths: >`` (folded) ends in a newline and was one path "Acme/ Beta/"; an empty paths or
    sarif-file (a template's unset input) was a usage error, where empty inputs count as unset."""
    argv, output, _ = _action_step(tmp_path, "Acme/ Beta/\n")
    assert argv[:3] == ["check", "Acme/", "Beta/"] and "exit-code=1" in output
    (tmp_path / "empty").mkdir()
    argv, _, _ = _action_step(tmp_path / "empty", "", sarif="")
    assert argv[:2] == ["check", "."] and "sarif:mlcheck.sarif" in argv


def test_the_action_says_where_mlcheck_could_not_run(tmp_path: Path) -> None:
    """rv264: exit 2 left no annotation and an empty step summary, while the failing step sent the
    user to both."""
    _, output, said = _action_step(tmp_path, "Acme/", code=2)
    assert "exit-code=2" in output
    assert "::error title=mlcheck::mlcheck exited with 2; the step's log says why" in said
    assert "**mlcheck could not run** (exit 2)" in said
    (tmp_path / "killed").mkdir()
    _, output, said = _action_step(tmp_path / "killed", "Acme/", code=137)
    assert "exit-code=137" in output and "mlcheck exited with 137" in said and "(exit 137)" in said


def test_the_job_summary_lists_every_failing_rule_and_the_annotations_github_leaves_out(tmp_path: Path) -> None:
    """rv264: the summary kept the 15 most frequent rules, info ones first, and cut the rules that failed
    the job; nothing said that GitHub shows ten annotations of a kind per step."""
    from mlcheck.model import Finding, Severity
    from mlcheck.report import ReportOptions
    from mlcheck.report.job_summary import render_job_summary
    from mlcheck.results import CheckResult

    findings = tuple(Finding(f"MLC{100 + i}", "noisy", Severity.INFO, "x", f"f{i}_{j}.txt", 1)
                     for i in range(20) for j in range(20)) + (Finding("MLC301", "target-not-reached", Severity.ERROR,
                                                                      "x", "bad.txt", 3),)
    text = render_job_summary(CheckResult(runs=(), benchmarks=(), findings=findings), ReportOptions())
    assert "| `MLC301` target-not-reached | error | 1 | 1 |" in text
    assert text.index("MLC301") < text.index("MLC100") and "… 5 more rules" in text
    assert "GitHub shows 10 annotations of each kind per step: 10 of 20 notice annotations (one per group of like findings) are not shown there" in text


def test_annotations_are_relative_to_the_repository_of_the_checked_files(tmp_path: Path) -> None:
    """rv264: a repository checked out in a folder of the workspace (``path: repo``) gave
    ``repo/Acme/...``; outside any repository the paths were relative to the working folder."""
    import shutil

    repo = tmp_path / "workspace" / "repo"
    shutil.copytree(EXAMPLE, repo / "Acme")
    (repo / ".git").mkdir()
    log = repo / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt"
    log.write_text(log.read_text("utf-8").replace('"submission_division", "value": "closed"',
                                                  '"submission_division", "value": "Xclosed"'), "utf-8")
    done = _mlcheck("check", "repo/Acme", "-f", "github", "--config", os.devnull, cwd=tmp_path / "workspace")
    files = {part.split(",")[0] for part in done.stdout.split("file=")[1:]}
    assert files and all(name.startswith("Acme/") for name in files), done.stdout


def _died(text: str) -> str:
    """The run killed before its run_stop (its last evals and run_stop gone)."""
    lines = text.splitlines()
    evals = [i for i, line in enumerate(lines) if '"eval_accuracy"' in line]
    return "\n".join(lines[:evals[-2]]) + "\n"


def test_watch_does_not_tolerate_a_run_that_died_nor_two_aborted_runs(tmp_path: Path) -> None:
    """rv262: a run killed without run_stop was "tolerated so far", but the job may launch it again,
    an attempt check counts as a run of its own (6 runs: no valid result), and --fail-fast followed the
    whole job; two converged runs logged aborted, which the RCP test counts as not converged, were
    both tolerated."""
    runs = [path.read_text("utf-8") for path in sorted(RESNET.glob("result_*.txt"))]
    log = tmp_path / "console.log"
    log.write_text(_died(runs[0]) + "mpirun noticed that process rank 0 with PID 4242 on node n1 exited on signal 9 "
                   "(Killed).\n" + "".join(runs), "utf-8")
    done = _watch(log, 5)
    assert done.returncode == 1 and "--fail-fast: stopped on the first error (MLC102" in done.stderr, done.stderr
    stops = [next(line for line in text.splitlines() if '"run_stop"' in line) for text in runs[:2]]
    log.write_text("".join(text.replace(stop, stop.replace('"success"', '"aborted"')) for text, stop in
                           zip(runs, stops + ["-"] * 3)), "utf-8")
    done = _watch(log, 5)
    said = [line for line in done.stderr.splitlines() if "MLC302 " in line and "--fail-fast" not in line]
    assert ": warning MLC302 " in said[0] and ": error MLC302 " in said[1] and done.returncode == 1, done.stderr


def test_watch_writes_its_report_on_standard_output_with_o_dash(tmp_path: Path) -> None:
    """rv262: ``watch -o json:-`` was always a usage error (its own text default took stdout)."""
    import json

    log = _console(tmp_path, {})
    done = _mlcheck("watch", str(log), "--runs", "5", "--poll", "0.05", "--idle-timeout", "5", "--no-progress",
                    "--config", os.devnull, "-o", "json:-")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["runs"]) == 5


def test_a_found_config_writes_nowhere_in_a_results_folder_nor_into_a_fifo(tmp_path: Path) -> None:
    """rv262: a results/ folder without systems/ beside it (a package mlcheck reads as one) took a found
    config's result_5.txt; a FIFO named as an output hung mlcheck while the config loaded."""
    import shutil

    shutil.copytree(EXAMPLE / "results", tmp_path / "Org" / "results")
    log = tmp_path / "job.log"
    log.write_bytes((RESNET / "result_0.txt").read_bytes())
    os.mkfifo(tmp_path / "x.sarif")
    (tmp_path / ".mlcheck.toml").write_text('output = ["text:Org/results/acme-t8/resnet/result_5.txt", '
                                            '"json:org/RESULTS/r.json", "x.sarif"]\n', "utf-8")
    done = _mlcheck("check", "job.log", cwd=tmp_path)
    said = [line for line in done.stdout.splitlines() if "MLC041" in line and "error" in line]
    assert len(said) == 3 and done.returncode == 1, done.stdout
    assert "a submission package's results/ folder" in said[1] and "RESULTS/ folder" in said[0]
    assert "'x.sarif' names something that is no regular file" in said[2]
    assert not (tmp_path / "Org" / "results" / "acme-t8" / "resnet" / "result_5.txt").exists()


def test_a_text_report_of_standard_output_is_known_and_not_read_as_a_log(tmp_path: Path) -> None:
    """rv262: a text report written before (``check X > report.txt``, without the verdict line) was no
    report mlcheck wrote for a found config; a text report beside console logs was read as a log on
    the next check (MLC002, or exit 2: an input of the check). A console that ends with mlcheck's
    report is a log all the same."""
    from mlcheck.package.own_reports import written_by_mlcheck

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "job.log").write_text("".join(p.read_text("utf-8") for p in sorted(RESNET.glob("result_*.txt"))), "utf-8")
    report = _mlcheck("check", str(logs / "job.log"), "--config", os.devnull).stdout
    (logs / "report.txt").write_text(report, "utf-8")
    (tmp_path / "ends_with_report.log").write_text((logs / "job.log").read_text("utf-8") + report, "utf-8")
    assert written_by_mlcheck(str(logs / "report.txt")) and not written_by_mlcheck(str(tmp_path / "ends_with_report.log"))
    done = _mlcheck("check", str(logs), "--config", os.devnull)
    assert done.returncode == 0 and "5 runs (0 failing)" in done.stderr, done.stdout
    (logs / ".mlcheck.toml").write_text('output = ["text:report.txt"]\n', "utf-8")
    assert _mlcheck("check", ".", cwd=logs).returncode == 0
    assert (logs / "report.txt").read_text("utf-8").splitlines()[-1].startswith("mlcheck: 5 runs (0 failing)")


def test_the_power_logs_of_a_run_the_compliance_check_fails_are_not_read(tmp_path: Path) -> None:
    """rv263: with more non-converged runs than the round allows, the score counts them, and mlcheck
    read their power logs: a failed run without power/<result>/ was "the summarizer stops" and made
    the package's other results invalid, where the summarizer never reads it (its compliance check
    fails first) and publishes the package."""
    import shutil

    package, folder = _power_package(tmp_path)
    system = folder.parent.name
    twin = package / "results" / f"{system}-b"
    shutil.copytree(folder.parent, twin)
    shutil.copy(package / "systems" / f"{system}.json", package / "systems" / f"{system}-b.json")
    for name in ("result_3.txt", "result_4.txt"):  # (no run_stop: not converged, the compliance check fails them)
        log = twin / folder.name / name
        log.write_text("".join(line for line in log.read_text("utf-8").splitlines(keepends=True)
                               if '"run_stop"' not in line), "utf-8")
    shutil.rmtree(twin / folder.name / "power" / "result_3")
    rows = {row["system"].rsplit("(", 1)[-1].rstrip(")"): row["status"] for row in _score_rows(package)}
    assert rows == {system: "valid", f"{system}-b": "invalid"}
    done = _mlcheck("check", str(package), "--config", os.devnull)
    assert "the summarizer fails on this run" not in done.stdout and "stops on the power logs" not in done.stdout


def test_no_blank_nor_the_older_command_form_lets_a_line_be_a_command() -> None:
    """rv263: the runner trims every Unicode blank before ``::`` (a no-break space passed), and reads
    ``##[error]`` anywhere in a line (a folder named so was in every finding line)."""
    from mlcheck.report.plain import command_safe, one_line

    assert command_safe("\u00a0::error x\n\u3000::warning y\nok\n") == "\u00a0\\::error x\n\u3000\\::warning y\nok\n"
    assert one_line("pkg ##[error]legacy/results") == "pkg ##\\[error]legacy/results"


def test_watch_fail_fast_writes_the_o_reports_of_the_runs_it_judged(tmp_path: Path) -> None:
    """rv262: with --fail-fast, ``-o sarif:FILE`` was not written (only --format json|sarif printed a
    report), and that report held a made-up run: the next run's first record, read ahead."""
    import json

    log = _console(tmp_path, {0: "aborted", 2: "aborted"})
    report = tmp_path / "watch.json"
    done = _mlcheck("watch", str(log), "--runs", "5", "--fail-fast", "--poll", "0.05", "--idle-timeout", "5",
                    "--no-progress", "--config", os.devnull, "-o", f"json:{report}")
    assert done.returncode == 1 and "the -o reports cover them" in done.stderr, done.stderr
    data = json.loads(report.read_text("utf-8"))
    assert len(data["runs"]) == 3 and [b["benchmark"] for b in data["benchmarks"]] == ["resnet"]


def test_the_action_says_each_of_its_own_refusals_on_the_jobs_page(tmp_path: Path) -> None:
    """rv265: an args input that cannot be split, or a strict input that is no boolean, exited 2 with a
    plain line alone (no annotation, no summary), while the failing step sends the user to both."""
    import yaml

    action = yaml.safe_load((Path(__file__).resolve().parent.parent / "action.yml").read_text("utf-8"))
    (step,) = [step for step in action["runs"]["steps"] if step.get("id") == "check"]
    for name, value, said in (("MLCHECK_ACTION_ARGS", '--ignore "MLC', "the args input cannot be split"),
                              ("MLCHECK_ACTION_STRICT", "maybe 100%", "the strict input 'maybe 100%25'")):
        output, summary = tmp_path / f"{name}.out", tmp_path / f"{name}.md"
        env = {**os.environ, "RUNNER_TEMP": str(tmp_path), "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
               "MLCHECK_PATHS": ".", "MLCHECK_ACTION_ARGS": "", "MLCHECK_ACTION_RULESET": "", "MLCHECK_ACTION_STRICT": "",
               "MLCHECK_ACTION_SARIF": "", "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               name: value}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], env=env,
                              cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0 and output.read_text("utf-8").endswith("exit-code=2\n"), done.stderr
        assert f"::error title=mlcheck::{said}" in done.stdout and "**mlcheck could not run**" in summary.read_text("utf-8")


def test_own_reports_are_told_from_notes_that_look_like_them(tmp_path: Path) -> None:
    """rv265: a note whose last line was a pasted verdict, or whose first line looked like a folder's
    title, was taken for mlcheck's report (a found config replaced it); a report quoting ``:::MLLOG {``
    (a folder's name) or one of ``--color always`` was not."""
    import shutil

    from mlcheck.package.own_reports import written_by_mlcheck

    (tmp_path / "review.txt").write_text("my notes\nmlcheck: 5 runs (0 failing), 1 benchmark (1 with a valid "
                                         "score), 0 errors, 0 warnings\n", "utf-8")
    (tmp_path / "todo.md").write_text("Acme / t8 / resnet (2.0.0): my notes\nmore\n", "utf-8")
    odd = tmp_path / "m" / ":::MLLOG {1"
    shutil.copytree(EXAMPLE, odd)
    log = odd / "results" / "acme-t8" / "resnet" / "result_0.txt"
    log.write_text(log.read_text("utf-8").replace('"value": "closed"', '"value": "Xclosed"'), "utf-8")
    for name, args in (("quoting.txt", (str(tmp_path / "m"),)), ("colour.txt", (str(EXAMPLE), "--color", "always")),
                       ("concise.txt", (str(tmp_path / "m"), "--output-format", "concise")),
                       ("quiet.txt", (str(EXAMPLE), "-q"))):
        (tmp_path / name).write_text(_mlcheck("check", *args, "--config", os.devnull).stdout, "utf-8")
    verdicts = {name: written_by_mlcheck(str(tmp_path / name)) for name in
                ("review.txt", "todo.md", "quoting.txt", "colour.txt", "concise.txt", "quiet.txt")}
    assert verdicts == {"review.txt": False, "todo.md": False, "quoting.txt": True, "colour.txt": True,
                        "concise.txt": True, "quiet.txt": True}


def test_watch_counts_a_converged_run_of_any_status_but_success_against_the_allowance(tmp_path: Path) -> None:
    """rv265: a converged run logged ``failed`` (the RCP test counts it as not converged) left the
    allowance free: a later non-converged run was "tolerated so far" and --fail-fast read on to the end."""
    runs = [path.read_text("utf-8") for path in sorted(RESNET.glob("result_*.txt"))]
    stop = next(line for line in runs[1].splitlines() if '"run_stop"' in line)
    runs[1] = runs[1].replace(stop, stop.replace('"success"', '"failed"'))
    runs[3] = _not_converged(runs[3])
    log = tmp_path / "console.log"
    log.write_text("".join(runs), "utf-8")
    done = _watch(log, 5)
    assert done.returncode == 1 and ": error MLC301 " in done.stderr and "stopped on the first error (MLC301" in done.stderr


def test_how_deep_a_record_may_nest_does_not_depend_on_the_python(tmp_path: Path) -> None:
    """rv266: Python 3.12+ json reads thousands of levels where 3.10 and 3.11 (where the official
    tools ran) refuse about 1,000: a record 5,000 deep was MLC003 (no score) on 3.11 and valid on
    3.13. mlcheck keeps one limit, NESTING_LIMIT, on every interpreter."""
    from mlcheck import check
    from mlcheck.package.power import official_parse
    from mlcheck.read.json_depth import NESTING_LIMIT, nesting_depth

    assert nesting_depth('{"a": "' + "[" * 2000 + '"}') == 1 and nesting_depth("[" * 960 + "]" * 960) == 960
    text = (RESNET / "result_0.txt").read_text("utf-8").splitlines()
    for depth, refused in ((NESTING_LIMIT - 10, False), (NESTING_LIMIT, True), (5000, True)):
        lines = list(text)
        lines[4] = lines[4].replace(":::MLLOG {", ':::MLLOG {"deep": ' + "[" * depth + "]" * depth + ", ")
        log = tmp_path / f"deep_{depth}.txt"
        log.write_text("\n".join(lines) + "\n", "utf-8")
        [run] = check([str(log)]).runs
        assert any(f.code == "MLC003" and f.line == 5 for f in run.findings) is refused, depth
        assert (official_parse(str(log))[0] == (5, "RecursionError")) is refused


def test_a_waiver_date_is_read_alike_on_every_python(tmp_path: Path) -> None:
    """rv266: ``expires = "20991231"`` was a date on 3.11+ (fromisoformat reads it) and MLC041 on 3.10."""
    from mlcheck.settings.waiver_table import _date

    assert _date("2099-12-31")[0] is not None
    assert _date("20991231")[0] is None and _date("2099-W52-4")[0] is None


def test_watch_fail_fast_reports_a_run_stopped_in_the_middle_whole_as_read(tmp_path: Path) -> None:
    """rv268: the report of a stop cut the log at the error's line: a value decided early (MLC108,
    the division) cut its run before its org and system records, a made-up second benchmark."""
    import json

    runs = [path.read_text("utf-8") for path in sorted(RESNET.glob("result_*.txt"))]
    runs[1] = runs[1].replace('"submission_division", "value": "closed"', '"submission_division", "value": "Xclosed"')
    log = tmp_path / "console.log"
    log.write_text("".join(runs), "utf-8")
    done = _mlcheck("watch", str(log), "--runs", "5", "--fail-fast", "--poll", "0.05", "--idle-timeout", "5",
                    "--no-progress", "--config", os.devnull, "-f", "json")
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert [b["benchmark"] for b in data["benchmarks"]] == ["resnet"] and {r["org"] for r in data["runs"]} == {"Acme"}


def test_the_job_summarys_results_table_is_cut_to_stay_under_githubs_limit() -> None:
    """rv264: nothing kept the step summary under GitHub's 1 MiB, over which GitHub drops it whole."""
    from mlcheck.report.job_summary import _within

    table = "\n".join(["| a | b |", "|---|---|"] + [f"| row {i} | {'x' * 1000} |" for i in range(2000)])
    cut = _within(table, 100_000)
    assert len(cut.encode()) <= 100_000 and cut.startswith("| a | b |\n|---|---|\n| row 0 |")
    kept = cut.count("\n| row ")
    assert f"… {2000 - kept} more rows" in cut and "mlcheck score -t markdown" in cut
    assert _within("| a |\n|---|\n| 1 |", 1000) == "| a |\n|---|\n| 1 |"


def test_the_actions_sarif_file_input_is_trimmed_and_an_old_report_removed(tmp_path: Path) -> None:
    """rv267: ``sarif-file: reports/m.sarif`` ending in a newline was written as ``m.sarif\\n`` (the upload
    step looked for another name); a report an earlier use left was uploaded again when this run wrote none."""
    (tmp_path / "m.sarif").write_text(_mlcheck("check", str(EXAMPLE), "-f", "sarif", "--config", os.devnull).stdout,
                                      "utf-8")
    argv, output, _ = _action_step(tmp_path, "Acme/", sarif=" m.sarif\n")
    assert "sarif:m.sarif" in argv and "sarif-file=m.sarif" in output
    assert not (tmp_path / "m.sarif").exists()  # (the stand-in mlcheck writes none)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.json").write_text('{"mine": true}', "utf-8")  # (rv269: no other file is removed)
    _action_step(tmp_path / "other", "Acme/", sarif="notes.json")
    assert (tmp_path / "other" / "notes.json").read_text("utf-8") == '{"mine": true}'


def test_a_report_is_known_by_its_end_as_well_as_its_beginning(tmp_path: Path) -> None:
    """rv267: a title and a second line beginning with any byte of a box character (a bullet, a dash)
    was a report; a job's console that printed mlcheck's report and then crashed was passed over by
    discovery (the check passed); a report beginning "Waived", or of nothing but its verdict, was not one."""
    from mlcheck.package.own_reports import written_by_mlcheck

    report = _mlcheck("check", str(EXAMPLE), "--config", os.devnull).stdout
    samples = {"bullet.txt": "Acme / acme-t8 / resnet (2.0.0)\n\u2022 check the seeds\n",
               "crash.log": report + "Traceback (most recent call last):\nImportError: no module named x\n",
               "waived.txt": "Waived\nx.txt: MLC501 empty: waived\n`mlcheck explain CODE` documents each rule (MLC501)\n",
               "verdict.txt": "mlcheck: 1 run (0 failing), 0 benchmarks (0 with a valid score), 0 errors, 0 warnings\n",
               "report.txt": report}
    for name, text in samples.items():
        (tmp_path / name).write_text(text, "utf-8")
    assert {name: written_by_mlcheck(str(tmp_path / name)) for name in samples} == {
        "bullet.txt": False, "crash.log": False, "waived.txt": True, "verdict.txt": True, "report.txt": True}


def test_the_depth_limit_counts_what_json_reads_and_no_decoding_raises_on_it(tmp_path: Path) -> None:
    """rv269: brackets after a record's JSON (which json never reads) made it too deep; a record cut by
    another rank's tag, 1,000 deep, made reading the log raise RecursionError on 3.10 and 3.11; a
    string of two million brackets took a fifth of a second per line to count."""
    from mlcheck import check
    from mlcheck.read.json_depth import NESTING_LIMIT, nesting_depth

    lines = (RESNET / "result_0.txt").read_text("utf-8").splitlines()
    lines[0] = lines[0] + " " + "[" * 1000
    log = tmp_path / "trail.txt"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    assert not any(f.code == "MLC003" for f in check([str(log)]).runs[0].findings)
    assert nesting_depth('"' + "[" * 2_000_000 + '"') == 0 and nesting_depth("[" * NESTING_LIMIT) == NESTING_LIMIT
    raw = (Path(__file__).resolve().parent.parent / "fixtures" / "raw" / "shared_line.log").read_text("utf-8").splitlines()
    at = next(i for i, line in enumerate(raw) if ":::MLLOG {" in line)
    raw[at] = raw[at].replace(":::MLLOG {", ':::MLLOG {"deep": ' + "[" * 1000 + "]" * 1000 + ", ", 1)
    console = tmp_path / "shared.log"
    console.write_text("\n".join(raw) + "\n", "utf-8")
    found = [f.code for run in check([str(console)]).runs for f in run.findings]
    assert "MLC000" not in found and "MLC003" in found


def test_every_decoding_of_a_record_keeps_the_same_depth_limit(tmp_path: Path) -> None:
    """rv270: the helpers that find where two records on one line part, and the Docker envelopes'
    reader, decoded with plain json: a record 1,000 deep was read on 3.13 and not on 3.11 (different
    reports and split files). Each now decodes within NESTING_LIMIT; a probe that takes a syntax error
    as it takes a text too deep (is this a whole record?) does not count the text before an error."""
    import json

    import pytest

    from mlcheck.read.json_depth import NESTING_LIMIT, loads, within_limit

    deep = '{"a": ' + "[" * 1000 + "]" * 1000 + "}"
    for call in (lambda: loads(deep), lambda: loads(deep.encode()),
                 lambda: within_limit(json.JSONDecoder().raw_decode, deep)):
        with pytest.raises(RecursionError):
            call()
    cut = "[" * NESTING_LIMIT + " x"
    with pytest.raises(RecursionError):
        within_limit(json.loads, cut)
    with pytest.raises(json.JSONDecodeError):
        within_limit(json.loads, cut, errors_alike=True)


def test_the_actions_sarif_file_is_one_path_and_a_link_to_an_old_report_goes(tmp_path: Path) -> None:
    """rv269, rv270: a sarif-file of two lines broke $GITHUB_OUTPUT; a link to an earlier report was left
    (the upload step sent it again when this run wrote none)."""
    report = tmp_path / "run1.sarif"
    report.write_text(_mlcheck("check", str(EXAMPLE), "-f", "sarif", "--config", os.devnull).stdout, "utf-8")
    (tmp_path / "latest.sarif").symlink_to("run1.sarif")
    _action_step(tmp_path, "Acme/", sarif="latest.sarif")
    assert not (tmp_path / "latest.sarif").is_symlink() and report.is_file()
    (tmp_path / "two").mkdir()
    _, output, said = _action_step(tmp_path / "two", "Acme/", sarif="a.sarif\nb.sarif")
    assert output.endswith("exit-code=2\n") and "the sarif-file input holds a line end" in said


def test_an_over_long_integer_deep_inside_is_too_deep_and_said_in_mlchecks_words(tmp_path: Path) -> None:
    """rv271: a 5,000-digit integer 2,500 levels deep was RecursionError on 3.10 and 3.11 and
    Python's digit limit on 3.13 (a power log's energy valid on one, not the other); a flat one was
    said in Python's words, which differ from 3.10 to 3.11."""
    import pytest

    from mlcheck import check
    from mlcheck.read.json_depth import loads

    with pytest.raises(RecursionError):
        loads("[" * 2500 + "1" * 5000 + "]" * 2500)
    lines = (RESNET / "result_0.txt").read_text("utf-8").splitlines()
    lines[4] = lines[4].replace(":::MLLOG {", ':::MLLOG {"big": ' + "1" * 5000 + ", ")
    log = tmp_path / "flat.txt"
    log.write_text("\n".join(lines) + "\n", "utf-8")
    [found] = [f for f in check([str(log)]).runs[0].findings if f.code == "MLC003"]
    assert "an integer of more than 4300 digits, which Python's json refuses" in found.message
