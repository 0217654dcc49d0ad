"""Where a (lon, lat) point lies on a road graph: the nearest point on a
road segment (as OSRM, Valhalla and GraphHopper snap), not the nearest
junction. The snapped point is a *phantom node* on the directed edge
through that segment, and on its reverse twin when the road is two-way:
a route from it leaves by the edge's head after the rest of the edge's
cost (``after``), a route to it arrives by the edge's tail plus the cost
so far (``before``), each the segment costs proportional to the fraction
of the segment travelled. One-way roads have one edge, so a start on one
goes forward only and a goal on one is reached from behind only.

Distances are measured in the plane tangent at the query point (x: degrees
of longitude times the cosine of its latitude, y: degrees of latitude):
exact for the roads near it, which are the ones that snap. ``metres`` is
the great-circle distance from the point to its snapped point; a graph's
``max_snap`` (metres, ``None``: no limit) bounds it.

The index is a derived view of the graph (``navcore.views``); updates only
re-weight roads, so it follows them (``refresh``: a closed segment is not
snapped to) instead of being built again.
"""
from __future__ import annotations

import math

import numpy as np

from navcore import validate
from navcore.errors import GraphError, NodeError
from navcore.parallel import kernel_threads, threads_for
from navcore.views import DerivedView

from . import _locate as K
from .network import RoadGraph
from .segments import EARTH_RADIUS_M

VIEW_KEY = "navcore_roads.locate"
#: metres from a road beyond which a point is off the graph by default
DEFAULT_MAX_SNAP = 500.0
#: points per call from which the lookup runs on all cores
PARALLEL_FROM = 256
#: segments per grid cell on average (a ring search then reads a few cells)
_PER_CELL = 2.0


class SegmentIndex(DerivedView):
    """The graph's segments bucketed by their (lon, lat) boxes, with each
    segment's reverse twin and its position in its edge's chain."""

    def __init__(self, graph):
        super().__init__(graph)
        seg = graph.segments
        self.src = seg.src.astype(np.int64)
        self.dst = seg.dst.astype(np.int64)
        m = self.src.size
        on = graph.seg_edge >= 0
        ends = np.concatenate((self.src[on], self.dst[on]))
        lonlat = np.column_stack((seg.lon[ends], seg.lat[ends])) if ends.size else \
            np.zeros((1, 2))
        lo, hi = lonlat.min(axis=0), lonlat.max(axis=0)
        extent = np.maximum(hi - lo, 1e-9)
        count = max(int(on.sum()), 1)
        cell = max(float(np.sqrt(extent[0] * extent[1] * _PER_CELL / count)), 1e-9)
        while True:
            dims = np.maximum(np.ceil(extent / cell).astype(np.int64), 1)
            total = K.segment_cells_count(self.src, self.dst, seg.lon, seg.lat, lo, cell, dims)
            if dims.prod() <= 4 * count + 64 and total <= 8 * count + 64:
                break
            cell *= 1.5
        self.lo, self.cell, self.dims = lo, cell, dims
        self.start, self.segs = K.segment_bucket(self.src, self.dst, seg.lon, seg.lat, lo,
                                                 cell, dims, total)
        #: the segment driving the same two nodes the other way (-1: one-way)
        self.twin = _twins(self.src, self.dst, on, seg.num_nodes)
        #: where each segment lies in ``graph.chain`` (-1: on no edge)
        self.where = np.full(m, -1, dtype=np.int64)
        self.where[graph.chain] = np.arange(graph.chain.size)
        self.refresh()

    def refresh(self) -> None:
        """Follow new costs: only open segments of the graph's edges snap."""
        graph = self.graph
        self.usable = (graph.seg_edge >= 0) & np.isfinite(graph.seg_cost)
        self.mark_current()

    def snap(self, lonlat) -> "Snapped":
        """``Snapped`` of each row of ``lonlat`` (validated float64
        (k, 2)); see ``_locate.snap``."""
        g = self.graph
        seg = g.segments
        k = lonlat.shape[0]
        pair = (k, 2)
        out = (np.empty(pair), np.empty(pair, np.int64), np.empty(pair, np.int64),
               np.empty(pair), np.empty(pair), np.empty(k), np.empty(k, np.int32),
               np.empty(pair, np.int64), np.empty(pair), np.empty(pair, np.int64),
               np.empty(pair))
        index = (self.src, self.dst, seg.lon, seg.lat, self.lo, self.cell, self.dims,
                 self.start, self.segs, self.usable, self.twin)
        road = (g.seg_edge, self.where, g.chain_start, g.chain, g.seg_cost, g.edge_src,
                g.csr.targets, g.walkable)
        args = (np.ascontiguousarray(lonlat), index, road, float(g.max_snap), EARTH_RADIUS_M,
                out)
        if threads_for(g, k, PARALLEL_FROM) < 2:
            K.snap_serial(*args)         # no parallel region: no thread count to set
        else:
            with kernel_threads(g, k, PARALLEL_FROM) as threads:
                (K.snap if threads > 1 else K.snap_serial)(*args)
        return Snapped(g, *out)


def _twins(src, dst, on, n) -> np.ndarray:
    """For each segment the one from its target to its source (on the
    graph: ``on``), or -1."""
    key = np.where(on, src * n + dst, -1)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    want = dst * n + src
    at = np.minimum(np.searchsorted(sorted_key, want), max(key.size - 1, 0))
    twin = np.where((key.size > 0) & (sorted_key[at] == want) & on, order[at], -1) \
        if key.size else np.zeros(0, dtype=np.int64)
    return twin.astype(np.int64)


def index_of(graph) -> SegmentIndex:
    view = graph.view(VIEW_KEY)
    if view is None:
        view = graph.stored_view(VIEW_KEY)
        if view is not None:
            view.refresh()               # the same roads, other costs
        else:
            view = SegmentIndex(graph)
        graph.set_view(VIEW_KEY, view)
    return view


def max_snap(value, error=GraphError):
    """A ``max_snap=`` (metres > 0, or None for no limit) as a float."""
    if value is None:
        return math.inf
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise error(f"max_snap must be metres (a number > 0) or None, got {value!r}")
    x = float(value)
    if not x > 0:
        raise error(f"max_snap must be metres > 0 (or None for no limit), got {value!r}")
    return x


class Snapped:
    """Where (lon, lat) points lie on the roads (``navcore_roads.snap``).

    Per point ``i``: ``points[i]`` the nearest point on an open road
    ((lon, lat)), ``metres[i]`` how far that is (inf: no open road),
    ``valid[i]`` whether it is within the graph's ``max_snap``;
    ``edges[i]`` the directed edges (CSR positions) through it, the
    snapped segment's then its reverse twin's (-1: a one-way road), with
    ``segments[i]`` those segments, ``before[i]`` / ``after[i]`` the cost
    from each edge's tail to the point and from the point to its head;
    where valid, ``exits[i]`` / ``exit_cost[i]`` the junctions a route
    from the point leaves by (the edges' heads) and what the road costs up
    to them, ``entries[i]`` / ``entry_cost[i]`` those a route to it
    arrives by (the tails; -1 / inf for none or a blocked junction), and
    ``nodes[i]`` the walkable junction nearest along the road (-1 when not
    valid): what ``graph.locate`` answers. A point that snaps onto a
    junction itself (a node's own position) is that junction: its only
    exit and entry, at cost 0. Unpacks as
    ``nodes, metres = snap(graph, points)``.
    """

    __slots__ = ("points", "segments", "edges", "before", "after", "metres", "nodes",
                 "exits", "exit_cost", "entries", "entry_cost", "valid")

    def __init__(self, graph, points, segments, edges, before, after, metres, nodes, exits,
                 exit_cost, entries, entry_cost):
        self.points, self.segments, self.edges = points, segments, edges
        self.before, self.after, self.metres, self.nodes = before, after, metres, nodes
        self.exits, self.exit_cost = exits, exit_cost
        self.entries, self.entry_cost = entries, entry_cost
        self.valid = metres <= graph.max_snap

    def __iter__(self):
        return iter((self.nodes, self.metres))

    def __len__(self) -> int:
        return int(self.metres.size)


def lonlat_points(graph, points, what="points"):
    """``points`` as float64 (k, 2) (lon, lat), or a ``NodeError`` (which
    suggests (lat, lon) was meant when swapped they are a point near the
    roads)."""
    if graph.unit is None:
        raise NodeError(f"road graph {graph.graph_id!r} has no coordinates (a DIMACS .gr "
                        f"without .co), so nodes are given as integer ids")
    pts = validate.points(points, what)
    bad = ~((np.abs(pts[:, 0]) <= 180) & (np.abs(pts[:, 1]) <= 90))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        msg = f"{what}[{i}] = {pts[i].tolist()} is not a (lon, lat) in degrees"
        lon, lat = pts[i, 1], pts[i, 0]
        if abs(lon) <= 180 and abs(lat) <= 90:
            swapped = snap_points(graph, np.array([[lon, lat]]))
            if swapped.valid[0]:
                msg += (f"; read as (lat, lon) it is ({lon}, {lat}), {swapped.metres[0]:.0f} m "
                        f"from a road of graph {graph.graph_id!r}: points are (lon, lat)")
        raise NodeError(msg)
    return pts


def snap(graph, points) -> Snapped:
    """Where each (lon, lat) point of ``points`` lies on the roads
    (``Snapped``): the nearest point on an open road segment, how far in
    metres, the edges through it and the costs along them."""
    graph = validate.graph(graph, RoadGraph, error=GraphError)
    return snap_points(graph, lonlat_points(graph, points))


def snap_points(graph, pts) -> Snapped:
    """``snap`` of points ``lonlat_points`` checked already."""
    if graph.num_nodes == 0 or graph.csr.num_edges == 0:
        k = pts.shape[0]
        none = np.full((k, 2), -1, dtype=np.int64)
        inf = np.full((k, 2), np.inf)
        return Snapped(graph, np.full((k, 2), np.nan), none, none, inf, inf,
                       np.full(k, np.inf), np.full(k, -1, np.int32), none, inf, none, inf)
    return index_of(graph).snap(pts)


def node_at(graph, x: float, y: float) -> int:
    """``snap(graph, [(x, y)]).nodes[0]`` without the checks of an array
    (``graph.locate`` on every query end)."""
    if not (abs(x) <= 180 and abs(y) <= 90):
        lonlat_points(graph, [(x, y)], "point")             # raises, with the hint
    if graph.unit is None:
        lonlat_points(graph, [(x, y)])                      # raises: no coordinates
    if graph.num_nodes == 0 or graph.csr.num_edges == 0:
        return -1
    return int(index_of(graph).snap(np.array([[x, y]])).nodes[0])
