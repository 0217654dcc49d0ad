"""``Isochrone``: what ``World.isochrone`` answers (the nodes reachable
within one or several cost limits from one or several sources, the
pieces of edges reached, and their outlines), and the checks of its
arguments.

The pieces are kept in cost units along their edges, with the cost at
which each piece begins, so the piece reached within any limit of the
query is exact without another search: within limit ``L`` a piece that
begins ``start`` after its edge's tail and is reached at cost ``reach``
runs to ``min(edge_cost, start + L - reach)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import validate
from .errors import NodeError, QueryError

#: metres of road on each side an outline of a road network covers by default
DEFAULT_ROAD_BUFFER_M = 25.0
_METRES_PER_DEGREE = 6371008.8 * math.pi / 180.0
METHODS = ("buffer", "concave")


def limits_of(max_cost) -> np.ndarray:
    """``max_cost`` (a number, or a sequence of strictly increasing
    numbers: cost bands) as a float64 array; a ``QueryError`` for a
    negative, NaN, non-number, empty or unsorted one. ``inf`` is allowed
    (everything reachable)."""
    scalar = not isinstance(max_cost, (list, tuple, np.ndarray))
    items = [max_cost] if scalar else list(np.asarray(max_cost, dtype=object).ravel()) \
        if isinstance(max_cost, np.ndarray) else list(max_cost)
    if not items:
        raise QueryError("isochrone: max_cost is an empty sequence; give a cost limit "
                         "(a number >= 0) or several increasing ones")
    out = np.empty(len(items))
    for i, v in enumerate(items):
        where = "max_cost" if scalar else f"max_cost[{i}]"
        if isinstance(v, (bool, np.bool_)) or not isinstance(
                v, (int, float, np.integer, np.floating)):
            raise QueryError(f"isochrone: {where} must be a number >= 0 (a cost limit), "
                             f"got {validate.describe(v)}")
        try:
            x = float(v)
        except OverflowError:
            x = math.inf
        if not x >= 0:                         # negative or NaN
            raise QueryError(f"isochrone: {where} must be a number >= 0 (a cost limit), "
                             f"got {v!r}")
        out[i] = x
    if out.size > 1 and not (np.diff(out) > 0).all():
        i = int(np.flatnonzero(np.diff(out) <= 0)[0])
        raise QueryError(f"isochrone: the cost bands in max_cost must increase strictly, "
                         f"got max_cost[{i}] = {out[i]!r} then max_cost[{i + 1}] = "
                         f"{out[i + 1]!r}")
    return out


def sources_of(source, point_dims=2) -> list:
    """``source`` as a list of ends: one node id or point (a tuple, a
    list of floats or a 1-D float array), or a list / array of several.
    ``NodeError`` for an empty one."""
    if validate.is_int(source) and not isinstance(source, (bool, np.bool_)):
        return [source]
    if isinstance(source, tuple):
        return [source]
    if isinstance(source, np.ndarray) and source.ndim == 1 and source.size == point_dims \
            and not np.issubdtype(source.dtype, np.integer):
        return [source]
    if isinstance(source, list) and len(source) == point_dims and all(
            isinstance(x, (float, np.floating)) for x in source):
        return [tuple(source)]          # numbers that are no node ids: one point
    if isinstance(source, (list, np.ndarray)):
        if len(source) == 0:
            raise NodeError("isochrone: source is empty; give a node id, a point or a "
                            "list of them")
        return source
    raise NodeError(f"isochrone: source must be a node id, a point (a tuple) or a list of "
                    f"them, got {validate.describe(source)}")


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

