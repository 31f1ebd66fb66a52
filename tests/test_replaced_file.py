"""A report's file is written whole or not at all (review of session 41: a full disk left a cut-off
SARIF file over the good one, which the action then uploaded)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mlcheck import check
from mlcheck.report import ReportOptions
from mlcheck.settings import gate
from mlcheck.settings.replaced_file import replaced_file

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "fixtures" / "example" / "Acme"


def test_a_failed_write_keeps_the_file_it_was_to_replace(tmp_path: Path) -> None:
    report = tmp_path / "report.sarif"
    report.write_text("the good one\n")
    os.chmod(report, 0o640)
    with pytest.raises(OSError):
        with replaced_file(str(report)) as handle:
            handle.write("half of a new o")
            raise OSError(28, "No space left on device")
    assert report.read_text() == "the good one\n" and os.listdir(tmp_path) == ["report.sarif"]
    with replaced_file(str(report)) as handle:
        handle.write("the new one\n")
    assert report.read_text() == "the new one\n" and stat.S_IMODE(report.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["report.sarif"]


def test_a_link_s_target_is_replaced_and_a_device_written_in_place(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "r.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    with replaced_file(str(link)) as handle:
        handle.write("new")
    assert link.is_symlink() and target.read_text() == "new"
    with replaced_file(os.devnull) as handle:  # (a device is never renamed over)
        handle.write("nothing")
    assert not stat.S_ISREG(os.stat(os.devnull).st_mode)


def test_a_report_that_cannot_be_made_leaves_the_previous_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = check([str(EXAMPLE)])
    report = tmp_path / "r.json"
    gate.write_outputs([f"json:{report}"], result, ReportOptions())
    good = report.read_bytes()

    def failing(*_args: object, **_kwargs: object) -> object:
        yield "{"
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(gate, "report_blocks", failing)
    with pytest.raises(OSError):
        gate.write_outputs([f"json:{report}"], result, ReportOptions())
    assert report.read_bytes() == good and sorted(os.listdir(tmp_path)) == ["r.json"]


def test_a_file_with_another_name_is_written_in_place(tmp_path: Path) -> None:
    """A hard-linked report keeps its links (and, as anything not plainly ours to replace, its owner):
    written in place as open() writes it (review of session 41)."""
    report = tmp_path / "r.json"
    report.write_text("old")
    os.link(report, tmp_path / "hard.json")
    with replaced_file(str(report)) as handle:
        handle.write("new")
    assert (tmp_path / "hard.json").read_text() == "new" and report.stat().st_nlink == 2


def test_a_sigterm_while_writing_removes_the_part(tmp_path: Path) -> None:
    import signal

    report = tmp_path / "r.json"
    report.write_text("the good one")
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as stopped:
        with replaced_file(str(report)) as handle:
            handle.write("half")
            os.kill(os.getpid(), signal.SIGTERM)
    assert stopped.value.code == 143 and report.read_text() == "the good one"
    assert os.listdir(tmp_path) == ["r.json"] and signal.getsignal(signal.SIGTERM) is before
