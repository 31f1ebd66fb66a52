"""The files a check read, with their sha256: the HTML report's "Versions and inputs" table, so that a
report can be tied to the very bytes it judged."""

from __future__ import annotations

import os

from mlcheck.package.discover import package_path
from mlcheck.package.params import params_files
from mlcheck.package.real_paths import absolute_parts
from mlcheck.read.file_names import RESULT_FILE
from mlcheck.results import CheckResult


def input_digests(result: CheckResult) -> dict[str, str]:
    """sha256 of every input file of the result, sorted by path (streamed; stdin and unreadable files
    omitted): the logs, and what decides a benchmark folder's verdict and score beside them (its
    ``scaling.json``, ``package_checker_params`` files, power logs, and the system description)."""
    import hashlib

    digests: dict[str, str] = {}
    for path in sorted(judged_files(result)):
        if path == "-" or not os.path.isfile(path):
            continue
        digest = hashlib.sha256()
        try:
            with open(path, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        except OSError:
            continue
        digests[path] = digest.hexdigest()
    return digests


def judged_files(result: CheckResult) -> set[str]:
    """The logs of the result and the files beside them that its benchmark folders' judgement reads
    (those that exist or not: the caller keeps the files)."""
    files = {run.path for run in result.runs}
    for bench in result.benchmarks:
        folder = bench.folder
        if not folder or folder == "-" or not os.path.isdir(folder):
            continue
        files.add(os.path.join(folder, "scaling.json"))
        # (a folder's result files judged together: its power logs and params are read; not a file named alone's,
        # nor raw logs')
        if bench.rcp is not None and any(RESULT_FILE.match(os.path.basename(run.path)) for run in bench.runs):
            files.update(params.path for params in params_files(folder))
            for root, folders, names in os.walk(os.path.join(folder, "power")):
                folders.sort()
                files.update(os.path.join(root, name) for name in names)
        if bench.system and absolute_parts(folder)[-3:-2] == ("results",):
            files.add(package_path(folder, "systems", f"{bench.system}.json"))
    return files
