"""The progress bar: drawn on stderr when it is a terminal (a pseudo-terminal here), never when
stderr is piped, never mixed into stdout."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_config import make_log

RUNS = 1000
CLI = [sys.executable, "-c", "from mlcheck.cli import main; main()"]


@pytest.fixture(scope="module")
def big_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ``Acme`` package of 200 benchmark folders of 5 small runs: 1,000 runs."""
    root = tmp_path_factory.mktemp("progress") / "Acme"
    for system in range(RUNS // 5):
        folder = root / "results" / f"sys{system:03d}" / "resnet"
        folder.mkdir(parents=True)
        for index in range(5):
            (folder / f"result_{index}.txt").write_text(make_log(index, minutes=10.0 + index),
                                                       encoding="utf-8")
    return root


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "GITHUB_ACTIONS", "CI")}
    env.update(TERM="xterm-256color", COLUMNS="100", LINES="40")
    return env


def _run_with_pty_stderr(args: list[str], stdout_path: Path) -> tuple[int, str]:
    master, slave = pty.openpty()
    with open(stdout_path, "wb") as stdout:
        proc = subprocess.Popen(CLI + args, stdout=stdout, stderr=slave, stdin=subprocess.DEVNULL, env=_env())
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return proc.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


def test_progress_bar_on_a_terminal(big_package: Path, tmp_path: Path) -> None:
    started = time.monotonic()
    code, terminal = _run_with_pty_stderr(["check", str(big_package), "-f", "json"], tmp_path / "out.json")
    assert code in (0, 1)
    assert "reading logs" in terminal and f"/{RUNS}" in terminal
    assert "mlcheck: 1000 runs" in terminal
    stdout = (tmp_path / "out.json").read_text(encoding="utf-8")
    assert stdout.startswith("{") and "reading logs" not in stdout
    assert time.monotonic() - started < 30


def test_color_never_draws_the_progress_bar_without_colour(big_package: Path, tmp_path: Path) -> None:
    code, terminal = _run_with_pty_stderr(["check", str(big_package), "-f", "json", "--color", "never"],
                                          tmp_path / "out.json")
    assert code in (0, 1) and "reading logs" in terminal
    assert not any(f"\x1b[{n}m" in terminal for n in (31, 32, 36, 90, 91, "1;31"))


def test_no_progress_bar_when_piped(big_package: Path) -> None:
    done = subprocess.run(CLI + ["check", str(big_package), "-f", "json"], capture_output=True, text=True,
                          env=_env(), timeout=60)
    assert done.returncode in (0, 1)
    assert "reading logs" not in done.stderr and "\x1b[" not in done.stderr
    assert done.stderr.startswith("mlcheck: 1000 runs")


def test_no_progress_flag_on_a_terminal(big_package: Path, tmp_path: Path) -> None:
    code, terminal = _run_with_pty_stderr(["check", str(big_package), "-f", "json", "--no-progress"],
                                          tmp_path / "out.json")
    assert code in (0, 1) and "reading logs" not in terminal and "mlcheck: 1000 runs" in terminal


def _run_on_terminal(args: list[str], env: dict[str, str]) -> str:
    """stdout and stderr both on a pseudo-terminal; what the terminal showed."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(CLI + args, stdout=slave, stderr=slave, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    proc.wait(timeout=60)
    return b"".join(chunks).decode("utf-8", "replace")


def test_color_on_a_terminal_honours_no_color(tmp_path: Path) -> None:
    log = tmp_path / "result_0.txt"
    log.write_text(make_log(stop=False), encoding="utf-8")
    coloured = _run_on_terminal(["check", str(log)], _env())
    assert "\x1b[" in coloured and "MLC102" in coloured
    plain = _run_on_terminal(["check", str(log)], {**_env(), "NO_COLOR": "1"})
    assert "MLC102" in plain and not any(f"\x1b[{n}m" in plain for n in (31, 32, 33, 36, "1;31"))
    forced = _run_on_terminal(["check", str(log), "--color", "always"], {**_env(), "NO_COLOR": "1"})
    assert "\x1b[1;31m" in forced or "\x1b[31m" in forced
