"""``algorithm="funnel"``: A* over the polygons, then string pulling.

The corridor of polygons comes from the csr plugin's public A* over the
polygon graph (centroid to centroid); the funnel algorithm (Lee &
Preparata; the "simple stupid funnel") then pulls the path taut inside
that corridor, in a numba kernel (``_funnel.py``).

The result is **near-optimal, not exact**: the path is the shortest one
inside the chosen corridor, and centroid-to-centroid costs can pick a
corridor that is not the one holding the true shortest path (about 2.5%
longer on average on grid maps, measured). It is never shorter than
the optimum. The exact any-angle search is ``polyanya`` (the default).

>>> import navcore
>>> w = navcore.World()
>>> _ = w.add_graph("room", type="navmesh", bounds=(0, 0, 10, 10),
...                 obstacles=[[(4, 0), (6, 0), (6, 8), (4, 8)]])
>>> w.find_path("room", (1, 1), (9, 1), algorithm="funnel").points.tolist()
[[1.0, 1.0], [4.0, 8.0], [6.0, 8.0], [9.0, 1.0]]
"""
from __future__ import annotations

import numpy as np

import navcore_csr
from navcore import validate
from navcore.errors import NodeError, QueryError
from navcore.types import PathResult, PathStatus

from . import _funnel as K
from .mesh import NavMeshGraph

ALGORITHM = "funnel"


def _end_point(graph, where, node):
    """The point a query starts (or ends) at: the caller's point (moved
    onto the mesh if it lies just off it), or the centroid of the polygon
    when the caller gave a node id."""
    if validate.is_int(where):
        return graph.positions[node]
    return graph.on_mesh(where)


def funnel_path(graph, request, over=None) -> PathResult:
    """Answer ``request`` (ends already resolved to walkable polygons);
    ``over``: the polygon graph the corridor is searched on (an area
    filter's, ``areafilter``; None: ``graph`` itself)."""
    s, t = request.start_node, request.goal_node
    corridor = navcore_csr.astar(graph if over is None else over, s, t, heuristic="euclidean",
                                 algorithm=ALGORITHM)
    if corridor.status is not PathStatus.FOUND:
        return corridor
    return _pull(graph, corridor.nodes, _end_point(graph, request.start, s),
                 _end_point(graph, request.goal, t), corridor.expanded)


def pull(graph, corridor, start, goal, expanded=0) -> PathResult:
    """A found result walking the polygon ``corridor`` (int32, each
    sharing an edge with the next) taut from ``start`` to ``goal``.
    ``NodeError`` for ids that are not polygons, neighbours that share no
    edge and ends that are not finite points."""
    if not isinstance(graph, NavMeshGraph):
        raise QueryError(f"pull needs a navmesh graph, got {graph!r}")
    corridor = validate.node_ids(corridor, graph.num_polygons, "corridor")
    apart = np.flatnonzero(graph.csr.edge_positions(corridor[:-1], corridor[1:]) < 0) \
        if corridor.size > 1 else ()
    if len(apart):
        i = int(apart[0])
        raise NodeError(f"corridor polygons {int(corridor[i])} and {int(corridor[i + 1])} "
                        f"(index {i}) share no edge")
    start, goal = validate.xy(start, "start point"), validate.xy(goal, "goal point")
    if not validate.is_int(expanded) or expanded < 0:
        raise QueryError(f"expanded must be an int >= 0, got {expanded!r}")
    return _pull(graph, np.ascontiguousarray(corridor, dtype=np.int32), start, goal,
                 int(expanded))


def _pull(graph, corridor, start, goal, expanded) -> PathResult:
    """``pull`` of a corridor A* found (int32 polygon ids, each sharing an
    edge with the next)."""
    out, k = K.string_pull(graph.vertices, graph.poly_start, graph.poly_verts,
                           graph.poly_adj, corridor,
                           float(start[0]), float(start[1]), float(goal[0]), float(goal[1]))
    if k < 0:
        raise NodeError(f"the corridor {corridor.tolist()} passes through a retired "
                        f"polygon slot (an empty polygon, no longer part of the mesh)")
    points = out[:k].copy()
    cost = K.polyline_length(points, k)
    return PathResult.found_path(corridor, points, cost, expanded, ALGORITHM)


def warm_up(graph) -> None:
    """Compile (or load from the cache) the kernels now, on ``graph``'s
    own arrays (the dtypes every query uses)."""
    live = np.flatnonzero(np.diff(graph.poly_start) > 0)     # not a retired slot
    if live.size == 0:
        return
    p = int(live[0])
    graph.locate_many(graph.positions[p:p + 1])
    end = tuple(graph.positions[p])
    pull(graph, np.array([p], dtype=np.int32), end, end)
