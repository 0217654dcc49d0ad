"""The ends of queries as node ids: what ``World``'s bulk queries
(``reachable_many``, the matrices, ``path_costs``, ``prepare_paths``) make
of the node ids and points they are given, with one ``locate_many`` call
where the graph locates whole arrays."""
from __future__ import annotations

import itertools

import numpy as np

from . import validate
from .errors import NodeError

#: the types of the numbers ``ends_of`` hands to ``locate_many`` in bulk
_PLAIN_NUMBERS = {float, int, np.float64, np.float32, np.int64, np.int32}


def nodes(graph, items, what, allow_outside=False, with_points=False):
    """Validated int32 node ids from ids or points; a point outside the
    graph is ``-1`` when ``allow_outside``, else a ``NodeError``. With
    ``with_points``: ``(ids, points)``, ``points`` the float64 ``(k, 2)``
    points the caller gave (``(k, 3)`` on a level: ``_given_points``), NaN in the rows given as node ids (or as
    anything but an ``(x, y)`` pair), ``None`` when every entry was an id."""
    points = None
    try:
        arr = np.asarray(items) if not isinstance(items, np.ndarray) else items
    except (TypeError, ValueError):      # ragged: ids mixed with points
        arr = None
    if arr is not None and arr.ndim == 1 and (
            arr.size == 0 or np.issubdtype(arr.dtype, np.integer)) and not (
            arr is not items and any(isinstance(x, (bool, np.bool_)) for x in items)):
        # (numpy reads [3, True] as [3, 1]; a bool is no node id, so a
        # list holding one goes the slow way and node_of rejects it)
        out = validate.node_ids(arr, graph.num_nodes, what)
        return (out, None) if with_points else out
    if graph.vector_locate and arr is not None and arr.ndim == 2 and arr.size \
            and np.issubdtype(arr.dtype, np.number) and arr.dtype != np.bool_:
        points = validate.points(arr, what)
        out = graph.locate_many(points)   # one call, not one per point
    else:
        try:
            out = np.array([graph.node_of(p) for p in items], dtype=np.int32)
        except TypeError:
            raise NodeError(f"{what} must be a sequence of node ids or points, "
                            f"got {items!r}") from None
        if with_points:
            points = _given_points(items, getattr(graph, "point_dims", 2))
    if not allow_outside and (out < 0).any():
        i = int(np.flatnonzero(out < 0)[0])
        raise NodeError(f"{what}[{i}] = {items[i]!r} lies outside graph "
                        f"{graph.graph_id!r}")
    return (out, points) if with_points else out


def ends_of(graph, ends: list) -> np.ndarray:
    """Integer nodes of ``ends`` (a list) as ``node_of`` resolves them."""
    if graph.vector_locate and ends:
        # ends that are all pairs of plain numbers (no bools, which
        # locate refuses and numpy reads as 0/1) are points: in bulk
        try:
            plain = set(map(type, itertools.chain.from_iterable(ends))) <= _PLAIN_NUMBERS
            pts = np.asarray(ends, dtype=np.float64) if plain else None
        except (TypeError, ValueError, OverflowError):
            pts = None
        if pts is not None and pts.shape == (len(ends), 2):
            return graph.locate_many(pts)
    return np.fromiter(map(graph.node_of, ends), dtype=np.int64, count=len(ends))


def _given_points(items, dims=2) -> np.ndarray | None:
    """float64 ``(k, dims)``: each entry of ``items`` that is a point of
    ``dims`` numbers (``(x, y)``; 3 on a graph whose points are 3D, a
    level's: its ``point_dims``), NaN for the others (node ids); ``None``
    when no entry is such a point. ``items`` already resolved through
    ``node_of``."""
    out = np.full((len(items), dims), np.nan)
    for i, p in enumerate(items):
        if not validate.is_int(p) and np.shape(p) == (dims,):
            out[i] = np.asarray(p, dtype=np.float64)
    return None if np.isnan(out[:, 0]).all() else out
