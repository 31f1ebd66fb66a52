"""A package's JSON file that cannot be read says where (review of session 28: bytes that are not
UTF-8, an integer of over 4300 digits, nesting too deep and a value that is not an object gave
no line, and Python's own words)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlcheck.package.json_document import read_json_document

GOOD = '{\n  "division": "closed",\n  "submitter": "Acme",\n  "system_name": "t8"\n}\n'


@pytest.mark.parametrize("content,line,says", [
    (GOOD.replace('"Acme"', '"Ac\xffme"').encode("latin-1"), 3, "line 3: byte 0xff is not UTF-8"),
    (GOOD.replace('"t8"', "1" * 5000).encode(), 4, "line 4: a number of 5000 digits (Python's json reads"),
    (("\n" + "[" * 100_000 + "]" * 100_000).encode(), 2, "line 2: arrays or objects nested too deeply"),  # (3.13 reads 2,000)
    (b"\n\n[1, 2]", 3, "line 3: expected a JSON object, found an array"),
    (b"null", 1, "line 1: expected a JSON object, found null"),
    (GOOD.replace("\n", "\r")[:-3].encode(), 4, "line 4: Expecting"),  # (CR line ends: lines as open() reads them)
])
def test_an_unreadable_document_names_its_line(tmp_path: Path, content: bytes, line: int, says: str) -> None:
    path = tmp_path / "t8.json"
    path.write_bytes(content)
    document = read_json_document(str(path))
    assert document.data is None and document.error_line == line
    assert document.error is not None and document.error.startswith(says), document.error


def test_a_readable_document_keeps_its_text_and_duplicate_lines(tmp_path: Path) -> None:
    path = tmp_path / "t8.json"
    path.write_bytes((GOOD[:-3] + ',\r\n  "division": "open"\r\n}\r\n').encode())
    document = read_json_document(str(path))
    assert document.data == {"division": "open", "submitter": "Acme", "system_name": "t8"}
    assert document.duplicate_keys == (("division", 5),) and document.line_of("submitter") == 3


def test_a_link_to_nothing_is_there_but_unreadable(tmp_path: Path) -> None:
    """The package checker lists it and cannot open it (MLC511), which no missing file (MLC510) says."""
    path = tmp_path / "ghost.json"
    path.symlink_to(tmp_path / "nowhere.json")
    document = read_json_document(str(path))
    assert document.exists and document.data is None
    assert document.error == f"it is a link to {str(tmp_path / 'nowhere.json')!r}, which does not exist"
    assert not read_json_document(str(tmp_path / "absent.json")).exists
