"""Many routes in one call: ``routes(graph, sources, targets)`` unpacks the
path of every pair, on both cores when a (customizable) contraction hierarchy is current
(two parallel passes: search each pair and keep its hierarchy arcs, then
unpack them into the graph's edges), one bidirectional search per pair
otherwise (over the edges under turn rules, ``turns``). For logistics and traffic simulations that plan thousands of
trips at once; a game asking one route a frame uses ``World.find_path``.

>>> import navcore, navcore_roads
>>> w = navcore.World()
>>> g = w.add_graph("r", type="roads", src=[0, 1, 2], dst=[1, 2, 0],
...                 length=[100.0, 100.0, 100.0], speed=36.0)
>>> _ = navcore_roads.contract(g)
>>> r = navcore_roads.routes(g, [0, 2], [2, 1])
>>> r.costs.tolist(), r.nodes(0).tolist(), r.nodes(1).tolist()
([20.0, 20.0], [0, 1, 2], [2, 0, 1])
"""
from __future__ import annotations

import numpy as np

from navcore import limits, validate
from navcore.errors import GraphError, NodeError

from . import cch, ch, search, turns


class Routes:
    """The routes of many pairs: ``costs`` (float64, inf where there is
    none), and route ``i``'s edges (CSR positions) are
    ``edges[offsets[i]:offsets[i + 1]]``; ``nodes(i)`` and ``points(i)``
    give its junctions and its drawn road ((lon, lat))."""

    __slots__ = ("graph", "sources", "targets", "costs", "offsets", "edges", "algorithm")

    def __init__(self, graph, sources, targets, costs, offsets, edges, algorithm):
        self.graph = graph
        self.sources = sources
        self.targets = targets
        self.costs = costs
        self.offsets = offsets
        self.edges = edges
        self.algorithm = algorithm

    def __len__(self) -> int:
        return int(self.costs.size)

    def route_edges(self, i) -> np.ndarray:
        i = validate.node_id(i, len(self), "route")
        return self.edges[self.offsets[i]:self.offsets[i + 1]]

    def nodes(self, i) -> np.ndarray:
        """Junctions of route ``i`` (int32; empty when it has none)."""
        e = self.route_edges(i)
        if not np.isfinite(self.costs[i]):
            return np.empty(0, dtype=np.int32)
        out = np.empty(e.size + 1, dtype=np.int32)
        out[0] = self.sources[i]
        out[1:] = self.graph.csr.targets[e]
        return out

    def points(self, i) -> np.ndarray:
        """(lon, lat) of every source node along route ``i``."""
        e = self.route_edges(i)
        if not np.isfinite(self.costs[i]):
            return np.empty((0, 2))
        if e.size == 0:
            return self.graph.points_of(self.nodes(i))
        return self.graph.route_points(e)

    @property
    def __geo_interface__(self) -> dict:
        """The routes as a GeoJSON FeatureCollection, Feature ``i`` for
        pair ``i`` (``navcore_roads.to_geojson``; a found route's drawn
        road as a LineString of [lon, lat], ``null`` where there is none)."""
        from .export import routes_collection
        return routes_collection(self)

    def __repr__(self) -> str:
        found = int(np.isfinite(self.costs).sum())
        return f"<Routes {len(self)} pairs, {found} found, {self.edges.size} edges ({self.algorithm})>"


def routes(graph, sources, targets) -> Routes:
    """The cheapest route of every pair ``sources[i]`` -> ``targets[i]``
    (node ids, or (lon, lat) points: each then starts or ends at the
    junction nearest along its road, ``snap(graph, points).nodes``, not
    on the road itself as ``find_path`` and ``distance_pairs`` do; a
    point farther than ``graph.max_snap`` from every road is a
    ``NodeError``)."""
    from .network import RoadGraph
    if not isinstance(graph, RoadGraph):
        raise GraphError(f"routes takes a road graph (type: roads), got {graph!r}")
    limits.check_pairs("routes", max(limits.count(sources), limits.count(targets)))
    s = _ends(graph, sources, "sources")
    t = _ends(graph, targets, "targets")
    if s.shape != t.shape:
        raise NodeError(f"routes needs as many sources as targets, got {s.size} and {t.size}")
    usable = graph.walkable[s] & graph.walkable[t]
    view = cch.current(graph) or ch.current(graph)
    if view is not None and graph.turns is not None:    # turn_cch.TurnCCH
        costs, offsets, edges = view.paths(s, t)
        algorithm = "cch"
    elif view is not None:
        costs, offsets, edges = view.query().paths(s, t)
        algorithm = "cch" if isinstance(view, cch.RoadCCH) else "ch"
    else:
        parts, costs = [], np.full(s.size, np.inf)
        route = search.route if graph.turns is None else turns.route
        for i in np.flatnonzero(usable):
            r = route(graph, int(s[i]), int(t[i]), "bidijkstra")
            if r.found:
                costs[i] = r.cost
                parts.append((i, graph.path_edges(r.nodes)))
        counts = np.zeros(s.size, dtype=np.int64)
        for i, e in parts:
            counts[i] = e.size
        offsets = np.zeros(s.size + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        edges = np.concatenate([e for _, e in parts]) if parts else np.empty(0, np.int64)
        algorithm = "bidijkstra"
    if not usable.all():                       # blocked ends: no route
        costs = np.where(usable, costs, np.inf)
        keep = np.repeat(usable, np.diff(offsets))
        counts = np.where(usable, np.diff(offsets), 0)
        offsets = np.zeros(s.size + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        edges = edges[keep]
    return Routes(graph, s, t, costs, offsets, edges, algorithm)


def _ends(graph, items, what) -> np.ndarray:
    """Node ids from ``items``: ids, or (lon, lat) points snapped to the
    junction nearest along their road; ``NodeError`` for anything else
    (a mix of ids and points, rows of different lengths)."""
    try:
        arr = np.asarray(items)
    except (TypeError, ValueError, OverflowError):      # ragged: numpy refuses
        raise NodeError(f"{what} must be node ids or (lon, lat) points, all alike, got "
                        f"{validate.describe(items)}") from None
    if arr.ndim == 2:
        nodes = graph.locate_many(validate.points(arr, what))
        if (nodes < 0).any():
            i = int(np.flatnonzero(nodes < 0)[0])
            raise NodeError(f"{what}[{i}] = {arr[i].tolist()} is more than max_snap = "
                            f"{graph.max_snap} m from every open road of graph "
                            f"{graph.graph_id!r}")
        return nodes
    return validate.node_ids(arr, graph.num_nodes, what)
