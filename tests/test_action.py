"""The GitHub Action's check step, run as GitHub runs it (``bash -eo pipefail``) with a stand-in
``mlcheck`` that records its arguments: paths one per line, and ``args`` split as a shell splits
words (every line of it, quotes kept together; a value that cannot be split fails the job)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


def _run_step(tmp_path: Path, paths: str, args: str,
              strict: str = "") -> tuple[list[str] | None, str, subprocess.CompletedProcess[str]]:
    action = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
    (step,) = [step for step in action["runs"]["steps"] if step.get("id") == "check"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    recorded = tmp_path / "argv"
    fake = bin_dir / "mlcheck"
    fake.write_text(f"#!{sys.executable}\nimport sys\nopen({str(recorded)!r}, 'w').write('\\0'.join(sys.argv[1:]))\n"
                    "sys.exit(1)\n", "utf-8")
    fake.chmod(0o755)
    python = bin_dir / "python"  # (the action's setup-python step puts one, with mlcheck installed, on PATH)
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', "utf-8")
    python.chmod(0o755)
    output = tmp_path / "github_output"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "RUNNER_TEMP": str(tmp_path),
           "GITHUB_OUTPUT": str(output), "MLCHECK_PATHS": paths, "MLCHECK_ACTION_ARGS": args,
           "MLCHECK_ACTION_RULESET": "", "MLCHECK_ACTION_STRICT": strict, "MLCHECK_ACTION_SARIF": "mlcheck.sarif"}
    done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                          env=env, cwd=tmp_path, capture_output=True, text=True)
    argv = recorded.read_text("utf-8").split("\0") if recorded.exists() else None
    return argv, output.read_text("utf-8") if output.exists() else "", done


def test_every_line_of_args_is_passed_and_quotes_keep_a_value_whole(tmp_path: Path) -> None:
    argv, output, done = _run_step(tmp_path, "Acme/\nBeta Corp/\n",
                                   '--ignore MLC402  # noisy\n--strict --config "ci config.toml" -o junit:run#1.xml\n')
    assert done.returncode == 0, done.stderr
    assert argv is not None and argv[:3] == ["check", "Acme/", "Beta Corp/"]
    assert argv[-7:] == ["--ignore", "MLC402", "--strict", "--config", "ci config.toml", "-o", "junit:run#1.xml"]
    assert "exit-code=1" in output


def test_args_that_cannot_be_split_fail_the_step_without_running_mlcheck(tmp_path: Path) -> None:
    argv, output, done = _run_step(tmp_path, "Acme/", '--config "unclosed')
    assert argv is None
    assert "exit-code=2" in output
    assert "the args input cannot be split" in done.stderr


@pytest.mark.parametrize("text,words", [
    ("-o junit:reports/run#1.xml --strict", ["-o", "junit:reports/run#1.xml", "--strict"]),  # (# inside a word)
    ("--ignore MLC402  # noisy rule\n--strict", ["--ignore", "MLC402", "--strict"]),
    ("# a comment line\n-v", ["-v"]),
    ("a\\ #b c", ["a #b", "c"]),  # (an escaped blank: the # does not begin a word)
    ('"x # y" z', ["x # y", "z"]),
    ("x \\#y z #c", ["x", "#y", "z"]),
    ("--ignore MLC507 \\\n--strict", ["--ignore", "MLC507", "--strict"]),  # (rv240: a line continuation, as bash reads it)
    ('"a \\\nb" c\\\nd', ["a b", "cd"]),
])
def test_args_are_split_as_a_shell_splits_words(text: str, words: list[str]) -> None:
    from mlcheck.settings.shell_words import shell_words

    assert shell_words(text) == words


@pytest.mark.parametrize("strict, option", [("True", "--strict"), ("yes", "--strict"), ("1", "--strict"), (" true\n", "--strict"),
                                            ("OFF", "--no-strict"), ("false", "--no-strict"), ("", None)])
def test_the_strict_input_takes_the_spellings_mlcheck_takes(tmp_path: Path, strict: str, option: str | None) -> None:
    """rv240: 'True' or 'yes' was neither --strict nor --no-strict, without a word."""
    argv, _output, done = _run_step(tmp_path, "Acme/", "", strict)
    assert done.returncode == 0 and argv is not None
    assert [word for word in argv if word in ("--strict", "--no-strict")] == ([option] if option else [])


def test_a_strict_input_of_another_word_fails_the_step(tmp_path: Path) -> None:
    argv, output, done = _run_step(tmp_path, "Acme/", "", "sometimes")
    assert argv is None and "exit-code=2" in output and "the strict input 'sometimes'" in done.stdout
