"""What runs on a Dask worker: one tile of a job, answered through a
``navcore.World`` of the worker's own, so every tile takes the same path
through the plugins (and the same numba kernels) as the call on one
machine would.

Each snapshot gets its world the first time a tile of it runs in a
process: the graph is unpickled and adopted under its id
(``World.adopt_graph``), which loads its kernels (from numba's on-disk
cache, which processes of one installation share). The world lives with
the scattered snapshot: when the cluster releases that version and the
worker lets go of the snapshot, the graph is removed from its world (its
views dropped) at once, not whenever the worker's garbage collector runs.
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

from . import snapshot as _snapshot

_lock = threading.Lock()


def _world(snapshot):
    """``(world, graph_id)`` serving ``snapshot`` in this process."""
    held = getattr(snapshot, "_world", None)
    if held is None:
        with _lock:
            held = getattr(snapshot, "_world", None)
            if held is None:
                import navcore
                _one_thread()
                graph = snapshot.graph()
                world = navcore.World()
                # the graph is already built, with its views: it joins this
                # world as it is (add_graph would build it again)
                world.adopt_graph(graph)
                held = snapshot._world = (world, graph.graph_id)
                weakref.finalize(snapshot, world.remove_graph, graph.graph_id)
                weakref.finalize(graph, _snapshot.FREED.update, [snapshot.token])
    return held


def _one_thread():
    # Dask runs tiles side by side (worker processes x threads per
    # worker), so each tile keeps to one core: numba's parallel kernels
    # would otherwise start a thread per CPU in every worker thread
    import numba
    numba.set_num_threads(1)


def matrix_tile(snapshot, sources: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """The ``(len(sources), len(targets))`` block of a distance matrix."""
    world, graph_id = _world(snapshot)
    _one_thread()
    return world.distance_matrix(graph_id, sources, targets)


def pairs_tile(snapshot, sources: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """One slice of a ``distance_pairs`` job."""
    world, graph_id = _world(snapshot)
    _one_thread()
    return world.distance_pairs(graph_id, sources, targets)


def paths_tile(snapshot, starts, goals, algorithm: str, options: dict) -> list:
    """``PathResult`` of each ``(starts[i], goals[i])``, as
    ``World.find_path`` answers it."""
    world, graph_id = _world(snapshot)
    _one_thread()
    return [world.find_path(graph_id, s, g, algorithm, **options)
            for s, g in zip(starts, goals)]


def lazy_matrix_block(sources: np.ndarray, targets: np.ndarray, snapshot) -> np.ndarray:
    """``matrix_tile`` with the block arrays first, as ``dask.array.blockwise``
    hands them over."""
    return matrix_tile(snapshot, sources, targets)
