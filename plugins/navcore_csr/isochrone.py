"""Isochrones over any graph's CSR view: one bounded multi-source
Dijkstra (``_isochrone.bounded_dijkstra``) on this thread's search
scratch, then the edges leaving the reached nodes as pieces (numpy).
The csr plugin answers ``navcore_isochrone`` with it for every graph
(``trylast``); the road plugin seeds it with the junctions around points
on roads. ``Isochrone``, the answer of every backend's isochrone
(``navcore.Isochrone``), is defined here: its pieces of edges and their
outlines (shapely) are geometry, which the kernel leaves to plugins.

With a current contraction hierarchy (``contract(graph)``, or the road
plugin's ``navcore_roads.contract``) a search that would settle more than
``SWEEP_SHARE`` (a tenth) of the nodes stops there and PHAST answers instead
(``_isochrone.phast``: an upward search, then one linear sweep down the
ranks, which costs the same however much is reached). Its costs are
summed along shortcuts, so they may differ from the search's in the last
bits (the same path's costs added in another order).

>>> import navcore, numpy as np
>>> g = navcore.NavGraph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 4.0])
>>> iso = isochrone(g, np.array([0]), np.zeros(1), np.array([1.0, 4.0]))
>>> iso.nodes.tolist(), iso.costs.tolist(), iso.band.tolist()
([0, 1, 2], [0.0, 1.0, 3.0], [0, 0, 1])
>>> edges, lo, hi = iso.segments()
>>> edges.tolist(), hi.tolist()          # edge 2 (2 -> 3): a quarter of it
([0, 1, 2], [1.0, 1.0, 0.25])
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from navcore import validate
from navcore.errors import QueryError

from . import _isochrone as K
from .contraction import contracted_view
from .search import _SCRATCH_KEY, _new_scratch


#: the share of the nodes from which a search with a current hierarchy
#: gives way to the PHAST sweep: about where a whole sweep costs as much
#: as the search so far, so neither way pays more than twice the better
#: one's time. A 200 x 200 lattice (40k nodes, one core): the sweep took
#: 0.40-0.62 ms whatever it reached, the search 0.21 ms for 5 % of the
#: nodes, 0.45 ms for 10 %, 0.99 ms for 20 %, 7.5 ms for all; on the
#: Helsinki extract (1.9k nodes) the two cost the same near 60 %, but
#: there both take microseconds
SWEEP_SHARE = 0.1


def reached(graph, seeds, seed_cost, limit, hierarchy=None):
    """``(nodes, costs)``: the nodes reached within ``limit`` (ascending
    ids) from ``seeds`` (int array of checked node ids) with
    ``seed_cost`` already spent at each, and their least costs. With
    ``hierarchy`` (a current ``DirectedHierarchy`` of the graph) a search
    past ``SWEEP_SHARE`` of the nodes hands over to PHAST."""
    csr = graph.csr
    seeds = np.ascontiguousarray(seeds, dtype=np.int32)
    seed_cost = np.ascontiguousarray(seed_cost, dtype=np.float64)
    n = graph.num_nodes
    cap = n + 1 if hierarchy is None else int(SWEEP_SHARE * n)
    sc = graph.scratch(_SCRATCH_KEY, _new_scratch)
    gen = sc.next_gen()
    order = np.empty(max(n, 1), dtype=np.int32)
    count = K.bounded_dijkstra(csr.offsets, csr.targets, csr.cost, graph.walkable, seeds,
                               seed_cost, float(limit), sc.stamp, sc.g, sc.hnode, sc.hkey,
                               sc.hpos, 2 * gen, order, cap)
    if count >= 0:
        nodes = np.sort(order[:count])
        return nodes, sc.g[nodes].copy()
    return swept(graph, hierarchy, seeds, seed_cost, limit)


def swept(graph, hierarchy, seeds, seed_cost, limit):
    """``reached`` by PHAST on ``hierarchy`` (current for ``graph``)."""
    h = hierarchy
    walk = graph.walkable
    use = walk[seeds]
    rank = h._rank
    d = np.empty(h.num_nodes)
    K.phast(h._fwd_first, h._fwd_head, h._fwd_w, h._bwd_first, h._bwd_head, h._bwd_w,
            rank[seeds[use]].astype(np.int64), seed_cost[use], float(limit), d)
    cost = d[rank]
    nodes = np.flatnonzero((cost <= limit) & (cost < np.inf) & walk)
    return nodes, cost[nodes]


def pieces(graph, nodes, costs):
    """The edges leaving ``nodes`` (reached at ``costs``) toward walkable
    heads at a finite cost, as ``Isochrone`` pieces ``(edges, start,
    reach, edge_cost)``: each begins at its tail."""
    csr = graph.csr
    lo = csr.offsets[nodes].astype(np.int64)
    deg = csr.offsets[nodes + 1].astype(np.int64) - lo
    first = np.zeros(nodes.size + 1, dtype=np.int64)
    np.cumsum(deg, out=first[1:])
    edges = np.repeat(lo - first[:-1], deg) + np.arange(first[-1], dtype=np.int64)
    reach = np.repeat(costs, deg)
    cost = csr.cost[edges]
    keep = np.isfinite(cost) & graph.walkable[csr.targets[edges]]
    return edges[keep], np.zeros(int(keep.sum())), reach[keep], cost[keep]


def isochrone(graph, sources, source_costs, limits) -> Isochrone:
    """The isochrone of ``limits`` (float64, ascending) from ``sources``
    (checked node ids; ``source_costs`` spent at each already), on the
    graph's contraction hierarchy while one is current (``contract``)."""
    view = contracted_view(graph)
    return isochrone_on(graph, sources, source_costs, limits,
                        None if view is None else view.hierarchy)


def isochrone_on(graph, sources, source_costs, limits, hierarchy) -> Isochrone:
    """``isochrone`` with ``hierarchy`` (a ``DirectedHierarchy`` current
    for ``graph``, or ``None``) for the searches that reach far."""
    nodes, costs = reached(graph, sources, source_costs, limits[-1], hierarchy)
    band = np.searchsorted(limits, costs, side="left").astype(np.int32)
    edges, start, reach, cost = pieces(graph, nodes, costs)
    return Isochrone(nodes.astype(np.int32), costs, band, limits, edges, start, reach, cost,
                     graph)


def warm_up(graph) -> None:
    """Load the kernel on one walkable node of ``graph`` (limit 0)."""
    if not getattr(graph, "csr_built", True):
        return
    for s in graph.first_walkable(1):
        reached(graph, np.array([s]), np.zeros(1), 0.0)
    view = contracted_view(graph)
    if view is not None:
        swept(graph, view.hierarchy, np.zeros(0, np.int32), np.zeros(0), 0.0)


#: metres of road on each side an outline of a road network covers by default
DEFAULT_ROAD_BUFFER_M = 25.0
_METRES_PER_DEGREE = 6371008.8 * math.pi / 180.0
METHODS = ("buffer", "concave")


@dataclass(frozen=True, eq=False)
class Isochrone:
    """What is reachable within ``limits`` (the cost bands, ascending)
    from the sources of ``World.isochrone``:

    * ``nodes`` (int32, ascending ids) the nodes reached within the last
      limit, ``costs`` (float64) their least cost from any source, and
      ``band`` (int32) the first band each lies in: ``costs[i] <=
      limits[band[i]]``, and above the limit before;
    * the pieces of edges reached: ``edges`` (int64 CSR positions),
      ``start`` (the cost along the edge from its tail where the piece
      begins: 0 from a reached tail, more from a source on the edge),
      ``reach`` (the cost at which that point is reached) and
      ``edge_cost``. ``segments(band)`` turns them into fractions.

    ``polygons()`` outlines each band (shapely), ``to_geojson()`` writes
    them as a GeoJSON ``FeatureCollection``.
    """

    nodes: np.ndarray
    costs: np.ndarray
    band: np.ndarray
    limits: np.ndarray
    edges: np.ndarray
    start: np.ndarray
    reach: np.ndarray
    edge_cost: np.ndarray
    graph: object = field(repr=False)
    _cache: dict = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return (f"Isochrone(nodes={self.nodes.size}, limits={self.limits.tolist()}, "
                f"pieces={self.edges.size})")

    def _band(self, band) -> int:
        k = self.limits.size
        if not validate.is_int(band) or isinstance(band, (bool, np.bool_)) \
                or not -k <= int(band) < k:
            raise QueryError(f"isochrone: band must be an index into its {k} limit(s) "
                             f"(0..{k - 1}, or negative from the end), got "
                             f"{validate.describe(band)}")
        return int(band) % k

    def segments(self, band=-1):
        """``(edges, lo, hi)``: every edge reached within ``limits[band]``
        (the last by default) and the part of it reached, as fractions of
        its cost from its tail (``hi == 1``: reached to its head; a piece
        that ends before is a partially reached edge; ``lo > 0`` only on
        an edge a source lies on). An edge reached from both its tail and
        a source on it is listed twice."""
        L = self.limits[self._band(band)]
        stop = self._stops(L)
        use = stop >= 0
        cost = self.edge_cost[use]
        with np.errstate(invalid="ignore", divide="ignore"):
            lo = np.where(cost > 0, self.start[use] / cost, 0.0)
            hi = np.where(cost > 0, stop[use] / cost, 1.0)
        return self.edges[use], lo, hi

    def _stops(self, L) -> np.ndarray:
        """Where each piece ends within limit ``L`` (cost from its edge's
        tail); -1 for a piece not reached within ``L``."""
        with np.errstate(invalid="ignore"):
            stop = np.minimum(self.edge_cost, self.start + (L - self.reach))
        return np.where(self.reach <= L, stop, -1.0)

    def polygons(self, buffer=None, method: str = "buffer", ratio: float = 0.3) -> tuple:
        """One shapely geometry per band: what is reached within
        ``limits[b]``, so each contains the ones before.

        ``method="buffer"`` (default): the reached nodes and pieces of
        edges widened by ``buffer`` on each side (graph units; metres on a
        road network, measured in a local projection around the reached
        nodes; default 25 m on roads, else half the median length of the
        pieces drawn within the last limit, the same for every band).
        ``"concave"``: the concave hull (``shapely.concave_hull`` with
        ``ratio``) of the reached nodes and the ends of the pieces, joined
        with the band before's outline.
        Needs node positions (``QueryError`` without) and shapely."""
        method = validate.choice(method, METHODS, "isochrone: method", QueryError)
        if buffer is not None:
            buffer = validate.distance(buffer, "isochrone: buffer", QueryError)
        if method == "concave":
            ratio = validate.distance(ratio, "isochrone: ratio", QueryError)
            if ratio > 1:
                raise QueryError(f"isochrone: ratio must be between 0 and 1, got {ratio!r}")
        key = (buffer, method, ratio if method == "concave" else None)
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = self._outline(buffer, method, ratio)
        return got

    def _outline(self, buffer, method, ratio) -> tuple:
        try:
            import shapely
        except ImportError:                       # pragma: no cover - a dependency
            raise QueryError("isochrone polygons need shapely (pip install shapely)") from None
        graph = self.graph
        if not graph.has_positions():
            raise QueryError(f"isochrone polygons need node positions; graph "
                             f"{graph.graph_id!r} has none")
        lonlat = bool(getattr(graph, "positions_lonlat", False))
        pos = np.asarray(graph.positions, dtype=np.float64)[:, :2]
        here = pos[self.nodes] if self.nodes.size else pos[:1]
        # planar graphs are drawn as they are; (lon, lat) in metres around
        # the reached nodes' centre
        origin = here.mean(axis=0) if lonlat and here.size else np.zeros(2)
        scale = np.array([_METRES_PER_DEGREE * math.cos(math.radians(origin[1])),
                          _METRES_PER_DEGREE]) if lonlat else np.ones(2)

        def project(xy):
            return (xy - origin) * scale

        drawn = []
        for L in self.limits.tolist():
            stop = self._stops(L)
            use = stop >= 0
            lines = graph._edge_pieces(self.edges[use], self.start[use], stop[use])
            lines = project(lines.reshape(-1, 2)).reshape(-1, 2, 2) if lines.size else \
                np.zeros((0, 2, 2))
            drawn.append((project(pos[self.nodes[self.costs <= L]]), lines))
        # one width for every band (the widest band's pieces measure it), so
        # each band's outline holds the ones before
        r = buffer if buffer is not None else self._default_buffer(lonlat, drawn[-1][1])
        out = []
        for pts, lines in drawn:
            if method == "concave":
                cloud = np.vstack((pts, lines.reshape(-1, 2)))
                geom = shapely.concave_hull(shapely.multipoints(cloud), ratio=ratio) \
                    if cloud.size else shapely.Polygon()
                # a hull of more points need not hold the hull of fewer: with
                # the band before, it holds all of that band's outline too
                if out:
                    geom = shapely.union(geom, out[-1])
            else:
                parts = [shapely.buffer(shapely.multipoints(pts), r)] if pts.size else []
                if lines.size:
                    parts.append(shapely.buffer(
                        shapely.multilinestrings(shapely.linestrings(lines)), r))
                geom = shapely.union_all(parts) if parts else shapely.Polygon()
            if lonlat:
                geom = shapely.transform(geom, lambda xy: xy / scale + origin)
            out.append(geom)
        return tuple(out)

    @staticmethod
    def _default_buffer(lonlat, lines) -> float:
        if lonlat:
            return DEFAULT_ROAD_BUFFER_M
        length = np.hypot(*(lines[:, 1] - lines[:, 0]).T) if lines.size else np.zeros(0)
        length = length[length > 0]
        return 0.5 * float(np.median(length)) if length.size else 0.5

    def to_geojson(self, buffer=None, method: str = "buffer") -> dict:
        """A GeoJSON ``FeatureCollection``: one polygon feature per band
        (``polygons(buffer, method)``), the widest first, with properties
        ``band``, ``max_cost`` (``None`` for ``inf``) and ``nodes`` (how
        many nodes it reaches). Coordinates are (lon, lat) on a road
        network, the graph's own units elsewhere."""
        import shapely.geometry
        polys = self.polygons(buffer, method)
        feats = []
        for b in range(self.limits.size - 1, -1, -1):
            L = float(self.limits[b])
            feats.append({"type": "Feature",
                          "geometry": shapely.geometry.mapping(polys[b]),
                          "properties": {"band": b,
                                         "max_cost": L if math.isfinite(L) else None,
                                         "nodes": int((self.costs <= L).sum())}})
        return {"type": "FeatureCollection", "features": feats}
    @property
    def __geo_interface__(self) -> dict:
        """``to_geojson()`` with the default outline: geopandas, shapely
        and ``navcore_roads.to_geojson`` read an isochrone through it."""
        return self.to_geojson()
