"""``files(package)`` as :func:`importlib.resources.files` gives it, for the data files mlcheck
ships (``mlcheck.schemas``): the package's folder, as a :class:`pathlib.Path`.

``importlib.resources`` imports ``tempfile``, ``shutil``, ``zipfile`` and the compression modules
(5 ms at every start) for packages that are not plain folders; an installed or editable mlcheck is
one, and only another layout (a zip) falls back to it. ``from mlcheck.facts import resources``
takes the place of ``from importlib import resources``.

From a source tree (``python -m mlcheck`` in a clone, or ``PYTHONPATH`` naming it) the package
``mlcheck.schemas`` does not exist: the build makes it of the clone's ``schemas/`` folder. That
folder is then the data (a review of session 42: every log had an internal error there). Where
an editable install of another clone is active, its path hook answers for ``mlcheck.schemas``
first, and that clone's data is read.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.abc import Traversable


def files(package: str) -> Traversable:
    """The folder of ``package`` (``joinpath``, ``read_text``, ``is_file`` as a Traversable)."""
    try:
        spec = importlib.import_module(package).__spec__
    except ModuleNotFoundError:
        source = _source_folder(package)
        if source is None:
            raise
        return source
    locations = spec.submodule_search_locations if spec is not None else None
    if locations is not None and len(locations) == 1 and os.path.isdir(locations[0]):
        return Path(locations[0])
    from importlib import resources  # a package that is not a folder of its own

    return resources.files(package)


def _source_folder(package: str) -> Path | None:
    """The folder of the source tree that the build installs as ``package`` (``mlcheck.schemas``:
    the clone's ``schemas/``, beside the ``mlcheck/`` folder this module is in), or None."""
    if package != "mlcheck.schemas":
        return None
    folder = Path(__file__).resolve().parent.parent.parent / "schemas"
    return folder if (folder / "rulesets").is_dir() else None
