"""Nearest-node lookup for road graphs: every query takes node ids or
(lon, lat) points, and a point snaps to the nearest node on the sphere
(``snap`` also says how far, in metres). Vectorised: one numba call for
any number of points, over both cores.

The index is a derived view of the graph (``navcore.views``); updates only
re-weight roads, so it follows them (``mark_current``) instead of being
built again.
"""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore.errors import NodeError
from navcore.parallel import kernel_threads
from navcore.views import DerivedView

from . import _locate as K
from .network import unit_vectors
from .segments import EARTH_RADIUS_M

VIEW_KEY = "navcore_roads.locate"
#: points per call from which the lookup runs on all cores
PARALLEL_FROM = 256
#: nodes per grid cell on average (a ring search then reads a few cells)
_PER_CELL = 2.0


class LocateIndex(DerivedView):
    """Nodes bucketed by their unit vectors (``_locate.py`` says why that
    makes the answer exact)."""

    def __init__(self, graph):
        super().__init__(graph)
        unit = graph.unit
        lo = unit.min(axis=0) if unit.size else np.zeros(3)
        hi = unit.max(axis=0) if unit.size else np.ones(3)
        extent = np.maximum(hi - lo, 1e-12)
        flat = np.sort(extent)[1:]               # the nodes lie on a (curved) surface
        cell = max(float(np.sqrt(flat[0] * flat[1] * _PER_CELL / max(unit.shape[0], 1))),
                   1e-9)
        dims = np.minimum(np.ceil(extent / cell).astype(np.int64), 1 << 12)
        dims = np.maximum(dims, 1)
        while dims.prod() > 4 * max(unit.shape[0], 1) + 64:
            cell *= 1.5
            dims = np.maximum(np.ceil(extent / cell).astype(np.int64), 1)
        self.lo, self.cell, self.dims = lo, cell, dims
        self.start, self.nodes = K.bucket(unit, lo, cell, dims)
        self.all_nodes = np.ones(unit.shape[0], dtype=np.bool_)

    def nearest(self, lonlat, usable=None):
        """Nearest node (int32) and great-circle metres of each (lon, lat)
        row of ``lonlat`` (validated float64 (k, 2))."""
        q = unit_vectors(lonlat)
        out = np.empty(q.shape[0], dtype=np.int32)
        chord = np.empty(q.shape[0], dtype=np.float64)
        with kernel_threads(self.graph, q.shape[0], PARALLEL_FROM) as threads:
            kernel = K.nearest if threads > 1 else K.nearest_serial
            kernel(q, self.graph.unit, self.lo, self.cell, self.dims, self.start,
                   self.nodes, self.all_nodes if usable is None else usable, out, chord)
        metres = 2.0 * EARTH_RADIUS_M * np.arcsin(np.minimum(chord / 2.0, 1.0))
        return out, metres


def index_of(graph) -> LocateIndex:
    view = graph.view(VIEW_KEY)
    if view is None:
        view = LocateIndex(graph)
        graph.set_view(VIEW_KEY, view)
    return view


def lonlat_points(graph, points, what="points"):
    """``points`` as float64 (k, 2) (lon, lat), or a ``NodeError``."""
    if graph.unit is None:
        raise NodeError(f"road graph {graph.graph_id!r} has no coordinates (a DIMACS .gr "
                        f"without .co), so nodes are given as integer ids")
    pts = validate.points(points, what)
    bad = ~((np.abs(pts[:, 0]) <= 180) & (np.abs(pts[:, 1]) <= 90))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise NodeError(f"{what}[{i}] = {pts[i].tolist()} is not a (lon, lat) in degrees")
    return pts


def snap(graph, points):
    """``(nodes, metres)``: the node nearest to each (lon, lat) point and
    how far it is (great circle)."""
    pts = lonlat_points(graph, points)
    if graph.num_nodes == 0:
        return np.full(pts.shape[0], -1, np.int32), np.full(pts.shape[0], np.inf)
    return index_of(graph).nearest(pts)
