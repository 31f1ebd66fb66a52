"""``files(package)`` as :func:`importlib.resources.files` gives it, for the data files mlcheck
ships (``mlcheck.schemas``): the package's folder, as a :class:`pathlib.Path`.

``importlib.resources`` imports ``tempfile``, ``shutil``, ``zipfile`` and the compression modules
(5 ms at every start) for packages that are not plain folders; an installed or editable mlcheck is
one, and only another layout (a zip) falls back to it. ``from mlcheck.facts import resources``
takes the place of ``from importlib import resources``.
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
    spec = importlib.import_module(package).__spec__
    locations = spec.submodule_search_locations if spec is not None else None
    if locations is not None and len(locations) == 1 and os.path.isdir(locations[0]):
        return Path(locations[0])
    from importlib import resources  # a package that is not a folder of its own

    return resources.files(package)
