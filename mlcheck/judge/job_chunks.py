"""How ``--jobs`` shares the logs out among its workers: chunks of log indices, the largest first.

Where a check holds many benchmark folders (a package, a round), each folder is a chunk of its
own and the worker that checks it also scores it (:func:`mlcheck.judge.folder_groups.score_in_worker`):
the folder stage then runs in the workers instead of after them in the parent. A folder larger
than a share of the work (or too few folders to share) is split by size as any other logs, and
the parent scores it.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from mlcheck.package.discover import LogRef

CHUNKS_PER_WORKER = 8
MAX_CHUNK = 16
FOLDERS_PER_WORKER = 4
"""Folders a check needs per worker for its folders to be chunks of their own (fewer cannot be
shared out evenly)."""


class Chunk(NamedTuple):
    indices: list[int]
    scores_folders: bool
    """The chunk is the whole of one benchmark folder: the worker scores it too."""


def size_chunks(sizes: dict[int, int], jobs: int) -> list[list[int]]:
    """Chunks of log indices, the largest logs first (so that no large log is left for last),
    small enough for the progress bar to move and for the workers to share the load."""
    by_size = sorted(sizes, key=lambda i: -sizes[i])
    size = max(1, min(MAX_CHUNK, len(by_size) // (jobs * CHUNKS_PER_WORKER)))
    return [by_size[start:start + size] for start in range(0, len(by_size), size)]


def plan_chunks(refs: Sequence[LogRef], sizes: dict[int, int], jobs: int) -> list[Chunk]:
    """The chunks of the logs ``sizes`` names (index: bytes), the largest first."""
    folders: dict[str, list[int]] = {}
    for index in sizes:
        folder = refs[index].folder
        if folder is not None:
            folders.setdefault(folder, []).append(index)
    share = sum(sizes.values()) / (2 * jobs)
    whole = [sorted(indices) for indices in folders.values()
             if sum(sizes[i] for i in indices) <= share]
    if len(whole) < FOLDERS_PER_WORKER * jobs:
        return [Chunk(chunk, False) for chunk in size_chunks(sizes, jobs)]
    taken = {i for indices in whole for i in indices}
    rest = size_chunks({i: size for i, size in sizes.items() if i not in taken}, jobs)
    chunks = [Chunk(indices, True) for indices in whole] + [Chunk(chunk, False) for chunk in rest]
    return sorted(chunks, key=lambda chunk: -sum(sizes[i] for i in chunk.indices))
