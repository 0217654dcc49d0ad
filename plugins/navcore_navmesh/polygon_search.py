"""Searches over a navmesh's polygon graph, under names that say so.

A navmesh's nodes are its polygons, joined where they share an edge at
the distance between their centroids (``mesh``), weighted by per-polygon
``cost`` updates. A search over that graph answers the cheapest walk from
polygon centroid to polygon centroid: a *polygon-graph cost*, not the
length of a path between the query's points. So on a navmesh the generic
names mean the exact search: ``astar`` and ``dijkstra`` answer as
``polyanya`` does (``polyanya`` is an A* over intervals of mesh edges),
and the polygon-graph searches go by their own names:

* ``polygon_astar`` / ``polygon_dijkstra``: the cheapest walk over the
  polygon graph (centroid to centroid, times the polygons' costs);
  ``points`` are the centroids, ``cost`` that walk's polygon-graph cost.

The other generic names (``bfs``, the fewest polygons, and ``simplified``
and ``ch``, which answer from views of the polygon graph) are a
``QueryError`` naming these.
"""
from __future__ import annotations

import navcore_csr

import navcore
from navcore.types import PathResult

#: the names of the polygon-graph searches, in ``world.algorithms``
ALGORITHMS = ("polygon_astar", "polygon_dijkstra")
#: the generic names that mean the exact search on a navmesh
EXACT_ALIASES = ("astar", "dijkstra")
#: the generic names that would answer a polygon-graph cost as a path length
REFUSED = ("bfs", "simplified", "ch")


def polygon_path(graph, request) -> PathResult:
    """Answer ``request`` (``algorithm`` one of ``ALGORITHMS``) over the
    polygon graph, its ends the polygons they were resolved to."""
    s, t, name = request.start_node, request.goal_node, request.algorithm
    if name == "polygon_astar":
        return navcore_csr.astar(graph, s, t, heuristic=request.options.get("heuristic"),
                                 algorithm=name)
    result = navcore_csr.dijkstra(graph, s, t)
    result.algorithm = name
    return result


def closed_nodes(graph, request):
    """``navcore_closed_nodes`` on a plain navmesh (no heights, no area
    filter): ``(result, polygons closed)`` of the polygon-graph searches
    and the funnel's corridor search (A* over the polygon graph, read by
    ``navcore_csr.closed_nodes``). The exact search (``polyanya``, and
    ``auto``, ``astar``, ``dijkstra`` that mean it here) expands intervals
    of edges, not polygons: ``(result, navcore.SearchIntervals)``, the
    intervals it closed (``polyanya.searched_intervals``). None for other
    requests."""
    if graph.heights is not None:
        return _layered_closed_nodes(graph, request)
    from .funnel import ALGORITHM as FUNNEL, funnel_path
    from .polyanya import NAMES, searched_intervals
    if set(request.options) - {"heuristic"}:
        return None
    name = request.algorithm
    if name in NAMES and not request.options:
        return searched_intervals(graph, request)
    if name in ALGORITHMS:
        result = polygon_path(graph, request)
    elif name == FUNNEL and not request.options:
        result = funnel_path(graph, request)
    else:
        return None
    return result, navcore_csr.closed_nodes(graph)


def _layered_closed_nodes(graph, request):
    """``closed_nodes`` on a layered (3D) mesh without off-mesh links: the
    plain mesh's record of the search ``find_path`` runs in the mesh's
    ground projection (``layered``), the result lifted to 3D as
    ``find_path`` lifts it; Polyanya's intervals stay in the ground plane
    (their polygons name the floor). None with options or links."""
    from . import layered
    if request.options or graph.links is not None:
        return None
    closed = []

    def answer(flat, g):
        got = closed_nodes(g, flat) if g.heights is None else _plain(g, flat)
        if got is None:
            return None
        closed.append(got[1])
        return got[0]
    result = layered.find_path(graph, request, answer)
    return None if result is None else (result, closed[0])


def _plain(graph, request):
    """``closed_nodes`` of ``request`` on ``graph``'s arrays as a plain mesh
    (the ground projection a layered mesh searches in)."""
    from .funnel import ALGORITHM as FUNNEL, funnel_path
    from .polyanya import NAMES, searched_intervals
    name = request.algorithm
    if name in NAMES:
        return searched_intervals(graph, request)
    if name in ALGORITHMS:
        return polygon_path(graph, request), navcore_csr.closed_nodes(graph)
    if name == FUNNEL:
        return funnel_path(graph, request), navcore_csr.closed_nodes(graph)
    return None


def refuse(graph, request):
    """``QueryError`` for a generic name that would search the polygon graph."""
    raise navcore.QueryError(
        f"algorithm {request.algorithm!r} would search the polygon graph of navmesh "
        f"{request.graph_id!r}, whose costs are distances between polygon centroids, not "
        f"path lengths; ask for 'polyanya' (exact, also what 'auto', 'astar' and "
        f"'dijkstra' mean on a navmesh), 'funnel', or a polygon-graph search by its own "
        f"name: {', '.join(map(repr, ALGORITHMS))}")
