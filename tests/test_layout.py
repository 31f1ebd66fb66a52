"""The layout of the package (issue 13, docs/ARCHITECTURE.md): one subpackage per stage of the
pipeline, imports flowing one way down it, small modules, a small public face.

Read from the source with ``ast``: nothing is imported, so a circle shows here as a failing
assertion, not as an ImportError somewhere else.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "mlcheck"

#: Every part of mlcheck from the bottom up: a part may import only the parts before it.
#: A subpackage is one part (``read`` is ``mlcheck/read/``); a top-level module is one too
#: (``mlcheck`` is ``mlcheck/__init__.py``, the public API). A new part must be placed here.
LAYERS = (
    "records",    # dataclass, cheaper to define than the standard library's
    "model",      # events, findings, runs
    "results",    # verdicts, scores, CheckResult
    "facts",      # the round facts, as data
    "rule",       # what a rule is (Rule, RunContext)
    "read",       # bytes -> events -> runs; the reading stage's own rules
    "package",    # paths -> logs; a package's names and system descriptions
    "rules",      # run rules and package rules; the registry
    "score",      # time-to-train, benchmark results, RCP
    "judge",      # benchmark folders and packages judged together
    "checker",    # check(): discover, read, judge
    "mlcheck",    # the public API
    "raw",        # split and watch
    "report",     # every format
    "settings",   # config, waivers, selection, the gate
    "cli",        # the commands
    "__main__",   # python -m mlcheck
)
#: What a reporter may look at: results and what explains them, never inputs or raw events.
REPORT_MAY_IMPORT = {"mlcheck", "records", "model", "results", "facts", "rule", "rules", "score"}
#: What rules may not import: the stages that read files, settings or drive them.
RULES_MAY_NOT_IMPORT = {"judge", "checker", "mlcheck", "raw", "report", "settings", "cli"}
#: Modules through which a rule could read a file (``os`` is checked name by name).
FILE_MODULES = {"io", "gzip", "pathlib", "shutil", "tempfile", "glob"}
#: What a rule may use of ``os``: functions of path strings that never touch the disk.
PATH_STRINGS = {"os.sep", "os.path.basename", "os.path.dirname", "os.path.join", "os.path.normpath",
                "os.path.split", "os.path.splitext"}
MAX_LINES = 300
MAX_RULE_MODULE_LINES = 200
"""A module of ``rules/`` stays under this: one family of rules, or one helper of them, readable whole."""
MAX_TOP_LEVEL_MODULES = 7


def _modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of mlcheck."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _part(module: str) -> str:
    """The layer a dotted module name belongs to: ``mlcheck.read.reader`` -> ``read``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "mlcheck"


def _imports(module: str, path: Path) -> set[str]:
    """The mlcheck modules a module imports (lazy and TYPE_CHECKING imports too)."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: len(module.split(".")) - node.level + is_package]
                found.add(".".join(base + ([node.module] if node.module else [])))
            elif node.module:
                found.add(node.module)
    return {name for name in found if name == "mlcheck" or name.startswith("mlcheck.")}


MODULES = _modules()
EDGES = sorted({(_part(module), _part(target), module)
                for module, path in MODULES.items() for target in _imports(module, path)
                if _part(module) != _part(target)})


def test_every_part_is_placed() -> None:
    assert {_part(module) for module in MODULES} <= set(LAYERS)


@pytest.mark.parametrize("source, target, module", EDGES, ids=[f"{m}->{t}" for _, t, m in EDGES])
def test_imports_flow_down(source: str, target: str, module: str) -> None:
    assert LAYERS.index(target) < LAYERS.index(source), \
        f"{module} imports mlcheck.{target}, which is above {source} in LAYERS"


def test_no_two_parts_import_each_other() -> None:
    pairs = {(source, target) for source, target, _ in EDGES}
    assert not [pair for pair in pairs if pair[::-1] in pairs]


def test_only_the_cli_imports_the_cli() -> None:
    assert [m for s, t, m in EDGES if t == "cli" and s not in ("cli", "__main__")] == []


def test_reporters_see_results_only() -> None:
    assert [m for s, t, m in EDGES if t == "report" and s not in ("cli", "settings")] == []
    assert [f"{m} -> {t}" for s, t, m in EDGES if s == "report" and t not in REPORT_MAY_IMPORT] == []


def test_rules_never_read_files_nor_settings() -> None:
    assert [f"{m} -> {t}" for s, t, m in EDGES if s == "rules" and t in RULES_MAY_NOT_IMPORT] == []
    for module, path in MODULES.items():
        if _part(module) != "rules":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module and not node.level}
        assert not imported & FILE_MODULES, f"{module} imports {sorted(imported & FILE_MODULES)}"
        calls = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Name) and node.func.id == "open"]
        assert not calls, f"{module} calls open() at lines {calls}"
        uses = {ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                and ast.unparse(node).startswith("os.")} - {"os.path"}
        assert uses <= PATH_STRINGS, f"{module} uses {sorted(uses - PATH_STRINGS)}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_is_small(module: str) -> None:
    lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{module} has {lines} lines; split it along a seam"
    if module.startswith("mlcheck.rules."):
        assert lines < MAX_RULE_MODULE_LINES, f"{module} has {lines} lines; a rule module stays under " \
            f"{MAX_RULE_MODULE_LINES}: move its helpers out, or its rules to a module of their own"


def test_few_top_level_modules() -> None:
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


def test_every_subpackage_says_what_it_takes_and_gives() -> None:
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), init


def test_pyproject_lists_every_subpackage() -> None:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    packages = {".".join(init.parent.relative_to(PACKAGE.parent).parts)
                for init in PACKAGE.rglob("__init__.py")}
    assert packages <= listed, sorted(packages - listed)


#: What the repository's top level may hold (the brief's five, the docs, tools and benchmarks,
#: and the files CI, pre-commit and the GitHub Action read); a stray file fails here.
TOP_LEVEL = {".ci", ".gitignore", ".pre-commit-hooks.yaml", "README.md", "action.yml", "benchmarks",
             "docs", "fixtures", "mlcheck", "pyproject.toml", "schemas", "tests", "tools"}


def test_top_level_holds_only_what_it_should() -> None:
    import shutil
    import subprocess

    root = PACKAGE.parent
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("not a git checkout (the tracked files are what this test reads)")
    listed = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=True)
    top = {name.split("/", 1)[0] for name in listed.stdout.splitlines()}
    assert top <= TOP_LEVEL, sorted(top - TOP_LEVEL)
