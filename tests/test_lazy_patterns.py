"""Raw output's patterns compile when first used: a clean result file's check never compiles them
(about 20 ms of each start), and a lazy pattern matches as the compiled one does."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from mlcheck.read.lazy_patterns import LazyPattern, lazy_pattern

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "fixtures" / "example" / "Acme"


def test_a_lazy_pattern_matches_as_the_compiled_pattern_does() -> None:
    source = rb"(?P<host>node\d+): (\d+)"
    lazy, compiled = lazy_pattern(source, re.IGNORECASE), re.compile(source, re.IGNORECASE)
    assert lazy.pattern == source and "search" not in vars(lazy)  # (its source, not yet compiled)
    line = b"x NODE17: 3 node4: 5"
    assert lazy.search(line).groupdict() == compiled.search(line).groupdict() == {"host": b"NODE17"}  # type: ignore[union-attr]
    assert "search" in vars(lazy)  # (compiled once: the methods are the compiled pattern's)
    assert lazy.match(line) is None and lazy.match(line, 2).span() == (2, 11)  # type: ignore[union-attr]
    assert [m.span() for m in lazy.finditer(line)] == [m.span() for m in compiled.finditer(line)]
    assert lazy.findall(line) == compiled.findall(line) == [(b"NODE17", b"3"), (b"node4", b"5")]
    assert lazy.sub(b"-", line) == compiled.sub(b"-", line) and lazy.split(line) == compiled.split(line)
    assert (lazy.flags, lazy.groups, lazy.groupindex) == (compiled.flags, compiled.groups, compiled.groupindex)


def test_a_lazy_pattern_is_no_re_pattern_and_probes_compile_nothing() -> None:
    lazy = lazy_pattern(r"a+")
    assert isinstance(lazy, LazyPattern) and not isinstance(lazy, re.Pattern)
    assert not hasattr(lazy, "__deepcopy__") and not hasattr(lazy, "no_such_method")
    assert "search" not in vars(lazy) and repr(lazy) == "lazy_pattern('a+', 0)"


def test_checking_a_clean_result_file_compiles_no_raw_output_pattern(tmp_path: Path) -> None:
    """In a fresh process (patterns another test used are compiled in this one)."""
    probe = (
        "import json, sys\n"
        "from mlcheck.read.lazy_patterns import LazyPattern\n"
        "from mlcheck.cli import main\n"
        "try:\n"
        "    main(['check', sys.argv[1], '--format', 'json'], standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        "from mlcheck.read.job_starts import LAUNCH_LINE\n"
        "lazy = [v for name, m in list(sys.modules.items()) if name.startswith('mlcheck.') for v in vars(m).values()\n"
        "        if isinstance(v, LazyPattern)] + [getattr(LAUNCH_LINE, n) for n in LAUNCH_LINE.__slots__]\n"
        "print(json.dumps([len(lazy), sorted(str(o.pattern)[:40] for o in lazy if 'search' in vars(o))]), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe, str(EXAMPLE)], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    count, compiled = json.loads(done.stderr.strip().splitlines()[-1])
    assert count >= 20 and compiled == []
