"""Closures and traffic on road graphs (``World.update`` on a ``roads``
graph; the next ``tick`` applies them).

Which roads (one of):

* ``edges=[(u, v), ...]``: the graph's edges ``u -> v`` (node ids; every
  parallel road between them; one direction only);
* ``osm_way=ID`` or a list of ids: every segment of those ways, whichever
  edges they lie on (part of a long edge when a way ends inside a chain);
* ``bbox=(west, south, east, north)`` in degrees (west < east, south <
  north, inside ±180 / ±90, overlapping the network): every segment with
  an end inside. Not
  ``rect=``, which is ``(x, y, w, h)`` on planar graphs: a road graph
  refuses it, so a box in the other order is never reordered silently;
* ``segments=[...]``: segment ids (indices into ``graph.segments``, as
  ``graph.edge_segments`` gives them), one direction each (what a scene's
  ``traffic`` event selected).

What happens to them (one of):

* ``cost=inf``: closed (no search uses them until ``reset``);
* ``factor=f`` (> 0): cost is ``f`` times the free-flow cost (2.0: twice
  as slow; 1.0: free flow again); it does not reopen a closure;
* ``speed=v`` (km/h, > 0): on ``weight="time"`` graphs, time at that speed;
* ``reset=True``: back to the loaded state (open, free flow);
* ``walkable=False/True`` with ``nodes=[...]``: junctions closed or opened.

Costs live per segment, so a jam on one way of a compressed edge re-weights
only its share of that edge. Every query after the tick is exact; derived
views (a contraction hierarchy) are stale until rebuilt.
"""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore.errors import UpdateError
from navcore.types import Update

SELECTIONS = ("edges", "osm_way", "bbox", "segments", "nodes")
ACTIONS = ("cost", "factor", "speed", "reset", "walkable")


def make_update(graph, params) -> Update:
    """Validate one ``World.update`` call now (``UpdateError`` naming what
    is wrong; nothing is queued then)."""
    if "rect" in params:
        raise UpdateError(f"road graph {graph.graph_id!r} selects roads by "
                          f"bbox=(west, south, east, north) in degrees, not rect= (which is "
                          f"(x, y, w, h) on planar graphs); got rect={params['rect']!r}")
    where, act = validate.one_of_each(
        params, SELECTIONS, ACTIONS,
        lambda unknown: f"unknown update parameter(s) {unknown} for road graph "
                        f"{graph.graph_id!r}; known: {', '.join(SELECTIONS + ACTIONS)}",
        lambda: f"a road update takes one of {', '.join(SELECTIONS)} and one of "
                f"{', '.join(ACTIONS)}; got {sorted(params)}")
    if (where == "nodes") != (act == "walkable"):
        raise UpdateError("nodes= goes with walkable=True/False, and walkable= with nodes=")
    if where == "nodes":
        nodes = validate.node_ids(validate.array(params["nodes"], "nodes", UpdateError)
                                  .reshape(-1), graph.num_nodes,
                                  f"nodes of graph {graph.graph_id!r}", UpdateError, np.int64)
        walkable = validate.boolean(params["walkable"], "walkable", UpdateError)
        return Update(graph.graph_id, "walkable", {"nodes": nodes, "walkable": walkable})
    segs = select_segments(graph, where, params[where])
    value = _action(graph, act, params[act])
    return Update(graph.graph_id, act, {"segments": segs, "value": value})


def select_segments(graph, where, value) -> np.ndarray:
    """Segment ids that a selection names (``where`` is one of ``edges``,
    ``osm_way``, ``bbox``, ``segments``); ``UpdateError`` when it is
    malformed or names what the graph does not have."""
    seg = graph.segments
    if where == "edges":
        try:
            pairs = np.asarray(value)
        except (TypeError, ValueError):              # ragged: (0, 1), (1,)
            pairs = np.empty(0)
        if pairs.ndim != 2 or pairs.shape[1] != 2 or not (
                pairs.size == 0 or validate.int_dtype(pairs.dtype)):
            raise UpdateError(f"edges must be a list of (u, v) node-id pairs, got {value!r}")
        what = f"edges of graph {graph.graph_id!r}"
        u = validate.node_ids(pairs[:, 0], graph.num_nodes, what, UpdateError, np.int64)
        v = validate.node_ids(pairs[:, 1], graph.num_nodes, what, UpdateError, np.int64)
        keys = graph.edge_src.astype(np.int64) * graph.num_nodes + graph.csr.targets
        wanted = u * graph.num_nodes + v
        edges = np.flatnonzero(np.isin(keys, wanted))
        found = np.isin(wanted, keys[edges])
        if not found.all():
            i = int(np.flatnonzero(~found)[0])
            raise UpdateError(f"road graph {graph.graph_id!r} has no edge "
                              f"{int(u[i])} -> {int(v[i])}")
        from .network import _chain_slices
        return graph.chain[_chain_slices(graph.chain_start, edges)[1]]
    if where == "osm_way":
        ids = validate.array(value, "osm_way", UpdateError).reshape(-1)
        if ids.size == 0 or not validate.int_dtype(ids.dtype) or ids.dtype == np.bool_:
            raise UpdateError(f"osm_way must be a way id or a list of them, got {value!r}")
        hit = np.flatnonzero(np.isin(seg.way, ids) & (graph.seg_edge >= 0))
        missing = np.setdiff1d(ids, seg.way[hit])
        if missing.size:
            raise UpdateError(f"road graph {graph.graph_id!r} has no way "
                              f"{int(missing[0])} (not routable, or dropped at load)")
        return hit
    if where == "segments":
        return _segment_ids(graph, value)
    if graph.positions is None:
        raise UpdateError(f"bbox= selects roads by (lon, lat); road graph "
                          f"{graph.graph_id!r} has no coordinates (a DIMACS .gr without .co)")
    lo_x, lo_y, hi_x, hi_y = bbox(value)
    _check_overlaps(graph, (lo_x, lo_y, hi_x, hi_y), value)
    inside = ((seg.lon >= lo_x) & (seg.lon <= hi_x) & (seg.lat >= lo_y) & (seg.lat <= hi_y))
    return np.flatnonzero((inside[seg.src] | inside[seg.dst]) & (graph.seg_edge >= 0))


def _segment_ids(graph, value) -> np.ndarray:
    ids = validate.array(value, "segments", UpdateError).reshape(-1)
    if ids.size == 0 or not validate.int_dtype(ids.dtype) or ids.dtype == np.bool_:
        raise UpdateError(f"segments must be a list of segment ids, got {value!r}")
    ids = ids.astype(np.int64)
    m = graph.segments.num_segments
    bad = ids[(ids < 0) | (ids >= m)]
    if bad.size:
        raise UpdateError(f"road graph {graph.graph_id!r} has segments 0..{m - 1}, "
                          f"not {int(bad[0])}")
    off = ids[graph.seg_edge[ids] < 0]
    if off.size:
        raise UpdateError(f"segment {int(off[0])} of road graph {graph.graph_id!r} lies on "
                          f"no edge (dropped at load with its component)")
    return np.unique(ids)


def bbox(value, error=UpdateError) -> tuple:
    """``(west, south, east, north)`` in degrees as four floats, or
    ``error`` saying what is wrong: not four finite numbers, outside ±180
    / ±90, or west >= east / south >= north (a box in another order, such
    as (x, y, w, h) or (lat, lon), is refused rather than reordered)."""
    try:
        box = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        box = None
    if box is None or box.shape != (4,) or not np.isfinite(box).all():
        raise error(f"bbox must be (west, south, east, north) in degrees, got {value!r}")
    west, south, east, north = box.tolist()
    if max(abs(west), abs(east)) > 180 or max(abs(south), abs(north)) > 90:
        raise error(f"bbox={value!r} is not (west, south, east, north) in degrees: "
                    f"longitudes lie within ±180 and latitudes within ±90")
    if not (west < east and south < north):
        raise error(f"bbox={value!r} is empty: (west, south, east, north) needs west < east "
                    f"and south < north")
    return west, south, east, north


def _check_overlaps(graph, box, value) -> None:
    """A box wholly off the network is refused (it would change nothing):
    most likely (lat, lon) order, which the message suggests when the
    swapped box overlaps."""
    seg = graph.segments
    used = seg.src[graph.seg_edge >= 0], seg.dst[graph.seg_edge >= 0]
    ends = np.concatenate(used)
    if ends.size == 0:
        return
    x0, x1 = float(seg.lon[ends].min()), float(seg.lon[ends].max())
    y0, y1 = float(seg.lat[ends].min()), float(seg.lat[ends].max())

    def overlaps(w, s, e, n):
        return w <= x1 and e >= x0 and s <= y1 and n >= y0

    if overlaps(*box):
        return
    hint = " (it looks like (south, west, north, east): bbox is (west, south, east, " \
        "north), longitude first)" if overlaps(box[1], box[0], box[3], box[2]) else ""
    raise UpdateError(f"bbox={value!r} lies outside road graph {graph.graph_id!r} "
                      f"(lon {x0:.5f}..{x1:.5f}, lat {y0:.5f}..{y1:.5f}){hint}")


def _action(graph, act, value):
    if act == "reset":
        if value is not True:
            raise UpdateError(f"reset takes True, got {value!r}")
        return True
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):          # 10**400 too
        raise UpdateError(f"{act} must be a number, got {value!r}") from None
    if isinstance(value, (bool, np.bool_)):
        raise UpdateError(f"{act} must be a number, got {value!r}")
    if act == "cost":
        if x != np.inf:
            raise UpdateError(f"cost= closes roads and takes inf, got {value!r}; use "
                              f"factor= or speed= for traffic, reset=True to reopen")
        return x
    if not (x > 0 and np.isfinite(x)):
        raise UpdateError(f"{act} must be finite and > 0, got {value!r}")
    if act == "speed" and (graph.weight != "time" or graph.segments.cost is not None):
        raise UpdateError(f"speed= changes travel times; road graph {graph.graph_id!r} is "
                          f"weighted by {'its given costs' if graph.segments.cost is not None else 'distance'}")
    return x


def apply_updates(graph, batch) -> np.ndarray:
    """Apply a batch in order (later writes win); returns the dirty nodes
    (both ends of every edge whose cost changed, and re-walkable nodes).
    Nothing changes when anything fails."""
    state = graph.traffic.copy()
    walkable = graph.walkable.copy()
    touched = []
    for upd in batch:
        p = upd.params
        if upd.kind == "walkable":
            walkable[p["nodes"]] = p["walkable"]
            continue
        s = p["segments"]
        if upd.kind == "cost":
            state.closed[s] = True
        elif upd.kind == "factor":
            state.factor[s] = p["value"]
        elif upd.kind == "speed":
            state.speed[s] = p["value"]
        elif upd.kind == "reset":
            state.reset(s)
        else:
            raise UpdateError(f"update kind {upd.kind!r} is not a road update")
        touched.append(s)
    dirty = [np.flatnonzero(walkable != graph.walkable)]
    graph.walkable[:] = walkable
    if touched:
        segs = np.unique(np.concatenate(touched))
        graph.traffic = state
        graph.seg_cost[segs] = state.costs(graph, segs)
        edges = np.unique(graph.seg_edge[segs])
        from .network import edge_costs
        graph.csr.set_cost(edges, edge_costs(graph, edges))
        dirty += [graph.edge_src[edges], graph.csr.targets[edges]]
    graph.version += 1
    return np.unique(np.concatenate(dirty)).astype(np.int32)
