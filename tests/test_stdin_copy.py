"""Standard input is copied once to a temporary file and read as a file (session 34): the copy
is removed when mlcheck ends, by SIGTERM too, and a copy that cannot be written is said as such."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mlcheck.cli import main

RUN = Path(__file__).resolve().parent.parent / "fixtures" / "example" / "Acme" / "results" / "acme-t8" / "resnet" / \
    "result_0.txt"


def test_stdin_is_judged_as_the_file_and_its_copy_is_gone(tmp_path: Path) -> None:
    env = dict(os.environ, TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "mlcheck", "check", "-", "-f", "json"], input=RUN.read_bytes(),
                          capture_output=True, env=env, timeout=120)
    (run,) = json.loads(done.stdout)["runs"]
    assert done.returncode == 0 and run["path"] == "-" and run["time_to_train_min"] == pytest.approx(14.76, abs=0.01)
    assert list(tmp_path.iterdir()) == []


def _copy_begun(process: subprocess.Popen[bytes], folder: Path) -> bool:
    """Whether ``process`` made its copy of stdin in ``folder``: a file named so there, or (Linux) a
    descriptor it holds on such a file whose name it removed."""
    if any(p.name.startswith("mlcheck-stdin-") for p in folder.iterdir()):
        return True
    fds = Path(f"/proc/{process.pid}/fd")
    try:
        return any(os.readlink(fd).startswith(str(folder)) for fd in fds.iterdir())
    except OSError:
        return False


def _wait_for_the_copy(process: subprocess.Popen[bytes], folder: Path) -> None:
    # (until the copy is begun; `tempfile.gettempdir()` first writes and removes a probe file with
    # a random 8-letter name in TMPDIR, which a look at the wrong moment sees: it is not the copy)
    for _ in range(600):
        if _copy_begun(process, folder):
            return
        time.sleep(0.05)
    raise AssertionError("mlcheck made no copy of stdin in 30 s")


@pytest.mark.skipif(not hasattr(signal, "SIGHUP") or sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGKILL"])
def test_a_signal_while_the_job_still_writes_leaves_no_copy(tmp_path: Path, name: str) -> None:
    """`mpirun ... | mlcheck check -` ended by a CI job's time-out (SIGTERM), a closed terminal
    (SIGHUP) or the OOM killer (SIGKILL, which no handler sees: on Linux the copy's name is removed
    as it is made, session 51): no copy of the console is left."""
    number = getattr(signal, name)
    if number == signal.SIGKILL and not os.path.isdir("/proc/self/fd"):
        pytest.skip("a copy outlives SIGKILL where the system does not show a process its open files (/proc/self/fd)")
    env = dict(os.environ, TMPDIR=str(tmp_path))
    process = subprocess.Popen([sys.executable, "-m", "mlcheck", "check", "-"], stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    assert process.stdin is not None
    process.stdin.write(RUN.read_bytes())
    process.stdin.flush()
    _wait_for_the_copy(process, tmp_path)
    process.send_signal(number)
    assert process.wait(timeout=60) in (-number, 128 + number)
    process.stdin.close()
    assert list(tmp_path.iterdir()) == []


def test_a_copy_that_cannot_be_written_is_said_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile

    def full(*_args: object, **_kwargs: object) -> object:
        raise OSError(errno.ENOSPC, "No space left on device")

    from mlcheck.read import stdin_copy

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", full)
    monkeypatch.setattr(stdin_copy, "_nameless_file", lambda folder: -1)
    done = CliRunner().invoke(main, ["check", "-", "-f", "json"], input=RUN.read_bytes())
    (run,) = json.loads(done.stdout)["runs"]
    (found,) = [f for f in run["findings"] if f["code"] == "MLC001"]
    assert found["message"].startswith("cannot copy standard input to a temporary file in ") and \
        "(No space left on device); set TMPDIR to a folder with room" in found["message"]
    assert found["official"] is False and done.exit_code == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")
def test_a_gzip_log_through_a_named_pipe_is_read_once_and_its_copy_removed(tmp_path: Path) -> None:
    """`mlcheck check <(gzip -c log)`, or a FIFO a job writes: the gzip header is told by the first
    bytes, then the log read again; a pipe gives its bytes once, so its copy is read (session 46:
    'the log is empty' before, or a wait for a writer that had gone)."""
    import gzip

    fifo, temp = tmp_path / "job.log.gz", tmp_path / "tmp"
    os.mkfifo(fifo)
    temp.mkdir()
    process = subprocess.Popen([sys.executable, "-m", "mlcheck", "check", str(fifo), "-f", "json", "--jobs", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=dict(os.environ, TMPDIR=str(temp)))
    with open(fifo, "wb") as writer:
        writer.write(gzip.compress(RUN.read_bytes()))
    out, _ = process.communicate(timeout=120)
    (run,) = json.loads(out)["runs"]
    assert process.returncode == 0 and run["time_to_train_min"] == pytest.approx(14.76, abs=0.01)
    assert [f["code"] for f in run["findings"]] == [] and list(temp.iterdir()) == []


def test_a_link_to_nothing_is_said_as_such(tmp_path: Path) -> None:
    folder = tmp_path / "resnet"
    folder.mkdir()
    (folder / "result_0.txt").write_bytes(RUN.read_bytes())
    (folder / "result_1.txt").symlink_to("/nonexistent/x")
    done = CliRunner().invoke(main, ["check", str(folder), "-f", "json"])
    found = [f for run in json.loads(done.stdout)["runs"] for f in run["findings"] if f["code"] == "MLC001"]
    assert [f["message"] for f in found] == ["cannot open the log: No such file or directory; it is a link to "
                                             "'/nonexistent/x', which leads to no file"]
    named = CliRunner().invoke(main, ["check", str(folder / "result_1.txt")])
    assert named.exit_code == 2 and "result_1.txt: a link to '/nonexistent/x', which leads to no file" in named.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")
def test_a_pipe_checked_again_by_the_api_is_read_again(tmp_path: Path) -> None:
    """Each check() reads a named pipe anew and leaves no copy of it (an attack review, session 46:
    the second call read the first call's copy and never opened the pipe)."""
    import threading

    from mlcheck import check
    from mlcheck.read import stdin_copy

    fifo = tmp_path / "job.log"
    os.mkfifo(fifo)
    text = RUN.read_text("utf-8")
    cut = text[:text.rindex('"key": "run_stop"') - 60] + "\n"  # (the run_stop line and what follows lost)
    verdicts = []
    for content in (text, cut):
        writer = threading.Thread(target=fifo.write_text, args=(content, "utf-8"))
        writer.start()
        verdicts.append([run.verdict for run in check(str(fifo)).runs])
        writer.join(timeout=30)
        assert not writer.is_alive() and not [key for key in stdin_copy._copies if isinstance(key, tuple)]
    assert verdicts == [["pass"], ["fail"]]


@pytest.mark.parametrize("open_files", ["/proc/self/fd", "/nonexistent/fd"])
def test_the_copy_is_read_with_or_without_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   open_files: str) -> None:
    """Where /proc/self/fd shows a process its open files, the copy has no name while it is read
    (session 51); elsewhere it has one, removed when mlcheck ends. The same run either way."""
    import tempfile

    from mlcheck.read import stdin_copy

    if open_files == "/proc/self/fd" and not os.path.isdir(open_files):
        pytest.skip("no /proc/self/fd on this system")
    monkeypatch.setattr(stdin_copy, "_OPEN_FILES", open_files)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(stdin_copy, "_copies", {})
    monkeypatch.setattr(stdin_copy, "_HANDLERS", [True])  # (no handler left in the test process)
    done = CliRunner().invoke(main, ["check", "-", "-f", "json"], input=RUN.read_bytes())
    (run,) = json.loads(done.stdout)["runs"]
    assert done.exit_code == 0 and run["time_to_train_min"] == pytest.approx(14.76, abs=0.01)
    left = [p.name[:14] for p in tmp_path.iterdir()]
    assert left == ([] if open_files == "/proc/self/fd" else ["mlcheck-stdin-"])
    for copy in stdin_copy._copies.values():
        stdin_copy._release(copy)
    assert list(tmp_path.iterdir()) == []


def test_stdin_named_twice_is_one_log_read_twice(tmp_path: Path) -> None:
    """`... | mlcheck check - /dev/stdin`: the pipe that is standard input is read from its copy
    (an attack review, session 51: the second name read an empty pipe, MLC002)."""
    if not os.path.exists("/dev/stdin"):
        pytest.skip("no /dev/stdin on this system")
    for order in (["-", "/dev/stdin"], ["/dev/stdin", "-"]):
        done = subprocess.run([sys.executable, "-m", "mlcheck", "check", *order, "-f", "json", "--jobs", "1"],
                              input=RUN.read_bytes(), capture_output=True, timeout=120)
        runs = json.loads(done.stdout)["runs"]
        assert [run["time_to_train_min"] for run in runs] == [pytest.approx(14.76, abs=0.01)] * 2
        assert not [f["code"] for run in runs for f in run["findings"] if f["code"] == "MLC002"]


class _Stdin:
    def __init__(self, data: bytes) -> None:
        import io

        self.buffer = io.BytesIO(data)


def test_a_copy_that_failed_after_reading_fails_again(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A copy that failed had read part of stdin: a later try says so, instead of checking the rest
    (an attack review, session 51)."""
    from mlcheck.read import stdin_copy

    class Full:
        name = str(tmp_path / "mlcheck-stdin-x")

        def __init__(self) -> None:
            self.writes = 0

        def write(self, chunk: bytes) -> int:
            self.writes += 1
            if self.writes > 1:
                raise OSError(errno.ENOSPC, "No space left on device")
            return len(chunk)

        def __enter__(self) -> "Full":
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    monkeypatch.setattr(stdin_copy, "_copies", {})
    monkeypatch.setattr(stdin_copy, "_failed", {})
    monkeypatch.setattr(stdin_copy, "_HANDLERS", [True])
    monkeypatch.setattr(stdin_copy, "_nameless_file", lambda folder: -1)
    monkeypatch.setattr(stdin_copy, "_held_nameless", lambda path: -1)
    monkeypatch.setattr(stdin_copy.tempfile, "NamedTemporaryFile", lambda **kw: Full())
    monkeypatch.setattr(sys, "stdin", _Stdin(b"x" * (3 << 20)))
    with pytest.raises(stdin_copy.StdinCopyError, match="No space left on device"):
        stdin_copy.stdin_copy()
    with pytest.raises(stdin_copy.StdinCopyError, match="an earlier copy of standard input failed after reading part"):
        stdin_copy.stdin_copy()


def test_threads_share_one_copy_and_handlers_are_set_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads reading stdin at once get one whole copy; the exit handler is registered once
    however many pipes are copied (an attack review, session 51: a copy each, split between them;
    a handler wrapped again at each copy, RecursionError after a thousand)."""
    import io
    import threading

    from mlcheck.read import stdin_copy

    registered: list[object] = []
    monkeypatch.setattr(stdin_copy, "_copies", {})
    monkeypatch.setattr(stdin_copy, "_HANDLERS", [])
    monkeypatch.setattr(stdin_copy.atexit, "register", registered.append)
    monkeypatch.setattr(stdin_copy, "_remove_on", lambda number: None)
    data = b"".join(b"line %d\n" % i for i in range(400_000))
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    paths: list[str] = []
    threads = [threading.Thread(target=lambda: paths.append(stdin_copy.stdin_copy())) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(paths) == 2 and paths[0] == paths[1] and Path(paths[0]).read_bytes() == data
    for number in range(5):
        with open(stdin_copy.stream_copy(f"pipe{number}", io.BytesIO(b"x")), "rb") as copy:
            assert copy.read() == b"x"
        stdin_copy.forget_pipes()
    assert len(registered) == 1
    for copy in stdin_copy._copies.values():
        stdin_copy._release(copy)


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
def test_a_caller_handler_that_returns_leaves_the_copy_in_use(tmp_path: Path) -> None:
    """A service whose SIGHUP handler reloads and carries on: stdin's copy is still read by a
    later check() (an attack review, session 51: its descriptor was closed, and a file opened
    next was read in its place, then closed by mlcheck at the exit)."""
    script = """
import os, signal, sys
signal.signal(signal.SIGHUP, lambda *a: None)
from mlcheck import check
first = check("-").runs[0]
os.kill(os.getpid(), signal.SIGHUP)
others = [open(os.devnull, "rb") for _ in range(3)]
out = open(sys.argv[1], "w")
out.write("kept")
second = check("-").runs[0]
print(first.verdict, second.verdict, first.time_to_train_min == second.time_to_train_min)
"""
    kept = tmp_path / "out.txt"
    done = subprocess.run([sys.executable, "-c", script, str(kept)], input=RUN.read_bytes(), capture_output=True,
                          timeout=120, env=dict(os.environ, TMPDIR=str(tmp_path)))
    assert done.stdout.decode().split() == ["pass", "pass", "True"], done.stderr.decode()[-2000:]
    assert kept.read_text() == "kept" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]
