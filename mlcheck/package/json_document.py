"""A JSON file of a package (a system description, ``scaling.json``) read as the package checker
reads it (``json.load``), with what a finding needs when it cannot be: the physical line of the
damage (bytes that are not UTF-8, an integer ``json`` refuses, nesting too deep, a syntax
error) and of each duplicate key."""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

from mlcheck.read.json_depth import NESTING_LIMIT, within_limit
from mlcheck.package.json_lines import top_level_key_lines
from mlcheck.read.log_files import link_to_nothing
from mlcheck.records import dataclass, field


@dataclass(frozen=True)
class JsonDocument:
    """A JSON file read with duplicate-key detection. ``data`` is None when it could not be read."""

    path: str
    exists: bool
    data: dict[str, Any] | None = None
    error: str | None = None
    duplicate_keys: tuple[tuple[str, int | None], ...] = ()
    error_line: int | None = None
    """The line where ``json`` stopped, for a document that is not valid JSON."""
    text: str = field(default="", repr=False, compare=False)
    """The file's text (a system description: a few kB), where :meth:`line_of` looks."""

    def line_of(self, key: str) -> int | None:
        """The physical line of a top-level key, where it first appears (found when a finding
        asks: most documents are never searched)."""
        return top_level_key_lines(self.text).get(key)


def _dangling(path: str) -> JsonDocument | None:
    """A link whose target does not exist: the name is there, what it names is not."""
    target = link_to_nothing(path)
    return None if target is None else JsonDocument(path, True, error=f"it is a link to {target!r}, which does not exist")


def read_json_document(path: str) -> JsonDocument:
    """Read a JSON object, noting duplicate keys (JSON keeps the last) with their line."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return _dangling(path) or JsonDocument(path, exists=False)
    except OSError as error:  # (a folder on the way that cannot be searched: not a missing file)
        return JsonDocument(path, True, error=f"cannot reach it: {error.strerror or error}")
    if not stat.S_ISREG(mode):
        return JsonDocument(path, True, error="it is a folder, not a JSON file" if stat.S_ISDIR(mode)
                            else "it is not a regular file")
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in items:
            if key in seen:
                duplicates.append(key)
            seen[key] = value
        return seen

    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        text = raw.decode("utf-8")
        if "\r" in text:  # (read as open() reads text: a CR line end is a line end)
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        data = within_limit(lambda whole: json.loads(whole, object_pairs_hook=pairs), text)  # (as on 3.10 and 3.11)
    except OSError as error:
        return JsonDocument(path, True, error=str(error))
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        return JsonDocument(path, True, error=f"line {line}: byte 0x{raw[error.start]:02x} is not UTF-8 "
                            "(JSON files are UTF-8)", error_line=line)
    except json.JSONDecodeError as error:
        if text.startswith("\ufeff"):  # (open() and json.load, as the official tools read JSON, refuse it so too)
            return JsonDocument(path, True, error="line 1: a UTF-8 byte order mark begins the file, which Python's "
                                "json.load refuses ('Unexpected UTF-8 BOM'); save it without one", error_line=1)
        return JsonDocument(path, True, error=f"line {error.lineno}: {error.msg}", error_line=error.lineno)
    except ValueError:  # (an integer of over 4300 digits, which Python's json refuses)
        digits = max(_LONG_NUMBER.finditer(text), key=lambda m: len(m.group(0)), default=None)
        number_line = text.count("\n", 0, digits.start()) + 1 if digits is not None else None
        return JsonDocument(path, True, error=(f"line {number_line}: " if number_line else "") + (
            f"a number of {len(digits.group(0))} digits" if digits else "a number") +
            " (Python's json reads integers of at most 4300 digits)", error_line=number_line)
    except RecursionError:
        deep_line = _too_deep_line(text)
        return JsonDocument(path, True, error=(f"line {deep_line}: " if deep_line else "") + "arrays or objects nested "
                            f"too deeply for Python's json to read ({NESTING_LIMIT} levels or more)", error_line=deep_line)
    if not isinstance(data, dict):
        line = text.count("\n", 0, len(text) - len(text.lstrip())) + 1  # (where the value begins)
        return JsonDocument(path, True, error=f"line {line}: expected a JSON object, found {_json_kind(data)}",
                            error_line=line)
    lines = _second_lines(text, set(duplicates)) if duplicates else {}
    return JsonDocument(path, True, data, duplicate_keys=tuple(
        (key, lines.get(key)) for key in dict.fromkeys(duplicates)), text=text)


_LONG_NUMBER = re.compile(r"\d{4301,}")
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')  # (unrolled: see json_lines._TOKEN)


def _too_deep_line(text: str, limit: int = NESTING_LIMIT) -> int | None:
    """The line where ``text``'s arrays and objects (outside strings) first nest ``limit`` deep."""
    depth = 0
    for found in _STRING_OR_BRACKET.finditer(text):
        token = found.group(0)
        if token in ("[", "{"):
            depth += 1
            if depth >= limit:
                return text.count("\n", 0, found.start()) + 1
        elif token in ("]", "}"):
            depth -= 1
    return None


_KEY = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"(\s*:)?')
"""A string, and the colon after it where it is an object's key: strings are matched from the left,
each whole (a search for keys alone would start again at each escaped quote of a long value)."""


def _second_lines(text: str, keys: set[str]) -> dict[str, int]:
    """The line of each key's second spelling as an object's key, in one pass over ``text`` (a
    search per key from the start was quadratic: a description of thousands of repeated keys)."""
    seen: set[str] = set()
    lines: dict[str, int] = {}
    line, counted = 1, 0
    for found in _KEY.finditer(text):
        if found.group(1) is None:
            continue
        try:
            key = json.loads(found.group(0)[:found.start(1) - found.start()])
        except ValueError:
            continue
        if key not in keys or key in lines:
            continue
        if key in seen:
            line, counted = line + text.count("\n", counted, found.start()), found.start()
            lines[key] = line
        seen.add(key)
    return lines


def _json_kind(value: object) -> str:
    """What a JSON value is, in JSON's words."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, list):
        return "an array"
    return "a string" if isinstance(value, str) else "a number"
