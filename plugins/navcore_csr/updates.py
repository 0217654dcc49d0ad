"""Generic updates for any NavGraph: node walkability and edge costs.

Backends with their own update vocabulary (grids: rectangles, masks)
answer ``navcore_make_update`` first; this covers the csr type and any
third-party graph that keeps the base NavGraph arrays.

    world.update("g", nodes=[3, 4], walkable=False)
    world.update("g", rect=(2, 1, 4, 3), walkable=False)  # nodes placed inside
    world.update("g", edges=[(0, 1), (1, 2)], cost=7.5)   # inf closes

``rect=(x, y, w, h)`` (the planar box of every backend: corner, width,
height) selects the nodes whose position (its first two coordinates) lies
in ``[x, x + w] x [y, y + h]``; a graph without positions refuses it, and
so does a box that runs past the positions' bounding box (the sign of two
corners given as a corner and a size).
"""
from __future__ import annotations

import numpy as np

from navcore import limits, validate
from navcore.errors import UpdateError
from navcore.types import Update

_KEYS = {"nodes", "rect", "walkable", "edges", "cost"}


def make_update(graph, params) -> Update:
    unknown = set(params) - _KEYS
    if unknown:
        raise UpdateError(f"unknown update parameter(s) {sorted(unknown)} for "
                          f"{graph.kind} graph {graph.graph_id!r}; expected "
                          f"nodes=... or rect=(x, y, w, h) with walkable=..., or "
                          f"edges=..., cost=...")
    if "rect" in params:
        if set(params) != {"rect", "walkable"}:
            raise UpdateError("a rect update takes exactly rect=(x, y, w, h) and walkable=bool")
        nodes = _nodes_in_rect(graph, params["rect"])
        walkable = params["walkable"]
        if not isinstance(walkable, (bool, np.bool_)):
            raise UpdateError(f"walkable must be True or False, got {walkable!r}")
        return Update(graph.graph_id, "walkable", {"nodes": nodes, "walkable": bool(walkable)})
    if "nodes" in params:
        if "walkable" not in params or set(params) != {"nodes", "walkable"}:
            raise UpdateError("a node update takes exactly nodes=[...] and walkable=bool")
        nodes = _ids(graph, params["nodes"], "nodes")
        walkable = params["walkable"]
        if not isinstance(walkable, (bool, np.bool_)):
            raise UpdateError(f"walkable must be True or False, got {walkable!r}")
        return Update(graph.graph_id, "walkable", {"nodes": nodes, "walkable": bool(walkable)})
    if "edges" in params:
        if set(params) != {"edges", "cost"}:
            raise UpdateError("an edge update takes exactly edges=[(u, v), ...] and cost=")
        pairs = validate.array(params["edges"], "edges", UpdateError)
        if pairs.ndim != 2 or pairs.shape[1] != 2 or not (
                pairs.size == 0 or validate.int_dtype(pairs.dtype)):
            raise UpdateError(f"edges must be a list of (u, v) node-id pairs, "
                              f"got {params['edges']!r}")
        u = _ids(graph, pairs[:, 0], "edges")
        v = _ids(graph, pairs[:, 1], "edges")
        cost = _costs(params["cost"], u.shape)
        if cost is None or np.isnan(cost).any() or (cost < 0).any():
            raise UpdateError(f"cost must be numbers >= 0 (inf closes an edge), "
                              f"got {params['cost']!r}")
        if (np.isfinite(cost) & (cost > limits.MAX_COST)).any():
            raise UpdateError(f"finite costs must be at most {limits.MAX_COST:g} (a path's "
                              f"sum must stay finite; inf closes an edge)")
        if not graph.directed:
            u, v, cost = _both_ways(u, v, cost, graph.num_nodes)
        pos = graph.csr.edge_positions(u, v)
        if (pos < 0).any():
            i = int(np.argmax(pos < 0))
            raise UpdateError(f"graph {graph.graph_id!r} has no edge {int(u[i])} -> {int(v[i])}")
        return Update(graph.graph_id, "cost", {"positions": pos, "cost": cost,
                                               "nodes": np.unique(np.concatenate([u, v]))})
    raise UpdateError("an update needs nodes=... with walkable=, or edges=... with cost=")


def apply_updates(graph, batch) -> np.ndarray:
    """Apply validated updates in order (later writes win); dirty nodes out."""
    dirty = []
    walkable = graph.walkable.copy()
    cost_pos, cost_val = [], []
    for upd in batch:
        p = upd.params
        if upd.kind == "walkable":
            walkable[p["nodes"]] = p["walkable"]
        elif upd.kind == "cost":
            cost_pos.append(p["positions"])
            cost_val.append(p["cost"])
            dirty.append(p["nodes"])
        else:
            raise UpdateError(f"update kind {upd.kind!r} is not a generic update")
    changed = np.flatnonzero(walkable != graph.walkable)
    dirty.append(changed)
    graph.walkable[changed] = walkable[changed]
    if cost_pos:   # sequential writes: numpy fancy assignment keeps the last
        graph.csr.set_cost(np.concatenate(cost_pos), np.concatenate(cost_val))
    graph.version += 1
    return np.unique(np.concatenate(dirty)).astype(np.int32)


def _costs(x, shape):
    """float64 costs of ``shape`` from a number or one per edge, or None:
    bools, text, complex, ragged, 10**400 or a count that does not match."""
    try:
        arr = np.asarray(x)
        if arr.dtype.kind not in "iuf":        # numpy reads True as 1.0 and "2" as 2.0
            return None
        return np.broadcast_to(arr.astype(np.float64), shape).copy()
    except (TypeError, ValueError, OverflowError):
        return None


def _both_ways(u, v, cost, n):
    """An undirected graph's edge update in both directions: each edge
    once, the last cost given for it in either direction, written both
    ways (``(0, 1)`` and ``(1, 0)`` in one update are one edge)."""
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    key = lo * n + hi
    _, last = np.unique(key[::-1], return_index=True)
    keep = np.sort(len(key) - 1 - last)
    lo, hi, cost = lo[keep], hi[keep], cost[keep]
    return np.concatenate([lo, hi]), np.concatenate([hi, lo]), np.tile(cost, 2)


def _ids(graph, nodes, what) -> np.ndarray:
    return validate.node_ids(validate.array(nodes, what, UpdateError).reshape(-1),
                             graph.num_nodes,
                             f"{what} of graph {graph.graph_id!r}", UpdateError, np.int64)


def _nodes_in_rect(graph, value) -> np.ndarray:
    """The nodes whose position lies in ``rect=(x, y, w, h)``, or
    ``UpdateError``: no positions, a malformed box, or one that runs past
    the bounding box of the positions."""
    if not graph.has_positions():
        raise UpdateError(f"rect= selects nodes by position; {graph.kind} graph "
                          f"{graph.graph_id!r} has no positions (use nodes=)")
    try:
        x, y, w, h = (float(v) for v in value)
    except (TypeError, ValueError, OverflowError):
        raise UpdateError(f"rect must be (x, y, w, h), got {value!r}") from None
    if isinstance(value, (str, bytes)) or not all(np.isfinite((x, y, w, h))) \
            or w <= 0 or h <= 0:
        raise UpdateError(f"rect must be finite (x, y, w, h) with w > 0 and h > 0, "
                          f"got {value!r}")
    pos = graph.positions[:, :2]
    (x0, y0), (x1, y1) = pos.min(axis=0), pos.max(axis=0)
    tol = 1e-9 * max(x1 - x0, y1 - y0, 1.0)
    if x < x0 - tol or y < y0 - tol or x + w > x1 + tol or y + h > y1 + tol:
        raise UpdateError(f"rect={tuple(value)!r} (x, y, w, h) covers x {x:g}..{x + w:g}, "
                          f"y {y:g}..{y + h:g}, which runs past the nodes of graph "
                          f"{graph.graph_id!r} (x {x0:g}..{x1:g}, y {y0:g}..{y1:g}); "
                          f"rect is (x, y, width, height), not two corners")
    inside = (pos[:, 0] >= x) & (pos[:, 0] <= x + w) & (pos[:, 1] >= y) & (pos[:, 1] <= y + h)
    return np.flatnonzero(inside).astype(np.int64)
