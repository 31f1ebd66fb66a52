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
        assert done.returncode == 1 and "-: error MLC015 not-a-regular-file: this is a device" in done.stdout
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
