"""What ``mlcheck rules`` and ``mlcheck explain`` say about a rule is what it does (issue 14):
each rule declares every severity it may report, the findings of the fixtures and the shared
packages keep to it, ``rules`` shows it (``error/warning``), and ``explain CODE`` prints that
rule's section only."""

from __future__ import annotations

import json
import os
import re

import pytest
from click.testing import CliRunner

from mlcheck import check
from mlcheck.model import Severity
from mlcheck.cli import main
from mlcheck.report import rule_help
from mlcheck.rules import all_rules

from conftest import CORPUS, FIXTURES, SHARED

RULES = {rule.code: rule for rule in all_rules()}
OTHERS = SHARED / "other-submitters"


def _inputs() -> list[str]:
    paths = [str(FIXTURES / "bad"), str(FIXTURES / "raw"), str(FIXTURES / "example" / "Acme")]
    paths += [str(CORPUS / r / "Graphcore") for r in ("training-1.1", "training-2.0") if (CORPUS / r).is_dir()]
    for round_name in sorted(os.listdir(OTHERS)) if OTHERS.is_dir() else ():  # 1.0-5.1: 5.0's power rules
        if (OTHERS / round_name).is_dir():
            paths += [str(OTHERS / round_name / org) for org in sorted(os.listdir(OTHERS / round_name))]
    return paths


def test_every_finding_has_a_severity_its_rule_declares() -> None:
    seen: dict[str, set[str]] = {}
    official: set[str] = set()
    for path in _inputs():
        for found in check([path]).all_findings():
            seen.setdefault(found.code, set()).add(found.severity.label)
            if found.official:
                official.add(found.code)
    undeclared = {code: sorted(levels - {s.label for s in RULES[code].severities})
                  for code, levels in seen.items() if levels - {s.label for s in RULES[code].severities}}
    assert undeclared == {}
    # a finding marked official belongs to a rule that says the checker flags some of its cases
    assert sorted(code for code in official if not RULES[code].official_somewhere) == []
    if not OTHERS.is_dir():
        pytest.skip(f"{OTHERS} is absent: MLC507 and MLC516 are only reported on its packages")
    # the rules the issue named: reported as warnings (no checker of record refuses them), and said so
    assert RULES["MLC507"].severity_text == "warning" and RULES["MLC516"].severity_text == "warning"
    assert seen["MLC516"] == {"warning"} and seen["MLC507"] == {"warning"}


def test_rules_lists_the_severities_each_rule_reports() -> None:
    out = CliRunner().invoke(main, ["rules"]).stdout.splitlines()
    assert len(out) == len(RULES)
    for line in out:
        code, _name, levels = line.split()[:3]
        assert levels == RULES[code].severity_text, line


@pytest.mark.parametrize("code", sorted(RULES))
def test_explain_prints_that_rules_section_only(code: str) -> None:
    result = CliRunner().invoke(main, ["explain", code])
    assert result.exit_code == 0
    rule = RULES[code]
    head, reports = result.stdout.splitlines()[:2]
    assert head == f"{code} {rule.name}: {rule.summary}"
    assert reports.startswith(f"Reports: {rule.severity_text.replace('/', ' or ')}; ")
    body, family = result.stdout.split("\n", 3)[3].split("\n\nThe family of ", 1)
    section = rule_help(code)
    assert " ".join(body.split()) == section[:1].upper() + section[1:]
    assert family.startswith(f"{code} (mlcheck/")  # (then the module's header: the rules and checkers it follows)
    body = " ".join(body.split())
    others = {c for c in re.findall(r"\bMLC\d{3} [a-z]+(?:-[a-z0-9]+)+:", body)} - {f"{code} {rule.name}:"}
    assert not others  # no other rule's heading


def test_mlc022_declares_the_warning_it_reports(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The highest rank's file logs keys the read one lacks: a warning, which ``rules`` listed as
    info only (so ``--strict`` failed on a code said never to fail)."""
    import shutil

    folder = tmp_path / "per_rank"
    shutil.copytree(FIXTURES / "raw" / "per_rank", folder)
    first = sorted(folder.rglob("stdout"))[0]
    first.write_text("".join(line for line in first.read_text("utf-8").splitlines(keepends=True)
                             if '"key": "eval_accuracy"' not in line), "utf-8")
    levels = {f.severity for f in check([str(folder)]).all_findings() if f.code == "MLC022"}
    assert Severity.WARNING in levels and levels <= set(RULES["MLC022"].severities)


@pytest.mark.parametrize("code", ["MLC015", "MLC509", "MLC515", "MLC521"])
def test_a_rule_official_in_some_cases_says_so_everywhere(code: str) -> None:
    """Rules whose findings are official in some cases only (was: rules, explain, rules -f json and
    SARIF's rule list said the official checker never flags them, while their findings said it does)."""
    runner = CliRunner()
    listed = next(line for line in runner.invoke(main, ["rules"]).stdout.splitlines() if line.startswith(code))
    assert listed.endswith("(official checker agrees in some cases)")
    as_json = {rule["code"]: rule for rule in json.loads(runner.invoke(main, ["rules", "--format", "json"]).stdout)}
    assert as_json[code]["official"] is True and as_json[code]["official_cases"] is True
    reports = runner.invoke(main, ["explain", code]).stdout.splitlines()[1]
    assert "flags some of its cases" in reports


def test_every_rule_a_finding_is_made_official_for_declares_it() -> None:
    """Read statically: each ``RULE.at(..., official=...)`` (or ``ctx.at(RULE, ...)``) that may be
    official names a rule whose ``official_somewhere`` holds, so the catalogue cannot deny it."""
    import ast
    import importlib
    from pathlib import Path

    from mlcheck.rule import Rule

    root = Path(check.__code__.co_filename).parent
    undeclared = []
    for path in sorted(root.rglob("*.py")):
        module = importlib.import_module(".".join(path.relative_to(root.parent).with_suffix("").parts)
                                         .removesuffix(".__init__"))

        def named(node: ast.expr) -> object:
            if isinstance(node, ast.Name):
                return getattr(module, node.id, None)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                return getattr(getattr(module, node.value.id, None), node.attr, None)
            return None

        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "at"):
                continue
            said = [k.value for k in node.keywords if k.arg == "official"]
            if not said or isinstance(said[0], ast.Constant) and said[0].value is False:
                continue
            rule = named(node.func.value)
            if not isinstance(rule, Rule) and node.args:
                rule = named(node.args[0])
            if isinstance(rule, Rule) and not rule.official_somewhere:
                undeclared.append(f"{path.name}:{node.lineno} {rule.code}")
    assert undeclared == []
