"""Generators of trees (submission packages with odd names, modes, links, FIFOs, system
descriptions with any value) and for config files (``.mlcheck.toml`` or ``pyproject.toml`` with
any key, value and waiver), the latter run through the command line."""

from __future__ import annotations

import gzip
import json
from typing import Any, Callable

from fuzzing.case import Case, Entry, Obj, encode, to_json
from fuzzing.source import Source
from fuzzing.values import FIXTURES, json_value

_BASE = (FIXTURES / "bad" / "base_open.txt").read_bytes()
_EXAMPLE_RUN = (FIXTURES / "example" / "Acme" / "results" / "acme-t8" / "resnet" / "result_0.txt").read_bytes()
_SYSTEM = json.loads((FIXTURES / "example" / "Acme" / "systems" / "acme-t8.json").read_text("utf-8"))
CONTENTS = (_BASE, _EXAMPLE_RUN, b"", b"garbage\n", gzip.compress(_BASE, mtime=0), _BASE[:700],
            _BASE.replace(b"\n", b"", 3), _BASE.replace(b'"open"', b'"closed"'), b"\xff\xfe\x00" * 10)
"""What a result file in a tree holds (the logs themselves are the other families' business)."""

ODD_NAMES = (b"with space", b".hidden", b"\xff\xfe", b"caf\xc3\xa9", b"-dash", b"result_0.txt",
             b"result_ 1.txt", b"result_\xff.txt", b"a" * 200, b"..x", b"RESULT_0.TXT", b"result_0.txt.gz",
             b"result_01.txt", b"result_x.txt", b"scaling.json", b"package_checker_params", b"systems",
             b"results", b"resnet50", b"\xe2\x80\xae", b"new\nline", b"tab\tname", b"*", b"[a]")
MODES = (None, None, None, 0o000, 0o200, 0o400, 0o644, 0o755, 0o111, 0o1777)
_LINKS = (b"..", b".", b"../..", b"result_0.txt", b"/dev/null", b"/dev/zero", b"missing", b"/nonexistent/x")


def _system_json(source: Source) -> bytes:
    fields: list[tuple[str, Any]] = list(_SYSTEM.items())
    for _ in range(source.integer(0, 4)):
        i = source.below(len(fields))
        kind = source.choice(("value", "drop", "repeat", "blank"))
        if kind == "value":
            fields[i] = (fields[i][0], json_value(source))
        elif kind == "drop":
            del fields[i]
        elif kind == "repeat":
            fields.append((fields[i][0], json_value(source)))
        else:
            fields[i] = (fields[i][0], source.choice(("", " ", "TODO", "N/A")))
    if source.rarely(10):
        return encode(to_json(json_value(source)))
    return encode(to_json(Obj(tuple(fields))))


def tree_case(source: Source) -> Case:
    """A package ``<org>/results/<system>/<benchmark>/result_i.txt`` + ``systems/<system>.json``,
    with odd names, modes, symlinks and FIFOs put in anywhere."""
    org = source.choice((b"Acme", b"Org with space", b"\xffOrg", b".Acme"))
    system = source.choice((b"acme-t8", b"sys tem", b"s\xe9", b".sys"))
    bench = source.choice((b"resnet", b"bert", b"resnet50", b"unknown", b"r\xffsnet"))
    folder = b"%s/results/%s/%s" % (org, system, bench)
    entries = [Entry(b"%s/result_%d.txt" % (folder, i), source.choice(CONTENTS))
               for i in range(source.integer(0, 5))]
    if source.boolean():
        entries.append(Entry(b"%s/systems/%s.json" % (org, system), _system_json(source)))
    if source.rarely(4):
        entries.append(Entry(folder + b"/scaling.json", encode(to_json(Obj((("scaling_factor", json_value(source)),))))))
    places = (org, org + b"/results", org + b"/results/" + system, folder, org + b"/systems")
    for _ in range(source.integer(0, 5)):
        where = source.choice(places) + b"/" + source.choice(ODD_NAMES).replace(b"/", b"_")
        kind = source.choice(("file", "folder", "link", "fifo", "mode"))
        if kind == "file":
            entries.append(Entry(where, source.choice(CONTENTS), source.choice(MODES)))
        elif kind == "folder":
            entries.append(Entry(where, None, source.choice(MODES)))
        elif kind == "link":
            entries.append(Entry(where, link=source.choice(_LINKS)))
        elif kind == "fifo":
            entries.append(Entry(where, fifo=True))
        elif entries:
            i = source.below(len(entries))
            old = entries[i]
            entries[i] = Entry(old.path, old.data, source.choice(MODES), old.link, old.fifo)
    targets = source.choice(((org,), (org + b"/results",), (folder,), (org, folder),
                                    (org + b"/results/" + system,)))
    entries.append(Entry(folder, None))  # every target exists (a file drawn there wins)
    return Case("trees", tuple(entries), targets, source.choice((None, "2.0.0", "1.0.0")))


_SETTINGS = ("ruleset", "format", "color", "strict", "exit_zero", "exit-zero", "progress", "select",
             "ignore", "output", "outputs", "waivers", "unknown", "Strict", "tool")
_TOML_VALUES = ('true', 'false', '"yes"', '"off"', '1', '0', '-1', '"json"', '"html"', '"sarif"', '"auto"',
                '"bogus"', '["MLC3"]', '["MLC999"]', '"MLC3,MLC4"', '["MLC0", "MLC5"]', '[1, 2]', '{a = 1}',
                '[{a = 1}]', '1979-05-27', '1979-05-27T07:32:00Z', '"2.0.0"', '"2.0"', '"9.9.9"', '""', 'nan',
                'inf', '1e999', '99999999999999999999', '"\\u0000"', '"""multi\nline"""', "'lit\\eral'",
                '"' + "x" * 3000 + '"', '[' * 10 + ']' * 10, '[' * 400 + ']' * 400, '[' * 3000 + ']' * 3000,
                '{a = ' * 300 + '1' + '}' * 300, '["sarif:out.sarif"]', '"json:out.json"',
                '["junit:sub/dir/x.xml"]', '["json:../tree/resnet/result_0.txt"]', '["html:"]', '["nope"]')
_CODES = ('"MLC"', '"MLC0"', '"MLC3"', '"MLC303"', '"MLC502"', '"mlc4"', '"*"', '""', '"XYZ"', '1', '["MLC3"]')
_GLOB_PARTS = ("**", "*", "?", "/", "resnet", "result_0.txt", "[a-z]", "[!a]", "[", "]", "{a,b}", "\\",
               "..", ".", "*a" * 12 + "b", "\xe9", " ", "tree")
_EXPIRES = ("2099-12-31", "2000-01-01", '"2099-12-31"', '"soon"', "1979-05-27T07:32:00Z", "12", "[]")
_GARBAGE = ("=", "[", "[[waivers]", "key = ", "\ufeffstrict = true", "a.b.c = 1", "[tool]", "[tool.mlcheck.x]",
            "strict = true\nstrict = false", "[waivers]", "[[tool.mlcheck.waivers]]", "\x00")
_ENV = (("MLCHECK_STRICT", "1"), ("MLCHECK_IGNORE", "MLC402,MLC303"), ("MLCHECK_FORMAT", "sarif"),
        ("MLCHECK_STRICT", "maybe"), ("MLCHECK_SELECT", "MLC99"), ("MLCHECK_RULESET", "2.0.0"))
_SUPPORTED = ('"1.0.0"', '"1.1.0"', '"2.0.0"', '"2.1.0"')


def config_case(source: Source) -> Case:
    """A benchmark folder with a config file of random settings, values, waivers and garbage,
    checked through the command line (``check -f json``)."""
    lines: list[str] = []
    usage_error = False
    for _ in range(source.integer(0, 5)):
        key, value = source.choice(_SETTINGS), source.choice(_TOML_VALUES)
        usage_error |= (key == "ruleset" and value not in _SUPPORTED) or key.startswith("output")
        lines.append(f"{key} = {value}")
    for _ in range(source.integer(0, 3)):
        lines.append("[[waivers]]")
        glob = "".join(source.choice(_GLOB_PARTS) for _ in range(source.integer(0, 6)))
        for name, value in (("code", source.choice(_CODES)), ("path", json.dumps(glob)),
                            ("reason", source.choice(('"ticket 1"', '""', '1'))),
                            ("expires", source.choice(_EXPIRES))):
            if not source.rarely(5):
                lines.append(f"{name} = {value}")
    for _ in range(source.integer(1, 2) if source.rarely(4) else 0):
        lines.insert(source.below(len(lines) + 1), source.choice(_GARBAGE))
    kind = source.choice(("dotfile", "dotfile_tool", "pyproject", "named"))
    if kind in ("dotfile_tool", "pyproject"):
        lines = ["[tool.mlcheck]"] + [line.replace("[[waivers]]", "[[tool.mlcheck.waivers]]") for line in lines]
    text = encode("\n".join(lines) + "\n")
    if source.rarely(10):
        text = source.choice((b"\xff\xfe", b"strict = \xff\n", b"[" * 5000, b"a = " + b"[" * 5000))
    name = {"pyproject": b"pyproject.toml", "named": b"ci.toml"}.get(kind, b".mlcheck.toml")
    runs = tuple(Entry(b"resnet/result_%d.txt" % i, source.choice(CONTENTS[:2]))
                 for i in range(source.integer(1, 3)))
    args = ["check", "-f", source.choice(("json", "json", "sarif", "junit", "text", "markdown")), "--no-progress"]
    if kind == "named":
        args += ["--config", "../tree/ci.toml"]
    env = tuple(dict(source.choice(_ENV) for _ in range(source.integer(0, 2))).items())
    return Case("config", (Entry(name, text), *runs), (b"resnet",), None, tuple(args), env=env,
                allowed_exits=(0, 1, 2) if usage_error else (0, 1))


_FORMATS = ("json", "sarif", "junit", "github", "markdown", "html", "text")
_OPTIONS = ("--strict", "-q", "-v", "--exit-zero", "--select=MLC0,MLC1", "--ignore=MLC3", "-o", "--color=always")


def cli_case(source: Source, logs: Callable[[Source], Case]) -> Case:
    """A log of another family through one of the commands: check (any format and options, or
    stdin), score, report, split, watch."""
    inner = logs(source)
    command = source.choice(("check", "check", "check_stdin", "score", "report", "split", "watch"))
    target = inner.targets[0]
    if command in ("check", "check_stdin"):
        args = ["check", "-f", source.choice(_FORMATS), "--no-progress"]
        args += dict.fromkeys(source.choice(_OPTIONS) for _ in range(source.integer(0, 3)))
        if "-o" in args:
            args.insert(args.index("-o") + 1, source.choice(_FORMATS[:-1]) + ":out.report")
        if command == "check_stdin":
            data = next((e.data for e in inner.entries if e.data), b"")
            return Case("cli", (), (b"-",), None, tuple(args), stdin=data)
    elif command == "score":
        # (-f json is the JSON report; -t the results table: the two exclude each other)
        args = ["score", "-f", "json"] if source.choice((False, True)) else [
            "score", "-t", source.choice(("csv", "markdown", "json"))]
    elif command == "report":
        args = ["report", "-o", "report.html", "--no-progress"]
    elif command == "split":
        args = ["split", "-o", "split_out"]
        target = next((e.path for e in inner.entries if e.data is not None), target)
    else:
        args = ["watch", "--idle-timeout", "0", "--poll", "0.01", "--no-progress", "-f", "json"]
        target = next((e.path for e in inner.entries if e.data is not None), target)
    if inner.ruleset and command in ("check", "score", "report", "watch"):
        args += ["--ruleset", inner.ruleset]
    exits = (0, 1, 2) if command == "split" else (0, 1)  # split: 2 when no record could be written
    return Case("cli", inner.entries, (target,), None, tuple(args), allowed_exits=exits)
