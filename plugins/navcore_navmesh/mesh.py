"""``NavMeshGraph``: one node per triangle of a navmesh.

Node positions are the triangle centroids; two nodes are joined (both
ways) when their triangles share an edge, at the distance between the
centroids, so the generic csr searches (``astar``, ``dijkstra``, ``bfs``)
work on the triangle graph unchanged. ``locate`` finds the triangle
holding a point through a bucket grid (a derived view, ``LocateIndex``).
"""
from __future__ import annotations

import numpy as np

import navcore
from navcore import validate
from navcore.graph import build_storage

from . import _locate as K

#: where a navmesh keeps its locate index (``graph.view(LOCATE_KEY)``)
LOCATE_KEY = "navcore_navmesh.locate"


class LocateIndex(navcore.DerivedView):
    """A uniform bucket grid over the mesh: each cell lists (by ascending
    id) the triangles whose bounding box overlaps it. Cells are about the
    mean triangle size, so a point tests a handful of triangles: O(1) on
    average. It depends on the geometry only, which updates of walkable
    flags or costs leave alone (the plugin marks it current after them)."""

    def __init__(self, graph):
        super().__init__(graph)
        v, tri = graph.vertices, graph.triangles
        corners = v[tri]                                   # (T, 3, 2)
        lo, hi = corners.min(axis=1), corners.max(axis=1)
        self.origin = v.min(axis=0)
        extent = v.max(axis=0) - self.origin
        size = max(float(np.sqrt(np.mean((hi - lo).prod(axis=1)))), 1e-9)
        # at most about 4 cells per triangle, whatever the triangles' shapes
        size = max(size, float(np.sqrt(max(extent[0] * extent[1], 1e-18) / (4 * len(tri)))))
        self.inv = 1.0 / size
        self.nx = max(int(np.floor(extent[0] * self.inv)) + 1, 1)
        self.ny = max(int(np.floor(extent[1] * self.inv)) + 1, 1)
        # orientation tests within this of zero count as on the edge, so a
        # point on a shared edge is in both triangles whatever the rounding
        self.tol = 1e-12 * max(float(extent.max()), 1.0) ** 2
        c0 = np.floor((lo - self.origin) * self.inv).astype(np.int64)
        c1 = np.floor((hi - self.origin) * self.inv).astype(np.int64)
        c0 = np.minimum(c0, [self.nx - 1, self.ny - 1])
        c1 = np.minimum(c1, [self.nx - 1, self.ny - 1])
        wx, wy = c1[:, 0] - c0[:, 0] + 1, c1[:, 1] - c0[:, 1] + 1
        count = wx * wy
        tid = np.repeat(np.arange(len(tri), dtype=np.int64), count)
        # k-th cell of each triangle's box, without a per-triangle loop
        k = np.arange(tid.size) - np.repeat(np.cumsum(count) - count, count)
        cx = c0[tid, 0] + k % wx[tid]
        cy = c0[tid, 1] + k // wx[tid]
        cell = cy * self.nx + cx
        order = np.lexsort((tid, cell))                    # by cell, then id
        self.cell_tris = tid[order].astype(np.int32)
        self.cell_start = np.zeros(self.nx * self.ny + 1, dtype=np.int64)
        np.cumsum(np.bincount(cell, minlength=self.nx * self.ny),
                  out=self.cell_start[1:])

    def locate_many(self, points) -> np.ndarray:
        p = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 2)
        out = np.empty(len(p), dtype=np.int32)
        g = self.graph
        K.locate_points(np.ascontiguousarray(p[:, 0]), np.ascontiguousarray(p[:, 1]),
                        g.vertices, g.triangles, self.cell_start, self.cell_tris,
                        float(self.origin[0]), float(self.origin[1]), self.inv,
                        self.nx, self.ny, self.tol, out)
        return out


class NavMeshGraph(navcore.NavGraph):
    """A triangle navmesh as a NavGraph: node ``t`` is triangle ``t``.

    Attributes: ``vertices`` float64 ``(V, 2)``, ``triangles`` int32
    ``(T, 3)`` counter-clockwise vertex ids, ``neighbours`` int32 ``(T, 3)``
    (the triangle across edge ``k``, from corner ``k`` to ``k + 1``; ``-1``
    for a wall) and ``free_space``, the shapely geometry triangulated.
    """

    @classmethod
    def from_mesh(cls, vertices, triangles, neighbours, free_space=None, world=None):
        centroids = vertices[triangles].mean(axis=1)
        t = len(triangles)
        src = np.repeat(np.arange(t, dtype=np.int64), 3)
        dst = neighbours.ravel().astype(np.int64)
        keep = dst >= 0                 # each shared edge once from each side
        src, dst = src[keep], dst[keep]
        cost = np.sqrt(((centroids[src] - centroids[dst]) ** 2).sum(axis=1))
        storage = build_storage(src, dst, {"cost": cost}, t, world=world)
        graph = cls(storage, positions=centroids, heuristic="euclidean", directed=False)
        graph.vertices = vertices
        graph.triangles = triangles
        graph.neighbours = neighbours
        graph.free_space = free_space
        return graph

    def locate_index(self) -> LocateIndex:
        """The current locate index (made again if the geometry's version
        moved on without the plugin marking it current)."""
        return self.view(LOCATE_KEY, LocateIndex)

    def locate(self, point) -> int:
        """The triangle holding ``point`` (on an edge or corner: the lowest
        id of the triangles holding it), ``-1`` outside the mesh."""
        p = validate.point(point, 2, "a node id or a point")
        return int(self.locate_index().locate_many(p)[0])

    def locate_many(self, points) -> np.ndarray:
        """int32 triangle per point of ``points`` (``(k, 2)``), ``-1`` outside."""
        try:
            p = np.asarray(points, dtype=np.float64)
        except (TypeError, ValueError):
            raise navcore.NodeError(f"expected (k, 2) points, got {points!r}") from None
        if p.ndim != 2 or p.shape[1] != 2:
            raise navcore.NodeError(f"expected (k, 2) points, got shape {p.shape}")
        if not np.isfinite(p).all():
            raise navcore.NodeError("points must be finite")
        return self.locate_index().locate_many(p)
